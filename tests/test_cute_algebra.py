"""layouts.cute against CuTe's documented examples, its defining properties, and two independent
implementations: pycute (CUTLASS's wheel) and tensor-layouts, over random hierarchical layouts."""

from __future__ import annotations

import importlib
import importlib.util

import numpy as np
import pytest

from oracle import PYCUTE_MISSING
from oracle_procs import require_oracle

from layouts import LayoutError, LayoutTypeError
from layouts import cute
from layouts.cute import Layout
from layouts.cute.int_tuple import offset_of

SEEDS = range(6)
N_PER_SEED = 30


# ----------------------------------------------------------------------------- generators
MAX_SIZE = 2048


def rand_shape(rng, depth=3, leaves=(1, 2, 3, 4, 6, 8)):
    """A random hierarchical shape of at most MAX_SIZE elements."""
    while True:
        shape = _rand_shape(rng, depth, leaves)
        if cute.size(shape) <= MAX_SIZE:
            return shape


def _rand_shape(rng, depth, leaves):
    if depth == 0 or rng.random() < 0.4:
        return int(rng.choice(leaves))
    return tuple(_rand_shape(rng, depth - 1, leaves) for _ in range(int(rng.integers(1, 4))))


def unflatten_like(flat, shape):
    it = iter(flat)

    def walk(s):
        if isinstance(s, tuple):
            return tuple(walk(e) for e in s)
        return next(it)
    return walk(shape)


def flat(t):
    return cute.flatten(t) if isinstance(t, tuple) else (t,)


def rand_injective(rng, depth=3, leaves=(1, 2, 3, 4, 6, 8)):
    """A compact layout with its flat modes stored in a random order (injective, non-negative)."""
    shape = rand_shape(rng, depth, leaves)
    sizes = flat(shape)
    order = rng.permutation(len(sizes))
    strides = [0] * len(sizes)
    cur = 1
    for k in order:
        strides[k] = cur
        cur *= sizes[k]
    return Layout(shape, unflatten_like(strides, shape))


def rand_any(rng, depth=3, negative=False):
    shape = rand_shape(rng, depth)
    lo = -9 if negative else 0
    strides = [int(v) for v in rng.integers(lo, 30, size=len(flat(shape)))]
    return Layout(shape, unflatten_like(strides, shape))


def cases(make, n=N_PER_SEED):
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        for _ in range(n):
            yield make(rng)


def ext(layout, i):
    """A layout evaluated at any index, also past its size (the last mode extends, as in CuTe)."""
    return offset_of(i, layout.shape, layout.stride)


# ----------------------------------------------------------------------------- oracles
@pytest.fixture(scope="module")
def pycute():
    """pycute: skipped without it, failed without it in CI's oracle stage (LAYOUTS_REQUIRE_ORACLES=1)."""
    require_oracle(importlib.util.find_spec("pycute") is not None, PYCUTE_MISSING)
    return importlib.import_module("pycute")


@pytest.fixture(scope="module")
def tl():
    return pytest.importorskip("tensor_layouts")


def pc(pycute, L):
    return pycute.Layout(L.shape, L.stride)


def same(ours, theirs):
    return ours.shape == theirs.shape and ours.stride == theirs.stride


def same_up_to_unit_modes(ours, theirs):
    """Equal shapes, equal strides wherever the mode has more than one element (CuTe's coalesce_x
    keeps a stride pycute's coalesce sets to 0 on size-1 modes; the function is the same)."""
    if ours.shape != theirs.shape:
        return False
    return all(d1 == d2 for s, d1, d2 in zip(flat(ours.shape), flat(ours.stride), flat(theirs.stride)) if s != 1)


def unwrap1(t):
    """tensor-layouts keeps 1-tuples; so do we; compare shapes as given."""
    return t


