"""Who may touch a file: advisory locks (``fcntl.flock``), regular files only, stale ``.part`` files.

A conversion reading a source takes a shared lock on it, one converting a file in its own bytes
an exclusive one, one writing ``dst_path`` an exclusive lock on its temporary ``.part`` file: a
second conversion of the same file (or into the same ``dst_path``) is refused with the other
process's id (from ``/proc/locks`` where there is one) instead of interleaving with it. A
``.part`` file nobody holds locked is left by a process that died; the next run into that
folder removes it (and the unlocked ones of other conversions there).

>>> import os, tempfile
>>> p = os.path.join(tempfile.mkdtemp(), "f")
>>> open(p, "wb").close()
>>> fd = open_regular(p, "src_path", os.O_RDONLY)
>>> lock(fd, p, "src_path", exclusive=False)
>>> os.close(fd)
"""

from __future__ import annotations

import fcntl
import os
import re
import stat

from ..errors import LayoutError

__all__ = ["open_regular", "lock", "unlock", "holder", "remove_stale_parts", "KINDS"]

KINDS = {stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
         stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a directory"}


def _kind(mode: int) -> str:
    return KINDS.get(stat.S_IFMT(mode), "not a regular file")


def open_regular(path: str, name: str, flags: int) -> int:
    """``os.open`` of ``path``, refused (LayoutError naming ``name`` and the path) unless it is a
    regular file; never blocks on a FIFO (opened non-blocking, checked, then made blocking)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise FileNotFoundError(2, f"{name} {path!r} does not exist", path) from None
    if not stat.S_ISREG(st.st_mode):
        raise LayoutError(f"{name} {path!r} is {_kind(st.st_mode)}, expected a regular .npy file")
    fd = os.open(path, flags | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # replaced between the check and the open
            raise LayoutError(f"{name} {path!r} is {_kind(st.st_mode)}, expected a regular .npy file")
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return fd


def holder(fd: int) -> int | None:
    """The id of the process holding a ``flock`` on the file open as ``fd``, if Linux says (another
    process's id before this one's: a lock of this process on another open of the file counts too)."""
    try:
        ino = os.fstat(fd).st_ino
        with open("/proc/locks") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    found = []
    for line in lines:
        parts = line.split()
        if "->" in parts:
            parts.remove("->")
        if len(parts) >= 6 and parts[1] == "FLOCK":
            try:
                pid, node = int(parts[4]), int(parts[5].split(":")[2])
            except (ValueError, IndexError):
                continue
            if node == ino:
                found.append(pid)
    others = [pid for pid in found if pid != os.getpid()]
    return others[0] if others else (found[0] if found else None)


def _who(fd: int) -> str:
    pid = holder(fd)
    if pid == os.getpid():
        return f"this process ({pid}: another open of the file, in a call that has not returned)"
    return f"process {pid}" if pid else "another process"


def lock(fd: int, path: str, name: str, *, exclusive: bool) -> None:
    """Take the lock or refuse, naming the process that holds it."""
    try:
        fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except BlockingIOError:
        raise LayoutError(f"{name} {path!r} is being converted by {_who(fd)} (it holds the file's lock); wait for "
                          f"it to finish, then run again") from None


def unlock(fd: int) -> None:
    """End the lock taken on ``fd`` now, whatever else still refers to the open file: a memory map
    of it holds a duplicate of the descriptor (and so the lock) for as long as a view of the map lives."""
    try:
        fcntl.flock(fd, fcntl.LOCK_UN)
    except OSError:
        pass


#: a temporary file of convert_file: ``.NAME.`` + mkstemp's 8 random characters + ``.part``
_PART = re.compile(r"^\.(?P<name>.+)\.[a-z0-9_]{8}\.part$")


def remove_stale_parts(folder: str, name: str, dst_path: str) -> None:
    """Remove the temporary ``.part`` files of ``folder`` that no live process holds: those of
    runs into ``dst_path`` (``.NAME.XXXXXXXX.part``), and those of other names that are empty or
    start as a ``.npy`` (what convert_file writes first). Refuse (LayoutError naming the process)
    when one of ``dst_path`` is held: a conversion into it is running."""
    try:
        entries = [e for e in os.listdir(folder) if e.endswith(".part")]
    except OSError:
        return
    for entry in entries:
        m = _PART.match(entry)
        if m is None:
            continue
        mine = m.group("name") == name
        p = os.path.join(folder, entry)
        try:
            fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            continue
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                continue
            if not mine and st.st_size and os.pread(fd, 6, 0) != b"\x93NUMPY":
                continue  # not one of ours
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if not mine:
                    continue  # another conversion, into another file of this folder, is running
                raise LayoutError(f"dst_path {dst_path!r} is being written by {_who(fd)} (its temporary file {entry!r} "
                                  f"is locked); wait for it to finish, then run again") from None
            try:
                if os.stat(p).st_ino == st.st_ino:
                    os.unlink(p)
            except OSError:
                pass
        finally:
            os.close(fd)
