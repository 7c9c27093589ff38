"""Say what :func:`layouts.convert_inplace` would do: its passes, the method chosen for each and why
the others declined (``python -m layouts explain-copy --inplace``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .front import plan_inplace
from .methods import Transposition, explain as explain_method, tuning

__all__ = ["explain_inplace"]


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
    from ..kernels.runtime.pool import thread_count
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
