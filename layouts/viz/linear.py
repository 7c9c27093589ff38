"""Pictures of Triton's linear layouts (:mod:`layouts.linear`): the tensor grid with who holds
each element (distributed layouts) or where it is stored (shared layouts), its bit matrix beside.

A distributed layout (in-dims ``register``, ``lane``, ``warp``, ``block``) is coloured by lane
(8 hues, lighter each round of 8: lane ``l`` is hue ``l % 8``, shade ``l // 8``; the strip under
the grid is the key) and each cell is labelled with its register; thick lines separate warps,
thicker ones blocks. A shared layout (in-dim ``offset``, Triton's orientation; or out-dim
``offset``, CuTe's) shows each element's offset, coloured by its 4-byte bank of 32. What the
picture holds is worked out by :func:`layouts.viz.linear_model.linear_picture`.

>>> from layouts.linear import LinearLayout
>>> from layouts.viz import draw_linear
>>> mma = LinearLayout.from_bases(
...     {"register": [[0, 1]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}, ["dim0", "dim1"])
>>> fig = draw_linear(mma)
>>> [ax.get_label() for ax in fig.axes]
['tensor', 'bit matrix', 'colour key']
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ._figure import axes_cell_inches, new_figure
from ._style import (FIGURE_WIDTH, MIN_FONTSIZE, PAD_EDGE, PAD_HATCH, TEXT_PT, TITLE_PT, label_fontsize,
                     text_colors, value_colors)
from . import limits
from .linear_model import COLORS, LABELS, LinearPicture, key_colors, linear_picture

__all__ = ["draw_linear", "mimebundle", "COLORS", "LABELS"]

#: Inches: margins around the grid (left for the row indices, top for the title and column indices).
GRID_LEFT, GRID_TOP, GAP, RIGHT = 0.55, 0.62, 0.45, 0.15
#: The largest grid cell and matrix cell (inches).
GRID_CELL_MAX, MATRIX_CELL_MAX, MATRIX_CELL_MIN = 0.3, 0.21, 0.14
#: Key strips longer than this are left out.
MAX_KEY = 64

_SHORT = {"register": "reg", "offset": "off", "block": "blk"}


def _faces(p: LinearPicture, values=None) -> np.ndarray:
    """Cell colours: hardware indices in the lane palette, banks and offsets as CuTe's pictures colour them."""
    values = p.key_values if values is None else values
    if p.kind == "memory":
        return value_colors(values, max(p.key_extent, 1))
    return key_colors(values, p.key_extent)


def _text_width(text: str, size: float) -> float:
    """Inches a line of DejaVu Sans takes (0.6 em a character: an estimate that errs wide)."""
    return len(text) * 0.6 * size / 72


def draw_linear(layout: Any, ax=None, *, color: Optional[str] = None, label: Optional[str] = None,
                elem_bytes: int = 2, bank_bytes: int = 4, matrix: bool = True, title: Optional[str] = None):
    """Draw a linear layout: the tensor grid (row ``dim0``, column ``dim1``; higher ranks row-major
    with the last dim across) and, beside it, its bit matrix (:func:`layouts.linear.matrix_view`).

    Parameters
    ----------
    layout : layouts.linear.LinearLayout
        A distributed layout (in-dims among ``register``, ``lane``, ``warp``, ``block``) or a
        memory layout (in-dim ``offset`` as Triton's shared layouts, or out-dim ``offset`` as
        :func:`layouts.linear.from_cute` gives). At most ``layouts.viz.limits.MAX_CELLS`` elements.
    ax : matplotlib.axes.Axes, optional
        Draw the grid alone into this Axes (no matrix, no key) and return its figure.
    color : {"lane", "warp", "block", "register", "thread", "bank", "offset"}, optional
        What the cell colour shows: for a distributed layout the first holder's lane (default;
        warp when there is one lane), warp, block, register or thread; for a memory layout the
        bank the element's offset falls in (default; ``elem_bytes`` per element, ``bank_bytes``
        per bank, 32 banks) or the offset.
    label : {"register", "lane", "warp", "block", "thread", "offset", "none"}, optional
        The cell text: the register (default, distributed), the offset (default, memory), ...
        Labels are drawn only when they read at 7 pt or more at 900 px; the key says when not.
    matrix : bool
        Draw the bit matrix beside the grid (default True).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Save it with :func:`layouts.viz.save`.

    Examples
    --------
    >>> from layouts import linear
    >>> from layouts import cute
    >>> fig = draw_linear(linear.from_cute(cute.composition(cute.Swizzle(3, 0, 3), cute.Layout((8, 8), (8, 1)))))
    >>> fig.axes[0].get_title(loc="left")
    '8 x 8 tensor in memory: element -> offset'
    """
    from ._checks import check_axes
    ax = check_axes(ax)
    if not isinstance(matrix, bool):
        from ..errors import LayoutTypeError, type_name
        raise LayoutTypeError(f"draw_linear: matrix must be True or False, got {type_name(matrix)}")
    p = linear_picture(layout, color=color, label=label, elem_bytes=elem_bytes, bank_bytes=bank_bytes, title=title)
    faces = _faces(p)
    if ax is not None:
        cell = axes_cell_inches(ax, p.cols, p.rows)
        _draw_grid(ax, p, faces, cell)
        ax.set_label("tensor")
        return ax.get_figure()
    return _figure(p, faces, matrix)


