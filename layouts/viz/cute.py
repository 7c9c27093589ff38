"""Pictures of CuTe layouts (:mod:`layouts.cute`): CuTe's grid of offsets, swizzles before and
after, thread-value layouts of MMA atoms, and logical-vs-physical strips for higher ranks.

Each panel is one ``PolyCollection`` of cells, one ``LineCollection`` of tile boundaries and a
text per cell only when the cells are large enough to read (``layouts.viz.limits.MAX_LABELS``), so the
SVGs stay small. What a picture holds (panels, cells, colours, labels, titles, key) is worked
out once by :func:`layouts.viz.cute_model.cute_picture`; :func:`draw_cute` draws it with matplotlib, and
:func:`layouts.viz.cute_svg` writes it straight to SVG (what a notebook shows for a CuTe layout).

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
from typing import Any, Callable, Optional

import numpy as np

from ._figure import new_figure
from ._style import TEXT_PT, TITLE_PT, text_colors
from . import limits
from .cute_model import COLORS, CutePanel, cute_picture, index_labels, tile_lines

__all__ = ["draw_cute", "mimebundle", "COLORS"]

#: The largest SVG a notebook is given; a larger picture goes as a PNG.


def draw_cute(layout: Any, swizzle: Any = None, *, color: str | None = None, tv_tile: tuple[int, int] | None = None,
              elem_bytes: int = 2, bank_bytes: int = 4, title: str | None = None):
    """Draw a CuTe layout as CuTe draws it: a grid, row = mode-0 coordinate, column = the other
    modes (colexicographic), each cell its offset, thick lines at the hierarchical tile
    boundaries; rank > 2 as logical-vs-physical strips.

    :func:`layouts.viz.cute_svg` writes the same picture as SVG text straight from the layout, in
    a fraction of the time; it is what a notebook shows for a CuTe layout.

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
    return render(cute_picture(layout, swizzle, color=color, tv_tile=tv_tile, elem_bytes=elem_bytes,
                               bank_bytes=bank_bytes, title=title))


def render(picture: Any):
    """The matplotlib figure of a worked-out grid picture (:mod:`.cute_model`)."""
    w, h, cell_in = picture.width, picture.height, picture.cell_in
    fig = new_figure(w, h)
    for p in picture.panels:
        ax = fig.add_axes((p.left / w, p.bottom / h, p.cols * cell_in / w, p.rows * cell_in / h))
        _draw_cells(ax, p, cell_in)
        ax.set_title(p.title, loc="left", fontsize=TITLE_PT, pad=18)
    if picture.key:
        fig.text(0.55 / w, 0.08 / h, picture.key, fontsize=TEXT_PT, color="#444444")
    return fig


def _draw_cells(ax, p: CutePanel, cell_in: float) -> None:
    from matplotlib.collections import LineCollection, PolyCollection
    rows, cols = p.rows, p.cols
    r, c = np.divmod(np.arange(rows * cols), cols)
    x0, y0 = c.astype(float), r.astype(float)
    verts = np.stack([np.stack([x0, y0], 1), np.stack([x0 + 1, y0], 1), np.stack([x0 + 1, y0 + 1], 1),
                      np.stack([x0, y0 + 1], 1)], 1)
    ax.add_collection(PolyCollection(verts, facecolors=p.faces, edgecolors="white", linewidths=0.5))
    if p.label_size is not None:
        ink = text_colors(p.faces)
        for k, text in enumerate(p.labels):
            ax.text(x0[k] + 0.5, y0[k] + 0.5, text, ha="center", va="center", fontsize=p.label_size, color=ink[k],
                    linespacing=0.95)
    lines = tile_lines(p)
    if lines:
        ax.add_collection(LineCollection([[a, b] for a, b, _ in lines], colors="#202020",
                                         linewidths=[lw for _, _, lw in lines]))
    ax.set_xlim(0, cols)
    ax.set_ylim(rows, 0)
    ax.set_aspect("equal")
    ax.set_axis_off()
    down, across = index_labels(p, cell_in)
    for i, text in down:
        ax.text(-0.3, i + 0.5, text, ha="right", va="center", fontsize=TEXT_PT - 1, color="#555555")
    for j, text in across:
        ax.text(j + 0.5, -0.3, text, ha="center", va="bottom", fontsize=TEXT_PT - 1, color="#555555")


def mimebundle(layout: Any, include: Any = None, exclude: Any = None) -> dict:
    """Jupyter's display of a CuTe layout: its explanation as text, its picture as SVG written
    straight from the layout (:func:`layouts.viz.cute_svg`; a PNG of :func:`draw_cute` when the
    SVG would be large or is not wanted); text only when it cannot be drawn.

    >>> from layouts import cute
    >>> sorted(mimebundle(cute.Layout((2, 2))))
    ['image/svg+xml', 'text/plain']
    """
    from ._figure import to_png
    from .cute_svg import cute_svg
    return _picture_bundle(lambda: layout.explain(),
                           lambda: cute_svg(layout) if layout.size() <= limits.MAX_LABELS else None,
                           lambda: to_png(draw_cute(layout), dpi=100), include, exclude, limits.MAX_SVG_BYTES)


def _picture_bundle(text: Callable[[], str], svg: Callable[[], Optional[str]], png: Callable[[], bytes],
                    include: Any, exclude: Any, max_svg_bytes: int) -> dict:
    """What Jupyter shows of a layout (here and in :mod:`layouts.viz.linear`): ``text()`` as text,
    ``svg()`` when an SVG is wanted and it gives one of at most ``max_svg_bytes`` (None: too large
    to try), else the PNG ``png()`` when wanted; text only when the picture fails.

    >>> sorted(_picture_bundle(lambda: "t", lambda: "<svg/>", bytes, None, {"image/svg+xml"}, 10))
    ['image/png', 'text/plain']
    """
    def wanted(mime):
        return (include is None or mime in include) and (exclude is None or mime not in exclude)
    data = {}
    if wanted("text/plain"):
        data["text/plain"] = text()
    try:
        svg_text = svg() if wanted("image/svg+xml") else None
        if svg_text is not None and len(svg_text.encode("utf-8")) <= max_svg_bytes:
            data["image/svg+xml"] = svg_text
        elif wanted("image/png"):
            data["image/png"] = base64.b64encode(png()).decode("ascii")
    except Exception:  # noqa: BLE001 - a picture is a bonus: the text above always shows
        return data
    return data
