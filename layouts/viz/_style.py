"""Colours and text sizes shared by every picture, so panels drawn together agree."""

from __future__ import annotations

import numpy as np

#: Face colour of padding slots (they are also hatched).
PAD_FACE = "#f2f2f2"
PAD_EDGE = "#9a9a9a"
PAD_HATCH = "////"
CELL_EDGE = "white"
#: Colour of cells when no axis colours them.
PLAIN_FACE = "#c9d7ea"
#: Stride-level separators: widths grow with the level.
LEVEL_COLOR = "#202020"


def _tab20_spread():
    from matplotlib import colormaps
    base = colormaps["tab20"].colors
    # tab20 pairs a dark and a light shade of each hue; neighbouring values get different hues
    return [base[i] for i in range(0, 20, 2)] + [base[i] for i in range(1, 20, 2)]


def value_colors(values: np.ndarray, extent: int) -> np.ndarray:
    """RGBA per value 0..extent-1 (padding -1 gets PAD_FACE); neighbours get distinct hues."""
    from matplotlib import colormaps
    from matplotlib.colors import to_rgba
    values = np.asarray(values)
    out = np.empty((values.size, 4))
    if extent <= 10:
        table = np.array([to_rgba(c) for c in colormaps["tab10"].colors[:max(extent, 1)]])
    elif extent <= 20:
        table = np.array([to_rgba(c) for c in _tab20_spread()[:extent]])
    else:
        table = colormaps["turbo"](np.linspace(0.08, 0.95, extent))
    ok = values >= 0
    out[ok] = table[values[ok] % len(table)]
    out[~ok] = to_rgba(PAD_FACE)
    return out


def text_colors(faces: np.ndarray) -> np.ndarray:
    """Black or white, whichever reads better on each face colour."""
    lum = 0.299 * faces[:, 0] + 0.587 * faces[:, 1] + 0.114 * faces[:, 2]
    return np.where(lum[:, None] > 0.55, np.array([[0.0, 0.0, 0.0, 1.0]]), np.array([[1.0, 1.0, 1.0, 1.0]]))


#: Width (inches) every figure is laid out for: a notebook column shows about 900 px at 100 dpi.
FIGURE_WIDTH = 9.0
#: Smallest text in a figure (points, at FIGURE_WIDTH): cell labels below it are dropped, and the
#: key says so.
MIN_FONTSIZE = 7.0
#: Cell labels are drawn between MIN_FONTSIZE and this size.
LABEL_MAX = 8.0
#: Size of annotations (row offsets, tags, plane titles, keys) and of titles.
TEXT_PT = 7.5
TITLE_PT = 9.0
#: Average advance of a character of DejaVu Sans (digits are 0.636 em), in em.
CHAR_EM = 0.64


def _label_extent(labels: list) -> tuple[int, int]:
    longest = max((max((len(s) for s in t.split("\n")), default=0) for t in labels if t), default=0)
    lines = max((t.count("\n") + 1 for t in labels if t), default=1)
    return longest, lines


def label_fontsize(cell_pt: float, labels: list) -> float:
    """The largest font (<= LABEL_MAX) that fits the longest label in a square cell of ``cell_pt`` points."""
    longest, lines = _label_extent(labels)
    if longest == 0:
        return 0.0
    by_width = 0.86 * cell_pt / (CHAR_EM * longest)
    by_height = 0.86 * cell_pt / (1.15 * lines)
    return min(LABEL_MAX, by_width, by_height)


def label_cell_inches(labels: list, fontsize: float = MIN_FONTSIZE + 0.1) -> float:
    """The cell (inches) in which the longest of ``labels`` reads at ``fontsize`` points (0.2 in at least)."""
    longest, lines = _label_extent(labels)
    need = max(fontsize * CHAR_EM * longest / 0.86, fontsize * 1.15 * lines / 0.86) / 72
    return max(need, 0.2)
