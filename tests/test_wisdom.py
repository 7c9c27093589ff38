"""The planner that measures (layouts.kernels.machine.wisdom): pinned profiles measure nothing; a measuring
profile times the ways on a slice, keeps a winner that is one of them, saves it for later
processes, and the copies stay bitwise numpy's whichever way won."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import layouts as ly
from layouts import kernels
from layouts.kernels.machine import wisdom
from layouts.kernels.machine.profile import reference
from layouts.kernels.registry import Task, choose

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def fresh_wisdom(tmp_path, monkeypatch):
    """An empty wisdom folder for this test (and its child processes)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    wisdom.forget()
    yield tmp_path / "layouts" / "wisdom.json"
    wisdom.forget()


def _nhwc(shape=(16, 64, 56, 56), dtype=np.float32, seed=0):
    x = np.random.default_rng(seed).integers(0, 250, shape).astype(dtype)   # logical NCHW
    return x, np.ascontiguousarray(x.transpose(0, 2, 3, 1))


def test_a_pinned_profile_measures_nothing(fresh_wisdom):
    x, xs = _nhwc()
    with kernels.use_profile(reference("epyc-avx512")):
        y = ly.convert(xs, "NHWC", "CHWN", threads=1)
        c, _ = kernels.copy._choice(np.empty_like(y), xs.transpose(3, 1, 2, 0), False, kernels.current(), 1)
    assert np.array_equal(y, x.transpose(1, 2, 3, 0))
    assert c.decided == "predicted" and not fresh_wisdom.exists()


def test_measuring_keeps_one_of_the_ways_and_saves_it(fresh_wisdom):
    x, xs = _nhwc()
    prof = reference("xeon-avx512").replace(measure_min_bytes=1 << 20)
    want = x.transpose(1, 2, 3, 0)
    with kernels.use_profile(prof):
        out = np.full(want.shape, -1, np.float32)
        assert ly.convert(xs, "NHWC", "CHWN", out=out, threads=1) is out
        assert np.array_equal(out, want)                               # bitwise, after the measuring
        v = xs.transpose(3, 1, 2, 0)
        task = Task.of(out, v)
        c, _, decided = wisdom.decide(task, prof, 1)                   # no arrays: reads the wisdom only
    assert decided.startswith("measured: ")
    doc = json.loads(fresh_wisdom.read_text())
    [entries] = doc["machines"].values()
    entry = entries[wisdom.signature(task, 1)]
    ways = wisdom._ways(task, prof, choose(task, prof)[0])
    assert entry["chosen"] in ways and set(entry["seconds"]) <= set(ways) and "predicted" in entry["seconds"]
    assert all(t > 0 for t in entry["seconds"].values())
    if entry["chosen"] == "predicted":
        assert c.strategy == choose(task, prof)[0].strategy
    else:                                                               # the winner beat the margin
        assert entry["seconds"][entry["chosen"]] < entry["seconds"]["predicted"] * (1 - wisdom.MARGIN)
        assert (c.strategy, c.params) == (ways[entry["chosen"]][1].strategy, ways[entry["chosen"]][1].params)


def test_a_copy_below_the_measuring_size_follows_wisdom_and_measures_nothing(fresh_wisdom):
    """A copy smaller than ``measure_min_bytes`` is not timed on first sight (no wisdom file is
    written), but where the wisdom holds its signature, as ``tune`` leaves it, it takes the way
    recorded there: the next strategy of the registry here, which the rules would not pick."""
    x, xs = _nhwc()
    prof = reference("xeon-avx512").replace(measure_min_bytes=1 << 30)     # far above this copy
    want = x.transpose(1, 2, 3, 0)
    v = xs.transpose(3, 1, 2, 0)
    with kernels.use_profile(prof):
        out = ly.aligned_empty(want.shape, np.float32)      # both outs on a line: one signature
        assert np.array_equal(ly.convert(xs, "NHWC", "CHWN", out=out, threads=1), want)
        task = Task.of(out, v)
        c, _, decided = wisdom.decide(task, prof, 1, out, v)
    assert decided == "predicted" and not fresh_wisdom.exists()
    predicted = choose(task, prof)[0]
    other = choose(task, prof.replace(disabled=(predicted.strategy,)))[0]
    assert (c.strategy, c.params) == (predicted.strategy, predicted.params) and other.strategy != predicted.strategy
    fresh_wisdom.parent.mkdir(parents=True)
    fresh_wisdom.write_text(json.dumps({"format": 1, "machines": {f"{prof.machine_key}|layouts {ly.__version__}": {
        wisdom.signature(task, 1): {"chosen": "next strategy", "changes": {"disabled": [predicted.strategy]},
                                    "seconds": {"predicted": 2.0, "next strategy": 1.0}}}}}))
    wisdom.forget()
    c, _, decided = wisdom.decide(task, prof, 1, out, v)
    assert decided.startswith("measured: next strategy") and (c.strategy, c.params) == (other.strategy, other.params)
    kernels.copy._choices.clear()
    with kernels.use_profile(prof):
        later = ly.aligned_empty(want.shape, np.float32)
        later[...] = -1
        assert kernels.copy._choice(later, v, False, prof, 1)[0].strategy == other.strategy
        kernels.copy_into(later, v, threads=1)                 # the way the wisdom holds
        assert np.array_equal(later, want)


