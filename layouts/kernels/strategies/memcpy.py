"""One contiguous run on both sides: ``np.copyto`` of flat views (memcpy), cut over threads."""

from __future__ import annotations

import numpy as np

from ..runtime.pool import run_split
from ..strategy import Choice, Strategy


def consider(task, profile):
    p = task.plan
    if p.kind != "rows" or p.batch or p.dI != 1 or p.sI != 1:
        return "not one contiguous run on both sides"
    n = p.n

    def run(dst, src, d, s, nth):
        run_split(lambda a, b: np.copyto(a, b), lambda w0, w1: (d[n * w0 // nth:n * w1 // nth],
                                                                 s[n * w0 // nth:n * w1 // nth]), nth, nth)

    from ..runtime.pool import max_threads
    return Choice("memcpy", "both sides are one contiguous run", {"units": n}, run, work_items=max_threads())


STRATEGY = Strategy("memcpy", "both sides contiguous: np.copyto of flat views, one part per thread", (), consider)
