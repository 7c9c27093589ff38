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
>>> v = unowned_view(a); v[0, 0] = 7; float(a[0, 0]), v.base is not None and v.base is not a.base
(7.0, True)
>>> snap = struct_snapshot(a)                         # where STRUCT
>>> unchanged(snap), (a.shape, a.strides)
(True, ((3, 3), (24, 8)))
>>> a.shape = (9,)                                    # in place: another shape, the same object
>>> unchanged(snap)
False
"""

from __future__ import annotations

import ctypes
import sys

import numpy as np

__all__ = ["DIRECT", "STRUCT", "address", "flat_view", "unowned_view", "struct_snapshot", "unchanged"]

_DATA = object.__basicsize__            # the data pointer follows PyObject_HEAD
_read = ctypes.c_size_t.from_address
_WORD = ctypes.sizeof(ctypes.c_size_t)
#: the fields from the data pointer through the flags: data, nd, dimensions, strides, base, descr, flags
_FIELDS = 7
_WRITEABLE = 0x0400                     # NPY_ARRAY_WRITEABLE


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


def _fields_read_right(a: np.ndarray) -> bool:
    data, nd, dims, strides, base, descr, flags = (ctypes.c_size_t * _FIELDS).from_address(id(a) + _DATA)
    nd &= 0xFFFFFFFF
    return (data == a.ctypes.data and nd == a.ndim and strides == dims + nd * _WORD
            and tuple((ctypes.c_ssize_t * (2 * nd)).from_address(dims)) == a.shape + a.strides
            and base == (0 if a.base is None else id(a.base)) and descr == id(a.dtype)
            and bool(flags & _WRITEABLE) == a.flags.writeable)


def _probe_struct() -> bool:
    if not DIRECT:
        return False
    base = np.zeros((5, 7, 3), np.float32)
    frozen = np.zeros((4, 2), np.uint16)
    frozen.flags.writeable = False
    arrays = (base, base[1:4, ::-2], base[::-1, :, 1:2].T, np.zeros((2, 3), np.uint8)[:, 1:], base[2, 3, 1:],
              frozen, base.view(np.memmap))
    return all(_fields_read_right(a) for a in arrays)


#: whether :func:`struct_snapshot` can watch numpy's struct (its field layout verified at import)
STRUCT: bool = _probe_struct()


def address(a: np.ndarray) -> int:
    """The address of ``a``'s first element (what ``a.ctypes.data`` gives), for an ndarray."""
    return _direct(a) if DIRECT else a.ctypes.data


def struct_snapshot(a: np.ndarray) -> tuple | None:
    """What numpy keeps of ``a`` now, to be told later by :func:`unchanged` whether any of it
    changed: its data pointer, ndim, shape, strides, base, dtype and flags (which hold its
    writeability), as two ctypes views (the struct's fields, and the block holding shape and
    strides) and their bytes. Cheaper to compare after other work than reading each attribute,
    which builds tuples and objects. None where :data:`STRUCT` is false, for a 0-d array, or where
    the strides are not kept after the shape (numpy always does; then the caller checks each).
    Use it only while the object at ``id(a)`` is an ndarray: a caller holding ``a`` itself, or
    checking that the ndarray it holds has that ``id``."""
    if not STRUCT or a.ndim == 0:
        return None
    fields = (ctypes.c_char * (_FIELDS * _WORD)).from_address(id(a) + _DATA)
    dims, strides = _read(id(a) + _DATA + 2 * _WORD).value, _read(id(a) + _DATA + 3 * _WORD).value
    if strides != dims + a.ndim * _WORD:
        return None
    sizes = (ctypes.c_char * (2 * a.ndim * _WORD)).from_address(dims)
    return fields, fields.raw, sizes, sizes.raw


def unchanged(snapshot: tuple) -> bool:
    """Whether the array a :func:`struct_snapshot` was taken of still has every field it had then
    (the shape block is read only when its pointer is still the same, so freed memory is never
    read)."""
    fields, was, sizes, sizes_were = snapshot
    return fields.raw == was and sizes.raw == sizes_were


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


def flat_view(arr, ext, unit, addr=None):
    """A writable 1-D ``unit`` view of the ``ext`` bytes starting at ``arr``'s first byte (at
    ``addr`` when the caller has it: reading ``arr.ctypes`` builds an object each time)."""
    buf = (ctypes.c_char * ext).from_address(arr.ctypes.data if addr is None else addr)
    return np.frombuffer(buf, dtype=unit)
