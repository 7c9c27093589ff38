"""``convert_file``: one ``.npy`` file to another in a new layout, in bounded memory.

The conversion is cut into *tiles*, boxes of logical coordinates whose bounds are multiples of
every block (:mod:`._boxes`), so each tile is a small in-memory conversion run by
:func:`layouts.convert`'s plans and numba kernels. Tile extents are chosen so that both files
are touched in long contiguous runs: starting from one block, the axis that ends the shorter
of the two runs (source read, destination write) grows, doubling, until source tile +
destination tile fill the budget (the kernels' cache blocking, one level up). Tiles are visited
in the destination's order, so the output is written front to back in large ``pwrite`` s.
A source tile whose runs are dense (its span at most :data:`MAP_DENSITY` times its bytes) is
read in place through a memory map of just that span, unmapped after the tile (no read copy);
a scattered one is read run by run with ``preadv`` into one reused buffer. Resident memory is
therefore the destination buffer plus one source tile (mapped pages count as the process's
resident memory while mapped, and only then; page-cache pages of reads and writes never do),
plus the interpreter, numpy and numba (about 90 MB): peak RSS <= ``memory`` + ~100 MB.

Crash safety: the output goes to a temporary file beside ``dst_path`` (``.NAME.XXXX.part``,
locked while it is written), which is fsynced and then renamed over ``dst_path``
(``os.replace``, atomic on POSIX); the source is opened read-only and share-locked, and a
source whose size or mtime changes during the run is an error naming it (reads never fill a
shrunk file with zeros). An exception or a Ctrl-C at any instant removes the temporary file; a
killed process leaves it behind (it never has ``dst_path``'s name) and the next run into that
folder removes it; ``dst_path`` either does not exist or still holds what it held before. A
second conversion into the same ``dst_path`` while one runs is refused naming the other process.

``inplace=True`` reads each tile into one buffer, converts it there with
:func:`layouts.convert_inplace` and writes it from there (the budget: one tile plus its scratch);
the crash safety above is unchanged. With ``dst_path`` the source file itself it converts that
file in its own bytes as a journaled transaction (:mod:`.inplace_file`).

A pitched destination (a :class:`~layouts.Layout` with ``pitch=`` or ``align=``) is written
as its flat buffer, gaps zero: the header's shape is ``(dst.size,)`` and
``dst.view(np.load(path))`` gives the strided physical view. A pitched source is read the same
way: a flat ``.npy`` of at least ``src.span`` elements (gaps are read and ignored).

>>> import numpy as np, os, tempfile, layouts as ly
>>> d = tempfile.mkdtemp()
>>> x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
>>> np.save(os.path.join(d, "x.npy"), x)
>>> ly.convert_file(os.path.join(d, "x.npy"), "NCHW", os.path.join(d, "y.npy"), "NHWC", memory="4KB")
>>> np.array_equal(np.load(os.path.join(d, "y.npy")), x.transpose(0, 2, 3, 1))
True
"""

from __future__ import annotations

import errno
import fcntl
import math
import os
import stat
import tempfile
from typing import Any, Mapping

import numpy as np

from ..errors import LayoutError, LayoutTypeError
from ..named.layout import Layout
from . import _boxes
from .budget import parse_memory
from ..inplace.faultpoints import point
from ..request import reworded
from ..inplace.signals import SignalHold
from .filelock import lock, open_regular, remove_stale_parts
from .inplace_file import convert_file_inplace
from .npyformat import INTERRUPTED_MAGIC, check_inplace, header_bytes, path_arg, read_header  # noqa: F401 - also their old home
from .fileio import MAP_DENSITY, MAP_SOURCE, Region, fsync_dir, mapped_region, read_region, write_region  # noqa: F401
from .progress import reporter
from .tiles import BUFFER_SHARE, WRITE_BUFFERS, plan_tiles, tile_cost, tiles, write_buffers  # noqa: F401 - old home

#: Reserve the output's disk space up front (posix_fallocate): no ENOSPC midway.
PREALLOCATE = True


