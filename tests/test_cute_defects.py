"""The classes of silent wrong answers issue 40 found in layouts.cute, each tested as a class: random
members of it against an exact oracle (Python ints, the defining property, pycute where installed)."""

from __future__ import annotations

import numpy as np
import pytest

import layouts as ly
from layouts import LayoutError, cute
from layouts.cute import Layout
from test_cute_algebra import flat, rand_injective, rand_shape, unflatten_like

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def _rank1_with_tuple_mode(rng):
    """A rank-1 layout whose one mode is a tuple: ((6, 2)):((4, 1)) and its kind."""
    inner = rand_injective(rng, depth=2, leaves=(1, 2, 3, 4))
    return Layout((inner.shape,), (inner.stride,))


# ------------------------------------------------------------------ 1. a product never drops elements
@pytest.mark.parametrize("product", [cute.blocked_product, cute.raked_product], ids=["blocked", "raked"])
def test_products_keep_every_element_or_refuse(product):
    rng = np.random.default_rng(40)
    made = 0
    for k in range(400):
        A = _rank1_with_tuple_mode(rng) if k % 2 else rand_injective(rng, depth=2, leaves=(1, 2, 3, 4))
        B = rand_injective(rng, depth=1, leaves=(1, 2, 3, 4)) if k % 3 else Layout(int(rng.choice([2, 3, 4, 8])))
        try:
            R = product(A, B)
        except LayoutError:
            continue
        made += 1
        assert cute.size(R) == cute.size(A) * cute.size(B), (A, B, R)
        # the same elements as logical_product, regrouped
        assert sorted(R.offsets().tolist()) == sorted(cute.logical_product(A, B).offsets().tolist()), (A, B, R)
    assert made > 300
    # the two: size 8 and 192, not 4 and 24
    assert cute.size(cute.blocked_product(Layout((2,), (2,)), Layout(4))) == 8
    assert cute.size(cute.raked_product(Layout(((6, 2),), ((4, 1),)), Layout(16))) == 192


# ------------------------------------------------------------------ 2. offsets exact, or refused
def _huge(rng):
    shape = rand_shape(rng, depth=2, leaves=(1, 2, 3, 4))
    strides = [int(rng.choice([1, -1])) * (int(rng.integers(0, 1 << 20)) << int(rng.integers(0, 66)))
               for _ in flat(shape)]
    return Layout(shape, unflatten_like(strides, shape))


def test_offsets_are_exact_or_a_layout_error():
    rng = np.random.default_rng(41)
    fits = refused = 0
    for _ in range(600):
        L = _huge(rng)
        exact = [L(i) for i in range(cute.size(L))]               # Python ints: no wrap-around
        if all(INT64_MIN <= v <= INT64_MAX for v in exact):
            assert L.offsets().tolist() == exact, L
            fits += 1
        else:
            with pytest.raises(LayoutError, match="do not fit int64"):
                L.offsets()
            refused += 1
    assert fits > 100 and refused > 100
    assert Layout(4, 2**62)(3) == 3 * 2**62
    with pytest.raises(LayoutError, match="int64"):                # the array path of convert too
        ly.convert(np.arange(4), Layout(4), Layout(4, 2**62))


# ------------------------------------------------------------------ 3. swizzle masks within int64
def test_swizzles_past_int64_are_refused_and_the_rest_exact():
    rng = np.random.default_rng(42)
    built = 0
    for _ in range(300):
        bits = int(rng.integers(1, 8))
        shift = int(rng.choice([1, -1])) * int(rng.integers(bits, bits + 6))
        base = int(rng.integers(40, 64))
        if bits + base + abs(shift) > 63:
            with pytest.raises(LayoutError, match="int64"):
                cute.Swizzle(bits, base, shift)
            continue
        sw = cute.Swizzle(bits, base, shift)
        L = Layout(16, 1 << int(rng.integers(0, 63 - 4)))
        C = cute.composition(sw, L)
        exact = [sw(L(i)) for i in range(16)]                       # Python ints
        if all(0 <= v <= INT64_MAX for v in exact):
            assert C.offsets().tolist() == exact
            built += 1
    assert built > 20


# ------------------------------------------------------------------ 4. left_inverse's domain
def test_left_inverse_of_an_all_zero_layout_is_one_element(request):
    rng = np.random.default_rng(43)
    try:
        import pycute
    except ImportError:
        pycute = None
    for _ in range(100):
        shape = rand_shape(rng, depth=2)
        L = Layout(shape, unflatten_like([0] * len(flat(shape)), shape))
        assert cute.left_inverse(L) == Layout(1, 0)                 # codomain {0}: domain cosize(L) == 1
        if pycute is not None:
            P = pycute.left_inverse(pycute.Layout(L.shape, L.stride))
            assert (pycute.size(P), P(0)) == (1, 0)


def test_left_inverse_with_zero_strides_still_inverts():
    rng = np.random.default_rng(44)
    for _ in range(300):
        A = rand_injective(rng, depth=2)
        shape = (A.shape, int(rng.choice([2, 3, 4])))
        L = Layout(shape, (A.stride, 0))                              # a broadcast mode
        R = cute.left_inverse(L)
        assert all(L(R(L(i))) == L(i) for i in range(cute.size(L)))


# ------------------------------------------------------------------ 5. any nesting: a LayoutError
def _deep(leaf, n=3000):
    x = leaf
    for _ in range(n):
        x = (x,)
    return x


