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
"""

from __future__ import annotations

import ctypes
import sys

import numpy as np

__all__ = ["DIRECT", "address"]

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
