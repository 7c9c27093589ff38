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


# ------------------------------------------------------------------ every architecture's atoms
import re  # noqa: E402

import numpy as np  # noqa: E402

from layouts.cute import Layout  # noqa: E402
from layouts.cute import filter as filter_  # noqa: E402
from layouts.cute.atoms import COPY, MMA, SMEM_ATOMS, TMA_SWIZZLE, in_elements  # noqa: E402


def _arch(name):
    return name.split("_")[0]


def test_the_tables_hold_every_architecture():
    """Counts per architecture (CUTLASS commit 7107b05): what the headers define, enumerated."""
    mma = {a: sum(_arch(n) == a for n in MMA) for a in ("SM70", "SM75", "SM80", "SM89", "SM90", "SM100", "SM120")}
    assert mma == {"SM70": 8, "SM75": 3, "SM80": 65, "SM89": 8, "SM90": 1062, "SM100": 1334, "SM120": 3}
    copy = {a: sum(_arch(n) == a for n in COPY) for a in ("SM75", "SM80", "SM90", "SM100")}
    assert copy == {"SM75": 7, "SM80": 8, "SM90": 6, "SM100": 175}
    assert sum(1 for n in MMA if re.fullmatch(r"SM90_64x\d+x\d+_\w+_(SS|RS)\w*", n)) == 1056


def _covers_once(tv, rows, cols):
    """Every element of the rows x cols tile held exactly once: by the whole TV layout, or, when
    every thread names the whole tile (a shared-memory descriptor: thread stride 0), by its values."""
    from layouts.cute.int_tuple import flatten

    shared = tv[0].size() > 1 and not any(flatten((tv[0].stride,)))
    offsets = (tv[1] if shared else tv).offsets()
    return offsets.size == rows * cols and offsets.min() >= 0 and bool((np.bincount(offsets) == 1).all())


@pytest.mark.parametrize("arch", ["SM70", "SM75", "SM80", "SM89", "SM90", "SM100", "SM120"])
def test_every_mma_atom_covers_its_tiles_once(arch):
    """The definition of an MMA atom's TV layouts: A covers M x K, B N x K, C M x N, each element
    once; the three thread modes and the thread ids have one size."""
    for name, atom in MMA.items():
        if _arch(name) != arch:
            continue
        M, N, K = atom.shape_mnk
        assert _covers_once(atom.A, M, K) and _covers_once(atom.B, N, K) and _covers_once(atom.C, M, N), name
        assert atom.A[0].size() == atom.B[0].size() == atom.C[0].size() == atom.thr_id.size(), name
        assert atom.name == name


def test_the_sm80_atoms_are_the_older_table_s():
    for name, atom in SM80.items():
        new = MMA[name]
        assert (str(new.A), str(new.B), str(new.C), new.shape_mnk) == (str(atom.A), str(atom.B), str(atom.C), atom.shape_mnk)


def _cells(tv, rows):
    """{(thread, value): (row, col)} of a TV layout over a column-major tile of ``rows`` rows."""
    T, V = tv[0].size(), tv[1].size()
    return {(t, v): divmod(int(tv(t + T * v)), rows)[::-1] for t in range(T) for v in range(V)}


def test_sm70_quad_pairs_hold_the_rows_ptx_gives():
    """PTX m8n8k4, f16 accumulator: lane l < 16 holds row l % 4, lane l >= 16 row l % 4 + 4; value i
    is column i. CuTe's logical thread t is lane ``thr_id(t)``."""
    atom = MMA["SM70_8x8x4_F16F16F16F16_TN"]
    for (t, i), (row, col) in _cells(atom.C, 8).items():
        lane = atom.thr_id(t)
        assert (row, col) == (lane % 4 + (4 if lane >= 16 else 0), i)
    assert [atom.thr_id(t) for t in range(8)] == [0, 1, 2, 3, 16, 17, 18, 19]


