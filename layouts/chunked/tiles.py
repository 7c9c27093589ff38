"""Tiles: boxes of a conversion sized so that both files are read and written in long runs
within the memory budget (see :mod:`.npy` for how they are used).

>>> tile_cost(10**6, 10**6, 4) == (1 + write_buffers()) * 4 * 10**6    # a source tile, the destination's
True
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Iterable, Mapping

from ..errors import LayoutError
from ..named.layout import Layout
from . import _boxes
from .fileio import Region

__all__ = ["tile_cost", "plan_tiles", "tiles", "write_buffers", "BUFFER_SHARE", "WRITE_BUFFERS"]

#: Share of ``memory`` the tile buffers may use (the rest: per-tile temporaries, slack).
BUFFER_SHARE = 0.9
#: The destination buffers of a profile on one CPU (the profile's ``file_write_buffers`` decides;
#: on two or more it is 2).
WRITE_BUFFERS = 1


def write_buffers() -> int:
    """Destination tile buffers: the active profile's ``file_write_buffers`` (1 or 2)."""
    from ..kernels.machine.profile import current
    return 2 if current().file_write_buffers >= 2 else 1


def tile_cost(src_elements: int, dst_elements: int, itemsize: int, inplace: bool = False) -> int:
    """Bytes of buffers a tile needs: a source tile plus :func:`write_buffers` destination tiles,
    or, ``inplace``, one tile plus :func:`layouts.convert_inplace`'s documented scratch bound for
    it, ``max(1% of the tile, 64 KiB)`` (the 64 KiB floor makes small budgets no better in place).
    A tile whose in-place plan falls back to a Catanzaro-Keller-Garland pass needs one line of
    ``max(M, N)`` elements more than this (see :mod:`layouts.inplace.front`); tiles are not re-sized for it.

    >>> from layouts.kernels.machine.profile import current, use_profile
    >>> with use_profile(current().replace(file_write_buffers=1)):
    ...     tile_cost(10**7, 10**7, 4), tile_cost(10**7, 10**7, 4, inplace=True), tile_cost(1000, 1000, 4, inplace=True)
    (80000000, 40400000, 69536)
    >>> with use_profile(current().replace(file_write_buffers=2)):     # the default on 2 CPUs or more
    ...     tile_cost(10**7, 10**7, 4)
    120000000
    """
    if not inplace:
        return (src_elements + write_buffers() * dst_elements) * itemsize
    from ..inplace.methods import scratch_budget

    tile = src_elements * itemsize
    return tile + scratch_budget(tile)


def plan_tiles(src: Layout, dst: Layout, src_shape: tuple, src_strides: tuple, dst_strides: tuple,
               itemsize: int, budget: int, inplace: bool = False, memory: Any = None) -> dict[str, int]:
    """Tile extent per logical axis: both files' runs as long as the budget allows.

    ``budget`` bounds :func:`tile_cost`: one source tile plus :func:`write_buffers` destination
    tiles, or (``inplace``) one tile and its in-place scratch.
    Greedy: start at one granule (:func:`._boxes.steps`) per axis; repeatedly take the side
    (source or destination) whose run is shorter and double the axis that ends its run; when
    doubling overflows the budget take the largest multiple that fits; stop when neither side
    can grow.
    """
    step = _boxes.steps(src, dst)
    size = dict(src.dims)
    t = {a: min(step[a], size[a]) for a in dst.axes}
    sides = [(src, src_shape, src_strides), (dst, dst.shape, dst_strides)]

    def regions(tt: Mapping[str, int]) -> list[Region]:
        box = {a: (0, tt[a]) for a in tt}
        return [Region.of(shape, strides, _boxes.physical_box(L, box)) for L, shape, strides in sides]

    def cost(tt: Mapping[str, int]) -> int:
        r_src, r_dst = regions(tt)
        return tile_cost(r_src.elements, r_dst.elements, itemsize, inplace)

    if cost(t) > budget:
        given = f"memory={memory!r}" if memory is not None else f"a budget of {budget} bytes"
        raise LayoutError(f"{given} is too small: the smallest tile (one block of each "
                          f"layout) needs {cost(t)} bytes of buffers; give at least {math.ceil(cost(t) / BUFFER_SHARE)}")
    while True:
        rs = regions(t)
        grown = False
        for i in sorted(range(2), key=lambda i: rs[i].run):
            L, shape, _ = sides[i]
            r = rs[i]
            d = L.parsed.dims[r.k]
            if r.ext[r.k] == shape[r.k] or d.is_block:
                continue  # this side is one run already
            a = d.axis
            target = min(size[a], t[a] * 2)
            if target <= t[a]:
                continue
            if cost({**t, a: target}) <= budget:
                t[a] = target
                grown = True
                break
            lo, hi = t[a] // step[a], -(-target // step[a])  # largest multiple of the step that fits
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if cost({**t, a: min(size[a], mid * step[a])}) <= budget:
                    lo = mid
                else:
                    hi = mid
            if lo * step[a] > t[a]:
                t[a] = lo * step[a]
                grown = True
                break
        if not grown:
            return t


def tiles(dst: Layout, t: Mapping[str, int]) -> Iterable[dict[str, tuple[int, int]]]:
    """Boxes of extents ``t`` covering every axis, in the destination's memory order."""
    axes = dst.axes
    size = dst.dims
    ranges = [range(0, size[a], t[a]) if size[a] else range(0) for a in axes]
    for starts in itertools.product(*ranges):
        yield {a: (s, min(s + t[a], size[a])) for a, s in zip(axes, starts)}
