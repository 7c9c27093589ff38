"""Whole pictures: one layout (logical panel beside its memory), several layouts compared, the article figure."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import LayoutError
from ..layout import Layout
from . import _model, _style
from ._figure import Panel, axes_cell_inches, pack
from .logical import MARGINS as LOGICAL_MARGINS
from .logical import draw_logical as _draw_logical_panel
from .logical import geometry
from .strips import MARGINS as STRIP_MARGINS
from .strips import draw_strip

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def resolve_color_by(layout: Layout, color_by) -> str | None:
    """'auto' colours by C when the layout has it, else by the axis of the innermost physical dim."""
    if color_by == "auto":
        return "C" if "C" in layout.axes else layout.parsed.dims[-1].axis
    return _model.check_color_by(layout, color_by)


def strip_colors(model: _model.StripModel, axis: str | None, extent: int) -> np.ndarray:
    from matplotlib.colors import to_rgba
    if axis is None:
        out = np.tile(np.array(to_rgba(_style.PLAIN_FACE)), (model.layout.size, 1))
        out[model.padding] = to_rgba(_style.PAD_FACE)
        return out
    return _style.value_colors(model.coords[axis], extent)


def logical_colors(model: _model.LogicalModel, axis: str | None, extent: int) -> np.ndarray:
    from matplotlib.colors import to_rgba
    if axis is None:
        return np.tile(np.array(to_rgba(_style.PLAIN_FACE)), (model.layout.count, 1))
    return _style.value_colors(model.coords[axis], extent)


def describe(layout: Layout) -> str:
    return f"{layout.spec}    offset = {layout.formula()}"


def strip_panel(layout: Layout, *, label: str, axis: str | None, extent: int, wrap: int | None,
                marker: str | None, title: str | None = None, **kw) -> Panel:
    model = _model.strip_model(layout, label=label)
    wrap = int(wrap) if wrap else _model.default_wrap(layout)
    if wrap < 1:
        raise LayoutError(f"wrap must be a positive number of slots per row, got {wrap}")
    rows = -(-layout.size // wrap)
    colors = strip_colors(model, axis, extent)
    title = describe(layout) if title is None else title

    def draw(ax, cell_in):
        ax.set_label(f"memory: {layout!r}")
        return draw_strip(ax, model, wrap=wrap, colors=colors, cell_in=cell_in, marker=marker, title=title, **kw)
    panel = Panel(wrap, max(rows, 1), draw, STRIP_MARGINS, min_width=text_width(title, 8.5) + 0.3)
    panel.model = model
    return panel


def logical_panel(layout: Layout, *, label: str, axis: str | None, extent: int, title: str | None = None,
                  per_row: int | None = None, **kw) -> Panel:
    model = _model.logical_model(layout, label=label)
    geom = geometry(model, per_row=per_row)
    colors = logical_colors(model, axis, extent)
    if title is None:
        dims = ", ".join(f"{a}={layout.dims[a]}" for a in model.order)
        shows = "number = " + " + ".join(_row_major_terms(model.order)) if label == "logical" else f"cells show {label}"
        title = f"logical {model.order}  ({dims}):  {shows}"
    def draw(ax, cell_in):
        ax.set_label(f"logical: {layout!r}")
        return _draw_logical_panel(ax, model, colors=colors, cell_in=cell_in, geom=geom, title=title, **kw)
    panel = Panel(geom.cols, geom.rows, draw, LOGICAL_MARGINS, min_width=text_width(title, 8.5) + 0.3)
    panel.model = model
    return panel


def text_width(text: str, fontsize: float) -> float:
    """A generous estimate of a one-line text's width in inches (DejaVu Sans averages ~0.6 em)."""
    return len(text or "") * fontsize * 0.6 / 72


def _row_major_terms(order: str) -> list:
    terms = []
    for i, a in enumerate(order):
        rest = order[i + 1:]
        terms.append(f"{a.lower()}*{rest}" if rest else a.lower())
    return terms


def _check_total(panels) -> None:
    total = sum(int(np.ceil(p.cols * p.rows)) for row in panels for p in row)
    _model.check_cells(total, "this picture")


