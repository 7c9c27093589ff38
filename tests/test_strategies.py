"""The strategy registry, the machine profile, explain-copy and tune, from outside.

Every strategy is reached through ``layouts.convert`` itself (sizes chosen so that the registry
picks it), its result compared with numpy's transpose, and the strategy named by ``explain_copy``
checked; the scalar path is reached by a profile with ``simd=False``. The choices were worked out
for the AVX-512 EPYC reference machine, which every test here pins (:data:`AMD`), so they hold on
any host; the L1-geometry rules are checked on each reference machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import layouts as ly
from layouts import LayoutError, kernels
from layouts.kernels.machine import profile as prof
from layouts.conversion.explain import explain_conversion
from layouts.kernels.machine.machines import REFERENCES
from layouts.kernels.machine.profile import reference
from layouts.kernels.runtime.pool import max_threads

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PERM = {"NCHW": (0, 1, 2, 3), "NHWC": (0, 2, 3, 1), "CHWN": (1, 2, 3, 0)}
#: the machine the expected choices below were worked out for
AMD = reference("epyc-avx512")


@pytest.fixture(autouse=True)
def defaults():
    """Every test here plans as on the AVX-512 EPYC, whatever the host (or $LAYOUTS_TEST_PROFILE)."""
    with kernels.use_profile(AMD):
        yield


def _data(shape, dtype, layout, seed=0):
    x = np.random.default_rng(seed).integers(0, 250, shape).astype(dtype)   # logical NCHW
    return x, np.ascontiguousarray(x.transpose(PERM[layout]))


def _misaligned(shape, dtype, offset):
    """An output of ``shape`` whose data starts ``offset`` bytes after a 64-byte boundary."""
    n = int(np.prod(shape)) * np.dtype(dtype).itemsize
    buf = np.empty(n + 128, np.uint8)
    start = (-buf.ctypes.data) % 64 + offset
    return buf[start:start + n].view(dtype).reshape(shape)


CASES = [   # (strategy, variant or None, shape (NCHW), dtype, src, dst, out offset or None)
    ("numpy", None, (1, 3, 4, 4), "float32", "NCHW", "NHWC", None),
    ("small-c", None, (16, 3, 64, 64), "float32", "NCHW", "NHWC", None),
    ("small-c", None, (16, 3, 64, 64), "uint8", "NHWC", "NCHW", None),
    ("staged", None, (24, 3, 30, 30), "float32", "NHWC", "CHWN", None),    # dst rows not whole tiles
    ("staged", None, (32, 3, 30, 30), "uint16", "CHWN", "NHWC", None),     # dst rows not 64-byte multiples apart
    ("grouped", None, (128, 64, 56, 56), "uint8", "NCHW", "NHWC", None),
    ("grouped", None, (128, 64, 56, 56), "uint8", "NCHW", "CHWN", 16),
    ("simd-tiles", "tiles", (8, 64, 30, 30), "float32", "NCHW", "NHWC", None),
    ("simd-tiles", "narrow2", (8, 64, 32, 32), "float32", "NCHW", "NHWC", None),     # 4 KiB planes
    ("simd-tiles", "tiles", (32, 64, 16, 16), "float16", "NHWC", "CHWN", None),
    ("simd-tiles", "tiles-nt-wide", (64, 64, 32, 32), "float32", "NCHW", "NHWC", None),
    ("simd-tiles", "straddle-nt", (64, 64, 32, 32), "float32", "NCHW", "NHWC", 16),
    ("simd-tiles", "straddle-nt", (128, 32, 32, 32), "float32", "NCHW", "CHWN", 32),
    ("simd-tiles", "tiles-nt-wide", (128, 32, 32, 32), "float32", "NCHW", "CHWN", None),
    ("simd-tiles", "narrow2", (256, 3, 32, 32), "float32", "NCHW", "CHWN", None),
    # i ranges of an odd number of tiles: two tiles of i at a time, then the one left
    ("simd-tiles", "tiles-nt-wide", (64, 48, 32, 32), "float32", "NCHW", "NHWC", None),
    ("simd-tiles", "tiles-nt", (64, 96, 32, 32), "float16", "NCHW", "NHWC", None),
    ("simd-tiles", "tiles-nt-wide", (32, 40, 32, 32), "float64", "NCHW", "NHWC", None),
    ("simd-tiles", "tiles-nt", (64, 192, 32, 32), "uint8", "NCHW", "NHWC", None),
    ("simd-tiles", "tiles-nt-grouped", (64, 64, 16, 17), "float32", "NHWC", "NCHW", None),
    # small transposes strided on both sides, in groups of batch indices: aligned rows ...
    ("simd-tiles", "tiles-nt-grouped", (128, 64, 28, 28), "float32", "NHWC", "CHWN", None),
    ("simd-tiles", "tiles-nt-grouped", (128, 64, 28, 28), "uint8", "CHWN", "NHWC", None),
    # ... or rows that follow each other across batch indices, into a dst 16 or 48 bytes off a line
    ("simd-tiles", "tiles-nt-batch-rows", (128, 64, 28, 28), "float32", "NHWC", "CHWN", 16),
    ("simd-tiles", "tiles-nt-batch-rows", (128, 64, 28, 28), "float32", "CHWN", "NHWC", 16),
    ("simd-tiles", "tiles-nt-batch-rows", (130, 62, 20, 20), "float32", "NHWC", "CHWN", 16),   # straddles, last columns
    ("simd-tiles", "tiles-nt-batch-rows", (256, 64, 28, 28), "uint8", "NHWC", "CHWN", 48),
    ("simd-tiles", "tiles-nt-batch-rows", (128, 64, 28, 28), "float16", "CHWN", "NHWC", 16),
    # dst rows shorter than a tile following each other across pixels: gathered tiles
    ("short-rows", "tiles-nt-batch-gather", (64, 3, 96, 96), "float32", "CHWN", "NHWC", None),
    ("short-rows", "tiles-nt-batch-gather", (64, 3, 96, 96), "float32", "CHWN", "NHWC", 20),
    ("short-rows", "tiles-nt-batch-gather", (80, 3, 160, 160), "uint8", "CHWN", "NHWC", 8),   # last columns
    ("short-rows", "tiles-nt-batch-gather", (64, 2, 128, 128), "float16", "CHWN", "NHWC", 2),
    # source rows shorter than a tile: scattered tiles into a 64-byte aligned dst (convert's own)
    ("short-rows", "tiles-nt-batch-scatter", (64, 3, 96, 96), "float32", "NHWC", "CHWN", None),
    ("short-rows", "tiles-nt-batch-scatter", (128, 3, 128, 128), "uint8", "NHWC", "CHWN", None),
    ("short-rows", "tiles-nt-batch-scatter", (32, 2, 192, 192), "float16", "NHWC", "CHWN", None),
    # ... into a dst off the 64-byte grid (numpy's own arrays): the same tiles with plain stores
    ("short-rows", "tiles-batch-scatter", (64, 3, 96, 96), "float32", "NHWC", "CHWN", 16),
    ("short-rows", "tiles-batch-scatter", (128, 3, 128, 128), "uint8", "NHWC", "CHWN", 48),
    ("short-rows", "tiles-batch-scatter", (32, 2, 192, 192), "float16", "NHWC", "CHWN", 2),
    ("staged", None, (60, 3, 96, 96), "float32", "NHWC", "CHWN", 16),        # rows not whole tiles: the scratch stage
    # a small transpose repeated over batch indices (a batch of a few images): numpy's strided loop
    ("scalar-tiles", None, (8, 3, 64, 64), "uint8", "NHWC", "CHWN", None),
    ("scalar-tiles", None, (8, 3, 64, 64), "uint8", "CHWN", "NHWC", 3),
    ("scalar-tiles", None, (6, 3, 40, 30), "float32", "NHWC", "CHWN", 4),
    # a copy whose output stays in cache (below nt_min_bytes): the same tiles with plain stores
    ("short-rows", "tiles-batch-gather", (64, 3, 32, 32), "float32", "CHWN", "NHWC", None),
    ("short-rows", "tiles-batch-gather", (64, 3, 32, 32), "uint16", "CHWN", "NHWC", None),
    ("short-rows", "tiles-batch-gather", (80, 3, 40, 40), "uint8", "CHWN", "NHWC", 8),      # last columns
    ("short-rows", "tiles-batch-scatter", (64, 3, 32, 32), "float32", "NHWC", "CHWN", None),
    ("short-rows", "tiles-batch-scatter", (256, 3, 32, 32), "uint8", "NHWC", "CHWN", None),
]


@pytest.mark.parametrize("strategy,variant,shape,dtype,src,dst,offset", CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[3]}-{c[4]}-{c[5]}-{c[6]}" for c in CASES])
def test_each_strategy_through_convert(strategy, variant, shape, dtype, src, dst, offset):
    x, xs = _data(shape, dtype, src)
    want = x.transpose(PERM[dst])
    out = _misaligned(want.shape, dtype, offset) if offset is not None else None
    if out is None:                                      # convert allocates a 64-byte aligned output
        [e] = explain_conversion(xs.shape, dtype, src, dst, threads=1)
    else:
        e = kernels.explain_copy(out, xs.transpose(_between(src, dst)), threads=1)
    assert e.strategy == strategy, str(e)
    if variant:
        assert e.params["variant"] == variant, str(e)
    for threads in (1, 2):
        y = ly.convert(xs, src, dst, out=out, threads=threads)
        assert np.array_equal(y, want)


WIDE = [   # (shape (NCHW), dtype, src, dst, out offset or None): 4- and 8-byte streaming tiles
    ((64, 64, 32, 32), "float32", "NHWC", "NCHW", None),
    ((64, 48, 32, 32), "int32", "NCHW", "NHWC", None),         # i of 3 tiles: a pair, then one
    ((16, 64, 56, 56), "float32", "NCHW16c", "NCHW", None),    # source rows of one line
    ((64, 64, 32, 32), "float32", "NHWC", "NCHW", 16),         # rows peeled by 12 units, edges by one-lane tiles
    ((32, 40, 32, 32), "float64", "NCHW", "NHWC", None),       # i of 5 tiles of 8
    ((32, 64, 32, 32), "float64", "NHWC", "NCHW", 16),
]


@pytest.mark.parametrize("shape,dtype,src,dst,offset", WIDE, ids=[f"{c[1]}-{c[2]}-{c[3]}-{c[4]}" for c in WIDE])
def test_streaming_tiles_of_whole_source_lines_equal_numpy_and_the_one_lane_tiles(shape, dtype, src, dst, offset):
    """``tiles-nt-wide`` (a tile is 16 float32 or 8 float64 source rows read whole) where the
    profile turns it on, ``tiles-nt`` where it does not: both numpy's bytes, on one thread and
    two, into a 64-byte aligned output and one whose rows start 16 bytes off a line (peeled)."""
    x = np.random.default_rng(4).integers(-(1 << 20), 1 << 20, shape).astype(dtype)
    if src == "NCHW16c":
        n, c, h, w = shape
        xs = np.ascontiguousarray(x.reshape(n, c // 16, 16, h, w).transpose(0, 1, 3, 4, 2))
        want = x
    else:
        xs = np.ascontiguousarray(x.transpose(PERM[src]))
        want = x.transpose(PERM[dst])
    for wide, variant in ((True, "tiles-nt-wide"), (False, "tiles-nt")):
        with kernels.use_profile(AMD.replace(wide_tiles=wide)):
            out = _misaligned(want.shape, dtype, offset or 0)
            if offset is None:
                e, = explain_conversion(xs.shape, dtype, src, dst, threads=1)
            else:
                e = kernels.explain_copy(out, xs.transpose(_between(src, dst)), threads=1)
            assert (e.strategy, e.params["variant"]) == ("simd-tiles", variant), str(e)
            assert e.params["tile"] == (f"{64 // x.itemsize}x{64 // x.itemsize}" if wide else f"{64 // x.itemsize}x"
                                        f"{16 // x.itemsize}"), str(e)
            for threads in (1, 2):
                out[...] = 0
                assert ly.convert(xs, src, dst, out=out, threads=threads) is out
                assert np.array_equal(out, want), (wide, threads)


@pytest.mark.parametrize("shape,dtype,src,dst", [((8, 64, 8, 8), "float32", "NHWC", "NCHW"),
                                                  ((8, 32, 8, 8), "float64", "NHWC", "NCHW"),
                                                  ((16, 12, 16, 16), "int32", "CHWN", "NCHW")])
def test_in_cache_tiles_of_whole_source_lines_from_short_source_rows(shape, dtype, src, dst):
    """An output small enough to stay in cache (plain stores): ``tiles-wide`` from source rows
    at most WIDE_PLAIN_MAX_ROW_BYTES apart, ``tiles`` with the profile's switch off; numpy's
    bytes either way, into an output off the 64-byte grid too."""
    x = np.random.default_rng(5).integers(-(1 << 20), 1 << 20, shape).astype(dtype)
    xs = np.ascontiguousarray(x.transpose(PERM[src]))
    want = x.transpose(PERM[dst])
    for wide, variant in ((True, "tiles-wide"), (False, "tiles")):
        with kernels.use_profile(AMD.replace(wide_tiles=wide)):
            for offset in (0, 4):
                out = _misaligned(want.shape, dtype, offset * x.itemsize // 4)
                e = kernels.explain_copy(out, xs.transpose(_between(src, dst)), threads=1)
                assert (e.strategy, e.params["variant"]) == ("simd-tiles", variant), str(e)
                out[...] = 0
                assert ly.convert(xs, src, dst, out=out, threads=1) is out
                assert np.array_equal(out, want), (wide, offset)


def test_whole_line_tiles_need_whole_lines_of_j_and_avx512():
    """A column count that leaves part of a line (30x30 pixels: 900 float32, 4 past the last
    whole line of 16) keeps the one-lane tiles, whose edge is narrower, as do in-cache copies from
    long source rows; the AVX2 reference machine has no wide tiles, the AVX-512 ones have."""
    with kernels.use_profile(AMD):
        e, = explain_conversion((64, 64, 30, 30), np.float32, "NCHW", "NHWC", threads=1)
        assert e.params["variant"] == "tiles-nt", str(e)
        e, = explain_conversion((64, 64, 32, 32), np.float32, "NCHW", "NHWC", threads=1)
        assert e.params["variant"] == "tiles-nt-wide", str(e)
        # in cache, from source rows longer than WIDE_PLAIN_MAX_ROW_BYTES (28x28 float32: 3136 bytes)
        e = kernels.explain_copy(np.empty((1, 28, 28, 32), np.float32),
                                 np.zeros((1, 32, 28, 28), np.float32).transpose(0, 2, 3, 1), threads=1)
        assert e.params["variant"] == "tiles", str(e)
    assert reference("xeon-avx512").wide_tiles and reference("epyc-avx512").wide_tiles
    assert not reference("epyc-avx2").wide_tiles


def test_streamed_whole_line_tiles_take_all_of_j_from_source_rows_up_to_4_kib():
    """Into long dst rows, a block of the streamed wide tiles is all of j where the source rows
    (C float32 channels of NHWC) are at most 4 KiB: 64 and 1024 channels; 2048 (8 KiB, a
    multiple of 4 KiB) keep the aliased rows' block of 1 KiB of j. numpy's bytes at 1024."""
    def block(n, c, h):                         # outputs of at least nt_min_bytes: streamed
        with kernels.use_profile(AMD):
            e, = explain_conversion((n, h, h, c), np.float32, "NHWC", "NCHW", threads=1)
        assert e.params["variant"] == "tiles-nt-wide", str(e)
        return e.params["block"]
    assert block(4, 64, 64) == "512x64"
    assert block(2, 1024, 32) == "512x1024"
    assert block(2, 2048, 32) == "512x256"
    x = np.random.default_rng(8).random((2, 1024, 32, 32), dtype=np.float32)
    with kernels.use_profile(AMD):
        y = ly.convert(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), "NHWC", "NCHW", threads=2)
    assert np.array_equal(y, x)


SHORT_ROWS = [c for c in CASES if c[0] == "short-rows"]


@pytest.mark.parametrize("held", [5000, 16 << 10])
@pytest.mark.parametrize("strategy,variant,shape,dtype,src,dst,offset", SHORT_ROWS,
                         ids=[f"{c[1]}-{c[3]}-{c[4]}-{c[5]}-{c[6]}" for c in SHORT_ROWS])
def test_short_rows_in_blocks_of_the_long_row(held, strategy, variant, shape, dtype, src, dst, offset):
    """The short-row tiles walked in blocks of the long row (a tile row or column of a block at a
    time, the last block of a group ragged): the block is what fits ``held`` bytes of L1 (a source
    line per dst unit of the gather, a dst offset per source column of the scatter), and the bytes
    are numpy's, on one thread and two."""
    unit = np.dtype(dtype).itemsize
    TI, TL = {1: (64, 16), 2: (32, 8), 4: (16, 4)}[unit]              # 64-byte tile rows
    block = held // 64 // TI * TI if variant.endswith("gather") else held // 8 // TL * TL
    x, xs = _data(shape, dtype, src)
    want = x.transpose(PERM[dst])
    with kernels.use_profile(AMD.replace(short_rows_block_bytes=held)):
        out = _misaligned(want.shape, dtype, offset if offset is not None else 0)
        e = kernels.explain_copy(out, xs.transpose(_between(src, dst)), threads=1)
        assert (e.strategy, e.params["variant"]) == (strategy, variant), str(e)
        assert e.params["block"] == (block if block > (TI if variant.endswith("gather") else TL) else "one tile")
        for threads in (1, 2):
            out[...] = 0
            assert ly.convert(xs, src, dst, out=out, threads=threads) is out
            assert np.array_equal(out, want)