# ----------------------------------------------------------------------------- CuTe's documented examples
def test_documented_coordinates():
    shape, stride = (3, (2, 3)), (3, (12, 1))
    assert cute.idx2crd(16, shape) == (1, (1, 2))
    assert cute.idx2crd((1, 5), shape) == (1, (1, 2))
    assert cute.idx2crd((1, (1, 2)), shape) == (1, (1, 2))
    assert cute.crd2idx(16, shape, stride) == 17
    assert cute.crd2idx((1, 5), shape, stride) == 17
    assert cute.crd2idx((1, (1, 2)), shape, stride) == 17
    L = Layout(shape, stride)
    # the table of 01_layout.md: rows i, columns (j,k) as a 1-D column coordinate
    table = [[0, 12, 1, 13, 2, 14], [3, 15, 4, 16, 5, 17], [6, 18, 7, 19, 8, 20]]
    assert [[L(i, j) for j in range(6)] for i in range(3)] == table


def test_documented_algebra():
    s = str
    assert s(cute.coalesce(Layout((2, (1, 6)), (1, (6, 2))), (1, 1))) == "(2,6):(1,2)"
    assert s(cute.composition(Layout((6, 2), (8, 2)), Layout((4, 3), (3, 1)))) == "((2,2),3):((24,2),8)"
    assert s(cute.composition(Layout(20, 2), Layout((5, 4), (4, 1)))) == "(5,4):(8,2)"
    assert s(cute.composition(Layout((10, 2), (16, 4)), Layout((5, 4), (1, 5)))) == "(5,(2,2)):(16,(80,4))"  # the document's final, by-mode coalesced form
    assert s(cute.complement(Layout(4, 1), 24)) == "6:4"
    assert s(cute.complement(Layout(6, 4), 24)) == "4:1"
    assert s(cute.complement(Layout((4, 6), (1, 4)), 24)) == "1:0"
    assert s(cute.complement(Layout(4, 2), 24)) == "(2,3):(1,8)"
    assert s(cute.complement(Layout((2, 4), (1, 6)), 24)) == "3:2"
    assert s(cute.complement(Layout((2, 2), (1, 6)), 24)) == "(3,2):(2,12)"
    assert s(cute.logical_divide(Layout((4, 2, 3), (2, 1, 8)), Layout(4, 2))) == "((2,2),(2,3)):((4,1),(2,8))"
    A = Layout((9, (4, 8)), (59, (13, 1)))
    tiler = (Layout(3, 3), Layout((2, 4), (1, 8)))
    ld = cute.logical_divide(A, tiler)
    assert ld.shape == ((3, 3), ((2, 4), (2, 2)))
    zd = cute.zipped_divide(A, tiler)
    assert s(zd[0]) == "(3,(2,4)):(177,(13,2))"
    assert cute.size(zd[0]) == 24 and cute.size(zd[1]) == 12
    assert zd[0] == cute.composition(A, tiler)  # layout<0>(zipped_divide(a, b)) == composition(a, b)
    assert s(cute.logical_product(Layout((2, 2), (4, 1)), Layout(6, 1))) == "((2,2),(2,3)):((4,1),(2,8))"
    assert s(cute.blocked_product(Layout((2, 5), (5, 1)), Layout((3, 4), (1, 3)))) == "((2,3),(5,4)):((5,10),(1,30))"
    assert s(cute.raked_product(Layout((2, 5), (5, 1)), Layout((3, 4), (1, 3)))) == "((3,2),(4,5)):((10,5),(30,1))"


def test_compact_stride_and_printing():
    assert Layout((2, 4)).stride == (1, 2)
    assert Layout((2, 1, (3, 1))).stride == (1, 2, (2, 6))
    assert Layout((1, (1, 4))).stride == (0, (0, 1))  # leading size-1 modes: stride 0 (CuTe's static form)
    assert str(Layout((2, (2, 2)), (4, (1, 2)))) == "(2,(2,2)):(4,(1,2))"
    assert cute.rank(Layout((2, (3, 4)))) == 2 and cute.depth(Layout((2, (3, 4)))) == 2
    assert cute.size(Layout((2, (3, 4)))) == 24
    assert cute.cosize(Layout((2, 3), (3, 1))) == 6


