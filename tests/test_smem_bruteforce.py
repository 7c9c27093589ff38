"""layouts.smem.conflicts against brute force, on random tiles up to 64 x 64 and random accesses.

The oracle here shares no code with the package's model: it asks each layout for one offset at a
time (``layout(i)``, ``Layout.offset(h=, w=)``, the table itself), each TV layout for one
``(thread, value)`` at a time, writes ldmatrix's thread map from the instruction's definition
(thread t gives row t % 8 of matrix t // 8, 16-byte rows along the tile's row, matrices row block
by row block), splits requests into phases by width (4 B or less: 32 threads, 8 B: 16, 16 B: 8,
ldmatrix: one matrix), and counts, per phase, the distinct 4-byte words of each bank in Python
sets. Every case comes from a fixed seed.
"""

from __future__ import annotations

import numpy as np
import pytest

import layouts as ly
from layouts import cute, smem
from layouts.errors import LayoutError
from layouts.kinds import OffsetTable
from layouts.linear import LinearLayout

BANKS, BANK_BYTES = 32, 4


# ---------------------------------------------------------------- the oracle
def oracle_offsets(kind, layout, rows, cols):
    """offsets[i] of element i = row + rows * col, one call at a time."""
    out = []
    for i in range(rows * cols):
        r, c = i % rows, i // rows
        if kind == "framework":
            out.append(layout.offset(h=r, w=c))
        elif kind == "table":
            out.append(int(layout[i]))
        else:
            out.append(layout((r, c)))
    return out


def oracle_tv(tv, values):
    return [[tv((t, v)) for v in range(values)] for t in range(32)]


