"""Arrays whose first byte starts a cache line, for ``out=`` of repeated conversions.

The kernels write large outputs a whole 64-byte line at a time, past the cache (non-temporal
stores), which needs rows that start on a line. numpy's own large arrays start 16 bytes past a
line on Linux (glibc's allocator keeps a header there), so into ``out=np.empty(...)`` a
conversion peels each row's head and tail or writes through the cache, and runs slower (up to
1.5x on the benchmark's cases, see the performance page). ``convert`` allocates its results
aligned; an ``out`` made by :func:`aligned_empty` is aligned too.

>>> import layouts as ly
>>> out = ly.aligned_empty((2, 32, 32, 3), "uint8")
>>> out.ctypes.data % 64, out.shape, out.dtype.name, out.flags.c_contiguous
(0, (2, 32, 32, 3), 'uint8', True)
>>> bool(ly.aligned_empty(5, zero=True).any())
False
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from ..errors import LayoutError, LayoutTypeError, type_name

__all__ = ["LINE", "aligned_empty"]

#: bytes in a cache line on every CPU the kernels target
LINE = 64


def aligned_empty(shape: Any, dtype: Any = np.float64, *, zero: bool = False) -> np.ndarray:
    """``np.empty(shape, dtype)`` (``np.zeros`` with ``zero=True``), C-contiguous, whose first
    byte is 64-byte aligned (an array of no bytes has none to align)."""
    dims = _dims(shape)
    dt = _dtype(dtype)
    if dt.subdtype is not None:             # ("f4", (3,)): numpy's array takes the subarray's axes
        dt, sub = dt.subdtype
        dims += sub
    dt = np.empty(0, dt).dtype              # what numpy makes of it for an array: "S0" is "S1"
    if dt.hasobject:
        raise LayoutError(f"dtype {dt} holds Python objects, which have no fixed bytes to align")
    from .._args import numpy_max_dims
    if len(dims) > numpy_max_dims():
        raise LayoutError(f"shape has {len(dims)} dims; numpy {np.__version__} holds at most "
                          f"{numpy_max_dims()}")
    nbytes = math.prod(dims) * dt.itemsize
    try:
        if not nbytes:
            return (np.zeros if zero else np.empty)(dims, dt)
        raw = (np.zeros if zero else np.empty)(nbytes + LINE, dtype=np.uint8)
        start = (-raw.ctypes.data) % LINE
        return raw[start:start + nbytes].view(dt).reshape(dims)
    except (MemoryError, ValueError) as err:       # ValueError: more bytes than numpy can index
        raise LayoutError(f"cannot allocate an array of shape {dims} and dtype {dt} ({nbytes} bytes): "
                          f"{err}") from None


def _dims(shape: Any) -> tuple[int, ...]:
    """``shape`` as a tuple of sizes >= 0 (an int is a 1-D shape), or the error naming it; what
    numpy reads as a shape, but never a bool."""
    if isinstance(shape, (bool, np.bool_, str, bytes)):
        parts = None
    else:
        try:
            parts = (operator.index(shape),)
        except TypeError:
            try:
                parts = tuple(shape)
            except TypeError:
                parts = None
    if parts is None or any(isinstance(n, (bool, np.bool_)) for n in parts):
        raise LayoutTypeError(f"shape must be an int or a sequence of ints, got {type_name(shape)}")
    try:
        dims = tuple(operator.index(n) for n in parts)
    except TypeError:
        raise LayoutTypeError(f"shape must be an int or a sequence of ints, got {type_name(shape)}") from None
    if any(n < 0 for n in dims):
        raise LayoutError(f"shape must hold sizes >= 0, got {dims}")
    return dims


def _dtype(dtype: Any) -> np.dtype:
    """``np.dtype(dtype)``, or the error naming the argument."""
    try:
        return np.dtype(dtype)
    except TypeError as err:
        raise LayoutTypeError(f"dtype must be a numpy dtype, got {type_name(dtype)} ({err})") from None
    except (ValueError, SyntaxError) as err:        # a malformed spec: ("f4", -1), "i4,,"
        raise LayoutError(f"dtype {dtype!r} is not a valid numpy dtype ({err})") from None