def test_a_measurement_inside_a_repeat_of_convert_is_not_made_again(fresh_wisdom):
    """convert's later calls into ``out`` record the kernel calls of the copy and then only make
    those again. When ``out`` is new and its alignment too, the planner measures inside that
    recording: the timed runs on slices must stay out of it, or every repeat makes them again."""
    from layouts.conversion import replays
    from layouts.kernels.runtime import pool
    x, xs = _nhwc()
    want = x.transpose(1, 2, 3, 0)
    prof = reference("xeon-avx512").replace(measure_min_bytes=1 << 20)

    def unaligned(offset):                       # an out of its own whose first byte is offset from 64
        buf = np.empty(want.nbytes + 128, np.uint8)
        start = (-buf.ctypes.data) % 64 + offset
        return buf[start:start + want.nbytes].view(np.float32).reshape(want.shape)

    with kernels.use_profile(prof):
        first, later, same = unaligned(0), unaligned(16), unaligned(16)
        for out in (first, first, later, later):
            assert ly.convert(xs, "NHWC", "CHWN", out=out, threads=1) is out and np.array_equal(out, want)
        [r] = replays.kept(later)
        [calls] = [c for c in r.calls if c is not None]
        again = pool.recorded(lambda: kernels.copy_into(same, xs.transpose(3, 1, 2, 0), threads=1))
    assert np.array_equal(same, want) and again is not None
    assert [a[0].nbytes for _, a in calls] == [a[0].nbytes for _, a in again]     # the copy's calls only


def _measured_in_a_child(code: str, wisdom_file) -> None:
    """Run ``code`` (which prints ok) in a child process with the test's wisdom folder, so that a
    crash fails the test rather than the run; the copy must have been measured."""
    env = dict(os.environ, PYTHONPATH=ROOT, XDG_CACHE_HOME=str(wisdom_file.parent.parent))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", (r.returncode, r.stderr[-2000:])
    [entries] = json.loads(wisdom_file.read_text())["machines"].values()
    assert any("predicted" in e["seconds"] for e in entries.values())          # it was measured


def test_measured_parts_keep_the_alignment_the_way_was_planned_for(fresh_wisdom):
    """The ways are planned on the first timed part and run on the others. NCHW -> NCHW16c of one
    batch index in uint8 (16-byte dst rows, non-temporal line tiles) is cut along its rows of
    1999 pixels: a part that started 16 bytes further on would take the first part's
    non-temporal stores off a line (a crash)."""
    code = ("import numpy as np, layouts as ly\n"
            "from layouts import kernels\n"
            "from layouts.conversion.explain import explain_conversion\n"
            "from layouts.kernels.machine.profile import reference\n"
            "p = reference('epyc-avx512').replace(measure_min_bytes=32 << 20)\n"
            "x = np.random.default_rng(3).integers(0, 250, (1, 16, 1200, 1999)).astype(np.uint8)\n"
            "with kernels.use_profile(p):\n"
            "    [e] = explain_conversion(x.shape, x.dtype, 'NCHW', 'NCHW16c', threads=1)\n"
            "    assert e.params['variant'] == 'lines-nt', str(e)\n"
            "    y = ly.convert(x, 'NCHW', 'NCHW16c', threads=1)\n"
            "assert np.array_equal(y, x.reshape(1, 1, 16, 1200, 1999).transpose(0, 1, 3, 4, 2))\n"
            "print('ok')\n")
    _measured_in_a_child(code, fresh_wisdom)


