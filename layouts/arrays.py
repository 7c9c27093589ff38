"""Foreign arrays in, the same kind out: torch tensors, DLPack and array-API objects.

:func:`layouts.convert` works on numpy arrays. This module lets it take other arrays and hand
back the caller's kind, without copying where the memory allows:

* a **numpy array** (or anything ``np.asarray`` reads: a list, a scalar) comes back as numpy;
* a **torch tensor** comes back as a torch tensor. In and out are zero-copy: the tensor's memory
  is viewed as numpy (``Tensor.numpy()``) and the result wrapped back (``torch.from_numpy``), so
  ``copy=None`` can return a tensor sharing the input's memory. dtypes numpy lacks (``bfloat16``,
  ``complex32``, the ``float8`` types) move as raw bits: viewed as the signed integer of their size
  (``int16`` for ``bfloat16``) and viewed back, so every bit (NaN payloads included) survives.
  The rules, each refused with a :class:`~layouts.LayoutError` that says what to do:

  - a tensor that **requires grad** is refused: ``convert`` is not differentiable, and its result
    would silently cut the autograd graph. Pass ``t.detach()``;
  - a **meta** tensor (a shape without data) is refused;
  - a tensor **not on the CPU** is refused (convert's kernels run on the CPU): pass ``t.cpu()``
    and move the result back with ``.to(device)``;
  - sparse, quantized and nested tensors are refused (pass ``.to_dense()`` / ``.int_repr()``);
  - a tensor with the lazy conjugate or negative bit (``t.conj()``) is resolved first (a copy);
    as ``out=`` it is refused.

* any other object with ``__dlpack__`` is read through ``np.from_dlpack`` (zero-copy, CPU only);
  when it also names its array-API namespace (``__array_namespace__``), the result goes back
  through that namespace's ``from_dlpack`` (cupy, jax when installed). Without a namespace the
  result is numpy.

torch is imported only when a torch tensor is given (found by its type's module, never by
importing torch to check).

>>> import numpy as np
>>> a, back = as_numpy(np.zeros(3))
>>> back(a) is a
True
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import numpy as np

from .errors import LayoutError, LayoutTypeError, type_name

__all__ = ["as_numpy", "is_torch_tensor"]

Back = Callable[[np.ndarray], Any]


def _same(result: np.ndarray) -> np.ndarray:
    return result


def is_torch_tensor(x: Any) -> bool:
    """Whether ``x`` is a torch tensor (without importing torch: a tensor means torch is loaded)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, getattr(torch, "Tensor", ()))


def as_numpy(x: Any, what: str = "x", *, writable: bool = False) -> tuple[np.ndarray, Back]:
    """``x`` as a numpy array (a view where possible) and the function that turns a numpy result
    back into ``x``'s kind. ``writable``: ``x`` is an output (refuse what cannot be written)."""
    if isinstance(x, np.ndarray):
        return x, _same
    if is_torch_tensor(x):
        return _from_torch(x, what, writable)
    if hasattr(x, "__dlpack__") and not isinstance(x, type):
        return _from_dlpack(x, what, writable)
    if writable:
        raise LayoutTypeError(f"{what} must be a numpy array, a torch tensor or a DLPack array, got {type_name(x)}")
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError, RuntimeError) as err:
        raise LayoutTypeError(f"{what} must be an array (numpy, torch, DLPack) or array-like, got {type_name(x)}: {err}") from None
    return arr, _same


# ---------------------------------------------------------------------------- torch
def _raw_dtypes(torch: Any) -> dict:
    """torch dtype -> numpy dtype for the dtypes numpy has (others move as raw bits)."""
    names = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
             "complex64", "complex128", "uint16", "uint32", "uint64"]
    return {getattr(torch, n): np.dtype(n) for n in names if hasattr(torch, n)}


def _from_torch(t: Any, what: str, writable: bool) -> tuple[np.ndarray, Back]:
    import torch

    if t.device.type == "meta":
        raise LayoutError(f"{what} is a meta tensor: it has a shape but no data to convert")
    if t.device.type != "cpu":
        raise LayoutError(f"{what} is on {t.device}; convert works on CPU memory: pass {what}.cpu() "
                          f"(and move the result back with .to('{t.device}'))")
    if t.layout != torch.strided:
        raise LayoutError(f"{what} is a {t.layout} tensor; convert needs a dense one: pass {what}.to_dense()")
    if t.is_quantized:
        raise LayoutError(f"{what} is quantized ({t.dtype}); pass {what}.int_repr() or {what}.dequantize()")
    if getattr(t, "is_nested", False):
        raise LayoutError(f"{what} is a nested tensor; convert takes one dense tensor")
    if t.requires_grad:
        raise LayoutError(f"{what} requires grad: convert is not differentiable and its result would cut the "
                          f"autograd graph; pass {what}.detach() (the result then does not require grad)")
    if t.is_conj() or t.is_neg():
        if writable:
            raise LayoutError(f"{what} is a lazy conjugate/negative view; pass a tensor that owns its values "
                              f"({what}.resolve_conj().resolve_neg() is a copy, so convert could not write into {what})")
        t = t.resolve_conj().resolve_neg()
    dtype = t.dtype
    if dtype in _raw_dtypes(torch):
        arr = t.numpy()
        return arr, lambda r: torch.from_numpy(r)
    raw = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}.get(t.element_size())
    if raw is None:
        raise LayoutError(f"{what} has dtype {dtype} of {t.element_size()} bytes, which has no integer twin to move its bits")
    arr = t.view(raw).numpy()
    return arr, lambda r: torch.from_numpy(r).view(dtype)


# ---------------------------------------------------------------------------- DLPack / array API
def _from_dlpack(x: Any, what: str, writable: bool) -> tuple[np.ndarray, Back]:
    from_dlpack = getattr(np, "from_dlpack", None)
    if from_dlpack is None:  # pragma: no cover - numpy < 1.22
        raise LayoutTypeError(f"{what} speaks DLPack, but numpy {np.__version__} cannot read it (numpy >= 1.22 can)")
    try:
        arr = from_dlpack(x)
    except Exception as err:  # noqa: BLE001 - a foreign exporter may raise anything: said as a LayoutError
        raise LayoutError(f"{what} ({type(x).__name__}) could not be read through DLPack as CPU memory: {err}") from None
    if writable and not arr.flags.writeable:
        raise LayoutError(f"{what} ({type(x).__name__}) is read-only through DLPack; pass a writable array")
    namespace = getattr(x, "__array_namespace__", None)
    if namespace is None:
        return arr, _same
    try:
        xp = namespace()
    except Exception:  # noqa: BLE001 - a namespace that cannot be had: hand back numpy
        return arr, _same
    back = getattr(xp, "from_dlpack", None) or getattr(xp, "asarray", None)
    if back is None:
        return arr, _same
    return arr, back
