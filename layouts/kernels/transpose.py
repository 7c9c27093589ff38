"""Cache-blocked strided transpose on flat unsigned buffers (numba).

One driver serves every direction (NCHW<->NHWC, ->CHWN, ->NCHW16c, ...):

    dst[db + j*dJ + i*dI] = src[sb + i*sI + j*sJ]      for every batch index b

with runtime strides in units, so it is compiled once per unit type (uint8/16/32/64),
never per shape.  Work items are ``(batch index, block of i)`` pairs; a call does the
items ``[w0, w1)`` so that Python threads can split the work (the kernels release the GIL).

``P`` (uint64 parameter vector): d0, s0, ni, nj, dI, dJ, sI, sJ, w0, w1, Bi, Bj, mode, peel,
TI, TL (SIMD tile: TI rows of i by TL columns of j; see ``simd.TILE_SHAPE``), (unused).
Each mode is its own kernel (``KERNELS[mode]``) so that a first call compiles only the
tile family it needs; ``transpose_kernel`` dispatches on ``P[12]``.
``mode``: 0 plain scalar blocks, 1 SIMD tiles, 2 SIMD tiles with non-temporal stores,
3 / 4 narrow SIMD tiles of 1 / 2 groups (``simd.tile_k1`` / ``tile_k2``), 7 as 2 for dst rows
that follow each other (dJ == ni, ni a multiple of TI, one i-block) with peel != 0: the line
straddling rows j and j+1 is one ``tile_nt_split``, so a 16-byte aligned out= streams as well
as a 64-byte aligned one
(requires dI == sJ == 1); tiles start at i = ``peel`` (mod TI): the first i whose dst
address is 64-byte aligned in every row (mode 2 needs that; mode 1 may use 0).

>>> import numpy as np
>>> from layouts.kernels.transpose import transpose_kernel, make_params
>>> s = np.arange(6 * 5, dtype=np.uint32); d = np.zeros(30, np.uint32)
>>> P = make_params(0, 0, 6, 5, 1, 6, 5, 1, 0, 1, 64, 64, 0, 0, 1, 1, 0)  # d[j*6+i] = s[i*5+j]
>>> e = np.zeros(0, np.uint64)
>>> transpose_kernel(d, s, P, e, e, e)
>>> bool((d.reshape(5, 6) == s.reshape(6, 5).T).all())
True
"""

import numpy as np
from numba import njit

from .simd import tile, tile_k1, tile_k2, tile_nt, tile_nt_split

__all__ = ["transpose_kernel", "KERNELS", "kernel_edges", "make_params", "batch_offsets"]

U0 = np.uint64(0)
U1 = np.uint64(1)
M3 = np.uint64(3)
M4 = np.uint64(4)
M7 = np.uint64(7)


def make_params(*vals):
    return np.array(vals, dtype=np.uint64)


@njit(cache=True, nogil=True, inline="always")
def batch_offsets(b, d0, s0, bsh, dbs, sbs):
    """Offsets of flat batch index ``b`` (C order over ``bsh``)."""
    db = d0
    sb = s0
    rem = b
    k = bsh.shape[0]
    while k > 0:
        k -= 1
        n = bsh[k]
        q = rem // n
        r = rem - q * n
        rem = q
        db += r * dbs[k]
        sb += r * sbs[k]
    return db, sb


@njit(cache=True, nogil=True, inline="always")
def _scalar_block(dst, src, db, sb, i0, i1, j0, j1, dI, dJ, sI, sJ):
    for i in range(i0, i1):
        dr = db + i * dI
        sr = sb + i * sI
        for j in range(j0, j1):
            dst[dr + j * dJ] = src[sr + j * sJ]


