"""``convert_file(path, src, path, dst, inplace=True)``: a ``.npy`` file converted in its own bytes, as a transaction.

For a tensor that fits neither in memory twice nor on the disk twice: the file's data is mapped
(``mmap``, shared: a file larger than RAM works, at disk speed) and permuted by the in-place
plan's steps (:mod:`layouts.inplace.front`, :mod:`layouts.inplace.run`), then the header is rewritten
to the new shape, padded to the old one's exact length so the data does not move.

Every exit leaves the file exactly the original, exactly the converted tensor, or marked so
that nothing reads it (``np.load`` and ``convert_file`` refuse it, naming
:func:`layouts.recover`), never a partial permutation under a valid header:

* checked before the first destructive write: a regular file (a FIFO is refused, not opened for
  ever), the advisory lock (a second conversion of the file is refused naming the process), the
  data's disk blocks allocated (a sparse file on a full disk is refused, no SIGBUS midway), the
  journal's space reserved, the file's size and mtime unchanged since it was read;
* the journal (:mod:`.journal`, a sidecar in the file's folder) is written, then the header
  becomes :data:`~.npyformat.INTERRUPTED_MAGIC` + the journal's name; each step backs up the
  bytes it overwrites (up to ``memory`` bytes) and records how far it got;
* any exception or signal (held to step boundaries, a default-action SIGTERM/SIGHUP too): the
  moved steps are undone through a rollback journal and the old header comes back (byte for
  byte); one that arrives once every step has moved completes the conversion instead;
* SIGKILL, a crash, a power cut (with ``fsync=True``): the file stays marked;
  :func:`layouts.recover` finishes the conversion from the journal (or rolls it back, for a run
  killed while it rolled back). A step whose blocks are larger than ``memory`` cannot be backed
  up: a crash inside it leaves the file marked, and recover says it cannot repair it.

A power cut keeps only what a sync made durable; every write since, mapped pages included, may
have reached the disk or not, page by page. So one rule orders every path that writes both the
data and the journal (forward steps, a step put back after it failed, the rollback, ``recover``
resuming, the final header): **no record that describes the data is made durable before the
data it describes**. A step's backup is fsynced before the record that says "backed up" (and
before its first byte moves); the moved or restored bytes are msynced
(:meth:`StepRunner.durable`) before the record that says the step ended or never started, and
before a rollback journal that lists what moved; the data before the header that names its
layout. ``tests/test_power_loss.py`` explores the crash states of that model and checks each.
With ``fsync=False`` there is no power-loss promise: a kill is survived (the page cache outlives
the process), a power cut may leave the data scrambled under a journal that cannot tell.

>>> import numpy as np, os, tempfile, layouts as ly
>>> p = os.path.join(tempfile.mkdtemp(), "x.npy")
>>> x = np.arange(2 * 32 * 3 * 3, dtype=np.float32).reshape(2, 32, 3, 3)
>>> np.save(p, x); size = os.path.getsize(p)
>>> ly.convert_file(p, "NCHW", p, "NCHW16c", inplace=True)
>>> y = np.load(p); y.shape, np.array_equal(y, ly.convert(x, "NCHW", "NCHW16c")), os.path.getsize(p) == size
((2, 2, 3, 3, 16), True, True)
"""

from __future__ import annotations

import errno
import mmap
import os
import signal
import sys
import traceback
import zlib
from typing import Any

import numpy as np

from ..errors import LayoutError
from ..inplace.faultpoints import point
from ..inplace.front import plan_inplace
from ..inplace.methods import Op, scratch_budget
from ..inplace.run import Segment, done_ranges, run_ranges, segments, undo_segments
from ..named.layout import Layout
from ..request import reworded
from ..inplace.signals import SignalHold
from . import _boxes
from .filelock import lock, open_regular, unlock
from .journal import BACKED, READY, UNJOURNALED, Journal, journal_name
from .budget import parse_memory
from .npyformat import INTERRUPTED_MAGIC, check_inplace, header_exact, read_header
from .progress import reporter

__all__ = ["convert_file_inplace", "header_exact", "StepRunner", "marker", "journal_path", "segs_from_json",
           "HOLD_DEFAULT", "remove_stale_journal", "release", "forget_views"]

#: the most scratch a file's plan takes when more would not save a sweep over the data
_SMALL_SCRATCH = 16 << 20
#: madvise's MADV_POPULATE_WRITE (Linux; Python 3.11's mmap does not name it)
_POPULATE_WRITE = getattr(mmap, "MADV_POPULATE_WRITE", 23 if sys.platform.startswith("linux") else None)

