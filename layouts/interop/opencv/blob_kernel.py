"""The fused pass of :func:`~layouts.interop.opencv.blob_from_images`: HWC images (any strides)
-> a normalised float32 or float16 tensor, in one read of the source and one write of the output.

``out[n, perm[c], h, w] = (float32(src[n, h, w, c]) - mean[c]) * scale[c]``, computed in float32 (as
OpenCV does) and stored as float32 or, rounded to nearest even, as float16, through the output's
element strides (NCHW, NHWC or any order of the four axes). ``perm`` is the channel permutation
(``swapRB``: 0 <-> 2); ``mean`` and ``scale`` are in source channel order here.

The kernel reads its arguments by name from the records of :mod:`.array_reader`, which also
reads each image's address and strides from numpy's array struct in compiled code; where that is
not possible (:data:`~.array_reader.FAST` false), every call takes :func:`normalize_into`'s
prepared path, which hands the kernel only arrays it made or checked itself.

>>> img = np.arange(2 * 2 * 3, dtype=np.uint8).reshape(1, 2, 2, 3)
>>> out = np.empty((1, 3, 2, 2), np.float32)
>>> normalize_into(out, img, mean=[1, 0, 0], scale=[1, 1, 1], perm=[0, 1, 2])
>>> out[0, 0].tolist()
[[-1.0, 2.0], [5.0, 8.0]]
"""

from __future__ import annotations

import os
import platform

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.extending import intrinsic, overload

from ...errors import LayoutError
from ...kernels.runtime.pool import run_split, thread_count
from .array_reader import FAST, TUPLE_ITEMS, BlobCall, fill, ptr, scan_list  # noqa: F401 - the call's API


def _half_native() -> bool:
    """Whether LLVM converts float32 to float16 in one instruction here (x86 needs F16C; without
    it the conversion would be a runtime-library call the JIT cannot link)."""
    if platform.machine().lower() not in ("x86_64", "amd64", "i686", "x86"):
        return True
    try:
        import llvmlite.binding as llvm
        return "+f16c" in llvm.get_host_cpu_features().flatten().split(",")
    except Exception:  # noqa: BLE001 - unknown features: take the float32 pass and a cast
        return False


#: float16 outputs are converted in the kernel's own pass (else a float32 pass and a cast)
HALF_NATIVE = _half_native()


@intrinsic
def _half_bits(typingctx, v):
    """The float16 nearest to float32 ``v`` (ties to even, as ``numpy.astype``), as its bits:
    LLVM's ``fptrunc``, a vector instruction where the CPU has one (F16C)."""
    def codegen(context, builder, sig, args):
        return builder.bitcast(builder.fptrunc(args[0], ir.HalfType()), ir.IntType(16))
    return types.uint16(types.float32), codegen


def _stored(v, oproto):
    """``v`` as the output element type of ``oproto`` holds it (float32 as is, float16 bits)."""


@overload(_stored, inline="always")
def _stored_impl(v, oproto):
    if oproto.dtype == types.uint16:
        return lambda v, oproto: _half_bits(v)
    return lambda v, oproto: v


@intrinsic
def _fetch_add(typingctx, arr, idx, val):
    """Atomically ``arr[idx] += val``; returns the value before."""
    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, sig.args[0], ary, [args[1]])
        return builder.atomic_rmw("add", ptr, args[2], "monotonic")
    return types.int64(arr, types.intp, types.int64), codegen