def test_where_cute_differs_from_pycute(pycute):
    # right_inverse: pycute stops at the first stride it cannot use; CuTe skips it
    L = Layout((4, 2), (0, 1))
    assert str(cute.right_inverse(L)) == "2:4"
    assert str(pycute.right_inverse(pc(pycute, L))) != "2:4"
    # idx2crd of a tuple index: per mode in CuTe
    assert cute.idx2crd((1, 5), (3, (2, 3))) == (1, (1, 2))
    assert pycute.idx2crd((1, 5), (3, (2, 3))) != (1, (1, 2))
    # logical_product with an int: a product (pycute divides)
    assert str(cute.logical_product(Layout(4), 3)) == "(4,3):(1,4)"
    # composition with a tuple tiler drops the modes the tiler does not reach (CuTe's transform_layout)
    assert str(cute.composition(Layout((4, 6, 2)), (2, 3))) == "(2,3):(1,4)"


# ----------------------------------------------------------------------------- evaluation
def test_default_stride_matches_both_references(pycute, tl):
    for shape in cases(rand_shape):
        ours = Layout(shape).stride
        p, t = pycute.Layout(shape).stride, tl.Layout(shape).stride
        assert ours == t  # tensor-layouts: CuTe's static 0 on the leading size-1 modes
        assert all(a == b or (s == 1 and a == 0) for s, a, b in zip(flat(shape), flat(ours), flat(p)))  # pycute
        assert Layout(shape).offsets().tolist() == list(range(cute.size(shape)))


def test_call_and_offsets_match_pycute(pycute):
    for L in cases(lambda r: rand_any(r, negative=True)):
        P = pc(pycute, L)
        offs = L.offsets()
        assert offs.dtype == np.int64 and offs.size == cute.size(L)
        assert offs.tolist() == [P(i) for i in range(cute.size(L))]
        assert [L(i) for i in range(cute.size(L))] == offs.tolist()
        assert cute.cosize(L) == P.cosize()


def test_coordinates_congruent_at_any_level(pycute):
    rng = np.random.default_rng(11)
    for _ in range(200):
        L = rand_any(rng)
        i = int(rng.integers(0, cute.size(L)))
        natural = cute.idx2crd(i, L.shape)
        assert cute.crd2idx(natural, L.shape) == i
        assert L(natural) == L(i) == pycute.crd2idx(natural, L.shape, L.stride)
        if isinstance(L.shape, tuple):  # one level of tuple, ints inside
            top = tuple(cute.crd2idx(c, s) for c, s in zip(natural, L.shape))
            assert L(*top) == L(i)
            assert cute.idx2crd(top, L.shape) == natural  # CuTe: a tuple index splits per mode


def test_idx2crd_matches_oracles(pycute, tl):
    rng = np.random.default_rng(3)
    for _ in range(200):
        shape = rand_shape(rng)
        i = int(rng.integers(0, cute.size(shape)))
        assert cute.idx2crd(i, shape) == pycute.idx2crd(i, shape) == tl.idx2crd(i, shape)
        assert cute.crd2idx(cute.idx2crd(i, shape), shape) == i


