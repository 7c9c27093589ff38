"""Helpers of the fault catalogue (tests/test_faults_*.py): files, digests, oracles, children.

Every case states what the user may find afterwards, checked against numpy: the source byte
for byte (its SHA-256), or the converted tensor exactly; the destination absent, complete or
the old one; no ``.part`` or journal file left; the exception's type and a key word.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np

import layouts as ly
from layouts.inplace.faultpoints import injected

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: (src, dst, physical shape, dtype, permutation numpy applies) -- small, several passes each
CONVERSIONS = {
    "nchw-nhwc": ("NCHW", "NHWC", (16, 32, 16, 16), np.float32, (0, 2, 3, 1)),
    "nhwc-chwn": ("NHWC", "CHWN", (8, 16, 16, 64), np.float32, (3, 1, 2, 0)),
    "nchw-chwn-u8": ("NCHW", "CHWN", (32, 16, 24, 24), np.uint8, (1, 2, 3, 0)),
}


def tensor(name: str, seed: int = 0) -> np.ndarray:
    src, dst, shape, dtype, _ = CONVERSIONS[name]
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(0, 255, size=shape, dtype=dtype)


def converted(name: str, x: np.ndarray) -> np.ndarray:
    """The numpy oracle: the destination's physical array."""
    return np.ascontiguousarray(x.transpose(CONVERSIONS[name][4]))


def digest(path) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def leftovers(folder, keep=()) -> list[str]:
    """Names in ``folder`` other than ``keep``: .part files, journals, anything else."""
    return sorted(n for n in os.listdir(folder) if n not in set(keep))


def state_of(path, x: np.ndarray, name: str) -> str:
    """"original", "converted" (np.load reads exactly that) or "marked" (np.load refuses)."""
    try:
        y = np.load(path)
    except ValueError:
        return "marked"
    if y.shape == x.shape and y.tobytes() == x.tobytes():
        return "original"
    want = converted(name, x)
    if y.shape == want.shape and y.tobytes() == want.tobytes():
        return "converted"
    return "garbage"


def settle(path, x: np.ndarray, name: str) -> str:
    """The file's state, after ``ly.recover`` when it is marked; the outcome recover named must
    match what the file then holds."""
    state = state_of(path, x, name)
    if state != "marked":
        folder = os.path.dirname(path)
        stale = [n for n in os.listdir(folder) if n.startswith(".layouts-journal-")]
        if stale:  # killed after its last header: a head-only journal, removed by recover (or the next run)
            assert all(os.path.getsize(os.path.join(folder, n)) <= 12288 for n in stale)
            try:
                ly.recover(path)
            except ly.LayoutError as err:
                assert "nothing to recover" in str(err)
        return state
    outcome = ly.recover(path)
    after = state_of(path, x, name)
    assert outcome == after, (outcome, after)
    return after


@contextlib.contextmanager
def ctrl_c_handler():
    """Python's own Ctrl-C handler, whatever the runner started with (CI may ignore SIGINT)."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


@contextlib.contextmanager
def sigterm_exits():
    """A program's SIGTERM handler that raises SystemExit(1)."""
    def handler(signum, frame):
        sys.exit(1)
    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


class Fault:
    """At the ``nth`` time fault point ``where`` is reached (with ``phase`` if given), do
    ``action``: raise an exception instance, or send a signal number to this process."""

    def __init__(self, where: str, action, nth: int = 1, phase: str | None = None):
        self.where, self.action, self.nth, self.phase = where, action, nth, phase
        self.count = 0
        self.fired = False

    def __call__(self, name, **info):
        if name != self.where or (self.phase and info.get("phase", "forward") != self.phase):
            return
        self.count += 1
        if self.count != self.nth or self.fired:
            return
        self.fired = True
        if isinstance(self.action, int):
            os.kill(os.getpid(), self.action)
        else:
            raise self.action

    def installed(self):
        return injected(self)


CHILD = textwrap.dedent("""
    import os, random, signal, sys, threading, time
    import numpy as np
    import layouts as ly
    from layouts.inplace.faultpoints import injected
    path, src, dst, memory, plan = sys.argv[1:6]
    acts = [a.split(":") for a in plan.split(",") if a]   # where:nth:phase:action
    counts = {}
    def hook(name, **info):
        for i, (where, nth, phase, action) in enumerate(acts):
            if name == where and (phase == "-" or info.get("phase", "forward") == phase):
                counts[i] = counts.get(i, 0) + 1
                if counts[i] == int(nth):
                    if action == "kill":
                        os.kill(os.getpid(), signal.SIGKILL)
                    else:
                        os.kill(os.getpid(), getattr(signal, action))
    if os.environ.get("FAULT_HANDLER") == "exit":
        signal.signal(signal.SIGTERM, lambda *a: sys.exit(3))
    signal.signal(signal.SIGINT, signal.default_int_handler)
    delay = float(os.environ.get("FAULT_RANDOM_KILL", "0"))
    if delay:
        def later():
            time.sleep(delay)
            os.kill(os.getpid(), signal.SIGKILL)
        threading.Thread(target=later, daemon=True).start()
    print("ready", flush=True)
    with injected(hook):
        if dst.startswith("file:"):
            _, dpath, dspec = dst.split(":", 2)
            ly.convert_file(path, src, dpath, dspec, memory=int(memory), progress=False, fsync=False)
        else:
            ly.convert_file(path, src, path, dst, inplace=True, memory=int(memory), progress=False,
                            fsync=os.environ.get("FAULT_FSYNC") == "1")
    print("finished", flush=True)
""")


def run_child(path, src: str, dst: str, memory: int, plan: str, env: dict | None = None, timeout: float = 60):
    """Run a conversion in a child process with the faults of ``plan``; its return code."""
    full = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""), **(env or {}))
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path), src, dst, str(memory), plan],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=full, cwd=ROOT)
    try:
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        out, err = child.communicate()
        raise AssertionError(f"the child hung: {out} {err}")
    return child.returncode, out, err
