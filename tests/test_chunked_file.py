"""convert_file: .npy to .npy in bounded memory, against numpy oracles; crash safety; refusals."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import layouts as ly
from hostile import check_refused
from layouts import Layout, LayoutError
from layouts.chunked import npy
from oracle import expected_strides, pitched_buffer
from oracle import physical as _physical, random_array as _random

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _convert(tmp_path, x, src, dst, memory, **dims):
    """convert_file x -> a new file; returns (np.load of it, number of tiles)."""
    sp, dp = tmp_path / "src.npy", tmp_path / "dst.npy"
    np.save(sp, x)
    before = _digest(sp)
    calls = []
    ly.convert_file(sp, src, dp, dst, memory=memory, progress=lambda done, total: calls.append((done, total)), **dims)
    assert _digest(sp) == before, "the source file changed"
    assert calls and calls[-1][0] == calls[-1][1], "progress did not reach the total"
    assert sorted(os.listdir(tmp_path)) == ["dst.npy", "src.npy"], "a temporary file was left behind"
    return np.load(dp), len(calls)


# (logical axes of the test array, source spec, destination spec)
CASES = [
    ("NCHW", "NCHW", "NHWC"),
    ("NCHW", "NCHW", "CHWN"),
    ("NCHW", "NHWC", "NCHW"),
    ("NCHW", "CHWN", "NHWC"),
    ("NCHW", "NCHW", "NCHW16c"),
    ("NCHW", "NCHW16c", "NCHW"),
    ("NCHW", "NCHW8c", "NCHW16c"),
    ("NCHW", "NHWC", "NCHW8c"),
    ("OIHW", "OIHW", "HWIO"),
    ("NCDHW", "NCDHW", "NDHWC"),
    ("NCHW", "NCHW", "NCHW"),
]
DTYPES = [np.float32, np.uint8, np.float16, np.int64, np.bool_, np.complex64]


@pytest.mark.parametrize("axes,src,dst", CASES, ids=[f"{s}->{d}" for _, s, d in CASES])
@pytest.mark.parametrize("seed", range(3))
def test_random_shapes_and_dtypes_equal_numpy(tmp_path, axes, src, dst, seed):
    rng = np.random.default_rng(hash((src, dst, seed)) % 2**32)
    dtype = DTYPES[rng.integers(len(DTYPES))]
    shape = tuple(int(n) for n in rng.integers(1, 12, len(axes)))
    shape = tuple(n * 3 if a == "C" else n for a, n in zip(axes, shape))  # C not a multiple of the blocks, often
    logical = _random(shape, dtype, rng)
    x = np.ascontiguousarray(_physical(logical, axes, src))
    sizes = {a: n for a, n in zip(axes, shape) if any(d.axis == a and d.is_block for d in ly.parse(src).dims)}
    memory = int(rng.integers(2, 8)) * 1024
    try:
        got, ntiles = _convert(tmp_path, x, src, dst, memory, **sizes)
    except LayoutError as err:
        assert "too small" in str(err)  # a block of both layouts does not fit: a bigger budget must work
        got, ntiles = _convert(tmp_path, x, src, dst, 1 << 20, **sizes)
    want = _physical(logical, axes, dst)
    assert got.dtype == x.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("mapped,buffers", [(True, 1), (False, 1), (True, 2)], ids=["mapped", "read", "writer-thread"])
def test_many_tiles_in_a_small_budget(tmp_path, mapped, buffers):
    """A few-MB file through a 64 kB budget: hundreds of tiles, every byte right (source tiles
    mapped or read, writes in turn or overlapped by a writer thread: the profile pinned)."""
    from layouts.kernels.machine.profile import current, use_profile
    with use_profile(current().replace(file_map_source=mapped, file_write_buffers=buffers)):
        _many_tiles(tmp_path)


def _many_tiles(tmp_path):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 37, 45, 51)).astype(np.float32)   # 2 MB
    for dst, want in [("NHWC", x.transpose(0, 2, 3, 1)), ("CHWN", x.transpose(1, 2, 3, 0)),
                      ("NCHW16c", _physical(x, "NCHW", "NCHW16c"))]:
        got, ntiles = _convert(tmp_path, x, "NCHW", dst, "64KB")
        assert ntiles >= 32, ntiles
        np.testing.assert_array_equal(got, want)
        os.remove(tmp_path / "dst.npy")


def test_tiles_read_and_write_long_runs():
    """The tile plan grows the axes that end the runs: NCHW -> NHWC reads whole W rows and writes whole C runs."""
    src = Layout("NCHW", N=64, C=64, H=56, W=56)
    dst = Layout("NHWC", N=64, C=64, H=56, W=56)
    t = npy.plan_tiles(src, dst, src.shape, src.stride_tuple, dst.stride_tuple, 4, 16 << 20)
    assert t["C"] == 64 and t["W"] == 56, t
    box = {a: (0, t[a]) for a in t}
    r_src = npy.Region.of(src.shape, src.stride_tuple, ly.chunked._boxes.physical_box(src, box))
    r_dst = npy.Region.of(dst.shape, dst.stride_tuple, ly.chunked._boxes.physical_box(dst, box))
    assert r_src.run * 4 >= 56 * 56 * 4 and r_dst.run * 4 >= 56 * 64 * 4
    assert (r_src.elements + npy.write_buffers() * r_dst.elements) * 4 <= 16 << 20


def test_pitched_destination_is_its_flat_buffer(tmp_path):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 5, 7, 9)).astype(np.float32)
    fpga = Layout("NHWC", N=3, C=5, H=7, W=9, align={"H": 64})
    got, _ = _convert(tmp_path, x, "NCHW", fpga, "4KB")
    phys = x.transpose(0, 2, 3, 1)
    strides, size = expected_strides(phys.shape, align_at={1: 64})
    assert got.shape == (size,)
    np.testing.assert_array_equal(got, pitched_buffer(phys, strides, size))
    np.testing.assert_array_equal(fpga.view(got), phys)


def test_pitched_source_from_its_flat_buffer(tmp_path):
    rng = np.random.default_rng(3)
    phys = rng.integers(0, 255, (4, 6, 10, 3)).astype(np.uint8)        # HWC images with a row pitch
    strides, size = expected_strides(phys.shape, pitch_at={1: 40})
    src = Layout("NHWC", N=4, H=6, W=10, C=3, pitch={"H": 40})
    flat = pitched_buffer(phys, strides, size)
    for buf in (flat, flat[:src.span]):   # with and without the trailing row gap
        got, _ = _convert(tmp_path, buf, src, "NCHW", "2KB")
        np.testing.assert_array_equal(got, phys.transpose(0, 3, 1, 2))
        os.remove(tmp_path / "dst.npy")


def test_ascend_and_blocked_source_sizes(tmp_path):
    rng = np.random.default_rng(4)
    x = rng.integers(0, 100, (2, 40, 3, 5)).astype(np.uint8)
    got, _ = _convert(tmp_path, x, "NCHW", "NC1HWC0", "8KB")
    np.testing.assert_array_equal(got, ly.convert(x, "NCHW", "NC1HWC0"))     # C0 = 32 for 8-bit data
    os.remove(tmp_path / "dst.npy")
    back, _ = _convert(tmp_path, got, "NC1HWC0", "NCHW", "8KB", C=40)
    np.testing.assert_array_equal(back, x)


def test_empty_and_tiny(tmp_path):
    got, _ = _convert(tmp_path, np.zeros((0, 3, 4, 5), np.float32), "NCHW", "NHWC", "1MB")
    assert got.shape == (0, 4, 5, 3)
    os.remove(tmp_path / "dst.npy")
    got, _ = _convert(tmp_path, np.arange(1, dtype=np.int16).reshape(1, 1, 1, 1), "NCHW", "NCHW16c", "1MB")
    assert got.shape == (1, 1, 1, 1, 16) and got.sum() == 0


def test_replaces_an_existing_destination_and_keeps_it_on_error(tmp_path):
    x = np.arange(2 * 3 * 4 * 5, dtype=np.int32).reshape(2, 3, 4, 5)
    np.save(tmp_path / "src.npy", x)
    (tmp_path / "dst.npy").write_bytes(b"old")

    def boom(done, total):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        ly.convert_file(tmp_path / "src.npy", "NCHW", tmp_path / "dst.npy", "NHWC", memory="1KB", progress=boom)
    assert (tmp_path / "dst.npy").read_bytes() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["dst.npy", "src.npy"], "the temporary file was not removed"
    ly.convert_file(str(tmp_path / "src.npy"), "NCHW", str(tmp_path / "dst.npy"), "NHWC", progress=False)
    np.testing.assert_array_equal(np.load(tmp_path / "dst.npy"), x.transpose(0, 2, 3, 1))


def test_progress_bar_with_tqdm(tmp_path, capsys):
    pytest.importorskip("tqdm")
    x = np.ones((2, 3, 4, 5), np.float32)
    np.save(tmp_path / "src.npy", x)
    ly.convert_file(tmp_path / "src.npy", "NCHW", tmp_path / "dst.npy", "NHWC", memory="1KB", progress=True)
    err = capsys.readouterr().err
    assert "100%" in err and "NCHW -> NHWC" in err


def test_progress_bar_counts_decimal_megabytes_as_sizes_are_given(tmp_path, capsys):
    """2,000,000 bytes of output is "2.00M" (as memory="2MB" means), not 1.91 MiB."""
    pytest.importorskip("tqdm")
    np.save(tmp_path / "src.npy", np.zeros((1, 1, 500, 1000), np.float32))
    ly.convert_file(tmp_path / "src.npy", "NCHW", tmp_path / "dst.npy", "NHWC", memory="1MB", progress=True)
    assert "2.00M/2.00M" in capsys.readouterr().err
    assert ly.chunked.progress.AUTO_BYTES == ly.chunked.parse_memory("256MB")


def test_killed_child_leaves_source_intact_and_no_destination(tmp_path):
    """SIGKILL in the middle of a conversion: the source is byte-identical, dst_path never appears."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((8, 64, 40, 40)).astype(np.float32)   # 3.3 MB
    src, dst = tmp_path / "src.npy", tmp_path / "dst.npy"
    np.save(src, x)
    before = _digest(src)
    code = textwrap.dedent(f"""
        import sys, time, layouts as ly
        def progress(done, total):
            if done * 4 >= total:          # a quarter written: say so, then wait to be killed
                print("midway", flush=True)
                time.sleep(60)
        ly.convert_file({str(src)!r}, "NCHW", {str(dst)!r}, "NHWC", memory="64KB", progress=progress)
        print("finished", flush=True)
    """)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        line = child.stdout.readline()
        assert line.strip() == "midway", line
        temps = [n for n in os.listdir(tmp_path) if n.startswith(".dst.npy.")]
        assert temps, os.listdir(tmp_path)                       # the work so far is in a temporary file
        assert os.path.getsize(tmp_path / temps[0]) > x.nbytes // 4
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
        child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    assert _digest(src) == before
    assert not dst.exists()
    # a later run is not disturbed by the leftover and produces the whole result
    ly.convert_file(src, "NCHW", dst, "NHWC", memory="64KB", progress=False)
    np.testing.assert_array_equal(np.load(dst), x.transpose(0, 2, 3, 1))