def _between(src, dst):
    """The transpose of a ``src`` array that reads it in ``dst`` order."""
    inv = np.argsort(PERM[src])
    return tuple(int(inv[p]) for p in PERM[dst])


#: rows_cached(3072 * itemsize) by reference machine, from each one's L1 geometry: 3072 u8 bytes
#: are 48 lines, which fall in 64 / gcd(48, 64) = 4 of the 64 sets; f16 (96 lines) in 2, f32 in 1
CACHED_ROWS = {"epyc-avx512": {1: 4 * 8, 2: 2 * 8, 4: 1 * 8},       # 32 KiB 8-way: 64 sets
               "xeon-avx512": {1: 4 * 12, 2: 2 * 12, 4: 1 * 12},    # 48 KiB 12-way: 64 sets
               "epyc-avx2": {1: 4 * 8, 2: 2 * 8, 4: 1 * 8},
               "epyc-zen5": {1: 4 * 12, 2: 2 * 12, 4: 1 * 12}}      # 48 KiB 12-way: 64 sets


@pytest.mark.parametrize("kind", sorted(REFERENCES))
@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32"])
def test_source_rows_sharing_l1_sets_take_narrow_tiles(kind, dtype):
    """256x3x32x32 NCHW -> CHWN in cache: the N source rows are C*H*W = 3072 elements apart, so they
    share a few L1 sets: tiles of fewer rows (two groups: the cached rows cover two but not four);
    the profile switch turns it off. Both equal numpy."""
    from layouts.kernels.geometry import rows_cached
    machine = reference(kind)
    x = np.random.default_rng(6).integers(0, 250, (256, 3, 32, 32)).astype(dtype)
    assert rows_cached(3072 * x.itemsize, machine) == CACHED_ROWS[kind][x.itemsize]
    for on, variant in ((True, "narrow2"), (False, "tiles")):
        with kernels.use_profile(machine.replace(narrow_when_aliased=on)):
            [e] = explain_conversion(x.shape, dtype, "NCHW", "CHWN", threads=1)
            assert e.params["variant"] == variant, str(e)
            assert np.array_equal(ly.convert(x, "NCHW", "CHWN"), x.transpose(1, 2, 3, 0))


