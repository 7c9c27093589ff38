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
  - a **meta** tensor (a shape without data) is refused here; ``convert`` takes it (and any
    tensor not on the CPU) down :mod:`layouts.conversion.on_device` before this bridge;
  - a tensor **not on the CPU** that reaches this bridge (:mod:`layouts.interop.pytorch`'s
    ``to_numpy``, which asks for host memory) is read through a copy on the host; with
    ``copy=False`` (which never copies) and as ``out=`` (which must be written in place) it is
    refused;
  - sparse, quantized and nested tensors are refused (pass ``.to_dense()`` / ``.int_repr()``);
  - a tensor with the lazy conjugate or negative bit (``t.conj()``) is resolved first (a copy);
    with ``copy=False`` and as ``out=`` it is refused;
  - the dtype is never reinterpreted: :func:`as_numpy` reports the tensor's own dtype beside the
    raw-bits view, so ``convert`` refuses a ``bfloat16`` ``x`` with an ``int16`` ``out``;
  - a tensor written as ``out=`` has its autograd version counter bumped (as ``copy_`` does), so
    a graph that saved it before the write raises rather than computing a wrong gradient.

* any other object with ``__dlpack__`` in host memory is read through ``np.from_dlpack``
  (zero-copy); when it also names its array-API namespace (``__array_namespace__``), the result
  goes back through that namespace's ``from_dlpack``, on ``x``'s device (jax's CPU devices,
  array_api_strict's). Without a namespace the result is numpy. An array that is not in host
  memory never comes here: :mod:`layouts.conversion.on_device` converts it where it is.

torch is imported only when a torch tensor is given (found by its type's module, never by
importing torch to check).

>>> import numpy as np
>>> a, back, dtype = as_numpy(np.zeros(3))
>>> back(a) is a, dtype
(True, dtype('float64'))
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import numpy as np

from ..errors import LayoutError, LayoutTypeError, type_name

__all__ = ["as_numpy", "is_torch_tensor", "from_capsule", "ADAPTERS", "lazy_converter", "register_lazy"]

Back = Callable[[np.ndarray], Any]


def _same(result: np.ndarray) -> np.ndarray:
    return result


def is_torch_tensor(x: Any) -> bool:
    """Whether ``x`` is a torch tensor (without importing torch: a tensor means torch is loaded)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, getattr(torch, "Tensor", ()))


#: the array kinds a conversion takes, in the order they are tried: (kind, how it is found, how it
#: is read). Eager kinds are read as numpy by :func:`as_numpy` and handed back as their kind;
#: lazy kinds (a dask array) are converted by the function registered for them
#: (:func:`register_lazy`: ``layouts/__init__.py`` binds dask to :mod:`layouts.chunked.dask`).
ADAPTERS = (
    ("numpy", "isinstance(x, np.ndarray)", "itself"),
    ("torch", "its type's top module is torch (never imported to check)", "Tensor.numpy() / raw bits"),
    ("dlpack", "x has __dlpack__", "np.from_dlpack; back through __array_namespace__"),
    ("lazy", "its type's top module is registered (dask)", "the registered converter, a lazy result"),
    ("array-like", "anything np.asarray reads", "np.asarray; the result is numpy"),
)

#: top-level module of an array type -> the function converting such arrays lazily
_LAZY: dict[str, Callable[..., Any]] = {}


def register_lazy(module: str, load: Callable[[], Callable[..., Any]]) -> None:
    """Let ``layouts.convert(x, ...)`` hand arrays whose type lives in the top-level ``module``
    (``"dask"``) to the converter ``load()`` returns, called as ``convert(x, src, dst, out=,
    threads=, copy=, **sizes)`` (the loader imports it when such an array first comes)."""
    _LAZY[module] = load


def lazy_converter(x: Any) -> Callable[..., Any] | None:
    """The converter registered for ``x``'s kind of lazy array, or None (found by the type's
    module name: nothing is imported to check)."""
    load = _LAZY.get(type(x).__module__.partition(".")[0])
    return None if load is None else load()


def from_capsule(x: Any, what: str = "x") -> Any:
    """A DLPack capsule (``torch.utils.dlpack.to_dlpack(t)``) as the torch tensor it holds, read
    through ``torch.from_dlpack`` (zero-copy, strides kept); anything else as it is."""
    if type(x).__name__ != "PyCapsule":
        return x
    torch = sys.modules.get("torch")
    if torch is None:
        raise LayoutTypeError(f"{what} is a PyCapsule (a DLPack capsule?), which layouts reads through torch: import "
                              f"torch, or pass the array itself (an object with __dlpack__)")
    try:
        return torch.from_dlpack(x)
    except Exception as err:  # noqa: BLE001 - a used or foreign capsule: said as a LayoutError
        raise LayoutError(f"{what} is a PyCapsule that torch.from_dlpack could not read ({err}); pass the tensor "
                          f"itself") from None


def as_numpy(x: Any, what: str = "x", *, writable: bool = False,
             copy: bool | None = True) -> tuple[np.ndarray, Back, Any]:
    """``(array, back, dtype)``: ``x`` as a numpy array (a view where possible), the function that
    turns a numpy result back into ``x``'s kind, and ``x``'s element type (a numpy dtype, or the
    torch dtype numpy lacks, whose raw bits ``array`` holds: compare these, not ``array.dtype``,
    so ``bfloat16`` never passes for ``int16``). ``writable``: ``x`` is an output (refuse what
    cannot be written in place). ``copy=False``: refuse a tensor whose values can only be read
    through a copy (a lazy conjugate/negative view, a tensor on another device)."""
    if isinstance(x, np.ndarray):
        return x, _same, x.dtype
    if is_torch_tensor(x):
        return _from_torch(x, what, writable, copy)
    if hasattr(x, "__dlpack__") and not isinstance(x, type):
        return _from_dlpack(x, what, writable)
    if writable:
        raise LayoutTypeError(f"{what} must be a numpy array, a torch tensor or a DLPack array, got {type_name(x)}")
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError, RuntimeError) as err:
        raise LayoutTypeError(f"{what} must be an array (numpy, torch, DLPack) or array-like, got {type_name(x)}: {err}") from None
    return arr, _same, arr.dtype


# ---------------------------------------------------------------------------- torch
#: torch dtypes numpy has (by name); the others move as raw bits of their size
NUMPY_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64",
                "float16", "float32", "float64", "complex64", "complex128")


def numpy_dtype(dtype: Any) -> "np.dtype | None":
    """The numpy dtype of a torch dtype, or None when numpy lacks it (``bfloat16``, ``float8``...)."""
    name = str(dtype).replace("torch.", "")
    return np.dtype(name) if name in NUMPY_DTYPES else None


def bits_dtype(torch: Any, dtype: Any, what: str = "x") -> Any:
    """The signed torch integer dtype of ``dtype``'s size, which carries its raw bits."""
    size = torch.empty((), dtype=dtype).element_size()
    raw = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}.get(size)
    if raw is None:
        raise LayoutError(f"{what} has dtype {dtype} of {size} bytes, which has no integer twin to move its bits")
    return raw