DEEP_CALLS = {
    "Layout": lambda d: Layout(d),
    "Layout stride": lambda d: Layout((2,), d),
    "make_layout": lambda d: cute.make_layout(d, d),
    "make_shape": lambda d: cute.make_shape(d),
    "make_ordered_layout": lambda d: cute.make_ordered_layout(d, (0,)),
    "size": lambda d: cute.size(d),
    "crd2idx": lambda d: cute.crd2idx(d, (4, 4)),
    "idx2crd": lambda d: cute.idx2crd(1, d),
    "call": lambda d: Layout((4, 4))(d),
    "composition": lambda d: cute.composition(Layout(16), d),
    "coalesce": lambda d: cute.coalesce(Layout((4, 4)), d),
    "filter": lambda d: cute.filter(Layout((4, 4)), d),
    "logical_divide": lambda d: cute.logical_divide(Layout(16), d),
    "zipped_divide": lambda d: cute.zipped_divide(Layout(16), d),
    "tiled_divide": lambda d: cute.tiled_divide(Layout(16), d),
    "logical_product": lambda d: cute.logical_product(Layout(16), d),
    "zipped_product": lambda d: cute.zipped_product(Layout(16), d),
    "tiled_product": lambda d: cute.tiled_product(Layout(16), d),
    "blocked_product": lambda d: cute.blocked_product(Layout(16), d),
    "raked_product": lambda d: cute.raked_product(Layout(16), d),
}


@pytest.mark.parametrize("name", sorted(DEEP_CALLS))
def test_deep_nesting_is_a_layout_error_not_a_recursion_error(name):
    with pytest.raises(LayoutError, match="nests tuples more than"):
        DEEP_CALLS[name](_deep(2))
    DEEP_CALLS_OK = {"Layout": lambda: Layout(_deep(2, 20))}       # a merely deep one still works
    if name in DEEP_CALLS_OK:
        assert cute.size(DEEP_CALLS_OK[name]()) == 2


# ------------------------------------------------------------------ make_ordered_layout: size-1 modes
def test_make_ordered_layout_gives_size_one_modes_stride_zero_as_cxx_compact_col_major():
    """C++'s compact_order builds each mode with compact_col_major, which gives a (static) size-1
    mode stride 0; the other modes get the product of the sizes with a smaller order value."""
    rng = np.random.default_rng(401)
    for _ in range(300):
        n = int(rng.integers(1, 6))
        shape = tuple(int(rng.choice([1, 1, 2, 3, 4])) for _ in range(n))
        order = tuple(int(v) for v in rng.permutation(n))
        L = cute.make_ordered_layout(shape, order)
        expect = tuple(0 if shape[i] == 1 else int(np.prod([shape[j] for j in range(n) if order[j] < order[i]]))
                       for i in range(n))
        assert L.stride == expect, (shape, order, L)
        assert sorted(L.offsets().tolist()) == list(range(cute.size(L)))  # still compact and a bijection
    assert cute.make_ordered_layout((1, 2), (1, 0)).stride == (0, 1)


# ------------------------------------------------------------------ None (CuTe's _) in a zipped tiler
def _cxx_zip2_by(t, guide):
    """C++'s zip2_by (cute/algorithm/tuple_algorithms.hpp), transcribed: a leaf of the guide takes
    its mode as the (tile, rest) pair and needs exactly two sub-modes (else: does not compile)."""
    if isinstance(guide, tuple):
        split = [_cxx_zip2_by(t[i], g) for i, g in enumerate(guide)]
        return tuple(s[0] for s in split), tuple(s[1] for s in split) + tuple(t[len(guide):])
    if not (isinstance(t, tuple) and len(t) == 2):
        raise TypeError("zip2_by: Mismatched ranks")  # C++'s static_assert
    return t


def _guide_of(tiler):
    return tuple(_guide_of(t) for t in tiler) if isinstance(tiler, tuple) else 0


@pytest.mark.parametrize("op", ["zipped_divide", "tiled_divide", "flat_divide", "zipped_product"])
def test_none_in_a_zipped_tiler_is_cxx_tile_unzip_or_a_layout_error_naming_the_tiler(op):
    """C++'s zipped_divide / zipped_product are tile_unzip(logical_op(A, T), T): a None mode is left
    alone by the logical op, then zip2_by splits it as the pair (mode0, mode1) -- no 1:0 tile."""
    rng = np.random.default_rng(402)
    logical = cute.logical_divide if "divide" in op else cute.logical_product
    split = refused = 0
    for _ in range(800):
        A = rand_injective(rng, depth=2, leaves=(1, 2, 3, 4))
        if not isinstance(A.shape, tuple):
            continue
        T = tuple(None if rng.random() < 0.5 else Layout(int(rng.choice([1, 2]))) for _ in range(int(rng.integers(1, len(A) + 1))))
        if None not in T:
            continue
        try:
            L = logical(A, T)
        except LayoutError:
            continue
        try:
            shape, stride = _cxx_zip2_by(L.shape, _guide_of(T)), _cxx_zip2_by(L.stride, _guide_of(T))
        except TypeError:
            with pytest.raises(LayoutError, match=r"tiler \(.*None"):
                getattr(cute, op)(A, T)
            refused += 1
            continue
        Z = Layout(shape, stride)
        expect = {"tiled_divide": lambda: cute.make_layout(Z[0], *list(Z[1])),
                  "flat_divide": lambda: cute.make_layout(*list(Z[0]), *list(Z[1]))}.get(op, lambda: Z)()
        assert getattr(cute, op)(A, T) == expect, (op, A, T)
        split += 1
    assert split > 40 and refused > 40, (split, refused)
    # the DSL's own answer (tests/test_cute_dsl.py): the None mode (3,4):(1,6) split as 3 | 4
    A = Layout((2, (3, 4)), (3, (1, 6)))
    assert cute.zipped_divide(A, (Layout(3, 2), None)) == Layout(((3, 3), (2, 4)), ((6, 1), (3, 6)))
