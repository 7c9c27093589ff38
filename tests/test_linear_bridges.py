"""Bridges between linear, CuTe and framework layouts, and linear layouts as memory in convert.

Oracles: each CuTe layout's own offsets (``Layout.offsets``, the swizzle applied by
``Swizzle.__call__``), ``layouts.Layout.offset`` for framework layouts, the linear layout's XOR of
bases evaluated point by point, and numpy's fancy indexing for the moved data.
"""

import itertools
import random

import numpy as np
import pytest

import layouts as ly
from layouts import cute, linear
from layouts.linear import LinearLayout as LL, NotCuteRepresentable, NotLinear


def _xor_point(L, coords):
    """The image of one point by the definition: the XOR of the bases of its set bits."""
    out = [0] * L.num_out_dims
    for name, rows in L.bases.items():
        v = coords.get(name, 0)
        for i, b in enumerate(rows):
            if (v >> i) & 1:
                out = [o ^ x for o, x in zip(out, b)]
    return dict(zip(L.out_dim_names, out))


def _random_linear_cute(rng, swizzle=False):
    """A CuTe layout that is F2-linear: power-of-two modes whose stride bits are a random
    assignment of distinct bit positions (some modes broadcast with stride 0)."""
    ranks = rng.randint(1, 3)
    bits_per_mode = [rng.randint(0, 3) for _ in range(ranks)]
    positions = rng.sample(range(12), sum(bits_per_mode))
    shape, stride, k = [], [], 0
    for nb in bits_per_mode:
        subs, strides = [], []
        left = nb
        while left:
            take = rng.randint(1, left)
            subs.append(1 << take)
            # a sub-mode's bits are consecutive multiples: its stride is the lowest assigned bit,
            # and its other columns are stride * 2**b, so give it consecutive positions
            base = positions[k]
            strides.append(0 if rng.random() < 0.15 else 1 << base)
            k += take
            left -= take
        if not subs:
            subs, strides = [1], [0]
        shape.append(tuple(subs) if len(subs) > 1 else subs[0])
        stride.append(tuple(strides) if len(strides) > 1 else strides[0])
    layout = cute.Layout(tuple(shape), tuple(stride))
    if swizzle:
        b = rng.randint(1, 3)
        layout = cute.composition(cute.Swizzle(b, rng.randint(0, 3), rng.randint(b, 4)), layout)
    return layout


def _is_xor_linear(offsets_of, size):
    return all(offsets_of(i ^ j) == offsets_of(i) ^ offsets_of(j) for i in range(size) for j in range(size)
               if i & j == 0)


@pytest.mark.parametrize("seed", range(40))
def test_from_cute_equals_the_layout_on_every_coordinate(seed):
    rng = random.Random(seed)
    C = _random_linear_cute(rng, swizzle=seed % 2 == 1)
    try:
        L = linear.from_cute(C)
    except NotLinear:
        offs = C.offsets().tolist()
        assert not _is_xor_linear(lambda i: offs[i], len(offs))      # refused only when truly not linear
        return
    inner = C.inner if isinstance(C, cute.ComposedLayout) else C
    modes = list(inner.shape) if isinstance(inner.shape, tuple) else [inner.shape]
    sizes = [cute.size(m) for m in modes]
    offs = C.offsets()
    for i in range(cute.size(C)):
        coord, rest = {}, i
        for k, s in enumerate(sizes):
            coord[f"m{k}"] = rest % s
            rest //= s
        assert L(**coord)["offset"] == offs[i] == _xor_point(L, coord)["offset"]
    back = linear.to_cute(L)
    assert back.offsets().tolist() == offs.tolist()                  # and back, with the same offsets


