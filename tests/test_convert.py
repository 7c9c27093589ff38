"""convert(): equal to numpy pad/reshape/transpose oracles, round trips, padding, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layouts as ly
from layouts import Layout, LayoutError
from oracle import blocked_physical, expected_strides, pitched_buffer
from oracle import random_array as _random, spec_dims as _spec_dims

@pytest.fixture(autouse=True, scope="module")
def kernels_for_every_size():
    """Small arrays would go to np.copyto and one thread: make every test here run the kernels."""
    from layouts import kernels
    with kernels.use_profile(kernels.current().replace(small_bytes=0, thread_min_bytes=0)):
        yield


DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.float16, np.int32, np.float32,
          np.int64, np.uint64, np.float64, np.complex64, np.complex128]


@st.composite
def conversions(draw):
    letters = draw(st.lists(st.sampled_from("NCHWDX"), min_size=1, max_size=5, unique=True))
    dims = {a: draw(st.integers(0, 6) if draw(st.integers(0, 9)) == 0 else st.integers(1, 6)) for a in letters}

    def spec():
        order = draw(st.permutations(letters))
        blocks = draw(st.lists(st.sampled_from(letters), max_size=1, unique=True))
        return "".join(order) + "".join(f"{draw(st.sampled_from([1, 2, 4, 8, 16]))}{a.lower()}" for a in blocks)

    return spec(), spec(), dims, draw(st.sampled_from(DTYPES)), draw(st.integers(0, 2**32 - 1))


@settings(max_examples=120, deadline=None)
@given(conversions())
def test_convert_equals_numpy_oracle(case):
    src, dst, dims, dtype, seed = case
    rng = np.random.default_rng(seed)
    axes = "".join(Layout(src, **dims).axes)
    logical = _random([dims[a] for a in axes], dtype, rng)
    x = np.ascontiguousarray(blocked_physical(logical, axes, _spec_dims(src)))
    before = x.copy()
    y = ly.convert(x, src, dst, **dims)
    expected = blocked_physical(logical, axes, _spec_dims(dst))
    assert y.shape == expected.shape and y.dtype == x.dtype
    assert np.array_equal(y, expected)                        # padding slots zero in both
    assert np.array_equal(x, before)                          # x never modified
    back = ly.convert(y, dst, src, **dims)
    assert np.array_equal(back, x)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("src,dst", [("NCHW", "NHWC"), ("NHWC", "NCHW"), ("NCHW", "CHWN"), ("NHWC", "CHWN"),
                                     ("CHWN", "NCHW"), ("NCHW", "NCHW16c"), ("NCHW16c", "NHWC")])
def test_every_dtype_every_direction(dtype, src, dst):
    rng = np.random.default_rng(0)
    logical = _random((3, 20, 7, 9), dtype, rng)               # C=20: a partial last block
    x = blocked_physical(logical, "NCHW", _spec_dims(src)).copy()
    y = ly.convert(x, src, dst, C=20, threads=1)
    assert np.array_equal(y, blocked_physical(logical, "NCHW", _spec_dims(dst)))


def test_issue_examples():
    x = np.random.default_rng(1).standard_normal((2, 20, 5, 4)).astype(np.float32)
    y = ly.convert(x, "NCHW", "NHWC")
    assert y.flags.c_contiguous and np.array_equal(y, x.transpose(0, 2, 3, 1))
    buf = np.empty((2, 5, 4, 20), np.float32)
    assert ly.convert(x, "NCHW", "NHWC", out=buf) is buf and np.array_equal(buf, y)
    z = ly.convert(x, "NCHW", "NCHW16c")
    assert z.shape == (2, 2, 5, 4, 16)
    assert np.all(z[:, 1, :, :, 4:] == 0)
    assert np.array_equal(ly.convert(z, "NCHW16c", "NCHW", C=20), x)
    with pytest.warns(ly.LayoutWarning, match="C was not given.*padded size 32.*c=31 holds only zeros"):
        assert ly.convert(z, "NCHW16c", "NCHW").shape == (2, 32, 5, 4)


def test_padding_read_as_data_warns_only_when_it_looks_like_padding():
    import warnings
    x = np.random.default_rng(2).standard_normal((2, 32, 3, 3)).astype(np.float32) + 10   # no zero anywhere
    z = ly.convert(x, "NCHW", "NCHW16c")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ly.LayoutWarning)
        assert np.array_equal(ly.convert(z, "NCHW16c", "NCHW"), x)        # last channel real: no warning
        ly.convert(z, "NCHW16c", "NHWC16c")                               # the block is kept: no warning
        zp = ly.convert(x[:, :20], "NCHW", "NCHW16c")
        ly.convert(zp, "NCHW16c", "NCHW", C=32)                           # said outright: no warning
    with pytest.warns(ly.LayoutWarning, match="C=<true size>"):
        ly.convert(zp, "NCHW16c", "NCHW8c")


def test_padding_is_zeroed_in_a_dirty_out():
    x = np.ones((1, 17, 3, 3), np.float32)
    out = np.full((1, 3, 3, 3, 8), np.nan, np.float32)
    ly.convert(x, "NCHW", "NCHW8c", out=out)
    assert np.all(out[:, 2, :, :, 1:] == 0) and np.all(out[:, :2] == 1) and np.all(out[:, 2, :, :, 0] == 1)


def test_high_rank_permutation():
    rng = np.random.default_rng(2)
    x = rng.integers(0, 255, (2, 3, 1, 4, 2, 3, 2, 2), dtype=np.uint8)
    perm = (7, 2, 5, 0, 3, 6, 1, 4)
    src = "ABCDEFGH"
    dst = "".join(src[p] for p in perm)
    assert np.array_equal(ly.convert(x, src, dst), x.transpose(perm))


def test_non_contiguous_inputs():
    rng = np.random.default_rng(3)
    big = rng.standard_normal((4, 10, 9, 8)).astype(np.float32)
    for x in (big[1:3, ::2, 2:7, 1:], big.transpose(0, 1, 3, 2), big[:, :, ::-1]):
        assert np.array_equal(ly.convert(x, "NCHW", "NHWC"), np.ascontiguousarray(x.transpose(0, 2, 3, 1)))
        assert np.array_equal(ly.convert(x, "NCHW", "CHWN", threads=1), x.transpose(1, 2, 3, 0))


def test_pitched_layouts_both_ways():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 5, 4)).astype(np.float32)                 # NCHW, C=3: rows of 12
    fpga = Layout("NHWC", N=2, C=3, H=5, W=4, align={"H": 16})
    flat = np.full(fpga.size, 9, np.float32)
    assert ly.convert(x, "NCHW", fpga, out=flat) is flat
    nhwc = x.transpose(0, 2, 3, 1)
    expected = pitched_buffer(nhwc, (80, 16, 3, 1), 160)                     # by hand: rows of 12 -> 16; gaps zero
    assert np.array_equal(flat, expected)
    assert np.array_equal(ly.convert(flat, fpga, "NCHW"), x)                 # flat buffer in
    shaped = ly.convert(x, "NCHW", fpga)                                     # shaped view out
    assert shaped.shape == fpga.shape and np.array_equal(shaped, nhwc)
    assert np.array_equal(ly.convert(shaped, fpga, "NCHW"), x)


def test_opencv_roi_as_source():
    img = np.arange(6 * 8 * 3, dtype=np.uint8).reshape(6, 8, 3)
    roi = img[1:5, 2:7]                                                      # keeps the parent's step
    L = ly.layout_of(roi, "HWC")
    assert L.pitch == {"H": 24}
    assert np.array_equal(ly.convert(roi, "HWC", "CHW"), roi.transpose(2, 0, 1))


def test_zero_size():
    x = np.zeros((0, 3, 4, 5), np.float32)
    assert ly.convert(x, "NCHW", "NHWC").shape == (0, 4, 5, 3)
    assert ly.convert(x, "NCHW", "NCHW16c").shape == (0, 1, 4, 5, 16)
    assert ly.convert(np.zeros((2, 0, 4, 5)), "NCHW", "NCHW16c").shape == (2, 0, 4, 5, 16)


def test_same_memory_order_returns_view_only_when_asked():
    x = np.arange(2 * 1 * 3 * 4, dtype=np.float32).reshape(2, 1, 3, 4)       # C == 1
    y = ly.convert(x, "NCHW", "NHWC")
    assert not np.shares_memory(x, y) and np.array_equal(y, x.reshape(2, 3, 4, 1))
    v = ly.convert(x, "NCHW", "NHWC", copy=None)
    assert np.shares_memory(v, x) and v.shape == (2, 3, 4, 1) and np.array_equal(v, y)
    w = ly.convert(np.zeros((2, 3, 3, 4)), "NCHW", "NHWC", copy=None)        # a real conversion
    assert w.flags.c_contiguous and w.shape == (2, 3, 4, 3)


def test_threads_give_identical_results():
    x = np.random.default_rng(5).integers(0, 255, (3, 33, 17, 19), dtype=np.uint8)
    ref = ly.convert(x, "NCHW", "CHWN", threads=1)
    assert np.array_equal(ly.convert(x, "NCHW", "CHWN", threads=2), ref)
    assert np.array_equal(ly.convert(x, "NCHW", "CHWN"), ref)


def test_gather_step_for_doubly_blocked():
    w = np.random.default_rng(6).standard_normal((20, 40, 3, 3)).astype(np.float32)
    spec = "OIHW4i16o4i"
    y = ly.convert(w, "OIHW", spec)
    assert np.array_equal(y, blocked_physical(w, "OIHW", _spec_dims(spec)))
    assert np.array_equal(ly.convert(y, spec, "OIHW", O=20, I=40), w)


def test_ascend_default_c0_follows_dtype():
    assert ly.convert(np.zeros((1, 20, 2, 2), np.uint8), "NCHW", "NC1HWC0").shape == (1, 1, 2, 2, 32)
    assert ly.convert(np.zeros((1, 20, 2, 2), np.float16), "NCHW", "NC1HWC0").shape == (1, 2, 2, 2, 16)
    assert ly.convert(np.zeros((1, 20, 2, 2), np.uint8), "NCHW", "NC1HWC0", C0=16).shape == (1, 2, 2, 2, 16)


# ---------------------------------------------------------------- errors
def test_errors():
    x = np.zeros((2, 3, 4, 5), np.float32)
    with pytest.raises(LayoutError, match=r"out has shape \(2, 3, 4, 5\), expected \(2, 4, 5, 3\)"):
        ly.convert(x, "NCHW", "NHWC", out=np.zeros((2, 3, 4, 5), np.float32))
    with pytest.raises(LayoutError, match="out has dtype float64, expected float32"):
        ly.convert(x, "NCHW", "NHWC", out=np.zeros((2, 4, 5, 3)))
    ro = np.zeros((2, 4, 5, 3), np.float32)
    ro.flags.writeable = False
    with pytest.raises(LayoutError, match="read-only"):
        ly.convert(x, "NCHW", "NHWC", out=ro)
    buf = np.zeros(2 * 3 * 4 * 5 * 2, np.float32)
    with pytest.raises(LayoutError, match="overlaps x"):
        ly.convert(buf[:120].reshape(2, 3, 4, 5), "NCHW", "NHWC", out=buf[100:220].reshape(2, 4, 5, 3))
    with pytest.raises(LayoutError, match="has 4 dims.*shape \\(2, 3, 4\\)"):
        ly.convert(np.zeros((2, 3, 4)), "NCHW", "NHWC")
    with pytest.raises(LayoutError, match="C=7 was given"):
        ly.convert(x, "NCHW", "NHWC", C=7)
    with pytest.raises(LayoutError, match="destination axes NDHW differ"):
        ly.convert(x, "NCHW", "NDHW")
    with pytest.raises(LayoutError, match="unknown size Q"):
        ly.convert(x, "NCHW", "NHWC", Q=3)
    with pytest.raises(LayoutError, match=r"convert\('NCHW' -> 'NHWC', input shape \(2, 3, 4\)\)"):
        ly.convert(np.zeros((2, 3, 4)), "NCHW", "NHWC")
    with pytest.raises(LayoutError, match="holds Python objects"):
        ly.convert(np.zeros((1, 1, 1, 1), object), "NCHW", "NHWC")
    src = Layout("NCHW", N=2, C=3, H=4, W=5)
    with pytest.raises(LayoutError, match="axis C has size 3 in the source but 4"):
        ly.convert(x, src, Layout("NHWC", N=2, C=4, H=4, W=5))


@st.composite
def pitched_pairs(draw):
    letters = draw(st.lists(st.sampled_from("NCHW"), min_size=1, max_size=4, unique=True))
    dims = {a: draw(st.integers(1, 5)) for a in letters}

    def layout():
        order = "".join(draw(st.permutations(letters)))
        blocks = draw(st.lists(st.sampled_from(letters), max_size=1))
        text = order + "".join(f"{draw(st.sampled_from([2, 4]))}{a.lower()}" for a in blocks)
        plain = Layout(text, **dims)
        pitch, pitch_at = {}, {}
        for pos in draw(st.lists(st.integers(0, plain.ndim - 1), max_size=2, unique=True)):
            name = plain.dim_names[pos]
            pitch_at[pos] = pitch[name] = plain.strides[name] * 2 + draw(st.integers(0, 3))
        try:
            return Layout(text, pitch=pitch or None, **dims), pitch_at
        except LayoutError:                  # a pitch that the other one outgrew: keep it packed
            return plain, {}

    return layout(), layout(), draw(st.sampled_from([np.uint8, np.float32, np.complex128]))


@settings(max_examples=80, deadline=None)
@given(pitched_pairs())
def test_pitched_flat_buffers_both_ways(case):
    (src, src_pitch), (dst, dst_pitch), dtype = case
    axes = "".join(src.axes)
    logical = (np.arange(src.count) + 1).astype(dtype).reshape([src.dims[a] for a in axes])
    x_phys = blocked_physical(logical, axes, _spec_dims(src.spec))
    x_flat = pitched_buffer(x_phys, *expected_strides(x_phys.shape, src_pitch))
    out = np.full(dst.size, 77, dtype=dtype)
    ly.convert(x_flat, src, dst, out=out)
    y_phys = blocked_physical(logical, axes, _spec_dims(dst.spec))
    strides, size = expected_strides(y_phys.shape, dst_pitch)
    assert out.size == size
    expected = pitched_buffer(y_phys, strides, size)
    assert np.array_equal(out, expected)          # every element in place, every gap and padding slot zero


def test_thread_setting():
    x = np.random.default_rng(7).standard_normal((2, 5, 6, 7)).astype(np.float32)
    try:
        ly.set_threads(1)
        assert ly.get_threads() == 1
        assert np.array_equal(ly.convert(x, "NCHW", "NHWC"), x.transpose(0, 2, 3, 1))
    finally:
        ly.set_threads(None)
    with pytest.raises(LayoutError, match="threads must be None or an int >= 1, got 0"):
        ly.convert(x, "NCHW", "NHWC", threads=0)
    with pytest.raises(LayoutError, match="got True"):
        ly.set_threads(True)


def test_zero_size_pitched_out_is_all_zero():
    L = Layout("HWC", H=2, W=0, C=3, pitch={"H": 12})
    out = np.full(L.size, 7.0)
    ly.convert(np.zeros((2, 0, 3)), "HWC", L, out=out)
    assert L.size == 24 and np.all(out == 0)


def test_ascend_destination_keeps_the_source_block():
    x = np.arange(2 * 2 * 2 * 16, dtype=np.uint8).reshape(1, 2, 2, 2, 16)    # C0=16 though 8-bit
    assert np.array_equal(ly.convert(x, "NC1HWC0", "NC1HWC0"), x)


@pytest.mark.parametrize("dtype", [np.float32, np.uint8, np.complex64, np.float64])
@pytest.mark.parametrize("shape", [(2, 2, 3, 5, 16), (4, 2, 24, 20, 16)], ids=["small", "kernels"])
def test_repeated_conversions_of_a_blocked_source_warn_whenever_its_last_channel_is_zero(shape, dtype):
    """Later calls into ``out`` take a short path that probes a few elements of the padding slot
    (the last channel): the warning must still come exactly when that channel holds only zeros,
    as on the first call, also when the probed elements are zero and the rest is not; and NaN
    bit patterns there (signalling NaNs make any() warn) give no warning on any call."""
    import importlib
    convert_module = importlib.import_module("layouts.conversion.front")
    rng = np.random.default_rng(3)
    x = (rng.integers(1, 250, shape)).astype(dtype)
    want_of = lambda a: a.transpose(0, 1, 4, 2, 3).reshape(shape[0], -1, *shape[2:4])   # numpy's own
    out = np.full((shape[0], shape[1] * 16, *shape[2:4]), 7, dtype)
    zeroed, probed_zero, nan = x.copy(), x.copy(), x.copy()
    zeroed[:, -1, ..., 15] = 0
    probed_zero[0, -1, 0, :, 15] = 0                    # the first run of the slot, not all of it
    if nan.dtype.kind == "f":                           # signalling NaNs in the slot
        bits = {4: np.uint32(0x7F800001), 8: np.uint64(0x7FF0000000000001)}[nan.itemsize]
        nan.view(bits.dtype)[:, -1, ..., 15] = bits
    convert_module._converters.clear()
    for k, (a, warns) in enumerate(((x, False), (x, False), (zeroed, True), (x, False), (probed_zero, False),
                                    (zeroed, True), (nan, False), (nan, False))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert ly.convert(a, "NCHW16c", "NCHW", out=out) is out
        assert [issubclass(w.category, ly.LayoutWarning) for w in caught] == ([True] if warns else []), k
        assert np.array_equal(out, want_of(a), equal_nan=True)
        if k == 0:                                      # the later calls can take the short path
            assert ("NCHW16c", "NCHW", x.shape, x.dtype, out.shape, out.dtype) in convert_module._converters


@pytest.mark.parametrize("shape", [(2, 16, 3, 5), (4, 32, 24, 20)], ids=["small", "kernels"])
@pytest.mark.parametrize("src,dst", [("NCHW", "NHWC"), ("NHWC", "CHWN"), ("NCHW", "NCHW8c"), ("NCHW16c", "NCHW"),
                                     ("CHWN", "NHWC")])
def test_repeated_conversions_into_out_match_numpy_and_keep_refusing(src, dst, shape):
    """The second and later calls of one conversion into ``out`` take a short path (the first one
    checked it): np.copyto below small_bytes, the copy engine above (240 KiB here). The same bytes
    as numpy's, also from a source of other strides, and the same refusals."""
    from layouts import kernels
    rng = np.random.default_rng(7)
    dims = dict(zip("NCHW", shape))
    logical = rng.integers(0, 250, shape).astype(np.float32)
    x = ly.convert(logical, "NCHW", src)
    want = ly.convert(logical, "NCHW", dst)
    out = np.full(ly.Layout(dst, **dims).shape, -1, np.float32)
    strided = np.zeros(x.shape + (2,), np.float32)[..., 1]                 # x's shape, other strides
    strided[...] = x
    for threads, xi in ((None, x), (None, x), (1, strided), (2, x), (2, strided)):
        out[...] = -1
        assert ly.convert(xi, src, dst, out=out, threads=threads) is out and np.array_equal(out, want)
    for bad in (0, -1, 1.5):
        with pytest.raises(LayoutError, match="threads"):
            ly.convert(x, src, dst, out=out, threads=bad)
    frozen = out.copy()
    frozen.flags.writeable = False
    with pytest.raises(LayoutError, match="read-only"):
        ly.convert(x, src, dst, out=frozen)
    with pytest.raises(LayoutError, match="overlaps"):
        ly.convert(x, src, dst, out=x.reshape(out.shape))                    # C=16: no padding, same size
    with kernels.use_profile(kernels.current().replace(small_bytes=0)):       # the kernels, not the short path
        out[...] = -1
        assert np.array_equal(ly.convert(x, src, dst, out=out), want)


def test_a_blocked_source_of_a_structured_dtype_converts_and_warns_about_padding():
    """Fields have no truth value: the scan of the last channel slot reads their bytes."""
    dt = np.dtype([("a", "u1"), ("b", "<f4")])
    x = np.zeros((2, 2, 4, 4, 16), dt)
    x["b"] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = ly.convert(x, "NCHW16c", "NCHW")
    assert np.array_equal(y, x.transpose(0, 1, 4, 2, 3).reshape(2, 32, 4, 4))
    x["b"][:, -1, :, :, -1] = 0
    with pytest.warns(ly.LayoutWarning):
        ly.convert(x, "NCHW16c", "NCHW")
