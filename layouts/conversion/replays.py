"""convert's repeat calls: the kernel calls of a conversion into one ``out``, made again.

A data loader converts batch after batch from the same source buffer into the same ``out``.
After the first checked call (:func:`layouts.convert`'s full path) and the second (which records
the kernel calls its steps make), each later call only makes those calls again. That call comes
after other work, when every object it touches is out of the cache and each touch costs a miss,
so :func:`replayed` does the fewest: one lookup keyed by ``out`` itself (the same two array
objects as when the calls were kept, the loop's usual case) or, for new array objects over the
same buffers, by the two addresses, then the checks of what can have changed in the two arrays
since the calls were recorded.

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

__all__ = ["Replay", "replayed", "keep", "worth_keeping", "kept", "count", "probed", "forget", "MAX_KEPT"]

#: (src, dst, x's address, out's address, threads as given) -> :class:`Replay`
_replays: dict = {}
#: ``(id(out), threads as given)`` -> :class:`_Objects`: the array objects the calls were last kept
#: for (one record per thread setting, so calls that alternate settings on one ``out`` each find
#: their own), and views of
#: what numpy keeps of them (:func:`layouts.kernels.runtime.pointers.struct_snapshot`). Matching the
#: objects' ``id`` and comparing those bytes costs less after other work than reading two
#: addresses afresh and each attribute the calls depend on (an object can be given another buffer,
#: by ``__setstate__`` for one, or another shape in place, so the bytes are read each time). Only
#: where :data:`layouts.kernels.runtime.pointers.STRUCT`.
_by_object: dict = {}
#: ``id(out)`` -> (``id(x)``, x's address) of the last small conversion into ``out`` not kept
#: (:func:`worth_keeping`)
_met: dict = {}
#: records each lookup holds at most: one more, and both are emptied (:func:`forget`)
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


class _Objects(NamedTuple):
    """The key of a :class:`Replay` kept for two array objects: their ``id`` (``out``'s is the
    dict's key) and for each a view of numpy's struct fields and of its shape and strides, with
    the bytes they held when the calls were recorded, which they must still hold."""

    x_id: int
    x_fields: Any
    x_was: bytes
    x_sizes: Any
    x_sizes_were: bytes
    out_fields: Any
    out_was: bytes
    out_sizes: Any
    out_sizes_were: bytes
    src: str
    dst: str
    threads: Any
    x_address: int
    replay: Replay


def replayed(x: np.ndarray, src: str, dst: str, out: np.ndarray, threads: Any) -> np.ndarray | None:
    """``out``, once the kernel calls recorded for these two buffers are made again, or None
    when there are none or something they depend on changed (the caller then takes the checked
    path). The caller has checked that ``x`` and ``out`` are ndarrays and ``threads`` valid.

    After other work each function called and each object read here costs cache misses, so the
    checks and the recency rule (:func:`layouts.kernels.runtime.recency.cold`) are written out inline,
    and each record is read by unpacking it at once."""
    engine = _engine
    if engine is None:
        return None
    o = _by_object.get((id(out), threads))
    if o is not None:          # out is the object at that id, alive: its struct can be read
        (x_id, x_fields, x_was, x_sizes, x_sizes_were, out_fields, out_was, out_sizes, out_sizes_were,
         o_src, o_dst, o_threads, _, r) = o
        # kernels.pointers.unchanged, inline: the fields first, so that a shape block is read
        # only where its pointer is unchanged
        if (id(x) != x_id or o_src != src or o_dst != dst or o_threads != threads
                or x_fields.raw != x_was or out_fields.raw != out_was
                or x_sizes.raw != x_sizes_were or out_sizes.raw != out_sizes_were):
            o = None
    if o is None:
        address = engine[0]
        r = _replays.get((src, dst, address(x), address(out), threads))
        if r is None:
            return None
        if (x.shape != r.x_shape or x.strides != r.x_strides or out.shape != r.out_shape
                or out.strides != r.out_strides or not (x.dtype is r.x_dtype or x.dtype == r.x_dtype)
                or not (out.dtype is r.out_dtype or out.dtype == r.out_dtype) or not out.flags.writeable):
            return None
    _, _, _, _, _, _, profile, probes, window, out_addr, calls = r
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
         cold: bool, calls: tuple, by_address: bool = True) -> None:
    """Keep ``calls``, recorded converting ``x`` into ``out`` with ``threads`` (as given to
    convert) under ``profile`` into an ``out`` that was ``cold``, for :func:`replayed`. (With
    ``threads=None`` the caller keeps none recorded across a :func:`layouts.set_threads`.)
    ``by_address=False`` keeps them for these two objects only (one record per ``out``, so
    conversions of a new source each call do not crowd out the others)."""
    global _engine
    from ..kernels import current
    from ..kernels.runtime import pointers, pool, recency
    if _engine is None:
        _engine = (pointers.address, current, recency.WRITTEN, pool.RECORDING, pool.made)
    out_addr, x_addr = pointers.address(out), pointers.address(x)
    key = (src, dst, x_addr, out_addr, threads)
    r = _replays.get(key)
    o = _by_object.get((id(out), threads))
    if r is None and o is not None and (o.src, o.dst, o.x_address, o.replay.out_address, o.threads) == key:
        r = o.replay
    if r is None or r.profile is not profile or (r.x_shape, r.x_strides, r.x_dtype, r.out_shape, r.out_strides,
                                                 r.out_dtype) != (x.shape, x.strides, x.dtype, out.shape,
                                                                  out.strides, out.dtype):
        r = Replay(x.shape, x.strides, x.dtype, out.shape, out.strides, out.dtype, profile, probes,
                   recency.window_ns(out.nbytes, profile), out_addr, [None, None])
    r.calls[cold] = calls
    if ((by_address and key not in _replays and len(_replays) >= MAX_KEPT)
            or ((id(out), threads) not in _by_object and len(_by_object) >= MAX_KEPT)):
        forget()
    if by_address:
        _replays[key] = r
    x_snapshot, out_snapshot = pointers.struct_snapshot(x), pointers.struct_snapshot(out)
    if x_snapshot is not None and out_snapshot is not None:
        _by_object[id(out), threads] = _Objects(id(x), *x_snapshot, *out_snapshot, src, dst, threads, x_addr, r)


def worth_keeping(x: np.ndarray, out: np.ndarray, address, threads: Any = None) -> bool:
    """Whether numpy's copies of a small conversion from ``x`` into ``out`` are worth keeping: the
    first time ``out`` is met, or when ``x`` (the same object over the same buffer) was met last
    time. A loader that converts a fresh source each call would otherwise pay on every call for a
    record it never uses."""
    o = _by_object.get((id(out), threads))
    if o is None:
        return True
    met = (id(x), address(x))
    if met == (o.x_id, o.x_address) or _met.get(id(out)) == met:
        return True
    if len(_met) >= MAX_KEPT:
        _met.clear()
    _met[id(out)] = met
    return False


def kept(out: np.ndarray) -> list[Replay]:
    """The replays kept for conversions into ``out`` (into its first byte)."""
    addr = out.ctypes.data
    found = [r for key, r in _replays.items() if key[3] == addr]
    return found + [o.replay for o in _by_object.values()
                    if o.replay.out_address == addr and not any(o.replay is r for r in found)]


def probed(x: np.ndarray, probes: tuple) -> bool:
    """Whether each of a blocked source's suspect slots holds a nonzero in its first run."""
    return all(holds_nonzero(x[probe]) for probe in probes)


def count() -> int:
    """How many records the two lookups hold (by the objects and by the addresses; a record
    can be in both), each at most :data:`MAX_KEPT`."""
    return len(_replays) + len(_by_object)


def forget() -> None:
    """Drop every kept replay: :func:`layouts.set_threads` does, as the calls were recorded for
    the thread count of its setting (and tests start from this)."""
    _replays.clear()
    _by_object.clear()
    _met.clear()


settings.on_change(forget)      # kept calls ran on the thread count of the setting before
