"""layouts.smem: the known answers of issue 42 and bad input.

Oracles: the figures the anchors' own documents give (CUDA's programming guide for the padded
32 x 32 float tile, CUTLASS's SM80 ``Swizzle<3,3,3> o (8,64):(64,1)`` half tiles read by
``ldmatrix.x4``, CuTe's SM75 ldmatrix atoms for who gives which row), hand-computed bank
arithmetic (rows 128 bytes apart land on the same banks), and the cross-checks between the
layout kinds (one tile said as CuTe, framework and linear layout gives one answer).
"""

from __future__ import annotations

import numpy as np
import pytest

import layouts as ly
from layouts import cute, smem
from layouts.errors import LayoutError, LayoutTypeError
from layouts.linear import LinearLayout, from_cute

ROW_MAJOR_32 = cute.Layout((32, 32), (32, 1))
# thread t holds row t; its request v reads column v: one column of the tile per request ("by columns")
BY_COLUMNS = cute.Layout((32, 32), (1, 32))
# thread t holds column t; its request v reads row v
BY_ROWS = cute.Layout((32, 32), (32, 1))


# ---------------------------------------------------------------- the padded and swizzled float tile
def test_row_major_float_tile_read_by_columns_is_32_way():
    r = smem.conflicts(ROW_MAJOR_32, smem.Access(BY_COLUMNS, 4), element_bytes=4)
    # each request: 32 rows of one column, 128 bytes apart: one bank, 32 different words
    assert r.per_phase == [32] * 32 and r.ways == 32 and r.wavefronts == 1024 and r.ideal == 32
    p = r.phases[0]
    assert p.threads == tuple(range(32)) and list(p.banks) == [0] and len(p.banks[0]) == 32
    assert p.colliding() == [(0, tuple(range(32)))]
    assert p.elements[5] == (5,) and p.words[5] == (5 * 32,)      # element (5, 0) at byte 5 * 128


def test_row_major_float_tile_read_by_rows_is_conflict_free():
    r = smem.conflicts(ROW_MAJOR_32, smem.Access(BY_ROWS, 4), element_bytes=4)
    assert r.per_phase == [1] * 32 and r.conflict_free


@pytest.mark.parametrize("padded", [ly.Layout("HW", H=32, W=32, pitch={"H": 33}), cute.Layout((32, 32), (33, 1))])
def test_padding_rows_to_33_floats_makes_columns_one_way(padded):
    r = smem.conflicts(padded, smem.Access(BY_COLUMNS, 4), element_bytes=4)
    assert r.per_phase == [1] * 32 and r.ways == 1
    assert smem.conflicts(padded, smem.Access(BY_ROWS, 4), element_bytes=4).ways == 1


def test_swizzle_5_0_5_makes_columns_one_way():
    sw = cute.composition(cute.Swizzle(5, 0, 5), ROW_MAJOR_32)
    for tv in (BY_COLUMNS, BY_ROWS):
        r = smem.conflicts(sw, smem.Access(tv, 4), element_bytes=4)
        assert r.per_phase == [1] * 32


def test_one_tile_said_three_ways_gives_one_answer():
    """The swizzled tile as CuTe, as a linear layout in CuTe's orientation and in Triton's."""
    sw = cute.composition(cute.Swizzle(5, 0, 5), ROW_MAJOR_32)
    cute_to_offset = from_cute(sw)
    offset_to_elem = cute_to_offset.invert()             # in-dim offset -> m0, m1
    acc = smem.Access(BY_COLUMNS, 4)
    answers = [smem.conflicts(x, acc, element_bytes=4).per_phase for x in (sw, cute_to_offset, offset_to_elem)]
    assert answers[0] == answers[1] == answers[2] == [1] * 32
    mems = [smem.memory_of(x) for x in (sw, cute_to_offset, offset_to_elem)]
    assert all(m.shape == (32, 32) for m in mems)
    assert all(np.array_equal(m.offsets, mems[0].offsets) for m in mems)


