"""Say which copies :func:`layouts.convert` would make for a conversion, and why each is done the
way it is (``python -m layouts explain-copy``): one :class:`~layouts.kernels.explain.Explanation`
of the copy engine's choice per copy.

>>> [e.strategy for e in explain_conversion((8, 3, 32, 32), "float32", "NCHW", "NHWC", threads=1)]
['small-c']
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ..errors import LayoutError, LayoutTypeError
from ..kernels import current
from ..kernels.explain import Explanation, explain
from ..kernels.padded import explain_padded
from ..request import resolve
from .plan import CopyStep, PaddedCopyStep, plan

__all__ = ["explain_conversion"]


def explain_conversion(shape: tuple[int, ...], dtype: Any, src: Any, dst: Any, threads: int | None = None,
                       **dims: int) -> list[Explanation]:
    """The copies ``layouts.convert`` would make for an input of ``shape`` and ``dtype`` in ``src``
    into ``dst`` (a fresh, aligned output), each explained. Nothing is allocated at full size.
    These are the kernels' choices; before a process has loaded them its first conversions copy
    with numpy (:mod:`layouts.conversion.loading`), and explaining one loads numba.

    >>> [e.strategy for e in explain_conversion((128, 64, 56, 56), "uint8", "NCHW", "NHWC", threads=1)]
    ['grouped']
    """
    from ..kernels.runtime.pool import thread_count
    try:
        shape = tuple(operator.index(n) for n in shape)
    except TypeError:
        raise LayoutTypeError(f"shape must be a sequence of ints, got {shape!r:.80}") from None
    try:
        dt = np.dtype(dtype)
    except (TypeError, ValueError, SyntaxError):
        raise LayoutError(f"dtype {dtype!r:.40} is not a numpy dtype; expected e.g. 'float32', 'uint8'") from None
    if dt.hasobject or dt.itemsize == 0 or dt.shape != ():
        raise LayoutError(f"dtype {dt} has no fixed-size elements to move (objects, empty or subarray dtype)")
    request = resolve(src, dst, shape, dt, **dims)
    request.check_allocatable(dt)
    s_layout, d_layout = request.src, request.dst
    steps, pads = plan(s_layout, d_layout)
    x = _fake(s_layout.shape, _contiguous(s_layout.shape, dt.itemsize), dt)
    flat = _fake((d_layout.size,), (dt.itemsize,), dt)
    target = d_layout.view(flat)
    nth = thread_count(threads)
    out = []
    for k, step in enumerate(steps):
        if not isinstance(step, CopyStep):
            out.append(Explanation(_GatherPlan(), "gather", "no view-to-view plan between these layouts: every "
                                   "element moved by its offsets (numpy)", {}, [], 1, "numpy", current()))
            continue
        sv, dv = step.views(x, target)
        label = f"step {k + 1} of {len(steps)}: region {dict(step.regions)}" if len(steps) > 1 else ""
        if isinstance(step, PaddedCopyStep):
            if dv.size:
                out.append(explain_padded(dv, sv, nth, label, distinct=True))
        elif sv.size:
            out.append(explain(dv, sv, nth, label=label, distinct=True))    # convert's output is separate
    return out


class _GatherPlan:
    kind = "gather"
    unit = None
    nbytes = 0
    batch = ()


def _fake(shape: tuple[int, ...], strides: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A view with these shape and strides over a 64-byte aligned scrap of memory: its plan is
    real, its elements must never be read (nothing here reads them)."""
    base = np.empty(64 + dtype.itemsize, np.uint8)
    off = (-base.ctypes.data) % 64
    one = base[off:off + dtype.itemsize].view(dtype)
    return np.lib.stride_tricks.as_strided(one, shape, strides, writeable=True)


def _contiguous(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    st, acc = [], itemsize
    for n in reversed(shape):
        st.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(st))
