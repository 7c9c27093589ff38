"""Your array type back: torch tensors, DLPack and array-API objects through convert().

Oracles: torch's own permute/reshape/pad and numpy transposes; memory sharing checked by
data pointers. torch is the real library (CPU build); the file skips only if it is missing.
"""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

import layouts as ly
from layouts import LayoutError
from hostile import check_refused

torch = pytest.importorskip("torch")


def _t(shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point or dtype.is_complex:
        return torch.randn(*shape, generator=g).to(dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    return torch.randint(0, 100, shape, generator=g).to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8,
                                   torch.uint8, torch.int16, torch.int32, torch.int64, torch.bool,
                                   torch.complex64, torch.complex128]
                         + [getattr(torch, n) for n in ("uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2")
                            if hasattr(torch, n)])
def test_torch_in_torch_out_every_dtype(dtype):
    t = _t((2, 3, 4, 5), torch.float32 if dtype.is_floating_point and dtype.itemsize == 1 else dtype)
    t = t.to(dtype)
    y = ly.convert(t, "NCHW", "NHWC")
    assert isinstance(y, torch.Tensor) and y.dtype == dtype and y.shape == (2, 4, 5, 3)
    expected = t.permute(0, 2, 3, 1).contiguous()
    same_bits = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64, 16: None}[dtype.itemsize]
    if same_bits is None:
        assert torch.equal(y, expected)
    else:                                                      # bitwise, NaN payloads included
        assert torch.equal(y.view(same_bits), expected.view(same_bits))


def test_bfloat16_moves_raw_bits_including_nan_payloads():
    bits = torch.tensor([0x7FC1, 0x7F81, -1, 0x0001, -0x8000, 0x3F80] * 4, dtype=torch.int16).reshape(1, 6, 2, 2)
    t = bits.view(torch.bfloat16)
    z = ly.convert(t, "NCHW", "NCHW16c")
    assert z.dtype == torch.bfloat16 and z.shape == (1, 1, 2, 2, 16)
    assert torch.equal(z.view(torch.int16)[0, 0, :, :, :6], bits[0].permute(1, 2, 0))
    assert torch.count_nonzero(z.view(torch.int16)[..., 6:]) == 0          # padding is zero bits
    back = ly.convert(z, "NCHW16c", "NCHW", C=6)
    assert torch.equal(back.view(torch.int16), bits)


def test_zero_copy_in_and_out():
    t = _t((1, 3, 4, 5))
    y = ly.convert(t, "NCHW", "NCHW", copy=None)               # nothing to do: the same memory
    assert isinstance(y, torch.Tensor) and y.data_ptr() == t.data_ptr()
    c1 = _t((2, 1, 4, 5))
    v = ly.convert(c1, "NCHW", "NHWC", copy=None)              # C == 1: NHWC stores it alike
    assert v.data_ptr() == c1.data_ptr() and v.shape == (2, 4, 5, 1)
    v[0, 0, 0, 0] = 123.0
    assert c1[0, 0, 0, 0] == 123.0                             # a view, both ways
    fresh = ly.convert(c1, "NCHW", "NHWC")                     # copy=True: always new memory
    assert fresh.data_ptr() != c1.data_ptr() and torch.equal(fresh, c1.permute(0, 2, 3, 1))


def test_strided_and_channels_last_inputs():
    t = _t((2, 6, 5, 7))
    sliced = t[:, ::2, 1:, :]                                  # not contiguous
    assert torch.equal(ly.convert(sliced, "NCHW", "NHWC"), sliced.permute(0, 2, 3, 1))
    cl = t.to(memory_format=torch.channels_last)
    assert torch.equal(ly.convert(cl, "NCHW", "CHWN"), t.permute(1, 2, 3, 0))


def test_out_may_be_a_tensor():
    t = _t((2, 3, 4, 5))
    out = torch.full((2, 4, 5, 3), float("nan"))
    r = ly.convert(t, "NCHW", "NHWC", out=out)
    assert r is out and torch.equal(out, t.permute(0, 2, 3, 1))
    b = t.to(torch.bfloat16)
    bout = torch.zeros((2, 4, 5, 3), dtype=torch.bfloat16)      # numpy lacks bfloat16: raw bits into it too
    assert ly.convert(b, "NCHW", "NHWC", out=bout) is bout
    assert torch.equal(bout.view(torch.int16), b.permute(0, 2, 3, 1).view(torch.int16))
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    tout = torch.empty(2, 4, 5, 3)
    assert ly.convert(x, "NCHW", "NHWC", out=tout) is tout         # numpy in, tensor out= given
    assert np.array_equal(tout.numpy(), x.transpose(0, 2, 3, 1))


