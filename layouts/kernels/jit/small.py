"""Small channel counts: (de)interleave loops with a constant count (numba).

A transpose whose dst-contiguous axis has 2, 3 or 4 elements (NCHW->NHWC with C=3) or whose
src-contiguous axis has 2, 3 or 4 elements (NHWC->NCHW with C=3) is a plain (de)interleave,
where a tile transpose would waste almost all of each tile.

    interleave_kernel:    dst[db + j*C + c] = src[sb + c*stride + j]     (dst rows of C)
    deinterleave_kernel:  dst[db + c*stride + i] = src[sb + i*C + c]     (src rows of C)

The loops above are the edges: a 64-byte line of each plane at a time goes through one vector
(:func:`.simd.pack_lines`, :func:`.simd.unpack_lines`), which LLVM's vectoriser would not make of
a count of 3. The ``_nt`` kernels are for outputs too large to stay cached: they store those lines
with non-temporal stores, from the first pixel whose line starts a cache line (plain stores
before it and wherever the lines cannot be aligned), so the output is written without being read
first.

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

from .simd import pack_lines, pack_lines_nt, unpack_lines, unpack_lines_nt
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
def _pack_lines(dst, d0, src, s0, st, C, nt):
    """V pixels (a line of each of the C planes) by one :func:`.simd.pack_lines`; C a constant
    for the intrinsic."""
    if nt:
        if C == U3:
            pack_lines_nt(dst, d0, U0, src, s0, st, 3)
        elif C == U4:
            pack_lines_nt(dst, d0, U0, src, s0, st, 4)
        else:
            pack_lines_nt(dst, d0, U0, src, s0, st, 2)
    elif C == U3:
        pack_lines(dst, d0, U0, src, s0, st, 3)
    elif C == U4:
        pack_lines(dst, d0, U0, src, s0, st, 4)
    else:
        pack_lines(dst, d0, U0, src, s0, st, 2)


@njit(cache=True, nogil=True, inline="always")
def _unpack_lines(dst, d0, st, src, s0, C, nt):
    """V pixels into a line of each of the C planes by one :func:`.simd.unpack_lines`."""
    if nt:
        if C == U3:
            unpack_lines_nt(dst, d0, st, src, s0, U0, 3)
        elif C == U4:
            unpack_lines_nt(dst, d0, st, src, s0, U0, 4)
        else:
            unpack_lines_nt(dst, d0, st, src, s0, U0, 2)
    elif C == U3:
        unpack_lines(dst, d0, st, src, s0, U0, 3)
    elif C == U4:
        unpack_lines(dst, d0, st, src, s0, U0, 4)
    else:
        unpack_lines(dst, d0, st, src, s0, U0, 2)


@njit(cache=True, nogil=True, inline="always")
def _to_line(at, step, m):
    """The fewest steps of ``step`` bytes (at most ``m``, and fewer than a line's worth) from byte
    address ``at`` to a cache line's start; ``m + 1`` when there is none."""
    for h in range(min(m, LINE) + U1):
        if (at + h * step) % LINE == U0:
            return np.uint64(h)
    return m + U1


@njit(cache=True, nogil=True, inline="always")
def _interleave(dst, src, args, batch, w0, w1, nt, addr):
    a = args[0]
    C = a.C
    st = a.stride
    isz = np.uint64(dst.itemsize)
    V = LINE // isz
    for w in range(w0, w1):
        db, sb, k0, k1 = _chunk(w, a, batch)
        j = k0
        lines_nt = False
        if nt:
            h = _to_line(addr + (db + j * C) * isz, C * isz, k1 - j)
            lines_nt = h <= k1 - j
            if lines_nt:
                _pack(dst, db + j * C, src, sb + j, st, h, C)
                j += h
        while j + V <= k1:
            _pack_lines(dst, db + j * C, src, sb + j, st, C, lines_nt)
            j += V
        _pack(dst, db + j * C, src, sb + j, st, k1 - j, C)


@njit(cache=True, nogil=True, inline="always")
def _deinterleave(dst, src, args, batch, w0, w1, nt, addr):
    a = args[0]
    C = a.C
    st = a.stride
    isz = np.uint64(dst.itemsize)
    V = LINE // isz
    for w in range(w0, w1):
        db, sb, k0, k1 = _chunk(w, a, batch)
        i = k0
        lines_nt = False
        if nt and st * isz % LINE == U0:         # every plane's line then starts where the first's does
            h = _to_line(addr + (db + i) * isz, isz, k1 - i)
            lines_nt = h <= k1 - i
            if lines_nt:
                _unpack(dst, db + i, st, src, sb + i * C, h, C)
                i += h
        while i + V <= k1:
            _unpack_lines(dst, db + i, st, src, sb + i * C, C, lines_nt)
            i += V
        _unpack(dst, db + i, st, src, sb + i * C, k1 - i, C)


@njit(cache=True, nogil=True)
def interleave_kernel(dst, src, args, batch, w0, w1):
    _interleave(dst, src, args, batch, w0, w1, False, U0)


@njit(cache=True, nogil=True)
def deinterleave_kernel(dst, src, args, batch, w0, w1):
    _deinterleave(dst, src, args, batch, w0, w1, False, U0)


@njit(cache=True, nogil=True)
def interleave_nt_kernel(dst, src, args, batch, w0, w1):
    _interleave(dst, src, args, batch, w0, w1, True, np.uint64(dst.ctypes.data))


@njit(cache=True, nogil=True)
def deinterleave_nt_kernel(dst, src, args, batch, w0, w1):
    _deinterleave(dst, src, args, batch, w0, w1, True, np.uint64(dst.ctypes.data))
