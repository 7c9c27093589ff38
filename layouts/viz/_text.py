"""Texts of a picture drawn on raster canvases by filling their glyph outlines, not glyph by glyph.

Matplotlib's Agg canvas draws a text by rasterising each glyph with FreeType and blending it:
the keys and titles of a picture (a few hundred characters) take longer than its thousands of
cells. :func:`outline_texts` lets every ``Text`` and ``Annotation`` of a figure keep its place,
layout, properties and SVG output (matplotlib lays it out as before), and only on an Agg canvas
hands each laid-out line to :meth:`OutlineRenderer.draw_text`, which fills the line's outline
(made once per font, size and text from the glyph outlines :mod:`layouts.viz._cells` caches,
as the cell labels are drawn) in one path.

>>> from matplotlib.text import Text
>>> from layouts.viz._figure import new_figure
>>> fig = new_figure(2, 1)
>>> t = fig.text(0.1, 0.5, "offset = n*CHW")
>>> outline_texts(fig)
1
>>> isinstance(t, Text), t.get_text()
(True, 'offset = n*CHW')
"""

from __future__ import annotations

import weakref

from matplotlib.text import Annotation, Text
from matplotlib.transforms import Affine2D

from ._cells import _label


def _agg(renderer) -> bool:
    from matplotlib.backends.backend_agg import RendererAgg
    return isinstance(renderer, RendererAgg)


class OutlineRenderer:
    """An Agg renderer whose ``draw_text`` fills a line's glyph outlines; everything else is the renderer's."""

    def __init__(self, inner):
        self._inner = inner

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def _line_width(self, s, prop) -> float:
        """The line's width in pixels as matplotlib measured it laying the text out (from its cache)."""
        try:
            from matplotlib.text import _get_text_metrics_with_cache
            return _get_text_metrics_with_cache(self, s, prop, False, self._inner.dpi)[0]
        except (ImportError, TypeError, AttributeError):   # another matplotlib: measure again
            return self._inner.get_text_width_height_descent(s, prop, ismath=False)[0]

    def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
        if ismath or angle % 360 or not s.strip():
            return self._inner.draw_text(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)
        # the line as outlines, in points, y up, the pen starting at 0 on the baseline 0
        path, _ = _label(prop, prop.get_size_in_points(), 1.0, s, "left", "baseline")
        scale = self._inner.points_to_pixels(1.0)
        # FreeType's hinted advances make a line a little wider than its outlines: as wide as
        # matplotlib lays it out, so it ends where the bitmap text would
        ink = path.vertices[:, 0]
        width = self._line_width(s, prop)
        stretch = width / (scale * (ink.max() - ink.min())) if ink.max() > ink.min() else 1.0
        stretch = min(max(stretch, 0.9), 1.1)
        # Agg's draw_text takes the baseline's start with y counted from the top of the canvas
        transform = Affine2D().scale(scale * stretch, scale).translate(x, self._inner.height - y)
        gc.set_linewidth(0)                      # filled, not stroked (a stroke would embolden it)
        self._inner.draw_path(gc, path, transform, rgbFace=gc.get_rgb())


_WRAPPERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _outline_renderer(renderer) -> OutlineRenderer:
    # one wrapper per canvas renderer: matplotlib caches text metrics by renderer
    wrapper = _WRAPPERS.get(renderer)
    if wrapper is None:
        wrapper = _WRAPPERS[renderer] = OutlineRenderer(renderer)
    return wrapper


class _OutlineDraw:
    def draw(self, renderer):
        super().draw(_outline_renderer(renderer) if _agg(renderer) else renderer)


class OutlineText(_OutlineDraw, Text):
    """A ``Text`` drawn by :class:`OutlineRenderer` on Agg canvases."""


class OutlineAnnotation(_OutlineDraw, Annotation):
    """An ``Annotation`` drawn by :class:`OutlineRenderer` on Agg canvases."""


_OUTLINED = {Text: OutlineText, Annotation: OutlineAnnotation}


def outline_texts(fig) -> int:
    """Let every plain ``Text`` and ``Annotation`` of ``fig`` draw as outlines on Agg canvases
    (nothing else about them changes); returns how many were switched."""
    switched = 0
    # the figure's and its Axes' own children (titles included): not findobj, which would make
    # every hidden axis build its ticks
    for t in [*fig.texts, *(a for ax in fig.axes for a in ax.get_children())]:
        if type(t) in _OUTLINED:
            t.__class__ = _OUTLINED[type(t)]
            switched += 1
    return switched
