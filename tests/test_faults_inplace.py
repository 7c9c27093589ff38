"""Fault catalogue, in this process: exceptions and signals at injected moments of
``ly.convert_inplace`` (arrays) and of ``convert_file(..., inplace=True)`` (a file in its own bytes).

Each case asserts the promise of issue 23: ``x`` (or the file) is exactly the original or exactly
the converted tensor when the exception propagates -- never a partial permutation -- the
exception is the one raised, and its message or notes say which.
"""

from __future__ import annotations

import errno
import os
import signal

import numpy as np
import pytest

import layouts as ly
from faultkit import CONVERSIONS, Fault, converted, ctrl_c_handler, digest, leftovers, sigterm_exits, state_of, tensor

#: name -> (action factory, exception type, a word its message or notes hold)
FAULTS = {
    "ctrl-c": (lambda: signal.SIGINT, KeyboardInterrupt, "undone"),
    "sigterm-exit": (lambda: signal.SIGTERM, SystemExit, "undone"),
    "memory-error": (lambda: MemoryError("injected"), MemoryError, "undone"),
    "disk-error": (lambda: OSError(errno.EIO, "injected I/O error"), OSError, "undone"),
    "bug": (lambda: RuntimeError("injected bug"), RuntimeError, "undone"),
}
#: (fault point, its nth occurrence)
ARRAY_POINTS = [("group", 1), ("group", 3), ("segment", 1), ("finished", 1)]


def _words(err: BaseException) -> str:
    return " ".join([str(err)] + list(getattr(err, "__notes__", ())))


@pytest.mark.parametrize("where, nth", ARRAY_POINTS, ids=[f"{w}{n}" for w, n in ARRAY_POINTS])
@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("name", sorted(CONVERSIONS))
def test_array_holds_source_or_result(name, fault, where, nth):
    make, kind, word = FAULTS[fault]
    src, dst, shape, dtype, _ = CONVERSIONS[name]
    x = tensor(name, seed=len(fault) + nth)
    before = x.copy()
    f = Fault(where, make(), nth)
    with ctrl_c_handler(), sigterm_exits():
        with f.installed(), pytest.raises(kind) as info:
            ly.convert_inplace(x, src, dst, threads=2 if name == "nhwc-chwn" else 1)
        assert f.fired
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if where == "finished":  # every pass had run: x holds the destination, and the message says so
        assert x.reshape(-1).tobytes() == converted(name, before).tobytes()
        assert "complete" in _words(info.value) and "undone" not in _words(info.value)
    else:
        assert x.tobytes() == before.tobytes()
        assert word in _words(info.value)


@pytest.mark.parametrize("name", sorted(CONVERSIONS))
def test_array_handler_that_returns_lets_the_conversion_finish(name):
    """A SIGUSR1 handler that only logs: held to a boundary, it runs, and the conversion goes on."""
    src, dst, shape, dtype, _ = CONVERSIONS[name]
    x = tensor(name)
    want = converted(name, x)
    seen = []
    old = signal.signal(signal.SIGUSR1, lambda s, f: seen.append(s))
    try:
        with Fault("group", signal.SIGUSR1, 1).installed():
            y = ly.convert_inplace(x, src, dst)
    finally:
        signal.signal(signal.SIGUSR1, old)
    assert seen == [signal.SIGUSR1] and y.tobytes() == want.tobytes()


def test_array_second_ctrl_c_during_the_undo_still_restores():
    name = "nhwc-chwn"
    src, dst, shape, dtype, _ = CONVERSIONS[name]
    x = tensor(name)
    before = x.copy()
    with ctrl_c_handler(), Fault("segment", signal.SIGINT, 2).installed(), Fault("group", signal.SIGINT, 5).installed():
        with pytest.raises(KeyboardInterrupt, match="undone"):
            ly.convert_inplace(x, src, dst)
    assert x.tobytes() == before.tobytes()


# ------------------------------------------------------------------------------ files in place
#: (fault point, nth, phase): in the steps, at the marker, after the last step
FILE_POINTS = [("marked", 1, None), ("file-backed", 1, None), ("file-moved", 2, None), ("file-step", 1, None),
               ("group", 2, None), ("file-complete", 1, None)]


