"""Arrays off the host convert on their own device, in their own library (issue 57).

No GPU here, so the stand-ins: array_api_strict's second device (an array-API library with
devices), a wrapper that says its memory is on a CUDA device and fails the test if anything reads
it on the host (``__dlpack__``, ``__array__``), torch's meta device and torch.compile's tracing.
Each result is checked bitwise against the host conversion of the same values (numpy's path).
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import layouts as ly
from layouts import cute
from layouts.arrays.devices import NamespaceOps, TorchOps, off_host
from layouts.conversion.on_device import convert_on_device
from layouts.errors import LayoutError
from layouts.kinds import OffsetTable
from layouts.linear import LinearLayout

xp = pytest.importorskip("array_api_strict")
DEVICE1 = xp.Device("device1")

# (src, dst, shape of x, sizes): permutations of ranks 2-5, blocks with and without padding both
# ways, Ascend's named block, a blocked axis whose true size is given
CASES = [
    ("HW", "WH", (3, 5), {}),
    ("NCHW", "NHWC", (2, 3, 4, 5), {}),
    ("NCHW", "CHWN", (2, 3, 4, 5), {}),
    ("NHWC", "NCHW", (2, 4, 5, 3), {}),
    ("NCDHW", "NDHWC", (2, 3, 2, 4, 3), {}),
    ("NCHW", "NCHW8c", (2, 3, 4, 5), {}),
    ("NCHW", "NCHW16c", (1, 20, 3, 3), {}),
    ("NHWC", "NCHW4c", (2, 3, 3, 8), {}),
    ("NCHW8c", "NCHW", (2, 1, 4, 5, 8), {"C": 3}),
    ("NCHW16c", "NHWC", (1, 2, 3, 3, 16), {"C": 20}),
    ("NCHW8c", "NCHW16c", (1, 3, 2, 2, 8), {"C": 17}),
    ("NCHW", "NC1HWC0", (2, 5, 3, 3), {"C0": 4}),
    ("OIHW", "OIHW4i16o4i", (16, 20, 1, 2), {}),
]
DTYPES = ["int8", "uint8", "int16", "int32", "int64", "float32", "float64", "bool", "complex64"]


def _host(src, dst, shape, dtype, sizes, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.integers(0, 100, size=shape) % 2 == 0) if dtype == "bool" else rng.integers(-100, 100, size=shape).astype(dtype)
    return x, ly.convert(x, src, dst, **sizes)


@pytest.mark.parametrize("src, dst, shape, sizes", CASES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_array_api_conversion_on_the_second_device_equals_the_host_one(src, dst, shape, sizes, dtype):
    x, want = _host(src, dst, shape, dtype, sizes)
    on_device = xp.asarray(x, device=DEVICE1)
    got = convert_on_device(on_device, src, dst, ops=NamespaceOps(xp, on_device), dims=sizes)
    assert got.device == DEVICE1 and got.dtype == on_device.dtype
    assert np.array_equal(np.asarray(xp.asarray(got, device=xp.Device("CPU_DEVICE"))), want)


@pytest.mark.parametrize("src, dst, shape, sizes", CASES)
def test_torch_conversion_in_torch_equals_the_numba_one(src, dst, shape, sizes):
    torch = pytest.importorskip("torch")
    x, want = _host(src, dst, shape, "float32", sizes)
    t = torch.from_numpy(x)
    got = convert_on_device(t, src, dst, ops=TorchOps(t), dims=sizes)
    assert got.is_contiguous() and np.array_equal(got.numpy(), want)
    for dtype in (torch.bfloat16, torch.float8_e4m3fn):       # dtypes numpy lacks: compared as raw bits
        b = t.to(dtype)
        raw = convert_on_device(b, src, dst, ops=TorchOps(b), dims=sizes)
        assert raw.dtype == dtype
        bits = torch.int16 if dtype == torch.bfloat16 else torch.uint8
        host = ly.convert(b, src, dst, **sizes)
        assert torch.equal(raw.view(bits), host.view(bits))


def test_pitched_layouts_on_a_device():
    torch = pytest.importorskip("torch")
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    pitched = ly.Layout("NHWC", N=2, C=3, H=4, W=5, pitch={"H": 20})
    want = ly.convert(x, "NCHW", pitched)                       # a strided view of a zero-padded buffer
    t = torch.from_numpy(x)
    got = convert_on_device(t, "NCHW", pitched, ops=TorchOps(t))
    assert got.shape == want.shape and got.stride() == tuple(s // 4 for s in want.strides)
    assert np.array_equal(got.numpy(), want)
    flat = np.zeros(pitched.size, np.float32)
    ly.convert(x, "NCHW", pitched, out=flat)
    a = xp.asarray(x, device=DEVICE1)
    out = xp.zeros(pitched.size, dtype=xp.float32, device=DEVICE1)
    assert convert_on_device(a, "NCHW", pitched, out, ops=NamespaceOps(xp, a)) is out
    assert np.array_equal(np.asarray(xp.asarray(out, device=xp.Device("CPU_DEVICE"))), flat)
    with pytest.raises(LayoutError, match="no strided views: pass out= a flat array"):
        convert_on_device(a, "NCHW", pitched, ops=NamespaceOps(xp, a))
    # and back: the flat buffer read through the pitch
    back = convert_on_device(out, pitched, "NCHW", ops=NamespaceOps(xp, out))
    assert np.array_equal(np.asarray(xp.asarray(back, device=xp.Device("CPU_DEVICE"))), x)


# ---------------------------------------------------------------- an array that must never reach the host
class OnCuda:
    """An array that says its memory is on CUDA device 0 (as cupy's do): its library is
    array_api_strict under a wrapper; any read on the host fails the test."""

    def __init__(self, inner):
        self.inner = inner

    shape = property(lambda self: self.inner.shape)
    dtype = property(lambda self: self.inner.dtype)
    device = property(lambda self: "cuda:0")
    ndim = property(lambda self: self.inner.ndim)

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, *args, **kwargs):
        raise AssertionError("a device array was read through DLPack on the host")

    def __array__(self, *args, **kwargs):
        raise AssertionError("a device array was read by numpy")

    def __array_namespace__(self, api_version=None):
        return _CudaNamespace()

    def __getitem__(self, key):
        return OnCuda(self.inner[key])

    def __setitem__(self, key, value):
        self.inner[key] = value.inner


def _forward(op):
    def method(self, other):
        result = getattr(self.inner, op)(other.inner if isinstance(other, OnCuda) else other)
        return result if result is NotImplemented else OnCuda(result)
    return method


for _op in ("__add__", "__radd__", "__sub__", "__mul__", "__rmul__", "__xor__", "__and__", "__or__", "__rshift__",
            "__lshift__", "__mod__", "__floordiv__", "__eq__", "__ne__", "__gt__", "__lt__", "__ge__", "__le__"):
    setattr(OnCuda, _op, _forward(_op))


class _CudaNamespace:
    __name__ = "fake_cuda"
    bool = xp.bool

    def __getattr__(self, name):
        target = getattr(xp, name)
        if not callable(target) or name in ("int64", "float32", "bool"):     # dtypes pass as they are
            return target

        def call(*args, **kwargs):
            kwargs.pop("device", None)
            args = [[a.inner for a in arg] if isinstance(arg, list) else (arg.inner if isinstance(arg, OnCuda) else arg)
                    for arg in args]
            result = target(*args, **kwargs)
            return OnCuda(result) if isinstance(result, type(xp.asarray(0))) else result
        return call


def test_a_device_array_is_converted_on_its_device_and_never_read_on_the_host():
    x, want = _host("NCHW", "NCHW16c", (2, 20, 3, 3), "float32", {})
    g = OnCuda(xp.asarray(x))
    assert off_host(g) == "on DLPack device (2, 0)"
    y = ly.convert(g, "NCHW", "NCHW16c")
    assert isinstance(y, OnCuda) and np.array_equal(np.asarray(y.inner), want)
    back = ly.convert(y, "NCHW16c", "NCHW", C=20)
    assert np.array_equal(np.asarray(back.inner), x)
    out = OnCuda(xp.zeros(want.shape, dtype=xp.float32))
    assert ly.convert(g, "NCHW", "NCHW16c", out=out) is out and np.array_equal(np.asarray(out.inner), want)
    c = ly.converter("NCHW", "NCHW16c", (2, 20, 3, 3), "float32")
    assert np.array_equal(np.asarray(c(g).inner), want)
    with pytest.raises(LayoutError, match=r"x has shape \(2, 20, 3\), expected"):
        c(OnCuda(xp.zeros((2, 20, 3), dtype=xp.float32)))


def test_what_cannot_run_on_the_device_is_refused_and_says_how_to_move_it():
    g = OnCuda(xp.zeros((2, 3, 4, 5), dtype=xp.float32))
    table = OffsetTable(np.arange(120)[::-1].copy(), "reversed", shape=(120,))
    with pytest.raises(LayoutError, match=r"x is on DLPack device \(2, 0\)|table layout .*no offset rule"):
        ly.convert(OnCuda(xp.zeros(120, dtype=xp.float32)), cute.Layout(120), table)
    host_out = np.zeros((2, 4, 5, 3), np.float32)
    with pytest.raises(LayoutError, match="x is in host memory|on x's device"):
        ly.convert(g, "NCHW", "NHWC", out=host_out)
    with pytest.raises(LayoutError, match="out is on DLPack device .* but x is in host memory"):
        ly.convert(np.zeros((2, 3, 4, 5), np.float32), "NCHW", "NHWC", out=OnCuda(xp.zeros((2, 4, 5, 3), dtype=xp.float32)))
    with pytest.raises(LayoutError, match="copy=False, but on a device this conversion moves data"):
        ly.convert(g, "NCHW", "NHWC", copy=False)
    assert ly.convert(g, "NCHW", "NCHW", copy=False) is g
    assert not np.asarray(host_out).any()


def test_a_host_array_on_its_second_device_comes_back_there():
    x = xp.reshape(xp.arange(24, dtype=xp.int32, device=DEVICE1), (1, 2, 3, 4))
    assert off_host(x) is None                                   # array_api_strict's devices are host memory
    y = ly.convert(x, "NCHW", "NHWC")
    assert y.device == DEVICE1
    assert np.array_equal(np.asarray(xp.asarray(y, device=xp.Device("CPU_DEVICE"))),
                          np.arange(24, dtype=np.int32).reshape(1, 2, 3, 4).transpose(0, 2, 3, 1))


# ---------------------------------------------------------------- torch: meta, autograd, torch.compile
def test_a_meta_tensor_converts_to_a_meta_tensor_of_the_right_shape():
    torch = pytest.importorskip("torch")
    m = torch.empty(2, 20, 3, 3, device="meta")
    y = ly.convert(m, "NCHW", "NCHW16c")
    assert y.device.type == "meta" and tuple(y.shape) == (2, 2, 3, 3, 16)
    cl = torch.empty(2, 3, 4, 5, device="meta").to(memory_format=torch.channels_last)
    assert tuple(ly.convert(cl, "NHWC", "NCHW").shape) == (2, 3, 4, 5)  # src names its memory order
    out = torch.empty(2, 2, 3, 3, 16, device="meta")
    assert ly.convert(m, "NCHW", "NCHW16c", out=out) is out


def test_on_a_device_autograd_follows_the_conversion():
    torch = pytest.importorskip("torch")
    t = torch.arange(2 * 3 * 2 * 2, dtype=torch.float32).reshape(2, 3, 2, 2).requires_grad_()
    y = convert_on_device(t, "NCHW", "NCHW4c", ops=TorchOps(t))
    (y * torch.arange(y.numel()).reshape(y.shape)).sum().backward()
    want = ly.convert(np.arange(y.numel(), dtype=np.float32).reshape(y.shape), "NCHW4c", "NCHW", C=3)
    assert np.array_equal(t.grad.numpy(), want)                 # the padding's weights are dropped


def test_convert_works_under_torch_compile_in_a_fresh_process():
    pytest.importorskip("torch")
    code = """
import torch, numpy as np, layouts as ly
f = torch.compile(lambda a: ly.convert(a, "NCHW", "NHWC"), backend="eager")
x = torch.arange(120.0).reshape(2, 3, 4, 5)
y = f(x)
assert torch.equal(y, x.permute(0, 2, 3, 1)), y
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]


