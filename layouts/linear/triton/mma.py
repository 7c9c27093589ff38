"""NVIDIA tensor-core encodings: ``NVMMADistributedLayout`` (the accumulator of ``mma.sync``,
version 2, and of ``wgmma``, version 3) and ``DotOperandLayout`` (an operand of a dot whose
result has an MMA, MFMA, WMMA or blocked layout), derived from the fragment layouts the PTX ISA
documents ("Matrix Fragments for mma.m16n8k*"), plus the pieces the AMD encodings share.

Every tensor-core layout here is built the same way: the elements one warp holds (read off the
instruction's documented fragment formula), times the warps of the CTA, then spread over the
tensor by :func:`spread` (registers repeat the CTA tile fastest dim first, blocks on top).

>>> from layouts.linear.triton import NVMMADistributedLayout, DotOperandLayout, to_linear_layout
>>> mma = NVMMADistributedLayout([2, 0], [1, 1], [16, 8])
>>> to_linear_layout(mma, [16, 8]).bases["register"]
((0, 1), (8, 0))
>>> to_linear_layout(DotOperandLayout(0, mma, 2), [16, 16]).bases["register"]
((0, 1), (8, 0), (0, 8))
"""

from typing import Any, Callable, Dict, List, Sequence, Tuple

from ..._args import is_pow2
from ...errors import LayoutError
from ..algebra import compose, multiply
from ..layout import LinearLayout
from ..reshape import transpose_outs
from ._base import (_cga, _encoding, _int, _pow2_list, combine_cta_cga, dim_names, dot_operand_order,
                    identity_nd, matrix_order)
from .distributed import BlockedLayout, DistributedEncoding

MAX_K_WIDTH = 32      # elements of one operand a thread holds together along K: 32 1-bit values fill a register
QUAD = 4              # PTX: the 4 lanes of a group (threadID_in_group) share a fragment row
GROUPS = 8            # PTX: a warp's 32 lanes form 8 groups (groupID), one per fragment row

Element = Callable[[int, int], Dict[str, int]]


# ----------------------------------------------------------------- pieces shared with amd.py
def layout_of_element(element: Element, registers: int, lanes: int, dims: Sequence[str]) -> LinearLayout:
    """The linear layout whose value at ``(register, lane)`` is ``element(register, lane)``, an
    instruction's documented fragment formula (``{dim: index}``), which must be linear over
    GF(2) in the bits of both (a linear layout is a GF(2)-linear map, Linear Layouts paper,
    arXiv 2505.23819; such a map is fixed by the images of the unit vectors, so the bases are
    ``element`` at the powers of two).
    ``dims`` names the out-dims; their sizes are what the formula reaches.

    >>> L = layout_of_element(lambda reg, lane: {"row": lane >> 1, "col": 2 * (lane & 1) + reg}, 2, 8,
    ...                       ["row", "col"])
    >>> L.bases, L.out_dims
    ({'register': ((0, 1),), 'lane': ((0, 2), (1, 0), (2, 0))}, {'row': 4, 'col': 4})
    """
    def basis(register: int, lane: int) -> List[int]:
        at = element(register, lane)
        return [at.get(d, 0) for d in dims]
    bits = {"register": registers.bit_length() - 1, "lane": lanes.bit_length() - 1}
    bases = {"register": [basis(1 << i, 0) for i in range(bits["register"])],
             "lane": [basis(0, 1 << i) for i in range(bits["lane"])]}
    return LinearLayout.from_bases(bases, list(dims))


def project_off(layout: LinearLayout, dim: str) -> LinearLayout:
    """``layout`` followed by the projection that forgets ``dim`` (kept, of size 1): what the
    threads of a dot's result see of an operand, which lacks the result's other matrix dim.

    >>> P = project_off(identity_nd("warp", [2, 2], [1, 0]), "dim1").transpose_outs(["dim0", "dim1"])
    >>> P.bases["warp"], P.out_dims
    (((0, 0), (1, 0)), {'dim0': 2, 'dim1': 1})
    """
    projection = LinearLayout.empty()
    for name, size in layout.out_dims.items():
        keep = LinearLayout.zeros_1d if name == dim else LinearLayout.identity_1d
        projection = multiply(projection, keep(size, name, name))
    return compose(layout, projection)


