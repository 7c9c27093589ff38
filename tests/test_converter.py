"""``ly.converter``: a conversion planned once, from outside. Each call's result is compared with
numpy's own transpose (or ``ly.convert``'s result where numpy has no one-line answer), and each
refusal names what differs."""

from __future__ import annotations

import pickle
import threading
import warnings

import numpy as np
import pytest

import layouts as ly
from layouts import Layout, LayoutError, LayoutTypeError, LayoutWarning

PERM = {("NCHW", "NHWC"): (0, 2, 3, 1), ("NHWC", "NCHW"): (0, 3, 1, 2), ("NCHW", "CHWN"): (1, 2, 3, 0)}


@pytest.mark.parametrize("pair", sorted(PERM))
@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32", "float64"])
def test_calls_equal_numpy_with_and_without_out(pair, dtype):
    rng = np.random.default_rng(0)
    shape = (4, 3, 10, 12) if pair[0] == "NCHW" else (4, 10, 12, 3)
    c = ly.converter(*pair, shape, dtype)
    for _ in range(3):
        x = rng.integers(0, 100, shape).astype(dtype)
        want = x.transpose(PERM[pair])
        y = c(x)
        assert y.dtype == x.dtype and np.array_equal(y, want)
        out = np.empty(want.shape, dtype)
        assert c(x, out=out) is out and np.array_equal(out, want)
        strided = np.ascontiguousarray(np.broadcast_to(x[..., None], x.shape + (2,)))[..., 0]   # other strides
        assert np.array_equal(c(strided), want)


def test_a_large_conversion_runs_on_the_kernels_and_threads():
    x = np.random.default_rng(1).integers(0, 255, (16, 3, 224, 224)).astype(np.uint8)
    c = ly.converter("NCHW", "NHWC", x.shape, x.dtype, threads=2)
    assert np.array_equal(c(x), x.transpose(0, 2, 3, 1))
    assert [e.strategy for e in c.explain()] == [e.strategy for e in ly.conversion.explain.explain_conversion(
        x.shape, x.dtype, "NCHW", "NHWC", threads=2)]


def test_padding_blocked_layouts_and_dims():
    x = np.arange(2 * 3 * 5 * 7, dtype=np.float32).reshape(2, 3, 5, 7)
    into = ly.converter("NCHW", "NCHW16c", x.shape, x.dtype)
    y = into(x)
    assert y.shape == into.out_shape == (2, 1, 5, 7, 16)
    assert np.array_equal(y[..., :3], x.transpose(0, 2, 3, 1)[:, None]) and not y[..., 3:].any()
    out = np.full(y.shape, 7, np.float32)
    into(x, out=out)
    assert not out[..., 3:].any()                                  # padding written as zeros
    back = ly.converter("NCHW16c", "NCHW", y.shape, y.dtype, C=3)
    assert np.array_equal(back(y), x)


def test_pitched_and_flat_layouts():
    src = Layout("NHWC", N=1, C=3, H=4, W=5, pitch={"H": 64})          # rows of 64 elements
    flat = np.arange(src.size, dtype=np.uint8)
    c = ly.converter(src, "NCHW", (src.size,), np.uint8)
    assert np.array_equal(c(flat), ly.convert(flat, src, "NCHW"))
    dst = Layout("NHWC", N=1, C=3, H=4, W=5, pitch={"H": 64})
    x = np.arange(60, dtype=np.uint8).reshape(1, 3, 4, 5)
    to_pitched = ly.converter("NCHW", dst, x.shape, x.dtype)
    buf = np.full(dst.size, 9, np.uint8)
    to_pitched(x, out=buf)
    assert np.array_equal(buf, ly.convert(x, "NCHW", dst, out=np.empty(dst.size, np.uint8)))