def convert_file(src_path: Any, src: str | Layout, dst_path: Any, dst: str | Layout, *,
                 memory: int | str = "256MB", progress: Any = None, fsync: bool = True, inplace: bool = False,
                 replace_readonly: bool = False, **dims: int) -> None:
    """Convert the ``.npy`` file ``src_path`` (layout ``src``) to ``dst_path`` (layout ``dst``).

    Parameters
    ----------
    src_path, dst_path : str or path-like
        A C-order ``.npy`` file of ``src``'s physical shape (a flat one for a pitched source
        Layout), and where to write. ``dst_path`` is replaced atomically at the end.
    src, dst : str or Layout
        As for :func:`layouts.convert`. A pitched ``dst`` is written as its flat buffer.
    memory : int or str
        Budget for the tiles: bytes, or ``"256MB"``, ``"1GiB"``... The process's peak resident
        memory stays within about this plus the interpreter with numpy and numba (~90 MB).
    progress : None, bool or callable
        A tqdm bar (terminal or Jupyter) when ``None`` and the output is 256 MB or more
        (:data:`layouts.chunked.progress.AUTO_BYTES`; decimal megabytes, as ``memory=`` and the
        bar count them); ``True``/``False`` force it; a callable gets ``(done_bytes, total_bytes)``
        after each tile.
    fsync : bool
        ``True`` (default) flushes the result to the disk before the rename (in place: the data
        before each journal record that describes it), so that it survives a power cut, a kernel
        panic or a machine switched off too. ``False`` gives that promise up: a killed process
        still leaves no truncated ``dst_path`` (in place: a file ``recover`` repairs), because the
        page cache outlives it, but after a power cut the destination -- or, in place, the file
        itself -- may hold any mixture of old and new bytes, and ``recover`` cannot tell.
    inplace : bool
        ``True``: convert each tile inside ONE buffer with :func:`layouts.convert_inplace` (read,
        converted in place, written from it), so ``memory`` holds one tile plus its scratch
        (:func:`tile_cost`) instead of a source and a destination tile: tiles about twice as large.
        With ``dst_path`` the same file as ``src_path`` it converts the file in its own bytes
        through a memory map (:mod:`layouts.chunked.inplace_file`): no second copy in memory or
        on disk; ``memory`` bounds the scratch and the bytes a journal step backs up beside the
        file. Any exception or signal (Ctrl-C, SIGTERM, a full disk) leaves the file byte for byte
        the original (or, arriving after the last step, converted). A killed run (SIGKILL, a
        crash, a power cut) leaves it marked so that ``np.load`` and ``convert_file`` refuse it;
        then ``layouts.recover(path)`` (or ``python -m layouts recover PATH``) brings it back to a
        valid ``.npy`` from its journal and says which: ``"converted"`` or ``"original"``. Both
        layouts must be padding-free and unpitched (a tile's destination the same size as its
        source); anything else is a LayoutError that says why (no silent fallback to the
        two-buffer path). A second conversion of the file while one runs is refused naming it.
    replace_readonly : bool
        A ``dst_path`` that exists without any write permission (mode ``0o444``: marked
        read-only, which ``root`` could still replace) is refused unless this is ``True``; so is
        converting such a file in place. The result keeps an existing destination's permission
        bits (a read-only file replaced stays read-only); a new file gets ``0o666`` less the umask.
    **dims : int
        Sizes the physical shape cannot tell (``C=20`` for a blocked source, ``C0=``).

    Examples
    --------
    >>> import numpy as np, os, tempfile, layouts as ly
    >>> d = tempfile.mkdtemp(); src, dst = os.path.join(d, "a.npy"), os.path.join(d, "b.npy")
    >>> np.save(src, np.ones((1, 20, 2, 2), np.float32))
    >>> ly.convert_file(src, "NCHW", dst, "NCHW16c", memory="2KB")
    >>> y = np.load(dst); y.shape, float(y[0, 1, 0, 0, :4].sum()), float(y[0, 1, 0, 0, 4:].sum())
    ((1, 2, 2, 2, 16), 4.0, 0.0)
    >>> ly.convert_file(src, "NCHW", dst, "NHWC", memory="1MB", inplace=True)   # one buffer per tile
    >>> np.load(dst).shape
    (1, 2, 2, 20)
    >>> ly.convert_file(dst, "NHWC", dst, "NCHW", inplace=True)                  # the file in its own bytes
    >>> np.array_equal(np.load(dst), np.load(src))
    True
    """
    src_path, dst_path = path_arg(src_path, "src_path"), path_arg(dst_path, "dst_path")
    budget = parse_memory(memory)
    if not (progress is None or isinstance(progress, bool) or callable(progress)):
        raise LayoutTypeError(f"progress must be None, True, False or a callable(done, total), got {type(progress).__name__}")
    if not isinstance(inplace, (bool, np.bool_)):
        raise LayoutTypeError(f"inplace must be True or False, got {type(inplace).__name__} {inplace!r}")
    if not isinstance(replace_readonly, (bool, np.bool_)):
        raise LayoutTypeError(f"replace_readonly must be True or False, got {type(replace_readonly).__name__}")
    if not replace_readonly:
        try:
            _refuse_readonly(dst_path)
        except LayoutError as err:
            raise reworded(err, "convert_file", src, dst) from None
    if inplace and _same_file(src_path, dst_path):
        return convert_file_inplace(src_path, src, dst, memory=memory, progress=progress, fsync=fsync, **dims)
    try:
        job = _Job.open(src_path, src, dst_path, dst, budget, dims, bool(inplace), memory)
    except LayoutError as err:
        raise reworded(err, "convert_file", src, dst) from None
    try:
        job.run(progress, bool(fsync))
    except LayoutError as err:
        raise reworded(err, "convert_file", src, dst) from None
    finally:
        job.close()


