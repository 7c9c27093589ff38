"""Whole pictures: one layout (logical panel beside its memory), several layouts compared, the article figure."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import LayoutError, LayoutTypeError, kind
from ..named.layout import Layout, canonical_order
from . import _checks, _model, _style
from ._figure import Panel, axes_cell_inches, pack
from .logical import MARGINS as LOGICAL_MARGINS
from .logical import draw_logical as _draw_logical_panel
from .logical import geometry
from .strips import KEY_LINE, TEXT_LIMIT, draw_strip, squares, strip_key
from .strips import MARGINS as STRIP_MARGINS

LETTERS = "abcdefghijklmnopqrstuvwxyz"

#: What each axis letter stands for, for the colour key.
AXIS_WORDS = {"N": "image", "C": "channel", "H": "row", "W": "column", "O": "output channel",
              "I": "input channel", "D": "depth", "G": "group"}

#: A strip taller than this (inches) at the size that keeps its labels legible is drawn smaller,
#: without cell labels (the key says so).
MAX_STRIP_HEIGHT = 9.0


def written(layout: Layout) -> str:
    """The spec as the caller wrote it ('nChw8c', not the normalised 'NCHW8c')."""
    return layout.parsed.text


def resolve_color_by(layout: Layout, color_by) -> str | None:
    """'auto' colours by C when the layout has it, else by O or I (weights), else by the innermost physical dim's axis."""
    if isinstance(color_by, str) and color_by == "auto":
        for a in ("C", "O", "I"):
            if a in layout.axes:
                return a
        return layout.parsed.dims[-1].axis
    if color_by is not None and not isinstance(color_by, str):
        raise LayoutTypeError(f"color_by must be an axis letter, 'auto' or None, got {kind(color_by)}")
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
    return f"memory of {written(layout)}:  offset = {layout.formula()}"


