"""Fast strided copies between arbitrary views: the one primitive of the conversion engine.

``copy_into(dst, src)`` equals ``np.copyto(dst, src)`` bitwise for two same-shape,
same-dtype arrays with any non-negative strides; ``fill_zero(dst)`` sets a view to zero.
The copy is planned in pure Python (:mod:`.plan`: unit type, size-1 axes dropped,
contiguous axes merged) and runs one of a few numba kernels compiled once per unit
type (uint8/16/32/64) on flat buffers with runtime strides:

* both sides contiguous: ``np.copyto`` of flat views (memcpy speed, split over threads);
* shared innermost axis: row copies (:mod:`.rows`);
* a transpose ``dst[b*dB + j*dJ + i] = src[b*sB + i*sI + j]``: cache-blocked tiles of
  LLVM vector shuffles (:mod:`.simd`, :mod:`.transpose`), non-temporal stores when the
  output is larger than ``NT_MIN_BYTES``; a plain scalar-tile path when
  ``LAYOUTS_PLAIN_KERNELS=1`` is set or :data:`USE_SIMD` is False;
* small channel counts (2, 3, 4) on either side: :mod:`.small`;
* large uint8/uint16 transposes with dst rows of 4/2-unit words: zip source rows into
  uint32 words, then the 4-byte tiles (:mod:`.grouped`);
* negative strides, object dtypes: ``np.copyto``.

``threads=None`` uses ``numba.config.NUMBA_NUM_THREADS`` threads, ``threads=n`` uses n,
clamped to :func:`.pool.max_threads` (the cores this process may use: more threads would only
wait). The kernels release the GIL and the work is split over one shared Python thread pool of
``max_threads() - 1`` workers (disjoint output ranges, so results do not depend on the thread
count; the number of live threads stays bounded whatever callers pass).  Small copies
(below ``PAR_MIN_BYTES``) run on the calling thread.

>>> import numpy as np
>>> from layouts.kernels import copy_into, fill_zero
>>> x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)   # NCHW
>>> out = np.empty((2, 4, 5, 3), np.float32)                               # NHWC
>>> copy_into(out, x.transpose(0, 2, 3, 1), threads=1)
>>> bool((out == x.transpose(0, 2, 3, 1)).all())
True
>>> fill_zero(out[:, :, :, 1:]); out[0, 0, 0].tolist()
[0.0, 0.0, 0.0]
"""

import ctypes
import os

import numpy as np

from .plan import make_fill_plan, make_plan
from .pool import max_threads, run_split, thread_count

__all__ = ["copy_into", "fill_zero", "USE_SIMD", "NT_MIN_BYTES", "PAR_MIN_BYTES"]

#: use the LLVM-shuffle tiles (False: plain scalar tiles; tests run both)
USE_SIMD = os.environ.get("LAYOUTS_PLAIN_KERNELS", "0") in ("", "0")
#: outputs at least this large use non-temporal stores (they bypass the cache)
NT_MIN_BYTES = 8 << 20
#: copies smaller than this run on one thread
PAR_MIN_BYTES = 1 << 20
#: copies smaller than this go to np.copyto directly (0 in tests: always use the kernels)
SMALL_BYTES = 32 << 10

