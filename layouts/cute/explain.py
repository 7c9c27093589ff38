"""Words and text pictures for CuTe layouts: the offset formula (in the style of
:meth:`layouts.Layout.formula`), ``explain`` and CuTe's ``print_layout`` grid.

>>> from layouts.cute import Layout
>>> print(Layout((2, (2, 2)), (4, (1, 2))).explain())
cute.Layout (2,(2,2)):(4,(1,2))
  rank 2, depth 2, size 8, cosize 8
  offset(i0,(i1_0,i1_1)) = i0*4 + i1_0 + i1_1*2
  index i -> i0 = i % 2, i1_0 = i // 2 % 2, i1_1 = i // 4 (colexicographic: i0 fastest)
"""

from __future__ import annotations

from typing import Any

from ..errors import LayoutError, LayoutTypeError, type_name
from . import int_tuple as it

__all__ = ["formula", "explain", "print_layout", "layout_text"]


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


def _inner(layout: Any):
    from .layout import Layout
    from .swizzle import ComposedLayout
    if isinstance(layout, ComposedLayout):
        return layout.inner, layout
    if isinstance(layout, Layout):
        return layout, None
    raise LayoutTypeError(f"expected a layouts.cute.Layout or a swizzled layout, got {type_name(layout)}")


def _affine(layout: Any) -> str:
    names = it.flatten(_names(layout.shape))
    shapes, strides = it.flatten(layout.shape), it.flatten(layout.stride)
    if not it.is_tuple(shapes):
        names, shapes, strides = (names,), (shapes,), (strides,)
    terms = [n if d == 1 else f"{n}*{d}" for n, s, d in zip(names, shapes, strides) if s != 1 and d != 0]
    return " + ".join(terms).replace("+ -", "- ") or "0"


def formula(layout: Any) -> str:
    """The offset as a formula of the coordinates ``i0, i1, ...`` (nested modes ``i1_0``); a size-1
    or stride-0 mode adds nothing. A swizzled layout shows its swizzle around the affine part.

    >>> from layouts.cute import Layout, Swizzle, composition
    >>> formula(Layout((4, (2, 3)), (2, (1, 8))))
    'i0*2 + i1_0 + i1_1*8'
    >>> formula(composition(Swizzle(3, 3, 3), Layout((8, 64), (64, 1))))
    'x ^ ((x >> 3) & 0b111000) with x = i0*64 + i1'
    """
    inner, composed = _inner(layout)
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


def explain(layout: Any) -> str:
    """Shape:stride, the sizes, the offset formula and how a 1-D index splits into coordinates.

    >>> from layouts.cute import Layout
    >>> print(Layout(8, 2).explain())
    cute.Layout 8:2
      rank 1, depth 0, size 8, cosize 15
      offset(i) = i*2
    """
    inner, composed = _inner(layout)
    names = _names(inner.shape)
    head = "cute.Layout" if composed is None else "cute swizzled layout"
    lines = [f"{head} {layout}",
             f"  rank {it.rank(inner.shape)}, depth {it.depth(inner.shape)}, size {layout.size()}, "
             f"cosize {layout.cosize()}",
             f"  offset{_fmt_names(names) if it.is_tuple(names) else '(' + names + ')'} = {formula(layout)}"]
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


def layout_text(layout: Any, max_cells: int = 4096) -> str:
    """CuTe's ``print_layout`` as a string: a rank-2 layout as its grid of offsets, a rank-1
    layout as one row (see :func:`print_layout`).

    >>> from layouts.cute import Layout
    >>> print(layout_text(Layout(3, 2)).splitlines()[3])
     0  | 0 | 2 | 4 |
    """
    inner, _ = _inner(layout)
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


def print_layout(layout: Any) -> None:
    """Print a rank-2 (or rank-1) layout as CuTe's ``print_layout`` does: row ``m``, column
    ``n``, the offset ``layout(m, n)`` in each cell.

    >>> from layouts.cute import Layout
    >>> print_layout(Layout((2, 3), (3, 1)))
    (2,3):(3,1)
          0    1    2
        +---+---+---+
     0  | 0 | 1 | 2 |
        +---+---+---+
     1  | 3 | 4 | 5 |
        +---+---+---+
    """
    print(layout_text(layout))
