"""The part of a C-order array file a box covers, and its I/O: runs read with ``preadv``, mapped
read-only, or written with ``pwrite``.

>>> r = Region.of((4, 6), (6, 1), [(1, 3), (0, 6)])     # rows 1-2 of a 4 x 6 array: one run
>>> r.k, r.run, r.offsets.tolist(), r.elements
(0, 12, [6], 12)
"""

from __future__ import annotations

import contextlib
import mmap
import os
from dataclasses import dataclass
from typing import Iterable, Iterator

import numpy as np

from ..errors import LayoutError

__all__ = ["Region", "read_region", "mapped_region", "write_region", "fsync_dir", "MAP_SOURCE", "MAP_DENSITY"]

#: The default of the profile's ``file_map_source``: read a dense source tile through a memory map.
MAP_SOURCE = True
#: Largest span/bytes ratio of a source tile that is mapped rather than read.
MAP_DENSITY = 1.25
#: Largest single read/write (Linux moves at most ~2 GiB per call).
_MAX_IO = 1 << 30


@dataclass
class Region:
    """The part of a C-order file array (``shape``, element ``strides``) a box of physical
    ranges covers, as equal runs: ``offsets`` (elements) of ``run`` elements each.

    The run is dim ``k`` (partly covered) with every dim inside it (fully covered), gaps of a
    pitch included; the buffer stacks the runs, and :meth:`view` sees it with the file's strides.
    """

    ext: tuple[int, ...]
    k: int
    run: int
    offsets: np.ndarray
    strides: tuple[int, ...]

    @classmethod
    def of(cls, shape: tuple[int, ...], strides: tuple[int, ...], box: list[tuple[int, int]]) -> "Region":
        ext = tuple(b - a for a, b in box)
        k = len(shape) - 1
        while k > 0 and ext[k] == shape[k]:
            k -= 1
        run = ext[k] * strides[k]
        base = sum(box[j][0] * strides[j] for j in range(k + 1))
        outer = ext[:k]
        if outer:
            grids = np.ix_(*[np.arange(e, dtype=np.int64) * strides[j] for j, e in enumerate(outer)])
            offsets = (base + sum(grids)).reshape(-1)
        else:
            offsets = np.array([base], dtype=np.int64)
        return cls(ext, k, run, offsets, tuple(strides))

    @property
    def elements(self) -> int:
        return len(self.offsets) * self.run if all(self.ext) else 0

    def view(self, buf: np.ndarray) -> np.ndarray:
        """The physical box inside the flat buffer ``buf`` (at least :attr:`elements` long)."""
        item = buf.itemsize
        outer = [0] * self.k
        acc = self.run
        for j in reversed(range(self.k)):
            outer[j] = acc
            acc *= self.ext[j]
        strides = [s * item for s in outer] + [s * item for s in self.strides[self.k:]]
        return np.lib.stride_tricks.as_strided(buf, shape=self.ext, strides=strides, writeable=buf.flags.writeable)


def _runs(region: Region, buf: np.ndarray, base: int) -> Iterable:
    """(file byte offset, memoryview of buf) for each run, adjacent runs merged."""
    item = buf.itemsize
    mv = memoryview(buf.view(np.uint8)).cast("B")
    nbytes = region.run * item
    start, end, first = None, 0, 0
    for i, off in enumerate(region.offsets.tolist()):
        pos = base + off * item
        if start is not None and pos == end:
            end += nbytes
            continue
        if start is not None:
            yield start, mv[first * nbytes:i * nbytes]
        start, end, first = pos, pos + nbytes, i
    if start is not None:
        yield start, mv[first * nbytes:len(region.offsets) * nbytes]


def read_region(fd: int, region: Region, buf: np.ndarray, base: int, end: int, path: str = "the source file") -> None:
    """Fill ``buf`` with the runs of ``region`` from the file (bytes past ``end``, the end of the
    data the header promises, are gap slots of a pitched source: zero); a file shorter than
    ``end`` is a LayoutError, never zeros."""
    for pos, mv in _runs(region, buf, base):
        while len(mv):
            if pos >= end:
                mv[:] = b"\0" * len(mv)  # past the end of a short pitched source's data: gap slots
                break
            n = os.preadv(fd, [mv[:min(_MAX_IO, end - pos)]], pos)
            if n == 0:
                raise LayoutError(f"src_path {path!r} ends at byte {pos}, before the {end} bytes its header promises "
                                  f"(it shrank while it was read)")
            mv, pos = mv[n:], pos + n


@contextlib.contextmanager
def mapped_region(fd: int, region: Region, dtype: np.dtype, base: int, end: int) -> Iterator[np.ndarray | None]:
    """A read-only view of ``region`` straight in the file's pages (a memory map of just its
    span, unmapped on exit), or None when the runs are sparse (the span is more than
    :data:`MAP_DENSITY` times the region) or run past the file's end: read them instead.

    Mapping saves the copy a read makes; the mapped pages count as this process's resident
    memory only while mapped, and the span is at most a source tile (within the budget).
    """
    item = dtype.itemsize
    n = len(region.offsets)
    from ..kernels.machine.profile import current
    if not current().file_map_source or n == 0 or region.elements == 0:
        yield None
        return
    first = base + int(region.offsets[0]) * item
    span = (int(region.offsets[-1]) - int(region.offsets[0]) + region.run) * item
    if first + span > min(end, os.fstat(fd).st_size) or span > MAP_DENSITY * region.elements * item:
        yield None
        return
    start = first - first % mmap.ALLOCATIONGRANULARITY
    view = flat = None
    mm = mmap.mmap(fd, first + span - start, access=mmap.ACCESS_READ, offset=start)
    try:
        if hasattr(mm, "madvise"):
            mm.madvise(mmap.MADV_WILLNEED)
        flat = np.frombuffer(mm, dtype=np.uint8, count=span, offset=first - start)
        view = np.lib.stride_tricks.as_strided(flat.view(dtype) if span % item == 0 else flat[:span - span % item].view(dtype),
                                               shape=region.ext, strides=[s * item for s in region.strides], writeable=False)
        yield view
    finally:
        view = flat = None
        try:
            mm.close()
        except BufferError:  # the caller still holds a view (an exception on its way): unmapped when it goes
            pass


def write_region(fd: int, region: Region, buf: np.ndarray, base: int) -> None:
    """Write the runs of ``region`` from ``buf`` to the file."""
    for pos, mv in _runs(region, buf, base):
        while len(mv):
            n = os.pwrite(fd, mv[:_MAX_IO], pos)
            mv, pos = mv[n:], pos + n



def fsync_dir(folder: str) -> None:
    """Make the rename durable (POSIX: fsync the directory); best effort elsewhere."""
    try:
        fd = os.open(folder or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