# ---------------------------------------------------------------- CUTLASS's SM80 half tiles and ldmatrix
SM80_HALF = cute.Layout((8, 64), (64, 1))


def test_cutlass_sm80_swizzled_half_tile_read_by_ldmatrix_x4_is_conflict_free():
    r = smem.conflicts(cute.composition(cute.Swizzle(3, 3, 3), SM80_HALF), smem.ldmatrix(x4=True))
    # 8 x 64 halves = 8 matrices of 8 x 8: two issues of x4, one phase per matrix
    assert r.per_phase == [1] * 8 and r.wavefronts == r.ideal == 8 and r.vector_bytes == 16


def test_cutlass_sm80_unswizzled_half_tile_is_8_way_on_four_banks():
    r = smem.conflicts(SM80_HALF, smem.ldmatrix(x4=True))
    assert r.per_phase == [8] * 8 and r.ways == 8 and r.wavefronts == 64
    # rows 128 bytes apart: all eight 16-byte rows of a phase on the same four banks
    for p in r.phases:
        assert len(p.banks) == 4 and all(len(words) == 8 for words in p.banks.values())
        first_bank = p.words[0][0] % 32
        assert sorted(p.banks) == [first_bank + k for k in range(4)]
    assert "8-way" in r.explain() and "threads 0-7" in r.explain()


@pytest.mark.parametrize("x", [1, 2, 4])
def test_ldmatrix_rows_are_the_ones_cute_atoms_give_each_thread(x):
    """Thread t gives the address of row t % 8 of matrix t // 8: CuTe's SM75 atom says which of the
    8x rows (row after row, matrix after matrix) each thread's 128 address bits select."""
    atom = cute.atoms.SM75_LDSM[f"SM75_U32x{x}_LDSM_N"]
    row_of_thread = atom.src.offsets().reshape(128, 32)[0] // 128     # value 0 of every thread
    instr = smem.ldmatrix(**{f"x{x}": True})
    values, width, per_phase = instr.thread_map((8, 8 * x), 2)       # one issue: matrices side by side
    assert width == 16 and per_phase == 8
    for t in range(8 * x):
        m, r = divmod(int(row_of_thread[t]), 8)
        expected = [r + 8 * (8 * m + j) for j in range(8)]            # row r, columns 8m..8m+7, index row + 8 col
        assert values[t].tolist() == expected
    assert (values[8 * x:] == -1).all()


def test_ldmatrix_x1_has_one_phase_per_issue():
    r = smem.conflicts(cute.composition(cute.Swizzle(3, 3, 3), SM80_HALF), smem.ldmatrix(x1=True))
    assert r.ideal == 8 and all(p.threads == tuple(range(8)) for p in r.phases)
    assert [p.request for p in r.phases] == list(range(8))


def test_ldmatrix_down_the_columns_of_a_column_major_tile():
    col_major = cute.Layout((64, 8), (1, 64))                      # the SM80 tile, transposed
    sw = cute.composition(cute.Swizzle(3, 3, 3), col_major)
    assert smem.conflicts(sw, smem.ldmatrix(x4=True, along="column")).per_phase == [1] * 8
    assert smem.conflicts(col_major, smem.ldmatrix(x4=True, along="column")).per_phase == [8] * 8
    with pytest.raises(LayoutError, match="width_bytes=16 is not allowed"):
        smem.conflicts(col_major, smem.ldmatrix(x4=True))             # its rows are not contiguous


def test_trans_changes_registers_not_addresses():
    sw = cute.composition(cute.Swizzle(2, 3, 3), SM80_HALF)
    plain, trans = smem.ldmatrix(x2=True), smem.ldmatrix(x2=True, trans=True)
    assert np.array_equal(plain.thread_map((8, 64), 2)[0], trans.thread_map((8, 64), 2)[0])
    assert smem.conflicts(sw, plain).per_phase == smem.conflicts(sw, trans).per_phase == [2] * 8


