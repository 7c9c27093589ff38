"""Arrays whose first byte starts a cache line, for ``out=`` of repeated conversions.

The kernels write large outputs a whole 64-byte line at a time, past the cache (non-temporal
stores), which needs rows that start on a line. numpy's own large arrays start 16 bytes past a
line (its allocator keeps a header there), so into ``out=np.empty(...)`` a conversion peels each
row's head and tail or writes through the cache, and runs slower (up to 1.4x on the benchmark's
cases, see the performance page). ``convert`` allocates its results aligned; an ``out`` made by
:func:`aligned_empty` is aligned too.

>>> import layouts as ly
>>> out = ly.aligned_empty((2, 32, 32, 3), "uint8")
>>> out.ctypes.data % 64, out.shape, out.dtype.name, out.flags.c_contiguous
(0, (2, 32, 32, 3), 'uint8', True)
>>> bool(ly.aligned_empty(5, zero=True).any())
False
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .errors import LayoutError, LayoutTypeError, type_name

__all__ = ["LINE", "aligned_empty"]

#: bytes in a cache line on every CPU the kernels target
LINE = 64


def aligned_empty(shape: int | tuple[int, ...], dtype: Any = np.float64, *, zero: bool = False) -> np.ndarray:
    """A C-contiguous array of ``shape`` and ``dtype`` whose first byte is 64-byte aligned (an
    empty one has no bytes to align), with ``np.empty``'s arguments; ``zero=True`` fills it with
    zeros, as ``np.zeros``."""
    dims = _dims(shape)
    try:
        dt = np.dtype(dtype)
    except TypeError as err:
        raise LayoutTypeError(f"dtype must be a numpy dtype, got {dtype!r} ({err})") from None
    if dt.hasobject:
        raise LayoutError(f"dtype {dt} holds Python objects, which have no fixed bytes to align")
    count = 1
    for n in dims:
        count *= n
    nbytes = count * dt.itemsize
    try:
        raw = (np.zeros if zero else np.empty)(nbytes + LINE, dtype=np.uint8)
    except (MemoryError, ValueError):      # ValueError: more bytes than numpy can index
        raise LayoutError(f"cannot allocate {nbytes} bytes for an array of shape {dims} and dtype {dt}") from None
    start = (-raw.ctypes.data) % LINE
    return raw[start:start + nbytes].view(dt).reshape(dims)


def _dims(shape: Any) -> tuple[int, ...]:
    """``shape`` as a tuple of sizes >= 0 (an int is a 1-D shape), or the error naming it."""
    parts = (shape,) if not isinstance(shape, (tuple, list)) else tuple(shape)
    try:
        dims = tuple(operator.index(n) for n in parts)
    except TypeError:
        raise LayoutTypeError(f"shape must be an int or a tuple of ints, got {type_name(shape)}") from None
    if any(n < 0 for n in dims):
        raise LayoutError(f"shape must hold sizes >= 0, got {shape!r}")
    return dims
