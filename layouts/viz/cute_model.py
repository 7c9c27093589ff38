"""What a CuTe layout picture holds, worked out once for both writers: the panels, their cells,
colours, labels, tile boundaries and titles (:func:`cute_picture`), from which
:func:`layouts.viz.draw_cute` draws a matplotlib figure and :func:`layouts.viz.cute_svg` writes SVG.

Grids put mode 0 down and the other modes across (colexicographic), as CuTe's ``print_layout``;
rank > 2 is two strips (logical index -> offset, memory slot -> index).

>>> from layouts import cute
>>> p = cute_picture(cute.Layout((2, 3), (3, 1)))
>>> [(q.rows, q.cols, q.labels, q.title) for q in p.panels]
[(2, 3, ['0', '1', '2', '3', '4', '5'], '(2,3):(3,1)')]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import LayoutError, LayoutTypeError, type_name
from . import limits
from ._style import FIGURE_WIDTH, value_colors

__all__ = ["cute_picture", "offsets_picture", "CutePicture", "CutePanel", "index_labels", "tile_lines"]

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


def _panel_layout(layout) -> tuple[Any, Any]:
    inner = getattr(layout, "inner", layout)
    if len(inner) >= 2:
        rest = inner.shape[1] if len(inner) == 2 else tuple(inner.shape[1:])
        return inner.shape[0], rest
    return None, inner.shape


def _figure_size(panels: int, rows: int, cols: int, extra_h: float = 0.0) -> tuple[float, float, float]:
    """(width, height, cell) in inches of a picture of ``panels`` grids of ``rows x cols`` side by side."""
    width_cells = panels * cols + (panels - 1) * 2
    cell_in = min(0.42, (FIGURE_WIDTH - 0.8) / max(width_cells, 1))
    cell_in = min(cell_in, 7.5 / max(rows, 1))
    w = max(3.0, width_cells * cell_in + 0.9)
    h = rows * cell_in + 0.9 + extra_h
    return w, h, cell_in


def _check_args(color, tv_tile, elem_bytes, bank_bytes, title) -> None:
    if color is not None and not isinstance(color, str):
        raise LayoutTypeError(f"draw_cute: color must be a str (one of {', '.join(COLORS[:4])}), got {type_name(color)}")
    for name, value in (("elem_bytes", elem_bytes), ("bank_bytes", bank_bytes)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise LayoutTypeError(f"draw_cute: {name} must be an int, got {type_name(value)}")
        if value <= 0:
            raise LayoutError(f"draw_cute: {name} must be positive, got {value}")
    if title is not None and not isinstance(title, str):
        raise LayoutTypeError(f"draw_cute: title must be a str or None, got {type_name(title)}")
    if tv_tile is not None:
        if not (isinstance(tv_tile, tuple) and len(tv_tile) == 2):
            raise LayoutTypeError(f"draw_cute: tv_tile is (M, N), got {type_name(tv_tile)}")
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in tv_tile):
            raise LayoutTypeError(f"draw_cute: tv_tile must be two ints (M, N), got {tv_tile!r}")
        if min(tv_tile) <= 0:
            raise LayoutError(f"draw_cute: tv_tile must be two positive ints (M, N), got {tv_tile!r}")


@dataclass
class CutePanel:
    """One grid of a CuTe picture, placed in the figure's inches (origin at the bottom left)."""

    left: float
    bottom: float
    rows: int
    cols: int
    faces: np.ndarray              # RGBA per cell, row-major; alpha 0: no cell there
    labels: list                   # per cell, row-major ("" for none)
    label_size: float | None       # points; None: the labels are left out (too small or too many)
    title: str
    row_shape: Any = None          # the modes whose tile boundaries are drawn, down and across
    col_shape: Any = None
    row_step: int = 1              # row i is labelled i * row_step


@dataclass
class CutePicture:
    """What :func:`draw_cute` draws, worked out once for both writers (matplotlib and SVG)."""

    width: float
    height: float
    cell_in: float
    panels: list
    key: str = ""


def _label_size(labels: list, rows: int, cols: int, cell_in: float) -> float | None:
    if rows * cols > limits.MAX_LABELS:
        return None
    cell_pt = cell_in * 72
    longest = max((len(t) for t in labels), default=1)
    size = min(8.0, 0.8 * cell_pt / max(0.64 * longest, 1.0), 0.45 * cell_pt)
    return size if size >= 5.5 else None


def index_labels(panel: CutePanel, cell_in: float) -> tuple[list, list]:
    """(row, text) beside the rows and (column, text) over the columns, at least 9 and 14 pt apart."""
    cell_pt = cell_in * 72
    step_r = max(1, int(np.ceil(9 / max(cell_pt, 0.1))))
    step_c = max(1, int(np.ceil(14 / max(cell_pt, 0.1))))
    return ([(i, str(i * panel.row_step)) for i in range(0, panel.rows, step_r)],
            [(j, str(j)) for j in range(0, panel.cols, step_c)])


def tile_lines(panel: CutePanel) -> list:
    """((x0, y0), (x1, y1), width in points) of the tile boundaries, in cells from the top left."""
    out = []
    for p, level in _boundaries(panel.row_shape) if panel.row_shape is not None else []:
        out.append(((0, p), (panel.cols, p), 0.8 + 0.8 * level))
    for p, level in _boundaries(panel.col_shape) if panel.col_shape is not None else []:
        out.append(((p, 0), (p, panel.rows), 0.8 + 0.8 * level))
    return out


def _panel(left, bottom, rows, cols, faces, labels, cell_in, title, **shapes) -> CutePanel:
    return CutePanel(left, bottom, rows, cols, faces, labels, _label_size(labels, rows, cols, cell_in), title, **shapes)