def test_bad_input_is_a_layout_error():
    with pytest.raises(LayoutError, match="not congruent"):
        Layout((2, 3), (1,))
    with pytest.raises(LayoutError, match=">= 0"):
        Layout((2, -3))
    with pytest.raises(LayoutTypeError, match="integers"):
        Layout((2, 3.0))
    with pytest.raises(LayoutTypeError):
        Layout((2, True))
    # past the size a layout goes on along its last mode (CuTe C++, pycute and the DSL alike):
    # (2,3):(1,2) at index 6 is coordinate (0, 3), at offset 0*1 + 3*2
    assert Layout((2, 3))(6) == 6 and Layout((2, 3))(0, 3) == 6
    with pytest.raises(LayoutError, match="negative"):
        Layout((2, 3))(-1)
    with pytest.raises(LayoutError, match="negative"):
        Layout((2, 3))(0, -1)
    with pytest.raises(LayoutError, match="modes"):
        Layout((2, 3))(0, 1, 2)
    with pytest.raises(LayoutError, match="divisibility"):
        cute.composition(Layout((6, 2), (1, 10)), Layout(4, 4))
    with pytest.raises(LayoutError, match="divisibility"):
        cute.composition(Layout((4, 6), (1, 5)), Layout(3, 2))
    with pytest.raises(LayoutError, match="carry"):
        cute.composition(Layout((6, 2), (1, 10)), Layout((4, 2), (1, 3)))
    with pytest.raises(LayoutError, match="more than layout"):
        cute.logical_divide(Layout(8), (2, 2))
    with pytest.raises(LayoutError, match="injective"):
        cute.complement(Layout((2, 2), (1, 1)))
    with pytest.raises(LayoutError, match="shift"):
        cute.Swizzle(3, 0, 2)
    with pytest.raises(LayoutTypeError):
        cute.composition("NCHW", Layout(4))
    assert cute.crd2idx((0, 3), (2, 3)) == 6           # as CuTe's crd2idx: no bound, 0*1 + 3*2
    with pytest.raises(LayoutError, match="negative"):
        cute.crd2idx((0, -3), (2, 3))


# ----------------------------------------------------------------------------- coalesce / filter / flatten
def test_coalesce_filter_flatten(pycute, tl):
    for L in cases(rand_any):
        C = cute.coalesce(L)
        assert same(C, pycute.coalesce(pc(pycute, L)))
        assert cute.depth(C) <= 1 and cute.size(C) == cute.size(L)
        assert C.offsets().tolist() == L.offsets().tolist()  # coalesce(L)(i) == L(i) for all i
        F = cute.filter(L)
        assert same(F, pycute.filter(pc(pycute, L)))
        assert sorted(set(F.offsets().tolist())) == sorted(set(L.offsets().tolist()))
        flatL = cute.flatten(L)
        assert cute.depth(flatL) <= 1 and flatL.offsets().tolist() == L.offsets().tolist()
        T = tl.coalesce(tl.Layout(L.shape, L.stride))
        assert (T.shape, T.stride) == (C.shape, C.stride)


def test_coalesce_by_profile(pycute):
    for L in cases(rand_any):
        if not isinstance(L.shape, tuple):
            continue
        profile = (1,) * len(L)
        C = cute.coalesce(L, profile)
        assert same(C, pycute.coalesce(pc(pycute, L), profile))
        assert C.offsets().tolist() == L.offsets().tolist()


# ----------------------------------------------------------------------------- composition
def _compose_pairs(rng):
    A = rand_injective(rng)
    # B: an injective layout into A's domain, strides and sizes from A's divisors
    B = rand_injective(rng, depth=2, leaves=(1, 2, 4))
    if cute.cosize(B) > cute.size(A):
        B = Layout(cute.size(A) if rng.random() < 0.5 else 1)
    return A, B


def test_composition_matches_pycute_and_composes(pycute, tl):
    agreed = 0
    for A, B in cases(_compose_pairs):
        try:
            R = cute.composition(A, B)
        except LayoutError:  # refused: pycute asserts too, or its answer is not A o B
            try:
                P = pycute.composition(pc(pycute, A), pc(pycute, B))
            except AssertionError:
                continue
            n = cute.size(B)
            assert cute.size(P.shape) != n or [P(i) for i in range(n)] != [ext(A, B(i)) for i in range(n)]
            continue
        assert [R(i) for i in range(cute.size(R))] == [ext(A, B(i)) for i in range(cute.size(B))]
        assert cute.size(R) == cute.size(B)
        try:
            P = pycute.composition(pc(pycute, A), pc(pycute, B))
        except AssertionError:
            continue
        assert same_up_to_unit_modes(R, P), (A, B, R, P)
        T = tl.compose(tl.Layout(A.shape, A.stride), tl.Layout(B.shape, B.stride))
        assert [T(i) for i in range(cute.size(B))] == R.offsets().tolist()
        agreed += 1
    assert agreed > 100


