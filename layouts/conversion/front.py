"""``convert``: move a tensor from one layout to another.

The work is split the einops way: a pure plan (:mod:`layouts.conversion.plan`) turns the two layouts
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

import math
import warnings
from typing import Any, Callable, Mapping

import numpy as np

from .. import settings
from . import replays
from ..arrays.devices import off_host
from ..arrays.foreign import as_numpy, from_capsule, is_torch_tensor, lazy_converter
from ..errors import LayoutError, LayoutTypeError, LayoutWarning, type_name
from ..named.layout import Layout
from ..named.torch_names import read_as_named
from .execute import flat_source, prepare, prepare_cached, target, write
from .plan import CopyStep
from ..request import beyond_specs, layout_name, resolve, reworded
from .generic import convert_generic


def convert(x: Any, src: str | Layout, dst: str | Layout, out: Any = None, *,
            threads: int | None = None, copy: bool | None = True, **dims: int) -> Any:
    """Convert ``x``, stored in layout ``src``, to layout ``dst``.

    Parameters
    ----------
    x : array_like, torch tensor, or DLPack / array-API array
        The tensor in ``src``'s physical shape (``(N, C, H, W)`` for ``"NCHW"``,
        ``(N, C1, H, W, 16)`` for ``"NCHW16c"``), with any strides (a slice, a transposed
        view, an OpenCV ROI), or, when ``src`` is a :class:`Layout`, the flat buffer holding it.
        The result is of ``x``'s kind: a torch tensor gives a torch tensor (zero-copy in and out;
        ``bfloat16`` and other dtypes numpy lacks move as raw bits; a tensor that requires grad
        is refused with what to do): see :mod:`layouts.arrays.foreign`. An array that is not in
        host memory (a tensor on a GPU or the meta device, one traced by ``torch.compile``, a
        cupy array) converts with its own library on its own device, never through the host
        (:mod:`layouts.conversion.on_device`, ``out=`` on that device).
    src, dst : str or Layout
        Spec strings or layouts. A pitched or aligned layout needs a :class:`Layout`. For a
        numpy array, ``src`` names its axes in the order of its shape. For a torch tensor
        (whose shape is always logical, ``N, C, H, W``) it may also name its memory order, as
        torch users do: a channels_last tensor is ``"NCHW"`` (its shape) or ``"NHWC"`` (its
        memory), both read right; ``dst`` names an ``out`` tensor the same way
        (:mod:`layouts.named.torch_names`).
    out : ndarray or torch tensor, optional
        Where to write: an array of ``dst.shape`` and ``x``'s dtype, or a flat buffer of
        ``dst.size`` elements. Padding slots are zero-filled (pitch gaps when ``out`` is flat).
        ``out`` itself is returned. A failing call leaves it untouched.
    threads : int, optional
        Threads for the kernels: ``None`` uses :func:`layouts.set_threads`'s setting (by default
        all cores numba sees), 1 runs serially; more than the cores is clamped to them.
    copy : bool or None
        numpy 2's meaning, with every numpy version: ``True`` (default) always writes a new
        array (or ``out``). ``None`` returns a view of ``x`` when ``x`` already stores its
        elements exactly as ``dst`` would (same memory order once size-1 axes are set aside,
        no padding), and converts otherwise; with ``out=`` it writes into ``out``. ``False``
        never copies: it returns that view, or raises a :class:`LayoutError` when there is none
        (and with ``out=``, which is always a copy).
    **dims : int
        Logical sizes the physical shape cannot tell: the true channel count of a blocked
        source (``C=20`` for a ``(N, 2, H, W, 16)`` array), Ascend's ``C0=``. Without it a
        blocked axis is read from the shape as its **padded** size (``C=32`` for
        ``(N, 2, H, W, 16)``), so its padding comes out as real zeros. When the destination does
        not keep that block and the last index of the axis holds only zeros (what padding
        holds), a :class:`~layouts.errors.LayoutWarning` says so; give the size (or the padded
        size, to mean it) to be explicit.

    Returns
    -------
    ndarray (or ``x``'s kind)
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
    >>> ly.convert(x, "NCHW", "NHWC", copy=False)
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: convert('NCHW' -> 'NHWC', input shape (1, 2, 3, 4)): copy=False, but x's memory is not in the order of 'NHWC' (it would need a copy); pass copy=None to copy only when needed
    """
    if (type(x) is np.ndarray and type(out) is np.ndarray and copy is True and not dims
            and type(src) is str and type(dst) is str
            and (threads is None or (type(threads) is int and threads >= 1))):    # a valid count: no check left
        done = repeat_into(x, src, dst, out, threads)
        if done is not None:
            return done
    lazy = lazy_converter(x)  # a dask array: a lazy result (layouts.chunked.dask registers it)
    if lazy is not None:
        return lazy(x, src, dst, out=out, threads=threads, copy=copy, **dims)
    if off_host(x) is not None or (out is not None and off_host(out) is not None):
        return _on_device(x, src, dst, out, threads, copy, dims)
    generic = beyond_specs(src, dst)   # a CuTe, linear or other layout: any kind pair
    try:
        # Foreign arrays: each kind is read as numpy here (zero-copy where it can be) and the
        # result handed back as that kind below. Another array kind plugs in here.
        def warn(message: str) -> None:  # before anything is written: with -W error, out stays untouched
            warnings.warn(f"convert({layout_name(src)} -> {layout_name(dst)}): {message}", LayoutWarning, stacklevel=4)

        x = from_capsule(x, "x")
        xa, back, x_dtype = as_numpy(x, "x", copy=copy)
        if is_torch_tensor(x) and not generic:  # src may name its memory order, as torch users do (named.torch_names)
            xa = read_as_named(xa, src, "x", warn)
        oa = None
        if out is not None:
            oa, _, out_dtype = as_numpy(out, "out", writable=True)
            if out_dtype != x_dtype:  # the dtypes themselves: bfloat16 is not its int16 raw bits
                raise LayoutError(f"out has dtype {out_dtype}, expected {x_dtype} (x's dtype; convert does not cast)")
            if is_torch_tensor(out) and not generic:
                oa = read_as_named(oa, dst, "out", warn)
        if generic:
            if threads is not None:
                settings.check_threads(threads)
            result = convert_generic(xa, src, dst, oa, threads=threads, copy=copy, dims=dims)
        else:
            result = _convert(xa, src, dst, oa, threads, copy, dims, warn)
    except LayoutError as err:
        raise reworded(err, "convert", src, dst, shape=_shape_of(x)) from None
    if out is not None:
        if oa is not out:  # a torch tensor written through a numpy view: tell autograd, as copy_ does
            from ..arrays.foreign import bump_version
            if is_torch_tensor(out):
                bump_version(out)
        elif type(x) is np.ndarray and type(out) is np.ndarray and copy is True and not dims:
            remember(x, src, dst, out)
        return out
    return back(result)


def repeat_into(x: np.ndarray, src: str, dst: str, out: np.ndarray, threads: int | None) -> np.ndarray | None:
    """A conversion between two specs into ``out`` that a full call has checked before
    (:func:`remember`), made again without the front end's per-call work: from
    :data:`REPLAYS_FIRST_BYTES` the kernel calls kept for these two buffers (:mod:`.replays`),
    else the :class:`~.converter.Converter` kept for the call's signature
    (:meth:`~.converter.Converter.repeat`, which looks for kept calls itself); ``out``, or None
    when the full path must run. ``threads``: None or a valid count."""
    if x.nbytes >= REPLAYS_FIRST_BYTES:      # first: after other work each step costs misses
        done = replays.replayed(x, src, dst, out, threads)
        if done is not None:
            return done
    known = _converters.get((src, dst, x.shape, x.dtype, out.shape, out.dtype))
    return None if known is None else known.repeat(x, out, threads)


#: (src, dst, x's shape and dtype, out's shape and dtype) -> the :class:`~.converter.Converter` of
#: a conversion into ``out`` that one full call has checked (convert's bounded cache of plans, as
#: einops keeps its recipes); only conversions a converter can make again (:meth:`Converter.again`)
_converters: dict = {}
#: converters kept at most; one more, and the cache is emptied
MAX_CONVERTERS = 256
#: from this size :func:`repeat_into` looks for kept kernel calls before the converter; a smaller
#: conversion is most often numpy's copies, which keep none (a fixed size, not the profile's
#: ``small_bytes``: it orders two lookups, it decides nothing)
REPLAYS_FIRST_BYTES = 64 << 10


def remember(x: np.ndarray, src: Any, dst: Any, out: np.ndarray) -> None:
    """After a full conversion into ``out``: keep a converter of this signature for
    :func:`repeat_into` when it can make the conversion again (plain region copies into ``out``'s
    own shape, no padding, two specs)."""
    if type(src) is not str or type(dst) is not str or x.dtype.hasobject:
        return
    key = (src, dst, x.shape, x.dtype, out.shape, out.dtype)
    if key in _converters:
        return
    try:
        request, steps, pads = prepare_cached(src, dst, x.shape, x.dtype, ())
    except LayoutError:
        return
    if out.shape != request.dst.shape:
        return
    from .converter import Converter
    known = Converter.of_plan(src, dst, x.shape, x.dtype, request, steps, pads)
    if not known.repeats:
        return
    if len(_converters) >= MAX_CONVERTERS:
        _converters.clear()
    _converters[key] = known


def _on_device(x: Any, src: Any, dst: Any, out: Any, threads: int | None, copy: Any, dims: Mapping[str, int]) -> Any:
    """convert() of an array that is not in host memory, on its device (see :func:`convert`)."""
    from ..arrays.devices import ops_for
    from ..arrays.foreign import check_tensor
    from .on_device import convert_on_device

    def warn(message: str) -> None:
        warnings.warn(f"convert({layout_name(src)} -> {layout_name(dst)}): {message}", LayoutWarning, stacklevel=4)

    try:
        where = off_host(x)
        if where is None:
            raise LayoutError(f"out is {off_host(out)} but x is in host memory: give out on the host, or move x to "
                              f"out's device first (layouts never moves data between devices)")
        if threads is not None:
            settings.check_threads(threads)
        for name, a in (("x", x), ("out", out)):
            if a is not None and is_torch_tensor(a):
                check_tensor(a, name, data=False)
        return convert_on_device(x, src, dst, out, ops=ops_for(x), copy=copy, dims=dims, warn=warn, where=where)
    except LayoutError as err:
        raise reworded(err, "convert", src, dst, shape=_shape_of(x)) from None


def _shape_of(x: Any) -> Any:
    try:
        return tuple(int(n) for n in x.shape)
    except Exception:  # noqa: BLE001 - only for the message
        try:
            return np.shape(x)
        except Exception:  # noqa: BLE001
            return None


def _convert(x: np.ndarray, src: str | Layout, dst: str | Layout, out: np.ndarray | None, threads: int | None,
             copy: bool | None, dims: Mapping[str, int], warn: Callable[[str], None]) -> np.ndarray:
    """The conversion on numpy arrays; ``warn`` is called with the padding warning (if any) after
    every check and before anything is written."""
    if x.dtype.hasobject:
        raise LayoutError(f"dtype {x.dtype} holds Python objects; convert moves numeric and bool data only")
    if x.dtype.itemsize == 0:
        raise LayoutError(f"x has dtype {x.dtype} of item size 0: there are no bytes to move")
    if not isinstance(src, (str, Layout)) or not isinstance(dst, (str, Layout)):
        resolve(src, dst, x.shape)  # words the wrong kind as every entry does
    if copy is not None and not isinstance(copy, (bool, np.bool_)):
        raise LayoutTypeError(f"copy must be True, False or None, got {type_name(copy)}")
    copy = None if copy is None else bool(copy)
    if isinstance(src, Layout) and x.ndim == 1 and x.shape != src.shape:
        x = flat_source(x, src, copy is False)
    threads = settings.check_threads(threads) if threads is not None else settings.get_threads()
    try:
        # the type is part of the key: C=True or C=2.0 equal C=1 / C=2 as dict keys, yet must be refused
        key = (src, dst, x.shape, x.dtype, tuple(sorted((k, type(v), v) for k, v in dims.items())))
        hash(key)
    except TypeError:  # an unhashable size: let validation say what is wrong with it
        request, steps, pads = prepare(src, dst, x.shape, x.dtype, dims)
    else:
        request, steps, pads = prepare_cached(*key)
    dst_layout = request.dst
    warning = request.padding_warning(x)
    if copy is False:
        if out is not None:
            raise LayoutError("copy=False never copies, but writing into out is a copy; pass copy=True (or None) with out")
        view = _as_view(x, steps, dst_layout)
        if view is None:
            raise LayoutError(f"copy=False, but x's memory is not in the order of {layout_name(dst)} (it would need a copy); "
                              f"pass copy=None to copy only when needed")
        if warning:
            warn(warning)
        return view
    if copy is None and out is None:
        view = _as_view(x, steps, dst_layout)
        if view is not None:
            if warning:
                warn(warning)
            return view
    result, shaped, flat = target(out, dst_layout, x)
    if warning:
        warn(warning)  # before the first write: an error raised by it leaves out untouched
    write(x, shaped, flat, steps, pads, dst_layout, threads)
    return result


def _as_view(x: np.ndarray, steps: list, dst: Layout) -> np.ndarray | None:
    """``x`` re-read as ``dst`` without copying, when its memory already is ``dst``'s."""
    if dst.has_padding or len(steps) != 1 or not isinstance(steps[0], CopyStep):
        return None
    view = reshape_view(steps[0].source_view(x), dst.shape)
    if view is None or (view.size > 1 and not view.flags.c_contiguous):
        return None
    return view


def reshape_view(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    """``a`` viewed with ``shape`` without copying, or None when no view has that shape.

    numpy's no-copy reshape rule written out, so that it behaves the same with every numpy version
    (``reshape(copy=False)`` needs numpy 2.1; before it, ``reshape`` copies silently).

    >>> a = np.arange(12).reshape(3, 4)
    >>> np.shares_memory(reshape_view(a, (2, 6)), a)
    True
    >>> reshape_view(a.T, (12,)) is None
    True
    """
    shape = tuple(int(n) for n in shape)
    if math.prod(shape) != a.size:
        return None
    item = a.itemsize
    if a.size <= 1:
        return np.lib.stride_tricks.as_strided(a, shape, (item,) * len(shape), writeable=a.flags.writeable)
    old = [(n, st) for n, st in zip(a.shape, a.strides) if n != 1]
    strides = [item] * len(shape)
    oi = ni = 0
    while ni < len(shape) and oi < len(old):
        nj, oj = ni + 1, oi + 1
        np_, op = shape[ni], old[oi][0]
        while np_ != op:
            if np_ < op:
                np_ *= shape[nj]
                nj += 1
            else:
                op *= old[oj][0]
                oj += 1
        for k in range(oi, oj - 1):  # the old dims of this group must be contiguous among themselves
            if old[k][1] != old[k + 1][0] * old[k + 1][1]:
                return None
        strides[nj - 1] = old[oj - 1][1]
        for k in range(nj - 1, ni, -1):
            strides[k - 1] = strides[k] * shape[k]
        ni, oi = nj, oj
    return np.lib.stride_tricks.as_strided(a, shape, tuple(strides), writeable=a.flags.writeable)
