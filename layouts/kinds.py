"""One protocol for the kinds of layout that stand for memory beside a framework spec.

A framework :class:`layouts.Layout`, a CuTe layout (:mod:`layouts.cute`) and a linear layout
(:mod:`layouts.linear`) are all accepted by :func:`layouts.convert`; the last two say what memory
they describe through one method, ``__layouts_memory__()``, which returns a CuTe layout (plain or
swizzled) or an :class:`OffsetTable` -- the offset of each element, in index order. ``convert``
asks this question instead of testing types or module names, so another kind plugs in by
defining the method.

>>> import numpy as np
>>> t = OffsetTable(np.array([0, 2, 1, 3]), "a 2x2 transpose")
>>> memory_form(t) is t, t.size(), t.cosize()
(True, 4, 4)
>>> memory_form("NCHW") is None
True
"""

from typing import Any, Optional

import numpy as np

from .errors import LayoutError

__all__ = ["memory_form", "OffsetTable"]


def memory_form(obj: Any) -> Optional[Any]:
    """``obj.__layouts_memory__()`` when ``obj``'s type offers it, else None."""
    hook = getattr(type(obj), "__layouts_memory__", None)
    return None if hook is None else hook(obj)


class OffsetTable:
    """A memory layout given as the offset of each element (index order), for layouts whose
    offsets no strided or swizzled CuTe layout can say (a general GF(2) map, say)."""

    def __init__(self, offsets: Any, description: str) -> None:
        offsets = np.asarray(offsets, dtype=np.int64)
        if offsets.ndim != 1:
            raise LayoutError(f"an offset table is 1-D, got shape {offsets.shape}")
        if offsets.size and offsets.min() < 0:
            raise LayoutError(f"{description} reaches a negative offset")
        self._offsets = offsets
        self.description = description
        self.offsets().setflags(write=False)

    def __layouts_memory__(self) -> "OffsetTable":
        return self

    def size(self) -> int:
        return int(self._offsets.size)

    def cosize(self) -> int:
        """One past the largest offset."""
        return int(self._offsets.max()) + 1 if self._offsets.size else 0

    def offsets(self) -> np.ndarray:
        return self._offsets

    def is_injective(self) -> bool:
        return np.unique(self._offsets).size == self._offsets.size

    def __str__(self) -> str:
        return self.description

    __repr__ = __str__
