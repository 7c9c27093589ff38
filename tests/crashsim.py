"""A crash-state explorer for the in-place ``.npy`` conversion: what a power cut can leave on disk.

The model (ALICE, Pillai et al., OSDI 2014; SQLite's crash tests): only what an ``fsync``,
``fdatasync`` or ``msync`` made durable is sure to be on disk after the machine goes down;
every change since may have reached it in any subset, 4 KiB page by 4 KiB page, and a page of a
mapping may be written back at any moment after it was dirtied. Directory entries (a file
created, renamed, unlinked) are durable only once the folder is fsynced; a rename is atomic.

:class:`Recorder` runs a conversion (or a ``recover``) for real, in one folder, with the
durable-storage calls of ``os`` and ``mmap`` intercepted, and turns what it sees into a trace:

* *units*: a page of a file holding new bytes (diffed after every intercepted call and at every
  fault point, so the pages a kernel changes through the mapping are seen group by group), a
  file's new size, a name created, renamed or unlinked;
* *syncs*: a file's units made durable (fsync/fdatasync of it, msync of its mapping) or the
  folder's names (fsync of the folder).

:func:`crash_states` walks every prefix of the trace and materialises the durable state plus
subsets of the units still pending (none, all, each alone, all but one, seeded random ones);
:func:`explore` writes each distinct state into the folder (the data file keeps its inode,
which the journal names), runs ``ly.recover`` and ``np.load``, and sorts the outcomes: the
original bytes, the converted tensor, a refusal naming ``recover`` (the file still refused by
``np.load``) -- or a failure, described.

What it cannot see: a page changed twice between two observations (inside one batch of a
kernel) is seen once; a step's backup covers every byte such a batch touches.
"""

from __future__ import annotations

import contextlib
import hashlib
import mmap
import os
import random
import stat
from dataclasses import dataclass, field
from typing import Callable, Iterator

import numpy as np

import layouts as ly
from layouts.inplace.faultpoints import injected

PAGE = 4096
_real = {name: getattr(os, name) for name in ("open", "pwrite", "write", "ftruncate", "posix_fallocate", "fsync",
                                              "fdatasync", "replace", "rename", "unlink", "remove")}
_RealMmap = mmap.mmap


@dataclass(frozen=True)
class Unit:
    """One change that may or may not reach the disk: ``kind`` "page" (``file`` id, ``at`` page
    number, ``data``), "size" (``file``, ``at`` bytes), "link" (``name`` -> ``file``), "rename"
    (``name`` -> ``to``), "unlink" (``name``)."""

    kind: str
    file: int = -1
    at: int = 0
    data: bytes = b""
    name: str = ""
    to: str = ""


@dataclass
class State:
    """Names -> file ids, and each file's bytes."""

    names: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)

    def copy(self) -> "State":
        return State(dict(self.names), {k: bytearray(v) for k, v in self.files.items()})

    def apply(self, u: Unit) -> None:
        if u.kind == "page":
            buf = self.files.setdefault(u.file, bytearray())
            start = u.at * PAGE
            if len(buf) < start + len(u.data):
                buf.extend(b"\0" * (start + len(u.data) - len(buf)))
            buf[start:start + len(u.data)] = u.data
        elif u.kind == "size":
            buf = self.files.setdefault(u.file, bytearray())
            del buf[u.at:]
            buf.extend(b"\0" * (u.at - len(buf)))
        elif u.kind == "link":
            self.names[u.name] = u.file
        elif u.kind == "rename":
            if u.name in self.names:  # its creation did not reach the disk: nor did the rename
                self.names[u.to] = self.names.pop(u.name)
        elif u.kind == "unlink":
            self.names.pop(u.name, None)

    def contents(self) -> dict[str, bytes]:
        return {n: bytes(self.files.get(f, b"")) for n, f in sorted(self.names.items())}

    def key(self) -> str:
        h = hashlib.sha256()
        for n, data in self.contents().items():
            h.update(n.encode() + b"\0" + hashlib.sha256(data).digest())
        return h.hexdigest()


