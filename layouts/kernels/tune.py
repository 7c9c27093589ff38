"""The copy engine's part of ``python -m layouts tune`` (:mod:`layouts.cli.tune` runs every part):
measure the profile's size thresholds on this machine.

Each threshold is where one way of copying starts to beat another, found by timing both on the
same conversions at growing sizes (interleaved rounds, medians): the threshold is the smallest
measured size from which the second way wins at that size and every larger one (so that, for
``thread_min_bytes``, two threads are never slower than one above it). Sizes are powers of two
and the conversions are the ones the defaults were set on (NCHW<->NHWC, NCHW->CHWN, C=3 cases for
the small-channel strategies, :data:`THREAD_CASES`). ``nt_min_bytes`` is timed with outputs that
are not in cache when the copy starts, as a conversion inside a pipeline finds its output: plain
stores then first read every line they write, and a hot loop into one output would hide that.
Its threshold is the one that makes the copies measured fastest in all (:func:`least_time`),
since the thresholds of a first win at every larger size moved by whole octaves on one noisy size.
The thread thresholds are timed on calls made as in a pipeline: each after the calling thread
has written the source (as the step that makes it would) and slept a little (:data:`PAUSE_S`), and more threads win a
size only where they are a tenth faster or more (:data:`THREAD_MARGIN`).
Back to back, every call finds the source in both cores' caches and the second core just busy;
in a pipeline the second core must fetch its half from the first, and wakes from a pause.

============================  ======================================  ==========================
field                         first way                               second way
============================  ======================================  ==========================
small_bytes                   one ``np.copyto``                       the kernels
small_short_rows              one ``np.copyto``                       the kernels, on rows of 3
                              (C=3 uint8 NCHW->NHWC)                  bytes (counted in rows)
small_units                   one ``np.copyto``                       the kernels, on bytes read
                              (C=3 uint8 NHWC->NCHW)                  3 apart (counted in units)
thread_min_bytes_by_strategy  one thread                              every thread, per strategy
                                                                      (``thread_min_bytes`` stays
                                                                      the default of the others;
                                                                      each call after a pause)
nt_min_bytes                  plain stores                            non-temporal stores
                                                                      (least total time; at least
                                                                      half the L2 size)
group_min_bytes               tiles of bytes / halves                 word-grouped tiles
block_j_long_bytes            cache blocks of all of j                one tile column of j
                              (by source row length, long dst rows)
block_j_plain_bytes           the same, for copies with plain stores  one tile column of j
                              (outputs not in cache)
stage_bytes                   a scratch of 4 MiB for ``staged``       the fastest of a few sizes
                              (C=3 NHWC<->CHWN)
narrow_when_aliased           full tiles                              narrow tiles, where the
                                                                      source rows share L1 sets
                                                                      (in-cache copies; the
                                                                      less total time wins)
============================  ======================================  ==========================

Then it fills the wisdom (:mod:`.wisdom`) for the common conversions (:data:`WISDOM_CASES`: the
benchmark's shapes, dtypes and directions), so that their first copy measures nothing, and those
too small to be measured on first sight follow a measured choice.

The result is saved (``profile.save``) where later processes find it (``profile.default_path()``
or ``--out``) and loaded only on the same CPU.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .machine import profile as _profile

__all__ = ["tune", "Measured", "fill_wisdom", "WISDOM_CASES", "seconds_per_call", "medians", "first_winning", "least_time",
           "at_least_half_l2", "producer", "PAUSE_S", "THREAD_MARGIN"]


@dataclass
class Measured:
    """One threshold: the sizes tried, the two ways' median seconds per case, what was chosen."""

    field: str
    first: str
    second: str
    sizes: list
    rows: list          # (case, size, t_first, t_second)
    chosen: int
    note: str = ""
    #: what ``chosen`` counts: bytes for a threshold; for a cost, thousandths of a memcpy
    unit: str = "bytes"


_ORDER = {"NCHW": (0, 1, 2, 3), "NHWC": (0, 2, 3, 1), "CHWN": (1, 2, 3, 0)}


