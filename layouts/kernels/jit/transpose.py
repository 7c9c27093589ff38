"""Tile loops of a strided transpose on flat unsigned buffers (numba).

    dst[db + j*dJ + i*dI] = src[sb + i*sI + j*sJ]      for every batch index b

with runtime strides in units, compiled once per unit type (uint8/16/32/64), never per shape.
Every tile kernel takes ``(dst, src, args, batch, rects, w0, w1)``: ``args`` a
:data:`.records.TILES` record (read by field name), ``batch`` the :data:`.records.BATCH` axes,
``rects`` the edge rectangles (:data:`.records.RECTS`; copied by the last work item of each batch
index, while its rows are still in cache), and the work items
``[w0, w1)`` (batch index x cache block of i x run of columns), so that threads split the work; the kernels
release the GIL. Where the tiles and edges go is decided by :func:`.geometry.tiling`; these
loops only walk it. Each tile family is its own kernel, so a first call compiles only the family
it needs (about 0.4 s of LLVM each); the loops are written out per family because a factory of
njit closures is not served from numba's on-disk cache.

>>> import numpy as np
>>> from layouts.kernels.records import record, batch_axes, TILES
>>> s = np.arange(6 * 5, dtype=np.uint32); d = np.zeros(30, np.uint32)     # d[j*6+i] = s[i*5+j]
>>> a = record(TILES, ni=6, nj=5, dI=1, dJ=6, sI=5, sJ=1, ia=0, ie=6, ja=0, je=5, js=0, Bi=64, Bj=64, Jc=5, TI=1, TL=1,
...            nbi=1, njc=1)
>>> scalar_kernel(d, s, a, batch_axes([]), np.uint64(0), np.uint64(1))
>>> bool((d.reshape(5, 6) == s.reshape(6, 5).T).all())
True
"""

import numpy as np
from numba import njit

from .simd import tile, tile_gather, tile_k1, tile_k2, tile_nt, tile_nt_gather, tile_nt_pair, tile_nt_scatter, tile_nt_split, tile_scatter
from .wide import tile_nt_wide, tile_nt_wide_pair, tile_wide

__all__ = ["KERNELS", "scalar_kernel", "tiles_kernel", "tiles_nt_kernel", "wide_kernel", "wide_nt_kernel",
           "batch_group_nt_kernel", "batch_rows_nt_kernel", "batch_gather_nt_kernel", "batch_gather_kernel",
           "batch_scatter_nt_kernel", "narrow1_kernel", "narrow2_kernel", "straddle_kernel", "batch_offsets", "block_of",
           "run_rects", "run_rects_by", "scalar_rect"]

U0 = np.uint64(0)
U1 = np.uint64(1)
U4 = np.uint64(4)


@njit(cache=True, nogil=True, inline="always")
def batch_offsets(b, batch):
    """dst and src offsets of flat batch index ``b`` (C order over the batch axes)."""
    db = U0
    sb = U0
    rem = b
    k = batch.shape[0]
    while k > 0:
        k -= 1
        ax = batch[k]
        q = rem // ax.n
        r = rem - q * ax.n
        rem = q
        db += r * ax.d
        sb += r * ax.s
    return db, sb


@njit(cache=True, nogil=True, inline="always")
def block_of(w, a, batch):
    """Offsets, i-range ``[i0, i1)``, j-range ``[j0, j1)`` of work item ``w`` (batch index x block
    of Bi rows in [ia, ie) x run of Jc columns in [ja, je)) and whether it is its batch index's last."""
    nbi = a.nbi
    njc = a.njc
    b = w // (nbi * njc)
    r = w - b * (nbi * njc)
    ib = r // njc
    jc = r - ib * njc
    db, sb = batch_offsets(b, batch)
    i0 = a.ia + ib * a.Bi
    j0 = a.ja + jc * a.Jc
    return db, sb, i0, min(i0 + a.Bi, a.ie), j0, min(j0 + a.Jc, a.je), r == nbi * njc - U1


