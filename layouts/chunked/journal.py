"""The journal of a ``.npy`` file converted in its own bytes: a sidecar file beside it.

Why a sidecar and not the header's slack: a step can only be redone or undone after a crash if
the bytes it overwrites were kept first, and those (up to ``memory`` bytes a step) do not fit
in the few dozen spare bytes of a ``.npy`` header. The header's slack holds only the pointer:
while the run lasts, the file starts with :data:`~.npyformat.INTERRUPTED_MAGIC` followed by
``journal=NAME`` (the sidecar, in the file's folder), so ``np.load`` refuses the file and
:func:`layouts.recover` finds its journal. The sidecar's whole size is reserved
(``posix_fallocate``) before the first destructive write: a full disk refuses up front.

Format (little-endian), file ``.layouts-journal-<inode>`` in the data file's folder:

* bytes ``[0, 8192)``: ``b"LAYOUTSJ"``, u32 format version (1), u32 length ``n``, then ``n``
  bytes of JSON: the data file's device, inode and data offset, the header to write when the
  journal is run to its end and what that end is (``"converted"`` or ``"original"``), the
  original header, the scratch size, and the *segments*: each an op (method, batches B, dims,
  perm, element bytes, workers, group, need), its batch range ``[lo, hi)`` and ``step``, the
  batches one journaled step moves (0: the op's blocks are larger than the backup area, so the
  segment runs unjournaled and a crash inside it cannot be repaired);
* bytes ``[8192, 8320)``: two 64-byte progress slots written in turn (the valid one with the
  larger sequence number counts; a torn write fails its CRC): u64 seq, i32 segment, i32 step,
  u32 state (1 BACKED: the step's bytes are in the backup area, it may be partly moved; 2 READY:
  every step before this one has moved, this one has not started; 3 UNJOURNALED: the step is
  running without backup), u32 CRC-32 of the
  backup (0: not computed, the run did not fsync), u64 backup length, u32 CRC-32 of the 32 bytes before it;
* bytes from 8192 + 4096: the backup area, ``capacity`` bytes. Format 2 keeps the step's bytes
  at their offset within a 4 KiB page (a step starting at file position ``p`` is at
  ``8192 + 4096 + p % 4096``, the page's bytes before it in front): whole pages, so they are
  written straight from the file's map with ``O_DIRECT`` (no copy into the page cache, which
  costs more than the disk write); format 1 (read too) keeps them at the area's start.

>>> import os, tempfile
>>> p = os.path.join(tempfile.mkdtemp(), "j")
>>> j = Journal.create(p, {"segments": [], "capacity": 16}, fsync=False)
>>> j.record(Progress(1, 0, 2, READY))
>>> Journal.open(p).progress()
Progress(seq=1, segment=0, step=2, state=2, crc=0, length=0)
"""

from __future__ import annotations

import errno
import json
import os
import struct
import threading
import zlib
from dataclasses import dataclass

from ..errors import LayoutError
from .fileio import fsync_dir

__all__ = ["Journal", "Progress", "BACKED", "READY", "UNJOURNALED", "DATA", "journal_name"]

MAGIC = b"LAYOUTSJ"
VERSION = 2
READS = (1, 2)
PAGE = 4096
#: room the page alignment of format 2 adds to a step's backup (the partial pages at both ends)
SLACK = 2 * PAGE
_MAX_IO = 1 << 30
HEAD = 8192
SLOTS = HEAD
SLOT = 64
DATA = HEAD + 4096
BACKED, READY, UNJOURNALED = 1, 2, 3
_SLOT = struct.Struct("<QiiIIQ")


def journal_name(st: os.stat_result) -> str:
    """The sidecar's name for the data file of ``st`` (short: it must fit in the header's slack)."""
    return f".layouts-journal-{st.st_ino}"


@dataclass(frozen=True)
class Progress:
    """One progress record: after ``seq`` writes, ``segment``/``step`` is in ``state``."""

    seq: int
    segment: int
    step: int
    state: int
    crc: int = 0
    length: int = 0


