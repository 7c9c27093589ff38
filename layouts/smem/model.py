"""The hardware's bank model, vectorised: requests -> phases -> wavefronts.

Shared memory is ``banks`` banks of ``bank_bytes`` (32 of 4 bytes on every NVIDIA GPU since
Kepler's 4-byte mode; CUDA C++ Programming Guide, "Shared Memory" of compute capability 5.x and
later). A warp's request is served in phases by its width (4 bytes or less: all 32 threads at
once; 8 bytes: 16 threads; 16 bytes: 8 -- a phase moves at most 128 bytes). Within a phase each
bank delivers one 4-byte word per wavefront: the phase takes as many wavefronts as the largest
number of *distinct* words any one bank holds; threads reading the same word share it (broadcast).
``ldmatrix``/``stmatrix`` are 16-byte requests whose phase is one 8 x 8 matrix, 8 threads (PTX ISA,
"ldmatrix"). Triton counts the same way in its own brute force (``bruteforceBankConflictsPerWavefront``
of its SwizzleTest: per instruction, lanes in groups of 32 / words per thread, distinct 32-bit
offsets, the fullest bank).

>>> import numpy as np
>>> idx = np.arange(32 * 32)
>>> offsets = (idx % 32) * 32 + idx // 32        # row-major 32 x 32: element row + 32 col at 32 row + col
>>> values = idx.reshape(32, 32).T                 # thread t holds row t; its request v reads column v
>>> counts = count(offsets, values, 4, 4, 32, 32, 4)
>>> counts.per_phase[:3].tolist(), int(counts.per_phase.sum())
([32, 32, 32], 1024)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..errors import LayoutError


class Counts(NamedTuple):
    """The model's arrays for one access (``A`` active requests of one thread each)."""

    per_phase: np.ndarray       # (P,) wavefronts of each phase that has a thread
    phase_of: np.ndarray        # (A,) the phase (0..P-1) of each active thread-request
    request: np.ndarray         # (A,) which issue of the instruction
    thread: np.ndarray          # (A,) which thread
    elements: np.ndarray        # (A, n) flat element indices
    words: np.ndarray           # (A, m) word addresses (byte address // bank_bytes)