def _layout_sizes(p: LinearPicture, matrix: bool):
    width = FIGURE_WIDTH
    n_in = sum(n for _, n in p.matrix_groups) if matrix else 0
    n_out = len(p.matrix_rows) if matrix else 0
    row_label = max((_text_width(r, TEXT_PT) for r in p.matrix_rows), default=0) + 0.12 if n_in else 0.0
    fixed = GRID_LEFT + GAP + row_label + RIGHT
    mcell = min(MATRIX_CELL_MIN, (0.42 * width - row_label) / n_in) if n_in and n_out else 0.0
    # the grid first (its labels are the picture), the matrix grows into what is left
    cell = min(GRID_CELL_MAX, (width - fixed - n_in * mcell) / p.cols, 10.0 / p.rows)
    if n_in and n_out:
        mcell = max(mcell, min(MATRIX_CELL_MAX, (width - fixed - p.cols * cell) / n_in))
    return width, cell, mcell, row_label, n_in, n_out


def _figure(p: LinearPicture, faces: np.ndarray, matrix: bool):
    width, cell, mcell, row_label, n_in, n_out = _layout_sizes(p, matrix)
    show_key = p.color != "offset" and p.key_extent <= MAX_KEY and p.key_extent > 1
    key_cell = min(0.22, (width - 1.2) / max(p.key_extent, 1))
    notes = list(p.notes)
    font = label_fontsize(cell * 72, [t for t in p.labels if t])
    if font < MIN_FONTSIZE and any(p.labels):
        notes.append(f"cell labels ({p.labels and 'offsets' if p.kind == 'memory' else 'registers'}) left out: "
                     f"cells too small to read them; see the text views in layouts.linear")
    grid_h = p.rows * cell
    matrix_h = n_out * mcell + 0.5 if n_in and n_out else 0.0
    body = max(grid_h, matrix_h)
    key_h = 0.4 if show_key else 0.0
    notes_h = 0.17 * len(notes) + (0.1 if notes else 0.0)
    height = GRID_TOP + body + 0.25 + key_h + notes_h
    fig = new_figure(width, height)
    top = height - GRID_TOP
    ax = fig.add_axes((GRID_LEFT / width, (top - grid_h) / height, p.cols * cell / width, grid_h / height))
    ax.set_label("tensor")
    _draw_grid(ax, p, faces, cell)
    ax.set_title(p.title, loc="left", fontsize=TITLE_PT, pad=0.25 * cell * 72 + 1.4 * TEXT_PT + 4)
    if n_in and n_out:
        left = GRID_LEFT + p.cols * cell + GAP + row_label
        mh = n_out * mcell
        bits_ax = fig.add_axes((left / width, (top - 0.5 - mh) / height, n_in * mcell / width, mh / height))
        bits_ax.set_label("bit matrix")
        _draw_matrix(bits_ax, p, mcell)
    y = top - body - 0.25
    if show_key:
        kax = fig.add_axes((GRID_LEFT / width, (y - 0.22) / height, p.key_extent * key_cell / width, 0.22 / height))
        kax.set_label("colour key")
        _draw_key(kax, p, key_cell)
        y -= key_h
    for k, note in enumerate(notes):
        fig.text(GRID_LEFT / width, (y - 0.17 * k - 0.12) / height, note, fontsize=TEXT_PT, color="#444444")
    return fig


