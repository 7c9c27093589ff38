"""Plan a conversion: which same-shape views of source and destination to copy, which to zero.

A conversion between two layouts of the same axes is a set of strided copies. Each axis is
split into the finest factors both layouts need (``C`` -> ``C/16, 16`` for ``NCHW`` ->
``NCHW16c``; ``C/16, 2, 8`` for ``NCHW8c`` -> ``NCHW16c``), both physical arrays are viewed
with those factors as dims (a split is always a view) and permuted into one order. Where a
block does not divide its axis, the part that fills whole blocks is one copy and the tail a
few more; the destination's padding slots are listed as views to zero-fill, except where the
copy of a tail writes its block's padding with it (:class:`PaddedCopyStep`). Layouts outside
this scheme (an axis blocked twice, blocks that do not divide each other) take the general
``gather`` step, which moves every element by its two offsets.

Factors of size 1 are left out of the views, so a view has at most as many dims as the finer
of the two layouts (any rank numpy accepts converts). A plan that would still need more dims
than numpy allows, or more than :data:`MAX_STEPS` copies (many axes each with a partial block on
both sides), takes the gather step instead: its work is linear in the elements.

The plan is pure Python over numpy views; it is cached per pair of layouts.

>>> from layouts import Layout
>>> steps, pads = plan(Layout("NCHW", N=1, C=20, H=2, W=2), Layout("NCHW16c", N=1, C=20, H=2, W=2))
>>> [s.regions for s in steps]
[(('N', 'full'), ('C', 'full'), ('H', 'full'), ('W', 'full')), (('N', 'full'), ('C', 'range'), ('H', 'full'), ('W', 'full'))]
>>> [type(s).__name__ for s in steps], pads          # the tail's block written with its padding
(['CopyStep', 'PaddedCopyStep'], [])
>>> plan(Layout("NCHW", N=1, C=20, H=3, W=2), Layout("NCHW16c4h", N=1, C=20, H=3, W=2))[1]   # two padded axes
[('C', 4, 16), ('H', 3, 4)]
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from .._args import numpy_max_dims
from ..named.layout import Layout


#: The most copy steps a plan makes before it takes the gather step instead.
MAX_STEPS = 64


@lru_cache(maxsize=1)
@dataclass(frozen=True)
class _Split:
    """How one axis is cut for the fast path: its logical ``size`` and the two layouts' blocks
    ``m`` >= ``k`` (``m % k == 0``; 1 where a layout does not block the axis)."""

    size: int
    m: int
    k: int

    @property
    def full(self) -> int:
        return (self.size // self.m) * self.m

    def factors(self) -> tuple[int, int, int]:
        return (self.full // self.m, self.m // self.k, self.k)


def _axis_block(layout: Layout, axis: str) -> list[int]:
    return [n for d, n in zip(layout.parsed.dims, layout.shape) if d.is_block and d.axis == axis]


def _splits(src: Layout, dst: Layout) -> dict[str, _Split] | None:
    """Per-axis splits, or None when some axis needs the general gather step."""
    out = {}
    for axis in src.axes:
        bs, bd = _axis_block(src, axis), _axis_block(dst, axis)
        if len(bs) > 1 or len(bd) > 1:
            return None
        b1, b2 = (bs or [1])[0], (bd or [1])[0]
        m, k = max(b1, b2), min(b1, b2)
        if m % k:
            return None
        out[axis] = _Split(src.dims[axis], m, k)
    return out


class CopyStep:
    """Copy one region: for each axis 'full' (the whole blocks), 'range' (the tail) or an index.

    The views are worked out once, when the plan is made: running the step is at most two numpy
    indexings, two reshapes (pure splits, always views), a transpose and the kernel call; each
    of these that would change nothing is left out (a small copy's views cost as much as it).
    """

    __slots__ = ("regions", "_src", "_dst", "_perm", "_src_ops", "_dst_ops")

    def __init__(self, src: Layout, dst: Layout, regions: tuple[tuple[str, Any], ...]) -> None:
        splits = _splits(src, dst)
        self.regions = regions
        self._src = _side_recipe(src, splits, dict(regions))
        self._dst = _side_recipe(dst, splits, dict(regions))
        self._perm = tuple(self._src[2].index(label) for label in self._dst[2])
        self._settle_ops(src, dst)

    def _settle_ops(self, src: Layout, dst: Layout) -> None:
        """Each side's view steps, (index or None, shape or None, perm or None), None where the
        step would give the array as it is."""
        perm = None if self._perm == tuple(range(len(self._perm))) else self._perm
        self._src_ops = _view_ops(self._src, src.shape) + (perm,)
        self._dst_ops = _view_ops(self._dst, dst.shape) + (None,)

    @property
    def ndim(self) -> int:
        """Dims of the views this step copies."""
        return max(len(self._src[1]), len(self._dst[1]))

    def views(self, x: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Same-shape views (source, destination) of this region, dims in destination order."""
        return _viewed(x, self._src_ops), _viewed(target, self._dst_ops)

    def source_view(self, x: np.ndarray) -> np.ndarray:
        """The source view alone (dims in destination order)."""
        return _viewed(x, self._src_ops)

    def run(self, x: np.ndarray, target: np.ndarray, movers: Any, threads: Any) -> None:
        """Copy with ``movers`` (:mod:`layouts.kernels`, or numpy's functions of the same names)."""
        sv, dv = self.views(x, target)
        if sv.size:
            movers.copy_into(dv, sv, threads=threads)


class PaddedCopyStep(CopyStep):
    """The tail of an axis whose block is the destination's last dimension, with that block's
    padding: the destination view holds whole blocks (``P`` slots, of which the source fills
    the first ``C``), written in one pass by ``copy_padded_into`` (each row once, data and
    zeros together, instead of a copy of ``C`` units a row and a zero fill of the rest)."""

    __slots__ = ()

    def __init__(self, src: Layout, dst: Layout, regions: tuple[tuple[str, Any], ...]) -> None:
        super().__init__(src, dst, regions)
        self._dst = _side_recipe(dst, _splits(src, dst), dict(regions), whole_blocks=True)
        self._settle_ops(src, dst)

    def run(self, x: np.ndarray, target: np.ndarray, movers: Any, threads: Any) -> None:
        sv, dv = self.views(x, target)
        if dv.size:
            movers.copy_padded_into(dv, sv, threads=threads)


@dataclass(frozen=True)
class GatherStep:
    """Move every element by its source and destination offsets (any two layouts; slower)."""

    src: Layout
    dst: Layout

    def run(self, x: np.ndarray, target: np.ndarray, movers: Any, threads: Any) -> None:
        axes = self.src.axes
        grids = np.meshgrid(*[np.arange(self.src.dims[a], dtype=np.int64) for a in axes], indexing="ij", sparse=True)
        coords = {a.lower(): g for a, g in zip(axes, grids)}
        src_buf = np.zeros(self.src.size, dtype=x.dtype)
        np.copyto(self.src.view(src_buf), x)
        dst_buf = np.zeros(self.dst.size, dtype=x.dtype)
        dst_buf[self.dst.offset(**coords)] = src_buf[self.src.offset(**coords)]
        np.copyto(target, self.dst.view(dst_buf))


def plan(src: Layout, dst: Layout) -> tuple[list, list]:
    """(steps, padding regions) that turn an array in ``src`` into one in ``dst``."""
    return _plan(src, dst)


@lru_cache(maxsize=256)
def _plan(src: Layout, dst: Layout) -> tuple[list, list]:
    splits = _splits(src, dst)
    if splits is None:
        return [GatherStep(src, dst)], []
    choices = []
    for axis in src.axes:
        s = splits[axis]
        options: list[Any] = ["full"] if s.full else []
        if s.size > s.full:
            options += ["range"] if s.k == 1 else [("at", c) for c in range(s.full, s.size)]
        choices.append([(axis, o) for o in options])
    if math.prod(len(c) for c in choices) > MAX_STEPS:
        return [GatherStep(src, dst)], []
    pads = _padding(dst)
    fused = _fused_axis(src, dst, splits, pads)
    steps = [(PaddedCopyStep if dict(combo).get(fused) == "range" else CopyStep)(src, dst, combo)
             for combo in itertools.product(*choices)]
    if any(step.ndim > numpy_max_dims() for step in steps):
        return [GatherStep(src, dst)], []
    return steps, [] if fused else pads


def _fused_axis(src: Layout, dst: Layout, splits: dict[str, _Split], pads: list) -> str | None:
    """The padded axis whose padding the copy of its tail writes (:class:`PaddedCopyStep`), or
    None: the only padded axis, blocked in the destination's last dimension and not in the
    source (its tail is then one 'range' step per combination of the other axes' regions)."""
    if len(pads) != 1:
        return None
    axis = pads[0][0]
    last = dst.parsed.dims[-1]
    if not (last.is_block and last.axis == axis and splits[axis].k == 1):
        return None
    return axis


def padding_views(dst: Layout, target: np.ndarray, pads: list[tuple[str, int, int]]) -> list[np.ndarray]:
    """Views of ``target`` (shaped as ``dst``) covering the block-padding slots ``pads`` of a plan."""
    views = []
    for axis, used, block in pads:
        index: list[Any] = [slice(None)] * dst.ndim
        for i, d in enumerate(dst.parsed.dims):
            if d.axis == axis:
                index[i] = slice(used, block) if d.is_block else dst.shape[i] - 1
        views.append(target[tuple(index) + (Ellipsis,)])
    return views


def _padding(dst: Layout) -> list[tuple[str, int, int]]:
    """(axis, used slots of its last block, block size) for each padded, singly blocked axis."""
    out = []
    for axis in dst.axes:
        block = _axis_block(dst, axis)
        if len(block) == 1 and dst.dims[axis] % block[0]:
            out.append((axis, dst.dims[axis] % block[0], block[0]))
    return out


def pitch_gap_views(layout: Layout, flat: np.ndarray) -> list[np.ndarray]:
    """Views of a flat buffer covering the slots that row pitch leaves between elements."""
    shape, strides = layout.shape, layout.stride_tuple
    item = flat.itemsize
    if 0 in shape:  # no element at all: every slot is padding
        return [flat]
    views = []
    for i in range(len(shape)):
        used = shape[i + 1] * strides[i + 1] if i + 1 < len(shape) else 1
        gap = strides[i] - used
        if gap <= 0:
            continue
        start = flat[used:]
        views.append(np.lib.stride_tricks.as_strided(
            start, shape=shape[:i + 1] + (gap,), strides=tuple(s * item for s in strides[:i + 1]) + (item,)))
    return views


def _view_ops(recipe: tuple[tuple, tuple, list], shape: tuple[int, ...]) -> tuple[Any, Any]:
    """(index, shape) of a side's recipe for an array of ``shape``, each None where it changes
    nothing: an index that keeps every element (whole slices, 0 on dims of 1) and a reshape to
    the shape the array already has."""
    index, fine, _ = recipe
    if not all(_keeps_all(i, n) for i, n in zip(index[:-1], shape)):
        return index, fine
    kept = tuple(n for i, n in zip(index[:-1], shape) if type(i) is slice)
    return None, (None if kept == fine and len(kept) == len(shape) else fine)


def _keeps_all(i: Any, n: int) -> bool:
    """Whether index entry ``i`` keeps all ``n`` elements of its dim."""
    if type(i) is slice:
        return i.start in (0, None) and i.step is None and (i.stop is None or i.stop >= n)
    return i == 0 and n == 1


def _viewed(a: np.ndarray, ops: tuple[Any, Any, Any]) -> np.ndarray:
    """``a`` through a side's view steps (:func:`_view_ops`)."""
    index, shape, perm = ops
    if index is not None:
        a = a[index]
    if shape is not None:
        a = a.reshape(shape)
    return a if perm is None else a.transpose(perm)


def _side_recipe(layout: Layout, splits: dict[str, _Split], regions: dict[str, Any],
                 whole_blocks: bool = False) -> tuple[tuple, tuple, list]:
    """How to view an array shaped as ``layout``, restricted to ``regions``, each axis cut into its fine factors.

    Returns (index, shape, labels): ``arr[index].reshape(shape)`` is the view, and ``labels``
    names each of its dims ``(axis, factor)``. ``whole_blocks``: a 'range' region covers its
    whole last block, padding slots included.
    """
    index: list[Any] = []
    shape: list[int] = []
    labels: list[tuple[str, int]] = []
    for d, extent in zip(layout.parsed.dims, layout.shape):
        s = splits[d.axis]
        region = regions[d.axis]
        if d.is_block and extent == 1:  # a block of 1 ("1c") adds nothing: drop it
            index.append(0)
            continue
        own = (_axis_block(layout, d.axis) or [1])[0]  # this side's block of the axis
        if isinstance(region, tuple):  # ("at", c): a single logical index
            c = region[1]
            index.append(c % own if d.is_block else c // own)
            continue
        if region == "range":  # the tail [full, size) of an axis blocked on one side only
            r = s.size - s.full
            if d.is_block:
                r = extent if whole_blocks else r
                index.append(slice(0, r))
            elif own > 1:
                index.append(s.full // own)
                continue
            else:
                index.append(slice(s.full, s.size))
            shape.append(r)
            labels.append((d.axis, 0))
            continue
        f = s.factors()
        inner = [] if own == 1 else ([1, 2] if own == s.m else [2])
        mine = inner if d.is_block else [j for j in range(3) if j not in inner]
        mine = [j for j in mine if f[j] != 1]  # a factor of 1 is no dim (the same on both sides)
        index.append(slice(None) if d.is_block else slice(0, s.full // own))
        shape.extend(f[j] for j in mine)
        labels.extend((d.axis, j) for j in mine)
    return tuple(index) + (Ellipsis,), tuple(shape), labels
