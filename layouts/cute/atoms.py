"""Thread-value layouts of MMA and copy atoms: the values of CUTLASS's CuTe traits headers.

A TV layout maps (thread, value) to the column-major index of an element of the operand's tile:
``m + M*k`` for A (M x K), ``n + N*k`` for B (N x K: CuTe's B is K-major), ``m + M*n`` for the
accumulator C (M x N). :data:`SM80` names each atom by its CUTLASS name, ``SM80_MxNxK_<types>_TN``;
:func:`tv_coords` gives, per element of a tile, the thread (lane) and the value (register slot)
that hold it, which is what PTX's fragment tables list.

>>> t, v = tv_coords(SM80_16x8x16_C, 16, 8)
>>> t[0, :2].tolist(), v[0, :2].tolist(), int(t[8, 0]), int(v[8, 0])
([0, 0], [0, 1], 0, 2)
>>> atom = SM80["SM80_16x8x16_F32F16F16F32_TN"]
>>> atom.shape_mnk, str(atom.A)
((16, 8, 16), '((4,8),(2,2,2)):((32,1),(16,8,128))')

:data:`MMA` and :data:`COPY` hold every atom of CUTLASS's traits headers for SM70 to SM120 by
CUTLASS's name (the values are in :mod:`layouts.cute.atom_tables`); each is built on first use.

>>> hopper = MMA["SM90_64x128x16_F32F16F16_SS"]
>>> hopper.shape_mnk, str(hopper.A), str(hopper.C)
((64, 128, 16), '(128,(64,16)):(0,(1,64))', '((4,8,4),(2,2,16)):((128,1,16),(64,8,512))')
>>> str(MMA["SM100_MMA_F16BF16_2x1SM_SS<256,128>"].C)
'(2,(128,128)):(128,(1,256))'
>>> print(COPY["SM90_U32x4_STSM_N"].dst)
(32,128):(128,1)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Generic, Optional, TypeVar

import numpy as np

from ..errors import LayoutError
from .layout import Layout

__all__ = ["MMAAtom", "SM80", "SM80_16x8x16_C", "CopyAtom", "SM75_LDSM", "sm90_gmma_accumulator", "tile_atom", "tv_coords",
           "MMA", "COPY", "TMA_SWIZZLE", "SMEM_ATOMS", "in_elements"]

#: The C (accumulator) fragment of SM80's ``mma.sync.m16n8k16`` (``SM80_16x8_Row`` in CuTe):
#: ``((T4,T8),(V2,V2)):((32,1),(16,8))`` -- thread ``t`` holds rows ``t/4`` and ``t/4 + 8``,
#: columns ``2*(t%4)`` and ``2*(t%4) + 1``.
SM80_16x8x16_C = Layout(((4, 8), (2, 2)), ((32, 1), (16, 8)))


@dataclass(frozen=True)
class MMAAtom:
    """One MMA instruction as CuTe describes it: its ``(M, N, K)`` and the TV layouts of A, B, C
    (thread modes first: 32 lanes of a warp, ``lane = t0 + 4*t1``, for ``mma.sync``; 128 threads
    of a warpgroup for ``wgmma``; one thread per CTA for ``tcgen05.mma``). ``thr_id`` maps the
    layouts' thread index to the hardware thread (SM70's quad pair; ``None``: the same)."""

    name: str
    shape_mnk: tuple
    A: Layout
    B: Layout
    C: Layout
    thr_id: Optional[Layout] = None

    @property
    def threads(self) -> int:
        return self.C[0].size()


_ROW_8x8 = Layout(((4, 8), 2), ((16, 1), 8))                 # SM80_8x8_Row: (T32,V2) -> (M8,N8)
_F16_16x8x8 = (SM80_16x8x16_C, _ROW_8x8, SM80_16x8x16_C)
_F16_16x8x16 = (Layout(((4, 8), (2, 2, 2)), ((32, 1), (16, 8, 128))),
                Layout(((4, 8), (2, 2)), ((16, 1), (8, 64))), SM80_16x8x16_C)
_TF32_16x8x8 = (Layout(((4, 8), (2, 2)), ((16, 1), (8, 64))), Layout(((4, 8), 2), ((8, 1), 32)), SM80_16x8x16_C)

#: CUTLASS's SM80 MMA atoms by name: f16/bf16 16x8x8 and 16x8x16 (their f16 and f32 accumulator
#: forms share the layouts), tf32 16x8x8
SM80 = {name: MMAAtom(name, mnk, *tv) for name, mnk, tv in [
    ("SM80_16x8x8_F16F16F16F16_TN", (16, 8, 8), _F16_16x8x8),
    ("SM80_16x8x8_F32F16F16F32_TN", (16, 8, 8), _F16_16x8x8),
    ("SM80_16x8x8_F32BF16BF16F32_TN", (16, 8, 8), _F16_16x8x8),
    ("SM80_16x8x16_F16F16F16F16_TN", (16, 8, 16), _F16_16x8x16),
    ("SM80_16x8x16_F32F16F16F32_TN", (16, 8, 16), _F16_16x8x16),
    ("SM80_16x8x16_F32BF16BF16F32_TN", (16, 8, 16), _F16_16x8x16),
    ("SM80_16x8x8_F32TF32TF32F32_TN", (16, 8, 8), _TF32_16x8x8),
]}


@dataclass(frozen=True)
class CopyAtom:
    """One copy instruction as CuTe describes it: ``src`` and ``dst`` map (thread, value) to a
    bit of the data moved (``copy_traits_sm75.hpp``); ``matrices`` 8 x 8 matrices of 16-bit
    elements, stored row after row, matrix after matrix (0 for a copy that is not
    ``ldmatrix``/``stmatrix``/``movmatrix``); ``trans``: ``.trans``; ``thr_id`` as
    :class:`MMAAtom`'s."""

    name: str
    matrices: int
    trans: bool
    src: Layout
    dst: Layout
    thr_id: Optional[Layout] = None


