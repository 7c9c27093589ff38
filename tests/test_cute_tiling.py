"""layouts.cute's divides, products and swizzles against pycute, tensor-layouts and their defining
properties (the generators and oracle fixtures are test_cute_algebra's)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from layouts import LayoutError, cute
from layouts.cute import Layout
from test_cute_algebra import (cases, pc, pycute, rand_any, rand_injective, same,  # noqa: F401 - fixtures
                               same_up_to_unit_modes, tl)


# ----------------------------------------------------------------------------- divides and products
def _divide_pairs(rng):
    A = rand_injective(rng, depth=2)
    n = cute.size(A)
    divisors = [d for d in range(1, n + 1) if n % d == 0]
    d = int(rng.choice(divisors))
    rest = n // d
    stride = int(rng.choice([s for s in range(1, rest + 1) if rest % s == 0]))
    return A, Layout(d, stride)


def test_logical_divide_matches_pycute(pycute, tl):
    for A, B in cases(_divide_pairs):
        try:
            R = cute.logical_divide(A, B)
        except LayoutError:
            continue
        try:
            P = pycute.logical_divide(pc(pycute, A), pc(pycute, B))
        except AssertionError:  # pycute's complement spans size(A), CuTe's the shape of coalesce(A)
            P = None
        assert P is None or same_up_to_unit_modes(R, P)
        assert cute.size(R) == cute.size(A)
        assert sorted(R.offsets().tolist()) == sorted(A.offsets().tolist())  # a permutation of A's elements
        assert R[0].offsets().tolist() == cute.composition(A, B).offsets().tolist()
        try:
            T = tl.logical_divide(tl.Layout(A.shape, A.stride), tl.Layout(B.shape, B.stride))
        except tl.LayoutError:  # tensor-layouts checks divisibility against size(A) only
            continue
        assert [T(i) for i in range(cute.size(A))] == R.offsets().tolist()


def _by_mode_tiler(rng, A):
    tiler = []
    for i in range(len(A)):
        n = cute.size(A[i])
        tiler.append(Layout(int(rng.choice([d for d in range(1, n + 1) if n % d == 0]))))
    return tuple(tiler)


def test_zipped_tiled_divide_match_pycute(pycute, tl):
    rng = np.random.default_rng(21)
    for _ in range(150):
        A = rand_injective(rng, depth=2)
        if not isinstance(A.shape, tuple):
            continue
        tiler = _by_mode_tiler(rng, A)
        ptiler = tuple(pc(pycute, t) for t in tiler)
        try:
            cute.logical_divide(A, tiler)
        except LayoutError:  # a divisibility condition fails: pycute refuses it too
            with pytest.raises(AssertionError):
                pycute.logical_divide(pc(pycute, A), ptiler)
            continue
        for ours, theirs in ((cute.logical_divide, pycute.logical_divide), (cute.zipped_divide, pycute.zipped_divide),
                             (cute.tiled_divide, pycute.tiled_divide)):
            R = ours(A, tiler)
            assert same_up_to_unit_modes(R, theirs(pc(pycute, A), ptiler)), (ours.__name__, A, tiler)
            assert sorted(R.offsets().tolist()) == sorted(A.offsets().tolist())
        ttiler = tuple(tl.Layout(t.shape, t.stride) for t in tiler)
        T = tl.zipped_divide(tl.Layout(A.shape, A.stride), ttiler)
        assert [T(i) for i in range(cute.size(A))] == cute.zipped_divide(A, tiler).offsets().tolist()
    # an int tiler is n:1
    assert cute.zipped_divide(Layout((8, 8)), (4, 2)) == cute.zipped_divide(Layout((8, 8)), (Layout(4), Layout(2)))


def test_products_match_pycute(pycute, tl):
    rng = np.random.default_rng(31)
    for _ in range(150):
        A = rand_injective(rng, depth=2, leaves=(1, 2, 3, 4))
        B = rand_injective(rng, depth=2, leaves=(1, 2, 3))
        R = cute.logical_product(A, B)
        assert same(R, pycute.logical_product(pc(pycute, A), pc(pycute, B)))
        assert R[0] == A and cute.size(R) == cute.size(A) * cute.size(B)
        offs = R.offsets()
        assert np.unique(offs).size == offs.size  # unique replications of A
        T = tl.logical_product(tl.Layout(A.shape, A.stride), tl.Layout(B.shape, B.stride))
        assert [T(i) for i in range(cute.size(R))] == offs.tolist()
        if isinstance(A.shape, tuple) and isinstance(B.shape, tuple) and len(B) <= len(A):
            tiler = tuple(B[i] for i in range(len(B)))
            ptiler = tuple(pc(pycute, t) for t in tiler)
            try:
                cute.zipped_product(A, tiler)
            except LayoutError:  # a mode of A is not compact enough for its repeat: no layout
                continue
            for ours, theirs in ((cute.zipped_product, pycute.zipped_product),
                                 (cute.tiled_product, pycute.tiled_product)):
                assert same_up_to_unit_modes(ours(A, tiler), theirs(pc(pycute, A), ptiler))


def test_blocked_and_raked_products(tl):
    rng = np.random.default_rng(41)
    for _ in range(150):
        A = rand_injective(rng, depth=2, leaves=(1, 2, 3, 4))
        B = rand_injective(rng, depth=2, leaves=(1, 2, 3))
        for ours, theirs in ((cute.blocked_product, tl.blocked_product), (cute.raked_product, tl.raked_product)):
            R = ours(A, B)
            assert cute.rank(R) == max(cute.rank(A), cute.rank(B))
            assert cute.size(R) == cute.size(A) * cute.size(B)
            T = theirs(tl.Layout(A.shape, A.stride), tl.Layout(B.shape, B.stride))
            assert [T(i) for i in range(cute.size(R))] == R.offsets().tolist()
            # same elements as logical_product, regrouped by mode
            assert sorted(R.offsets().tolist()) == sorted(cute.logical_product(A, B).offsets().tolist())


def test_blocked_product_is_tiles_of_blocks():
    # a 2x3 grid (column-major) of 4x4 row-major tiles: element (r, c) of the 8x12 result
    R = cute.blocked_product(Layout((4, 4), (4, 1)), Layout((2, 3)))
    for r, c in itertools.product(range(8), range(12)):
        tile = (r // 4) + 2 * (c // 4)
        assert R(r, c) == tile * 16 + (r % 4) * 4 + (c % 4)


# ----------------------------------------------------------------------------- swizzles
def test_swizzle_matches_pycute(pycute, tl):
    for b, m, s in [(1, 0, 1), (2, 0, 2), (3, 3, 3), (2, 4, 3), (3, 4, -3), (0, 2, 0), (2, 1, -4)]:
        ours, t = cute.Swizzle(b, m, s), tl.Swizzle(b, m, s)
        assert [ours(i) for i in range(2048)] == [t(i) for i in range(2048)]
        if s != 0:  # pycute's shift helpers recurse forever on a 0 shift
            assert [ours(i) for i in range(2048)] == [pycute.Swizzle(b, m, s)(i) for i in range(2048)]
        arr = np.arange(2048, dtype=np.int64)
        assert ours(arr).tolist() == [ours(i) for i in range(2048)]
        # a bijection on each period
        assert sorted(ours(i) for i in range(ours.size())) == list(range(ours.size()))


def test_composed_layout():
    sw = cute.Swizzle(3, 3, 3)
    base = Layout((8, 64), (64, 1))
    S = cute.composition(sw, base)
    assert isinstance(S, cute.ComposedLayout)
    assert S.shape == base.shape and cute.size(S) == 512
    assert S.offsets().tolist() == [sw(base(i)) for i in range(512)]
    assert S(3, 9) == sw(base(3, 9))
    assert sorted(S.offsets().tolist()) == list(range(512))
    assert cute.cosize(S) == 512
    # cosize: exact, with or without the shortcut for compact inner layouts
    rng = np.random.default_rng(8)
    for _ in range(60):
        inner = rand_injective(rng, depth=2) if rng.random() < 0.6 else rand_any(rng, depth=2)
        b = int(rng.integers(0, 4))
        C = cute.ComposedLayout(cute.Swizzle(b, int(rng.integers(0, 3)), int(rng.choice([-1, 1])) * max(b, 1)),
                                int(rng.choice([0, 8, 5])), inner)
        assert cute.cosize(C) == int(C.offsets().max()) + 1
    # (Sw o A) o B == Sw o (A o B)
    T = cute.composition(S, Layout((8, 8), (64, 1)))
    assert T.offsets().tolist() == [sw(base(64 * (i % 8) + (i // 8))) for i in range(64)]


def test_queries_of_swizzled_layouts():
    S = cute.composition(cute.Swizzle(2, 0, 2), Layout((4, (2, 2))))
    assert cute.rank(S) == 2 and cute.depth(S) == 2 and cute.size(S) == 16
    assert cute.rank((2, 3)) == 2 and cute.depth(5) == 0
