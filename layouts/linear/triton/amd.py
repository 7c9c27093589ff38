"""AMD matrix-core encodings (Gluon's ``triton.experimental.gluon.language.amd`` names):
``AMDMFMALayout``, the result of CDNA's MFMA on a 64-lane wavefront, and ``AMDWMMALayout``, the
result of RDNA's and gfx1250's WMMA on a 32-lane wave, with the operands of dots on them. Each is
read off the instruction's documented register layout (AMD's CDNA3 and RDNA3/RDNA4 ISA guides,
"matrix fused multiply-add" operand and result layouts) and built as in :mod:`.mma`: one wave's
elements, times the CTA's waves, spread over the tensor.

>>> from layouts.linear.triton import AMDMFMALayout, to_linear_layout
>>> mfma = AMDMFMALayout(version=3, instr_shape=[32, 32, 8], transposed=False, warps_per_cta=[1, 1])
>>> to_linear_layout(mfma, [32, 32]).bases["register"]
((1, 0), (2, 0), (8, 0), (16, 0))
"""

from typing import Any, Dict, Tuple

from ...errors import LayoutError, LayoutTypeError, show
from ..algebra import multiply
from ..layout import LinearLayout
from ._base import _cga, _int, _pow2_list, dim_names, dot_operand_order, identity_nd, matrix_order
from .distributed import DistributedEncoding
from .mma import along, layout_of_element, project_off, spread

WAVE = 64                           # lanes in a CDNA wavefront
MFMA_SHAPES = ((32, 32), (16, 16), (64, 4), (4, 64))
WMMA_SHAPES = {1: ((16, 16, 16),), 2: ((16, 16, 16), (16, 16, 32)),      # the 3.9.0 wheel's verifier
               3: ((16, 16, 4), (16, 16, 32), (16, 16, 64), (16, 16, 128))}
WMMA_WAVE = 32                      # lanes in an RDNA (wave32) wave
WMMA_TILE = 16                      # WMMA's M and N


