"""``convert_file(path, src, path, dst, inplace=True)``: a ``.npy`` file converted in its own bytes.

For the case where the tensor does not fit in memory twice, nor on the disk twice: the file's
data is mapped (``mmap``, shared, so the kernel writes the pages back and may evict them: a
file larger than RAM works, at disk speed) and converted by :func:`layouts.convert_inplace`,
whose extra memory is its scratch (``max(1% of the file, 64 KiB)``, plus one line of ``max(M, N)``
elements when a pass needs Catanzaro-Keller-Garland; the plan's exact figure is refused when above
``memory``); then the header is rewritten to the new shape. The new header is padded to the
old one's exact length, so the data does not move: numpy pads headers to a multiple of 64 bytes
and leaves room for 21 digits of the first axis, so a new shape (one more dim for a blocked
layout) normally fits; when it does not, a LayoutError comes before anything is written.

It cannot be atomic (there is no second copy to rename). What an interrupted run leaves:

* an error before the conversion starts (bad arguments, too little ``memory``): the file untouched;
* KeyboardInterrupt (Ctrl-C): :func:`layouts.convert_inplace` finishes the running pass and undoes
  the finished ones, then the old header is restored: the file is byte-identical to before;
* SIGKILL, a crash or a power cut while the passes run: the data is a partial permutation of
  the tensor (not recoverable without knowing how far the pass got), and the first 8 bytes are
  :data:`~layouts.chunked.npy.INTERRUPTED_MAGIC` instead of numpy's magic, written (and with
  ``fsync=True`` flushed) before the first byte of data moves, so ``np.load`` refuses the file
  instead of reading garbage, and ``convert_file`` says what happened. Keep a copy of files
  you cannot recreate.
* once the data is converted (flushed first with ``fsync=True``) the new header is written in
  one 64-byte-aligned ``pwrite`` of at most a few hundred bytes.

>>> import numpy as np, os, tempfile, layouts as ly
>>> p = os.path.join(tempfile.mkdtemp(), "x.npy")
>>> x = np.arange(2 * 32 * 3 * 3, dtype=np.float32).reshape(2, 32, 3, 3)
>>> np.save(p, x); size = os.path.getsize(p)
>>> ly.convert_file(p, "NCHW", p, "NCHW16c", inplace=True)
>>> y = np.load(p); y.shape, np.array_equal(y, ly.convert(x, "NCHW", "NCHW16c")), os.path.getsize(p) == size
((2, 2, 3, 3, 16), True, True)
"""

from __future__ import annotations

import io
import mmap
import os
import struct
from typing import Any

import numpy as np

from ..errors import LayoutError
from ..layout import Layout
from . import _boxes
from .memory import parse_memory
from .npy import INTERRUPTED_MAGIC, check_inplace, read_header
from .progress import reporter

_MIDWAY = "failed midway"  # convert_inplace's note on an exception raised inside a pass


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


def convert_file_inplace(path: str, src: str | Layout, dst: str | Layout, *, memory: int | str = "256MB",
                         progress: Any = None, fsync: bool = True, **dims: int) -> None:
    """Convert the ``.npy`` file ``path`` from ``src`` to ``dst`` in its own bytes (see the
    module notes for what an interrupted run leaves). ``memory`` bounds the scratch."""
    try:
        _run(path, src, dst, parse_memory(memory), progress, bool(fsync), dims)
    except LayoutError as err:
        raise LayoutError(_boxes.message(src, dst, "convert_file", err)) from None


def _run(path: str, src: Any, dst: Any, budget: int, progress: Any, fsync: bool, dims: dict) -> None:
    from ..inplace import convert_inplace, plan_inplace

    if not os.path.exists(path):
        raise FileNotFoundError(2, f"src_path {path!r} does not exist", path)
    if os.path.isdir(path):
        raise LayoutError(f"src_path {path!r} is a directory, expected a .npy file")
    if isinstance(src, Layout) and (src.pitch or src.align):
        check_inplace(src, src)
    fd = os.open(path, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
    mm = arr = None
    try:
        shape, dtype, offset = read_header(fd, path)
        old = os.pread(fd, offset, 0)
        version = (old[6], old[7])
        s, d = _boxes.resolve(src, dst, shape, dtype.itemsize, dims)
        check_inplace(s, d)
        new = header_exact(d.shape, dtype, offset, version)
        nbytes = s.size * dtype.itemsize
        if nbytes:
            plan = plan_inplace(s, d, s.shape, dtype)
            if plan.scratch_bytes > budget:
                raise LayoutError(f"memory={budget} bytes is too small: converting this {nbytes}-byte file in place "
                                  f"needs {plan.scratch_bytes} bytes of scratch; give at least that")
            mm = mmap.mmap(fd, offset + nbytes, access=mmap.ACCESS_WRITE)
            arr = np.frombuffer(mm, dtype, count=s.size, offset=offset)
        with reporter(progress, nbytes, f"{s.spec} -> {d.spec} (in place)") as step:
            if arr is not None:
                os.pwrite(fd, INTERRUPTED_MAGIC, 0)  # a killed run leaves a file np.load refuses
                if fsync:
                    os.fsync(fd)
                try:
                    convert_inplace(arr, s, d)
                except BaseException as err:
                    if any(_MIDWAY in n for n in getattr(err, "__notes__", ())):
                        err.add_note(f"convert_file: {path!r} is left partly permuted, marked unreadable")
                    else:  # KeyboardInterrupt (passes undone) or an error before the first move
                        os.pwrite(fd, old, 0)
                    raise
                if fsync:
                    mm.flush()  # the data on disk before the header says it is converted
            os.pwrite(fd, new, 0)
            if fsync:
                os.fsync(fd)
            step(nbytes)
    finally:
        arr = None
        if mm is not None:
            try:
                mm.close()
            except BufferError:  # a traceback still holds a view: unmapped when it goes
                pass
        os.close(fd)
