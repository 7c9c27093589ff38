"""Scalar copies in cache blocks: every transpose, any strides (the path when SIMD tiles are off,
and the last resort of the registry)."""

from __future__ import annotations

from ..geometry import scalar_tiling
from ..pool import run_items
from ..records import batch_axes
from ..strategy import Choice, Strategy
from .simd_tiles import tile_record


def consider(task, profile):
    p = task.plan
    if p.kind != "transpose":
        return "not a transpose"
    t = scalar_tiling(p.ni, p.nj, p.unit.itemsize, profile)
    args, nwork = tile_record(p, t)
    batch = batch_axes(p.batch)

    def run(dst, src, d, s, nth):
        from ..transpose import scalar_kernel
        run_items(scalar_kernel, (d, s, args, batch), (), nwork, nth)

    return Choice("scalar-tiles", "scalar cache blocks (any strides)",
                  {"block": f"{t.Bi}x{t.Bj}", "strides": dict(dI=p.dI, dJ=p.dJ, sI=p.sI, sJ=p.sJ)}, run,
                  work_items=nwork, repeatable=True)


STRATEGY = Strategy("scalar-tiles", "every transpose, any strides: scalar copies in cache blocks",
                    ("plain_block_bytes",), consider)