def test_mismatches_are_refused_by_name_and_leave_out_untouched():
    c = ly.converter("NCHW", "NHWC", (2, 3, 4, 5), "float32")
    out = np.full((2, 4, 5, 3), 7, np.float32)
    with pytest.raises(LayoutError, match=r"x has shape \(2, 3, 4, 6\), expected \(2, 3, 4, 5\)"):
        c(np.zeros((2, 3, 4, 6), np.float32), out=out)
    with pytest.raises(LayoutError, match="x has dtype float64, expected float32"):
        c(np.zeros((2, 3, 4, 5)), out=out)
    x = np.zeros((2, 3, 4, 5), np.float32)
    with pytest.raises(LayoutError, match=r"out has shape \(2, 3, 4, 5\), expected \(2, 4, 5, 3\)"):
        c(x, out=np.empty((2, 3, 4, 5), np.float32))
    with pytest.raises(LayoutError, match="out has dtype float64"):
        c(x, out=np.empty((2, 4, 5, 3)))
    ro = np.empty((2, 4, 5, 3), np.float32)
    ro.flags.writeable = False
    with pytest.raises(LayoutError, match="read-only"):
        c(x, out=ro)
    with pytest.raises(LayoutError, match="overlaps x"):
        c(x, out=x.reshape(2, 4, 5, 3))
    with pytest.raises(LayoutTypeError, match="out must be a numpy array"):
        c(x, out=[1, 2])
    assert (out == 7).all()


def test_bad_construction_raises_at_once():
    with pytest.raises(LayoutError, match="converter"):
        ly.converter("NCHW", "NHWQ", (1, 2, 3, 4), "float32")
    with pytest.raises(LayoutError, match="converter"):
        ly.converter("NCHW", "NHWC", (1, 2, 3), "float32")
    with pytest.raises(LayoutTypeError, match="shape must be a sequence of ints"):
        ly.converter("NCHW", "NHWC", 5, "float32")
    with pytest.raises(LayoutTypeError, match="not a numpy"):
        ly.converter("NCHW", "NHWC", (1, 2, 3, 4), "floaty")
    with pytest.raises(LayoutError, match="threads"):
        ly.converter("NCHW", "NHWC", (1, 2, 3, 4), "float32", threads=0)
    with pytest.raises(LayoutError, match="objects"):
        ly.converter("NCHW", "NHWC", (1, 2, 3, 4), object)


def test_the_padding_warning_comes_per_call_from_the_data():
    c = ly.converter("NCHW16c", "NCHW", (1, 1, 2, 2, 16), "float32")   # C not given: read as 16
    data = np.ones((1, 1, 2, 2, 16), np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c(data)                                                    # last channel nonzero: no warning
    data[..., 15] = 0
    with pytest.warns(LayoutWarning, match="padding"):
        c(data)


def test_pickles_and_reprs():
    c = ly.converter("NCHW", "NCHW8c", (2, 3, 4, 4), "uint8", threads=1)
    c2 = pickle.loads(pickle.dumps(c))
    x = np.arange(96, dtype=np.uint8).reshape(2, 3, 4, 4)
    assert np.array_equal(c2(x), c(x))
    assert repr(c2) == repr(c) == "Converter('NCHW' -> 'NCHW8c', shape (2, 3, 4, 4), uint8 -> (2, 1, 4, 4, 8), threads=1)"
    lay = ly.converter(Layout("NHWC", N=1, C=3, H=4, W=5, pitch={"H": 64}), "NCHW", (1, 4, 5, 3), "uint8")
    assert np.array_equal(pickle.loads(pickle.dumps(lay))(np.ones((1, 4, 5, 3), np.uint8)), np.ones((1, 3, 4, 5)))


def test_many_threads_at_once():
    c = ly.converter("NCHW", "NHWC", (8, 3, 64, 64), "float32", threads=1)
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal((8, 3, 64, 64)).astype(np.float32) for _ in range(8)]
    bad = []

    def work(x):
        for _ in range(20):
            if not np.array_equal(c(x), x.transpose(0, 2, 3, 1)):
                bad.append(1)
    ts = [threading.Thread(target=work, args=(x,)) for x in xs]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not bad


