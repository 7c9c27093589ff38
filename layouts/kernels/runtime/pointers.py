"""Addresses of numpy arrays, and views made from them.

The copy engine's kernels take flat byte views of the two arrays of a copy; these are made from
each array's first-byte address as numpy's public interfaces state it (the buffer protocol,
``a.ctypes.data``), never from numpy's C struct read directly.

>>> import numpy as np
>>> a = np.zeros((4, 6), np.float32)[1:, ::2]
>>> b = np.zeros(5)
>>> address(a) == a.__array_interface__["data"][0], address(b) == b.__array_interface__["data"][0]
(True, True)
"""

from __future__ import annotations

import ctypes

import numpy as np

__all__ = ["address", "flat_view"]


_addressof, _over = ctypes.addressof, ctypes.c_char.from_buffer


def address(a: np.ndarray) -> int:
    """The address of ``a``'s first element (what ``a.ctypes.data`` gives), for an ndarray.

    A writable C-contiguous array (every output, most inputs) lends its buffer to a ctypes
    object whose address is the first byte: about a quarter of the time of ``a.ctypes.data``,
    which builds a helper object on every read; any other array is read through ``ctypes.data``.
    """
    try:
        return _addressof(_over(a))    # type: ignore[arg-type]  # an ndarray exports a buffer
    except (TypeError, ValueError, BufferError):   # read-only, strided, empty or not exportable
        return a.ctypes.data


def flat_view(arr, ext, unit, addr=None):
    """A writable 1-D ``unit`` view of the ``ext`` bytes starting at ``arr``'s first byte (at
    ``addr`` when the caller has it: reading ``arr.ctypes`` builds an object each time)."""
    buf = (ctypes.c_char * ext).from_address(arr.ctypes.data if addr is None else addr)
    return np.frombuffer(buf, dtype=unit)