@njit(cache=True, nogil=True, inline="always")
def scalar_rect(dst, src, a, db, sb, i0, i1, j0, j1):
    """Rows [i0, i1) by columns [j0, j1) of one batch index (``dI == sJ == 1``), a unit at a time."""
    for i in range(i0, i1):
        dr = db + i
        sr = sb + i * a.sI
        for j in range(j0, j1):
            dst[dr + j * a.dJ] = src[sr + j]


@njit(cache=True, nogil=True, inline="always")
def run_rects(dst, src, a, rects, db, sb):
    """The edge rectangles of one batch index (``dI == sJ == 1``): narrow ones by one-group
    tiles (L = TL rows and columns a tile), the rest by scalar loops."""
    run_rects_by(dst, src, a, rects, db, sb, a.TL)


@njit(cache=True, nogil=True, inline="always")
def run_rects_by(dst, src, a, rects, db, sb, L):
    """:func:`run_rects` with the one-group tiles' side ``L`` given (wide tiles are ``4*L`` wide)."""
    for r in range(rects.shape[0]):
        e = rects[r]
        if e.narrow:
            for i in range(e.i0, e.i1, L):
                for j in range(e.j0, e.j1, L):
                    tile_k1(dst, db + i + j * a.dJ, a.dJ, src, sb + i * a.sI + j, a.sI)
        else:
            scalar_rect(dst, src, a, db, sb, e.i0, e.i1, e.j0, e.j1)


@njit(cache=True, nogil=True)
def scalar_kernel(dst, src, args, batch, w0, w1):
    """Scalar cache blocks, any strides (the ``scalar`` tiling: no edges)."""
    a = args[0]
    for w in range(w0, w1):
        db, sb, i0, i1, jb0, jb1, last = block_of(w, a, batch)
        for j0 in range(jb0, jb1, a.Bj):
            j1 = min(j0 + a.Bj, jb1)
            for i in range(i0, i1):
                dr = db + i * a.dI
                sr = sb + i * a.sI
                for j in range(j0, j1):
                    dst[dr + j * a.dJ] = src[sr + j * a.sJ]


@njit(cache=True, nogil=True, inline="always")
def tiles_block(dst, src, a, db, sb, i0, i1, jb0, jb1):
    """Full tiles (plain stores) over rows [i0, i1) and columns [jb0, jb1), in column blocks of Bj."""
    for j0 in range(jb0, jb1, a.Bj):
        j1 = min(j0 + a.Bj, jb1)
        for i in range(i0, i1, a.TI):
            for j in range(j0, j1, a.TL):
                tile(dst, db + i + j * a.dJ, a.dJ, src, sb + i * a.sI + j, a.sI)


@njit(cache=True, nogil=True, inline="always")
def tiles_nt_block(dst, src, a, db, sb, i0, i1, jb0, jb1):
    """As :func:`tiles_block` with non-temporal aligned stores, two tiles of i at a time: each dst
    row then gets two lines one after the other, where one line per row at a time leaves the
    memory's write bandwidth unused (the many rows of a long-row transpose)."""
    two = a.TI + a.TI
    paired = i0 + (i1 - i0) // two * two
    for j0 in range(jb0, jb1, a.Bj):
        j1 = min(j0 + a.Bj, jb1)
        for i in range(i0, paired, two):
            for j in range(j0, j1, a.TL):
                tile_nt_pair(dst, db + i + j * a.dJ, a.dJ, src, sb + i * a.sI + j, a.sI)
        for i in range(paired, i1, a.TI):
            for j in range(j0, j1, a.TL):
                tile_nt(dst, db + i + j * a.dJ, a.dJ, src, sb + i * a.sI + j, a.sI)


