"""Small channel counts (2, 3, 4) on the contiguous side of either array: a (de)interleave with
a 64-byte line of each plane a vector (:mod:`..small`); a tile transpose would waste most of
each tile.  Outputs of at least ``nt_min_bytes`` (or part of a streamed one) are written with
non-temporal stores, as the tile strategies do."""

from __future__ import annotations

from ..runtime.pool import run_items
from ..records import SMALL, batch_axes, record
from ..strategy import Choice, Strategy

#: elements of the long axis per work item
CHUNK = 1 << 14


def consider(task, profile):
    p = task.plan
    if p.kind != "transpose" or p.dI != 1 or p.sJ != 1:
        return "not a transpose with unit-stride rows on both sides"
    if p.ni in (2, 3, 4) and p.dJ == p.ni:
        C, n, stride, kind = p.ni, p.nj, p.sI, "interleave"
    elif p.nj in (2, 3, 4) and p.sI == p.nj:
        C, n, stride, kind = p.nj, p.ni, p.dJ, "deinterleave"
    else:
        return "no side has packed rows of 2-4 units"
    stream = profile.nt_stores and task.streams(profile) and task.dst_addr % p.unit.itemsize == 0
    args = record(SMALL, C=C, n=n, stride=stride, chunk=CHUNK)
    batch = batch_axes(p.batch)
    nwork = p.nbatch * -(-n // CHUNK)
    kernel = f"{kind}_nt_kernel" if stream else f"{kind}_kernel"

    def run(dst, src, d, s, nth):
        from ..jit import small
        run_items(getattr(small, kernel), (d, s, args, batch), (), nwork, nth)

    how = "dst rows of C" if kind == "interleave" else "src rows of C"
    if stream:
        how += "; non-temporal stores"
    params = {"kind": kind, "C": C, "n": n, "chunk": CHUNK, "stream": stream}
    return Choice("small-c", f"{kind} of C={C} ({how})", params, run, work_items=nwork, repeatable=True)


STRATEGY = Strategy("small-c", "2-4 units packed on one side (NCHW<->NHWC with C=3): a constant-C (de)interleave",
                    ("nt_min_bytes", "nt_stores"), consider)
