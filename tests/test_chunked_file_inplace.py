"""convert_file(..., inplace=True): one buffer per tile, and a file converted in its own bytes.

Oracles: np.load of the result against numpy transpose/reshape of the original; refusals through
tests/hostile.py; what Ctrl-C and SIGKILL leave behind in a real file.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import textwrap
import tracemalloc

import numpy as np
import pytest

import layouts as ly
from hostile import check_refused
from layouts import Layout, LayoutError
from layouts.chunked import npy
from layouts.chunked.inplace_file import header_exact
from layouts.inplace import plan_inplace
from oracle import physical as _physical, random_array as _random

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# padding-free conversions (C a multiple of every block): the ones in-place can do
CASES = [
    ("NCHW", "NCHW", "NHWC"), ("NCHW", "NCHW", "CHWN"), ("NCHW", "NHWC", "NCHW"), ("NCHW", "CHWN", "NHWC"),
    ("NCHW", "NCHW", "NCHW16c"), ("NCHW", "NCHW16c", "NCHW"), ("NCHW", "NCHW8c", "NCHW16c"),
    ("NCHW", "NHWC", "NCHW8c"), ("OIHW", "OIHW", "HWIO"), ("NCDHW", "NCDHW", "NDHWC"), ("NCHW", "NCHW", "NCHW"),
]
DTYPES = [np.float32, np.uint8, np.float16, np.int64, np.bool_, np.complex64]


@pytest.mark.parametrize("axes,src,dst", CASES, ids=[f"{s}->{d}" for _, s, d in CASES])
@pytest.mark.parametrize("seed", range(2))
def test_inplace_tiles_and_same_file_equal_numpy(tmp_path, axes, src, dst, seed):
    rng = np.random.default_rng(hash((src, dst, seed, "inplace")) % 2**32)
    dtype = DTYPES[rng.integers(len(DTYPES))]
    shape = tuple(int(n) * (16 if a in "CI" else 1) for a, n in zip(axes, rng.integers(1, 9, len(axes))))
    logical = _random(shape, dtype, rng)
    x = np.ascontiguousarray(_physical(logical, axes, src))
    want = _physical(logical, axes, dst)
    a, b = tmp_path / "a.npy", tmp_path / "b.npy"
    np.save(a, x)
    before = _digest(a)
    calls = []
    ly.convert_file(a, src, b, dst, memory=int(rng.integers(80, 96)) * 1000, inplace=True,
                    progress=lambda done, total: calls.append((done, total)))
    assert _digest(a) == before, "the source file changed"
    assert calls[-1][0] == calls[-1][1]
    np.testing.assert_array_equal(np.load(b), want)
    assert np.load(b).shape == want.shape
    # the same file, in its own bytes: same result, same size, nothing else left in the folder
    size = os.path.getsize(a)
    ly.convert_file(a, src, a, dst, inplace=True, progress=False)
    got = np.load(a)
    assert got.dtype == x.dtype and got.shape == want.shape and os.path.getsize(a) == size
    np.testing.assert_array_equal(got, want)
    assert sorted(os.listdir(tmp_path)) == ["a.npy", "b.npy"]
    # and back again
    ly.convert_file(a, dst, a, src, inplace=True, progress=False, **({"C": shape[1]} if "C" in axes else {}))
    assert _digest(a) == before


def test_inplace_tiles_are_about_twice_as_large():
    src = Layout("NCHW", N=64, C=64, H=56, W=56)
    for dst in (Layout("NHWC", N=64, C=64, H=56, W=56), Layout("CHWN", N=64, C=64, H=56, W=56)):
        args = (src, dst, src.shape, src.stride_tuple, dst.stride_tuple, 4, 16 << 20)
        two, one = npy.plan_tiles(*args), npy.plan_tiles(*args, inplace=True)
        n_two = np.prod([two[a] for a in src.axes])
        n_one = np.prod([one[a] for a in src.axes])
        assert 1.7 * n_two <= n_one, (two, one)
        assert npy.tile_cost(n_one, n_one, 4, inplace=True) <= 16 << 20


def test_many_inplace_tiles_stay_within_the_budget(tmp_path):
    """4.7 MB through 1 MB: several tiles, every byte right, and the numpy/Python allocations
    (tracemalloc: the tile buffer, convert_inplace's scratch, the rest) within ``memory``."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((8, 64, 45, 51)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    cases = [("NHWC", x.transpose(0, 2, 3, 1)), ("CHWN", x.transpose(1, 2, 3, 0)),
             ("NCHW16c", _physical(x, "NCHW", "NCHW16c"))]
    for dst, _ in cases:  # kernels compiled and plans cached before the measurement
        ly.convert_file(tmp_path / "x.npy", "NCHW", tmp_path / "w.npy", dst, memory=1_000_000, inplace=True,
                        progress=False)
    for dst, want in cases:
        calls = []
        tracemalloc.start()
        try:
            ly.convert_file(tmp_path / "x.npy", "NCHW", tmp_path / "y.npy", dst, memory=1_000_000, inplace=True,
                            progress=lambda d, t: calls.append(d))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert len(calls) >= 4, len(calls)
        assert peak <= 1_000_000, (dst, peak)
        np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), want)