def oracle_ldmatrix(matrices, rows, cols, element_bytes):
    """Per issue, per thread: the elements of the row it gives (None past 8 * matrices)."""
    per_row = 16 // element_bytes
    along = cols // per_row
    all_matrices = [(m // along, m % along) for m in range((rows // 8) * along)]   # row block, column block
    issues = []
    for q in range(len(all_matrices) // matrices):
        threads = []
        for t in range(32):
            if t >= 8 * matrices:
                threads.append(None)
                continue
            rb, cb = all_matrices[q * matrices + t // 8]
            row = 8 * rb + t % 8
            threads.append([row + rows * (cb * per_row + j) for j in range(per_row)])
        issues.append(threads)
    return issues


def oracle_requests(thread_values, n):
    """Issues of a thread map read n values at a time."""
    per = len(thread_values[0])
    return [[vals[q * n:(q + 1) * n] for vals in thread_values] for q in range(per // n)]


def oracle_count(offsets, issues, width, element_bytes, threads_per_phase, banks=BANKS):
    """Wavefronts per phase, or the string 'refused' if some request is not contiguous and aligned."""
    n = width // element_bytes
    per_phase = []
    for threads in issues:
        phases = {}
        for t, elems in enumerate(threads):
            if elems is None:
                continue
            offs = [offsets[e] for e in elems]
            if offs != list(range(offs[0], offs[0] + n)) or (offs[0] * element_bytes) % width:
                return "refused"
            first = offs[0] * element_bytes
            per_bank = phases.setdefault(t // threads_per_phase, {})
            for word in range(first // BANK_BYTES, (first + width - 1) // BANK_BYTES + 1):
                per_bank.setdefault(word % banks, set()).add(word)
        for p in sorted(phases):
            per_phase.append(max(len(words) for words in phases[p].values()))
    return per_phase


def per_phase_threads(width):
    return 32 if width <= 4 else 128 // width


# ---------------------------------------------------------------- random cases
def random_shared(rng, rows, cols):
    """(kind for the oracle, the layout object) of a random shared layout of a rows x cols tile."""
    pow2 = rows & (rows - 1) == 0 and cols & (cols - 1) == 0
    choice = rng.integers(0, 7 if pow2 else 5)
    pad = int(rng.integers(0, 9))
    if choice == 0:
        return "cute", cute.Layout((rows, cols), (cols, 1))
    if choice == 1:
        return "cute", cute.Layout((rows, cols), (1, rows + pad))
    if choice == 2:
        return "cute", cute.Layout((rows, cols), (cols + pad, 1))
    if choice == 3:
        return "framework", ly.Layout("HW", H=rows, W=cols, pitch={"H": cols + pad})
    if choice == 4:
        size = rows * cols
        table = rng.permutation(size + int(rng.integers(0, size + 1)))[:size]
        return "table", table
    if choice == 5:
        bits = int(rng.integers(1, 4))
        base = int(rng.integers(0, 4))
        shift = int(rng.integers(bits, bits + 4)) * (1 if rng.random() < 0.8 else -1)
        inner = cute.Layout((rows, cols), (cols, 1)) if rng.random() < 0.7 else cute.Layout((rows, cols), (1, rows))
        return "cute", cute.composition(cute.Swizzle(bits, base, shift), inner)
    return "linear", random_linear(rng, rows, cols)


def random_linear(rng, rows, cols):
    """A random invertible GF(2) map offset -> (dim0, dim1), Triton's orientation."""
    rb, cb = rows.bit_length() - 1, cols.bit_length() - 1
    n = rb + cb
    while True:
        m = rng.integers(0, 2, size=(n, n))
        if _rank2(m) == n:
            break
    bases = []
    for k in range(n):           # offset bit k -> element bits (dim0 bits first, then dim1)
        e = sum(int(m[j, k]) << j for j in range(n))
        bases.append([e & (rows - 1), e >> rb])
    return LinearLayout.from_bases({"offset": bases}, {"dim0": rows, "dim1": cols})


def _rank2(m):
    m = m.copy() % 2
    rank = 0
    for c in range(m.shape[1]):
        pivot = next((r for r in range(rank, m.shape[0]) if m[r, c]), None)
        if pivot is None:
            continue
        m[[rank, pivot]] = m[[pivot, rank]]
        for r in range(m.shape[0]):
            if r != rank and m[r, c]:
                m[r] ^= m[rank]
        rank += 1
    return rank


def oracle_linear_offsets(layout, rows, cols):
    """offsets from the bases themselves: every offset's element by XOR, then inverted."""
    bases = layout.bases["offset"]
    out = [None] * (rows * cols)
    for off in range(rows * cols):
        r = c = 0
        for k, (br, bc) in enumerate(bases):
            if off >> k & 1:
                r ^= br
                c ^= bc
        out[r + rows * c] = off
    return out


def random_vector_map(rng, offsets, width, element_bytes, values):
    """A thread map whose every request is n consecutive aligned offsets (None when the tile
    has no such block)."""
    n = width // element_bytes
    where = {o: i for i, o in enumerate(offsets)}
    blocks = [b for b in range(0, max(offsets) + 1, n) if all(b + k in where for k in range(n))]
    if not blocks:
        return None
    groups = values // n
    picks = rng.choice(len(blocks), size=(32, groups))
    return [[where[blocks[p] + k] for p in picks[t] for k in range(n)] for t in range(32)]


def random_row_chunks(rng, rows, cols, per_row):
    """Offsets of a tile stored as 16-byte pieces of its rows, the pieces in random slots."""
    pieces = rows * cols // per_row
    slots = rng.permutation(pieces + int(rng.integers(0, pieces + 1)))[:pieces]
    table = np.empty(rows * cols, dtype=np.int64)
    for p, slot in enumerate(slots):
        r, c0 = p % rows, (p // rows) * per_row
        for j in range(per_row):
            table[r + rows * (c0 + j)] = slot * per_row + j
    return table


SEEDS = range(12)


@pytest.mark.parametrize("seed", SEEDS)
def test_conflicts_equal_brute_force_on_random_tiles_and_thread_maps(seed):
    rng = np.random.default_rng(1000 + seed)
    checked = refused = 0
    for _ in range(30):
        pow2 = rng.random() < 0.5
        rows = int(2 ** rng.integers(0, 7)) if pow2 else int(rng.integers(1, 65))
        cols = int(2 ** rng.integers(0, 7)) if pow2 else int(rng.integers(1, 65))
        element_bytes = int(rng.choice([1, 2, 4, 8]))
        kind, layout = random_shared(rng, rows, cols)
        if kind == "linear":
            offsets = oracle_linear_offsets(layout, rows, cols)
        else:
            offsets = oracle_offsets(kind, layout, rows, cols)
        shared = OffsetTable(layout, "random table") if kind == "table" else layout
        width = int(rng.choice([w for w in (1, 2, 4, 8, 16) if w >= element_bytes]))
        n = width // element_bytes
        values = n * int(rng.integers(1, 5))
        if rng.random() < 0.5:       # random elements: mostly refused for wide requests
            thread_values = rng.integers(0, rows * cols, size=(32, values)).tolist()
        else:
            thread_values = random_vector_map(rng, offsets, width, element_bytes, values)
            if thread_values is None:
                continue
        expected = oracle_count(offsets, oracle_requests(thread_values, n), width, element_bytes,
                                per_phase_threads(width))
        acc = smem.Access(np.array(thread_values), width)
        if expected == "refused":
            with pytest.raises(LayoutError, match=f"width_bytes={width}"):
                smem.conflicts(shared, acc, element_bytes=element_bytes, shape=(rows, cols))
            refused += 1
            continue
        r = smem.conflicts(shared, acc, element_bytes=element_bytes, shape=(rows, cols))
        assert r.per_phase == expected, (kind, rows, cols, element_bytes, width)
        assert r.wavefronts == sum(expected) and r.ideal == len(expected) and r.ways == max(expected)
        # the phases' details say the same
        assert [p.wavefronts for p in r.phases] == expected
        checked += 1
    assert checked >= 10 and refused >= 1


@pytest.mark.parametrize("seed", SEEDS)
def test_cute_tv_layouts_equal_brute_force(seed):
    """Random TV layouts ((32), (values)) with random strides: the oracle calls tv((t, v))."""
    rng = np.random.default_rng(2000 + seed)
    checked = 0
    for _ in range(20):
        rows, cols = (int(2 ** rng.integers(2, 7)) for _ in range(2))
        element_bytes = int(rng.choice([1, 2, 4]))
        kind, layout = random_shared(rng, rows, cols)
        offsets = oracle_linear_offsets(layout, rows, cols) if kind == "linear" else oracle_offsets(kind, layout, rows, cols)
        shared = OffsetTable(layout, "random table") if kind == "table" else layout
        t_modes = (4, 8) if rng.random() < 0.5 else (32,)
        values = int(2 ** rng.integers(0, 4))
        t_strides = tuple(int(rng.integers(0, 4)) * int(2 ** rng.integers(0, 6)) for _ in t_modes)
        v_stride = int(rng.choice([1, rows, 2]))
        tv = cute.Layout((t_modes if len(t_modes) > 1 else 32, values),
                         (t_strides if len(t_modes) > 1 else t_strides[0], v_stride))
        vals = oracle_tv(tv, values)
        if max(max(v) for v in vals) >= rows * cols:
            with pytest.raises(LayoutError, match="reaches element"):
                smem.conflicts(shared, smem.Access(tv, element_bytes), element_bytes=element_bytes, shape=(rows, cols))
            continue
        for width in {element_bytes, min(16, element_bytes * values)}:
            n = width // element_bytes
            expected = oracle_count(offsets, oracle_requests(vals, n), width, element_bytes, per_phase_threads(width))
            acc = smem.Access(tv, width)
            if expected == "refused":
                with pytest.raises(LayoutError, match=f"width_bytes={width}"):
                    smem.conflicts(shared, acc, element_bytes=element_bytes, shape=(rows, cols))
                continue
            assert smem.conflicts(shared, acc, element_bytes=element_bytes, shape=(rows, cols)).per_phase == expected
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize("seed", range(6))
def test_ldmatrix_equals_brute_force(seed):
    rng = np.random.default_rng(3000 + seed)
    checked = 0
    for _ in range(25):
        element_bytes = int(rng.choice([1, 2, 4]))
        per_row = 16 // element_bytes
        matrices = int(rng.choice([1, 2, 4]))
        rows = 8 * int(rng.integers(1, 9))
        cols = per_row * int(rng.integers(1, 65 // per_row + 1))
        if cols > 64 or ((rows // 8) * (cols // per_row)) % matrices:
            continue
        if rng.random() < 0.7:
            kind, layout = "table", random_row_chunks(rng, rows, cols, per_row)
        else:
            kind, layout = random_shared(rng, rows, cols)
        offsets = oracle_linear_offsets(layout, rows, cols) if kind == "linear" else oracle_offsets(kind, layout, rows, cols)
        shared = OffsetTable(layout, "random table") if kind == "table" else layout
        expected = oracle_count(offsets, oracle_ldmatrix(matrices, rows, cols, element_bytes), 16, element_bytes, 8)
        instr = smem.ldmatrix(**{f"x{matrices}": True})
        if expected == "refused":
            with pytest.raises(LayoutError, match="width_bytes=16"):
                smem.conflicts(shared, instr, element_bytes=element_bytes, shape=(rows, cols))
            continue
        r = smem.conflicts(shared, instr, element_bytes=element_bytes, shape=(rows, cols))
        assert r.per_phase == expected, (kind, rows, cols, element_bytes, matrices)
        checked += 1
    assert checked >= 8


def test_padded_and_swizzled_tiles_of_every_pitch_equal_brute_force():
    """Every pitch 32..40 and every Swizzle<B,M,S> with B + M + S <= 10 on a 32 x 32 float tile,
    read by rows and by columns."""
    by_columns = [[t + 32 * v for v in range(32)] for t in range(32)]
    by_rows = [[v + 32 * t for v in range(32)] for t in range(32)]
    layouts = [("cute", cute.Layout((32, 32), (p, 1))) for p in range(32, 41)]
    layouts += [("cute", cute.composition(cute.Swizzle(b, m, s), cute.Layout((32, 32), (32, 1))))
                for b in range(1, 6) for m in range(0, 4) for s in range(b, 11 - b - m)]
    for kind, layout in layouts:
        offsets = oracle_offsets(kind, layout, 32, 32)
        for tm in (by_columns, by_rows):
            expected = oracle_count(offsets, oracle_requests(tm, 1), 4, 4, 32)
            assert smem.conflicts(layout, smem.Access(np.array(tm), 4), element_bytes=4).per_phase == expected
