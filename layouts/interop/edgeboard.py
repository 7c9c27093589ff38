"""EdgeBoard / Paddle-Lite FPGA: the aligned FP16 NHWC image layout, feed and fetch.

The FPGA reads activations as FP16 NHWC in which every (n, h) row of ``W * C`` values is
zero-padded up to a multiple of 16 (``IMAGE_ALIGNMENT``), so a tensor takes
``N * H * align_to_x(W * C, 16)`` elements. The runtime's feed converts a float32 NCHW input into
that; its fetch drops the padding and returns float32 NCHW. Here both are a
:func:`layouts.convert` between ``NCHW`` and ``Layout("NHWC", ..., align={"H": 16})``.

>>> align_to_x(12, 16), fpga_image_size(N=1, C=3, H=5, W=4)
(16, 80)
>>> fpga_image_layout(N=1, C=3, H=5, W=4).strides
{'N': 80, 'H': 16, 'W': 3, 'C': 1}
"""

from __future__ import annotations

import numpy as np

from ..errors import LayoutError, LayoutTypeError
from .._args import int_arg, numeric_array, threads_arg
from ..errors import number as show_int

#: Paddle-Lite FPGA's ``IMAGE_ALIGNMENT``: elements per aligned row.
IMAGE_ALIGNMENT = 16

__all__ = ["IMAGE_ALIGNMENT", "align_to_x", "fpga_image_layout", "fpga_image_size",
           "fpga_image_nbytes", "feed", "fetch"]


def _nonneg(name, v) -> int:
    v = int_arg(name, v)
    if v < 0:
        raise LayoutError(f"{name} must be a non-negative int, got {show_int(v)}")
    return v


def _dims(N, C, H, W, alignment):
    """The four sizes and the alignment, checked (ints; sizes >= 0, alignment >= 1)."""
    N, C, H, W = (_nonneg(k, v) for k, v in (("N", N), ("C", C), ("H", H), ("W", W)))
    return N, C, H, W, int_arg("alignment", alignment, lo=1)


def align_to_x(num: int, x: int) -> int:
    """``(num + x - 1) / x * x``: ``num`` rounded up to a multiple of ``x``.

    >>> align_to_x(3315, 16), align_to_x(16, 16), align_to_x(0, 16)
    (3328, 16, 0)
    """
    num = _nonneg("num", num)
    x = _nonneg("x", x)
    if x == 0:
        raise LayoutError("alignment x must be >= 1, got 0")
    return (num + x - 1) // x * x


def fpga_image_layout(N: int, C: int, H: int, W: int, alignment: int = IMAGE_ALIGNMENT):
    """The FPGA image layout as a :class:`layouts.Layout`: NHWC, rows of W*C aligned."""
    from ..named.layout import Layout

    N, C, H, W, alignment = _dims(N, C, H, W, alignment)
    return Layout("NHWC", N=N, C=C, H=H, W=W, align={"H": alignment})


def fpga_image_size(N: int, C: int, H: int, W: int, alignment: int = IMAGE_ALIGNMENT) -> int:
    """Elements the FPGA allocates: ``N * H * align_to_x(W * C, alignment)``.

    >>> fpga_image_size(N=1, C=255, H=13, W=13)
    43264
    """
    N, C, H, W, alignment = _dims(N, C, H, W, alignment)
    return N * H * align_to_x(W * C, alignment)


def fpga_image_nbytes(N: int, C: int, H: int, W: int, alignment: int = IMAGE_ALIGNMENT) -> int:
    """Bytes of the FP16 image: 2 per element (160 for 1x3x5x4)."""
    return 2 * fpga_image_size(N, C, H, W, alignment)


def _nchw(x, what):
    a = numeric_array(what, x)
    if a.ndim != 4:
        raise LayoutError(f"{what} must be 4-D NCHW, got shape {a.shape}")
    return a


