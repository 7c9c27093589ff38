"""From a :class:`layouts.Layout` (NCHW, nChw16c, NC1HWC0, pitched rows...) to its CuTe form.

One top-level mode per logical axis, in ``canonical_order(L.axes)`` (N, C, H, W...). An axis
without blocks is one mode ``size:stride``; a blocked axis is hierarchical, the innermost block
first: ``nChw8c``'s C is ``(8, C/8):(1, 8HW)``. Pitch and alignment are in the strides, so the
CuTe layout gives the same offset as :meth:`layouts.Layout.offset` for every coordinate.

>>> import layouts as ly
>>> L = ly.Layout("nChw8c", N=2, C=16, H=3, W=4)
>>> C = to_cute(L)
>>> print(C)
(2,(8,2),3,4):(192,(1,96),32,8)
>>> C(1, 11, 2, 3) == L.offset(n=1, c=11, h=2, w=3)
True
"""

from __future__ import annotations

from typing import Any

from ..errors import LayoutTypeError, type_name
from ..named.kind import axis_modes
from ..named.layout import Layout as NamedLayout
from .layout import Layout

__all__ = ["to_cute"]


def to_cute(layout: Any) -> Layout:
    """The CuTe layout of a :class:`layouts.Layout`: ``to_cute(L)(coords) == L.offset(**coords)``
    for every in-range coordinate (coordinates in ``canonical_order(L.axes)``); its size is the
    padded element count (the product of the padded axis sizes).

    Examples
    --------
    >>> import layouts as ly
    >>> print(to_cute(ly.Layout("NHWC", N=1, C=3, H=2, W=2)))
    (1,3,2,2):(12,1,6,3)
    >>> print(to_cute(ly.Layout("HWC", H=2, W=3, C=3, pitch={"H": 12})))
    (3,2,3):(1,12,3)
    """
    if not isinstance(layout, NamedLayout):
        raise LayoutTypeError(f"to_cute: expected a layouts.Layout, got {type_name(layout)}")
    modes = []
    for _, sizes, strides in axis_modes(layout):
        if len(sizes) == 1:
            modes.append((sizes[0], strides[0]))
        else:
            modes.append((sizes, strides))
    return Layout(tuple(m[0] for m in modes), tuple(m[1] for m in modes))
