"""One protocol for every kind of layout: the questions ``convert``, ``smem``, ``viz`` and the
error messages ask of a layout, whatever its kind.

A framework :class:`layouts.Layout`, a CuTe layout (:mod:`layouts.cute`), a linear layout
(:mod:`layouts.linear`) and an :class:`OffsetTable` each describe where the elements of a tensor
lie in a buffer. Each kind answers through one small adapter, a :class:`Kind`, which its class
returns from ``__layouts_kind__()``; :func:`kind_of` asks for it. The answers:

- :attr:`Kind.label`, a short text for messages (``'NCHW16c'``, ``(4,8):(8,1)``);
- :attr:`Kind.domain`, the logical elements: the name and size of each dim, and the one rule
  that numbers them (colexicographic: the first dim is the fastest). A framework layout's dims
  are its axes in canonical order (``N, C, H, W``) at their logical sizes, so a blocked axis's
  padding is never an element; a CuTe layout's are its top-level modes; a linear layout's are its
  tensor dims, ``dim0, dim1, ...`` by their number however they are listed;
- :attr:`Kind.size` (elements), :attr:`Kind.extent` (one past its largest offset),
  :attr:`Kind.buffer_size` and :attr:`Kind.array_shape` (the buffer that holds it, and the array
  over that buffer: a framework layout's physical array);
- :meth:`Kind.offsets`: the offset of every element, in the domain's order;
- :meth:`Kind.strided`: a :class:`Strided` form when every offset is affine in the coordinate
  (what :func:`numpy.lib.stride_tricks.as_strided` takes, and a base), and :meth:`Kind.swizzled`
  when it is affine up to one XOR swizzle of the offset bits (:class:`Swizzled`); None otherwise;
- :attr:`Kind.injective`, :meth:`Kind.words` and :meth:`Kind.picture`.

A new kind plugs in by defining ``__layouts_kind__`` on its class, returning a subclass of
:class:`Kind` that answers at least :attr:`~Kind.label`, :attr:`~Kind.domain`, :attr:`~Kind.extent`
and :meth:`~Kind.offsets` (``tests/test_kinds.py`` runs the same laws on every kind).

>>> import numpy as np
>>> t = OffsetTable(np.array([0, 2, 1, 3]), "a 2x2 transpose", shape=(2, 2))
>>> k = kind_of(t)
>>> k.name, k.domain.sizes, k.size, k.extent, k.offsets().tolist(), k.injective
('table', (2, 2), 4, 4, [0, 2, 1, 3], True)
>>> kind_of("NCHW") is None
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from .errors import LayoutError, LayoutTypeError, type_name
from .hooks import service

__all__ = ["Kind", "Domain", "Strided", "Swizzled", "kind_of", "require_kind", "OffsetTable", "strided_with"]


@dataclass(frozen=True)
class Domain:
    """The logical elements of a layout: one name and size per dim, numbered colexicographically
    (the first dim the fastest: element ``i`` of a ``(2, 3)`` domain is ``(i % 2, i // 2)``).

    >>> d = Domain(("N", "C"), (2, 3))
    >>> d.size, d.coordinate(3)
    (6, (1, 1))
    """

    names: tuple
    sizes: tuple

    @property
    def size(self) -> int:
        return math.prod(self.sizes)

    def coordinate(self, index: int) -> tuple:
        """The coordinate of element ``index`` (colexicographic)."""
        out = []
        for n in self.sizes:
            index, c = divmod(index, n) if n else (index, 0)
            out.append(c)
        return tuple(out)


@dataclass(frozen=True)
class Strided:
    """Offsets affine in the coordinate: element ``c`` (a coordinate of :attr:`shape`, the first
    mode the fastest) lies at ``base + sum(c[k] * strides[k])``. The modes refine the domain's
    dims in order: a dim of several modes (a blocked axis) lists its fastest mode first.

    :meth:`view` is the numpy array of those modes over a buffer: what ``as_strided`` takes.

    >>> s = Strided((2, 3), (3, 1))             # a 2 x 3 row-major tile, read as (row, column)
    >>> s.view(np.arange(6)).tolist()
    [[0, 1, 2], [3, 4, 5]]
    >>> s.offsets().tolist()                     # element order: the first mode the fastest
    [0, 3, 1, 4, 2, 5]
    """

    shape: tuple
    strides: tuple
    base: int = 0

    def view(self, buffer: np.ndarray, writeable: bool = False) -> np.ndarray:
        """The modes as a numpy view of the 1-D ``buffer`` (which must hold every offset)."""
        if buffer.ndim != 1:
            raise LayoutError(f"a strided form views a 1-D buffer, got shape {buffer.shape}")
        item = buffer.strides[0] if buffer.size > 1 else buffer.itemsize
        return np.lib.stride_tricks.as_strided(buffer[self.base:], self.shape,
                                               tuple(s * item for s in self.strides), writeable=writeable)

    def offsets(self) -> np.ndarray:
        """Every offset, the first mode the fastest."""
        out = np.full(1, self.base, dtype=np.int64)
        for n, d in zip(self.shape, self.strides):
            out = np.add.outer(np.arange(n, dtype=np.int64) * d, out).ravel()
        return out


@dataclass(frozen=True)
class Swizzled:
    """Offsets affine up to one XOR swizzle: element ``c`` lies at ``swizzle(inner(c))``, where
    ``swizzle(v) = v ^ ((v & mask) >> shift)`` (``<< -shift`` for a negative ``shift``): CuTe's
    ``Swizzle<B, M, S> o offset o Layout`` with the offset in ``inner.base``.

    >>> Swizzled(Strided((4,), (1,)), mask=2, shift=1).offsets().tolist()
    [0, 1, 3, 2]
    """

    inner: Strided
    mask: int
    shift: int

    def swizzle(self, v: Any) -> Any:
        y = v & self.mask
        return v ^ (y >> self.shift if self.shift >= 0 else y << -self.shift)

    def offsets(self) -> np.ndarray:
        return self.swizzle(self.inner.offsets())


class Kind:
    """The answers of one layout to the protocol's questions (see the module); subclasses answer
    for their kind, and this base answers what follows from the others."""

    #: the kind's name: ``"framework"``, ``"cute"``, ``"linear"``, ``"table"``
    name = "layout"

    def __init__(self, layout: Any) -> None:
        self.layout = layout

    @property
    def label(self) -> str:
        return str(self.layout)

    @property
    def domain(self) -> Domain:
        raise NotImplementedError

    @property
    def size(self) -> int:
        return self.domain.size

    @property
    def extent(self) -> int:
        """One past the largest offset (0 for no elements)."""
        offsets = self.offsets()
        return int(offsets.max()) + 1 if offsets.size else 0

    def offsets(self) -> np.ndarray:
        """The offset of every element (int64), in the domain's order."""
        raise NotImplementedError

    @property
    def buffer_size(self) -> int:
        """Elements of the layout's buffer: :attr:`extent`, but a framework layout's whole
        allocation (trailing row padding included)."""
        return self.extent

    @property
    def array_shape(self) -> tuple:
        """The shape of the layout's array over its buffer: ``(buffer_size,)``, but a framework
        layout's physical shape."""
        return (self.buffer_size,)

    def array(self, buffer: np.ndarray) -> np.ndarray:
        """The layout's array over its 1-D ``buffer`` of :attr:`buffer_size` elements."""
        return buffer

    def strided(self) -> Optional[Strided]:
        return None

    def swizzled(self) -> Optional[Swizzled]:
        return None

    def offsets_with(self, ops: Any) -> Any:
        """:meth:`offsets` computed with an array library's arithmetic (``ops``: ``arange``,
        ``reshape`` and the operators of its arrays; :mod:`layouts.arrays.devices`), so on its
        device; None where the kind has no rule but a table. From the strided or swizzled form
        here; a kind with another rule answers for itself.

        >>> import numpy as np
        >>> class NumpyOps:
        ...     arange, reshape = staticmethod(np.arange), staticmethod(np.reshape)
        >>> kind_of(OffsetTable(np.array([0, 2, 1, 3]), "t", shape=(2, 2))).offsets_with(NumpyOps()) is None
        True
        """
        form = self.strided()
        if form is not None:
            return strided_with(ops, form.shape, form.strides, form.base)
        swizzled = self.swizzled()
        if swizzled is not None:
            inner = swizzled.inner
            return swizzled.swizzle(strided_with(ops, inner.shape, inner.strides, inner.base))
        return None

    @property
    def injective(self) -> bool:
        """Whether no two elements share an offset."""
        offsets = self.offsets()
        return np.unique(offsets).size == offsets.size

    @property
    def compact(self) -> bool:
        """Whether the elements fill ``[0, extent)`` exactly (a bijection: nothing left to zero)."""
        return self.size == self.extent and self.injective

    def words(self) -> str:
        """A few lines that say what the layout is."""
        return self.label

    def picture(self, **options: Any) -> Any:
        """The layout's picture (a matplotlib figure), drawn by :mod:`layouts.viz` for its kind."""
        return service("picture")(self, **options)

    def __repr__(self) -> str:
        return f"<{self.name} kind of {self.label}>"


def strided_with(ops: Any, shape: tuple, strides: tuple, base: int = 0) -> Any:
    """``base + sum(c[k] * strides[k])`` for every coordinate ``c`` of the modes, the first mode
    the fastest, flat: :meth:`Strided.offsets` in an array library's arithmetic (``ops``)."""
    total = ops.arange(1) * 0 + base
    for n, step in zip(shape, strides):
        total = ops.reshape(ops.reshape(ops.arange(n) * step, [n, 1]) + ops.reshape(total, [1, -1]), [-1])
    return total


def kind_of(obj: Any) -> Optional[Kind]:
    """The :class:`Kind` of a layout (its class's ``__layouts_kind__``), or None for anything else
    (a spec string is not a layout until it has its sizes)."""
    hook = getattr(type(obj), "__layouts_kind__", None)
    return None if hook is None else hook(obj)


def require_kind(obj: Any, what: str) -> Kind:
    """:func:`kind_of`, or a :class:`LayoutTypeError` naming ``what`` and the kinds accepted."""
    kind = kind_of(obj)
    if kind is None:
        hint = f"; a spec needs its sizes: layouts.Layout({obj!r}, N=..., ...)" if isinstance(obj, str) else ""
        raise LayoutTypeError(f"{what} must be a layout (a layouts.Layout, a layouts.cute layout, a "
                              f"layouts.linear.LinearLayout or an OffsetTable), got {type_name(obj)}{hint}")
    return kind


class OffsetTable:
    """A memory layout given as the offset of each element, for layouts whose offsets no strided
    or swizzled form can say (a general GF(2) map, say); ``shape`` (default 1-D) names its domain.

    >>> t = OffsetTable([3, 1, 2, 0], "reversed pairs")
    >>> t.size(), t.cosize(), str(t)
    (4, 4, 'reversed pairs')
    """

    def __init__(self, offsets: Any, description: str, shape: Optional[tuple] = None) -> None:
        offsets = np.asarray(offsets, dtype=np.int64)
        if offsets.ndim != 1:
            raise LayoutError(f"an offset table is 1-D, got shape {offsets.shape}")
        if offsets.size and offsets.min() < 0:
            raise LayoutError(f"{description} reaches a negative offset")
        shape = (int(offsets.size),) if shape is None else tuple(int(s) for s in shape)
        if math.prod(shape) != offsets.size:
            raise LayoutError(f"shape {shape} has {math.prod(shape)} elements but the table of {description} "
                              f"has {offsets.size}")
        self._offsets = offsets
        self.description = description
        self.shape = shape
        self._offsets.setflags(write=False)

    def __layouts_kind__(self) -> "Kind":
        return _TableKind(self)

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


class _TableKind(Kind):
    name = "table"

    @property
    def domain(self) -> Domain:
        return Domain(tuple(f"m{k}" for k in range(len(self.layout.shape))), self.layout.shape)

    @property
    def extent(self) -> int:
        return self.layout.cosize()

    def offsets(self) -> np.ndarray:
        return self.layout.offsets()
