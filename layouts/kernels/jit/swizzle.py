"""The numba gather/scatter kernel of swizzled copies (CuTe's ``Swizzle<B, M, S>`` on either side),
run by the ``swizzle`` strategy of the registry (:mod:`.strategies.swizzle`).

``out[sw_d(od + dst(i))] = x[sw_s(os + src(i))]`` over the common modes of the two inner layouts,
each offset advanced by its stride (no division per element) and swizzled on the way.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["gather_scatter"]


@numba.njit(cache=True, nogil=True)
def _swz(v, mask, shift):
    y = v & mask
    if shift >= 0:
        return v ^ (y >> shift)
    return v ^ (y << -shift)


@numba.njit(cache=True, nogil=True)
def _run(out, x, shape, sstr, dstr, so, sm, ss, do, dm, ds):
    # shape/strides padded to >= 2 dims; the two innermost dims are plain loops, the rest an odometer
    nd = shape.size
    n1, n0 = shape[nd - 2], shape[nd - 1]
    s1, s0 = sstr[nd - 2], sstr[nd - 1]
    d1, d0 = dstr[nd - 2], dstr[nd - 1]
    outer = 1
    for k in range(nd - 2):
        outer *= shape[k]
    idx = np.zeros(nd, np.int64)
    for _ in range(outer):
        a1 = so
        b1 = do
        for k in range(nd - 2):
            a1 += idx[k] * sstr[k]
            b1 += idx[k] * dstr[k]
        for i in range(n1):
            a = a1 + i * s1
            b = b1 + i * d1
            for j in range(n0):
                out[_swz(b, dm, ds)] = x[_swz(a, sm, ss)]
                a += s0
                b += d0
        k = nd - 3
        while k >= 0:
            idx[k] += 1
            if idx[k] < shape[k]:
                break
            idx[k] = 0
            k -= 1


def gather_scatter(out, x, shape, sstr, dstr, so, sm, ss, do, dm, ds):
    """Run the kernel: ``shape``/``sstr``/``dstr`` int64 arrays (slowest mode first), then the
    offset, mask and shift of the source's and the destination's swizzle (mask 0: none).

    >>> out = np.zeros(4, np.int64)
    >>> gather_scatter(out, np.arange(4), np.array([4]), np.array([1]), np.array([1]), 0, 0, 0, 0, 2, 1)
    >>> out.tolist()   # Swizzle(1, 0, 1) on the destination
    [0, 1, 3, 2]
    """
    if shape.size < 2:
        shape = np.concatenate([np.ones(1, np.int64), shape])
        sstr = np.concatenate([np.zeros(1, np.int64), sstr])
        dstr = np.concatenate([np.zeros(1, np.int64), dstr])
    _run(out, x, shape, sstr, dstr, np.int64(so), np.int64(sm), np.int64(ss), np.int64(do), np.int64(dm), np.int64(ds))