def _refuse_readonly(dst_path: str) -> None:
    try:
        st = os.stat(dst_path)
    except OSError:
        return
    if stat.S_ISREG(st.st_mode) and not st.st_mode & 0o222:
        raise LayoutError(f"dst_path {dst_path!r} is read-only (mode {stat.S_IMODE(st.st_mode):#o}); pass "
                          f"replace_readonly=True to replace it anyway, or make it writable first; nothing was written")


def _kept_mode(path: str, default: int) -> int:
    """The permission bits of the regular file at ``path``, which a replacement keeps (a read-only
    destination replaced with replace_readonly=True stays read-only); ``default`` for a new file."""
    try:
        st = os.stat(path)
    except OSError:
        return default
    return stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else default


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.realpath(a) == os.path.realpath(b) or (os.path.exists(b) and os.path.samefile(a, b))
    except OSError:
        return False


def convert_tile(src_buf: np.ndarray, src_tile: Layout, dst_tile: Layout, out: np.ndarray) -> None:
    """The per-tile converter: ``out`` (shaped as ``dst_tile``) from ``src_buf`` (shaped as ``src_tile``).

    ``convert_file(inplace=True)`` uses :func:`convert_tile_inplace` instead.
    """
    from ..conversion.front import convert

    convert(src_buf, src_tile, dst_tile, out=out)


def convert_tile_inplace(buf: np.ndarray, src_tile: Layout, dst_tile: Layout) -> None:
    """The in-place per-tile converter: the flat ``buf`` holds ``src_tile`` packed, and then
    ``dst_tile`` packed (both padding-free, so the same number of elements)."""
    from ..inplace.front import convert_inplace

    convert_inplace(buf, src_tile, dst_tile)


