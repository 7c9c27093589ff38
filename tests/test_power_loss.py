"""Power loss during an in-place ``.npy`` conversion: every crash state the explorer makes
(:mod:`crashsim`) ends, after ``ly.recover``, as the original bytes, the converted tensor, or a
refusal that names ``recover`` -- never a valid ``.npy`` holding scrambled data.

The runs: forward ones, ones that fail before, inside and after a step (and so roll back), one
whose rollback fails too, and a second power cut during the ``recover`` of a first one.
"""

from __future__ import annotations

import os
import struct
import zlib

import numpy as np
import pytest

import crashsim
import layouts as ly
from faultkit import Fault

#: name -> (src, dst, physical shape, dtype, numpy's permutation, memory=): two or more journaled steps each
RUNS = {
    "nchw-nhwc": ("NCHW", "NHWC", (16, 32, 8, 8), np.float32, (0, 2, 3, 1), "48KB"),
    "nchw-nchw16c": ("NCHW", "NCHW16c", (16, 32, 8, 8), np.float32, None, "48KB"),
    "nchw-nhwc-u8": ("NCHW", "NHWC", (192, 16, 8, 8), np.uint8, (0, 2, 3, 1), "64KB"),
}
#: name -> faults (point, nth, phase) raised, in order, during the conversion
FAULTS = {
    "forward": [],
    "fails-before-step-2-moves": [("file-backed", 2, "forward")],
    "fails-inside-step-2": [("group", 4, "forward")],
    "fails-after-step-2": [("file-step", 2, "forward")],
    "rollback-fails-too": [("file-step", 2, "forward"), ("file-moved", 1, "rollback")],
}
#: crash states of one run whose recover is itself cut, each explored in turn
SECOND_CUTS = 6


def _tensor(name: str) -> np.ndarray:
    shape, dtype = RUNS[name][2], RUNS[name][3]
    rng = np.random.default_rng(7)
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(0, 256, size=shape, dtype=dtype)


def _journal_state(state: crashsim.State) -> tuple[int, bool] | None:
    """(the latest valid progress record's state, whether the journal is a rollback), read from
    the journal's bytes as its format says (independent of the reader under test)."""
    files = state.contents()
    names = [n for n in files if n.startswith(".layouts-journal-") and not n.endswith(".new")]
    if not names:
        return None
    raw = files[names[0]]
    best = None
    for i in range(2):
        slot = raw[8192 + 64 * i:8192 + 64 * i + 36]
        if len(slot) < 36 or slot[:32] == b"\0" * 32 or struct.unpack("<I", slot[32:])[0] != zlib.crc32(slot[:32]):
            continue
        seq, _, _, kind = struct.unpack("<QiiI", slot[:20])
        best = max(best or (seq, kind), (seq, kind))
    return (best[1] if best else 0), b'"start":"partial"' in raw[:8192]


def _explore(tmp_path, name: str, faults: list, second: bool) -> crashsim.Outcome:
    src, dst, shape, dtype, perm, memory = RUNS[name]
    x = _tensor(name)
    if perm is None:   # NCHW16c: C split into blocks of 16 (32 channels: no padding), numpy's reshape
        n, c, h, w = shape
        want = np.ascontiguousarray(x.reshape(n, c // 16, 16, h, w).transpose(0, 1, 3, 4, 2))
    else:
        want = np.ascontiguousarray(x.transpose(perm))
    p = tmp_path / "run" / "x.npy"
    p.parent.mkdir()
    np.save(p, x)
    original = p.read_bytes()
    warm = tmp_path / "warm.npy"   # numba's kernels compiled or loaded before the trace starts
    np.save(warm, x)
    ly.convert_file(warm, src, warm, dst, inplace=True, memory=memory, progress=False)
    rec = crashsim.Recorder(str(p.parent))
    installed = [Fault(w, RuntimeError(f"injected at {w}"), n, ph) for w, n, ph in faults]
    with rec.recording():
        from contextlib import ExitStack
        with ExitStack() as stack:
            for f in installed:
                stack.enter_context(f.installed())
            try:
                ly.convert_file(str(p), src, str(p), dst, inplace=True, memory=memory, progress=False)
            except RuntimeError as err:
                assert faults and "injected" in str(err)
    assert all(f.fired for f in installed)
    picked = []

    def resumes(state: crashsim.State) -> bool:
        """A state whose recover puts a backed-up step back, or runs a rollback journal."""
        j = _journal_state(state)
        if not second or j is None or len(picked) >= SECOND_CUTS or not (j[0] == 1 or j[1]):
            return False
        picked.append(state)
        return True

    out = crashsim.explore(rec, str(p), original, want, second=resumes)
    if second:
        assert picked, "no crash state of this run has a step to put back"
    return out


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("name", sorted(RUNS))
def test_every_crash_state_recovers_to_original_or_converted(tmp_path, name, fault):
    out = _explore(tmp_path, name, FAULTS[fault], second=fault in ("fails-inside-step-2", "rollback-fails-too"))
    assert out.failures == [], f"{len(out.failures)} of {out.states} crash states: " + "\n".join(out.failures[:5])
    assert out.refused == 0   # every step is backed up: no crash state is beyond repair
    assert out.states >= 100 and out.original > 0
    if fault == "forward":
        assert out.converted > 0


def test_the_explorer_finds_records_that_reach_the_disk_before_their_data(tmp_path, monkeypatch):
    """The explorer's own check: with the data's flushes taken out (the rule of issue 38's D1 and
    D2 reverted), it finds crash states that recover turns into scrambled data."""
    from layouts.chunked import inplace_file

    monkeypatch.setattr(inplace_file.StepRunner, "durable", lambda self: None)
    out = _explore(tmp_path, "nchw-nhwc", FAULTS["fails-inside-step-2"], second=False)
    assert any("scrambled" in f for f in out.failures), out


def test_the_recorder_sees_what_a_kernel_writes_through_the_map(tmp_path):
    """Units for the pages a forward run moves, syncs of the data file and of the folder."""
    src, dst, shape, dtype, perm, memory = RUNS["nchw-nhwc"]
    p = tmp_path / "x.npy"
    np.save(p, _tensor("nchw-nhwc"))
    rec = crashsim.Recorder(str(tmp_path))
    with rec.recording():
        ly.convert_file(str(p), src, str(p), dst, inplace=True, memory=memory, progress=False)
    data = rec.names["x.npy"]
    pages = {u.at for what, units in rec.trace if what == "units" for u in units if u.file == data and u.kind == "page"}
    assert pages == set(range(-(-os.path.getsize(p) // crashsim.PAGE)))
    kinds = [what for what, _ in rec.trace]
    assert ("sync", data) in rec.trace and "syncdir" in kinds
    names = [u.kind for what, units in rec.trace if what == "units" for u in units if u.kind != "page"]
    assert {"link", "rename", "unlink"} <= set(names)
