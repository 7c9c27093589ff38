"""The framework kind's answers to the protocol of :mod:`layouts.kinds`.

The domain is the layout's axes in canonical order (``N, C, H, W``, then the other letters) at
their logical sizes: a blocked axis's padding is never an element, pitch gaps are never reached.
An element's offset is a sum of one term per axis, so every offset is built from the axes' own
offset vectors; the strided form exists when no block pads its axis.

>>> import layouts as ly
>>> from layouts.kinds import kind_of
>>> k = kind_of(ly.Layout("NCHW16c", N=1, C=20, H=1, W=1))
>>> k.domain, k.size, k.extent, k.array_shape, k.strided() is None
(Domain(names=('N', 'C', 'H', 'W'), sizes=(1, 20, 1, 1)), 20, 20, (1, 2, 1, 1, 16), True)
>>> k.offsets().tolist() == list(range(16)) + list(range(16, 20))
True
>>> kind_of(ly.Layout("NHWC", N=1, C=3, H=2, W=2)).strided()
Strided(shape=(1, 3, 2, 2), strides=(12, 1, 6, 3), base=0)
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..kinds import Domain, Kind, Strided
from .naming import canonical_order

__all__ = ["FrameworkKind", "axis_modes"]


def axis_modes(layout: Any) -> list[tuple[str, tuple[int, ...], tuple[int, ...]]]:
    """For each logical axis in canonical order: ``(axis, sizes, strides)`` of its physical
    dims, the fastest-varying digit of the coordinate first (the innermost block, then outer
    blocks, then the outer dim).

    >>> import layouts as ly
    >>> axis_modes(ly.Layout("NCHW16c", N=1, C=32, H=2, W=2))
    [('N', (1,), (128,)), ('C', (16, 2), (1, 64)), ('H', (2,), (32,)), ('W', (2,), (16,))]
    """
    dims, sizes, strides = layout.parsed.dims, layout.shape, layout.stride_tuple
    out = []
    for axis in canonical_order(layout.axes):
        # a block later in the spec is a faster digit of the axis's coordinate; the outer dim is the slowest
        blocks = [k for k, d in enumerate(dims) if d.axis == axis and d.is_block]
        outer = [k for k, d in enumerate(dims) if d.axis == axis and not d.is_block]
        order = list(reversed(blocks)) + outer
        out.append((axis, tuple(sizes[k] for k in order), tuple(strides[k] for k in order)))
    return out


def _axis_offsets(size: int, sizes: tuple[int, ...], strides: tuple[int, ...]) -> np.ndarray:
    """The offset term of coordinates ``0 .. size-1`` of one axis whose digits (fastest first)
    have these sizes and strides."""
    c = np.arange(size, dtype=np.int64)
    out = np.zeros(size, dtype=np.int64)
    for n, d in zip(sizes, strides):
        digit, c = (c % n, c // n) if n > 1 else (np.zeros_like(c), c)
        out += digit * d
    return out


class FrameworkKind(Kind):
    """A :class:`layouts.Layout` as the protocol sees it (see the module)."""

    name = "framework"

    @property
    def label(self) -> str:
        return repr(self.layout)

    @property
    def domain(self) -> Domain:
        axes = tuple(canonical_order(self.layout.axes))
        return Domain(axes, tuple(int(self.layout.dims[a]) for a in axes))

    @property
    def extent(self) -> int:
        return int(self.layout.span)

    @property
    def buffer_size(self) -> int:
        return int(self.layout.size)

    @property
    def array_shape(self) -> tuple:
        return tuple(self.layout.shape)

    def array(self, buffer: np.ndarray) -> np.ndarray:
        return self.layout.view(buffer)

    def offsets(self) -> np.ndarray:
        dims = self.layout.dims
        out = np.zeros(1, dtype=np.int64)
        for axis, sizes, strides in axis_modes(self.layout):
            out = np.add.outer(_axis_offsets(dims[axis], sizes, strides), out).ravel()
        return out

    def strided(self) -> Optional[Strided]:
        if any(self.layout.dims[a] != self.layout.padded_dims[a] for a in self.layout.axes):
            return None          # a block pads its axis: the padding slots are not elements
        shape: list[int] = []
        strides: list[int] = []
        for _, sizes, st in axis_modes(self.layout):
            shape += sizes
            strides += st
        return Strided(tuple(shape), tuple(strides))

    @property
    def injective(self) -> bool:
        return True              # distinct coordinates never share a slot (pitch only adds gaps)

    def offsets_with(self, ops: Any) -> Any:
        """As :meth:`offsets` in an array library's arithmetic: each axis's coordinate split into
        its digits (innermost block first), each times its physical dim's stride, the axes
        combined first-fastest -- a block that does not divide its axis has no strided form."""
        found = super().offsets_with(ops)
        if found is not None:
            return found
        total = ops.arange(1) * 0
        for (_, sizes, strides), size in zip(axis_modes(self.layout), self.domain.sizes):
            rest, term = ops.arange(size), ops.arange(size) * 0
            for n, step in zip(sizes, strides):
                term = term + (rest % n) * step
                rest = rest // n
            total = ops.reshape(ops.reshape(term, [size, 1]) + ops.reshape(total, [1, -1]), [-1])
        return total

    def words(self) -> str:
        return self.layout.explain()
