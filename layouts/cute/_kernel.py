"""The numba gather/scatter kernel of swizzled CuTe layouts (imported only when one is converted).

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
    nd = shape.size
    inner = shape[nd - 1]
    si = sstr[nd - 1]
    di = dstr[nd - 1]
    outer = 1
    for k in range(nd - 1):
        outer *= shape[k]
    idx = np.zeros(nd, np.int64)
    for _ in range(outer):
        a = so
        b = do
        for k in range(nd - 1):
            a += idx[k] * sstr[k]
            b += idx[k] * dstr[k]
        for j in range(inner):
            out[_swz(b, dm, ds)] = x[_swz(a, sm, ss)]
            a += si
            b += di
        k = nd - 2
        while k >= 0:
            idx[k] += 1
            if idx[k] < shape[k]:
                break
            idx[k] = 0
            k -= 1


def gather_scatter(out, x, shape, sstr, dstr, so, sm, ss, do, dm, ds):
    """Run the kernel: ``shape``/``sstr``/``dstr`` int64 arrays (slowest mode first), then the
    offset, mask and shift of the source's and the destination's swizzle (mask 0: none)."""
    _run(out, x, shape, sstr, dstr, np.int64(so), np.int64(sm), np.int64(ss), np.int64(do), np.int64(dm), np.int64(ds))