def test_rows_cached_reads_the_geometry_not_an_assumed_one():
    """8 ways of 64-byte lines in 48 KiB would be 96 sets; 12 ways are 64: rows 4 KiB apart all fall
    in one set, so as many stay cached as there are ways."""
    from layouts.kernels.geometry import rows_cached
    xeon = reference("xeon-avx512")
    assert rows_cached(4096, xeon) == 12
    assert rows_cached(4096, xeon.replace(l1d_ways=8)) == 8 * 96 // 32      # 96 sets, gcd(64, 96) = 32
    assert rows_cached(4096, xeon.replace(l1d_line_bytes=128)) == 12        # 32 sets of 128-byte lines
    assert rows_cached(100, xeon) == 48 * 1024 // 64                        # not line-aligned: all of L1


def test_short_source_rows_take_one_tile_column_where_a_block_of_them_stays_in_l1():
    """NCHW16c -> NCHW in float32: blocks of 2 KiB of dst row (512 pixels) by source rows of 64
    bytes hold 32 KiB of source lines. Within two thirds of the Xeon's 48 KiB L1 they stay cached
    across the block's tile columns, so one column a block (4 dst rows written at a time, not 16);
    beyond two thirds of the EPYC's 32 KiB the block takes all 16 columns, each line read once."""
    def block(machine):
        with kernels.use_profile(machine.replace(wide_tiles=False)):      # the one-lane tiles' rule
            e, = explain_conversion((8, 4, 56, 56, 16), np.float32, "NCHW16c", "NCHW", threads=1)
        assert e.strategy == "simd-tiles", str(e)
        return e.params["block"]
    assert block(reference("xeon-avx512")) == "512x4"
    assert block(reference("epyc-avx512")) == "512x16"
    assert block(reference("epyc-zen5")) == "512x4"            # an EPYC with the Xeon's 48 KiB L1d
    assert block(reference("xeon-avx512").replace(l1d_bytes=(48 << 10) - 64)) == "512x16"   # just too small