@pytest.mark.parametrize("layout, why", [
    (cute.Layout(4, 3), "share bit"),
    (cute.Layout((2, 2), (1, 1)), "share bit"),
    (cute.Layout(3, 1), "power-of-two"),
    (cute.Layout((4, 2), (-1, 4)), "negative"),
])
def test_from_cute_refuses_layouts_that_are_not_linear(layout, why):
    offs = layout.offsets().tolist()
    if min(offs) >= 0 and len(offs) & (len(offs) - 1) == 0:
        assert not _is_xor_linear(lambda i: offs[i], len(offs))
    with pytest.raises(NotLinear, match=why):
        linear.from_cute(layout)


def test_from_cute_refuses_an_offset_swizzle():
    with pytest.raises(NotLinear, match="offset"):
        linear.from_cute(cute.ComposedLayout(cute.Swizzle(1, 0, 1), 2, cute.Layout((2, 2), (2, 1))))


def test_the_cute_and_triton_8x8_swizzles_are_one_layout():
    sw = cute.composition(cute.Swizzle(3, 0, 3), cute.Layout((8, 8), (8, 1)))
    L = linear.from_cute(sw)
    assert L == LL.from_bases({"m0": [[9], [18], [36]], "m1": [[1], [2], [4]]}, {"offset": 64})
    # Triton's SwizzledSharedLayout(vec=1, per_phase=1, max_phase=8, order=[1, 0]) on 8x8 (its C++ test's
    # bases): offset -> (dim0, dim1); its inverse is the CuTe layout with the modes renamed
    triton_8x8 = LL.from_bases({"offset": [[0, 1], [0, 2], [0, 4], [1, 1], [2, 2], [4, 4]]}, ["dim0", "dim1"])
    assert triton_8x8.invert() == L.rename_in_dim("m0", "dim0").rename_in_dim("m1", "dim1")
    assert str(linear.to_cute(triton_8x8)) == str(sw)


