"""Fault catalogue, in child processes: SIGKILL, SIGINT and SIGTERM at injected moments and at
random, two processes on one file. Every child has a hard timeout.

After each: the file is the original or the converted tensor, or marked -- and then
``ly.recover`` brings it to one of the two (and says which), or refuses with a reason when the
journal cannot repair it; no journal or ``.part`` file stays once things are settled.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import layouts as ly
from faultkit import CONVERSIONS, ROOT, digest, leftovers, run_child, settle, state_of, tensor

KILL_POINTS = ["marked:1", "file-backed:1", "file-moved:1", "file-moved:2", "file-step:1", "group:2",
               "file-complete:1", "header-written:1"]


def _file(tmp_path, name, seed=0):
    x = tensor(name, seed)
    p = tmp_path / "x.npy"
    np.save(p, x)
    return x, p


@pytest.mark.parametrize("point", KILL_POINTS)
@pytest.mark.parametrize("name", ["nchw-nhwc", "nhwc-chwn"])
def test_sigkill_at_a_moment_is_recovered(tmp_path, name, point):
    src, dst, *_ = CONVERSIONS[name]
    x, p = _file(tmp_path, name)
    where, nth = point.split(":")
    memory = 256 << 10 if name == "nchw-nhwc" else 1 << 20  # two steps of one pass / one step of each of three
    code, out, err = run_child(p, src, dst, memory, f"{where}:{nth}:forward:kill")
    assert code == -signal.SIGKILL, (code, out, err)
    assert settle(p, x, name) in ("original", "converted")
    assert leftovers(tmp_path, ["x.npy"]) == []


@pytest.mark.parametrize("point", ["file-backed:1", "file-moved:2"])
def test_sigkill_of_a_flushed_run_is_recovered_through_checked_backups(tmp_path, point):
    """fsync=True: the backups carry a CRC that recover checks before putting a step back."""
    name = "nchw-nhwc"
    src, dst, *_ = CONVERSIONS[name]
    x, p = _file(tmp_path, name, 7)
    where, nth = point.split(":")
    code, out, err = run_child(p, src, dst, 256 << 10, f"{where}:{nth}:forward:kill", env={"FAULT_FSYNC": "1"})
    assert code == -signal.SIGKILL, (code, err)
    assert state_of(p, x, name) == "marked"
    assert settle(p, x, name) == "converted" and leftovers(tmp_path, ["x.npy"]) == []


@pytest.mark.parametrize("name", ["nchw-nhwc", "nhwc-chwn"])
def test_sigkill_during_the_rollback_of_a_ctrl_c_rolls_back(tmp_path, name):
    src, dst, *_ = CONVERSIONS[name]
    x, p = _file(tmp_path, name, 1)
    before = digest(p)
    memory = 96 << 10 if name == "nchw-nhwc" else 1 << 20  # every step backed up
    code, out, err = run_child(p, src, dst, memory, "file-step:1:forward:SIGINT,file-moved:1:rollback:kill")
    assert code == -signal.SIGKILL, (code, out, err)
    assert state_of(p, x, name) == "marked"
    assert ly.recover(p) == "original" and digest(p) == before
    assert leftovers(tmp_path, ["x.npy"]) == []


@pytest.mark.parametrize("handler", ["default", "exit"])
@pytest.mark.parametrize("name", ["nchw-nhwc", "nhwc-chwn"])
def test_sigterm_mid_run_restores_the_file(tmp_path, name, handler):
    """SIGTERM with its default action (the process ends, after the rollback) or a handler that
    raises SystemExit: the file is the original either way."""
    src, dst, *_ = CONVERSIONS[name]
    x, p = _file(tmp_path, name, 2)
    before = digest(p)
    env = {"FAULT_HANDLER": "exit"} if handler == "exit" else {}
    code, out, err = run_child(p, src, dst, 96 << 10, "file-moved:1:forward:SIGTERM", env=env)
    assert code == (3 if handler == "exit" else -signal.SIGTERM), (code, err)
    assert "finished" not in out
    assert digest(p) == before and leftovers(tmp_path, ["x.npy"]) == []


@pytest.mark.parametrize("seed", range(4))
def test_sigkill_at_random_is_recovered(tmp_path, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((32, 64, 32, 32)).astype(np.float32)  # 8 MiB: tens of milliseconds of work
    p = tmp_path / "x.npy"
    np.save(p, x)
    code, out, err = run_child(p, "NCHW", "NHWC", 16 << 20, "", env={"FAULT_RANDOM_KILL": str(rng.uniform(0.0, 0.4))})
    assert code in (0, -signal.SIGKILL), (code, err)
    try:
        y = np.load(p)
    except ValueError:
        assert ly.recover(p) in ("original", "converted")
        y = np.load(p)
    assert y.tobytes() in (x.tobytes(), x.transpose(0, 2, 3, 1).tobytes())
    if leftovers(tmp_path, ["x.npy"]):  # killed just before its marker or after its last header: a journal
        with pytest.raises(ly.LayoutError, match="nothing to recover"):   # ... that recover removes
            ly.recover(p)
    assert leftovers(tmp_path, ["x.npy"]) == []


def test_sigkill_inside_a_step_too_large_to_back_up_is_refused_by_recover(tmp_path):
    """nhwc-chwn's first pass moves one 512 KiB block; with memory=96KB it runs unjournaled, so a
    crash inside it cannot be repaired: the file stays marked and recover says why."""
    name = "nhwc-chwn"
    src, dst, *_ = CONVERSIONS[name]
    x, p = _file(tmp_path, name, 3)
    code, out, err = run_child(p, src, dst, 96 << 10, "file-backed:1:forward:kill")
    assert code == -signal.SIGKILL
    with pytest.raises(ly.LayoutError, match="cannot be repaired"):
        ly.recover(p)
    assert state_of(p, x, name) == "marked"
    with pytest.raises(ly.LayoutError, match="recover"):
        ly.convert_file(p, src, p, dst, inplace=True)


@pytest.mark.parametrize("old_dst", [False, True], ids=["no-dst", "old-dst"])
def test_two_files_sigkill_leaves_dst_absent_or_old_and_the_next_run_cleans_up(tmp_path, old_dst):
    name = "nchw-nhwc"
    src, dst, *_ = CONVERSIONS[name]
    x, p = _file(tmp_path, name, 4)
    before = digest(p)
    out_path = tmp_path / "y.npy"
    if old_dst:
        np.save(out_path, np.zeros(3))
    old = digest(out_path) if old_dst else None
    code, out, err = run_child(p, src, f"file:{out_path}:{dst}", 64 << 10, "tile:2:-:kill")
    assert code == -signal.SIGKILL, (code, err)
    assert digest(p) == before
    assert (digest(out_path) == old) if old_dst else not out_path.exists()
    assert any(n.endswith(".part") for n in os.listdir(tmp_path))        # the dead run's
    ly.convert_file(p, src, out_path, dst, memory="64KB", progress=False)   # ... removed by the next one
    np.testing.assert_array_equal(np.load(out_path), x.transpose(0, 2, 3, 1))
    assert leftovers(tmp_path, ["x.npy", "y.npy"]) == []


_HOLDER = textwrap.dedent("""
    import fcntl, os, sys, time
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    print(os.getpid(), flush=True)
    time.sleep(60)
