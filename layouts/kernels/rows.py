"""Row copies and zero fills on flat unsigned buffers (numba).

After coalescing, when dst and src share their innermost axis the copy is a set of
rows: ``dst[db + k*dI] = src[sb + k*sI]`` for ``k < n``, one row per outer index.
Outer indices ``[w0, w1)`` are walked with an odometer (one unravel per call).

``P``: d0, s0, n, dI, sI, w0, w1

>>> import numpy as np
>>> from layouts.kernels.rows import rows_kernel, fill_kernel
>>> s = np.arange(12, dtype=np.uint16); d = np.zeros(12, np.uint16)
>>> P = np.array([0, 0, 3, 1, 2, 0, 2], np.uint64)     # rows of 3, src step 2
>>> sh = np.array([2], np.uint64); ds = np.array([6], np.uint64); ss = np.array([6], np.uint64)
>>> rows_kernel(d, s, P, sh, ds, ss); d.tolist()
[0, 2, 4, 0, 0, 0, 6, 8, 10, 0, 0, 0]
>>> fill_kernel(s, np.array([0, 0, 3, 2, 2, 0, 2], np.uint64), sh, ss); s.tolist()
[0, 1, 0, 3, 0, 5, 0, 7, 0, 9, 0, 11]
"""

import numpy as np
from numba import njit

__all__ = ["rows_kernel", "fill_kernel"]

U0 = np.uint64(0)
U1 = np.uint64(1)


@njit(cache=True, nogil=True, inline="always")
def _start(w, d0, s0, osh, dos, sos, idx):
    db = d0
    sb = s0
    rem = w
    k = osh.shape[0]
    while k > 0:
        k -= 1
        n = osh[k]
        q = rem // n
        r = rem - q * n
        rem = q
        idx[k] = r
        db += r * dos[k]
        sb += r * sos[k]
    return db, sb


@njit(cache=True, nogil=True)
def rows_kernel(dst, src, P, osh, dos, sos):
    d0 = P[0]; s0 = P[1]; n = P[2]; dI = P[3]; sI = P[4]; w0 = P[5]; w1 = P[6]
    r = osh.shape[0]
    idx = np.zeros(max(r, 1), np.uint64)
    db, sb = _start(w0, d0, s0, osh, dos, sos, idx)
    for w in range(w0, w1):
        if dI == U1 and sI == U1:
            for k in range(n):
                dst[db + k] = src[sb + k]
        else:
            for k in range(n):
                dst[db + k * dI] = src[sb + k * sI]
        # odometer step
        k = r
        while k > 0:
            k -= 1
            idx[k] += U1
            db += dos[k]
            sb += sos[k]
            if idx[k] < osh[k]:
                break
            db -= idx[k] * dos[k]
            sb -= idx[k] * sos[k]
            idx[k] = U0


@njit(cache=True, nogil=True)
def fill_kernel(dst, P, osh, dos):
    d0 = P[0]; n = P[2]; dI = P[3]; w0 = P[5]; w1 = P[6]
    r = osh.shape[0]
    idx = np.zeros(max(r, 1), np.uint64)
    db, _ = _start(w0, d0, d0, osh, dos, dos, idx)
    z = dst[0] ^ dst[0]
    for w in range(w0, w1):
        if dI == U1:
            for k in range(n):
                dst[db + k] = z
        else:
            for k in range(n):
                dst[db + k * dI] = z
        k = r
        while k > 0:
            k -= 1
            idx[k] += U1
            db += dos[k]
            if idx[k] < osh[k]:
                break
            db -= idx[k] * dos[k]
            idx[k] = U0
