"""PyTorch: ``channels_last`` / ``channels_last_3d`` read from strides, tensors converted in place
of numpy arrays, without copies where the memory allows.

Import it as ``from layouts.interop import pytorch`` (the old name ``layouts.interop.torch`` still
works, but ``from layouts.interop import torch`` would hide the real ``torch`` module).

A torch tensor's shape is always logical (``N, C, H, W``); its memory order lives in
``.stride()``. :func:`memory_formats` names every torch memory format that stores the tensor
exactly as its strides do -- more than one when size-1 axes make them indistinguishable (a
1x1 image is both contiguous and channels_last; torch reports ``True`` for both too, and picks
one silently elsewhere). :func:`to_numpy` gives the tensor's memory as a numpy array in its
physical order (a zero-copy DLPack view) with its :class:`layouts.Layout`; :func:`from_numpy`
wraps an array in a layout back into a logical tensor (zero-copy); :func:`convert_tensor` moves a
tensor into another layout through :func:`layouts.convert` and gives a tensor back.

The rules for what numpy cannot hold:

* dtypes numpy lacks (``bfloat16``, ``complex32``, the ``float8`` kinds): :func:`convert_tensor`
  moves their raw bits and returns the same dtype; :func:`to_numpy` refuses them (numpy has no
  such dtype: pass ``t.view(torch.int16)`` for the bits), :func:`from_numpy` takes ``dtype=`` to
  read an array's bits back as one.
* ``requires_grad``: these functions work outside autograd, so a tensor that requires grad is
  refused with a LayoutError that says to pass ``t.detach()`` (a conversion that keeps the
  graph is torch's own ``t.contiguous(memory_format=...)``). Results never require grad.
* ``meta`` tensors have strides but no data: :func:`memory_formats` and
  :func:`layout_of_tensor` read them; the functions that touch data refuse them.
* other devices: the data is copied to the host, and :func:`convert_tensor` returns its result on
  the tensor's device. This is :func:`layouts.convert`'s rule too: both read tensors through one
  bridge, :func:`layouts.arrays.foreign.as_numpy`, with the same checks and messages.

torch is imported only inside these functions; this module imports without it.

>>> import torch                   # the doctests of this module run wherever torch is installed
>>> t = torch.zeros(2, 3, 4, 5).to(memory_format=torch.channels_last)
>>> memory_formats(t), layout_of_tensor(t).spec
(['channels_last'], 'NHWC')
>>> memory_formats(torch.zeros(2, 3, 1, 1))                  # 1x1 images: both, not a guess
['contiguous_format', 'channels_last']
>>> b = convert_tensor(torch.ones(1, 20, 2, 2, dtype=torch.bfloat16), "NCHW16c")
>>> b.shape, b.dtype, float(b[0, 1, 0, 0, 3]), float(b[0, 1, 0, 0, 4])  # C 20 -> 2 x 16, zero-padded
(torch.Size([1, 2, 2, 2, 16]), torch.bfloat16, 1.0, 0.0)
>>> convert_tensor(b, "NCHW", src="NCHW16c", C=20).shape     # the same keywords both ways
torch.Size([1, 20, 2, 2])
"""

from __future__ import annotations

import numpy as np

from ..errors import LayoutError, LayoutTypeError
from ..named.torch_names import read_as_named
from .._args import str_arg, threads_arg
from ..errors import kind

__all__ = ["FORMATS", "memory_formats", "layout_of_tensor", "to_numpy", "from_numpy",
           "convert_tensor"]

#: torch memory format -> (logical axes, memory order)
FORMATS = {
    "contiguous_format": {4: ("NCHW", "NCHW"), 5: ("NCDHW", "NCDHW")},
    "channels_last": {4: ("NCHW", "NHWC")},
    "channels_last_3d": {5: ("NCDHW", "NDHWC")},
}

def _torch():
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - only without torch
        raise ImportError("layouts.interop.pytorch needs PyTorch (pip install torch)") from exc
    return torch


def _tensor(t, name: str = "t"):
    """``t`` checked to be a strided torch tensor (sparse, quantized and the like refused, by the
    same checks :func:`layouts.convert` makes: :func:`layouts.arrays.foreign.check_tensor`)."""
    from layouts.arrays.foreign import check_tensor

    torch = _torch()
    if not isinstance(t, torch.Tensor):
        raise LayoutTypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    check_tensor(t, name, data=False)
    return t


def _default_axes(letters: str, ndim: int) -> str:
    """torch's logical order for a set of axis letters: NCHW, NCDHW, else NCHW-like."""
    from layouts.named.layout import canonical_order

    for ref in ("NCHW", "NCDHW"):
        if sorted(letters) == sorted(ref):
            return ref
    return canonical_order(letters)


