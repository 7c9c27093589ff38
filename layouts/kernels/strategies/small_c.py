"""Small channel counts (2, 3, 4) on the contiguous side of either array: a (de)interleave with
the count a compile-time constant, which LLVM vectorises (:mod:`..small`); a tile transpose would
waste most of each tile (NCHW->NHWC with C=3 ran at 0.96 of np.copyto this way)."""

from __future__ import annotations

from ..pool import run_items
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
    args = record(SMALL, C=C, n=n, stride=stride, chunk=CHUNK)
    batch = batch_axes(p.batch)
    nwork = p.nbatch * -(-n // CHUNK)

    def run(dst, src, d, s, nth):
        from .. import small
        run_items(getattr(small, f"{kind}_kernel"), (d, s, args, batch), (), nwork, nth)

    return Choice("small-c", f"{kind} of C={C} (dst rows of C)" if kind == "interleave" else
                  f"{kind} of C={C} (src rows of C)", {"kind": kind, "C": C, "n": n, "chunk": CHUNK}, run,
                  work_items=nwork)


STRATEGY = Strategy("small-c", "2-4 units packed on one side (NCHW<->NHWC with C=3): a constant-C (de)interleave",
                    (), consider)