def test_composition_by_mode_tiler(pycute):
    rng = np.random.default_rng(5)
    for _ in range(100):
        A = rand_injective(rng, depth=2)
        if not isinstance(A.shape, tuple):
            continue
        tiler = tuple(Layout(int(cute.size(A[i])) // (2 if cute.size(A[i]) % 2 == 0 else 1), 1) for i in range(len(A)))
        try:
            R = cute.composition(A, tiler)
        except LayoutError:  # refused: pycute refuses too, or answers something that is not A o B
            try:
                P = pycute.composition(pc(pycute, A), tuple(pc(pycute, t) for t in tiler))
            except AssertionError:
                continue
            assert any(cute.size(P[i].shape) != cute.size(t) or
                       [P[i](j) for j in range(cute.size(t))] != [ext(A[i], t(j)) for j in range(cute.size(t))]
                       for i, t in enumerate(tiler))
            continue
        P = pycute.composition(pc(pycute, A), tuple(pc(pycute, t) for t in tiler))
        assert same_up_to_unit_modes(R, P)
        for i, t in enumerate(tiler):
            assert R[i].offsets().tolist() == [A[i](t(j)) for j in range(cute.size(t))]


def test_composition_weak_condition_never_gives_a_wrong_offset():
    # CuTe's weak stride condition accepts (6,2):(1,10) o 4:4 and would answer 10 for index 2 (A(8) = 12)
    A = Layout((6, 2), (1, 10))
    assert cute.composition(A, Layout(2, 4)).offsets().tolist() == [A(0), A(4)]
    assert cute.composition(A, Layout(2, 5)).offsets().tolist() == [A(0), A(5)]
    with pytest.raises(LayoutError):
        cute.composition(A, Layout(4, 4))


# ----------------------------------------------------------------------------- complement
def test_complement_matches_pycute_and_is_disjoint(pycute, tl):
    for A in cases(rand_injective):
        for m in (cute.cosize(A), 2 * cute.cosize(A), 3 * cute.cosize(A) + 1):
            C = cute.complement(A, m)
            assert same(C, pycute.complement(pc(pycute, A), m)), (A, m)
            T = tl.complement(tl.Layout(A.shape, A.stride), m)
            assert (T.shape, T.stride) == (C.shape, C.stride)
            image = set(A.offsets().tolist())
            co = C.offsets().tolist()
            assert co == sorted(co)  # ordered
            assert all(c not in image for c in co[1:])  # disjoint except at 0
            # A and its complement together: a bijection onto [0, size) when A is compact
            both = cute.make_layout(A, C).offsets()
            assert np.unique(both).size == both.size
            assert cute.size(C) * cute.size(A) >= m
        assert cute.complement(A) == cute.complement(A, cute.cosize(cute.filter(A)))


def test_complement_of_compact_fills_the_codomain():
    rng = np.random.default_rng(9)
    for _ in range(100):
        A = rand_injective(rng)
        m = cute.size(A) * int(rng.integers(1, 4))
        both = cute.make_layout(A, cute.complement(A, m)).offsets()
        assert sorted(both.tolist()) == list(range(m))


# ----------------------------------------------------------------------------- inverses
def test_right_inverse(pycute, tl):
    for L in cases(lambda r: rand_any(r) if r.random() < 0.5 else rand_injective(r)):
        R = cute.right_inverse(L)
        assert [L(R(i)) for i in range(cute.size(R))] == list(range(cute.size(R)))
        T = tl.right_inverse(tl.Layout(L.shape, L.stride))
        assert (T.shape, T.stride) == (R.shape, R.stride)
        if all(d != 0 for d in flat(L.stride)) and 0 not in flat(L.shape):
            P = pycute.right_inverse(pc(pycute, L))
            if cute.size(P) == cute.size(R):  # pycute agrees whenever it does not stop early
                assert same(R, P)


def test_right_inverse_of_compact_is_full():
    for L in cases(rand_injective):
        R = cute.right_inverse(L)
        assert cute.size(R) == cute.size(L)
        assert sorted(R.offsets().tolist()) == list(range(cute.size(L)))


def test_left_inverse(pycute, tl):
    for L in cases(rand_injective):
        R = cute.left_inverse(L)
        assert [R(L(i)) for i in range(cute.size(L))] == list(range(cute.size(L)))
        T = tl.left_inverse(tl.Layout(L.shape, L.stride))
        assert (T.shape, T.stride) == (R.shape, R.stride)
        P = pycute.left_inverse(pc(pycute, L))
        assert [P(L(i)) for i in range(cute.size(L))] == list(range(cute.size(L)))
    # a strided (non-surjective) layout: R(L(i)) == i still
    L = Layout((4, 3), (3, 24))
    assert [cute.left_inverse(L)(L(i)) for i in range(12)] == list(range(12))


# ------------------------------------------------------------------ CuTe's constructor spellings (issue 39, item 5)
def test_make_layout_takes_a_shape_and_a_stride_as_cute_does():
    from layouts import cute

    assert cute.make_layout((8, 8), (8, 1)) == cute.Layout((8, 8), (8, 1))
    assert cute.make_layout((2, (2, 2)), stride=(4, (1, 2))) == cute.Layout((2, (2, 2)), (4, (1, 2)))
    assert cute.make_layout((4, 3)) == cute.Layout((4, 3), (1, 4))               # compact column-major
    assert cute.make_layout(cute.make_shape(8, (2, 2)), cute.make_stride(4, (1, 32))) == \
        cute.Layout((8, (2, 2)), (4, (1, 32)))
    bundled = cute.make_layout(cute.Layout(4, 2), cute.Layout((2, 2)))
    assert (bundled.shape, bundled.stride) == ((4, (2, 2)), (2, (1, 2)))
    for bad in [(cute.Layout(2), 3), ((2, 2), (1, 2), (3,))]:
        with pytest.raises(LayoutTypeError, match=r"make_layout\(A, B\).*make_layout\(\(8, 8\), \(8, 1\)\)"):
            cute.make_layout(*bad)


def test_make_ordered_layout_gives_stride_one_to_the_first_in_order():
    from layouts import cute

    # hand-computed: sizes (2, 3, 4), order (2, 0, 1): mode 1 stride 1, mode 2 stride 3, mode 0 stride 12
    assert cute.make_ordered_layout((2, 3, 4), (2, 0, 1)) == cute.Layout((2, 3, 4), (12, 1, 3))
    assert cute.make_ordered_layout((2, 3, 4), (0, 1, 2)) == cute.Layout((2, 3, 4))        # column-major
    assert cute.make_ordered_layout((2, 3, 4), (2, 1, 0)) == cute.Layout((2, 3, 4), (12, 4, 1))  # row-major
    assert cute.make_ordered_layout((2, (3, 4)), (1, (2, 0))) == cute.Layout((2, (3, 4)), (4, (8, 1)))
    with pytest.raises(LayoutError, match="repeats"):
        cute.make_ordered_layout((2, 3), (0, 0))
    with pytest.raises(LayoutError, match="one value"):
        cute.make_ordered_layout((2, 3, 4), (0, 1))


def test_make_identity_layout_is_refused_naming_what_to_use():
    from layouts import cute

    with pytest.raises(LayoutError, match=r"idx2crd\(i, \(4, 8\)\).*make_layout\(\(4, 8\)\)"):
        cute.make_identity_layout((4, 8))
