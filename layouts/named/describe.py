"""How a :class:`~layouts.named.layout.Layout` describes itself: its offset formula, a few lines of
explanation, its Jupyter picture and its CuTe form. The words are written here; the picture and the
CuTe form belong to outer layers (:mod:`layouts.viz`, :mod:`layouts.cute`), reached through
:mod:`layouts.hooks` so that the core never imports them.

>>> from layouts import Layout
>>> Layout("NHWC", N=2, C=16, H=5, W=4).formula()
'n*HWC + h*WC + w*C + c'
"""

from __future__ import annotations

from typing import Any

from ..errors import LayoutTypeError
from ..hooks import service
from .naming import canonical_order, coordinate_names
from .parts import LayoutParts

__all__ = ["Describe"]


class Describe(LayoutParts):
    """:meth:`formula`, :meth:`explain`, :meth:`to_cute` and Jupyter's display, for Layout."""

    __slots__ = ()

    def formula(self, numeric: bool = False) -> str:
        """The offset as a formula, as the EdgeBoard article writes it; with ``numeric=True`` the
        strides as numbers.

        >>> from layouts import Layout
        >>> Layout("CHWN", N=2, C=16, H=5, W=4).formula()
        'c*HWN + h*WN + w*N + n'
        >>> Layout("NCHW16c", N=1, C=32, H=5, W=4).formula()
        'n*C1*H*W*16 + c1*H*W*16 + h*W*16 + w*16 + c0'
        >>> Layout("NHWC", N=2, C=16, H=5, W=4).formula(numeric=True)
        'n*320 + h*64 + w*16 + c'
        """
        layout = self
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

    def explain(self) -> str:
        """A few lines that say what this layout is: shape, strides, padding, formula.

        >>> from layouts import Layout
        >>> print(Layout("NCHW", N=1, C=2, H=3, W=4).explain().splitlines()[3])
          offset(n,c,h,w) = n*CHW + c*HW + h*W + w
        """
        layout = self
        names = layout.dim_names
        args = ",".join(a.lower() for a in _logical_order(layout))
        lines = [
            repr(layout),
            f"  physical shape ({', '.join(names)}) = {layout.shape}",
            "  element strides " + " ".join(f"{k}={v}" for k, v in layout.strides.items()),
        ]
        head = f"  offset({args}) = "
        lines.append(head + self.formula())
        lines.append(" " * (len(head) - 2) + "= " + self.formula(numeric=True))
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

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        """Jupyter's rich display: a picture (drawn lazily by :mod:`layouts.viz`) and plain text."""
        return service("mimebundle")(self, include=include, exclude=exclude)

    def to_cute(self) -> Any:
        """This layout as a CuTe layout (:mod:`layouts.cute`): one mode per axis in canonical order,
        a blocked axis hierarchical with its innermost block first.

        >>> from layouts import Layout
        >>> print(Layout("NCHW16c", N=1, C=32, H=2, W=2).to_cute())
        (1,(16,2),2,2):(128,(1,64),32,16)
        """
        return service("to_cute")(self)


def _extent_names(layout: Describe) -> list[str]:
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


def _stride_atoms(layout: Describe) -> list[list[str]]:
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


def _logical_order(layout: Describe) -> str:
    return canonical_order(layout.axes)