def test_same_file_with_large_sizes_still_fits_the_header(tmp_path):
    """numpy's header has room for the new shape of usual conversions (one more dim, big sizes)."""
    p = tmp_path / "x.npy"
    # a huge logical shape is written as a header only: the data need not be there to check the header
    for shape, dst, new in [((100000, 64, 1, 1), "NCHW16c", (100000, 4, 1, 1, 16)),
                            ((3, 4096, 1, 1), "NC1HWC0", (3, 256, 1, 1, 16))]:
        np.save(p, np.zeros(shape, np.float16))
        old = os.path.getsize(p)
        ly.convert_file(p, "NCHW", p, dst, inplace=True, progress=False)
        assert np.load(p, mmap_mode="r").shape == new and os.path.getsize(p) == old


def test_header_exact_reads_back_and_refuses_what_does_not_fit():
    h = header_exact((2, 2, 1, 1, 16), np.dtype("<f4"), 128, (1, 0))
    assert len(h) == 128
    h2 = header_exact((7,), np.dtype(">i2"), 256, (2, 0))
    assert len(h2) == 256 and h2[6:8] == b"\x02\x00"
    with pytest.raises(LayoutError, match="does not fit"):
        header_exact((2, 2, 1, 1, 16), np.dtype("<f4"), 64, (1, 0))


def test_same_file_refuses_a_header_without_room(tmp_path):
    """A tight header (another writer's, not numpy's) that cannot hold the new shape: refused, untouched."""
    p = tmp_path / "tight.npy"
    x = np.arange(2 * 32, dtype=np.float32).reshape(2, 32, 1, 1)
    text = b"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 32, 1, 1), }"
    header = header_exact(x.shape, x.dtype, len(text) + 11, (1, 0))
    p.write_bytes(header + x.tobytes())
    np.testing.assert_array_equal(np.load(p), x)
    before = _digest(p)
    check_refused(lambda: ly.convert_file(p, "NCHW", p, "NCHW16c", inplace=True), LayoutError,
                  ["does not fit", "header"])
    assert _digest(p) == before
    ly.convert_file(p, "NCHW", p, "NHWC", inplace=True)   # same length of shape text: fits
    np.testing.assert_array_equal(np.load(p), x.transpose(0, 2, 3, 1))


