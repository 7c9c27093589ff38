"""One drawing call for every kind of layout: :func:`draw` asks the layout's kind
(:mod:`layouts.kinds`) and draws the picture viz has for it.

A framework :class:`layouts.Layout` is drawn by :func:`~layouts.viz.draw_layout` (the logical tensor
above its memory), a CuTe layout, plain or swizzled, by :func:`~layouts.viz.draw_cute` (CuTe's grid of
offsets), a Triton linear layout by :func:`~layouts.viz.draw_linear` (the tensor grid beside the
bit matrix), and a layout of any other kind by :func:`draw_offsets` (the grid of its offsets, as
CuTe prints a layout). Keyword arguments go to that function unchanged, so each keeps its own options.

>>> import numpy as np
>>> import layouts as ly
>>> from layouts import cute, viz
>>> from layouts.kinds import OffsetTable
>>> from layouts.linear import LinearLayout
>>> kinds = [ly.Layout("NHWC", N=1, C=3, H=2, W=2),
...          cute.composition(cute.Swizzle(3, 0, 3), cute.Layout((8, 8), (8, 1))),
...          LinearLayout.from_bases({"offset": [[0, 1], [0, 2], [1, 0]]}, ["dim0", "dim1"]),
...          OffsetTable(np.array([0, 2, 1, 3]), "a 2x2 transpose", shape=(2, 2))]
>>> [type(viz.draw(k)).__name__ for k in kinds]
['LayoutFigure', 'LayoutFigure', 'LayoutFigure', 'LayoutFigure']
>>> viz.draw("NCHW")
Traceback (most recent call last):
...
layouts.errors.LayoutTypeError: draw: layout must be a layout (a layouts.Layout, a layouts.cute layout, a layouts.linear.LinearLayout or an OffsetTable), got 'NCHW' (a str); a spec needs its sizes: viz.draw(ly.Layout('NCHW', N=..., ...))
"""

from __future__ import annotations

from typing import Any

from ..errors import LayoutTypeError, type_name
from ..kinds import Kind, kind_of

__all__ = ["draw", "draw_kind", "draw_offsets"]


def draw(layout: Any, **options: Any):
    """Draw ``layout`` with the picture of its kind (see the module); ``options`` go to that
    function. Returns its ``matplotlib.figure.Figure``."""
    kind = kind_of(layout)
    if kind is None:
        hint = (f"; a spec needs its sizes: viz.draw(ly.Layout({layout!r}, N=..., ...))"
                if isinstance(layout, str) else "")
        raise LayoutTypeError("draw: layout must be a layout (a layouts.Layout, a layouts.cute layout, a "
                              f"layouts.linear.LinearLayout or an OffsetTable), got {type_name(layout)}{hint}")
    return draw_kind(kind, **options)


def draw_kind(kind: Kind, **options: Any):
    """The picture of a layout given by its kind (what :meth:`layouts.kinds.Kind.picture` draws)."""
    if kind.name == "framework":
        from .compose import draw_layout
        return draw_layout(kind.layout, **options)
    if kind.name == "cute":
        from .cute import draw_cute
        return draw_cute(kind.layout, **options)
    if kind.name == "linear":
        from .linear import draw_linear
        return draw_linear(kind.layout, **options)
    return draw_offsets(kind, **options)


def draw_offsets(kind: Kind, *, color: str = "offset", elem_bytes: int = 2, bank_bytes: int = 4,
                 title: str | None = None):
    """The grid of a layout's offsets, for any kind: row = the first dim's coordinate, column =
    the other dims (colexicographic), each cell its offset, coloured by offset, shared-memory
    bank, row or column (``color``; ``elem_bytes``, ``bank_bytes`` for the banks)."""
    from .cute import render
    from .cute_model import offsets_picture
    return render(offsets_picture(kind.domain.sizes, kind.offsets(), title or kind.label, color, elem_bytes,
                                  bank_bytes))
