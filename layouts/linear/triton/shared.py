"""Shared-memory encodings: ``SwizzledSharedLayout`` (vec / per_phase / max_phase XOR swizzle) and
``NVMMASharedLayout`` (the 32/64/128-byte swizzles TMA and wgmma read), ported from Triton 3.9.0's
``swizzledSharedToLinearLayout`` and ``nvmmaSharedToLinearLayout``. In-dims ``offset, block``
-> ``dim0, dim1, ...``: the element stored at each offset.

>>> from layouts.linear.triton import SwizzledSharedLayout, NVMMASharedLayout, to_linear_layout
>>> to_linear_layout(SwizzledSharedLayout(2, 1, 4, [1, 0]), [4, 8]).bases["offset"]
((0, 1), (0, 2), (0, 4), (1, 2), (2, 4))
>>> to_linear_layout(NVMMASharedLayout(128, 16), [8, 64]).bases["offset"]
((0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (0, 32), (1, 8), (2, 16), (4, 32))
"""

from typing import Any, List, Sequence, Tuple

from ...errors import LayoutError, LayoutTypeError, show
from ..algebra import multiply
from ..layout import LinearLayout
from ..reshape import reshape_outs, transpose_outs
from ..utils import ensure_layout_not_smaller_than
from ..._args import is_pow2
from ._base import Encoding, _cga, _int, _order, _pow2_list, combine_cta_cga, dim_names, shape_per_cta

TMA_BOX_MAX = 256           # a TMA box has at most 256 elements per dim (getTMABlockShape)


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

    def _linear(self, shape: Tuple[int, ...]) -> LinearLayout:
        per_cta = shape_per_cta(shape, self.cga_layout)
        names = dim_names(len(shape))
        if len(shape) == 1:
            return combine_cta_cga(LinearLayout.identity_1d(per_cta[0], "offset", "dim0"), self.cga_layout, shape)
        col, row = self.order[0], self.order[1]
        cols, rows = per_cta[col], per_cta[row]
        bases = [[0, 1 << i] for i in range(cols.bit_length() - 1)]
        for i in range(rows.bit_length() - 1):
            r = 1 << i
            bases.append([r, (self.vec * ((r // self.per_phase) % self.max_phase)) % cols])
        cta = LinearLayout.from_bases({"offset": bases}, [names[row], names[col]])
        for d in self.order[2:]:
            cta = multiply(cta, LinearLayout.identity_1d(per_cta[d], "offset", names[d]))
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

    # Triton's getVec / getPerPhase / getMaxPhase for this encoding
    @property
    def vec(self) -> int:
        return 128 // self.element_bitwidth if self.swizzle_byte_width else 1

    @property
    def per_phase(self) -> int:
        return 128 // self.swizzle_byte_width if self.swizzle_byte_width else 1

    @property
    def max_phase(self) -> int:
        return self.swizzle_byte_width // 16 if self.swizzle_byte_width else 1

    def _tma_block(self, per_cta: Sequence[int]) -> List[int]:
        """``getTMABlockShape(..., packedSize=True)``: each dim cut to 256, the contiguous one to the swizzle."""
        block = list(per_cta)
        contig = 0 if self.transposed else len(block) - 1
        if self.fp4_padded:
            block[contig] *= 2
        block = [min(s, TMA_BOX_MAX) for s in block]
        if self.swizzle_byte_width:
            need = 8 * self.swizzle_byte_width // self.element_bitwidth
            if block[contig] < need:
                raise LayoutError(
                    f"shape: the contiguous dim {contig} holds {block[contig]} elements per CTA"
                    f"{' (fp4 unpacked)' if self.fp4_padded else ''}; a {self.swizzle_byte_width}-byte swizzle of "
                    f"{self.element_bitwidth}-bit elements needs at least {need}")
            block[contig] = need
        if self.fp4_padded:
            block[contig] //= 2
        return block

    def _core_matrix(self) -> LinearLayout:
        """``getCoreMatrixLinearLayout``: one 8-row swizzle tile (fp4 padding folded onto the real columns)."""
        cols = 8 * max(16, self.swizzle_byte_width) // self.element_bitwidth

        def packed(c: int) -> int:
            return c // 16 * 8 + c % 8 if self.fp4_padded else c

        bases = [[0, packed(1 << i)] for i in range(cols.bit_length() - 1)]
        for i in range(3):
            r = 1 << i
            bases.append([r, packed(self.vec * ((r // self.per_phase) % self.max_phase))])
        return LinearLayout.from_bases({"offset": bases}, ["dim0", "dim1"])

    def _linear(self, shape: Tuple[int, ...]) -> LinearLayout:
        rank = len(shape)
        per_cta = shape_per_cta(shape, self.cga_layout)
        tma = self._tma_block(per_cta)
        names = list(dim_names(rank))
        if not self.swizzle_byte_width:
            target = tma[1:] + tma[:1] if self.transposed else tma
            layout = LinearLayout.empty()
            for d in reversed(range(rank)):       # the last dim fastest, out-dims in that order
                layout = multiply(layout, LinearLayout.identity_1d(target[d], "offset", names[d]))
            if self.transposed:
                layout = _permute_dims(layout, [rank - 1] + list(range(rank - 1)))
            layout = ensure_layout_not_smaller_than(layout, dict(zip(names, per_cta)))
            return combine_cta_cga(layout, self.cga_layout, shape)
        collapsed = [1, tma[-1]]
        for s in tma[:-1]:
            collapsed[0] *= s
        if self.transposed:
            collapsed.reverse()
        tile = self._core_matrix()
        rows, cols = tile.out_dim_size("dim0"), tile.out_dim_size("dim1")
        packing = 2 if self.fp4_padded else 1
        if collapsed[1] * packing < cols or collapsed[0] < rows:
            raise LayoutError(f"shape {list(shape)}: the swizzle tile is {rows} x {cols // packing} elements but "
                              f"the TMA box, collapsed to 2-D, is {collapsed[0]} x {collapsed[1]}")
        layout = ensure_layout_not_smaller_than(tile, {"dim0": collapsed[0], "dim1": collapsed[1]})
        target = tma[1:] + tma[:1] if self.transposed else tma
        layout = _reshape_row_major(layout, target)
        if self.transposed:
            layout = _permute_dims(layout, [rank - 1] + list(range(rank - 1)))
        layout = ensure_layout_not_smaller_than(layout, dict(zip(names, per_cta)))
        return combine_cta_cga(layout, self.cga_layout, shape)


def _reshape_row_major(layout: LinearLayout, shape: Sequence[int]) -> LinearLayout:
    """Triton's ``reshapeLayout``: the out-dims re-split to ``shape`` with the last dim most minor."""
    names = list(dim_names(len(shape)))
    flipped = transpose_outs(layout, list(reversed(layout.out_dim_names)))
    reshaped = reshape_outs(flipped, list(reversed(list(zip(names, shape)))))
    return transpose_outs(reshaped, names)


def _permute_dims(layout: LinearLayout, order: Sequence[int]) -> LinearLayout:
    """Triton's ``transposeLinearLayout``, by position: the out-dim at position ``i`` takes the
    values and size of the one at position ``order[i]``; the names keep their positions (for a
    layout whose out-dims are not in standard order this renames as well as permutes)."""
    names = layout.out_dim_names
    sizes = [layout.out_dim_size(n) for n in names]
    bases = {d: [[b[o] for o in order] for b in rows] for d, rows in layout.bases.items()}
    outs = {names[i]: sizes[o] for i, o in enumerate(order)}
    return LinearLayout.from_bases(bases, outs, require_surjective=False)


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
