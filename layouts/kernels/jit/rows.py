"""Row copies and zero fills on flat unsigned buffers (numba).

After coalescing, when dst and src share their innermost axis the copy is a set of rows:
``dst[db + k*dI] = src[sb + k*sI]`` for ``k < n``, one row per batch index. Batch indices
``[w0, w1)`` are walked with an odometer (one unravel per call). ``args`` is a
:data:`.records.ROWS` record, ``batch`` the :data:`.records.BATCH` axes.

>>> import numpy as np
>>> from layouts.kernels.records import record, batch_axes, ROWS
>>> s = np.arange(12, dtype=np.uint16); d = np.zeros(12, np.uint16)
>>> b = batch_axes([(2, 6, 6)])
>>> rows_kernel(d, s, record(ROWS, n=3, dI=1, sI=2), b, np.uint64(0), np.uint64(2)); d.tolist()
[0, 2, 4, 0, 0, 0, 6, 8, 10, 0, 0, 0]
>>> fill_kernel(s, record(ROWS, n=3, dI=2, sI=2), b, np.uint64(0), np.uint64(2)); s.tolist()
[0, 1, 0, 3, 0, 5, 0, 7, 0, 9, 0, 11]
"""

import numpy as np
from numba import njit

__all__ = ["rows_kernel", "fill_kernel"]

U0 = np.uint64(0)
U1 = np.uint64(1)


@njit(cache=True, nogil=True, inline="always")
def _start(w, batch, idx):
    """Offsets of batch index ``w``; its digits into ``idx`` (the odometer)."""
    db = U0
    sb = U0
    rem = w
    k = batch.shape[0]
    while k > 0:
        k -= 1
        ax = batch[k]
        q = rem // ax.n
        r = rem - q * ax.n
        rem = q
        idx[k] = r
        db += r * ax.d
        sb += r * ax.s
    return db, sb


@njit(cache=True, nogil=True, inline="always")
def _step(batch, idx, db, sb):
    """The odometer's next batch index: its offsets."""
    k = batch.shape[0]
    while k > 0:
        k -= 1
        ax = batch[k]
        idx[k] += U1
        db += ax.d
        sb += ax.s
        if idx[k] < ax.n:
            break
        db -= idx[k] * ax.d
        sb -= idx[k] * ax.s
        idx[k] = U0
    return db, sb


@njit(cache=True, nogil=True)
def rows_kernel(dst, src, args, batch, w0, w1):
    a = args[0]
    idx = np.zeros(max(batch.shape[0], 1), np.uint64)
    db, sb = _start(w0, batch, idx)
    for w in range(w0, w1):
        if a.dI == U1 and a.sI == U1:
            for k in range(a.n):
                dst[db + k] = src[sb + k]
        else:
            for k in range(a.n):
                dst[db + k * a.dI] = src[sb + k * a.sI]
        db, sb = _step(batch, idx, db, sb)


@njit(cache=True, nogil=True)
def fill_kernel(dst, args, batch, w0, w1):
    """Zero rows of ``dst`` (the batch's dst strides; ``args.dI`` the row step)."""
    a = args[0]
    idx = np.zeros(max(batch.shape[0], 1), np.uint64)
    db, _ = _start(w0, batch, idx)
    z = dst[0] ^ dst[0]
    for w in range(w0, w1):
        if a.dI == U1:
            for k in range(a.n):
                dst[db + k] = z
        else:
            for k in range(a.n):
                dst[db + k * a.dI] = z
        db, _ = _step(batch, idx, db, db)