def test_measured_parts_of_rows_that_follow_each_other_across_batch_indices(fresh_wisdom):
    """The same for an older variant: NHWC -> CHWN of 130 images (float32) into an out 16 bytes
    past a line runs non-temporal tiles over dst rows that follow each other across batch indices
    (``tiles-nt-batch-rows``, aligned from a peel worked out on the first part); its parts are cut
    along rows 20 x 130 x 4 bytes apart, 32 bytes off a line's multiple (a crash before)."""
    code = ("import numpy as np, layouts as ly\n"
            "from layouts import kernels\n"
            "from layouts.kernels.machine.profile import reference\n"
            "x0 = np.random.default_rng(0).integers(0, 250, (130, 62, 20, 20)).astype(np.float32)\n"
            "x = np.ascontiguousarray(x0.transpose(0, 2, 3, 1)); want = x0.transpose(1, 2, 3, 0)\n"
            "b = np.zeros(want.nbytes + 128, np.uint8); s = (-b.ctypes.data) % 64 + 16\n"
            "out = b[s:s + want.nbytes].view(np.float32).reshape(want.shape)\n"
            "p = reference('xeon-avx512').replace(measure_min_bytes=1 << 20, nt_min_bytes=1 << 20)\n"
            "with kernels.use_profile(p):\n"
            "    e = kernels.explain_copy(out, x.transpose(3, 1, 2, 0), threads=1)\n"
            "    assert e.params['variant'] == 'tiles-nt-batch-rows', str(e)\n"
            "    ly.convert(x, 'NHWC', 'CHWN', out=out, threads=1)\n"
            "assert np.array_equal(out, want) and not b[:s].any() and not b[s + want.nbytes:].any()\n"
            "print('ok')\n")
    _measured_in_a_child(code, fresh_wisdom)


def test_recorded_wisdom_is_followed_and_only_on_its_machine(fresh_wisdom):
    """A file that says the next strategy won: the decision follows it (deterministic: nothing is
    timed), and the same entry under another machine's key is ignored."""
    x = np.zeros((8, 3, 64, 64), np.float32)                            # NCHW -> NHWC: small-c predicted
    out = np.empty((8, 64, 64, 3), np.float32)
    prof = reference("epyc-avx2").replace(measure_min_bytes=1)
    task = Task.of(out, x.transpose(0, 2, 3, 1))
    assert choose(task, prof)[0].strategy == "small-c"
    entry = {"chosen": "next strategy", "changes": {"disabled": ["small-c"]},
             "seconds": {"predicted": 2.0, "next strategy": 1.0}}
    fresh_wisdom.parent.mkdir(parents=True)
    for key, follows in ((wisdom._key(prof), True), ("another|cpu|64|layouts 0", False)):
        wisdom.forget()
        fresh_wisdom.write_text(json.dumps({"format": 1, "machines": {key: {wisdom.signature(task, 1): entry}}}))
        c, declined, decided = wisdom.decide(task, prof, 1)
        if follows:
            assert c.strategy != "small-c" and ("small-c", "disabled by the profile") in declined
            assert decided == "measured: next strategy was fastest (predicted 2000.00 ms, next strategy 1000.00 ms)"
        else:
            assert c.strategy == "small-c" and decided.startswith("predicted")


