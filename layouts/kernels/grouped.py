"""Word-grouped transposes of uint8 units (numba).

A uint8 transpose ``dst[db + j*dJ + i] = src[sb + i*sI + j]`` whose dst rows hold a multiple
of 4 units (``ni % 4 == 0``; NCHW->NHWC with C % 4 == 0, NCHW->CHWN with N % 4 == 0) is a
uint32 transpose of 4-byte words after a cheap interleave: per chunk of ``Q`` columns j,
each 4 consecutive source rows i are zipped into one uint32 row of a cache-resident scratch
(4 sequential input streams; a loop LLVM vectorises into vpmovzxbd/vpslld/vpor), then the
(ni/4, q) word block is transposed into the output with the 4-byte tile kernels of
:mod:`.transpose` (``KERNELS`` by the mode in ``T``, non-temporal stores where allowed).
A uint8 tile needs 64 source rows live per 64-byte output line (spills, ~160 unpacks per
KB); the word tile needs 16.  Little-endian: byte k of a word is bits [8k, 8k+8).

``P``: d0, s0, ni, nj, dJ, sI, w0, w1, Q, [edges: 0 = leave the stage-B edges to the caller] (uint8 units; word offsets are unit offsets / 4);
``T``: the stage-B transpose parameters in the layout of :mod:`.transpose` (only Bi, Bj,
mode, peel, TI, TL are read; the rest is set per chunk).
Work item ``w`` = (batch index, chunk of j).

>>> import numpy as np
>>> from layouts.kernels.grouped import group_kernel
>>> s = np.arange(8 * 6, dtype=np.uint8); d = np.zeros(48, np.uint8)    # (8, 6) -> (6, 8)
>>> e = np.zeros(0, np.uint64)
>>> P = np.array([0, 0, 8, 6, 8, 6, 0, 1, 16], np.uint64)
>>> T = np.array([0] * 10 + [16, 4, 1, 0, 16, 4, 0], np.uint64)   # stage B: mode 1 tiles
>>> group_kernel(d.view(np.uint32), s, P, T, e, e, e)
>>> bool((d.reshape(6, 8) == s.reshape(8, 6).T).all())
True
"""

import numpy as np
from numba import njit

from .simd import prefetch, zip4
from .transpose import batch_offsets, kernel_edges, kernel_nt, kernel_split, kernel_tile

__all__ = ["group_kernel"]

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
#: stage A of uint8 by :func:`.simd.zip4` (byte / 16-bit interleaves, 32 columns a step)
USE_ZIP4 = True


@njit(cache=True, nogil=True, inline="always")
def _zip_chunk(w, w32, Tc, s, P, bsh, dbs, sbs):
    """Stage A of work item ``w``: zip G = 4 / itemsize source rows into each word row of
    ``w32``; set the stage-B parameters ``Tc`` of the chunk."""
    d0 = P[0]; s0 = P[1]; ni = P[2]; nj = P[3]; dJ = P[4]; sI = P[5]; Q = P[8]
    G = np.uint64(4) // np.uint64(s.itemsize)
    nch = (nj + Q - U1) // Q
    ng = ni // G
    b = w // nch
    k0 = (w - b * nch) * Q
    q = min(Q, nj - k0)
    db, sb = batch_offsets(b, d0, s0, bsh, dbs, sbs)
    for g in range(ng):
        r = sb + G * g * sI + k0
        o = g * Q
        if G == U4 and USE_ZIP4:
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
        elif G == U4:
            for j in range(q):
                w32[o + j] = (np.uint32(s[r + j]) | (np.uint32(s[r + sI + j]) << np.uint32(8))
                              | (np.uint32(s[r + U2 * sI + j]) << np.uint32(16))
                              | (np.uint32(s[r + U3 * sI + j]) << np.uint32(24)))
        else:
            for j in range(q):
                w32[o + j] = np.uint32(s[r + j]) | (np.uint32(s[r + sI + j]) << np.uint32(16))
    # stage B: (ng, q) words -> output rows of ng words
    Tc[0] = (db + k0 * dJ) // G; Tc[1] = U0; Tc[2] = ng; Tc[3] = q
    Tc[4] = U1; Tc[5] = dJ // G; Tc[6] = Q; Tc[7] = U1
    Tc[8] = U0; Tc[9] = (ng + Tc[10] - U1) // Tc[10]


