"""The records a copy strategy works with: the :class:`Task` it is offered, the :class:`Choice` it
answers with, and the :class:`Strategy` entry of the registry (:mod:`.registry`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .plan import Plan, make_plan

__all__ = ["Task", "Choice", "Strategy", "unit_view", "engine", "set_engine"]

#: the engine's copy of two views (:func:`layouts.kernels.copy._copy_views`), for the strategies
#: that copy through the engine again (a copy in two staged steps): set by the engine when it
#: loads, so that no strategy imports the engine that imports them
_engine: Callable | None = None


def set_engine(copy_views: Callable) -> None:
    """Bind the engine's copy of two views (``copy_views(dst, src, nth, stream, profile)``)."""
    global _engine
    _engine = copy_views


def engine() -> Callable:
    """The engine's copy of two views, bound by :func:`set_engine`."""
    if _engine is None:
        raise RuntimeError("the copy engine is not loaded (import layouts.kernels)")
    return _engine


def unit_view(flat: np.ndarray, shape: tuple, strides: tuple, offset: int = 0) -> np.ndarray:
    """A view of the flat unit buffer ``flat`` from element ``offset``, with ``strides`` in units."""
    u = flat.itemsize
    return np.lib.stride_tricks.as_strided(flat[offset:], shape, tuple(u * x for x in strides))


@dataclass(frozen=True)
class Task:
    """What a strategy sees: the plan, the two first-byte addresses and whether the output is
    part of a larger one that should be streamed past the cache (``stream``)."""

    plan: Plan
    dst_addr: int
    src_addr: int
    stream: bool = False
    #: a swizzled copy: ``((offset, yyy_mask, shift) of the source, ... of the destination)``
    #: (mask 0: that side plain), the plan being that of the two inner strided layouts
    swizzle: tuple = ()
    #: for a swizzled copy, the flat (destination, source) buffers its offsets index
    buffers: tuple = field(default=(), compare=False)

    @classmethod
    def of(cls, dst: np.ndarray, src: np.ndarray, stream: bool = False) -> "Task":
        return cls(make_plan(dst, src), dst.ctypes.data, src.ctypes.data, stream)

    def streams(self, profile) -> bool:
        """Whether the output is to be written past the cache: it is part of a streamed one, or
        at least the profile's ``nt_min_bytes``."""
        return self.stream or self.plan.nbytes >= profile.nt_min_bytes


@dataclass(frozen=True)
class Choice:
    """A strategy's answer: ``run(dst, src, d, s, nthreads)`` copies (``d``/``s``: flat unit
    views of the two buffers, or None when ``flat`` is False: the strategy takes the arrays)."""

    strategy: str
    why: str
    params: dict[str, Any] = field(default_factory=dict)
    run: Callable[..., None] | None = None
    flat: bool = True
    work_items: int = 1
    plan: Plan | None = None
    #: how it was chosen: "predicted" by the rules, or "measured: ..." (:mod:`.wisdom`)
    decided: str = "predicted"
    #: ``run`` does nothing but calls through :mod:`.pool` (``run_split``, or others it tells
    #: ``made`` of) whose arguments depend only on the flat views and the plan, so the calls of a
    #: one-thread run may be recorded and repeated for the same buffers
    #: (:func:`layouts.kernels.copy_into` does) without planning again
    repeatable: bool = False


@dataclass(frozen=True)
class Strategy:
    name: str
    handles: str
    tunables: tuple[str, ...]
    consider: Callable[[Task, Any], "Choice | str"]
