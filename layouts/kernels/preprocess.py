"""One fused pass for image preprocessing: HWC (any strides) -> normalised float32 tensor.

``out[n, perm[c], h, w] = (float32(src[n, h, w, c]) - mean[perm[c]]) * scale[perm[c]]``, written
through the destination's element strides (NCHW, NHWC or any order of the four axes), in one read
of the source and one write of the output: the work of ``cv2.dnn.blobFromImages`` without its
intermediate copies. ``perm`` is the channel permutation (``swapRB``: 0 <-> 2); ``mean`` and
``scale`` are given in output channel order, as OpenCV takes them.

Imported lazily (by :func:`layouts.interop.opencv.blob_from_images`); compiles one kernel per
(channel count, source dtype) on first use and caches it on disk (numba keys a cached closure
by its captured channel count, so each C has its own entry). All index arithmetic is unsigned 64-bit (numba adds
no negative-index wrap checks then, which keeps the loops vectorisable); a negative stride is
passed as its two's complement and wraps back, as unsigned arithmetic does.

>>> import numpy as np
>>> img = np.arange(2 * 2 * 3, dtype=np.uint8).reshape(1, 2, 2, 3)
>>> out = np.empty((1, 3, 2, 2), np.float32)
>>> normalize_into(out, img, mean=[1, 0, 0], scale=[1, 1, 1], perm=[0, 1, 2])
>>> out[0, 0].tolist()
[[-1.0, 2.0], [5.0, 8.0]]
"""

from __future__ import annotations

import functools

import numba
import numpy as np

from .pool import run_split, thread_count

_U = np.uint64


@functools.lru_cache(maxsize=None)
def _kernel(C: int):
    """The row kernel for ``C`` channels (a compile-time constant, so the channel loop unrolls)."""
    c_u = _U(C)

    @numba.njit(nogil=True, cache=True)
    def rows(src, soffs, shs, sws, scs, dst, dn, dc, dh, dw, H, W, r0, r1, mean, scale, perm):
        one = _U(1)
        zero = _U(0)
        # destination channel offsets (dc * perm[c]) and per-channel constants, hoisted
        m = np.empty(C, np.float32)
        k = np.empty(C, np.float32)
        doff = np.empty(C, np.uint64)
        for c in range(C):
            p = perm[c]
            m[c] = mean[p]
            k[c] = scale[p]
            doff[c] = dc * _U(p)
        for r in range(r0, r1):
            ru = _U(r)
            n = ru // H
            h = ru - n * H
            sh = shs[n]
            sw = sws[n]
            sc = scs[n]
            sbase = soffs[n] + h * sh
            dbase = n * dn + h * dh
            if dw == one and sc == one and sw == c_u:
                # planar output, interleaved pixels: NCHW from an HWC row (the common case; ROIs
                # too, whose rows are only further apart). One pass over the pixels reading all C
                # channels (an interleaved group LLVM vectorises with shuffles) into C planes,
                # per-channel constants in scalars: one loop per channel with a stride-C read
                # does not vectorise for C=4 (0.48 ms for 8x224x224x4 against 0.22 now)
                d0 = dbase + doff[0]
                m0 = m[0]
                k0 = k[0]
                if C == 1:
                    for w in range(W):
                        wu = _U(w)
                        dst[d0 + wu] = (np.float32(src[sbase + wu]) - m0) * k0
                elif C == 3:
                    d1 = dbase + doff[1]
                    d2 = dbase + doff[2]
                    m1 = m[1]
                    k1 = k[1]
                    m2 = m[2]
                    k2 = k[2]
                    for w in range(W):
                        wu = _U(w)
                        s = sbase + wu * c_u
                        dst[d0 + wu] = (np.float32(src[s]) - m0) * k0
                        dst[d1 + wu] = (np.float32(src[s + one]) - m1) * k1
                        dst[d2 + wu] = (np.float32(src[s + _U(2)]) - m2) * k2
                elif C == 4:
                    d1 = dbase + doff[1]
                    d2 = dbase + doff[2]
                    d3 = dbase + doff[3]
                    m1 = m[1]
                    k1 = k[1]
                    m2 = m[2]
                    k2 = k[2]
                    m3 = m[3]
                    k3 = k[3]
                    for w in range(W):
                        wu = _U(w)
                        s = sbase + wu * c_u
                        dst[d0 + wu] = (np.float32(src[s]) - m0) * k0
                        dst[d1 + wu] = (np.float32(src[s + one]) - m1) * k1
                        dst[d2 + wu] = (np.float32(src[s + _U(2)]) - m2) * k2
                        dst[d3 + wu] = (np.float32(src[s + _U(3)]) - m3) * k3
                else:
                    for c in range(C):
                        cu = _U(c)
                        mc = m[c]
                        kc = k[c]
                        d = dbase + doff[c]
                        s = sbase + cu
                        for w in range(W):
                            wu = _U(w)
                            dst[d + wu] = (np.float32(src[s + wu * c_u]) - mc) * kc
            elif dc == one and sc == one and sw == c_u and dw == c_u:
                # interleaved to interleaved: NHWC from an HWC row
                for w in range(W):
                    wu = _U(w)
                    s = sbase + wu * c_u
                    d = dbase + wu * c_u
                    for c in range(C):
                        dst[d + doff[c]] = (np.float32(src[s + _U(c)]) - m[c]) * k[c]
            else:
                # any strides on both sides
                for w in range(W):
                    wu = _U(w)
                    s = sbase + wu * sw
                    d = dbase + wu * dw
                    for c in range(C):
                        dst[d + doff[c]] = (np.float32(src[s + _U(c) * sc]) - m[c]) * k[c]
        return zero

    return rows


