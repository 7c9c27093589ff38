"""Fault catalogue, files: full disks (a small tmpfs mounted by the test, as root), FIFOs and
devices, aliases of one file, sources that change while they are read, corrupt headers, odd
dtypes, marked files, stale ``.part`` files, interrupted two-file runs and the wording of refusals.

Each case checks the source's hash, ``dst`` absent / complete / old, no ``.part`` left, and the
exception's type and a key word.
"""

from __future__ import annotations

import errno
import fcntl
import os
import signal
import subprocess

import numpy as np
import pytest

import layouts as ly
from faultkit import Fault, ctrl_c_handler, digest, leftovers, state_of, tensor

NAME = "nchw-nhwc"


@pytest.fixture
def no_hang():
    """A refusal must come at once: SIGALRM after 20 s turns a hang into a failure."""
    def late(signum, frame):
        raise AssertionError("blocked: the call hung")
    old = signal.signal(signal.SIGALRM, late)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.fixture
def small_disk(tmp_path):
    """A 4 MiB tmpfs, mounted for the test (root only; skipped elsewhere)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    where = tmp_path / "disk"
    where.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(where)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    yield where
    subprocess.run(["umount", "-l", str(where)], capture_output=True)


def _fill(folder, leave: int = 0):
    """Fill the file system of ``folder`` until ``leave`` bytes (about) are free."""
    st = os.statvfs(folder)
    free = st.f_bavail * st.f_frsize - leave
    with open(os.path.join(folder, "filler"), "wb") as f:
        chunk = b"\1" * (1 << 16)
        while free > 0:
            try:
                free -= f.write(chunk[:max(1, min(len(chunk), free))])
                f.flush()
            except OSError:
                break


def _words(err: BaseException) -> str:
    return " ".join([str(err)] + list(getattr(err, "__notes__", ())))


def _save(folder, seed=0, name="x.npy"):
    x = tensor(NAME, seed)
    p = folder / name
    np.save(p, x)
    return x, p


# ------------------------------------------------------------------------------------ full disks
@pytest.mark.parametrize("old_dst", [False, True], ids=["no-dst", "old-dst"])
def test_full_disk_two_files_keeps_the_old_dst(tmp_path, small_disk, old_dst):
    x, p = _save(tmp_path)
    before = digest(p)
    dst = small_disk / "y.npy"
    if old_dst:
        np.save(dst, np.arange(4))
    old = digest(dst) if old_dst else None
    _fill(small_disk)
    with pytest.raises(OSError) as info:
        ly.convert_file(p, "NCHW", dst, "NHWC", progress=False)
    assert info.value.errno == errno.ENOSPC and "y.npy" in str(info.value)
    assert digest(p) == before
    assert (digest(dst) == old) if old_dst else not dst.exists()
    assert leftovers(small_disk, ["filler", "y.npy"]) == []


def test_sparse_source_on_a_full_disk_is_refused_before_any_write(small_disk):
    p = small_disk / "x.npy"
    m = np.lib.format.open_memmap(p, mode="w+", dtype=np.float32, shape=(16, 32, 16, 16))  # 512 KiB, sparse
    m[:2] = 1.5                                                                              # partly written
    m.flush()
    del m
    before = digest(p)
    _fill(small_disk)
    with pytest.raises(OSError) as info:
        ly.convert_file(p, "NCHW", p, "NHWC", inplace=True, progress=False)
    assert info.value.errno == errno.ENOSPC and "x.npy" in str(info.value) and "sparse" in str(info.value)
    assert digest(p) == before and np.load(p)[:2].min() == 1.5
    assert leftovers(small_disk, ["filler", "x.npy"]) == []


@pytest.mark.parametrize("leave", [0, 64 << 10], ids=["no-room", "room-for-the-head-only"])
def test_full_disk_in_place_without_room_for_the_journal_still_converts(small_disk, leave):
    x, p = _save(small_disk)
    _fill(small_disk, leave)
    ly.convert_file(p, "NCHW", p, "NHWC", inplace=True, progress=False, memory="1MB")
    assert state_of(p, x, NAME) == "converted"
    assert leftovers(small_disk, ["filler", "x.npy"]) == []


def test_read_only_mount_refuses_with_the_path(tmp_path, small_disk):
    x, p = _save(small_disk)
    before = digest(p)
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    with pytest.raises(OSError) as info:
        ly.convert_file(p, "NCHW", p, "NHWC", inplace=True, progress=False)
    assert info.value.errno in (errno.EROFS, errno.EACCES)
    with pytest.raises(OSError):
        ly.convert_file(p, "NCHW", small_disk / "y.npy", "NHWC", progress=False)
    assert digest(p) == before and not (small_disk / "y.npy").exists()


# ------------------------------------------------------------------------ not a regular file
@pytest.mark.parametrize("how", ["src", "same-file", "dst", "recover"])
def test_a_fifo_is_refused_up_front_naming_it(tmp_path, no_hang, how):
    fifo = tmp_path / "pipe.npy"
    os.mkfifo(fifo)
    x, p = _save(tmp_path)
    calls = {"src": lambda: ly.convert_file(fifo, "NCHW", tmp_path / "y.npy", "NHWC"),
             "same-file": lambda: ly.convert_file(fifo, "NCHW", fifo, "NHWC", inplace=True),
             "dst": lambda: ly.convert_file(p, "NCHW", fifo, "NHWC"),
             "recover": lambda: ly.recover(fifo)}
    with pytest.raises(ly.LayoutError) as info:
        calls[how]()
    assert "pipe.npy" in str(info.value) and ("FIFO" in str(info.value) or "regular" in str(info.value))
    assert leftovers(tmp_path, ["pipe.npy", "x.npy"]) == []


@pytest.mark.parametrize("inplace", [False, True])
def test_a_device_or_a_directory_is_refused(tmp_path, no_hang, inplace):
    out = "/dev/null" if inplace else tmp_path / "y.npy"
    with pytest.raises(ly.LayoutError, match="character device|regular"):
        ly.convert_file("/dev/null", "NCHW", out, "NHWC", inplace=inplace)
    with pytest.raises(ly.LayoutError, match="directory"):
        ly.convert_file(tmp_path, "NCHW", tmp_path, "NHWC", inplace=inplace)


# ----------------------------------------------------------------------------------- aliases
@pytest.mark.parametrize("alias", ["symlink", "hardlink", "dot-path"])
def test_an_alias_of_the_file_converts_it_in_its_own_bytes(tmp_path, alias):
    x, p = _save(tmp_path)
    other = tmp_path / "alias.npy"
    if alias == "symlink":
        os.symlink(p, other)
    elif alias == "hardlink":
        os.link(p, other)
    else:
        other = tmp_path / "." / "x.npy"
    ly.convert_file(p, "NCHW", other, "NHWC", inplace=True, progress=False)
    assert state_of(p, x, NAME) == "converted" and state_of(other, x, NAME) == "converted"
    if alias == "symlink":
        assert os.path.islink(tmp_path / "alias.npy")


@pytest.mark.parametrize("alias", ["symlink", "hardlink"])
def test_an_alias_as_the_dst_of_a_two_file_run_is_refused(tmp_path, alias):
    x, p = _save(tmp_path)
    before = digest(p)
    other = tmp_path / "alias.npy"
    (os.symlink if alias == "symlink" else os.link)(p, other)
    with pytest.raises(ly.LayoutError, match="source file"):
        ly.convert_file(p, "NCHW", other, "NHWC")
    assert digest(p) == before


@pytest.mark.parametrize("alias", ["symlink", "hardlink"])
def test_ctrl_c_through_an_alias_restores_the_file(tmp_path, alias):
    x, p = _save(tmp_path)
    before = digest(p)
    other = tmp_path / "alias.npy"
    (os.symlink if alias == "symlink" else os.link)(p, other)
    with ctrl_c_handler(), Fault("file-step", signal.SIGINT).installed(), pytest.raises(KeyboardInterrupt):
        ly.convert_file(other, "NCHW", p, "NHWC", inplace=True, progress=False, memory="96KB")
    assert digest(p) == before and leftovers(tmp_path, ["x.npy", "alias.npy"]) == []


# -------------------------------------------------------------------- a source that changes
def _shrink(p):
    with open(p, "r+b") as f:
        f.truncate(os.path.getsize(p) // 2)


def _grow(p):
    with open(p, "ab") as f:
        f.write(b"\0" * 4096)


def _touch(p):
    st = os.stat(p)
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))


@pytest.mark.parametrize("inplace", [False, True], ids=["two-buffers", "tile-in-place"])
@pytest.mark.parametrize("change", [_shrink, _grow, _touch], ids=["shrinks", "grows", "touched"])
def test_a_source_that_changes_while_read_is_an_error_naming_it(tmp_path, change, inplace):
    x, p = _save(tmp_path)
    out = tmp_path / "y.npy"

    def hook(name, **info):
        if name == "tile" and info["index"] == 2:
            change(p)

    from layouts.inplace.faultpoints import injected
    with injected(hook), pytest.raises(ly.LayoutError) as info:
        ly.convert_file(p, "NCHW", out, "NHWC", memory="200KB" if inplace else "64KB", inplace=inplace, progress=False)
    assert "x.npy" in str(info.value) and ("changed" in str(info.value) or "shrank" in str(info.value))
    assert not out.exists() and leftovers(tmp_path, ["x.npy"]) == []


# --------------------------------------------------------------------------- odd file contents
def _raw_npy(p, header_dict_text: bytes, data: bytes = b"", version=(1, 0)):
    body = header_dict_text + b" " * ((64 - (10 + len(header_dict_text) + 1) % 64) % 64) + b"\n"
    with open(p, "wb") as f:
        f.write(b"\x93NUMPY" + bytes(version) + len(body).to_bytes(2, "little") + body + data)


CORRUPT = {
    "unbalanced": b"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, ",
    "not-a-dict": b"[1, 2, 3]",
    "garbage": b"\xff\xfe\x00 not python",
    "missing-key": b"{'descr': '<f4', 'shape': (2, 3), }",
    "bad-shape": b"{'descr': '<f4', 'fortran_order': False, 'shape': 'wide', }",
}


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("kind", sorted(CORRUPT))
def test_a_corrupt_header_is_a_layout_error(tmp_path, kind, inplace):
    p = tmp_path / "bad.npy"
    _raw_npy(p, CORRUPT[kind], b"\0" * 24)
    before = digest(p)
    out = p if inplace else tmp_path / "y.npy"
    with pytest.raises(ly.LayoutError, match="not a .npy file numpy can read"):
        ly.convert_file(p, "NC", out, "CN", inplace=inplace)
    assert digest(p) == before and leftovers(tmp_path, ["bad.npy"]) == []


@pytest.mark.parametrize("inplace", [False, True])
def test_a_zero_itemsize_dtype_is_refused_clearly(tmp_path, inplace):
    p = tmp_path / "v0.npy"
    _raw_npy(p, b"{'descr': '|V0', 'fortran_order': False, 'shape': (2, 3, 4, 5), }")
    with pytest.raises(ly.LayoutError, match="item size 0"):
        ly.convert_file(p, "NCHW", p if inplace else tmp_path / "y.npy", "NHWC", inplace=inplace)


@pytest.mark.parametrize("call", [ly.convert, ly.convert_inplace], ids=["convert", "convert_inplace"])
def test_a_zero_itemsize_array_is_refused_clearly(call):
    with pytest.raises(ly.LayoutError, match="item size 0"):
        call(np.zeros((2, 3, 4, 5), "V0"), "NCHW", "NHWC")


@pytest.mark.parametrize("what", ["object", "fortran", "truncated"])
def test_other_unreadable_files(tmp_path, what):
    p = tmp_path / "x.npy"
    if what == "object":
        np.save(p, np.array([[None, 1]], dtype=object), allow_pickle=True)
        word = "objects"
    elif what == "fortran":
        np.save(p, np.asfortranarray(np.zeros((2, 3, 4, 5), np.float32)))
        word = "Fortran"
    else:
        x, p = _save(tmp_path)
        _shrink(p)
        word = "truncated"
    before = digest(p)
    spec = ("NC", "CN") if what == "object" else ("NCHW", "NHWC")
    for out in (p, tmp_path / "y.npy"):
        with pytest.raises(ly.LayoutError, match=word):
            ly.convert_file(p, spec[0], out, spec[1], inplace=True)
    assert digest(p) == before


# ------------------------------------------------------------------------------- marked files
def _marked(tmp_path, journal=True):
    """A file a killed in-place run left: its marker (and, without ``journal``, no journal)."""
    x, p = _save(tmp_path)
    with open(p, "r+b") as f:
        f.write(b"\x93LAYOUTS")
    return x, p


@pytest.mark.parametrize("how", ["np.load", "two-files", "in-place"])
def test_a_marked_file_is_refused_naming_recover(tmp_path, how):
    x, p = _marked(tmp_path)
    before = digest(p)
    if how == "np.load":
        with pytest.raises(ValueError):
            np.load(p)
    else:
        out = p if how == "in-place" else tmp_path / "y.npy"
        with pytest.raises(ly.LayoutError, match="recover"):
            ly.convert_file(p, "NCHW", out, "NHWC", inplace=how == "in-place")
    assert digest(p) == before


def test_recover_without_a_journal_refuses_and_leaves_the_file(tmp_path):
    x, p = _marked(tmp_path)
    before = digest(p)
    with pytest.raises(ly.LayoutError, match="no journal"):
        ly.recover(p)
    assert digest(p) == before


@pytest.mark.parametrize("what", ["valid", "missing", "directory", "wrong-kind"])
def test_recover_refuses_what_is_not_a_marked_file(tmp_path, what):
    x, p = _save(tmp_path)
    cases = {"valid": (lambda: ly.recover(p), ly.LayoutError, "nothing to recover"),
             "missing": (lambda: ly.recover(tmp_path / "nope.npy"), FileNotFoundError, "nope"),
             "directory": (lambda: ly.recover(tmp_path), ly.LayoutError, "directory"),
             "wrong-kind": (lambda: ly.recover(3), ly.LayoutTypeError, "path")}
    call, kind, word = cases[what]
    with pytest.raises(kind, match=word):
        call()


# --------------------------------------------------------------------- .part files, interrupts
def test_a_stale_part_file_of_a_dead_run_is_removed_by_the_next(tmp_path):
    x, p = _save(tmp_path)
    (tmp_path / ".y.npy.dead0001.part").write_bytes(b"\0" * 4096)          # a dead run into y.npy
    (tmp_path / ".z.npy.dead0002.part").write_bytes(b"\x93NUMPY" + b"\0" * 90)  # ... and one into z.npy
    (tmp_path / ".w.npy.dead0003.part").write_bytes(b"")                     # interrupted at creation
    (tmp_path / "film.mkv.part").write_bytes(b"someone else's download")      # not ours: kept
    (tmp_path / ".v.npy.abcd1234.part").write_bytes(b"not a .npy")             # not ours either: kept
    ly.convert_file(p, "NCHW", tmp_path / "y.npy", "NHWC", progress=False)
    assert leftovers(tmp_path, ["x.npy", "y.npy"]) == [".v.npy.abcd1234.part", "film.mkv.part"]


#: faults at the moments of a two-file run
TWO_FILE = [("part-created", signal.SIGINT, KeyboardInterrupt), ("tile", signal.SIGINT, KeyboardInterrupt),
            ("tile", MemoryError("injected"), MemoryError), ("tile", OSError(errno.EIO, "injected"), OSError),
            ("tile", signal.SIGTERM, SystemExit)]


@pytest.mark.parametrize("inplace", [False, True], ids=["two-buffers", "tile-in-place"])
@pytest.mark.parametrize("old_dst", [False, True], ids=["no-dst", "old-dst"])
@pytest.mark.parametrize("where, action, kind", TWO_FILE, ids=[f"{w}-{k.__name__}" for w, _, k in TWO_FILE])
def test_an_interrupted_two_file_run_leaves_no_part_and_dst_old_or_absent(tmp_path, where, action, kind, old_dst,
                                                                          inplace):
    x, p = _save(tmp_path)
    before = digest(p)
    out = tmp_path / "y.npy"
    if old_dst:
        np.save(out, np.arange(3))
    old = digest(out) if old_dst else None
    from faultkit import sigterm_exits
    with ctrl_c_handler(), sigterm_exits(), Fault(where, action, 2 if where == "tile" else 1).installed():
        with pytest.raises(kind):
            ly.convert_file(p, "NCHW", out, "NHWC", memory="200KB" if inplace else "64KB", inplace=inplace,
                            progress=False)
    assert digest(p) == before
    assert (digest(out) == old) if old_dst else not out.exists()
    assert leftovers(tmp_path, ["x.npy", "y.npy"]) == []


def test_a_lock_held_through_another_descriptor_is_refused(tmp_path):
    x, p = _save(tmp_path)
    before = digest(p)
    fd = os.open(p, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(ly.LayoutError, match="being converted"):
            ly.convert_file(p, "NCHW", p, "NHWC", inplace=True)
        with pytest.raises(ly.LayoutError, match="being converted"):
            ly.convert_file(p, "NCHW", tmp_path / "y.npy", "NHWC")
    finally:
        os.close(fd)
    assert digest(p) == before


# ------------------------------------------------------------------ refusals quote the caller
@pytest.mark.parametrize("memory, shown", [(5, "memory=5 "), ("4B", "memory='4B'")])
@pytest.mark.parametrize("same", [False, True], ids=["two-files", "same-file"])
def test_too_little_memory_quotes_what_the_caller_gave(tmp_path, memory, shown, same):
    x, p = _save(tmp_path)
    out = p if same else tmp_path / "y.npy"
    with pytest.raises(ly.LayoutError) as info:
        ly.convert_file(p, "NCHW", out, "NHWC", memory=memory, inplace=same)
    assert shown in str(info.value) and "too small" in str(info.value)


@pytest.mark.parametrize("call", [
    lambda d: ly.convert_file(3, "NCHW", d / "y.npy", "NHWC"),
    lambda d: ly.convert_file(d / "x.npy", "NCHW", d / "y.npy", "NHWC", progress="yes"),
    lambda d: ly.convert_file(d / "x.npy", "NCHW", d / "y.npy", "NHWC", inplace="yes"),
    lambda d: ly.convert_file(d / "x.npy", 3, d / "y.npy", "NHWC"),
    lambda d: ly.convert_inplace([1, 2], "NCHW", "NHWC"),
    lambda d: ly.recover(None),
], ids=["path", "progress", "inplace", "src", "array", "recover"])
def test_a_wrong_kind_is_a_layout_type_error_everywhere(tmp_path, call):
    _save(tmp_path)
    with pytest.raises(ly.LayoutTypeError) as info:
        call(tmp_path)
    assert isinstance(info.value, ly.LayoutError) and isinstance(info.value, TypeError)


