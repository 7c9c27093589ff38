"""The ``.npy`` format as the file paths need it: read a header, write one, the in-place marker.

:func:`read_header` checks what :func:`layouts.convert_file` can move (C order, no objects, a
nonzero item size, as many bytes as the header promises) and refuses a file marked by an
interrupted in-place run (:data:`INTERRUPTED_MAGIC`), naming :func:`layouts.recover`.
:func:`header_exact` writes a header of an exact length, so a file converted in its own bytes
keeps its data where it is.

>>> h = header_bytes((2, 3), np.dtype("<f4"))
>>> len(h) % 64, h[:6]
(0, b'\x93NUMPY')
"""

from __future__ import annotations

import io
import math
import os
import struct

import numpy as np

from ..errors import LayoutError, LayoutTypeError
from ..named.layout import Layout

__all__ = ["INTERRUPTED_MAGIC", "read_header", "header_bytes", "header_exact", "check_inplace", "path_arg"]

#: The first 8 bytes of a file while it is converted in its own bytes (numpy's magic is back
#: when it is done or rolled back): a killed run leaves a file np.load refuses.
INTERRUPTED_MAGIC = b"\x93LAYOUTS"


def read_header(fd: int, path: str) -> tuple[tuple[int, ...], np.dtype, int]:
    """(shape, dtype, data offset) of the ``.npy`` file open as ``fd``; LayoutError if it is not
    a C-order ``.npy`` of plain (non-object) data."""
    if os.pread(fd, len(INTERRUPTED_MAGIC), 0) == INTERRUPTED_MAGIC:
        raise LayoutError(f"src_path {path!r} was being converted in place (convert_file(..., inplace=True)) when that "
                          f"run was killed: its data is a partial permutation of the tensor, marked so that nothing "
                          f"reads it; run layouts.recover({path!r}) (or python -m layouts recover PATH) to bring it "
                          f"back to a valid .npy, rolled back or forward as its journal allows")
    f = os.fdopen(os.dup(fd), "rb")
    with f:
        try:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
            else:
                raise ValueError(f".npy format version {version} is not supported (1.0 and 2.0 are)")
        except Exception as err:  # noqa: BLE001 - a corrupt header dict raises tokenize, syntax or type errors
            raise LayoutError(f"src_path {path!r} is not a .npy file numpy can read: {type(err).__name__}: {err}") from None
        offset = f.tell()
    if fortran:
        raise LayoutError(f"src_path {path!r} holds a Fortran-order array; expected C order "
                          f"(np.save of np.ascontiguousarray(x))")
    if dtype.hasobject:
        raise LayoutError(f"src_path {path!r} holds dtype {dtype}, Python objects; convert_file moves numeric and bool data only")
    if dtype.itemsize == 0:
        raise LayoutError(f"src_path {path!r} holds dtype {dtype} of item size 0: there are no bytes to move")
    need = offset + math.prod(shape) * dtype.itemsize
    have = os.fstat(fd).st_size
    if have < need:
        raise LayoutError(f"src_path {path!r} is truncated: its header promises {need} bytes, the file has {have}")
    return tuple(shape), dtype, offset


def header_bytes(shape: tuple[int, ...], dtype: np.dtype) -> bytes:
    """A ``.npy`` header (format 1.0, or 2.0 when it must) for a C-order array."""
    d = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": tuple(shape)}
    bio = io.BytesIO()
    try:
        np.lib.format.write_array_header_1_0(bio, d)
    except ValueError:
        bio = io.BytesIO()
        np.lib.format.write_array_header_2_0(bio, d)
    return bio.getvalue()


def header_exact(shape: tuple[int, ...], dtype: np.dtype, length: int, version: tuple[int, int]) -> bytes:
    """A ``.npy`` header of format ``version`` for a C-order ``shape`` array, padded with
    spaces to exactly ``length`` bytes (data offset unchanged); LayoutError when it does not fit.

    >>> h = header_exact((2, 3), np.dtype("<f4"), 128, (1, 0))
    >>> len(h), h[:8], h.endswith(b" \\n")
    (128, b'\\x93NUMPY\\x01\\x00', True)
    """
    d = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": tuple(shape)}
    bio = io.BytesIO()
    if version == (1, 0):
        np.lib.format.write_array_header_1_0(bio, d)
        pre, fmt = 10, "<H"
    else:
        np.lib.format.write_array_header_2_0(bio, d)
        pre, fmt = 12, "<I"
    text = bio.getvalue()[pre:].rstrip(b" \n")
    room = length - pre - 1
    if len(text) > room:
        raise LayoutError(f"the new header ({len(text) + pre + 1} bytes for shape {tuple(shape)}) does not fit in "
                          f"the file's {length}-byte header, so the data would have to move; convert to another "
                          f"path (drop inplace=True or give a different dst_path)")
    out = np.lib.format.MAGIC_PREFIX + bytes(version) + struct.pack(fmt, length - pre) + text + \
        b" " * (room - len(text)) + b"\n"
    # numpy must read back exactly this: the shape, C order, the dtype, and the data where it was
    f = io.BytesIO(out)
    read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
    if np.lib.format.read_magic(f) != version or read(f) != (tuple(shape), False, dtype) or f.tell() != length:
        raise LayoutError(f"internal error: a rewritten .npy header for shape {tuple(shape)} does not read back")
    return out


def check_inplace(src: Layout, dst: Layout) -> None:
    """LayoutError unless a tile's destination is the same size as its source: both layouts
    unpitched and padding-free (then every tile, whose bounds are multiples of each block, is too)."""
    drop = "drop inplace=True to convert with a source and a destination buffer per tile"
    for side, L in (("source", src), ("destination", dst)):
        if L.pitch or L.align:
            raise LayoutError(f"inplace=True: the {side} layout {L!r} has pitched rows, so its tiles are not the size "
                              f"of the other side's; {drop}")
        if L.has_padding:
            padded = ", ".join(f"{a} padded to {n}" for a, n in L.padded_dims.items() if n != L.dims[a])
            raise LayoutError(f"inplace=True: the {side} layout {L!r} holds {L.size - L.count} padding slots "
                              f"({padded}), so a tile's destination is not the size of its source; {drop}")


def path_arg(p: object, name: str) -> str:
    """``p`` as a str path, or a LayoutTypeError naming ``name`` (a str or os.PathLike is expected)."""
    if isinstance(p, bool) or not isinstance(p, (str, bytes, os.PathLike)):
        raise LayoutTypeError(f"{name} must be a path (str or os.PathLike), got {type(p).__name__} {p!r:.60}")
    return os.fsdecode(os.fspath(p))
