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


def label_fontsize(cell_pt: float, labels: list) -> float:
    """The largest font (<= 7 pt) that fits the longest label in a square cell of ``cell_pt`` points."""
    longest = max((max((len(s) for s in t.split("\n")), default=0) for t in labels if t), default=0)
    lines = max((t.count("\n") + 1 for t in labels if t), default=1)
    if longest == 0:
        return 0.0
    by_width = 0.8 * cell_pt / (0.62 * longest)
    by_height = 0.8 * cell_pt / (1.2 * lines)
    return min(7.0, by_width, by_height)


#: Below this font size cell labels are dropped (they would be unreadable).
MIN_FONTSIZE = 3.2
