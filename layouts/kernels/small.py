"""Small channel counts: (de)interleave loops with a constant count (numba).

A transpose whose dst-contiguous axis has 2, 3 or 4 elements (NCHW->NHWC with C=3) or whose
src-contiguous axis has 2, 3 or 4 elements (NHWC->NCHW with C=3) is a plain (de)interleave;
with the count a compile-time constant LLVM's loop vectoriser turns it into vector shuffles,
where a tile transpose would waste almost all of each tile.

    interleave_kernel:    dst[db + j*C + c] = src[sb + c*stride + j]     (dst rows of C)
    deinterleave_kernel:  dst[db + c*stride + i] = src[sb + i*C + c]     (src rows of C)

``args``: a :data:`.records.SMALL` record; work item = (batch index, chunk of the long axis).

>>> import numpy as np
>>> from layouts.kernels.records import record, batch_axes, SMALL
>>> s = np.arange(12, dtype=np.uint8); d = np.zeros(12, np.uint8)
>>> a = record(SMALL, C=3, n=4, stride=4, chunk=4096)
>>> interleave_kernel(d, s, a, batch_axes([]), np.uint64(0), np.uint64(1))
>>> d.tolist()          # planes of 4 (C=3) -> pixels of 3
[0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]
"""

import numpy as np
from numba import njit

from .transpose import batch_offsets

__all__ = ["interleave_kernel", "deinterleave_kernel"]

U1 = np.uint64(1)
U2 = np.uint64(2)
U3 = np.uint64(3)
U4 = np.uint64(4)


@njit(cache=True, nogil=True, inline="always")
def _chunk(w, a, batch):
    nch = (a.n + a.chunk - U1) // a.chunk
    b = w // nch
    k0 = (w - b * nch) * a.chunk
    db, sb = batch_offsets(b, batch)
    return db, sb, k0, min(k0 + a.chunk, a.n)


@njit(cache=True, nogil=True)
def interleave_kernel(dst, src, args, batch, w0, w1):
    a = args[0]
    st = a.stride
    for w in range(w0, w1):
        db, sb, k0, k1 = _chunk(w, a, batch)
        if a.C == U3:
            for j in range(k0, k1):
                dst[db + j * U3] = src[sb + j]
                dst[db + j * U3 + U1] = src[sb + st + j]
                dst[db + j * U3 + U2] = src[sb + U2 * st + j]
        elif a.C == U4:
            for j in range(k0, k1):
                dst[db + j * U4] = src[sb + j]
                dst[db + j * U4 + U1] = src[sb + st + j]
                dst[db + j * U4 + U2] = src[sb + U2 * st + j]
                dst[db + j * U4 + U3] = src[sb + U3 * st + j]
        else:
            for j in range(k0, k1):
                dst[db + j * U2] = src[sb + j]
                dst[db + j * U2 + U1] = src[sb + st + j]


@njit(cache=True, nogil=True)
def deinterleave_kernel(dst, src, args, batch, w0, w1):
    a = args[0]
    st = a.stride
    for w in range(w0, w1):
        db, sb, k0, k1 = _chunk(w, a, batch)
        if a.C == U3:
            for i in range(k0, k1):
                dst[db + i] = src[sb + i * U3]
                dst[db + st + i] = src[sb + i * U3 + U1]
                dst[db + U2 * st + i] = src[sb + i * U3 + U2]
        elif a.C == U4:
            for i in range(k0, k1):
                dst[db + i] = src[sb + i * U4]
                dst[db + st + i] = src[sb + i * U4 + U1]
                dst[db + U2 * st + i] = src[sb + i * U4 + U2]
                dst[db + U3 * st + i] = src[sb + i * U4 + U3]
        else:
            for i in range(k0, k1):
                dst[db + i] = src[sb + i * U2]
                dst[db + st + i] = src[sb + i * U2 + U1]
