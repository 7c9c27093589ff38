"""layouts.kernels: copy_into / fill_zero against the np.copyto oracle, bitwise.

Every test runs on both kernel paths (LLVM-shuffle tiles and plain scalar tiles), with
non-temporal stores forced on for small outputs, and with 1 and 2 threads (the
parallel threshold is lowered so that tiny arrays are really split).  The whole
destination *buffer* is compared, so writes outside the view are caught too.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import layouts.kernels as kernels  # noqa: E402  numba is a core dependency: a broken one fails here, loudly, never skips
from layouts.kernels import copy_into, fill_zero  # noqa: E402
from layouts.kernels.plan import coalesce, make_plan  # noqa: E402

DTYPES = [np.dtype(t) for t in (
    "?", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f2", "f4", "f8", "c8", "c16",
    "V16", "S3", [("a", "u1"), ("b", "<f4")], [("x", "<f8"), ("y", "<i4")])]
DTYPE_IDS = [str(d) if d.names is None else f"struct{d.itemsize}" for d in DTYPES]


def tune(**changes):
    """Make the active profile the current one with ``changes`` for the rest of the test."""
    kernels.set_profile(kernels.current().replace(**changes))


@pytest.fixture(autouse=True)
def _restore_profile():
    before = kernels.current()
    yield
    kernels.set_profile(before)


@pytest.fixture(params=["simd", "simd-nt", "plain"])
def path(request):
    tune(simd=request.param != "plain", nt_min_bytes=0 if request.param == "simd-nt" else 1 << 62,
         thread_min_bytes=0, small_bytes=0)
    return request.param


def random_array(rng, shape, dtype):
    n = int(np.prod(shape)) * dtype.itemsize
    return rng.integers(0, 256, n, dtype=np.uint8).view(dtype).reshape(shape)


def _offset(base, view):
    return view.__array_interface__["data"][0] - base.__array_interface__["data"][0]


# ---------------------------------------------------------------- hypothesis


@st.composite
def copy_case(draw):
    dtype = draw(st.sampled_from(DTYPES))
    rank = draw(st.integers(0, 8))
    shape = tuple(draw(st.lists(st.sampled_from([0, 1, 1, 2, 3, 4, 5, 7]), min_size=rank, max_size=rank)))
    if rank and draw(st.booleans()):          # make it non-empty most of the time
        shape = tuple(max(n, 1) for n in shape)
    perm = draw(st.permutations(range(rank)))
    steps = tuple(draw(st.lists(st.sampled_from([1, 1, 1, 2, -1]), min_size=rank, max_size=rank)))
    dperm = draw(st.permutations(range(rank)))
    pad = tuple(draw(st.lists(st.sampled_from([0, 0, 1, 3]), min_size=rank, max_size=rank)))
    seed = draw(st.integers(0, 2**32 - 1))
    threads = draw(st.sampled_from([1, 2]))
    return dtype, shape, perm, steps, dperm, pad, seed, threads


def build(dtype, shape, perm, steps, dperm, pad, seed):
    rng = np.random.default_rng(seed)
    # src: a permuted, sliced view of a random base
    src_base_shape = tuple(max(n, 0) * abs(s) for n, s in zip(shape, steps))
    base = random_array(rng, tuple(src_base_shape[p] for p in perm), dtype)
    inv = np.argsort(perm) if len(perm) else perm
    v = base.transpose(inv) if len(perm) else base
    v = v[tuple(slice(None, None, s) for s in steps) + (Ellipsis,)]
    v = v[tuple(slice(0, n) for n in shape) + (Ellipsis,)]
    assert v.shape == shape
    # dst: an axis-permuted view into a padded (pitched) buffer
    dshape = tuple(shape[p] + pad[p] for p in dperm)
    dbase = random_array(rng, dshape, dtype)
    dinv = np.argsort(dperm) if len(dperm) else dperm
    dv = dbase.transpose(dinv) if len(dperm) else dbase
    dv = dv[tuple(slice(0, n) for n in shape) + (Ellipsis,)]
    assert dv.shape == shape
    return dbase, dv, v


def check(dbase, dv, v, threads):
    exp = dbase.copy()
    exp_v = np.lib.stride_tricks.as_strided(exp, dv.shape, dv.strides, writeable=True) \
        if _offset(dbase, dv) == 0 else None
    assert exp_v is not None
    src_before = v.tobytes()
    np.copyto(exp_v, v)
    copy_into(dv, v, threads=threads)
    assert dbase.tobytes() == exp.tobytes()
    assert v.tobytes() == src_before


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=copy_case())
def test_copy_random(path, case):
    dtype, shape, perm, steps, dperm, pad, seed, threads = case
    dbase, dv, v = build(dtype, shape, perm, steps, dperm, pad, seed)
    check(dbase, dv, v, threads)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=copy_case())
def test_fill_random(path, case):
    dtype, shape, perm, steps, dperm, pad, seed, threads = case
    dbase, dv, _ = build(dtype, shape, perm, steps, dperm, pad, seed)
    exp = dbase.copy()
    exp_v = np.lib.stride_tricks.as_strided(exp, dv.shape, dv.strides, writeable=True)
    exp_v[...] = np.zeros((), dtype)
    fill_zero(dv, threads=threads)
    assert dbase.tobytes() == exp.tobytes()


# ---------------------------------------------------------------- layout directions, medium sizes

def directions(x):
    """(name, dst, src view) for the directions the conversion engine uses."""
    n, c, h, w = x.shape
    out = [("NCHW->NHWC", np.empty((n, h, w, c), x.dtype), x.transpose(0, 2, 3, 1)),
           ("NCHW->CHWN", np.empty((c, h, w, n), x.dtype), x.transpose(1, 2, 3, 0))]
    nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    out += [("NHWC->NCHW", np.empty((n, c, h, w), x.dtype), nhwc.transpose(0, 3, 1, 2)),
            ("NHWC->CHWN", np.empty((c, h, w, n), x.dtype), nhwc.transpose(3, 1, 2, 0))]
    chwn = np.ascontiguousarray(x.transpose(1, 2, 3, 0))
    out += [("CHWN->NCHW", np.empty((n, c, h, w), x.dtype), chwn.transpose(3, 0, 1, 2)),
            ("CHWN->NHWC", np.empty((n, h, w, c), x.dtype), chwn.transpose(3, 1, 2, 0))]
    if c % 16 == 0:
        out.append(("NCHW->NCHW16c", np.empty((n, c // 16, h, w, 16), x.dtype),
                    x.reshape(n, c // 16, 16, h, w).transpose(0, 1, 3, 4, 2)))
        b = np.ascontiguousarray(x.reshape(n, c // 16, 16, h, w).transpose(0, 1, 3, 4, 2))
        out.append(("NCHW16c->NCHW", np.empty((n, c // 16, 16, h, w), x.dtype), b.transpose(0, 1, 4, 2, 3)))
    return out


@pytest.mark.parametrize("dtype", [np.dtype(t) for t in ("u1", "f2", "f4", "f8", "c16", "V3")],
                         ids=lambda d: str(d))
@pytest.mark.parametrize("shape", [(3, 32, 9, 13), (2, 3, 17, 19), (5, 4, 8, 8), (2, 48, 5, 70), (67, 2, 3, 5)])
@pytest.mark.parametrize("threads", [1, 2])
def test_directions(path, dtype, shape, threads):
    rng = np.random.default_rng(hash(shape) % 2**32)
    x = random_array(rng, shape, dtype)
    for name, out, v in directions(x):
        out[...] = np.zeros((), dtype)
        copy_into(out, v, threads=threads)
        assert out.tobytes() == np.ascontiguousarray(v).tobytes(), name


def test_pitched_rows_and_aligned_offsets(path):
    """dst rows with a pitch (as_strided into a larger buffer), dst at every 4-byte offset."""
    rng = np.random.default_rng(1)
    x = random_array(rng, (2, 40, 33, 24), np.dtype("f4"))
    buf = np.zeros(2 * 33 * 24 * 48 + 64, np.float32)
    for start in range(0, 17):
        b = buf[start:start + 2 * 33 * 24 * 48]
        out = np.lib.stride_tricks.as_strided(b, (2, 33, 24, 40), (33 * 24 * 48 * 4, 24 * 48 * 4, 48 * 4, 4))
        b[...] = 0
        copy_into(out, x.transpose(0, 2, 3, 1), threads=2)
        assert np.ascontiguousarray(out).tobytes() == np.ascontiguousarray(x.transpose(0, 2, 3, 1)).tobytes()
        assert not b.reshape(2, 33, 24, 48)[..., 40:].any()


def test_errors_and_edge_cases():
    a = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="shapes differ"):
        copy_into(a, np.zeros((3, 2), np.float32))
    with pytest.raises(ValueError, match="dtypes differ"):
        copy_into(a, np.zeros((2, 3), np.float64))
    with pytest.raises(ValueError, match="read-only"):
        copy_into(np.broadcast_to(a, (2, 3)), a)
    with pytest.raises(ValueError, match="threads"):
        copy_into(a, np.ones((2, 3), np.float32), threads=0)
    s = np.full((), 3.5)
    d = np.zeros((), np.float64)
    copy_into(d, s)
    assert d == 3.5
    # broadcast (zero-stride, read-only) source
    src = np.broadcast_to(np.arange(5, dtype=np.int16), (4, 5))
    d = np.zeros((5, 4), np.int16).T
    copy_into(d, src)
    assert np.array_equal(d, src)


def test_coalesce_property():
    """coalesce() keeps every (dst offset, src offset) pair: check exhaustively on small cases."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        rank = rng.integers(1, 5)
        shape = rng.integers(1, 4, rank)
        perm = rng.permutation(rank)
        dstr = np.cumprod([1] + list(shape[::-1][:-1]))[::-1]
        sh_p = shape[perm]
        sstr_p = np.cumprod([1] + list(sh_p[::-1][:-1]))[::-1]
        sstr = np.empty(rank, int)
        sstr[perm] = sstr_p
        axes = list(zip(shape, dstr, sstr))
        pairs = set()
        for idx in np.ndindex(*shape):
            pairs.add((int(np.dot(idx, dstr)), int(np.dot(idx, sstr))))
        co = coalesce(axes)
        got = set()
        for idx in np.ndindex(*[a[0] for a in co]):
            got.add((sum(i * a[1] for i, a in zip(idx, co)), sum(i * a[2] for i, a in zip(idx, co))))
        assert got == pairs


