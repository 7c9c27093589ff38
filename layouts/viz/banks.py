"""Pictures of shared-memory bank conflicts (:mod:`layouts.smem`): the tile coloured by
bank, one phase of an access outlined thread by thread, its conflicts in red, the words each bank
serves in that phase as bars, and a key that says in words which threads collide.

What is drawn is worked out by :func:`layouts.viz.banks_model.bank_picture` from
:func:`layouts.smem.conflicts`; this module only draws it (Agg canvas, no pyplot).

>>> from layouts import cute, smem
>>> from layouts.viz import draw_banks
>>> tile = cute.Layout((32, 32), (32, 1))                          # float32, row-major
>>> columns = smem.Access(threads=cute.Layout((32, 32), (1, 32)), width_bytes=4)
>>> fig = draw_banks(tile, columns, element_bytes=4)
>>> [ax.get_gid() for ax in fig.axes]
['tile', 'bank-bars']
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._args import int_arg, str_arg
from ..errors import LayoutError
from ._checks import check_axes
from ._figure import new_figure
from ._style import CHAR_EM, FIGURE_WIDTH, LABEL_MAX, MIN_FONTSIZE, TEXT_PT, TITLE_PT, text_colors
from . import limits
from .banks_model import BankPicture, bank_palette, bank_picture

__all__ = ["draw_banks", "bank_palette", "CONFLICT_COLOR"]

#: Outline of the cells in a conflicting bank; the other cells of the phase are outlined in black.
CONFLICT_COLOR = "#e8000b"
PHASE_COLOR = "#111111"
#: Inches below the tile for the bars (words per bank) and per line of the key.
BARS_IN, KEY_LINE_IN = 1.05, 0.15


def draw_banks(shared_layout: Any, acc: Any, element_bytes: int = 2, *, banks: int = 32, bank_bytes: int = 4,
               phase: int | None = None, ax=None, title: str | None = None):
    """Draw a shared-memory tile coloured by bank, with one phase of ``acc`` marked.

    Each cell is a tile element (mode 0 down, the other modes across, as CuTe prints a layout),
    coloured by the bank its first byte falls in (:func:`bank_palette`: the colour of each bank).
    The marked phase's cells are outlined, one outline per run of a thread's cells along a row,
    labelled with the thread; cells in a bank from which the phase reads more than one distinct
    4-byte word (a conflict: one more wavefront per extra word) are outlined in red. Below, one
    bar per bank gives the distinct words of the phase in it (the tallest bar is the phase's
    wavefronts), and the key says which threads collide, in which banks.

    Parameters
    ----------
    shared_layout, acc
        As for :func:`layouts.smem.conflicts`: anything the layout protocol accepts, and a
        :class:`layouts.smem.Access` or named instruction (:func:`layouts.smem.ldmatrix`, ...).
    element_bytes, banks, bank_bytes : int
        As for :func:`layouts.smem.conflicts`.
    phase : int, optional
        Which of ``conflicts(...).phases`` to mark; default the worst (the first with the most
        wavefronts).
    ax : matplotlib Axes, optional
        Draw the tile (outlines, labels, key under it) into this Axes; the bars are left out.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Thread labels smaller than 7 pt are left out, and the key says so. A tile of more than
        :data:`layouts.viz.limits.MAX_CELLS` cells is refused with a LayoutError.

    Examples
    --------
    >>> from layouts import cute, smem
    >>> tile = cute.composition(cute.Swizzle(3, 3, 3), cute.Layout((8, 64), (64, 1)))
    >>> fig = draw_banks(tile, smem.ldmatrix(x4=True))
    >>> key = fig.texts[0].get_text()                  # the key under the picture
    >>> "no conflict in this phase" in key, "phase 0 of 8, threads 0-7, 1 wavefront" in key
    (True, True)
    """
    from .. import smem
    element_bytes = int_arg("element_bytes", element_bytes, lo=1, hi=1 << 20, expected="a positive number of bytes")
    banks = int_arg("banks", banks, lo=1, hi=4096, expected="a positive number of banks")
    bank_bytes = int_arg("bank_bytes", bank_bytes, lo=1, hi=1 << 20, expected="a positive number of bytes")
    phase = int_arg("phase", phase, lo=0, expected="a phase number 0, 1, ...", allow_none=True)
    title = str_arg("title", title, allow_none=True)
    ax = check_axes(ax)
    mem = smem.memory_of(shared_layout)
    size = int(np.prod(mem.shape)) if len(mem.shape) else 1
    if size > limits.MAX_CELLS:
        raise LayoutError(f"draw_banks: the tile {tuple(mem.shape)} has {size} cells, more than "
                          f"layouts.viz.limits.MAX_CELLS = {limits.MAX_CELLS}; draw a part of it (a warp's tile)")
    result = smem.conflicts(shared_layout, acc, element_bytes=element_bytes, banks=banks, bank_bytes=bank_bytes)
    picture = bank_picture(result, phase, element_bytes, banks, bank_bytes, title)
    if ax is not None:
        cell_in = _axes_cell(ax, picture)
        note = _draw_tile(ax, picture, cell_in)
        ax.text(0, -0.02, "\n".join(picture.key + note), transform=ax.transAxes, ha="left", va="top",
                fontsize=TEXT_PT, color="#333333", gid="key")
        return ax.get_figure()
    return _figure(picture)


def _cell_inches(rows: int, cols: int) -> float:
    return min(0.42, (FIGURE_WIDTH - 0.9) / max(cols, 1), 7.5 / max(rows, 1))


def _axes_cell(ax, p: BankPicture) -> float:
    fig = ax.get_figure()
    w, h = fig.get_size_inches()
    pos = ax.get_position()
    return min(pos.width * w / p.cols, pos.height * h / p.rows)


def _figure(p: BankPicture):
    cell_in = _cell_inches(p.rows, p.cols)
    tile_w, tile_h = p.cols * cell_in, p.rows * cell_in
    key_lines = len(p.key) + 1
    width = max(FIGURE_WIDTH, tile_w + 0.9)   # the key's lines are wrapped for this width
    head = 0.4 + 0.15 * p.title.count("\n")
    height = head + tile_h + 0.35 + BARS_IN + 0.3 + key_lines * KEY_LINE_IN
    fig = new_figure(width, height)
    top = height - head
    ax = fig.add_axes((0.55 / width, (top - tile_h) / height, tile_w / width, tile_h / height))
    note = _draw_tile(ax, p, cell_in)
    bars_bottom = top - tile_h - 0.35 - BARS_IN
    bars_w = min(width - 1.0, max(4.0, 0.16 * len(p.words_per_bank)))
    bars = fig.add_axes((0.55 / width, bars_bottom / height, bars_w / width, BARS_IN / height))
    _draw_bars(bars, p)
    fig.text(0.1 / width, (bars_bottom - 0.3) / height, "\n".join(p.key + note), ha="left", va="top",
             fontsize=TEXT_PT, color="#333333", gid="key", linespacing=1.25)
    return fig


def _draw_tile(ax, p: BankPicture, cell_in: float) -> list:
    """The cells, the phase's outlines and thread labels; returns the key's note on left-out labels."""
    from matplotlib.collections import PolyCollection
    rows, cols = p.rows, p.cols
    r, c = np.divmod(np.arange(rows * cols), cols)
    ax.add_collection(PolyCollection(_boxes(c, r, c + 1, r + 1), facecolors=p.faces, edgecolors="white",
                                     linewidths=0.4 if cell_in > 0.08 else 0.0, gid="cells"))
    for flag, color, lw, gid in ((False, PHASE_COLOR, 1.6, "phase"), (True, CONFLICT_COLOR, 2.4, "conflicts")):
        runs = [run for run in p.runs if run[4] == flag]
        if runs:
            x0 = np.array([run[1] for run in runs], float)
            x1 = np.array([run[2] + 1 for run in runs], float)
            y0 = np.array([run[0] for run in runs], float)
            inset = min(0.08, 1.2 / 72 / cell_in)  # the outline inside its own cells, never on a neighbour's
            ax.add_collection(PolyCollection(_boxes(x0 + inset, y0 + inset, x1 - inset, y0 + 1 - inset),
                                             facecolors="none", edgecolors=color, linewidths=lw, gid=gid, zorder=3))
    left_out = _labels(ax, p, cell_in)
    ax.set_xlim(0, cols)
    ax.set_ylim(rows, 0)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.set_gid("tile")
    ax.set_title(p.title, loc="left", fontsize=TITLE_PT, pad=TEXT_PT + 10)
    _index_labels(ax, rows, cols, cell_in)
    if left_out:
        return [f"thread labels left out on {left_out} of {len(p.runs)} outlines: too small to read at "
                f"{MIN_FONTSIZE:g} pt (the key above names the threads)."]
    return []


def _boxes(x0, y0, x1, y1) -> np.ndarray:
    return np.stack([np.stack([x0, y0], 1), np.stack([x1, y0], 1), np.stack([x1, y1], 1), np.stack([x0, y1], 1)], 1)


def _labels(ax, p: BankPicture, cell_in: float) -> int:
    """``T<thread>`` in each outline where it reads at MIN_FONTSIZE or more; returns how many were left out."""
    cell_pt = cell_in * 72
    left_out = 0
    ink = text_colors(p.faces)
    for row, first, last, thread, _ in p.runs:
        text = f"T{thread}"
        run_pt = (last - first + 1) * cell_pt
        size = min(LABEL_MAX, 0.8 * run_pt / (CHAR_EM * len(text)), 0.85 * cell_pt)  # a label is one line of digits: 0.73 em high
        if size < MIN_FONTSIZE:
            left_out += 1
            continue
        x, y = (first + last + 1) / 2, row + 0.5
        if first == last:   # one cell: the text in the ink that reads on its colour, the colour left visible
            ax.text(x, y, text, ha="center", va="center", fontsize=size, color=ink[row * p.cols + first],
                    gid="thread-label", zorder=4)
        else:               # a run of several banks' colours: the text on a white box
            ax.text(x, y, text, ha="center", va="center", fontsize=size, color="black", gid="thread-label", zorder=4,
                    bbox={"boxstyle": "square,pad=0.08", "facecolor": "white", "edgecolor": "none", "alpha": 0.85})
    return left_out


def _index_labels(ax, rows: int, cols: int, cell_in: float) -> None:
    cell_pt = cell_in * 72
    step_r = max(1, int(np.ceil(9 / max(cell_pt, 0.1))))
    step_c = max(1, int(np.ceil(16 / max(cell_pt, 0.1))))
    for i in range(0, rows, step_r):
        ax.text(-0.3, i + 0.5, str(i), ha="right", va="center", fontsize=TEXT_PT - 0.5, color="#555555")
    for j in range(0, cols, step_c):
        ax.text(j + 0.5, -0.3, str(j), ha="center", va="bottom", fontsize=TEXT_PT - 0.5, color="#555555")


def _draw_bars(ax, p: BankPicture) -> None:
    n = len(p.words_per_bank)
    bad = {b for b, _ in p.colliding}
    colors = bank_palette(n)
    edges = [CONFLICT_COLOR if b in bad else "none" for b in range(n)]
    ax.bar(np.arange(n), p.words_per_bank, width=0.8, color=colors, edgecolor=edges, linewidth=1.2, gid="bank-bars")
    ax.set_gid("bank-bars")
    top = max(int(p.words_per_bank.max()), 1)
    ax.set_ylim(0, top + 0.5)
    ax.set_xlim(-0.6, n - 0.4)
    ax.set_yticks(sorted({0, 1, top}) if top <= 8 else [0, top])
    step = 1 if n <= 32 else int(np.ceil(n / 32))
    ax.set_xticks(range(0, n, step if n <= 32 else step * 4))
    ax.tick_params(labelsize=TEXT_PT - 0.5, length=2, pad=1)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.set_xlabel("bank", fontsize=TEXT_PT, labelpad=1)
    ax.set_title(f"distinct {p.bank_bytes}-byte words per bank in phase {p.phase.index}: the tallest bar, "
                 f"{p.phase.wavefronts}, is its wavefronts", loc="left", fontsize=TEXT_PT, pad=3)
