"""The strategy registry, the machine profile, explain-copy and tune, from outside.

Every strategy is reached through ``layouts.convert`` itself with the default profile (sizes chosen
so that the registry picks it), its result compared with numpy's transpose, and the strategy named
by ``explain_copy`` checked; the scalar path is reached by a profile with ``simd=False``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import layouts as ly
from layouts import LayoutError, kernels
from layouts.kernels import profile as prof
from layouts.kernels.explain import explain_conversion

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PERM = {"NCHW": (0, 1, 2, 3), "NHWC": (0, 2, 3, 1), "CHWN": (1, 2, 3, 0)}


@pytest.fixture(autouse=True)
def defaults():
    """Every test here runs under this machine's default profile (not a saved one)."""
    with kernels.use_profile(prof.detect()):
        yield


def _data(shape, dtype, layout, seed=0):
    x = np.random.default_rng(seed).integers(0, 250, shape).astype(dtype)   # logical NCHW
    return x, np.ascontiguousarray(x.transpose(PERM[layout]))


def _misaligned(shape, dtype, offset):
    """An output of ``shape`` whose data starts ``offset`` bytes after a 64-byte boundary."""
    n = int(np.prod(shape)) * np.dtype(dtype).itemsize
    buf = np.empty(n + 128, np.uint8)
    start = (-buf.ctypes.data) % 64 + offset
    return buf[start:start + n].view(dtype).reshape(shape)


CASES = [   # (strategy, variant or None, shape (NCHW), dtype, src, dst, out offset or None)
    ("numpy", None, (1, 3, 4, 4), "float32", "NCHW", "NHWC", None),
    ("small-c", None, (16, 3, 64, 64), "float32", "NCHW", "NHWC", None),
    ("small-c", None, (16, 3, 64, 64), "uint8", "NHWC", "NCHW", None),
    ("staged", None, (64, 3, 32, 32), "float32", "NHWC", "CHWN", None),
    ("staged", None, (64, 3, 32, 32), "uint16", "CHWN", "NHWC", None),
    ("grouped", None, (128, 64, 56, 56), "uint8", "NCHW", "NHWC", None),
    ("grouped", None, (128, 64, 56, 56), "uint8", "NCHW", "CHWN", 16),
    ("simd-tiles", "tiles", (8, 64, 30, 30), "float32", "NCHW", "NHWC", None),
    ("simd-tiles", "narrow2", (8, 64, 32, 32), "float32", "NCHW", "NHWC", None),     # 4 KiB planes
    ("simd-tiles", "tiles", (32, 64, 16, 16), "float16", "NHWC", "CHWN", None),
    ("simd-tiles", "tiles-nt", (64, 64, 32, 32), "float32", "NCHW", "NHWC", None),
    ("simd-tiles", "straddle-nt", (64, 64, 32, 32), "float32", "NCHW", "NHWC", 16),
    ("simd-tiles", "straddle-nt", (128, 32, 32, 32), "float32", "NCHW", "CHWN", 32),
    ("simd-tiles", "tiles-nt", (128, 32, 32, 32), "float32", "NCHW", "CHWN", None),
    ("simd-tiles", "narrow2", (256, 3, 32, 32), "float32", "NCHW", "CHWN", None),
]


@pytest.mark.parametrize("strategy,variant,shape,dtype,src,dst,offset", CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[3]}-{c[4]}-{c[5]}-{c[6]}" for c in CASES])
def test_each_strategy_through_convert(strategy, variant, shape, dtype, src, dst, offset):
    x, xs = _data(shape, dtype, src)
    want = x.transpose(PERM[dst])
    out = _misaligned(want.shape, dtype, offset) if offset is not None else None
    if out is None:                                      # convert allocates a 64-byte aligned output
        [e] = explain_conversion(xs.shape, dtype, src, dst, threads=1)
    else:
        e = kernels.explain_copy(out, xs.transpose(_between(src, dst)), threads=1)
    assert e.strategy == strategy, str(e)
    if variant:
        assert e.params["variant"] == variant, str(e)
    for threads in (1, 2):
        y = ly.convert(xs, src, dst, out=out, threads=threads)
        assert np.array_equal(y, want)


def _between(src, dst):
    """The transpose of a ``src`` array that reads it in ``dst`` order."""
    inv = np.argsort(PERM[src])
    return tuple(int(inv[p]) for p in PERM[dst])