def test_size_one_axes_do_not_recompile():
    from layouts.kernels.jit.lines import LINE_KERNELS
    from layouts.kernels.jit.transpose import KERNELS
    tune(small_bytes=0)
    x = np.arange(4 * 16 * 5 * 7, dtype=np.float32).reshape(4, 16, 5, 7)
    for shape in [(4, 16, 5, 7), (1, 16, 5, 7), (4, 16, 1, 7), (1, 1, 1, 9), (3, 32, 2, 2)]:
        y = np.ascontiguousarray(np.resize(x, shape))
        out = np.empty(y.transpose(0, 2, 3, 1).shape, np.float32)
        copy_into(out, y.transpose(0, 2, 3, 1))
        assert np.array_equal(out, y.transpose(0, 2, 3, 1))
    for k in (*KERNELS.values(), *LINE_KERNELS.values()):
        assert len([s for s in k.signatures if s[0].dtype.bitwidth == 32]) <= 1


def test_plan_kinds():
    x = np.zeros((2, 16, 3, 5), np.float32)
    assert make_plan(np.empty_like(x), x).kind == "rows"
    assert make_plan(np.empty((2, 3, 5, 16), np.float32), x.transpose(0, 2, 3, 1)).kind == "transpose"
    assert make_plan(np.empty((5,), np.float32), x[0, 0, 0, ::-1]).kind == "fallback"
    assert make_plan(np.empty((0, 3), np.float32), np.empty((0, 3), np.float32)).kind == "empty"


