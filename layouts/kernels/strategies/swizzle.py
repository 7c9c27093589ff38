"""Swizzled copies (CuTe's ``Swizzle<B, M, S>`` composed with a strided layout, on either side):
every offset is the strided one with some bits XORed in, so no strided-view strategy applies; a
gather/scatter kernel walks the common modes and swizzles each offset (:mod:`..swizzle`).

A task is swizzled when its :attr:`~..strategy.Task.swizzle` holds, for the source and the
destination, ``(offset, yyy_mask, shift)`` (mask 0: that side is not swizzled); every other
strategy declines such a task (:func:`..registry.choose`).
"""

from __future__ import annotations

import numpy as np

from ..strategy import Choice, Strategy

_RAW = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def consider(task, profile):
    if not task.swizzle:
        return "not a swizzled copy"
    (so, sm, ss), (do, dm, ds) = task.swizzle
    item = task.plan.unit.itemsize if task.plan.unit is not None else 0

    def run(dst, src, d, s, nth):
        """``dst``/``src``: the inner layouts' strided views (their modes and strides); the offsets
        index the flat buffers of ``task.buffers``."""
        from ..jit.swizzle import gather_scatter
        raw = _RAW[dst.itemsize]
        dflat, sflat = task.buffers
        shape = np.array(dst.shape, np.int64)
        sstr = np.array([st // src.itemsize for st in src.strides], np.int64)
        dstr = np.array([st // dst.itemsize for st in dst.strides], np.int64)
        gather_scatter(dflat.view(raw), sflat.view(raw), shape, sstr, dstr, so, sm, ss, do, dm, ds)

    return Choice("swizzle", "a swizzled layout on one side: offsets swizzled one by one",
                  {"src_swizzle": f"mask {sm} shift {ss} offset {so}" if sm else "none",
                   "dst_swizzle": f"mask {dm} shift {ds} offset {do}" if dm else "none", "unit_bytes": item},
                  run, flat=False)


STRATEGY = Strategy("swizzle", "CuTe-swizzled offsets on either side: a gather/scatter kernel", (), consider)
