"""Dst rows shorter than a tile that follow each other across batch indices (CHWN->NHWC with C=3):
the rows of a group of batch indices are one long dst row, covered by aligned non-temporal tiles
whose source rows are gathered from the pixels each tile spans (:func:`..simd.tile_nt_gather`).
One pass through memory, where a scratch stage (``staged``) makes two through the cache."""

from __future__ import annotations

import math

from ..geometry import TILE_SHAPE
from ..pool import run_items
from ..records import GROUPED_TILES, RECTS, batch_axes, record, records
from ..strategy import Choice, Strategy


def consider(task, profile):
    p = task.plan
    if not profile.simd or not profile.nt_stores:
        return "needs SIMD tiles and non-temporal stores (profile simd, nt_stores)"
    if p.kind != "transpose" or p.dI != 1 or p.sJ != 1 or len(p.batch) != 1:
        return "not a transpose with unit-stride rows and one batch axis"
    unit = p.unit.itemsize
    L, K = TILE_SHAPE[8 * unit]
    TI, TL = K * L, L
    nb, dB, sB = p.batch[0]
    if dB != p.ni or p.ni >= TI:
        return f"dst rows are not shorter than a tile ({TI} units) following each other across the batch axis"
    if p.nj < TL or (p.dJ * unit) % 64 or task.dst_addr % unit or nb * p.ni < TI:
        return "columns fewer than a tile, or dst rows not 64-byte multiples apart"
    if not (task.stream or p.nbytes >= profile.nt_min_bytes) or profile.batch_group_bytes <= 0:
        return f"{p.nbytes} bytes < nt_min_bytes ({profile.nt_min_bytes}): a cached copy"
    step = 64 // math.gcd(64, p.ni * unit)          # groups start on a 64-byte boundary of dst
    group = max(step, profile.batch_group_bytes // (p.ni * p.nj * unit) // step * step)
    peel = ((-task.dst_addr) % 64) // unit
    je = p.nj // TL * TL
    args = record(GROUPED_TILES, ni=p.ni, nj=p.nj, dI=1, dJ=p.dJ, sI=p.sI, sJ=1, ia=peel, ie=p.ni, je=je, js=0,
                  Bi=TI, Bj=TL, Jc=je, TI=TI, TL=TL, nbi=1, njc=1, PB=group, nb=nb)
    nwork = -(-nb // group)
    batch = batch_axes(p.batch)
    rects = records(RECTS, ())

    def run(dst, src, d, s, nth):
        from ..transpose import KERNELS
        run_items(KERNELS["tiles-nt-batch-gather"], (d, s, args, batch, rects), (), nwork, nth)

    params = {"variant": "tiles-nt-batch-gather", "tile": f"{TI}x{TL}", "batch_group": group, "peel": peel,
              "stream": True}
    return Choice("batch-gather", f"dst rows of {p.ni} units follow each other across {nb} batch indices: aligned "
                  f"tiles of {TI} over them, {group} indices a work item", params, run, work_items=nwork)


STRATEGY = Strategy("batch-gather", "dst rows shorter than a tile that follow each other across the batch axis "
                    "(CHWN->NHWC, C=3): gathered non-temporal tiles, one pass",
                    ("simd", "nt_stores", "nt_min_bytes", "batch_group_bytes"), consider)
