"""Planes out of padded rows (``NCHW16c`` -> ``NCHW`` with ``C=3``): the source holds each
pixel's ``C`` units at the start of a row of ``P`` (a power of two from 4 to 32), the rest
padding. A tile transpose would read whole rows to use a few units of each; the unpad kernels
of :mod:`..jit.padded` de-interleave whole 64-byte lines of rows in registers and store a line
of each plane. Outputs of at least ``nt_min_bytes`` (or part of a streamed one) are written
with non-temporal stores."""

from __future__ import annotations

from ..runtime.pool import run_items
from ..records import PADDED, batch_axes, record
from ..strategy import Choice, Strategy

#: pixels per work item (a multiple of every line's row count)
CHUNK = 1 << 14


def consider(task, profile):
    p = task.plan
    if p.kind != "transpose" or p.dI != 1 or p.sJ != 1:
        return "not a transpose with unit-stride rows on both sides"
    P, C = p.sI, p.nj
    if P not in (4, 8, 16, 32) or not 2 <= C < P:
        return f"the source rows are not rows of P in 4, 8, 16, 32 holding 2 to P-1 planes (P={P}, C={C})"
    stream = profile.nt_stores and task.streams(profile)
    args = record(PADDED, C=C, P=P, n=p.ni, sC=0, sJ=0, dC=p.dJ, chunk=CHUNK)
    batch = batch_axes(p.batch)
    nwork = p.nbatch * -(-p.ni // CHUNK)
    kernel = "unpad_nt_kernel" if stream else "unpad_kernel"

    def run(dst, src, d, s, nth):
        from ..jit import padded
        run_items(getattr(padded, kernel), (d, s, args, batch), (), nwork, nth)

    how = f"{C} planes from rows of P={P}" + ("; non-temporal stores" if stream else "")
    params = {"C": C, "P": P, "n": p.ni, "chunk": CHUNK, "stream": stream}
    return Choice("padded-rows", how, params, run, work_items=nwork, repeatable=True)


STRATEGY = Strategy("padded-rows", "planes out of rows of P units holding fewer (NCHW16c -> NCHW with C=3): "
                    "a de-interleave of whole lines", ("nt_min_bytes", "nt_stores"), consider)
