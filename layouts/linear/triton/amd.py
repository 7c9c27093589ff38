"""AMD matrix-core encodings: ``AMDMFMALayout`` (CDNA's MFMA accumulator, Gluon's
``triton.experimental.gluon.language.amd`` name) and its dot operands, ported from Triton 3.9.0's
``AMDMfmaEncodingAttr::toLinearLayout`` and ``mfmaDotToLinearLayout``. A wavefront has 64 lanes.

>>> from layouts.linear.triton import AMDMFMALayout, to_linear_layout
>>> mfma = AMDMFMALayout(version=3, instr_shape=[32, 32, 8], transposed=False, warps_per_cta=[1, 1])
>>> to_linear_layout(mfma, [32, 32]).bases["register"]
((1, 0), (2, 0), (8, 0), (16, 0))
"""

from typing import Any, Tuple

from ...errors import LayoutError, LayoutTypeError, show
from ..algebra import multiply
from ..layout import LinearLayout
from ..reshape import transpose_outs
from ._base import (_cga, _int, _pow2_list, combine_cta_cga, dim_names, dot_operand_order, identity_nd,
                    matrix_order)
from .distributed import DistributedEncoding

WAVE = 64                           # lanes in a CDNA wavefront
MFMA_SHAPES = ((32, 32), (16, 16), (64, 4), (4, 64))
WMMA_SHAPES = {1: ((16, 16, 16),), 2: ((16, 16, 16), (16, 16, 32)),      # Triton 3.9.0's verifier
               3: ((16, 16, 4), (16, 16, 32), (16, 16, 64), (16, 16, 128))}


