"""The physical memory of a layout as a 1-D strip of slots, wrapped into rows.

Each slot shows the element stored there (its logical number, its offset, or its coordinates),
coloured by one axis; padding slots are hatched; the jumps between stride levels are drawn as
separators whose width grows with the level and tagged once as ``[a:0]``, ``[a:1]``... as the
EdgeBoard article writes them.
"""

from __future__ import annotations

import numpy as np
from matplotlib.collections import LineCollection, PolyCollection

from . import _style
from ._cells import add_cell_labels, add_ring, squares  # noqa: F401  (squares: used by logical, compose)
from ._model import StripModel

#: Cell labels are drawn only for layouts of at most this many slots (text is the slow part).
TEXT_LIMIT = 4096

#: Margins (inches) a strip panel needs around its cells: left, top, right, bottom (the key's
#: lines are added to the bottom by the caller).
MARGINS = (0.5, 0.78, 0.5, 0.16)
#: Points between a stride-level tag and the line that ties it to its slot.
TAG_GAP = 2.0
#: Height (inches) of one line of a key.
KEY_LINE = 7.5 * 1.35 / 72


def strip_geometry(size: int, wrap: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Column, row of each slot and the number of rows."""
    k = np.arange(size, dtype=np.int64)
    return k % wrap, k // wrap, -(-size // wrap) if size else 0


#: Colour of the ring around a highlighted element (the article circles its element in green).
HIGHLIGHT_COLOR = "#00a000"


def add_highlight(ax, x: np.ndarray, y: np.ndarray, cells, color: str = "black") -> PolyCollection:
    """Outline the cells ``cells`` (indices into the cell positions ``x``, ``y``)."""
    return add_ring(ax, x, y, cells, color)


def level_width(level: int, cell_pt: float) -> float:
    scale = min(1.0, max(cell_pt / 16.0, 0.35))
    return scale * (0.6 + 0.9 * level)


def separator_slots(model: StripModel, number: int) -> np.ndarray:
    """Slots k whose jump from k-1 is of stride level ``number``, except jumps inside a padding run
    (both k-1 and k padding): padding is one hatched run, not a series of strides."""
    ks = np.flatnonzero(model.level == number)
    ks = ks[ks > 0]
    inside = model.padding[ks] & model.padding[ks - 1]
    return ks[~inside]


def draw_strip(ax, model: StripModel, *, wrap: int, colors: np.ndarray, cell_in: float,
               marker: str | None = "a", title: str | None = None, show_text: bool | None = None,
               highlight=None, fade: bool = False, key: bool = True, tags: bool = True,
               highlight_color: str = "black") -> dict:
    """Draw ``model`` into ``ax`` (cells span x 0..wrap, y 0..rows downwards). Returns the artists."""
    size = model.layout.size
    cols, rows, nrows = strip_geometry(size, wrap)
    ax.set_xlim(0, wrap)
    ax.set_ylim(max(nrows, 1), 0)
    ax.set_aspect("equal", adjustable="box")
    ax.set_axis_off()
    cell_pt = cell_in * 72
    pad = model.padding
    real = ~pad
    edge_lw = min(0.9, 0.055 * cell_pt) if cell_pt >= 6 else 0.0
    faces = colors.copy()
    if fade:
        faces[:, :3] = 1 - 0.35 * (1 - faces[:, :3])
    cells = PolyCollection(squares(cols[real], rows[real]), facecolors=faces[real], edgecolors=_style.CELL_EDGE,
                           linewidths=edge_lw, gid="cells")
    ax.add_collection(cells)
    out = {"cells": cells, "labels": [], "padding": None, "levels": {}, "tags": [], "labels_dropped": False}
    if pad.any():
        padc = PolyCollection(squares(cols[pad], rows[pad]), facecolors=_style.PAD_FACE, edgecolors=_style.PAD_EDGE,
                              linewidths=0.4 if cell_pt >= 6 else 0.0, hatch=_style.PAD_HATCH, gid="padding")
        ax.add_collection(padc)
        out["padding"] = padc
    # stride-level separators, one collection per level; none inside a run of padding
    for lv in model.levels:
        if lv.number == 0:
            continue
        ks = separator_slots(model, lv.number)
        if not ks.size:
            continue
        c, r = cols[ks], rows[ks]
        segs = np.where((c > 0)[:, None, None],
                        np.stack([np.stack([c, r], -1), np.stack([c, r + 1], -1)], 1),
                        np.stack([np.stack([np.zeros_like(r), r], -1), np.stack([np.full_like(r, wrap), r], -1)], 1))
        lc = LineCollection(segs.astype(float), colors=_style.LEVEL_COLOR, linewidths=level_width(lv.number, cell_pt),
                            capstyle="butt", gid=f"level-{lv.number}", zorder=3)
        ax.add_collection(lc)
        out["levels"][lv.number] = lc
    if show_text is None:
        show_text = size <= TEXT_LIMIT
    fs = _style.label_fontsize(cell_pt, model.labels) if show_text else 0.0
    if fs >= _style.MIN_FONTSIZE:
        tc = _style.text_colors(faces)
        if fade:
            tc[:] = (0.35, 0.35, 0.35, 1.0)
        ks = np.flatnonzero(real)
        out["labels"] = add_cell_labels(ax, cols[ks] + 0.5, rows[ks] + 0.5, [model.labels[k] for k in ks.tolist()],
                                        fontsize=fs, colors=tc[ks])
    else:
        out["labels_dropped"] = any(model.labels)
    # offsets at the start of each row, in the left margin (every few rows when rows are thin)
    step = max(1, int(np.ceil(_style.TEXT_PT * 1.15 / max(cell_pt, 1e-9))))
    starts = np.arange(0, nrows, step)
    out["row_offsets"] = add_cell_labels(ax, np.zeros(len(starts)), starts + 0.5, [str(r * wrap) for r in starts.tolist()],
                                         fontsize=_style.TEXT_PT, colors="#555555", gid="row-offset", ha="right",
                                         offset=(-3, 0))
    out["row_step"] = step
    if marker is not None and tags:
        out["tags"] = _tags(ax, model, wrap, cols, rows, marker)
    if highlight is not None:
        out["highlight"] = add_highlight(ax, cols, rows, highlight, highlight_color)
    if title:
        out["title"] = ax.annotate(title, xy=(0, 1), xycoords="axes fraction", xytext=(-30, 30), textcoords="offset points",
                                   fontsize=_style.TITLE_PT, va="bottom", ha="left", gid="title", annotation_clip=False)
    if key:
        out["key"] = ax.annotate(strip_key(model, marker, wrap=wrap, step=step, dropped=out["labels_dropped"]),
                                 xy=(0, 0), xycoords="axes fraction", xytext=(-30, -5),
                                 textcoords="offset points", fontsize=_style.TEXT_PT, va="top", ha="left", color="#333333",
                                 gid="key", annotation_clip=False, linespacing=1.35)
    return out


def strip_key(model: StripModel, marker: str | None, *, wrap: int, step: int = 1, dropped: bool = False) -> str:
    """The key under a strip: the stride levels, what the numbers left of the rows are, padding, dropped labels."""
    lines = [level_key(model, marker)]
    if any(lv.number for lv in model.levels):
        tag = f"[{marker}:k]" if marker else "level k"
        lines.append(f"a separator marks where a coordinate steps (thicker for outer levels); {tag} tags the first jump of level k")
    every = "" if step == 1 else f" (every {step} rows)"
    lines.append(f"numbers at the left: offset of the row's first slot{every}; a row holds {wrap} slots")
    if dropped:
        lines.append(f"cell labels left out: below {_style.MIN_FONTSIZE:g} pt at this size "
                     f"(layouts.viz.ascii prints them; or draw a smaller tensor)")
    return "\n".join(lines)


def key_lines(model: StripModel, marker: str | None, *, wrap: int, step: int = 1, dropped: bool = False) -> int:
    return strip_key(model, marker, wrap=wrap, step=step, dropped=dropped).count("\n") + 1


def level_key(model: StripModel, marker: str | None, padding: str = "hatched") -> str:
    """One line that says what each stride-level tag means: '[a:1] h (stride 4)'."""
    parts = []
    for lv in model.levels:
        tag = f"[{marker}:{lv.number}]" if marker else f"level {lv.number}"
        parts.append(f"{tag} {lv.name}+1 (stride {lv.stride})")
    text = "   ".join(parts)
    npad = int(model.padding.sum())
    if npad:
        text += f"     {padding}: {npad} padding slots"
    return text or "one slot: no stride jumps"


def _tags(ax, model: StripModel, wrap: int, cols, rows, marker: str) -> list:
    """Tag the first jump of each stride level once: above the strip when it is in the first row,
    else in the right margin beside the row where it happens (never on top of a cell label).

    Each tag is a Text, tied to its slot by a short line (one LineCollection for all of them, in
    points from the slot: an annotation arrow clipped at its text costs more than the rest of the tag).
    """
    from matplotlib.collections import LineCollection
    from matplotlib.transforms import Affine2D
    tags, anchors, segments = [], [], []
    above = 0
    beside: dict = {}
    for lv in model.levels:
        ks = separator_slots(model, lv.number) if lv.number else np.flatnonzero(model.level == 0)
        if not ks.size:
            continue
        k = int(ks[0])
        c, r = int(cols[k]), int(rows[k])
        text = f"[{marker}:{lv.number}]"
        if r == 0 and c > 0:
            dy = 5 + 10 * (above % 2)
            above += 1
            t = ax.annotate(text, (c, 0), xytext=(0, dy), textcoords="offset points", ha="center", va="bottom",
                            fontsize=_style.TEXT_PT, gid="level-tag", annotation_clip=False)
            anchors.append((c, 0))
            segments.append([(0, 0), (0, dy - TAG_GAP)])
        else:
            n = beside.get(r, 0)
            beside[r] = n + 1
            y = r + (0 if c == 0 else 0.5)
            t = ax.annotate(text, (wrap, y), xytext=(4 + 26 * n, 0), textcoords="offset points",
                            ha="left", va="center", fontsize=_style.TEXT_PT, gid="level-tag", annotation_clip=False)
            if n == 0:
                anchors.append((wrap, y))
                segments.append([(0, 0), (4 - TAG_GAP, 0)])
        tags.append(t)
    if segments:
        points = Affine2D().scale(1 / 72) + ax.get_figure().dpi_scale_trans
        lines = LineCollection(segments, offsets=anchors, offset_transform=ax.transData, colors="#444444",
                               linewidths=0.6, gid="tag-line", zorder=3)
        lines.set_transform(points)
        ax.add_collection(lines, autolim=False)
        lines.set_clip_on(False)  # the tags sit in the margins
    return tags
