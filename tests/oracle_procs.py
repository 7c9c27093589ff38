"""The big-wheel oracles (the triton wheel, the CuTe DSL): is one installed, and what a test does
when it is not.

Outside CI's "oracles" stage a test that needs one skips, with the command that installs it. In
that stage ``LAYOUTS_REQUIRE_ORACLES=1`` is set and the same call fails the test instead, so a
stage that was meant to check against the oracle cannot pass by skipping. Only the check for the
package runs here: the oracles themselves run in child processes (their native code may abort).

    from oracle_procs import TRITON_MISSING, have_triton, require_oracle

    def test_against_triton():
        require_oracle(have_triton(), TRITON_MISSING)
        ...

or, for a whole module, ``require_oracle(have_triton(), TRITON_MISSING, module=True)`` at its top
(before importing anything from the wheel).
"""

from __future__ import annotations

import importlib.util
import os
from importlib import metadata

import pytest

TRITON_VERSION = "3.9.0"
DSL_VERSION = "4.8.1"
TRITON_MISSING = f"the Triton oracle needs the wheel: pip install triton=={TRITON_VERSION}"
DSL_MISSING = (f"the CuTe DSL (the second CuTe oracle) is not installed: pip install nvidia-cutlass-dsl=={DSL_VERSION} "
               "(it evaluates the layout algebra on a CPU; no GPU needed)")

#: the variable CI's oracles stage sets: a missing oracle fails instead of skipping
REQUIRE_VARIABLE = "LAYOUTS_REQUIRE_ORACLES"


def have_triton() -> bool:
    """True when the triton wheel is importable (found, not imported: importing it loads its C++)."""
    return importlib.util.find_spec("triton") is not None


def have_dsl() -> bool:
    """True when ``nvidia-cutlass-dsl`` is installed (by its distribution: ``cutlass`` alone may be
    another CUTLASS package)."""
    try:
        metadata.version("nvidia-cutlass-dsl")
    except metadata.PackageNotFoundError:
        return False
    return True


def oracles_required() -> bool:
    return os.environ.get(REQUIRE_VARIABLE) == "1"


def require_oracle(installed: bool, missing: str, *, module: bool = False) -> None:
    """Skip the test (or the module) when the oracle is not ``installed``, with ``missing`` as the
    reason; fail instead when ``LAYOUTS_REQUIRE_ORACLES=1``."""
    if installed:
        return
    if oracles_required():
        pytest.fail(f"{REQUIRE_VARIABLE}=1 but {missing}", pytrace=False)
    pytest.skip(missing, allow_module_level=module)


def answer_in_dsl(cases: list, answer) -> None:  # pragma: no cover - runs in a child
    """A CuTe DSL child's whole work: ``answer(case)`` for every case inside ONE traced
    ``@cute.jit`` (the DSL builds its layouts only while tracing), a refusal recorded as
    ``{"error": "Type: last line"}`` (it refuses with MLIRError, ValueError, TypeError...), the
    answers printed as JSON on stdout."""
    import json
    import sys

    import cutlass.cute as cute

    out: list = []

    def body():  # a plain function: the DSL rewrites the loops of the jit function itself only
        for case in cases:
            try:
                out.append(answer(case))
            except Exception as e:  # noqa: BLE001 - any refusal is an answer
                lines = str(e).strip().splitlines()
                out.append({"error": f"{type(e).__name__}: {lines[-1] if lines else ''}"[:300]})

    @cute.jit
    def trace():
        body()

    trace()
    json.dump(out, sys.stdout)