def test_short_rows_measure_their_blocks_and_follow_the_winner(fresh_wisdom):
    """NHWC -> CHWN with C=3 (short-row scatter): the ways to measure include the long row in
    blocks of a third of L1; a file that says the blocks won is followed, and the copy is numpy's."""
    x, xs = _nhwc((64, 3, 96, 96))
    want = x.transpose(1, 2, 3, 0)
    prof = reference("xeon-avx512").replace(measure_min_bytes=1, nt_min_bytes=0)
    out = np.empty(want.shape, np.float32)
    task = Task.of(out, xs.transpose(3, 1, 2, 0))
    first = choose(task, prof)[0]
    assert (first.strategy, first.params["block"]) == ("short-rows", "one tile")
    ways = wisdom._ways(task, prof, first)
    _, blocked = ways["short-row blocks toggled"]
    assert (blocked.strategy, blocked.params["block"]) == ("short-rows", (48 << 10) // 3 // 8)   # source columns
    entry = {"chosen": "short-row blocks toggled", "changes": {"short_rows_block_bytes": 16 << 10},
             "seconds": {"predicted": 2.0, "short-row blocks toggled": 1.0}}
    fresh_wisdom.parent.mkdir(parents=True)
    fresh_wisdom.write_text(json.dumps({"format": 1, "machines": {wisdom._key(prof): {wisdom.signature(task, 1): entry}}}))
    c, _, decided = wisdom.decide(task, prof, 1)
    assert c.params["block"] == 2048 and decided.startswith("measured: short-row blocks toggled was fastest")
    with kernels.use_profile(prof):
        assert ly.convert(xs, "NHWC", "CHWN", out=out, threads=1) is out
    assert np.array_equal(out, want)


@pytest.mark.parametrize("text", ["{", "[1, 2]", json.dumps({"format": 99, "machines": {}}), "[" * 100000])
def test_a_broken_wisdom_file_is_ignored(fresh_wisdom, text):
    fresh_wisdom.parent.mkdir(parents=True)
    fresh_wisdom.write_text(text)
    x, xs = _nhwc((8, 64, 32, 32))
    prof = reference("xeon-avx512").replace(measure_min_bytes=1 << 20)
    with kernels.use_profile(prof):
        assert np.array_equal(ly.convert(xs, "NHWC", "NCHW", threads=1), x)


ALIGNED = ("import numpy as np\n"
           "def aligned(shape):\n"
           "    n = int(np.prod(shape)) * 4\n"
           "    buf = np.empty(n + 64, np.uint8)\n"
           "    start = (-buf.ctypes.data) % 64\n"
           "    return buf[start:start + n].view(np.float32).reshape(shape)\n")


def test_a_later_process_reads_the_wisdom(fresh_wisdom):
    """The same copy (same shapes, strides, alignments, threads) in a new process: decided by the
    saved measurement, not predicted."""
    env = {}
    exec(ALIGNED, env)
    x, out = env["aligned"]((8, 32, 32, 64)), env["aligned"]((8, 64, 32, 32))
    x[...] = np.random.default_rng(1).random(x.shape)
    # plain stores, as the new process's task has: the output is not judged cold (kernels.recency)
    prof = kernels.current().replace(measure_min_bytes=1 << 20, cold_nt_min_bytes=1 << 62)
    with kernels.use_profile(prof):
        kernels.copy_into(out, x.transpose(0, 3, 1, 2), threads=1)
    assert np.array_equal(out, x.transpose(0, 3, 1, 2)) and fresh_wisdom.exists()
    code = ALIGNED + ("from layouts import kernels; from layouts.kernels.machine import wisdom\n"
                      "from layouts.kernels.registry import Task\n"
                      "p = kernels.current().replace(measure_min_bytes=1 << 20)\n"
                      "x, out = aligned((8, 32, 32, 64)), aligned((8, 64, 32, 32))\n"
                      "print(wisdom.decide(Task.of(out, x.transpose(0, 3, 1, 2)), p, 1)[2])\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300,
                       env=dict(os.environ, XDG_CACHE_HOME=str(fresh_wisdom.parent.parent)))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("measured: "), r.stdout


def test_the_slices_are_distinct_fractions_of_the_copy_along_the_outer_axis():
    prof = reference("xeon-avx512")                                     # 2 MiB L2: slices of >= 4 MiB
    dst = np.empty((256, 64, 32, 32), np.float32)                       # 64 MiB
    src = np.empty((256, 32, 32, 64), np.float32).transpose(0, 3, 1, 2)
    parts = wisdom._slices(dst, src, dst.nbytes, prof, 5)
    starts = []
    for sd, ss in parts:
        assert sd.shape == ss.shape == (16, 64, 32, 32) and sd.base is dst and np.shares_memory(ss, src)
        starts.append((sd.ctypes.data - dst.ctypes.data) // dst[0].nbytes)
    assert starts == [0, 16, 32, 48, 64]                                # no part timed twice
    assert [p[0].shape[0] for p in wisdom._slices(dst, src, dst.nbytes, prof, 20)] == [16] * 20
    assert (wisdom._slices(dst, src, dst.nbytes, prof, 20)[16][0].ctypes.data == dst.ctypes.data)  # 16 parts, then again
    small = np.empty((2, 64, 32, 32), np.float32)
    assert all(d is small for d, _ in wisdom._slices(small, small, small.nbytes, prof, 3))


def test_tune_fills_wisdom_below_the_measuring_size_and_not_for_a_pinned_profile(fresh_wisdom):
    """``tune``'s wisdom covers common conversions that a first copy would not measure (here all of
    them: the measuring size is far above them), one entry per thread count; a profile that
    measures nothing fills nothing."""
    from layouts.kernels.tune import fill_wisdom
    assert fill_wisdom(reference("xeon-avx512"), quick=True) == [] and not fresh_wisdom.exists()
    prof = reference("xeon-avx512").replace(measure_min_bytes=1 << 40)
    done = fill_wisdom(prof, quick=True)
    assert len(done) == 2 * len({1, prof.cpus}) and all(d.startswith("measured") for _, d in done), done
    [entries] = json.loads(fresh_wisdom.read_text())["machines"].values()
    assert len(entries) == len(done)