def along(dim: str, *steps: Tuple[str, int]) -> LinearLayout:
    """``dim`` covered by ``(in_dim, count)`` steps, each on the bits above the last.

    >>> along("dim0", ("register", 2), ("warp", 4)).bases
    {'register': ((1,),), 'warp': ((2,), (4,))}
    """
    layout = LinearLayout.empty()
    for in_dim, count in steps:
        layout = multiply(layout, LinearLayout.identity_1d(count, in_dim, dim))
    return layout


def spread(cta: LinearLayout, order: Sequence[int], cga: Sequence[Sequence[int]],
           shape: Sequence[int]) -> LinearLayout:
    """The CTA tile ``cta`` over a tensor of ``shape`` (as Triton's encodings define it): cut
    or repeated in registers, the dims taken fastest first as ``order`` lists them, then the
    blocks of ``cga`` on top (:func:`combine_cta_cga`).

    >>> cta = LinearLayout.identity_1d(4, "register", "dim1") * LinearLayout.identity_1d(2, "lane", "dim0")
    >>> spread(cta, [1, 0], [], [4, 8]).bases["register"]
    ((0, 1), (0, 2), (0, 4), (2, 0))
    """
    names = dim_names(len(order))
    return combine_cta_cga(transpose_outs(cta, [names[d] for d in order]), cga, shape)