def test_stmatrix_counts_like_ldmatrix():
    sw = cute.composition(cute.Swizzle(3, 3, 3), SM80_HALF)
    assert smem.conflicts(sw, smem.stmatrix(x4=True)).per_phase == smem.conflicts(sw, smem.ldmatrix(x4=True)).per_phase


# ---------------------------------------------------------------- widths, phases, broadcast
def test_sixteen_byte_requests_are_served_eight_threads_a_phase():
    tile = cute.Layout((8, 64), (64, 1))
    # thread t0 + 4 t1: row t1, columns 16 t0 .. 16 t0 + 15 (index row + 8 col): two 16 B requests
    acc = smem.Access(cute.Layout(((4, 8), 16), ((128, 1), 8)), 16)
    r = smem.conflicts(tile, acc)
    assert r.ideal == 8 and [p.threads for p in r.phases[:2]] == [tuple(range(8)), tuple(range(8, 16))]
    # phase 0: rows 0 and 1 (128 bytes apart), 16-byte chunks at bytes 0, 32, 64, 96 of each: 2-way
    assert r.per_phase == [2] * 8 and r.phases[0].elements[5] == tuple(1 + 8 * (16 + j) for j in range(8))


def test_eight_byte_requests_are_served_sixteen_threads_a_phase():
    acc = smem.Access(np.arange(64).reshape(32, 2), smem.lds(8))
    r = smem.conflicts(cute.Layout(64), acc, element_bytes=4)
    assert r.ideal == 2 and r.per_phase == [1, 1] and r.vector_bytes == 8


def test_the_same_word_read_by_every_thread_is_a_broadcast():
    acc = smem.Access(np.zeros((32, 1), dtype=np.int64), 4)
    r = smem.conflicts(cute.Layout(64), acc, element_bytes=4)
    assert r.per_phase == [1]
    acc = smem.Access(np.tile([[0], [32]], (16, 1)), 4)               # two words of bank 0
    assert smem.conflicts(cute.Layout(64), acc, element_bytes=4).per_phase == [2]


def test_two_byte_requests_in_one_word_are_one_wavefront():
    acc = smem.Access(np.arange(32).reshape(32, 1), 2)
    assert smem.conflicts(cute.Layout(64), acc, element_bytes=2).per_phase == [1]


def test_vector_bytes_is_the_widest_allowed_not_the_one_asked():
    acc = smem.Access(cute.Layout((32, 8), (8, 1)), 4)
    r = smem.conflicts(cute.Layout(256), acc, element_bytes=2)
    assert r.vector_bytes == 16 and r.width_bytes == 4 and r.ideal == 4
    widest = smem.conflicts(cute.Layout(256), acc.with_width(None), element_bytes=2)
    assert widest.width_bytes == 16 and widest.ideal == 4