def test_blocked_round_trip_against_torch_pad():
    t = _t((2, 20, 3, 3))
    z = ly.convert(t, "NCHW", "NCHW16c")
    padded = torch.nn.functional.pad(t, (0, 0, 0, 0, 0, 12))       # C 20 -> 32
    assert torch.equal(z, padded.reshape(2, 2, 16, 3, 3).permute(0, 1, 3, 4, 2))
    assert torch.equal(ly.convert(z, "NCHW16c", "NCHW", C=20), t)


def test_refusals_say_what_to_do():
    t = _t((2, 3, 4, 5))
    g = t.clone().requires_grad_()
    check_refused(lambda: ly.convert(g, "NCHW", "NHWC"), LayoutError, ["requires grad", ".detach()"])
    check_refused(lambda: ly.convert(t.to_sparse(), "NCHW", "NHWC"), LayoutError, "to_dense")
    out = torch.zeros(2, 4, 5, 3)
    check_refused(lambda: ly.convert(t, "NCHW", "NHWC", out=torch.zeros(2, 4, 5, 3).requires_grad_()), LayoutError, "requires grad")
    check_refused(lambda: ly.convert(t, "NCHW", "NHWC", out=torch.zeros(2, 4, 5, 3, dtype=torch.complex64).conj()),
                  LayoutError, "conjugate")
    check_refused(lambda: ly.convert(t, "NCHW", "NHWC", out=torch.zeros(2, 4, 5, 3, dtype=torch.float64)), LayoutError, "dtype")
    before = out.clone()
    check_refused(lambda: ly.convert(t, "NCHW", "NHWC", out=out, C=7), LayoutError, "C=7")
    assert torch.equal(out, before)                              # a failing call leaves out untouched


def test_requires_grad_detached_works_and_conj_is_resolved():
    t = _t((2, 3, 4, 5)).requires_grad_()
    y = ly.convert(t.detach(), "NCHW", "NHWC")
    assert not y.requires_grad and torch.equal(y, t.detach().permute(0, 2, 3, 1))
    c = _t((1, 2, 3, 4), torch.complex64).conj()
    assert torch.equal(ly.convert(c, "NCHW", "NHWC"), c.resolve_conj().permute(0, 2, 3, 1))


def test_out_written_bumps_autograd_version_so_a_stale_graph_raises():
    """A graph that saved ``o`` before convert wrote into it must raise on backward, as it does
    after torch's own ``o.copy_(...)`` (found: the gradient came out silently from the new values)."""
    src = torch.ones(1, 3, 4, 5)
    for dtype in (torch.float32, torch.bfloat16):               # bfloat16: written through its int16 bits
        w = torch.ones(1, 4, 5, 3, dtype=dtype, requires_grad=True)
        o = torch.zeros(1, 4, 5, 3, dtype=dtype)
        y = (w * o).sum()
        v0 = o._version
        assert ly.convert(src.to(dtype), "NCHW", "NHWC", out=o) is o
        assert o._version > v0 and torch.equal(o, src.to(dtype).permute(0, 2, 3, 1))
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.backward()
    base = torch.zeros(2, 4, 5, 3)                              # a view as out: its base's counter moves too
    v0 = base._version
    ly.convert(src, "NCHW", "NHWC", out=base[1:])
    assert base._version > v0 and torch.equal(base[1], src[0].permute(1, 2, 0)) and not base[0].any()


def test_torch_dtypes_are_not_reinterpreted_as_their_raw_bits():
    """bfloat16 moves as int16 bits, but is not int16: convert does not cast, either way."""
    x = torch.arange(120, dtype=torch.float32).reshape(2, 3, 4, 5).to(torch.bfloat16)
    i16 = torch.full((2, 4, 5, 3), 7, dtype=torch.int16)
    check_refused(lambda: ly.convert(x, "NCHW", "NHWC", out=i16), LayoutError, ["torch.bfloat16", "int16", "cast"])
    assert (i16 == 7).all()
    b16 = torch.full((2, 4, 5, 3), 7, dtype=torch.bfloat16)
    for x16 in (np.arange(120, dtype=np.int16).reshape(2, 3, 4, 5), torch.arange(120, dtype=torch.int16).reshape(2, 3, 4, 5)):
        check_refused(lambda: ly.convert(x16, "NCHW", "NHWC", out=b16), LayoutError, ["torch.bfloat16", "int16", "cast"])
    assert (b16 == 7).all()
    f16 = np.zeros((2, 4, 5, 3), np.float16)                    # float16 vs bfloat16: same size, other dtype
    check_refused(lambda: ly.convert(x, "NCHW", "NHWC", out=f16), LayoutError, ["torch.bfloat16", "float16"])
    ok = np.zeros((2, 4, 5, 3), np.float32)                     # torch float32 into numpy float32: the same dtype
    ly.convert(x.float(), "NCHW", "NHWC", out=ok)
    assert np.array_equal(ok, x.float().permute(0, 2, 3, 1).numpy())