@pytest.mark.parametrize("dtype", [np.float32, np.uint8])
def test_plain_and_streaming_tiles_take_their_own_short_row_rule(dtype):
    """Long dst rows from source rows of 256 bytes (CHWN -> NCHW with N = 256 / itemsize): blocks
    of all of j up to ``block_j_long_bytes`` for a copy with non-temporal stores, up to
    ``block_j_plain_bytes`` for one with plain stores (an output that stays in cache), each field
    alone deciding its kind of copy; the bytes are numpy's either way."""
    n = 256 // np.dtype(dtype).itemsize
    rng = np.random.default_rng(9)
    for nbytes, stream in ((1 << 19, False), (1 << 23, True)):
        c = nbytes // (n * 32 * 32 * np.dtype(dtype).itemsize)
        x = rng.integers(0, 250, (c, 32, 32, n)).astype(dtype)                 # CHWN
        want = x.transpose(3, 0, 1, 2)
        for whole_long, whole_plain in ((True, False), (False, True)):
            machine = reference("xeon-avx512").replace(block_j_long_bytes=(1 << 30) if whole_long else 0,
                                                       block_j_plain_bytes=(1 << 30) if whole_plain else 0,
                                                       wide_tiles=False)    # (whose blocks follow their own rule)
            with kernels.use_profile(machine):
                e, = explain_conversion(x.shape, dtype, "CHWN", "NCHW", threads=1)
                out = ly.convert(x, "CHWN", "NCHW", threads=1)
            assert e.strategy == "simd-tiles" and e.params["stream"] == stream, str(e)
            whole = whole_long if stream else whole_plain
            tile_cols = int(e.params["tile"].split("x")[1])
            assert int(e.params["block"].split("x")[1]) == (n if whole else tile_cols), (stream, e.params)
            assert np.array_equal(out, want)


def _fake_cache(root, levels):
    """A sysfs cache folder: ``levels`` is [(level, type, size, ways or None, line or None)]."""
    for k, (level, kind, size, ways, line) in enumerate(levels):
        d = root / f"index{k}"
        d.mkdir()
        for name, value in (("level", level), ("type", kind), ("size", size),
                            ("ways_of_associativity", ways), ("coherency_line_size", line)):
            if value is not None:
                (d / name).write_text(f"{value}\n")


def test_cache_geometry_from_sysfs(tmp_path):
    _fake_cache(tmp_path, [(1, "Data", "48K", 12, 64), (1, "Instruction", "32K", 8, 64),
                           (2, "Unified", "2048K", 16, 64), (3, "Unified", "300M", 15, 64)])
    got = prof._cache_geometry(tmp_path)
    assert got == dict(l1d_bytes=48 << 10, l1d_ways=12, l1d_line_bytes=64, l2_bytes=2 << 20, l2_ways=16,
                       l2_line_bytes=64, l3_bytes=300 << 20)
    assert prof.MachineProfile(**got).l1d_ways == 12


def test_cache_geometry_keeps_defaults_for_what_sysfs_hides(tmp_path):
    _fake_cache(tmp_path, [(1, "Data", "32K", None, None), (2, "Unified", "1024K", 0, 64)])
    got = prof._cache_geometry(tmp_path)
    assert got == dict(l1d_bytes=32 << 10, l2_bytes=1 << 20, l2_line_bytes=64)   # 0 ways: unknown
    assert prof._cache_geometry(tmp_path / "missing") == {}


def test_reference_machines_differ_where_their_hardware_does():
    xeon, avx2 = reference("xeon-avx512"), reference("epyc-avx2")
    assert (xeon.l1d_bytes, xeon.l1d_ways, AMD.l1d_bytes, AMD.l1d_ways) == (48 << 10, 12, 32 << 10, 8)
    assert "avx512bw" not in avx2.cpu_features and avx2.nt_min_bytes == 8 << 20 and AMD.nt_min_bytes == 4 << 20
    with pytest.raises(LayoutError, match="xeon-avx512"):
        reference("xeon")
    for bad in (dict(l1d_ways=0), dict(l1d_line_bytes=0)):
        with pytest.raises(LayoutError, match=next(iter(bad))):
            AMD.replace(**bad)


LINE_CASES = [   # (dtype, block, out offset in bytes or None, variant, N, W): 16- and 32-byte dst rows
    ("uint8", 16, None, "lines-nt", 12, 36), ("uint8", 16, 16, "lines-nt", 12, 36),
    ("uint8", 16, 48, "lines-nt", 12, 36),
    ("uint8", 16, 8, "lines", 12, 36),                      # rows off a 16-byte boundary: plain stores
    ("uint8", 32, 32, "lines-nt", 12, 36), ("float16", 16, None, "lines-nt", 12, 36),
    ("float16", 16, 32, "lines-nt", 12, 36), ("float16", 8, 48, "lines-nt", 12, 36),
    ("float32", 8, 32, "lines-nt", 12, 36),
    # 32-byte rows 16 bytes off a line (numpy's own arrays): lines joined across tiles
    ("float16", 16, 16, "lines-nt-shifted", 12, 36), ("float16", 16, 48, "lines-nt-shifted", 12, 36),
    ("float32", 8, 16, "lines-nt-shifted", 12, 36), ("uint8", 32, 48, "lines-nt-shifted", 12, 36),
    ("float16", 16, 16, "lines-nt-shifted", 1, 36),         # one batch index: j cut in runs, each its own carry
    ("float16", 16, 8, "lines", 12, 36),
    # H*W = 33*35 odd: each batch index starts its rows elsewhere in a line, aligned in the kernel
    ("uint8", 16, None, "lines-nt-each", 12, 35), ("uint8", 16, 16, "lines-nt-each", 12, 35),
    ("float16", 16, None, "lines-nt-each", 12, 35), ("float16", 16, 16, "lines-nt-each", 12, 35),
    ("float32", 8, 48, "lines-nt-each", 12, 35),
    ("uint8", 32, 2, "lines", 12, 35),                      # every index's rows off the 16-byte grid
    ("uint8", 16, None, "lines", 2, 35),                    # 4 batch indices: not one a work item
]