def check_tensor(t: Any, what: str, data: bool = True) -> None:
    """The refusals every torch entry point shares: not strided, quantized, nested; with ``data``
    (the values are read) also meta and requires-grad tensors."""
    import torch

    if t.layout != torch.strided:
        raise LayoutError(f"{what} is a {t.layout} tensor; only strided (dense) tensors have a memory layout: "
                          f"pass {what}.to_dense()")
    if t.is_quantized:
        raise LayoutError(f"{what} is quantized ({t.dtype}); pass {what}.int_repr() or {what}.dequantize()")
    if getattr(t, "is_nested", False):
        raise LayoutError(f"{what} is a nested tensor; convert takes one dense tensor")
    if not data:
        return
    if t.device.type == "meta":
        raise LayoutError(f"{what} is a meta tensor: it has a shape and strides but no data to convert")
    if t.requires_grad:
        raise LayoutError(f"{what} requires grad: layouts converts outside autograd and its result would cut the "
                          f"autograd graph; pass {what}.detach() (the result then does not require grad; torch's "
                          f"{what}.contiguous(memory_format=...) keeps the graph)")


def _from_torch(t: Any, what: str, writable: bool, copy: bool | None) -> tuple[np.ndarray, Back, Any]:
    import torch

    check_tensor(t, what)
    no_copy = isinstance(copy, (bool, np.bool_)) and not copy  # copy=False (a wrong kind is said by convert)
    device = t.device
    if device.type != "cpu":
        if writable:
            raise LayoutError(f"{what} is on {device}; convert writes CPU memory: pass a CPU tensor as {what} "
                              f"(and move it with .to('{device}') afterwards)")
        if no_copy:
            raise LayoutError(f"copy=False, but {what} is on {device} and reading it on the CPU is a copy; "
                              f"pass copy=None (or {what}.cpu())")
        t = t.cpu()  # a copy: convert's kernels run on the host; the result goes back to the device
    if t.is_conj() or t.is_neg():
        if writable:
            raise LayoutError(f"{what} is a lazy conjugate/negative view; pass a tensor that owns its values "
                              f"({what}.resolve_conj().resolve_neg() is a copy, so convert could not write into {what})")
        if no_copy:
            raise LayoutError(f"copy=False, but {what} is a lazy conjugate/negative view and reading its values is "
                              f"a copy; pass copy=None (or {what}.resolve_conj().resolve_neg())")
        t = t.resolve_conj().resolve_neg()
    dtype = t.dtype
    np_dtype = numpy_dtype(dtype)
    if np_dtype is not None:
        arr = t.numpy()
        back = (lambda r: torch.from_numpy(r)) if device.type == "cpu" else (lambda r: torch.from_numpy(r).to(device))
        return arr, back, np_dtype
    arr = t.view(bits_dtype(torch, dtype, what)).numpy()
    if device.type == "cpu":
        return arr, lambda r: torch.from_numpy(r).view(dtype), dtype
    return arr, lambda r: torch.from_numpy(r).view(dtype).to(device), dtype


