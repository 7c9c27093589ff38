"""One drawing call for every kind of layout: :func:`draw` picks the picture the kind has.

A framework :class:`layouts.Layout` is drawn by :func:`~layouts.viz.draw_layout` (the logical tensor
above its memory), a CuTe layout, plain or swizzled, by :func:`~layouts.viz.draw_cute` (CuTe's grid of
offsets), and a Triton linear layout by :func:`~layouts.viz.draw_linear` (the tensor grid beside the
bit matrix). Keyword arguments go to that function unchanged, so each keeps its own options.

>>> import layouts as ly
>>> from layouts import cute, viz
>>> from layouts.linear import LinearLayout
>>> kinds = [ly.Layout("NHWC", N=1, C=3, H=2, W=2),
...          cute.composition(cute.Swizzle(3, 0, 3), cute.Layout((8, 8), (8, 1))),
...          LinearLayout.from_bases({"offset": [[0, 1], [0, 2], [1, 0]]}, ["dim0", "dim1"])]
>>> [type(viz.draw(k)).__name__ for k in kinds]
['LayoutFigure', 'LayoutFigure', 'LayoutFigure']
>>> viz.draw("NCHW")
Traceback (most recent call last):
...
layouts.errors.LayoutTypeError: draw: layout must be a layouts.Layout, a layouts.cute layout (plain or swizzled) or a layouts.linear.LinearLayout, got 'NCHW' (a str); a spec needs its sizes: viz.draw(ly.Layout('NCHW', N=..., ...))
"""

from __future__ import annotations

from typing import Any

from ..errors import LayoutTypeError, type_name

__all__ = ["draw"]


def _drawer(layout: Any):
    """The drawing function for ``layout``'s kind, or None."""
    from ..named.layout import Layout
    if isinstance(layout, Layout):
        from .compose import draw_layout
        return draw_layout
    from ..cute.layout import Layout as CuteLayout
    from ..cute.swizzle import ComposedLayout
    if isinstance(layout, (CuteLayout, ComposedLayout)):
        from .cute import draw_cute
        return draw_cute
    from ..linear.layout import LinearLayout
    if isinstance(layout, LinearLayout):
        from .linear import draw_linear
        return draw_linear
    return None


def draw(layout: Any, **options: Any):
    """Draw ``layout`` with the picture of its kind (see the module); ``options`` go to that
    function. Returns its ``matplotlib.figure.Figure``."""
    drawer = _drawer(layout)
    if drawer is None:
        hint = (f"; a spec needs its sizes: viz.draw(ly.Layout({layout!r}, N=..., ...))"
                if isinstance(layout, str) else "")
        raise LayoutTypeError("draw: layout must be a layouts.Layout, a layouts.cute layout (plain or swizzled) or "
                              f"a layouts.linear.LinearLayout, got {type_name(layout)}{hint}")
    return drawer(layout, **options)
