"""convert's repeat calls: the kernel calls of a conversion into one ``out``, made again.

A data loader converts batch after batch from the same source buffer into the same ``out``.
After the first checked call (:func:`layouts.convert`'s full path) and the second (which records
the kernel calls its steps make), each later call only makes those calls again: one lookup keyed
by the two buffers' addresses (read through numpy's public interfaces:
:func:`layouts.kernels.runtime.pointers.address`), then the checks of
what fixes every byte the calls touch (shapes, strides, dtypes, ``out`` writable) and of the
profile they were planned under.

The calls hold views of both addresses, so shapes, strides and dtypes fix every byte they touch.
A recording keeps two sets, one per kind of stores (:mod:`layouts.kernels.runtime.recency`): plain into
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

from .. import settings
from ..request import holds_nonzero

__all__ = ["Replay", "replayed", "keep", "kept", "count", "probed", "forget", "MAX_KEPT"]

#: (src, dst, x's address, out's address, threads as given) -> :class:`Replay`
_replays: dict = {}
#: records the lookup holds at most: one more, and it is emptied (:func:`forget`)
MAX_KEPT = 256
#: what a replay reads in :mod:`layouts.kernels`, bound by the first :func:`keep` (so this module
#: imports no numba): (address, current profile, recency's WRITTEN, pool.RECORDING, pool.made)
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
    #: :func:`layouts.kernels.runtime.recency.window_ns` for this ``out`` under ``profile``
    window_ns: int | None
    #: ``out``'s first byte, where :mod:`layouts.kernels.runtime.recency` notes the write
    out_address: int
    #: [calls with plain stores, calls with those for a cold ``out``]; None: not recorded yet
    calls: list


def replayed(x: np.ndarray, src: str, dst: str, out: np.ndarray, threads: Any) -> np.ndarray | None:
    """``out``, once the kernel calls recorded for these two buffers are made again, or None
    when there are none or something they depend on changed (the caller then takes the checked
    path). The caller has checked that ``x`` and ``out`` are ndarrays and ``threads`` valid.

    After other work each function called and each object read here costs cache misses, so the
    checks and the recency rule (:func:`layouts.kernels.runtime.recency.cold`) are written out inline,
    and the record is read by unpacking it at once."""
    engine = _engine
    if engine is None:
        return None
    address = engine[0]
    r = _replays.get((src, dst, address(x), address(out), threads))
    if r is None:
        return None
    x_shape, x_strides, x_dtype, out_shape, out_strides, out_dtype, profile, probes, window, out_addr, calls = r
    if (x.shape != x_shape or x.strides != x_strides or out.shape != out_shape or out.strides != out_strides
            or not (x.dtype is x_dtype or x.dtype == x_dtype) or not (out.dtype is out_dtype or out.dtype == out_dtype)
            or not out.flags.writeable):
        return None
    if profile is not engine[1]() or (probes and not probed(x, probes)):
        return None
    written = engine[2]
    last = written.get(out_addr)
    streamed = window is not None and (last is None or perf_counter_ns() - last > window)
    calls = calls[streamed]
    if calls is None:
        return None
    if engine[3]:                    # a recording around this call keeps them too
        engine[4](calls)
    for fn, args in calls:
        fn(*args)
    if streamed:                     # recency.wrote, inline: streamed lines are not cached
        written.pop(out_addr, None)
    else:
        written[out_addr] = perf_counter_ns()   # (adds at most one entry per kept replay to recency's bound)
    return out


def keep(x: np.ndarray, src: str, dst: str, out: np.ndarray, threads: Any, profile: Any, probes: tuple,
         cold: bool, calls: tuple) -> None:
    """Keep ``calls``, recorded converting ``x`` into ``out`` with ``threads`` (as given to
    convert) under ``profile`` into an ``out`` that was ``cold``, for :func:`replayed`. (With
    ``threads=None`` the caller keeps none recorded across a :func:`layouts.set_threads`.)"""
    global _engine
    from ..kernels import current
    from ..kernels.runtime import pointers, pool, recency
    if _engine is None:
        _engine = (pointers.address, current, recency.WRITTEN, pool.RECORDING, pool.made)
    out_addr, x_addr = pointers.address(out), pointers.address(x)
    key = (src, dst, x_addr, out_addr, threads)
    r = _replays.get(key)
    if r is None or r.profile is not profile or (r.x_shape, r.x_strides, r.x_dtype, r.out_shape, r.out_strides,
                                                 r.out_dtype) != (x.shape, x.strides, x.dtype, out.shape,
                                                                  out.strides, out.dtype):
        r = Replay(x.shape, x.strides, x.dtype, out.shape, out.strides, out.dtype, profile, probes,
                   recency.window_ns(out.nbytes, profile), out_addr, [None, None])
    r.calls[cold] = calls
    if key not in _replays and len(_replays) >= MAX_KEPT:
        forget()
    _replays[key] = r


def kept(out: np.ndarray) -> list[Replay]:
    """The replays kept for conversions into ``out`` (into its first byte)."""
    addr = out.ctypes.data
    return [r for key, r in _replays.items() if key[3] == addr]


def probed(x: np.ndarray, probes: tuple) -> bool:
    """Whether each of a blocked source's suspect slots holds a nonzero in its first run."""
    return all(holds_nonzero(x[probe]) for probe in probes)


def count() -> int:
    """How many records the lookup holds, at most :data:`MAX_KEPT`."""
    return len(_replays)


def forget() -> None:
    """Drop every kept replay: :func:`layouts.set_threads` does, as the calls were recorded for
    the thread count of its setting (and tests start from this)."""
    _replays.clear()


settings.on_change(forget)      # kept calls ran on the thread count of the setting before