def test_sm89_fp8_a_fragment_is_ptx_s():
    """PTX m16n8k32 (.e4m3/.e5m2) A: a_i of lane 4g + q is row g + 8 * ((i >> 2) & 1), column
    4q + (i & 3) + 16 * (i >> 3)."""
    for (lane, i), cell in _cells(MMA["SM89_16x8x32_F32E4M3E5M2F32_TN"].A, 16).items():
        g, q = divmod(lane, 4)
        assert cell == (g + 8 * ((i >> 2) & 1), 4 * q + (i & 3) + 16 * (i >> 3))


def test_sm120_fp4_a_fragment_is_ptx_s():
    """PTX m16n8k64 (4-bit) A: a_i of lane 4g + q is row g + 8 * ((i >> 3) & 1), column
    8q + (i & 7) + 32 * (i >> 4)."""
    for (lane, i), cell in _cells(MMA["SM120_16x8x64_TN_VS"].A, 16).items():
        g, q = divmod(lane, 4)
        assert cell == (g + 8 * ((i >> 3) & 1), 8 * q + (i & 7) + 32 * (i >> 4))


@pytest.mark.parametrize("name", ["SM90_64x64x16_F32BF16BF16_RS", "SM90_64x24x8_F32TF32TF32_RS_TN"])
def test_wgmma_register_a_is_ptx_s(name):
    """PTX wgmma A in registers, thread 32w + 4g + q: 16-bit a_i at row 16w + g + 8 * ((i >> 1) & 1),
    column 2q + (i & 1) + 8 * (i >> 2); tf32 a_i at row 16w + g + 8 * (i & 1), column q + 4 * (i >> 1)."""
    atom = MMA[name]
    for (t, i), cell in _cells(atom.A, 64).items():
        w, lane = divmod(t, 32)
        g, q = divmod(lane, 4)
        if atom.shape_mnk[2] == 16:
            assert cell == (16 * w + g + 8 * ((i >> 1) & 1), 2 * q + (i & 1) + 8 * (i >> 2))
        else:
            assert cell == (16 * w + g + 8 * (i & 1), q + 4 * (i >> 1))


def test_wgmma_shared_operands_and_accumulators():
    """SS: every thread names the whole tile (a descriptor); C is CLayout_64xN for every N."""
    for name, atom in MMA.items():
        if not name.startswith("SM90_64x"):
            continue
        M, N, K = atom.shape_mnk
        assert str(atom.B) == f"(128,({N},{K})):(0,(1,{N}))", name
        assert atom.C == sm90_gmma_accumulator(N), name
        if "_SS" in name:
            assert str(atom.A) == f"(128,(64,{K})):(0,(1,64))", name


def test_umma_pairs_split_rows_between_the_two_ctas():
    """tcgen05.mma.cta_group::2 on M = 256: CTA i holds rows 128 i .. 128 i + 127 of A and D, and
    columns 64 i .. 64 i + 63 of B (N = 128); one CTA alone holds everything."""
    pair = MMA["SM100_MMA_F16BF16_2x1SM_SS<256,128>"]
    assert pair.shape_mnk == (256, 128, 16) and pair.thr_id.size() == 2
    for (cta, v), (row, _) in _cells(pair.A, 256).items():
        assert row // 128 == cta
    for (cta, v), (row, _) in _cells(pair.B, 128).items():
        assert row // 64 == cta
    one = MMA["SM100_MMA_MXF4_SS<128,248>"]
    assert one.shape_mnk == (128, 248, 64) and one.thr_id.size() == 1
    assert "SM100_MMA_MXF4_SS<64,8>" not in MMA and "SM100_MMA_S8_SS<128,24>" not in MMA


# ------------------------------------------------------------------ copy atoms
@pytest.mark.parametrize("name", sorted(SM75_LDSM))
def test_ldmatrix_in_copy_is_the_older_table_s(name):
    new, old = COPY[name], SM75_LDSM[name]
    assert (str(new.src), str(new.dst), new.matrices, new.trans) == (str(old.src), str(old.dst), old.matrices, old.trans)


@pytest.mark.parametrize("n,t", [(1, "U32x1"), (2, "U32x2"), (4, "U32x4"), (1, "U16x2"), (2, "U16x4"), (4, "U16x8")])
def test_stmatrix_is_ldmatrix_the_other_way(n, t):
    nt = "T" if t.startswith("U16") else "N"
    st, ld = COPY[f"SM90_{t}_STSM_{nt}"], COPY[f"SM75_{t}_LDSM_{nt}"]
    assert (str(st.src), str(st.dst)) == (str(ld.dst), str(ld.src))
    assert st.matrices == ld.matrices == n and st.trans == ld.trans == (nt == "T")