def groups_of(values: np.ndarray, n: int) -> np.ndarray:
    """``values`` (32, V) as requests of ``n`` values: (V // n, 32, n).

    >>> groups_of(np.arange(128).reshape(32, 4), 2)[1, 0].tolist()     # request 1 of thread 0
    [2, 3]
    """
    threads, per = values.shape
    return values.reshape(threads, per // n, n).transpose(1, 0, 2)


def contiguous(offsets: np.ndarray, groups: np.ndarray, element_bytes: int) -> np.ndarray:
    """For each active group (first value >= 0) of ``groups`` (..., n): are its elements at
    consecutive offsets, the first aligned to the group's bytes? (inactive groups pass)

    >>> contiguous(np.array([0, 1, 3, 2]), np.array([[0, 1], [2, 3]]), 4).tolist()
    [True, False]
    """
    n = groups.shape[-1]
    active = groups[..., 0] >= 0
    offs = offsets[np.where(groups >= 0, groups, 0)]
    ok = np.all(offs == offs[..., :1] + np.arange(n), axis=-1) & (offs[..., 0] * element_bytes % (n * element_bytes) == 0)
    return ok | ~active


def widest(offsets: np.ndarray, values: np.ndarray, element_bytes: int, cap: int = 16) -> int:
    """The widest request (bytes, at most ``cap``) for which every thread's consecutive values are
    contiguous and aligned: ``element_bytes`` at least.

    >>> widest(np.arange(64), np.arange(64).reshape(32, 2), 4)
    8
    """
    best, n = element_bytes, 2
    threads, per = values.shape
    offs = None
    while n * element_bytes <= cap and per % n == 0:
        if offs is None:                  # what contiguous() reads, gathered once for every n
            offs = offsets[np.where(values >= 0, values, 0)]
        groups = offs.reshape(threads, per // n, n)
        inactive = values.reshape(threads, per // n, n)[..., 0] < 0
        ok = np.all(groups == groups[..., :1] + np.arange(n), axis=-1) & (groups[..., 0] % n == 0)
        if not (ok | inactive).all():
            break
        best, n = n * element_bytes, n * 2
    return best


#: :func:`count` marks (phase, word) pairs in a table, not sorting them, while the table has at
#: most this many entries, or this many per pair (a table longer than that costs more to scan).
_TABLE, _TABLE_PER_PAIR = 1 << 12, 32


def count(offsets: np.ndarray, values: np.ndarray, width_bytes: int, element_bytes: int,
          threads_per_phase: int, banks: int, bank_bytes: int) -> Counts:
    """Wavefronts of every phase of ``values`` (32, V; -1 = no address) read ``width_bytes`` at a time.

    The caller has checked that the width suits the values (see :func:`check_requests`).

    >>> c = count(np.arange(64), np.arange(64).reshape(32, 2), 8, 4, 16, 32, 4)
    >>> c.per_phase.tolist(), c.words[1].tolist()      # two phases of 16 threads; thread 1's words
    ([1, 1], [2, 3])
    """
    n = width_bytes // element_bytes
    groups = groups_of(values, n)                                  # (R, 32, n)
    requests, threads = groups.shape[:2]
    active = groups[..., 0] >= 0
    request, thread = np.nonzero(active)
    elements = groups[request, thread]                             # (A, n)
    first = offsets[elements[:, 0]] * element_bytes
    words = (first // bank_bytes)[:, None] + np.arange(max(1, width_bytes // bank_bytes))
    per_request = threads // threads_per_phase
    phase = request * per_request + thread // threads_per_phase
    present = np.bincount(phase) > 0                                # only phases with a thread count
    used = np.flatnonzero(present)
    phase_of = (np.cumsum(present) - 1)[phase]                     # what np.unique's inverse says, unsorted
    top = int(words.max()) + 1 if words.size else 1
    flat_phase = np.repeat(phase_of, words.shape[1])
    if top * max(1, used.size) <= max(_TABLE, _TABLE_PER_PAIR * flat_phase.size):
        seen = np.zeros(top * max(1, used.size), dtype=bool)      # (phase, word) pairs marked, read in order
        seen[flat_phase * top + words.reshape(-1)] = True
        key = np.flatnonzero(seen)
        distinct_phase, word = key // top, key % top
    elif top * max(1, used.size) < 1 << 62:
        key = np.unique(flat_phase * top + words.reshape(-1))
        distinct_phase, word = key // top, key % top
    else:                                   # offsets too far apart for one int64 key: pairs instead
        pairs = np.unique(np.stack([flat_phase, words.reshape(-1)], axis=1), axis=0)
        distinct_phase, word = pairs[:, 0], pairs[:, 1]
    per_bank = np.bincount(distinct_phase * banks + word % banks, minlength=used.size * banks)
    per_phase = per_bank.reshape(used.size, banks).max(axis=1) if used.size else np.zeros(0, dtype=np.int64)
    return Counts(per_phase, phase_of, request, thread, elements, words)


def check_requests(offsets: np.ndarray, values: np.ndarray, width_bytes: int, element_bytes: int,
                   vector_bytes: int, what: str) -> None:
    """A LayoutError naming the width when ``values`` cannot be read ``width_bytes`` at a time.

    >>> check_requests(np.arange(8)[::-1].copy(), np.arange(64).reshape(32, 2) % 8, 8, 4, 4, "it")
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: width_bytes=8 is not allowed by this shared layout: thread 0's values 0..1 (elements [0, 1]) are at offsets [7, 6], not 2 consecutive offsets aligned to 8 bytes; the widest this layout allows for it is 4 bytes
    """
    if width_bytes % element_bytes:
        raise LayoutError(f"width_bytes={width_bytes} is not a whole number of {element_bytes}-byte elements")
    n = width_bytes // element_bytes
    per = values.shape[1]
    if per % n:
        raise LayoutError(f"width_bytes={width_bytes} takes {n} values at a time, but each thread of {what} holds "
                          f"{per} values (the widest this layout allows is {vector_bytes} bytes)")
    ok = contiguous(offsets, groups_of(values, n), element_bytes)
    if not ok.all():
        r, t = (int(i) for i in np.argwhere(~ok)[0])
        vals = values[t, r * n:(r + 1) * n]
        offs = offsets[vals].tolist()
        raise LayoutError(f"width_bytes={width_bytes} is not allowed by this shared layout: thread {t}'s values "
                          f"{r * n}..{(r + 1) * n - 1} (elements {vals.tolist()}) are at offsets {offs}, not "
                          f"{n} consecutive offsets aligned to {width_bytes} bytes; the widest this layout allows "
                          f"for {what} is {vector_bytes} bytes")