# cache blocking in bytes (SIMD path).  Long dst rows (ni*itemsize >= LONG_ROW): blocks of
# BI_LONG bytes of i by one tile column of j (dst rows written in long runs, the source
# block re-read from L2).  Short dst rows: all of i, BJ_SHORT bytes of j per block (few
# source streams).  Measured on 128x64x56x56 f32 (bench/run.py).
LONG_ROW = 1024
BI_LONG = 2048
# long dst rows whose src rows span at most BJ_LONG bytes (NCHW16c->NCHW, NHWC->NCHW with C=64
# in u8/f16, CHWN->NCHW u8 N=128): blocks of all of j, each source line read once per tile row.
# 128x64x56x56 x np.copyto, one process per setting (u8 sources are 25.7 MB < L3, so an
# in-process A/B flatters whichever variant runs second): NCHW16c->NCHW f32 0.74-0.81 ->
# 0.82-0.86; CHWN->NCHW u8 0.33-0.35 -> 0.41-0.45; NHWC->NCHW u8 0.59-0.62 -> 0.73-0.83,
# f16 0.52-0.53 -> 0.54-0.57; f16 NCHW16c->NCHW within noise.  Longer src rows lose (f32
# NHWC->NCHW with 64-byte j blocks 0.66 -> 0.43, f16 CHWN->NCHW with all 256 bytes 0.57 -> 0.41)
BJ_LONG = 128
BJ_SHORT = 8192
# plain path: (Bi, Bj) in units
BLOCKS = {1: (256, 256), 2: (128, 128), 4: (64, 64), 8: (32, 32)}

#: straddling tiles (mode 7) for 16-byte aligned contiguous outputs
SPLIT = True

_plans = {}        # (shape, strides, dtype, address mod 8) -> Plan


def _flat(arr, ext, unit):
    """A writable 1-D ``unit`` view of the ``ext`` bytes starting at ``arr``'s first byte."""
    buf = (ctypes.c_char * ext).from_address(arr.ctypes.data)
    return np.frombuffer(buf, dtype=unit)


def _check(dst, src):
    if not isinstance(dst, np.ndarray) or not isinstance(src, np.ndarray):
        raise TypeError("copy_into: dst and src must be numpy arrays, got "
                        f"{type(dst).__name__} and {type(src).__name__}")
    if dst.shape != src.shape:
        raise ValueError(f"copy_into: shapes differ: dst {dst.shape} vs src {src.shape}")
    if dst.dtype != src.dtype:
        raise ValueError(f"copy_into: dtypes differ: dst {dst.dtype} vs src {src.dtype}")
    if not dst.flags.writeable:
        raise ValueError("copy_into: dst is read-only")


def _u64(seq):
    return np.array(list(seq), dtype=np.uint64) if seq else np.zeros(1, np.uint64)[:0]


def copy_into(dst, src, threads=None):
    """``dst[...] = src`` for same-shape, same-dtype arrays with arbitrary strides.

    Bitwise equal to ``np.copyto(dst, src)``, also when the two overlap (then it is ``np.copyto``).

    Parameters
    ----------
    dst : ndarray, writable
    src : ndarray, same shape and dtype as ``dst``
    threads : int or None
        None: ``numba.config.NUMBA_NUM_THREADS`` threads; 1: the calling thread only; more than
        :func:`.pool.max_threads` is clamped to it.

    >>> import numpy as np
    >>> x = np.arange(32 * 2 * 3 * 3, dtype=np.uint8).reshape(2, 32, 3, 3)   # NCHW, C=32
    >>> out = np.empty((2, 2, 3, 3, 16), np.uint8)                          # NCHW16c
    >>> copy_into(out, x.reshape(2, 2, 16, 3, 3).transpose(0, 1, 3, 4, 2))
    >>> int(out[0, 1, 2, 0, 5]) == int(x[0, 16 + 5, 2, 0])
    True
    """
    _check(dst, src)
    nth = thread_count(threads)
    if np.may_share_memory(dst, src):  # overlapping views: numpy's copy buffers them correctly
        np.copyto(dst, src, casting="no")
        return
    _copy(dst, src, nth, False)


def _copy(dst, src, nth, nt):
    """copy_into after the checks; ``nt``: the output is part of a large one (stream it)."""
    key = (dst.shape, dst.strides, src.strides, dst.dtype, dst.ctypes.data % 8, src.ctypes.data % 8)
    plan = _plans.get(key)
    if plan is None:
        plan = make_plan(dst, src)
        if len(_plans) > 512:
            _plans.clear()
        _plans[key] = plan
    kind = plan.kind
    if kind == "empty":
        return
    if kind in ("fallback", "scalar") or plan.nbytes < SMALL_BYTES:
        np.copyto(dst, src, casting="no")
        return
    if plan.nbytes < PAR_MIN_BYTES:
        nth = 1
    u = plan.unit
    d = _flat(dst, plan.dext, u)
    s = _flat(src, plan.sext, u)
    if kind == "rows":
        _copy_rows(d, s, plan, nth)
    else:
        from .small import try_small
        if (not try_small(d, s, plan, nth, run_split) and not _try_staged(d, s, plan, nth)
                and not _try_grouped(d, s, plan, nth, nt)):
            _copy_transpose(d, s, plan, nth, nt)