@pytest.mark.parametrize("dtype,block,offset,variant,N,W", LINE_CASES,
                         ids=[f"{c[0]}-{c[1]}c-{c[2]}-N{c[4]}-W{c[5]}" for c in LINE_CASES])
def test_line_tiles_into_blocked_channels(dtype, block, offset, variant, N, W):
    """NCHW -> NCHW<block>c with dst rows of one or two tile groups: tiles that store whole lines
    (non-temporal into a large output whose rows they can meet on a line, from the first column
    that starts one, or, for 32-byte rows 16 bytes off, lines that join two tile lines; plain where
    the rows are off a line's 16-byte grid; each batch index aligned on its own where H*W is odd),
    the columns before and after them as edges (H*W is no multiple of a tile); numpy's bytes on one
    thread and two, and the same with the one- or two-group tiles (``line_tiles`` off)."""
    C, H = 2 * block, 33
    x = np.random.default_rng(7).integers(0, 250, (N, C, H, W)).astype(dtype)
    want = x.reshape(N, C // block, block, H, W).transpose(0, 1, 3, 4, 2)
    view = x.reshape(want.shape[:2] + (block, H, W)).transpose(0, 1, 3, 4, 2)
    dst = f"NCHW{block}c"
    machine = AMD.replace(nt_min_bytes=64 << 10)
    out = whole = None
    if offset is not None:              # in a zeroed buffer, to see that nothing is written around it
        whole = np.zeros(want.nbytes + 128, np.uint8)
        start = (-whole.ctypes.data) % 64 + offset
        out = whole[start:start + want.nbytes].view(dtype).reshape(want.shape)
    for on in (True, False):
        with kernels.use_profile(machine.replace(line_tiles=on)):
            if out is None:
                [e] = explain_conversion(x.shape, dtype, "NCHW", dst, threads=1)
            else:
                e = kernels.explain_copy(out, view, threads=1)
            assert e.strategy == "simd-tiles", str(e)
            if on:
                assert e.params["variant"] == variant, str(e)
                if offset and variant != "lines-nt-each":      # that one finds its start per batch index
                    to_line = {"lines-nt": -offset, "lines-nt-shifted": 16 - offset}.get(variant)
                    first = (to_line % 64) // (block * x.itemsize) if to_line is not None else 0
                    assert e.params["tiles_j"][0] == first, str(e)
            else:
                assert not e.params["variant"].startswith("lines"), str(e)
            for threads in (1, 2):
                if out is not None:
                    out[...] = 0
                y = ly.convert(x, "NCHW", dst, out=out, threads=threads)
                assert np.array_equal(y, want)
    if whole is not None:
        assert not whole[:start].any() and not whole[start + out.nbytes:].any()


def test_blocked_and_narrow_tiles_through_convert():
    """NCHW -> NCHW16c (dst rows of 16 channels) in uint8: tiles of whole lines, or one-group
    tiles with ``line_tiles`` off; back again; the padded channel block of C=20 zero-filled."""
    x = np.random.default_rng(1).integers(0, 250, (8, 64, 30, 30)).astype(np.uint8)
    want = x.reshape(8, 4, 16, 30, 30).transpose(0, 1, 3, 4, 2)
    for on, variant in ((True, "lines"), (False, "narrow1")):
        with kernels.use_profile(AMD.replace(line_tiles=on)):
            [e] = explain_conversion(x.shape, x.dtype, "NCHW", "NCHW16c", threads=1)
            assert (e.strategy, e.params["variant"]) == ("simd-tiles", variant), str(e)
            y = ly.convert(x, "NCHW", "NCHW16c")
            assert np.array_equal(y, want)
    assert np.array_equal(ly.convert(y, "NCHW16c", "NCHW"), x)
    z = ly.convert(x[:, :20], "NCHW", "NCHW16c")
    assert np.array_equal(z[:, 1, ..., :4], x[:, 16:20].transpose(0, 2, 3, 1)) and not z[:, 1, ..., 4:].any()


def test_rows_and_memcpy_through_convert():
    x = np.random.default_rng(2).integers(0, 250, (64, 96, 3)).astype(np.float32)       # HWC
    pitched = ly.Layout("HWC", H=64, W=96, C=3, pitch={"H": 300})
    [e] = explain_conversion(x.shape, x.dtype, "HWC", pitched, threads=1)
    assert e.strategy == "rows"
    y = ly.convert(x, "HWC", pitched)                        # a view with rows 300 floats apart
    assert y.strides[0] == 300 * 4 and np.array_equal(y, x)
    z = np.random.default_rng(3).standard_normal((32, 64, 32, 32)).astype(np.float32)
    [e] = explain_conversion(z.shape, z.dtype, "NCHW", "NCHW", threads=2)
    assert e.strategy == "memcpy"
    assert np.array_equal(ly.convert(z, "NCHW", "NCHW", copy=True), z)


@pytest.mark.parametrize("src,dst", [("NCHW", "NHWC"), ("NHWC", "CHWN"), ("CHWN", "NCHW"), ("NCHW", "NCHW16c")])
@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32", "float64"])
def test_scalar_path_through_convert(src, dst, dtype):
    """With SIMD tiles off (``simd=False``, as LAYOUTS_PLAIN_KERNELS=1 sets) every transpose takes the
    scalar cache blocks, bitwise equal to numpy."""
    x, xs = _data((6, 32, 17, 19), dtype, src if src != "NCHW16c" else "NCHW", seed=4)
    with kernels.use_profile(AMD.replace(simd=False, small_bytes=0, thread_min_bytes=0)):
        [e] = explain_conversion(xs.shape, dtype, src, dst, threads=2)
        assert e.strategy in ("scalar-tiles", "small-c"), str(e)
        for threads in (1, 2):
            y = ly.convert(xs, src, dst, threads=threads)
            want = (x.reshape(6, 2, 16, 17, 19).transpose(0, 1, 3, 4, 2) if dst == "NCHW16c"
                    else x.transpose(PERM[dst]))
            assert np.array_equal(y, want)


@pytest.mark.parametrize("dtype,ni", [("float32", 16), ("float32", 64), ("uint8", 64), ("uint16", 32)])
@pytest.mark.parametrize("offset", [0, 16, 32, 48])
def test_misaligned_outputs_keep_the_tiles(dtype, ni, offset):
    """A large output at any 16-byte offset (what np.empty gives) streams through SIMD tiles,
    straddling the rows when they follow each other, even when straddling tiles are all there is
    (a row of one tile height) -- never the scalar fallback."""
    dt = np.dtype(dtype)
    n = (9 << 20) // (ni * 56 * 56 * dt.itemsize) + 1
    x = np.random.default_rng(ni).integers(0, 250, (n, ni, 56, 56)).astype(dt)
    out = _misaligned((n, 56, 56, ni), dt, offset)
    e = kernels.explain_copy(out, x.transpose(0, 2, 3, 1), threads=1)
    assert e.strategy in ("simd-tiles", "grouped"), str(e)
    kernels.copy_into(out, x.transpose(0, 2, 3, 1), threads=2)
    assert np.array_equal(out, x.transpose(0, 2, 3, 1))


def test_threads_follow_the_profile_threshold():
    x = np.zeros((8, 64, 32, 32), np.float32)                     # 2 MiB
    out = np.empty((8, 32, 32, 64), np.float32)
    with kernels.use_profile(AMD.replace(thread_min_bytes=1 << 20, thread_min_bytes_by_strategy=())):
        e = kernels.explain_copy(out, x.transpose(0, 2, 3, 1), threads=2)
        assert e.threads == min(2, max_threads())
    for entries in (("simd-tiles=4194304",), ("grouped=1", "simd-tiles=4194304")):   # its own threshold wins
        with kernels.use_profile(AMD.replace(thread_min_bytes=1 << 20, thread_min_bytes_by_strategy=entries)):
            assert kernels.explain_copy(out, x.transpose(0, 2, 3, 1), threads=2).threads == 1
    with pytest.raises(LayoutError, match="strategy=bytes"):
        AMD.replace(thread_min_bytes_by_strategy=("simd-tiles:12",))


def test_disabled_strategies_are_skipped_with_a_reason():
    x = np.zeros((16, 3, 64, 64), np.float32)
    out = np.empty((16, 64, 64, 3), np.float32)
    with kernels.use_profile(AMD.replace(disabled=("small-c",))):
        e = kernels.explain_copy(out, x.transpose(0, 2, 3, 1))
        assert e.strategy != "small-c" and dict(e.declined)["small-c"] == "disabled by the profile"
        kernels.copy_into(out, x.transpose(0, 2, 3, 1))


def test_profile_save_load_and_refusals(tmp_path):
    p = prof.detect().replace(thread_min_bytes=123456, disabled=("grouped",))
    path = prof.save(p, tmp_path / "p.json", {"note": "test"})
    q = prof.load(path)
    assert q.thread_min_bytes == 123456 and q.disabled == ("grouped",) and q.source == str(path)
    doc = json.loads(path.read_text())
    doc["machine"] = "another|cpu|64"
    path.write_text(json.dumps(doc))
    with pytest.raises(LayoutError, match="measured on"):
        prof.load(path)
    assert prof.load(path, any_machine=True).thread_min_bytes == 123456
    doc["tuning"]["thread_min_bites"] = 1
    path.write_text(json.dumps(doc))
    with pytest.raises(LayoutError, match="thread_min_bites"):
        prof.load(path, any_machine=True)
    for bad in ({"nt_min_bytes": -1}, {"simd": 1}, {"disabled": "grouped"}):
        with pytest.raises(LayoutError, match=next(iter(bad))):
            AMD.replace(**bad)
    (tmp_path / "junk.json").write_text("{")
    with pytest.raises(LayoutError, match="cannot read"):
        prof.load(tmp_path / "junk.json")
    with pytest.raises(LayoutError, match="MachineProfile"):
        prof.set_profile("fast")


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "layouts", *args], capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, **(env or {})), timeout=600)


