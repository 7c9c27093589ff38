"""Words for a layout, as functions: its offset formula and a short description (the same text as
the methods :meth:`Layout.formula <layouts.Layout.formula>` and :meth:`Layout.explain
<layouts.Layout.explain>`, which write it in :mod:`layouts.named.describe`).

>>> from layouts import Layout
>>> print(explain(Layout("NHWC", N=1, H=5, W=4, C=3, align={"H": 16})))
Layout('NHWC', N=1, C=3, H=5, W=4, align={'H': 16})
  physical shape (N, H, W, C) = (1, 5, 4, 3)
  element strides N=80 H=16 W=3 C=1
  offset(n,c,h,w) = n*H*align16(WC) + h*align16(WC) + w*C + c
                  = n*80 + h*16 + w*3 + c
  size 80 elements for 60 values: 20 padding slots (row pitch)
"""

from __future__ import annotations

from ..errors import LayoutTypeError
from .layout import Layout

__all__ = ["formula", "explain"]


def _check(layout: object) -> None:
    if not isinstance(layout, Layout):
        raise LayoutTypeError(f"expected a layouts.Layout, got {type(layout).__name__} "
                              "(build one with Layout('NCHW', N=..., C=..., H=..., W=...))")


def formula(layout: Layout, numeric: bool = False) -> str:
    """``"n*HWC + h*WC + w*C + c"`` for NHWC; with ``numeric=True`` the strides as numbers.

    >>> from layouts import Layout
    >>> formula(Layout("CHWN", N=2, C=3, H=4, W=5), numeric=True)
    'c*40 + h*10 + w*2 + n'
    >>> formula("NCHW")
    Traceback (most recent call last):
    layouts.errors.LayoutTypeError: expected a layouts.Layout, got str (build one with Layout('NCHW', N=..., C=..., H=..., W=...))
    """
    _check(layout)
    return layout.formula(numeric=numeric)


def explain(layout: Layout) -> str:
    """A few lines: the layout, its physical shape, strides, formula and padding."""
    _check(layout)
    return layout.explain()
