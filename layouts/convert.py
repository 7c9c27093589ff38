"""``convert``: move a tensor from one layout to another.

The work is split the einops way: a pure plan (:mod:`layouts.plan`) turns the two layouts
into pairs of same-shape numpy views, and the numba kernel :func:`layouts.kernels.copy_into`
moves each pair at memory speed. This module validates the call, allocates or checks ``out``,
and zero-fills the padding the destination has.

>>> import numpy as np, layouts as ly
>>> x = np.arange(2 * 3 * 2 * 2, dtype=np.float32).reshape(2, 3, 2, 2)
>>> y = ly.convert(x, "NCHW", "NHWC")
>>> np.array_equal(y, x.transpose(0, 2, 3, 1))
True
>>> z = ly.convert(x, "NCHW", "NCHW8c")             # (N, ceil(C/8), H, W, 8), padding zero
>>> z.shape, float(z[0, 0, 0, 0, 3:].sum())
((2, 1, 2, 2, 8), 0.0)
>>> np.array_equal(ly.convert(z, "NCHW8c", "NCHW", C=3), x)
True
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

import numpy as np

from . import config
from .errors import LayoutError
from .layout import Layout
from .plan import CopyStep, padding_views, pitch_gap_views, plan
from .spec import parse

#: Bytes from which a fresh output is aligned to a cache line (lets kernels use wide stores).
_ALIGN = 64


def convert(x: Any, src: str | Layout, dst: str | Layout, out: np.ndarray | None = None, *,
            threads: int | None = None, copy: bool | None = True, **dims: int) -> np.ndarray:
    """Convert ``x``, stored in layout ``src``, to layout ``dst``.

    Parameters
    ----------
    x : array_like
        The tensor in ``src``'s physical shape (``(N, C, H, W)`` for ``"NCHW"``,
        ``(N, C1, H, W, 16)`` for ``"NCHW16c"``), with any strides (a slice, a transposed
        view, an OpenCV ROI), or, when ``src`` is a :class:`Layout`, the flat buffer holding it.
    src, dst : str or Layout
        Spec strings or layouts. A pitched or aligned layout needs a :class:`Layout`.
    out : ndarray, optional
        Where to write: an array of ``dst.shape`` and ``x``'s dtype, or a flat buffer of
        ``dst.size`` elements. Padding slots are zero-filled (pitch gaps when ``out`` is flat).
    threads : int, optional
        Threads for the kernels: ``None`` uses :func:`layouts.set_threads`'s setting (by default
        all cores numba sees), 1 runs serially.
    copy : bool or None
        ``True`` (default) always writes a new array (or ``out``). ``None`` returns a view of
        ``x`` when ``x`` already stores its elements exactly as ``dst`` would (same memory
        order once size-1 axes are set aside), and converts otherwise.
    **dims : int
        Logical sizes the physical shape cannot tell: the true channel count of a blocked
        source (``C=20`` for a ``(N, 2, H, W, 16)`` array), Ascend's ``C0=``.

    Returns
    -------
    ndarray
        ``out`` when given, else a new array of ``dst.shape`` (C-contiguous; for a pitched
        ``dst`` a strided view of a zero-padded buffer of ``dst.size`` elements).

    Examples
    --------
    >>> import numpy as np, layouts as ly
    >>> x = np.arange(24, dtype=np.uint8).reshape(1, 2, 3, 4)
    >>> ly.convert(x, "NCHW", "CHWN").shape
    (2, 3, 4, 1)
    >>> ly.convert(x, "NCHW", "NHWC", copy=None).base is not None   # C == 2: a real conversion
    True
    >>> np.shares_memory(ly.convert(x[:, :1], "NCHW", "NHWC", copy=None), x)   # C == 1: same memory order
    True
    """
    if type(x).__module__.split(".")[0] == "dask":  # a dask array: a lazy result (layouts.chunked.dask)
        from .chunked.dask import convert_dask
        return convert_dask(x, src, dst, out=out, threads=threads, copy=copy, **dims)
    try:
        return _convert(x, src, dst, out, threads, copy, dims)
    except LayoutError as err:
        shape = getattr(x, "shape", None)
        raise LayoutError(f"convert({_name(src)} -> {_name(dst)}, input shape {shape}): {err}") from None


def _name(layout: str | Layout) -> str:
    return layout.spec if isinstance(layout, Layout) else repr(layout)


def _convert(x: Any, src: str | Layout, dst: str | Layout, out: np.ndarray | None, threads: int | None,
             copy: bool | None, dims: Mapping[str, int]) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype.hasobject:
        raise LayoutError(f"dtype {x.dtype} holds Python objects; convert moves numeric and bool data only")
    if isinstance(src, Layout) and x.ndim == 1 and x.shape != src.shape:
        x = _flat_source(x, src)
    if copy not in (True, None):
        raise LayoutError(f"copy must be True or None, got {copy!r}")
    threads = config.check_threads(threads) if threads is not None else config.get_threads()
    try:
        key = (src, dst, x.shape, x.dtype.itemsize == 1, tuple(sorted(dims.items())))
        hash(key)
    except TypeError:  # an unhashable size: let validation say what is wrong with it
        src_layout, dst_layout, steps, pads = _prepare(src, dst, x.shape, x.dtype.itemsize == 1, dims)
    else:
        src_layout, dst_layout, steps, pads = _prepare_cached(*key)
    if copy is None:
        if out is not None:
            raise LayoutError("copy=None returns a view of x and cannot write into out; drop one of them")
        view = _as_view(x, steps, dst_layout)
        if view is not None:
            return view
    result, target, flat = _target(out, dst_layout, x)
    from .kernels import copy_into, fill_zero  # numba loads here, on the first conversion

    for step in steps:
        step.run(x, target, copy_into, threads)
    for pad in padding_views(dst_layout, target, pads):
        if pad.size:
            fill_zero(pad, threads=threads)
    if flat is not None:
        for gap in pitch_gap_views(dst_layout, flat):
            if gap.size:
                fill_zero(gap, threads=threads)
    return result


def _prepare(src: str | Layout, dst: str | Layout, shape: tuple[int, ...], byte_sized: bool,
             dims: Mapping[str, int] | tuple) -> tuple[Layout, Layout, list, list]:
    """Both layouts and the plan between them, for an input of ``shape``."""
    dims = dict(dims)
    src_layout = _source(src, shape, dims)
    dst_layout = _destination(dst, src_layout, byte_sized, dims)
    steps, pads = plan(src_layout, dst_layout)
    return src_layout, dst_layout, steps, pads


_prepare_cached = lru_cache(maxsize=512)(_prepare)


def _flat_source(x: np.ndarray, src: Layout) -> np.ndarray:
    """The flat buffer ``x`` viewed as the physical array of ``src``."""
    if x.size < src.span:
        raise LayoutError(f"a flat source buffer for {src!r} needs at least {src.span} elements "
                          f"(its last element's offset + 1; {src.size} with trailing padding), got {x.size}")
    return src.view(x if x.size <= 1 or x.strides[0] == x.itemsize else np.ascontiguousarray(x))


def _source(src: str | Layout, shape: tuple[int, ...], dims: Mapping[str, int]) -> Layout:
    if isinstance(src, Layout):
        if shape != src.shape:
            raise LayoutError(f"x has shape {shape}, but layout {src!r} has physical shape {src.shape}")
        for axis, n in dims.items():
            if axis in src.dims and src.dims[axis] != n:
                raise LayoutError(f"{axis}={n} was given, but the source layout has {axis}={src.dims[axis]}")
        return src
    spec = parse(src)
    own = {k: v for k, v in dims.items() if k in spec.axes or k in _params(spec)}
    return Layout.from_shape(spec, shape, **own)


def _params(spec: Any) -> set[str]:
    return {d.block for d in spec.dims if isinstance(d.block, str)}


def _destination(dst: str | Layout, src: Layout, byte_sized: bool, dims: Mapping[str, int]) -> Layout:
    if isinstance(dst, Layout):
        layout = dst
    else:
        spec = parse(dst)
        params = {}
        src_blocks = dict(zip(src.dim_names, src.shape))
        for p in _params(spec):  # Ascend's C0: as given, else the source's, else 16 (32 for 8-bit types)
            params[p] = dims.get(p, src_blocks.get(p, 32 if byte_sized else 16))
        if set(spec.axes) != set(src.axes):
            raise LayoutError(_axes_message(src, spec.axes))
        layout = Layout(spec, **src.dims, **params)
    if set(layout.axes) != set(src.axes):
        raise LayoutError(_axes_message(src, layout.axes))
    for axis in src.axes:
        if layout.dims[axis] != src.dims[axis]:
            raise LayoutError(f"axis {axis} has size {src.dims[axis]} in the source but {layout.dims[axis]} in the destination layout")
    known = set(src.axes) | _params(src.parsed) | _params(layout.parsed)
    unknown = [k for k in dims if k not in known]
    if unknown:
        raise LayoutError(f"unknown size {', '.join(unknown)}: the layouts have axes {', '.join(src.axes)}")
    return layout


def _axes_message(src: Layout, dst_axes: tuple[str, ...]) -> str:
    return (f"source axes {''.join(src.axes)} and destination axes {''.join(dst_axes)} differ; "
            f"a conversion reorders the same axes")


def _target(out: np.ndarray | None, layout: Layout, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(what to return, the shaped view to write, the flat buffer when there is one)."""
    if out is None:
        if layout.pitch or layout.align:
            flat = _aligned(layout.size, x.dtype, zero=True)
            return layout.view(flat), layout.view(flat), None
        shaped = _aligned(layout.size, x.dtype, zero=False).reshape(layout.shape)
        return shaped, shaped, None
    if not isinstance(out, np.ndarray):
        raise LayoutError(f"out must be a numpy array, got {type(out).__name__}")
    if out.dtype != x.dtype:
        raise LayoutError(f"out has dtype {out.dtype}, expected {x.dtype} (convert does not cast)")
    if not out.flags.writeable:
        raise LayoutError("out is read-only; pass a writable array")
    if np.may_share_memory(out, x):
        raise LayoutError("out overlaps x; convert needs a separate output array")
    if out.shape == layout.shape:
        return out, out, None
    if out.ndim == 1:
        if out.size != layout.size:
            raise LayoutError(f"a flat out for {layout!r} must hold {layout.size} elements, got {out.size}")
        if out.size > 1 and out.strides[0] != out.itemsize:
            raise LayoutError("a flat out must be contiguous")
        return out, layout.view(out), out
    raise LayoutError(f"out has shape {out.shape}, expected {layout.shape} (or a flat buffer of {layout.size} elements)")


def _aligned(count: int, dtype: np.dtype, zero: bool) -> np.ndarray:
    """A flat array of ``count`` elements whose data starts on a cache-line boundary."""
    nbytes = count * dtype.itemsize
    raw = (np.zeros if zero else np.empty)(nbytes + _ALIGN, dtype=np.uint8)
    start = (-raw.ctypes.data) % _ALIGN
    return raw[start:start + nbytes].view(dtype)


def _as_view(x: np.ndarray, steps: list, dst: Layout) -> np.ndarray | None:
    """``x`` re-read as ``dst`` without copying, when its memory already is ``dst``'s."""
    if dst.has_padding or len(steps) != 1 or not isinstance(steps[0], CopyStep):
        return None
    src_view = steps[0].source_view(x)
    try:
        view = src_view.reshape(dst.shape, copy=False)
    except (ValueError, TypeError):
        return None
    if view.size > 1 and not view.flags.c_contiguous:
        return None
    return view
