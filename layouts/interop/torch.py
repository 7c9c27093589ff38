"""PyTorch: ``channels_last`` / ``channels_last_3d`` read from strides, tensors converted in place
of numpy arrays, without copies where the memory allows.

A torch tensor's shape is always logical (``N, C, H, W``); its memory order lives in
``.stride()``. :func:`memory_formats` names every torch memory format that stores the tensor
exactly as its strides do -- more than one when size-1 axes make them indistinguishable (a
1x1 image is both contiguous and channels_last; torch reports ``True`` for both too, and picks
one silently elsewhere). :func:`to_numpy` gives the tensor's memory as a numpy array in its
physical order (a zero-copy DLPack view) with its :class:`layouts.Layout`; :func:`from_numpy`
wraps an array in a layout back into a logical tensor (zero-copy); :func:`convert_tensor` moves a
tensor into another layout through :func:`layouts.convert`.

torch is imported only inside these functions; this module imports without it.

>>> import pytest; torch = pytest.importorskip("torch")        # doctest: +SKIP
>>> t = torch.zeros(2, 3, 4, 5).to(memory_format=torch.channels_last)  # doctest: +SKIP
>>> memory_formats(t)                                          # doctest: +SKIP
['channels_last']
"""

from __future__ import annotations

import numpy as np

from ..errors import LayoutError

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
        raise ImportError("layouts.interop.torch needs PyTorch (pip install torch)") from exc
    return torch


def _axes_for(t, axes):
    torch = _torch()
    if not isinstance(t, torch.Tensor):
        raise LayoutError(f"expected a torch.Tensor, got {type(t).__name__}")
    if axes is not None:
        return axes.upper()
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
    from layouts import candidate_layouts

    axes = _axes_for(t, None)
    found = {L.spec for L in candidate_layouts(t, axes) if not L.pitch}
    return [name for name, by_rank in FORMATS.items()
            if t.dim() in by_rank and by_rank[t.dim()][1] in found]


def layout_of_tensor(t, axes=None, prefer=None):
    """The :class:`layouts.Layout` of ``t`` (axes default NCHW / NCDHW); a LayoutError listing
    every candidate when size-1 axes make it ambiguous, unless ``prefer`` picks one."""
    from layouts import layout_of

    return layout_of(t, _axes_for(t, axes), prefer=prefer)


def _numpy_view(t):
    """Zero-copy numpy view of a CPU tensor's elements with its strides (DLPack)."""
    torch = _torch()
    if not isinstance(t, torch.Tensor):
        raise LayoutError(f"expected a torch.Tensor, got {type(t).__name__}")
    if t.device.type != "cpu":
        t = t.cpu()  # a copy: numpy lives on the host
    t = t.detach()
    if t.dtype == torch.bfloat16:
        raise LayoutError("torch.bfloat16 has no numpy dtype; convert the tensor first")
    try:
        return np.from_dlpack(t)
    except (TypeError, RuntimeError, BufferError):
        return t.numpy()


def to_numpy(t, axes=None, prefer=None):
    """``(array, layout)``: the tensor's memory as a numpy array in its physical order (a
    zero-copy view) and the Layout describing it.

    A channels_last tensor of shape (N, C, H, W) gives an (N, H, W, C) array and
    ``Layout('NHWC', ...)``; ambiguous size-1 cases need ``prefer``.
    """
    L = layout_of_tensor(t, axes, prefer)
    a = _numpy_view(t)
    axes = _axes_for(t, axes)
    phys = a.transpose([axes.index(ax) for ax in L.spec])
    return phys, L


def from_numpy(array, layout, axes="NCHW"):
    """A torch tensor of logical shape ``axes`` over ``array`` (stored in plain ``layout``), zero
    copy: an NHWC array becomes a channels_last NCHW tensor."""
    torch = _torch()
    spec = layout.spec if hasattr(layout, "spec") else str(layout)
    a = np.asarray(array)
    axes = axes.upper()
    if sorted(spec) != sorted(axes) or len(spec) != a.ndim:
        raise LayoutError(f"layout {spec!r} must be a plain order of the axes {axes!r} with one "
                          f"letter per array dim (array shape {a.shape})")
    if not a.flags.writeable or any(st < 0 for st in a.strides):
        a = a.copy()  # torch wants writable memory and takes no negative strides
    t = torch.from_dlpack(a) if a.flags.c_contiguous else torch.from_numpy(a)
    return t.permute([spec.index(ax) for ax in axes])


def convert_tensor(t, dst, axes=None, prefer=None, threads=None):
    """``t`` moved into layout ``dst`` by :func:`layouts.convert`.

    A plain ``dst`` (``"NHWC"``, ``"NCHW"``, ``"CHWN"``...) returns a tensor of the same logical
    shape whose strides are ``dst`` (``"NHWC"`` is ``channels_last``), its memory shared with a
    numpy array written once. A blocked ``dst`` (``"NCHW16c"``) has no torch strides: the
    physical tensor (``N, C1, H, W, 16``) comes back.
    """
    from layouts import Layout, convert

    axes = _axes_for(t, axes)
    phys, L = to_numpy(t, axes, prefer if prefer is not None else [axes, *_preferred(axes)])
    out = convert(phys, L, dst, threads=threads, **L.dims)
    plain = Layout(dst, **L.dims) if isinstance(dst, str) else dst
    if not plain.has_padding and all(not d.is_block for d in plain.parsed.dims) and sorted(plain.axes) == sorted(axes):
        return from_numpy(out, plain.spec, axes)
    torch = _torch()
    return torch.from_numpy(np.ascontiguousarray(out))


def _preferred(axes):
    return [mem for by_rank in FORMATS.values() for lax, mem in by_rank.values() if lax == axes]