# ---------------------------------------------------------------- jax: host memory, two CPU devices
def test_jax_on_its_second_cpu_device_and_in_bfloat16_comes_back_there():
    pytest.importorskip("jax")
    code = """
import jax, jax.numpy as jnp, numpy as np, layouts as ly
second = jax.devices()[1]
x = jax.device_put(jnp.arange(2 * 20 * 3 * 3, dtype=jnp.float32).reshape(2, 20, 3, 3), second)
want = ly.convert(np.asarray(x), "NCHW", "NCHW16c")
y = ly.convert(x, "NCHW", "NCHW16c")
assert y.devices() == {second} and np.array_equal(np.asarray(y), want)
b = x.astype(jnp.bfloat16)                      # numpy lacks bfloat16: its raw bits move
z = ly.convert(b, "NCHW", "NHWC")
assert z.dtype == jnp.bfloat16 and z.devices() == {second}
assert np.array_equal(np.asarray(z).view(np.uint16), np.asarray(jnp.transpose(b, (0, 2, 3, 1))).view(np.uint16))
print("ok")
"""
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2", JAX_PLATFORMS="cpu")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]


# ---------------------------------------------------------------- CuTe, linear, swizzled layouts on a device
GENERIC = [
    (cute.Layout((4, 6)), cute.Layout((4, 6), (6, 1)), 24),
    (cute.Layout((2, 3, 4), (12, 4, 1)), cute.Layout((2, 3, 4), (1, 2, 6)), 24),
    (cute.Layout((4, 8)), cute.composition(cute.Swizzle(2, 0, 3), cute.Layout((4, 8), (8, 1))), 32),
    (cute.composition(cute.Swizzle(1, 1, 2), cute.Layout((4, 4), (4, 1))), cute.Layout((4, 4)), 16),
    (cute.Layout((3, 4)), cute.Layout((3, 4), (8, 1)), 12),                     # gaps in the destination: zero
    (cute.Layout(16), LinearLayout.from_bases({"i": [[2], [1], [8], [4]]}, ["offset"]), 16),
    (ly.Layout("NCHW", N=1, C=3, H=2, W=2), cute.Layout((3, 2, 2), (1, 6, 3)), (1, 3, 2, 2)),
    (cute.Layout((20,)), ly.Layout("NCHW16c", N=1, C=20, H=1, W=1), 20),
]


