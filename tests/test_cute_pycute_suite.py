"""pycute's own unit tests (vendored in tests/pycute_suite, CUTLASS's BSD-3-Clause licence beside
them) run against layouts.cute with nothing changed but the module ``pycute`` names: every name
they use (Layout, size, coalesce, composition, complement, left_inverse, right_inverse,
inner_product, prefix_product, product, shape_div, Integer) is layouts.cute's, so a pycute user's
code ports by renaming the import (issue 60)."""

from __future__ import annotations

import importlib.util
import sys
import unittest
from pathlib import Path

import pytest

from layouts import cute

SUITE = Path(__file__).resolve().parent / "pycute_suite"
FILES = sorted(SUITE.glob("test_*.py"))


def _run(path: Path) -> unittest.TestResult:
    saved = sys.modules.get("pycute")
    sys.modules["pycute"] = cute                 # `from pycute import *` reads layouts.cute
    try:
        spec = importlib.util.spec_from_file_location(f"pycute_suite_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        suite = unittest.defaultTestLoader.loadTestsFromModule(module)
        result = unittest.TestResult()
        suite.run(result)
        result.tests = suite.countTestCases()     # type: ignore[attr-defined]
        return result
    finally:
        if saved is None:
            sys.modules.pop("pycute", None)
        else:
            sys.modules["pycute"] = saved


def test_the_vendored_suite_is_whole():
    assert [p.stem for p in FILES] == ["test_coalesce", "test_complement", "test_composition", "test_int_tuple",
                                       "test_left_inverse", "test_right_inverse", "test_typing"]
    assert (SUITE / "LICENSE.txt").read_text().count("BSD-3-Clause") >= 1


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_pycutes_own_tests_pass_on_layouts_cute(path):
    result = _run(path)
    problems = [f"{test}: {trace.splitlines()[-1]}" for test, trace in result.failures + result.errors]
    assert result.tests >= 1 and not problems, problems


def test_a_defect_fails_the_suite(monkeypatch):
    # the suite judges: a composition that drops B's stride fails pycute's test_composition
    real = cute.composition

    def wrong(a, b):
        out = real(a, b)
        return cute.Layout(out.shape) if isinstance(out, cute.Layout) and cute.size(out) > 1 else out
    monkeypatch.setattr(cute, "composition", wrong)
    result = _run(SUITE / "test_composition.py")
    assert result.failures or result.errors