def _ldsm(name: str, n: int, trans: bool) -> CopyAtom:
    # the rows' addresses: each of 8*n lanes gives one 128-bit row (the other lanes' are unused)
    src = Layout((32, 128), (128, 1)) if n == 4 else Layout(((8 * n, 4 // n), 128), ((128, 0), 1))
    if trans:  # lane t0 + 4*t1 holds column t1 of rows 2*t0, 2*t0 + 1 of each matrix
        vals = (16, 2) + ((n,) if n > 1 else ())
        dst = Layout(((4, 8), vals), ((256, 16), (1, 128) + ((1024,) if n > 1 else ())))
    else:      # lane t holds 32 bits: row t/4, columns 2*(t%4) and 2*(t%4) + 1 of each matrix
        dst = Layout((32, 32), (32, 1)) if n == 1 else Layout((32, (32, n)), (32, (1, 1024)))
    return CopyAtom(name, n, trans, src, dst)


#: CUTLASS's SM75 ldmatrix atoms (``ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].b16``) by name
SM75_LDSM = {a.name: a for a in [
    _ldsm("SM75_U32x1_LDSM_N", 1, False), _ldsm("SM75_U32x2_LDSM_N", 2, False), _ldsm("SM75_U32x4_LDSM_N", 4, False),
    _ldsm("SM75_U16x2_LDSM_T", 1, True), _ldsm("SM75_U16x4_LDSM_T", 2, True), _ldsm("SM75_U16x8_LDSM_T", 4, True),
]}


def sm90_gmma_accumulator(n: int) -> Layout:
    """The accumulator of SM90's ``wgmma.mma_async.m64nNk*``: (128 threads of a warpgroup, N/2
    values) -> element ``m + 64*n`` of the 64 x N tile (CUTLASS's ``GMMA::CLayout_64xN``; this
    keeps its last mode for N = 8 too, as CUTLASS's current header does). Warp ``w`` holds rows
    ``16w .. 16w + 15``; ``N`` is a multiple of 8 from 8 to 256.

    >>> print(sm90_gmma_accumulator(64))
    ((4,8,4),(2,2,8)):((128,1,16),(64,8,512))
    """
    from . import int_tuple as it

    if not it.is_int(n) or n % 8 or not 8 <= n <= 256:
        raise LayoutError(f"sm90_gmma_accumulator: N must be a multiple of 8 from 8 to 256 (wgmma's m64nNk), got {n!r}")
    return Layout(((4, 8, 4), (2, 2, int(n) // 8)), ((128, 1, 16), (64, 8, 512)))


def tile_atom(tv: Layout, m: int, n: int, warps: tuple = (1, 1)) -> Layout:
    """An atom's TV layout over its ``m x n`` tile, repeated over ``warps = (wm, wn)`` warps laid
    out column-major (``make_tiled_mma(atom, Layout<Shape<wm, wn>>)``'s thread order: thread
    ``lane + T*(i + wm*j)`` runs the atom on the tile's block ``(i, j)``): the TV layout over the
    ``(m*wm) x (n*wn)`` tile, index ``row + m*wm*col``.

    >>> C = tile_atom(SM80_16x8x16_C, 16, 8, (2, 2))
    >>> print(C)
    ((4,8,2,2),(2,2)):((64,1,16,256),(32,8))
    """
    from . import int_tuple as it

    if not isinstance(tv, Layout) or len(tv) != 2:
        raise LayoutError(f"tile_atom: a TV layout is a rank-2 layouts.cute.Layout (thread, value), got {tv!r}")
    if not (isinstance(warps, tuple) and len(warps) == 2 and all(it.is_int(w) and w >= 1 for w in warps)):
        raise LayoutError(f"tile_atom: warps must be (wm, wn), two counts >= 1, got {warps!r}")
    wm, wn = (int(w) for w in warps)
    tall = m * wm

    def lift(d: int) -> int:  # a stride of the m x n tile, as a stride of the tiled one
        if d >= m and d % m:
            raise LayoutError(f"tile_atom: stride {d} of {tv} moves along both the {m} rows and the columns; "
                              f"only a stride within one column or of whole columns can be tiled")
        return d % m + tall * (d // m)

    def lifted(shape: Any, stride: Any) -> Any:
        return tuple(lifted(s, d) for s, d in zip(shape, stride)) if isinstance(shape, tuple) else lift(stride)

    (ts, vs), (td, vd) = tv.shape, tv.stride
    tshape = (ts if isinstance(ts, tuple) else (ts,)) + (wm, wn)
    tstride = (lifted(ts, td) if isinstance(ts, tuple) else (lift(td),)) + (m, tall * n)
    return Layout((tshape, vs), (tstride, lifted(vs, vd)))


def tv_coords(tv: Layout, m: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """For each element ``(row, col)`` of the ``m x n`` tile: the thread and the value index
    that hold it (two int arrays of shape ``(m, n)``); LayoutError unless ``tv`` covers the tile
    exactly once.

    >>> t, v = tv_coords(Layout((2, 2), (1, 2)), 2, 2)
    >>> t.tolist(), v.tolist()
    ([[0, 0], [1, 1]], [[0, 1], [0, 1]])
    """
    if not isinstance(tv, Layout) or len(tv) != 2:
        raise LayoutError(f"a TV layout is a rank-2 layouts.cute.Layout (thread, value), got {tv!r}")
    threads = tv[0].size()
    offs = tv.offsets()
    if offs.size != m * n or sorted(offs.tolist()) != list(range(m * n)):
        raise LayoutError(f"TV layout {tv} does not cover the {m} x {n} tile exactly once")
    t = np.empty(m * n, dtype=np.int64)
    v = np.empty(m * n, dtype=np.int64)
    idx = np.arange(offs.size)
    t[offs] = idx % threads
    v[offs] = idx // threads
    # offset o = row + m * col
    return t.reshape(n, m).T.copy(), v.reshape(n, m).T.copy()


# ---------------------------------------------------------------------------------------------
# Every atom of CUTLASS's traits headers, by name
_T = TypeVar("_T")


class _Lazy(Mapping[str, _T], Generic[_T]):
    """A read-only name -> atom mapping whose atoms are built on first lookup."""

    def __init__(self, makers: dict[str, Callable[[], _T]]) -> None:
        self._makers = makers
        self._built: dict[str, _T] = {}

    def __getitem__(self, name: str) -> _T:
        if name not in self._built:
            if name not in self._makers:
                raise KeyError(name)
            self._built[name] = self._makers[name]()
        return self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._makers)

    def __len__(self) -> int:
        return len(self._makers)

    def __repr__(self) -> str:
        return f"<{len(self)} atoms: {', '.join(list(self._makers)[:3])}, ...>"


def _layout(pair: tuple) -> Layout:
    return Layout(*pair)


def _sync_atom(name: str, mnk: tuple, thr: tuple, a: tuple, b: tuple, c: tuple) -> MMAAtom:
    return MMAAtom(name, mnk, _layout(a), _layout(b), _layout(c), _layout(thr))


def _wgmma_atom(name: str, n: int, k: int, src: str) -> MMAAtom:
    from .atom_tables import wgmma

    a = wgmma.REGISTER_A[k] if src == "RS" else wgmma.from_shared(64, k)
    return MMAAtom(name, (64, n, k), _layout(a), _layout(wgmma.from_shared(n, k)), _layout(wgmma.accumulator(n)),
                   Layout(128))


def _umma_atom(name: str, m: int, n: int, k: int, ctas: int) -> MMAAtom:
    from .atom_tables import umma

    return MMAAtom(name, (m, n, k), _layout(umma.operand(ctas, m, k)), _layout(umma.operand(ctas, n, k)),
                   _layout(umma.operand(ctas, m, n)), Layout(ctas))


def _mma_makers() -> dict[str, Callable[[], MMAAtom]]:
    from .atom_tables import mma_sync, umma, wgmma

    makers: dict[str, Callable[[], MMAAtom]] = {}
    for names, mnk, thr, a, b, c in mma_sync.ROWS:
        for name in names:
            makers[name] = partial(_sync_atom, name, mnk, thr, a, b, c)
    for family in wgmma.FAMILIES:
        for name, (n, k, src) in wgmma.names_of(*family).items():
            makers[name] = partial(_wgmma_atom, name, n, k, src)
    for op, (k, ctas, _) in umma.OPS.items():
        for m, n in umma.shapes(op):
            name = f"SM100_MMA_{op}<{m},{n}>"
            makers[name] = partial(_umma_atom, name, m, n, k, ctas)
    return makers


def _matrices(name: str, registers: Layout) -> int:
    """8 x 8 matrices of 16 bits (1024 bits) a warp's registers hold, for the matrix copies."""
    return registers.size() // 1024 if any(op in name for op in ("LDSM", "STSM", "MOVM")) else 0


def _copy_atom(name: str, thr: tuple, src: tuple, dst: tuple) -> CopyAtom:
    s, d = _layout(src), _layout(dst)
    registers = s if "STSM" in name else d
    return CopyAtom(name, _matrices(name, registers), name.endswith("_T"), s, d, _layout(thr))


def _copy_makers() -> dict[str, Callable[[], CopyAtom]]:
    from .atom_tables import copies

    makers: dict[str, Callable[[], CopyAtom]] = {}
    for names, thr, src, dst in copies.ROWS:
        for name in names:
            makers[name] = partial(_copy_atom, name, thr, src, dst)
    for name, bits in copies.CP_ASYNC.items():
        makers[name] = partial(_copy_atom, name, (1, 0), ((1, bits), (0, 1)), ((1, bits), (0, 1)))
    return makers


#: CUTLASS's MMA atoms by name -> :class:`MMAAtom`: ``mma.sync`` of SM70 to SM90 and SM120
#: (``"SM80_16x8x16_F32F16F16F32_TN"``), SM90's ``wgmma`` (``"SM90_64x128x16_F32F16F16_SS"``) and
#: SM100's ``tcgen05.mma`` templates at each allowed (M, N) (``"SM100_MMA_F16BF16_SS<128,256>"``).
MMA: Mapping[str, MMAAtom] = _Lazy(_mma_makers())

#: CUTLASS's copy atoms by name -> :class:`CopyAtom` (``src``/``dst`` in bits): ``ldmatrix``
#: (``"SM75_U32x4_LDSM_N"``), ``stmatrix`` (``"SM90_U16x8_STSM_T"``), SM100's 8-bit variants and
#: TMEM loads/stores (``"SM100_TMEM_LOAD_32dp32b8x"``), ``tcgen05.cp``, ``cp.async``
#: (``"SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>"``).
COPY: Mapping[str, CopyAtom] = _Lazy(_copy_makers())


def _swizzles() -> tuple[dict, dict]:
    from .atom_tables import tma
    from .swizzle import ComposedLayout, Swizzle

    modes = {name: Swizzle(*bms) for name, bms in tma.TMA_SWIZZLE.items()}
    smem = {name: ComposedLayout(Swizzle(*bms), 0, Layout(shape, stride))
            for name, (bms, shape, stride) in tma.SMEM_ATOMS.items()}
    return modes, smem


#: TMA's shared-memory swizzle modes (``"B128"``, ...) as CuTe swizzles of the byte address;
#: :data:`SMEM_ATOMS`: the GMMA/UMMA canonical shared-memory atoms in bits (``"K_SW128"``, ...).
TMA_SWIZZLE, SMEM_ATOMS = _swizzles()


def in_elements(tv: Layout, bits: int) -> Layout:
    """A TV layout over bits (a copy atom's ``src``/``dst``) as one over elements of ``bits``
    bits: value ``j`` of a thread is its bits ``bits*j .. bits*j + bits - 1``, and they must be
    one element (consecutive, aligned), else LayoutError. CuTe calls this ``upcast<bits>``.

    >>> print(in_elements(COPY["SM75_U32x4_LDSM_N"].dst, 16))
    (32,(2,4)):(2,(1,64))
    """
    from . import int_tuple as it
    from .algebra import composition

    if not isinstance(tv, Layout) or len(tv) != 2:
        raise LayoutError(f"in_elements: a TV layout is a rank-2 layouts.cute.Layout (thread, value), got {tv!r}")
    if not it.is_int(bits) or bits < 1 or tv[1].size() % bits:
        raise LayoutError(f"in_elements: bits must divide the {tv[1].size()} values of each thread, got {bits!r}")
    firsts = composition(tv[1], Layout(tv[1].size() // bits, int(bits)))
    thread_stride, value_stride = tv[0].stride, firsts.stride
    if any(d % bits for d in it.flatten((thread_stride, value_stride))):
        raise LayoutError(f"in_elements: {tv} does not start every element of {bits} bits on a multiple of {bits}")
    out = Layout((tv[0].shape, firsts.shape), (_div(thread_stride, bits), _div(value_stride, bits)))
    whole = tv.offsets().reshape(-1, tv[0].size())                     # [value, thread] -> bit
    starts = out.offsets().reshape(-1, tv[0].size()) * bits
    if not np.array_equal(whole, (starts[:, None, :] + np.arange(bits)[None, :, None]).reshape(whole.shape)):
        raise LayoutError(f"in_elements: the values of {tv} are not whole elements of {bits} bits")
    return out


def _div(stride: Any, bits: int) -> Any:
    return tuple(_div(d, bits) for d in stride) if isinstance(stride, tuple) else stride // bits
