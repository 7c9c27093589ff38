"""Offsets back to coordinates: the inverse half of :class:`~layouts.named.layout.Layout`, as a mixin
that reads the layout's spec, block sizes, shape and strides.

>>> from layouts import Layout
>>> Layout("NHWC", N=2, C=16, H=5, W=4).index(337)
Index(n=1, c=1, h=0, w=1)
"""

from __future__ import annotations

import numbers
from typing import Any, Mapping

import numpy as np

from .._args import MAX_ENUMERATED, integer_array
from ..errors import LayoutError, LayoutTypeError, type_name
from .index import Index
from .naming import canonical_order
from .parts import LayoutParts

__all__ = ["Inverse"]


class Inverse(LayoutParts):
    """:meth:`index`, :meth:`dim_indices` and the padding message, for :class:`Layout`."""

    __slots__ = ()

    def index(self, offset: Any, *, padding: str = "raise") -> Index:
        """Logical coordinates of the element at ``offset`` (the inverse of :meth:`offset`).

        ``offset`` may be an int or an integer array. A padding slot raises a
        :class:`LayoutError` that says which padding it is; with ``padding="mark"`` its
        coordinates are -1 and ``Index.padding`` is True there instead.

        One kind of input, one kind of output (either ``padding=`` mode): an integer (Python or
        numpy scalar) gives Python ints and a bool ``padding``; anything else (a list, an array,
        a 0-d array) gives int64 arrays of the input's shape and a bool array ``padding``.

        >>> from layouts import Layout
        >>> L = Layout("CHWN", N=2, C=16, H=5, W=4)
        >>> L.index(43)
        Index(n=1, c=1, h=0, w=1)
        >>> L.index([0, 1, 2]).n.tolist()
        [0, 1, 0]
        """
        if not isinstance(padding, str):
            raise LayoutTypeError(f"padding must be 'raise' or 'mark', got {type_name(padding)}")
        if padding not in ("raise", "mark"):
            raise LayoutError(f"padding must be 'raise' or 'mark', got {padding!r}")
        scalar = isinstance(offset, (numbers.Integral, np.integer)) and not isinstance(offset, (bool, np.bool_))
        off = integer_array(offset, "offset")
        if off.size and (off.min() < 0 or off.max() >= self.size):
            bad = off[(off < 0) | (off >= self.size)].flat[0]
            raise LayoutError(f"offset {bad} is outside {self!r} (expected 0 <= offset < {self.size})")
        per_dim, rest = self._digits(off)
        is_pad = rest != 0
        for q, extent in zip(per_dim, self._shape):
            is_pad |= q >= extent
        coords: dict[str, Any] = {}
        for axis in self.axes:
            coords[axis] = self._compose(axis, per_dim)
            is_pad |= coords[axis] >= self._dims[axis]
        if padding == "raise" and is_pad.any():
            where = np.flatnonzero(is_pad.ravel())[0]
            raise LayoutError(self._padding_message(int(off.ravel()[where]), {a: v.ravel()[where] for a, v in coords.items()}, [q.ravel()[where] for q in per_dim]))
        if padding == "mark":
            coords = {a: np.where(is_pad, -1, v) for a, v in coords.items()}
        if scalar:
            return Index(canonical_order(self.axes), {a: int(v) for a, v in coords.items()}, bool(is_pad))
        arrays = {a: np.asarray(v, dtype=np.int64).reshape(off.shape) for a, v in coords.items()}
        return Index(canonical_order(self.axes), arrays, np.asarray(is_pad, dtype=bool).reshape(off.shape))

    def dim_indices(self, offsets: Any) -> list[np.ndarray]:
        """Index along each physical dim of each offset, outermost dim first.

        The mixed-radix digits of the offsets in this layout's strides; in a pitch gap a digit
        reaches past its dim's extent (:meth:`index` reports such slots as padding).

        >>> from layouts import Layout
        >>> [d.tolist() for d in Layout("NHWC", N=1, C=3, H=2, W=2).dim_indices([0, 4, 11])]
        [[0, 0, 0], [0, 0, 1], [0, 1, 1], [0, 1, 2]]
        """
        return self._digits(integer_array(offsets, "offset"))[0]

    def _digits(self, off: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
        rest = off.copy()
        digits = []
        for stride in self._strides:
            q = rest // stride if stride else np.zeros_like(rest)
            rest = rest - q * stride
            digits.append(q)
        return digits, rest

    def _compose(self, axis: str, per_dim: list) -> Any:
        """Logical coordinate of ``axis`` from its outer part and blocks (outer first, blocks in spec order)."""
        value: Any = 0
        for d, q in zip(self._spec.dims, per_dim):
            if d.axis == axis and not d.is_block:
                value = q
        for d, block, q in zip(self._spec.dims, self._block_sizes, per_dim):
            if d.axis == axis and d.is_block:
                value = value * block + q
        return value

    def _padding_message(self, off: int, coords: Mapping[str, int], per_dim: list) -> str:
        for i, (d, extent, q) in enumerate(zip(self._spec.dims, self._shape, per_dim)):
            if q >= extent and i > 0:
                outer = self._spec.dims[i - 1].name
                used = extent * self._strides[i]
                return (f"offset {off} of {self!r} is padding: it lies in the pitch of dim {outer} "
                        f"(stride {self._strides[i - 1]}, of which the {extent} entries of {d.name} use {used})")
        for axis, value in coords.items():
            if value >= self._dims[axis]:
                blocks = "x".join(d.name for d in self._spec.blocks_of(axis))
                return (f"offset {off} of {self!r} is padding: it would hold {axis.lower()}={value}, but axis {axis} "
                        f"has size {self._dims[axis]} (padded to {self.padded_dims[axis]} by block {blocks})")
        return f"offset {off} of {self!r} is padding: it lies between elements of the innermost dim (pitch)"

    def physical_order(self, logical: str | None = None) -> np.ndarray:
        """What each memory slot holds: the logical number of its element, or -1 for padding.

        The logical number counts elements row-major over the axes ``logical`` (default:
        :func:`canonical_order`, ``"NCHW"`` for the four image axes), as the EdgeBoard
        article labels its figure 000..639.

        >>> from layouts import Layout
        >>> Layout("NHWC", N=2, C=16, H=5, W=4).physical_order()[:6].tolist()
        [0, 20, 40, 60, 80, 100]
        >>> Layout("CHWN", N=2, C=16, H=5, W=4).physical_order()[:4].tolist()
        [0, 320, 1, 321]
        """
        order = canonical_order(self.axes) if logical is None else logical
        if not isinstance(order, str):
            raise LayoutTypeError(f"logical must be a string of axis letters such as 'NCHW', got {type_name(order)}")
        if self.size > MAX_ENUMERATED:
            raise LayoutError(f"physical_order of {self!r} would enumerate {self.size} slots, more than "
                              f"layouts._args.MAX_ENUMERATED = {MAX_ENUMERATED}; use offset()/index() on the part you need")
        if sorted(order) != sorted(self.axes):
            raise LayoutError(f"logical order {order!r} must name each axis of {self.spec!r} once: {''.join(self.axes)}")
        idx = self.index(np.arange(self.size, dtype=np.int64), padding="mark")
        number = np.zeros(self.size, dtype=np.int64)
        for axis in order:
            number = number * self._dims[axis] + getattr(idx, axis.lower())
        return np.where(idx.padding, -1, number)