""")


def _holding(path):
    child = subprocess.Popen([sys.executable, "-c", _HOLDER, str(path)], stdout=subprocess.PIPE, text=True)
    pid = int(child.stdout.readline())
    return child, pid


@pytest.mark.parametrize("what", ["same-file", "same-dst", "source-being-converted"])
def test_a_second_conversion_is_refused_naming_the_other_process(tmp_path, what):
    name = "nchw-nhwc"
    src, dst, *_ = CONVERSIONS[name]
    x, p = _file(tmp_path, name, 5)
    before = digest(p)
    locked = tmp_path / ".y.npy.held0001.part" if what == "same-dst" else p
    child, pid = _holding(locked)
    try:
        if what == "same-file":
            call = lambda: ly.convert_file(p, src, p, dst, inplace=True, progress=False)  # noqa: E731
        else:
            call = lambda: ly.convert_file(p, src, tmp_path / "y.npy", dst, progress=False)  # noqa: E731
        with pytest.raises(ly.LayoutError) as info:
            call()
        assert str(pid) in str(info.value) and ("converted" in str(info.value) or "written" in str(info.value))
    finally:
        child.kill()
        child.wait(timeout=30)
        child.stdout.close()
    assert digest(p) == before and not (tmp_path / "y.npy").exists()


def test_cli_recover_prints_the_outcome(tmp_path):
    name = "nchw-nhwc"
    src, dst, *_ = CONVERSIONS[name]
    x, p = _file(tmp_path, name, 6)
    code, out, err = run_child(p, src, dst, 1 << 20, "file-moved:1:forward:kill")
    assert code == -signal.SIGKILL
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, "-m", "layouts", "recover", str(p)], capture_output=True, text=True,
                         env=env, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "converted" in run.stdout and state_of(p, x, name) == "converted"
    again = subprocess.run([sys.executable, "-m", "layouts", "recover", str(p)], capture_output=True, text=True,
                           env=env, timeout=60)
    assert again.returncode == 2 and "nothing to recover" in again.stderr


_ASYNC = textwrap.dedent("""
    import os, signal, sys
    import numpy as np
    import layouts as ly
    src, dst = sys.argv[1:3]
    sizes = dict(N=8, C=64, H=64, W=64)
    x = np.random.default_rng(0).standard_normal(8 * 64 ** 3).astype(np.float32)   # 8 MiB, flat
    before = x.copy()
    want = ly.convert(x, ly.Layout(src, **sizes), dst).reshape(-1).copy()
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(1))
    ly.convert_inplace(x.copy(), src, dst, **sizes)                 # compiled before "ready"
    print("ready", flush=True)
    try:
        for _ in range(200):                                       # back and forth until the signal lands
            ly.convert_inplace(x, src, dst, **sizes)
            ly.convert_inplace(x, dst, src, **sizes)
    except SystemExit:
        state = "original" if x.tobytes() == before.tobytes() else "converted" if x.tobytes() == want.tobytes() else "partial"
        print(state, flush=True)
        os._exit(0)
    print("never signalled", flush=True)