def _axes_for(t, axes):
    _tensor(t)
    if axes is not None:
        str_arg("axes", axes)
        up = axes.upper()
        if len(up) != t.dim() or not (up.isascii() and up.isalpha()) or len(set(up)) != len(up):
            raise LayoutError(f"axes={axes[:40]!r} must name each of the tensor's {t.dim()} dims "
                              f"once with a letter (shape {tuple(t.shape)})")
        return up
    if t.dim() == 4:
        return "NCHW"
    if t.dim() == 5:
        return "NCDHW"
    raise LayoutError(f"tensor has {t.dim()} dims (shape {tuple(t.shape)}); pass axes= naming "
                      "each dim (torch's default is NCHW for 4-D, NCDHW for 5-D)")


def memory_formats(t) -> list:
    """The torch memory formats (``"contiguous_format"``, ``"channels_last"``,
    ``"channels_last_3d"``) whose layout stores ``t`` exactly as its strides do.

    Empty for other orders (a CHWN tensor, a slice with gaps); several when size-1 axes make the
    formats identical -- read that as "any of these", not as a guess.
    """
    from ..named.infer import candidate_layouts

    axes = _axes_for(t, None)
    found = {L.spec for L in candidate_layouts(t, axes) if not L.pitch}
    return [name for name, by_rank in FORMATS.items()
            if t.dim() in by_rank and by_rank[t.dim()][1] in found]


def layout_of_tensor(t, axes=None, prefer=None):
    """The :class:`layouts.Layout` of ``t`` (axes default NCHW / NCDHW); a LayoutError listing
    every candidate when size-1 axes make it ambiguous, unless ``prefer`` picks one."""
    from ..named.infer import layout_of

    axes = _axes_for(t, axes)
    return layout_of(t, axes, prefer=_prefer_arg(prefer))


def _prefer_arg(prefer):
    """None, a spec, or a list of specs (checked here, before the core reads them)."""
    if prefer is None or isinstance(prefer, str):
        return prefer
    if isinstance(prefer, (list, tuple)) and all(isinstance(p, str) for p in prefer):
        return list(prefer)
    raise LayoutTypeError(f"prefer must be a layout spec or a list of specs, got {kind(prefer)}")


def _numpy_view(t, raw_bits: bool = False):
    """Zero-copy numpy view of a CPU tensor's elements with its strides, through the one bridge
    :func:`layouts.convert` uses (:func:`layouts.arrays.foreign.as_numpy`: the same refusals, the same
    host copy of a tensor on another device); a tensor of a dtype numpy lacks is viewed as
    integers of its size when ``raw_bits``, else refused."""
    from layouts.arrays.foreign import as_numpy, bits_dtype

    _tensor(t)
    arr, _, dtype = as_numpy(t, "t")
    if not raw_bits and not isinstance(dtype, np.dtype):
        raise LayoutError(f"{dtype} has no numpy dtype; convert_tensor moves it as raw bits, or pass "
                          f"t.view({bits_dtype(_torch(), dtype)}) for its bits as integers")
    return arr


def to_numpy(t, axes=None, prefer=None):
    """``(array, layout)``: the tensor's memory as a numpy array in its physical order (a
    zero-copy view) and the Layout describing it.

    A channels_last tensor of shape (N, C, H, W) gives an (N, H, W, C) array and
    ``Layout('NHWC', ...)``; ambiguous size-1 cases need ``prefer``.

    >>> import torch
    >>> t = torch.arange(24.0).reshape(2, 3, 2, 2).to(memory_format=torch.channels_last)
    >>> a, L = to_numpy(t)
    >>> L.spec, a.shape, a[0, 1, 0].tolist()              # n=0, h=1, w=0: the 3 channels
    ('NHWC', (2, 2, 2, 3), [2.0, 6.0, 10.0])
    """
    return _to_numpy(t, axes, prefer, raw_bits=False)


def _to_numpy(t, axes, prefer, raw_bits):
    L = layout_of_tensor(t, axes, prefer)
    a = _numpy_view(t, raw_bits)
    axes = _axes_for(t, axes)
    phys = a.transpose([axes.index(ax) for ax in L.spec])
    return phys, L


def from_numpy(array, layout, axes="NCHW", dtype=None):
    """A torch tensor of logical shape ``axes`` over ``array`` (stored in plain ``layout``), zero
    copy: an NHWC array becomes a channels_last NCHW tensor. ``dtype``: a torch dtype of the
    array's item size to read its bits as (``torch.bfloat16`` for int16 bits).

    >>> t = from_numpy(np.zeros((2, 4, 5, 3), np.float32), "NHWC")
    >>> tuple(t.shape), t.stride()
    ((2, 3, 4, 5), (60, 1, 15, 3))
    """
    torch = _torch()
    if hasattr(layout, "spec") and hasattr(layout, "parsed"):
        spec = layout.spec
    else:
        spec = str_arg("layout", layout)
    a = np.asarray(array) if isinstance(array, np.ndarray) else None
    if a is None:
        raise LayoutTypeError(f"array must be a numpy array, got {type(array).__name__}")
    axes = str_arg("axes", axes).upper()
    if sorted(spec) != sorted(axes) or len(spec) != a.ndim:
        raise LayoutError(f"layout {spec[:40]!r} must be a plain order of the axes {axes[:40]!r} "
                          f"with one letter per array dim (array shape {a.shape})")
    if a.dtype.hasobject or a.dtype.kind not in "biufc":
        raise LayoutTypeError(f"array must hold numbers or bools, got dtype {a.dtype}")
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))  # torch reads native byte order only
    if not a.flags.writeable or any(st < 0 for st in a.strides):
        a = a.copy()  # torch wants writable memory and takes no negative strides
    t = torch.from_dlpack(a) if a.flags.c_contiguous else torch.from_numpy(a)
    if dtype is not None:
        if not isinstance(dtype, torch.dtype):
            raise LayoutTypeError(f"dtype must be a torch.dtype such as torch.bfloat16, got {kind(dtype)}")
        size = torch.empty((), dtype=dtype).element_size()
        if size != a.itemsize:
            raise LayoutError(f"dtype {dtype} has {size}-byte items but the array's are "
                              f"{a.itemsize} bytes ({a.dtype})")
        t = t.view(dtype)
    return t.permute([spec.index(ax) for ax in axes])