def test_explain_copy_command():
    r = _cli("explain-copy", "NHWC", "CHWN", "N=128", "C=64", "H=56", "W=56", "--dtype", "uint8", "--strategies")
    assert r.returncode == 0, r.stderr
    assert "CHOSEN" in r.stdout and "grouped" in r.stdout and "profile:" in r.stdout
    assert "10. scalar-tiles" in r.stdout
    r = _cli("explain-copy", "NCHW", "NHWC", "N=8", "C=64", "H=32", "W=32", env={"LAYOUTS_PROFILE": "xeon-avx512"})
    assert r.returncode == 0 and "profile: reference:xeon-avx512 | CPU emeraldrapids" in r.stdout, r.stdout + r.stderr
    for bad in (["explain-copy", "NCHW", "NHWC", "N=2", "--dtype", "float99"], ["explain-copy", "NCHW", "NXYZ", "N=2"],
                ["explain-copy", "NCHW", "NHWC", "N=2", "--threads", "0"], ["explain-copy", "NCHW", "NHWC", "N=two"],
                ["explain-copy", "NCHW", "NHWC", "N=2", "--dtype", "object"],
                ["tune", "--quick", "--out", "/proc/layouts-no/profile.json"]):
        r = _cli(*bad)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "error:" in r.stderr, r.stderr


