"""Words for a layout: its offset formula and a short description.

>>> from layouts import Layout
>>> print(Layout("NHWC", N=1, H=5, W=4, C=3, align={"H": 16}).explain())
Layout('NHWC', N=1, C=3, H=5, W=4, align={'H': 16})
  physical shape (N, H, W, C) = (1, 5, 4, 3)
  element strides N=80 H=16 W=3 C=1
  offset(n,c,h,w) = n*H*align16(WC) + h*align16(WC) + w*C + c
                  = n*80 + h*16 + w*3 + c
  size 80 elements for 60 values: 20 padding slots (row pitch)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import LayoutTypeError
from .naming import canonical_order, coordinate_names

#: the old private name, which viz imported
_coordinate_names = coordinate_names

if TYPE_CHECKING:  # pragma: no cover
    from .layout import Layout




def _extent_names(layout: "Layout") -> list[str]:
    """How the formula names the extent of each physical dim (``W``, ``C1``, ``16``, ``C0``)."""
    out = []
    for d, coord in zip(layout.parsed.dims, coordinate_names(layout)):
        if isinstance(d.block, int):
            out.append(str(d.block))
        elif d.block is not None or layout.parsed.blocks_of(d.axis):
            out.append(coord.upper())
        else:
            out.append(d.axis)
    return out


def _product(atoms: list[str]) -> str:
    if not atoms:
        return "1"
    if all(len(a) == 1 and a.isalpha() for a in atoms):
        return "".join(atoms)
    return "*".join(atoms)


def _stride_atoms(layout: "Layout") -> list[list[str]]:
    """Symbolic stride of each physical dim, as a list of factors."""
    names = layout.dim_names
    extents = _extent_names(layout)
    align, pitch = layout.align, layout.pitch
    atoms: list[list[str]] = [[] for _ in names]
    inner: list[str] = []
    for i in reversed(range(len(names))):
        if names[i] in pitch:
            inner = [str(pitch[names[i]])]
        elif names[i] in align:
            inner = [f"align{align[names[i]]}({_product(inner)})"]
        atoms[i] = list(inner)
        inner = [extents[i]] + inner
    return atoms


def _check(layout: "Layout") -> None:
    from .layout import Layout
    if not isinstance(layout, Layout):
        raise LayoutTypeError(f"expected a layouts.Layout, got {type(layout).__name__} "
                        "(build one with Layout('NCHW', N=..., C=..., H=..., W=...))")


def formula(layout: "Layout", numeric: bool = False) -> str:
    """``"n*HWC + h*WC + w*C + c"`` for NHWC; with ``numeric=True`` the strides as numbers.

    >>> from layouts import Layout
    >>> formula(Layout("CHWN", N=2, C=3, H=4, W=5), numeric=True)
    'c*40 + h*10 + w*2 + n'
    >>> formula("NCHW")
    Traceback (most recent call last):
    layouts.errors.LayoutTypeError: expected a layouts.Layout, got str (build one with Layout('NCHW', N=..., C=..., H=..., W=...))
    """
    _check(layout)
    if not isinstance(numeric, bool):
        raise LayoutTypeError(f"numeric must be True or False, got {type(numeric).__name__}")
    terms = []
    coords = coordinate_names(layout)
    for coord, atoms, stride in zip(coords, _stride_atoms(layout), layout.stride_tuple):
        if numeric:
            terms.append(coord if stride == 1 else f"{coord}*{stride}")
        else:
            terms.append(coord if not atoms else f"{coord}*{_product(atoms)}")
    return " + ".join(terms)


def explain(layout: "Layout") -> str:
    """A few lines: the layout, its physical shape, strides, formula and padding."""
    _check(layout)
    names = layout.dim_names
    args = ",".join(a.lower() for a in _logical_order(layout))
    lines = [
        repr(layout),
        f"  physical shape ({', '.join(names)}) = {layout.shape}",
        "  element strides " + " ".join(f"{k}={v}" for k, v in layout.strides.items()),
    ]
    head = f"  offset({args}) = "
    lines.append(head + formula(layout))
    lines.append(" " * (len(head) - 2) + "= " + formula(layout, numeric=True))
    where = []
    for d, coord in zip(layout.parsed.dims, coordinate_names(layout)):
        blocks = layout.parsed.blocks_of(d.axis)
        if not blocks:
            continue
        a = d.axis.lower()
        sizes = [layout.shape[names.index(x.name)] for x in blocks]
        if not d.is_block:
            total = "*".join(map(str, sizes))
            div = total if len(sizes) == 1 else f"({total})"
            where.append(f"{coord} = {a} // {div}, {coord.upper()} = ceil({d.axis}/{div}) = {layout.shape[names.index(d.name)]}")
        else:
            later = sizes[blocks.index(d) + 1:]
            term = f"({a} // {'*'.join(map(str, later))})" if later else a
            where.append(f"{coord} = {term} % {layout.shape[names.index(d.name)]}")
    for k, text in enumerate(where):
        lines.append(("  where " if k == 0 else "        ") + text)
    pad = layout.size - layout.count
    if pad:
        why = []
        if any(layout.dims[a] != n for a, n in layout.padded_dims.items()):
            why.append("block padding: " + ", ".join(f"{a} {layout.dims[a]} -> {n}" for a, n in layout.padded_dims.items() if n != layout.dims[a]))
        if layout.align or layout.pitch:
            why.append("row pitch")
        lines.append(f"  size {layout.size} elements for {layout.count} values: {pad} padding slots ({'; '.join(why)})")
    else:
        lines.append(f"  size {layout.size} elements, no padding")
    return "\n".join(lines)


def _logical_order(layout: "Layout") -> str:
    return canonical_order(layout.axes)
