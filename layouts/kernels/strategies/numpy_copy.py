"""``np.copyto``: what the kernels do not take (negative or zero strides, unaligned units, Python
objects, one element) and copies so small that a kernel call costs more than the copy."""

from __future__ import annotations

import numpy as np

from ..strategy import Choice, Strategy


def _copyto(dst, src, d, s, nthreads):
    np.copyto(dst, src, casting="no")


def _nothing(dst, src, d, s, nthreads):
    pass


def short_rows(dst, src) -> int:
    """The rows np.copyto's inner loop would run over one by one: dst's last axis when it is 2 to
    4 elements long, contiguous in dst and strided in src (0 otherwise).

    >>> import numpy as np
    >>> x = np.zeros((1, 3, 8, 8), np.uint8)
    >>> short_rows(np.empty((1, 8, 8, 3), np.uint8), x.transpose(0, 2, 3, 1)), short_rows(x, x)
    (64, 0)
    """
    n = dst.shape[-1] if dst.ndim else 0
    if not 2 <= n <= 4 or dst.strides[-1] != dst.itemsize or src.strides[-1] == src.itemsize:
        return 0
    return dst.size // n


def plan_short_rows(p) -> int:
    """:func:`short_rows` of a planned transpose (dst-contiguous axis i of 2 to 4 units)."""
    return p.nj * p.nbatch if p.kind == "transpose" and 2 <= p.ni <= 4 else 0


def strided_units(dst, src) -> int:
    """The units np.copyto would move one at a time through a stride: all of them when its
    inner loop (dst's axis of the smallest stride among those of more than one element, as numpy
    orders a copy) is not contiguous on both sides (a transpose: numpy gathers or scatters each
    unit), else 0 (its inner loop copies runs, or fills from a broadcast source).

    >>> import numpy as np
    >>> x = np.zeros((1, 32, 32, 3), np.uint8)                     # NHWC
    >>> strided_units(np.empty((1, 3, 32, 32), np.uint8), x.transpose(0, 3, 1, 2)), strided_units(x, x)
    (3072, 0)
    >>> f = np.zeros((64, 64), np.uint8, order="F")
    >>> strided_units(np.empty_like(f), f), strided_units(f.T, f.T)   # Fortran order on both sides: runs
    (0, 0)
    """
    inner = None
    for n, d, s in zip(dst.shape, dst.strides, src.strides):
        if n > 1 and (inner is None or abs(d) <= abs(inner[0])):
            inner = (d, s)
    if inner is None:
        return 0
    d, s = inner
    return 0 if abs(d) == dst.itemsize and s in (d, 0) else dst.size


def plan_strided_units(p) -> int:
    """:func:`strided_units` of a plan: every unit where the dst-contiguous axis (numpy's inner
    loop) is strided in the source (a transpose's gather or scatter) or in dst."""
    if p.kind in ("transpose", "rows") and (p.dI != 1 or p.sI not in (1, 0)):
        return p.nbytes // p.unit.itemsize
    return 0


def numpy_is_cheaper(nbytes: int, rows: int, units: int, profile) -> bool:
    """The numpy strategy's size rule: below ``small_bytes`` a kernel call costs more than the
    copy, unless np.copyto would run a loop for each of at least ``small_short_rows`` short rows
    or move at least ``small_units`` units one at a time through a stride (its cost is per unit,
    whatever their size: 64 KiB of uint8 take numpy four times as long as of float32)."""
    return nbytes < profile.small_bytes and rows < profile.small_short_rows and units < profile.small_units


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
    rows, units = plan_short_rows(p), plan_strided_units(p)
    if numpy_is_cheaper(p.nbytes, rows, units, profile):
        return copyto_choice(f"{p.nbytes} bytes < small_bytes ({profile.small_bytes}): one numpy call is cheaper")
    if p.nbytes >= profile.small_bytes:
        return f"{p.nbytes} bytes >= small_bytes ({profile.small_bytes})"
    if rows >= profile.small_short_rows:
        return (f"{rows} rows of {p.ni} units >= small_short_rows ({profile.small_short_rows}): np.copyto would "
                f"loop over each")
    return (f"{units} units >= small_units ({profile.small_units}): np.copyto would move each through a "
            f"stride")


STRATEGY = Strategy("numpy", "negative/zero strides, objects, single elements, and copies below small_bytes",
                    ("small_bytes", "small_short_rows", "small_units"), consider)