def test_torch_tensors_come_back_as_tensors():
    torch = pytest.importorskip("torch")
    x = torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).reshape(2, 3, 4, 5)
    c = ly.converter("NCHW", "NHWC", (2, 3, 4, 5), torch.float32)
    y = c(x)
    assert isinstance(y, torch.Tensor) and torch.equal(y, x.permute(0, 2, 3, 1))
    out = torch.empty(2, 4, 5, 3)
    assert c(x, out=out) is out and torch.equal(out, x.permute(0, 2, 3, 1))
    with pytest.raises(LayoutError, match="x has dtype"):
        c(x.double())
    bf = ly.converter("NCHW", "NHWC", (2, 3, 4, 5), torch.bfloat16)
    xb = x.to(torch.bfloat16)
    assert torch.equal(bf(xb), xb.permute(0, 2, 3, 1))
    with pytest.raises(LayoutError, match="x has dtype"):
        bf(x.to(torch.float16))
    # a channels_last tensor named by its memory order, as convert reads it
    cl = x.contiguous(memory_format=torch.channels_last)
    mem = ly.converter("NHWC", "NCHW", (2, 4, 5, 3), "float32")
    assert torch.equal(mem(cl), x)


def test_layouts_of_other_kinds_go_through_convert():
    from layouts import cute
    src = cute.Layout((4, 6), (6, 1))
    dst = cute.Layout((4, 6), (1, 4))
    c = ly.converter(src, dst, (24,), "int32")
    x = np.arange(24, dtype=np.int32)
    assert np.array_equal(c(x), ly.convert(x, src, dst))
    with pytest.raises(LayoutError, match="expected"):
        c(np.arange(25, dtype=np.int32))
    with pytest.raises(LayoutTypeError, match="explain covers conversions between specs and Layouts"):
        c.explain()


def test_dask_arrays_stay_lazy():
    da = pytest.importorskip("dask.array")
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    c = ly.converter("NCHW", "NHWC", x.shape, x.dtype)
    y = c(da.from_array(x, chunks=(1, 3, 4, 5)))
    assert isinstance(y, da.Array) and np.array_equal(y.compute(), x.transpose(0, 2, 3, 1))
    with pytest.raises(LayoutError, match="x has shape"):
        c(da.from_array(x[:1], chunks=(1, 3, 4, 5)))


@pytest.mark.parametrize("shape", [(2, 3, 8, 8), (16, 3, 64, 64)], ids=["numpy's copies", "kernels"])
def test_calls_into_one_out_are_made_again_from_the_first_and_stay_right(shape, monkeypatch):
    """A converter's calls into one ``out`` take the repeat path from the first call, never the
    checked full path (kernel calls kept for the two buffers, or one ``np.copyto`` for a small
    tensor); each later call on new data equals numpy's transpose, so does a source of other
    strides, and a read-only or overlapping ``out`` is still refused by name."""
    from layouts.conversion import converter as converter_module, replays
    replays.forget()
    rng = np.random.default_rng(5)
    x = rng.integers(0, 255, shape).astype(np.float32)
    c = ly.converter("NCHW", "NHWC", shape, np.float32, threads=1)
    out = np.empty(x.transpose(0, 2, 3, 1).shape, np.float32)
    full_writes = []
    real_write = converter_module.write
    monkeypatch.setattr(converter_module, "write", lambda *a: (full_writes.append(a), real_write(*a)))
    c(x, out=out)
    assert np.array_equal(out, x.transpose(0, 2, 3, 1))
    if shape[-1] > 8:
        assert replays.kept(out), "the first call into out kept no calls to make again"
    for _ in range(3):
        x[...] = rng.integers(0, 255, shape)
        assert c(x, out=out) is out and np.array_equal(out, x.transpose(0, 2, 3, 1))
    assert not full_writes, "a call into out took the full path"
    other = np.ascontiguousarray(np.broadcast_to(x[..., None], x.shape + (2,)))[..., 1]
    assert c(other, out=out) is out and np.array_equal(out, x.transpose(0, 2, 3, 1))
    before = out.copy()
    out.flags.writeable = False
    with pytest.raises(LayoutError, match="read-only"):
        c(x, out=out)
    out.flags.writeable = True
    with pytest.raises(LayoutError, match="overlaps"):
        c(x, out=x.reshape(out.shape))
    assert np.array_equal(out, before)


