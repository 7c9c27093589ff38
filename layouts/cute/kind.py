"""The CuTe kind's answers to the protocol of :mod:`layouts.kinds`, for a plain ``Shape:Stride``
and a swizzled ``Swizzle o offset o Layout``.

The domain is the layout's top-level modes (named ``m0, m1, ...``), numbered as CuTe numbers an
index: colexicographically. A plain layout is its own strided form once its nested modes are
flattened; a swizzled one is the strided form of its inner layout under one XOR swizzle.

>>> from layouts import cute
>>> from layouts.kinds import kind_of
>>> k = kind_of(cute.Layout((2, (2, 2)), (4, (1, 2))))
>>> k.domain, k.strided(), k.extent
(Domain(names=('m0', 'm1'), sizes=(2, 4)), Strided(shape=(2, 2, 2), strides=(4, 1, 2), base=0), 8)
>>> s = kind_of(cute.composition(cute.Swizzle(1, 0, 1), cute.Layout(4)))
>>> s.strided() is None, s.swizzled().offsets().tolist() == s.offsets().tolist() == [0, 1, 3, 2]
(True, True)
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..kinds import Domain, Kind, Strided, Swizzled
from . import int_tuple as it

__all__ = ["CuteKind", "flat_modes"]


def flat_modes(layout: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The sizes and strides of a plain layout's modes, nested modes flattened (fastest first)."""
    shapes, strides = it.flatten(layout.shape), it.flatten(layout.stride)
    if not it.is_tuple(shapes):
        return (shapes,), (strides,)
    return tuple(shapes), tuple(strides)


def _inner(layout: Any) -> Any:
    return getattr(layout, "inner", layout)


class CuteKind(Kind):
    """A CuTe layout, plain or swizzled, as the protocol sees it (see the module)."""

    name = "cute"

    @property
    def label(self) -> str:
        return str(self.layout)

    @property
    def domain(self) -> Domain:
        shape = self.layout.shape
        sizes = tuple(int(it.product(s)) for s in shape) if it.is_tuple(shape) else (int(shape),)
        return Domain(tuple(f"m{k}" for k in range(len(sizes))), sizes)

    @property
    def size(self) -> int:
        return int(self.layout.size())

    @property
    def extent(self) -> int:
        if self.size == 0:
            return 0
        form = self.strided()
        if form is not None:
            return form.base + sum((n - 1) * max(d, 0) for n, d in zip(form.shape, form.strides)) + 1
        return int(self.layout.cosize())

    def offsets(self) -> np.ndarray:
        return self.layout.offsets()

    def strided(self) -> Optional[Strided]:
        if _inner(self.layout) is not self.layout:
            return None
        shapes, strides = flat_modes(self.layout)
        return Strided(shapes, strides)

    def swizzled(self) -> Optional[Swizzled]:
        inner = _inner(self.layout)
        if inner is self.layout:
            return None
        shapes, strides = flat_modes(inner)
        sw = self.layout.outer
        return Swizzled(Strided(shapes, strides, self.layout.offset), sw.yyy_mask, sw.shift)

    @property
    def injective(self) -> bool:
        # distinct strides that each step past the span of the smaller ones never collide; a
        # swizzle is a bijection, so it keeps an injective inner layout injective
        shapes, strides = flat_modes(_inner(self.layout))
        span = 1
        for d, n in sorted((abs(d), n) for n, d in zip(shapes, strides) if n != 1):
            if d < span:
                return super().injective
            span = d * n
        return True

    def words(self) -> str:
        return self.layout.explain()