@pytest.fixture
def ctrl_c():
    """Python's own Ctrl-C handler, whatever the runner started with (CI may ignore SIGINT)."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def _interrupt_at(*names):
    """A fault-point callback sending SIGINT the first time one of ``names`` is reached."""
    sent = []

    def hook(name, **info):
        if name in names and not sent:
            sent.append(name)
            os.kill(os.getpid(), signal.SIGINT)
    return hook


def test_ctrl_c_restores_the_file_byte_for_byte(tmp_path, ctrl_c):
    from layouts.inplace.faultpoints import injected
    x = np.random.default_rng(4).standard_normal((4, 48, 20, 20)).astype(np.float32)
    p = tmp_path / "x.npy"
    np.save(p, x)
    before = _digest(p)
    assert len(plan_inplace("NCHW", "CHWN", x.shape, x.dtype).passes) >= 1
    with injected(_interrupt_at("file-step")), pytest.raises(KeyboardInterrupt):
        ly.convert_file(p, "NCHW", p, "CHWN", inplace=True, progress=False, memory="64KB")
    assert _digest(p) == before and sorted(os.listdir(tmp_path)) == ["x.npy"]
    # two files: the temporary output goes, the source stays
    with injected(_interrupt_at("segment")), pytest.raises(KeyboardInterrupt):
        ly.convert_file(p, "NCHW", tmp_path / "y.npy", "CHWN", inplace=True, memory="200KB", progress=False)
    assert _digest(p) == before and sorted(os.listdir(tmp_path)) == ["x.npy"]


def test_killed_same_file_run_is_marked_then_recovered(tmp_path):
    """SIGKILL during a step: the file keeps its size, is refused by np.load and by convert_file
    (which names recover) instead of read as garbage, and recover finishes the conversion."""
    x = np.random.default_rng(5).permutation(8 * 64 * 40 * 40).astype(np.float32).reshape(8, 64, 40, 40)
    p = tmp_path / "x.npy"
    np.save(p, x)
    size, offset = os.path.getsize(p), os.path.getsize(p) - x.nbytes
    code = textwrap.dedent(f"""
        import time, layouts as ly
        from layouts.inplace.faultpoints import injected
        def stop(name, **info):
            if name == "file-moved":       # the step's data moved, its record not yet written
                print("midway", flush=True)
                time.sleep(60)
        with injected(stop):
            ly.convert_file({str(p)!r}, "NCHW", {str(p)!r}, "NHWC", inplace=True, progress=False)
        print("finished", flush=True)
    """)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        line = child.stdout.readline()
        assert line.strip() == "midway", line
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
        child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    assert os.path.getsize(p) == size
    raw = np.fromfile(p, np.uint8)
    assert raw[:8].tobytes() == npy.INTERRUPTED_MAGIC
    data = raw[offset:].view(np.float32)
    assert not np.array_equal(data, x.reshape(-1)), "the step had moved data"
    with pytest.raises(ValueError):
        np.load(p)
    check_refused(lambda: ly.convert_file(p, "NCHW", p, "NHWC", inplace=True), LayoutError, ["killed", "recover"])
    check_refused(lambda: ly.convert_file(p, "NCHW", tmp_path / "y.npy", "NHWC"), LayoutError, "recover")
    assert ly.recover(p) == "converted"
    np.testing.assert_array_equal(np.load(p), x.transpose(0, 2, 3, 1))
    assert sorted(os.listdir(tmp_path)) == ["x.npy"]


# ------------------------------------------------------------------------------------ refusals
@pytest.fixture
def npy_file(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(2 * 20 * 3 * 3, dtype=np.float32).reshape(2, 20, 3, 3))
    return tmp_path / "x.npy"


def _untouched(path, call, exc, word):
    before = _digest(path)
    check_refused(call, exc, word)
    assert _digest(path) == before
    assert sorted(n for n in os.listdir(os.path.dirname(path)) if n != "x.npy") == []


@pytest.mark.parametrize("same", [False, True], ids=["two-files", "same-file"])
def test_refuses_what_in_place_cannot_do(npy_file, same):
    out = npy_file if same else npy_file.parent / "y.npy"
    drop = "drop inplace=True"
    _untouched(npy_file, lambda: ly.convert_file(npy_file, "NCHW", out, "NCHW16c", inplace=True), LayoutError,
               ["padding", "C padded to 32", drop])
    pitched = Layout("NHWC", N=2, C=20, H=3, W=3, align={"H": 64})
    _untouched(npy_file, lambda: ly.convert_file(npy_file, "NCHW", out, pitched, inplace=True), LayoutError,
               ["pitched", drop])
    _untouched(npy_file, lambda: ly.convert_file(npy_file, pitched, out, "NCHW", inplace=True), LayoutError,
               ["pitched", drop])
    _untouched(npy_file, lambda: ly.convert_file(npy_file, "NCHW", out, "NHWC", inplace="yes"), TypeError, "inplace")
    _untouched(npy_file, lambda: ly.convert_file(npy_file, "NCHW", out, "NHWD", inplace=True), LayoutError, "axes")
    _untouched(npy_file, lambda: ly.convert_file(npy_file, "NCHW", out, "NHWC", inplace=True, memory="lots"),
               LayoutError, "memory")


def test_same_file_needs_the_flag_and_memory_for_the_scratch(npy_file):
    _untouched(npy_file, lambda: ly.convert_file(npy_file, "NCHW", npy_file, "NHWC"), LayoutError,
               ["source file", "inplace=True"])
    x = np.random.default_rng(0).standard_normal((16, 64, 30, 30)).astype(np.float32)
    np.save(npy_file, x)
    need = plan_inplace("NCHW", "CHWN", x.shape, x.dtype).scratch_bytes
    assert need > 0
    _untouched(npy_file, lambda: ly.convert_file(npy_file, "NCHW", npy_file, "CHWN", inplace=True, memory=need - 1),
               LayoutError, ["too small", str(need)])
    ly.convert_file(npy_file, "NCHW", npy_file, "CHWN", inplace=True, memory=need, progress=False)
    np.testing.assert_array_equal(np.load(npy_file), x.transpose(1, 2, 3, 0))


def test_same_file_read_only_and_missing(tmp_path, npy_file):
    with pytest.raises(FileNotFoundError, match="nope"):
        ly.convert_file(tmp_path / "nope.npy", "NCHW", tmp_path / "nope.npy", "NHWC", inplace=True)
    if os.geteuid() != 0:  # root writes anyway
        os.chmod(npy_file, 0o444)
        with pytest.raises(PermissionError):
            ly.convert_file(npy_file, "NCHW", npy_file, "NHWC", inplace=True)
