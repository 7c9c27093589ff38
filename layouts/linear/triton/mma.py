"""NVIDIA tensor-core encodings: ``NVMMADistributedLayout`` (the MMA v2 / Ampere and v3 / Hopper
accumulator) and ``DotOperandLayout`` (an operand of a dot, its parent an MMA or a blocked layout),
ported from Triton 3.9.0's ``nvidiaMmaTile``, ``nvidiaDotToLinearLayout`` and ``fmaDotToLinearLayout``.

>>> from layouts.linear.triton import NVMMADistributedLayout, DotOperandLayout, to_linear_layout
>>> mma = NVMMADistributedLayout([2, 0], [1, 1], [16, 8])
>>> to_linear_layout(mma, [16, 8]).bases["register"]
((0, 1), (8, 0))
>>> to_linear_layout(DotOperandLayout(0, mma, 2), [16, 16]).bases["register"]
((0, 1), (8, 0), (0, 8))
"""

from typing import Any, List, Sequence, Tuple

from ...errors import LayoutError
from ..algebra import multiply
from ..layout import LinearLayout
from ..reshape import transpose_outs
from ..._args import is_pow2
from ._base import (_cga, _encoding, _int, _pow2_list, combine_cta_cga, dim_names, dot_operand_order,
                    identity_nd, matrix_order)
from .amd import AMDMFMALayout, AMDWMMALayout
from .distributed import BlockedLayout, DistributedEncoding

MAX_K_WIDTH = 32      # elements of one operand a thread holds together along K: 32 1-bit values fill a register