class Journal:
    """An open journal file: its JSON ``meta``, progress records and the backup area."""

    def __init__(self, path: str, fd: int, meta: dict, fsync: bool, version: int = VERSION) -> None:
        self.path, self.fd, self.meta, self.fsync, self.version = path, fd, meta, fsync, version
        self._direct: int | None = None   # an O_DIRECT descriptor for the backups; -1: none to be had
        last = self.progress()
        self.seq = last.seq if last else 0

    @classmethod
    def create(cls, path: str, meta: dict, fsync: bool) -> "Journal":
        """Write a new journal at ``path`` (through a temporary name and a rename, so that a
        journal is either the old one or the whole new one), its full size reserved."""
        text = json.dumps(meta, separators=(",", ":")).encode()
        if len(text) > HEAD - 16:
            raise LayoutError(f"the in-place plan has too many steps to journal ({len(text)} bytes of JSON)")
        tmp = path + ".new"
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            size = DATA + int(meta.get("capacity", 0)) + (SLACK if meta.get("capacity") else 0)
            try:
                os.posix_fallocate(fd, 0, size)  # the whole journal reserved: no ENOSPC midway
            except OSError as err:
                if err.errno not in (95, 22):  # EOPNOTSUPP / EINVAL: a file system without it
                    raise
                os.ftruncate(fd, size)
            os.pwrite(fd, MAGIC + struct.pack("<II", VERSION, len(text)) + text, 0)
            os.pwrite(fd, b"\0" * (2 * SLOT), SLOTS)
            if fsync:
                os.fsync(fd)
            os.replace(tmp, path)
            if fsync:
                fsync_dir(os.path.dirname(path))
        except BaseException:
            os.close(fd)
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        return cls(path, fd, meta, fsync)

    @classmethod
    def open(cls, path: str) -> "Journal":
        fd = os.open(path, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
        try:
            head = os.pread(fd, HEAD, 0)
            if head[:8] != MAGIC:
                raise LayoutError(f"{path!r} is not a layouts journal")
            version, n = struct.unpack("<II", head[8:16])
            if version not in READS:
                raise LayoutError(f"{path!r} is a layouts journal of format {version}; this version reads "
                                  f"{' and '.join(map(str, READS))}")
            meta = json.loads(head[16:16 + n])
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd, meta, fsync=True, version=version)

    def progress(self) -> Progress | None:
        """The latest valid progress record, or None when no step has started."""
        best = None
        raw = os.pread(self.fd, 2 * SLOT, SLOTS)
        for i in range(2):
            chunk = raw[i * SLOT:(i + 1) * SLOT]
            if len(chunk) < _SLOT.size + 4:
                continue
            body = chunk[:_SLOT.size]
            (crc,) = struct.unpack("<I", chunk[_SLOT.size:_SLOT.size + 4])
            if crc != zlib.crc32(body) or body == b"\0" * _SLOT.size:
                continue
            p = Progress(*_SLOT.unpack(body))
            if best is None or p.seq > best.seq:
                best = p
        return best

    def record(self, p: Progress) -> None:
        """Write ``p`` into the slot the last record did not use (flushed when ``fsync``)."""
        body = _SLOT.pack(p.seq, p.segment, p.step, p.state, p.crc, p.length)
        os.pwrite(self.fd, body + struct.pack("<I", zlib.crc32(body)), SLOTS + SLOT * (p.seq % 2))
        if self.fsync:
            os.fsync(self.fd)
        self.seq = p.seq

    def next(self, segment: int, step: int, state: int, crc: int = 0, length: int = 0) -> None:
        self.record(Progress(self.seq + 1, segment, step, state, crc, length))

    def backup_at(self, start: int) -> int:
        """Where the backup of a step starting at file position ``start`` keeps its first byte."""
        return DATA + (start % PAGE if self.version >= 2 else 0)

    def back_up(self, mapping: memoryview, start: int, end: int) -> int:
        """Keep bytes ``[start, end)`` of the file mapped as ``mapping`` (a step's bytes, before it
        moves) in the backup area; return their CRC-32 when the journal is flushed (``fsync``),
        else 0 (after a killed process the page cache is exact). The CRC is computed by a
        second thread while the bytes are written (both only read the map)."""
        crc: list[int] = []
        worker = None
        if self.fsync:
            worker = threading.Thread(target=lambda: crc.append(zlib.crc32(mapping[start:end]) or 1), daemon=True)
            worker.start()
        try:
            self._write_backup(mapping, start, end)
        finally:
            if worker is not None:
                worker.join()
        if not self.fsync:  # no power cut to survive: the page cache holds what was written
            return 0
        os.fsync(self.fd)
        return crc[0]

    def _write_backup(self, mapping: memoryview, start: int, end: int) -> None:
        lo = start - (self.backup_at(start) - DATA)
        done = 0
        whole = min(-(-end // PAGE) * PAGE, len(mapping) // PAGE * PAGE) - lo   # the whole pages of the map
        if lo % PAGE == 0 and whole >= PAGE and self._direct_fd() >= 0:
            try:
                while done < whole:
                    done += os.pwrite(self._direct, mapping[lo + done:lo + min(whole, done + _MAX_IO)], DATA + done)
            except OSError as err:
                if err.errno != errno.EINVAL:  # a file system that takes O_DIRECT only for some writes
                    raise
                done = 0
        while lo + done < end:  # the last partial page of the map, or every byte without O_DIRECT
            done += os.pwrite(self.fd, mapping[lo + done:min(end, lo + done + _MAX_IO)], DATA + done)

    def _direct_fd(self) -> int:
        if self._direct is None:
            self._direct = -1
            if hasattr(os, "O_DIRECT"):
                try:
                    self._direct = os.open(self.path, os.O_WRONLY | os.O_DIRECT | getattr(os, "O_CLOEXEC", 0))
                except OSError:  # tmpfs and others refuse O_DIRECT: buffered writes instead
                    pass
        return self._direct

    def backup(self, start: int, length: int) -> bytes:
        """The backed-up bytes of the step that starts at file position ``start``."""
        return os.pread(self.fd, length, self.backup_at(start))

    def shrink(self) -> None:
        """Give back the backup area's disk space (the run is complete; the head stays)."""
        os.ftruncate(self.fd, DATA)

    def close(self) -> None:
        if self._direct is not None and self._direct >= 0:
            os.close(self._direct)
        self._direct = None
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def remove(self) -> None:
        """Delete the journal, and a half-made successor (``.new``) a power cut left beside it."""
        self.close()
        for p in (self.path, self.path + ".new"):
            try:
                os.unlink(p)
            except FileNotFoundError:
                pass
        if self.fsync:
            fsync_dir(os.path.dirname(self.path))
