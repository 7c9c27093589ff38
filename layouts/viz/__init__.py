"""Pictures of layouts: the logical tensor beside the physical memory, with matplotlib (no pyplot).

>>> import layouts as ly
>>> from layouts import viz
>>> print(viz.ascii(ly.Layout("NHWC", N=1, C=3, H=2, W=2)))
Layout('NHWC', N=1, C=3, H=2, W=2)   offset = n*HWC + h*WC + w*C + c
  0: 00 04 08 | 01 05 09 || 02 06 10 | 03 07 11
[a:0] c+1 (stride 1)   [a:1] w+1 (stride 3)   [a:2] h+1 (stride 6)

Every drawing function returns a ``matplotlib.figure.Figure`` (drawn on an Agg canvas, never
registered with pyplot, so a notebook shows it once; ``fig.show()`` displays it in Jupyter and
elsewhere says to use ``layouts.viz.save(fig, "fig.png")``) and accepts ``ax=`` to draw into an
existing Axes. Figures are laid out for a 9-inch (900 px) notebook column: cell labels are at least
7 pt or left out, and the key under a strip says so. ``explore()`` is an interactive explorer
(ipywidgets), ``write_gallery(dir)`` writes every kind of figure. :data:`layouts.viz.limits.MAX_CELLS`
bounds the size of a picture, checked before anything is built:

>>> viz.draw_layout(ly.Layout("NCHW", N=1, C=1000, H=100, W=100))
Traceback (most recent call last):
...
layouts.errors.LayoutError: the memory of Layout('NCHW', N=1, C=1000, H=100, W=100) needs 10000000 cells, more than layouts.viz.limits.MAX_CELLS = 50000; ...
"""

from ._figure import LayoutFigure, save, to_png, to_svg
from ._model import default_wrap
from .ascii import ascii
from .compose import compare, draw_article_figure, draw_layout, draw_logical
from .conversion import draw_conversion
from .cute import draw_cute
from .cute_svg import cute_svg
from .explorer import Explorer, ExplorerModel, explore
from .gallery import write_gallery
from .tour_figures import save_tour_figures

__all__ = [
    "draw_layout", "draw_logical", "compare", "draw_article_figure", "draw_conversion", "ascii",
    "save_tour_figures", "to_png", "to_svg", "save", "default_wrap", "LayoutFigure", "MAX_CELLS",
    "explore", "Explorer", "ExplorerModel", "write_gallery", "draw_cute", "cute_svg",
    "draw_linear", "draw_banks", "draw", "draw_offsets",
]

# Pictures of the GPU kinds load with their modules, when first asked for.
_LAZY = {"draw_linear": "linear", "draw_banks": "banks", "draw": "draw_any", "draw_offsets": "draw_any"}


def __getattr__(name):
    if name == "MAX_CELLS":             # read here, set in layouts.viz.limits (every picture reads it there)
        from . import limits
        return limits.MAX_CELLS
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'layouts.viz' has no attribute {name!r}")