@pytest.mark.parametrize("k", range(len(GENERIC)))
@pytest.mark.parametrize("dtype", ["int8", "float32", "complex64"])
def test_cute_and_linear_layouts_on_the_second_device_equal_the_host(k, dtype):
    src, dst, shape = GENERIC[k]
    x = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    want = ly.convert(x, src, dst)
    a = xp.asarray(x, device=DEVICE1)
    got = convert_on_device(a, src, dst, ops=NamespaceOps(xp, a))
    assert got.device == DEVICE1 and got.shape == want.shape
    assert np.array_equal(np.asarray(xp.asarray(got, device=xp.Device("CPU_DEVICE"))), want)


@pytest.mark.parametrize("k", range(len(GENERIC)))
def test_cute_and_linear_layouts_in_torch_equal_the_host(k):
    torch = pytest.importorskip("torch")
    src, dst, shape = GENERIC[k]
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    t = torch.from_numpy(x)
    got = convert_on_device(t, src, dst, ops=TorchOps(t))
    assert np.array_equal(got.numpy(), ly.convert(x, src, dst))
    m = ly.convert(torch.empty(tuple(t.shape), device="meta"), src, dst)
    assert m.device.type == "meta" and tuple(m.shape) == ly.convert(x, src, dst).shape


def test_a_swizzled_conversion_runs_on_the_device_wrapper_without_touching_the_host():
    x = np.arange(64, dtype=np.float32)
    swizzled = cute.composition(cute.Swizzle(3, 0, 3), cute.Layout((8, 8), (8, 1)))
    want = ly.convert(x, cute.Layout((8, 8)), swizzled)
    y = ly.convert(OnCuda(xp.asarray(x)), cute.Layout((8, 8)), swizzled)
    assert isinstance(y, OnCuda) and np.array_equal(np.asarray(y.inner), want)


def test_fake_tensors_convert_to_fake_tensors_of_the_right_shape():
    torch = pytest.importorskip("torch")
    fake_tensor = pytest.importorskip("torch._subclasses.fake_tensor")
    with fake_tensor.FakeTensorMode():
        x = torch.empty(2, 20, 3, 3)
        assert off_host(x) == "a FakeTensor (shapes only)"
        y = ly.convert(x, "NCHW", "NCHW16c")
        z = ly.convert(torch.empty(24), cute.Layout((4, 6)), cute.Layout((4, 6), (6, 1)))
    assert type(y).__name__ == "FakeTensor" and tuple(y.shape) == (2, 2, 3, 3, 16)
    assert type(z).__name__ == "FakeTensor" and tuple(z.shape) == (24,)
