"""The numba kernels behind ``LinearLayout.apply`` on large arrays: one pass over the inputs.

Each input value indexes its in-dim's table of packed outputs (all out-dims' bits in one int64);
the XOR of the lookups is split into the out-dims by shift and mask, and a value outside its
in-dim stops the pass (the caller names it). One kernel per number of array inputs keeps the
call on numba's fast path for plain arrays (a tuple of arrays is typed in Python, far slower).
Imported only when an apply is large enough to amortise numba (see :mod:`.apply`).

>>> import numpy as np
>>> t0, t1 = np.array([0, 5], np.int64), np.array([0, 2], np.int64)
>>> out = np.empty((2, 4), np.int64)
>>> apply2(t0, np.array([0, 1, 0, 1]), t1, np.array([0, 0, 1, 1]), np.array([0, 2]), np.array([3, 3]), out)
-1
>>> out.tolist()
[[0, 1, 2, 3], [0, 1, 0, 1]]
"""

import numpy as np  # noqa: F401 - the examples use np
from numba import njit

__all__ = ["KERNELS"]


@njit(cache=True, nogil=True, inline="always")
def _store(p, i, shifts, masks, out):
    if out.shape[0] == 2:         # the common 2-D tile: straight-line stores
        out[0, i] = (p >> shifts[0]) & masks[0]
        out[1, i] = (p >> shifts[1]) & masks[1]
    else:
        for k in range(out.shape[0]):
            out[k, i] = (p >> shifts[k]) & masks[k]


@njit(cache=True, nogil=True)
def apply1(t0, v0, shifts, masks, out):
    n0 = t0.size
    for i in range(v0.size):
        a = v0[i]
        if a < 0 or a >= n0:
            return i
        _store(t0[a], i, shifts, masks, out)
    return -1


@njit(cache=True, nogil=True)
def apply2(t0, v0, t1, v1, shifts, masks, out):
    n0, n1 = t0.size, t1.size
    for i in range(v0.size):
        a, b = v0[i], v1[i]
        if a < 0 or a >= n0 or b < 0 or b >= n1:
            return i
        _store(t0[a] ^ t1[b], i, shifts, masks, out)
    return -1


@njit(cache=True, nogil=True)
def apply3(t0, v0, t1, v1, t2, v2, shifts, masks, out):
    n0, n1, n2 = t0.size, t1.size, t2.size
    for i in range(v0.size):
        a, b, c = v0[i], v1[i], v2[i]
        if a < 0 or a >= n0 or b < 0 or b >= n1 or c < 0 or c >= n2:
            return i
        _store(t0[a] ^ t1[b] ^ t2[c], i, shifts, masks, out)
    return -1


@njit(cache=True, nogil=True)
def apply4(t0, v0, t1, v1, t2, v2, t3, v3, shifts, masks, out):
    n0, n1, n2, n3 = t0.size, t1.size, t2.size, t3.size
    for i in range(v0.size):
        a, b, c, d = v0[i], v1[i], v2[i], v3[i]
        if a < 0 or a >= n0 or b < 0 or b >= n1 or c < 0 or c >= n2 or d < 0 or d >= n3:
            return i
        _store(t0[a] ^ t1[b] ^ t2[c] ^ t3[d], i, shifts, masks, out)
    return -1


KERNELS = {1: apply1, 2: apply2, 3: apply3, 4: apply4}
