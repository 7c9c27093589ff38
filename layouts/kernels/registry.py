"""The registry of copy strategies: which code copies a given plan, and why.

A copy ``dst[...] = src`` is first reduced to a :class:`~.plan.Plan` (unit type, merged axes;
pure Python, :mod:`.plan`). :func:`choose` then offers it, as a :class:`Task`, to each strategy
of :data:`STRATEGIES` in order; the first that accepts returns a :class:`Choice` -- its name, why
it fits, its named parameters and a runner bound to them -- and each one before it says why it
declined. That list is what ``python -m layouts explain-copy`` prints.

A strategy is one module of :mod:`.strategies` with a module-level :class:`Strategy`:
``name``, ``handles`` (one sentence), ``tunables`` (the :class:`~.profile.MachineProfile` fields
it reads) and ``consider(task, profile) -> Choice | str`` (a string says why not). Adding one is
that module plus its place in :data:`STRATEGIES`; the order is the preference (cheap special cases
first, the general tile loops last).

>>> import numpy as np
>>> from layouts.kernels.plan import make_plan
>>> from layouts.kernels.machine.profile import reference
>>> x = np.zeros((64, 3, 224, 224), np.float32)                      # NCHW -> NHWC
>>> out = np.empty((64, 224, 224, 3), np.float32)
>>> c, declined = choose(Task.of(out, x.transpose(0, 2, 3, 1)), reference("epyc-avx512"))
>>> c.strategy, c.params["C"], [name for name, _ in declined]
('small-c', 3, ['numpy', 'memcpy', 'rows'])
"""

from __future__ import annotations

import dataclasses

from .strategies import (grouped, memcpy, numpy_copy, padded_rows, rows, scalar_tiles, short_rows, simd_tiles, small_c,
                         staged, swizzle)
from .strategy import Choice, Strategy, Task

__all__ = ["Strategy", "Task", "Choice", "STRATEGIES", "choose"]


#: every strategy, in the order they are offered a copy
STRATEGIES: tuple[Strategy, ...] = (numpy_copy.STRATEGY, memcpy.STRATEGY, rows.STRATEGY, small_c.STRATEGY,
                                    padded_rows.STRATEGY, short_rows.STRATEGY, staged.STRATEGY, grouped.STRATEGY, simd_tiles.STRATEGY, scalar_tiles.STRATEGY,
                                    swizzle.STRATEGY)


def choose(task: Task, profile) -> tuple[Choice, list[tuple[str, str]]]:
    """The first strategy that accepts ``task`` under ``profile``, and (name, why not) of those
    before it. When every strategy declines (all disabled), the copy is ``np.copyto``."""
    declined = []
    for s in STRATEGIES:
        if s.name in profile.disabled:
            declined.append((s.name, "disabled by the profile"))
            continue
        if task.swizzle and s is not swizzle.STRATEGY:
            declined.append((s.name, "a swizzled copy: its offsets are not those of strided views"))
            continue
        c = s.consider(task, profile)
        if isinstance(c, str):
            declined.append((s.name, c))
            continue
        return dataclasses.replace(c, plan=task.plan), declined
    return dataclasses.replace(numpy_copy.copyto_choice("every strategy declined: np.copyto"), plan=task.plan), declined