@pytest.mark.parametrize("dtype,narrow", [("uint8", "narrow2"), ("float16", "narrow2"), ("float32", "narrow2")])
def test_source_rows_sharing_l1_sets_take_narrow_tiles(dtype, narrow):
    """256x3x32x32 NCHW -> CHWN in cache: the N source rows are C*H*W = 3072 elements apart, so they
    share a few L1 sets (u8: 3072 bytes apart fall in 4 of 64 sets, 32 lines; f32: 12288, one set,
    8 lines): tiles of fewer rows; the profile switch turns it off. Both equal numpy."""
    from layouts.kernels.geometry import rows_cached
    x = np.random.default_rng(6).integers(0, 250, (256, 3, 32, 32)).astype(dtype)
    cap = rows_cached(3072 * x.itemsize, prof.detect())
    assert cap == (32 if x.itemsize == 1 else 8 if x.itemsize == 4 else 16)
    for on, variant in ((True, narrow), (False, "tiles")):
        with kernels.use_profile(prof.detect().replace(narrow_when_aliased=on)):
            [e] = explain_conversion(x.shape, dtype, "NCHW", "CHWN", threads=1)
            assert e.params["variant"] == variant, str(e)
            assert np.array_equal(ly.convert(x, "NCHW", "CHWN"), x.transpose(1, 2, 3, 0))


def test_blocked_and_narrow_tiles_through_convert():
    """NCHW -> NCHW16c (dst rows of 16 channels) in uint8: one-group tiles; back again; the
    padded channel block of C=20 zero-filled."""
    x = np.random.default_rng(1).integers(0, 250, (8, 64, 30, 30)).astype(np.uint8)
    [e] = explain_conversion(x.shape, x.dtype, "NCHW", "NCHW16c", threads=1)
    assert (e.strategy, e.params["variant"]) == ("simd-tiles", "narrow1")
    y = ly.convert(x, "NCHW", "NCHW16c")
    assert np.array_equal(y, x.reshape(8, 4, 16, 30, 30).transpose(0, 1, 3, 4, 2))
    assert np.array_equal(ly.convert(y, "NCHW16c", "NCHW"), x)
    z = ly.convert(x[:, :20], "NCHW", "NCHW16c")
    assert np.array_equal(z[:, 1, ..., :4], x[:, 16:20].transpose(0, 2, 3, 1)) and not z[:, 1, ..., 4:].any()


def test_rows_and_memcpy_through_convert():
    x = np.random.default_rng(2).integers(0, 250, (64, 96, 3)).astype(np.float32)       # HWC
    pitched = ly.Layout("HWC", H=64, W=96, C=3, pitch={"H": 300})
    [e] = explain_conversion(x.shape, x.dtype, "HWC", pitched, threads=1)
    assert e.strategy == "rows"
    y = ly.convert(x, "HWC", pitched)                        # a view with rows 300 floats apart
    assert y.strides[0] == 300 * 4 and np.array_equal(y, x)
    z = np.random.default_rng(3).standard_normal((32, 64, 32, 32)).astype(np.float32)
    [e] = explain_conversion(z.shape, z.dtype, "NCHW", "NCHW", threads=2)
    assert e.strategy == "memcpy"
    assert np.array_equal(ly.convert(z, "NCHW", "NCHW", copy=True), z)


@pytest.mark.parametrize("src,dst", [("NCHW", "NHWC"), ("NHWC", "CHWN"), ("CHWN", "NCHW"), ("NCHW", "NCHW16c")])
@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32", "float64"])
def test_scalar_path_through_convert(src, dst, dtype):
    """With SIMD tiles off (``simd=False``, as LAYOUTS_PLAIN_KERNELS=1 sets) every transpose takes the
    scalar cache blocks, bitwise equal to numpy."""
    x, xs = _data((6, 32, 17, 19), dtype, src if src != "NCHW16c" else "NCHW", seed=4)
    with kernels.use_profile(prof.detect().replace(simd=False, small_bytes=0, thread_min_bytes=0)):
        [e] = explain_conversion(xs.shape, dtype, src, dst, threads=2)
        assert e.strategy in ("scalar-tiles", "small-c"), str(e)
        for threads in (1, 2):
            y = ly.convert(xs, src, dst, threads=threads)
            want = (x.reshape(6, 2, 16, 17, 19).transpose(0, 1, 3, 4, 2) if dst == "NCHW16c"
                    else x.transpose(PERM[dst]))
            assert np.array_equal(y, want)


