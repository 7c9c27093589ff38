"""CUTLASS's SM80 MMA atoms (layouts.cute.atoms.SM80) against PTX's fragment tables for mma.sync.

The oracle is the PTX ISA's description of who holds what ("Matrix Fragments for mma.m16n8k16 /
m16n8k8"), written as formulas in lane = 4 * groupID + threadID_in_group and the register index i:
an independent source from the CuTe TV layouts under test.
"""

from __future__ import annotations

import pytest

from layouts.cute.atoms import SM80, tv_coords


def _ptx_f16_m16n8k16(operand, lane, i):
    g, t = lane // 4, lane % 4
    if operand == "A":        # 16 x 16 (row m, col k), 8 halves a0..a7
        return g + 8 * ((i // 2) % 2), 2 * t + (i % 2) + 8 * (i // 4)
    if operand == "B":        # 16 x 8 (row k, col n), 4 halves b0..b3
        return 2 * t + (i % 2) + 8 * (i // 2), g
    return g + 8 * (i // 2), 2 * t + (i % 2)          # C/D 16 x 8, 4 values c0..c3


def _ptx_f16_m16n8k8(operand, lane, i):
    g, t = lane // 4, lane % 4
    if operand == "A":        # 16 x 8, a0..a3
        return g + 8 * (i // 2), 2 * t + (i % 2)
    if operand == "B":        # 8 x 8 (k, n), b0..b1
        return 2 * t + i, g
    return g + 8 * (i // 2), 2 * t + (i % 2)


def _ptx_tf32_m16n8k8(operand, lane, i):
    g, t = lane // 4, lane % 4
    if operand == "A":        # 16 x 8, a0..a3
        return g + 8 * (i % 2), t + 4 * (i // 2)
    if operand == "B":        # 8 x 8 (k, n), b0..b1
        return t + 4 * i, g
    return g + 8 * (i // 2), 2 * t + (i % 2)


PTX = {"SM80_16x8x16": _ptx_f16_m16n8k16, "SM80_16x8x8_F32TF32": _ptx_tf32_m16n8k8, "SM80_16x8x8": _ptx_f16_m16n8k8}


def _oracle(name):
    for prefix, f in PTX.items():
        if name.startswith(prefix):
            return f
    raise KeyError(name)


@pytest.mark.parametrize("name", sorted(SM80))
@pytest.mark.parametrize("operand", ["A", "B", "C"])
def test_each_lane_and_register_holds_what_ptx_says(name, operand):
    atom = SM80[name]
    M, N, K = atom.shape_mnk
    ptx = _oracle(name)
    tv = getattr(atom, operand)
    rows, cols = {"A": (M, K), "B": (N, K), "C": (M, N)}[operand]
    lane, reg = tv_coords(tv, rows, cols)                     # covers the tile exactly once, or raises
    assert atom.threads == 32
    for r in range(rows):
        for c in range(cols):
            # PTX indexes B as (k, n); CuTe's B tile is N x K
            want = (c, r) if operand == "B" else (r, c)
            assert ptx(operand, int(lane[r, c]), int(reg[r, c])) == want, (name, operand, r, c)


# ------------------------------------------------------------------ ldmatrix (SM75)
from layouts.cute.atoms import SM75_LDSM  # noqa: E402


def _ptx_ldmatrix(trans, lane, matrix, half):
    """(row, col) of the 16-bit element a lane holds in its register for ``matrix``, half ``half``
    (PTX: without .trans, row lane/4 and columns 2*(lane%4) + half; with .trans, the transpose)."""
    if trans:
        return 2 * (lane % 4) + half, lane // 4
    return lane // 4, 2 * (lane % 4) + half


@pytest.mark.parametrize("name", sorted(SM75_LDSM))
def test_ldmatrix_lanes_get_what_ptx_says(name):
    atom = SM75_LDSM[name]
    n = atom.matrices
    seen = set()
    for lane in range(32):
        for v in range(32 * n):
            bit = atom.dst(lane, v)
            seen.add(bit)
            e, within = divmod(bit, 16)
            matrix, row, col = e // 64, (e % 64) // 8, e % 8
            half = (v % 32) // 16
            assert within == v % 16, (name, lane, v)                 # whole elements, bit by bit
            assert matrix == v // 32, (name, lane, v)                # register k holds matrix k
            assert (row, col) == _ptx_ldmatrix(atom.trans, lane, matrix, half), (name, lane, v)
    assert seen == set(range(1024 * n))                              # every bit lands once
    for lane in range(8 * n):                                        # lane l gives row l % 8 of matrix l // 8
        first = atom.src(lane, 0) // 16
        assert (first // 64, (first % 64) // 8, first % 8) == (lane // 8, lane % 8, 0)
        assert [atom.src(lane, b) for b in range(128)] == list(range(atom.src(lane, 0), atom.src(lane, 0) + 128))


# ------------------------------------------------------------------ wgmma accumulators (SM90)
from layouts import LayoutError  # noqa: E402
from layouts.cute.atoms import sm90_gmma_accumulator  # noqa: E402


@pytest.mark.parametrize("n", [8, 16, 64, 128, 200, 256])
def test_wgmma_accumulator_holds_what_ptx_says(n):
    """PTX's m64nNk16 D fragment: thread 32*w + lane, value i holds row 16w + lane/4 + 8*((i >> 1) & 1),
    column 8*(i >> 2) + 2*(lane % 4) + (i & 1)."""
    tv = sm90_gmma_accumulator(n)
    thread, value = tv_coords(tv, 64, n)
    for r in range(64):
        for c in range(n):
            t, i = int(thread[r, c]), int(value[r, c])
            w, lane = divmod(t, 32)
            assert (16 * w + lane // 4 + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * (lane % 4) + (i & 1)) == (r, c)


@pytest.mark.parametrize("bad", [0, 4, 12, 264, 8.0])
def test_wgmma_accumulator_refuses_an_n_wgmma_has_not(bad):
    with pytest.raises(LayoutError, match="multiple of 8"):
        sm90_gmma_accumulator(bad)


# ------------------------------------------------------------------ tiling an atom over warps
from layouts.cute.atoms import tile_atom  # noqa: E402


@pytest.mark.parametrize("warps", [(1, 1), (2, 2), (1, 4), (4, 1), (2, 3)])
@pytest.mark.parametrize("operand", ["A", "B", "C"])
def test_a_tiled_atom_gives_each_warp_its_block(operand, warps):
    """Oracle: the atom's own lane and register at (r % m, c % n), on warp (r // m) + wm * (c // n)."""
    atom = SM80["SM80_16x8x16_F32F16F16F32_TN"]
    M, N, K = atom.shape_mnk
    m, n = {"A": (M, K), "B": (N, K), "C": (M, N)}[operand]
    tv = getattr(atom, operand)
    lane, reg = tv_coords(tv, m, n)
    wm, wn = warps
    thread, value = tv_coords(tile_atom(tv, m, n, warps), m * wm, n * wn)   # exactly once, or it raises
    for r in range(m * wm):
        for c in range(n * wn):
            warp = r // m + wm * (c // n)
            assert int(thread[r, c]) == int(lane[r % m, c % n]) + 32 * warp
            assert int(value[r, c]) == int(reg[r % m, c % n])


def test_tiling_refuses_a_stride_across_rows_and_columns():
    from layouts.cute import Layout

    with pytest.raises(LayoutError, match="both"):
        tile_atom(Layout((2, 2), (1, 3)), 2, 2, (2, 1))
