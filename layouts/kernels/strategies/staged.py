"""Small channel counts on the strided side of both arrays (NHWC <-> CHWN with C=3): per chunk of
pixels, a constant-C (de)interleave and a tile transpose through a cache-resident scratch; the chunks
are split over threads, one scratch each. Each of the two sub-copies is planned again through the
registry (NHWC->CHWN with C=3 ran at 0.13 of np.copyto as one tile transpose).

    A (NHWC->CHWN):  dst[c*dJ + p*ni + n] = src[n*sI + p*C + c]    (nj == C, batch p)
    B (CHWN->NHWC):  dst[n*dJ + p*C + c] = src[c*sI + p*nj + n]    (ni == C, batch p)
"""

from __future__ import annotations


from ..runtime.pool import run_split
from ..runtime.scratch import buffer
from ..strategy import Choice, Strategy, engine, unit_view


def consider(task, profile):
    p = task.plan
    if p.kind != "transpose" or len(p.batch) != 1 or p.dI != 1 or p.sJ != 1:
        return "not a transpose with one batch axis and unit-stride rows"
    npx, dB, sB = p.batch[0]
    if p.nj in (2, 3, 4) and sB == p.nj and dB == p.ni and p.ni >= 16:
        C, N, case = p.nj, p.ni, "A"
    elif p.ni in (2, 3, 4) and dB == p.ni and sB == p.nj and p.nj >= 16:
        C, N, case = p.ni, p.nj, "B"
    else:
        return "no 2-4 channels strided on both sides"
    us = p.unit.itemsize
    stream = task.streams(profile)
    P = max(16, min(npx, profile.stage_bytes // (N * C * us)))
    cached = profile.replace(nt_stores=False)      # the scratch is read back at once: never stream it

    nchunks = -(-npx // P)

    def chunks(d, s, c0, c1):
        """Chunks [c0, c1) of P pixels through one scratch, on the calling thread."""
        _copy_views = engine()
        tmp = buffer("staged", N * C * P * us).view(p.unit)      # kept by the thread: no fresh pages a call
        for p0 in range(c0 * P, min(c1 * P, npx), P):
            q = min(P, npx - p0)
            t = unit_view(tmp, (N, C, q), (C * q, q, 1))
            if case == "A":
                _copy_views(t, unit_view(s, (N, C, q), (p.sI, 1, C), p0 * C), 1, False, cached)
                _copy_views(unit_view(d, (C, q, N), (p.dJ, N, 1), p0 * N), t.transpose(1, 2, 0), 1, stream, profile)
            else:
                _copy_views(t, unit_view(s, (N, C, q), (1, p.sI, N), p0 * N), 1, False, cached)
                _copy_views(unit_view(d, (N, q, C), (p.dJ, C, 1), p0 * C), t.transpose(0, 2, 1), 1, stream, profile)

    def run(dst, src, d, s, nth):
        run_split(chunks, lambda c0, c1: (d, s, c0, c1), nchunks, nth)

    what = "NHWC->CHWN-like: deinterleave, then transpose" if case == "A" else \
        "CHWN->NHWC-like: transpose, then interleave"
    return Choice("staged", f"C={C} strided on both sides ({what}) through a scratch of {P} pixels",
                  {"C": C, "N": N, "pixels_per_stage": P, "stream": stream}, run, work_items=nchunks)


STRATEGY = Strategy("staged", "2-4 channels strided on both sides (NHWC<->CHWN, C=3): two sub-copies through a "
                    "cache-resident scratch", ("stage_bytes", "nt_min_bytes"), consider)
