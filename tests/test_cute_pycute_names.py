"""CuTe as pycute users write it: the integer-tuple names pycute exports that CuTe defines, and a
layout evaluated at any non-negative index, each judged by pycute (the reference
implementation, NVIDIA CUTLASS's python/pycute) on seeded random inputs, and by values worked
by hand."""

from __future__ import annotations

import importlib.util
import random

import numpy as np
import pytest

from layouts import LayoutError, LayoutTypeError, cute
from oracle import PYCUTE_MISSING
from oracle_procs import require_oracle

# skipped without pycute; in CI's oracle stage (LAYOUTS_REQUIRE_ORACLES=1) a missing pycute fails
require_oracle(importlib.util.find_spec("pycute") is not None, PYCUTE_MISSING, module=True)
import pycute  # noqa: E402


def _shape(rng, depth=0):
    """A random IntTuple of sizes 1..6 (an int, or a tuple of 1-3 modes, nested up to twice)."""
    if depth >= 2 or rng.random() < 0.4:
        return rng.randint(1, 6)
    return tuple(_shape(rng, depth + 1) for _ in range(rng.randint(1, 3)))


def _like(rng, shape, lo=0, hi=9):
    """A random IntTuple congruent with ``shape``."""
    if isinstance(shape, tuple):
        return tuple(_like(rng, s, lo, hi) for s in shape)
    return rng.randint(lo, hi)


def _divisor_of(rng, n):
    return rng.choice([d for d in range(1, n + 1) if n % d == 0] + [n * rng.randint(1, 3)])


def test_the_names_are_there():
    for name in ("inner_product", "shape_div", "prefix_product", "elem_scale", "crd2crd", "signum", "tuple_max",
                 "shiftl", "shiftr", "Integer", "is_int", "is_tuple", "is_layout", "product"):
        assert name in cute.__all__ and callable(getattr(cute, name)) or isinstance(getattr(cute, name), type)


def test_inner_product_prefix_product_elem_scale_tuple_max_against_pycute():
    rng = random.Random(60)
    for _ in range(400):
        shape = _shape(rng)
        other = _like(rng, shape)
        assert cute.inner_product(shape, other) == pycute.inner_product(shape, other)
        assert cute.prefix_product(shape) == pycute.prefix_product(shape)
        init = rng.randint(1, 5)
        assert cute.prefix_product(shape, init) == pycute.prefix_product(shape, init)
        assert cute.tuple_max(shape) == pycute.tuple_max(shape)
        scale = _like(rng, shape, 1, 4)
        assert cute.elem_scale(shape, scale) == pycute.elem_scale(shape, scale)
    assert cute.inner_product((2, (3, 4)), (1, (10, 100))) == 2 + 30 + 400       # by hand


def test_shape_div_against_pycute_and_its_divisibility_rule():
    rng = random.Random(61)
    checked = 0
    for _ in range(600):
        a = _shape(rng)
        b = _divisor_of(rng, rng.randint(1, 12))
        try:
            want = pycute.shape_div(a, b)
        except AssertionError:           # pycute asserts CuTe's rule: neither divides the other
            with pytest.raises(LayoutError, match="divides the other"):
                cute.shape_div(a, b)
            continue
        assert cute.shape_div(a, b) == want, (a, b)
        checked += 1
        b_tuple = _like(rng, a, 1, 3) if isinstance(a, tuple) else b
        try:
            want = pycute.shape_div(a, b_tuple)
        except AssertionError:
            continue
        assert cute.shape_div(a, b_tuple) == want, (a, b_tuple)
    assert checked > 200
    assert cute.shape_div((6, 4, 8), 12) == (1, 2, 8) and cute.shape_div(4, 12) == 1 and cute.shape_div(0, 4) == 0
    with pytest.raises(LayoutError, match="2 modes"):
        cute.shape_div((4, 6), (2, 3, 1))


def test_crd2crd_signum_shifts_and_integer_against_pycute():
    rng = random.Random(62)
    for _ in range(300):
        shape = _shape(rng)
        n = cute.product(shape)
        i = rng.randrange(n)
        assert cute.crd2crd(i, shape) == pycute.crd2crd(i, shape)
        crd = pycute.idx2crd(i, shape)
        assert cute.crd2crd(crd, n, shape) == pycute.crd2crd(crd, n, shape)
        v, s = rng.randint(-50, 50), rng.choice([-4, -3, -2, -1, 1, 2, 3, 4])   # pycute recurses forever at s=0
        assert cute.signum(v) == pycute.signum(v)
        assert (cute.shiftl(abs(v), s), cute.shiftr(abs(v), s)) == (pycute.shiftl(abs(v), s), pycute.shiftr(abs(v), s))
    assert cute.shiftl(5, 0) == cute.shiftr(5, 0) == 5
    for value in (3, True, 3.0, "3", (3,)):
        assert isinstance(value, cute.Integer) == isinstance(value, pycute.Integer), value
    # numpy's integers are integers here, as everywhere in the package (pycute's Integer, which
    # asks for subclasses of int, says no to them)
    assert isinstance(np.int64(3), cute.Integer) and isinstance(np.uint8(3), cute.Integer)
    with pytest.raises(LayoutTypeError, match="shiftl: s must be an int"):
        cute.shiftl(3, 1.0)


def test_a_layout_is_a_function_on_every_non_negative_index():
    """``L(i)`` past the size, and a coordinate past its mode's size, as pycute evaluates them (and
    CuTe C++ and the CuTe DSL: tests/test_cute_dsl.py checks the same cases there)."""
    rng = random.Random(63)
    for _ in range(300):
        shape = _shape(rng)
        stride = _like(rng, shape, 0, 20)
        L, P = cute.Layout(shape, stride), pycute.Layout(shape, stride)
        for i in (0, cute.size(L) - 1, cute.size(L), 3 * cute.size(L) + rng.randrange(7), rng.randrange(1000)):
            assert L(i) == P(i), (shape, stride, i)
        if isinstance(shape, tuple):
            crd = _like(rng, shape, 0, 12)          # past each mode's size at times
            assert L(crd) == P(crd), (shape, stride, crd)
    assert cute.Layout(4, 1)(6) == 6 and cute.Layout(1, 0)(1) == 0          # the cases the DSL settles
    assert [cute.Layout((2, 3))(i) for i in (5, 6, 7)] == [5, 6, 7]          # colexicographic, then on


def test_offsets_are_every_index_at_once():
    L = cute.Layout((4, (8, 32)), (1, (4, 128)))
    assert L.offsets().tolist() == [L(i) for i in range(cute.size(L))]