def _unwritable(err: OSError, dst_path: str, folder: str) -> OSError:
    """The error of a temporary file that could not be made, said of the user's ``dst_path``."""
    why = {errno.EACCES: "is not writable", errno.EPERM: "is not writable", errno.EROFS: "is on a read-only file system",
           errno.ENOSPC: "is on a full disk", errno.ENOENT: "takes no new files (a virtual file system?)",
           errno.EDQUOT: "is over its disk quota"}.get(err.errno, f"refused a new file ({err.strerror})")
    return type(err)(err.errno, f"dst_path {dst_path!r}: its folder {folder!r} {why}; convert_file writes the result "
                                f"to a temporary file there and renames it over dst_path; nothing was written",
                     dst_path)


# --------------------------------------------------------------------------------- the job
class _Job:
    """One conversion: both files open, the layouts, the tile plan."""

    def __init__(self) -> None:
        self.src_fd = -1
        self.tmp_fd = -1
        self.tmp_path: str | None = None
        self.inplace = False

    @classmethod
    def open(cls, src_path: str, src: Any, dst_path: str, dst: Any, budget: int, dims: Mapping[str, int],
             inplace: bool = False, memory: Any = None) -> "_Job":
        job = cls()
        job.inplace = inplace
        job.memory = budget if memory is None else memory
        try:
            job._open(src_path, src, dst_path, dst, budget, dims)
        except BaseException:
            job.close()
            raise
        return job

    def _open(self, src_path: str, src: Any, dst_path: str, dst: Any, budget: int, dims: Mapping[str, int]) -> None:
        if not os.path.exists(src_path):
            raise FileNotFoundError(2, f"src_path {src_path!r} does not exist", src_path)
        if os.path.isdir(src_path):
            raise LayoutError(f"src_path {src_path!r} is a directory, expected a .npy file")
        if os.path.exists(dst_path) and not os.path.isdir(dst_path) and not os.path.isfile(dst_path):
            raise LayoutError(f"dst_path {dst_path!r} is not a regular file (a FIFO, a device or a socket); "
                              f"expected a .npy file path")
        if os.path.realpath(src_path) == os.path.realpath(dst_path) or (
                os.path.exists(dst_path) and os.path.samefile(src_path, dst_path)):
            raise LayoutError(f"dst_path {dst_path!r} is the source file; write the result to another path, or pass "
                              f"inplace=True to convert the file in its own bytes (see layouts.chunked.inplace_file)")
        folder = os.path.dirname(os.path.abspath(dst_path))
        if not os.path.isdir(folder):
            raise FileNotFoundError(2, f"dst_path {dst_path!r}: its folder does not exist", folder)
        if os.path.isdir(dst_path):
            raise LayoutError(f"dst_path {dst_path!r} is a directory, expected a file path")
        if self.inplace and isinstance(src, Layout) and (src.pitch or src.align):
            check_inplace(src, src)  # before the file's shape is compared with the pitched one
        self.src_fd = open_regular(src_path, "src_path", os.O_RDONLY)
        lock(self.src_fd, src_path, "src_path", exclusive=False)  # no in-place run permutes it meanwhile
        self.src_path = src_path
        shape, self.dtype, self.src_base = read_header(self.src_fd, src_path)
        self.src_stat = os.fstat(self.src_fd)
        # the data's end as the header says: reads stop there (past it only a pitched source's gaps)
        self.src_end = self.src_base + math.prod(shape) * self.dtype.itemsize
        self.src_layout, self.dst_layout = self._layouts(src, dst, shape, dims)
        if self.inplace:
            check_inplace(self.src_layout, self.dst_layout)
        self.src_shape, self.src_strides = self.src_layout.shape, self.src_layout.stride_tuple
        self.dst_strides = self.dst_layout.stride_tuple
        item = self.dtype.itemsize
        self.pitched = bool(self.dst_layout.pitch or self.dst_layout.align)
        out_shape = (self.dst_layout.size,) if self.pitched else self.dst_layout.shape
        self.header = header_bytes(out_shape, self.dtype)
        self.nbytes = self.dst_layout.size * item
        self.tile = plan_tiles(self.src_layout, self.dst_layout, self.src_shape, self.src_strides,
                               self.dst_strides, item, int(budget * BUFFER_SHARE), self.inplace, memory=self.memory)
        self.dst_path = dst_path

    def _layouts(self, src: Any, dst: Any, shape: tuple, dims: Mapping[str, int]) -> tuple[Layout, Layout]:
        if isinstance(src, Layout) and (src.pitch or src.align) and len(shape) == 1:
            if shape[0] < src.span:
                raise LayoutError(f"a flat source for {src!r} needs at least {src.span} elements, the file holds {shape[0]}")
            shape = src.shape
        return _boxes.resolve(src, dst, shape, self.dtype.itemsize, dims)

    def run(self, progress: Any, fsync: bool) -> None:
        folder, name = os.path.split(os.path.abspath(self.dst_path))
        remove_stale_parts(folder, name, self.dst_path)
        self._temporary(folder, name)
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(self.tmp_fd, _kept_mode(self.dst_path, 0o666 & ~umask))
        total = len(self.header) + self.nbytes
        try:
            if not PREALLOCATE:
                raise AttributeError
            os.posix_fallocate(self.tmp_fd, 0, total)  # out of space now rather than midway
        except (AttributeError, OSError) as err:
            if isinstance(err, OSError) and err.errno == errno.ENOSPC:
                raise OSError(errno.ENOSPC, f"no room on the disk for dst_path {self.dst_path!r} ({total} bytes); "
                                            f"nothing was written", self.dst_path) from None
            os.ftruncate(self.tmp_fd, total)  # a sparse file (or a file system without fallocate)
        os.pwrite(self.tmp_fd, self.header, 0)
        self._convert(progress)
        self._stable()
        if fsync:
            os.fsync(self.tmp_fd)
        with SignalHold():  # the rename and forgetting the temporary name go together
            os.replace(self.tmp_path, self.dst_path)  # still locked: no cleaner takes it for a dead run's
            self.tmp_path = None
        os.close(self.tmp_fd)
        self.tmp_fd = -1
        if fsync:
            fsync_dir(folder)

    def _temporary(self, folder: str, name: str) -> None:
        """The locked ``.part`` file; signals held so that none arrives between its creation and
        the moment :meth:`close` knows to remove it."""
        for _ in range(8):
            with SignalHold():
                try:
                    self.tmp_fd, self.tmp_path = tempfile.mkstemp(prefix=f".{name}.", suffix=".part", dir=folder)
                except OSError as err:
                    raise _unwritable(err, self.dst_path, folder) from None
                point("part-created")
                fcntl.flock(self.tmp_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            try:  # a cleaner of another run may have taken it before the lock: make another
                if os.stat(self.tmp_path).st_ino == os.fstat(self.tmp_fd).st_ino:
                    return
            except FileNotFoundError:
                pass
            os.close(self.tmp_fd)
            self.tmp_fd, self.tmp_path = -1, None
        raise OSError(errno.EAGAIN, f"could not keep a temporary file for dst_path {self.dst_path!r}", folder)

    def _stable(self) -> None:
        """LayoutError when the source changed (size or mtime) since it was opened."""
        now = os.fstat(self.src_fd)
        st = self.src_stat
        if (now.st_size, now.st_mtime_ns) != (st.st_size, st.st_mtime_ns):
            raise LayoutError(f"src_path {self.src_path!r} changed while it was read (size {st.st_size} -> "
                              f"{now.st_size}, or modified): the result would mix old and new data, so dst_path "
                              f"was not written")

    def _convert(self, progress: Any) -> None:
        """Read (or map), convert and write tile by tile, in the destination's order; with
        the profile's ``file_write_buffers`` = 2 a writer thread writes one tile while the next is converted."""
        from ..kernels.runtime.pool import helper_thread, keep_workers_off_this_cpu

        item = self.dtype.itemsize
        src_L, dst_L = self.src_layout, self.dst_layout
        first = {a: (0, self.tile[a]) for a in dst_L.axes}
        r_src = Region.of(self.src_shape, self.src_strides, _boxes.physical_box(src_L, first))
        r_dst = Region.of(dst_L.shape, self.dst_strides, _boxes.physical_box(dst_L, first))
        base = len(self.header)
        label = f"{src_L.spec} -> {dst_L.spec}"
        total = math.prod(dst_L.shape) * item  # the tiles' elements, pitch gaps aside
        if self.inplace:
            return self._convert_inplace(progress, r_src.elements, base, label, total)
        src_buf = None  # allocated when a tile is read rather than mapped
        nbuf = write_buffers()
        dst_bufs = [np.empty(max(r_dst.elements, 1), self.dtype) for _ in range(nbuf)]
        with reporter(progress, total, label) as step, helper_thread("layouts-writer") as writer:
            if dst_L.count == 0:
                step(total)  # no element: the preallocated zeros are the whole output
                return
            pending = None  # (future of the previous tile's write, its bytes)
            for i, box in enumerate(tiles(dst_L, self.tile)):
                point("tile", index=i)
                rs = Region.of(self.src_shape, self.src_strides, _boxes.physical_box(src_L, box))
                rd = Region.of(dst_L.shape, self.dst_strides, _boxes.physical_box(dst_L, box))
                db = dst_bufs[i % nbuf][:rd.elements]
                if self.pitched:
                    db.fill(0)  # the gaps between rows are written too, as zeros
                with mapped_region(self.src_fd, rs, self.dtype, self.src_base, self.src_end) as sv:
                    if sv is None:
                        if src_buf is None:
                            src_buf = np.empty(max(r_src.elements, 1), self.dtype)
                        sb = src_buf[:rs.elements]
                        read_region(self.src_fd, rs, sb, self.src_base, self.src_end, self.src_path)
                        sv = rs.view(sb)
                    self._stable()
                    convert_tile(sv, _boxes.tile_layout(src_L, box), _boxes.tile_layout(dst_L, box), rd.view(db))
                    del sv
                if pending is not None:  # the buffer about to be reused next was written by then
                    pending[0].result()
                    step(pending[1])
                done = math.prod(b - a for a, b in _boxes.physical_box(dst_L, box)) * item
                if nbuf == 1:  # no overlap: write now
                    write_region(self.tmp_fd, rd, db, base)
                    step(done)
                    continue
                keep_workers_off_this_cpu()
                pending = (writer.submit(write_region, self.tmp_fd, rd, db, base), done)
            if pending is not None:
                pending[0].result()
                step(pending[1])

    def _convert_inplace(self, progress: Any, elements: int, base: int, label: str, total: int) -> None:
        """``inplace=True``: each tile read into one buffer, converted there, written from it."""
        src_L, dst_L = self.src_layout, self.dst_layout
        buf = np.empty(max(elements, 1), self.dtype)
        with reporter(progress, total, label) as step:
            if dst_L.count == 0:
                step(total)
                return
            for i, box in enumerate(tiles(dst_L, self.tile)):
                point("tile", index=i)
                rs = Region.of(self.src_shape, self.src_strides, _boxes.physical_box(src_L, box))
                rd = Region.of(dst_L.shape, self.dst_strides, _boxes.physical_box(dst_L, box))
                b = buf[:rs.elements]  # unpitched: the stacked runs are the source tile, C-contiguous
                read_region(self.src_fd, rs, b, self.src_base, self.src_end, self.src_path)
                self._stable()
                convert_tile_inplace(b, _boxes.tile_layout(src_L, box), _boxes.tile_layout(dst_L, box))
                write_region(self.tmp_fd, rd, b, base)  # ... and then the destination tile, C-contiguous
                step(rd.elements * self.dtype.itemsize)

    def close(self) -> None:
        with SignalHold():
            self._close()

    def _close(self) -> None:
        if self.tmp_path is not None:  # removed while still locked: no other run removes a live one
            try:
                os.unlink(self.tmp_path)
            except OSError:
                pass
            self.tmp_path = None
        for attr in ("src_fd", "tmp_fd"):
            fd = getattr(self, attr)
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
                setattr(self, attr, -1)
