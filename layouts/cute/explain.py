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

from ..errors import LayoutTypeError, type_name
from .layout import Layout
from .swizzle import ComposedLayout
from .words import explain_text, formula_text, grid_text

__all__ = ["formula", "explain", "print_layout", "layout_text"]


def _inner(layout: Any):
    if isinstance(layout, ComposedLayout):
        return layout.inner, layout
    if isinstance(layout, Layout):
        return layout, None
    raise LayoutTypeError(f"expected a layouts.cute.Layout or a swizzled layout, got {type_name(layout)}")


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
    return formula_text(layout, inner, composed)


def explain(layout: Any) -> str:
    """Shape:stride, the sizes, the offset formula and how a 1-D index splits into coordinates.

    >>> from layouts.cute import Layout
    >>> print(Layout(8, 2).explain())
    cute.Layout 8:2
      rank 1, depth 0, size 8, cosize 15
      offset(i) = i*2
    """
    inner, composed = _inner(layout)
    return explain_text(layout, inner, composed)


def layout_text(layout: Any, max_cells: int = 4096) -> str:
    """CuTe's ``print_layout`` as a string: a rank-2 layout as its grid of offsets, a rank-1
    layout as one row (see :func:`print_layout`).

    >>> from layouts.cute import Layout
    >>> print(layout_text(Layout(3, 2)).splitlines()[3])
     0  | 0 | 2 | 4 |
    """
    inner, _ = _inner(layout)
    return grid_text(layout, inner, max_cells)


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
