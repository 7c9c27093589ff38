"""Word-grouped transposes of uint8 / uint16 units (numba).

A transpose ``dst[db + j*dJ + i] = src[sb + i*sI + j]`` of 1- or 2-byte units whose dst rows hold
a multiple of G = 4 / 2 units (NCHW->NHWC with C % 4 == 0, NCHW->CHWN with N % 4 == 0) is a
uint32 transpose of words after a cheap interleave: per chunk of ``Q`` columns j, each G
consecutive source rows i are zipped into one uint32 row of a cache-resident scratch (stage A: G
sequential input streams; :func:`.simd.zip4` for uint8), then the (ni/G, q) word block is
transposed into the output by the 4-byte tile loops of :mod:`.transpose` (stage B). A uint8
tile needs 64 source rows live per 64-byte output line (spills, ~160 unpacks per KB); the word
tile needs 16. Little-endian: byte k of a word is bits [8k, 8k+8).

Arguments: ``gargs`` a :data:`.records.GROUP` record; ``tfull`` / ``tlast`` the stage-B
:data:`.records.TILES` records of a full chunk and of the last, shorter one, ``rfull`` /
``rlast`` their edge rectangles (all from :func:`.geometry.tiling`); work item = (batch index,
chunk of j).

>>> import numpy as np
>>> from layouts.kernels.records import record, records, batch_axes, GROUP, TILES, RECTS
>>> s = np.arange(64 * 6, dtype=np.uint8); d = np.zeros(64 * 6, np.uint8)    # (64, 6) -> (6, 64)
>>> g = record(GROUP, ni=64, nj=6, dJ=64, sI=6, Q=6)
>>> t = record(TILES, ni=16, nj=6, dI=1, dJ=16, sI=6, sJ=1, ia=0, ie=16, ja=0, je=4, js=0, Bi=16, Bj=4, Jc=4,
...            TI=16, TL=4, nbi=1, njc=1)
>>> r = records(RECTS, [(0, 16, 4, 6, 0)])                                      # columns 4, 5: scalar
>>> group_tiles_kernel(d.view(np.uint32), s, g, t, t, r, r, batch_axes([]), np.uint64(0), np.uint64(1))
>>> bool((d.reshape(6, 64) == s.reshape(64, 6).T).all())
True
"""

import numpy as np
from numba import njit

from .simd import prefetch, zip4
from .transpose import batch_offsets, run_rects, straddle_block, tiles_block, tiles_nt_block

__all__ = ["group_tiles_kernel", "group_tiles_nt_kernel", "group_straddle_kernel", "GROUP_KERNELS"]

U0 = np.uint64(0)
U1 = np.uint64(1)
U2 = np.uint64(2)
U3 = np.uint64(3)
U4 = np.uint64(4)
U32 = np.uint64(32)
U64 = np.uint64(64)
#: stage A of uint8 prefetches the source rows this far ahead (the next group of 4; after the
#: last group the rows that follow, often the next chunk's)
PF_ROWS = np.uint64(4)