def mfma_block(across: str, across_size: int, run_dim: str, run: int, registers: int) -> LinearLayout:
    """One wavefront's part of an MFMA operand or result (CDNA3 ISA, MFMA register layouts):
    lane ``l`` sits at ``l % across_size`` along ``across`` and holds ``run`` consecutive
    elements along ``run_dim`` from ``run * (l // across_size)``; the next ``run`` registers
    continue along ``run_dim`` past all the lanes' runs.

    A 32x32 result (f32) is ``mfma_block(N, 32, M, 4, 16)``: lane ``l`` holds column ``l % 32``,
    rows ``4 (l // 32) + 0..3`` and then 8 rows further per 4 registers.

    >>> mfma_block("dim1", 32, "dim0", 4, 16).transpose_outs(["dim0", "dim1"]).bases["register"]
    ((1, 0), (2, 0), (8, 0), (16, 0))
    """
    groups = WAVE // across_size

    def element(register: int, lane: int) -> Dict[str, int]:
        return {across: lane % across_size,
                run_dim: register % run + run * (lane // across_size) + run * groups * (register // run)}
    return layout_of_element(element, registers, WAVE, [run_dim, across])


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

    def _result_block(self) -> LinearLayout:
        """One MFMA result tile in one wavefront: lanes across N (across M when transposed);
        each lane holds runs of 4 consecutive 32-bit results down the other dim (single 64-bit
        ones), as many as fill the ``M x N`` tile."""
        names = dim_names(self.rank)
        m, n = self.instr_shape[:2]
        run = 1 if self.element_bitwidth == 64 else 4
        registers = m * n // WAVE
        if self.transposed:
            return mfma_block(names[-2], m, names[-1], run, registers)
        return mfma_block(names[-1], n, names[-2], run, registers)

    def _linear(self, shape: Tuple[int, ...]) -> LinearLayout:
        """The result tiles of one wave (``tiles_per_warp``) and the waves (``warps_per_cta``),
        N finished before M: along N the wave's tiles, the waves, then registers repeating the
        CTA row over the tensor's whole N; along M the wave's tiles then the waves; the batch
        dim's waves last. (The 3.9.0 wheel puts those N repeats before the M tiles.)"""
        names, rank = dim_names(self.rank), self.rank
        m_dim, n_dim = rank - 2, rank - 1
        tiles, warps = self.tiles_per_warp, self.warps_per_cta
        n_repeats = max(1, shape[n_dim] // (self.instr_shape[1] * warps[n_dim] * tiles[n_dim]))
        layout = multiply(self._result_block(), along(names[n_dim], ("register", tiles[n_dim]),
                                                      ("warp", warps[n_dim]), ("register", n_repeats)))
        layout = multiply(layout, along(names[m_dim], ("register", tiles[m_dim]), ("warp", warps[m_dim])))
        if rank == 3:
            layout = multiply(layout, along(names[0], ("warp", warps[0])))
        return spread(layout, matrix_order(rank, row_major=True), self.cga_layout, shape)

    # the operand of a dot with this accumulator (DotOperandLayout delegates here)
    def _check_dot(self, op: int, k_width: int) -> None:
        if k_width < 1 or k_width & (k_width - 1):
            raise LayoutError(f"k_width must be a power of two for an MFMA parent, got {k_width}")

    def _dot_linear(self, operand: Any, shape: Tuple[int, ...]) -> LinearLayout:
        """An MFMA operand: lanes across its non-K dim, each holding ``k_width`` consecutive K
        (:func:`mfma_block`), registers continuing along K over the tensor's K (at least 16
        groups for the operand 64 wide, A of a 64x4 MFMA or B of a 4x64, as the wheel gives), the
        wave's tiles along the non-K dim, then the accumulator's waves, copies along K. Its
        blocks are the parent's ``cga_layout`` as it is (the 3.9.0 wheel does not broadcast
        them along K here, unlike its WMMA and NVIDIA operands)."""
        op, k_width, rank = operand.operand_index, operand.k_width, self.rank
        names = dim_names(rank)
        k_dim, other_dim = (rank - 1, rank - 2) if op == 0 else (rank - 2, rank - 1)
        m, n = self.instr_shape[:2]
        across = m if op == 0 else n
        k_per_group = WAVE // across * k_width
        wide = (m, n, op) in ((64, 4, 0), (4, 64, 1))
        groups = max(16 if wide else 1, shape[k_dim] // k_per_group)
        block = mfma_block(names[other_dim], across, names[k_dim], k_width, k_width * groups)
        layout = multiply(block, along(names[other_dim], ("register", self.tiles_per_warp[other_dim])))
        waves = identity_nd("warp", self.warps_per_cta, matrix_order(rank, row_major=True))
        layout = multiply(layout, project_off(waves, names[k_dim]))
        return spread(layout, dot_operand_order(op, rank), self.cga_layout, shape)


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


def _tiles_layout(reg_bases: Any, warp_bases: Any, rank: int) -> LinearLayout:
    """``reg_bases`` and ``warp_bases`` as a layout onto the grid of 16x16 WMMA tiles."""
    return LinearLayout.from_bases({"register": [list(b) for b in reg_bases], "warp": [list(b) for b in warp_bases]},
                                   list(dim_names(rank)))


def wmma_result_tile(version: int, rows: str, cols: str) -> LinearLayout:
    """One wave's 16x16 WMMA result (RDNA3 and RDNA4 ISA guides, WMMA result layout): lane
    ``l`` holds column ``l % 16`` and 8 of its rows: on RDNA3 (``version`` 1) every other row,
    from row ``l // 16``; on RDNA4 and gfx1250 8 consecutive rows, from row ``8 (l // 16)``.

    >>> wmma_result_tile(2, "dim0", "dim1").transpose_outs(["dim0", "dim1"]).bases
    {'register': ((1, 0), (2, 0), (4, 0)), 'lane': ((0, 1), (0, 2), (0, 4), (0, 8), (8, 0))}
    """
    half = WMMA_WAVE // WMMA_TILE

    def element(register: int, lane: int) -> Dict[str, int]:
        if version == 1:
            row = half * register + lane // WMMA_TILE
        else:
            row = register + (WMMA_TILE // half) * (lane // WMMA_TILE)
        return {rows: row, cols: lane % WMMA_TILE}
    return layout_of_element(element, WMMA_TILE // half, WMMA_WAVE, [cols, rows])


def wmma_operand_tile(version: int, k: str, other: str, k_width: int, instr_k: int) -> LinearLayout:
    """One wave's WMMA operand (RDNA3 and RDNA4 ISA guides, WMMA operand layout): lane ``l``
    holds row (A) or column (B) ``l % 16`` and ``k_width`` consecutive K per run; on RDNA3
    (``version`` 1) both half-waves hold the same K, its registers running straight along K;
    later, half-wave ``l // 16`` starts ``k_width`` further and each next run of registers
    skips the other half-wave's run. Registers cover the instruction's K (at least one run).

    >>> wmma_operand_tile(2, "dim1", "dim0", 8, 16).bases
    {'register': ((1, 0), (2, 0), (4, 0)), 'lane': ((0, 1), (0, 2), (0, 4), (0, 8), (8, 0))}
    """
    half = WMMA_WAVE // WMMA_TILE
    runs = max(1, instr_k // (half * k_width))

    def element(register: int, lane: int) -> Dict[str, int]:
        if version == 1:
            k_index = register
        else:
            run, start = register // k_width, register % k_width
            k_index = start + k_width * (lane // WMMA_TILE) + half * k_width * run
        return {k: k_index, other: lane % WMMA_TILE}
    return layout_of_element(element, k_width * runs, WMMA_WAVE, [k, other])


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
            _tiles_layout(regs, warps, rank)
        except LayoutError as e:
            raise LayoutError(f"reg_bases and warp_bases do not make a layout of tiles: {e}") from None
        self._init(version=version, transposed=transposed, warp_bases=warps, reg_bases=regs, instr_shape=instr,
                   cga_layout=_cga(cga_layout, rank), rank=rank)

    def _tiles(self) -> LinearLayout:
        return _tiles_layout(self.reg_bases, self.warp_bases, self.rank)

    def _linear(self, shape: Tuple[int, ...]) -> LinearLayout:
        """One 16x16 result tile (:func:`wmma_result_tile`, rows and columns swapped when
        ``transposed``), times the grid of tiles that ``reg_bases`` and ``warp_bases`` give."""
        names = dim_names(self.rank)
        rows, cols = (names[-1], names[-2]) if self.transposed else (names[-2], names[-1])
        layout = multiply(wmma_result_tile(self.version, rows, cols), self._tiles())
        return spread(layout, matrix_order(self.rank, row_major=True), self.cga_layout, shape)

    # the operand of a dot with this accumulator (DotOperandLayout delegates here)
    def _check_dot(self, op: int, k_width: int) -> None:
        allowed = {1: (8, 16), 2: (4, 8, 16)}.get(self.version)        # the 3.9.0 wheel's verifier
        if allowed and k_width not in allowed:
            raise LayoutError(f"k_width must be one of {list(allowed)} for a WMMA version {self.version} parent, "
                              f"got {k_width}")
        if k_width < 1 or k_width & (k_width - 1) or k_width > 64:
            raise LayoutError(f"k_width must be a power of two in 1..64 for a WMMA parent, got {k_width}")

    def _dot_linear(self, operand: Any, shape: Tuple[int, ...]) -> LinearLayout:
        """One WMMA operand tile (:func:`wmma_operand_tile`) times the accumulator's grid of
        tiles seen from the operand: projected off K, where warps become copies and register
        repeats vanish; blocks broadcast along K."""
        op, rank = operand.operand_index, self.rank
        names = dim_names(rank)
        k, other = (names[-1], names[-2]) if op == 0 else (names[-2], names[-1])
        tile = wmma_operand_tile(self.version, k, other, operand.k_width, self.instr_shape[2])
        grid = project_off(self._tiles(), k)
        grid = LinearLayout.from_bases({"register": [list(b) for b in grid.bases["register"] if any(b)],
                                        "warp": [list(b) for b in grid.bases["warp"]]},
                                       grid.out_dims, require_surjective=False)
        return spread(multiply(tile, grid), dot_operand_order(op, rank), operand.cga_layout, shape)
