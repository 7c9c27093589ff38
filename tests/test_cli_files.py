"""``layouts convert`` and ``layouts info`` (issue 39, item 3), against numpy's own reading of the files."""

from __future__ import annotations

import errno
import os
import stat
import signal

import numpy as np
import pytest

import layouts as ly
from layouts.__main__ import main
from faultkit import run_child


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args), prog="layouts")
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def x(tmp_path):
    a = np.random.default_rng(0).standard_normal((2, 20, 4, 5)).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    return a


def test_convert_writes_what_numpy_transposes(tmp_path, capsys, x):
    code, out, err = _cli(capsys, "convert", str(tmp_path / "a.npy"), "NCHW", str(tmp_path / "b.npy"), "NHWC",
                          "--memory", "2KB", "--no-progress")
    assert code == 0, err
    assert np.array_equal(np.load(tmp_path / "b.npy"), x.transpose(0, 2, 3, 1))
    assert "NCHW -> NHWC" in out and "(2, 4, 5, 20)" in out


def test_convert_blocked_and_back_with_the_true_channel_count(tmp_path, capsys, x):
    a, b, c = (str(tmp_path / n) for n in ("a.npy", "b.npy", "c.npy"))
    assert _cli(capsys, "convert", a, "NCHW", b, "NCHW16c")[0] == 0
    blocked = np.load(b)
    assert blocked.shape == (2, 2, 4, 5, 16) and not blocked[:, 1, :, :, 4:].any()   # C 20 -> 32, zeros
    assert _cli(capsys, "convert", b, "NCHW16c", c, "NCHW", "C=20")[0] == 0
    assert np.array_equal(np.load(c), x)


def test_convert_in_place_needs_the_flag(tmp_path, capsys, x):
    a = str(tmp_path / "a.npy")
    code, out, err = _cli(capsys, "convert", a, "NCHW", a, "NHWC")
    assert code == 2 and "--inplace" in err and np.array_equal(np.load(a), x)
    code, out, err = _cli(capsys, "convert", a, "NCHW", a, "NHWC", "--inplace")
    assert code == 0, err
    assert np.array_equal(np.load(a), x.transpose(0, 2, 3, 1)) and "in place" in out


def test_convert_refuses_a_read_only_destination_unless_told(tmp_path, capsys, x):
    a, b = str(tmp_path / "a.npy"), tmp_path / "b.npy"
    np.save(b, np.zeros(3))
    os.chmod(b, 0o444)
    before = b.read_bytes()
    code, out, err = _cli(capsys, "convert", a, "NCHW", str(b), "NHWC")
    assert code == 2 and "read-only" in err and "--replace-readonly" in err and b.read_bytes() == before
    with pytest.raises(ly.LayoutError, match="replace_readonly=True"):
        ly.convert_file(a, "NCHW", str(b), "NHWC")
    assert _cli(capsys, "convert", a, "NCHW", str(b), "NHWC", "--replace-readonly")[0] == 0
    assert np.array_equal(np.load(b), x.transpose(0, 2, 3, 1))
    assert stat.S_IMODE(os.stat(b).st_mode) == 0o444            # replaced, and still read-only


def test_convert_keeps_the_mode_of_the_file_it_replaces(tmp_path, capsys, x):
    a, b, c = str(tmp_path / "a.npy"), tmp_path / "b.npy", tmp_path / "c.npy"
    np.save(b, np.zeros(3))
    os.chmod(b, 0o600)
    assert _cli(capsys, "convert", a, "NCHW", str(b), "NHWC")[0] == 0
    assert stat.S_IMODE(os.stat(b).st_mode) == 0o600
    umask = os.umask(0o022)
    try:
        assert _cli(capsys, "convert", a, "NCHW", str(c), "NHWC")[0] == 0
    finally:
        os.umask(umask)
    assert stat.S_IMODE(os.stat(c).st_mode) == 0o644                # a new file: 0666 less the umask


@pytest.mark.parametrize("code_, word", [(errno.EACCES, "is not writable"), (errno.ENOENT, "takes no new files")])
def test_an_unwritable_folder_is_said_of_dst_path_not_a_temporary_file(tmp_path, monkeypatch, x, code_, word):
    import tempfile

    def refuse(*args, **kwargs):
        raise OSError(code_, os.strerror(code_), str(tmp_path / ".b.npy.abcdefgh.part"))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(OSError) as info:
        ly.convert_file(tmp_path / "a.npy", "NCHW", tmp_path / "b.npy", "NHWC")
    text = str(info.value)
    assert word in text and ".part" not in text and "nothing was written" in text
    assert info.value.filename == str(tmp_path / "b.npy") and type(info.value) is type(OSError(code_, "x"))
    assert sorted(os.listdir(tmp_path)) == ["a.npy"]


def test_info_reads_shape_dtype_and_the_likely_layout(tmp_path, capsys):
    np.save(tmp_path / "img.npy", np.zeros((8, 32, 32, 3), np.uint8))
    code, out, err = _cli(capsys, "info", str(tmp_path / "img.npy"))
    assert code == 0, err
    lines = out.splitlines()
    assert "shape (8, 32, 32, 3), uint8, 24576 bytes of data" in lines[0]
    likely = [ln for ln in lines if "likely" in ln]
    assert len(likely) == 1 and "NHWC: N=8 H=32 W=32 C=3" in likely[0]
    assert "not marked" in out


def test_info_of_a_file_left_marked_by_a_killed_run_says_to_recover(tmp_path, capsys):
    x = np.random.default_rng(1).standard_normal((16, 32, 16, 16)).astype(np.float32)
    p = tmp_path / "x.npy"
    np.save(p, x)
    code, out, err = run_child(p, "NCHW", "NHWC", 256 << 10, "file-moved:1:forward:kill", env={"FAULT_FSYNC": "1"})
    assert code == -signal.SIGKILL, err
    code, out, err = _cli(capsys, "info", str(p))
    assert code == 0, err
    assert "MARKED" in out and "(16, 32, 16, 16), float32" in out and "(16, 16, 16, 32), float32" in out
    assert f"layouts recover {p}" in out
    assert ly.recover(p) == "converted" and np.array_equal(np.load(p), x.transpose(0, 2, 3, 1))