@numba.njit(nogil=True, cache=True)
def _blob(head, perm, recs, mean, scale, proto, oproto, r0, r1):
    """Rows ``[r0, r1)`` of the N*H rows, from ``head`` and ``recs`` as :func:`fill` left them.
    ``perm[c]``: the output channel of source channel ``c``; ``mean``/``scale`` in source channel
    order; ``proto``: any array of the source dtype, ``oproto`` of the output's (float32, or
    uint16 for float16 bits). Reads no Python object (runs without the GIL)."""
    h = head[0]
    C = h.C
    H = h.H
    W = h.W
    item = h.item
    osz = h.out_item
    dn = h.dn
    dc = h.dc
    dh = h.dh
    dw = h.dw
    m0 = mean[0]
    k0 = scale[0]
    m1 = mean[1] if C > 1 else m0
    k1 = scale[1] if C > 1 else k0
    m2 = mean[2] if C > 2 else m0
    k2 = scale[2] if C > 2 else k0
    m3 = mean[3] if C > 3 else m0
    k3 = scale[3] if C > 3 else k0
    o0 = dc * perm[0]
    o1 = dc * perm[1] if C > 1 else o0
    o2 = dc * perm[2] if C > 2 else o0
    o3 = dc * perm[3] if C > 3 else o0
    n = r0 // H
    while n * H < r1:
        img = recs[n]
        sdata = img.addr
        sh = img.row
        sw = img.pixel
        sc = img.chan
        ha = max(r0 - n * H, 0)
        hb = min(r1 - n * H, H)
        Wr = W
        if sh == W * sw * item and dh == W * dw and hb > ha:
            # rows follow each other on both sides (whole images, NCHW planes): one long row,
            # so short rows (32-pixel crops) run in the vector loop, not its remainder
            Wr = W * (hb - ha)
            hb = ha + 1
        for hh in range(ha, hb):
            s = ptr(sdata + hh * sh, proto)
            q = h.out_addr + osz * (n * dn + hh * dh)
            if dw == 1 and sc == 1 and sw == C:
                # planar output, interleaved pixels (NCHW from HWC rows, ROIs too): one pass
                # reading all C channels, one plane each; constants in scalars
                q0 = ptr(q + osz * o0, oproto)
                if C == 3:
                    q1 = ptr(q + osz * o1, oproto)
                    q2 = ptr(q + osz * o2, oproto)
                    for w in range(Wr):
                        q0[w] = _stored((np.float32(s[3 * w]) - m0) * k0, oproto)
                        q1[w] = _stored((np.float32(s[3 * w + 1]) - m1) * k1, oproto)
                        q2[w] = _stored((np.float32(s[3 * w + 2]) - m2) * k2, oproto)
                elif C == 1:
                    for w in range(Wr):
                        q0[w] = _stored((np.float32(s[w]) - m0) * k0, oproto)
                elif C == 4:
                    q1 = ptr(q + osz * o1, oproto)
                    q2 = ptr(q + osz * o2, oproto)
                    q3 = ptr(q + osz * o3, oproto)
                    for w in range(Wr):
                        q0[w] = _stored((np.float32(s[4 * w]) - m0) * k0, oproto)
                        q1[w] = _stored((np.float32(s[4 * w + 1]) - m1) * k1, oproto)
                        q2[w] = _stored((np.float32(s[4 * w + 2]) - m2) * k2, oproto)
                        q3[w] = _stored((np.float32(s[4 * w + 3]) - m3) * k3, oproto)
                else:
                    for c in range(C):
                        qc = ptr(q + osz * dc * perm[c], oproto)
                        mc = mean[c]
                        kc = scale[c]
                        for w in range(Wr):
                            qc[w] = _stored((np.float32(s[C * w + c]) - mc) * kc, oproto)
            else:
                # any strides on both sides (NHWC and other orders, flipped or strided pixels)
                qq = ptr(q, oproto)
                for c in range(C):
                    oc = dc * perm[c]
                    mc = mean[c]
                    kc = scale[c]
                    for w in range(Wr):
                        qq[oc + w * dw] = _stored((np.float32(s[w * sw + c * sc]) - mc) * kc, oproto)
        n += 1
    return 0


@numba.njit(nogil=True, cache=True)
def _blob_shared(head, perm, recs, mean, scale, proto, oproto, counter, chunk, rows):
    """Rows in chunks of ``chunk`` taken from the shared ``counter[0]`` until all ``rows`` are
    done: a thread that starts late (its core busy) finds less or nothing left, so a split is
    never much slower than the calling thread alone."""
    while True:
        r0 = _fetch_add(counter, 0, chunk)
        if r0 >= rows:
            return 0
        _blob(head, perm, recs, mean, scale, proto, oproto, r0, min(r0 + chunk, rows))


# --- calling it ---------------------------------------------------------------------------------
#: one empty array per source dtype: tells the kernel's dispatcher what it reads
PROTO = {np.dtype(t): np.empty(0, t) for t in ("uint8", "int8", "uint16", "int16", "int32",
                                                "float32", "float64")}
#: what the kernel stores, by output dtype: float32 values, or float16 as their uint16 bits
OUT_PROTO = {np.dtype(np.float32): np.empty(0, np.float32), np.dtype(np.float16): np.empty(0, np.uint16)}


def nthreads_for(threads, nbytes: int, rows: int, profile) -> int:
    """Threads for an output of ``nbytes`` bytes in ``rows`` rows: 1 below the profile's
    ``blob_thread_min_bytes``, else ``threads`` (None: the package's thread count), at most one a
    row and, with ``blob_load_aware``, at most :func:`idle_cores`."""
    if nbytes < profile.blob_thread_min_bytes:
        return 1
    t = max(1, min(thread_count(threads), rows))
    if t > 1 and profile.blob_load_aware:
        idle = idle_cores()
        if idle is not None:
            t = min(t, idle)
    return t