def draw_layout(layout: Layout, ax=None, *, label: str = "logical", color_by="auto", wrap: int | None = None,
                logical: bool | None = None, marker: str | None = "a", title: str | None = None, cell: float | None = None):
    """Draw a layout: its logical tensor beside its physical memory. Returns the Figure.

    With ``ax=``, only the physical strip is drawn, into that Axes (its figure is returned).

    Parameters
    ----------
    label : {"logical", "offset", "coords", "none"}
        What each cell shows: the element's logical number (row-major over NCHW, as the EdgeBoard
        article numbers 000..639), its offset in memory, or its coordinates.
    color_by : str or None
        The axis whose coordinate colours the cells (``"c"``); ``"auto"`` picks C when present.
    wrap : int, optional
        Slots per row of the memory strip; by default a stride that keeps runs whole.
    logical : bool, optional
        Draw the logical panel too (default: yes, unless ``ax`` is given).
    marker : str or None
        Letter of the stride-level tags (``"a"`` gives ``[a:0]``, ``[a:1]``...).
    cell : float, optional
        Inches per cell (default: 0.24, smaller for big layouts).
    """
    _model.check_label(label)
    axis = resolve_color_by(layout, color_by)
    extent = layout.dims[axis] if axis else 1
    strip = strip_panel(layout, label=label, axis=axis, extent=extent, wrap=wrap, marker=marker, title=title)
    if ax is not None:
        _check_total([[strip]])
        if logical:
            raise LayoutError("draw_layout(ax=...) draws the memory strip only; call layouts.viz.draw_logical(layout, ax=...) for the logical panel")
        fig = ax.get_figure()
        strip.draw(ax, axes_cell_inches(ax, strip.cols, strip.rows))
        return fig
    if logical is None:
        logical = True
    panels = [strip]
    if logical:
        panels.insert(0, logical_panel(layout, label="logical" if label == "offset" else label, axis=axis, extent=extent))
    grid = [panels] if sum(p.cols for p in panels) <= 72 else [[p] for p in panels]
    _check_total(grid)
    return pack(grid, cell_in=cell)


def draw_logical(layout: Layout, ax=None, *, label: str = "logical", color_by="auto", per_row: int | None = None,
                 title: str | None = None, cell: float | None = None):
    """Draw only the logical panel (the grid of H x W planes). Returns the Figure."""
    axis = resolve_color_by(layout, color_by)
    panel = logical_panel(layout, label=label, axis=axis, extent=layout.dims[axis] if axis else 1, title=title, per_row=per_row)
    _check_total([[panel]])
    if ax is not None:
        panel.draw(ax, axes_cell_inches(ax, panel.cols, panel.rows))
        return ax.get_figure()
    return pack([[panel]], cell_in=cell)


def _as_layouts(layouts) -> list:
    out = list(layouts)
    if not out:
        raise LayoutError("compare() needs at least one Layout")
    for L in out:
        if not isinstance(L, Layout):
            raise LayoutError(f"compare() takes Layout objects, got {type(L).__name__} {L!r}")
    return out


def compare(layouts: Sequence[Layout], *, label: str = "logical", color_by="auto", wrap=None, logical: bool = True,
            columns: int = 2, markers: str = LETTERS, titles: Sequence[str] | None = None, cell: float | None = None):
    """Several layouts of the same tensor, drawn with one shared colouring. Returns the Figure.

    The logical panel (when ``logical``) comes first; each layout's memory strip follows,
    ``columns`` panels per row. ``wrap`` is one int for all strips or one per layout.
    Layouts whose axes differ may be compared with ``logical=False``.
    """
    _model.check_label(label)
    layouts = _as_layouts(layouts)
    first = layouts[0]
    axis = resolve_color_by(first, color_by)
    for L in layouts[1:]:
        if axis is not None:
            _model.check_color_by(L, axis)
        if logical and L.dims != first.dims:
            raise LayoutError(
                f"compare(logical=True) draws one logical tensor, but {L!r} has dims {L.dims} and {first!r} has {first.dims}; "
                f"pass logical=False to compare layouts of different tensors")
    extent = max(L.dims[axis] for L in layouts) if axis else 1
    wraps = list(wrap) if isinstance(wrap, (list, tuple)) else [wrap] * len(layouts)
    if len(wraps) != len(layouts):
        raise LayoutError(f"wrap gives {len(wraps)} row lengths for {len(layouts)} layouts")
    panels = []
    if logical:
        panels.append(logical_panel(first, label="logical" if label == "offset" else label, axis=axis, extent=extent))
    for i, (L, w) in enumerate(zip(layouts, wraps)):
        m = markers[i % len(markers)] if markers else None
        t = None
        if titles is not None:
            t = titles[i]
        elif m:
            t = f"({m}) {describe(L)}"
        panels.append(strip_panel(L, label=label, axis=axis, extent=extent, wrap=w, marker=m, title=t))
    columns = max(1, int(columns))
    grid = [panels[i:i + columns] for i in range(0, len(panels), columns)]
    _check_total(grid)
    return pack(grid, cell_in=cell)


def draw_article_figure(*, N: int = 2, C: int = 16, H: int = 5, W: int = 4, label: str = "logical", color_by="c",
                        cell: float | None = None):
    """The EdgeBoard article's figure: logical NCHW numbering beside the memory of NCHW, NHWC and CHWN.

    Stride-level tags read ``[a:k]`` for NCHW, ``[b:k]`` for NHWC and ``[c:k]`` for CHWN, as in the article.
    """
    dims = dict(N=N, C=C, H=H, W=W)
    layouts = [Layout(s, **dims) for s in ("NCHW", "NHWC", "CHWN")]
    return compare(layouts, label=label, color_by=color_by, cell=cell)
