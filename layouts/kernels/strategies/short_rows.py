"""Rows shorter than a tile, on either side, that follow each other across the batch axis (NHWC
<-> CHWN with C=3): the rows of a group of batch indices are one long row, covered by aligned
non-temporal tiles that gather their source rows (dst rows of C units: CHWN->NHWC,
:func:`..simd.tile_nt_gather`) or scatter their dst rows (source rows of C units: NHWC->CHWN,
:func:`..simd.tile_nt_scatter`) over the pixels each tile spans; with plain stores
(:func:`..simd.tile_gather`, :func:`..simd.tile_scatter`) for a copy whose output stays in cache,
and for a scatter into a dst off the 64-byte grid, such as numpy's own arrays. One pass, where a
scratch stage (``staged``) makes two."""

from __future__ import annotations

import math

from ..geometry import TILE_SHAPE
from ..runtime.pool import run_items
from ..records import GROUPED_TILES, RECTS, batch_axes, record, records
from ..strategy import Choice, Strategy


def _variant(p, unit: int, TI: int, TL: int, dst_addr: int) -> str:
    """``"gather"``, ``"scatter"``, ``"scatter-plain"`` or why none fits."""
    nb, dB, sB = p.batch[0]
    if dB == p.ni and p.ni < TI:
        if p.nj < TL or (p.dJ * unit) % 64 or dst_addr % unit or nb * p.ni < TI:
            return "short dst rows, but fewer columns than a tile or dst rows not 64-byte multiples apart"
        return "gather"
    if sB == p.nj and p.nj < TL:
        if p.ni % TI:
            return "short source rows, but dst rows not whole tiles"
        if (p.ni * unit) % 64 or (p.dJ * unit) % 64 or (dB * unit) % 64 or dst_addr % 64:
            return "scatter-plain"      # off the 64-byte grid: plain stores, still one pass
        return "scatter"
    return f"no side has rows shorter than a tile ({TI} x {TL}) following each other across the batch axis"


def consider(task, profile):
    p = task.plan
    if not profile.simd or not profile.nt_stores:
        return "needs SIMD tiles and non-temporal stores (profile simd, nt_stores)"
    if p.kind != "transpose" or p.dI != 1 or p.sJ != 1 or len(p.batch) != 1:
        return "not a transpose with unit-stride rows and one batch axis"
    if profile.batch_group_bytes <= 0:
        return "batch_group_bytes is 0: no groups of batch indices"
    unit = p.unit.itemsize
    L, K = TILE_SHAPE[8 * unit]
    TI, TL = K * L, L
    variant = _variant(p, unit, TI, TL, task.dst_addr)
    if variant not in ("gather", "scatter", "scatter-plain"):
        return variant
    nb = p.batch[0][0]
    per = p.ni * p.nj * unit
    if variant == "gather":
        step = 64 // math.gcd(64, p.ni * unit)      # groups start on a 64-byte boundary of dst
        peel = ((-task.dst_addr) % 64) // unit
    else:
        step = TL // math.gcd(TL, p.nj)             # groups of whole column tiles
        peel = 0
    group = max(step, profile.batch_group_bytes // per // step * step)
    je = p.nj // TL * TL
    held = profile.short_rows_block_bytes
    if variant == "gather":     # a block's dst units each hold a source line in L1
        Bi, Bj = max(TI, held // profile.l1d_line_bytes // TI * TI), TL
        block, tile, walk = Bi, TI, "column"
    else:                       # a block's source columns each hold a dst row offset
        Bi, Bj = TI, max(TL, held // 8 // TL * TL)
        block, tile, walk = Bj, TL, "row"
    args = record(GROUPED_TILES, ni=p.ni, nj=p.nj, dI=1, dJ=p.dJ, sI=p.sI, sJ=1, ia=peel, ie=p.ni, ja=0, je=je, js=0,
                  Bi=Bi, Bj=Bj, Jc=je, TI=TI, TL=TL, nbi=1, njc=1, PB=group, nb=nb)
    nwork = -(-nb // group)
    batch = batch_axes(p.batch)
    rects = records(RECTS, ())
    streams = task.streams(profile)
    plain = variant == "scatter-plain" or not streams
    kernel = f"tiles-{'' if plain else 'nt-'}batch-{'gather' if variant == 'gather' else 'scatter'}"

    def run(dst, src, d, s, nth):
        from ..jit.transpose import KERNELS
        run_items(KERNELS[kernel], (d, s, args, batch, rects), (), nwork, nth)

    params = {"variant": kernel, "tile": f"{TI}x{TL}", "block": block if block > tile else "one tile",
              "batch_group": group, "peel": peel, "stream": not plain}
    side, n = ("dst", p.ni) if variant == "gather" else ("source", p.nj)
    how = (f"aligned tiles that {variant}" if not plain else
           f"tiles with plain stores (a cached copy) that {variant}" if not streams else
           "tiles with plain stores (dst rows off the 64-byte grid) that scatter")
    order = f", in blocks of {block} units of the long row, a tile {walk} at a time" if block > tile else ""
    return Choice("short-rows", f"{side} rows of {n} units follow each other across {nb} batch indices: {how} over "
                  f"them, {group} indices a work item{order}", params, run, work_items=nwork,
                  repeatable=True)


STRATEGY = Strategy("short-rows", "rows shorter than a tile on either side that follow each other across the batch "
                    "axis (NHWC<->CHWN, C=3): gathered or scattered tiles, one pass",
                    ("simd", "nt_stores", "nt_min_bytes", "batch_group_bytes", "short_rows_block_bytes"), consider)
