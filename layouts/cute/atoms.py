"""Thread-value layouts of MMA atoms, the values of CuTe's ``mma_traits_sm80.hpp`` (CUTLASS).

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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import LayoutError
from .layout import Layout

__all__ = ["MMAAtom", "SM80", "SM80_16x8x16_C", "CopyAtom", "SM75_LDSM", "sm90_gmma_accumulator", "tile_atom", "tv_coords"]

#: The C (accumulator) fragment of SM80's ``mma.sync.m16n8k16`` (``SM80_16x8_Row`` in CuTe):
#: ``((T4,T8),(V2,V2)):((32,1),(16,8))`` -- thread ``t`` holds rows ``t/4`` and ``t/4 + 8``,
#: columns ``2*(t%4)`` and ``2*(t%4) + 1``.
SM80_16x8x16_C = Layout(((4, 8), (2, 2)), ((32, 1), (16, 8)))


@dataclass(frozen=True)
class MMAAtom:
    """One MMA instruction as CuTe describes it: its ``(M, N, K)`` and the TV layouts of A, B, C
    (thread modes first: 32 lanes of a warp, ``lane = t0 + 4*t1``)."""

    name: str
    shape_mnk: tuple
    A: Layout
    B: Layout
    C: Layout

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
    elements, stored row after row, matrix after matrix; ``trans``: ldmatrix's ``.trans``."""

    name: str
    matrices: int
    trans: bool
    src: Layout
    dst: Layout


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