def test_a_closed_pipe_is_not_an_error():
    r = subprocess.run(f"{sys.executable} -m layouts explain-copy NCHW NHWC N=8 C=64 H=32 W=32 --strategies | head -1",
                       shell=True, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.stdout.startswith("profile:") and r.stderr == "", r.stderr


def test_explain_copy_refuses_what_copy_into_refuses():
    with pytest.raises(TypeError, match="numpy arrays"):
        kernels.explain_copy([1, 2], np.zeros(2))
    with pytest.raises(ValueError, match="shapes differ"):
        kernels.explain_copy(np.zeros(2), np.zeros(3))
    with pytest.raises(LayoutError, match="threads"):
        kernels.explain_copy(np.zeros(2), np.zeros(2), threads=0)


def test_tune_saves_a_profile_that_later_processes_load(tmp_path):
    out = tmp_path / "profile.json"
    r = _cli("tune", "--quick", "--out", str(out))
    assert r.returncode == 0, r.stderr
    for field in ("small_bytes", "small_short_rows", "small_units", "thread_min_bytes", "group_min_bytes", "block_j_long_bytes",
                  "block_j_plain_bytes", "inplace_cost_scratch", "inplace_chunk_cost_4k", "inplace_alias_penalty_4k", "blob_thread_min_bytes",
                  "narrow_when_aliased"):
        assert field in r.stdout
    loaded = prof.load(out)
    doc = json.loads(out.read_text())
    for field in ("small_bytes", "small_short_rows", "small_units", "inplace_cost_scratch", "inplace_cost_ckg",
                  "inplace_chunk_cost_short", "inplace_alias_penalty_2k", "blob_thread_min_bytes", "blob_chunk_bytes",
                  "narrow_when_aliased"):
        if field in doc["measured"]:            # the blob's thread rule is measured on 2+ cores only
            assert doc["measured"][field]["chosen"] == getattr(loaded, field), field
    assert "inplace_cost_square" in doc["measured"] and "small_units" in doc["measured"]
    r = _cli("explain-copy", "NCHW", "NHWC", "N=8", "C=64", "H=32", "W=32", env={"LAYOUTS_PROFILE": str(out)})
    assert r.returncode == 0 and f"profile: {out}" in r.stdout, r.stdout + r.stderr


def test_use_profile_is_per_thread_and_restores_on_overlap():
    """Two threads' overlapping ``with use_profile`` blocks neither see each other's profile nor
    leave one behind; set_profile is the process's, and a block still wins inside it."""
    import threading
    base = kernels.current()
    a, b = base.replace(small_bytes=1), base.replace(small_bytes=2)
    seen = {}
    entered_a, entered_b, a_left = threading.Event(), threading.Event(), threading.Event()

    def one(name, p, mine, other):
        with kernels.use_profile(p):
            mine.set()
            other.wait(5)
            seen[name] = kernels.current().small_bytes
            if name == "b":
                a_left.wait(5)
                seen["b after a left"] = kernels.current().small_bytes
        if name == "a":
            a_left.set()

    ts = [threading.Thread(target=one, args=("a", a, entered_a, entered_b)),
          threading.Thread(target=one, args=("b", b, entered_b, entered_a))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert seen == {"a": 1, "b": 2, "b after a left": 2}
    assert kernels.current() is base
    c = base.replace(small_bytes=3)
    before = prof._active
    got = []

    def process_wide():                       # a new thread: no use_profile block of its own
        got.append(kernels.current())
        with kernels.use_profile(a):
            got.append(kernels.current())
        got.append(kernels.current())

    try:
        kernels.set_profile(c)
        t = threading.Thread(target=process_wide)
        t.start()
        t.join()
        assert kernels.current() is base      # this thread's block (the fixture's) still wins
    finally:
        kernels.set_profile(before)
    assert got[0] is c and got[1] is a and got[2] is c


def test_staged_sub_copies_keep_the_callers_profile_on_worker_threads():
    """staged's chunks run on pool threads; their sub-copies must plan under the caller's profile
    (here one with SIMD tiles off), not the process's."""
    x = np.random.default_rng(5).integers(0, 250, (64, 3, 64, 64)).astype(np.float32)
    xs = np.ascontiguousarray(x.transpose(0, 2, 3, 1))                       # NHWC
    p = AMD.replace(simd=False, thread_min_bytes=0, small_bytes=0, stage_bytes=64 * 3 * 4 * 256,
                              thread_min_bytes_by_strategy=())
    with kernels.use_profile(p):
        assert kernels.explain_copy(np.empty((3, 64, 64, 64), np.float32), xs.transpose(3, 1, 2, 0)).strategy == "staged"
        y = ly.convert(xs, "NHWC", "CHWN", threads=2)
    assert np.array_equal(y, x.transpose(1, 2, 3, 0))


def test_plain_kernels_env_wins_over_a_saved_profile(tmp_path):
    path = prof.save(prof.detect(), tmp_path / "p.json")
    r = _cli("explain-copy", "NCHW", "NHWC", "N=8", "C=64", "H=32", "W=32",
             env={"LAYOUTS_PROFILE": str(path), "LAYOUTS_PLAIN_KERNELS": "1"})
    assert r.returncode == 0 and "scalar-tiles: CHOSEN" in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize("bad,word", [
    (dict(small_bytes="1"), "small_bytes"), (dict(block_j_short_bytes=1 << 80), "block_j_short_bytes"),
    (dict(cpus=0), "cpus"), (dict(simd="no"), "simd"), (dict(disabled=("nosuch",)), "nosuch"),
    (dict(thread_min_bytes_by_strategy=("simd-tiles=\u00b2",)), "strategy=bytes"),
    (dict(thread_min_bytes_by_strategy=("simd_tiles=5",)), "simd_tiles")])
def test_profile_fields_are_checked_on_construction_and_replace(bad, word):
    with pytest.raises(LayoutError, match=word):
        prof.MachineProfile(**bad)
    with pytest.raises(LayoutError, match=word):
        AMD.replace(**bad)


def test_save_and_load_refusals(tmp_path):
    with pytest.raises(LayoutError, match="MachineProfile"):
        prof.save({"a": 1}, tmp_path / "p.json")
    with pytest.raises(LayoutError, match="folder"):
        prof.save(prof.detect(), tmp_path)
    assert list(tmp_path.iterdir()) == []                       # no .tmp left behind
    path = prof.save(prof.detect(), tmp_path / "p.json")
    doc = json.loads(path.read_text())
    for key, value in (("source", "x"), ("cpus", 999)):
        bad = dict(doc, tuning=dict(doc["tuning"], **{key: value}))
        path.write_text(json.dumps(bad))
        with pytest.raises(LayoutError, match=key):
            prof.load(path)
    path.write_text("[" * 100000)
    with pytest.raises(LayoutError, match="cannot read"):
        prof.load(path)


def test_explain_conversion_and_overlap_refusals():
    with pytest.raises(TypeError, match="shape"):
        explain_conversion((1.5, 3, 4, 4), "float32", "NCHW", "NHWC")
    with pytest.raises(TypeError, match="shape"):
        explain_conversion(None, "float32", "NCHW", "NHWC")
    for dtype in ("nosuch", object, "(2,)f4", "f4,,"):
        with pytest.raises(LayoutError, match="dtype"):
            explain_conversion((1, 3, 4, 4), dtype, "NCHW", "NHWC")
    a = np.zeros((64, 1024), np.float32)
    e = kernels.explain_copy(a[:, 1:], a[:, :-1])                # copy_into hands overlaps to numpy
    assert e.strategy == "numpy" and "overlapping" in e.why
    z = np.zeros((64, 64, 64, 16), np.float32)                   # 16 MB, one contiguous run
    assert kernels.explain_copy(np.empty_like(z), z, threads=2).threads == min(2, max_threads())


@pytest.mark.parametrize("args", [["explain-copy", "NCHW", "NHWC", "N=2", "--dtype", "f4,,"],
                                  ["explain-copy", "NCHW", "NHWC", "N=2", "--dtype", "(2,)f4"],
                                  ["tune", "--out", "."], ["tune", "--out", ""]])
def test_cli_refusals_before_any_work(args):
    r = _cli(*args)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "error:" in r.stderr, r.stderr


@pytest.mark.parametrize("dtype", ["uint8", "float32"])
def test_small_copies_of_many_short_rows_are_planned_not_handed_to_numpy(dtype, monkeypatch):
    """Below small_bytes a copy is one np.copyto, except where numpy's inner loop would run over
    dst's last axis of 2-4 elements small_short_rows times or more (one RGB image NCHW->NHWC)."""
    rows = AMD.small_short_rows
    side = int(rows ** 0.5)
    assert side * side == rows and 3 * side * side * np.dtype(dtype).itemsize < AMD.small_bytes
    with kernels.use_profile(AMD):
        x = np.random.default_rng(0).integers(0, 200, (1, 3, side, side)).astype(dtype)
        fewer = x[:, :, : side // 2]                      # half the rows: numpy's turn
        for image, planned in ((x, True), (fewer, False)):
            out = np.empty((1,) + image.shape[2:] + (3,), dtype)
            view = image.transpose(0, 2, 3, 1)
            assert kernels.copied_by_numpy(out, view) is not planned
            e = kernels.explain_copy(out, view, threads=1)
            assert (e.strategy != "numpy") is planned, str(e)
            calls = []
            real = kernels.copy_into
            monkeypatch.setattr(kernels, "copy_into", lambda d, s, **kw: (calls.append(d.shape), real(d, s, **kw))[1])
            for _ in range(2):                            # the second call may take convert's short path
                out[...] = 0
                assert ly.convert(image, "NCHW", "NHWC", out=out) is out
                assert np.array_equal(out, view)
            monkeypatch.setattr(kernels, "copy_into", real)
            assert (len(calls) == 2) is planned, calls
        same = np.empty_like(x)                           # same layout: contiguous rows, numpy's copy
        assert kernels.copied_by_numpy(same, x)


@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_small_transposes_of_many_units_are_planned_not_handed_to_numpy(dtype, monkeypatch):
    """Below small_bytes a transpose with long rows (one RGB image NHWC->NCHW: numpy reads each
    unit through a stride of 3) is one np.copyto only while it has fewer than small_units units:
    numpy's cost is per unit, whatever their size. Each way gives numpy's answer."""
    units = AMD.small_units
    side = 2 * int((units / 3) ** 0.5 / 2 + 1)          # 3*side*side >= units, and side/2 images fewer
    assert 3 * side * side >= units > 3 * side * (side // 2)
    assert 3 * side * side * np.dtype(dtype).itemsize < AMD.small_bytes
    with kernels.use_profile(AMD):
        x = np.random.default_rng(1).integers(0, 200, (1, side, side, 3)).astype(dtype)
        fewer = x[:, : side // 2]
        for image, planned in ((x, True), (fewer, False)):
            out = np.empty((1, 3) + image.shape[1:3], dtype)
            view = image.transpose(0, 3, 1, 2)
            assert kernels.copied_by_numpy(out, view) is not planned
            e = kernels.explain_copy(out, view, threads=1)
            assert (e.strategy != "numpy") is planned, str(e)
            if planned:
                assert "small_units" in str(e)
            calls = []
            real = kernels.copy_into
            monkeypatch.setattr(kernels, "copy_into", lambda d, s, **kw: (calls.append(d.shape), real(d, s, **kw))[1])
            for _ in range(3):                            # checked, recorded (planned), made again
                out[...] = 0
                assert ly.convert(image, "NHWC", "NCHW", out=out) is out
                assert np.array_equal(out, view)
            assert len(calls) == (2 if planned else 1), calls
            calls.clear()
            c = ly.converter("NHWC", "NCHW", image.shape, dtype)
            fresh = np.empty_like(out)                    # no calls kept for it by convert's
            for _ in range(3):                            # the first call kept (planned) or numpy's
                fresh[...] = 0
                assert c(image, out=fresh) is fresh and np.array_equal(fresh, view)
            monkeypatch.setattr(kernels, "copy_into", real)
            assert len(calls) == (1 if planned else 0), calls


def test_strided_units_before_planning_agree_with_the_plans():
    """copy_into counts the units numpy would move through a stride from the strides alone
    (before any planning); the numpy strategy counts them on the plan. Both say the same over
    every axis order of C and Fortran arrays, reversed and broadcast sources, four dtypes; a
    transpose counts every unit, copies of runs (Fortran to Fortran, a broadcast row) none."""
    import itertools
    from layouts.kernels.plan import make_plan
    from layouts.kernels.strategies.numpy_copy import plan_strided_units, strided_units
    rng = np.random.default_rng(3)
    counted = 0
    for dt in (np.uint8, np.float16, np.float32, np.float64):
        for shape in [(2, 3, 4, 5), (4, 1, 6, 3), (5, 7)]:
            a = rng.integers(0, 9, shape).astype(dt)
            for perm in itertools.permutations(range(len(shape))):
                for src in (a.transpose(perm), np.asfortranarray(a.transpose(perm))):
                    for dst in (np.empty(src.shape, dt), np.empty(src.shape, dt, order="F")):
                        for s in (src, src[..., ::-1], np.broadcast_to(src[..., :1], src.shape)):
                            units, plan = strided_units(dst, s), make_plan(dst, s)
                            assert units in (0, dst.size)
                            if plan.kind == "fallback":      # negative strides: numpy's whatever the count
                                continue
                            assert (units > 0) == (plan_strided_units(plan) > 0), (dst.strides, s.strides)
                            counted += units > 0
    assert 0 < counted
    x = np.zeros((2, 3, 4, 5), np.uint8)
    assert strided_units(np.empty((2, 4, 5, 3), np.uint8), x.transpose(0, 2, 3, 1)) == x.size
    f = np.asfortranarray(x)
    assert strided_units(np.empty_like(f), f) == 0 and strided_units(np.empty_like(f), x) == x.size
    assert strided_units(x, np.broadcast_to(x[:1], x.shape)) == 0                # runs of a broadcast batch


@pytest.mark.parametrize("case", [("NCHW->NHWC", "float32", 64), ("NCHW->NHWC", "uint8", 3), ("NHWC->NCHW", "uint8", 3)],
                         ids=["small_bytes", "small_short_rows", "small_units"])
def test_tunes_numpy_crossovers_time_numpy_against_the_kernels_at_every_size(case):
    """Each crossover of the numpy strategy times one np.copyto against the kernels: under its
    first way every size it tries (up to 128 KiB) goes to numpy, whatever the other size rules
    say, and under its second none does."""
    from layouts.kernels import tune
    for nbytes in (2 << 10, 24 << 10, 128 << 10):
        out, v = tune._case(case[0], case[1], nbytes, case[2])
        with kernels.use_profile(AMD.replace(**tune.NUMPY_ALWAYS)):
            assert kernels.copied_by_numpy(out, v), (case, nbytes)
        with kernels.use_profile(AMD.replace(**tune.KERNELS_ALWAYS)):
            assert not kernels.copied_by_numpy(out, v), (case, nbytes)


@pytest.mark.parametrize("kind", sorted(REFERENCES))
def test_blocks_of_long_source_rows_stay_in_l1_unless_one_block_covers_all_rows(kind):
    """A source line read by several 4-wide tile columns (NHWC->NCHW with 64 float32 channels:
    256-byte source rows): the block takes at most two thirds of the rows that L1 keeps, worked
    out by hand from the profile's L1 geometry; a transpose whose rows one block already covered
    (16x16 images, 256 rows) keeps that one block and so its batch grouping."""
    machine = reference(kind).replace(wide_tiles=False)           # (whole-line tiles read each line once)
    sets = machine.l1d_bytes // machine.l1d_line_bytes // machine.l1d_ways
    lines_apart = 256 // machine.l1d_line_bytes
    cached = sets // np.gcd(lines_apart, sets) * machine.l1d_ways
    with kernels.use_profile(machine):
        e, = explain_conversion((128, 56, 56, 64), np.float32, "NHWC", "NCHW", threads=1)
        small, = explain_conversion((256, 16, 16, 64), np.float32, "NHWC", "NCHW", threads=1)
    tile_i = int(e.params["tile"].split("x")[0])
    bi, bj = (int(v) for v in e.params["block"].split("x"))
    assert bj == 4 and bi == max(tile_i, cached * 2 // 3 // tile_i * tile_i), (kind, e.params)
    assert int(small.params["block"].split("x")[0]) >= 256, (kind, small.params)
