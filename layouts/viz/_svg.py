"""SVG pieces shared by the pictures written straight from their models (no matplotlib figure):
the explorer's (:mod:`layouts.viz.explorer_svg`) and CuTe's (:mod:`layouts.viz.cute_svg`).

Colours become CSS classes (:class:`Fills`), texts are ``<text>`` in DejaVu Sans (matplotlib's
font, so the pictures look like the matplotlib ones), and a row of cell labels is written as runs
(:func:`cell_labels`), which a browser lays out far faster than a ``<text>`` per label.

>>> from layouts.viz import _svg
>>> fills = _svg.Fills()
>>> parts = _svg.cell_labels(0, 0, 20.0, [0, 1, 2], [0, 0, 0], ["1", "2", "3"], [(1, 1, 1, 1)] * 3, fills)
>>> len(parts), parts[1].count("&#160;")       # the group, one run of three labels, the group's end
(3, 2)
"""

from __future__ import annotations

import numpy as np

from . import _style

FONT = "font-family:'DejaVu Sans','Bitstream Vera Sans',Verdana,sans-serif"
NBSP = "&#160;"
#: At most this many cell labels share one ``<text>``.
RUN = 8
#: Advance of a digit and of a space in DejaVu Sans, in em (the runs' word spacing is computed from them).
DIGIT_EM = 0.636
SPACE_EM = 0.318


def esc(text: str) -> str:
    """``text`` safe inside an SVG element or attribute."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def hex_colors(rgba) -> list:
    """``#rrggbb`` of every RGBA row (alpha dropped)."""
    rgba = np.asarray(rgba, dtype=float).reshape(-1, 4)
    if not len(rgba):
        return []
    uniq, inverse = np.unique(np.round(rgba[:, :3] * 255).astype(np.int64), axis=0, return_inverse=True)
    names = [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in uniq.tolist()]
    return [names[i] for i in np.asarray(inverse).reshape(-1).tolist()]


_FILL_NAMES: dict = {}


class Fills:
    """CSS classes for fill colours ('f3'), so an element names its colour in a few bytes; the
    names are the same for the whole process, so a part written once can be shown again."""

    def __init__(self):
        self.used: set = set()

    def __call__(self, color: str) -> str:
        name = _FILL_NAMES.setdefault(color, f"f{len(_FILL_NAMES)}")
        self.used.add(color)
        return name

    @staticmethod
    def css(uid: str, colors) -> str:
        """The rules of ``colors``' classes, scoped to the element with id ``uid``."""
        return "".join(f"#{uid} .{_FILL_NAMES[c]}{{fill:{c}}}" for c in sorted(colors))


def text(x, y, text, size, anchor="start", extra="") -> str:
    """One ``<text>`` with its baseline at ``y``."""
    return (f'<text x="{x:.1f}" y="{y:.1f}" style="font-size:{size:g}px;text-anchor:{anchor}{extra}">'
            f"{esc(text)}</text>")


def cell_labels(x0, y0, cell, cx, cy, labels, faces, fills: Fills | None, fontsize: float | None = None,
                lone_spacing: bool = True) -> list:
    """One-line cell labels centred in cells of ``cell`` points at cell coordinates ``cx``, ``cy``
    (the cells' top-left corner at ``x0 + cx * cell``, ``y0 + cy * cell``), in black or white,
    whichever reads on ``faces``; empty labels are left out. The colour is a class of ``fills``,
    or with ``fills=None`` a ``fill`` attribute (no stylesheet needed). ``lone_spacing=False``
    leaves the word spacing out of a run of one label, which has no space to size.

    ``fontsize`` defaults to :func:`layouts.viz._style.label_fontsize` of the cell, and no label
    is written below :data:`~layouts.viz._style.MIN_FONTSIZE`. A run of up to :data:`RUN`
    neighbouring cells of one row, whose labels have the same length and colour, is one
    ``<text>`` whose words are its labels, a cell apart by ``word-spacing`` (DejaVu Sans metrics):
    a browser lays that out several times faster than a text placed character by character or
    one that ``textLength`` stretches; short runs keep a font with other metrics from drifting far.
    """
    if fontsize is None:
        fontsize = _style.label_fontsize(cell, labels)
        if fontsize < _style.MIN_FONTSIZE:
            return []
    fs = fontsize
    colors = hex_colors(_style.text_colors(np.asarray(faces, dtype=float).reshape(-1, 4)))
    adv = DIGIT_EM * fs
    cx, cy = np.asarray(cx, dtype=float), np.asarray(cy, dtype=float)
    runs, run = [], []
    for i in np.lexsort((cx, cy)).tolist():
        if run:
            j = run[-1]
            if (len(run) == RUN or cy[i] != cy[j] or cx[i] != cx[j] + 1 or len(labels[i]) != len(labels[j])
                    or colors[i] != colors[j]):
                runs.append(run)
                run = []
        if labels[i]:
            run.append(i)
    if run:
        runs.append(run)
    out = [f'<g style="{FONT};font-size:{fs:.2f}px;pointer-events:none">']
    spacings: dict = {}
    for run in runs:
        n = len(labels[run[0]])
        width = n * adv
        spacing = spacings.setdefault(n, f' style="word-spacing:{cell - width - SPACE_EM * fs:.2f}px"')
        paint = f'class="{fills(colors[run[0]])}"' if fills is not None else f'fill="{colors[run[0]]}"'
        out.append(f'<text {paint} x="{x0 + (cx[run[0]] + 0.5) * cell - width / 2:.1f}" '
                   f'y="{y0 + (cy[run[0]] + 0.5) * cell + 0.36 * fs:.1f}"{spacing if lone_spacing or len(run) > 1 else ""}>'
                   f'{NBSP.join(esc(labels[i]) for i in run)}</text>')
    out.append("</g>")
    return out
