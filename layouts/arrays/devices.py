"""Arrays that live off the host: found before any data is touched, and the operations a
conversion needs in their own namespace, on their own device.

``convert``'s kernels read host memory. An array elsewhere -- a torch tensor on a GPU (CUDA, ROCm,
MPS, XPU) or on the ``meta`` device, a tensor torch is tracing (``torch.compile``, a FakeTensor),
an array whose DLPack device is not the CPU (cupy) -- is converted with its own library's
operations instead, on its device, and never copied to the host. :func:`off_host` says whether
an array is such a one, asking only its type, its ``device`` and ``__dlpack_device__`` (never
``__dlpack__``, which may already move data); :class:`TorchOps` and :class:`NamespaceOps` are the
few operations the conversion uses (:mod:`layouts.conversion.on_device`).

>>> import numpy as np
>>> off_host(np.zeros(3)) is None
True
"""

from __future__ import annotations

import sys
from typing import Any, Sequence

import numpy as np

from ..errors import LayoutError, type_name
from .foreign import is_torch_tensor

__all__ = ["off_host", "ops_for", "check_out", "TorchOps", "NamespaceOps", "HOST_DLPACK_DEVICES"]

#: DLPack device types whose memory the host reads: kDLCPU, kDLCUDAHost, kDLROCMHost, kDLCUDAManaged
HOST_DLPACK_DEVICES = (1, 3, 11, 13)


def off_host(x: Any) -> str | None:
    """Why ``x`` converts on its own device (``"on cuda:0"``, ``"traced by torch.compile"``...), or
    None for an array in host memory, which the host kernels read.

    >>> class OnGPU:                          # what a cupy array says of itself
    ...     def __dlpack_device__(self): return (2, 0)
    ...     def __array_namespace__(self): return None
    >>> off_host(OnGPU())
    'on DLPack device (2, 0)'
    """
    if isinstance(x, np.ndarray):       # host memory, the common case: asked nothing
        return None
    if is_torch_tensor(x):
        return _torch_reason(x)
    device_of = getattr(type(x), "__dlpack_device__", None)
    if device_of is None or isinstance(x, type):
        return None
    try:
        kind, number = x.__dlpack_device__()
    except Exception:  # noqa: BLE001 - a device DLPack cannot name (jax's on some builds): not ours to read
        return f"on a device DLPack cannot name ({type_name(x)})"
    if int(kind) in HOST_DLPACK_DEVICES:
        return None
    return f"on DLPack device ({int(kind)}, {int(number)})"


def _torch_reason(t: Any) -> str | None:
    torch = sys.modules["torch"]
    if t.device.type != "cpu":
        return f"on {t.device}"
    compiler = getattr(torch, "compiler", None)
    if compiler is not None and getattr(compiler, "is_compiling", lambda: False)():
        return "traced by torch.compile"
    if type(t).__name__ == "FakeTensor":      # torch's shape-only tensors report the device they mimic
        return "a FakeTensor (shapes only)"
    return None


def ops_for(x: Any, what: str = "x") -> Any:
    """The operations on ``x``'s kind and device: :class:`TorchOps` for a tensor, else
    :class:`NamespaceOps` of its ``__array_namespace__`` (refused without one)."""
    if is_torch_tensor(x):
        return TorchOps(x)
    namespace = getattr(x, "__array_namespace__", None)
    if namespace is None:
        raise LayoutError(f"{what} ({type_name(x)}) is {off_host(x)} and names no array namespace "
                          f"(__array_namespace__) to convert it there; layouts never copies it to the host "
                          f"implicitly: move it yourself (np.from_dlpack(x, device='cpu')) to convert it there")
    return NamespaceOps(namespace(), x)


def check_out(out: Any, ops: Any) -> None:
    """An ``out=`` for a conversion with ``ops``: on x's device and of x's dtype, else LayoutError."""
    if not ops.same_place(out):
        raise LayoutError(f"out is on {getattr(out, 'device', '?')}, x on {ops.device}: out must be on x's device "
                          f"(layouts never moves data between devices)")
    if getattr(out, "dtype", None) != ops.dtype:
        raise LayoutError(f"out has dtype {getattr(out, 'dtype', '?')}, expected {ops.dtype} (x's dtype; convert does "
                          f"not cast)")