def cute_picture(layout: Any, swizzle: Any = None, *, color: str | None = None, tv_tile: tuple[int, int] | None = None,
                 elem_bytes: int = 2, bank_bytes: int = 4, title: str | None = None) -> CutePicture:
    """The panels, cells, colours and labels of :func:`~layouts.viz.draw_cute`'s picture
    (its arguments, which are draw_cute's, checked)."""
    from ..cute import Swizzle, composition
    layout = _check(layout)
    _check_args(color, tv_tile, elem_bytes, bank_bytes, title)
    if tv_tile is not None:
        return _tv_picture(layout, tv_tile, title)
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
    if size * len(items) > limits.MAX_CELLS:
        raise LayoutError(f"draw_cute: {layout} has {size} cells, more than layouts.viz.limits.MAX_CELLS = "
                          f"{limits.MAX_CELLS}")
    inner = getattr(layout, "inner", layout)
    if len(inner) > 2 and swizzle is None:
        return _strips_picture(layout, title)
    _, rows, cols = _grid(layout)
    key = (f"colour: the first of the 32 {bank_bytes}-byte shared-memory banks each {elem_bytes}-byte element "
           "falls in (one colour twice in a column: a bank conflict)") if color == "bank" else ""
    w, h, cell_in = _figure_size(len(items), rows, cols, extra_h=0.2 if key else 0.0)
    row_shape, col_shape = _panel_layout(layout)
    panels = []
    for k, item in enumerate(items):
        values, _, _ = _grid(item)
        faces, _ = _colors(color, values, rows, cols, bank_bytes, elem_bytes)
        panels.append(_panel(0.55 + k * (cols + 2) * cell_in, 0.35, rows, cols, faces, [str(v) for v in values.ravel()],
                             cell_in, title if (title and k == 0) else str(item), row_shape=row_shape,
                             col_shape=col_shape))
    return CutePicture(w, h, cell_in, panels, key)


def offsets_picture(sizes: tuple, offsets: np.ndarray, title: str, color: str = "offset", elem_bytes: int = 2,
                    bank_bytes: int = 4) -> CutePicture:
    """The grid of any layout's offsets, as CuTe prints a layout: row = the coordinate of the
    first dim, column = the other dims (colexicographic), each cell its offset."""
    if color not in COLORS[:4]:
        raise LayoutError(f"draw: color must be one of {', '.join(COLORS[:4])}, got {color!r}")
    size = int(offsets.size)
    if size == 0:
        raise LayoutError(f"draw: {title} has no elements to draw")
    if size > limits.MAX_CELLS:
        raise LayoutError(f"draw: {title} has {size} cells, more than layouts.viz.limits.MAX_CELLS = {limits.MAX_CELLS}")
    rows = int(sizes[0]) if sizes else 1
    cols = size // rows
    values = offsets.reshape(cols, rows).T
    w, h, cell_in = _figure_size(1, rows, cols)
    faces, _ = _colors(color, values, rows, cols, bank_bytes, elem_bytes)
    panel = _panel(0.55, 0.35, rows, cols, faces, [str(v) for v in values.ravel()], cell_in, title)
    return CutePicture(w, h, cell_in, [panel])


def _tv_picture(layout: Any, tile: tuple[int, int], title: str | None) -> CutePicture:
    from ..cute.atoms import tv_coords
    m, n = int(tile[0]), int(tile[1])
    t, v = tv_coords(layout, m, n)
    threads = layout[0].size()
    w, h, cell_in = _figure_size(1, m, n)
    faces = value_colors((t % 8).ravel() if threads > 8 else t.ravel(), min(threads, 8))
    labels = [f"T{a}\nV{b}" for a, b in zip(t.ravel(), v.ravel())]
    panel = _panel(0.55, 0.35, m, n, faces, labels, cell_in, title or f"TV layout {layout} on a {m} x {n} tile")
    return CutePicture(w, h, cell_in, [panel])


def _strips_picture(layout: Any, title: str | None, wrap: int = 32) -> CutePicture:
    """Rank > 2: the logical indices (labelled with their offsets) over the memory slots
    (labelled with the index stored there; grey where none is)."""
    offs = layout.offsets()
    size, span = offs.size, int(offs.max()) + 1
    if span > limits.MAX_CELLS:
        raise LayoutError(f"draw_cute: {layout} spans {span} slots, more than layouts.viz.limits.MAX_CELLS = "
                          f"{limits.MAX_CELLS}")
    wrap = min(wrap, max(size, span))
    rows_l, rows_p = -(-size // wrap), -(-span // wrap)
    inner = getattr(layout, "inner", layout)
    plane = np.arange(size) // max(inner[0].size(), 1)  # colour: the index along modes 1.. (one colour per mode-0 run)
    extent = int(plane.max()) + 1
    owner = np.full(span, -1, dtype=np.int64)
    owner[offs] = np.arange(size)
    w, h, cell_in = _figure_size(1, rows_l + rows_p + 2, wrap)
    panels = []
    for k, (count, rows, labels, keys) in enumerate([
            (size, rows_l, [str(o) for o in offs], plane),
            (span, rows_p, [str(i) if i >= 0 else "" for i in owner], np.where(owner >= 0, plane[np.maximum(owner, 0)], -1))]):
        faces = value_colors(np.concatenate([keys, np.full(rows * wrap - count, -1)]), extent)
        faces[count:] = (1, 1, 1, 0)
        bottom = 0.35 + (0 if k else (rows_p + 2) * cell_in)
        name = (title or f"{layout}: logical index i -> offset") if k == 0 else "memory: offset -> index i"
        panels.append(_panel(0.55, bottom, rows, wrap, faces, labels + [""] * (rows * wrap - count), cell_in, name,
                             row_step=wrap))
    return CutePicture(w, h, cell_in, panels)
