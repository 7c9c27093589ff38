"""convert's repeat calls: the kernel calls of a conversion into one ``out``, made again.

A data loader converts batch after batch from the same source buffer into the same ``out``.
After the first checked call (:func:`layouts.convert`'s full path) and the second (which records
the kernel calls its steps make), each later call only makes those calls again. That call comes
after other work, when every object it touches is out of the cache and each touch costs a miss,
so :func:`replayed` does the fewest: one lookup keyed by the two addresses, then the checks of
what can have changed in the two arrays since the calls were recorded.

The calls hold views of both addresses, so shapes, strides and dtypes fix every byte they touch.
A recording keeps two sets, one per kind of stores (:mod:`layouts.kernels.recency`): plain into
an ``out`` written a moment ago, non-temporal into one other work has pushed out of the cache.

>>> import numpy as np, layouts as ly
>>> x = np.arange(64 * 3 * 32 * 32, dtype=np.float32).reshape(64, 3, 32, 32)
>>> out = ly.aligned_empty((64, 32, 32, 3), np.float32)
>>> for _ in range(3):                   # checked, recorded, made again
...     y = ly.convert(x, "NCHW", "NHWC", out=out, threads=1)
>>> y is out and np.array_equal(out, x.transpose(0, 2, 3, 1))
True
"""

from __future__ import annotations

from time import perf_counter_ns
from typing import Any, NamedTuple

import numpy as np

from .request import holds_nonzero

__all__ = ["Replay", "replayed", "keep", "kept", "probed", "forget"]

#: (src, dst, x's address, out's address, threads as given) -> :class:`Replay`
_replays: dict = {}
#: what a replay calls in :mod:`layouts.kernels`, bound by the first :func:`keep` (so this module
#: imports no numba): (address, current profile, recency's WRITTEN, pool.made)
_engine: tuple | None = None


class Replay(NamedTuple):
    """The kernel calls of a known conversion from one ``x`` into one ``out``, and what must
    match for them to be made again."""

    x_shape: tuple
    x_strides: tuple
    x_dtype: np.dtype
    out_shape: tuple
    out_strides: tuple
    out_dtype: np.dtype
    profile: Any
    #: a blocked source's suspect slots, each probed for a nonzero (else the full path warns)
    probes: tuple
    #: :func:`layouts.kernels.recency.window_ns` for this ``out`` under ``profile``
    window_ns: int | None
    #: [calls with plain stores, calls with those for a cold ``out``]; None: not recorded yet
    calls: list


def replayed(x: np.ndarray, src: str, dst: str, out: np.ndarray, threads: Any) -> np.ndarray | None:
    """``out``, once the kernel calls recorded for these two buffers are made again, or None
    when there are none or something they depend on changed (the caller then takes the checked
    path). The caller has checked that ``x`` and ``out`` are ndarrays and ``threads`` valid.

    After other work each function called and each object read here costs cache misses, so the
    checks and the recency rule (:func:`layouts.kernels.recency.cold`) are written out inline."""
    engine = _engine
    if engine is None:
        return None
    address, current, written, made = engine
    out_addr = address(out)
    r = _replays.get((src, dst, address(x), out_addr, threads))
    if (r is None or r.profile is not current() or x.shape != r.x_shape or x.strides != r.x_strides
            or out.shape != r.out_shape or out.strides != r.out_strides
            or not (x.dtype is r.x_dtype or x.dtype == r.x_dtype)
            or not (out.dtype is r.out_dtype or out.dtype == r.out_dtype)
            or not out.flags.writeable or (r.probes and not probed(x, r.probes))):
        return None
    last, window = written.get(out_addr), r.window_ns
    calls = r.calls[window is not None and (last is None or perf_counter_ns() - last > window)]
    if calls is None:
        return None
    made(calls)                      # a recording around this call keeps them too
    for fn, args in calls:
        fn(*args)
    written[out_addr] = perf_counter_ns()   # (adds at most one entry per kept replay to recency's bound)
    return out


def keep(x: np.ndarray, src: str, dst: str, out: np.ndarray, threads: Any, profile: Any, probes: tuple,
         cold: bool, calls: tuple) -> None:
    """Keep ``calls``, recorded converting ``x`` into ``out`` with ``threads`` (as given to
    convert) under ``profile`` into an ``out`` that was ``cold``, for :func:`replayed`. (With
    ``threads=None`` the caller keeps none recorded across a :func:`layouts.set_threads`.)"""
    global _engine
    from . import kernels
    if _engine is None:
        _engine = (kernels.address, kernels.current, kernels.recency.WRITTEN, kernels.pool.made)
    key = (src, dst, kernels.address(x), kernels.address(out), threads)
    r = _replays.get(key)
    if r is None or r.profile is not profile or (r.x_shape, r.x_strides, r.x_dtype, r.out_shape, r.out_strides,
                                                 r.out_dtype) != (x.shape, x.strides, x.dtype, out.shape,
                                                                  out.strides, out.dtype):
        if len(_replays) > 256:
            _replays.clear()
        r = _replays[key] = Replay(x.shape, x.strides, x.dtype, out.shape, out.strides, out.dtype, profile, probes,
                                   kernels.recency.window_ns(out.nbytes, profile), [None, None])
    r.calls[cold] = calls


def kept(out: np.ndarray) -> list[Replay]:
    """The replays kept for conversions into ``out`` (into its first byte)."""
    return [r for key, r in _replays.items() if key[3] == out.ctypes.data]


def probed(x: np.ndarray, probes: tuple) -> bool:
    """Whether each of a blocked source's suspect slots holds a nonzero in its first run."""
    return all(holds_nonzero(x[probe]) for probe in probes)


def forget() -> None:
    """Drop every kept replay: :func:`layouts.set_threads` does, as the calls were recorded for
    the thread count of its setting (and tests start from this)."""
    _replays.clear()
