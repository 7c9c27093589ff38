"""CuTe layout pictures written straight to SVG from the layout: no matplotlib figure.

:func:`cute_svg` writes the picture of :func:`layouts.viz.draw_cute` (the same panels, worked
out by :func:`layouts.viz.cute_model.cute_picture`: cells, colours, offset labels, tile boundaries,
row and column indices, titles and the bank key; the swizzle, thread-value and strip variants)
as SVG text, in a fraction of the time matplotlib takes to build and save the figure. It is
what a notebook shows for a :class:`layouts.cute.Layout` (``_repr_mimebundle_``).

Each grid is a ``<g class="panel">`` holding a ``<g class="cells">`` of one cell per element
(a ``<use>`` of the picture's one cell ``<rect>``, with its ``fill``; a row in a ``<g>``), then its labels
(runs of labels a cell apart, as :mod:`layouts.viz._svg` writes them), tile boundaries, indices
and title. Colours are ``fill`` attributes and there is no stylesheet, so pictures inlined in one
page do not restyle each other, and the same layout gives the same bytes.

>>> from layouts import cute
>>> svg = cute_svg(cute.Layout((4, 8), (8, 1)))
>>> svg.startswith("<?xml"), svg.count("<use "), "(4,8):(8,1)" in svg
(True, 32, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _svg
from ._style import TEXT_PT, TITLE_PT
from .cute_model import CutePicture, cute_picture, index_labels, tile_lines

__all__ = ["cute_svg"]

#: Points between the baselines of a cell label's lines (matplotlib's 0.95 line spacing of DejaVu Sans).
LINE_EM = 1.11
#: Depth of DejaVu Sans below the baseline, in em (a column index sits on it).
DESCENT_EM = 0.24


def cute_svg(layout: Any, swizzle: Any = None, *, color: str | None = None, tv_tile: tuple[int, int] | None = None,
             elem_bytes: int = 2, bank_bytes: int = 4, title: str | None = None) -> str:
    """The picture of :func:`layouts.viz.draw_cute` as SVG text, written from the layout.

    The arguments are :func:`~layouts.viz.draw_cute`'s and checked the same way.

    Returns
    -------
    str
        A standalone SVG document (sizes in points, like :func:`layouts.viz.to_svg`'s); write it
        to a ``.svg`` file or display it (``IPython.display.SVG``).

    Examples
    --------
    >>> from layouts import cute
    >>> svg = cute_svg(cute.Layout((8, 8), (8, 1)), cute.Swizzle(3, 0, 3), elem_bytes=16)
    >>> svg.count('class="panel"'), "Sw&lt;3,0,3&gt; o 0 o (8,8):(8,1)" in svg, "bank conflict" in svg
    (2, True, True)
    """
    picture = cute_picture(layout, swizzle, color=color, tv_tile=tv_tile, elem_bytes=elem_bytes,
                           bank_bytes=bank_bytes, title=title)
    return picture_svg(picture)


def picture_svg(picture: CutePicture) -> str:
    """SVG text of a :class:`~layouts.viz.cute_model.CutePicture`."""
    width, height, cell = picture.width * 72, picture.height * 72, picture.cell_in * 72
    # the cell's id names its size: pictures inlined in one page share it only when it is the same
    cell_id = f"cute{cell * 100:.0f}"
    body = [f'<rect width="{width:.1f}" height="{height:.1f}" fill="#fff"/>']
    for p in picture.panels:
        body += _panel(p, height, cell, cell_id)
    if picture.key:
        body.append(_svg.text(0.55 * 72, height - 0.08 * 72, picture.key, TEXT_PT, extra=";fill:#444444"))
    text = "\n".join(body)
    return ('<?xml version="1.0" encoding="utf-8" standalone="no"?>\n'
            '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
            f'width="{width:.1f}pt" height="{height:.1f}pt" viewBox="0 0 {width:.1f} {height:.1f}" '
            f'style="{_svg.FONT}">\n<defs><rect id="{cell_id}" width="{cell:.2f}" height="{cell:.2f}"/></defs>\n'
            f'{text}\n</svg>\n')


def _panel(p, height: float, cell: float, cell_id: str) -> list:
    x0 = p.left * 72
    y0 = height - (p.bottom * 72 + p.rows * cell)
    k = np.arange(p.rows * p.cols)
    rows, cols = k // p.cols, k % p.cols
    faces = np.asarray(p.faces, dtype=float)
    colors = _svg.hex_colors(faces)
    out = [f'<g class="panel" data-rows="{p.rows}" data-cols="{p.cols}">',
           '<g class="cells" style="stroke:#fff;stroke-width:0.5px">']
    xs = (x0 + cols * cell).tolist()
    drawn = faces[:, 3] > 0
    for r in range(p.rows):            # a row of cells shares its y
        out.append(f'<g transform="translate(0,{y0 + r * cell:.1f})">')
        for i in np.flatnonzero(drawn[r * p.cols:(r + 1) * p.cols]).tolist():
            i += r * p.cols
            out.append(f'<use xlink:href="#{cell_id}" x="{xs[i]:.1f}" fill="{colors[i]}"/>')
        out.append("</g>")
    out.append("</g>")
    if p.label_size is not None:
        out += _labels(p, x0, y0, cell, rows, cols, faces)
    by_width: dict = {}
    for (ax, ay), (bx, by), lw in tile_lines(p):
        by_width.setdefault(lw, []).append(f"M{x0 + ax * cell:.1f} {y0 + ay * cell:.1f}L{x0 + bx * cell:.1f} {y0 + by * cell:.1f}")
    for lw, d in by_width.items():
        out.append(f'<path d="{"".join(d)}" style="fill:none;stroke:#202020;stroke-width:{lw:g}px"/>')
    size = TEXT_PT - 1
    down, across = index_labels(p, cell / 72)
    out.append(f'<g class="index" style="font-size:{size:g}px;fill:#555555;text-anchor:end">')
    out += [f'<text x="{x0 - 0.3 * cell:.1f}" y="{y0 + (i + 0.5) * cell + 0.36 * size:.1f}">{t}</text>' for i, t in down]
    out.append(f'</g><g class="index" style="font-size:{size:g}px;fill:#555555;text-anchor:middle">')
    out += [f'<text x="{x0 + (j + 0.5) * cell:.1f}" y="{y0 - 0.3 * cell - DESCENT_EM * size:.1f}">{t}</text>'
            for j, t in across]
    out.append("</g>")
    out.append(_svg.text(x0, y0 - 18, p.title, TITLE_PT))
    out.append("</g>")
    return out


def _labels(p, x0, y0, cell, rows, cols, faces) -> list:
    """The cell labels; a label of several lines (a thread and a value) as one run of cells per line."""
    fs = p.label_size
    lines = [t.split("\n") for t in p.labels]
    count = max((len(ls) for ls in lines), default=1)
    out = []
    for n in range(count):
        shift = (n - (count - 1) / 2) * LINE_EM * fs / cell       # this line's centre, in cells from the cell's
        texts = [ls[n] if n < len(ls) else "" for ls in lines]
        out += _svg.cell_labels(x0, y0, cell, cols, rows + shift, texts, faces, None, fontsize=fs,
                                  lone_spacing=False)
    return out