@njit(cache=True, nogil=True, inline="always")
def straddle_block(dst, src, a, db, sb, i0, i1, jb0, jb1):
    """As :func:`tiles_nt_block`, then per column block the tiles straddling rows j and j+1:
    rows [ie, ni) of columns j.. and rows [0, ia) of columns j+1.. (dst rows follow each other)."""
    nsp = a.ni - a.ie
    for j0 in range(jb0, jb1, a.Bj):
        j1 = min(j0 + a.Bj, jb1)
        tiles_nt_block(dst, src, a, db, sb, i0, i1, j0, j1)       # one column block
        for j in range(j0, min(j1, a.js), a.TL):
            tile_nt_split(dst, db + a.ie + j * a.dJ, a.dJ, src, sb + a.ie * a.sI + j, a.sI, sb + j + U1, nsp)


@njit(cache=True, nogil=True)
def tiles_kernel(dst, src, args, batch, rects, w0, w1):
    a = args[0]
    for w in range(w0, w1):
        db, sb, i0, i1, jb0, jb1, last = block_of(w, a, batch)
        tiles_block(dst, src, a, db, sb, i0, i1, jb0, jb1)
        if last:
            run_rects(dst, src, a, rects, db, sb)


@njit(cache=True, nogil=True)
def tiles_nt_kernel(dst, src, args, batch, rects, w0, w1):
    a = args[0]
    for w in range(w0, w1):
        db, sb, i0, i1, jb0, jb1, last = block_of(w, a, batch)
        tiles_nt_block(dst, src, a, db, sb, i0, i1, jb0, jb1)
        if last:
            run_rects(dst, src, a, rects, db, sb)