def mma_tile(tile: Sequence[int], k_width: int, order: Sequence[int], rep_order: Sequence[int]) -> LinearLayout:
    """Triton's ``nvidiaMmaTile``: k_width registers and 4 lanes along the inner dim, 8 lanes along
    the outer, then registers repeat the 8x(4 k_width) subtile over the tile (outer dim first).

    >>> mma_tile([16, 8], 2, [1, 0], [1, 0]).transpose_outs(["dim0", "dim1"]).bases["register"]
    ((0, 1), (8, 0))
    """
    names = dim_names(len(rep_order))
    inner, outer = order[0], order[1]
    m, n = tile[outer], tile[inner]
    layout = identity_nd("register", [1] * len(rep_order), rep_order)
    for size, in_dim, d in ((k_width, "register", inner), (4, "lane", inner), (8, "lane", outer),
                            (m // 8, "register", outer), (n // (k_width * 4), "register", inner)):
        layout = multiply(layout, LinearLayout.identity_1d(size, in_dim, names[d]))
    return layout


def broadcast_along_k(shape: Sequence[int], order: Sequence[int], k_dim: int, in_dim: str) -> LinearLayout:
    """Triton's ``broadcastedDotOperandLayout``: identity along every dim but K, zeros along K.

    >>> broadcast_along_k([2, 2], [1, 0], 1, "warp").transpose_outs(["dim0", "dim1"]).bases["warp"]
    ((0, 0), (1, 0))
    """
    names = dim_names(len(shape))
    layout = LinearLayout.empty()
    for d in order:
        make = LinearLayout.zeros_1d if d == k_dim else LinearLayout.identity_1d
        layout = multiply(layout, make(shape[d], in_dim, names[d]))
    return layout


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
            m, n = instr[-2], instr[-1]
        else:
            instr = _pow2_list("instr_shape", instr_shape)
            if len(instr) != 3:
                raise LayoutError(f"instr_shape has {len(instr)} entries; expected 3 ([M, N, K] for version 3)")
            m, n = instr[0], instr[1]
        for what, v in (("M", m), ("N", n)):
            if v % 8:
                raise LayoutError(f"instr_shape {list(instr)}: the tile's {what} is {v}; expected a multiple of 8")
        self._init(version=version, warps_per_cta=warps, instr_shape=instr, cga_layout=_cga(cga_layout, rank))

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    @property
    def is_hopper(self) -> bool:
        return self.version[0] == 3

    def _linear(self, shape: Tuple[int, ...]) -> LinearLayout:
        rank = self.rank
        tile = self.instr_shape[:2] if self.is_hopper else self.instr_shape
        order = matrix_order(rank, True)
        cta = mma_tile(tile, 2, order, matrix_order(rank, True))     # the accumulator: kWidth 2
        warps = identity_nd("warp", self.warps_per_cta, matrix_order(rank, not self.is_hopper))
        cta = multiply(cta, transpose_outs(warps, cta.out_dim_names))
        return combine_cta_cga(cta, self.cga_layout, shape)


def _k_zeroed(cga: Sequence[Sequence[int]], k_dim: int) -> Tuple[Tuple[int, ...], ...]:
    """The operand's blocks: the parent's, broadcast along K (Gluon's DotOperandLayout.cga_layout)."""
    return tuple(tuple(0 if i == k_dim else v for i, v in enumerate(b)) for b in cga)


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
        parent = _encoding("parent", parent, (NVMMADistributedLayout, BlockedLayout, AMDMFMALayout,
                                                   AMDWMMALayout))
        k_width = _int("k_width", k_width)
        if isinstance(parent, BlockedLayout):
            if k_width != 0:
                raise LayoutError(f"k_width must be 0 when the parent is a BlockedLayout, got {k_width}")
            if parent.rank < 2:
                raise LayoutError(f"parent has rank {parent.rank}; a dot operand has rank 2 or 3")
        elif isinstance(parent, (AMDMFMALayout, AMDWMMALayout)):
            parent._check_dot(op, k_width)
        else:
            if not (is_pow2(k_width) and k_width <= MAX_K_WIDTH):
                raise LayoutError(f"k_width must be a power of two in 1..{MAX_K_WIDTH} for an MMA parent, "
                                  f"got {k_width}")
            if parent.is_hopper and op != 0:
                raise LayoutError("operand_index must be 0 for a Hopper (version 3) parent: wgmma reads B "
                                  "from shared memory")
        self._init(operand_index=op, parent=parent, k_width=k_width)

    @property
    def rank(self) -> int:
        return self.parent.rank

    @property
    def k_dim(self) -> int:
        return self.rank - 1 if self.operand_index == 0 else self.rank - 2

    @property
    def cga_layout(self) -> Tuple[Tuple[int, ...], ...]:
        return _k_zeroed(self.parent.cga_layout, self.k_dim)

    def _linear(self, shape: Tuple[int, ...]) -> LinearLayout:
        if isinstance(self.parent, BlockedLayout):
            return self._fma(shape)
        if isinstance(self.parent, AMDMFMALayout):
            # Triton's mfmaDotToLinearLayout takes the parent's CGA as it is (no broadcast along K)
            return self.parent._dot_linear(self.operand_index, self.k_width, self.parent.cga_layout, shape)
        if isinstance(self.parent, AMDWMMALayout):
            return self.parent._dot_linear(self.operand_index, self.k_width, self.cga_layout, shape)
        rank, k_width, is_a = self.rank, self.k_width, self.operand_index == 0
        tile: List[int] = [1] * rank
        tile[rank - 2], tile[rank - 1] = (16, k_width * 8) if is_a else (k_width * 8, 8)
        order = dot_operand_order(self.operand_index, rank)
        cta = mma_tile(tile, k_width, order, order)        # the operand's rep order is its K-fast order
        warps = broadcast_along_k(self.parent.warps_per_cta, matrix_order(rank, not self.parent.is_hopper),
                                  self.k_dim, "warp")
        cta = multiply(cta, transpose_outs(warps, cta.out_dim_names))
        return combine_cta_cga(cta, self.cga_layout, shape)

    def _fma(self, shape: Tuple[int, ...]) -> LinearLayout:
        blocked, k = self.parent, self.k_dim
        names = dim_names(self.rank)
        rep_names = [names[d] for d in blocked.order]
        per_thread = list(blocked.size_per_thread)
        per_thread[k] = shape[k]
        cta = multiply(multiply(
            transpose_outs(identity_nd("register", per_thread, blocked.order), rep_names),
            transpose_outs(broadcast_along_k(blocked.threads_per_warp, blocked.order, k, "lane"), rep_names)),
            transpose_outs(broadcast_along_k(blocked.warps_per_cta, blocked.order, k, "warp"), rep_names))
        return combine_cta_cga(cta, self.cga_layout, shape)
