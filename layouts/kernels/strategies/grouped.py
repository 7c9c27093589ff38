"""Word-grouped uint8 / uint16 transposes out of cache: zip 4 / 2 source rows into uint32 words in
an L2-resident scratch, then a 4-byte tile transpose (:mod:`..grouped`). A uint8 tile needs 64
source rows live per output line; a word tile needs 16.

Out of cache this beats byte tiles; smaller outputs lose to the extra pass, hence
``group_min_bytes``. Grouping on the source side (word transpose, then unzip) lost everywhere and
is not offered."""

from __future__ import annotations

from ..geometry import tiling
from ..runtime.pool import run_items
from ..records import GROUP, RECTS, TILES, batch_axes, record, records
from ..strategy import Choice, Strategy


def _stage_b(ng, q, Q, dJw, bstrides, daddr, stream, profile, variant=None):
    """TILES record and edge rectangles of stage B for a chunk of q columns: (ng, q) words of the
    scratch (row stride Q) into dst rows of stride dJw words. ``variant``: the one the kernel runs
    (a chunk whose tiling differs is copied as edges only)."""
    t = tiling(ng, q, dJw, bstrides, 4, daddr, stream, profile)
    if isinstance(t, str) or (variant is not None and t.variant != variant):
        args = record(TILES, ni=ng, nj=q, dI=1, dJ=dJw, sI=Q, sJ=1, ia=0, ie=0, ja=0, je=0, js=0, Bi=1, Bj=1, Jc=1,
                      TI=1, TL=1, nbi=1, njc=1)
        return None, args, records(RECTS, [(0, ng, 0, q, 0)])
    args = record(TILES, ni=ng, nj=q, dI=1, dJ=dJw, sI=Q, sJ=1, ia=t.ia, ie=t.ie, ja=t.ja, je=t.je, js=t.js, Bi=t.Bi,
                  Bj=t.Bj, Jc=max(t.je, 1), TI=t.TI, TL=t.TL, nbi=t.nblocks, njc=1)
    return t, args, records(RECTS, t.edges)


def consider(task, profile):
    p = task.plan
    if not profile.simd:
        return "SIMD tiles are off (profile simd=False)"
    us = p.unit.itemsize
    if p.kind != "transpose" or us not in (1, 2) or p.dI != 1 or p.sJ != 1:
        return "not a 1- or 2-byte transpose with unit-stride rows"
    G = 4 // us
    if p.ni % G or p.ni * us < 64 or p.dJ % G or task.dst_addr % 4 or any(a[1] % G for a in p.batch):
        return f"dst rows are not whole 4-byte words of at least 64 bytes (ni={p.ni})"
    aliased = (p.sI * us) % 4096 == 0
    if p.nbytes < (profile.group_aliased_min_bytes if aliased else profile.group_min_bytes):
        return (f"{p.nbytes} bytes < group_min_bytes ({profile.group_min_bytes}; "
                f"{profile.group_aliased_min_bytes} for source rows a multiple of 4 KiB apart)")
    if p.nj < profile.group_min_cols:
        return f"nj={p.nj} < group_min_cols ({profile.group_min_cols})"
    stream = task.streams(profile)
    ng = p.ni // G
    Q = max(16, profile.group_scratch_bytes // 4 // ng // 16 * 16)
    Q = min(Q, -(-p.nj // 16) * 16)
    bstrides = tuple(a[1] // G for a in p.batch)
    t, full, rfull = _stage_b(ng, Q, Q, p.dJ // G, bstrides, task.dst_addr, stream, profile)
    if t is None:
        return "no word tiling of a chunk"
    qlast = p.nj % Q
    _, last, rlast = (_stage_b(ng, qlast, Q, p.dJ // G, bstrides, task.dst_addr, stream, profile, t.variant)
                      if qlast else (t, full, rfull))
    gargs = record(GROUP, ni=p.ni, nj=p.nj, dJ=p.dJ, sI=p.sI, Q=Q)
    batch = batch_axes(p.batch)
    nwork = p.nbatch * -(-p.nj // Q)

    def run(dst, src, d, s, nth):
        from ..jit.grouped import GROUP_KERNELS
        d32 = d[:d.shape[0] // G * G].view("u4")
        run_items(GROUP_KERNELS[t.variant], (d32, s, gargs, full, last, rfull, rlast, batch), (), nwork, nth)

    return Choice("grouped", f"{G} rows zipped into words, then word tiles ({t.why})",
                  {"G": G, "chunk_columns": Q, "stage_b": t.variant, "word_tile": f"{t.TI}x{t.TL}",
                   "stream": stream}, run, work_items=nwork, repeatable=True)


STRATEGY = Strategy("grouped", "large uint8/uint16 transposes with dst rows of whole words: zip rows into words, "
                    "then 4-byte tiles", ("simd", "group_min_bytes", "group_aliased_min_bytes", "group_min_cols", "group_scratch_bytes",
                                          "nt_min_bytes", "nt_stores", "straddle", "long_row_bytes", "block_i_long_bytes",
                                          "block_j_short_bytes"), consider)