@pytest.mark.parametrize("where, nth, phase", FILE_POINTS, ids=[f"{w}{n}" for w, n, _ in FILE_POINTS])
@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("name", ["nchw-nhwc", "nhwc-chwn"])
def test_file_in_place_is_original_or_converted(tmp_path, name, fault, where, nth, phase):
    make, kind, word = FAULTS[fault]
    src, dst, shape, dtype, _ = CONVERSIONS[name]
    x = tensor(name, seed=3)
    p = tmp_path / "x.npy"
    np.save(p, x)
    before = digest(p)
    f = Fault(where, make(), nth, phase)
    with ctrl_c_handler(), sigterm_exits():
        with f.installed(), pytest.raises(kind) as info:
            ly.convert_file(p, src, p, dst, inplace=True, memory="96KB", progress=False, fsync=False)
    assert f.fired
    state = state_of(p, x, name)
    if where == "file-complete":
        assert state == "converted" and "complete" in _words(info.value)
    else:
        assert state == "original" and digest(p) == before
        assert "original" in _words(info.value) or isinstance(info.value, KeyboardInterrupt)
    assert leftovers(tmp_path, ["x.npy"]) == []   # no journal, no temporary


@pytest.mark.parametrize("name", ["nchw-nhwc", "nhwc-chwn"])
def test_file_ctrl_c_during_the_rollback_is_held_too(tmp_path, name):
    src, dst, shape, dtype, _ = CONVERSIONS[name]
    x = tensor(name, seed=4)
    p = tmp_path / "x.npy"
    np.save(p, x)
    before = digest(p)
    with ctrl_c_handler(), Fault("file-step", signal.SIGINT, 2).installed(), \
            Fault("file-moved", signal.SIGINT, 1, "rollback").installed():
        with pytest.raises(KeyboardInterrupt):
            ly.convert_file(p, src, p, dst, inplace=True, memory="96KB", progress=False, fsync=False)
    assert digest(p) == before and leftovers(tmp_path, ["x.npy"]) == []


@pytest.mark.parametrize("fsync", [False, True])
@pytest.mark.parametrize("name", sorted(CONVERSIONS))
@pytest.mark.parametrize("memory", ["96KB", "4MB"])
def test_file_in_place_without_faults_equals_numpy(tmp_path, name, memory, fsync):
    """The transaction's steps (journaled or not) give numpy's answer and leave nothing behind."""
    src, dst, shape, dtype, _ = CONVERSIONS[name]
    x = tensor(name, seed=5)
    p = tmp_path / "x.npy"
    np.save(p, x)
    ly.convert_file(p, src, p, dst, inplace=True, memory=memory, progress=False, fsync=fsync)
    assert state_of(p, x, name) == "converted" and leftovers(tmp_path, ["x.npy"]) == []


def test_file_lock_ends_with_the_call_whatever_views_survive(tmp_path):
    """Issue 38's D3: a failed call's traceback, kept by the caller, holds views of the mapped data;
    the next conversions of the same file in this process still take its lock."""
    name = "nchw-nhwc"
    src, dst, shape, dtype, _ = CONVERSIONS[name]
    x = tensor(name, seed=6)
    p = tmp_path / "x.npy"
    np.save(p, x)
    kept = []
    for _ in range(3):
        with Fault("file-moved", RuntimeError("injected"), 1).installed(), pytest.raises(RuntimeError) as info:
            ly.convert_file(p, src, p, dst, inplace=True, memory="96KB", progress=False, fsync=False)
        kept.append(info.value)   # its traceback, and every frame it passed through, live on
        assert state_of(p, x, name) == "original"
    ly.convert_file(p, src, p, dst, inplace=True, memory="96KB", progress=False, fsync=False)
    assert state_of(p, x, name) == "converted" and len(kept) == 3


def test_file_lock_held_by_this_process_is_named_so(tmp_path):
    import fcntl

    name = "nchw-nhwc"
    src, dst, *_ = CONVERSIONS[name]
    p = tmp_path / "x.npy"
    np.save(p, tensor(name))
    before = digest(p)
    with open(p, "rb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        with pytest.raises(ly.LayoutError, match=rf"this process \({os.getpid()}"):
            ly.convert_file(p, src, p, dst, inplace=True, progress=False)
    assert digest(p) == before
