"""The loops of the line tiles (numba): dst rows of one or two tile groups that follow each other.

NCHW16c in uint8 or float16 (and NCHW8c in float32, NCHW32c in uint8) has dst rows of 16 or 32
bytes, one after the other. :func:`.geometry.line_tiling` covers all of i by several groups of j
a tile, and the tiles of :mod:`.simd` (``tile_lines*``) store whole 64-byte lines of consecutive
dst rows. The kernels here walk those tiles over the work items of :func:`.transpose.block_of`,
with the record and edge conventions of :mod:`.transpose`:

``lines``             plain stores
``lines-nt``          non-temporal, from the first column ``ja`` whose row starts a line
``lines-nt-shifted``  two-group rows a lane (16 bytes) past a line: each stored line joins the last
                      lane of one tile line and the first three of the next (a carry per run)
``lines-nt-each``     batch indices that start their rows at other places in a line: each index
                      (a work item of its own, all of j) finds its own start, in the kernel, and
                      copies its columns before and after the tiles

>>> import numpy as np
>>> from layouts.kernels.records import record, records, batch_axes, TILES, RECTS
>>> s = np.arange(16 * 70, dtype=np.uint8); d = np.zeros(16 * 70, np.uint8)    # (16, 70) -> (70, 16)
>>> a = record(TILES, ni=16, nj=70, dI=1, dJ=16, sI=70, sJ=1, ia=0, ie=16, ja=0, je=64, js=0, Bi=16, Bj=64,
...            Jc=64, TI=16, TL=64, nbi=1, njc=1)
>>> lines_kernel(d, s, a, batch_axes([]), records(RECTS, [(0, 16, 64, 70, 0)]), np.uint64(0), np.uint64(1))
>>> bool((d.reshape(70, 16) == s.reshape(16, 70).T).all())
True
"""

import numpy as np
from numba import njit

from .simd import tile_lines1, tile_lines1_nt, tile_lines2, tile_lines2_nt, tile_lines2_nt_carry, tile_lines2_nt_first
from .transpose import block_of, run_rects, scalar_rect

__all__ = ["LINE_KERNELS", "lines_kernel", "lines_nt_kernel", "lines_shifted_nt_kernel", "lines_each_nt_kernel"]

U0 = np.uint64(0)
U1 = np.uint64(1)
U2 = np.uint64(2)
LINE = np.uint64(64)
LANE = np.uint64(16)


@njit(cache=True, nogil=True, inline="always")
def lines_run(dst, src, a, db, sb, j0, j1, nt):
    """Tiles over columns [j0, j1) of one batch index, each all ``TI`` rows of i by ``TL`` columns."""
    two = a.TI == a.TL          # two groups of i leave two of j: as many columns as rows
    for j in range(j0, j1, a.TL):
        d = db + j * a.dJ
        s = sb + j
        if nt:
            if two:
                tile_lines2_nt(dst, d, src, s, a.sI)
            else:
                tile_lines1_nt(dst, d, src, s, a.sI)
        elif two:
            tile_lines2(dst, d, src, s, a.sI)
        else:
            tile_lines1(dst, d, src, s, a.sI)


@njit(cache=True, nogil=True, inline="always")
def shifted_run(dst, src, a, db, sb, j0, j1, carry):
    """Two-group tiles over columns [j0, j1) (at least one tile) whose first row starts a lane
    past a line: one carry through the run (the lane that begins the next tile's first line),
    stored at its end."""
    tile_lines2_nt_first(dst, db + j0 * a.dJ, src, sb + j0, a.sI, carry)
    for j in range(j0 + a.TL, j1, a.TL):
        tile_lines2_nt_carry(dst, db + j * a.dJ, src, sb + j, a.sI, carry)
    end = db + j1 * a.dJ - U1 * carry.size
    for u in range(carry.size):
        dst[end + u] = carry[u]


@njit(cache=True, nogil=True, inline="always")
def lines_items(dst, src, a, batch, rects, w0, w1, nt):
    for w in range(w0, w1):
        db, sb, i0, i1, jb0, jb1, last = block_of(w, a, batch)
        lines_run(dst, src, a, db, sb, jb0, jb1, nt)
        if last:
            run_rects(dst, src, a, rects, db, sb)


@njit(cache=True, nogil=True)
def lines_kernel(dst, src, args, batch, rects, w0, w1):
    lines_items(dst, src, args[0], batch, rects, w0, w1, False)


@njit(cache=True, nogil=True)
def lines_nt_kernel(dst, src, args, batch, rects, w0, w1):
    lines_items(dst, src, args[0], batch, rects, w0, w1, True)


@njit(cache=True, nogil=True)
def lines_shifted_nt_kernel(dst, src, args, batch, rects, w0, w1):
    a = args[0]
    carry = np.empty(a.TI // U2, dst.dtype)          # one lane: half a two-group row
    for w in range(w0, w1):
        db, sb, i0, i1, jb0, jb1, last = block_of(w, a, batch)
        if jb1 > jb0:
            shifted_run(dst, src, a, db, sb, jb0, jb1, carry)
        if last:
            run_rects(dst, src, a, rects, db, sb)


@njit(cache=True, nogil=True)
def lines_each_nt_kernel(dst, src, args, batch, rects, w0, w1):
    """Each work item one whole batch index (the planner makes no runs of j here): non-temporal
    from the first column whose row starts a line, or joined lines for two groups a lane past
    one, or plain stores where neither meets one; the columns before and after, unit by unit."""
    a = args[0]
    addr = np.uint64(dst.ctypes.data)
    isz = np.uint64(dst.itemsize)
    row = a.ni * isz
    carry = np.empty(a.TI // U2, dst.dtype)
    for w in range(w0, w1):
        db, sb, i0, i1, jb0, jb1, last = block_of(w, a, batch)
        at = addr + db * isz
        mode = 0
        ja = U0
        if at % row == U0:
            ja = ((LINE - at % LINE) % LINE) // row
            mode = 1
        elif a.TI == a.TL and at % LANE == U0:
            ja = ((LANE + LINE - at % LINE) % LINE) // row
            mode = 2
        if a.nj < ja + a.TL:
            mode = 0
            ja = U0
        je = ja + (a.nj - ja) // a.TL * a.TL
        scalar_rect(dst, src, a, db, sb, U0, a.ni, U0, ja)
        if mode == 2:
            shifted_run(dst, src, a, db, sb, ja, je, carry)
        else:
            lines_run(dst, src, a, db, sb, ja, je, mode == 1)
        scalar_rect(dst, src, a, db, sb, U0, a.ni, je, a.nj)


#: the kernel of each line-tile variant of :func:`.geometry.line_tiling`
LINE_KERNELS = {"lines": lines_kernel, "lines-nt": lines_nt_kernel, "lines-nt-shifted": lines_shifted_nt_kernel,
                "lines-nt-each": lines_each_nt_kernel}