@njit(cache=True, nogil=True, inline="always")
def _work(w, P, bsh, dbs, sbs):
    """Offsets and the i-range of work item ``w``; SIMD tile bounds ia, ie, je."""
    ni = P[2]; nj = P[3]; Bi = P[10]; peel = P[13]; TI = P[14]; TL = P[15]
    nbi = (ni + Bi - U1) // Bi
    b = w // nbi
    ib = w - b * nbi
    db, sb = batch_offsets(b, P[0], P[1], bsh, dbs, sbs)
    i0 = ib * Bi
    i1 = min(i0 + Bi, ni)
    ia = min(i0 + (peel + TI - i0 % TI) % TI, i1)    # first i >= i0 with i = peel (mod TI)
    ie = ia + ((i1 - ia) // TI) * TI
    je = (nj // TL) * TL
    return db, sb, i0, i1, ia, ie, je


@njit(cache=True, nogil=True)
def kernel_plain(dst, src, P, bsh, dbs, sbs):
    """mode 0: scalar cache blocks, any strides."""
    ni = P[2]; nj = P[3]; dI = P[4]; dJ = P[5]; sI = P[6]; sJ = P[7]
    w0 = P[8]; w1 = P[9]; Bi = P[10]; Bj = P[11]
    nbi = (ni + Bi - U1) // Bi
    for w in range(w0, w1):
        b = w // nbi
        ib = w - b * nbi
        db, sb = batch_offsets(b, P[0], P[1], bsh, dbs, sbs)
        i0 = ib * Bi
        i1 = min(i0 + Bi, ni)
        for j0 in range(U0, nj, Bj):
            j1 = min(j0 + Bj, nj)
            _scalar_block(dst, src, db, sb, i0, i1, j0, j1, dI, dJ, sI, sJ)


# kernel_tile / kernel_nt / kernel_k1 / kernel_k2 share one loop nest around a different tile
# intrinsic. Each is its own dispatcher so a first call compiles one family only (~0.4 s of LLVM
# each); a factory of closures would not be served from the on-disk cache (see grouped.py).
@njit(cache=True, nogil=True)
def kernel_tile(dst, src, P, bsh, dbs, sbs):
    """mode 1: full SIMD tiles, plain stores."""
    dJ = P[5]; sI = P[6]; Bj = P[11]; TI = P[14]; TL = P[15]
    for w in range(P[8], P[9]):
        db, sb, i0, i1, ia, ie, je = _work(w, P, bsh, dbs, sbs)
        for j0 in range(U0, je, Bj):
            j1 = min(j0 + Bj, je)
            for i in range(ia, ie, TI):
                for j in range(j0, j1, TL):
                    tile(dst, db + i + j * dJ, dJ, src, sb + i * sI + j, sI)


@njit(cache=True, nogil=True)
def kernel_nt(dst, src, P, bsh, dbs, sbs):
    """mode 2: full SIMD tiles, non-temporal 64-byte aligned stores."""
    dJ = P[5]; sI = P[6]; Bj = P[11]; TI = P[14]; TL = P[15]
    for w in range(P[8], P[9]):
        db, sb, i0, i1, ia, ie, je = _work(w, P, bsh, dbs, sbs)
        for j0 in range(U0, je, Bj):
            j1 = min(j0 + Bj, je)
            for i in range(ia, ie, TI):
                for j in range(j0, j1, TL):
                    tile_nt(dst, db + i + j * dJ, dJ, src, sb + i * sI + j, sI)


@njit(cache=True, nogil=True)
def kernel_k1(dst, src, P, bsh, dbs, sbs):
    """mode 3: narrow tiles of one group (L rows of i)."""
    dJ = P[5]; sI = P[6]; Bj = P[11]; TI = P[14]; TL = P[15]
    for w in range(P[8], P[9]):
        db, sb, i0, i1, ia, ie, je = _work(w, P, bsh, dbs, sbs)
        for j0 in range(U0, je, Bj):
            j1 = min(j0 + Bj, je)
            for i in range(ia, ie, TI):
                for j in range(j0, j1, TL):
                    tile_k1(dst, db + i + j * dJ, dJ, src, sb + i * sI + j, sI)


@njit(cache=True, nogil=True)
def kernel_k2(dst, src, P, bsh, dbs, sbs):
    """mode 4: narrow tiles of two groups (2L rows of i)."""
    dJ = P[5]; sI = P[6]; Bj = P[11]; TI = P[14]; TL = P[15]
    for w in range(P[8], P[9]):
        db, sb, i0, i1, ia, ie, je = _work(w, P, bsh, dbs, sbs)
        for j0 in range(U0, je, Bj):
            j1 = min(j0 + Bj, je)
            for i in range(ia, ie, TI):
                for j in range(j0, j1, TL):
                    tile_k2(dst, db + i + j * dJ, dJ, src, sb + i * sI + j, sI)


@njit(cache=True, nogil=True)
def kernel_edges(dst, src, P, bsh, dbs, sbs):
    """Everything of work items [w0, w1) outside their full tiles (SIMD modes, dI == sJ == 1);
    run after the mode's tile kernel on the same items.  Its own kernel, shared by every tile
    family, with one scalar loop nest (few call sites keep numba's first compile short).
    i-edges as wide as a multiple of TL take narrow SIMD tiles (modes 1-4)."""
    nj = P[3]; dJ = P[5]; sI = P[6]; mode = P[12]; TL = P[15]
    m7 = mode == M7
    js = ((nj - U1) // TL) * TL
    for w in range(P[8], P[9]):
        db, sb, i0, i1, ia, ie, je = _work(w, P, bsh, dbs, sbs)
        for r in range(4):
            if r == 0:
                a0 = ie if m7 else i0
                a1 = i1 if m7 else ia
                b0 = js if m7 else U0
            elif r == 1:
                a0 = i0 if m7 else ie
                a1 = ia if m7 else i1
                b0 = U0
            elif r == 2:
                a0 = i0
                a1 = ia if m7 else i0
                b0 = js + U1
            else:
                a0 = ia
                a1 = ie
                b0 = je
            b1 = U1 if (m7 and r == 1) else nj
            if a1 <= a0 or b1 <= b0:
                continue
            if not m7 and r < 2 and (a1 - a0) % TL == U0:
                for i in range(a0, a1, TL):
                    for j in range(U0, je, TL):
                        tile_k1(dst, db + i + j * dJ, dJ, src, sb + i * sI + j, sI)
                b0 = je
            for i in range(a0, a1):
                dr = db + i
                sr = sb + i * sI
                for j in range(b0, b1):
                    dst[dr + j * dJ] = src[sr + j]


@njit(cache=True, nogil=True)
def kernel_split(dst, src, P, bsh, dbs, sbs):
    """mode 7: as mode 2 for dst rows that follow each other, with straddling tiles."""
    nj = P[3]; dJ = P[5]; sI = P[6]; Bj = P[11]; TI = P[14]; TL = P[15]
    for w in range(P[8], P[9]):
        db, sb, i0, i1, ia, ie, je = _work(w, P, bsh, dbs, sbs)
        js = ((nj - U1) // TL) * TL
        nsp = i1 - ie
        for j0 in range(U0, je, Bj):
            j1 = min(j0 + Bj, je)
            for i in range(ia, ie, TI):
                for j in range(j0, j1, TL):
                    tile_nt(dst, db + i + j * dJ, dJ, src, sb + i * sI + j, sI)
            for j in range(j0, min(j1, js), TL):      # tail of row j + head of row j+1
                tile_nt_split(dst, db + ie + j * dJ, dJ, src, sb + ie * sI + j, sI, sb + j + U1, nsp)


#: kernel per mode; a first call compiles only the family it needs
KERNELS = {0: kernel_plain, 1: kernel_tile, 2: kernel_nt, 3: kernel_k1, 4: kernel_k2, 7: kernel_split}


def transpose_kernel(dst, src, P, bsh, dbs, sbs):
    """Run the kernel of mode ``P[12]`` (see the module doc), then its edges."""
    KERNELS[int(P[12])](dst, src, P, bsh, dbs, sbs)
    if int(P[12]):
        kernel_edges(dst, src, P, bsh, dbs, sbs)