def _case(direction: str, dtype: str, nbytes: int, C: int = 64, side: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(out, source view) of a conversion of about ``nbytes`` bytes of NCHW tensors with C
    channels and H = W = ``side`` (default 16, 32 when C < 16), N grown (or H = W shrunk below one
    image).
    Directions: 'A->B' among NCHW, NHWC, CHWN, and 'NCHW16c->NCHW', 'NCHW->NCHW16c'."""
    dt = np.dtype(dtype)
    side = side or (16 if C >= 16 else 32)
    per = C * side * side * dt.itemsize
    n = max(1, nbytes // per)
    hw = side if nbytes >= per else max(2, int((nbytes // (C * dt.itemsize)) ** 0.5))
    x = np.random.default_rng(0).integers(0, 200, (n, C, hw, hw)).astype(dt)
    src, dst = direction.split("->")
    if src == "NCHW16c":
        xs = np.ascontiguousarray(x.reshape(n, C // 16, 16, hw, hw).transpose(0, 1, 3, 4, 2))
        v = xs.transpose(0, 1, 4, 2, 3)
    elif dst == "NCHW16c":
        v = x.reshape(n, C // 16, 16, hw, hw).transpose(0, 1, 3, 4, 2)
    else:
        xs = np.ascontiguousarray(x.transpose(_ORDER[src]))
        inv = np.argsort(_ORDER[src])
        v = xs.transpose(tuple(int(inv[k]) for k in _ORDER[dst]))
    return np.empty(v.shape, dt), v


#: the two ways of the numpy strategy's crossovers: every copy to one ``np.copyto`` (each of its
#: size rules off), and every copy planned for the kernels
NUMPY_ALWAYS = {"small_bytes": 1 << 62, "small_short_rows": 1 << 62, "small_units": 1 << 62}
KERNELS_ALWAYS = {"small_bytes": 0}

#: conversions on which each strategy's thread threshold is measured (direction, dtype, C)
THREAD_CASES = {
    "simd-tiles": [("NCHW->NHWC", "float32", 64), ("NHWC->NCHW", "float32", 64), ("NCHW->NHWC", "float16", 64),
                   ("NCHW16c->NCHW", "uint8", 64), ("NCHW->CHWN", "float32", 64, 56), ("NCHW->NCHW16c", "float32", 64, 56)],
    "grouped": [("NCHW->NHWC", "uint8", 64, 56), ("NCHW->NHWC", "uint16", 64, 56)],
    "small-c": [("NCHW->NHWC", "uint8", 3), ("NHWC->NCHW", "float32", 3)],
    "staged": [("CHWN->NHWC", "float16", 3), ("NHWC->CHWN", "float32", 3)],
}


#: thread cases: grouping at every size (else the grouped cases would measure byte tiles)
_FORCE = {"group_min_bytes": 0, "group_aliased_min_bytes": 0, "group_min_cols": 0}


#: seconds of sleep before each call where thread counts are compared
PAUSE_S = 0.001
#: how many times faster more threads must be to win a size: near the crossover the two differ
#: by less than a pipeline's own noise, and there one thread leaves the other core free
THREAD_MARGIN = 1.1


def seconds_per_call(run: Callable[[], None], nbytes: int, pause: float = 0.0,
                     produce: Callable[[], None] | None = None) -> float:
    """Seconds per call, from one sample of enough calls to last about 2 ms; with ``pause``, each
    call timed alone after that many seconds of sleep (the mean of up to 8 such calls), and
    after ``produce()`` (untimed: say, the calling thread writing the source, as the step that
    makes it would)."""
    reps = max(1, min(2000, (1 << 21) // max(nbytes, 1)))
    if pause:
        spent = 0.0
        for _ in range(min(reps, 8)):
            if produce is not None:
                produce()
            time.sleep(pause)
            t0 = time.perf_counter()
            run()
            spent += time.perf_counter() - t0
        return spent / min(reps, 8)
    t0 = time.perf_counter()
    for _ in range(reps):
        run()
    return (time.perf_counter() - t0) / reps


def medians(runs: list[Callable[[], None]], nbytes: int, rounds: int, pause: float = 0.0,
            produce: Callable[[], None] | None = None) -> list[float]:
    """Median seconds per call of each of ``runs``, warmed once, sampled in ``rounds``
    interleaved rounds (so a slow moment of the machine falls on every way alike); ``pause``,
    ``produce``: see :func:`seconds_per_call`."""
    for r in runs:
        r()
    ts: list[list[float]] = [[] for _ in runs]
    for _ in range(rounds):
        for k, r in enumerate(runs):
            ts[k].append(seconds_per_call(r, nbytes, pause, produce))
    return [statistics.median(t) for t in ts]


def first_winning(sizes: list[int], wins: dict[int, bool], second: str) -> tuple[int, str]:
    """The smallest size from which the second way wins at every larger size too, and a note:
    past the largest size when it never wins there."""
    chosen = None
    for s in reversed(sizes):
        if not wins[s]:
            break
        chosen = s
    return _noted(sizes, 2 * sizes[-1] if chosen is None else chosen, second)


def _noted(sizes: list[int], chosen: int, second: str) -> tuple[int, str]:
    """``chosen`` with the note of a threshold at either end of the sizes tried."""
    if chosen > sizes[-1]:
        return chosen, f"the {second} did not win at the largest size tried: set past it"
    return chosen, (f"the {second} won already at the smallest size tried" if chosen == sizes[0] else "")


def least_time(sizes: list[int], rows: list[tuple], second: str) -> tuple[int, str]:
    """The threshold (a size tried, or past the largest) that makes the measured copies the
    fastest in all: the one whose summed log time ratio, second way over first, on the copies at
    or above it is the least (a tie goes to the larger). Unlike :func:`first_winning`, one size
    the second way lost by a little cannot push the threshold past every size it won by much.
    ``rows``: ``(case, size tried, first way's seconds, second way's seconds)``.

    >>> rows = [("a", 1, 2.0, 1.0), ("a", 2, 2.0, 1.1), ("a", 4, 2.0, 2.2), ("a", 8, 4.0, 2.0)]
    >>> least_time([1, 2, 4, 8], rows, "second")[0]     # 4 was lost by 10%, 1, 2 and 8 won by 2x
    1
    >>> least_time([1, 2], [("a", 1, 1.0, 2.0), ("a", 2, 1.0, 1.5)], "second")
    (4, 'the second did not win at the largest size tried: set past it')
    """
    gain = dict.fromkeys(sizes, 0.0)
    for _case, size, t0, t1 in rows:
        gain[size] += math.log(t1 / t0)
    best, best_cost, cost = 2 * sizes[-1], 0.0, 0.0
    for s in reversed(sizes):
        cost += gain[s]
        if cost < best_cost:
            best, best_cost = s, cost
    return _noted(sizes, best, second)


def _copy_runs(out, v, profiles, threads, spares: int = 0) -> list[Callable[[], None]]:
    """One call per profile: ``copy_into(out, v)`` under it, on its number of threads; with
    ``spares``, each call writes the next of ``out`` and that many more outputs in turn, so that
    the output a call writes is not in cache, as in a pipeline that consumed it elsewhere."""
    from .copy import copy_into
    outs = [out] + [np.empty_like(out) for _ in range(spares)]

    def under(prof, nth):
        turn = [0]

        def run():
            turn[0] = (turn[0] + 1) % len(outs)
            with _profile.use_profile(prof):
                copy_into(outs[turn[0]], v, threads=nth)
        return run
    return [under(p, n) for p, n in zip(profiles, threads)]


def producer(v: np.ndarray) -> Callable[[], None]:
    """A call that rewrites the array ``v`` views on the calling thread: the source then sits in
    this core's cache and nowhere else, as the step that made it leaves it (a second thread must
    fetch its half from there, which a loop of copies alone, warming both cores, would hide)."""
    base = v.base if isinstance(v.base, np.ndarray) else v
    spare = base.copy()
    return lambda: np.copyto(base, spare)


def _cold_spares(base, out: np.ndarray) -> int:
    """How many outputs beside ``out`` a cold timing turns through: together they fill the L2
    four times over, so each call's output has left the cache (at most 16 in all)."""
    return min(15, -(-4 * base.l2_bytes // out.nbytes) - 1)


def _crossover(field: str, first: str, second: str, cases: list[tuple], sizes: list[int],
               ways: tuple[dict, dict], threads: tuple[int, int], rounds: int, base, cold: bool = False,
               rule: str = "first-winning", pause: float = 0.0, margin: float = 1.0) -> Measured:
    """Where the second way starts to win; ``cold``: the outputs written are not in cache (they
    rotate through outputs that together fill the L2 cache four times over). ``rule``:
    ``"first-winning"`` (:func:`first_winning`: it wins at that size and every larger one) or
    ``"least-time"`` (:func:`least_time`). ``pause``: see :func:`seconds_per_call`. ``margin``:
    with ``"first-winning"``, the second way wins where it is that many times faster."""
    rows, tried = [], []
    for direction, dtype, *C in cases:
        for size in sizes:
            out, v = _case(direction, dtype, size, *C)
            profs = [base.replace(**w) for w in ways]
            spares = _cold_spares(base, out) if cold else 0
            t0, t1 = medians(_copy_runs(out, v, profs, threads, spares), out.nbytes, rounds, pause,
                             producer(v) if pause else None)
            rows.append((f"{direction} {dtype}" + (f" C={C[0]}" if C else ""), out.nbytes, t0, t1))
            tried.append((rows[-1][0], size, t0, t1))
    if rule == "least-time":
        chosen, note = least_time(sizes, tried, second)
    else:
        wins = {s: all(t1 * margin <= t0 for _, at, t0, t1 in tried if at == s) for s in sizes}
        chosen, note = first_winning(sizes, wins, second)
    return Measured(field, first, second, sizes, rows, chosen, note)


def tune(quick: bool = False, rounds: int | None = None) -> tuple["_profile.MachineProfile", list[Measured]]:
    """Measure the thresholds (see the module doc) and return the tuned profile with what was
    measured; ``quick`` tries fewer, smaller sizes (seconds, for a check; less trustworthy)."""
    measure = _profile.detect().measure_min_bytes
    base = _profile.detect().replace(measure_min_bytes=0)       # the timings below measure, not wisdom
    rounds = rounds or (3 if quick else 7)
    K = 1 << 10
    M = 1 << 20
    found = []
    small = [4 * K, 16 * K, 64 * K] if quick else [4 * K, 8 * K, 16 * K, 32 * K, 64 * K, 128 * K]
    found.append(_crossover("small_bytes", "np.copyto", "kernels", [("NCHW->NHWC", "float32", 64)], small,
                            (NUMPY_ALWAYS, KERNELS_ALWAYS), (1, 1), rounds, base))
    base = base.replace(small_bytes=found[-1].chosen)
    found.append(_short_rows(base, quick, rounds))
    base = base.replace(small_short_rows=found[-1].chosen)
    found.append(_strided_units(base, quick, rounds))
    base = base.replace(small_units=found[-1].chosen)
    if base.cpus > 1:
        sizes = [1 * M, 4 * M] if quick else [1 * M, 2 * M, 4 * M, 8 * M, 16 * M, 32 * M]
        entries = []
        for name, cases in THREAD_CASES.items():
            m = _crossover(f"thread_min_bytes[{name}]", "one thread", f"{base.cpus} threads",
                           cases[:1] if quick else cases, sizes, (_FORCE, _FORCE),
                           (1, base.cpus), rounds, base.replace(thread_min_bytes=0, thread_min_bytes_by_strategy=()),
                           pause=PAUSE_S, margin=THREAD_MARGIN)
            found.append(m)
            entries.append(f"{name}={m.chosen}")
        base = base.replace(thread_min_bytes_by_strategy=tuple(entries))
    if base.nt_stores:
        sizes = [512 * K, 2 * M, 8 * M] if quick else [256 * K, 512 * K, M, 2 * M, 4 * M, 8 * M, 16 * M, 32 * M]
        m = _crossover("nt_min_bytes", "plain stores", "non-temporal stores",
                       [("NCHW->NHWC", "float32", 64), ("NCHW->CHWN", "float32", 64), ("NHWC->NCHW", "uint8", 3)],
                       sizes, ({"nt_min_bytes": 1 << 62}, {"nt_min_bytes": 0}), (1, 1), rounds, base, cold=True,
                       rule="least-time")
        m = at_least_half_l2(m, base.l2_bytes)
        found.append(m)
        base = base.replace(nt_min_bytes=m.chosen)
    sizes = [2 * M, 8 * M] if quick else [4 * M, 8 * M, 16 * M, 32 * M, 64 * M]
    # 56x56 planes: rows not 4 KiB apart (those group from group_aliased_min_bytes)
    found.append(_crossover("group_min_bytes", "byte tiles", "word-grouped tiles",
                            [("NCHW->NHWC", "uint8", 64, 56), ("NCHW->NHWC", "uint16", 64, 56)], sizes,
                            ({"disabled": ("grouped",)}, {"group_min_bytes": 0, "group_min_cols": 0}),
                            (1, 1), rounds, base))
    base = base.replace(group_min_bytes=found[-1].chosen)
    found.append(_whole_j(base, quick, rounds))
    base = base.replace(block_j_long_bytes=found[-1].chosen)
    found.append(_whole_j_plain(base, quick, rounds))
    base = base.replace(block_j_plain_bytes=found[-1].chosen)
    found.append(_stage(base, quick, rounds))
    base = base.replace(stage_bytes=found[-1].chosen)
    found.append(_narrow(base, quick, rounds))
    base = base.replace(narrow_when_aliased=bool(found[-1].chosen))
    return base.replace(source="tuned", measure_min_bytes=measure), found


def at_least_half_l2(m: Measured, l2_bytes: int) -> Measured:
    """``nt_min_bytes`` as measured, raised to half the L2 size: the timings wrote cold outputs,
    but a copy whose source and output fit the L2 cache together leaves its output there for the
    next step, which a stream past the cache would slow.

    >>> m = Measured("nt_min_bytes", "plain stores", "non-temporal stores", [1 << 18], [], 1 << 18)
    >>> at_least_half_l2(m, 1 << 20).chosen >> 10, at_least_half_l2(m, 1 << 20).note
    (512, 'raised to half the L2 size')
    >>> at_least_half_l2(m, 1 << 19).chosen >> 10
    256
    """
    if m.chosen >= l2_bytes // 2:
        return m
    return dataclasses.replace(m, chosen=l2_bytes // 2, note=f"{m.note}; raised to half the L2 size".lstrip("; "))


def _short_rows(base, quick: bool, rounds: int) -> Measured:
    """``small_short_rows``: np.copyto against the kernels on C=3 uint8 images NCHW->NHWC (rows of
    3 bytes, so the crossover in bytes over 3 is the one in rows)."""
    K = 1 << 10
    sizes = [3 * K, 12 * K, 48 * K] if quick else [3 * K, 6 * K, 12 * K, 24 * K, 48 * K, 96 * K]
    m = _crossover("small_short_rows", "np.copyto", "kernels", [("NCHW->NHWC", "uint8", 3)], sizes,
                   (NUMPY_ALWAYS, KERNELS_ALWAYS), (1, 1), rounds, base)
    return dataclasses.replace(m, chosen=m.chosen // 3, unit="rows")


def _strided_units(base, quick: bool, rounds: int) -> Measured:
    """``small_units``: np.copyto against the kernels on C=3 uint8 images NHWC->NCHW (numpy reads
    each byte through a stride of 3, so the crossover in bytes is the one in units)."""
    K = 1 << 10
    sizes = [2 * K, 8 * K, 32 * K] if quick else [2 * K, 4 * K, 8 * K, 16 * K, 32 * K, 64 * K]
    m = _crossover("small_units", "np.copyto", "kernels", [("NHWC->NCHW", "uint8", 3)], sizes,
                   (NUMPY_ALWAYS, KERNELS_ALWAYS), (1, 1), rounds, base)
    return dataclasses.replace(m, unit="units")


def _stage(base, quick: bool, rounds: int) -> Measured:
    """``stage_bytes``: the scratch of the ``staged`` strategy (C=3 NHWC<->CHWN), the size among a
    few with the least total time over float32 and uint8 copies both ways."""
    M = 1 << 20
    sizes = [2 * M, 4 * M, 16 * M] if quick else [2 * M, 4 * M, 8 * M, 16 * M, 32 * M]
    images = 16 if quick else 64            # the benchmark's 64x3x224x224
    totals = [0.0] * len(sizes)
    rows = []
    for direction in ("NHWC->CHWN", "CHWN->NHWC"):
        for dtype in ("float32", "uint8"):
            out, v = _case(direction, dtype, images * 3 * 224 * 224 * np.dtype(dtype).itemsize, 3, 224)
            profs = [base.replace(stage_bytes=size) for size in sizes]
            ts = medians(_copy_runs(out, v, profs, [1] * len(sizes)), out.nbytes, rounds)
            totals = [a + b for a, b in zip(totals, ts)]
            rows.append((f"{direction} {dtype} C=3", out.nbytes, ts[sizes.index(4 * M)], min(ts)))
    best = sizes[totals.index(min(totals))]
    return Measured("stage_bytes", f"a scratch of {4 * M} bytes", "the fastest scratch", sizes, rows, best,
                    note="the least total time of the four copies")


#: in-cache conversions whose source rows share L1 sets, where the narrow tiles apply: (direction,
#: dtype, C, H = W, N), the benchmark's 256x3x32x32 and 4 KiB planes of 64 channels
NARROW_CASES = [("NCHW->CHWN", "float32", 3, 32, 256), ("NCHW->CHWN", "float16", 3, 32, 256),
                ("NCHW->CHWN", "uint8", 3, 32, 256), ("NCHW->NHWC", "float32", 64, 32, 8),
                ("NCHW->NHWC", "uint8", 64, 32, 8)]


def _narrow(base, quick: bool, rounds: int) -> Measured:
    """``narrow_when_aliased``: full tiles against narrow ones on in-cache copies whose source rows
    share L1 sets (:data:`NARROW_CASES`); on (1) when the narrow tiles take less time in total.
    Which is faster depends on the core more than on the cache geometry the rule reads: on a
    Zen 5 the full tiles won where the narrow ones had won on a Zen 4."""
    ways = (base.replace(narrow_when_aliased=False), base.replace(narrow_when_aliased=True))
    rows, totals = [], [0.0, 0.0]
    for direction, dtype, C, side, n in NARROW_CASES[:3] if quick else NARROW_CASES:
        out, v = _case(direction, dtype, n * C * side * side * np.dtype(dtype).itemsize, C, side)
        t_full, t_narrow = medians(_copy_runs(out, v, ways, (1, 1)), out.nbytes, rounds)
        rows.append((f"{direction} {dtype} C={C}", out.nbytes, t_full, t_narrow))
        totals = [totals[0] + t_full, totals[1] + t_narrow]
    return Measured("narrow_when_aliased", "full tiles", "narrow tiles", [], rows, int(totals[1] < totals[0]),
                    note="the less total time over the cases", unit="(1: on)")


def _whole_j(base, quick: bool, rounds: int) -> Measured:
    """``block_j_long_bytes``: NHWC->NCHW float32 copies with source rows (C channels) of growing
    length, in cache blocks of all of j against one tile column of it; the field is the longest
    row on which all of j still wins at it and every shorter row (half the first that loses)."""
    return _j_blocks("block_j_long_bytes", base, (8 << 20) if quick else (32 << 20), False, quick, rounds)


def _whole_j_plain(base, quick: bool, rounds: int) -> Measured:
    """``block_j_plain_bytes``: as :func:`_whole_j` on copies small enough for plain stores (half
    of ``nt_min_bytes`` or of the L2, the smaller), each writing an output that is not in cache
    (a turn through outputs that fill the L2 four times over), as a pipeline's next conversion
    finds its output: there blocks of all of j write one line into each of many dst rows a step,
    and each line is read from memory before it is written."""
    nbytes = max(base.small_bytes, min(base.nt_min_bytes, base.l2_bytes) // 2)
    return _j_blocks("block_j_plain_bytes", base, nbytes, True, quick, rounds)


def _j_blocks(field: str, base, nbytes: int, cold: bool, quick: bool, rounds: int) -> Measured:
    """``field`` (a longest source row for blocks of all of j) timed on NHWC->NCHW float32 copies of
    about ``nbytes``; ``cold``: each into an output not in cache."""
    rows_bytes = [64, 128, 256, 512] if quick else [64, 128, 256, 512, 1024]
    ways = (base.replace(**{field: 1 << 30}), base.replace(**{field: 0}))
    rows, wins = [], {}
    for rb in rows_bytes:
        out, v = _case("NHWC->NCHW", "float32", nbytes, rb // 4, 56)
        spares = _cold_spares(base, out) if cold else 0
        t_whole, t_column = medians(_copy_runs(out, v, ways, (1, 1), spares), out.nbytes, rounds)
        rows.append((f"NHWC->NCHW float32 C={rb // 4}", rb, t_whole, t_column))
        wins[rb] = t_column < t_whole
    first_loss, note = first_winning(rows_bytes, wins, "one tile column")
    return Measured(field, "blocks of all of j", "one tile column", rows_bytes, rows, first_loss // 2,
                    note.replace("size", "source row"))


#: the conversions whose wisdom ``tune`` measures ahead of time: (direction, dtype, C, H = W, N),
#: the benchmark's shapes (bench/run.py); those below four L2 caches are skipped (see :func:`fill_wisdom`)
WISDOM_CASES = [(d, t, C, side, n) for d in ("NCHW->NHWC", "NHWC->NCHW", "NCHW->CHWN", "CHWN->NCHW",
                                             "NHWC->CHWN", "CHWN->NHWC")
                for t in ("float32", "float16", "uint8")
                for C, side, n in ((64, 56, 128), (3, 224, 64), (64, 56, 32))]


def fill_wisdom(prof, quick: bool = False) -> list[tuple[str, str]]:
    """Measure the wisdom of :data:`WISDOM_CASES` under ``prof`` on one thread and on all (each
    saved as it is measured): ``[(case, how it was decided), ...]``; ``quick``: two float32
    cases of 64x3x224x224. Cases below ``prof.measure_min_bytes``, which a copy would not measure
    on first sight, are measured here too, down to four L2 caches (below that the measuring
    slices could not be parts of the copy no run touched before); a profile that measures
    nothing (``measure_min_bytes = 0``) fills nothing."""
    from .copy import _choice
    cases = [c for c in WISDOM_CASES if c[2:] == (3, 224, 64) and c[1] == "float32"][:2] if quick else WISDOM_CASES
    floor = min(prof.measure_min_bytes, 4 * prof.l2_bytes)
    measuring = prof.replace(measure_min_bytes=floor)
    done = []
    with _profile.use_profile(measuring):
        for direction, dtype, C, side, n in cases:
            if not floor or n * C * side * side * np.dtype(dtype).itemsize < floor:
                continue
            out, v = _case(direction, dtype, n * C * side * side * np.dtype(dtype).itemsize, C, side)
            for nth in sorted({1, prof.cpus}):
                c, _ = _choice(out, v, False, measuring, nth)
                done.append((f"{direction} {dtype} {n}x{C}x{side}x{side} threads={nth}", c.decided))
    return done


def report(prof, found: list[Measured]) -> str:
    """What was measured and chosen, as text."""
    lines = [f"machine: {prof.machine_key}"]
    for m in found:
        lines.append(f"\n{m.field}: {m.first} vs {m.second} -> {m.chosen} {m.unit}"
                     + (f" ({m.note})" if m.note else ""))
        for case, nbytes, t0, t1 in m.rows:
            lines.append(f"  {case:22s} {nbytes:>10d} B  {m.first} {t0 * 1e6:9.1f} us  {m.second} "
                         f"{t1 * 1e6:9.1f} us  ({t0 / t1:.2f}x)")
    return "\n".join(lines)


def measured_table(found: list[Measured]) -> dict:
    """``found`` as plain data for the saved profile."""
    return {m.field: {"first": m.first, "second": m.second, "chosen": m.chosen, "unit": m.unit, "note": m.note,
                      "rows": [[c, n, t0, t1] for c, n, t0, t1 in m.rows]} for m in found}