@njit(cache=True, nogil=True, inline="always")
def _scratch(s, P):
    ng = P[2] // (np.uint64(4) // np.uint64(s.itemsize))
    return np.empty(ng * P[8], np.uint32)


# The six drivers below differ only in the stage-B tile kernel they call and whether they run
# kernel_edges. They are written out, not made by a factory: an njit closure capturing the tile
# kernel (checked with numba 0.68) prunes the edges branch but never hits the on-disk cache (a
# new entry is saved in every process), which would put a full compile on every first call.
@njit(cache=True, nogil=True)
def group_tile(d32, s, P, T, bsh, dbs, sbs):
    """Work items [P[6], P[7]) with stage B in plain tiles (mode 1)."""
    w32 = _scratch(s, P)
    Tc = T.copy()
    e = np.zeros(0, np.uint64)
    for w in range(P[6], P[7]):
        _zip_chunk(w, w32, Tc, s, P, bsh, dbs, sbs)
        kernel_tile(d32, w32, Tc, e, e, e)
        kernel_edges(d32, w32, Tc, e, e, e)


@njit(cache=True, nogil=True)
def group_tile_ne(d32, s, P, T, bsh, dbs, sbs):
    """As group_tile without the stage-B edges (the caller copies them)."""
    w32 = _scratch(s, P)
    Tc = T.copy()
    e = np.zeros(0, np.uint64)
    for w in range(P[6], P[7]):
        _zip_chunk(w, w32, Tc, s, P, bsh, dbs, sbs)
        kernel_tile(d32, w32, Tc, e, e, e)


@njit(cache=True, nogil=True)
def group_nt(d32, s, P, T, bsh, dbs, sbs):
    """As group_tile with non-temporal tiles (mode 2)."""
    w32 = _scratch(s, P)
    Tc = T.copy()
    e = np.zeros(0, np.uint64)
    for w in range(P[6], P[7]):
        _zip_chunk(w, w32, Tc, s, P, bsh, dbs, sbs)
        kernel_nt(d32, w32, Tc, e, e, e)
        kernel_edges(d32, w32, Tc, e, e, e)


@njit(cache=True, nogil=True)
def group_nt_ne(d32, s, P, T, bsh, dbs, sbs):
    """As group_nt without the stage-B edges (the caller copies them)."""
    w32 = _scratch(s, P)
    Tc = T.copy()
    e = np.zeros(0, np.uint64)
    for w in range(P[6], P[7]):
        _zip_chunk(w, w32, Tc, s, P, bsh, dbs, sbs)
        kernel_nt(d32, w32, Tc, e, e, e)


@njit(cache=True, nogil=True)
def group_split(d32, s, P, T, bsh, dbs, sbs):
    """As group_tile with straddling non-temporal tiles (mode 7)."""
    w32 = _scratch(s, P)
    Tc = T.copy()
    e = np.zeros(0, np.uint64)
    for w in range(P[6], P[7]):
        _zip_chunk(w, w32, Tc, s, P, bsh, dbs, sbs)
        kernel_split(d32, w32, Tc, e, e, e)
        kernel_edges(d32, w32, Tc, e, e, e)


@njit(cache=True, nogil=True)
def group_split_ne(d32, s, P, T, bsh, dbs, sbs):
    """As group_split without the stage-B edges (the caller copies them)."""
    w32 = _scratch(s, P)
    Tc = T.copy()
    e = np.zeros(0, np.uint64)
    for w in range(P[6], P[7]):
        _zip_chunk(w, w32, Tc, s, P, bsh, dbs, sbs)
        kernel_split(d32, w32, Tc, e, e, e)


#: one kernel per stage-B tile family (modes 1, 2, 7 of :mod:`.transpose`): a first call
#: compiles only the family it needs
GROUP_KERNELS = {1: group_tile, 2: group_nt, 7: group_split}
#: ... without the stage-B edges (``P[9] == 0``: the caller copies them, no kernel_edges compile)
GROUP_KERNELS_NE = {1: group_tile_ne, 2: group_nt_ne, 7: group_split_ne}


def group_kernel(d32, s, P, T, bsh, dbs, sbs):
    """Run the grouped kernel of the stage-B mode ``T[12]`` (1, 2 or 7); with the stage-B
    edges unless ``P[9] == 0`` (absent: with)."""
    ks = GROUP_KERNELS if P.shape[0] < 10 or P[9] else GROUP_KERNELS_NE
    ks[int(T[12])](d32, s, P, T, bsh, dbs, sbs)