@pytest.mark.parametrize("dtype,ni", [("float32", 16), ("float32", 64), ("uint8", 64), ("uint16", 32)])
@pytest.mark.parametrize("offset", [0, 16, 32, 48])
def test_misaligned_outputs_keep_the_tiles(dtype, ni, offset):
    """A large output at any 16-byte offset (what np.empty gives) streams through SIMD tiles,
    straddling the rows when they follow each other, even when straddling tiles are all there is
    (a row of one tile height) -- never the scalar fallback."""
    dt = np.dtype(dtype)
    n = (9 << 20) // (ni * 56 * 56 * dt.itemsize) + 1
    x = np.random.default_rng(ni).integers(0, 250, (n, ni, 56, 56)).astype(dt)
    out = _misaligned((n, 56, 56, ni), dt, offset)
    e = kernels.explain_copy(out, x.transpose(0, 2, 3, 1), threads=1)
    assert e.strategy in ("simd-tiles", "grouped"), str(e)
    kernels.copy_into(out, x.transpose(0, 2, 3, 1), threads=2)
    assert np.array_equal(out, x.transpose(0, 2, 3, 1))


def test_threads_follow_the_profile_threshold():
    x = np.zeros((8, 64, 32, 32), np.float32)                     # 2 MiB
    out = np.empty((8, 32, 32, 64), np.float32)
    with kernels.use_profile(prof.detect().replace(thread_min_bytes=1 << 20, thread_min_bytes_by_strategy=())):
        e = kernels.explain_copy(out, x.transpose(0, 2, 3, 1), threads=2)
        assert e.threads == min(2, kernels.pool.max_threads())
    for entries in (("simd-tiles=4194304",), ("grouped=1", "simd-tiles=4194304")):   # its own threshold wins
        with kernels.use_profile(prof.detect().replace(thread_min_bytes=1 << 20, thread_min_bytes_by_strategy=entries)):
            assert kernels.explain_copy(out, x.transpose(0, 2, 3, 1), threads=2).threads == 1
    with pytest.raises(LayoutError, match="strategy=bytes"):
        prof.detect().replace(thread_min_bytes_by_strategy=("simd-tiles:12",))


def test_disabled_strategies_are_skipped_with_a_reason():
    x = np.zeros((16, 3, 64, 64), np.float32)
    out = np.empty((16, 64, 64, 3), np.float32)
    with kernels.use_profile(prof.detect().replace(disabled=("small-c",))):
        e = kernels.explain_copy(out, x.transpose(0, 2, 3, 1))
        assert e.strategy != "small-c" and dict(e.declined)["small-c"] == "disabled by the profile"
        kernels.copy_into(out, x.transpose(0, 2, 3, 1))


def test_profile_save_load_and_refusals(tmp_path):
    p = prof.detect().replace(thread_min_bytes=123456, disabled=("grouped",))
    path = prof.save(p, tmp_path / "p.json", {"note": "test"})
    q = prof.load(path)
    assert q.thread_min_bytes == 123456 and q.disabled == ("grouped",) and q.source == str(path)
    doc = json.loads(path.read_text())
    doc["machine"] = "another|cpu|64"
    path.write_text(json.dumps(doc))
    with pytest.raises(LayoutError, match="measured on"):
        prof.load(path)
    assert prof.load(path, any_machine=True).thread_min_bytes == 123456
    doc["tuning"]["thread_min_bites"] = 1
    path.write_text(json.dumps(doc))
    with pytest.raises(LayoutError, match="thread_min_bites"):
        prof.load(path, any_machine=True)
    for bad in ({"nt_min_bytes": -1}, {"simd": 1}, {"disabled": "grouped"}):
        with pytest.raises(LayoutError, match=next(iter(bad))):
            prof.detect().replace(**bad)
    (tmp_path / "junk.json").write_text("{")
    with pytest.raises(LayoutError, match="cannot read"):
        prof.load(tmp_path / "junk.json")
    with pytest.raises(LayoutError, match="MachineProfile"):
        prof.set_profile("fast")


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "layouts", *args], capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, **(env or {})), timeout=600)


