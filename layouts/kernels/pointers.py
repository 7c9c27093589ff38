"""The address of an array's first byte, read where numpy keeps it.

``a.ctypes.data`` builds a ctypes helper object on every read, and the copy engine reads two
addresses a copy, which on a small copy is a fair part of the call. numpy's array struct
(``PyArrayObject_fields``, its public C ABI) holds the data pointer right after the object
header, so in CPython it lies at ``id(a) + object.__basicsize__``. :data:`DIRECT` says whether
that was verified on this interpreter at import; where it was not, :func:`address` reads
``a.ctypes.data``.

>>> import numpy as np
>>> a = np.zeros((4, 6), np.float32)[1:, ::2]
>>> address(a) == a.ctypes.data
True
>>> data_pointer_cell(a).value == a.ctypes.data      # re-read on each .value (where DIRECT)
True
>>> v = unowned_view(a); v[0, 0] = 7; float(a[0, 0]), v.base is not None and v.base is not a.base
(7.0, True)
"""

from __future__ import annotations

import ctypes
import sys

import numpy as np

__all__ = ["DIRECT", "address", "data_pointer_cell", "unowned_view"]

_DATA = object.__basicsize__            # the data pointer follows PyObject_HEAD
_read = ctypes.c_size_t.from_address


def _direct(a: np.ndarray) -> int:
    return _read(id(a) + _DATA).value


def _probe() -> bool:
    if sys.implementation.name != "cpython" or ctypes.sizeof(ctypes.c_void_p) != ctypes.sizeof(ctypes.c_size_t):
        return False
    base = np.zeros((5, 7, 3), np.float32)
    arrays = (base, base[1:4, ::-2], base[::-1, :, 1:2], np.zeros((2, 3), np.uint8)[:, 1:], base[2, 3, 1:],
              np.zeros((), np.int16), base.view(np.memmap))
    return all(_direct(a) == a.ctypes.data for a in arrays)


#: whether :func:`address` reads numpy's struct directly (verified at import), not ``ctypes.data``
DIRECT: bool = _probe()


def address(a: np.ndarray) -> int:
    """The address of ``a``'s first element (what ``a.ctypes.data`` gives), for an ndarray."""
    return _direct(a) if DIRECT else a.ctypes.data


def data_pointer_cell(a: np.ndarray) -> ctypes.c_size_t:
    """The slot where numpy keeps ``a``'s data pointer, as a ctypes value read afresh on each
    ``.value`` (an object can be given another buffer, by ``__setstate__`` for one). Only where
    :data:`DIRECT`, and only while the object at ``id(a)`` is an ndarray: a caller holding ``a``
    itself, or checking that the ndarray it holds has that ``id``."""
    return _read(id(a) + _DATA)


def unowned_view(a: np.ndarray) -> np.ndarray:
    """A view of ``a``'s elements that refers to their memory by address only, so that it keeps
    no array alive (a view made by numpy keeps its whole base, a large buffer for a small slice).
    Use it only while ``a``'s memory lives."""
    if a.size == 0:
        return np.empty(a.shape, a.dtype)
    reach = [(n - 1) * s for n, s in zip(a.shape, a.strides)]
    low = sum(r for r in reach if r < 0)
    span = sum(r for r in reach if r > 0) - low + a.itemsize
    memory = (ctypes.c_char * span).from_address(address(a) + low)
    return np.ndarray(a.shape, a.dtype, buffer=memory, offset=-low, strides=a.strides)
