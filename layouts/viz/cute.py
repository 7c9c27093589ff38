"""Pictures of CuTe layouts (:mod:`layouts.cute`): CuTe's grid of offsets, swizzles before and
after, thread-value layouts of MMA atoms, and logical-vs-physical strips for higher ranks.

Each panel is one ``PolyCollection`` of cells, one ``LineCollection`` of tile boundaries and a
text per cell only when the cells are large enough to read (at most ``MAX_LABELS``), so the
SVGs stay small.

>>> from layouts import cute
>>> from layouts.viz import draw_cute
>>> fig = draw_cute(cute.Layout((4, 8), (8, 1)))
>>> len(fig.axes)
1
>>> fig = draw_cute(cute.Layout((8, 8), (8, 1)), cute.Swizzle(3, 0, 3))   # before / after
>>> [ax.get_title(loc="left") for ax in fig.axes]
['(8,8):(8,1)', 'Sw<3,0,3> o 0 o (8,8):(8,1)']
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

from ..errors import LayoutError, LayoutTypeError, type_name
from ._figure import new_figure
from ._style import FIGURE_WIDTH, TEXT_PT, TITLE_PT, text_colors, value_colors

__all__ = ["draw_cute", "mimebundle"]

#: Cells a picture may have.
MAX_CELLS = 16384
#: Cells past which the cell labels are left out.
MAX_LABELS = 1024
COLORS = ("offset", "bank", "row", "column", "thread")


def _check(layout: Any):
    from ..cute import ComposedLayout, Layout
    if not isinstance(layout, (Layout, ComposedLayout)):
        raise LayoutTypeError(f"draw_cute: expected a layouts.cute.Layout or a swizzled layout, got {type_name(layout)}")
    return layout


def _grid(layout) -> tuple[np.ndarray, int, int]:
    """Offsets as a rows x cols array: mode 0 down, the other modes across (colexicographic)."""
    inner = getattr(layout, "inner", layout)
    rows = inner[0].size() if len(inner) >= 2 else 1
    size = layout.size()
    cols = size // rows if rows else 0
    return layout.offsets().reshape(cols, rows).T, rows, cols


def _boundaries(shape: Any) -> list[tuple[int, int]]:
    """(position, level) of the tile boundaries along one mode of a hierarchical shape."""
    from ..cute.int_tuple import flatten
    flat = flatten(shape)
    flat = flat if isinstance(flat, tuple) else (flat,)
    total = int(np.prod(flat)) if flat else 1
    out, step = [], 1
    for level, s in enumerate(flat[:-1], start=1):
        step *= s
        if 1 < step < total:
            out += [(p, level) for p in range(step, total, step)]
    best: dict[int, int] = {}
    for p, level in out:
        best[p] = max(best.get(p, 0), level)
    return sorted(best.items())


def _colors(kind: str, values: np.ndarray, rows: int, cols: int, bank_bytes: int, elem_bytes: int) -> tuple[np.ndarray, int]:
    if kind == "offset":
        keys, extent = values, int(values.max()) + 1 if values.size else 1
    elif kind == "bank":
        keys, extent = (values * elem_bytes // bank_bytes) % 32, 32
    elif kind == "row":
        keys, extent = np.repeat(np.arange(rows)[:, None], cols, axis=1), rows
    elif kind == "column":
        keys, extent = np.repeat(np.arange(cols)[None, :], rows, axis=0), cols
    else:
        raise LayoutError(f"draw_cute: color must be one of {', '.join(COLORS)}, got {kind!r}")
    return value_colors(keys.ravel(), max(extent, 1)), extent


def _draw_cells(ax, rows: int, cols: int, faces: np.ndarray, labels: list | None, cell_in: float,
                row_shape: Any = None, col_shape: Any = None, row_step: int = 1) -> None:
    from matplotlib.collections import LineCollection, PolyCollection
    r, c = np.divmod(np.arange(rows * cols), cols)
    x0, y0 = c.astype(float), r.astype(float)
    verts = np.stack([np.stack([x0, y0], 1), np.stack([x0 + 1, y0], 1), np.stack([x0 + 1, y0 + 1], 1),
                      np.stack([x0, y0 + 1], 1)], 1)
    ax.add_collection(PolyCollection(verts, facecolors=faces, edgecolors="white", linewidths=0.5))
    cell_pt = cell_in * 72
    if labels is not None and rows * cols <= MAX_LABELS:
        longest = max((len(t) for t in labels), default=1)
        size = min(8.0, 0.8 * cell_pt / max(0.64 * longest, 1.0), 0.45 * cell_pt)
        if size >= 5.5:
            ink = text_colors(faces)
            for k, text in enumerate(labels):
                ax.text(x0[k] + 0.5, y0[k] + 0.5, text, ha="center", va="center", fontsize=size, color=ink[k],
                        linespacing=0.95)
    segs, widths = [], []
    for p, level in _boundaries(row_shape) if row_shape is not None else []:
        segs.append([(0, p), (cols, p)])
        widths.append(0.8 + 0.8 * level)
    for p, level in _boundaries(col_shape) if col_shape is not None else []:
        segs.append([(p, 0), (p, rows)])
        widths.append(0.8 + 0.8 * level)
    if segs:
        ax.add_collection(LineCollection(segs, colors="#202020", linewidths=widths))
    ax.set_xlim(0, cols)
    ax.set_ylim(rows, 0)
    ax.set_aspect("equal")
    ax.set_axis_off()
    step_r = max(1, int(np.ceil(9 / max(cell_pt, 0.1))))  # index labels at least 9 pt apart
    step_c = max(1, int(np.ceil(14 / max(cell_pt, 0.1))))
    for i in range(0, rows, step_r):
        ax.text(-0.3, i + 0.5, str(i * row_step), ha="right", va="center", fontsize=TEXT_PT - 1, color="#555555")
    for j in range(0, cols, step_c):
        ax.text(j + 0.5, -0.3, str(j), ha="center", va="bottom", fontsize=TEXT_PT - 1, color="#555555")


def _panel_layout(layout) -> tuple[Any, Any]:
    inner = getattr(layout, "inner", layout)
    if len(inner) >= 2:
        rest = inner.shape[1] if len(inner) == 2 else tuple(inner.shape[1:])
        return inner.shape[0], rest
    return None, inner.shape


def _figure_for(panels: int, rows: int, cols: int, extra_h: float = 0.0):
    width_cells = panels * cols + (panels - 1) * 2
    cell_in = min(0.42, (FIGURE_WIDTH - 0.8) / max(width_cells, 1))
    cell_in = min(cell_in, 7.5 / max(rows, 1))
    w = max(3.0, width_cells * cell_in + 0.9)
    h = rows * cell_in + 0.9 + extra_h
    return new_figure(w, h), cell_in, w, h


def draw_cute(layout: Any, swizzle: Any = None, *, color: str | None = None, tv_tile: tuple[int, int] | None = None,
              elem_bytes: int = 2, bank_bytes: int = 4, title: str | None = None):
    """Draw a CuTe layout as CuTe draws it: a grid, row = mode-0 coordinate, column = the other
    modes (colexicographic), each cell its offset, thick lines at the hierarchical tile
    boundaries; rank > 2 as logical-vs-physical strips.

    Parameters
    ----------
    layout : layouts.cute.Layout or swizzled layout
    swizzle : layouts.cute.Swizzle, optional
        Draw ``layout`` and ``composition(swizzle, layout)`` side by side, coloured by
        shared-memory bank (a column of one colour is a bank conflict).
    color : {"offset", "bank", "row", "column"}, optional
        What the cell colour shows: the offset (default), the 4-byte bank of 32 the offset falls in
        (``elem_bytes`` per element; default with ``swizzle``), the row, the column.
    tv_tile : (M, N), optional
        ``layout`` is a thread-value layout (thread, value) -> ``m + M*n`` of an M x N tile
        (e.g. :data:`layouts.cute.atoms.SM80_16x8x16_C` with ``(16, 8)``): each cell shows the
        thread and value holding it, coloured by thread.
    elem_bytes, bank_bytes : int
        Element size and bank width for ``color="bank"``.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Save it with :func:`layouts.viz.save`.

    Examples
    --------
    >>> from layouts import cute
    >>> from layouts.cute.atoms import SM80_16x8x16_C
    >>> fig = draw_cute(SM80_16x8x16_C, tv_tile=(16, 8))
    >>> fig.axes[0].get_title(loc="left")
    'TV layout ((4,8),(2,2)):((32,1),(16,8)) on a 16 x 8 tile'
    """
    from ..cute import Swizzle, composition
    layout = _check(layout)
    if tv_tile is not None:
        return _draw_tv(layout, tv_tile, title)
    if swizzle is not None:
        if not isinstance(swizzle, Swizzle):
            raise LayoutTypeError(f"draw_cute: swizzle must be a layouts.cute.Swizzle, got {type_name(swizzle)}")
        items = [layout, composition(swizzle, layout)]
        color = color or "bank"
    else:
        items = [layout]
        color = color or "offset"
    if color not in COLORS[:4]:
        raise LayoutError(f"draw_cute: color must be one of {', '.join(COLORS[:4])}, got {color!r}")
    size = layout.size()
    if size == 0:
        raise LayoutError(f"draw_cute: {layout} has no elements to draw")
    if size * len(items) > MAX_CELLS:
        raise LayoutError(f"draw_cute: {layout} has {size} cells, more than layouts.viz.cute.MAX_CELLS = {MAX_CELLS}")
    inner = getattr(layout, "inner", layout)
    if len(inner) > 2 and swizzle is None:
        return _draw_strips(layout, title)
    _, rows, cols = _grid(layout)
    key = (f"colour: the first of the 32 {bank_bytes}-byte shared-memory banks each {elem_bytes}-byte element "
           "falls in (one colour twice in a column: a bank conflict)") if color == "bank" else ""
    fig, cell_in, w, h = _figure_for(len(items), rows, cols, extra_h=0.2 if key else 0.0)
    row_shape, col_shape = _panel_layout(layout)
    for k, item in enumerate(items):
        values, _, _ = _grid(item)
        faces, _ = _colors(color, values, rows, cols, bank_bytes, elem_bytes)
        left = (0.55 + k * (cols + 2) * cell_in) / w
        ax = fig.add_axes((left, 0.35 / h, cols * cell_in / w, rows * cell_in / h))
        _draw_cells(ax, rows, cols, faces, [str(v) for v in values.ravel()], cell_in, row_shape, col_shape)
        ax.set_title(title if (title and k == 0) else str(item), loc="left", fontsize=TITLE_PT, pad=18)
    if key:
        fig.text(0.55 / w, 0.08 / h, key, fontsize=TEXT_PT, color="#444444")
    return fig


def _draw_tv(layout: Any, tile: tuple[int, int], title: str | None):
    from ..cute.atoms import tv_coords
    if not (isinstance(tile, tuple) and len(tile) == 2):
        raise LayoutTypeError(f"draw_cute: tv_tile is (M, N), got {type_name(tile)}")
    m, n = int(tile[0]), int(tile[1])
    t, v = tv_coords(layout, m, n)
    threads = layout[0].size()
    fig, cell_in, w, h = _figure_for(1, m, n)
    faces = value_colors((t % 8).ravel() if threads > 8 else t.ravel(), min(threads, 8))
    ax = fig.add_axes((0.55 / w, 0.35 / h, n * cell_in / w, m * cell_in / h))
    labels = [f"T{a}\nV{b}" for a, b in zip(t.ravel(), v.ravel())]
    _draw_cells(ax, m, n, faces, labels, cell_in)
    ax.set_title(title or f"TV layout {layout} on a {m} x {n} tile", loc="left", fontsize=TITLE_PT, pad=18)
    return fig


def _draw_strips(layout: Any, title: str | None, wrap: int = 32):
    """Rank > 2: the logical indices (labelled with their offsets) over the memory slots
    (labelled with the index stored there; hatched where none is)."""
    offs = layout.offsets()
    size, span = offs.size, int(offs.max()) + 1
    if span > MAX_CELLS:
        raise LayoutError(f"draw_cute: {layout} spans {span} slots, more than layouts.viz.cute.MAX_CELLS = {MAX_CELLS}")
    wrap = min(wrap, max(size, span))
    rows_l, rows_p = -(-size // wrap), -(-span // wrap)
    inner = getattr(layout, "inner", layout)
    plane = np.arange(size) // max(inner[0].size(), 1)  # colour: the index along modes 1.. (one colour per mode-0 run)
    extent = int(plane.max()) + 1
    owner = np.full(span, -1, dtype=np.int64)
    owner[offs] = np.arange(size)
    fig, cell_in, w, h = _figure_for(1, rows_l + rows_p + 2, wrap)
    for k, (count, rows, labels, keys) in enumerate([
            (size, rows_l, [str(o) for o in offs], plane),
            (span, rows_p, [str(i) if i >= 0 else "" for i in owner], np.where(owner >= 0, plane[np.maximum(owner, 0)], -1))]):
        faces = value_colors(np.concatenate([keys, np.full(rows * wrap - count, -1)]), extent)
        faces[count:] = (1, 1, 1, 0)
        bottom = 0.35 + (0 if k else (rows_p + 2) * cell_in)
        ax = fig.add_axes((0.55 / w, bottom / h, wrap * cell_in / w, rows * cell_in / h))
        _draw_cells(ax, rows, wrap, faces, labels + [""] * (rows * wrap - count), cell_in, row_step=wrap)
        ax.set_title(title or f"{layout}: logical index i -> offset" if k == 0 else "memory: offset -> index i",
                     loc="left", fontsize=TITLE_PT, pad=18)
    return fig


def mimebundle(layout: Any, include: Any = None, exclude: Any = None) -> dict:
    """Jupyter's display of a CuTe layout: its explanation as text, its picture as SVG (PNG when
    the SVG would be large); text only when it cannot be drawn.

    >>> from layouts import cute
    >>> sorted(mimebundle(cute.Layout((2, 2))))
    ['image/svg+xml', 'text/plain']
    """
    from ._figure import to_png, to_svg

    def wanted(mime):
        return (include is None or mime in include) and (exclude is None or mime not in exclude)
    data = {}
    if wanted("text/plain"):
        data["text/plain"] = layout.explain()
    try:
        fig = draw_cute(layout)
        svg = to_svg(fig) if wanted("image/svg+xml") and layout.size() <= 1024 else None
        if svg is not None and len(svg.encode("utf-8")) <= 150_000:
            data["image/svg+xml"] = svg
        elif wanted("image/png"):
            data["image/png"] = base64.b64encode(to_png(fig, dpi=100)).decode("ascii")
    except Exception:  # noqa: BLE001 - a picture is a bonus: the text above always shows
        return data
    return data