class Recorder:
    """Records the durable-storage operations on the files of ``folder`` while the block runs
    (the calls themselves go through, except the syncs, which the model makes instead)."""

    def __init__(self, folder: str) -> None:
        self.folder = os.path.realpath(folder)
        self.dir_ino = os.stat(self.folder).st_ino
        self.ids: dict[int, int] = {}        # inode -> file id (a reused inode gets a new id)
        self._made = 0
        self.cache: dict[int, bytes] = {}    # file id -> what a read sees now
        self.names: dict[str, int] = {}
        self.trace: list[tuple[str, object]] = []   # ("units", [Unit]) | ("sync", file id) | ("syncdir", None)
        for name in sorted(os.listdir(self.folder)):
            fid = self._id(os.stat(self._p(name)).st_ino, new=True)
            self.names[name] = fid
            self.cache[fid] = self._read(name)
        self.start = State(dict(self.names), {f: bytearray(b) for f, b in self.cache.items()})

    def _p(self, name: str) -> str:
        return os.path.join(self.folder, name)

    def _id(self, ino: int, new: bool = False) -> int:
        if new or ino not in self.ids:
            self._made += 1
            self.ids[ino] = self._made
        return self.ids[ino]

    def _read(self, name: str) -> bytes:
        with open(self._p(name), "rb") as f:
            return f.read()

    def _mine(self, path) -> str | None:
        if isinstance(path, int):
            return None
        path = os.fsdecode(os.fspath(path))
        return os.path.basename(path) if os.path.realpath(os.path.dirname(os.path.abspath(path))) == self.folder else None

    def observe(self) -> None:
        """Diff every file of the folder against what was last seen: the changed pages and sizes."""
        units = []
        for name in sorted(os.listdir(self.folder)):
            try:
                st = os.stat(self._p(name))
            except FileNotFoundError:
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            fid = self._id(st.st_ino)
            now, old = self._read(name), self.cache.get(fid, b"")
            if now == old:
                continue
            if len(now) != len(old):
                units.append(Unit("size", fid, len(now)))
            for page in range(-(-len(now) // PAGE)):
                a = page * PAGE
                if now[a:a + PAGE] != old[a:a + PAGE]:
                    units.append(Unit("page", fid, page, now[a:a + PAGE]))
            self.cache[fid] = now
        if units:
            self.trace.append(("units", units))

    def _file_of_fd(self, fd: int) -> int | None:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            return 0 if st.st_ino == self.dir_ino else None
        return self.ids.get(st.st_ino)

    def _sync(self, fd: int) -> None:
        self.observe()
        fid = self._file_of_fd(fd)
        if fid == 0:
            self.trace.append(("syncdir", None))
        elif fid is not None:
            self.trace.append(("sync", fid))

    @contextlib.contextmanager
    def recording(self) -> Iterator["Recorder"]:
        rec = self

        def open_(path, flags, mode=0o777, *, dir_fd=None):
            name = rec._mine(path) if dir_fd is None else None
            existed = name is not None and os.path.lexists(path)
            fd = _real["open"](path, flags, mode, dir_fd=dir_fd)
            if name is not None and (flags & os.O_CREAT) and not existed:
                fid = rec._id(os.fstat(fd).st_ino, new=True)
                rec.cache[fid] = b""
                rec.trace.append(("units", [Unit("link", fid, name=name)]))
            rec.observe()
            return fd

        def after(fn):
            def call(*args, **kwargs):
                out = _real[fn](*args, **kwargs)
                rec.observe()
                return out
            return call

        def rename(fn):
            def call(a, b, **kwargs):
                na, nb = rec._mine(a), rec._mine(b)
                out = _real[fn](a, b, **kwargs)
                if na is not None and nb is not None:
                    rec.trace.append(("units", [Unit("rename", name=na, to=nb)]))
                rec.observe()
                return out
            return call

        def unlink(fn):
            def call(path, **kwargs):
                name = rec._mine(path)
                out = _real[fn](path, **kwargs)
                if name is not None:
                    rec.trace.append(("units", [Unit("unlink", name=name)]))
                return out
            return call

        def sync(fd):
            rec._sync(fd)

        class RecordingMmap(_RealMmap):
            def flush(self, *args):
                rec.observe()
                if self.file_id is not None:
                    rec.trace.append(("sync", self.file_id))

        def mmap_(fd, length, *args, **kwargs):
            m = RecordingMmap(fd, length, *args, **kwargs)
            m.file_id = rec.ids.get(os.fstat(fd).st_ino)
            return m

        patches = {"open": open_, "pwrite": after("pwrite"), "write": after("write"),
                   "ftruncate": after("ftruncate"), "posix_fallocate": after("posix_fallocate"),
                   "fsync": sync, "fdatasync": sync, "replace": rename("replace"), "rename": rename("rename"),
                   "unlink": unlink("unlink"), "remove": unlink("remove")}
        for name, fn in patches.items():
            setattr(os, name, fn)
        mmap.mmap = mmap_
        try:
            with injected(lambda name, **info: rec.observe()):
                yield self
        finally:
            for name, fn in _real.items():
                setattr(os, name, fn)
            mmap.mmap = _RealMmap
        self.observe()


def crash_states(rec: Recorder, seed: int = 0, randoms: int = 6) -> Iterator[tuple[int, State]]:
    """(prefix length, state) for every prefix of ``rec``'s trace and the chosen subsets of its
    pending units (duplicates included; :func:`explore` keeps the distinct ones)."""
    rng = random.Random(seed)
    durable = rec.start.copy()
    pending: list[Unit] = []
    for k in range(len(rec.trace) + 1):
        if k:
            what, arg = rec.trace[k - 1]
            if what == "units":
                pending.extend(arg)
            else:
                keep = []
                for u in pending:
                    made = (u.kind in ("link", "rename", "unlink")) if what == "syncdir" else \
                        (u.kind in ("page", "size") and u.file == arg)
                    (durable.apply(u) if made else keep.append(u))
                pending = keep
        n = len(pending)
        choices = [(), tuple(range(n))]
        choices += [(i,) for i in range(n)]
        choices += [tuple(j for j in range(n) if j != i) for i in range(n)]
        choices += [tuple(j for j in range(n) if rng.random() < 0.5) for _ in range(randoms if n > 1 else 0)]
        for chosen in dict.fromkeys(choices):
            s = durable.copy()
            for j in chosen:
                s.apply(pending[j])
            yield k, s


def materialise(folder: str, data_name: str, state: State) -> None:
    """Make ``folder`` hold ``state``; the data file is rewritten in place (its inode is kept)."""
    want = state.contents()
    for name in os.listdir(folder):
        if name != data_name and name not in want:
            _real["unlink"](os.path.join(folder, name))
    for name, data in want.items():
        p = os.path.join(folder, name)
        flags = os.O_RDWR | os.O_CREAT | (0 if name == data_name else os.O_TRUNC)
        fd = _real["open"](p, flags, 0o600)
        try:
            _real["ftruncate"](fd, len(data))
            if data:
                _real["pwrite"](fd, data, 0)
        finally:
            os.close(fd)


@contextlib.contextmanager
def no_syncs() -> Iterator[None]:
    """The syncs skipped (what is durable does not matter to a check, only its speed)."""
    class QuietMmap(_RealMmap):
        def flush(self, *args):
            pass

    os.fsync = os.fdatasync = lambda fd: None
    mmap.mmap = QuietMmap
    try:
        yield
    finally:
        os.fsync, os.fdatasync, mmap.mmap = _real["fsync"], _real["fdatasync"], _RealMmap


@dataclass
class Outcome:
    """Counts of what ``recover`` + ``np.load`` made of the distinct crash states."""

    states: int = 0
    original: int = 0
    converted: int = 0
    refused: int = 0
    failures: list = field(default_factory=list)

    def add(self, other: "Outcome") -> None:
        self.states += other.states
        self.original += other.original
        self.converted += other.converted
        self.refused += other.refused
        self.failures += other.failures


def judge(path: str, original: bytes, want: np.ndarray) -> tuple[str, str]:
    """Run ``ly.recover(path)`` and ``np.load``: ("original"|"converted"|"refused", "") or
    ("failure", what went wrong)."""
    try:
        outcome = ly.recover(path)
    except ly.LayoutError as err:
        text = str(err)
        if not text.startswith("recover:"):
            return "failure", f"a refusal that does not name recover: {text}"
        if "nothing to recover" in text:
            return _loaded(path, original, want, None)
        try:
            np.load(path)
        except ValueError:
            return "refused", ""
        return "failure", f"recover refused ({text}) but np.load reads the file"
    except Exception as err:  # noqa: BLE001 -- any other exception is a finding
        return "failure", f"recover raised {err!r}"
    return _loaded(path, original, want, outcome)


def _loaded(path: str, original: bytes, want: np.ndarray, outcome: str | None) -> tuple[str, str]:
    with open(path, "rb") as f:
        raw = f.read()
    if raw == original:
        got = "original"
    else:
        try:
            y = np.load(path)
        except Exception as err:  # noqa: BLE001
            return "failure", f"recover said {outcome!r}, then np.load raised {err!r}"
        ok = y.dtype == want.dtype and y.shape == want.shape and y.tobytes() == want.tobytes()
        if not ok:
            return "failure", f"recover said {outcome!r}: a valid .npy {y.shape} holding scrambled data"
        got = "converted"
    if outcome is not None and outcome != got:
        return "failure", f"recover said {outcome!r} but the file holds the {got} tensor"
    left = sorted(n for n in os.listdir(os.path.dirname(path)) if n != os.path.basename(path))
    if outcome is not None and left:
        return "failure", f"recover said {outcome!r} and left {left} behind"
    return got, ""


def explore(rec: Recorder, path: str, original: bytes, want: np.ndarray, *, seen: set | None = None,
            second: Callable[[State], bool] | None = None, seed: int = 0) -> Outcome:
    """Judge every distinct crash state of ``rec``'s trace; where ``second(state)`` says so, also
    every state a second power cut during that state's ``recover`` leaves."""
    seen = set() if seen is None else seen
    out = Outcome()
    folder, name = os.path.dirname(path), os.path.basename(path)
    for k, state in crash_states(rec, seed):
        key = state.key()
        if key in seen:
            continue
        seen.add(key)
        materialise(folder, name, state)
        if second is not None and second(state):
            again = Recorder(folder)
            with again.recording():
                try:
                    ly.recover(path)
                except ly.LayoutError:
                    pass
            nested = explore(again, path, original, want, seen=seen, seed=seed + k + 1)
            nested.failures = [f"a second cut, during the recover of prefix {k}'s state: {f}" for f in nested.failures]
            out.add(nested)
            materialise(folder, name, state)
        out.states += 1
        with no_syncs():
            verdict, why = judge(path, original, want)
        if verdict == "failure":
            out.failures.append(f"prefix {k} of {len(rec.trace)}: {why}")
        else:
            setattr(out, verdict, getattr(out, verdict) + 1)
    return out