def convert_tensor(t, dst, src=None, axes=None, prefer=None, threads=None, **dims):
    """``t`` moved into layout ``dst`` by :func:`layouts.convert`; a tensor comes back (same
    dtype, same device).

    The keywords mean the same for plain and blocked layouts, on the way in and out:

    ``src``
        ``None``: ``t`` is a logical tensor (``N, C, H, W``) whose memory order is read from its
        strides. A spec or Layout (``"NCHW16c"``): ``t`` is a physical tensor stored in it, as
        this function returns for a blocked ``dst``. A plain spec may also name the memory
        order of a logical tensor (``"NHWC"`` for a channels_last one), as :func:`layouts.convert`
        reads it.
    ``dst``
        plain (``"NHWC"``, ``"NCHW"``, ``"CHWN"``): a tensor of the logical shape whose strides
        are ``dst`` (``"NHWC"`` is ``channels_last``), its memory a numpy array written once.
        Blocked (``"NCHW16c"``) or padded: no torch strides say it, so the physical tensor
        (``N, C1, H, W, 16``).
    ``axes``
        the logical axes of ``t`` (``src=None``) or of a plain result (default NCHW / NCDHW).
    ``**dims``
        sizes the physical shape cannot tell, as in :func:`layouts.convert` (``C=20``).
    """
    from ..named.layout import Layout
    from ..conversion.front import convert
    from layouts.arrays.foreign import numpy_dtype

    torch = _torch()
    _tensor(t)
    if not isinstance(dst, (str, Layout)):
        raise LayoutTypeError(f"dst must be a layout spec (str) or a Layout, got {type(dst).__name__}")
    if src is not None and not isinstance(src, (str, Layout)):
        raise LayoutTypeError(f"src must be None, a layout spec (str) or a Layout, got "
                        f"{type(src).__name__}")
    threads = threads_arg(threads)
    raw_dtype = None if numpy_dtype(t.dtype) is not None else t.dtype
    if src is None:
        axes = _axes_for(t, axes)
        prefer = _prefer_arg(prefer)
        phys, L = _to_numpy(t, axes, prefer if prefer is not None else [axes, *_preferred(axes)],
                            raw_bits=True)
        out = convert(phys, L, dst, threads=threads, **{**L.dims, **dims})
    else:
        if axes is not None:
            str_arg("axes", axes)
        phys = read_as_named(_numpy_view(t, raw_bits=True), src, "t", _warn("convert_tensor"))
        out = convert(phys, src, dst, threads=threads, **dims)
    plain = _plain(dst, out)
    if plain is not None:
        want = axes.upper() if axes is not None else _default_axes(plain, out.ndim)
        if sorted(want) != sorted(plain):
            raise LayoutError(f"axes={want[:40]!r} must name the letters of dst {plain!r}")
        result = from_numpy(out, plain, want)
    else:
        result = torch.from_numpy(out)
    if raw_dtype is not None:
        result = result.view(raw_dtype)
    return result.to(t.device) if t.device.type != "cpu" else result


def _plain(dst, out) -> "str | None":
    """``dst``'s spec when it is a plain order of upper-case axes with no padding, else None."""
    from ..named.layout import Layout

    if isinstance(dst, Layout):
        if dst.has_padding or dst.pitch or dst.align or any(d.is_block for d in dst.parsed.dims):
            return None
        spec = dst.spec
    else:
        spec = dst
    spec = spec.upper() if spec.isalpha() and (spec.isupper() or spec.islower()) else spec
    if not (spec.isascii() and spec.isalpha() and spec.isupper()) or len(spec) != out.ndim:
        return None
    return spec


def _warn(where: str):
    import warnings

    from layouts.errors import LayoutWarning

    return lambda message: warnings.warn(f"{where}: {message}", LayoutWarning, stacklevel=4)


def _preferred(axes):
    return [mem for by_rank in FORMATS.values() for lax, mem in by_rank.values() if lax == axes]