@njit(cache=True, nogil=True)
def wide_kernel(dst, src, args, batch, rects, w0, w1):
    """``tiles`` (plain stores) with the whole-line tiles of :mod:`.wide`."""
    a = args[0]
    for w in range(w0, w1):
        db, sb, i0, i1, jb0, jb1, last = block_of(w, a, batch)
        for j0 in range(jb0, jb1, a.Bj):
            j1 = min(j0 + a.Bj, jb1)
            for i in range(i0, i1, a.TI):
                for j in range(j0, j1, a.TL):
                    tile_wide(dst, db + i + j * a.dJ, a.dJ, src, sb + i * a.sI + j, a.sI)
        if last:
            run_rects_by(dst, src, a, rects, db, sb, a.TL // U4)


@njit(cache=True, nogil=True)
def wide_nt_kernel(dst, src, args, batch, rects, w0, w1):
    """``tiles-nt`` with the whole-line tiles of :mod:`.wide` (``TI == TL``: one source line a
    tile row), two tiles of i at a time."""
    a = args[0]
    two = a.TI + a.TI
    for w in range(w0, w1):
        db, sb, i0, i1, jb0, jb1, last = block_of(w, a, batch)
        paired = i0 + (i1 - i0) // two * two
        for j0 in range(jb0, jb1, a.Bj):
            j1 = min(j0 + a.Bj, jb1)
            for i in range(i0, paired, two):
                for j in range(j0, j1, a.TL):
                    tile_nt_wide_pair(dst, db + i + j * a.dJ, a.dJ, src, sb + i * a.sI + j, a.sI)
            for i in range(paired, i1, a.TI):
                for j in range(j0, j1, a.TL):
                    tile_nt_wide(dst, db + i + j * a.dJ, a.dJ, src, sb + i * a.sI + j, a.sI)
        if last:
            run_rects_by(dst, src, a, rects, db, sb, a.TL // U4)


@njit(cache=True, nogil=True)
def straddle_kernel(dst, src, args, batch, rects, w0, w1):
    a = args[0]
    for w in range(w0, w1):
        db, sb, i0, i1, jb0, jb1, last = block_of(w, a, batch)
        straddle_block(dst, src, a, db, sb, i0, i1, jb0, jb1)
        if last:
            run_rects(dst, src, a, rects, db, sb)


@njit(cache=True, nogil=True)
def narrow1_kernel(dst, src, args, batch, rects, w0, w1):
    a = args[0]
    for w in range(w0, w1):
        db, sb, i0, i1, jb0, jb1, last = block_of(w, a, batch)
        for j0 in range(jb0, jb1, a.Bj):
            j1 = min(j0 + a.Bj, jb1)
            for i in range(i0, i1, a.TI):
                for j in range(j0, j1, a.TL):
                    tile_k1(dst, db + i + j * a.dJ, a.dJ, src, sb + i * a.sI + j, a.sI)
        if last:
            run_rects(dst, src, a, rects, db, sb)


@njit(cache=True, nogil=True)
def narrow2_kernel(dst, src, args, batch, rects, w0, w1):
    a = args[0]
    for w in range(w0, w1):
        db, sb, i0, i1, jb0, jb1, last = block_of(w, a, batch)
        for j0 in range(jb0, jb1, a.Bj):
            j1 = min(j0 + a.Bj, jb1)
            for i in range(i0, i1, a.TI):
                for j in range(j0, j1, a.TL):
                    tile_k2(dst, db + i + j * a.dJ, a.dJ, src, sb + i * a.sI + j, a.sI)
        if last:
            run_rects(dst, src, a, rects, db, sb)


@njit(cache=True, nogil=True, inline="always")
def batch_group_of(w, a):
    """Batch indices ``[b0, b1)`` of work item ``w``: ``a.PB`` of the ``a.nb`` a group."""
    b0 = w * a.PB
    return b0, min(b0 + a.PB, a.nb)


@njit(cache=True, nogil=True, inline="always")
def batch_row_of(w, a, ax):
    """A group of batch rows (one batch axis ``ax`` of dst stride ``ni``) as one dst row: its
    batch indices, dst and src offsets, length ``n`` and where its aligned tiles stop (``q1``)."""
    b0, b1 = batch_group_of(w, a)
    n = (b1 - b0) * a.ni
    q1 = a.ia + (n - a.ia) // a.TI * a.TI if n > a.ia else U0
    return b0, b1, b0 * ax.d, b0 * ax.s, n, q1


@njit(cache=True, nogil=True)
def batch_group_nt_kernel(dst, src, args, batch, rects, w0, w1):
    """Non-temporal tiles over groups of ``a.PB`` consecutive batch indices a work item (a
    :data:`.records.GROUPED_TILES` record), in the order i tile, batch index, j: each source row
    is read on through the group's batch indices instead of a few lines of it per index, so that
    small transposes strided on both sides (NHWC<->CHWN) stream long runs."""
    a = args[0]
    for w in range(w0, w1):
        b0, b1 = batch_group_of(w, a)
        for i in range(a.ia, a.ie, a.TI):
            for b in range(b0, b1):
                db, sb = batch_offsets(b, batch)
                for j in range(U0, a.je, a.TL):
                    tile_nt(dst, db + i + j * a.dJ, a.dJ, src, sb + i * a.sI + j, a.sI)
        for b in range(b0, b1):
            db, sb = batch_offsets(b, batch)
            run_rects(dst, src, a, rects, db, sb)


@njit(cache=True, nogil=True, inline="always")
def batch_row_edge(dst, src, a, ax, db0, sb0, q, j0):
    """Columns ``[j0, nj)`` of row ``q`` of a group's one long dst row, by scalar copies."""
    k = q // a.ni
    sr = sb0 + k * ax.s + (q - k * a.ni) * a.sI
    for j in range(j0, a.nj):
        dst[db0 + q + j * a.dJ] = src[sr + j]


@njit(cache=True, nogil=True, inline="always")
def batch_rows_edges(dst, src, a, ax, db0, sb0, n, q1):
    """What the aligned tiles of a group of batch rows leave: its head before ``a.ia``, its tail
    from ``q1`` and the last columns from ``a.je``, by scalar copies. The rows between are
    visited only when there are such columns: a loop over all of them (a division each) took
    a third of a uint8 NHWC->CHWN copy."""
    head = min(a.ia, n)
    tail = max(head, min(q1, n))
    for q in range(U0, head):
        batch_row_edge(dst, src, a, ax, db0, sb0, q, U0)
    if a.je < a.nj:
        for q in range(head, tail):
            batch_row_edge(dst, src, a, ax, db0, sb0, q, a.je)
    for q in range(tail, n):
        batch_row_edge(dst, src, a, ax, db0, sb0, q, U0)


@njit(cache=True, nogil=True)
def batch_rows_nt_kernel(dst, src, args, batch, rects, w0, w1):
    """As :func:`batch_group_nt_kernel` where the dst rows of consecutive batch indices follow each
    other (one batch axis of dst stride ``ni``): a group's rows are one dst row of ``PB*ni`` units,
    covered by aligned non-temporal tiles that take their rows from one batch index or, straddling
    two, from both (``tile_nt_split``); only each group's unaligned head and tail are scalar. So
    a dst that is not 64-byte aligned (numpy's own arrays are 16) streams as an aligned one does."""
    a = args[0]
    ax = batch[0]
    for w in range(w0, w1):
        b0, b1, db0, sb0, n, q1 = batch_row_of(w, a, ax)
        # the m-th tile starting in each batch index, then the next m: each source row is read
        # on through the group (the order of batch_group_nt_kernel)
        for m in range(U0, (a.ni + a.TI - U1) // a.TI):
            for k in range(U0, b1 - b0):
                start = k * a.ni
                first = a.ia if start <= a.ia else a.ia + (start - a.ia + a.TI - U1) // a.TI * a.TI
                q = first + m * a.TI
                if q >= start + a.ni or q + a.TI > q1:
                    continue
                i = q - start
                s1 = sb0 + k * ax.s + i * a.sI
                rest = a.ni - i
                s2 = s1 if rest >= a.TI else sb0 + (k + U1) * ax.s
                for j in range(U0, a.je, a.TL):
                    tile_nt_split(dst, db0 + q + j * a.dJ, a.dJ, src, s1 + j, a.sI, s2 + j, min(rest, a.TI))
        batch_rows_edges(dst, src, a, ax, db0, sb0, n, q1)


@njit(cache=True, nogil=True, inline="always")
def batch_gather_items(dst, src, args, batch, w0, w1, nt):
    """As :func:`batch_rows_nt_kernel` for dst rows shorter than a tile (CHWN->NHWC with C=3): each
    aligned tile over a group's one long dst row takes its rows from as many batch indices as it
    covers, their offsets gathered (``tile_nt_gather``, or ``tile_gather`` with plain stores). The
    long row goes in blocks of ``a.Bi`` units (a multiple of the tile), each walked tile column by
    tile column, so that ``TL`` dst rows are written at a time while the block's source lines stay
    in L1; a block of one tile walks each tile across all columns instead, writing every dst row at
    once."""
    a = args[0]
    ax = batch[0]
    rows = np.empty(a.Bi, np.uint64)
    for w in range(w0, w1):
        b0, b1, db0, sb0, n, q1 = batch_row_of(w, a, ax)
        for qb in range(a.ia, q1, a.Bi):
            qe = min(qb + a.Bi, q1)
            for r in range(qe - qb):
                k = (qb + r) // a.ni
                rows[r] = sb0 + k * ax.s + (qb + r - k * a.ni) * a.sI
            for j in range(U0, a.je, a.TL):
                for q in range(qb, qe, a.TI):
                    if nt:
                        tile_nt_gather(dst, db0 + q + j * a.dJ, a.dJ, src, rows, q - qb, j)
                    else:
                        tile_gather(dst, db0 + q + j * a.dJ, a.dJ, src, rows, q - qb, j)
        batch_rows_edges(dst, src, a, ax, db0, sb0, n, q1)


@njit(cache=True, nogil=True)
def batch_gather_nt_kernel(dst, src, args, batch, rects, w0, w1):
    """:func:`batch_gather_items` with non-temporal stores (64-byte aligned dst rows)."""
    batch_gather_items(dst, src, args, batch, w0, w1, True)


@njit(cache=True, nogil=True)
def batch_gather_kernel(dst, src, args, batch, rects, w0, w1):
    """:func:`batch_gather_items` with plain stores (its output stays in cache)."""
    batch_gather_items(dst, src, args, batch, w0, w1, False)


@njit(cache=True, nogil=True, inline="always")
def batch_scatter_items(dst, src, args, batch, w0, w1, nt):
    """The mirror of :func:`batch_gather_items`, for source rows shorter than a tile that
    follow each other across batch indices (NHWC->CHWN with C=3): a group's source rows are one
    long row (column ``m`` = batch index ``m // nj``, column ``m % nj``); each tile of ``TL`` such
    columns stores its dst rows where they lie (``tile_nt_scatter``, or ``tile_scatter`` with plain
    stores for a cached copy or a dst off the 64-byte grid). The long row goes in blocks of ``a.Bj`` columns (a
    multiple of the tile), each walked tile row by tile row, so that only ``TI`` source rows stream
    at a time; a block of one tile column walks all of i under it instead, every dst row written
    whole while all the source rows stream side by side."""
    a = args[0]
    ax = batch[0]
    rows = np.empty(a.Bj, np.uint64)           # dst row of each column of the block
    cols = np.empty(a.Bj // a.TL, np.uint64)   # source offset of each tile column of the block
    for w in range(w0, w1):
        b0, b1 = batch_group_of(w, a)
        m0 = b0 * a.nj
        m1 = b1 * a.nj
        mt = m0 + (m1 - m0) // a.TL * a.TL
        for mb in range(m0, mt, a.Bj):
            me = min(mb + a.Bj, mt)
            for t in range(U0, (me - mb) // a.TL):
                m = mb + t * a.TL
                k = m // a.nj
                cols[t] = k * ax.s + (m - k * a.nj)
                for r in range(a.TL):
                    k = (m + r) // a.nj
                    rows[t * a.TL + r] = k * ax.d + (m + r - k * a.nj) * a.dJ
            for i in range(U0, a.ie, a.TI):
                for t in range(U0, (me - mb) // a.TL):
                    if nt:
                        tile_nt_scatter(dst, rows, t * a.TL, src, cols[t] + i * a.sI, a.sI, i)
                    else:
                        tile_scatter(dst, rows, t * a.TL, src, cols[t] + i * a.sI, a.sI, i)
        for m in range(mt, m1):
            k = m // a.nj
            c = m - k * a.nj
            for i in range(U0, a.ni):
                dst[k * ax.d + c * a.dJ + i] = src[k * ax.s + c + i * a.sI]


@njit(cache=True, nogil=True)
def batch_scatter_nt_kernel(dst, src, args, batch, rects, w0, w1):
    """:func:`batch_scatter_items` with non-temporal stores (64-byte aligned dst rows)."""
    batch_scatter_items(dst, src, args, batch, w0, w1, True)


@njit(cache=True, nogil=True)
def batch_scatter_kernel(dst, src, args, batch, rects, w0, w1):
    """:func:`batch_scatter_items` with plain stores (dst rows anywhere)."""
    batch_scatter_items(dst, src, args, batch, w0, w1, False)


#: the kernel of each tile variant of :func:`.geometry.tiling` (and the batch groups of ``tiles-nt``)
KERNELS = {"scalar": scalar_kernel, "tiles": tiles_kernel, "tiles-nt": tiles_nt_kernel, "tiles-wide": wide_kernel,
           "tiles-nt-wide": wide_nt_kernel,
           "tiles-nt-grouped": batch_group_nt_kernel, "tiles-nt-batch-rows": batch_rows_nt_kernel,
           "tiles-nt-batch-gather": batch_gather_nt_kernel, "tiles-nt-batch-scatter": batch_scatter_nt_kernel,
           "tiles-batch-scatter": batch_scatter_kernel, "tiles-batch-gather": batch_gather_kernel,
           "straddle-nt": straddle_kernel, "narrow1": narrow1_kernel, "narrow2": narrow2_kernel}
