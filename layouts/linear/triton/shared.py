"""Shared-memory encodings, with Gluon's names: ``SwizzledSharedLayout`` (vec / per_phase /
max_phase XOR swizzle), ``NVMMASharedLayout`` (the 32/64/128-byte swizzles TMA and wgmma read)
and ``SharedLinearLayout`` (given by its bases). In-dims ``offset, block`` -> ``dim0, dim1,
...``: the element stored at each offset. Each layout is derived from the swizzle's definition
and judged against the Triton 3.9.0 wheel by the oracle tests.

>>> from layouts.linear.triton import SwizzledSharedLayout, NVMMASharedLayout, to_linear_layout
>>> to_linear_layout(SwizzledSharedLayout(2, 1, 4, [1, 0]), [4, 8]).bases["offset"]
((0, 1), (0, 2), (0, 4), (1, 2), (2, 4))
>>> to_linear_layout(NVMMASharedLayout(128, 16), [8, 64]).bases["offset"]
((0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (0, 32), (1, 8), (2, 16), (4, 32))
"""

from typing import Any, Dict, List, Sequence, Tuple

from ...errors import LayoutError, LayoutTypeError, show
from ..layout import LinearLayout
from ..._args import is_pow2, log2
from ._base import Encoding, _cga, _int, _order, _pow2_list, _unit, combine_cta_cga, dim_names, shape_per_cta

TMA_BOX_MAX = 256           # a TMA box has at most 256 elements per dim (CUDA's cuTensorMapEncodeTiled boxDim)
CHUNK_BYTES = 16            # the unit a swizzle permutes: 16 bytes (PTX ISA, shared memory swizzling modes)
ATOM_ROWS = 8               # a swizzle's pattern repeats every 8 rows of swizzle_byte_width bytes


class SharedEncoding(Encoding):
    """A shared-memory layout: in-dims ``offset, block`` -> ``dim0, dim1, ...``."""

    __slots__ = ()
    kind = "shared"


def _pow2_arg(name: str, value: Any) -> int:
    value = _int(name, value)
    if not (is_pow2(value) and value <= 1 << 30):
        raise LayoutError(f"{name} must be a power of two, got {show(value)}")
    return value


def _bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise LayoutTypeError(f"{name} must be True or False, got {show(value)}")
    return value


