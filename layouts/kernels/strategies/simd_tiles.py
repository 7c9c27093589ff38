"""Register tiles of LLVM vector shuffles (:mod:`..simd`) in cache blocks: the general transpose
of a dst-contiguous axis i and a src-contiguous axis j (NCHW<->NHWC, ->CHWN, NCHW<->NCHW16c).
Non-temporal stores for large outputs; where the tiles and edges go is :func:`..geometry.tiling`.
The edges of each batch index are copied by the tile kernel right after that index's tiles,
while its rows are in cache (one-group tiles where they are whole groups of rows, scalar loops
otherwise); a single transpose (no batch) with few, small edges leaves them to ``np.copyto``."""

from __future__ import annotations

import functools
import math

import numpy as np

from ..geometry import Tiling, edge_elements, tiling, widened
from ..runtime.pool import made, run_items
from ..records import GROUPED_TILES, RECTS, TILES, batch_axes, record, records
from ..strategy import Choice, Strategy, unit_view

#: fewer (batch x i-block) work items than this: cut j into runs too, so threads have work
MIN_WORK_ITEMS = 8


def tile_record(p, t: Tiling) -> tuple[np.ndarray, int]:
    """The TILES record of plan ``p`` walked by ``t``, and its number of work items."""
    items = p.nbatch * t.nblocks
    span = t.je - t.ja
    Jc = span
    if items < MIN_WORK_ITEMS:
        runs = -(-MIN_WORK_ITEMS // items)
        Jc = max(t.Bj, -(-span // runs // t.Bj) * t.Bj)
    njc = -(-span // Jc)
    args = record(TILES, ni=p.ni, nj=p.nj, dI=p.dI, dJ=p.dJ, sI=p.sI, sJ=p.sJ, ia=t.ia, ie=t.ie, ja=t.ja, je=t.je,
                  js=t.js, Bi=t.Bi, Bj=t.Bj, Jc=Jc, TI=t.TI, TL=t.TL, nbi=t.nblocks, njc=njc)
    return args, items * njc


def batch_group(p, t: Tiling, stream: bool, dst_addr: int, profile) -> tuple[str, int, int]:
    """How ``tiles-nt`` takes small transposes (one cache block a batch index) together:
    ``(variant, batch indices a work item, peel)``, or ``(t.variant, 1, t.peel)`` when it does not.

    ``tiles-nt-grouped`` where each index's rows are 64-byte aligned; else, where the dst rows of
    consecutive batch indices follow each other (one batch axis of dst stride ``ni``: NHWC->CHWN
    into numpy's 16-byte aligned arrays), ``tiles-nt-batch-rows``. Groups of about
    ``batch_group_bytes``."""
    unit = p.unit.itemsize
    per = p.ni * p.nj * unit
    none = (t.variant, 1, t.peel)
    if (p.nbatch < 2 or t.nblocks != 1 or profile.batch_group_bytes <= 0 or not stream or not profile.nt_stores
            or t.variant not in ("tiles", "tiles-nt") or (p.dJ * unit) % 64):
        return none
    group = int(max(1, min(p.nbatch, profile.batch_group_bytes // per)))
    if group < min(p.nbatch, profile.batch_group_min):      # large transposes stream long rows already
        return none
    if t.variant == "tiles-nt" and t.peel == 0:             # every index's rows aligned
        return "tiles-nt-grouped", group, 0
    if len(p.batch) == 1 and p.batch[0][1] == p.ni and p.ni >= t.TI and dst_addr % unit == 0:
        step = 64 // math.gcd(64, p.ni * unit)          # groups start on a 64-byte boundary of dst
        group = max(step, group // step * step)
        return "tiles-nt-batch-rows", group, ((-dst_addr) % 64) // unit
    return none


#: np.copyto that refuses to cast, as one callable a recording can make again
_copy_exact = functools.partial(np.copyto, casting="no")


def numpy_edges(d, s, edges, batch, dJ, sI) -> None:
    """``np.copyto`` of each edge rectangle (i0, i1, j0, j1, _) of a ``dI == sJ == 1`` transpose,
    over every index of ``batch`` ((n, dst stride, src stride) axes) at once; a recording
    (:func:`.pool.recorded`) is told of each, so that a repeat makes the same copies again."""
    bsh = tuple(a[0] for a in batch)
    bd = tuple(a[1] for a in batch)
    bs = tuple(a[2] for a in batch)
    calls = []
    for i0, i1, j0, j1, _ in edges:
        views = (unit_view(d, bsh + (i1 - i0, j1 - j0), bd + (1, dJ), i0 + j0 * dJ),
                 unit_view(s, bsh + (i1 - i0, j1 - j0), bs + (sI, 1), i0 * sI + j0))
        _copy_exact(*views)
        calls.append((_copy_exact, views))
    made(tuple(calls))


def edges_by_numpy(p, t: Tiling, profile) -> bool:
    """Whether the edges are few and small enough for np.copyto (``edge_max_calls`` rectangles,
    at most 1/``edge_max_fraction`` of the elements)."""
    return (len(t.edges) <= profile.edge_max_calls
            and edge_elements(t) * profile.edge_max_fraction <= p.ni * p.nj)


def consider(task, profile):
    p = task.plan
    if not profile.simd:
        return "SIMD tiles are off (profile simd=False)"
    if p.kind != "transpose" or p.dI != 1 or p.sJ != 1:
        return "not a transpose with unit-stride rows on both sides"
    stream = task.streams(profile)
    t = tiling(p.ni, p.nj, p.dJ, tuple(a[1] for a in p.batch), p.unit.itemsize, task.dst_addr, stream, profile,
               p.sI, lines=True, per_index=p.nbatch >= MIN_WORK_ITEMS)
    if isinstance(t, str):
        return t
    args, nwork = tile_record(p, t)
    if t.variant == "lines-nt-each" and int(args[0]["njc"]) != 1:      # it takes each batch index whole
        raise AssertionError("lines-nt-each with runs of j: per_index and tile_record disagree")
    variant, group, peel = batch_group(p, t, stream, task.dst_addr, profile)
    if int(args[0]["njc"]) != 1:
        variant, group, peel = t.variant, 1, t.peel
    wide = widened(t, p.ni, p.nj, p.unit.itemsize, p.sI * p.unit.itemsize, profile) if group == 1 else None
    if wide is not None:
        t, variant = wide, wide.variant
        args, nwork = tile_record(p, t)
    if group > 1:
        fields = {n: int(args[0][n]) for n in TILES.names}
        fields["ia"] = peel
        args = record(GROUPED_TILES, **fields, PB=group, nb=p.nbatch)
        nwork = -(-p.nbatch // group)
    batch = batch_axes(p.batch)
    by_numpy = bool(t.edges) and p.nbatch == 1 and edges_by_numpy(p, t, profile)
    rects = records(RECTS, () if by_numpy or variant == "tiles-nt-batch-rows" else t.edges)

    def run(dst, src, d, s, nth):
        from ..jit.lines import LINE_KERNELS
        from ..jit.transpose import KERNELS
        kernel = LINE_KERNELS[variant] if variant in LINE_KERNELS else KERNELS[variant]
        run_items(kernel, (d, s, args, batch, rects), (), nwork, nth)
        if by_numpy:
            numpy_edges(d, s, t.edges, p.batch, p.dJ, p.sI)

    a = args[0]
    params = {"variant": variant, "tile": f"{t.TI}x{t.TL}", "tiles_i": (t.ia, t.ie), "tiles_j": (t.ja, t.je),
              "block": f"{t.Bi}x{t.Bj}", "run_of_j": int(a["Jc"]), "peel": peel, "stream": stream,
              "batch_group": group,
              "edges": f"{len(t.edges)} rectangles, {edge_elements(t)} elements a batch index, by "
                       + ("np.copyto" if by_numpy else "the tile kernel, per batch index") if t.edges else "none"}
    if variant == "tiles-nt-batch-rows":
        params["edges"] = "each group's unaligned head and tail and the last columns, by scalar loops"
    elif variant == "lines-nt-each":
        params["tiles_j"] = "per batch index, from where its rows meet a line"
        params["edges"] = "each batch index's columns before and after its tiles, by scalar loops"
    why = t.why
    if variant == "tiles-nt-grouped":
        why += f"; {group} batch indices a work item, each source row read on through them"
    elif variant == "tiles-nt-batch-rows":
        why = (f"a large output: non-temporal stores; the dst rows of {group} batch indices follow each other: "
               "aligned tiles over them" + (f" (peel {peel})" if peel else ""))
    return Choice("simd-tiles", why, params, run, work_items=nwork, repeatable=True)


STRATEGY = Strategy("simd-tiles", "any transpose with unit-stride rows: LLVM-shuffle register tiles in cache blocks",
                    ("simd", "nt_min_bytes", "nt_stores", "straddle", "long_row_bytes", "block_i_long_bytes",
                     "block_j_aliased_bytes", "block_j_long_bytes", "block_j_plain_bytes", "block_j_short_bytes",
                     "line_tiles", "wide_tiles", "edge_max_calls", "edge_max_fraction", "batch_group_bytes",
                     "batch_group_min"),
                    consider)