def test_explain_copy_command():
    r = _cli("explain-copy", "NHWC", "CHWN", "N=128", "C=64", "H=56", "W=56", "--dtype", "uint8", "--strategies")
    assert r.returncode == 0, r.stderr
    assert "CHOSEN" in r.stdout and "grouped" in r.stdout and "profile:" in r.stdout
    assert "8. scalar-tiles" in r.stdout
    for bad in (["explain-copy", "NCHW", "NHWC", "N=2", "--dtype", "float99"], ["explain-copy", "NCHW", "NXYZ", "N=2"],
                ["explain-copy", "NCHW", "NHWC", "N=2", "--threads", "0"], ["explain-copy", "NCHW", "NHWC", "N=two"],
                ["explain-copy", "NCHW", "NHWC", "N=2", "--dtype", "object"],
                ["tune", "--quick", "--out", "/proc/layouts-no/profile.json"]):
        r = _cli(*bad)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "error:" in r.stderr, r.stderr


def test_a_closed_pipe_is_not_an_error():
    r = subprocess.run(f"{sys.executable} -m layouts explain-copy NCHW NHWC N=8 C=64 H=32 W=32 --strategies | head -1",
                       shell=True, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.stdout.startswith("profile:") and r.stderr == "", r.stderr


def test_explain_copy_refuses_what_copy_into_refuses():
    with pytest.raises(TypeError, match="numpy arrays"):
        kernels.explain_copy([1, 2], np.zeros(2))
    with pytest.raises(ValueError, match="shapes differ"):
        kernels.explain_copy(np.zeros(2), np.zeros(3))
    with pytest.raises(LayoutError, match="threads"):
        kernels.explain_copy(np.zeros(2), np.zeros(2), threads=0)


def test_tune_saves_a_profile_that_later_processes_load(tmp_path):
    out = tmp_path / "profile.json"
    r = _cli("tune", "--quick", "--out", str(out))
    assert r.returncode == 0, r.stderr
    for field in ("small_bytes", "thread_min_bytes", "group_min_bytes"):
        assert field in r.stdout
    loaded = prof.load(out)
    doc = json.loads(out.read_text())
    assert doc["measured"]["small_bytes"]["chosen"] == loaded.small_bytes
    r = _cli("explain-copy", "NCHW", "NHWC", "N=8", "C=64", "H=32", "W=32", env={"LAYOUTS_PROFILE": str(out)})
    assert r.returncode == 0 and f"profile: {out}" in r.stdout, r.stdout + r.stderr


def test_use_profile_is_per_thread_and_restores_on_overlap():
    """Two threads' overlapping ``with use_profile`` blocks neither see each other's profile nor
    leave one behind; set_profile is the process's, and a block still wins inside it."""
    import threading
    base = kernels.current()
    a, b = base.replace(small_bytes=1), base.replace(small_bytes=2)
    seen = {}
    entered_a, entered_b, a_left = threading.Event(), threading.Event(), threading.Event()

    def one(name, p, mine, other):
        with kernels.use_profile(p):
            mine.set()
            other.wait(5)
            seen[name] = kernels.current().small_bytes
            if name == "b":
                a_left.wait(5)
                seen["b after a left"] = kernels.current().small_bytes
        if name == "a":
            a_left.set()

    ts = [threading.Thread(target=one, args=("a", a, entered_a, entered_b)),
          threading.Thread(target=one, args=("b", b, entered_b, entered_a))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert seen == {"a": 1, "b": 2, "b after a left": 2}
    assert kernels.current() is base
    c = base.replace(small_bytes=3)
    before = prof._active
    got = []

    def process_wide():                       # a new thread: no use_profile block of its own
        got.append(kernels.current())
        with kernels.use_profile(a):
            got.append(kernels.current())
        got.append(kernels.current())

    try:
        kernels.set_profile(c)
        t = threading.Thread(target=process_wide)
        t.start()
        t.join()
        assert kernels.current() is base      # this thread's block (the fixture's) still wins
    finally:
        kernels.set_profile(before)
    assert got[0] is c and got[1] is a and got[2] is c


def test_staged_sub_copies_keep_the_callers_profile_on_worker_threads():
    """staged's chunks run on pool threads; their sub-copies must plan under the caller's profile
    (here one with SIMD tiles off), not the process's."""
    x = np.random.default_rng(5).integers(0, 250, (64, 3, 64, 64)).astype(np.float32)
    xs = np.ascontiguousarray(x.transpose(0, 2, 3, 1))                       # NHWC
    p = prof.detect().replace(simd=False, thread_min_bytes=0, small_bytes=0, stage_bytes=64 * 3 * 4 * 256,
                              thread_min_bytes_by_strategy=())
    with kernels.use_profile(p):
        assert kernels.explain_copy(np.empty((3, 64, 64, 64), np.float32), xs.transpose(3, 1, 2, 0)).strategy == "staged"
        y = ly.convert(xs, "NHWC", "CHWN", threads=2)
    assert np.array_equal(y, x.transpose(1, 2, 3, 0))


def test_plain_kernels_env_wins_over_a_saved_profile(tmp_path):
    path = prof.save(prof.detect(), tmp_path / "p.json")
    r = _cli("explain-copy", "NCHW", "NHWC", "N=8", "C=64", "H=32", "W=32",
             env={"LAYOUTS_PROFILE": str(path), "LAYOUTS_PLAIN_KERNELS": "1"})
    assert r.returncode == 0 and "scalar-tiles: CHOSEN" in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize("bad,word", [
    (dict(small_bytes="1"), "small_bytes"), (dict(block_j_short_bytes=1 << 80), "block_j_short_bytes"),
    (dict(cpus=0), "cpus"), (dict(simd="no"), "simd"), (dict(disabled=("nosuch",)), "nosuch"),
    (dict(thread_min_bytes_by_strategy=("simd-tiles=\u00b2",)), "strategy=bytes"),
    (dict(thread_min_bytes_by_strategy=("simd_tiles=5",)), "simd_tiles")])
def test_profile_fields_are_checked_on_construction_and_replace(bad, word):
    with pytest.raises(LayoutError, match=word):
        prof.MachineProfile(**bad)
    with pytest.raises(LayoutError, match=word):
        prof.detect().replace(**bad)


def test_save_and_load_refusals(tmp_path):
    with pytest.raises(LayoutError, match="MachineProfile"):
        prof.save({"a": 1}, tmp_path / "p.json")
    with pytest.raises(LayoutError, match="folder"):
        prof.save(prof.detect(), tmp_path)
    assert list(tmp_path.iterdir()) == []                       # no .tmp left behind
    path = prof.save(prof.detect(), tmp_path / "p.json")
    doc = json.loads(path.read_text())
    for key, value in (("source", "x"), ("cpus", 999)):
        bad = dict(doc, tuning=dict(doc["tuning"], **{key: value}))
        path.write_text(json.dumps(bad))
        with pytest.raises(LayoutError, match=key):
            prof.load(path)
    path.write_text("[" * 100000)
    with pytest.raises(LayoutError, match="cannot read"):
        prof.load(path)


def test_explain_conversion_and_overlap_refusals():
    with pytest.raises(TypeError, match="shape"):
        explain_conversion((1.5, 3, 4, 4), "float32", "NCHW", "NHWC")
    with pytest.raises(TypeError, match="shape"):
        explain_conversion(None, "float32", "NCHW", "NHWC")
    for dtype in ("nosuch", object, "(2,)f4", "f4,,"):
        with pytest.raises(LayoutError, match="dtype"):
            explain_conversion((1, 3, 4, 4), dtype, "NCHW", "NHWC")
    a = np.zeros((64, 1024), np.float32)
    e = kernels.explain_copy(a[:, 1:], a[:, :-1])                # copy_into hands overlaps to numpy
    assert e.strategy == "numpy" and "overlapping" in e.why
    z = np.zeros((64, 64, 64, 16), np.float32)                   # 16 MB, one contiguous run
    assert kernels.explain_copy(np.empty_like(z), z, threads=2).threads == min(2, kernels.pool.max_threads())


@pytest.mark.parametrize("args", [["explain-copy", "NCHW", "NHWC", "N=2", "--dtype", "f4,,"],
                                  ["explain-copy", "NCHW", "NHWC", "N=2", "--dtype", "(2,)f4"],
                                  ["tune", "--out", "."], ["tune", "--out", ""]])
def test_cli_refusals_before_any_work(args):
    r = _cli(*args)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "error:" in r.stderr, r.stderr