class AMDMFMALayout(DistributedEncoding):
    """The accumulator of AMD's MFMA: ``instr_shape`` ``[M, N, K]`` with ``M x N`` one of 32x32,
    16x16, 64x4 (transposed only) or 4x64; ``transposed`` puts a thread's consecutive elements
    along N; ``version`` 1..4 (gfx908, gfx90a, gfx942, gfx950); ``element_bitwidth`` 32 or 64;
    ``tiles_per_warp`` how many MFMA tiles a warp repeats per dim (default 1s).

    >>> AMDMFMALayout(3, [32, 32, 8], False, [2, 2])     # doctest: +NORMALIZE_WHITESPACE
    AMDMFMALayout(version=3, instr_shape=[32, 32, 8], transposed=False, warps_per_cta=[2, 2],
                  element_bitwidth=32, tiles_per_warp=[1, 1], cga_layout=[])
    >>> AMDMFMALayout(3, [32, 16, 8], False, [2, 2])
    Traceback (most recent call last):
    layouts.errors.LayoutError: instr_shape [32, 16, 8]: M x N must be one of 32x32, 16x16, 64x4, 4x64
    """

    __slots__ = ("version", "instr_shape", "transposed", "warps_per_cta", "element_bitwidth", "tiles_per_warp",
                 "cga_layout")
    _fields = __slots__

    def __init__(self, version: Any, instr_shape: Any, transposed: Any, warps_per_cta: Any,
                 element_bitwidth: Any = None, tiles_per_warp: Any = None, cga_layout: Any = None):
        version = _int("version", version)
        if not 1 <= version <= 4:
            raise LayoutError(f"version must be 1..4 (gfx908, gfx90a, gfx942, gfx950), got {show(version)}")
        instr = _pow2_list("instr_shape", instr_shape)
        if len(instr) != 3:
            raise LayoutError(f"instr_shape has {len(instr)} entries; expected 3 ([M, N, K])")
        if instr[:2] not in MFMA_SHAPES:
            raise LayoutError(f"instr_shape {list(instr)}: M x N must be one of 32x32, 16x16, 64x4, 4x64")
        if not isinstance(transposed, bool):
            raise LayoutTypeError(f"transposed must be True or False, got {show(transposed)}")
        if instr[:2] == (64, 4) and not transposed:
            raise LayoutError("instr_shape 64x4 needs transposed=True (Triton turns it into a 4x64 MFMA)")
        warps = _pow2_list("warps_per_cta", warps_per_cta)
        rank = len(warps)
        if rank not in (2, 3):
            raise LayoutError(f"warps_per_cta has {rank} entries; an MFMA layout has rank 2 or 3")
        bits = 32 if element_bitwidth is None else _int("element_bitwidth", element_bitwidth)
        if bits not in (32, 64):
            raise LayoutError(f"element_bitwidth must be 32 or 64, got {show(bits)}")
        tiles = (1,) * rank if tiles_per_warp is None else _pow2_list(
            "tiles_per_warp", tiles_per_warp, rank, rank_from=", from warps_per_cta")
        self._init(version=version, instr_shape=instr, transposed=transposed, warps_per_cta=warps,
                   element_bitwidth=bits, tiles_per_warp=tiles, cga_layout=_cga(cga_layout, rank))

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    def _linear(self, shape: Tuple[int, ...]) -> LinearLayout:
        rank, names = self.rank, dim_names(self.rank)
        batch = rank == 3
        m_index, n_index = int(batch), 1 + int(batch)
        order = matrix_order(rank, True)
        dim_m, dim_n = names[order[1]], names[order[0]]
        m, n = self.instr_shape[0], self.instr_shape[1]
        height = 1 if self.element_bitwidth == 64 else 4
        tiles = (m * n) // (WAVE * height)
        I = LinearLayout.identity_1d
        if not self.transposed:
            tile = multiply(I(height, "register", dim_m), multiply(I(n, "lane", dim_n), I(WAVE // n, "lane", dim_m)))
            tile = multiply(tile, I(tiles, "register", dim_m))
        else:
            tile = multiply(I(height, "register", dim_n), multiply(I(m, "lane", dim_m), I(WAVE // m, "lane", dim_n)))
            tile = multiply(tile, I(tiles, "register", dim_n))
        tile = transpose_outs(tile, [dim_n, dim_m])
        tiles_m, tiles_n = self.tiles_per_warp[m_index], self.tiles_per_warp[n_index]
        warps_m, warps_n = self.warps_per_cta[m_index], self.warps_per_cta[n_index]
        for size, in_dim, out in ((tiles_n, "register", dim_n), (warps_n, "warp", dim_n),
                                  (shape[n_index] // (n * warps_n * tiles_n), "register", dim_n),
                                  (tiles_m, "register", dim_m), (warps_m, "warp", dim_m)):
            tile = multiply(tile, I(size, in_dim, out))
        if batch:
            tile = multiply(tile, I(1, "register", names[0]))
            tile = multiply(tile, I(1, "lane", names[0]))
            tile = multiply(tile, I(self.warps_per_cta[0], "warp", names[0]))
        return combine_cta_cga(tile, self.cga_layout, shape)

    # the operand of a dot with this accumulator (DotOperandLayout delegates here)
    def _check_dot(self, op: int, k_width: int) -> None:
        if k_width < 1 or k_width & (k_width - 1):
            raise LayoutError(f"k_width must be a power of two for an MFMA parent, got {k_width}")

    def _dot_linear(self, op: int, k_width: int, cga: Any, shape: Tuple[int, ...]) -> LinearLayout:
        rank, names = self.rank, dim_names(self.rank)
        m, n = self.instr_shape[0], self.instr_shape[1]
        non_k = m if op == 0 else n
        k_index, non_k_index = (rank - 1, rank - 2) if op == 0 else (rank - 2, rank - 1)
        order = dot_operand_order(op, rank)
        dim_k, dim_non_k = names[order[0]], names[order[1]]
        I = LinearLayout.identity_1d
        tile = multiply(I(k_width, "register", dim_k),
                        multiply(I(non_k, "lane", dim_non_k), I(WAVE // non_k, "lane", dim_k)))
        k_tile = WAVE // non_k * k_width
        if (m, n, op) in ((64, 4, 0), (4, 64, 1)):     # the 64x64 operand of a 4x64 MFMA: 16 tiles along K
            tile = multiply(tile, I(16, "register", dim_k))
            k_tile *= 16
        if shape[k_index] > k_tile:
            tile = multiply(tile, I(shape[k_index] // k_tile, "register", dim_k))
        tile = multiply(tile, I(self.tiles_per_warp[non_k_index], "register", dim_non_k))
        tile = transpose_outs(tile, [dim_k, dim_non_k])
        if rank == 3:
            tile = multiply(tile, I(1, "register", names[order[2]]))
            tile = multiply(tile, I(1, "lane", names[order[2]]))
        warps = identity_nd("warp", self.warps_per_cta, matrix_order(rank, True))
        # Triton's * keeps the left operand's dim order when the two disagree (for rank 3 they do)
        cta = multiply(tile, transpose_outs(warps, tile.out_dim_names))
        return transpose_outs(combine_cta_cga(cta, cga, shape), list(names))


def _bases_arg(name: str, value: Any, rank: int) -> Tuple[Tuple[int, ...], ...]:
    if value is None:
        return ()
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise LayoutTypeError(f"{name} must be a list of bases (lists of {rank} ints), got {show(value)}")
    bases = tuple(_pow2_list(f"{name}[{i}]", b, rank, pow2=False) for i, b in enumerate(value))
    for i, b in enumerate(bases):
        if any(v & (v - 1) for v in b):
            raise LayoutError(f"{name}[{i}] = {list(b)}: each entry must be 0 or a power of two")
    return bases


class AMDWMMALayout(DistributedEncoding):
    """The accumulator of AMD's WMMA (RDNA3 ``version`` 1, RDNA4 2, gfx1250 3): 16x16 tiles of a
    32-lane wave (``instr_shape`` [16, 16, K], K as the version allows), repeated by ``reg_bases``
    and spread over warps by ``warp_bases`` (both in tiles, one int per dim); ``transposed`` puts
    a thread's elements along N.

    >>> AMDWMMALayout(2, False, [[1, 0], [0, 1]])     # doctest: +NORMALIZE_WHITESPACE
    AMDWMMALayout(version=2, transposed=False, warp_bases=[[1, 0], [0, 1]], reg_bases=[],
                  instr_shape=[16, 16, 16], cga_layout=[], rank=2)
    """

    __slots__ = ("version", "transposed", "warp_bases", "reg_bases", "instr_shape", "cga_layout", "rank")
    _fields = __slots__

    def __init__(self, version: Any, transposed: Any, warp_bases: Any, reg_bases: Any = None,
                 instr_shape: Any = None, cga_layout: Any = None, rank: Any = None):
        version = _int("version", version)
        if not 1 <= version <= 3:
            raise LayoutError(f"version must be 1..3 (RDNA3, RDNA4, gfx1250), got {show(version)}")
        if not isinstance(transposed, bool):
            raise LayoutTypeError(f"transposed must be True or False, got {show(transposed)}")
        rank = 2 if rank is None else _int("rank", rank)
        if rank not in (2, 3):
            raise LayoutError(f"rank must be 2 or 3, got {rank}")
        instr = (16, 16, 16) if instr_shape is None else _pow2_list("instr_shape", instr_shape)
        if instr not in WMMA_SHAPES[version]:
            raise LayoutError(f"instr_shape must be one of {[list(s) for s in WMMA_SHAPES[version]]} for version "
                              f"{version}, got {list(instr)}")
        warps = _bases_arg("warp_bases", warp_bases, rank)
        regs = _bases_arg("reg_bases", reg_bases, rank)
        try:
            LinearLayout.from_bases({"register": [list(b) for b in regs], "warp": [list(b) for b in warps]},
                                    list(dim_names(rank)))
        except LayoutError as e:
            raise LayoutError(f"reg_bases and warp_bases do not make a layout of tiles: {e}") from None
        self._init(version=version, transposed=transposed, warp_bases=warps, reg_bases=regs, instr_shape=instr,
                   cga_layout=_cga(cga_layout, rank), rank=rank)

    def _tile(self) -> LinearLayout:
        rank, names = self.rank, dim_names(self.rank)
        order = matrix_order(rank, not self.transposed)
        if self.version == 1:
            reg, lane = [[0, 2], [0, 4], [0, 8]], [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]]
        else:
            reg, lane = [[0, 1], [0, 2], [0, 4]], [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]]
        tile = LinearLayout.from_bases({"register": reg, "lane": lane}, [names[order[0]], names[order[1]]])
        if rank == 3:
            tile = multiply(tile, LinearLayout.identity_1d(1, "register", names[0]))
            tile = multiply(tile, LinearLayout.identity_1d(1, "lane", names[0]))
        return transpose_outs(tile, list(names))

    def _cta(self) -> LinearLayout:
        return LinearLayout.from_bases({"register": [list(b) for b in self.reg_bases],
                                        "warp": [list(b) for b in self.warp_bases]}, list(dim_names(self.rank)))

    def _linear(self, shape: Tuple[int, ...]) -> LinearLayout:
        names = dim_names(self.rank)
        layout = multiply(self._tile(), self._cta())
        layout = transpose_outs(layout, [names[d] for d in matrix_order(self.rank, True)])
        return combine_cta_cga(layout, self.cga_layout, shape)

    # the operand of a dot with this accumulator (DotOperandLayout delegates here)
    def _check_dot(self, op: int, k_width: int) -> None:
        allowed = {1: (8, 16), 2: (4, 8, 16)}.get(self.version)        # Triton 3.9.0's verifier
        if allowed and k_width not in allowed:
            raise LayoutError(f"k_width must be one of {list(allowed)} for a WMMA version {self.version} parent, "
                              f"got {k_width}")
        if k_width < 1 or k_width & (k_width - 1) or k_width > 64:
            raise LayoutError(f"k_width must be a power of two in 1..64 for a WMMA parent, got {k_width}")

    def _dot_linear(self, op: int, k_width: int, cga: Any, shape: Tuple[int, ...]) -> LinearLayout:
        rank, names = self.rank, dim_names(self.rank)
        order = dot_operand_order(op, rank)
        dim_k, dim_non_k = names[order[0]], names[order[1]]
        I = LinearLayout.identity_1d
        depth = 2                                            # a 32-lane wave over 16 rows or columns
        tile = multiply(I(k_width, "register", dim_k), I(16, "lane", dim_non_k))
        tile = multiply(tile, (LinearLayout.zeros_1d if self.version == 1 else I)(depth, "lane", dim_k))
        tile = multiply(tile, I(self.instr_shape[2] // (depth * k_width), "register", dim_k))
        # the warps and repeats of the accumulator, projected off K; repeats that become 0 go away
        k = names.index(dim_k)
        cta = self._cta()
        bases = {d: [[0 if i == k else v for i, v in enumerate(b)] for b in rows] for d, rows in cta.bases.items()}
        bases["register"] = [b for b in bases["register"] if any(b)]
        sizes = {n: (1 if n == dim_k else cta.out_dim_size(n)) for n in names}
        cta = LinearLayout.from_bases(bases, sizes, require_surjective=False)
        rest = [n for n in names if n not in tile.out_dim_names]
        layout = multiply(tile, transpose_outs(cta, list(tile.out_dim_names) + rest))
        layout = transpose_outs(layout, [names[d] for d in order])
        return combine_cta_cga(layout, cga, shape)