def _avail_cols(margins, cell_in: float, max_width: float) -> int:
    return max(1, int((max_width - margins[0] - margins[2]) // cell_in))


def _show_text(labels: list, cell_in: float, count: int) -> bool:
    return count <= TEXT_LIMIT and _style.label_fontsize(cell_in * 72, labels) >= _style.MIN_FONTSIZE


def strip_panel(layout: Layout, *, label: str, axis: str | None, extent: int, wrap: int | None,
                marker: str | None, title: str | None = None, cell_in: float | None = None,
                max_width: float = _style.FIGURE_WIDTH, key: bool = True, model=None, **kw) -> Panel:
    model = model or _model.strip_model(layout, label=label)
    cell_in = cell_in or choose_cell([layout], label, None, max_width)
    if wrap is None:
        wrap = _model.default_wrap(layout, max_cols=_avail_cols(STRIP_MARGINS, cell_in, max_width))
    wrap = _checks.check_wrap(wrap)
    rows = -(-layout.size // wrap)
    colors = strip_colors(model, axis, extent)
    title = describe(layout) if title is None else title
    show = _show_text(model.labels, cell_in, layout.size)
    dropped = not show and any(model.labels)
    step = max(1, int(np.ceil(_style.TEXT_PT * 1.15 / (cell_in * 72))))
    key_text = strip_key(model, marker, wrap=wrap, step=step, dropped=dropped) if key else ""
    nlines = key_text.count("\n") + 1 if key else 0

    def draw(ax, cell):
        ax.set_label(f"memory: {layout!r}")
        return draw_strip(ax, model, wrap=wrap, colors=colors, cell_in=cell, marker=marker, title=title,
                          show_text=show, key=key, **kw)
    margins = (STRIP_MARGINS[0], STRIP_MARGINS[1], STRIP_MARGINS[2], STRIP_MARGINS[3] + nlines * KEY_LINE)
    widest = max([text_width(title, _style.TITLE_PT)] + [text_width(t, _style.TEXT_PT) for t in key_text.split("\n")])
    panel = Panel(wrap, max(rows, 1), draw, margins, min_width=widest + 0.55)
    panel.model = model
    panel.wrap = wrap
    return panel


def logical_panel(layout: Layout, *, label: str, axis: str | None, extent: int, title: str | None = None,
                  per_row: int | None = None, cell_in: float | None = None, max_width: float = _style.FIGURE_WIDTH,
                  **kw) -> Panel:
    model = _model.logical_model(layout, label=label)
    cell_in = cell_in or choose_cell([layout], label, None, max_width)
    geom = geometry(model, per_row=per_row, max_cols=(max_width - LOGICAL_MARGINS[0] - LOGICAL_MARGINS[2]) / cell_in)
    colors = logical_colors(model, axis, extent)
    if title is None:
        dims = ", ".join(f"{a}={layout.dims[a]}" for a in model.order)
        if label == "logical":
            shows = "cell = logical number " + " + ".join(_row_major_terms(model.order))
        elif label == "coords":
            names = [a.lower() for a in model.order]
            half = (len(names) + 1) // 2
            shows = f"cell = its coordinates {','.join(names[:half])} (top) {','.join(names[half:])} (bottom)"
        else:
            shows = "cells unlabelled"
        title = f"logical tensor {model.order} ({dims}):  {shows}"
    show = _show_text(model.labels, cell_in, layout.count)

    def draw(ax, cell):
        ax.set_label(f"logical: {layout!r}")
        return _draw_logical_panel(ax, model, colors=colors, cell_in=cell, geom=geom, title=title, show_text=show, **kw)
    panel = Panel(geom.cols, geom.rows, draw, LOGICAL_MARGINS, min_width=text_width(title, _style.TITLE_PT) + 0.5)
    panel.model = model
    panel.geom = geom
    return panel


def color_key_panel(axis: str, extent: int, *, cell_in: float, note: str = "") -> Panel:
    """A row of swatches, one per value of ``axis`` (a gradient with its ends labelled past 40 values)."""
    word = AXIS_WORDS.get(axis, "axis")
    swatches = extent <= 40
    cols = extent if swatches else 40
    title = f"colour = {word} {axis.lower()}: {axis.lower()} = 0..{extent - 1}{note}"
    key_cell = max(cell_in, _style.label_cell_inches([str(extent - 1)]))

    def draw(ax, cell):
        from matplotlib.collections import PolyCollection
        ax.set_label(f"colour key: {axis}")
        ax.set_xlim(0, cols)
        ax.set_ylim(1, 0)
        ax.set_aspect("equal", adjustable="box")
        ax.set_axis_off()
        values = np.arange(extent) if swatches else np.round(np.linspace(0, extent - 1, cols)).astype(np.int64)
        faces = _style.value_colors(values, extent)
        pc = PolyCollection(squares(np.arange(cols), np.zeros(cols)), facecolors=faces, edgecolors=_style.CELL_EDGE,
                            linewidths=0.6 if swatches else 0.0, gid="color-key")
        ax.add_collection(pc)
        tc = _style.text_colors(faces)
        fs = _style.label_fontsize(cell * 72, [str(extent - 1)])
        texts = []
        if swatches and fs >= _style.MIN_FONTSIZE:
            from ._cells import add_cell_labels
            texts = add_cell_labels(ax, np.arange(cols) + 0.5, np.full(cols, 0.5), [str(i) for i in range(cols)],
                                    fontsize=fs, colors=tc, gid="color-key-label", zorder=3)
        else:
            for i in sorted({0, cols // 2, cols - 1}):
                texts.append(ax.annotate(str(int(values[i])), (i + 0.5, 1), xytext=(0, -2), textcoords="offset points",
                                         ha="center", va="top", fontsize=_style.TEXT_PT, gid="color-key-label",
                                         annotation_clip=False))
        ax.annotate(title, xy=(0, 1), xycoords="axes fraction", xytext=(0, 4), textcoords="offset points",
                    fontsize=_style.TEXT_PT, va="bottom", ha="left", gid="color-key-title", annotation_clip=False)
        return {"swatches": pc, "labels": texts, "values": values}
    panel = Panel(cols * key_cell / cell_in if cell_in else cols, 1 * key_cell / cell_in if cell_in else 1, draw,
                  (0.5, 0.3, 0.2, 0.22 if swatches else 0.3), min_width=text_width(title, _style.TEXT_PT) + 0.7)
    panel.kind = "color-key"
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


def check_budget(layouts, logical: bool) -> None:
    """Refuse a picture whose cells exceed MAX_CELLS before any array is built (sizes are exact Python ints)."""
    for L in layouts:
        _model.check_cells(L.size, f"the memory of {L!r}")
    total = sum(L.size for L in layouts) + (layouts[0].count if logical else 0)
    _model.check_cells(total, "this picture")


def _labels_of(layout: Layout, label: str) -> list:
    """Sample labels as wide as the widest the layout's cells will show (no arrays: a few strings)."""
    if label == "none":
        return [""]
    if label == "logical":
        return [str(max(layout.count - 1, 0))]
    if label == "offset":
        return [str(max(layout.size - 1, 0))]
    order = canonical_order(layout.axes)
    vals = [str(max(layout.dims[a] - 1, 0)) for a in order]
    half = (len(vals) + 1) // 2
    return [",".join(vals[:half]) + ("\n" + ",".join(vals[half:]) if vals[half:] else "")]


def choose_cell(layouts, label: str, cell: float | None, max_width: float = _style.FIGURE_WIDTH) -> float:
    """Inches per cell: ``cell`` if given; else the size at which cell labels read at MIN_FONTSIZE,
    unless a strip would then be taller than MAX_STRIP_HEIGHT: then smaller cells, labels left out."""
    if cell is not None:
        return cell
    labels = [t for L in layouts for t in _labels_of(L, label)]
    c = _style.label_cell_inches(labels) if any(labels) else 0.24
    too_many = any(L.size > TEXT_LIMIT or L.count > TEXT_LIMIT for L in layouts)
    if not too_many:
        tall = max(-(-L.size // _model.default_wrap(L, max_cols=_avail_cols(STRIP_MARGINS, c, max_width))) * c
                   for L in layouts)
        if tall <= MAX_STRIP_HEIGHT:
            return c
    # no legible labels at a sensible height: square-ish strips that fit the width and MAX_STRIP_HEIGHT
    c = 0.24
    for L in layouts:
        w = _model.default_wrap(L)
        rows = -(-L.size // w)
        c = min(c, (max_width - STRIP_MARGINS[0] - STRIP_MARGINS[2]) / w, MAX_STRIP_HEIGHT / rows)
    return max(c, 0.004)


def rows_by_width(panels, max_width: float, cell_in: float) -> list:
    """Greedy rows of panels, each row at most ``max_width`` inches wide (a panel wider alone gets its own row)."""
    grid, row, width = [], [], 0.0
    for p in panels:
        w = p.width(cell_in)
        if row and width + w > max_width:
            grid.append(row)
            row, width = [], 0.0
        row.append(p)
        width += w
    if row:
        grid.append(row)
    return grid


def _with_key(grid, axis, extent, cell_in, max_width, note: str = ""):
    if axis is None:
        return grid
    key = color_key_panel(axis, extent, cell_in=cell_in, note="  (the same colour in every panel)" + note)
    return grid + [[key]]


def draw_layout(layout: Layout, ax=None, *, label: str = "logical", color_by="auto", wrap: int | None = None,
                logical: bool | None = None, marker: str | None = "a", title: str | None = None, cell: float | None = None):
    """Draw a layout: its logical tensor above (or beside) its physical memory, and a colour key. Returns the Figure.

    The figure is laid out for a 9 inch (900 px) notebook column: cell labels are at least 7 pt or
    left out (the key then says so). With ``ax=``, only the physical strip is drawn, into that Axes
    (its figure is returned).

    Parameters
    ----------
    label : {"logical", "offset", "coords", "none"}
        What each cell shows: the element's logical number (row-major over NCHW, as the EdgeBoard
        article numbers 000..639), its offset in memory, or its coordinates.
    color_by : str or None
        The axis whose coordinate colours the cells (``"c"``); ``"auto"`` picks C when present
        (O, then I, for weights).
    wrap : int, optional
        Slots per row of the memory strip; by default a stride that keeps runs whole and fits 9 inches.
    logical : bool, optional
        Draw the logical panel too (default: yes, unless ``ax`` is given).
    marker : str or None
        Letter of the stride-level tags (``"a"`` gives ``[a:0]``, ``[a:1]``...).
    cell : float, optional
        Inches per cell, 0.02 to 2 (default: labels at 7 pt, smaller for big layouts).

    >>> import layouts as ly
    >>> fig = draw_layout(ly.Layout("NHWC", N=1, C=3, H=2, W=2))
    >>> bool(fig.get_size_inches()[0] <= 9.0)
    True
    """
    layout = _checks.check_layout(layout)
    ax = _checks.check_axes(ax)
    _model.check_label(label)
    wrap = _checks.check_wrap(wrap)
    cell = _checks.check_cell(cell)
    marker = _checks.check_str(marker, "marker")
    title = _checks.check_str(title, "title")
    _checks.check_nonempty(layout)
    axis = resolve_color_by(layout, color_by)
    extent = layout.dims[axis] if axis else 1
    if logical is None:
        logical = ax is None
    check_budget([layout], bool(logical) and ax is None)
    if ax is not None:
        if logical:
            raise LayoutError("draw_layout(ax=...) draws the memory strip only; call layouts.viz.draw_logical(layout, ax=...) for the logical panel")
        model = _model.strip_model(layout, label=label)
        w = wrap or _model.default_wrap(layout)
        cell_in = axes_cell_inches(ax, w, -(-layout.size // w))
        strip = strip_panel(layout, label=label, axis=axis, extent=extent, wrap=w, marker=marker, title=title,
                            cell_in=cell_in, model=model)
        strip.draw(ax, cell_in)
        return ax.get_figure()
    cell_in = choose_cell([layout], label, cell)
    strip = strip_panel(layout, label=label, axis=axis, extent=extent, wrap=wrap, marker=marker, title=title, cell_in=cell_in)
    panels = [strip]
    if logical:
        panels.insert(0, logical_panel(layout, label="logical" if label == "offset" else label, axis=axis, extent=extent,
                                       cell_in=cell_in))
    grid = _with_key(rows_by_width(panels, _style.FIGURE_WIDTH, cell_in), axis, extent, cell_in, _style.FIGURE_WIDTH)
    return pack(grid, cell_in=cell_in)


def draw_logical(layout: Layout, ax=None, *, label: str = "logical", color_by="auto", per_row: int | None = None,
                 title: str | None = None, cell: float | None = None):
    """Draw only the logical panel (the grid of H x W planes) and its colour key. Returns the Figure."""
    layout = _checks.check_layout(layout)
    ax = _checks.check_axes(ax)
    _model.check_label(label)
    per_row = _checks.check_int(per_row, "per_row", 1, "a positive number of planes per row")
    cell = _checks.check_cell(cell)
    title = _checks.check_str(title, "title")
    _checks.check_nonempty(layout)
    axis = resolve_color_by(layout, color_by)
    _model.check_cells(layout.count, f"the logical tensor of {layout!r}")
    cell_in = choose_cell([layout], label, cell)
    extent = layout.dims[axis] if axis else 1
    panel = logical_panel(layout, label=label, axis=axis, extent=extent, title=title, per_row=per_row, cell_in=cell_in)
    _check_total([[panel]])
    if ax is not None:
        panel.draw(ax, axes_cell_inches(ax, panel.cols, panel.rows))
        return ax.get_figure()
    return pack(_with_key([[panel]], axis, extent, cell_in, _style.FIGURE_WIDTH), cell_in=cell_in)


def _as_layouts(layouts) -> list:
    if isinstance(layouts, (Layout, str)) or not hasattr(layouts, "__iter__"):
        raise LayoutTypeError(f"layouts must be a list of layouts.Layout objects, got {type(layouts).__name__} {layouts!r}")
    out = list(layouts)
    if not out:
        raise LayoutError("compare() needs at least one Layout")
    for i, L in enumerate(out):
        _checks.check_layout(L, f"layouts[{i}]")
    for i, L in enumerate(out):
        _checks.check_nonempty(L, f"layouts[{i}]")
    return out


def compare(layouts: Sequence[Layout], *, label: str = "logical", color_by="auto", wrap=None, logical: bool = True,
            columns: int | None = None, markers: str = LETTERS, titles: Sequence[str] | None = None,
            cell: float | None = None, element=None):
    """Several layouts of the same tensor, drawn with one shared colouring and one colour key. Returns the Figure.

    The logical panel (when ``logical``) comes first; each layout's memory strip follows, as many
    panels per row as fit 9 inches (or ``columns``). ``wrap`` is one int for all strips or one per
    layout. Layouts whose axes differ may be compared with ``logical=False``. ``element`` (a
    logical number or a dict of coordinates) is ringed in green in every panel.
    """
    _model.check_label(label)
    layouts = _as_layouts(layouts)
    columns = _checks.check_int(columns, "columns", 1, "a positive number of panels per row")
    cell = _checks.check_cell(cell)
    if markers is not None and not isinstance(markers, str):
        raise LayoutTypeError(f"markers must be a str of tag letters or None, got {type(markers).__name__}")
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
    wraps = [_checks.check_wrap(w, f"wrap[{i}]") for i, w in enumerate(wraps)]
    if titles is not None:
        titles = list(titles)
        if len(titles) != len(layouts):
            raise LayoutError(f"titles gives {len(titles)} titles for {len(layouts)} layouts")
        titles = [_checks.check_str(t, f"titles[{i}]") for i, t in enumerate(titles)]
    check_budget(layouts, bool(logical))
    ring = {}
    if element is not None:
        from .strips import HIGHLIGHT_COLOR
        if isinstance(element, (list, tuple)):
            raise LayoutTypeError("element is one logical number or one dict of coordinates")
        number = int(_model.element_numbers(first, [element])[0])
        order = canonical_order(first.axes)
        coords = dict(zip((a.lower() for a in order), np.unravel_index(number, [first.dims[a] for a in order])))
        coords = {k: int(v) for k, v in coords.items()}
        if any(L.dims != first.dims for L in layouts):
            raise LayoutError("element= needs layouts of one tensor (the same dims)")
        ring = {"number": number, "offsets": [int(L.offset(**coords)) for L in layouts], "color": HIGHLIGHT_COLOR}
    cell_in = choose_cell(layouts, label, cell)
    panels = []
    if logical:
        extra = dict(highlight=[ring["number"]], highlight_color=ring["color"]) if ring else {}
        panels.append(logical_panel(first, label="logical" if label == "offset" else label, axis=axis, extent=extent,
                                    cell_in=cell_in, **extra))
    for i, (L, w) in enumerate(zip(layouts, wraps)):
        m = markers[i % len(markers)] if markers else None
        t = None
        if titles is not None:
            t = titles[i]
        elif m:
            t = f"({m}) {describe(L)}"
        extra = dict(highlight=[ring["offsets"][i]], highlight_color=ring["color"]) if ring else {}
        panels.append(strip_panel(L, label=label, axis=axis, extent=extent, wrap=w, marker=m, title=t, cell_in=cell_in,
                                  **extra))
    if columns is None:
        grid = rows_by_width(panels, _style.FIGURE_WIDTH, cell_in)
    else:
        grid = [panels[i:i + columns] for i in range(0, len(panels), columns)]
    _check_total(grid)
    note = ""
    if ring:
        where = ", ".join(f"{a.lower()}={v}" for a, v in zip(canonical_order(first.axes),
                                                              np.unravel_index(ring["number"], [first.dims[a] for a in canonical_order(first.axes)])))
        note = f";  green ring: element {ring['number']} = ({where})"
    return pack(_with_key(grid, axis, extent, cell_in, _style.FIGURE_WIDTH, note), cell_in=cell_in)


#: The article the default figure reproduces, and the page its example follows.
ARTICLE_TITLE = "EdgeBoard嵌入式AI解决方案中NHWC数据格式的性能分析"
ARTICLE_CREDIT = ("N=2, C=16, H=5, W=4 as in Baidu's EdgeBoard article on the NHWC format (whose example follows "
                  "oneDNN's \"Understanding Memory Formats\")")


def draw_article_figure(*, N: int = 2, C: int = 16, H: int = 5, W: int = 4, label: str = "logical", color_by="c",
                        cell: float | None = None, element=341):
    """The EdgeBoard article's figure: logical NCHW numbering above the memory of NCHW, NHWC and CHWN.

    The article is Baidu's "EdgeBoard嵌入式AI解决方案中NHWC数据格式的性能分析" (a performance analysis of
    the NHWC format on the EdgeBoard FPGA board); its N=2, C=16, H=5, W=4 example and figure follow
    oneDNN's "Understanding Memory Formats". Stride-level tags read ``[a:k]`` for NCHW, ``[b:k]`` for
    NHWC and ``[c:k]`` for CHWN, as in the article. Every strip shows all of 000..639. The element
    the article circles in green, 341 = (n=1, c=1, h=0, w=1), is ringed in green in every panel
    (``element=None`` for none; other dims ring nothing unless given an element).
    """
    dims = dict(N=N, C=C, H=H, W=W)
    for k, v in dims.items():
        _checks.check_int(v, k, 1, "a positive size", allow_none=False)
    layouts = [Layout(s, **dims) for s in ("NCHW", "NHWC", "CHWN")]
    if element == 341 and dims != dict(N=2, C=16, H=5, W=4):
        element = None
    return compare(layouts, label=label, color_by=color_by, cell=cell, element=element)
