"""Thread-value layouts of MMA atoms, written out from CuTe's ``mma_traits_sm80.hpp``.

A TV layout maps (thread, value) to the column-major index ``m + M*n`` of an element of the
atom's M x N tile.

>>> t, v = tv_coords(SM80_16x8x16_C, 16, 8)
>>> t[0, :2].tolist(), v[0, :2].tolist(), int(t[8, 0]), int(v[8, 0])
([0, 0], [0, 1], 0, 2)
"""

from __future__ import annotations

import numpy as np

from ..errors import LayoutError
from .layout import Layout

__all__ = ["SM80_16x8x16_C", "tv_coords"]

#: The C (accumulator) fragment of SM80's ``mma.sync.m16n8k16`` (``SM80_16x8_Row`` in CuTe):
#: ``((T4,T8),(V2,V2)):((32,1),(16,8))`` -- thread ``t`` holds rows ``t/4`` and ``t/4 + 8``,
#: columns ``2*(t%4)`` and ``2*(t%4) + 1``.
SM80_16x8x16_C = Layout(((4, 8), (2, 2)), ((32, 1), (16, 8)))


def tv_coords(tv: Layout, m: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """For each element ``(row, col)`` of the ``m x n`` tile: the thread and the value index
    that hold it (two int arrays of shape ``(m, n)``); LayoutError unless ``tv`` covers the tile
    exactly once.

    >>> t, v = tv_coords(Layout((2, 2), (1, 2)), 2, 2)
    >>> t.tolist(), v.tolist()
    ([[0, 0], [1, 1]], [[0, 1], [0, 1]])
    """
    if not isinstance(tv, Layout) or len(tv) != 2:
        raise LayoutError(f"a TV layout is a rank-2 layouts.cute.Layout (thread, value), got {tv!r}")
    threads = tv[0].size()
    offs = tv.offsets()
    if offs.size != m * n or sorted(offs.tolist()) != list(range(m * n)):
        raise LayoutError(f"TV layout {tv} does not cover the {m} x {n} tile exactly once")
    t = np.empty(m * n, dtype=np.int64)
    v = np.empty(m * n, dtype=np.int64)
    idx = np.arange(offs.size)
    t[offs] = idx % threads
    v[offs] = idx // threads
    # offset o = row + m * col
    return t.reshape(n, m).T.copy(), v.reshape(n, m).T.copy()
