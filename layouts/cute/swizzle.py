"""CuTe's ``Swizzle<B, M, S>`` and the composed (swizzled) layout ``Swizzle o offset o Layout``.

A swizzle XORs ``B`` bits taken ``S`` places above the ``M`` lowest bits into the bits just
above those ``M``: with 16-byte vectors (``M``) it spreads the rows of a shared-memory tile over
the banks, ``Swizzle(3, 3, 3)`` on 8 x 64 halves being the classic one.

>>> sw = Swizzle(2, 0, 2)
>>> [sw(i) for i in range(16)]
[0, 1, 2, 3, 5, 4, 7, 6, 10, 11, 8, 9, 15, 14, 13, 12]
>>> from layouts.cute import Layout, composition
>>> S = composition(sw, Layout((4, 4), (4, 1)))
>>> print(S)
Sw<2,0,2> o 0 o (4,4):(4,1)
>>> S(1, 0), S.offsets()[:6].tolist()
(5, [0, 5, 10, 15, 1, 4])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import LayoutError, LayoutTypeError, type_name
from ..hooks import service
from . import int_tuple as it
from .layout import INT64, Layout
from .words import explain_text, formula_text

__all__ = ["Swizzle", "ComposedLayout", "is_layout"]


class Swizzle:
    """The swizzle functor ``Swizzle<bits, base, shift>`` on integer offsets.

    Parameters
    ----------
    bits : int
        Bits in the mask (>= 0).
    base : int
        Least-significant bits left alone (>= 0).
    shift : int
        Distance of the source bits above the target bits; ``|shift| >= bits``. A negative shift
        XORs lower bits into higher ones.

    Examples
    --------
    >>> sw = Swizzle(3, 3, 3)
    >>> sw(0b000_001_000), sw(0b001_000_000), sw(0b001_001_000)
    (8, 72, 64)
    >>> Swizzle(3, 0, 2)
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: Swizzle(3, 0, 2): |shift| must be >= bits (CuTe's condition), got shift 2 for 3 bits
    """

    __slots__ = ("bits", "base", "shift", "yyy_mask", "zzz_mask")

    def __init__(self, bits: int, base: int, shift: int) -> None:
        for name, v in (("bits", bits), ("base", base), ("shift", shift)):
            if not it.is_int(v):
                raise LayoutTypeError(f"Swizzle: {name} must be an int, got {type_name(v)}")
        bits, base, shift = int(bits), int(base), int(shift)
        if bits < 0 or base < 0:
            raise LayoutError(f"Swizzle({bits}, {base}, {shift}): bits and base must be >= 0")
        if abs(shift) < bits:
            raise LayoutError(f"Swizzle({bits}, {base}, {shift}): |shift| must be >= bits (CuTe's condition), "
                              f"got shift {shift} for {bits} bits")
        if bits and bits + base + abs(shift) > 63:  # every offset is an int64: its masks must be too
            raise LayoutError(f"Swizzle({bits}, {base}, {shift}): its masks reach bit {bits + base + abs(shift) - 1}, "
                              f"past the 63 bits of a non-negative int64 offset; bits + base + |shift| must be at "
                              f"most 63")
        self.bits, self.base, self.shift = bits, base, shift
        mask = (1 << bits) - 1
        self.yyy_mask = mask << (base + max(0, shift))
        self.zzz_mask = mask << (base - min(0, shift))

    def __call__(self, offset: Any) -> Any:
        """The swizzled offset (an int, or elementwise on an integer numpy array)."""
        if isinstance(offset, np.ndarray):
            y = offset & self.yyy_mask
            return offset ^ (y >> self.shift if self.shift >= 0 else y << -self.shift)
        if not it.is_int(offset):
            raise LayoutTypeError(f"a swizzle maps int offsets, got {type_name(offset)}")
        offset = int(offset)
        y = offset & self.yyy_mask
        return offset ^ (y >> self.shift if self.shift >= 0 else y << -self.shift)

    def size(self) -> int:
        """The period of the swizzle: ``2 ** (bits + base + |shift|)``.

        >>> Swizzle(3, 3, 3).size()
        512
        """
        return 1 << (self.bits + self.base + abs(self.shift))

    def cosize(self) -> int:
        """The same as :meth:`size` (a swizzle permutes each period)."""
        return self.size()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Swizzle) and (self.bits, self.base, self.shift) == (other.bits, other.base, other.shift)

    def __hash__(self) -> int:
        return hash(("Swizzle", self.bits, self.base, self.shift))

    def __str__(self) -> str:
        return f"Sw<{self.bits},{self.base},{self.shift}>"

    def __repr__(self) -> str:
        return f"Swizzle({self.bits}, {self.base}, {self.shift})"


class ComposedLayout:
    """``outer o offset o inner``: the offset of index ``i`` is ``outer(offset + inner(i))``.
    What ``composition(Swizzle, Layout)`` returns; it has the inner layout's shape.

    Examples
    --------
    >>> from layouts.cute import Layout
    >>> S = ComposedLayout(Swizzle(1, 0, 1), 0, Layout((2, 2), (2, 1)))
    >>> S.shape, [S(i) for i in range(4)], S.cosize()
    ((2, 2), [0, 3, 1, 2], 4)
    """

    __slots__ = ("outer", "offset", "inner")

    def __init__(self, outer: Swizzle, offset: int, inner: Layout) -> None:
        if not isinstance(outer, Swizzle):
            raise LayoutTypeError(f"ComposedLayout: outer must be a Swizzle, got {type_name(outer)}")
        if not isinstance(inner, Layout):
            raise LayoutTypeError(f"ComposedLayout: inner must be a layouts.cute.Layout, got {type_name(inner)}")
        if not it.is_int(offset):
            raise LayoutTypeError(f"ComposedLayout: offset must be an int, got {type_name(offset)}")
        self.outer, self.offset, self.inner = outer, int(offset), inner

    @property
    def shape(self) -> Any:
        return self.inner.shape

    @property
    def stride(self) -> Any:
        """The inner layout's stride (the swizzle then permutes the offsets it gives)."""
        return self.inner.stride

    def __call__(self, *coords: Any) -> int:
        return self.outer(self.offset + self.inner(*coords))

    def __layouts_kind__(self) -> Any:
        """The answers of this layout to the protocol of :mod:`layouts.kinds`."""
        from .kind import CuteKind
        return CuteKind(self)

    def offsets(self) -> np.ndarray:
        """``S(i)`` for every index, as an int64 array.

        >>> ComposedLayout(Swizzle(1, 0, 1), 0, Layout(4)).offsets().tolist()
        [0, 1, 3, 2]
        """
        inner = self.inner.offsets()
        if inner.size and not INT64[0] <= int(inner.min()) + self.offset <= int(inner.max()) + self.offset <= INT64[1]:
            raise LayoutError(f"the offsets of {self} do not fit int64; call the layout for one exact offset")
        return self.outer(inner + self.offset)

    def size(self) -> int:
        return self.inner.size()

    def cosize(self) -> int:
        """One past the largest offset (the swizzle may move offsets past the inner cosize).

        >>> ComposedLayout(Swizzle(1, 0, 1), 0, Layout(3)).cosize()   # offsets 0, 1, 3
        4
        """
        if self.size() == 0:
            return 0
        sw, inner = self.outer, self.inner
        # the swizzle changes only bits below `top`, so it permutes each aligned block of 2**top:
        # when the inner layout (shifted by offset) is exactly such blocks, the cosize stays
        top = sw.base + sw.bits + max(0, -sw.shift)
        c = inner.cosize()
        if self.offset % (1 << top) == 0 and c % (1 << top) == 0 and c == inner.size() and _compact(inner):
            return self.offset + c
        return int(self.offsets().max()) + 1

    def __len__(self) -> int:
        return len(self.inner)

    def __getitem__(self, i: int) -> "ComposedLayout":
        return ComposedLayout(self.outer, self.offset, self.inner[i])

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ComposedLayout) and self.outer == other.outer and self.offset == other.offset
                and self.inner == other.inner)

    def __hash__(self) -> int:
        return hash((self.outer, self.offset, self.inner))

    def __str__(self) -> str:
        return f"{self.outer} o {self.offset} o {self.inner}"

    def __repr__(self) -> str:
        return f"ComposedLayout({self.outer!r}, {self.offset}, {self.inner!r})"

    def formula(self) -> str:
        """The offset formula: the swizzle around the affine part (see :func:`layouts.cute.explain.formula`)."""
        return formula_text(self, self.inner, self)

    def explain(self) -> str:
        """Shape:stride, sizes and the formula, as :meth:`Layout.explain` writes them."""
        return explain_text(self, self.inner, self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        """Jupyter's display: the picture of :func:`layouts.viz.draw_cute` and the text."""
        return service("mimebundle")(self, include=include, exclude=exclude)


def _compact(layout: Layout) -> bool:
    """True when the layout is a bijection onto [0, size) (non-negative strides, no overlap, no gap).

    >>> _compact(Layout((2, 3), (3, 1))), _compact(Layout((2, 3), (4, 1)))
    (True, False)
    """
    shapes, strides = it.flatten(layout.shape), it.flatten(layout.stride)
    if not it.is_tuple(shapes):
        shapes, strides = (shapes,), (strides,)
    span = 1
    for d, n in sorted((d, n) for n, d in zip(shapes, strides) if n != 1):
        if d != span:
            return False
        span *= n
    return True


def is_layout(x: Any) -> bool:
    """True for a CuTe layout, plain or swizzled.

    >>> is_layout(Layout(4)), is_layout(ComposedLayout(Swizzle(1, 0, 1), 0, Layout(4))), is_layout((4, 1))
    (True, True, False)
    """
    return isinstance(x, (Layout, ComposedLayout))