""")


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("src, dst", [("NCHW", "NHWC"), ("NHWC", "CHWN")])
def test_array_sigterm_handler_at_random_leaves_x_whole(src, dst, seed):
    """Issue 23 class 1 on arrays: a SIGTERM whose handler raises SystemExit, sent at a random
    moment of many conversions, finds x the original or the converted tensor."""
    import time
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    child = subprocess.Popen([sys.executable, "-c", _ASYNC, src, dst], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert child.stdout.readline().strip() == "ready"
        time.sleep(np.random.default_rng(seed).uniform(0.01, 0.3))
        child.send_signal(signal.SIGTERM)
        out, _ = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert out.strip() in ("original", "converted"), out


def test_a_journal_of_format_1_is_still_recovered(tmp_path):
    """A run of an older version killed inside its first step: format 1 kept the backup at the
    backup area's start (format 2 keeps it at the step's offset within its page). Made here from
    a format-2 journal by moving the bytes as the formats' descriptions say."""
    import struct

    name = "nchw-nhwc"
    src, dst, *_ = CONVERSIONS[name]
    x, p = _file(tmp_path, name, 9)
    offset = os.path.getsize(p) - x.nbytes     # the data's position: the first step starts there
    code, out, err = run_child(p, src, dst, 256 << 10, "file-moved:1:forward:kill", env={"FAULT_FSYNC": "1"})
    assert code == -signal.SIGKILL, (code, err)
    (journal,) = [tmp_path / n for n in os.listdir(tmp_path) if n.startswith(".layouts-journal-")]
    raw = bytearray(journal.read_bytes())
    assert raw[:8] == b"LAYOUTSJ" and struct.unpack("<I", raw[8:12])[0] == 2
    slots = [raw[8192 + 64 * i:8192 + 64 * i + 40] for i in range(2)]
    seq, segment, step, state, crc, length = max(struct.unpack("<QiiIIQ", s[:32]) for s in slots)
    assert (segment, step, state) == (0, 0, 1) and length > 0      # BACKED: the first step, partly moved
    area = 8192 + 4096
    backup = bytes(raw[area + offset % 4096:area + offset % 4096 + length])
    raw[8:12] = struct.pack("<I", 1)
    raw[area:area + length] = backup
    journal.write_bytes(bytes(raw))
    assert ly.recover(p) == "converted"
    assert state_of(p, x, name) == "converted" and leftovers(tmp_path, ["x.npy"]) == []


def test_a_damaged_backup_is_refused_not_restored(tmp_path):
    name = "nchw-nhwc"
    src, dst, *_ = CONVERSIONS[name]
    x, p = _file(tmp_path, name, 8)
    code, out, err = run_child(p, src, dst, 256 << 10, "file-moved:1:forward:kill", env={"FAULT_FSYNC": "1"})
    assert code == -signal.SIGKILL, (code, err)
    journal = [n for n in os.listdir(tmp_path) if n.startswith(".layouts-journal-")]
    assert len(journal) == 1
    with open(tmp_path / journal[0], "r+b") as f:   # a byte of the step's backup, past the page it starts in
        f.seek(8192 + 4096 + 4096 + 100)
        byte = f.read(1)
        f.seek(8192 + 4096 + 4096 + 100)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(ly.LayoutError, match="does not match"):
        ly.recover(p)
    assert state_of(p, x, name) == "marked"
