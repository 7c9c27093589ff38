"""Pure-Python planning of a strided copy: units, coalescing and dispatch.

No numba here.  A copy ``dst[...] = src`` of two same-shape views is reduced to
a few *axes* ``(n, dst_stride, src_stride)`` counted in units of a plain unsigned
integer type (uint8/16/32/64), size-1 axes dropped, axes that are contiguous in
both arrays merged, ordered outer to inner by the destination stride.  A
:class:`Plan` then names one of a few kernels:

``empty``     nothing to copy (a zero-size axis)
``scalar``    rank 0 after coalescing: one unit
``rows``      the innermost axis is the same for dst and src: loop over rows
``transpose`` dst-contiguous axis ``i`` differs from src-contiguous axis ``j``:
              ``dst[b*dB + j*dJ + i*dI] = src[b*sB + i*sI + j*sJ]``
``fallback``  negative or unaligned strides, object dtypes: ``np.copyto``

>>> import numpy as np
>>> x = np.zeros((2, 3, 4, 5), np.float32)             # NCHW
>>> p = make_plan(np.empty((2, 4, 5, 3), np.float32), x.transpose(0, 2, 3, 1))
>>> p.kind, p.unit, p.ni, p.nj, p.sI, p.dJ, p.batch
('transpose', dtype('uint32'), 3, 20, 20, 3, ((2, 60, 60),))
>>> coalesce([(4, 20, 20), (5, 4, 4), (1, 0, 7)])     # contiguous in both: one axis
[(20, 4, 4)]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["coalesce", "make_plan", "make_fill_plan", "Plan"]

_UNITS = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}


def coalesce(axes):
    """Drop size-1 axes, sort by (dst stride, src stride) descending, merge contiguous pairs.

    ``axes`` is a sequence of ``(n, dst_stride, src_stride)``; the result is a list in the
    same form, outer to inner, covering exactly the same pairs of offsets.

    >>> coalesce([(3, 1, 20), (4, 15, 5), (5, 3, 1)])   # NCHW viewed as NHWC, per image
    [(20, 3, 1), (3, 1, 20)]
    """
    ax = [(int(n), int(d), int(s)) for n, d, s in axes if n != 1]
    if any(n == 0 for n, _, _ in ax):
        return [(0, 0, 0)]
    ax.sort(key=lambda a: (a[1], a[2]), reverse=True)
    out = []
    for n, d, s in ax:
        if out:
            n0, d0, s0 = out[-1]
            if d0 == d * n and s0 == s * n:
                out[-1] = (n0 * n, d, s)
                continue
        out.append((n, d, s))
    return out


@dataclass(frozen=True)
class Plan:
    """A copy reduced to unit-typed axes.  Strides and offsets in units of ``unit``."""

    kind: str
    unit: np.dtype = None
    nbytes: int = 0          # bytes spanned by dst (what is written)
    dext: int = 0            # extent of dst/src in bytes from their first byte
    sext: int = 0
    # rows: inner axis (n, dI, sI) + outer axes; transpose: i/j axes + batch axes
    n: int = 0
    dI: int = 0
    sI: int = 0
    ni: int = 0
    nj: int = 0
    dJ: int = 0
    sJ: int = 0
    batch: tuple = ()        # ((n, dst_stride, src_stride), ...) outer to inner

    @property
    def nbatch(self):
        r = 1
        for n, _, _ in self.batch:
            r *= n
        return r


def _extent(shape, strides, itemsize):
    return sum((n - 1) * s for n, s in zip(shape, strides)) + itemsize


def _unit_size(itemsize, addrs, strides):
    g = itemsize
    for v in list(addrs) + list(strides):
        g = np.gcd(g, v) if v else g
    u = 8
    while u > 1 and g % u:
        u //= 2
    return u


def make_plan(dst, src):
    """Plan ``np.copyto(dst, src)`` for same-shape, same-dtype arrays; see the module doc."""
    shape = dst.shape
    if any(n == 0 for n in shape):
        return Plan("empty")
    dt = dst.dtype
    isz = dt.itemsize
    dst_st, src_st = dst.strides, src.strides
    if (dt.hasobject or isz == 0
            or any(s < 0 for n, s in zip(shape, dst_st) if n > 1)
            or any(s < 0 for n, s in zip(shape, src_st) if n > 1)
            or any(s == 0 for n, s in zip(shape, dst_st) if n > 1)):
        return Plan("fallback")
    big = [i for i, n in enumerate(shape) if n > 1]
    u = _unit_size(isz, (dst.ctypes.data, src.ctypes.data),
                   [dst_st[i] for i in big] + [src_st[i] for i in big])
    axes = [(shape[i], dst_st[i] // u, src_st[i] // u) for i in big]
    if isz > u:
        axes.append((isz // u, 1, 1))
    ax = coalesce(axes)
    common = dict(unit=_UNITS[u], nbytes=dst.size * isz,
                  dext=_extent(shape, dst_st, isz), sext=_extent(shape, src_st, isz))
    if not ax:
        return Plan("scalar", **common)
    # dst-innermost axis: last (smallest dst stride); src-innermost: smallest src stride
    ki = len(ax) - 1
    kj = min(range(len(ax)), key=lambda k: (ax[k][2], k != ki))
    if kj == ki or ax[kj][2] >= ax[ki][2]:
        n, d, s = ax[ki]
        return Plan("rows", n=n, dI=d, sI=s, batch=tuple(ax[:ki]), **common)
    ni, dI, sI = ax[ki]
    nj, dJ, sJ = ax[kj]
    batch = tuple(a for k, a in enumerate(ax) if k not in (ki, kj))
    return Plan("transpose", ni=ni, dI=dI, sI=sI, nj=nj, dJ=dJ, sJ=sJ, batch=batch, **common)


def make_fill_plan(dst):
    """Plan ``dst[...] = 0``: the rows plan of copying dst onto itself."""
    shape = dst.shape
    if any(n == 0 for n in shape):
        return Plan("empty")
    isz = dst.dtype.itemsize
    if dst.dtype.hasobject or any(s <= 0 for n, s in zip(shape, dst.strides) if n > 1):
        return Plan("fallback")
    big = [i for i, n in enumerate(shape) if n > 1]
    u = _unit_size(isz, (dst.ctypes.data,), [dst.strides[i] for i in big])
    axes = [(shape[i], dst.strides[i] // u, dst.strides[i] // u) for i in big]
    if isz > u:
        axes.append((isz // u, 1, 1))
    ax = coalesce(axes)
    ext = _extent(shape, dst.strides, isz)
    common = dict(unit=_UNITS[u], nbytes=dst.size * isz, dext=ext, sext=ext)
    if not ax:
        return Plan("scalar", **common)
    n, d, s = ax[-1]
    return Plan("rows", n=n, dI=d, sI=s, batch=tuple(ax[:-1]), **common)