@pytest.mark.parametrize("seed", range(30))
def test_to_cute_is_exact_or_refuses_with_no_swizzle_left(seed):
    rng = random.Random(1000 + seed)
    n = rng.randint(2, 6)
    cols = []
    rank = 0
    while len(cols) < n:                       # an invertible n-bit map, one column per in bit
        c = rng.randrange(1, 1 << n)
        if LL.from_bases({"i": [[x] for x in cols + [c]]}, {"o": 1 << n}, require_surjective=False).is_injective():
            cols.append(c)
    L = LL.from_bases({"a": [[c] for c in cols[: n // 2]], "b": [[c] for c in cols[n // 2:]]}, ["offset"])
    want = [L.apply({"a": i % (1 << (n // 2)), "b": i >> (n // 2)})["offset"] for i in range(1 << n)]
    try:
        C = linear.to_cute(L)
    except NotCuteRepresentable:
        # the oracle: no Swizzle<B,M,S> (either sign of shift) makes the unswizzled offsets affine
        for b in range(1, n + 1):
            for m in range(0, n + 1):
                for s in [*range(b, n + 1), *range(-n, -b + 1)]:
                    try:
                        sw = cute.Swizzle(b, m, s)
                    except ly.LayoutError:
                        continue
                    un = [sw(c) for c in cols]
                    assert not all(x & y == 0 for x, y in itertools.combinations(un, 2)), (b, m, s)
        return
    assert C.offsets().tolist() == want


@pytest.mark.parametrize("spec, dims", [
    ("NCHW", dict(N=2, C=4, H=2, W=8)),
    ("NHWC", dict(N=1, C=16, H=4, W=2)),
    ("NCHW16c", dict(N=2, C=32, H=4, W=8)),
    ("nChw8c", dict(N=2, C=16, H=2, W=2)),
    ("NC1HWC0", dict(N=1, C=32, H=2, W=4)),
    ("CHWN", dict(N=4, C=2, H=2, W=4)),
])
def test_from_layout_gives_layout_offset_for_every_coordinate(spec, dims):
    F = ly.Layout(spec, **dims)
    L = linear.from_layout(F)
    assert L.in_dim_names == list(ly.canonical_order(F.axes))
    grids = [range(dims[a]) for a in L.in_dim_names]
    for coord in itertools.product(*grids):
        named = dict(zip(L.in_dim_names, coord))
        assert L(**named)["offset"] == F.offset(**{a.lower(): v for a, v in named.items()})


def test_from_layout_keeps_pitch_padding_as_padding_and_refuses_block_padding():
    F = ly.Layout("HW", H=4, W=8, pitch={"H": 16})
    L = linear.from_layout(F)
    reached = sorted(L.offsets().tolist())
    assert reached == sorted(F.offset(h=h, w=w) for h in range(4) for w in range(8))
    assert max(reached) >= 32 and len(set(reached)) == 32             # the pitch slots are never reached
    with pytest.raises(NotLinear, match="padded"):
        linear.from_layout(ly.Layout("nChw16c", N=1, C=24, H=2, W=2))
    with pytest.raises(NotLinear, match="power-of-two"):
        linear.from_layout(ly.Layout("HW", H=3, W=4))


def test_memory_map_reads_both_orientations_and_refuses_the_rest():
    S = LL.from_bases({"offset": [[0, 1], [0, 2], [1, 1]]}, ["dim0", "dim1"])
    M = linear.memory_map(S)
    for off in range(8):
        e = S(offset=off)
        assert M(**e)["offset"] == off
    C = LL.from_bases({"m0": [[2]], "m1": [[1]]}, ["offset"])
    assert linear.memory_map(C) is C
    with pytest.raises(ly.LayoutError, match="in-dims"):
        linear.memory_map(LL.identity_1d(4, "lane", "dim0"))
    with pytest.raises(ly.LayoutError, match="injective"):
        linear.memory_map(LL.from_bases({"offset": [[1], [0]]}, ["dim0"]))
    with pytest.raises(ly.LayoutError, match="without an offset"):
        linear.memory_map(LL.from_bases({"offset": [[1]]}, {"dim0": 4}, require_surjective=False))


def _moved(x, src_offsets, dst_offsets, n_out):
    out = np.zeros(n_out, dtype=x.dtype)
    out[dst_offsets] = x[src_offsets]
    return out


@pytest.mark.parametrize("seed", range(12))
def test_convert_moves_data_between_linear_and_cute_layouts(seed):
    rng = np.random.default_rng(seed)
    n = 6
    perm = rng.permutation(n)
    cols = [1 << int(p) for p in perm]
    if seed % 3 == 0:                            # a general XOR map: no CuTe form, the offset table path
        cols[1] ^= cols[0]
        cols[4] ^= cols[2] | cols[0]
    S = LL.from_bases({"offset": [[c & 7, c >> 3] for c in cols]}, ["dim0", "dim1"])
    x = rng.integers(0, 1000, size=64).astype(np.int32)
    src = cute.Layout((8, 8), (8, 1))
    got = ly.convert(x, src, S)
    want = _moved(x, src.offsets(), S.offsets(), 64)
    assert np.array_equal(got, want)
    for off in range(64):                        # element (r, c) of the tile sits at its offset
        e = S(offset=off)
        assert got[off] == x[src(e["dim0"], e["dim1"])]
    back = ly.convert(got, S, src)
    assert np.array_equal(back, x)


def test_convert_refuses_a_linear_layout_that_is_not_memory():
    with pytest.raises(ly.LayoutError, match="offset"):
        ly.convert(np.arange(4), cute.Layout(4), LL.identity_1d(4, "lane", "dim0"))


def _random_invertible_columns(rng, n):
    """n columns of an invertible n x n GF(2) matrix (a random permutation mixed by additions)."""
    cols = [1 << int(p) for p in rng.permutation(n)]
    for _ in range(n):
        i, j = rng.choice(n, 2, replace=False)
        cols[i] ^= cols[j]
    return cols


def _brute_offsets_triton(bases_offset, rows, cols_n):
    """Triton's orientation by the definition: offset o holds element (dim0, dim1) = XOR of the
    bases of o's set bits; the element's index is dim0 + rows * dim1 (dim0 the fastest)."""
    off_of = np.full(rows * cols_n, -1, dtype=np.int64)
    for o in range(rows * cols_n):
        d0 = d1 = 0
        for i, (b0, b1) in enumerate(bases_offset):
            if o >> i & 1:
                d0, d1 = d0 ^ b0, d1 ^ b1
        assert off_of[d0 + rows * d1] == -1
        off_of[d0 + rows * d1] = o
    return off_of


def _brute_offsets_cute(bases_m0, bases_m1, rows, cols_n):
    """CuTe's orientation by the definition: element (m0, m1) sits at the XOR of its bits' bases."""
    off_of = np.zeros(rows * cols_n, dtype=np.int64)
    for m0 in range(rows):
        for m1 in range(cols_n):
            o = 0
            for i, b in enumerate(bases_m0):
                if m0 >> i & 1:
                    o ^= b
            for i, b in enumerate(bases_m1):
                if m1 >> i & 1:
                    o ^= b
            off_of[m0 + rows * m1] = o
    return off_of


@pytest.mark.parametrize("seed", range(10))
def test_convert_between_linear_layouts_of_both_orientations_is_a_gather(seed):
    """Triton's orientation (in-dim ``offset``) and CuTe's (out-dim ``offset``), either way round and
    each with itself: ``out[dst_offset(e)] == x[src_offset(e)]`` for every element e, the offsets
    enumerated from the bases here (not by the library), the move a numpy gather."""
    rng = np.random.default_rng(seed)
    rows, cols_n = (8, 8) if seed % 2 else (4, 16)
    r_bits, n = rows.bit_length() - 1, (rows * cols_n).bit_length() - 1
    t_cols = _random_invertible_columns(rng, n)                  # offset bit -> element bits (dim0 low)
    triton_bases = [[c & (rows - 1), c >> r_bits] for c in t_cols]
    S = LL.from_bases({"offset": triton_bases}, ["dim0", "dim1"])
    c_cols = _random_invertible_columns(rng, n)                  # element bit -> offset
    C = LL.from_bases({"dim0": [[c] for c in c_cols[:r_bits]], "dim1": [[c] for c in c_cols[r_bits:]]},
                      ["offset"])
    s_off = _brute_offsets_triton(triton_bases, rows, cols_n)
    c_off = _brute_offsets_cute(c_cols[:r_bits], c_cols[r_bits:], rows, cols_n)
    x = rng.integers(0, 1 << 30, size=rows * cols_n).astype(np.int64)
    for src, dst, so, do in ((S, C, s_off, c_off), (C, S, c_off, s_off), (S, S, s_off, s_off), (C, C, c_off, c_off)):
        want = np.empty_like(x)
        want[do] = x[so]                                         # the numpy gather
        got = ly.convert(x, src, dst)
        assert np.array_equal(got, want)
    plain = cute.Layout((rows, cols_n), (cols_n, 1))               # and against a CuTe row-major tile
    want = np.empty_like(x)
    want[c_off] = x[plain.offsets()]
    assert np.array_equal(ly.convert(x, plain, C), want)


@pytest.mark.parametrize("bad, names", [
    (LL.identity_1d(4, "lane", "dim0"), ["lane", "dim0"]),
    (LL.from_bases({"offset": [[1]], "x": [[1]]}, {"offset": 2}), ["offset"]),
    (LL.from_bases({"a": [[1, 0]], "b": [[0, 1]]}, ["offset", "dim1"]), ["offset", "dim1"]),
])
def test_convert_names_the_dims_of_a_linear_layout_that_is_not_memory(bad, names):
    with pytest.raises(ly.LayoutError) as err:
        ly.convert(np.arange(4), cute.Layout(4), bad)
    for n in names:
        assert n in str(err.value)
