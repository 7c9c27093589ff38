"""Shared harness for the hostile-input catalogue (tests/test_hostile_*.py).

A *case* is a call that must be refused: it names the exception type expected, a key word of
the message, and the arrays that must come out of the failing call bit-identical.

    check_refused(lambda: ly.Layout("NCHW", N=-1, C=1, H=1, W=1), LayoutError, "N")

Calls whose work could explode (factorial inference, giant allocations) run in a child process
with a wall-clock timeout and an address-space limit (:func:`run_bounded`), so a regression shows
as a failed test instead of a hung or swapping CI machine.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import textwrap
from typing import Any, Callable, Iterable

import numpy as np

#: Exceptions a public entry may raise on bad input (LayoutError is a ValueError).
ALLOWED = (ValueError, TypeError)


def snapshot(arrays: Iterable[Any]) -> list[tuple[Any, bytes | None]]:
    """Bytes, dtype, shape and strides of each numpy array (others are kept by identity)."""
    out = []
    for a in arrays:
        if isinstance(a, np.ndarray):
            out.append((a, (a.dtype.str, a.shape, a.strides, a.tobytes())))
        else:
            out.append((a, None))
    return out


def assert_unchanged(snap: list[tuple[Any, bytes | None]]) -> None:
    for a, before in snap:
        if before is not None:
            after = (a.dtype.str, a.shape, a.strides, a.tobytes())
            assert after == before, "a failing call modified one of its array arguments"


def check_refused(call: Callable[[], Any], exc: type | tuple = ALLOWED, word: str | Iterable[str] = (),
                  keep: Iterable[Any] = ()) -> BaseException:
    """Run ``call``; it must raise ``exc`` whose message contains ``word`` (case-insensitive;
    every word of a list), and leave each array of ``keep`` bit-identical. Returns the error."""
    snap = snapshot(keep)
    try:
        call()
    except BaseException as err:  # noqa: BLE001 - checked right below
        if not isinstance(err, exc):
            raise AssertionError(f"expected {exc}, got {type(err).__name__}: {err}") from err
        message = str(err).lower()
        for w in ([word] if isinstance(word, str) else list(word)):
            assert w.lower() in message, f"{w!r} not in the message: {err}"
        assert_unchanged(snap)
        return err
    raise AssertionError(f"expected {exc} to be raised, the call returned normally")


def run_bounded(code: str, timeout: float = 20.0, memory_mb: int = 3072) -> subprocess.CompletedProcess:
    """Run ``code`` (Python source, dedented) in a child process limited to ``timeout`` seconds of
    wall time and ``memory_mb`` of address space; raises AssertionError when it exceeds either.

    The child imports this checkout's ``layouts`` and the tests' helpers (``oracle``, through ``PYTHONPATH``) and runs in a fresh
    temporary folder, so whatever hostile file names it writes never land in the checkout.
    Its stdout is returned; a non-zero exit is a failure with the child's stderr quoted.
    """
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    limit = memory_mb * 2**20

    def _limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    path = os.pathsep.join([root, os.path.join(root, "tests"), os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, PYTHONPATH=path)
    try:
        with tempfile.TemporaryDirectory(prefix="layouts-hostile-") as cwd:
            proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=env,
                                  capture_output=True, text=True, timeout=timeout, preexec_fn=_limit)
    except subprocess.TimeoutExpired as err:
        raise AssertionError(f"the call took more than {timeout} s:\n{textwrap.dedent(code)}") from err
    assert proc.returncode == 0, f"child failed (rc={proc.returncode}):\n{proc.stderr[-3000:]}"
    return proc


def require(module: str):
    """``module`` imported; where an optional extra is missing the calling test module is skipped,
    except under CI, whose test extra installs every one of them: there a missing module fails."""
    import importlib

    import pytest

    if os.environ.get("CI"):
        return importlib.import_module(module)
    return pytest.importorskip(module)
