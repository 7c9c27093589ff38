"""The ``Layout`` value object: where each element of a tensor lives in memory.

A Layout is a spec (``"NHWC"``, ``"NCHW16c"``, ``"NC1HWC0"``...) plus the logical size of
each axis, plus optional row pitch: ``align=`` rounds a dim's stride up to a multiple,
``pitch=`` sets it outright. From these it derives the physical shape, the element stride of
each physical dim, offsets, their inverse, byte strides and a readable formula.

>>> L = Layout("NHWC", N=2, C=16, H=5, W=4)
>>> L.offset(n=1, c=1, h=0, w=1)
337
>>> L.index(337)
Index(n=1, c=1, h=0, w=1)
>>> L.shape, L.strides
((2, 5, 4, 16), {'N': 320, 'H': 64, 'W': 16, 'C': 1})
>>> L.formula()
'n*HWC + h*WC + w*C + c'

Blocks pad their axis with zeros, and say so:

>>> B = Layout("NCHW8c", N=1, C=17, H=5, W=4)
>>> B.shape, B.padded_dims["C"], B.size
((1, 3, 5, 4, 8), 24, 480)
>>> B.index(B.offset(n=0, c=16, h=0, w=0) + 1)
Traceback (most recent call last):
...
layouts.errors.LayoutError: offset 321 of Layout('NCHW8c', N=1, C=17, H=5, W=4) is padding: it would hold c=17, but axis C has size 17 (padded to 24 by block 8c)
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from .._args import MAX_ELEMENTS, MAX_ENUMERATED, check_broadcast, check_size, coordinate, itemsize, shape_tuple
from ..errors import LayoutError, LayoutTypeError, type_name
from .describe import Describe
from .inverse import Inverse
from .naming import canonical_order
from .spec import DEFAULT_ASCEND_BLOCK, Dim, Spec, parse

__all__ = ["Layout", "canonical_order", "MAX_ELEMENTS", "MAX_ENUMERATED", "itemsize", "check_broadcast"]

class Layout(Inverse, Describe):
    """A memory layout of a tensor: spec, logical sizes and optional pitch.

    Parameters
    ----------
    spec : str
        Axes in memory order, outermost first: ``"NCHW"``, ``"NHWC"``, ``"CHWN"``,
        ``"OIHW"``; blocks as ``"NCHW16c"`` / ``"nChw16c"``; Ascend's ``"NC1HWC0"``.
    align : mapping, optional
        ``{dim: k}`` rounds the element stride of physical dim ``dim`` up to a multiple of
        ``k``. EdgeBoard's FPGA rows: ``Layout("NHWC", ..., align={"H": 16})``.
    pitch : mapping, optional
        ``{dim: stride}`` sets the element stride of ``dim`` outright (at least the packed
        stride). An OpenCV Mat row: ``pitch={"H": step // elemSize1}``.
    **dims : int
        The logical size of every axis, by its upper-case letter (``N=2, C=16, ...``), and
        the size of an Ascend block by its name (``C0=16``, the default; ``32`` for 8-bit types).

    Examples
    --------
    >>> row = Layout("NHWC", N=1, H=5, W=4, C=3, align={"H": 16})
    >>> row.strides, row.size
    ({'N': 80, 'H': 16, 'W': 3, 'C': 1}, 80)
    >>> Layout("HWC", H=2, W=3, C=3, pitch={"H": 12}).offset(h=1, w=0, c=2)
    14
    """

    __slots__ = ("_spec", "_dims", "_block_sizes", "_shape", "_strides", "_align", "_pitch", "_hash")

    def __init__(self, spec: str | Spec, *, align: Mapping[str, int] | None = None,
                 pitch: Mapping[str, int] | None = None, **dims: int) -> None:
        self._spec = parse(spec)
        self._dims, params = self._read_dims(dims)
        self._block_sizes = self._resolve_blocks(params)
        self._shape = self._physical_shape()
        self._align = self._read_dim_map(align, "align", minimum=1)
        self._pitch = self._read_dim_map(pitch, "pitch", minimum=1)
        self._strides = self._compute_strides()
        self._hash = None
        reach = max((s * max(n, 1) for s, n in zip(self._strides, self._shape)), default=1)
        if self.size > MAX_ELEMENTS or reach > MAX_ELEMENTS:
            raise LayoutError(f"{self!r} needs {max(self.size, reach)} elements, more than int64 offsets can address")

    # ------------------------------------------------------------------ construction
    def _read_dims(self, given: Mapping[str, int]) -> tuple[dict[str, int], dict[str, int]]:
        axes = self._spec.axes
        params_wanted = {d.block for d in self._spec.dims if isinstance(d.block, str)}
        dims: dict[str, int] = {}
        params: dict[str, int] = {}
        unknown = []
        for key, value in given.items():
            if key in params_wanted:
                params[key] = check_size(key, value, "block size")
                if params[key] == 0:
                    raise LayoutError(f"block size {key} must be >= 1, got 0")
            elif len(key) == 1 and key.isupper() and key in axes:
                dims[key] = check_size(key, value, "size of axis")
            else:
                unknown.append(key)
        if unknown:
            raise LayoutError(
                f"layout {self._spec.text!r} has no axis {', '.join(unknown)}; "
                f"expected sizes for exactly {', '.join(axes)}"
                + (f" (and optionally {', '.join(sorted(params_wanted))})" if params_wanted else "")
            )
        missing = [a for a in axes if a not in dims]
        if missing:
            raise LayoutError(
                f"layout {self._spec.text!r} needs the size of axis {', '.join(missing)}; "
                f"give every axis as a keyword: {', '.join(f'{a}=...' for a in axes)}"
            )
        return {a: dims[a] for a in axes}, params

    def _resolve_blocks(self, params: Mapping[str, int]) -> tuple[int, ...]:
        sizes = []
        for d in self._spec.dims:
            if d.block is None:
                sizes.append(1)
            elif isinstance(d.block, int):
                sizes.append(d.block)
            else:
                sizes.append(params.get(d.block, DEFAULT_ASCEND_BLOCK))
        return tuple(sizes)

    def _physical_shape(self) -> tuple[int, ...]:
        shape = []
        for d, b in zip(self._spec.dims, self._block_sizes):
            shape.append(b if d.is_block else -(-self._dims[d.axis] // self._block_product(d.axis)))
        return tuple(shape)

    def _block_product(self, axis: str) -> int:
        return math.prod(b for d, b in zip(self._spec.dims, self._block_sizes) if d.is_block and d.axis == axis)

    def _read_dim_map(self, mapping: Mapping[str, int] | None, what: str, minimum: int) -> dict[str, int]:
        if mapping is None:
            return {}
        if not isinstance(mapping, Mapping):
            raise LayoutTypeError(f"{what} must be a mapping {{dim: elements}} such as {{'H': 16}}, got {type_name(mapping)}")
        names = self._spec.names
        out = {}
        for key, value in mapping.items():
            if not isinstance(key, str):
                raise LayoutTypeError(f"{what}: dim names are strings such as 'H', got {type_name(key)}")
            if key not in names:
                raise LayoutError(f"{what}={{{key!r}: ...}}: layout {self._spec.text!r} has no dim {key!r}; its dims are {', '.join(names)}")
            value = check_size(f"{key}", value, f"{what} of dim")
            if value < minimum:
                raise LayoutError(f"{what} of dim {key} must be >= {minimum}, got {value}")
            out[key] = value
        return out

    def _compute_strides(self) -> tuple[int, ...]:
        strides = [0] * len(self._shape)
        packed = 1  # the stride that would pack this dim right after the inner ones
        for i in reversed(range(len(self._shape))):
            name = self._spec.dims[i].name
            stride = packed
            if name in self._align:
                stride = -(-stride // self._align[name]) * self._align[name]
            if name in self._pitch:
                if self._pitch[name] < stride:
                    raise LayoutError(
                        f"pitch of dim {name} is {self._pitch[name]} elements, but the dims inside it need "
                        f"{stride}; expected a pitch >= {stride}"
                    )
                stride = self._pitch[name]
            strides[i] = stride
            packed = stride * self._shape[i]
        return tuple(strides)

    @classmethod
    def from_shape(cls, spec: str | Spec, shape: tuple[int, ...], *, align: Mapping[str, int] | None = None,
                   pitch: Mapping[str, int] | None = None, **dims: int) -> "Layout":
        """The layout of an array whose physical shape is ``shape``.

        Sizes come from the shape; a blocked axis is ``outer * block`` unless its true size is
        given (``C=20`` for a ``(N, 2, H, W, 16)`` array). Given sizes must agree with the shape.

        >>> Layout.from_shape("NCHW16c", (1, 2, 3, 3, 16), C=20).padded_dims["C"]
        32
        >>> Layout.from_shape("NHWC", (1, 4, 4, 3), C=4)
        Traceback (most recent call last):
        ...
        layouts.errors.LayoutError: C=4 was given, but the array's C dim (position 3 of shape (1, 4, 4, 3)) has 3 for layout 'NHWC'
        """
        sp = parse(spec)
        shape = shape_tuple(shape)
        for key in list(dims):
            dims[key] = check_size(key, dims[key], "size of axis" if len(key) == 1 else "block size")
        if len(shape) != len(sp.dims):
            raise LayoutError(
                f"layout {sp.text!r} has {len(sp.dims)} dims ({', '.join(sp.names)}), "
                f"but the array has {len(shape)}: shape {shape}"
            )
        sizes: dict[str, int] = {}
        for pos, (d, extent) in enumerate(zip(sp.dims, shape)):
            if isinstance(d.block, str):
                if d.block in dims and dims[d.block] != extent:
                    raise LayoutError(f"{d.block}={dims[d.block]} was given, but the array's {d.name} dim (position {pos} of shape {shape}) has {extent}")
                sizes[d.block] = extent
            elif isinstance(d.block, int) and extent != d.block:
                raise LayoutError(f"dim {d.name} of layout {sp.text!r} holds {d.block} elements, but position {pos} of shape {shape} has {extent}")
        for pos, (d, extent) in enumerate(zip(sp.dims, shape)):
            if d.is_block:
                continue
            block = math.prod(b.block if isinstance(b.block, int) else sizes[b.block] for b in sp.blocks_of(d.axis))
            if d.axis in dims:
                size = check_size(d.axis, dims[d.axis], "size of axis")
                if -(-size // block) != extent:
                    detail = f" (padded to blocks of {block}, {d.axis}={size} needs {-(-size // block)})" if block > 1 else ""
                    raise LayoutError(
                        f"{d.axis}={size} was given, but the array's {d.name} dim (position {pos} of shape {shape}) "
                        f"has {extent} for layout {sp.text!r}{detail}"
                    )
                sizes[d.axis] = size
            else:
                sizes[d.axis] = extent * block
        extra = set(dims) - set(sizes)
        if extra:
            raise LayoutError(f"layout {sp.text!r} has no axis {', '.join(sorted(extra))}; its axes are {', '.join(sp.axes)}")
        return cls(sp, align=align, pitch=pitch, **sizes)

    # ------------------------------------------------------------------ description
    @property
    def spec(self) -> str:
        """The canonical spec string (upper-case axes, blocks as ``16c``)."""
        return self._spec.canonical

    @property
    def parsed(self) -> Spec:
        """The parsed spec (its physical :class:`~layouts.named.spec.Dim` objects)."""
        return self._spec

    @property
    def axes(self) -> tuple[str, ...]:
        """Logical axes in the order their outer parts are stored: ``('N', 'H', 'W', 'C')``."""
        return self._spec.axes

    @property
    def dims(self) -> dict[str, int]:
        """Logical size of each axis (without padding)."""
        return dict(self._dims)

    @property
    def padded_dims(self) -> dict[str, int]:
        """Size of each axis once its blocks are padded: ``C=17`` in ``NCHW8c`` is 24."""
        return {a: -(-n // self._block_product(a)) * self._block_product(a) for a, n in self._dims.items()}

    @property
    def dim_names(self) -> tuple[str, ...]:
        """Names of the physical dims, outermost first: ``('N', 'C', 'H', 'W', '16c')``."""
        return self._spec.names

    @property
    def shape(self) -> tuple[int, ...]:
        """Physical shape, outermost first: the shape of the array that holds this layout."""
        return self._shape

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def strides(self) -> dict[str, int]:
        """Element stride of each physical dim, in spec order."""
        return dict(zip(self._spec.names, self._strides))

    @property
    def stride_tuple(self) -> tuple[int, ...]:
        """Element strides in the order of :attr:`shape`."""
        return self._strides

    def byte_strides(self, dtype: Any) -> dict[str, int]:
        """Stride of each physical dim in bytes for ``dtype`` (Python ints, exact).

        >>> Layout("NCHW", N=1, C=3, H=2, W=2).byte_strides("float32")
        {'N': 48, 'C': 16, 'H': 8, 'W': 4}
        """
        size = itemsize(dtype)
        return {k: v * size for k, v in self.strides.items()}

    @property
    def size(self) -> int:
        """Elements the layout occupies, padding included (what to allocate)."""
        return self._shape[0] * self._strides[0]

    @property
    def count(self) -> int:
        """Number of real (non-padding) elements: the product of the logical sizes."""
        return math.prod(self._dims.values())

    @property
    def span(self) -> int:
        """One past the largest offset of a real element (``size`` minus trailing row padding)."""
        if self.count == 0:
            return 0
        last = {a.lower(): n - 1 for a, n in self._dims.items()}
        return self.offset(**last) + 1

    def byte_offset(self, dtype: Any, **coords: Any) -> Any:
        """:meth:`offset` in bytes for elements of ``dtype``.

        Scalars give an exact Python int; arrays give int64, and a byte offset int64 cannot
        hold is refused (never wrapped).

        >>> Layout("NHWC", N=2, C=16, H=5, W=4).byte_offset("float32", n=1, c=1, h=0, w=1)
        1348
        >>> Layout("NC", N=2**62, C=1).byte_offset("float64", n=[2**62 - 1], c=0)
        Traceback (most recent call last):
        ...
        layouts.errors.LayoutError: byte offset 36893488147419103224 of element n=4611686018427387903, c=0 (offset 4611686018427387903 x 8 bytes) does not fit int64; ask for it as a Python int (scalar coordinates)
        """
        size = itemsize(dtype)
        off = self.offset(**coords)
        if isinstance(off, np.ndarray):
            limit = MAX_ELEMENTS // size
            if off.size and int(off.max()) > limit:
                at = np.unravel_index(int(np.argmax(off)), off.shape)
                where = ", ".join(f"{k}={int(np.broadcast_to(np.asarray(v), off.shape)[at])}" for k, v in coords.items())
                raise LayoutError(
                    f"byte offset {int(off[at]) * size} of element {where} (offset {int(off[at])} x {size} bytes) "
                    f"does not fit int64; ask for it as a Python int (scalar coordinates)"
                )
            return off * size
        return off * size

    def nbytes(self, dtype: Any) -> int:
        """Bytes the layout occupies for ``dtype``, padding included (a Python int, exact)."""
        return self.size * itemsize(dtype)

    @property
    def has_padding(self) -> bool:
        """Whether some slots hold no element (block padding or row pitch)."""
        return self.size != self.count

    @property
    def align(self) -> dict[str, int]:
        return dict(self._align)

    @property
    def pitch(self) -> dict[str, int]:
        return dict(self._pitch)

    def _key(self) -> tuple:
        return (self._spec.canonical, tuple(self._dims.items()), self._shape, self._strides)

    def __layouts_kind__(self) -> Any:
        """The answers of this layout to the protocol of :mod:`layouts.kinds`."""
        from .kind import FrameworkKind
        return FrameworkKind(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Layout):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self._key())
        return self._hash

    def __repr__(self) -> str:
        parts = [repr(self._spec.text)] + [f"{a}={self._dims[a]}" for a in canonical_order(self.axes)]
        for d, b in zip(self._spec.dims, self._block_sizes):
            if isinstance(d.block, str):
                parts.append(f"{d.block}={b}")
        if self._align:
            parts.append(f"align={self._align!r}")
        if self._pitch:
            parts.append(f"pitch={self._pitch!r}")
        return f"Layout({', '.join(parts)})"

    # ------------------------------------------------------------------ offsets
    def offset(self, *coords: Any, **named: Any) -> Any:
        """Element offset of logical coordinates given by lower-case axis letters, or by position
        in the logical order (:func:`canonical_order`: ``n, c, h, w`` for images).

        Scalars give a Python int; numpy arrays broadcast and give an int64 array. Every
        coordinate is bounds-checked against its axis's logical size.

        >>> L = Layout("NCHW", N=2, C=16, H=5, W=4)
        >>> L.offset(n=1, c=1, h=0, w=1)
        341
        >>> Layout("NHWC", N=2, C=16, H=5, W=4).offset(1, 11, 2, 1)    # n, c, h, w
        475
        >>> L.offset(n=0, c=[0, 1, 2], h=0, w=0).tolist()
        [0, 20, 40]
        >>> L.offset(n=2, c=0, h=0, w=0)
        Traceback (most recent call last):
        ...
        layouts.errors.LayoutError: coordinate n=2 is out of range for axis N of size 2 (expected 0 <= n < 2)
        """
        values = self._read_coords(self._named(coords, named))
        check_broadcast({k.lower(): v for k, v in values.items()})
        total: Any = 0
        for d, block, stride in zip(self._spec.dims, self._block_sizes, self._strides):
            total = total + self._dim_index(d, block, values[d.axis]) * stride
        if isinstance(total, np.ndarray):
            return total.astype(np.int64, copy=False)
        return int(total)

    def _dim_index(self, d: Dim, block: int, value: Any) -> Any:
        """Index along physical dim ``d`` of the logical coordinate ``value`` of its axis."""
        inner = 1  # product of the blocks of this axis stored after d
        seen = False
        for other, b in zip(self._spec.dims, self._block_sizes):
            if other is d:
                seen = True
                continue
            if seen and other.is_block and other.axis == d.axis:
                inner *= b
        if not d.is_block:
            return value // self._block_product(d.axis)
        return (value // inner) % block

    def _named(self, coords: tuple, named: dict[str, Any]) -> dict[str, Any]:
        """Positional coordinates (in the logical order) as named ones; both at once is an error."""
        if not coords:
            return named
        order = canonical_order(self.axes).lower()
        if named:
            raise LayoutTypeError(f"offset takes coordinates by position ({', '.join(order)}) or by name "
                                  f"({'=, '.join(order)}=), not both; got {len(coords)} positional and "
                                  f"{', '.join(f'{k}=' for k in named)}")
        if len(coords) != len(order):
            raise LayoutError(f"layout {self.spec!r} takes {len(order)} coordinates ({', '.join(order)}), "
                              f"got {len(coords)}")
        return dict(zip(order, coords))

    def _read_coords(self, coords: Mapping[str, Any]) -> dict[str, Any]:
        want = {a.lower(): a for a in self.axes}
        extra = [k for k in coords if k not in want]
        missing = [k for k in want if k not in coords]
        if extra or missing:
            msg = []
            if missing:
                msg.append(f"missing coordinate {', '.join(missing)}")
            if extra:
                msg.append(f"unknown coordinate {', '.join(extra)}")
            raise LayoutError(f"{'; '.join(msg)}: layout {self.spec!r} takes exactly {', '.join(f'{k}=' for k in want)}")
        values = {}
        for key, axis in want.items():
            values[axis] = coordinate(coords[key], key, axis, self._dims[axis])
        return values

    # ------------------------------------------------------------------ whole-layout views
    def view(self, buffer: np.ndarray) -> np.ndarray:
        """A strided view of shape :attr:`shape` onto a flat buffer holding this layout.

        >>> L = Layout("HWC", H=2, W=2, C=3, pitch={"H": 8})
        >>> L.view(np.arange(16)).tolist()
        [[[0, 1, 2], [3, 4, 5]], [[8, 9, 10], [11, 12, 13]]]
        """
        if not isinstance(buffer, np.ndarray):
            raise LayoutTypeError(f"buffer must be a numpy array, got {type_name(buffer)}")
        if buffer.ndim != 1 or (buffer.size > 1 and buffer.strides[0] != buffer.itemsize):
            raise LayoutError(f"a layout views a flat contiguous buffer; got an array of shape {buffer.shape} and strides {buffer.strides}")
        if buffer.size < self.span:
            raise LayoutError(f"buffer holds {buffer.size} elements, but {self!r} needs at least {self.span} (size {self.size})")
        item = buffer.itemsize
        self.check_numpy(buffer.dtype)
        return np.lib.stride_tricks.as_strided(buffer, shape=self._shape, strides=tuple(s * item for s in self._strides),
                                               writeable=buffer.flags.writeable)

    def check_numpy(self, dtype: Any) -> None:
        """Refuse (LayoutError) a layout numpy cannot hold for ``dtype``: more than 2**63 - 1 bytes
        spanned, or extents whose product (zeros aside) times the item size overflows."""
        item = itemsize(dtype)
        nonzero = math.prod(max(n, 1) for n in self._shape)
        if self.size * item > MAX_ELEMENTS or max(self._strides, default=0) * item > MAX_ELEMENTS or nonzero * item > MAX_ELEMENTS:
            raise LayoutError(f"{self!r} is more than numpy can hold as {np.dtype(dtype)} ({item}-byte items: over "
                              f"2**63 - 1 bytes spanned or in its extents)")

    def zeros(self, dtype: Any = np.float32) -> np.ndarray:
        """A zero-filled flat buffer of :attr:`size` elements, viewed with :meth:`view`."""
        self.check_numpy(dtype)
        return self.view(np.zeros(self.size, dtype=dtype))
