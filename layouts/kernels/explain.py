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

__all__ = ["Explanation", "explain", "explain_conversion", "explain_inplace"]


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


def _fake(shape: tuple[int, ...], strides: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A view with these shape and strides over a 64-byte aligned scrap of memory: its plan is
    real, its elements must never be read (nothing here reads them)."""
    base = np.empty(64 + dtype.itemsize, np.uint8)
    off = (-base.ctypes.data) % 64
    one = base[off:off + dtype.itemsize].view(dtype)
    return np.lib.stride_tricks.as_strided(one, shape, strides, writeable=True)


def explain_conversion(shape: tuple[int, ...], dtype: Any, src: Any, dst: Any, threads: int | None = None,
                       **dims: int) -> list[Explanation]:
    """The copies ``layouts.convert`` would make for an input of ``shape`` and ``dtype`` in ``src``
    into ``dst`` (a fresh, aligned output), each explained. Nothing is allocated at full size.
    These are the kernels' choices; before a process has loaded them its first conversions copy
    with numpy (:mod:`layouts.conversion.loading`), and explaining one loads numba.

    >>> [e.strategy for e in explain_conversion((128, 64, 56, 56), "uint8", "NCHW", "NHWC", threads=1)]
    ['grouped']
    """
    import operator

    from ..errors import LayoutError, LayoutTypeError
    from ..conversion.plan import CopyStep, plan
    from ..request import resolve
    from .runtime.pool import thread_count
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
                                   "element moved by its offsets (numpy)", {}, [], 1, "numpy", _profile.current()))
            continue
        sv, dv = step.views(x, target)
        if sv.size:
            out.append(explain(dv, sv, nth, label=f"step {k + 1} of {len(steps)}: region {dict(step.regions)}"
                               if len(steps) > 1 else "", distinct=True))    # convert's output is separate
    return out


class _GatherPlan:
    kind = "gather"
    unit = None
    nbytes = 0
    batch = ()


def _contiguous(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    st, acc = [], itemsize
    for n in reversed(shape):
        st.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(st))


def strategies_table() -> str:
    """Every registered strategy, in the order they are tried, with the profile fields it reads."""
    rows = [f"{k + 1}. {s.name}: {s.handles}" + (f" [reads {', '.join(s.tunables)}]" if s.tunables else "")
            for k, s in enumerate(STRATEGIES)]
    return "\n".join(rows)


def explain_inplace(shape: tuple[int, ...], dtype: Any, src: Any, dst: Any, threads: int | None = None,
                    **dims: int) -> str:
    """The passes :func:`layouts.convert_inplace` would run for an array of ``shape`` and ``dtype``:
    for each, the in-place strategy chosen (:mod:`layouts.inplace.methods`), its ops and why each
    strategy before it declined. Nothing is allocated or moved.

    >>> print(explain_inplace((1, 3, 2, 100003), "float32", "NCHW", "NHWC", threads=1))  # doctest: +ELLIPSIS
    in place NCHW -> NHWC, float32: 1 pass(es), scratch 800216 bytes (budget 65536), cost 8.00 memcpys
    pass 1: 1 x (3, 200006) transposed, items of 4 bytes
      ckg: one line of max(M, N) = 200006 elements always fits
    ...
      declined split: neither side factors into chunks and blocks that fit the budget
    """
    from ..inplace.front import plan_inplace
    from ..inplace.methods import Transposition, explain as explain_method, tuning
    from .runtime.pool import thread_count
    dt = np.dtype(dtype)
    plan = plan_inplace(src, dst, shape, dt, threads=threads, **dims)
    nth = thread_count(threads)
    name = lambda x: x.spec if hasattr(x, "spec") else str(x)  # noqa: E731
    out = [f"in place {name(src)} -> {name(dst)}, {dt}: {len(plan.passes)} pass(es), scratch {plan.scratch_bytes} "
           f"bytes (budget {plan.budget}), cost {plan.cost:.2f} memcpys"]
    for k, p in enumerate(plan.passes, 1):
        if len(p.dims) == 3 and p.perm == (1, 0, 2):
            M, N, inner = p.dims
            out.append(f"pass {k}: {p.B} x ({M}, {N}) transposed, items of {inner * plan.itemsize} bytes")
            text = explain_method(Transposition(p.B, M, N, inner * plan.itemsize, plan.budget, nth), tuning())
            out += ["  " + line for line in text.splitlines()]
        else:
            out.append(f"pass {k}: {p.B} x {p.dims} reordered to {p.perm} through the scratch "
                       f"({p.ops[0].group} block(s) per copy, {p.ops[0].workers} worker(s))")
    return "\n".join(out)
