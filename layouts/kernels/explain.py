"""Say which strategy copies what, with which parameters, and why (``python -m layouts explain-copy``).

>>> import numpy as np
>>> x = np.zeros((256, 3, 32, 32), np.float32)
>>> e = explain(np.empty((3, 32, 32, 256), np.float32), x.transpose(1, 2, 3, 0), nthreads=2)
>>> e.strategy, e.threads
('simd-tiles', 1)
>>> print(str(e).splitlines()[0])
copy of 3145728 bytes as uint32 units: transpose, i (dst-contiguous) 256 units, j (src-contiguous) 3072, batch ()
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .machine import profile as _profile
from .runtime import recency
from .registry import STRATEGIES, Task

__all__ = ["Explanation", "explain", "explain_copy", "strategies_table"]


@dataclass(frozen=True)
class Explanation:
    """One copy: its plan, the strategy chosen, its parameters, the threads, the ones declined."""

    plan: Any
    strategy: str
    why: str
    params: dict
    declined: list
    threads: int
    threads_why: str
    profile: Any
    work_items: int = 1
    label: str = field(default="")
    #: "predicted" by the profile's rules, or "measured: ..." on this machine (:mod:`.wisdom`)
    decided: str = "predicted"

    def __str__(self) -> str:
        p = self.plan
        lines = []
        if self.label:
            lines.append(self.label)
        if p.kind == "transpose":
            shape = (f"transpose, i (dst-contiguous) {p.ni} units, j (src-contiguous) {p.nj}, "
                     f"batch {tuple(a[0] for a in p.batch)}")
        elif p.kind == "rows":
            shape = f"rows of {p.n} units, batch {tuple(a[0] for a in p.batch)}"
        else:
            shape = p.kind
        unit = f" as {p.unit} units" if p.unit is not None else ""
        lines.append(f"copy of {p.nbytes} bytes{unit}: {shape}")
        for name, reason in self.declined:
            lines.append(f"  - {name}: declined: {reason}")
        lines.append(f"  * {self.strategy}: CHOSEN: {self.why}")
        for k, v in self.params.items():
            lines.append(f"      {k} = {v}")
        lines.append(f"  decided: {'predicted by the profile rules' if self.decided == 'predicted' else self.decided}")
        lines.append(f"  threads: {self.threads} ({self.threads_why}); work items: {self.work_items}")
        prof = self.profile
        if "stream" in self.params and recency.window_ns(p.nbytes, prof) is not None:
            lines.append(f"  stores: as above into an output this process wrote in the last {prof.recent_write_us} us; "
                         "non-temporal into one it did not, which other work has most likely pushed out of the "
                         "cache (profile cold_nt_min_bytes, recent_write_us)")
        return "\n".join(lines)


def explain(dst: np.ndarray, src: np.ndarray, nthreads: int, stream: bool = False, label: str = "",
            distinct: bool = False) -> Explanation:
    """The registry's decision for ``dst[...] = src`` on ``nthreads`` threads (nothing runs);
    ``distinct``: the two are known not to overlap (their bounds are not checked)."""
    prof = _profile.current()
    task = Task.of(dst, src, stream)
    p = task.plan
    from .copy import _numpy_first
    first = _numpy_first(dst, src, prof, overlap=not distinct)
    if first:
        why = (f"{dst.nbytes} bytes < small_bytes ({prof.small_bytes}): one numpy call is cheaper" if first == "small"
               else "overlapping views: numpy's copy buffers them")
        return Explanation(p, "numpy", why + " (copy_into does not plan)", {}, [], 1, "numpy's own copy", prof, 1,
                           label)
    from .machine.wisdom import decide
    c, declined, decided = decide(task, prof, nthreads)      # no arrays: what is known, nothing measured
    if not c.flat or nthreads == 1:
        nth, why = 1, "asked for 1" if nthreads == 1 else "numpy's own copy"
    elif p.nbytes < prof.thread_min(c.strategy):
        nth, why = 1, (f"{p.nbytes} bytes < {prof.thread_min(c.strategy)}, where {c.strategy} starts to gain from "
                       "more threads (profile thread_min_bytes)")
    else:
        nth = min(nthreads, c.work_items)
        why = f"{nthreads} asked, {c.work_items} work items"
    return Explanation(p, c.strategy, c.why, dict(c.params), declined, nth, why, prof, c.work_items, label, decided)


def explain_copy(dst, src, threads=None):
    """Which strategy copies ``src`` into ``dst``, with which parameters, and why: an
    :class:`Explanation` (print it). Nothing is copied or compiled.

    >>> import numpy as np
    >>> x = np.zeros((128, 64, 56, 56), np.uint8)[:, :, :8]          # a view: NCHW -> NHWC below
    >>> e = explain_copy(np.empty((128, 8, 56, 64), np.uint8), x.transpose(0, 2, 3, 1), threads=1)
    >>> e.strategy, e.params["variant"]
    ('simd-tiles', 'tiles')
    """
    from .copy import check
    from .runtime.pool import thread_count
    check(dst, src)
    return explain(dst, src, thread_count(threads))


def strategies_table() -> str:
    """Every registered strategy, in the order they are tried, with the profile fields it reads."""
    rows = [f"{k + 1}. {s.name}: {s.handles}" + (f" [reads {', '.join(s.tunables)}]" if s.tunables else "")
            for k, s in enumerate(STRATEGIES)]
    return "\n".join(rows)
