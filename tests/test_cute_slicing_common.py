"""CuTe's slicing, flat_divide / flat_product, max_common_* and nullspace (issue 40, item 6): against
pycute where it has them, the CuTe DSL's printed values, and brute force over the offsets."""

from __future__ import annotations

import numpy as np
import pytest

from layouts import LayoutError, cute
from layouts.cute import Layout, _
from test_cute_algebra import cases, pc, pycute, rand_any, rand_injective, rand_shape  # noqa: F401 - fixtures


def _rand_slice(rng, shape):
    """A coordinate for ``shape`` with some modes ``_`` (as None, as pycute spells it)."""
    if isinstance(shape, tuple):
        return tuple(_rand_slice(rng, s) for s in shape)
    return None if rng.random() < 0.4 else int(rng.integers(0, shape))


def test_slice_and_offset_match_pycute(pycute):
    rng = np.random.default_rng(60)
    for _i in range(500):
        L = rand_any(rng, depth=2)
        crd = _rand_slice(rng, L.shape) if isinstance(L.shape, tuple) else None
        sub, off = cute.slice_and_offset(crd, L)
        P, poff = pycute.slice_and_offset(crd, pc(pycute, L))
        assert off == poff, (L, crd)
        if crd is None:   # C++: slice(_, b) == b; pycute wraps b in a 1-tuple
            assert sub == L and P.shape in (L.shape, (L.shape,))
        elif isinstance(P.shape, tuple) and len(P.shape) == 0:
            assert sub == Layout(1, 0)
        else:
            assert (sub.shape, sub.stride) == (P.shape, P.stride), (L, crd, sub, P)


def test_call_and_getitem_with_underscore_slice():
    L = Layout((4, 8), (1, 4))
    assert L(_, 3) == L[_, 3] == L(None, 3) == Layout((4,), (1,))
    assert cute.slice_and_offset((_, 3), L) == (Layout((4,), (1,)), 12)
    assert L(2, _) == Layout((8,), (4,)) and cute.slice_and_offset((2, _), L)[1] == 2
    # every element of the slice is the full layout's element at that coordinate, less the offset
    M = Layout((3, (2, 4)), (8, (1, 2)))
    sub, off = cute.slice_and_offset((1, (_, 3)), M)
    assert [sub(i) + off for i in range(2)] == [M(1, (i, 3)) for i in range(2)]
    with pytest.raises(LayoutError, match="modes"):
        L(_, 3, 1)
    with pytest.raises(LayoutError, match="out of range"):
        L(_, 8)


def test_flat_divide_and_product_as_the_cute_dsl_prints_them():
    # the values the CuTe DSL printed (issue 40)
    R = cute.flat_divide(Layout((9, (4, 8)), (59, (13, 1))), (Layout(3, 3), Layout((2, 4), (1, 8))))
    assert str(R) == "(3,(2,4),3,(2,2)):(177,(13,2),59,(26,1))"
    P = cute.flat_product(Layout((2, 5), (5, 1)), (Layout(3, 5), Layout(4, 6)))
    assert str(P) == "(2,5,3,4):(5,1,10,30)"


def test_flat_forms_are_the_zipped_ones_unpacked():
    rng = np.random.default_rng(61)
    for _i in range(200):
        A = rand_injective(rng, depth=2, leaves=(2, 4))
        if not isinstance(A.shape, tuple) or len(A) < 2:
            continue
        tiler = (Layout(int(rng.choice([1, 2]))), Layout(int(rng.choice([1, 2]))))
        for flat_op, zipped_op in ((cute.flat_divide, cute.zipped_divide), (cute.flat_product, cute.zipped_product)):
            try:
                z = zipped_op(A, tiler)
            except LayoutError:
                continue
            f = flat_op(A, tiler)
            assert len(f) == len(z[0]) + len(z[1])
            assert f.offsets().tolist() == z.offsets().tolist()


def _brute_common(a, b):
    """The offsets 0, 1, ... that b reaches (as the right inverse's domain) and a reaches at the same indices."""
    where = {}
    for k, off in enumerate(b.offsets().tolist()):
        where.setdefault(off, k)
    m = 0
    while m in where:
        m += 1
    n = 0
    while n < m and a(where[n]) == n:
        n += 1
    return max(n, 1), [where[j] for j in range(max(n, 1))] if m else [0]


def test_max_common_vector_and_layout_by_brute_force():
    rng = np.random.default_rng(62)
    for _i in range(400):
        a = rand_injective(rng, depth=2)
        shape = a.shape
        b = rand_injective(rng, depth=2) if _i % 3 else Layout(shape, a.stride)
        if cute.size(b) != cute.size(a):
            b = Layout(shape, rand_injective_strides(rng, shape))
        n, indices = _brute_common(a, b)
        assert cute.max_common_vector(a, b) == n, (a, b)
        R = cute.max_common_layout(a, b)
        assert cute.size(R) == n and [R(i) for i in range(n)] == indices[:n], (a, b, R)
    assert cute.max_common_vector(Layout((4, 8), (1, 4)), Layout((4, 8), (1, 8))) == 4
    assert cute.max_common_vector(Layout(8), Layout(8, 2)) == 1


def rand_injective_strides(rng, shape):
    return rand_injective(rng, depth=0).stride if not isinstance(shape, tuple) else \
        Layout(shape, _perm_strides(rng, shape)).stride


def _perm_strides(rng, shape):
    from test_cute_algebra import flat, unflatten_like
    sizes = flat(shape)
    order = rng.permutation(len(sizes))
    strides, cur = [0] * len(sizes), 1
    for k in order:
        strides[k] = cur
        cur *= sizes[k]
    return unflatten_like(strides, shape)


def test_nullspace_maps_to_zero_and_counts_the_broadcast_modes():
    rng = np.random.default_rng(63)
    from test_cute_algebra import flat, unflatten_like
    for _i in range(300):
        shape = rand_shape(rng, depth=2)
        strides = [0 if rng.random() < 0.4 else int(rng.integers(1, 9)) for _s in flat(shape)]
        L = Layout(shape, unflatten_like(strides, shape))
        N = cute.nullspace(L)
        zero = [s for s, d in zip(flat(shape), strides) if d == 0]
        assert cute.size(N) == int(np.prod(zero))         # every index the broadcast modes reach (1 if none)
        images = [N(i) for i in range(cute.size(N))]
        assert all(L(k) == 0 for k in images) and len(set(images)) == len(images)
    assert str(cute.nullspace(Layout((2, 4, 3), (0, 1, 0)))) == "(2,3):(1,8)"
    assert cute.nullspace(Layout((4, 2), (1, 4))) == Layout(1, 0)