#: pixels per chunk of the staged small-C path (temp of N*C*STAGE_PIXELS units, cache resident)
STAGE_BYTES = 4 << 20
#: use the staged path (tests turn it off to reach the plain tiles)
STAGED = True


def _view(flat, shape, strides):
    u = flat.itemsize
    return np.lib.stride_tricks.as_strided(flat, shape, tuple(u * x for x in strides))


def _try_staged(d, s, plan, nth):
    """Small C (2-4) on the strided side of a two-sided transpose (NHWC <-> CHWN with C=3):
    per chunk of pixels, a constant-C (de)interleave and a tile transpose through a
    cache-resident buffer.  Return whether it ran.

    A (NHWC->CHWN):  dst[c*dJ + p*ni + n] = src[n*sI + p*C + c]    (nj == C, batch p)
    B (CHWN->NHWC):  dst[n*dJ + p*C + c] = src[c*sI + p*nj + n]    (ni == C, batch p)
    """
    if not STAGED or len(plan.batch) != 1 or plan.dI != 1 or plan.sJ != 1:
        return False
    npx, dB, sB = plan.batch[0]
    if plan.nj in (2, 3, 4) and sB == plan.nj and dB == plan.ni and plan.ni >= 16:
        C, N, case = plan.nj, plan.ni, "A"
    elif plan.ni in (2, 3, 4) and dB == plan.ni and sB == plan.nj and plan.nj >= 16:
        C, N, case = plan.ni, plan.nj, "B"
    else:
        return False
    us = plan.unit.itemsize
    nt = plan.nbytes >= NT_MIN_BYTES
    P = max(16, min(npx, STAGE_BYTES // (N * C * us)))
    tmp = np.empty(N * C * P + 64 // us, plan.unit)
    tmp = tmp[((-tmp.ctypes.data) % 64) // us:]
    for p0 in range(0, npx, P):
        q = min(P, npx - p0)
        t = _view(tmp, (N, C, q), (C * q, q, 1))
        if case == "A":
            _copy(t, _view(s[p0 * C:], (N, C, q), (plan.sI, 1, C)), nth, False)
            _copy(_view(d[p0 * N:], (C, q, N), (plan.dJ, N, 1)), t.transpose(1, 2, 0), nth, nt)
        else:
            _copy(t, _view(s[p0 * N:], (N, C, q), (1, plan.sI, N)), nth, False)
            _copy(_view(d[p0 * C:], (N, q, C), (plan.dJ, C, 1)), t.transpose(0, 2, 1), nth, nt)
    return True


#: word-grouped uint8 transposes (:mod:`.grouped`; tests turn it off or force it)
GROUPED = True
#: unit sizes grouped (1: uint8 by 4, 2: uint16 by 2)
GROUP_UNITS = (1, 2)
#: ... used only for outputs at least this large (out of L3; in cache the extra pass loses)
GROUP_MIN_BYTES = 24 << 20
#: ... and only when the chunked axis is at least this long
GROUP_MIN_NJ = 2048
#: bytes of a grouped chunk's word scratch (L2 resident)
GROUP_BYTES = 512 << 10


def _try_grouped(d, s, plan, nth, nt):
    """uint8 / uint16 transposes with dst rows of 4k / 2k units (>= 64 bytes), out of cache:
    zip 4 / 2 source rows into uint32 words, then a 4-byte tile transpose (:mod:`.grouped`).
    128x64x56x56 x np.copyto, 1 thread, old and new code in alternating processes: u8
    NCHW->NHWC 0.35-0.39 -> 0.44-0.48, NCHW->CHWN 0.30-0.31 -> 0.40-0.44; f16 NCHW->CHWN
    0.39-0.46 -> 0.40-0.49, NCHW->NHWC neutral.  2 threads: u8 NCHW->CHWN 0.31 -> 0.57.
    Smaller outputs lose (64x3x224x224 u8 NCHW->CHWN 9.6 MB 0.51 -> 0.35, f16 19 MB
    0.60 -> 0.41): GROUP_MIN_BYTES.  Grouping on the src side (word transpose, then unzip)
    lost everywhere (NHWC->NCHW u8 0.58 -> 0.35) and is not implemented."""
    us = plan.unit.itemsize
    G = 4 // us
    if (not GROUPED or not USE_SIMD or us not in GROUP_UNITS or plan.dI != 1 or plan.sJ != 1
            or plan.ni % G or plan.ni * us < 64 or plan.dJ % G or d.ctypes.data % 4
            or any(a[1] % G for a in plan.batch)
            or plan.nbytes < GROUP_MIN_BYTES or plan.nj < GROUP_MIN_NJ):
        return False
    from .grouped import group_kernel
    ng = plan.ni // G
    Q = max(16, GROUP_BYTES // 4 // ng // 16 * 16)
    Q = min(Q, -(-plan.nj // 16) * 16)
    mode, peel, TI, TL, Bi, Bj = _tile_params(
        ng, Q, 1, plan.dJ // G, 1, [a[1] // G for a in plan.batch], 4, d.ctypes.data,
        nt or plan.nbytes >= NT_MIN_BYTES)
    T = np.array([0] * 10 + [Bi, Bj, mode, peel, TI, TL, 0], np.uint64)
    osh = _u64(a[0] for a in plan.batch)
    dbs = _u64(a[1] for a in plan.batch)
    sbs = _u64(a[2] for a in plan.batch)
    d32 = d[:d.shape[0] // G * G].view(np.uint32)
    base = [0, 0, plan.ni, plan.nj, plan.dJ, plan.sI]
    # stage-B edges: the same rectangles in every chunk of Q columns (and the last one's own)
    nfull, qlast = plan.nj // Q, plan.nj % Q
    regs = _edge_regions(ng, Q, Bi, mode, peel, TI, TL) if nfull and NUMPY_EDGES else None
    regl = _edge_regions(ng, qlast, Bi, mode, peel, TI, TL) if qlast and NUMPY_EDGES else []
    if regs is not None and regl is not None:
        ne = nfull * sum((a1 - a0) * (b1 - b0) for a0, a1, b0, b1 in regs)
        ne += sum((a1 - a0) * (b1 - b0) for a0, a1, b0, b1 in regl)
        if (len(regs) + len(regl) > EDGE_MAX_CALLS
                or plan.nbatch * ne * G * EDGE_MAX_FRACTION > plan.nbatch * plan.ni * plan.nj):
            regs = None
    run_split(group_kernel,
         lambda w0, w1: (d32, s, np.array(base + [w0, w1, Q, regs is None], np.uint64), T,
                         osh, dbs, sbs),
         plan.nbatch * -(-plan.nj // Q), nth)
    if regs is not None:
        batch = tuple(plan.batch)
        if regs:
            _numpy_edges(d, s, regs, batch + ((nfull, Q * plan.dJ, Q),), plan.dJ, plan.sI, G)
        if regl:
            _numpy_edges(d, s, regl, batch, plan.dJ, plan.sI, G, nfull * Q)
    return True


def _copy_rows(d, s, plan, nth):
    if not plan.batch and plan.dI == 1 and plan.sI == 1:       # one contiguous run: memcpy
        n = plan.n
        run_split(lambda a, b: (np.copyto(a, b),),
             lambda w0, w1: (d[n * w0 // nth:n * w1 // nth], s[n * w0 // nth:n * w1 // nth]),
             nth, nth)
        return
    from .rows import rows_kernel
    osh = _u64(a[0] for a in plan.batch)
    dos = _u64(a[1] for a in plan.batch)
    sos = _u64(a[2] for a in plan.batch)
    base = [0, 0, plan.n, plan.dI, plan.sI]
    run_split(rows_kernel,
         lambda w0, w1: (d, s, np.array(base + [w0, w1], np.uint64), osh, dos, sos),
         plan.nbatch, nth)


def _tile_params(ni, nj, dI, dJ, sJ, dbstrides, us, daddr, big):
    """Tile family and blocking of a transpose: (mode, peel, TI, TL, Bi, Bj).
    ``dbstrides``: batch dst strides (units); ``daddr``: dst address of the first element;
    ``big``: stream the output (non-temporal stores where the alignment allows)."""
    from .simd import TILE_SHAPE
    L, K = TILE_SHAPE[8 * us]
    TI, TL = K * L, L
    Bi, Bj = BLOCKS[us]
    mode, peel = 0, 0
    if USE_SIMD and dI == 1 and sJ == 1 and nj >= TL and L <= ni < TI:
        mode, TI = (4, 2 * L) if ni >= 2 * L and K > 2 else (3, L)
    if USE_SIMD and dI == 1 and sJ == 1 and ni >= TI and nj >= TL and not mode:
        mode = 1
        if big and (dJ * us) % 64 == 0 and all((x * us) % 64 == 0 for x in dbstrides):
            peel = ((-daddr) % 64) // us
            if (peel and SPLIT and dJ == ni and ni % TI == 0
                    and ni * us < LONG_ROW and nj > TL):
                mode = 7                            # rows follow each other: straddling tiles
            elif peel == 0 or ni >= 4 * TI:   # aligned rows, or peeling costs little
                mode = 2
            else:
                peel = 0
    if mode:
        if ni * us >= LONG_ROW:
            Bi, Bj = max(TI, BI_LONG // us // TI * TI), TL
            if nj * us <= BJ_LONG:                  # src rows within one line: all of j at once
                Bj = max(TL, nj // TL * TL)
        else:
            Bi, Bj = max(TI, -(-ni // TI) * TI), max(TL, BJ_SHORT // us // TL * TL)
    return mode, peel, TI, TL, Bi, Bj


def _copy_transpose(d, s, plan, nth, nt=False):
    from .transpose import transpose_kernel
    us = plan.unit.itemsize
    mode, peel, TI, TL, Bi, Bj = _tile_params(
        plan.ni, plan.nj, plan.dI, plan.dJ, plan.sJ, [a[1] for a in plan.batch], us,
        d.ctypes.data, nt or plan.nbytes >= NT_MIN_BYTES)
    osh = _u64(a[0] for a in plan.batch)
    dbs = _u64(a[1] for a in plan.batch)
    sbs = _u64(a[2] for a in plan.batch)
    nbi = -(-plan.ni // Bi)
    base = [0, 0, plan.ni, plan.nj, plan.dI, plan.dJ, plan.sI, plan.sJ]
    tail = [Bi, Bj, mode, peel, TI, TL, 0]
    regions = _edge_regions(plan.ni, plan.nj, Bi, mode, peel, TI, TL) if mode and NUMPY_EDGES else None
    if regions is not None and (len(regions) > EDGE_MAX_CALLS or
                                plan.nbatch * sum((a1 - a0) * (b1 - b0) for a0, a1, b0, b1 in regions)
                                * EDGE_MAX_FRACTION > plan.nbatch * plan.ni * plan.nj):
        regions = None
    if regions is None:
        fn = transpose_kernel
    else:
        from .transpose import KERNELS
        fn = KERNELS[mode]          # tiles only; the edges below, in numpy
    run_split(fn,
         lambda w0, w1: (d, s, np.array(base + [w0, w1] + tail, np.uint64), osh, dbs, sbs),
         plan.nbatch * nbi, nth)
    if regions:
        _numpy_edges(d, s, regions, plan.batch, plan.dJ, plan.sI)


def _numpy_edges(d, s, regions, batch, dJ, sI, G=1, j0=0):
    """np.copyto of the rectangles ``regions`` (i0, i1, j0, j1) of a transpose with dI == sJ == 1
    over every index of ``batch`` ((n, dst stride, src stride) axes); ``G``: i in groups of G
    units (word-grouped stage B); ``j0``: offset of j."""
    bsh = tuple(a[0] for a in batch)
    bd = tuple(a[1] for a in batch)
    bs = tuple(a[2] for a in batch)
    for a0, a1, b0, b1 in regions:
        a0, a1, b0, b1 = G * a0, G * a1, b0 + j0, b1 + j0
        np.copyto(_view(d[a0 + b0 * dJ:], bsh + (a1 - a0, b1 - b0), bd + (1, dJ)),
                  _view(s[a0 * sI + b0:], bsh + (a1 - a0, b1 - b0), bs + (sI, 1)),
                  casting="no")


#: edges of SIMD tile families (dI == sJ == 1) by np.copyto of strided views when they are
#: small, so that a first call compiles only the tile kernel (kernel_edges: ~0.6 s of compile)
NUMPY_EDGES = True
#: ... at most this many copyto calls (regions over all i-blocks; batch axes are in the views)
EDGE_MAX_CALLS = 64
#: ... and at most 1/EDGE_MAX_FRACTION of the elements
EDGE_MAX_FRACTION = 64


def _edge_regions(ni, nj, Bi, mode, peel, TI, TL):
    """The (i0, i1, j0, j1) rectangles outside the full tiles of a SIMD tile family, the same
    for every batch index (as ``transpose.kernel_edges``, one entry per i-block and region)."""
    m7 = mode == 7
    je = nj // TL * TL
    js = (nj - 1) // TL * TL
    out = []
    for i0 in range(0, ni, Bi):
        i1 = min(i0 + Bi, ni)
        ia = min(i0 + (peel + TI - i0 % TI) % TI, i1)
        ie = ia + (i1 - ia) // TI * TI
        if m7:
            regs = [(ie, i1, js, nj), (i0, ia, 0, 1), (i0, ia, js + 1, nj), (ia, ie, je, nj)]
        else:
            regs = [(i0, ia, 0, nj), (ie, i1, 0, nj), (ia, ie, je, nj)]
        out += [r for r in regs if r[1] > r[0] and r[3] > r[2]]
    return out


def fill_zero(dst, threads=None):
    """``dst[...] = 0`` (all bytes zero) for a writable view with any non-negative strides.

    >>> import numpy as np
    >>> a = np.ones((3, 4), np.int16); fill_zero(a[:, ::2]); a.tolist()
    [[0, 1, 0, 1], [0, 1, 0, 1], [0, 1, 0, 1]]
    """
    if not isinstance(dst, np.ndarray):
        raise TypeError(f"fill_zero: dst must be a numpy array, got {type(dst).__name__}")
    if not dst.flags.writeable:
        raise ValueError("fill_zero: dst is read-only")
    nth = thread_count(threads)
    plan = make_fill_plan(dst)
    if plan.kind == "empty":
        return
    if plan.kind in ("fallback", "scalar") or plan.nbytes < SMALL_BYTES:
        dst[...] = np.zeros((), dst.dtype)
        return
    if plan.nbytes < PAR_MIN_BYTES:
        nth = 1
    d = _flat(dst, plan.dext, plan.unit)
    from .rows import fill_kernel
    osh = _u64(a[0] for a in plan.batch)
    dos = _u64(a[1] for a in plan.batch)
    base = [0, 0, plan.n, plan.dI, plan.dI]
    run_split(fill_kernel, lambda w0, w1: (d, np.array(base + [w0, w1], np.uint64), osh, dos),
         plan.nbatch, nth)

