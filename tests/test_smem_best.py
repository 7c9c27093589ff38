"""layouts.smem.best_swizzle against exhaustive search.

The objective, written here on its own: an access given a width must get it; the others are read
at the widest the layout allows, and the narrowest of those widths is made as wide as possible;
then the total wavefronts are made as small as possible; then the sum of log2 of the free widths
as large as possible. On small tiles the test
enumerates every XOR swizzle of the tile's bits (each column bit XORed with any set of row bits,
on the row-major and the column-major tile); on larger ones every ``Swizzle<B,M,S>`` of both. The
best layout's own counts are checked once more by the brute-force oracle of
test_smem_bruteforce.py (one offset at a time, Python sets), read from ``best.linear``'s bases.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

from layouts import cute, smem
from layouts.errors import LayoutError, LayoutTypeError
from layouts.kinds import OffsetTable

from test_smem_bruteforce import oracle_count, oracle_ldmatrix, oracle_requests, per_phase_threads


# ---------------------------------------------------------------- the objective, by brute force
def oracle_widest(offsets, thread_values, element_bytes):
    per = len(thread_values[0])
    best, n = element_bytes, 2
    while n * element_bytes <= 16 and per % n == 0:
        for vals in thread_values:
            for q in range(per // n):
                offs = [offsets[e] for e in vals[q * n:(q + 1) * n]]
                if offs != list(range(offs[0], offs[0] + n)) or (offs[0] * element_bytes) % (n * element_bytes):
                    return best
        best, n = n * element_bytes, 2 * n
    return best


def oracle_key(offsets, accesses, element_bytes, banks):
    """(-log2 of the narrowest free access's bytes, total wavefronts, -sum of log2 of the free
    accesses' bytes), None when an access cannot get its width."""
    free, waves = [], 0
    for kind, thread_values, width in accesses:
        if kind == "ldmatrix":
            per_phase = oracle_count(offsets, thread_values, 16, element_bytes, 8, banks)
            if per_phase == "refused":
                return None
            waves += sum(per_phase)
            continue
        w = width or oracle_widest(offsets, thread_values, element_bytes)
        per_phase = oracle_count(offsets, oracle_requests(thread_values, w // element_bytes), w, element_bytes,
                                 per_phase_threads(w), banks)
        if per_phase == "refused":
            return None
        if not width:
            free.append(int(w).bit_length() - 1)
        waves += sum(per_phase)
    return (-min(free) if free else 0, waves, -sum(free))


def key_of(results, accesses):
    """The same key from smem's reports (Conflicts per access, the accesses' own widths)."""
    free = [int(r.width_bytes).bit_length() - 1 for r, a in zip(results, accesses)
            if isinstance(a, smem.Access) and a.width_bytes is None]
    return (-min(free) if free else 0, sum(r.wavefronts for r in results), -sum(free))


def linear_offsets(best, rows, cols):
    """offsets[i] from best.linear's bases, XOR by XOR."""
    bases = best.linear.bases["offset"]
    out = [None] * (rows * cols)
    for off in range(rows * cols):
        r = c = 0
        for k, (br, bc) in enumerate(bases):
            if off >> k & 1:
                r ^= br
                c ^= bc
        out[r + rows * c] = off
    assert None not in out
    return out


# ---------------------------------------------------------------- random accesses
def random_linear_access(rng, rows, cols, element_bytes):
    """A random distributed layout of one warp over the tile: register and lane bases are random
    tile bits (some lanes broadcast), as Triton's layouts are; its width free or fixed."""
    rb, cb = rows.bit_length() - 1, cols.bit_length() - 1
    bits = list(range(rb + cb))
    rng.shuffle(bits)
    max_regs = min(len(bits), int(rng.integers(0, 4)))
    regs = [1 << b for b in bits[:max_regs]]
    lanes = [1 << b if rng.random() < 0.85 and b is not None else 0 for b in (bits[max_regs:max_regs + 5] + [None] * 5)[:5]]
    values = []
    for t in range(32):
        base = 0
        for k in range(5):
            if t >> k & 1:
                base ^= lanes[k]
        values.append([base ^ _xor(regs, v) for v in range(1 << len(regs))])
    thread_values = [[(e & (rows - 1)) + rows * (e >> rb) for e in vals] for vals in values]
    width = None if rng.random() < 0.6 else element_bytes
    return thread_values, width


def _xor(bases, v):
    out = 0
    for k, b in enumerate(bases):
        if v >> k & 1:
            out ^= b
    return out


def xor_swizzles(rows, cols):
    """Every layout 'row-major with column bit j XORed by a set of row bits' and the column-major twin."""
    rb, cb = rows.bit_length() - 1, cols.bit_length() - 1
    for inner in ("row", "col"):
        fast, slow = (cb, rb) if inner == "row" else (rb, cb)
        for masks in itertools.product(range(1 << slow), repeat=fast):
            offsets = []
            for i in range(rows * cols):
                r, c = i % rows, i // rows
                f, s = (c, r) if inner == "row" else (r, c)
                for j, m in enumerate(masks):
                    if bin(s & m).count("1") % 2:
                        f ^= 1 << j
                offsets.append(s * (1 << fast) + f)
            yield offsets


SMALL = [(4, 4, 4, 4), (8, 4, 4, 8), (4, 8, 2, 8), (8, 8, 4, 16), (2, 16, 4, 8), (8, 8, 8, 32)]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("rows, cols, element_bytes, banks", SMALL)
def test_best_reaches_the_minimum_over_every_xor_swizzle_of_a_small_tile(rows, cols, element_bytes, banks, seed):
    rng = np.random.default_rng(seed * 101 + rows * 7 + cols)
    accesses = []
    for _ in range(int(rng.integers(1, 3))):
        thread_values, width = random_linear_access(rng, rows, cols, element_bytes)
        accesses.append(("lds", thread_values, width))
    family = list(xor_swizzles(rows, cols))
    keys = [oracle_key(offs, accesses, element_bytes, banks) for offs in family]
    keys = [k for k in keys if k is not None]
    reads = [smem.Access(np.array(tv), w) for _, tv, w in accesses]
    assert keys, "no XOR swizzle of the tile is scored: the oracle would judge nothing"
    best = smem.best_swizzle(reads=reads, shape=(rows, cols), element_bytes=element_bytes, banks=banks)
    offsets = linear_offsets(best, rows, cols)
    mine = oracle_key(offsets, accesses, element_bytes, banks)
    assert mine is not None and mine <= min(keys), (mine, min(keys))
    # what best reports is what the oracle counts on best's own layout
    assert mine == key_of(best.conflicts, reads)


LARGE = [(32, 32, 4), (64, 64, 2), (16, 64, 2), (64, 16, 4), (32, 64, 1), (64, 32, 8)]


def swizzle_family(rows, cols):
    n = (rows * cols).bit_length() - 1
    inners = [cute.Layout((rows, cols), (cols, 1)), cute.Layout((rows, cols), (1, rows))]
    for inner in inners:
        yield inner
        for b in range(1, n):
            for m in range(0, n):
                for s in range(b, n - m - b + 1):
                    yield cute.composition(cute.Swizzle(b, m, s), inner)


@pytest.mark.parametrize("rows, cols, element_bytes", LARGE)
def test_best_reaches_the_minimum_over_every_cute_swizzle_of_a_larger_tile(rows, cols, element_bytes):
    rng = np.random.default_rng(rows * cols + element_bytes)
    accesses = []
    for _ in range(2):
        thread_values, width = random_linear_access(rng, rows, cols, element_bytes)
        accesses.append(smem.Access(np.array(thread_values), width))
    if element_bytes == 2 and rows % 8 == 0:
        accesses.append(smem.ldmatrix(x4=True))
    best_family = None
    for layout in swizzle_family(rows, cols):
        try:
            rs = [smem.conflicts(layout, a, element_bytes=element_bytes) for a in accesses]
        except LayoutError:
            continue            # an access's width this layout does not allow
        key = key_of(rs, accesses)
        best_family = key if best_family is None or key < best_family else best_family
    best = smem.best_swizzle(reads=accesses[:1], writes=accesses[1:], shape=(rows, cols), element_bytes=element_bytes)
    mine = key_of(best.conflicts, accesses)
    assert best_family is not None and mine <= best_family


def test_best_for_cutlass_sm80_tile_is_its_swizzle():
    """ldmatrix.x4 reads and 16-byte row stores of 8 x 64 halves: CUTLASS's Swizzle<3,3,3>."""
    t = np.arange(32)
    stores = np.array([[r + 8 * (8 * (c + 4 * q) + j) for q in range(2) for j in range(8)]
                       for r, c in zip(t % 8, t // 8)])                 # thread t: row t % 8, chunks t // 8, + 4
    best = smem.best_swizzle(reads=[smem.ldmatrix(x4=True)], writes=[smem.Access(stores, 16)], shape=(8, 64))
    assert [c.ways for c in best.conflicts] == [1, 1] and best.vector_bytes == [16, 16]
    assert str(best.cute) == "Sw<3,3,3> o 0 o (8,64):(64,1)"
    assert best.triton is not None and (best.triton.vec, best.triton.per_phase, best.triton.max_phase) == (8, 1, 8)
    for form in (best.cute, best.linear, (best.triton, (8, 64))):
        assert np.array_equal(smem.memory_of(form).offsets, best.memory.offsets)
    # the brute-force oracle agrees on best's layout
    offsets = linear_offsets(best, 8, 64)
    assert oracle_count(offsets, oracle_ldmatrix(4, 8, 64, 2), 16, 2, 8) == [1] * 8


def test_an_unswizzled_tile_is_chosen_when_nothing_conflicts():
    rows_by_threads = smem.Access(cute.Layout((32, 32), (32, 1)), 4)     # thread t holds column t
    best = smem.best_swizzle(reads=[rows_by_threads], shape=(32, 32), element_bytes=4)
    assert best.wavefronts == 32 and str(best.cute) == "(32,32):(32,1)"


def test_free_width_accesses_get_the_widest_vectors():
    rows = smem.Access(cute.Layout((32, 32), (32, 1)))      # thread t: column t... its values run down a column
    best = smem.best_swizzle(reads=[rows], shape=(32, 32), element_bytes=4)
    assert best.vector_bytes == [16]


def test_bad_input_to_best_swizzle_is_named():
    acc = smem.Access(cute.Layout((32, 32), (32, 1)), 4)
    with pytest.raises(LayoutError, match="power of two"):
        smem.best_swizzle(reads=[acc], shape=(24, 32))
    with pytest.raises(LayoutError, match="at least one access"):
        smem.best_swizzle(shape=(32, 32))
    with pytest.raises(LayoutTypeError, match="reads must be a list"):
        smem.best_swizzle(reads=acc, shape=(32, 32))
    with pytest.raises(LayoutError, match="give shape"):
        smem.best_swizzle(reads=[acc])
    with pytest.raises(LayoutError, match=r"reads\[0\]: acc reaches element"):
        smem.best_swizzle(reads=[acc], shape=(16, 16))
    # thread t's two values are elements t and t + 3: no XOR layout stores all such pairs contiguously
    odd = smem.Access(np.array([[t, (t + 3) % 64] for t in range(32)]), 8)
    with pytest.raises(LayoutError, match=r"reads\[0\] asks for width_bytes=8"):
        smem.best_swizzle(reads=[odd], shape=(8, 8), element_bytes=4)
    with pytest.raises(LayoutError, match="at most 131072"):
        smem.best_swizzle(reads=[acc], shape=(512, 512))
    with pytest.raises(LayoutError, match="banks must be a power of two"):
        smem.best_swizzle(reads=[acc], shape=(32, 32), banks=24)
    with pytest.raises(LayoutTypeError, match="matrix must be a sequence"):
        smem.best_swizzle(reads=[acc], shape=(32, 32), matrix="ldmatrix")
    with pytest.raises(LayoutError, match="'lds' is no matrix instruction"):
        smem.best_swizzle(reads=[acc], shape=(32, 32), matrix=("lds",))


def test_best_forms_agree():
    rng = np.random.default_rng(7)
    tv, width = random_linear_access(rng, 16, 32, 2)
    best = smem.best_swizzle(reads=[smem.Access(np.array(tv), width)], writes=[smem.ldmatrix(x2=True)],
                             shape=(16, 32), element_bytes=2)
    forms = [best.linear] + ([best.cute] if best.cute is not None else []) + (
        [(best.triton, (16, 32))] if best.triton is not None else [])
    for form in forms:
        assert np.array_equal(smem.memory_of(form).offsets, best.memory.offsets)
    again = smem.conflicts(OffsetTable(best.memory.offsets, "t"), smem.ldmatrix(x2=True), shape=(16, 32))
    assert again.per_phase == best.conflicts[1].per_phase


# ---------------------------------------------------------------- every linear layout of a 16-element tile
def all_invertible_columns(n):
    """Every invertible GF(2) matrix of n x n, as its columns (20160 for n = 4)."""
    out = []

    def extend(cols, span):
        if len(cols) == n:
            out.append(list(cols))
            return
        for v in range(1, 1 << n):
            if v not in span:
                extend(cols + [v], span | {s ^ v for s in span})
    extend([], {0})
    return np.array(out, dtype=np.int64)


def offsets_table(columns):
    """(layouts, elements): the offset of each element under each layout (columns[k] at offset 2**k)."""
    count, n = columns.shape
    offs = np.arange(1 << n)
    elements = np.zeros((count, 1 << n), dtype=np.int64)
    for k in range(n):
        elements ^= np.where((offs >> k) & 1, columns[:, k:k + 1], 0)
    table = np.empty_like(elements)
    np.put_along_axis(table, elements, np.broadcast_to(offs, elements.shape), axis=1)
    return table


def vectorised_key(table, accesses, element_bytes, banks):
    """oracle_key for every layout at once (numpy over the layouts; None -> inf)."""
    count = table.shape[0]
    free = []
    waves = np.zeros(count)
    ok = np.ones(count, dtype=bool)
    for _, thread_values, width in accesses:
        tv = np.array(thread_values)
        per = tv.shape[1]
        allowed = {}
        n = 1
        while n * element_bytes <= 16 and per % n == 0:
            g = table[:, tv.reshape(32, per // n, n)]                     # (L, 32, R, n) offsets
            good = np.all(g == g[..., :1] + np.arange(n), axis=-1) & (g[..., 0] * element_bytes % (n * element_bytes) == 0)
            allowed[n] = good.reshape(count, -1).all(axis=1)
            n *= 2
        widest = np.full(count, element_bytes)
        for n in sorted(allowed):
            widest = np.where(allowed[n] & (widest == (n // 2 if n > 1 else 1) * element_bytes), n * element_bytes, widest)
        w = np.full(count, width) if width else widest
        if width:
            ok &= allowed.get(width // element_bytes, np.zeros(count, dtype=bool))
        else:
            free.append(np.log2(w))
        for wv in np.unique(w):
            rows = np.flatnonzero(w == wv)
            n = wv // element_bytes
            per_phase = 32 if wv <= 4 else 128 // wv
            words_per = max(1, wv // 4)
            first = table[rows][:, tv.reshape(32, per // n, n)[..., 0]] * element_bytes   # (L, 32, R)
            words = first[..., None] // 4 + np.arange(words_per)                            # (L, 32, R, m)
            words = words.reshape(rows.size, 32 // per_phase, per_phase, per // n, words_per)
            words = words.transpose(0, 3, 1, 2, 4).reshape(rows.size, -1, per_phase * words_per)  # (L, phases, words)
            s = np.sort(words, axis=-1)
            first_of_word = np.concatenate([np.ones(s.shape[:-1] + (1,), bool), s[..., 1:] != s[..., :-1]], axis=-1)
            bank = s % banks
            slot = (np.arange(s.shape[0] * s.shape[1]).reshape(s.shape[:2])[..., None] * banks + bank)
            counts = np.bincount(slot[first_of_word], minlength=s.shape[0] * s.shape[1] * banks)
            waves[rows] += counts.reshape(s.shape[0], s.shape[1], banks).max(axis=-1).sum(axis=-1)
    low = -np.min(free, axis=0) if free else np.zeros(count)
    total = -np.sum(free, axis=0) if free else np.zeros(count)
    return [(int(lo), int(x), int(t)) if o else None for lo, x, t, o in zip(low, waves, total, ok)]


@pytest.mark.parametrize("rows, cols, element_bytes, banks", [(4, 4, 4, 4), (2, 8, 4, 4), (4, 4, 2, 4), (4, 4, 8, 8)])
@pytest.mark.parametrize("seed", range(3))
def test_best_reaches_the_optimum_over_every_linear_layout_of_16_elements(rows, cols, element_bytes, banks, seed):
    rng = np.random.default_rng(seed + 17 * rows + element_bytes)
    accesses = [("lds",) + random_linear_access(rng, rows, cols, element_bytes) for _ in range(int(rng.integers(1, 3)))]
    table = offsets_table(ALL_GL4)
    keys = [k for k in vectorised_key(table, accesses, element_bytes, banks) if k is not None]
    # the vectorised oracle agrees with the one-at-a-time oracle on a sample of the layouts
    for i in rng.choice(len(table), size=5, replace=False):
        assert vectorised_key(table[i:i + 1], accesses, element_bytes, banks)[0] == oracle_key(
            table[i].tolist(), accesses, element_bytes, banks)
    best = smem.best_swizzle(reads=[smem.Access(np.array(tv), w) for _, tv, w in accesses], shape=(rows, cols),
                             element_bytes=element_bytes, banks=banks)
    assert oracle_key(linear_offsets(best, rows, cols), accesses, element_bytes, banks) == min(keys)


ALL_GL4 = all_invertible_columns(4)


# ---------------------------------------------------------------- Triton's choice (its generated code)
# "Triton's choice" is the shared layout Triton's own code uses for the conversion: the triton
# wheel compiles a Gluon kernel (load in src, gl.convert_layout to dst, store) to PTX on the CPU,
# and triton_ptx's emulator runs it for every thread, reading where each element was stored.
# Every pair is compiled for sm_80 and sm_90 (sm_90 may use stmatrix/ldmatrix, sm_80 ldmatrix).
from layouts.linear import triton as tt  # noqa: E402 - the package's own module: never skipped

import triton_ptx  # noqa: E402 - this directory's helper; imports nothing of the wheel
from oracle_procs import TRITON_MISSING, have_triton, require_oracle  # noqa: E402

CAPABILITIES = (80, 90)


def _v2(warps, minor=0):
    return tt.NVMMADistributedLayout([2, minor], warps, [16, 8])


def _v3(warps, n, k=16):
    return tt.NVMMADistributedLayout([3, 0], warps, [16, n, k])


# the pairs of python/test/gluon/test_lowerings.py: test_convert_mma2mma_layouts (NVIDIA),
# test_convert2d_layouts (each 2-D layout with the next, as its multi-CTA cases pair them) and
# test_convert_warp_local_layouts (blocked pairs a factor of 2 apart), float16
_MMA_PAIRS = [(_v2([1, 4]), _v2([4, 1])), (_v2([2, 8]), _v2([8, 2])), (_v2([1, 4], 1), _v2([4, 1], 1)),
              (_v2([2, 8], 1), _v2([8, 2], 1)), (_v3([4, 1], 32, 32), _v3([4, 1], 64, 32)),
              (_v3([1, 4], 32, 32), _v3([4, 1], 64, 32)), (_v3([2, 8], 64, 32), _v3([8, 2], 32, 32)),
              (_v3([4, 1], 128), _v3([4, 1], 64))]
_2D = [tt.BlockedLayout([1, 1], [32, 1], [2, 2], [0, 1]), tt.BlockedLayout([1, 16], [8, 4], [4, 1], [1, 0]),
       _v3([4, 1], 32), tt.DotOperandLayout(0, _v3([4, 1], 32), 2), tt.DotOperandLayout(0, _v3([4, 1], 32), 1),
       _v2([4, 1]), tt.DotOperandLayout(1, _v2([4, 1]), 2), tt.DotOperandLayout(0, _v2([2, 2]), 2),
       tt.DotOperandLayout(0, _v2([4, 1]), 8)]
_WARP_LOCAL = [tt.BlockedLayout([1, 1], [32 // t, t], [1, 1], [1, 0]) for t in (1, 2, 4)] + [
    tt.BlockedLayout([1, 4], [32 // t, t], [1, 1], [1, 0]) for t in (1, 2, 4)]
_ALL_PAIRS = ([(a, b, shape) for shape in ((16, 16), (64, 64)) for a, b in _MMA_PAIRS]
              + [(b, a, shape) for shape in ((16, 16), (64, 64)) for a, b in _MMA_PAIRS]
              + [(a, b, (128, 128)) for a, b in _MMA_PAIRS[:2]]
              + [(a, b, shape) for shape in ((16, 16), (64, 64)) for a, b in zip(_2D, _2D[1:] + _2D[:1])]
              + [(a, b, (32, 32)) for a, b in zip(_WARP_LOCAL, _WARP_LOCAL[1:])])
# The pairs Triton 3.9.0 converts without shared memory, on sm_80 and sm_90 alike (in registers or
# by warp shuffles: there is no swizzle to beat); test_tritons_path_for_each_pair checks this list.
_WITHOUT_SHARED = {1, 3, 4, 5, 6, 7, 12, 15, 17, 19, 20, 21, 22, 23, 28, 31, 36, 37, 38, 39, 40, 45, 46, 47, 52,
                   53, 55, 56}
TRITON_PAIRS = [p for i, p in enumerate(_ALL_PAIRS) if i not in _WITHOUT_SHARED]


# The layout pairs of Triton's own generic-swizzling unit test (SwizzleTest in the triton repository,
# written there as linear layouts; the 4-bit, the 64-lane and the 64-bank AMD cases are left out:
# smem counts whole bytes, 32-thread warps and NVIDIA's phases). Triton expects its choice to be
# conflict-free by its own count, which reorders registers into its vectors; smem reads a thread's
# values in their order, so the two agree where that order already is Triton's vector.
def _ll(regs, lanes, warps, dims):
    from layouts.linear import LinearLayout
    return LinearLayout.from_bases({"register": regs, "lane": lanes, "warp": warps}, {"dim0": dims[0], "dim1": dims[1]})


def _transposed(layout):
    from layouts.linear import LinearLayout
    sizes = list(layout.out_dims.values())
    return LinearLayout.from_bases({k: [[b[1], b[0]] for b in v] for k, v in layout.bases.items()},
                                   {"dim0": sizes[1], "dim1": sizes[0]})


_F8 = _ll([[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], [[0, 16], [0, 32], [0, 64], [4, 0], [8, 0]],
          [[16, 0], [32, 0], [64, 0]], (128, 128))
SWIZZLE_TEST_PAIRS = [
    ("Test128x128Float8Transpose", _F8, _transposed(_F8), 1, False),
    ("Test16x16Bf16BlockedMma",
     _ll([[0, 1], [0, 2], [0, 4]], [[0, 8], [1, 0], [2, 0], [4, 0], [8, 0]], [], (16, 16)),
     _ll([[0, 1], [8, 0], [0, 8]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [], (16, 16)), 2, True),
    ("Test32x16F32Transpose",
     _ll([[4, 0], [8, 0], [16, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]], [[2, 0]], (32, 16)),
     _ll([[0, 2], [0, 4], [0, 8]], [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], [[0, 1]], (32, 16)), 4, True),
    ("Test128x128F16Transpose",
     _ll([[1, 0], [2, 0], [4, 0], [0, 32], [0, 64]], [[8, 0], [16, 0], [32, 0], [64, 0], [0, 1]],
         [[0, 2], [0, 4], [0, 8], [0, 16]], (128, 128)),
     _ll([[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]],
         [[2, 0], [4, 0], [8, 0], [16, 0]], (128, 128)), 2, False),
]


# The pairs that go through shared memory again with 8- and 32-bit elements (Triton 3.9.0 takes
# shared memory for each of them at these widths too; test_best_is_no_worse_than_tritons_generated_code
# checks it), and issue 55's smallest example of best_swizzle losing to Triton's code (int8: Triton
# 16 wavefronts with 16-byte accesses, best_swizzle in register order 24 with 2 bytes).
OTHER_WIDTHS = (1, 4)
ISSUE_55_INT8 = (tt.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]), _v2([2, 2]), (64, 64), 1)


def _cases():
    """(key, src, dst, shape, element_bytes) of every conversion this section compiles."""
    for i, (src, dst, shape) in enumerate(_ALL_PAIRS):
        yield ("pair", i), src, dst, shape, 2
    for name, src, dst, element_bytes, _ in SWIZZLE_TEST_PAIRS:
        yield ("swizzle test", name), src, dst, tuple(src.out_dims.values()), element_bytes
    for element_bytes in OTHER_WIDTHS:
        for i, (src, dst, shape) in enumerate(_ALL_PAIRS):
            if i not in _WITHOUT_SHARED:
                yield ("pair", i, element_bytes), src, dst, shape, element_bytes
    yield ("issue 55", "int8"), *ISSUE_55_INT8


@pytest.fixture(scope="session")
def tritons_code():
    """{(key, capability): triton_ptx.Run}: every conversion of this section compiled by the
    wheel in ONE child process, each run by the emulator (which checks itself: the kernel's
    output must be its input)."""
    require_oracle(have_triton(), TRITON_MISSING)
    cases = [(key, src, dst, shape, eb, cap) for key, src, dst, shape, eb in _cases() for cap in CAPABILITIES]
    jobs = [{"src": triton_ptx.encoding_spec(src), "dst": triton_ptx.encoding_spec(dst), "shape": list(shape),
             "element_bytes": eb, "capability": cap} for _, src, dst, shape, eb, cap in cases]
    runs = {}
    for (key, _, _, shape, eb, cap), compiled in zip(cases, triton_ptx.compile_conversions(jobs)):
        run = triton_ptx.emulate(compiled.ptx, shape, eb, compiled.num_warps)
        assert np.array_equal(run.output, np.arange(shape[0] * shape[1]).reshape(shape)), (key, cap)
        runs[key, cap] = run
    return runs


def tritons_table(run, element_bytes):
    """Triton's shared layout as smem's table: offsets[r + rows * c] in elements."""
    return OffsetTable(run.element_offsets(element_bytes).ravel(order="F"), "Triton's generated code")


@pytest.mark.parametrize("capability", CAPABILITIES)
def test_tritons_path_for_each_pair(tritons_code, capability):
    through = {i for i in range(len(_ALL_PAIRS)) if tritons_code[("pair", i), capability].through_shared_memory}
    assert set(range(len(_ALL_PAIRS))) - through == _WITHOUT_SHARED


@pytest.mark.parametrize("capability", CAPABILITIES)
@pytest.mark.parametrize("src, dst, shape", TRITON_PAIRS)
def test_best_is_no_worse_than_tritons_generic_swizzling(tritons_code, src, dst, shape, capability):
    run = tritons_code[("pair", _ALL_PAIRS.index((src, dst, shape))), capability]
    writes, reads = smem.Access((src, shape)), smem.Access((dst, shape))
    table = tritons_table(run, 2)
    theirs = [smem.conflicts(table, a, shape=shape) for a in (writes, reads)]
    best = smem.best_swizzle(reads=[reads], writes=[writes], shape=shape)
    # Triton vectorises both sides alike: best's narrower side is at least as wide, and no more wavefronts
    assert min(best.vector_bytes) >= min(r.vector_bytes for r in theirs)
    assert best.wavefronts <= sum(r.wavefronts for r in theirs)
    assert key_of(best.conflicts, [reads, writes]) <= key_of(theirs, [writes, reads])


@pytest.mark.parametrize("capability", CAPABILITIES)
@pytest.mark.parametrize("name, src, dst, element_bytes, in_value_order", SWIZZLE_TEST_PAIRS,
                         ids=[p[0] for p in SWIZZLE_TEST_PAIRS])
def test_tritons_own_swizzle_test_pairs(tritons_code, name, src, dst, element_bytes, in_value_order, capability):
    shape = tuple(src.out_dims.values())
    run = tritons_code[("swizzle test", name), capability]
    writes, reads = smem.Access(src), smem.Access(dst)
    table = tritons_table(run, element_bytes)
    theirs = [smem.conflicts(table, a, element_bytes=element_bytes, shape=shape) for a in (writes, reads)]
    if in_value_order:            # Triton's unit test: r == 0 and w == 0
        assert [r.ways for r in theirs] == [1, 1]
    best = smem.best_swizzle(reads=[reads], writes=[writes], shape=shape, element_bytes=element_bytes)
    assert min(best.vector_bytes) >= min(r.vector_bytes for r in theirs)
    assert best.wavefronts <= sum(r.wavefronts for r in theirs)


# Triton's generated code itself, counted instruction by instruction (warp 0's shared accesses,
# triton_ptx.wavefronts), against best_swizzle for the same two layouts read as Triton's code reads
# them: each thread's registers in Triton's order (order="triton"), and ldmatrix (sm_75 on) /
# stmatrix (sm_90 on) wherever the layouts allow them. Triton's ranking: the narrowest request
# first (widest vectors win), then the fewest wavefronts.
MATRIX_INSTRUCTIONS = {80: ("ldmatrix",), 90: ("ldmatrix", "stmatrix")}

# Where Triton's code still takes fewer wavefronts: issue 55, point 4. Before best_swizzle took
# ldmatrix/stmatrix and Triton's order into account (register order, vectors only), these 11 pairs
# lost on sm_80 and sm_90 alike -- (Triton's code, best_swizzle): pair 34 (12, 16), 35 (12, 16),
# 41 (12, 20), 42 (12, 24), 43 (32, 48), 48 (80, 96), 49 (96, 128), 51 (32, 48), 54 (32, 48),
# Test128x128Float8Transpose (32, 80), Test128x128F16Transpose (32, 48). Now best_swizzle equals
# Triton's code on each of them (test_summary_against_tritons_generated_code), so none is left.
_FEWER_IN_TRITONS_CODE: dict = {}

# best_swizzle's verdict against Triton's code by Triton's ranking, over every case of this section
# (_cases() on sm_80 and sm_90): Triton's generic swizzling is optimal on all of them.
SUMMARY = {"better": 0, "equal": 184, "worse": 0}


def _through_shared_memory_params():
    for key, src, dst, shape, eb in _cases():
        if key[0] == "pair" and key[1] in _WITHOUT_SHARED:
            continue
        for capability in CAPABILITIES:
            marks = []
            if key in _FEWER_IN_TRITONS_CODE:
                theirs, ours = _FEWER_IN_TRITONS_CODE[key]
                marks = [pytest.mark.xfail(strict=True, reason=f"issue 55: Triton's generated code takes {theirs} "
                                                               f"wavefronts (warp 0), best_swizzle {ours}")]
            yield pytest.param(key, src, dst, shape, eb, capability, marks=marks, id=f"{key[1]}-{eb}B-sm{capability}")


_BEST: dict = {}


def _best_in_tritons_terms(key, src, dst, shape, element_bytes, capability):
    """best_swizzle for one case, both sides in Triton's order with the capability's matrix instructions."""
    if (key, capability) not in _BEST:
        on = (lambda lay: smem.Access(lay, order="triton")) if key[0] == "swizzle test" else (
            lambda enc: smem.Access((enc, shape), order="triton"))
        _BEST[key, capability] = smem.best_swizzle(reads=[on(dst)], writes=[on(src)], shape=shape,
                                                   element_bytes=element_bytes,
                                                   matrix=MATRIX_INSTRUCTIONS[capability])
    return _BEST[key, capability]


def _tritons_figures(run):
    """(narrowest request in bytes, wavefronts) of warp 0's shared accesses in Triton's code."""
    mine = [a for a in run.accesses if a.warp == 0]
    return min(a.bytes_per_lane for a in mine), sum(triton_ptx.wavefronts(a) for a in mine)


@pytest.mark.parametrize("key, src, dst, shape, element_bytes, capability", list(_through_shared_memory_params()))
def test_best_is_no_worse_than_tritons_generated_code(tritons_code, key, src, dst, shape, element_bytes, capability):
    run = tritons_code[key, capability]
    assert run.through_shared_memory
    narrowest, tritons = _tritons_figures(run)
    best = _best_in_tritons_terms(key, src, dst, shape, element_bytes, capability)
    assert min(best.vector_bytes) >= narrowest
    assert best.wavefronts <= tritons
    assert (-min(best.vector_bytes), best.wavefronts) <= (-narrowest, tritons)
    instructions = [c.instruction for c in best.conflicts]
    assert instructions[0].startswith(("ld.shared", "ldmatrix")) and instructions[1].startswith(("st.shared", "stmatrix"))
    assert capability >= 90 or not instructions[1].startswith("stmatrix")      # sm_80 has no stmatrix


def test_summary_against_tritons_generated_code(tritons_code):
    """Better / equal / worse than Triton's code by Triton's ranking, over every case."""
    verdicts = {"better": 0, "equal": 0, "worse": 0}
    for key, src, dst, shape, eb, capability in (p.values for p in _through_shared_memory_params()):
        narrowest, tritons = _tritons_figures(tritons_code[key, capability])
        best = _best_in_tritons_terms(key, src, dst, shape, eb, capability)
        mine, theirs = (-min(best.vector_bytes), best.wavefronts), (-narrowest, tritons)
        verdicts["better" if mine < theirs else "equal" if mine == theirs else "worse"] += 1
    assert verdicts == SUMMARY


@pytest.mark.parametrize("capability", CAPABILITIES)
def test_instruction_choice_on_tritons_own_layout(tritons_code, capability):
    """On the shared layout Triton's code uses, instruction_conflicts takes the instruction Triton's
    code takes (vector or ldmatrix/stmatrix, .trans, .x1/.x2/.x4) with its narrowest width and its
    wavefronts, side by side (warp 0). Kernels that go through the scratch in several passes are left out."""
    from layouts.smem.best_swizzle import instruction_conflicts
    compared = 0
    for key, src, dst, shape, eb, cap in (p.values for p in _through_shared_memory_params()):
        run = tritons_code[key, cap]
        if cap != capability or run.round.max() > 0:
            continue
        on = (lambda lay: smem.Access(lay, order="triton")) if key[0] == "swizzle test" else (
            lambda enc: smem.Access((enc, shape), order="triton"))
        table = tritons_table(run, eb)
        for store, layout in ((True, src), (False, dst)):
            mine = instruction_conflicts(table, on(layout), store=store, element_bytes=eb, shape=shape,
                                         matrix=MATRIX_INSTRUCTIONS[capability])
            theirs = [a for a in run.accesses if a.warp == 0 and a.store == store]
            assert (mine.width_bytes, mine.wavefronts) == (min(a.bytes_per_lane for a in theirs),
                                                           sum(triton_ptx.wavefronts(a) for a in theirs)), key
            spelled = theirs[0].instruction.split()[0]
            kind = re.fullmatch(r"(ld|st)matrix\.sync\.aligned\.m8n8\.(x[124])(\.trans)?\.shared\.b16", spelled)
            if kind:
                assert mine.instruction == f"{kind[1]}matrix.{kind[2]}{kind[3] or ''}", (key, spelled)
            else:
                assert "matrix" not in mine.instruction, (key, spelled)
            compared += 1
    assert compared >= 100


@pytest.mark.parametrize("capability", CAPABILITIES)
def test_matrix_instructions_hold_the_fragments_of_the_ptx_isa(tritons_code, capability):
    """Every ldmatrix/stmatrix best_swizzle chooses, checked from the PTX ISA's fragment (as the PTX
    emulator reads it, triton_ptx.matrix_position): each lane's two 16-bit halves of matrix m are
    elements it holds in the thread map, every element it holds is in one matrix, and the rows'
    wavefronts are what the brute-force oracle counts on best's own offsets."""
    seen = 0
    for key, src, dst, shape, eb, cap in (p.values for p in _through_shared_memory_params()):
        if cap != capability:
            continue
        best = _best_in_tritons_terms(key, src, dst, shape, eb, capability)
        on = (lambda lay: smem.Access(lay, order="triton")) if key[0] == "swizzle test" else (
            lambda enc: smem.Access((enc, shape), order="triton"))
        offsets = best.memory.offsets.tolist()
        for result, layout in zip(best.conflicts, (dst, src)):
            if "matrix" not in result.instruction:
                continue
            seen += 1
            held = on(layout).values                                       # warp 0: lane -> its elements
            rows = result.access.rows                                       # (matrices, 8, 16 // eb)
            per_unit = 2 // eb
            trans = result.instruction.endswith(".trans")
            lane = np.arange(32)
            covered = [set() for _ in range(32)]
            for m in range(rows.shape[0]):
                for half in (0, 1):
                    r, c = triton_ptx.matrix_position(lane, np.full(32, half), trans)
                    for t in range(32):
                        unit = rows[m, r[t], c[t] * per_unit:(c[t] + 1) * per_unit]
                        assert set(unit.tolist()) <= set(held[t].tolist()), (key, t)
                        covered[t] |= set(unit.tolist())
            assert all(covered[t] == set(held[t].tolist()) for t in range(32)), key
            issues = [[rows[m, r].tolist() for r in range(8)] + [None] * 24 for m in range(rows.shape[0])]
            assert sum(oracle_count(offsets, issues, 16, eb, 8)) == result.wavefronts, key
    assert seen > 0


def _sampled_xor_offsets(rng, rows, cols, count):
    """``count`` random XOR swizzles of the tile, as in :func:`xor_swizzles` but with random masks
    (the whole family is too large past small tiles): offsets[i] for i = r + rows * c."""
    rb, cb = rows.bit_length() - 1, cols.bit_length() - 1
    i = np.arange(rows * cols)
    r, c = i % rows, i // rows
    for k in range(count):
        row_major = k % 2 == 0
        fast, slow = (c, r) if row_major else (r, c)
        nfast, nslow = (cb, rb) if row_major else (rb, cb)
        f = fast.copy()
        for j in range(nfast):
            m = int(rng.integers(0, 1 << nslow))
            parity = np.zeros_like(slow)
            for b in range(nslow):
                if m >> b & 1:
                    parity ^= (slow >> b) & 1
            f ^= parity << j
        yield list(slow * (1 << nfast) + f)


def _cute_family_offsets(rows, cols):
    """Swizzle<B,M,S> over the row- and column-major tile, from CuTe's definition of a swizzle
    (offset o XOR (o's B bits from M+S, shifted down by S)), computed here, not by the library."""
    n = (rows * cols).bit_length() - 1
    i = np.arange(rows * cols)
    r, c = i % rows, i // rows
    for base in (r * cols + c, r + rows * c):
        yield list(base)
        for b in range(1, n):
            for m in range(0, n):
                for s in range(b, n - m - b + 1):
                    yy = ((1 << b) - 1) << (m + s)
                    yield list(base ^ ((base & yy) >> s))


@pytest.mark.parametrize("rows, cols, element_bytes", LARGE)
def test_best_is_no_worse_than_an_independent_search_of_a_larger_tile(rows, cols, element_bytes):
    """The judge the test above is not: every candidate scored by this file's own bank model
    (``oracle_key``), over CuTe's swizzles computed from their definition and 200 random XOR
    swizzles best_swizzle never enumerates; best's own layout scored by the same model."""
    rng = np.random.default_rng(rows * cols + element_bytes + 1)
    accesses = []
    for _ in range(2):
        thread_values, width = random_linear_access(rng, rows, cols, element_bytes)
        accesses.append(("lds", thread_values, width))
    keys = [oracle_key(offs, accesses, element_bytes, 32)
            for offs in itertools.chain(_cute_family_offsets(rows, cols), _sampled_xor_offsets(rng, rows, cols, 200))]
    keys = [k for k in keys if k is not None]
    assert keys, "no candidate is scored: the oracle would judge nothing"
    reads = [smem.Access(np.array(tv), w) for _, tv, w in accesses]
    best = smem.best_swizzle(reads=reads[:1], writes=reads[1:], shape=(rows, cols), element_bytes=element_bytes)
    mine = oracle_key(linear_offsets(best, rows, cols), accesses, element_bytes, 32)
    assert mine is not None and mine <= min(keys), (mine, min(keys))


# ---------------------------------------------------------------- Triton's order and matrix instructions, small tiles
# The objective of best_swizzle for accesses in Triton's order, written here from its definitions
# alone: a thread's registers that repeat an element are dropped and the ones the layout puts at
# offsets 1, 2, 4, ... from its first value come first (Triton's order, as its generated code takes
# them); or, for 8- and 16-bit elements, ldmatrix / stmatrix with any register as the 16-bit half
# (and for bytes any other as the byte of a unit), read off the PTX ISA's fragment
# (triton_ptx.matrix_position: lane l holds row l // 4, columns 2 (l % 4) + h; .trans swaps them),
# each row one 16-byte address of lane 8 i + r. Each access takes the widest, then the fewest wavefronts.
def _random_map(rng, rows, cols, registers, unit=False):
    """(register bases, lane bases) as flat elements of a random linear map onto the tile; lanes
    sometimes broadcast (a zero basis); each basis one tile bit (``unit``, as in Triton's
    encodings) or any sum of them."""
    bits = (rows * cols).bit_length() - 1
    basis = [1 << int(b) for b in rng.permutation(bits)] if unit else []
    while len(basis) < bits:                       # random invertible columns
        v = int(rng.integers(1, 1 << bits))
        span = {0}
        for b in basis:
            span |= {s ^ b for s in span}
        if v not in span:
            basis.append(v)
    regs, lanes = basis[:registers], basis[registers:registers + 5]
    lanes = [0 if rng.random() < 0.1 else b for b in lanes] + [0] * (5 - len(lanes))
    return regs, lanes


def _map_values(regs, lanes):
    return [[_xor(lanes, t) ^ _xor(regs, v) for v in range(1 << len(regs))] for t in range(32)]


def _as_access(regs, lanes, rows, cols):
    from layouts.linear import LinearLayout
    coords = lambda e: [e % rows, e // rows]       # noqa: E731 - flat colexicographic index -> (dim0, dim1)
    layout = LinearLayout.from_bases({"register": [coords(r) for r in regs], "lane": [coords(b) for b in lanes]},
                                     {"dim0": rows, "dim1": cols}, require_surjective=False)
    return smem.Access(layout, order="triton")


def _tritons_order(values, regs, offsets, element_bytes):
    """Each thread's values in Triton's order on ``offsets`` (repeated registers dropped)."""
    kept = [k for k, b in enumerate(regs) if b]
    vector = []
    while element_bytes << (len(vector) + 1) <= 16:
        step = [k for k in kept if k not in vector and offsets[regs[k]] ^ offsets[0] == 1 << len(vector)]
        if not step:
            break
        vector.append(step[0])
    order = vector + [k for k in kept if k not in vector]
    return [[vals[_xor([1 << k for k in order], i)] for i in range(1 << len(order))] for vals in values]


def _matrix_options(values, regs, offsets, element_bytes, banks):
    """Wavefronts of every ldmatrix/stmatrix fragment of the map that the layout allows."""
    kept = [k for k, b in enumerate(regs) if b]
    out = []
    units = 2 // element_bytes
    for unit in kept if units == 2 else [None]:
        for half in kept:
            if half == unit:
                continue
            rest = [k for k in kept if k not in (half, unit)]
            for trans in (False, True):
                issues = []
                for m in range(1 << len(rest)):
                    base = _xor([1 << k for k in rest], m)
                    rows = [[None] * 8 for _ in range(8)]
                    for lane in range(32):
                        for h in (0, 1):
                            r, c = (int(x) for x in triton_ptx.matrix_position(np.array(lane), np.array(h), trans))
                            index = base | (h << half)
                            rows[r][c] = ([values[lane][index]] if unit is None else
                                          [values[lane][index], values[lane][index | 1 << unit]])
                    issues.append([sum(row, []) for row in rows] + [None] * 24)
                per_phase = oracle_count(offsets, issues, 16, element_bytes, 8, banks)
                if per_phase != "refused":
                    out.append(sum(per_phase))
    return out


def _choice(offsets, regs, lanes, element_bytes, banks):
    """(bytes, wavefronts) the access takes on ``offsets``: the widest, then the fewest."""
    values = _map_values(regs, lanes)
    options = []
    if len(set(lanes)) == 5 and 0 not in lanes:
        options += [(16, w) for w in _matrix_options(values, regs, offsets, element_bytes, banks)]
    ordered = _tritons_order(values, regs, offsets, element_bytes)
    w = oracle_widest(offsets, ordered, element_bytes)
    per_phase = oracle_count(offsets, oracle_requests(ordered, w // element_bytes), w, element_bytes,
                             per_phase_threads(w), banks)
    options.append((w, sum(per_phase)))
    return min(options, key=lambda o: (-o[0], o[1]))


def _tritons_key(offsets, maps, element_bytes, banks):
    chosen = [_choice(offsets, regs, lanes, element_bytes, banks) for regs, lanes in maps]
    free = [int(w).bit_length() - 1 for w, _ in chosen]
    return (-min(free), sum(w for _, w in chosen), -sum(free))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("unit", [False, True])
@pytest.mark.parametrize("rows, cols, element_bytes, registers, family, banks", [
    (8, 8, 2, 1, "every", 32), (8, 8, 2, 1, "every", 8), (16, 8, 1, 2, "sampled", 32),
    (8, 16, 2, 2, "sampled", 32), (8, 16, 2, 2, "sampled", 8)])
def test_best_in_tritons_order_reaches_the_minimum_of_a_small_tile(rows, cols, element_bytes, registers, family, banks,
                                                                   unit, seed):
    """best_swizzle against this file's own model of Triton's order and of ldmatrix/stmatrix, over
    every XOR swizzle of an 8 x 8 tile (1024 layouts), or CuTe's swizzles and 300 random XOR
    swizzles of a 128-element tile; one read (ldmatrix) and one write (stmatrix), random maps
    (bases of one tile bit each, as Triton's encodings have, or any). With 8 banks these tiles
    have bank conflicts to avoid (with 32 a 128-byte tile has none)."""
    rng = np.random.default_rng(1000 * seed + rows * cols + element_bytes + 17 * unit + banks)
    maps = [_random_map(rng, rows, cols, registers, unit) for _ in range(2)]
    if family == "every":
        layouts = list(xor_swizzles(rows, cols))
    else:
        layouts = list(itertools.chain(_cute_family_offsets(rows, cols), _sampled_xor_offsets(rng, rows, cols, 300)))
    keys = [_tritons_key(list(offs), maps, element_bytes, banks) for offs in layouts]
    reads, writes = (_as_access(*m, rows, cols) for m in maps)
    best = smem.best_swizzle(reads=[reads], writes=[writes], shape=(rows, cols), element_bytes=element_bytes,
                             banks=banks)
    offsets = linear_offsets(best, rows, cols)
    mine = _tritons_key(offsets, maps, element_bytes, banks)
    assert mine <= min(keys), (mine, min(keys))
    # what best reports is what this model counts on best's own layout
    assert mine == key_of(best.conflicts, [reads, writes])