def _squares(rows: int, cols: int, which: np.ndarray) -> np.ndarray:
    k = np.flatnonzero(which)
    r, c = np.divmod(k, cols)
    x0, y0 = c.astype(float), r.astype(float)
    return np.stack([np.stack([x0, y0], 1), np.stack([x0 + 1, y0], 1), np.stack([x0 + 1, y0 + 1], 1),
                     np.stack([x0, y0 + 1], 1)], 1)


def _draw_grid(ax, p: LinearPicture, faces: np.ndarray, cell: float) -> None:
    from matplotlib.collections import LineCollection, PolyCollection
    rows, cols = p.rows, p.cols
    everything = np.ones(rows * cols, dtype=bool)
    edge = 0.5 if cell >= 0.1 else 0.0          # white edges would wash out tiny cells
    ax.add_collection(PolyCollection(_squares(rows, cols, everything), facecolors=faces, edgecolors="white",
                                     linewidths=edge, gid="cells"))
    empty = p.holders == 0
    if empty.any():
        ax.add_collection(PolyCollection(_squares(rows, cols, empty), facecolors="none", edgecolors=PAD_EDGE,
                                         hatch=PAD_HATCH, linewidths=0.0, gid="unheld"))
    shared = p.holders > 1
    if shared.any() and len(set(p.holders[p.holders > 0].tolist())) > 1:
        ax.add_collection(PolyCollection(_squares(rows, cols, shared), facecolors="none", edgecolors="#00000088",
                                         hatch="..", linewidths=0.0, gid="broadcast"))
    font = label_fontsize(cell * 72, [t for t in p.labels if t])
    if font >= MIN_FONTSIZE:
        ink = text_colors(faces)
        r, c = np.divmod(np.arange(rows * cols), cols)
        for k, text in enumerate(p.labels):
            if text:
                ax.text(c[k] + 0.5, r[k] + 0.5, text, ha="center", va="center", fontsize=font, color=ink[k])
    if p.warp_edges:
        ax.add_collection(LineCollection([[a, b] for a, b, _ in p.warp_edges], colors="#202020",
                                         linewidths=[min(w, 0.25 * cell * 72) for _, _, w in p.warp_edges],
                                         gid="warp boundaries"))
    ax.set_xlim(0, cols)
    ax.set_ylim(rows, 0)
    ax.set_aspect("equal")
    ax.set_axis_off()
    _indices(ax, p, cell)


def _step(cell: float, count: int, widest: int) -> int:
    """Every how many rows (columns) an index is written, so that indices do not touch."""
    need = max(TEXT_PT * 1.3, widest * 0.62 * TEXT_PT + 3) / 72
    step = 1
    while step * cell < need and step < count:
        step *= 2
    return step


def _indices(ax, p: LinearPicture, cell: float) -> None:
    """Row and column indices and the dims they count, a few points off the grid (whatever the cell size)."""
    size = TEXT_PT - 0.5
    grey = dict(fontsize=size, color="#555555", textcoords="offset points")
    down = _step(cell * 0.6, p.rows, 1)       # rows are read downwards: only the height matters
    for i in range(0, p.rows, down):
        ax.annotate(str(i), (0, i + 0.5), xytext=(-3, 0), ha="right", va="center", **grey)
    across = _step(cell, p.cols, len(str(p.cols - 1)))
    for j in range(0, p.cols, across):
        ax.annotate(str(j), (j + 0.5, 0), xytext=(0, 3), ha="center", va="bottom", **grey)
    if p.row_name and p.rows > 1:
        ax.annotate(p.row_name + " \u2193", (0, 0), xytext=(-8, 3), ha="right", va="bottom", **grey)
    if p.col_name:
        ax.annotate(p.col_name + " \u2192", (p.cols, 0), xytext=(6, 3), ha="left", va="bottom", **grey)