# ------------------------------------------------------------------------------------ refusals
@pytest.fixture
def npy_file(tmp_path):
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    np.save(tmp_path / "x.npy", x)
    return tmp_path / "x.npy"


def _untouched(path, call, exc, word):
    before = _digest(path)
    check_refused(call, exc, word)
    assert _digest(path) == before
    assert sorted(n for n in os.listdir(os.path.dirname(path)) if n.startswith(".")) == []


def test_refuses_a_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.npy"):
        ly.convert_file(tmp_path / "nope.npy", "NCHW", tmp_path / "y.npy", "NHWC")
    assert not (tmp_path / "y.npy").exists()


def test_refuses_a_missing_destination_folder(npy_file, tmp_path):
    with pytest.raises(FileNotFoundError, match="folder"):
        ly.convert_file(npy_file, "NCHW", tmp_path / "no" / "y.npy", "NHWC")


def test_refuses_what_is_not_npy(tmp_path):
    bad = tmp_path / "x.npy"
    bad.write_bytes(b"just some bytes, no header")
    _untouched(bad, lambda: ly.convert_file(bad, "NCHW", tmp_path / "y.npy", "NHWC"), LayoutError, ["src_path", ".npy"])
    truncated = tmp_path / "t.npy"
    np.save(truncated, np.zeros((2, 3, 4, 5), np.float32))
    truncated.write_bytes(truncated.read_bytes()[:-10])
    _untouched(truncated, lambda: ly.convert_file(truncated, "NCHW", tmp_path / "y.npy", "NHWC"), LayoutError, "truncated")


