"""Boxes: a conversion cut into pieces that are conversions themselves.

A *box* is a range of logical coordinates per axis, ``{"C": (16, 48), ...}``. When every
``lo`` is a multiple of the axis's block on both sides (:func:`steps`), the box is a whole
number of blocks of each layout, so its part of either physical array is a rectangular
sub-array (:func:`physical_box`) and converting it is an ordinary in-memory conversion
between two small layouts (:func:`tile_layout`): the same plans and numba kernels as
:func:`layouts.convert`, one level up. The file path (:mod:`.npy`) and the dask path
(:mod:`.dask`) both cut conversions this way.

>>> from layouts import Layout
>>> src = Layout("NCHW", N=2, C=20, H=3, W=3)
>>> dst = Layout("NCHW16c", N=2, C=20, H=3, W=3)
>>> steps(src, dst)
{'N': 1, 'C': 16, 'H': 1, 'W': 1}
>>> box = {"N": (1, 2), "C": (16, 20), "H": (0, 3), "W": (0, 3)}
>>> physical_box(dst, box)
[(1, 2), (1, 2), (0, 3), (0, 3), (0, 16)]
>>> tile_layout(dst, box)
Layout('NCHW16c', N=1, C=4, H=3, W=3)
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Mapping

from ..errors import LayoutError
from ..named.layout import Layout
from ..request import resolve as _resolve
from ..request import reworded


def resolve(src: Any, dst: Any, shape: tuple[int, ...], itemsize: int,
            dims: Mapping[str, int]) -> tuple[Layout, Layout]:
    """Both layouts of a conversion of an array of physical ``shape``: :func:`layouts.request.resolve`."""
    request = _resolve(src, dst, tuple(shape), "u1" if itemsize == 1 else None, **dims)
    return request.src, request.dst


def axis_blocks(layout: Layout) -> dict[str, int]:
    """Product of the inner block extents of each axis (1 where unblocked)."""
    out = {a: 1 for a in layout.axes}
    for d, n in zip(layout.parsed.dims, layout.shape):
        if d.is_block:
            out[d.axis] *= n
    return out


def params(layout: Layout) -> dict[str, int]:
    """Named block sizes (Ascend's ``C0``) of a layout."""
    return {d.block: n for d, n in zip(layout.parsed.dims, layout.shape) if isinstance(d.block, str)}


def steps(src: Layout, dst: Layout) -> dict[str, int]:
    """Per axis, the granule a box boundary must be a multiple of: the lcm of both blocks."""
    bs, bd = axis_blocks(src), axis_blocks(dst)
    return {a: math.lcm(bs[a], bd[a]) for a in dst.axes}


def physical_box(layout: Layout, box: Mapping[str, tuple[int, int]]) -> list[tuple[int, int]]:
    """``(start, stop)`` per physical dim of ``layout`` covering the logical ``box``."""
    blocks = axis_blocks(layout)
    out = []
    for d, n in zip(layout.parsed.dims, layout.shape):
        if d.is_block:
            out.append((0, n))
        else:
            lo, hi = box[d.axis]
            b = blocks[d.axis]
            out.append((lo // b, -(-hi // b)))
    return out


def tile_layout(layout: Layout, box: Mapping[str, tuple[int, int]]) -> Layout:
    """The (unpitched) layout of ``box``'s part of ``layout``: same spec, the box's sizes."""
    sizes = tuple((a, box[a][1] - box[a][0]) for a in layout.axes)
    return _tile_layout(layout.spec, sizes, tuple(sorted(params(layout).items())))


@lru_cache(maxsize=1024)
def _tile_layout(spec: str, sizes: tuple, named: tuple) -> Layout:
    return Layout(spec, **dict(sizes), **dict(named))


def check_unpitched(layout: Layout, side: str, where: str) -> None:
    if layout.pitch or layout.align:
        raise LayoutError(f"{side} layout {layout!r} has a row pitch; {where}")


def message(src: Any, dst: Any, what: str, err: Exception) -> str:
    """``err`` worded as every entry words it (:func:`layouts.request.wording`)."""
    return str(reworded(err, what, src, dst))
