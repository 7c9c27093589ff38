"""Blocked layouts whose block does not divide the axis: the padded rows written in one pass
(:func:`layouts.kernels.copy_padded_into`) and read back (the ``padded-rows`` strategy), checked
against numpy's two-step answer (copy the data, zero the rest) on random shapes, dtypes, block
sizes, source strides and output alignments, through the kernels and through ``convert``.

Every test pins the AVX-512 EPYC reference profile, with thresholds lowered where a test needs
the kernels (and their vector path) on small arrays, so the choices hold on any host."""

from __future__ import annotations

import numpy as np
import pytest

import layouts as ly
from layouts import Layout, LayoutError, LayoutTypeError, kernels
from layouts.conversion import loading
from layouts.conversion.explain import explain_conversion
from layouts.conversion.plan import CopyStep, PaddedCopyStep, plan
from layouts.kernels.machine.profile import reference
from layouts.kernels.padded import copy_padded_into, explain_padded

AMD = reference("epyc-avx512")
#: the kernels at every size, on any thread count: small arrays reach the vector path
EAGER = AMD.replace(small_bytes=0, thread_min_bytes=0, thread_min_bytes_by_strategy=())


@pytest.fixture(autouse=True)
def pinned():
    with kernels.use_profile(AMD):
        yield