# ----------------------------------------------------------------- NVIDIA mma.sync fragments
def quad_fragment(rows: str, cols: str, row_extent: int, col_extent: int, per_register: int) -> LinearLayout:
    """One warp's fragment of a ``row_extent x col_extent`` tile of ``mma.sync`` (PTX ISA,
    "Matrix Fragments for mma.m16n8k*"): lane ``l`` is in group ``l // 4`` (the row) at
    position ``l % 4`` in the group; a 32-bit register holds ``per_register`` consecutive
    columns starting at ``per_register * (l % 4)``. The registers that follow move 8 rows down
    the tile first, then ``4 * per_register`` columns across (``c2, c3`` sit 8 rows below
    ``c0, c1``; ``a4..a7`` sit 8 K-columns right of ``a0..a3``).

    The accumulator of ``m16n8`` is ``quad_fragment(M, N, 16, 8, 2)``; operand A of
    ``m16n8k16`` (f16) is ``quad_fragment(M, K, 16, 16, 2)``, B is ``quad_fragment(N, K, 8, 16, 2)``.

    >>> quad_fragment("dim0", "dim1", 16, 8, 2).transpose_outs(["dim0", "dim1"]).bases
    {'register': ((0, 1), (8, 0)), 'lane': ((0, 2), (0, 4), (1, 0), (2, 0), (4, 0))}
    """
    row_blocks = row_extent // GROUPS

    def element(register: int, lane: int) -> Dict[str, int]:
        column, block = register % per_register, register // per_register
        return {rows: lane // QUAD + GROUPS * (block % row_blocks),
                cols: per_register * (lane % QUAD) + column + QUAD * per_register * (block // row_blocks)}
    registers = per_register * row_blocks * (col_extent // (QUAD * per_register))
    return layout_of_element(element, registers, QUAD * GROUPS, [cols, rows])


def _k_dim(operand_index: int, rank: int) -> int:
    """K's dim in an operand: the last of A (``[M, K]``), the one before of B (``[K, N]``)."""
    return rank - 1 if operand_index == 0 else rank - 2


def _warp_tile(major: int, instr_shape: Sequence[int]) -> Tuple[int, int]:
    """One warp's ``(M, N)``: the last two entries of a v2 ``instr_shape``, the first two of v3's."""
    m, n = instr_shape[:2] if major == 3 else instr_shape[-2:]
    return m, n


class NVMMADistributedLayout(DistributedEncoding):
    """The accumulator of NVIDIA's MMA: ``version`` ``[2, 0]`` (Ampere ``mma.sync``; ``instr_shape``
    is the tile, ``[16, 8]``, with a leading batch entry for rank 3) or ``[3, 0]`` (Hopper
    ``wgmma``; ``instr_shape`` is ``[M, N, K]``, rank 2); ``warps_per_cta`` one entry per dim.

    >>> NVMMADistributedLayout([2, 0], [2, 2], [16, 8])
    NVMMADistributedLayout(version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8], cga_layout=[])
    >>> NVMMADistributedLayout([3, 0], [4, 1], [16, 8])
    Traceback (most recent call last):
    layouts.errors.LayoutError: instr_shape has 2 entries; expected 3 ([M, N, K] for version 3)
    """

    __slots__ = ("version", "warps_per_cta", "instr_shape", "cga_layout")
    _fields = __slots__

    def __init__(self, version: Any, warps_per_cta: Any, instr_shape: Any, cga_layout: Any = None):
        version = _pow2_list("version", version, pow2=False)
        if len(version) != 2 or version[0] not in (2, 3):
            raise LayoutError(f"version must be [2, minor] (Ampere) or [3, minor] (Hopper), got {list(version)}")
        warps = _pow2_list("warps_per_cta", warps_per_cta)
        rank = len(warps)
        if rank < 2 or (version[0] == 3 and rank != 2) or rank > 3:
            raise LayoutError(f"warps_per_cta has {rank} entries; an MMA v{version[0]} layout has rank "
                              f"{'2' if version[0] == 3 else '2 or 3'}")
        if version[0] == 2:
            instr = _pow2_list("instr_shape", instr_shape, rank, rank_from=", from warps_per_cta")
        else:
            instr = _pow2_list("instr_shape", instr_shape)
            if len(instr) != 3:
                raise LayoutError(f"instr_shape has {len(instr)} entries; expected 3 ([M, N, K] for version 3)")
        for what, extent in zip("MN", _warp_tile(version[0], instr)):
            if extent % GROUPS:
                raise LayoutError(f"instr_shape {list(instr)}: the tile's {what} is {extent}; expected a "
                                  f"multiple of 8")
        self._init(version=version, warps_per_cta=warps, instr_shape=instr, cga_layout=_cga(cga_layout, rank))

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    @property
    def is_hopper(self) -> bool:
        return self.version[0] == 3

    def _warps(self) -> LinearLayout:
        """The CTA's warps, one tile each: ``mma.sync`` warps go along N first; ``wgmma``'s go
        down M first (a warpgroup's 4 warps hold 16 rows each of its 64)."""
        return identity_nd("warp", self.warps_per_cta, matrix_order(self.rank, row_major=not self.is_hopper))

    def _linear(self, shape: Tuple[int, ...]) -> LinearLayout:
        names = dim_names(self.rank)
        m, n = _warp_tile(self.version[0], self.instr_shape)
        fragment = quad_fragment(names[-2], names[-1], m, n, 2)        # an f32 accumulator pair per thread
        order = matrix_order(self.rank, row_major=True)
        return spread(multiply(fragment, self._warps()), order, self.cga_layout, shape)

    # the operand of a dot with this accumulator (DotOperandLayout delegates here)
    def _check_dot(self, op: int, k_width: int) -> None:
        if not (is_pow2(k_width) and k_width <= MAX_K_WIDTH):
            raise LayoutError(f"k_width must be a power of two in 1..{MAX_K_WIDTH} for an MMA parent, "
                              f"got {k_width}")
        if self.is_hopper and op != 0:
            raise LayoutError("operand_index must be 0 for a Hopper (version 3) parent: wgmma reads B "
                              "from shared memory")

    def _dot_linear(self, operand: "DotOperandLayout", shape: Tuple[int, ...]) -> LinearLayout:
        """The ``mma.sync`` operand fragment (A: 16 rows of M, B: 8 columns of N, both ``8 k_width``
        of K), on the accumulator's warps; the warps that differ only along the result's other
        dim hold the same operand data."""
        names, k_width = dim_names(self.rank), operand.k_width
        k, other = (names[-1], names[-2]) if operand.operand_index == 0 else (names[-2], names[-1])
        fragment = quad_fragment(other, k, 16 if operand.operand_index == 0 else 8, 8 * k_width, k_width)
        cta = multiply(fragment, project_off(self._warps(), k))
        return spread(cta, dot_operand_order(operand.operand_index, self.rank), operand.cga_layout, shape)


def _blocks_off_k(cga: Sequence[Sequence[int]], k_dim: int) -> Tuple[Tuple[int, ...], ...]:
    """The operand's blocks: the parent's, broadcast along K (Gluon's DotOperandLayout.cga_layout)."""
    return tuple(tuple(0 if i == k_dim else v for i, v in enumerate(b)) for b in cga)


def _parent_kinds() -> Tuple[type, ...]:
    from .amd import AMDMFMALayout, AMDWMMALayout      # amd.py builds on this module's pieces
    return (NVMMADistributedLayout, BlockedLayout, AMDMFMALayout, AMDWMMALayout)


class DotOperandLayout(DistributedEncoding):
    """Operand ``operand_index`` (0: A, ``[M, K]``; 1: B, ``[K, N]``) of a dot whose result has the
    ``parent`` layout. With an MMA parent each thread holds ``k_width`` consecutive K elements
    (a power of two up to 32; Hopper takes only A from registers); with a blocked parent (FMA
    dot) ``k_width`` must be 0.

    >>> mma = NVMMADistributedLayout([2, 0], [1, 1], [16, 8])
    >>> DotOperandLayout(1, mma, 3)
    Traceback (most recent call last):
    layouts.errors.LayoutError: k_width must be a power of two in 1..32 for an MMA parent, got 3
    """

    __slots__ = ("operand_index", "parent", "k_width")
    _fields = __slots__

    def __init__(self, operand_index: Any, parent: Any, k_width: Any):
        op = _int("operand_index", operand_index)
        if op not in (0, 1):
            raise LayoutError(f"operand_index must be 0 (A) or 1 (B), got {op}")
        parent = _encoding("parent", parent, _parent_kinds())
        k_width = _int("k_width", k_width)
        if isinstance(parent, BlockedLayout):
            if k_width != 0:
                raise LayoutError(f"k_width must be 0 when the parent is a BlockedLayout, got {k_width}")
            if parent.rank < 2:
                raise LayoutError(f"parent has rank {parent.rank}; a dot operand has rank 2 or 3")
        else:
            parent._check_dot(op, k_width)      # type: ignore[attr-defined]
        self._init(operand_index=op, parent=parent, k_width=k_width)

    @property
    def rank(self) -> int:
        return self.parent.rank

    @property
    def k_dim(self) -> int:
        return _k_dim(self.operand_index, self.rank)

    @property
    def cga_layout(self) -> Tuple[Tuple[int, ...], ...]:
        return _blocks_off_k(self.parent.cga_layout, self.k_dim)

    def _linear(self, shape: Tuple[int, ...]) -> LinearLayout:
        if isinstance(self.parent, BlockedLayout):
            return self._fma(shape)
        return self.parent._dot_linear(self, shape)         # type: ignore[attr-defined]

    def _fma(self, shape: Tuple[int, ...]) -> LinearLayout:
        """An operand of an FMA dot: each thread holds the whole of K for the rows (A) or columns
        (B) the blocked parent gives it; the lanes and warps the parent spreads along K hold
        copies."""
        blocked, k = self.parent, self.k_dim
        per_thread = list(blocked.size_per_thread)
        per_thread[k] = shape[k]
        threads = multiply(identity_nd("lane", blocked.threads_per_warp, blocked.order),
                           identity_nd("warp", blocked.warps_per_cta, blocked.order))
        cta = multiply(identity_nd("register", per_thread, blocked.order),
                       project_off(threads, dim_names(self.rank)[k]))
        return spread(cta, blocked.order, self.cga_layout, shape)
