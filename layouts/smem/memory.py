"""A shared-memory tile as the bank model reads it: the tile's shape and each element's offset.

Any layout kind goes in (through the protocol of :mod:`layouts.kinds`): a CuTe layout with or
without a ``Swizzle``, a linear layout with an ``offset`` in-dim (Triton's orientation) or out-dim
(CuTe's), a framework :class:`layouts.Layout` (pitch and padding included), a Triton shared
encoding given as ``(encoding, shape)``. Out comes one :class:`SharedMemory`: ``shape`` (the
tile's modes) and ``offsets[i]``, the offset in elements of the tile's element ``i``, ``i`` the
colexicographic index over ``shape`` (CuTe's ``idx2crd``: ``row + rows * col`` for a 2-D tile).

>>> from layouts import cute
>>> mem = memory_of(cute.composition(cute.Swizzle(3, 3, 3), cute.Layout((8, 64), (64, 1))))
>>> mem.shape, mem.describe(), mem.offsets[:3].tolist()
((8, 64), 'Sw<3,3,3> o 0 o (8,64):(64,1)', [0, 72, 144])
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from ..cute.int_tuple import is_int
from ..errors import LayoutError, LayoutTypeError, type_name
from ..kinds import kind_of
from ..linear.kind import tile_dims

__all__ = ["SharedMemory", "memory_of", "tile_dims"]


class SharedMemory:
    """A tile in shared memory: ``shape`` (tuple of ints) and ``offsets`` (read-only int64, the
    offset in elements of each element, colexicographic index over ``shape``); ``element_bytes``
    is the element's width where the layout states one (Triton's ``NVMMASharedLayout``), else None.

    >>> mem = SharedMemory((2, 2), [0, 1, 2, 3], "a 2x2 column-major tile")
    >>> mem.size, mem.cosize, mem.coordinate(3), mem.describe()
    (4, 4, (1, 1), 'a 2x2 column-major tile')
    """

    __slots__ = ("shape", "offsets", "_description", "source", "element_bytes")

    def __init__(self, shape: Any, offsets: Any, description: Any, source: Any = None,
                 element_bytes: Optional[int] = None) -> None:
        shape = _shape_arg("shape", shape)
        offsets = np.array(offsets, dtype=np.int64).reshape(-1)
        if offsets.size != _product(shape):
            raise LayoutError(f"shape {shape} has {_product(shape)} elements but {offsets.size} offsets were given")
        if offsets.size and offsets.min() < 0:
            description = description() if callable(description) else description
            where = int(np.argmin(offsets))
            raise LayoutError(f"shared_layout {description} puts element {_coord_text(shape, where)} at the "
                              f"negative offset {int(offsets[where])}; shared memory starts at offset 0")
        order = np.argsort(offsets, kind="stable")
        same = np.flatnonzero(offsets[order[1:]] == offsets[order[:-1]])
        if same.size:
            description = description() if callable(description) else description
            a, b = int(order[same[0]]), int(order[same[0] + 1])
            raise LayoutError(f"shared_layout {description} puts two elements at one address: "
                              f"{_coord_text(shape, a)} and {_coord_text(shape, b)} both at offset {int(offsets[a])}")
        offsets.setflags(write=False)
        self.shape: Tuple[int, ...] = shape
        self.offsets: np.ndarray = offsets
        self._description = description
        self.source = source
        self.element_bytes = element_bytes

    @property
    def size(self) -> int:
        """The number of elements of the tile."""
        return int(self.offsets.size)

    @property
    def cosize(self) -> int:
        """One past the largest offset (elements of shared memory the tile spans)."""
        return int(self.offsets.max()) + 1 if self.offsets.size else 0

    def coordinate(self, index: int) -> Tuple[int, ...]:
        """The coordinate of flat element ``index`` (colexicographic: the first mode fastest)."""
        return _coordinate(self.shape, int(index))

    def describe(self) -> str:
        """The layout in words, as CuTe or the layout's own kind writes it."""
        if callable(self._description):          # worked out when first asked for (a linear layout's CuTe form)
            self._description = self._description()
        return self._description

    def __repr__(self) -> str:
        return f"SharedMemory(shape={self.shape}, {self._description})"

    __str__ = describe