#: signals whose default action (ending the process) is held too while a file is being permuted
HOLD_DEFAULT = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n))


def convert_file_inplace(path: str, src: str | Layout, dst: str | Layout, *, memory: int | str = "256MB",
                         progress: Any = None, fsync: bool = True, **dims: int) -> None:
    """Convert the ``.npy`` file ``path`` from ``src`` to ``dst`` in its own bytes (see the
    module notes for what an interrupted run leaves). ``memory`` bounds the scratch and the
    bytes one journaled step backs up."""
    try:
        budget = parse_memory(memory)
        with SignalHold(HOLD_DEFAULT) as hold:
            _run(path, src, dst, memory, budget, progress, bool(fsync), dims, hold)
    except LayoutError as err:
        raise reworded(err, "convert_file", src, dst) from None


def marker(name: str, length: int) -> bytes:
    """The header of a file being converted: the magic np.load refuses, the journal's name."""
    text = INTERRUPTED_MAGIC + b" journal=" + os.fsencode(name) + b"\n"
    return text + b" " * (length - len(text)) if len(text) <= length else INTERRUPTED_MAGIC + b" " * (length - 8)


def journal_path(path: str, st: os.stat_result) -> str:
    return os.path.join(os.path.dirname(os.path.realpath(path)), journal_name(st))


def _run(path: str, src: Any, dst: Any, memory: Any, budget: int, progress: Any, fsync: bool, dims: dict,
         hold: SignalHold) -> None:
    if isinstance(src, Layout) and (src.pitch or src.align):
        check_inplace(src, src)
    fd = open_regular(path, "src_path", os.O_RDWR)
    mm = None
    try:
        lock(fd, path, "src_path", exclusive=True)
        st = os.fstat(fd)
        remove_stale_journal(fd, path, st)
        shape, dtype, offset = read_header(fd, path)
        old = os.pread(fd, offset, 0)
        version = (old[6], old[7])
        s, d = _boxes.resolve(src, dst, shape, dtype.itemsize, dims)
        check_inplace(s, d)
        new = header_exact(d.shape, dtype, offset, version)
        nbytes = s.size * dtype.itemsize
        plan = file_plan(s, d, dtype, budget, nbytes) if nbytes else None
        if plan is not None and plan.scratch_bytes > budget:
            raise LayoutError(f"memory={memory!r} is too small: converting this {nbytes}-byte file in place needs "
                              f"{plan.scratch_bytes} bytes of scratch; give at least that")
        with reporter(progress, nbytes, f"{s.spec} -> {d.spec} (in place)") as step:
            if plan is None or not plan.passes:
                os.pwrite(fd, new, 0)
                if fsync:
                    os.fsync(fd)
                step(nbytes)
                return
            _reserve(fd, path, offset, nbytes)
            st = os.fstat(fd)
            mm = mmap.mmap(fd, offset + nbytes, access=mmap.ACCESS_WRITE)
            data = np.frombuffer(mm, np.uint8, count=nbytes, offset=offset)
            from ..inplace.driver import warm  # numba loads here, before the journal and the first write
            warm(data, plan)
            scratch = np.empty(plan.scratch_bytes, np.uint8)
            hold.deliver()  # nothing has moved yet: a signal here stops cleanly
            segs = [(seg, _step(seg, budget)) for seg in segments(plan)]
            jpath = journal_path(path, st)
            meta = {"dev": st.st_dev, "ino": st.st_ino, "offset": offset, "nbytes": nbytes,
                    "end_header": new.hex(), "outcome": "converted", "start_header": old.hex(),
                    "start": "original", "scratch": plan.scratch_bytes,
                    "segments": [_seg_json(seg, k) for seg, k in segs]}
            meta["capacity"] = max([k * seg.block_bytes for seg, k in segs] or [0])
            _stable(fd, path, st)
            journal = _create_journal(jpath, meta, fsync)
            if journal is not None:  # its steps: none backed up when the disk had no room for the backups
                segs = segs_from_json(journal.meta["segments"])
            try:
                runner = StepRunner(fd, mm, data, journal, segs, scratch, hold, fsync, path, nbytes + offset)
                try:
                    os.pwrite(fd, marker(os.path.basename(jpath) if journal else "", offset), 0)
                    if fsync:
                        os.fsync(fd)
                    point("marked")
                    runner.run()
                except BaseException as err:
                    _settle(runner, err, fd, old, new, meta, jpath, fsync)
                    raise
                if journal:
                    journal.shrink()  # only the head stays until the header is written
                _finish(fd, mm, new, fsync)
                point("header-written")
            finally:
                if journal:
                    journal.remove() if _valid_header(fd) else journal.close()
            step(nbytes)
    except BaseException as err:
        forget_views(err)
        raise
    finally:
        data = runner = scratch = None
        release(fd, mm)


