"""Run a planned conversion: the plan of two layouts (cached), the output allocated or checked,
the plan's copies made and the padding zeroed.

:func:`layouts.convert` and a :class:`~layouts.conversion.converter.Converter` share these steps:
the converter decides once what ``convert`` decides per call.

>>> import numpy as np
>>> x = np.arange(2 * 3 * 2 * 2, dtype=np.float32).reshape(2, 3, 2, 2)
>>> request, steps, pads = prepare("NCHW", "NCHW8c", x.shape, x.dtype, {})
>>> result, shaped, flat = target(None, request.dst, x)
>>> write(x, shaped, flat, steps, pads, request.dst, threads=1)
>>> result.shape, np.array_equal(result[..., :3], x.transpose(0, 2, 3, 1)[:, None]), float(result[..., 3:].sum())
((2, 1, 2, 2, 8), True, 0.0)
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

import numpy as np

from ..arrays.aligned import aligned_empty
from ..errors import LayoutError
from ..named.layout import MAX_ELEMENTS, Layout
from ..request import Request, resolve
from . import loading as kernel_loading
from .generic import check_out
from .plan import padding_views, pitch_gap_views, plan

__all__ = ["prepare", "prepare_cached", "flat_source", "target", "aligned_result", "write"]


def prepare(src: str | Layout, dst: str | Layout, shape: tuple[int, ...], dtype: np.dtype,
             dims: Mapping[str, int]) -> tuple[Request, list, list]:
    """Both layouts (:func:`layouts.request.resolve`) and the plan between them, for an input of
    ``shape`` and ``dtype``; every size limit is checked here, before anything is allocated."""
    request = resolve(src, dst, shape, dtype, **dims)
    request.check_allocatable(dtype)
    src_layout, dst_layout = request.src, request.dst
    steps, pads = plan(src_layout, dst_layout)
    return request, steps, pads


@lru_cache(maxsize=512)
def prepare_cached(src: str | Layout, dst: str | Layout, shape: tuple[int, ...], dtype: np.dtype,
                    typed_dims: tuple) -> tuple[Request, list, list]:
    """:func:`prepare`, cached; ``typed_dims`` holds (name, type, value) triples."""
    return prepare(src, dst, shape, dtype, {k: v for k, _, v in typed_dims})


def flat_source(x: np.ndarray, src: Layout, no_copy: bool = False) -> np.ndarray:
    """The flat buffer ``x`` viewed as the physical array of ``src``."""
    if x.size < src.span:
        raise LayoutError(f"a flat source buffer for {src!r} needs at least {src.span} elements "
                          f"(its last element's offset + 1; {src.size} with trailing padding), got {x.size}")
    if x.size > 1 and x.strides[0] != x.itemsize:
        if no_copy:
            raise LayoutError("copy=False, but the flat source buffer is strided and must be copied to be viewed")
        x = np.ascontiguousarray(x)
    return src.view(x)


def target(out: np.ndarray | None, layout: Layout, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(what to return, the shaped view to write, the flat buffer when there is one)."""
    if out is None:
        if layout.size * x.dtype.itemsize > MAX_ELEMENTS:
            raise LayoutError(f"the result needs {layout.size * x.dtype.itemsize} bytes, more than numpy can allocate")
        if layout.pitch or layout.align:
            flat = aligned_result(layout.size, x.dtype, zero=True)
            return layout.view(flat), layout.view(flat), None
        shaped = aligned_result(layout.size, x.dtype, zero=False).reshape(layout.shape)
        return shaped, shaped, None
    check_out(out, x)
    if out.shape == layout.shape:
        return out, out, None
    if out.ndim == 1:
        if out.size != layout.size:
            raise LayoutError(f"a flat out for {layout!r} must hold {layout.size} elements, got {out.size}")
        if out.size > 1 and out.strides[0] != out.itemsize:
            raise LayoutError("a flat out must be contiguous")
        return out, layout.view(out), out
    raise LayoutError(f"out has shape {out.shape}, expected {layout.shape} (or a flat buffer of {layout.size} elements)")


def aligned_result(count: int, dtype: np.dtype, zero: bool) -> np.ndarray:
    """A flat array of ``count`` elements whose data starts on a cache-line boundary."""
    try:
        return aligned_empty(count, dtype, zero=zero)
    except LayoutError:
        raise LayoutError(f"cannot allocate {count * dtype.itemsize} bytes for the result; pass out= "
                          f"(or convert in parts)") from None


def write(x: np.ndarray, target: np.ndarray, flat: np.ndarray | None, steps: list, pads: list, layout: Layout,
          threads: Any) -> None:
    """Make the plan's copies from ``x`` into ``target`` (shaped as ``layout``), zero its padding
    and, where ``flat`` is the buffer under a pitched ``target``, the gaps between its rows."""
    movers = kernel_loading.movers(x.nbytes)  # numpy's copies until the kernels pay for loading numba
    for step in steps:
        step.run(x, target, movers, threads)
    for pad in padding_views(layout, target, pads):
        if pad.size:
            movers.fill_zero(pad, threads=threads)
    if flat is not None:
        for gap in pitch_gap_views(layout, flat):
            if gap.size:
                movers.fill_zero(gap, threads=threads)
