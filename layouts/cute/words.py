"""The words for CuTe layouts, written from a layout's parts: its affine part ``inner`` (a
:class:`~layouts.cute.layout.Layout`) and, for a swizzled layout, the composed layout around it. The
classes' ``formula()`` and ``explain()`` and the functions of :mod:`layouts.cute.explain` (which
check their argument's kind) all write through here, so neither layer imports the other's.

>>> from layouts.cute import Layout
>>> L = Layout((4, 8), (8, 1))
>>> formula_text(L, L, None)
'i0*8 + i1'
"""

from __future__ import annotations

from typing import Any

from ..errors import LayoutError
from . import int_tuple as it

__all__ = ["formula_text", "explain_text", "grid_text"]


def _names(shape: Any, prefix: str = "i") -> Any:
    """Coordinate names congruent with ``shape``: ``i`` for an int, ``i0, i1_0, ...`` nested."""
    if not it.is_tuple(shape):
        return prefix
    sep = "" if prefix == "i" else "_"
    return tuple(_names(s, f"{prefix}{sep}{k}") for k, s in enumerate(shape))


def _fmt_names(names: Any) -> str:
    if it.is_tuple(names):
        return "(" + ",".join(_fmt_names(n) for n in names) + ")"
    return names


def _affine(layout: Any) -> str:
    names = it.flatten(_names(layout.shape))
    shapes, strides = it.flatten(layout.shape), it.flatten(layout.stride)
    if not it.is_tuple(shapes):
        names, shapes, strides = (names,), (shapes,), (strides,)
    terms = [n if d == 1 else f"{n}*{d}" for n, s, d in zip(names, shapes, strides) if s != 1 and d != 0]
    return " + ".join(terms).replace("+ -", "- ") or "0"


def formula_text(layout: Any, inner: Any, composed: Any) -> str:
    """The offset formula of ``layout``, whose affine part is ``inner`` and, when swizzled, whose
    composed form is ``composed`` (else None)."""
    text = _affine(inner)
    if composed is None:
        return text
    sw = composed.outer
    if composed.offset:
        text = f"{composed.offset} + {text}"
    if sw.bits == 0:
        return text
    mask = bin(sw.zzz_mask)
    op = f"(x >> {sw.shift})" if sw.shift >= 0 else f"(x << {-sw.shift})"
    return f"x ^ ({op} & {mask}) with x = {text}"


def explain_text(layout: Any, inner: Any, composed: Any) -> str:
    """Shape:stride, sizes, the formula and how a 1-D index splits into coordinates."""
    names = _names(inner.shape)
    head = "cute.Layout" if composed is None else "cute swizzled layout"
    lines = [f"{head} {layout}",
             f"  rank {it.rank(inner.shape)}, depth {it.depth(inner.shape)}, size {layout.size()}, "
             f"cosize {layout.cosize()}",
             f"  offset{_fmt_names(names) if it.is_tuple(names) else '(' + names + ')'} = {formula_text(layout, inner, composed)}"]
    flat_names, flat_shape = it.flatten(names), it.flatten(inner.shape)
    if it.is_tuple(flat_shape) and len(flat_shape) > 1:
        parts, below = [], 1
        for k, (n, s) in enumerate(zip(flat_names, flat_shape)):
            last = k == len(flat_shape) - 1
            div = "i" if below == 1 else f"i // {below}"
            parts.append(f"{n} = {div}" if last else f"{n} = {div} % {s}")
            below *= s
        lines.append(f"  index i -> {', '.join(parts)} (colexicographic: {flat_names[0]} fastest)")
    return "\n".join(lines)


def grid_text(layout: Any, inner: Any, max_cells: int = 4096) -> str:
    """CuTe's ``print_layout`` grid of a rank-1 or rank-2 layout with affine part ``inner``."""
    r = it.rank(inner.shape)
    if r > 2:
        raise LayoutError(f"print_layout draws rank-1 and rank-2 layouts; {layout} has rank {r} "
                          "(group modes with make_layout, or use explain())")
    if r == 1:
        rows, cols = 1, inner.size()
        value = lambda m, n: layout(n)  # noqa: E731
    else:
        rows, cols = it.product(inner.shape[0]), it.product(inner.shape[1])
        value = lambda m, n: layout(m, n)  # noqa: E731
    if rows * cols > max_cells:
        raise LayoutError(f"print_layout: {layout} has {rows * cols} cells, more than {max_cells}")
    width = len(str(max(layout.cosize(), 0))) + 2
    out = [str(layout), "    " + "".join(f"  {n:>{width - 2}} " for n in range(cols))]
    rule = "    " + ("+" + "-" * width) * cols + "+"
    for m in range(rows):
        out.append(rule)
        out.append(f"{m:>2}  " + "".join(f"| {value(m, n):>{width - 2}} " for n in range(cols)) + "|")
    out.append(rule)
    return "\n".join(out)