def _aligned(shape, dtype, shift_units):
    """An array of ``shape`` whose data starts ``shift_units`` elements past a 64-byte line."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    buf = np.empty(n * dt.itemsize + 128, np.uint8)
    off = (-buf.ctypes.data) % 64 + shift_units * dt.itemsize
    return buf[off:off + n * dt.itemsize].view(dt).reshape(shape)


def _expected(dst_before, src):
    C = src.shape[-1]
    want = dst_before.copy()
    want[..., :C] = src
    want[..., C:] = 0
    return want


DTYPES = [np.uint8, np.float16, np.float32, np.float64]


@pytest.mark.parametrize("nt", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_padded_rows_equal_numpy_for_random_views(seed, nt):
    rng = np.random.default_rng(seed)
    with kernels.use_profile(EAGER.replace(nt_min_bytes=0, nt_stores=nt)):
        for _ in range(25):
            dt = DTYPES[rng.integers(len(DTYPES))]
            P = int(rng.choice([4, 8, 16, 32, 3, 12, 64]))
            C = int(rng.integers(1, P + 1))
            N, H = (int(v) for v in rng.integers(1, 4, 2))
            W = int(rng.integers(1, 200))
            x = rng.integers(0, 120, (N, C, H, W)).astype(dt)
            planes = rng.random() < 0.7          # NCHW source (unit-stride planes), else NHWC
            src = x.transpose(0, 2, 3, 1) if planes else np.ascontiguousarray(x.transpose(0, 2, 3, 1))
            out = _aligned((N, 2, H, W, P), dt, int(rng.integers(0, 3)))
            out[...] = 77
            before = out.copy()
            copy_padded_into(out[:, 1], src, threads=int(rng.integers(1, 3)))
            want = before.copy()
            want[:, 1] = _expected(before[:, 1], src)
            assert np.array_equal(out, want), (dt, P, C, N, H, W, planes)


def test_odd_views_take_numpy_and_give_the_same_bytes():
    x = np.arange(2 * 3 * 40, dtype=np.float32).reshape(2, 40, 3)
    with kernels.use_profile(EAGER):
        out = np.full((2, 40, 8), 5, np.float32)
        copy_padded_into(out, x[:, ::-1])                          # a negative stride
        assert np.array_equal(out, _expected(np.full_like(out, 5), x[:, ::-1]))
        rec = np.zeros((2, 40, 8), [("a", np.uint8), ("b", np.float32)])
        src = np.ones((2, 40, 3), rec.dtype)
        copy_padded_into(rec, src)                                 # a structured dtype
        assert (rec["b"][..., :3] == 1).all() and (rec["b"][..., 3:] == 0).all()
        buf = np.arange(40 * 8, dtype=np.float32)
        copy_padded_into(buf.reshape(40, 8)[:, :8], buf.reshape(40, 8)[:, :2])   # src inside dst
        assert np.array_equal(buf.reshape(40, 8)[:, 2:], np.zeros((40, 6), np.float32))
        assert np.array_equal(buf.reshape(40, 8)[:, :2], np.arange(320, dtype=np.float32).reshape(40, 8)[:, :2])


def test_bad_arguments_are_refused_and_leave_dst_as_it_was():
    out = np.ones((4, 8), np.float32)
    with pytest.raises(LayoutTypeError, match="numpy arrays"):
        copy_padded_into([[1.0]], out)
    with pytest.raises(LayoutError, match="last dimension at least as long"):
        copy_padded_into(out, np.zeros((4, 9), np.float32))
    with pytest.raises(LayoutError, match="last dimension at least as long"):
        copy_padded_into(out, np.zeros((3, 2), np.float32))
    with pytest.raises(LayoutError, match="dtypes differ"):
        copy_padded_into(out, np.zeros((4, 2), np.float64))
    ro = np.ones((4, 8), np.float32)
    ro.flags.writeable = False
    with pytest.raises(LayoutError, match="read-only"):
        copy_padded_into(ro, np.zeros((4, 2), np.float32))
    assert (out == 1).all()


@pytest.mark.parametrize("P", [4, 8, 16, 32])
@pytest.mark.parametrize("dtype", DTYPES)
def test_planes_from_padded_rows_take_the_padded_rows_strategy(P, dtype):
    rng = np.random.default_rng(P)
    C = int(rng.integers(2, P))
    n = 1000 + int(rng.integers(0, 64))
    rows = rng.integers(0, 120, (2, n, P)).astype(dtype)
    src = rows[..., :C].transpose(0, 2, 1)                         # (2, C, n) planes out of rows of P
    with kernels.use_profile(EAGER.replace(nt_min_bytes=0)):
        for shift in (0, 1):
            out = _aligned((2, C, n), dtype, shift)
            assert kernels.explain_copy(out, src, threads=1).strategy == "padded-rows"
            kernels.copy_into(out, src, threads=2)
            assert np.array_equal(out, src)


def _blocked(x, block):
    """NCHW -> NCHW{block}c by numpy, the padding zero."""
    N, C, H, W = x.shape
    C1 = -(-C // block)
    y = np.zeros((N, C1 * block, H, W), x.dtype)
    y[:, :C] = x
    return y.reshape(N, C1, block, H, W).transpose(0, 1, 3, 4, 2)


CELLS = [("NCHW16c", 16, 3, np.float32), ("NCHW16c", 16, 17, np.float32), ("NCHW8c", 8, 3, np.float32),
         ("NCHW8c", 8, 3, np.uint8), ("NCHW16c", 16, 5, np.float64)]


@pytest.mark.parametrize("movers", ["kernels", "numpy"])
@pytest.mark.parametrize("spec,block,C,dtype", CELLS)
def test_convert_into_and_out_of_padded_blocks(spec, block, C, dtype, movers, monkeypatch):
    if movers == "numpy":
        monkeypatch.setattr(loading, "movers", lambda nbytes: loading.NUMPY_MOVERS)
    rng = np.random.default_rng(C)
    x = rng.integers(1, 100, (2, C, 5, 37)).astype(dtype)
    want = _blocked(x, block)
    with kernels.use_profile(EAGER):
        assert np.array_equal(ly.convert(x, "NCHW", spec), want)
        out = np.full(want.shape, 9, dtype)                        # garbage where the padding goes
        ly.convert(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), "NHWC", spec, out=out)
        assert np.array_equal(out, want)
        assert np.array_equal(ly.convert(want, spec, "NCHW", C=C), x)


def test_ascend_nc1hwc0_pads_c0():
    x = np.random.default_rng(0).standard_normal((2, 3, 6, 50)).astype(np.float16)
    with kernels.use_profile(EAGER):
        y = ly.convert(x, "NCHW", "NC1HWC0")
        assert y.shape == (2, 1, 6, 50, 16)
        assert np.array_equal(y, _blocked(x, 16))
        assert np.array_equal(ly.convert(y, "NC1HWC0", "NCHW", C=3), x)


def test_the_plan_writes_the_last_block_with_its_padding_in_one_step():
    steps, pads = plan(Layout("NCHW", N=1, C=20, H=2, W=2), Layout("NCHW16c", N=1, C=20, H=2, W=2))
    assert [type(s) for s in steps] == [CopyStep, PaddedCopyStep] and pads == []
    # padded on two axes: the plain steps and a zero fill of each axis's padding
    steps, pads = plan(Layout("NCHW", N=1, C=20, H=3, W=2), Layout("NCHW16c4h", N=1, C=20, H=3, W=2))
    assert all(type(s) is CopyStep for s in steps) and len(pads) == 2


def test_explain_names_the_padded_step():
    steps = explain_conversion((8, 3, 224, 224), "float32", "NCHW", "NCHW16c", threads=1)
    assert [e.strategy for e in steps] == ["padded"]
    assert steps[0].params["C"] == 3 and steps[0].params["P"] == 16 and steps[0].params["vector"]
    back = explain_conversion((8, 2, 224, 224, 16), "float32", "NCHW16c", "NCHW", threads=1, C=20)
    assert [e.strategy for e in back] == ["simd-tiles", "padded-rows"]
    x = np.zeros((2, 3, 4), np.float32)
    assert explain_padded(np.empty((2, 4, 8), np.float32), x.transpose(0, 2, 1)).strategy == "numpy"   # small
