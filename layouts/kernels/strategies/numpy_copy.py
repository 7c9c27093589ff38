"""``np.copyto``: what the kernels do not take (negative or zero strides, unaligned units, Python
objects, one element) and copies so small that a kernel call costs more than the copy."""

from __future__ import annotations

import numpy as np

from ..strategy import Choice, Strategy


def _copyto(dst, src, d, s, nthreads):
    np.copyto(dst, src, casting="no")


def _nothing(dst, src, d, s, nthreads):
    pass


def copyto_choice(why: str) -> Choice:
    return Choice("numpy", why, {}, _copyto, flat=False)


def consider(task, profile):
    p = task.plan
    if p.kind == "empty":
        return Choice("numpy", "nothing to copy (an axis of size 0)", {}, _nothing, flat=False)
    if p.kind == "fallback":
        return copyto_choice("negative, zero or unaligned strides, or an object dtype: numpy's own loop")
    if p.kind == "scalar":
        return copyto_choice("one element")
    if p.nbytes < profile.small_bytes:
        return copyto_choice(f"{p.nbytes} bytes < small_bytes ({profile.small_bytes}): one numpy call is cheaper")
    return f"{p.nbytes} bytes >= small_bytes ({profile.small_bytes})"


STRATEGY = Strategy("numpy", "negative/zero strides, objects, single elements, and copies below small_bytes",
                    ("small_bytes",), consider)
