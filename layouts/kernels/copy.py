"""The copy engine's core: check a copy, plan it, choose its strategy and run it.

:func:`copy_into` and :func:`fill_zero` are the engine's two entries (re-exported by
:mod:`layouts.kernels`); :func:`explain_copy` says what a copy would do. The choice of a strategy
is cached per (shape, strides, dtype, alignment, profile).

>>> import numpy as np
>>> x = np.arange(6, dtype=np.int16).reshape(2, 3)
>>> out = np.empty((3, 2), np.int16)
>>> copy_into(out, x.T); out.tolist()
[[0, 3], [1, 4], [2, 5]]
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..errors import LayoutError, LayoutTypeError
from ..arrays.raw_bytes import whole_elements

from .machine import jit_cache
from .machine import profile as _profile
from .plan import make_fill_plan
from .runtime import recency
from .runtime.pointers import address, flat_view
from .strategy import set_engine
from .runtime.pool import made, recorded, replay, run_items, thread_count
from .machine.profile import MachineProfile, current, reference, set_profile, use_profile
from .records import ROWS, batch_axes, record
from .strategies.numpy_copy import numpy_is_cheaper, short_rows, strided_units

__all__ = ["copy_into", "copied_by_numpy", "short_rows", "fill_zero", "MachineProfile", "current", "reference", "set_profile",
           "use_profile"]

jit_cache.check()        # before any kernel loads: numba's cache would keep code compiled from older sources

_choices: dict = {}      # (shape, strides, dtype, alignments, stream, id(profile)) -> (Choice, profile)
_repeats: dict = {}      # (shape, strides, dtype, addresses, stream, threads) -> (profile, kernel calls)


def check(dst, src):
    """The checks of :func:`copy_into` (and of :func:`layouts.kernels.explain.explain_copy`): two
    same-shape, same-dtype numpy arrays, the destination writable."""
    if not isinstance(dst, np.ndarray) or not isinstance(src, np.ndarray):
        raise LayoutTypeError("copy_into: dst and src must be numpy arrays, got "
                        f"{type(dst).__name__} and {type(src).__name__}")
    if dst.shape != src.shape:
        raise LayoutError(f"copy_into: shapes differ: dst {dst.shape} vs src {src.shape}")
    if dst.dtype != src.dtype:
        raise LayoutError(f"copy_into: dtypes differ: dst {dst.dtype} vs src {src.dtype}")
    if not dst.flags.writeable:
        raise LayoutError("copy_into: dst is read-only")


def copy_into(dst, src, threads=None):
    """``dst[...] = src`` for same-shape, same-dtype arrays with arbitrary strides.

    Bitwise equal to ``np.copyto(dst, src)``, also when the two overlap (then it is ``np.copyto``);
    a structured dtype's elements move whole, the bytes between their fields included.

    Parameters
    ----------
    dst : ndarray, writable
    src : ndarray, same shape and dtype as ``dst``
    threads : int or None
        None: :func:`layouts.set_threads`'s setting (else numba's thread count); 1: the calling
        thread only; more than :func:`.pool.max_threads` is clamped to it. Copies smaller than
        the profile's ``thread_min_bytes`` run on one thread whatever is asked.

    >>> import numpy as np
    >>> x = np.arange(32 * 2 * 3 * 3, dtype=np.uint8).reshape(2, 32, 3, 3)   # NCHW, C=32
    >>> out = np.empty((2, 2, 3, 3, 16), np.uint8)                          # NCHW16c
    >>> copy_into(out, x.reshape(2, 2, 16, 3, 3).transpose(0, 1, 3, 4, 2))
    >>> int(out[0, 1, 2, 0, 5]) == int(x[0, 16 + 5, 2, 0])
    True
    """
    check(dst, src)
    if dst.dtype.fields is not None:     # whole elements: numpy's copy of fields skips their gaps
        dst, src = whole_elements(dst), whole_elements(src)
    nth = thread_count(threads)
    if _numpy_first(dst, src, _profile.current()):
        made(None)
        np.copyto(dst, src, casting="no")
        return
    _copy_views(dst, src, nth, remember=True)


def _numpy_first(dst, src, prof, overlap=True):
    """Why :func:`copy_into` hands this copy to ``np.copyto`` before any planning, or None:
    ``"small"`` below ``small_bytes`` (the numpy strategy's rule, applied first because planning a
    tiny copy costs more than the copy) or, when ``overlap`` is checked, ``"overlap"`` for
    overlapping views (numpy buffers them). A word, not a sentence: this runs on every call."""
    # the rule is numpy_is_cheaper's; rows and units are counted only for a copy it could call small
    if dst.nbytes < prof.small_bytes and numpy_is_cheaper(dst.nbytes, short_rows(dst, src), strided_units(dst, src),
                                                          prof):
        return "small"
    if overlap and np.may_share_memory(dst, src):
        return "overlap"
    return None


def copied_by_numpy(dst, src) -> bool:
    """Whether :func:`copy_into` hands this copy of two distinct arrays to one ``np.copyto``
    without planning: it is small (``small_bytes``), and numpy would neither loop over many short
    rows (``small_short_rows``) nor move many units one at a time through a stride (``small_units``).

    >>> import numpy as np
    >>> x = np.zeros((1, 3, 64, 64), np.uint8)               # 12 KiB: small, but 4096 rows of 3
    >>> copied_by_numpy(x.copy(), x), copied_by_numpy(np.empty((1, 64, 64, 3), np.uint8), x.transpose(0, 2, 3, 1))
    (True, False)
    """
    return _numpy_first(dst, src, _profile.current(), overlap=False) == "small"


def _choice(dst, src, stream, prof, nth=1, addrs=None):
    """The choice for this copy under ``prof`` on ``nth`` threads: the registry's rules, or what
    :mod:`.wisdom` measured (cached per profile); ``addrs``: the two first-byte addresses, when
    the caller has them."""
    da, sa = addrs or (address(dst), address(src))
    key = (dst.shape, dst.strides, src.strides, dst.dtype, da % 64, sa % 64, stream, id(prof), nth)
    hit = _choices.get(key)
    if hit is not None and hit[1] is prof:
        return hit[0], prof
    from .registry import Task
    from .machine.wisdom import decide
    c, _, decided = decide(Task.of(dst, src, stream), prof, nth, dst, src)
    if decided != c.decided:
        c = dataclasses.replace(c, decided=decided)
    if len(_choices) > 512:
        _choices.clear()
    _choices[key] = (c, prof)
    return c, prof


def _copy_views(dst, src, nth, stream=False, prof=None, remember=False):
    """:func:`copy_into` after its checks (no check here: callers pass same-shape, same-dtype,
    writable, non-overlapping views), on ``nth`` threads under ``prof`` (None: the active
    profile); ``stream``: the output is part of a larger one (the strategies may bypass the cache).

    ``remember``: keep the kernel calls of a one-thread copy and, for the same two buffers, make
    them again without planning (the planning costs more than a small kernel). The calls hold
    flat views of these addresses, so they are keyed by what fixes the bytes a view covers:
    address, shape, strides and dtype of both. A remembered copy is a caller's output, whose
    stores bypass the cache when :mod:`.recency` judges it cold."""
    addrs = address(dst), address(src)
    prof = prof or _profile.current()
    if not remember:
        _plan_and_run(dst, src, nth, stream, prof, addrs, None)
        return
    # a caller's output: streamed past the cache when this process has not written it lately
    stream = recency.cold(addrs[0], dst.nbytes, prof) or stream
    key = (dst.shape, dst.strides, src.strides, dst.dtype, addrs, stream, nth)
    hit = _repeats.get(key)
    if hit is not None and hit[0] is prof:
        replay(hit[1])
    else:
        _plan_and_run(dst, src, nth, stream, prof, addrs, key)
    recency.wrote(addrs[0], streamed=stream)


def _plan_and_run(dst, src, nth, stream, prof, addrs, key):
    """Choose and run the copy; with a ``key``, keep the kernel calls of a one-thread run under it."""
    c, prof = _choice(dst, src, stream, prof, nth, addrs)
    if not c.repeatable:
        made(None)
    if not c.flat:
        c.run(dst, src, None, None, nth)
        return
    p = c.plan
    if p.nbytes < prof.thread_min(c.strategy):
        nth = 1
    d, s = flat_view(dst, p.dext, p.unit, addrs[0]), flat_view(src, p.sext, p.unit, addrs[1])
    if key is None or nth != 1 or not c.repeatable:
        c.run(dst, src, d, s, nth)
        return
    calls = recorded(lambda: c.run(dst, src, d, s, 1))
    if calls is not None:
        if len(_repeats) > 256:
            _repeats.clear()
        _repeats[key] = (prof, calls)


def fill_zero(dst, threads=None):
    """``dst[...] = 0`` (all bytes zero) for a writable view with any non-negative strides.

    >>> import numpy as np
    >>> a = np.ones((3, 4), np.int16); fill_zero(a[:, ::2]); a.tolist()
    [[0, 1, 0, 1], [0, 1, 0, 1], [0, 1, 0, 1]]
    """
    if not isinstance(dst, np.ndarray):
        raise LayoutTypeError(f"fill_zero: dst must be a numpy array, got {type(dst).__name__}")
    if not dst.flags.writeable:
        raise LayoutError("fill_zero: dst is read-only")
    nth = thread_count(threads)
    plan = make_fill_plan(dst)
    if plan.kind == "empty":
        return
    prof = _profile.current()
    if plan.kind in ("fallback", "scalar") or plan.nbytes < prof.small_bytes:
        dst = whole_elements(dst)
        dst[...] = np.zeros((), dst.dtype)
        return
    if plan.nbytes < prof.thread_min_bytes:
        nth = 1
    from .jit.rows import fill_kernel
    d = flat_view(dst, plan.dext, plan.unit)
    run_items(fill_kernel, (d, record(ROWS, n=plan.n, dI=plan.dI, sI=plan.dI), batch_axes(plan.batch)), (),
              plan.nbatch, nth)


set_engine(_copy_views)     # the staged strategy copies its two steps through the engine