def forget_views(err: BaseException) -> None:
    """Drop the locals of the finished frames ``err`` passed through: their views of the mapped
    data would keep the map (and so its duplicate descriptor and the file's lock) alive."""
    traceback.clear_frames(err.__traceback__)


def release(fd: int, mm: Any) -> None:
    """Unmap, unlock and close: the lock ends here even where a view still keeps the map alive."""
    if mm is not None:
        try:
            mm.close()
        except BufferError:  # a view survives (a caller's traceback): unmapped when it goes
            pass
    unlock(fd)
    os.close(fd)


def file_plan(s: Layout, d: Layout, dtype: np.dtype, budget: int, nbytes: int) -> Any:
    """The in-place plan for a file: the fewest sweeps over the data that a quarter of ``memory``
    of scratch allows, and no more scratch than 16 MiB where that takes as few. On a file every
    sweep writes each byte twice (its backup, then its move) and flushes both, so one sweep
    fewer is worth far more than the memory; an array's plan (:func:`layouts.inplace.front.scratch_budget`)
    is the floor."""
    floor = scratch_budget(nbytes)
    small = plan_inplace(s, d, s.shape, dtype, budget=max(floor, min(budget // 4, _SMALL_SCRATCH)))
    large = plan_inplace(s, d, s.shape, dtype, budget=max(floor, budget // 4))
    return large if len(segments(large)) < len(segments(small)) else small


def _step(seg: Segment, budget: int) -> int:
    """Batches one journaled step moves: as many whole blocks as ``budget`` backs up (0: none fits)."""
    blk = seg.block_bytes
    return 0 if blk > budget else max(1, min(seg.hi - seg.lo, budget // max(blk, 1)))


def _seg_json(seg: Segment, step: int) -> list:
    op = seg.op
    return [op.method, op.B, list(op.dims), list(op.perm), op.e, op.workers, op.group, op.need, seg.lo, seg.hi, step]


def segs_from_json(rows: list) -> list[tuple[Segment, int]]:
    out = []
    for method, B, dims, perm, e, workers, group, need, lo, hi, step in rows:
        out.append((Segment(Op(method, B, tuple(dims), tuple(perm), e, workers, group, need), lo, hi), step))
    return out


def _create_journal(jpath: str, meta: dict, fsync: bool) -> Journal | None:
    """The journal, its space reserved; with too little room for the backups, one without them
    (then only the step boundaries can be recovered); None where no file can be made there."""
    for capacity in (meta["capacity"], 0):
        m = dict(meta, capacity=capacity)
        if capacity == 0:
            m["segments"] = [row[:-1] + [0] for row in meta["segments"]]
        try:
            return Journal.create(jpath, m, fsync)
        except OSError as err:
            if err.errno == errno.ENOSPC and capacity:
                continue
            if err.errno in (errno.EACCES, errno.EROFS, errno.EPERM, errno.ENOSPC):
                return None
            raise
    return None


def _reserve(fd: int, path: str, offset: int, nbytes: int) -> None:
    """Allocate every disk block of the data (a sparse file's holes), or refuse up front."""
    try:
        os.posix_fallocate(fd, offset, nbytes)
    except OSError as err:
        if err.errno == errno.ENOSPC:
            raise OSError(errno.ENOSPC, f"src_path {path!r} is sparse and the disk has no room to allocate its "
                                        f"{nbytes} bytes of data (converting it in place would fail midway); "
                                        f"free space first", path) from None
        if err.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENODEV):
            raise


def _stable(fd: int, path: str, st: os.stat_result) -> None:
    now = os.fstat(fd)
    if (now.st_size, now.st_mtime_ns) != (st.st_size, st.st_mtime_ns):
        raise LayoutError(f"src_path {path!r} changed while it was being converted (size {st.st_size} -> "
                          f"{now.st_size}, or modified); nothing was written to it")


def remove_stale_journal(fd: int, path: str, st: os.stat_result) -> bool:
    """A journal left by a run killed after it finished (or before it started) of a file that is
    not marked: it describes nothing any more."""
    if os.pread(fd, len(INTERRUPTED_MAGIC), 0) == INTERRUPTED_MAGIC:
        return False
    jpath = journal_path(path, st)
    found = False
    for p in (jpath, jpath + ".new"):
        try:
            os.unlink(p)
            found = True
        except OSError:
            pass
    return found


def _valid_header(fd: int) -> bool:
    """Whether the file starts as a ``.npy`` again (its journal then describes nothing)."""
    return os.pread(fd, 6, 0) == b"\x93NUMPY"


def _finish(fd: int, mm: Any, header: bytes, fsync: bool) -> None:
    if fsync:
        mm.flush()  # the data on disk before the header says what it is
    os.pwrite(fd, header, 0)
    if fsync:
        os.fsync(fd)


def _settle(runner: "StepRunner", err: BaseException, fd: int, old: bytes, new: bytes, meta: dict, jpath: str,
            fsync: bool) -> None:
    """After an exception in the steps: the original (nothing moved, or rolled back) or the
    converted file (every step had moved), each with its header; marked if the rollback fails."""
    if runner.complete:
        _finish(fd, runner.mm, new, fsync)
        if runner.journal:
            runner.journal.remove()
        _note(err, "convert_file: this arrived after the last step: the conversion is complete and the file holds "
                   "the destination layout")
        return
    try:
        undo = undo_segments([s for s, _ in runner.segs], runner.index, runner.moved())
        runner.durable()  # the rollback journal describes these bytes: they reach the disk first
        if undo:
            steps = [(seg, _step(seg, runner.budget_hint)) for seg in undo]
            journal = None
            if runner.journal is not None:
                back = dict(meta, outcome="original", end_header=old.hex(), start="partial",
                            segments=[_seg_json(seg, k) for seg, k in steps])
                back["capacity"] = max([k * seg.block_bytes for seg, k in steps] or [0])
                runner.journal.close()
                journal = _create_journal(jpath, back, fsync)
                if journal is None:  # the forward journal would misdescribe a crash during the rollback
                    runner.journal.remove()
                else:
                    steps = segs_from_json(journal.meta["segments"])
            rollback = StepRunner(fd, runner.mm, runner.data, journal, steps, runner.scratch, None, fsync,
                                  runner.path, runner.size)
            rollback.phase = "rollback"
            rollback.run()
            runner.journal = journal
        _finish(fd, runner.mm, old, fsync)
        if runner.journal:
            runner.journal.remove()
    except BaseException as failed:
        _note(err, f"convert_file: rolling back failed too ({failed!r}); the file stays marked: run "
                   f"layouts.recover({runner.path!r}) to bring it back")
        return
    what = "interrupted" if isinstance(err, (KeyboardInterrupt, SystemExit)) else "stopped by an error"
    _note(err, f"convert_file: the in-place conversion was {what}; every step that had moved was undone and "
               f"{runner.path!r} is byte for byte the original again")


def _note(err: BaseException, text: str) -> None:
    if hasattr(err, "add_note"):
        err.add_note(text)


class StepRunner:
    """Runs journaled segments over the mapped data: ``segs`` are (segment, batches per step);
    ``index``/``next_step`` say how far it got (every step before has moved)."""

    def __init__(self, fd: int, mm: Any, data: np.ndarray, journal: Journal | None, segs: list, scratch: np.ndarray,
                 hold: SignalHold | None, fsync: bool, path: str, size: int) -> None:
        self.fd, self.mm, self.data, self.journal, self.segs = fd, mm, data, journal, segs
        self.scratch, self.hold, self.fsync, self.path, self.size = scratch, hold, fsync, path, size
        self.offset = size - data.size  # the data's position in the file (and in the map)
        self.index, self.next_step = 0, 0
        self.partial: list[tuple[int, int]] = []  # batches of the running step that moved (no backup to restore)
        self.complete = False
        self.phase = "forward"
        self.budget_hint = max([k * s.block_bytes for s, k in segs] or [0])

    def moved(self) -> list[tuple[int, int]]:
        """The batch ranges of the current segment that hold their result."""
        if self.index >= len(self.segs):
            return []
        seg, _ = self.segs[self.index]
        hi = self.range(self.index, self.next_step)[0] if self.next_step else seg.lo
        whole = [(seg.lo, hi)] if hi > seg.lo else []
        return whole + self.partial

    def range(self, i: int, k: int) -> tuple[int, int]:
        seg, step = self.segs[i]
        if step == 0:
            return seg.lo, seg.hi
        return seg.lo + k * step, min(seg.hi, seg.lo + (k + 1) * step)

    def steps(self, i: int) -> int:
        seg, step = self.segs[i]
        return -(-(seg.hi - seg.lo) // step) if step else 1

    def resume(self, p: Any) -> None:
        """Start from progress record ``p`` (a crashed run's): a backed-up step is restored first."""
        if p is None:
            return
        if p.state == UNJOURNALED:
            seg, _ = self.segs[p.segment]
            raise LayoutError(f"the run was killed in step {p.segment + 1} of {len(self.segs)}, which moves blocks of "
                              f"{seg.block_bytes} bytes, more than its journal backs up (the memory= of that run): "
                              f"the data is a partial permutation that cannot be repaired; restore {self.path!r} "
                              f"from a copy")
        self.index, self.next_step = p.segment, p.step
        if p.state == BACKED:
            self._restore(p.segment, p.step, p.crc or None, p.length)
            self._record(p.segment, p.step, READY)

    def _restore(self, i: int, k: int, crc: int | None = None, length: int | None = None) -> None:
        """Step ``k`` of segment ``i`` as it was: its bytes back from the journal's backup."""
        seg, _ = self.segs[i]
        a, b = self.range(i, k)
        part = memoryview(self.data[a * seg.block_bytes:b * seg.block_bytes])
        start = self.offset + a * seg.block_bytes
        if crc is not None or length is not None:
            saved = self.journal.backup(start, len(part))
            if len(saved) != len(part) or (crc is not None and (zlib.crc32(saved) or 1) != crc) or \
                    (length is not None and length != len(part)):
                raise LayoutError(f"the journal's backup of step {k + 1} does not match its record: {self.path!r} "
                                  f"cannot be repaired; restore it from a copy")
            part[:] = saved
        else:
            done = 0
            while done < len(part):
                n = os.preadv(self.journal.fd, [part[done:]], self.journal.backup_at(start) + done)
                if n <= 0:
                    raise OSError(errno.EIO, f"the journal of {self.path!r} is short", self.journal.path)
                done += n
        self.durable()  # the record that says "not started" must not reach the disk before these bytes

    def durable(self) -> None:
        """Make what the steps changed in the data durable (runs with ``fsync``): called before
        every record that describes the data, so that no record reaches the disk before its data."""
        if self.fsync:
            self.mm.flush()

    def _check_size(self) -> None:
        if os.fstat(self.fd).st_size < self.size:
            raise LayoutError(f"src_path {self.path!r} was truncated while it was being converted")

    def run(self) -> None:
        while self.index < len(self.segs):
            i = self.index
            seg, k = self.segs[i]
            if seg.hi <= seg.lo:
                self.index, self.next_step = i + 1, 0
                continue
            blk = seg.block_bytes
            for j in range(self.next_step, self.steps(i)):
                a, b = self.range(i, j)
                self._check_size()
                backed = self.journal is not None and k > 0
                if backed:
                    with memoryview(self.mm) as whole:
                        crc = self.journal.back_up(whole, self.offset + a * blk, self.offset + b * blk)
                    self._record(i, j, BACKED, crc, (b - a) * blk)
                else:
                    self._record(i, j, UNJOURNALED)
                point("file-backed", segment=i, step=j, phase=self.phase)
                done = np.zeros(b - a, bool)
                self._writable(self.offset + a * blk, self.offset + b * blk)
                try:
                    run_ranges(self.data, seg, a, b, self.scratch, done)
                    point("file-moved", segment=i, step=j, phase=self.phase)
                except BaseException:
                    if backed:
                        self._restore(i, j)
                        self._record(i, j, READY)
                    else:  # no backup: every batch is whole (moved or not), and the flags say which
                        self.partial = done_ranges(done, a)
                    raise
                self.durable()
                self.index, self.next_step = (i + 1, 0) if j + 1 == self.steps(i) else (i, j + 1)
                self._record(self.index, self.next_step, READY)
                point("file-step", segment=i, step=j, phase=self.phase)
                if self.index < len(self.segs):
                    self._boundary()
        self.complete = True
        point("file-complete", phase=self.phase)
        self._boundary()

    def _writable(self, start: int, end: int) -> None:
        """Fault the step's pages in, writable, in one call before it moves (Linux 5.14's
        MADV_POPULATE_WRITE): a fault per 4 KiB page, taken as the kernel first writes each, costs
        more than the disk write of the page. Their bytes do not change; elsewhere a no-op."""
        if _POPULATE_WRITE is None or end <= start:
            return
        lo = start - start % mmap.PAGESIZE
        try:
            self.mm.madvise(_POPULATE_WRITE, lo, end - lo)
        except (OSError, ValueError):  # an older kernel: the kernel's writes fault the pages in
            pass

    def _boundary(self) -> None:
        if self.hold is not None:
            self.hold.deliver()

    def _record(self, i: int, k: int, state: int, crc: int = 0, length: int = 0) -> None:
        if self.journal is not None:
            self.journal.next(i, k, state, crc, length)
