"""Scalar copies in cache blocks: every transpose, any strides (the path when SIMD tiles are off,
and the last resort of the registry). Where one block holds all of i and j (a small transpose
repeated over batch axes: NHWC<->CHWN with a batch of a few images) there is nothing to block, and
numpy's strided loop over views of the same bytes runs it faster than a work item a batch index
(up to 3x on NHWC->CHWN); threads take parts of the outer batch axis."""

from __future__ import annotations

import numpy as np

from ..geometry import scalar_tiling
from ..runtime.pool import run_items, run_split
from ..records import batch_axes
from ..strategy import Choice, Strategy, unit_view
from .simd_tiles import tile_record


def consider(task, profile):
    p = task.plan
    if p.kind != "transpose":
        return "not a transpose"
    t = scalar_tiling(p.ni, p.nj, p.unit.itemsize, profile)
    args, nwork = tile_record(p, t)
    batch = batch_axes(p.batch)

    whole = p.batch and t.Bi >= p.ni and t.Bj >= p.nj
    shape = tuple(n for n, _, _ in p.batch) + (p.ni, p.nj)

    def run(dst, src, d, s, nth):
        if whole:       # views of d and s (a replay may repeat them), the outer batch axis cut over threads
            dv = unit_view(d, shape, tuple(b for _, b, _ in p.batch) + (p.dI, p.dJ))
            sv = unit_view(s, shape, tuple(b for _, _, b in p.batch) + (p.sI, p.sJ))
            run_split(_copyto, lambda w0, w1: (dv[w0:w1], sv[w0:w1]), shape[0], nth)
            return
        from ..jit.transpose import scalar_kernel
        run_items(scalar_kernel, (d, s, args, batch), (), nwork, nth)

    how = "one block holds all of i and j: numpy's strided loop, outer batch indices a thread" if whole \
        else "any strides"
    return Choice("scalar-tiles", f"scalar cache blocks ({how})",
                  {"block": f"{t.Bi}x{t.Bj}", "strides": dict(dI=p.dI, dJ=p.dJ, sI=p.sI, sJ=p.sJ)}, run,
                  work_items=nwork, repeatable=True)


def _copyto(dv, sv):
    np.copyto(dv, sv, casting="no")


STRATEGY = Strategy("scalar-tiles", "every transpose, any strides: scalar copies in cache blocks",
                    ("plain_block_bytes",), consider)
