"""layouts.Layout -> CuTe (to_cute / from_layout) against Layout.offset, and ly.convert with CuTe layouts
against a numpy gather by offsets."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import layouts as ly
from layouts import LayoutError, cute
from layouts.cute import Layout, Swizzle, composition

SPECS = [
    ("NCHW", {}), ("NHWC", {}), ("CHWN", {}), ("nChw8c", {}), ("NCHW16c", {}), ("NC1HWC0", {"C0": 4}),
    ("HWC", {}), ("OIHW", {}), ("OIhw8i8o", {}),
]


def _sizes(spec, rng):
    axes = ly.parse(spec).axes
    return {a: int(rng.integers(1, 5)) if a not in "CIO" else int(rng.integers(1, 21)) for a in axes}


def _coords(L):
    order = ly.canonical_order(L.axes)
    ranges = [range(L.dims[a]) for a in order]
    for c in itertools.product(*ranges):
        yield order, c


@pytest.mark.parametrize("spec,extra", SPECS)
def test_to_cute_gives_every_offset(spec, extra):
    rng = np.random.default_rng(len(spec))
    for _ in range(3):
        L = ly.Layout(spec, **_sizes(spec, rng), **extra)
        C = L.to_cute()
        assert C == cute.Layout.from_layout(L)
        assert cute.rank(C) == len(L.axes)
        assert cute.size(C) == int(np.prod(list(L.padded_dims.values())))
        for order, c in _coords(L):
            assert C(*c) == L.offset(**{a.lower(): v for a, v in zip(order, c)})


def test_blocked_axis_is_hierarchical_inner_block_first():
    L = ly.Layout("nChw8c", N=2, C=16, H=3, W=4)
    C = L.to_cute()
    assert C.shape == (2, (8, 2), 3, 4)
    assert C.stride == (192, (1, 96), 32, 8)
    # two blocks of one axis: the later block is the faster digit
    W = ly.Layout("OIhw8i8o", O=16, I=16, H=1, W=1)
    Cw = W.to_cute()
    assert Cw.shape[0] == (8, 2) and Cw.shape[1] == (8, 2)


def test_pitched_rows():
    L = ly.Layout("NHWC", N=1, H=5, W=4, C=3, align={"H": 16})
    C = L.to_cute()
    assert C.stride == (80, 1, 16, 3)
    assert cute.size(C) == 60 and cute.cosize(C) == L.span
    for order, c in _coords(L):
        assert C(*c) == L.offset(**{a.lower(): v for a, v in zip(order, c)})
    P = ly.Layout("HWC", H=2, W=3, C=3, pitch={"H": 12})
    assert str(P.to_cute()) == "(3,2,3):(1,12,3)"


def test_to_cute_refuses_other_kinds():
    from layouts.cute.bridge import to_cute
    with pytest.raises(ly.LayoutTypeError):
        to_cute("NCHW")


# ----------------------------------------------------------------------------- convert
def _reference(x, src, dst):
    out = np.zeros(dst.cosize() if dst.size() else 0, dtype=x.dtype)
    out[dst.offsets()] = x[src.offsets()]
    return out


def _random_layout(rng, shape):
    """A layout of the given flat shape with a random compact ordering (or a gap)."""
    order = rng.permutation(len(shape))
    strides = [0] * len(shape)
    cur = 1
    for k in order:
        strides[k] = cur
        cur *= shape[k] + (1 if rng.random() < 0.2 else 0)
    return Layout(tuple(shape), tuple(strides))


def test_convert_plain_layouts_matches_gather():
    rng = np.random.default_rng(1)
    for _ in range(60):
        shape = [int(v) for v in rng.integers(1, 7, size=int(rng.integers(1, 5)))]
        src = _random_layout(rng, shape)
        dst = _random_layout(rng, shape)
        # regroup dst hierarchically sometimes: same size, different mode structure
        if rng.random() < 0.5 and len(shape) >= 2:
            dst = Layout((tuple(shape[:2]),) + tuple(shape[2:]), (dst.stride[:2],) + dst.stride[2:])
        x = rng.standard_normal(src.cosize()).astype(np.float32)
        y = ly.convert(x, src, dst)
        assert y.shape == (dst.cosize(),)
        assert np.array_equal(y, _reference(x, src, dst))


def test_convert_large_goes_through_the_engine_and_is_exact():
    # NCHW -> 8x8 tiles of (H, W) per (N, C): a blocked_product layout
    N, C, H, W = 2, 3, 64, 48
    src = ly.Layout("NCHW", N=N, C=C, H=H, W=W).to_cute()
    tiles = cute.blocked_product(Layout((8, 8), (8, 1)), Layout((H // 8, W // 8), (1, H // 8)))
    dst_tiled = Layout((N, C) + tiles.shape, (C * H * W, H * W) + tiles.stride)
    x = np.arange(N * C * H * W, dtype=np.float64)
    y = ly.convert(x, src, dst_tiled)
    assert np.array_equal(y, _reference(x, src, dst_tiled))
    # the tile of (n, c, tile row 1, tile col 2) is a contiguous 8x8 row-major block
    t = 1 + (H // 8) * 2
    block = y[(1 * C + 2) * H * W + t * 64:][:64].reshape(8, 8)
    xs = x.reshape(N, C, H, W)
    assert np.array_equal(block, xs[1, 2, 8:16, 16:24])


def test_convert_swizzled_matches_gather():
    rng = np.random.default_rng(2)
    for b, m, s in [(3, 3, 3), (2, 0, 2), (3, 2, 3), (1, 0, -1), (2, 1, 4)]:
        for shape in [(8, 64), (16, 32), (4, 4, 8)]:
            base = _random_layout(rng, list(shape))
            dst = composition(Swizzle(b, m, s), base)
            src = Layout(shape)
            x = rng.integers(0, 1000, size=src.cosize()).astype(np.int32)
            y = ly.convert(x, src, dst)
            assert y.shape == (dst.cosize(),)
            assert np.array_equal(y, _reference(x, src, dst))
            back = ly.convert(y, dst, src)  # and back: a swizzled source
            assert np.array_equal(back, x[: src.cosize()])


def test_convert_swizzled_without_common_refinement():
    src = Layout((6, 4))
    dst = composition(Swizzle(1, 0, 2), Layout((4, 6), (6, 1)))
    x = np.arange(24, dtype=np.uint8)
    assert np.array_equal(ly.convert(x, src, dst), _reference(x, src, dst))


def test_convert_from_named_layout_and_uncovered_zero():
    L = ly.Layout("NCHW", N=1, C=3, H=2, W=2)
    dst = cute.Layout((1, 3, 2, 2), (0, 5, 2, 1))  # C planes 5 apart: slot 4 of each is a gap
    x = np.arange(1, 13, dtype=np.float32).reshape(1, 3, 2, 2)
    y = ly.convert(x, L, dst)
    assert np.array_equal(y, _reference(x.ravel(), L.to_cute(), dst))
    assert y[4] == 0 and y[9] == 0
    assert np.array_equal(ly.convert(x, "NCHW", dst), y)  # a spec string: the sizes from x's shape


def test_convert_errors():
    with pytest.raises(LayoutError, match="sizes must match"):
        ly.convert(np.arange(4), Layout(4), Layout(6))
    with pytest.raises(LayoutError, match="injective"):
        ly.convert(np.arange(4), Layout(4), Layout((2, 2), (0, 1)))
    with pytest.raises(LayoutError, match="holds 3 elements"):
        ly.convert(np.arange(3), Layout(4), Layout(4))
    with pytest.raises(LayoutError, match="1-D"):
        ly.convert(np.zeros((2, 2)), Layout(4), Layout(4))
    with pytest.raises(LayoutError, match="negative"):
        ly.convert(np.arange(4), Layout(4, -1), Layout(4))


def test_convert_leaves_input_unchanged_and_fills_out():
    x = np.arange(24, dtype=np.int16)
    keep = x.copy()
    out = np.full(24, 7, dtype=np.int16)
    dst = Layout((4, 6), (6, 1))
    r = ly.convert(x, Layout((4, 6)), dst, out=out)
    assert r is out and np.array_equal(x, keep)
    assert np.array_equal(out, _reference(x, Layout((4, 6)), dst))


def test_plain_conversions_use_the_copy_engine_and_swizzled_the_kernel(monkeypatch):
    import layouts.kernels as kernels
    from layouts.kernels.jit import swizzle as swizzle_kernel
    calls = []
    real_copy, real_kernel = kernels.copy_into, swizzle_kernel.gather_scatter
    monkeypatch.setattr(kernels, "copy_into", lambda d, s, threads=None: (calls.append("engine"), real_copy(d, s, threads))[1])
    monkeypatch.setattr(swizzle_kernel, "gather_scatter", lambda *a: (calls.append("swizzle"), real_kernel(*a))[1])
    src = ly.Layout("NCHW", N=2, C=16, H=32, W=32).to_cute()
    dst = ly.Layout("NHWC", N=2, C=16, H=32, W=32).to_cute()
    x = np.arange(cute.size(src), dtype=np.float32)
    y = ly.convert(x, src, dst)
    assert calls == ["engine"] and np.array_equal(y, _reference(x, src, dst))
    # the same tensor by name: the same bytes, through the same engine
    assert np.array_equal(y, ly.convert(x.reshape(2, 16, 32, 32), "NCHW", "NHWC").ravel())
    assert calls == ["engine", "engine"]
    calls.clear()
    sdst = composition(Swizzle(3, 0, 3), dst)
    z = ly.convert(x, src, sdst)
    assert calls == ["swizzle"] and np.array_equal(z, _reference(x, src, sdst))


def test_swizzled_copies_are_a_registry_strategy_that_others_decline():
    """The registry offers a swizzled task to every strategy: all but ``swizzle`` decline it, and
    with ``swizzle`` disabled by the profile the conversion is numpy's gather, the same bytes."""
    from layouts import kernels
    from layouts.kernels.plan import make_plan
    from layouts.kernels.registry import STRATEGIES, choose
    from layouts.kernels.strategy import Task
    src = Layout((8, 8), (8, 1))
    sdst = composition(Swizzle(3, 0, 3), Layout((8, 8), (8, 1)))
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    v = np.lib.stride_tricks.as_strided
    task = Task(make_plan(v(out, (8, 8), (32, 4)), v(x, (8, 8), (32, 4))), out.ctypes.data, x.ctypes.data,
                swizzle=((0, 0, 0), (0, 0b111000, 3)), buffers=(out, x))
    c, declined = choose(task, kernels.current())
    assert c.strategy == "swizzle" and [n for n, _ in declined] == [s.name for s in STRATEGIES[:-1]]
    assert all("swizzled" in why for _, why in declined)
    want = _reference(x, src, sdst)
    assert np.array_equal(ly.convert(x, src, sdst), want)
    with kernels.use_profile(kernels.current().replace(disabled=("swizzle",))):
        assert np.array_equal(ly.convert(x, src, sdst), want)
    assert choose(Task.of(out.reshape(8, 8), x.reshape(8, 8).T), kernels.current())[0].strategy != "swizzle"


def test_copy_false_is_refused_and_copy_none_converts():
    x = np.arange(16, dtype=np.float32)
    src, dst = Layout(16), Layout((4, 4), (4, 1))
    with pytest.raises(ly.LayoutError, match="copy=False"):
        ly.convert(x, src, dst, copy=False)
    with pytest.raises(ly.LayoutTypeError, match="copy"):
        ly.convert(x, src, dst, copy="yes")
    y = ly.convert(x, src, dst, copy=None)
    assert np.array_equal(y, _reference(x, src, dst)) and not np.shares_memory(y, x)
