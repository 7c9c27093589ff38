"""Small channel counts: (de)interleave loops with a constant count (numba).

A transpose whose dst-contiguous axis has 2, 3 or 4 elements (NCHW->NHWC with C=3) or whose
src-contiguous axis has 2, 3 or 4 elements (NHWC->NCHW with C=3) is a plain (de)interleave;
with the count a compile-time constant LLVM's loop vectoriser turns it into vector shuffles,
where a tile transpose would waste almost all of each tile.

    interleave_kernel:    dst[db + j*C + c] = src[sb + c*stride + j]     (dst rows of C)
    deinterleave_kernel:  dst[db + c*stride + i] = src[sb + i*C + c]     (src rows of C)

The ``_nt`` kernels are for outputs too large to stay cached: they (de)interleave ``block``
elements of the long axis into a scratch that stays in L1 and copy it out in whole cache lines
with non-temporal stores, so the output is written without being read first.

``args``: a :data:`.records.SMALL` record; work item = (batch index, chunk of the long axis).

>>> import numpy as np
>>> from layouts.kernels.records import record, batch_axes, SMALL
>>> s = np.arange(12, dtype=np.uint8); d = np.zeros(12, np.uint8)
>>> a = record(SMALL, C=3, n=4, stride=4, chunk=4096, block=64)
>>> interleave_kernel(d, s, a, batch_axes([]), np.uint64(0), np.uint64(1))
>>> d.tolist()          # planes of 4 (C=3) -> pixels of 3
[0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]
"""

import numpy as np
from numba import njit

from .simd import nt_line
from .transpose import batch_offsets

__all__ = ["interleave_kernel", "deinterleave_kernel", "interleave_nt_kernel", "deinterleave_nt_kernel"]

U0 = np.uint64(0)
U1 = np.uint64(1)
U2 = np.uint64(2)
U3 = np.uint64(3)
U4 = np.uint64(4)
LINE = np.uint64(64)


@njit(cache=True, nogil=True, inline="always")
def _chunk(w, a, batch):
    nch = (a.n + a.chunk - U1) // a.chunk
    b = w // nch
    k0 = (w - b * nch) * a.chunk
    db, sb = batch_offsets(b, batch)
    return db, sb, k0, min(k0 + a.chunk, a.n)


@njit(cache=True, nogil=True, inline="always")
def _pack(dst, d0, src, s0, st, m, C):
    """dst[d0 + j*C + c] = src[s0 + c*st + j] for j < m: C planes into rows of C."""
    if C == U3:
        for j in range(m):
            dst[d0 + j * U3] = src[s0 + j]
            dst[d0 + j * U3 + U1] = src[s0 + st + j]
            dst[d0 + j * U3 + U2] = src[s0 + U2 * st + j]
    elif C == U4:
        for j in range(m):
            dst[d0 + j * U4] = src[s0 + j]
            dst[d0 + j * U4 + U1] = src[s0 + st + j]
            dst[d0 + j * U4 + U2] = src[s0 + U2 * st + j]
            dst[d0 + j * U4 + U3] = src[s0 + U3 * st + j]
    else:
        for j in range(m):
            dst[d0 + j * U2] = src[s0 + j]
            dst[d0 + j * U2 + U1] = src[s0 + st + j]


@njit(cache=True, nogil=True, inline="always")
def _unpack(dst, d0, st, src, s0, m, C):
    """dst[d0 + c*st + i] = src[s0 + i*C + c] for i < m: rows of C into C planes."""
    if C == U3:
        for i in range(m):
            dst[d0 + i] = src[s0 + i * U3]
            dst[d0 + st + i] = src[s0 + i * U3 + U1]
            dst[d0 + U2 * st + i] = src[s0 + i * U3 + U2]
    elif C == U4:
        for i in range(m):
            dst[d0 + i] = src[s0 + i * U4]
            dst[d0 + st + i] = src[s0 + i * U4 + U1]
            dst[d0 + U2 * st + i] = src[s0 + i * U4 + U2]
            dst[d0 + U3 * st + i] = src[s0 + i * U4 + U3]
    else:
        for i in range(m):
            dst[d0 + i] = src[s0 + i * U2]
            dst[d0 + st + i] = src[s0 + i * U2 + U1]


@njit(cache=True, nogil=True, inline="always")
def _stream(dst, d0, src, s0, m, addr):
    """dst[d0:d0+m] = src[s0:s0+m], the whole cache lines of dst with non-temporal stores and
    the partial ones at either end with plain stores; ``addr``: dst's address."""
    isz = np.uint64(dst.itemsize)
    lu = LINE // isz
    head = min((LINE - (addr + d0 * isz) % LINE) % LINE // isz, m)
    for k in range(head):
        dst[d0 + k] = src[s0 + k]
    k = head
    while k + lu <= m:
        nt_line(dst, d0 + k, src, s0 + k)
        k += lu
    for q in range(k, m):
        dst[d0 + q] = src[s0 + q]


@njit(cache=True, nogil=True)
def interleave_kernel(dst, src, args, batch, w0, w1):
    a = args[0]
    for w in range(w0, w1):
        db, sb, k0, k1 = _chunk(w, a, batch)
        _pack(dst, db + k0 * a.C, src, sb + k0, a.stride, k1 - k0, a.C)


@njit(cache=True, nogil=True)
def deinterleave_kernel(dst, src, args, batch, w0, w1):
    a = args[0]
    for w in range(w0, w1):
        db, sb, k0, k1 = _chunk(w, a, batch)
        _unpack(dst, db + k0, a.stride, src, sb + k0 * a.C, k1 - k0, a.C)


@njit(cache=True, nogil=True, inline="always")
def _staged_nt(dst, src, args, batch, w0, w1, planar_dst):
    """The ``_nt`` kernels: per block of ``a.block`` elements of the long axis, (de)interleave
    into an L1 scratch, then stream it out (one run of dst rows of C, or C runs, one a plane)."""
    a = args[0]
    C = a.C
    blk = a.block
    stage = np.empty(blk * C, dst.dtype)
    addr = np.uint64(dst.ctypes.data)
    for w in range(w0, w1):
        db, sb, k0, k1 = _chunk(w, a, batch)
        for k in range(k0, k1, blk):
            m = min(blk, k1 - k)
            if planar_dst:
                _unpack(stage, U0, blk, src, sb + k * C, m, C)
                for c in range(C):
                    _stream(dst, db + c * a.stride + k, stage, c * blk, m, addr)
            else:
                _pack(stage, U0, src, sb + k, a.stride, m, C)
                _stream(dst, db + k * C, stage, U0, m * C, addr)


@njit(cache=True, nogil=True)
def interleave_nt_kernel(dst, src, args, batch, w0, w1):
    _staged_nt(dst, src, args, batch, w0, w1, False)


@njit(cache=True, nogil=True)
def deinterleave_nt_kernel(dst, src, args, batch, w0, w1):
    _staged_nt(dst, src, args, batch, w0, w1, True)
