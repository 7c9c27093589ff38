"""The linear kind's answers to the protocol of :mod:`layouts.kinds`: a linear layout as memory.

A linear layout stands for memory when ``offset`` is one of its dims (:func:`~.bridges.memory_map`
reads it as coordinates -> offset). The domain is its tensor dims in one order whatever order
they are listed in (:func:`tile_dims`: Triton's ``dim0, dim1, ...`` by their number), so a map
has one element order everywhere. Its strided or swizzled form is that of its CuTe form, when it
has one.

>>> from layouts.linear import LinearLayout
>>> from layouts.kinds import kind_of
>>> L = LinearLayout.from_bases({"offset": [[1, 0], [0, 1], [2, 0], [0, 2]]}, ["dim1", "dim0"])
>>> k = kind_of(L)
>>> k.domain, k.offsets()[:6].tolist()
(Domain(names=('dim0', 'dim1'), sizes=(4, 4)), [0, 2, 8, 10, 1, 3])
>>> k.strided()
Strided(shape=(2, 2, 2, 2), strides=(2, 8, 1, 4), base=0)
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..errors import LayoutError
from ..kinds import Domain, Kind, Strided, Swizzled
from .bridges import cute_form, memory_map

__all__ = ["LinearKind", "tile_dims", "MAX_TABLE"]

#: offsets built as one int64 array: 32 GiB at most
MAX_TABLE = 1 << 32


def tile_dims(names: Any) -> list:
    """The tile's dims in colexicographic order (the first the fastest): Triton's standard names
    ``dim0, dim1, ...`` by their number, whatever order a layout lists them in (a map is the same
    map however its dims are listed); any other names as listed.

    >>> tile_dims(["dim1", "dim0"]), tile_dims(["m0", "m1"])
    (['dim0', 'dim1'], ['m0', 'm1'])
    """
    names = list(names)
    if sorted(names) == sorted(f"dim{k}" for k in range(len(names))):
        return sorted(names, key=lambda n: int(n[3:]))
    return names


def _max_xor(values: list[int]) -> int:
    """The largest XOR of any subset of ``values`` (the largest element of their GF(2) span):
    reduce to a basis with distinct leading bits, then take each basis vector that raises the
    running value, highest first."""
    basis: list[int] = []
    for v in values:
        for b in basis:
            v = min(v, v ^ b)
        if v:
            basis.append(v)
            basis.sort(reverse=True)
    best = 0
    for b in basis:
        best = max(best, best ^ b)
    return best


class LinearKind(Kind):
    """A linear layout with an ``offset`` dim, as the protocol sees it (see the module)."""

    name = "linear"

    def __init__(self, layout: Any) -> None:
        super().__init__(layout)
        self._map: Any = None
        self._form: Any = False

    @property
    def label(self) -> str:
        """``linear layout`` and its CuTe form when it has one (and is memory), else its repr."""
        try:
            form = self._cute()
        except LayoutError:
            form = None
        return f"linear layout {form}" if form is not None else repr(self.layout)

    @property
    def map(self) -> Any:
        """The layout as coordinates -> ``offset``, its coordinates in :func:`tile_dims` order."""
        if self._map is None:
            mapped = memory_map(self.layout)
            order = tile_dims(mapped.in_dim_names)
            self._map = mapped.transpose_ins(order) if order != mapped.in_dim_names else mapped
        return self._map

    @property
    def domain(self) -> Domain:
        dims = self.map.in_dims
        return Domain(tuple(dims), tuple(int(s) for s in dims.values()))

    def _cute(self) -> Any:
        if self._form is False:
            self._form = cute_form(self.map)
        return self._form

    def offsets(self) -> np.ndarray:
        flat = self.map.flatten_ins()
        if flat.total_in_size > MAX_TABLE:
            raise LayoutError(f"the offset table of this layout would hold {flat.total_in_size} offsets "
                              f"(2**{flat.total_in_bits}); at most 2**{MAX_TABLE.bit_length() - 1} are built")
        if not flat.in_dim_names:
            return np.zeros(1, dtype=np.int64)
        name = flat.in_dim_names[0]
        return flat.apply({name: np.arange(flat.total_in_size, dtype=np.int64)})["offset"]

    def strided(self) -> Optional[Strided]:
        from ..cute.kind import CuteKind
        form = self._cute()
        return None if form is None else CuteKind(form).strided()

    def swizzled(self) -> Optional[Swizzled]:
        from ..cute.kind import CuteKind
        form = self._cute()
        return None if form is None else CuteKind(form).swizzled()

    @property
    def extent(self) -> int:
        columns = [b[0] for rows in self.map.bases.values() for b in rows]
        return _max_xor(columns) + 1

    @property
    def injective(self) -> bool:
        return self.map.is_injective()

    def offsets_with(self, ops: Any) -> Any:
        """As :meth:`offsets` in an array library's arithmetic: the XOR of the bases of each
        index's set bits (the in-dims flattened, minor first)."""
        found = super().offsets_with(ops)
        if found is not None:
            return found
        flat = self.map.flatten_ins()
        bases = [int(b[0]) for b in flat.bases[flat.in_dim_names[0]]] if flat.in_dim_names else []
        index = ops.arange(self.size)
        total = index * 0
        for bit, basis in enumerate(bases):
            total = total ^ (((index >> bit) & 1) * basis)
        return total

    def words(self) -> str:
        return self.layout.explain()