def bump_version(t: Any) -> None:
    """Tell autograd that ``t`` was written in place (as ``t.copy_`` does), so a graph that saved
    ``t`` before the write raises instead of computing a wrong gradient."""
    import torch

    increment = getattr(getattr(torch.autograd, "graph", None), "increment_version", None)
    if increment is not None:
        increment(t)
    else:  # pragma: no cover - torch < 2.1: an in-place write of the same bits bumps it too
        with torch.no_grad():
            t.copy_(t.detach().clone())


# ---------------------------------------------------------------------------- DLPack / array API
def _from_dlpack(x: Any, what: str, writable: bool) -> tuple[np.ndarray, Back, Any]:
    from_dlpack = getattr(np, "from_dlpack", None)
    if from_dlpack is None:  # pragma: no cover - numpy < 1.22
        raise LayoutTypeError(f"{what} speaks DLPack, but numpy {np.__version__} cannot read it (numpy >= 1.22 can)")
    dtype, raw = None, _raw_bits_view(x)
    try:
        arr = from_dlpack(x)
    except Exception as err:  # noqa: BLE001 - a foreign exporter may raise anything: said as a LayoutError
        if raw is None:
            raise LayoutError(f"{what} ({type(x).__name__}) could not be read through DLPack as CPU memory: {err}") from None
        try:            # a dtype DLPack's numpy reader lacks (jax's bfloat16): its raw bits, viewed back after
            arr, dtype = from_dlpack(raw), x.dtype
        except Exception:  # noqa: BLE001 - as above
            raise LayoutError(f"{what} ({type(x).__name__}) could not be read through DLPack as CPU memory: "
                              f"{err}") from None
    if writable and not arr.flags.writeable:
        raise LayoutError(f"{what} ({type(x).__name__}) is read-only through DLPack; pass a writable array")
    arr_back = _back_through_namespace(x, arr)
    if dtype is None:
        return arr, arr_back, arr.dtype
    return arr, (lambda result: arr_back(result).view(dtype)), dtype


def _raw_bits_view(x: Any) -> Any:
    """``x`` viewed as the unsigned integers of its item size, or None (no ``view``, an odd size)."""
    size = getattr(getattr(x, "dtype", None), "itemsize", None)
    if not callable(getattr(x, "view", None)) or size not in (1, 2, 4, 8):
        return None
    try:
        return x.view(np.dtype(f"u{size}"))
    except Exception:  # noqa: BLE001 - a view that cannot be had: no raw bits
        return None


def _back_through_namespace(x: Any, arr: np.ndarray) -> Back:
    """How a numpy result goes back to ``x``'s kind: its namespace's ``from_dlpack`` on its device."""
    namespace = getattr(x, "__array_namespace__", None)
    if namespace is None:
        return _same
    try:
        xp = namespace()
    except Exception:  # noqa: BLE001 - a namespace that cannot be had: hand back numpy
        return _same
    from_dlpack, asarray = getattr(xp, "from_dlpack", None), getattr(xp, "asarray", None)
    device = getattr(x, "device", None)
    if from_dlpack is None:
        return asarray or _same
    if asarray is None:
        return from_dlpack

    def back(result: np.ndarray) -> Any:
        # the result goes back to x's device (a namespace with several host devices, such as
        # array_api_strict's, would otherwise put it on its first)
        try:
            return from_dlpack(result) if device is None else from_dlpack(result, device=device)
        except TypeError:       # a namespace whose from_dlpack takes no device=
            return from_dlpack(result) if device is None else asarray(result, device=device)
        except BufferError:  # numpy < 2 cannot export a read-only array (a view of x): asarray can
            return asarray(result) if device is None else asarray(result, device=device)
    return back