def test_linear_thread_map_and_shared_layout():
    mma = LinearLayout.from_bases({"register": [[0, 1]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]},
                                  ["dim0", "dim1"])                  # 8 x 8: lane holds row lane//4, 2 columns
    acc = smem.Access(mma, 4)
    assert acc.shape == (8, 8) and acc.values_of(5) == (1 + 8 * 2, 1 + 8 * 3)
    tile = LinearLayout.from_bases({"offset": [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}, ["dim0", "dim1"])
    r = smem.conflicts(tile, acc, element_bytes=2)                   # row-major 8 x 8 halves: 128 bytes
    assert r.per_phase == [1] and r.vector_bytes == 4


# ---------------------------------------------------------------- bad input
def test_a_width_the_layout_does_not_allow_names_the_width():
    acc = smem.Access(BY_COLUMNS, 8)          # thread t's values 0, 1 are (t, 0), (t, 1): contiguous rows...
    with pytest.raises(LayoutError, match="width_bytes=8"):
        smem.conflicts(cute.Layout((32, 32), (1, 32)), acc, element_bytes=4)   # ...but this tile is column-major
    with pytest.raises(LayoutError, match="width_bytes=16 takes 4 values at a time, but each thread"):
        smem.conflicts(ROW_MAJOR_32, smem.Access(np.arange(64).reshape(32, 2), 16), element_bytes=4)
    with pytest.raises(LayoutError, match="width_bytes=2 is narrower"):
        smem.conflicts(ROW_MAJOR_32, smem.Access(BY_ROWS, 2), element_bytes=4)
    with pytest.raises(LayoutError, match="width_bytes=12"):
        smem.Access(BY_ROWS, 12)
    with pytest.raises(LayoutTypeError, match="width_bytes must be an int"):
        smem.Access(BY_ROWS, "16")


def test_two_elements_at_one_address_is_a_layout_error():
    with pytest.raises(LayoutError, match="two elements at one address"):
        smem.memory_of(cute.Layout((4, 4), (1, 2)))
    with pytest.raises(LayoutError, match="two elements at one address"):
        smem.conflicts(cute.Layout((32, 32), (0, 1)), smem.Access(BY_ROWS, 4))
    with pytest.raises(LayoutError, match="negative offset"):
        smem.memory_of(cute.Layout((4, 4), (-4, 1)))


def test_a_thread_map_that_is_not_whole_warps_is_refused():
    with pytest.raises(LayoutError, match="whole warps of 32 threads; .* has 48$"):
        smem.Access(cute.Layout((48, 2), (2, 1)), 4)
    with pytest.raises(LayoutError, match="has 48$"):
        smem.Access(cute.Layout((48, 2), (2, 1)), 4, warp=0)
    with pytest.raises(LayoutError, match="warp 2 is past the 2 warp"):
        smem.Access(cute.Layout((64, 2), (2, 1)), 4, warp=2)
    with pytest.raises(LayoutError, match="has 16 rows"):
        smem.Access(np.zeros((16, 2), dtype=int), 4)
    with pytest.raises(LayoutError, match="lane in-dim of 32 lanes; this one has 16"):
        smem.Access(LinearLayout.from_bases({"lane": [[1], [2], [4], [8]]}, ["dim0"]), 4)
    with pytest.raises(LayoutError, match="also has"):
        smem.Access(LinearLayout.from_bases({"lane": [[1], [2], [4], [8], [16]], "x": [[32]]}, ["dim0"]), 4)
    with pytest.raises(LayoutTypeError, match="threads must be"):
        smem.Access("row-major", 4)
    with pytest.raises(LayoutTypeError, match="2-D int array"):
        smem.Access(np.zeros((32, 2)), 4)
    with pytest.raises(LayoutError, match="no values"):
        smem.Access(np.zeros((32, 0), dtype=int), 4)


def test_one_warp_of_a_tiled_mma():
    """tile_atom's 2 x 2 warps of the SM80 accumulator: warp 1 runs the atom on rows 16..31."""
    tiled = cute.atoms.tile_atom(cute.atoms.SM80_16x8x16_C, 16, 8, (2, 2))
    warp1 = smem.Access(tiled, 4, warp=1)
    warp0 = smem.Access(cute.atoms.SM80_16x8x16_C, 4)
    for t in range(32):   # warp 0's element (r, c) of the 16 x 8 atom is warp 1's (r + 16, c) of the 32 x 16 tile
        r_c = [(e % 16, e // 16) for e in warp0.values_of(t)]
        assert warp1.values_of(t) == tuple((r + 16) + 32 * c for r, c in r_c)


def test_an_access_past_the_tile_is_refused():
    with pytest.raises(LayoutError, match="reaches element 1023 but the shared layout .* has 64 elements"):
        smem.conflicts(cute.Layout((8, 8), (8, 1)), smem.Access(BY_ROWS, 4), element_bytes=4)
    mma = LinearLayout.from_bases({"register": [[0, 1]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]},
                                  ["dim0", "dim1"])
    with pytest.raises(LayoutError, match=r"acc is over a tile of shape \(8, 8\)"):
        smem.conflicts(cute.Layout((4, 16), (16, 1)), smem.Access(mma, 4))


def test_bad_arguments_of_conflicts_are_named():
    acc = smem.Access(BY_ROWS, 4)
    with pytest.raises(LayoutError, match="element_bytes must be one of"):
        smem.conflicts(ROW_MAJOR_32, acc, element_bytes=3)
    with pytest.raises(LayoutTypeError, match="element_bytes must be an int"):
        smem.conflicts(ROW_MAJOR_32, acc, element_bytes="4")
    with pytest.raises(LayoutError, match="bank_bytes must be a power of two"):
        smem.conflicts(ROW_MAJOR_32, acc, element_bytes=4, bank_bytes=6)
    with pytest.raises(LayoutTypeError, match="banks must be an int"):
        smem.conflicts(ROW_MAJOR_32, acc, element_bytes=4, banks=None)
    with pytest.raises(LayoutTypeError, match=r"acc: lds\(16\) is a width"):
        smem.conflicts(ROW_MAJOR_32, smem.lds(16))
    with pytest.raises(LayoutTypeError, match="acc must be"):
        smem.conflicts(ROW_MAJOR_32, BY_ROWS)
    with pytest.raises(LayoutTypeError, match="shared_layout must be a layout"):
        smem.conflicts("NCHW", acc)
    with pytest.raises(LayoutError, match="ldmatrix.x4 reads a 2-D"):
        smem.conflicts(cute.Layout(512), smem.ldmatrix(x4=True))
    with pytest.raises(LayoutError, match="16 matrices|not a multiple of the 4"):
        smem.conflicts(cute.Layout((8, 24), (24, 1)), smem.ldmatrix(x4=True))
    with pytest.raises(LayoutError, match="must be a multiple of 8"):
        smem.conflicts(cute.Layout((4, 64), (64, 1)), smem.ldmatrix(x4=True))
    with pytest.raises(LayoutError, match="exactly one of"):
        smem.ldmatrix(x1=True, x4=True)
    with pytest.raises(LayoutError, match=r"shape \(3, 3\) has 9 elements"):
        smem.memory_of(ROW_MAJOR_32, shape=(3, 3))


def test_inputs_are_not_changed():
    values = np.arange(64).reshape(32, 2)
    acc = smem.Access(values, 8)
    values[0, 0] = 5
    assert acc.values_of(0) == (0, 1)
    with pytest.raises(ValueError):
        acc.values[0, 0] = 3
    with pytest.raises(ValueError):
        smem.memory_of(ROW_MAJOR_32).offsets[0] = 1


# ---------------------------------------------------------------- Triton's encodings
from layouts.linear import triton as tt  # noqa: E402 - the package's own module: never skipped

# Triton's own choice of SwizzledSharedLayout for an MMA v2 dot operand (f16, k_width 2, order [1, 0]):
# unittest/Dialect/TritonGPU/SwizzleTest.cpp, (shape, operand, (vec, per_phase, max_phase))
TRITON_DOT_OPERAND_SWIZZLES = [
    ((128, 64), 0, (8, 1, 8)), ((64, 256), 1, (8, 1, 8)), ((128, 32), 0, (8, 2, 4)), ((32, 128), 1, (8, 1, 8)),
    ((32, 32), 0, (8, 2, 4)), ((32, 32), 1, (8, 2, 4)), ((16, 16), 0, (8, 4, 2)), ((16, 16), 1, (8, 4, 2)),
]


@pytest.mark.parametrize("shape, operand, params", TRITON_DOT_OPERAND_SWIZZLES)
def test_triton_dot_operand_swizzle_is_conflict_free_for_its_ldmatrix_reads(shape, operand, params):
    enc = tt.SwizzledSharedLayout(*params, [1, 0])
    # operand A [M, K] and B [K, N] are both stored with their last dim contiguous (order [1, 0]) and read
    # by ldmatrix (B with .trans) in 16-byte pieces of those rows
    r = smem.conflicts((enc, shape), smem.ldmatrix(x4=True, trans=operand == 1))
    assert r.ways == 1 and r.wavefronts == shape[0] * shape[1] // 64
    # unswizzled, 8 rows of 2 * cols bytes: 128 / (2 * cols) of them fit the 32 banks, the rest collide
    plain = smem.conflicts((tt.SwizzledSharedLayout(1, 1, 1, [1, 0]), shape), smem.ldmatrix(x4=True))
    assert plain.ways == min(8, shape[1] // 8)


def test_triton_swizzled_shared_offsets_follow_its_formula():
    vec, per_phase, max_phase, rows, cols = 4, 2, 4, 16, 32
    mem = smem.memory_of((tt.SwizzledSharedLayout(vec, per_phase, max_phase, [1, 0]), (rows, cols)))
    assert mem.shape == (rows, cols)
    for r in range(rows):
        for c in range(cols):
            phase = (r // per_phase) % max_phase
            assert mem.offsets[r + rows * c] == r * cols + ((c // vec) ^ phase) * vec + c % vec


def test_triton_distributed_encoding_as_a_thread_map():
    mma = tt.NVMMADistributedLayout([2, 0], [1, 1], [16, 8])
    acc = smem.Access((tt.DotOperandLayout(0, mma, 2), (16, 16)), 4)
    # PTX's A fragment of mma.m16n8k16: lane 4g + t holds a0, a1 at row g, columns 2t, 2t + 1
    for lane in range(32):
        g, t = divmod(lane, 4)
        assert acc.values_of(lane)[:2] == (g + 16 * 2 * t, g + 16 * (2 * t + 1))
    r = smem.conflicts((tt.SwizzledSharedLayout(8, 4, 2, [1, 0]), (16, 16)), acc)
    assert r.vector_bytes == 4 and r.per_phase == [1] * 4


def test_triton_encodings_in_the_wrong_place_are_refused():
    blocked = tt.BlockedLayout([1, 4], [8, 4], [1, 1], [1, 0])
    shared = tt.SwizzledSharedLayout(1, 1, 1, [1, 0])
    with pytest.raises(LayoutTypeError, match="distributed"):
        smem.memory_of((blocked, (32, 16)))
    with pytest.raises(LayoutTypeError, match="shared encoding"):
        smem.Access((shared, (32, 16)), 4)
    with pytest.raises(LayoutError, match="needs its tensor shape"):
        smem.Access(blocked, 4)
    with pytest.raises(LayoutError, match="with its tensor shape"):
        smem.memory_of(shared)


def test_a_framework_layouts_padding_is_not_an_element():
    L = ly.Layout("NCHW16c", N=1, C=20, H=2, W=2)              # channels 20..31 of the second block: padding
    mem = smem.memory_of(L)
    assert mem.shape == (1, 20, 2, 2)
    for i in range(mem.size):
        n, c, h, w = mem.coordinate(i)
        assert mem.offsets[i] == L.offset(n=n, c=c, h=h, w=w)


def test_offsets_far_apart_are_counted_exactly():
    from layouts.kinds import OffsetTable
    far = OffsetTable(np.arange(256, dtype=np.int64) << 52, "elements 2**52 apart")    # all in bank 0
    r = smem.conflicts(far, smem.Access(np.arange(256).reshape(8, 32).T, 4), element_bytes=4)
    assert r.per_phase == [32] * 8
    huge = OffsetTable(np.arange(4, dtype=np.int64) << 60, "elements 2**60 apart")
    with pytest.raises(LayoutError, match="past 2\\*\\*62"):
        smem.conflicts(huge, smem.Access(np.arange(32).reshape(32, 1) % 4, 4), element_bytes=4)


# -- a map is the same map however its dims are listed ----------------------------------------

def test_a_linear_layout_s_tile_dims_are_read_by_name_not_by_listing_order():
    """Row-major 32x32 given with its out-dims listed dim0, dim1 and dim1, dim0: the same map (checked
    offset by offset), so the same 32-way count for threads reading rows; the Access side too."""
    from layouts.linear import LinearLayout as LL
    cols = [[0, 1 << k] for k in range(5)]
    rows = [[1 << k, 0] for k in range(5)]
    a = LL.from_bases({"offset": cols + rows}, ["dim0", "dim1"])
    b = LL.from_bases({"offset": [r[::-1] for r in cols + rows]}, ["dim1", "dim0"])
    for o in range(1024):
        assert a(offset=o) == b(offset=o)
    by_rows = smem.Access(cute.Layout((32, 32), (1, 32)), 4)        # thread t reads row t
    assert smem.conflicts(a, by_rows, element_bytes=4).ways == 32
    assert smem.conflicts(b, by_rows, element_bytes=4).ways == 32
    threads = LL.from_bases({"register": [[1 << k, 0] for k in range(5)],
                             "lane": [[0, 1 << k] for k in range(5)]}, ["dim1", "dim0"])
    # lane 1 holds row 1: flat index row + 32 * col over the 32x32 tile
    assert smem.Access(threads, 4).values_of(1)[:4] == (1, 33, 65, 97)


def test_array_thread_maps_past_int64_or_ragged_are_named():
    huge = np.arange(32, dtype=np.uint64).reshape(32, 1)
    huge[0, 0] = 2 ** 64 - 5
    with pytest.raises(ly.LayoutError, match="threads: element index 18446744073709551611"):
        smem.Access(huge, 4)
    with pytest.raises(ly.LayoutTypeError, match="threads: .*differ in length"):
        smem.Access([[1, 2], [3]] * 16, 4)


# ---------------------------------------------------------------- widths stated, every warp (issue 55)
BLOCKED_16B = tt.BlockedLayout([1, 16], [8, 4], [4, 1], [1, 0])
FOUR_WARPS = (tt.BlockedLayout([4, 1], [32, 1], [2, 2], [0, 1]), (16, 16))


def test_the_element_width_an_encoding_states_is_the_default():
    shared = (tt.NVMMASharedLayout(128, 8), (64, 128))
    stated = smem.conflicts(shared, smem.Access((BLOCKED_16B, (64, 128))))
    said = smem.conflicts(shared, smem.Access((BLOCKED_16B, (64, 128))), element_bytes=1)
    assert stated.element_bytes == 1
    assert (stated.wavefronts, stated.ideal) == (said.wavefronts, said.ideal) == (32, 16)
    with pytest.raises(LayoutError, match="element_bytes=2 contradicts the shared layout NVMMASharedLayout"):
        smem.conflicts(shared, smem.Access((BLOCKED_16B, (64, 128))), element_bytes=2)
    # a layout that states no width keeps the documented default of 2 bytes
    assert smem.conflicts((tt.SwizzledSharedLayout(8, 1, 8, [1, 0]), (64, 128)),
                          smem.Access((BLOCKED_16B, (64, 128)))).element_bytes == 2


def test_every_warp_is_read_and_the_worst_reported():
    shared = (tt.SwizzledSharedLayout(1, 1, 2, [0, 1]), (16, 16))
    each = [smem.conflicts(shared, smem.Access(FOUR_WARPS, warp=w), element_bytes=4) for w in range(4)]
    assert [r.vector_bytes for r in each] == [16, 16, 4, 4]        # warps 2 and 3 break the 16-byte vectors
    every = smem.conflicts(shared, smem.Access(FOUR_WARPS), element_bytes=4)
    assert every.vector_bytes == 4 and every.width_bytes == 4
    assert len(every.warps) == 4 and [r.warp for r in every.warps] == [0, 1, 2, 3]
    at_four = [smem.conflicts(shared, smem.Access(FOUR_WARPS, 4, warp=w), element_bytes=4) for w in range(4)]
    assert [r.wavefronts for r in every.warps] == [r.wavefronts for r in at_four]
    assert every.wavefronts == max(r.wavefronts for r in at_four)
    assert "the worst of 4" in every.explain()
    with pytest.raises(LayoutError, match=r"not 4 consecutive offsets .*access \(warp 2\)"):
        smem.conflicts(shared, smem.Access(FOUR_WARPS, 16), element_bytes=4)


def test_the_worst_warp_is_the_one_with_most_wavefronts():
    # thread t of warp w holds row t + 32 w of a 64 x 32 tile of words, a column per request; rows
    # 0..31 lie 33 words apart (conflict-free), rows 32..63 after them 32 apart (32-way: one bank)
    threads = LinearLayout.from_bases({"register": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
                                       "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], "warp": [[32, 0]]},
                                      {"dim0": 64, "dim1": 32})
    r, c = np.meshgrid(np.arange(64), np.arange(32), indexing="ij")
    offsets = np.where(r < 32, r * 33 + c, 32 * 33 + (r - 32) * 32 + c)
    mem = smem.SharedMemory((64, 32), offsets.T.reshape(-1), "two pitches")   # element r + 64 c
    found = smem.conflicts(mem, smem.Access(threads, 4), element_bytes=4)
    assert (found.warp, found.wavefronts, found.ways, found.ideal) == (1, 32 * 32, 32, 32)
    assert [w.wavefronts for w in found.warps] == [32, 32 * 32]


def test_best_swizzle_gives_every_warp_its_width():
    acc = smem.Access(FOUR_WARPS)
    best = smem.best_swizzle(reads=[acc], shape=(16, 16), element_bytes=4)
    per_warp = [smem.conflicts(best.memory, smem.Access(FOUR_WARPS, warp=w), element_bytes=4) for w in range(4)]
    assert best.vector_bytes[0] == min(r.vector_bytes for r in per_warp) == 16


def test_tritons_order_groups_the_registers_the_shared_layout_makes_a_vector():
    # Triton 3.9's generated code stores this pair 8-way (its PTX, issue 55); register order is 32-way
    blocked = (tt.BlockedLayout([2, 2], [32, 1], [4, 1], [1, 0]), (64, 64))
    shared = (tt.NVMMASharedLayout(0, 8), (64, 64))
    plain = smem.conflicts(shared, smem.Access(blocked))
    theirs = smem.conflicts(shared, smem.Access(blocked, order="triton"))
    assert (plain.ways, theirs.ways) == (32, 8)
    # registers: dim1 +1, dim0 +1, then dim1 +2, +4, ... (repeats): in register order only the first
    # pair is contiguous (2 bytes); Triton's order takes dim1's +1, +2, +4, +8 first: 16 bytes
    assert (plain.vector_bytes, theirs.vector_bytes) == (2, 16)
    # a register that repeats an element is dropped: thread t holds 2t, 2t, 2t + 1, 2t + 1
    repeats = LinearLayout.from_bases({"register": [[0], [1]], "lane": [[2], [4], [8], [16], [32]]}, {"dim0": 64})
    mem = smem.memory_of(cute.Layout(64, 1))
    assert smem.conflicts(mem, smem.Access(repeats), element_bytes=4).width_bytes == 4
    assert smem.conflicts(mem, smem.Access(repeats, order="triton"), element_bytes=4).width_bytes == 8


def test_tritons_order_needs_registers_to_reorder():
    with pytest.raises(LayoutTypeError, match="order='triton' reorders"):
        smem.Access(np.arange(64).reshape(32, 2), order="triton")
    with pytest.raises(LayoutError, match="order must be 'registers' or 'triton'"):
        smem.Access(np.arange(64).reshape(32, 2), order="value")