def _product(shape: Tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _coordinate(shape: Tuple[int, ...], index: int) -> Tuple[int, ...]:
    out = []
    for s in shape:
        out.append(index % s)
        index //= s
    return tuple(out)


def _coord_text(shape: Tuple[int, ...], index: int) -> str:
    c = _coordinate(shape, index)
    return f"element {index} {c}" if len(c) > 1 else f"element {index}"


def _shape_arg(name: str, shape: Any) -> Tuple[int, ...]:

    if is_int(shape):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or not shape or not all(is_int(s) for s in shape):
        raise LayoutTypeError(f"{name} must be a tuple of ints (the tile's modes), got {type_name(shape)}")
    if any(int(s) < 1 for s in shape):
        raise LayoutError(f"{name} must have modes of size >= 1, got {tuple(shape)}")
    return tuple(int(s) for s in shape)


def _is_triton_encoding(obj: Any) -> bool:
    """A Triton encoding of :mod:`layouts.linear.triton` (an explicit input here: an encoding is a
    layout only with its tensor shape)."""
    from ..linear.triton import Encoding
    return isinstance(obj, Encoding)


def memory_of(shared_layout: Any, shape: Optional[Tuple[int, ...]] = None) -> SharedMemory:
    """The normalised shared layout: ``shape`` and the offset of each element.

    Parameters
    ----------
    shared_layout
        A CuTe layout (``layouts.cute.Layout`` or ``Swizzle o Layout``), a
        :class:`layouts.linear.LinearLayout` with an ``offset`` in-dim or out-dim, a framework
        :class:`layouts.Layout` (``ly.Layout("HW", H=32, W=32, pitch={"H": 33})``), a Triton
        shared encoding of :mod:`layouts.linear.triton` as ``(encoding, shape)``, an offset table
        (:class:`layouts.kinds.OffsetTable`), or a :class:`SharedMemory` (returned as is).
    shape : tuple of ints, optional
        The tile's modes, when the layout does not say them or should be read another way
        (the same number of elements); required for an offset table of a 2-D tile.

    Raises
    ------
    LayoutError
        When two elements share an address, an offset is negative, or ``shape`` does not fit.

    Examples
    --------
    >>> import layouts as ly
    >>> padded = memory_of(ly.Layout("HW", H=32, W=32, pitch={"H": 33}))
    >>> padded.shape, padded.offsets[:3].tolist(), padded.describe()
    ((32, 32), [0, 33, 66], "Layout('HW', H=32, W=32, pitch={'H': 33})")
    >>> from layouts import cute
    >>> memory_of(cute.Layout((4, 4), (0, 1)))
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: shared_layout (4,4):(0,1) puts two elements at one address: element 0 (0, 0) and element 1 (1, 0) both at offset 0
    """
    mem = _memory(shared_layout, shape)
    if shape is not None:
        wanted = _shape_arg("shape", shape)
        if wanted != mem.shape:
            if _product(wanted) != mem.size:
                raise LayoutError(f"shape {wanted} has {_product(wanted)} elements but the shared layout "
                                  f"{mem.describe()} has {mem.size}")
            mem = SharedMemory(wanted, mem.offsets, mem.describe(), mem.source, mem.element_bytes)
    return mem


def _memory(obj: Any, shape: Optional[Tuple[int, ...]]) -> SharedMemory:
    if isinstance(obj, SharedMemory):
        return obj
    if isinstance(obj, tuple) and len(obj) == 2 and _is_triton_encoding(obj[0]):
        return _triton_memory(obj[0], obj[1])
    if _is_triton_encoding(obj):
        if shape is None:
            raise LayoutError(f"shared_layout {type_name(obj)} is a Triton encoding: give it with its tensor "
                              f"shape, as (encoding, shape) or memory_of(encoding, shape=...)")
        return _triton_memory(obj, shape)
    kind = kind_of(obj)
    if kind is None:
        raise LayoutTypeError(f"shared_layout must be a layout (CuTe, linear, framework, a Triton shared encoding "
                              f"with its shape), got {type_name(obj)}")
    try:
        sizes, offsets = kind.domain.sizes, kind.offsets()
    except LayoutError as e:
        raise LayoutError(f"shared_layout {_label(kind)}: {e}") from None
    return SharedMemory(sizes or (1,), offsets, lambda: kind.label, obj)


def _label(kind: Any) -> str:
    try:
        return kind.label
    except LayoutError:
        return f"({kind.name} layout)"


def _triton_linear(encoding: Any, shape: Any, *, kind: str, lacks: str, wrong_kind: str, where: str):
    """``(linear layout, shape)`` of a Triton ``encoding`` over ``shape``, which must be an
    instance of ``layouts.linear.triton``'s class ``kind``: the Access's thread maps and the
    shared layouts convert alike, each with its own messages (``wrong_kind`` formats the encoding;
    ``where`` leads a failed conversion's)."""
    try:
        from ..linear import triton as tt
    except ImportError:
        raise LayoutError(lacks) from None
    shape = _shape_arg("shape", shape)
    if not isinstance(encoding, getattr(tt, kind)):
        raise LayoutTypeError(wrong_kind.format(encoding))
    try:
        linear = tt.to_linear_layout(encoding, list(shape))
    except LayoutError as e:
        raise LayoutError(f"{where} {encoding!r} over shape {shape}: {e}") from None
    return linear, shape


def _triton_memory(encoding: Any, shape: Any) -> SharedMemory:
    linear, shape = _triton_linear(
        encoding, shape, kind="SharedEncoding",
        lacks="a Triton shared encoding needs layouts.linear.triton, which this installation lacks",
        wrong_kind="shared_layout {!r} is a distributed (register) encoding; a shared layout is a "
                   "SwizzledSharedLayout or NVMMASharedLayout (a distributed one goes in an Access)",
        where="shared_layout")
    mem = _memory(linear, None)
    bits = getattr(encoding, "element_bitwidth", None)        # NVMMASharedLayout states its elements' width
    return SharedMemory(shape, mem.offsets, f"{encoding!r} over {shape}", (encoding, shape),
                        None if bits is None else bits // 8)