@njit(cache=True, nogil=True, inline="always")
def _zip_chunk(w, w32, s, g, batch):
    """Stage A of work item ``w``: zip G source rows into each word row of ``w32`` (row stride
    Q words); returns the chunk's dst word offset and its column count q."""
    G = U4 // np.uint64(s.itemsize)      # a compile-time constant per unit type
    nch = (g.nj + g.Q - U1) // g.Q
    ng = g.ni // G
    b = w // nch
    k0 = (w - b * nch) * g.Q
    q = min(g.Q, g.nj - k0)
    db, sb = batch_offsets(b, batch)
    sI = g.sI
    for gi in range(ng):
        r = sb + G * gi * sI + k0
        o = gi * g.Q
        if G == U4:                      # uint8: zip4 (byte / 16-bit interleaves, 32 columns a step)
            q32 = q // U64 * U64
            rn = r + PF_ROWS * sI
            for j in range(U0, q32, U64):
                prefetch(s, rn + j)
                prefetch(s, rn + sI + j)
                prefetch(s, rn + U2 * sI + j)
                prefetch(s, rn + U3 * sI + j)
                zip4(w32, o + j, s, r + j, sI)
                zip4(w32, o + j + U32, s, r + j + U32, sI)
            for j in range(q32, q):
                w32[o + j] = (np.uint32(s[r + j]) | (np.uint32(s[r + sI + j]) << np.uint32(8))
                              | (np.uint32(s[r + U2 * sI + j]) << np.uint32(16))
                              | (np.uint32(s[r + U3 * sI + j]) << np.uint32(24)))
        else:
            for j in range(q):
                w32[o + j] = np.uint32(s[r + j]) | (np.uint32(s[r + sI + j]) << np.uint32(16))
    return (db + k0 * g.dJ) // G, q


# The three drivers differ only in the stage-B tile loop they call; they are written out, not
# made by a factory, because an njit closure capturing the loop is never served from the
# on-disk cache (a full compile on every first call).
@njit(cache=True, nogil=True)
def group_tiles_kernel(d32, s, gargs, tfull, tlast, rfull, rlast, batch, w0, w1):
    """Stage B in plain tiles."""
    g = gargs[0]
    w32 = np.empty(g.ni // (U4 // np.uint64(s.itemsize)) * g.Q, np.uint32)
    for w in range(w0, w1):
        dw, q = _zip_chunk(w, w32, s, g, batch)
        a = tfull[0] if q == g.Q else tlast[0]
        for k in range(a.nbi):                  # >= 1 block: straddling tiles may be all there is
            i0 = a.ia + k * a.Bi
            tiles_block(d32, w32, a, dw, U0, i0, min(i0 + a.Bi, a.ie), U0, a.je)
        run_rects(d32, w32, a, rfull if q == g.Q else rlast, dw, U0)


@njit(cache=True, nogil=True)
def group_tiles_nt_kernel(d32, s, gargs, tfull, tlast, rfull, rlast, batch, w0, w1):
    """Stage B in non-temporal tiles."""
    g = gargs[0]
    w32 = np.empty(g.ni // (U4 // np.uint64(s.itemsize)) * g.Q, np.uint32)
    for w in range(w0, w1):
        dw, q = _zip_chunk(w, w32, s, g, batch)
        a = tfull[0] if q == g.Q else tlast[0]
        for k in range(a.nbi):                  # >= 1 block: straddling tiles may be all there is
            i0 = a.ia + k * a.Bi
            tiles_nt_block(d32, w32, a, dw, U0, i0, min(i0 + a.Bi, a.ie), U0, a.je)
        run_rects(d32, w32, a, rfull if q == g.Q else rlast, dw, U0)


@njit(cache=True, nogil=True)
def group_straddle_kernel(d32, s, gargs, tfull, tlast, rfull, rlast, batch, w0, w1):
    """Stage B in straddling non-temporal tiles."""
    g = gargs[0]
    w32 = np.empty(g.ni // (U4 // np.uint64(s.itemsize)) * g.Q, np.uint32)
    for w in range(w0, w1):
        dw, q = _zip_chunk(w, w32, s, g, batch)
        a = tfull[0] if q == g.Q else tlast[0]
        for k in range(a.nbi):                  # >= 1 block: straddling tiles may be all there is
            i0 = a.ia + k * a.Bi
            straddle_block(d32, w32, a, dw, U0, i0, min(i0 + a.Bi, a.ie), U0, a.je)
        run_rects(d32, w32, a, rfull if q == g.Q else rlast, dw, U0)


#: the grouped kernel of each stage-B tile variant
GROUP_KERNELS = {"tiles": group_tiles_kernel, "tiles-nt": group_tiles_nt_kernel,
                 "straddle-nt": group_straddle_kernel}