class SwizzledSharedLayout(SharedEncoding):
    """Rows of the two most minor dims (``order[0]`` the columns, ``order[1]`` the rows) stored with
    their ``vec``-element groups XOR-swizzled by the row's phase ``(row // per_phase) % max_phase``.

    >>> SwizzledSharedLayout(1, 1, 8, [1, 0])
    SwizzledSharedLayout(vec=1, per_phase=1, max_phase=8, order=[1, 0], cga_layout=[])
    >>> SwizzledSharedLayout(3, 1, 8, [1, 0])
    Traceback (most recent call last):
    layouts.errors.LayoutError: vec must be a power of two, got 3
    """

    __slots__ = ("vec", "per_phase", "max_phase", "order", "cga_layout")
    _fields = __slots__

    def __init__(self, vec: Any, per_phase: Any, max_phase: Any, order: Any, cga_layout: Any = None):
        vec, per_phase, max_phase = (_pow2_arg(n, v) for n, v in
                                     (("vec", vec), ("per_phase", per_phase), ("max_phase", max_phase)))
        if isinstance(order, (list, tuple)) and len(order) == 0:
            raise LayoutError("order must have at least one entry (the rank)")
        rank = len(order) if isinstance(order, (list, tuple)) else 0
        order = _order("order", order, rank)
        self._init(vec=vec, per_phase=per_phase, max_phase=max_phase, order=order,
                   cga_layout=_cga(cga_layout, rank))

    @property
    def rank(self) -> int:
        return len(self.order)

    def _phase(self, row: int) -> int:
        """The swizzle phase of ``row``: rows come in groups of ``per_phase``, and the groups
        cycle through ``max_phase`` phases."""
        return (row // self.per_phase) % self.max_phase

    def _offsets(self, tile: Sequence[int]) -> List[List[int]]:
        """The element at each power-of-two offset of one CTA's ``tile``: offsets fill a row of
        ``tile[order[0]]`` columns, then the rows (``order[1]``), then the other dims in
        ``order``. Row ``r`` stores column ``c`` at position ``c XOR (vec * phase(r))`` (the
        column's ``vec``-element group swapped by the phase), so the offset of row ``r``,
        column 0 holds column ``vec * phase(r)``, cut to the row's width.
        """
        rank = len(tile)
        offsets = [_unit(rank, self.order[0], 1 << bit) for bit in range(log2(tile[self.order[0]]))]
        if rank == 1:
            return offsets
        col, row, width = self.order[0], self.order[1], tile[self.order[0]]
        for bit in range(log2(tile[row])):
            element = _unit(rank, row, 1 << bit)
            element[col] = (self.vec * self._phase(1 << bit)) % width
            offsets.append(element)
        for d in self.order[2:]:
            offsets += [_unit(rank, d, 1 << bit) for bit in range(log2(tile[d]))]
        return offsets

    def _linear(self, shape: Tuple[int, ...]) -> LinearLayout:
        """Each CTA stores its tile of ``shape`` as :meth:`_offsets` gives; the CGA's blocks hold
        the tiles (:func:`combine_cta_cga`).

        >>> SwizzledSharedLayout(1, 2, 4, [1, 0])._linear((8, 4)).bases["offset"]
        ((0, 1), (0, 2), (1, 0), (2, 1), (4, 2))
        """
        tile = shape_per_cta(shape, self.cga_layout)
        names = dim_names(len(shape))
        cta = LinearLayout.from_bases({"offset": self._offsets(tile)}, dict(zip(names, tile)))
        return combine_cta_cga(cta, self.cga_layout, shape)


class NVMMASharedLayout(SharedEncoding):
    """NVIDIA's MMA/TMA shared layout: 8-row core matrices of ``swizzle_byte_width`` bytes (0: no
    swizzle; 32, 64 or 128) of ``element_bitwidth``-bit elements (8, 16, 32 or 64), the contiguous
    dim the last one (the first when ``transposed``); ``fp4_padded`` (128-byte swizzle, 8-bit)
    stores packed fp4 with padding. Gluon's argument order: ``rank`` comes third. The layout is
    Triton 3.9.0's even where it is odd: transposed without a swizzle at rank 3 it has more
    offsets than elements (zero bases), as the wheel gives it.

    >>> NVMMASharedLayout(128, 16)     # doctest: +NORMALIZE_WHITESPACE
    NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2, transposed=False,
                      fp4_padded=False, cga_layout=[])
    >>> NVMMASharedLayout(96, 16)
    Traceback (most recent call last):
    layouts.errors.LayoutError: swizzle_byte_width must be 0, 32, 64 or 128, got 96
    """

    __slots__ = ("swizzle_byte_width", "element_bitwidth", "rank", "transposed", "fp4_padded", "cga_layout")
    _fields = __slots__

    def __init__(self, swizzle_byte_width: Any, element_bitwidth: Any, rank: Any = 2, transposed: Any = False,
                 fp4_padded: Any = False, cga_layout: Any = None):
        swizzle = _int("swizzle_byte_width", swizzle_byte_width)
        if swizzle not in (0, 32, 64, 128):
            raise LayoutError(f"swizzle_byte_width must be 0, 32, 64 or 128, got {show(swizzle)}")
        bits = _int("element_bitwidth", element_bitwidth)
        if bits not in (8, 16, 32, 64):
            raise LayoutError(f"element_bitwidth must be 8, 16, 32 or 64, got {show(bits)}")
        rank = _int("rank", rank)
        if not 1 <= rank <= 8:
            raise LayoutError(f"rank must be 1..8, got {show(rank)}")
        if swizzle and rank < 2:
            raise LayoutError(f"rank must be >= 2 for a swizzled layout (swizzle_byte_width={swizzle}), got {rank}")
        transposed, fp4_padded = _bool("transposed", transposed), _bool("fp4_padded", fp4_padded)
        if fp4_padded and (swizzle, bits) != (128, 8):
            raise LayoutError(f"fp4_padded needs swizzle_byte_width=128 and element_bitwidth=8, got "
                              f"{swizzle} and {bits}")
        self._init(swizzle_byte_width=swizzle, element_bitwidth=bits, rank=rank, transposed=transposed,
                   fp4_padded=fp4_padded, cga_layout=_cga(cga_layout, rank))

    @staticmethod
    def get_default_for(block_shape: Any, element_bitwidth: Any, transposed: Any = False,
                        fp4_padded: Any = False) -> "NVMMASharedLayout":
        """The layout Gluon's ``NVMMASharedLayout.get_default_for`` picks for a block: the widest
        swizzle (128, 64 or 32 bytes) that a whole number of times fills one row of the
        contiguous dim (the last dim; the first when ``transposed``; packed fp4 counts each byte
        twice when ``fp4_padded``), and no swizzle for a block of rank 1 or with fewer than 8
        rows, which a swizzle atom of 8 rows cannot tile (Gluon's documentation: "the largest
        swizzle pattern compatible with the shape"; checked against the wheel's function).

        >>> NVMMASharedLayout.get_default_for([64, 64], 16).swizzle_byte_width
        128
        >>> NVMMASharedLayout.get_default_for([4, 64], 16).swizzle_byte_width
        0
        >>> NVMMASharedLayout.get_default_for([64, 48], 8, transposed=True).swizzle_byte_width
        64
        """
        dims = [_int("block_shape", d) for d in _sequence("block_shape", block_shape)]
        bits = _int("element_bitwidth", element_bitwidth)
        flipped = _bool("transposed", transposed)
        padded = _bool("fp4_padded", fp4_padded)
        ordered = dims[1:] + dims[:1] if flipped else dims
        rows = 1
        for d in ordered[:-1]:
            rows *= d
        row_bytes = ordered[-1] * (2 if padded else 1) * bits // 8 if ordered else 0
        fits = [w for w in (128, 64, 32) if row_bytes and row_bytes % w == 0]
        swizzle = fits[0] if fits and len(dims) >= 2 and rows >= 8 else 0
        return NVMMASharedLayout(swizzle, bits, len(dims), flipped, padded)

    # the swizzle in SwizzledSharedLayout's terms: vec-element groups, per_phase rows a phase
    @property
    def vec(self) -> int:
        """Elements in one 16-byte chunk, the unit the swizzle moves (1 without a swizzle)."""
        return CHUNK_BYTES * 8 // self.element_bitwidth if self.swizzle_byte_width else 1

    @property
    def per_phase(self) -> int:
        """Rows of ``swizzle_byte_width`` bytes in one 128-byte phase (1 without a swizzle)."""
        return 128 // self.swizzle_byte_width if self.swizzle_byte_width else 1

    @property
    def max_phase(self) -> int:
        """Phases before the pattern repeats: chunks in a row (1 without a swizzle)."""
        return self.swizzle_byte_width // CHUNK_BYTES if self.swizzle_byte_width else 1

    @property
    def _packing(self) -> int:
        return 2 if self.fp4_padded else 1

    @property
    def _contiguous_dim(self) -> int:
        return 0 if self.transposed else self.rank - 1

    def _swizzle_width(self) -> int:
        """Elements in one swizzled row, fp4 counted unpacked (two per byte)."""
        return self.swizzle_byte_width * 8 // self.element_bitwidth

    def _atom_columns(self) -> int:
        """Tensor columns one swizzled row holds (packed fp4: one per byte)."""
        return self._swizzle_width() // self._packing

    def _tma_box(self, tile: Sequence[int]) -> List[int]:
        """The box one TMA copy moves from a CTA's ``tile``: at most 256 elements per dim; with
        a swizzle, the contiguous dim exactly one swizzled row, which the tile must hold.

        >>> NVMMASharedLayout(128, 16)._tma_box([512, 256])
        [256, 64]
        """
        box = [min(s, TMA_BOX_MAX) for s in tile]
        if self.swizzle_byte_width:
            contig, width = self._contiguous_dim, self._swizzle_width()
            have = tile[contig] * self._packing
            if have < width:
                raise LayoutError(
                    f"shape: the contiguous dim {contig} holds {have} elements per CTA"
                    f"{' (fp4 unpacked)' if self.fp4_padded else ''}; a {self.swizzle_byte_width}-byte swizzle of "
                    f"{self.element_bitwidth}-bit elements needs at least {width}")
            box[contig] = width // self._packing
        return box

    def _logical_byte(self, address: int) -> int:
        """The byte of the unswizzled rows a swizzled shared-memory byte ``address`` holds: the
        PTX ISA's 32/64/128-byte swizzle XORs the 16-byte chunk index within a row (address
        bits 4 and up, log2(chunks per row) of them) with as many address bits from bit 7 up
        (CuTe's ``Swizzle<B, 4, 3>`` on byte addresses). The XOR is its own inverse, so the
        same map goes either way."""
        chunk_bits = log2(self.max_phase)
        mask = ((1 << chunk_bits) - 1) * CHUNK_BYTES
        return address ^ ((address >> 3) & mask)

    def _packed_column(self, column: int) -> int:
        """With ``fp4_padded`` each 16-byte chunk holds 8 bytes of data and 8 of padding (the
        PTX ISA's ``.b4x16_p64``): an unpacked column lands on ``column`` with its bit 3 removed,
        the padding on column 0 (a copy)."""
        if not self.fp4_padded:
            return column
        return (column >> 4 << 3) | (column & 7)

    def _swizzle_atom(self) -> List[Tuple[int, int]]:
        """(row, column) of the element at each power-of-two offset of one swizzle atom: 8 rows of
        ``swizzle_byte_width`` bytes, the element at ``offset`` at the logical byte of its address.

        >>> NVMMASharedLayout(32, 16)._swizzle_atom()
        [(0, 1), (0, 2), (0, 4), (0, 8), (1, 0), (2, 0), (4, 8)]
        """
        element_bytes = self.element_bitwidth // 8
        row_bytes = self.swizzle_byte_width
        atom = []
        for bit in range(log2(ATOM_ROWS * row_bytes // element_bytes)):
            row, column = divmod(self._logical_byte((1 << bit) * element_bytes), row_bytes)
            atom.append((row, self._packed_column(column // element_bytes)))
        return atom

    def _box_matrix(self, box: Sequence[int]) -> Tuple[int, int]:
        """The box seen as a ``rows x columns`` matrix for the swizzle: the contiguous dim's
        columns and the other dims' product as rows; transposed, the last dim as rows and the
        product of the others as columns."""
        leading = 1
        for s in box[:-1]:
            leading *= s
        return (box[-1], leading) if self.transposed else (leading, box[-1])

    def _swizzled_offsets(self, box: Sequence[int]) -> List[List[int]]:
        """Offsets of a swizzled box in its :meth:`_box_matrix`: one atom, then atoms down the
        rows, then atoms across the columns. The matrix's row-major index is then split over
        the box's dims, the contiguous dim fastest: ``dim0, ..., dim(r-1)``, or transposed
        ``dim1, ..., dim(r-1), dim0``. For rank 3 transposed the matrix's columns run over
        dim0 and then dim2, as the Triton 3.9.0 wheel gives it.

        >>> NVMMASharedLayout(32, 16, transposed=True)._swizzled_offsets([16, 16])    # dim0 contiguous
        [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2], [8, 4], [0, 8]]
        """
        rows, columns = self._box_matrix(box)
        atom_columns = self._atom_columns()
        cells = self._swizzle_atom() + [(ATOM_ROWS << bit, 0) for bit in range(log2(rows // ATOM_ROWS))]
        cells += [(0, atom_columns << bit) for bit in range(log2(columns // atom_columns))]
        rank = len(box)
        split = list(range(1, rank)) + [0] if self.transposed else list(range(rank))
        return [_row_major_split(r * columns + c, split, box) for r, c in cells]

    def _plain_offsets(self, box: Sequence[int]) -> Tuple[List[List[int]], Dict[int, int]]:
        """Offsets of an unswizzled box, filled one dim after another, fastest first: the last
        dim down to dim0, or transposed ``dim0`` first. Returns the offsets and each dim's
        size. For rank 3 and more transposed, the Triton 3.9.0 wheel fills ``dim(r-2), ...,
        dim0, dim(r-1)`` with the sizes of ``dim0, dim(r-1), ..., dim1`` (so a dim's extent
        need not be its box size); that is kept."""
        rank = len(box)
        if self.transposed:
            dims = list(range(rank - 2, -1, -1)) + [rank - 1]
            sizes = [box[0]] + [box[d] for d in range(rank - 1, 0, -1)]
        else:
            dims = list(range(rank - 1, -1, -1))
            sizes = [box[d] for d in dims]
        offsets = [_unit(rank, d, 1 << bit) for d, size in zip(dims, sizes) for bit in range(log2(size))]
        return offsets, dict(zip(dims, sizes))

    def _linear(self, shape: Tuple[int, ...]) -> LinearLayout:
        """One TMA box laid out (:meth:`_swizzled_offsets` or :meth:`_plain_offsets`), repeated
        over the CTA's tile (more offsets; dim0 first when swizzled, the last dim first when
        not, as the Triton 3.9.0 wheel orders them), then the CGA's blocks on top.

        >>> NVMMASharedLayout(0, 16, transposed=True)._linear((4, 2)).bases["offset"]
        ((1, 0), (2, 0), (0, 1))
        """
        rank = len(shape)
        names = dim_names(rank)
        box = self._tma_box(shape_per_cta(shape, self.cga_layout))
        if self.swizzle_byte_width:
            rows, columns = self._box_matrix(box)
            if columns < self._atom_columns() or rows < ATOM_ROWS:
                raise LayoutError(f"shape {list(shape)}: the swizzle tile is {ATOM_ROWS} x {self._atom_columns()} elements "
                                  f"but the TMA box, collapsed to 2-D, is {rows} x {columns}")
            bases = self._swizzled_offsets(box)
            outs = dict(zip(names, box))
        else:
            bases, extent = self._plain_offsets(box)
            outs = {names[d]: extent[d] for d in reversed(range(rank))}
        box_layout = LinearLayout.from_bases({"offset": [[b[names.index(n)] for n in outs] for b in bases]}, outs)
        return combine_cta_cga(box_layout, self.cga_layout, shape)


def _row_major_split(index: int, dims: Sequence[int], box: Sequence[int]) -> List[int]:
    """``index`` as coordinates of ``box``, row-major over ``dims`` (``dims[-1]`` fastest)."""
    coords = [0] * len(box)
    for d in reversed(dims):
        index, coords[d] = divmod(index, box[d])
    return coords


class SharedLinearLayout(SharedEncoding):
    """A shared layout given by its bases (Gluon's spelling; what Gluon's ``to_linear_layout``
    returns for a shared encoding): ``offset_bases`` (and ``block_bases``) onto the tensor whose
    size the bases reach; ``alignment`` (bytes, a power of two) does not change the layout. Triton
    takes only that tensor's own shape.

    >>> S = SharedLinearLayout([[0, 1], [0, 2], [1, 1], [2, 2]])
    >>> S.shape, S.to_linear_layout([4, 4]).bases["offset"]
    ([4, 4], ((0, 1), (0, 2), (1, 1), (2, 2)))
    """

    __slots__ = ("offset_bases", "block_bases", "alignment")
    _fields = __slots__

    def __init__(self, offset_bases: Any, block_bases: Any = None, alignment: Any = 16):
        if isinstance(offset_bases, (str, bytes)) or not isinstance(offset_bases, (list, tuple)) or not offset_bases:
            raise LayoutTypeError(f"offset_bases must be a non-empty list of bases, got {show(offset_bases)}")
        first = offset_bases[0]
        rank = len(first) if isinstance(first, (list, tuple)) else 0
        if rank == 0:
            raise LayoutError(f"offset_bases[0] must be a non-empty list of ints (one per dim), got {show(first)}")
        offsets = tuple(_pow2_list(f"offset_bases[{i}]", b, rank, pow2=False, rank_from=", from offset_bases[0]")
                        for i, b in enumerate(offset_bases))
        blocks = () if block_bases is None else tuple(
            _pow2_list(f"block_bases[{i}]", b, rank, pow2=False, rank_from=", from offset_bases[0]")
            for i, b in enumerate(_sequence("block_bases", block_bases)))
        alignment = _pow2_arg("alignment", alignment)
        self._init(offset_bases=offsets, block_bases=blocks, alignment=alignment)
        try:
            self._own()
        except LayoutError as e:
            raise LayoutError(f"offset_bases and block_bases do not make a layout: {e}") from None
        kept = LinearLayout.from_bases({"in": [list(b) for b in offsets + blocks if any(b)]},
                                       list(dim_names(rank)))
        if not kept.is_injective():
            raise LayoutError("offset_bases and block_bases, zero bases aside, must be independent (Triton wants "
                              "a bijection): two offsets would hold the same element")

    @property
    def rank(self) -> int:
        return len(self.offset_bases[0])

    @property
    def shape(self) -> List[int]:
        """The tensor the bases reach: per dim, twice the largest value (1 where all are 0)."""
        return [1 << max(b[d] for b in self.offset_bases + self.block_bases).bit_length() for d in range(self.rank)]

    def _own(self) -> LinearLayout:
        return LinearLayout.from_bases({"offset": [list(b) for b in self.offset_bases],
                                        "block": [list(b) for b in self.block_bases]}, list(dim_names(self.rank)))

    def _linear(self, shape: Tuple[int, ...]) -> LinearLayout:
        if list(shape) != self.shape:
            raise LayoutError(f"shape {list(shape)} is not the shape {self.shape} this SharedLinearLayout's bases "
                              f"describe (Triton takes no other)")
        return self._own()


def _sequence(name: str, value: Any) -> Sequence[Any]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise LayoutTypeError(f"{name} must be a list of bases, got {show(value)}")
    return value