def test_copy_false_refuses_a_lazy_conjugate_or_negative_view():
    """Reading a conj/neg view resolves it, a copy: copy=False must say so, not copy silently."""
    c = _t((1, 2, 3, 4), torch.complex64).conj()
    n = torch._neg_view(_t((1, 2, 3, 4)))
    for v in (c, n):
        check_refused(lambda: ly.convert(v, "NCHW", "NCHW", copy=False), LayoutError, ["copy=False", "conjugate/negative"])
        got = ly.convert(v, "NCHW", "NCHW", copy=None)                 # copy=None: the resolved values
        assert torch.equal(got, v.resolve_conj().resolve_neg()) and not got.is_conj() and not got.is_neg()


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_warning_turned_error_leaves_out_untouched(kind):
    """With -W error the padding warning raises: it must come before convert writes into out."""
    import warnings

    z = ly.convert(np.ones((1, 20, 2, 2), np.float32), "NCHW", "NCHW16c")   # C 20 padded to 32: zeros at c=31
    out = np.full((1, 32, 2, 2), 7, np.float32)
    if kind == "torch":
        z, out = torch.from_numpy(z), torch.from_numpy(out)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ly.LayoutWarning)
        with pytest.raises(ly.LayoutWarning, match="C=<true size>"):
            ly.convert(z, "NCHW16c", "NCHW", out=out)
    assert (out == 7).all()
    with pytest.warns(ly.LayoutWarning, match="C=<true size>") as caught:  # as a warning: written, and said at the caller
        ly.convert(z, "NCHW16c", "NCHW", out=out)
    assert caught[0].filename == __file__ and (out[:, :20] == 1).all() and (out[:, 20:] == 0).all()


class _DLPackOnly:
    """An array that speaks only DLPack (as a foreign library's CPU array would)."""

    def __init__(self, a):
        self._a = a
        self.shape = a.shape

    def __dlpack__(self, **kwargs):
        return self._a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


class _APIArray(_DLPackOnly):
    """An array-API array: its namespace's from_dlpack builds the result."""

    def __array_namespace__(self, api_version=None):
        ns = types.SimpleNamespace()
        ns.from_dlpack = lambda obj: _APIArray(np.from_dlpack(obj))
        ns.asarray = lambda obj: _APIArray(np.asarray(obj))
        return ns


@pytest.mark.skipif(not hasattr(np, "from_dlpack"), reason="numpy without DLPack")
def test_dlpack_and_array_api_objects():
    x = np.arange(2 * 3 * 4 * 5, dtype=np.int16).reshape(2, 3, 4, 5)
    y = ly.convert(_DLPackOnly(x), "NCHW", "NHWC")
    assert isinstance(y, np.ndarray) and np.array_equal(y, x.transpose(0, 2, 3, 1))   # no namespace: numpy
    z = ly.convert(_APIArray(x), "NCHW", "NHWC")
    assert isinstance(z, _APIArray) and np.array_equal(z._a, x.transpose(0, 2, 3, 1))
    v = ly.convert(_APIArray(x[:1, :1]), "NCHW", "NHWC", copy=None)      # one image, C == 1: a view
    assert isinstance(v, _APIArray) and np.shares_memory(v._a, x)


def test_numpy_in_numpy_out_and_no_torch_import():
    x = np.zeros((1, 2, 3, 4), np.float32)
    assert type(ly.convert(x, "NCHW", "NHWC")) is np.ndarray
    assert type(ly.convert(x.tolist(), "NCHW", "NHWC")) is np.ndarray
    import subprocess
    code = ("import sys, numpy as np, layouts as ly; ly.convert(np.zeros((1, 2, 3, 4)), 'NCHW', 'NHWC', threads=1); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_failing_dlpack_exporter_is_a_layout_error():
    class Broken:
        shape = (2, 3)

        def __dlpack__(self, **kwargs):
            raise KeyError("exporter bug")

        def __dlpack_device__(self):
            return (1, 0)

    check_refused(lambda: ly.convert(Broken(), "HW", "WH"), LayoutError, ["broken", "dlpack"])
    check_refused(lambda: ly.convert(np.zeros((2, 3)), "HW", "WH", out=Broken()), LayoutError, "dlpack")