class TorchOps:
    """A conversion's operations with torch, on the tensor's device (autograd follows them)."""

    name = "torch"

    def __init__(self, like: Any) -> None:
        self.torch = sys.modules["torch"]
        self.dtype, self.device = like.dtype, like.device

    def shape(self, a: Any) -> tuple:
        return tuple(int(n) for n in a.shape)

    def permute(self, a: Any, axes: Sequence[int]) -> Any:
        return a.permute(*axes)

    def reshape(self, a: Any, shape: Sequence[int]) -> Any:
        return a.reshape(tuple(shape))

    def zeros(self, shape: Sequence[int]) -> Any:
        return self.torch.zeros(tuple(shape), dtype=self.dtype, device=self.device)

    def concat(self, parts: Sequence[Any], axis: int) -> Any:
        return self.torch.cat(list(parts), dim=axis)

    def fresh(self, a: Any) -> Any:
        """``a``'s values in a new C-contiguous tensor (one copy, never a view of the input)."""
        out = self.torch.empty(self.shape(a), dtype=self.dtype, device=self.device)
        return out.copy_(a)

    def strided(self, flat: Any, shape: Sequence[int], strides: Sequence[int]) -> Any:
        return self.torch.as_strided(flat, tuple(shape), tuple(strides))

    def assign(self, out: Any, value: Any, what: str = "out") -> None:
        out.copy_(value)

    def same_place(self, a: Any) -> bool:
        return a.device == self.device

    def element_bytes(self, a: Any) -> int:
        return int(a.element_size())

    # index arithmetic (int64, on the device)
    def arange(self, n: int) -> Any:
        return self.torch.arange(n, dtype=self.torch.int64, device=self.device)

    def argsort(self, a: Any) -> Any:
        return self.torch.argsort(a)

    def take(self, a: Any, index: Any) -> Any:
        return a[index]

    def searchsorted(self, sorted_values: Any, values: Any) -> Any:
        return self.torch.searchsorted(sorted_values, values)

    def minimum(self, a: Any, top: int) -> Any:
        return self.torch.clamp(a, max=top)

    def where(self, condition: Any, a: Any, b: Any) -> Any:
        return self.torch.where(condition, a, b)


class NamespaceOps:
    """A conversion's operations in an array-API namespace (cupy, jax, array_api_strict...), on
    the array's device."""

    def __init__(self, xp: Any, like: Any) -> None:
        self.xp, self.dtype, self.device = xp, like.dtype, getattr(like, "device", None)
        self.name = getattr(xp, "__name__", type_name(xp))

    def shape(self, a: Any) -> tuple:
        return tuple(int(n) for n in a.shape)

    def permute(self, a: Any, axes: Sequence[int]) -> Any:
        return self.xp.permute_dims(a, tuple(axes))

    def reshape(self, a: Any, shape: Sequence[int]) -> Any:
        return self.xp.reshape(a, tuple(shape))

    def zeros(self, shape: Sequence[int]) -> Any:
        if self.device is None:
            return self.xp.zeros(tuple(shape), dtype=self.dtype)
        return self.xp.zeros(tuple(shape), dtype=self.dtype, device=self.device)

    def concat(self, parts: Sequence[Any], axis: int) -> Any:
        return self.xp.concat(list(parts), axis=axis)

    def fresh(self, a: Any) -> Any:
        return self.xp.asarray(a, copy=True)

    def strided(self, flat: Any, shape: Sequence[int], strides: Sequence[int]) -> Any:
        return None                 # the array API has no strided views

    def assign(self, out: Any, value: Any, what: str = "out") -> None:
        try:
            out[...] = value
        except (TypeError, ValueError, NotImplementedError) as err:   # jax: immutable arrays
            raise LayoutError(f"{what} ({type_name(out)}) cannot be written in place ({err}); call without {what}= "
                              f"and use the result") from None

    def same_place(self, a: Any) -> bool:
        return getattr(a, "device", None) == self.device

    # index arithmetic (int64, on the device)
    def arange(self, n: int) -> Any:
        if self.device is None:
            return self.xp.arange(n, dtype=self.xp.int64)
        return self.xp.arange(n, dtype=self.xp.int64, device=self.device)

    def argsort(self, a: Any) -> Any:
        return self.xp.argsort(a)

    def take(self, a: Any, index: Any) -> Any:
        return self.xp.take(a, index, axis=0)

    def searchsorted(self, sorted_values: Any, values: Any) -> Any:
        return self.xp.searchsorted(sorted_values, values)

    def minimum(self, a: Any, top: int) -> Any:
        return self.xp.where(a > top, a * 0 + top, a)

    def where(self, condition: Any, a: Any, b: Any) -> Any:
        return self.xp.where(condition, a, b)

    def element_bytes(self, a: Any) -> int:
        xp = self.xp
        if a.dtype == xp.bool:
            return 1
        if a.dtype in (getattr(xp, "complex64", None), getattr(xp, "complex128", None)):
            return 8 if a.dtype == xp.complex64 else 16
        kinds = (xp.finfo, xp.iinfo)
        for info in kinds:
            try:
                return int(info(a.dtype).bits) // 8
            except (TypeError, ValueError):
                continue
        raise LayoutError(f"x has dtype {a.dtype}, whose width the array API does not say (not bool, integer or "
                          f"floating)")