def feed(x, out=None, alignment: int = IMAGE_ALIGNMENT, threads=None, *, inplace: bool = False) -> np.ndarray:
    """Float NCHW -> the FPGA's flat FP16 buffer (aligned NHWC rows, padding zero), as the
    runtime's feed does. ``out``: a float16 buffer of :func:`fpga_image_size` elements.
    Values beyond float16's range become +-inf; NaN stays NaN.

    ``inplace=True`` converts in ``x``'s own memory (:func:`layouts.convert_inplace`, extra
    memory ``max(1% of x, 64 KiB)``, one line more in a rare CKG pass) and returns the flat buffer as a view of ``x``, for a
    board without room for a second copy. It needs ``x`` float16, C-contiguous and writable, and
    rows that need no padding (``W * C`` a multiple of ``alignment``); otherwise a LayoutError says
    which condition fails. ``x`` then holds the FPGA's bytes (NHWC), no longer NCHW.

    >>> x = np.arange(12, dtype=np.float32).reshape(1, 3, 2, 2)
    >>> feed(x, alignment=8).reshape(2, 8)[0].tolist()
    [0.0, 4.0, 8.0, 1.0, 5.0, 9.0, 0.0, 0.0]
    >>> h = np.arange(16, dtype=np.float16).reshape(1, 4, 2, 2)     # W*C = 8: rows need no padding
    >>> buf = feed(h, alignment=8, inplace=True)
    >>> buf[:8].tolist(), np.shares_memory(buf, h)
    ([0.0, 4.0, 8.0, 12.0, 1.0, 5.0, 9.0, 13.0], True)
    """
    from ..conversion.front import convert

    a = _nchw(x, "feed input")
    threads = threads_arg(threads)
    N, C, H, W = a.shape
    L = fpga_image_layout(N, C, H, W, alignment)
    if not isinstance(inplace, (bool, np.bool_)):
        raise LayoutTypeError(f"inplace must be True or False, got {type(inplace).__name__}")
    if inplace:
        return _feed_inplace(x, a, out, L, threads)
    if out is None:
        out = np.empty(L.size, np.float16)
    elif not isinstance(out, np.ndarray):
        raise LayoutTypeError(f"out must be a numpy float16 array, got {type(out).__name__}")
    elif not (out.dtype == np.float16 and out.ndim == 1 and out.size == L.size):
        raise LayoutError(f"out must be a flat float16 buffer of {L.size} elements, got "
                          f"{out.dtype} {out.shape}")
    elif not out.flags.writeable:
        raise LayoutError("out is read-only; pass a writable float16 buffer")
    elif np.may_share_memory(out, a):
        raise LayoutError("out overlaps the input; feed needs a separate buffer")
    # FP16 first (numpy's correctly rounded cast; beyond +-65504 a value becomes +-inf, as the
    # runtime's fp32 -> fp16 cast makes it, without numpy's overflow warning), then one strided
    # move into the aligned rows
    with np.errstate(over="ignore"):
        half = a.astype(np.float16, copy=False)
    convert(half, "NCHW", L, out=out, threads=threads)
    return out


def _feed_inplace(x, a, out, L, threads) -> np.ndarray:
    """``feed(..., inplace=True)``: every condition checked before a byte moves."""
    from ..inplace.front import convert_inplace

    N, C, H, W = a.shape
    why = "drop inplace=True to feed into a new buffer"
    if out is not None:
        raise LayoutError(f"out= and inplace=True exclude each other: inplace=True writes the FPGA buffer into "
                          f"x's own memory; {why}")
    if not isinstance(x, np.ndarray):
        raise LayoutError(f"inplace=True needs x to be a numpy float16 array, got {type(x).__name__}; {why}")
    if a.dtype != np.float16:
        raise LayoutError(f"inplace=True needs x in float16, got {a.dtype}: the cast to float16 needs a new "
                          f"buffer (x.astype(np.float16) first, or {why})")
    if not a.flags.writeable:
        raise LayoutError(f"inplace=True writes into x, but x is read-only; {why}")
    if not a.flags.c_contiguous:
        raise LayoutError(f"inplace=True needs x C-contiguous (strides {a.strides}); np.ascontiguousarray(x) "
                          f"first, or {why}")
    if L.size != a.size:
        row = W * C
        raise LayoutError(f"inplace=True needs rows without padding, but a row of W*C = {row} values is padded "
                          f"to {align_to_x(row, L.align['H'])} "
                          f"(alignment {L.align['H']}): the FPGA buffer needs {L.size} elements, x holds {a.size} "
                          f"({L.size - a.size} more); {why}")
    y = convert_inplace(a, "NCHW", "NHWC", threads=threads)
    return y.reshape(-1)


def fetch(buffer, N: int, C: int, H: int, W: int, alignment: int = IMAGE_ALIGNMENT,
          threads=None) -> np.ndarray:
    """The FPGA's flat FP16 buffer -> float32 NCHW, padding dropped (the runtime's fetch).

    >>> x = np.arange(12, dtype=np.float32).reshape(1, 3, 2, 2)
    >>> bool((fetch(feed(x), 1, 3, 2, 2) == x).all())
    True
    """
    from ..conversion.front import convert

    threads = threads_arg(threads)
    L = fpga_image_layout(N, C, H, W, alignment)
    N, C, H, W, alignment = _dims(N, C, H, W, alignment)
    want = (f"{L.size} float16 values = {2 * L.size} bytes (N*H*align(W*C, {alignment}) for "
            f"N={N} C={C} H={H} W={W})")
    if isinstance(buffer, (bytes, bytearray, memoryview)):
        buffer = np.frombuffer(buffer, np.uint8)
    elif not isinstance(buffer, np.ndarray):
        raise LayoutTypeError(f"buffer must be a numpy float16/uint8 array or bytes, got "
                        f"{type(buffer).__name__}")
    buf = buffer
    if buf.dtype == np.uint8:  # raw bytes from the device: the size is checked before the view
        if buf.ndim != 1 or buf.size != 2 * L.size:
            raise LayoutError(f"buffer must be {want}; got {buf.size} bytes (uint8 {buf.shape})")
        buf = np.ascontiguousarray(buf).view(np.float16)
    if buf.ndim != 1 or buf.dtype != np.float16 or buf.size != L.size:
        raise LayoutError(f"buffer must be {want}; got {buf.dtype} {buf.shape}")
    nchw16 = convert(L.view(buf), L, "NCHW", threads=threads, N=N, C=C, H=H, W=W)
    return nchw16.astype(np.float32)