def test_refuses_fortran_order_and_objects(tmp_path):
    f = tmp_path / "f.npy"
    np.save(f, np.asfortranarray(np.zeros((2, 3, 4, 5), np.float32)))
    _untouched(f, lambda: ly.convert_file(f, "NCHW", tmp_path / "y.npy", "NHWC"), LayoutError, "fortran")
    o = tmp_path / "o.npy"
    np.save(o, np.empty((1, 1, 1, 2), dtype=object), allow_pickle=True)
    _untouched(o, lambda: ly.convert_file(o, "NCHW", tmp_path / "y.npy", "NHWC"), LayoutError, "object")


def test_refuses_the_source_as_destination(npy_file, tmp_path):
    _untouched(npy_file, lambda: ly.convert_file(npy_file, "NCHW", npy_file, "NHWC"), LayoutError, "dst_path")
    os.link(npy_file, tmp_path / "hard.npy")
    _untouched(npy_file, lambda: ly.convert_file(npy_file, "NCHW", tmp_path / "hard.npy", "NHWC"), LayoutError, "source file")


@pytest.mark.parametrize("memory,exc,word", [
    ("lots", LayoutError, "memory"), ("12 parsecs", LayoutError, "memory"), (0, LayoutError, "memory"),
    (-5, LayoutError, "memory"), ("-1MB", LayoutError, "memory"), (True, TypeError, "memory"),
    (1.5e6, TypeError, "memory"), (None, TypeError, "memory"), (64, LayoutError, "too small"),
])
def test_refuses_bad_memory(npy_file, tmp_path, memory, exc, word):
    _untouched(npy_file, lambda: ly.convert_file(npy_file, "NCHW", tmp_path / "y.npy", "NCHW16c", memory=memory), exc, word)
    assert not (tmp_path / "y.npy").exists()


def test_refuses_wrong_layouts_and_arguments(npy_file, tmp_path):
    y = tmp_path / "y.npy"
    _untouched(npy_file, lambda: ly.convert_file(npy_file, "NCH", y, "NHC"), LayoutError, ["convert_file", "3 dims"])
    _untouched(npy_file, lambda: ly.convert_file(npy_file, "NCHW", y, "NHWD"), LayoutError, "axes")
    _untouched(npy_file, lambda: ly.convert_file(npy_file, "NCHW", y, "NHWC", X=3), LayoutError, "X")
    _untouched(npy_file, lambda: ly.convert_file(42, "NCHW", y, "NHWC"), TypeError, "src_path")
    _untouched(npy_file, lambda: ly.convert_file(npy_file, "NCHW", y, "NHWC", progress="yes"), TypeError, "progress")
    assert not y.exists()
