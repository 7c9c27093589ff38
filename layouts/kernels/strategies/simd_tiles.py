"""Register tiles of LLVM vector shuffles (:mod:`..simd`) in cache blocks: the general transpose
of a dst-contiguous axis i and a src-contiguous axis j (NCHW<->NHWC, ->CHWN, NCHW<->NCHW16c).
Non-temporal stores for large outputs; where the tiles and edges go is :func:`..geometry.tiling`.
The edges of each batch index are copied by the tile kernel right after that index's tiles,
while its rows are in cache (one-group tiles where they are whole groups of rows, scalar loops
otherwise); a single transpose (no batch) with few, small edges leaves them to ``np.copyto``."""

from __future__ import annotations

import numpy as np

from ..geometry import Tiling, edge_elements, tiling
from ..pool import run_items
from ..records import RECTS, TILES, batch_axes, record, records
from ..strategy import Choice, Strategy, unit_view

#: fewer (batch x i-block) work items than this: cut j into runs too, so threads have work
MIN_WORK_ITEMS = 8


def tile_record(p, t: Tiling) -> tuple[np.ndarray, int]:
    """The TILES record of plan ``p`` walked by ``t``, and its number of work items."""
    items = p.nbatch * t.nblocks
    Jc = t.je
    if items < MIN_WORK_ITEMS:
        runs = -(-MIN_WORK_ITEMS // items)
        Jc = max(t.Bj, -(-t.je // runs // t.Bj) * t.Bj)
    njc = -(-t.je // Jc)
    args = record(TILES, ni=p.ni, nj=p.nj, dI=p.dI, dJ=p.dJ, sI=p.sI, sJ=p.sJ, ia=t.ia, ie=t.ie, je=t.je, js=t.js,
                  Bi=t.Bi, Bj=t.Bj, Jc=Jc, TI=t.TI, TL=t.TL, nbi=t.nblocks, njc=njc)
    return args, items * njc


def numpy_edges(d, s, edges, batch, dJ, sI) -> None:
    """``np.copyto`` of each edge rectangle (i0, i1, j0, j1, _) of a ``dI == sJ == 1`` transpose,
    over every index of ``batch`` ((n, dst stride, src stride) axes) at once."""
    bsh = tuple(a[0] for a in batch)
    bd = tuple(a[1] for a in batch)
    bs = tuple(a[2] for a in batch)
    for i0, i1, j0, j1, _ in edges:
        np.copyto(unit_view(d, bsh + (i1 - i0, j1 - j0), bd + (1, dJ), i0 + j0 * dJ),
                  unit_view(s, bsh + (i1 - i0, j1 - j0), bs + (sI, 1), i0 * sI + j0), casting="no")


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
    stream = task.stream or p.nbytes >= profile.nt_min_bytes
    t = tiling(p.ni, p.nj, p.dJ, tuple(a[1] for a in p.batch), p.unit.itemsize, task.dst_addr, stream, profile,
               p.sI)
    if isinstance(t, str):
        return t
    args, nwork = tile_record(p, t)
    batch = batch_axes(p.batch)
    by_numpy = bool(t.edges) and p.nbatch == 1 and edges_by_numpy(p, t, profile)
    rects = records(RECTS, () if by_numpy else t.edges)

    def run(dst, src, d, s, nth):
        from ..transpose import KERNELS
        run_items(KERNELS[t.variant], (d, s, args, batch, rects), (), nwork, nth)
        if by_numpy:
            numpy_edges(d, s, t.edges, p.batch, p.dJ, p.sI)

    a = args[0]
    params = {"variant": t.variant, "tile": f"{t.TI}x{t.TL}", "tiles_i": (t.ia, t.ie), "tiles_j": (0, t.je),
              "block": f"{t.Bi}x{t.Bj}", "run_of_j": int(a["Jc"]), "peel": t.peel, "stream": stream,
              "edges": f"{len(t.edges)} rectangles, {edge_elements(t)} elements a batch index, by "
                       + ("np.copyto" if by_numpy else "the tile kernel, per batch index") if t.edges else "none"}
    return Choice("simd-tiles", t.why, params, run, work_items=nwork)


STRATEGY = Strategy("simd-tiles", "any transpose with unit-stride rows: LLVM-shuffle register tiles in cache blocks",
                    ("simd", "nt_min_bytes", "nt_stores", "straddle", "long_row_bytes", "block_i_long_bytes",
                     "block_j_aliased_bytes", "block_j_long_bytes", "block_j_short_bytes", "edge_max_calls",
                     "edge_max_fraction"), consider)