def idle_cores():
    """Cores that no other runnable task holds right now: the CPU count less the running tasks
    of ``/proc/loadavg`` other than the calling thread (pool threads sleep between calls, so
    they are not counted); None where that file is missing. An instant sample, not the 1-minute
    average, which our own threads would raise: a second thread whose core is taken only waits."""
    try:
        with open("/proc/loadavg", "rb") as fh:
            running = int(fh.read().split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return None
    return max(1, (os.cpu_count() or 1) - (running - 1))


def run(call: BlobCall, mean, scale, dtype, nchw, threads) -> None:
    """Run the kernel over all rows of the N,C,H,W float32 or float16 view ``nchw`` (``call``
    filled by :meth:`BlobCall.fill` with it as its output); ``mean``/``scale`` float32 in source
    channel order."""
    from ...kernels.machine.profile import current

    N, C, H, W = nchw.shape
    rows = N * H
    osz = nchw.itemsize
    profile = current()
    nth = nthreads_for(threads, osz * N * C * H * W, rows, profile)
    proto, oproto = PROTO[dtype], OUT_PROTO[nchw.dtype]
    args = (call.head, call.perm, call.recs, mean, scale, proto, oproto)
    if nth == 1:
        _blob(*args, 0, rows)
    else:  # every thread takes chunks of rows from one counter
        counter = np.zeros(1, np.int64)
        chunk = max(1, min(rows // (4 * nth), profile.blob_chunk_bytes // max(1, osz * C * W)))
        run_split(_blob_shared, lambda r0, r1: (*args, counter, chunk, rows), nth, nth)


def consts(mean, scale, perm) -> tuple[np.ndarray, np.ndarray]:
    """float32 mean and scale in source channel order from output-order ``mean``/``scale``."""
    order = list(perm)
    return np.asarray(mean, np.float32)[order], np.asarray(scale, np.float32)[order]


def normalize_into(out: np.ndarray, src, mean, scale, perm, *, threads=None) -> None:
    """Fill ``out`` (float32 or float16, logical axes N, C, H, W in that order, non-negative
    whole-element strides) from ``src`` in one pass: an (N, H, W, C) array, or a list of N
    (H, W, C) arrays (separate images, ROIs of different parents), any strides;
    uint8/int8/uint16/int16/int32/float32/float64.

    ``mean``, ``scale``: per output channel; ``perm[c]``: output channel of source channel ``c``.
    ``threads``: at most this many threads over rows (the kernel releases the GIL), used only
    above the profile's ``blob_thread_min_bytes`` of output; None: the package's thread count.

    This is the checked path: every array the kernel reads is one made or checked here (an exact,
    aligned, native-order ndarray of one shape and dtype).
    """
    if isinstance(src, np.ndarray):
        N, H, W, C = src.shape
        images = [src]
    else:
        images = list(src)
        N = len(images)
        H, W, C = images[0].shape
    if out.shape != (N, C, H, W) or out.dtype not in OUT_PROTO:
        raise LayoutError(f"out must be float32 or float16 of logical shape {(N, C, H, W)}, got "
                          f"{out.dtype} {out.shape}")
    if N * H * W * C == 0:
        return
    if any(s < 0 or s % out.itemsize for s in out.strides):
        raise LayoutError(f"out must have non-negative whole-element strides, got {out.strides}")
    dt = images[0].dtype
    prepared = []
    for im in images:
        if im.dtype != dt:
            raise LayoutError(f"images mix dtypes {dt} and {im.dtype}")
        if im.shape != images[0].shape:
            raise LayoutError(f"images mix shapes {images[0].shape} and {im.shape}")
        im = np.asarray(im)  # an exact ndarray (a view of a subclass)
        if (not im.dtype.isnative or im.ctypes.data % im.itemsize
                or any(s % im.itemsize for s in im.strides)):
            im = np.array(im, dtype=im.dtype.newbyteorder("="), order="C")  # aligned, native
        if im.ndim == 2:
            im = im[:, :, None]
        prepared.append(im)
    dt = prepared[0].dtype
    if dt not in PROTO:
        raise LayoutError(f"image dtype {dt} not supported; expected one of "
                          f"{', '.join(sorted(str(d) for d in PROTO))}")
    perm = [int(p) for p in np.asarray(perm).reshape(-1)]
    if sorted(perm) != list(range(C)):
        raise LayoutError(f"perm must be a permutation of 0..{C - 1}, got {perm}")
    nchw = np.asarray(out)
    if nchw.dtype == np.float16 and not HALF_NATIVE:   # no float16 instruction: a float32 pass, a cast
        wide = np.empty(nchw.shape, np.float32)
        normalize_into(wide, src, mean, scale, perm, threads=threads)
        np.copyto(nchw, wide, casting="same_kind")
        return
    call = BlobCall(N, 0 if isinstance(src, np.ndarray) else 1, nchw, C, H, W, dt.itemsize, perm, prepared)
    call.fill()
    run(call, *consts(mean, scale, perm), dt, nchw, threads)
