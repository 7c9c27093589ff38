"""``layouts.recover(path)``: a ``.npy`` file left by a killed in-place conversion made valid again.

A run of ``convert_file(path, src, path, dst, inplace=True)`` that was killed (SIGKILL, a
crash, a power cut) leaves the file marked (``np.load`` refuses it) and its journal beside it
(:mod:`.journal`). :func:`recover` reads where the run got to, puts back the step that was
running from its backup, and runs the journal to its end under the same guarantees (a crash
during the recovery is recovered by running it again): a forward run ends ``"converted"`` (the
destination layout, its header written), a run killed while it rolled back ends ``"original"``,
and one killed before any byte moved ends ``"original"`` at once.

>>> import numpy as np, os, tempfile, layouts as ly
>>> p = os.path.join(tempfile.mkdtemp(), "x.npy")
>>> np.save(p, np.arange(6.0).reshape(1, 2, 3, 1))
>>> ly.recover(p)
Traceback (most recent call last):
...
layouts.errors.LayoutError: recover: ... is not marked by an interrupted in-place conversion (np.load reads it as it is): nothing to recover
"""

from __future__ import annotations

import mmap
import os
from typing import Any

import numpy as np

from ..errors import LayoutError
from ..inplace.signals import SignalHold
from .filelock import lock, open_regular
from .inplace_file import (HOLD_DEFAULT, StepRunner, forget_views, journal_path, release, remove_stale_journal,
                           segs_from_json)
from .journal import Journal
from .npyformat import INTERRUPTED_MAGIC, path_arg

__all__ = ["recover", "marked_journal"]


def recover(path: Any) -> str:
    """Bring the ``.npy`` file ``path``, left marked by a killed in-place conversion, back to a
    valid ``.npy``; return ``"converted"`` (it now holds the destination layout) or
    ``"original"`` (the source layout, byte for byte as before the conversion).

    Raises a :class:`~layouts.LayoutError` when ``path`` is not marked, or when its journal is
    missing or cannot repair it (a run killed inside a step larger than its backup area); the
    file is then left as it was, still marked.
    """
    path = path_arg(path, "path")
    try:
        with SignalHold(HOLD_DEFAULT) as hold:
            return _recover(path, hold)
    except LayoutError as err:
        raise LayoutError(f"recover: {err}") from None


def _recover(path: str, hold: SignalHold) -> str:
    fd = open_regular(path, "path", os.O_RDWR)
    mm = None
    journal = None
    try:
        lock(fd, path, "path", exclusive=True)
        head = os.pread(fd, 4096, 0)
        if not head.startswith(INTERRUPTED_MAGIC):
            remove_stale_journal(fd, path, os.fstat(fd))  # one left by a run killed after its last header
            raise LayoutError(f"{path!r} is not marked by an interrupted in-place conversion (np.load reads it as it "
                              f"is): nothing to recover")
        st = os.fstat(fd)
        jpath, named = marked_journal(path, head, st)
        if not named or not os.path.exists(jpath):
            raise LayoutError(f"{path!r} was being converted in place when that run was killed, and it has no journal "
                              f"({os.path.basename(jpath)!r} beside it is missing): its data is a partial permutation "
                              f"that cannot be repaired; restore it from a copy")
        journal = Journal.open(jpath)
        meta = journal.meta
        if (meta["dev"], meta["ino"]) != (st.st_dev, st.st_ino):
            raise LayoutError(f"the journal {jpath!r} belongs to another file (device/inode differ)")
        offset, nbytes = int(meta["offset"]), int(meta["nbytes"])
        end = bytes.fromhex(meta["end_header"])
        progress = journal.progress()
        if progress is None and meta.get("start") == "original":
            _write(fd, bytes.fromhex(meta["start_header"]))  # killed before any byte moved
            journal.remove()
            return "original"
        if os.fstat(fd).st_size < offset + nbytes:
            raise LayoutError(f"{path!r} is shorter than its journal says ({offset + nbytes} bytes): it cannot be repaired")
        mm = mmap.mmap(fd, offset + nbytes, access=mmap.ACCESS_WRITE)
        data = np.frombuffer(mm, np.uint8, count=nbytes, offset=offset)
        segs = segs_from_json(meta["segments"])
        from ..inplace.driver import warm
        warm(data, _Plan(segs))
        runner = StepRunner(fd, mm, data, journal, segs, np.empty(int(meta["scratch"]), np.uint8), hold, True, path,
                            offset + nbytes)
        runner.phase = "recover"
        runner.resume(progress)
        runner.run()
        mm.flush()
        journal.shrink()
        _write(fd, end)
        journal.remove()
        return str(meta["outcome"])
    except BaseException as err:
        forget_views(err)
        raise
    finally:
        data = runner = None
        if journal is not None:
            journal.close()
        release(fd, mm)


def marked_journal(path: str, head: bytes, st: os.stat_result) -> tuple[str, bool]:
    """``(journal path, named)`` of a marked file whose first bytes are ``head``: the journal its
    marker names, or (``named`` False) where a marker without a name would have put it."""
    rest = head[len(INTERRUPTED_MAGIC):]
    key = b" journal="
    name = os.fsdecode(rest[len(key):].split(b"\n", 1)[0]) if rest.startswith(key) else ""
    if not name:
        return journal_path(path, st), False
    return os.path.join(os.path.dirname(os.path.realpath(path)), name), True


def _write(fd: int, header: bytes) -> None:
    os.pwrite(fd, header, 0)
    os.fsync(fd)


class _Plan:
    """What :func:`layouts.kernels.jit.inplace.warm` reads of a plan: passes with ops."""

    def __init__(self, segs: list) -> None:
        self.passes = [_Pass(seg.op) for seg, _ in segs]


class _Pass:
    def __init__(self, op: Any) -> None:
        self.ops, self.undo = (op,), ()