def _draw_matrix(ax, p: LinearPicture, mcell: float) -> None:
    from matplotlib.collections import LineCollection, PolyCollection
    m = np.asarray(p.matrix)
    n_out, n_in = m.shape
    faces = np.where(m.ravel()[:, None] == 1, np.array([[0.19, 0.19, 0.19, 1.0]]), np.array([[0.96, 0.96, 0.96, 1.0]]))
    ax.add_collection(PolyCollection(_squares(n_out, n_in, np.ones(m.size, dtype=bool)), facecolors=faces,
                                     edgecolors="white", linewidths=0.5, gid="bits"))
    lines, c = [], 0
    for _, n in p.matrix_groups[:-1]:
        c += n
        lines.append([(c, -0.1), (c, n_out + 0.1)])
    r = 0
    sizes = [len([x for x in p.matrix_rows if x.rsplit(":", 1)[0] == d])
             for d in dict.fromkeys(x.rsplit(":", 1)[0] for x in p.matrix_rows)]
    for n in sizes[:-1]:
        r += n
        lines.append([(-0.1, r), (n_in + 0.1, r)])
    if lines:
        ax.add_collection(LineCollection(lines, colors="#202020", linewidths=1.0))
    size = min(TEXT_PT, max(MIN_FONTSIZE, mcell * 72 * 0.75))
    bits_fit = mcell * 72 >= 0.62 * MIN_FONTSIZE * 2
    c = 0
    line = 1.3 * MIN_FONTSIZE / (mcell * 72)           # one line of the bit numbers, in cells
    for name, n in p.matrix_groups:
        shown = name if _text_width(name, size) <= n * mcell + 0.15 else _SHORT.get(name, name[:4])
        ax.text(c + n / 2, -0.2 - line, shown, ha="center", va="bottom", fontsize=size, color="#222222")
        for i in range(n):
            if bits_fit or i % 2 == 0:
                ax.text(c + i + 0.5, -0.2, str(i), ha="center", va="bottom", fontsize=MIN_FONTSIZE, color="#555555")
        c += n
    for i, name in enumerate(p.matrix_rows):
        ax.text(-0.3, i + 0.5, name, ha="right", va="center", fontsize=MIN_FONTSIZE, color="#333333")
    ax.set_xlim(0, n_in)
    ax.set_ylim(n_out, 0)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.set_title("bit matrix: out bits x in bits", loc="left", fontsize=TEXT_PT, pad=0.2 * mcell * 72 + 2.6 * MIN_FONTSIZE + 4)


def _draw_key(ax, p: LinearPicture, key_cell: float) -> None:
    from matplotlib.collections import PolyCollection
    n = p.key_extent
    faces = _faces(p, np.arange(n))
    ax.add_collection(PolyCollection(_squares(1, n, np.ones(n, dtype=bool)), facecolors=faces, edgecolors="white",
                                     linewidths=0.5, gid="key"))
    font = label_fontsize(key_cell * 72, [str(n - 1)])
    if font >= MIN_FONTSIZE:
        ink = text_colors(faces)
        for i in range(n):
            ax.text(i + 0.5, 0.5, str(i), ha="center", va="center", fontsize=font, color=ink[i])
    else:
        for i in range(0, n, 8):
            ax.text(i + 0.5, 1.1, str(i), ha="center", va="top", fontsize=MIN_FONTSIZE, color="#555555")
    ax.text(0, -0.25, p.key_title, ha="left", va="bottom", fontsize=TEXT_PT, color="#444444")
    ax.set_xlim(0, n)
    ax.set_ylim(1, 0)
    ax.set_aspect("equal")
    ax.set_axis_off()


def mimebundle(layout: Any, include: Any = None, exclude: Any = None) -> dict:
    """Jupyter's display of a linear layout: :meth:`~layouts.linear.LinearLayout.explain` as text
    and :func:`draw_linear`'s picture as SVG (a PNG when the SVG would pass ``limits.MAX_SVG_BYTES`` or
    is not wanted); text only when it cannot be drawn.

    >>> from layouts.linear import LinearLayout
    >>> sorted(mimebundle(LinearLayout.identity_1d(4, "lane", "dim0")))
    ['image/svg+xml', 'text/plain']
    """
    from ._figure import to_png, to_svg
    from .cute import _picture_bundle
    drawn = []                              # one figure, for the SVG or the PNG, whichever is tried

    def figure():
        if not drawn:
            drawn.append(draw_linear(layout))
        return drawn[0]
    # an SVG only up to MAX_SVG_CELLS elements: larger ones pass MAX_SVG_BYTES, not worth writing
    return _picture_bundle(lambda: layout.explain(),
                           lambda: to_svg(figure()) if layout.total_out_size <= limits.MAX_SVG_CELLS else None,
                           lambda: to_png(figure(), dpi=100), include, exclude, limits.MAX_SVG_BYTES)
