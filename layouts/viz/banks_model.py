"""What a bank picture holds, worked out from a :func:`layouts.smem.conflicts` result before anything
is drawn: each cell's bank, the marked phase's cells (split into runs of one thread along a row,
each outlined and labelled once), the cells in a conflicting bank, the words per bank, and the key.

Cells follow the tile as CuTe prints it: mode 0 down, the other modes across (colexicographic), so
flat element ``i`` of a ``rows x cols`` tile is cell ``(i % rows, i // rows)``.

>>> import numpy as np
>>> bank_of(np.array([0, 1, 2, 64]), element_bytes=2, banks=32, bank_bytes=4).tolist()
[0, 0, 1, 0]
>>> thread_ranges([0, 1, 2, 3, 8, 9, 30])
'0-3, 8, 9, 30'
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

import numpy as np

from ..errors import LayoutError

__all__ = ["bank_of", "bank_palette", "thread_ranges", "BankPicture", "bank_picture"]

#: Lines of conflicts spelled out in the key; past them the key says how many banks more.
KEY_CONFLICT_LINES = 4
#: Characters per key line: a 9-inch figure at 7.5 pt; per title line at 9 pt.
KEY_WIDTH, TITLE_WIDTH = 150, 120


def bank_of(offsets: np.ndarray, element_bytes: int, banks: int, bank_bytes: int) -> np.ndarray:
    """The bank of each element's first byte: ``offset * element_bytes // bank_bytes % banks``."""
    return (np.asarray(offsets, dtype=np.int64) * element_bytes // bank_bytes) % banks


def bank_palette(banks: int = 32) -> np.ndarray:
    """RGBA of each bank, ``banks x 4``: for 32 banks or fewer, banks ``4k .. 4k+3`` (one 16-byte
    vector of 4-byte banks) share a hue, darkest first, and neighbouring groups differ in hue;
    past 32 banks a continuous colour map.

    >>> p = bank_palette()
    >>> p.shape, len({tuple(c) for c in p})
    ((32, 4), 32)
    """
    from matplotlib import colormaps
    from matplotlib.colors import to_rgba
    if banks > 32:
        return colormaps["turbo"](np.linspace(0.08, 0.95, banks))
    b, c = colormaps["tab20b"].colors, colormaps["tab20c"].colors
    # 5 hues x 4 shades each; the reds (tab20b 12-15) are left for the conflict outline, the greys out
    families = [c[0:4], c[4:8], c[8:12], c[12:16], b[4:8], b[16:20], b[8:12], b[0:4]]
    table = [to_rgba(shade) for family in families for shade in family]
    return np.array(table[:banks])


def thread_ranges(threads) -> str:
    """Thread numbers as runs: ``0-3, 8, 9, 30`` (a run of three or more is written with a dash)."""
    ts = sorted(set(int(t) for t in threads))
    out, k = [], 0
    while k < len(ts):
        j = k
        while j + 1 < len(ts) and ts[j + 1] == ts[j] + 1:
            j += 1
        out += [f"{ts[k]}-{ts[j]}"] if j - k >= 2 else [str(t) for t in ts[k:j + 1]]
        k = j + 1
    return ", ".join(out)


@dataclass
class BankPicture:
    """The cells of a ``rows x cols`` tile and the marks of one phase, in cell units."""

    rows: int
    cols: int
    banks: np.ndarray              # rows x cols, the bank of each cell
    faces: np.ndarray              # (rows * cols) x 4 RGBA, row-major
    runs: list                     # (row, first col, last col, thread, conflicting) of the marked phase
    words_per_bank: np.ndarray     # per bank, the distinct words the marked phase reads there
    colliding: list                # (bank, threads) of the marked phase
    phase: object                  # the smem.Phase marked
    title: str
    bank_bytes: int = 4
    key: list = field(default_factory=list)


def cell_of(flat: np.ndarray, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, col) of flat colexicographic indices in a tile of ``rows`` rows."""
    flat = np.asarray(flat, dtype=np.int64)
    return flat % rows, flat // rows


def _runs(phase, flagged_elements: set, rows: int) -> list:
    """Maximal runs of cells along a row held by one thread with the same conflict flag."""
    out = []
    for thread, elements in zip(phase.threads, phase.elements):
        cells = sorted({(int(e) % rows, int(e) // rows, int(e) in flagged_elements) for e in elements})
        k = 0
        while k < len(cells):
            r, c, bad = cells[k]
            j = k
            while j + 1 < len(cells) and cells[j + 1] == (r, cells[j][1] + 1, bad):
                j += 1
            out.append((r, c, cells[j][1], int(thread), bad))
            k = j + 1
    return out


def _words_of(offset: int, element_bytes: int, bank_bytes: int) -> range:
    first = offset * element_bytes
    return range(first // bank_bytes, (first + element_bytes - 1) // bank_bytes + 1)


def bank_picture(result, phase_index, element_bytes: int, banks: int, bank_bytes: int,
                 title: str | None) -> BankPicture:
    """The picture of ``result`` (a :class:`layouts.smem.Conflicts`) with phase ``phase_index``
    (None: the worst) marked; refuses a tile larger than :data:`layouts.viz.limits.MAX_CELLS`."""
    mem = result.memory
    shape = tuple(int(s) for s in mem.shape)
    size = int(np.prod(shape)) if shape else 1
    rows = shape[0] if len(shape) >= 2 else 1
    cols = size // rows if rows else 0
    if size == 0:
        raise LayoutError(f"draw_banks: the tile {shape} has no elements to draw")
    phases = result.phases
    if not phases:
        raise LayoutError("draw_banks: this access makes no request, so there is no phase to draw")
    if phase_index is None:
        phase = result.worst_phase
    elif not 0 <= phase_index < len(phases):
        raise LayoutError(f"draw_banks: phase is {phase_index}; this access has {len(phases)} phases, "
                          f"0..{len(phases) - 1} (or None for the worst)")
    else:
        phase = phases[phase_index]
    offsets = np.asarray(mem.offsets, dtype=np.int64)
    bank = bank_of(offsets, element_bytes, banks, bank_bytes)
    grid = np.empty((rows, cols), dtype=np.int64)
    r, c = cell_of(np.arange(size), rows)
    grid[r, c] = bank
    faces = bank_palette(banks)[grid.ravel()]
    colliding = [(int(b), tuple(int(t) for t in ts)) for b, ts in phase.colliding()]
    bad_banks = {b for b, _ in colliding}
    flagged = {int(e) for es in phase.elements for e in es
               if any(w % banks in bad_banks for w in _words_of(int(offsets[int(e)]), element_bytes, bank_bytes))}
    words = np.zeros(banks, dtype=np.int64)
    for b, ws in phase.banks.items():
        words[int(b)] = len(set(ws))
    picture = BankPicture(rows, cols, grid, faces, _runs(phase, flagged, rows), words, colliding, phase,
                          _title(title or f"{mem.describe()}: the bank of each element, phase {phase.index} outlined"),
                          bank_bytes)
    picture.key = _key(result, phase, colliding, element_bytes, banks, bank_bytes)
    return picture


def _title(text: str) -> str:
    """At most three lines of at most TITLE_WIDTH characters (a long Triton encoding's name wraps)."""
    lines = [w for line in text.splitlines() for w in textwrap.wrap(line, TITLE_WIDTH)]
    return "\n".join(lines[:2] + ["..."] if len(lines) > 3 else lines)


def _key(result, phase, colliding: list, element_bytes: int, banks: int, bank_bytes: int) -> list:
    n = len(result.phases)
    wide = " of its first byte" if element_bytes > bank_bytes else ""
    hue = ", banks 4k..4k+3 share a hue" if banks <= 32 else ""
    lines = [f"colour: the bank{wide} ({banks} banks of {bank_bytes} bytes, {element_bytes}-byte elements{hue}). "
             f"Whole access: {result.wavefronts} wavefronts where {result.ideal} is ideal, {result.ways}-way at worst, "
             f"{result.vector_bytes}-byte vectors."]
    lines.append(f"outlined: phase {phase.index} of {n}, threads {thread_ranges(phase.threads)}, "
                 f"{phase.wavefronts} wavefront{'s' if phase.wavefronts != 1 else ''}; each outline is one thread's "
                 "cells, labelled with the thread.")
    if not colliding:
        lines.append("no conflict in this phase: no bank holds two different words (threads reading one word "
                     "share it, a broadcast).")
    else:
        lines.append("red: the conflicts, cells in a bank this phase reads more than one word of:")
        groups: dict = {}
        for b, ts in colliding:
            groups.setdefault((ts, len(set(phase.banks[b]))), []).append(b)
        items = sorted(groups.items(), key=lambda kv: (-kv[0][1], kv[1][0]))
        for (ts, count), bs in items[:KEY_CONFLICT_LINES]:
            name = f"bank {bs[0]}" if len(bs) == 1 else f"banks {thread_ranges(bs)}"
            lines.append(f"- {name}: threads {thread_ranges(ts)} read {count} different words"
                         f"{' each' if len(bs) > 1 else ''}, {count} wavefronts")
        if len(items) > KEY_CONFLICT_LINES:
            rest = sum(len(bs) for _, bs in items[KEY_CONFLICT_LINES:])
            lines.append(f"- and {rest} more bank{'s' if rest != 1 else ''} with fewer words")
    return [w for line in lines for w in textwrap.wrap(line, KEY_WIDTH)]