def _flat(a: np.ndarray, writeable: bool = False):
    """A 1-D contiguous view from ``a[0, ...]`` over everything ``a`` (non-negative strides)
    touches, and ``a``'s element strides as uint64."""
    item = a.itemsize
    if a.flags.c_contiguous:
        return a.reshape(-1), [_U(s // item) for s in a.strides]
    span = sum((n - 1) * s for n, s in zip(a.shape, a.strides)) // item + 1
    base = np.lib.stride_tricks.as_strided(a, shape=(span,), strides=(item,), writeable=writeable)
    return base, [_U(s // item) for s in a.strides]


#: Below this many elements a second thread costs more than it saves (measured: 8x224x224x3
#: and one 1080p frame were both faster on one thread of a 2-core machine).
AUTO_THREADS_MIN_ELEMENTS = 1 << 24


def _nthreads(threads, elements: int) -> int:
    if threads is None and elements < AUTO_THREADS_MIN_ELEMENTS:
        return 1
    return thread_count(threads)


def normalize_into(out: np.ndarray, src, mean, scale, perm, *, threads=None,
                   min_rows_per_thread: int = 64) -> None:
    """Fill ``out`` (float32, logical axes N, C, H, W in that order, any strides) from ``src``
    in one pass: an (N, H, W, C) array, or a list of N (H, W, C) arrays (separate images, ROIs
    of different parents), any strides; uint8/int8/uint16/int16/int32/float32/float64.

    ``mean``, ``scale``: per output channel; ``perm[c]``: output channel of source channel ``c``.
    ``threads``: Python threads over rows (the kernel releases the GIL); None: one thread below
    :data:`AUTO_THREADS_MIN_ELEMENTS` elements, numba's thread count above.
    """
    if isinstance(src, np.ndarray):
        N, H, W, C = src.shape
        images = src
    else:
        images = list(src)
        N = len(images)
        H, W, C = images[0].shape
    if out.shape != (N, C, H, W) or out.dtype != np.float32:
        raise ValueError(f"out must be float32 of logical shape {(N, C, H, W)}, got "
                         f"{out.dtype} {out.shape}")
    if N * H * W * C == 0:
        return
    if any(s < 0 or s % 4 for s in out.strides):
        raise ValueError(f"out must have non-negative whole-element strides, got {out.strides}")
    if isinstance(src, np.ndarray) and all(st >= 0 and st % src.itemsize == 0
                                           for st in src.strides):
        s_flat, (sn, sh, sw, sc) = _flat(src)  # one batch array: offsets by arithmetic, no per-image work
        soffs = np.arange(N, dtype=np.uint64) * sn
        shs, sws, scs = (np.full(N, v, np.uint64) for v in (sh, sw, sc))
    else:
        s_flat, soffs, shs, sws, scs = _gather(images)
    d_flat, (dn, dc, dh, dw) = _flat(out, writeable=True)
    mean = np.ascontiguousarray(mean, np.float32)
    scale = np.ascontiguousarray(scale, np.float32)
    perm = np.ascontiguousarray(perm, np.int64)
    k = _kernel(C)
    rows = N * H
    nth = max(1, min(_nthreads(threads, N * H * W * C), rows // max(1, min_rows_per_thread)))
    args = (s_flat, soffs, shs, sws, scs, d_flat, dn, dc, dh, dw, _U(H), W)
    run_split(k, lambda r0, r1: args + (r0, r1, mean, scale, perm), rows, nth)


def _gather(images):
    """One flat read-only view spanning every image's memory, with each image's start offset and
    strides in elements (uint64 arrays). Images that are separate allocations share the view by
    address arithmetic: the kernel reads only addresses inside the images themselves.

    All images must be ndarrays of one shape and dtype. Per image only its address and strides
    are read (list comprehensions); the rest is numpy over all images at once, so 32 small images
    cost ~15 us here instead of ~200 us with per-image dicts and Python arithmetic."""
    if isinstance(images, np.ndarray):
        images = list(images)
    first = images[0]
    dt = first.dtype
    item = dt.itemsize
    shape = first.shape
    n = len(images)
    for im in images:
        if im.dtype != dt:
            raise ValueError(f"images mix dtypes {dt} and {im.dtype}")
        if im.shape != shape:
            raise ValueError(f"images mix shapes {shape} and {im.shape}")
    addrs = _addresses(images)
    strides = [im.strides for im in images]
    uniform = strides.count(strides[0]) == n
    if item > 1 and (any(a % item for a in addrs)
                     or any(st % item for sts in (strides[:1] if uniform else strides)
                            for st in sts)):
        return _gather_copying(images)
    if uniform:  # one set of strides: Python scalars, one array of offsets
        st = strides[0]
        ext = [(d - 1) * t for d, t in zip(shape, st)]
        start = min(addrs) + sum(e for e in ext if e < 0)
        end = max(addrs) + sum(e for e in ext if e > 0) + item
        soffs = np.array(addrs, np.uint64)
        soffs -= np.uint64(start)
        if item > 1:
            soffs //= np.uint64(item)
        params = np.empty((3, n), np.uint64)
        for i, t in enumerate(st):
            params[i] = _U(t // item) if t >= 0 else _U(2**64 + t // item)
        shs, sws, scs = params
    else:
        ext = np.array(shape, np.int64) - 1
        st = np.array(strides, np.int64)  # (n, 3)
        e = ext * st
        a = np.array(addrs, np.int64)
        start = int((a + np.minimum(e, 0).sum(1)).min())
        end = int((a + np.maximum(e, 0).sum(1)).max()) + item
        el = (st // item).view(np.uint64)
        shs, sws, scs = (np.ascontiguousarray(el[:, i]) for i in range(3))
        soffs = ((a - start) // item).view(np.uint64)
    flat = _from_address(start, (end - start) // item, dt, images)
    return flat, soffs, shs, sws, scs


def _addresses(images):
    """Each array's data address (``ndarray.ctypes.data``: ~1.4 us an image, against ~2.5 us
    for ``__array_interface__``, which builds a dict per call)."""
    return [im.ctypes.data for im in images]


def _gather_copying(images):
    """The per-image path for images off whole-element alignment (copied to aligned arrays)."""
    dt = images[0].dtype
    item = dt.itemsize
    prepared = []
    for im in images:
        addr = im.__array_interface__["data"][0]
        if addr % item or any(st % item for st in im.strides):
            im = np.array(im, order="C", copy=True)  # off whole elements: a fresh aligned copy
            addr = im.__array_interface__["data"][0]
        prepared.append(im)
    return _gather(prepared)


class _Span:
    """Holds ``__array_interface__`` for :func:`_from_address` and keeps the sources alive."""

    __slots__ = ("__array_interface__", "_keep")


def _from_address(addr: int, n: int, dtype, keep) -> np.ndarray:
    """A read-only flat array of ``n`` elements at ``addr``, keeping ``keep`` alive."""
    holder = _Span()
    holder.__array_interface__ = {"data": (addr, True), "shape": (n,), "typestr": dtype.str,
                                  "version": 3}
    holder._keep = keep
    return np.asarray(holder)