def test_every_copy_moves_the_same_bits_it_reads():
    """src and dst name the same set of bits 0 .. B-1 and have as many threads as the thread ids;
    tcgen05.cp's broadcast forms read fewer bits than they write, so only their sizes agree."""
    for name, atom in COPY.items():
        assert atom.src[0].size() == atom.dst[0].size() == atom.thr_id.size(), name
        if "UTCCP" in name:
            assert atom.src.size() == atom.dst.size(), name
            continue
        src, dst = (np.bincount(filter_(tv).offsets()) > 0 for tv in (atom.src, atom.dst))   # the images
        assert src.all() and dst.all() and src.size == dst.size, name


@pytest.mark.parametrize("reps", [1, 2, 8, 128])
def test_tmem_32dp32b_loads_give_lane_t_row_t(reps):
    """PTX tcgen05.ld.32x32b.xN: thread t receives TMEM lane t, columns 0 .. N-1, in register order;
    CuTe's reference numbers the 32-bit words lane-major (lane * N + column)."""
    dst = in_elements(COPY[f"SM100_TMEM_LOAD_32dp32b{reps}x"].dst, 32)
    for t in range(32):
        assert [divmod(int(dst(t + 32 * j)), reps) for j in range(reps)] == [(t, j) for j in range(reps)]


def test_cp_async_moves_one_vector():
    assert COPY["SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>"].src == Layout((1, 128), (0, 1))
    assert "SM80_CP_ASYNC_CACHEGLOBAL<uint32_t>" not in COPY            # .cg copies 16 bytes only
    assert str(in_elements(COPY["SM80_CP_ASYNC_CACHEALWAYS<uint64_t>"].dst, 16)) == "(1,4):(0,1)"


def test_in_elements_refuses_a_split_element():
    with pytest.raises(LayoutError, match="bits"):
        in_elements(COPY["SM75_U32x1_LDSM_N"].dst, 3)
    assert str(in_elements(Layout((2, 4), (4, 1)), 2)) == "(2,2):(2,1)"   # thread t: bits 4t .. 4t + 3
    # thread 0 holds bits 0, 2; thread 1 bits 1, 3: no 2-bit element is one thread's
    with pytest.raises(LayoutError, match="whole elements|multiple"):
        in_elements(Layout((2, 2), (1, 2)), 2)


def test_tma_swizzle_modes_xor_the_16_byte_chunks():
    """TMA's 128-byte swizzle: byte address bits 4-6 XOR bits 7-9 (row r of 8, chunk c -> c ^ r)."""
    sw = TMA_SWIZZLE["B128"]
    for row in range(8):
        for chunk in range(8):
            assert sw(128 * row + 16 * chunk) == 128 * row + 16 * (chunk ^ row)
    assert TMA_SWIZZLE["DISABLE"](1000) == 1000
    assert str(SMEM_ATOMS["MN_SW64"]) == "Sw<2,4,3> o 0 o (512,8):(1,512)"


# ------------------------------------------------------------------ shared-memory analysis of the atoms
def test_smem_access_takes_a_hopper_and_a_blackwell_atom():
    """layouts.smem reads any of these TV layouts: warp 1 of a wgmma's register A (64 x 16 halves,
    column-major), and a TMEM load's registers read as fp32 elements of its 32 x 8 tile."""
    from layouts import smem

    hopper = smem.Access(MMA["SM90_64x128x16_F32F16F16_RS"].A, warp=1)
    assert hopper.values_per_thread == 8 and hopper.values_of(0)[:2] == (16, 80)
    blackwell = smem.Access(in_elements(COPY["SM100_TMEM_LOAD_32dp32b8x"].dst, 32), warp=0)
    assert blackwell.values_of(3) == tuple(range(24, 32))
    assert np.array_equal(blackwell.values, np.arange(256).reshape(32, 8))