def test_converts_cache_of_converters_stays_bounded_and_right():
    """``convert`` keeps a converter per checked signature into an ``out``, at most
    ``MAX_CONVERTERS``; past the bound each call is still numpy's answer."""
    from layouts.conversion import front
    front._converters.clear()
    for n in range(front.MAX_CONVERTERS + 20):
        x = np.arange(n + 1, dtype=np.int16).reshape(1, n + 1, 1, 1) * np.ones((1, 1, 1, 2), np.int16)
        out = np.empty((1, 1, 2, n + 1), np.int16)
        for _ in range(2):
            assert ly.convert(x, "NCHW", "NHWC", out=out) is out
            assert np.array_equal(out, x.transpose(0, 2, 3, 1))
        assert 0 < len(front._converters) <= front.MAX_CONVERTERS


def test_a_structured_dtypes_gaps_move_on_every_repeat():
    """A structured dtype with bytes between its fields: every call, the first full one and the
    repeats of convert and of a converter (numpy's copies for a small tensor, kernel calls for a
    larger one), moves whole elements, gap bytes included, as numpy's transpose of the raw bytes."""
    dt = np.dtype({"names": ["a", "b"], "formats": ["u1", "<f4"], "offsets": [0, 4], "itemsize": 8})
    rng = np.random.default_rng(11)
    for shape in [(1, 3, 4, 5), (8, 3, 32, 32)]:
        x = np.empty(shape, dt)
        c = ly.converter("NCHW", "NHWC", shape, dt)
        outs = [np.empty((shape[0], shape[2], shape[3], shape[1]), dt) for _ in range(2)]
        for _ in range(3):
            x.view(np.uint8)[...] = rng.integers(0, 256, x.nbytes, dtype=np.uint8).reshape(x.view(np.uint8).shape)
            want = x.view(np.uint8).reshape(shape + (8,)).transpose(0, 2, 3, 1, 4)
            assert ly.convert(x, "NCHW", "NHWC", out=outs[0]) is outs[0]
            assert c(x, out=outs[1]) is outs[1]
            for out in outs:
                assert np.array_equal(out.view(np.uint8).reshape(want.shape), want)


@pytest.mark.parametrize("src,dst", [("NCHW", "NHWC"), ("NHWC", "NCHW"), ("NCHW", "CHWN"), ("CHWN", "NHWC"),
                                     ("NCHW", "NCHW"), ("NHWC", "WHCN")])
@pytest.mark.parametrize("shape", [(1, 3, 8, 8), (2, 1, 5, 1), (1, 1, 1, 1), (3, 4, 2, 6)])
def test_small_repeats_between_unblocked_specs_are_numpys_einsum(src, dst, shape):
    """Small conversions between unblocked specs repeat as one copy of ``x`` transposed whole:
    each call, into one ``out`` and for a source of other strides (a view of a larger array) of
    the same shape, equals ``np.einsum`` of the two specs' letters (an independent oracle)."""
    rng = np.random.default_rng(len(src + dst) + sum(shape))
    c = ly.converter(src, dst, shape, np.float32)
    want_shape = tuple(shape[src.index(a)] for a in dst)
    out = np.empty(want_shape, np.float32)
    for strided in (False, True, False):
        x = rng.random(shape).astype(np.float32)
        if strided:
            x = np.repeat(x, 2, axis=-1)[..., ::2]            # same values, other strides
        want = np.einsum(f"{src}->{dst}", x)
        assert c(x, out=out) is out and np.array_equal(out, want)
        assert np.array_equal(c(x), want)