@pytest.mark.parametrize("dtype", ["u1", "u2", "f4", "f8"])
@pytest.mark.parametrize("tiles,extra", [(4, 0), (4, 16), (4, 5), (1, 0), (2, 0)])
def test_misaligned_dst_edges(path, dtype, tiles, extra):
    """dst rows at every item offset inside a cache line with i wide enough for peeled
    non-temporal tiles: head/tail edges go through narrow tiles (width a multiple of 16
    bytes) or scalar loops (otherwise); contiguous rows and pitched rows.  Contiguous rows with
    ni a multiple of the tile height take the straddling-tile path (mode 7) at every offset."""
    from layouts.kernels.jit.simd import TILE_SHAPE
    dt = np.dtype(dtype)
    L, K = TILE_SHAPE[8 * dt.itemsize]
    ni = tiles * K * L + extra
    rng = np.random.default_rng(ni)
    x = random_array(rng, (2, ni, 3, 11), dt)                 # NCHW, C = ni
    v = x.transpose(0, 2, 3, 1)
    for pitch in (ni, ni + 64 // dt.itemsize):
        n = 2 * 3 * 11 * pitch
        buf = np.zeros(n + 64, dt)
        for start in range(0, 64 // dt.itemsize + 1, max(1, 4 // dt.itemsize)):
            b = buf[start:start + n]
            out = np.lib.stride_tricks.as_strided(
                b, v.shape, (33 * pitch * dt.itemsize, 11 * pitch * dt.itemsize, pitch * dt.itemsize, dt.itemsize))
            buf[...] = 0
            copy_into(out, v, threads=2)
            assert np.ascontiguousarray(out).tobytes() == np.ascontiguousarray(v).tobytes()
            assert not b.reshape(2, 3, 11, pitch)[..., ni:].any()
            assert not buf[:start].any() and not buf[start + n:].any()


@pytest.mark.parametrize("dtype", ["u1", "u2", "f4", "f8"])
@pytest.mark.parametrize("C", [2, 3, 4])
@pytest.mark.parametrize("staged", [True, False])
def test_small_c_both_sides_strided(path, monkeypatch, dtype, C, staged):
    """NHWC <-> CHWN with C = 2..4 (the staged (de)interleave + transpose path, chunks with a
    remainder, or the tile fallback), dst at several offsets inside a cache line."""
    dt = np.dtype(dtype)
    tune(disabled=() if staged else ("staged",), stage_bytes=40 * C * 17 * dt.itemsize)   # 17 pixels a chunk
    rng = np.random.default_rng(C)
    for n in (16, 40):
        x = random_array(rng, (n, C, 9, 11), dt)                      # logical NCHW
        nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
        chwn = np.ascontiguousarray(x.transpose(1, 2, 3, 0))
        for v in (nhwc.transpose(3, 1, 2, 0), chwn.transpose(3, 1, 2, 0)):   # ->CHWN, ->NHWC
            nb = v.size * dt.itemsize
            buf = np.zeros(nb + 128, np.uint8)
            for start in (0, 16, 48 if dt.itemsize < 8 else 8):
                out = buf[start:start + nb].view(dt).reshape(v.shape)
                buf[...] = 0
                copy_into(out, v, threads=1 + start % 32 // 16)
                assert out.tobytes() == np.ascontiguousarray(v).tobytes()
                assert not buf[:start].any() and not buf[start + nb:].any()


@pytest.mark.parametrize("dtype", ["u1", "u2", "f4", "f8"])
@pytest.mark.parametrize("C", [2, 3, 4])
def test_small_c_interleaves_match_numpy_on_any_line_offset(path, dtype, C):
    """NCHW <-> NHWC with C = 2..4 (small-c): with non-temporal stores (``simd-nt``) the output is
    written a line of each plane at a time, whole lines from the first that starts a cache line,
    the partial ones by plain stores. Planes of 37x41 start anywhere in a line, planes of 32x32
    all where the first does (so the planar side streams too), planes of 131x127 span two work
    items (the second starts mid-line); dst at several offsets, one not a multiple of the unit
    (another plan then, checked for its bytes alone); 1 and 2 threads; nothing written outside
    the output."""
    dt = np.dtype(dtype)
    rng = np.random.default_rng(C)
    for shape in ((3, C, 37, 41), (2, C, 32, 32), (1, C, 131, 127)):
        _interleaves_on_offsets(path, dt, random_array(rng, shape, dt))


def _interleaves_on_offsets(path, dt, x):
    for src in (x.transpose(0, 2, 3, 1), np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)):
        nb = src.size * dt.itemsize
        buf = np.zeros(nb + 128, np.uint8)
        for start in (0, 16, 40, 3):
            out = buf[start:start + nb].view(dt).reshape(src.shape)
            buf[...] = 0
            copy_into(out, src, threads=1 + start % 32 // 16)
            assert out.tobytes() == np.ascontiguousarray(src).tobytes()
            assert not buf[:start].any() and not buf[start + nb:].any()
            if start % dt.itemsize == 0:      # else the copy moves bytes, by another plan
                e = kernels.explain_copy(out, src)
                assert e.strategy == "small-c" and e.params["stream"] == (path == "simd-nt"), str(e)


@pytest.mark.parametrize("grouped", [True, False])
@pytest.mark.parametrize("dtype", ["u1", "u2"])
@pytest.mark.parametrize("C,pitch_extra", [(64, 0), (68, 0), (64, 64), (128, 4), (80, 0)])
def test_grouped(path, grouped, dtype, C, pitch_extra):
    """uint8 / uint16 transposes with dst rows of 4k / 2k units through the word-grouped path
    (zip 4 / 2 source rows into words, 4-byte tile transpose), size thresholds off, small
    chunks with a remainder; NCHW->NHWC (batch) and NCHW->CHWN (no batch), pitched dst rows,
    dst at every 4-byte offset inside a cache line (and unaligned ones, which fall back),
    threads 1 and 2; and the same cases with the path off."""
    dt = np.dtype(dtype)
    tune(disabled=() if grouped else ("grouped",), group_min_bytes=0, group_min_cols=0,
         group_scratch_bytes=C * dt.itemsize * 48)                       # Q = 48 columns a chunk
    rng = np.random.default_rng(C + pitch_extra)
    x = random_array(rng, (3, C, 7, 15), dt)                            # NCHW, HW = 105
    for v, lead in ((x.transpose(0, 2, 3, 1), (3, 7, 15)), (x.transpose(1, 2, 3, 0)[..., None], None)):
        if lead is None:                                               # NCHW -> CHWN: rows of N
            x2 = random_array(rng, (C, 3, 5, 7), dt)                       # N = C here
            v = x2.transpose(1, 2, 3, 0)
            lead = (3, 5, 7)
        ni = v.shape[-1]
        pitch = ni + pitch_extra
        m = int(np.prod(lead))
        nb = m * pitch * dt.itemsize
        for start in list(range(0, 65, 4)) + [2 * dt.itemsize, 1 if dt.itemsize == 1 else 6]:
            buf = np.zeros(nb + 128, np.uint8)
            b = buf[start:start + nb].view(dt).reshape(m, pitch)
            out = b[:, :ni].reshape(lead + (ni,))
            copy_into(out, v, threads=1 + start % 8 // 4)
            assert out.tobytes() == np.ascontiguousarray(v).tobytes()
            assert not buf[:start].any() and not buf[start + nb:].any()
            assert not b[:, ni:].any()


def test_grouped_chosen_by_plan():
    """The grouped path is chosen for large uint8 / uint16 NCHW->NHWC (C % 4 == 0) and not below
    the size threshold, for 4-byte units, or for short dst rows."""
    tune(group_min_bytes=1 << 20, simd=True)
    x = np.zeros((4, 64, 64, 64), np.uint8)                              # 1 MiB
    assert kernels.explain_copy(np.empty((4, 64, 64, 64), np.uint8), x.transpose(0, 2, 3, 1)).strategy == "grouped"
    for y in (x[:3], x.view(np.uint32)[..., :16], x[:, :16]):
        e = kernels.explain_copy(np.empty(y.transpose(0, 2, 3, 1).shape, y.dtype), y.transpose(0, 2, 3, 1))
        assert e.strategy != "grouped" and "grouped" in dict(e.declined)


@pytest.mark.parametrize("dtype", ["u1", "u2", "f4", "f8"])
@pytest.mark.parametrize("bj_long", [0, 64, 128])
def test_long_rows_short_src_rows(path, monkeypatch, dtype, bj_long):
    """Long dst rows (>= LONG_ROW bytes) from short src rows (NCHW16c->NCHW, NHWC->NCHW):
    j blocks covering all of j when src rows fit in BJ_LONG bytes (or one tile column with 0),
    nj with and without a remainder, dst at several offsets, threads 1 and 2."""
    from layouts.kernels.jit.simd import TILE_SHAPE
    tune(block_j_long_bytes=bj_long, block_j_plain_bytes=bj_long)     # streaming and in-cache tiles alike
    dt = np.dtype(dtype)
    L, K = TILE_SHAPE[8 * dt.itemsize]
    ni = max(kernels.current().long_row_bytes // dt.itemsize, K * L) + 3 * K * L + 5
    rng = np.random.default_rng(ni)
    for nj in sorted({L, L + 1, 2 * L + 3, max(L, 64 // dt.itemsize), max(L, 128 // dt.itemsize)}):
        x = random_array(rng, (2, ni, nj), dt)                  # (batch, HW, c)
        v = x.transpose(0, 2, 1)                                # -> (batch, c, HW)
        nb = v.size * dt.itemsize
        for start in (0, 16, 40, 64):
            buf = np.zeros(nb + 128, np.uint8)
            out = buf[start:start + nb].view(dt).reshape(v.shape)
            copy_into(out, v, threads=1 + start % 32 // 16)
            assert out.tobytes() == np.ascontiguousarray(v).tobytes()
            assert not buf[:start].any() and not buf[start + nb:].any()


@pytest.mark.parametrize("numpy_edges", [True, False])
@pytest.mark.parametrize("dtype", ["u1", "u2", "f4", "f8"])
def test_transpose_edges(path, monkeypatch, numpy_edges, dtype):
    """Edges of the SIMD tile families (peeled heads, i / j remainders, straddling mode 7) by
    np.copyto of strided views (forced for every size) or by kernel_edges; every permutation
    of a 4-D array with ragged sizes, dst at several offsets inside a cache line."""
    import itertools
    tune(edge_max_fraction=0, edge_max_calls=(1 << 30) if numpy_edges else 0,   # every edge by numpy / by the kernel
         block_i_long_bytes=256, long_row_bytes=128)                           # several i-blocks
    dt = np.dtype(dtype)
    rng = np.random.default_rng(7)
    for shape in ((3, 37, 5, 21), (2, 64, 9, 17), (5, 16, 33, 8)):
        x = random_array(rng, shape, dt)
        for perm in itertools.permutations(range(4)):
            v = x.transpose(perm)
            nb = v.size * dt.itemsize
            buf = np.zeros(nb + 128, np.uint8)
            for start in (0, 16, 40):
                start -= start % dt.itemsize
                out = buf[start:start + nb].view(dt).reshape(v.shape)
                buf[...] = 0
                copy_into(out, v, threads=1 + start % 32 // 16)
                assert out.tobytes() == np.ascontiguousarray(v).tobytes()
                assert not buf[:start].any() and not buf[start + nb:].any()


def test_overlapping_views_copy_as_numpy_does():
    tune(small_bytes=0)
    a = np.arange(256 * 256.0).reshape(256, 256)
    b = a.copy()
    np.copyto(b, b.T)
    copy_into(a, a.T, threads=1)
    assert np.array_equal(a, b)


def test_threads_of_different_counts_from_several_callers():
    import threading
    tune(small_bytes=0, thread_min_bytes=0)
    x = np.random.default_rng(0).integers(0, 255, (8, 64, 40, 40), dtype=np.uint8)
    ref = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    errors = []

    def work(n):
        try:
            for _ in range(5):
                out = np.empty_like(ref)
                copy_into(out, x.transpose(0, 2, 3, 1), threads=n)
                assert np.array_equal(out, ref)
        except Exception as err:  # pragma: no cover - the failure being tested for
            errors.append(err)

    threads = [threading.Thread(target=work, args=(n,)) for n in (1, 2, 3, 4, 2, 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "2"])
def test_bad_thread_counts(bad):
    from layouts import LayoutError
    with pytest.raises(LayoutError, match="threads must be None or an int >= 1"):
        copy_into(np.empty(4), np.zeros(4), threads=bad)


def test_one_bounded_pool_and_clamped_counts(monkeypatch):
    """Thread counts above the cores are clamped; every count shares one pool; a split started on a
    pool worker runs inline (it never waits on the pool it runs in)."""
    import threading
    from layouts.kernels.runtime import pool as pool_mod

    monkeypatch.setattr(pool_mod, "max_threads", lambda: 3)
    assert pool_mod.thread_count(10**6) == 3 and pool_mod.thread_count(2) == 2
    seen = []
    lock = threading.Lock()

    def part(a, b):
        with lock:
            seen.append((a, b, threading.current_thread().name))

    pool_mod.run_split(part, lambda a, b: (a, b), 100, 10**6)
    assert sorted((a, b) for a, b, _ in seen) == [(0, 33), (33, 66), (66, 100)]   # 3 parts, not 10**6
    assert pool_mod.pool() is pool_mod.pool(7)                                  # one pool for every count

    runs = []

    def outer(a, b):
        inner = []
        pool_mod.run_split(lambda c, d: inner.append((c, d, threading.current_thread().name)),
                           lambda c, d: (c, d), 4, 2)
        runs.append((threading.current_thread().name, inner))

    pool_mod.run_split(outer, lambda a, b: (a, b), 2, 2)
    assert len(runs) == 2
    for name, inner in runs:
        assert sorted((c, d) for c, d, _ in inner) == [(0, 2), (2, 4)]
        if name.startswith("layouts-kernels"):                 # started on a pool worker: ran there, inline
            assert {n for _, _, n in inner} == {name}


def test_thread_count_follows_the_package_setting():
    """threads=None in the kernels (preprocessing, in place) means ly.set_threads's value, as in convert."""
    import layouts as ly
    from layouts.kernels.runtime.pool import thread_count

    try:
        ly.set_threads(1)
        assert thread_count(None) == 1
        ly.set_threads(None)
        import numba
        assert thread_count(None) == max(1, min(int(numba.config.NUMBA_NUM_THREADS), 10**9))
    finally:
        ly.set_threads(None)
