"""convert_inplace(): equal to numpy transpose/reshape oracles and to ly.convert, in x's own memory,
within the documented scratch bound; every refusal happens before the first write."""

from __future__ import annotations

import contextlib
import os
import signal
import tracemalloc
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layouts as ly
from hostile import check_refused
from layouts import Layout, LayoutError
from layouts import inplace as ip
from oracle import blocked_physical

LETTERS = "ABCDEFGH"
DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.float16, np.int32, np.float32, np.int64, np.float64,
          np.complex64, np.complex128, np.longdouble, np.dtype("V3"), np.dtype("V16")]


def _random(shape, dtype, rng):
    """Random bytes of ``dtype`` (any bit pattern: NaNs compare by bytes below)."""
    dtype = np.dtype(dtype)
    raw = rng.integers(0, 256, int(np.prod(shape)) * dtype.itemsize, dtype=np.uint8)
    if dtype == np.bool_:
        raw &= 1
    return raw.view(dtype).reshape(shape)


def _same(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


@pytest.fixture
def budget():
    """Pin a profile with a tiny scratch floor so that small tensors take every method (chunks,
    split, square, ckg)."""
    from layouts.kernels.machine.profile import current, use_profile
    with contextlib.ExitStack() as stack:
        yield lambda nbytes: stack.enter_context(use_profile(current().replace(inplace_min_budget=nbytes)))


def _permute_check(shape, perm, dtype, rng, threads=1):
    src = LETTERS[:len(shape)]
    dst = "".join(src[p] for p in perm)
    x = _random(shape, dtype, rng)
    want = np.ascontiguousarray(x.transpose(perm))
    before = x.copy()
    y = ly.convert_inplace(x, src, dst, threads=threads)
    assert np.shares_memory(x, y)
    assert _same(y, want), (shape, perm, dtype)
    back = ly.convert_inplace(y, dst, src, threads=threads)
    assert _same(back, before)
    return ip.plan_inplace(src, dst, shape, x.dtype, threads=threads)


# ---------------------------------------------------------------------------- oracles
def _oracle(x, src: Layout, dst: Layout):
    """x (physical array of ``src``) re-laid as ``dst`` by numpy alone: logical ids through
    tests/oracle.py's pad/reshape/transpose, then a gather of x's elements (any dtype)."""
    axes = "".join(src.axes)
    ids = np.arange(src.count, dtype=np.int64).reshape([src.dims[a] for a in axes])

    def physical(L):
        spec = [(d.axis, n if d.is_block else None) for d, n in zip(L.parsed.dims, L.shape)]
        return blocked_physical(ids, axes, spec).reshape(-1)

    where = np.empty(src.count, np.int64)
    where[physical(src)] = np.arange(src.count)
    return x.reshape(-1)[where[physical(dst)]].reshape(dst.shape)


@pytest.mark.parametrize("src, dst", [("NCHW", "NHWC"), ("NHWC", "NCHW"), ("NCHW", "CHWN"), ("CHWN", "NCHW"),
                                      ("NHWC", "CHWN"), ("CHWN", "NHWC"), ("NCHW", "NCHW16c"),
                                      ("NCHW16c", "NCHW"), ("NHWC", "NC1HWC0"), ("NCHW8c", "NCHW16c")])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_image_layouts_equal_numpy_oracle(src, dst, dtype):
    rng = np.random.default_rng(7)
    dims = dict(N=3, C=32, H=5, W=7)
    s = Layout(src, **dims)
    d = Layout(dst, **dims, **({"C0": 32 if np.dtype(dtype).itemsize == 1 else 16} if "C0" in dst else {}))
    x = _random(s.shape, dtype, rng)
    want = _oracle(x, s, d)
    y = ly.convert_inplace(x, src, dst)
    assert np.shares_memory(x, y) and y.shape == want.shape
    assert _same(y, want)


@pytest.mark.parametrize("rank", range(2, 9))
def test_random_permutations_every_rank(rank, budget):
    rng = np.random.default_rng(rank)
    budget(256)
    methods = set()
    for trial in range(12):
        shape = tuple(int(n) for n in rng.integers(1, 5 if rank > 5 else 7, rank))
        perm = tuple(int(p) for p in rng.permutation(rank))
        dtype = DTYPES[int(rng.integers(len(DTYPES)))]
        plan = _permute_check(shape, perm, dtype, rng, threads=1 + trial % 2)
        methods |= {p.method for p in plan.passes}
    assert methods, "no pass ran at all"


def test_every_method_is_exercised(budget):
    """The small floor sends these shapes to each method; each result equals numpy's transpose."""
    rng = np.random.default_rng(3)
    seen = {}
    cases = [((3, 40, 40), (0, 2, 1), np.float32),      # square
             ((2, 30, 8, 7), (0, 2, 3, 1), np.float64),  # chunks / split
             ((31, 37), (1, 0), np.uint8),                # neither side factors: ckg
             ((29, 6, 9), (1, 2, 0), np.int16),
             ((5, 7, 11, 4), (3, 2, 1, 0), np.complex128),
             ((6, 1, 35, 1), (2, 0, 3, 1), np.float16)]
    for floor in (64, 1024):
        budget(floor)
        for shape, perm, dtype in cases:
            for threads in (1, 2):
                plan = _permute_check(shape, perm, dtype, rng, threads)
                for p in plan.passes:
                    seen[p.method] = shape
                    for op in p.ops:
                        seen[op.method] = shape
    assert {"scratch", "chunks", "square", "split", "ckg"} <= set(seen), seen


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_property_equals_transpose_and_round_trips(data):
    rank = data.draw(st.integers(1, 6))
    shape = tuple(data.draw(st.lists(st.integers(1, 7), min_size=rank, max_size=rank)))
    perm = tuple(data.draw(st.permutations(range(rank))))
    dtype = data.draw(st.sampled_from(DTYPES))
    floor = data.draw(st.sampled_from([32, 200, 4096, ip.MIN_BUDGET]))
    threads = data.draw(st.integers(1, 2))
    from layouts.kernels.machine.profile import current, use_profile
    with use_profile(current().replace(inplace_min_budget=floor)):
        _permute_check(shape, perm, dtype, np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))), threads)


def test_ckg_kernel_against_transpose_every_small_shape():
    from layouts.kernels.jit.inplace import INPLACE, ckg_kernel
    from layouts.kernels.records import record
    for m in range(1, 25):
        for n in range(1, 25):
            for w in (1, 3):
                a = np.arange(2 * m * n * w, dtype=np.uint32)
                want = a.reshape(2, m, n, w).transpose(0, 2, 1, 3).ravel()
                ckg_kernel(a, record(INPLACE, b0=0, b1=2, M=m, N=n, w=w), np.empty(max(m, n) * w, np.uint32))
                assert np.array_equal(a, want), (m, n, w)


def test_chunk_and_square_kernels_against_transpose():
    from layouts.kernels.jit.inplace import INPLACE, chunk_kernel, square_kernel
    from layouts.kernels.records import record
    for m in range(1, 10):
        for n in range(1, 10):
            a = np.arange(3 * m * n * 2, dtype=np.uint16)
            want = a.reshape(3, m, n, 2).transpose(0, 2, 1, 3).ravel()
            chunk_kernel(a, record(INPLACE, b0=0, b1=3, M=m, N=n, w=2), np.zeros((m * n + 7) // 8, np.uint8),
                         np.zeros(2, np.uint16))
            assert np.array_equal(a, want), (m, n)
        a = np.arange(2 * m * m, dtype=np.uint8)
        want = a.reshape(2, m, m).transpose(0, 2, 1).ravel()
        square_kernel(a, record(INPLACE, b0=0, b1=2, M=m, N=m, w=1))
        assert np.array_equal(a, want)


# ---------------------------------------------------------------------------- blocked layouts
@pytest.mark.parametrize("src, dst, dims, dtype", [
    ("NCHW", "NCHW16c", dict(N=2, C=48, H=3, W=5), np.float32),
    ("NCHW16c", "NCHW", dict(N=2, C=48, H=3, W=5), np.float16),
    ("NHWC", "NCHW8c", dict(N=3, C=16, H=2, W=9), np.complex128),
    ("NCHW", "NC1HWC0", dict(N=2, C=64, H=3, W=3), np.uint8),      # C0 = 32 for 8-bit data, as convert
    ("NC1HWC0", "NHWC", dict(N=2, C=32, H=3, W=3, C0=16), np.int32),
    ("OIHW", "OIHW16i16o", dict(O=32, I=16, H=3, W=3), np.float32),
    ("NCHW4c", "NCHW16c", dict(N=1, C=32, H=4, W=4), np.bool_),
])
def test_blocked_layouts_equal_oracle_and_round_trip(src, dst, dims, dtype):
    rng = np.random.default_rng(11)
    c0 = {k: v for k, v in dims.items() if k == "C0"}
    s = Layout(src, **dims)
    d = Layout(dst, **{k: v for k, v in dims.items() if k != "C0"},
               **({"C0": c0.get("C0", 32 if np.dtype(dtype).itemsize == 1 else 16)} if "C0" in dst else {}))
    x = _random(s.shape, dtype, rng)
    before = x.copy()
    want = _oracle(x, s, d)
    y = ly.convert_inplace(x, src, dst, **c0)
    assert np.shares_memory(x, y) and _same(y, want)
    if "C0" in dst:
        c0 = {"C0": d.shape[-1]}
    back = ly.convert_inplace(y, dst, src, **c0)
    assert _same(back, before)


def test_layout_objects_and_flat_buffers():
    rng = np.random.default_rng(5)
    src, dst = Layout("NCHW", N=2, C=32, H=3, W=4), Layout("NCHW16c", N=2, C=32, H=3, W=4)
    x = _random((src.size,), np.float32, rng)
    want = ly.convert(x.reshape(src.shape), "NCHW", "NCHW16c")
    y = ly.convert_inplace(x, src, dst)
    assert y.shape == dst.shape and np.shares_memory(x, y) and _same(y, want)
    z = _random((2 * 3 * 4 * 5,), np.int16, rng)
    want = z.reshape(2, 3, 4, 5).transpose(0, 2, 3, 1).copy()
    assert _same(ly.convert_inplace(z, "NCHW", "NHWC", N=2, C=3, H=4, W=5), want)


def test_result_is_a_view_of_x():
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    owner = x.base
    y = ly.convert_inplace(x, "NCHW", "NHWC")
    assert np.shares_memory(x, y) and y.flags.c_contiguous and y.flags.writeable
    base = y
    while base.base is not None and base is not owner:
        base = base.base
    assert base is owner
    y[0, 0, 0, 0] = -1  # a write through the result lands in x's buffer
    assert x.reshape(-1)[0] == -1


def test_size_zero_and_size_one_axes():
    x = np.zeros((0, 3, 4, 5), np.float32)
    assert ly.convert_inplace(x, "NCHW", "NHWC").shape == (0, 4, 5, 3)
    x = np.arange(60, dtype=np.int8).reshape(1, 3, 1, 20)
    want = x.transpose(2, 3, 0, 1).copy()
    assert _same(ly.convert_inplace(x, "NCHW", "HWNC"), want)


def test_threads_give_identical_results():
    rng = np.random.default_rng(2)
    for src, dst in [("NCHW", "NHWC"), ("NHWC", "CHWN"), ("NCHW", "CHWN"), ("NCHW", "NCHW16c")]:
        x = _random(Layout(src, N=8, C=32, H=14, W=14).shape, np.float32, rng)
        outs = []
        for threads in (1, 2):
            y = ly.convert_inplace(x.copy(), src, dst, threads=threads)
            outs.append(y.tobytes())
        assert outs[0] == outs[1] == ly.convert(x, src, dst).tobytes()


# ---------------------------------------------------------------------------- memory bound
def _converted_with_peak(x, src, dst, threads):
    """``convert_inplace``'s result and the peak of memory it allocated beyond what was there."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        y = ly.convert_inplace(x, src, dst, threads=threads)
        return y, tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("src, dst", [("NCHW", "NHWC"), ("NHWC", "NCHW"), ("NCHW", "CHWN"),
                                      ("NHWC", "CHWN"), ("NCHW", "NCHW16c")])
@pytest.mark.parametrize("threads", [1, 2])
def test_peak_extra_memory_within_the_documented_bound(src, dst, threads):
    """tracemalloc sees numpy's allocations, and every scratch buffer is a numpy array."""
    shape = Layout(src, N=32, C=64, H=28, W=28).shape      # 6.4 MB of float32
    x = np.ones(shape, np.float32)
    ly.convert_inplace(x, src, dst, threads=threads)       # compile / plan once, outside the measure
    x = np.arange(x.size, dtype=np.float32).reshape(shape)
    want = ly.convert(x, src, dst)
    plan = ip.plan_inplace(src, dst, shape, np.float32, threads=threads)
    y, peak = _converted_with_peak(x, src, dst, threads)
    assert np.array_equal(y, want)
    bound = max(x.nbytes // 100, 64 * 1024)                 # the docs' bound, written out
    assert plan.scratch_bytes <= bound
    assert peak <= bound + 32 * 1024, (peak, bound, plan)   # + Python objects of the call


# The docs' bound, written out: max(1% of the tensor, 64 KiB), plus, for a CKG pass (an M x N
# transposition no other method fits), max(M, N) elements. (M, N) below are worked out by hand.
@pytest.mark.parametrize("shape, src, dst, dtype, mn", [
    ((1, 3, 2, 100003), "NCHW", "NHWC", np.float32, (3, 2 * 100003)),    # one RGB image: C x HW
    ((2, 1, 3, 100003), "NCHW", "CHWN", np.uint8, (2, 3 * 100003)),      # N x CHW
    ((2, 4, 2, 100003), "NCHW", "NHWC", np.int16, (4, 2 * 100003)),      # gcd(M, N) = 2: the rotation runs
])
@pytest.mark.parametrize("threads", [1, 2])
def test_peak_extra_memory_of_ckg_passes_within_the_documented_bound(shape, src, dst, dtype, mn, threads):
    plan = ip.plan_inplace(src, dst, shape, dtype, threads=threads)
    assert [p.method for p in plan.passes] == ["ckg"]                       # the case under test
    ly.convert_inplace(np.zeros(shape, dtype), src, dst, threads=threads)  # compile / plan outside the measure
    x = _random(shape, np.dtype(dtype), np.random.default_rng(5))
    want = ly.convert(x, src, dst)
    bound = max(x.nbytes // 100, 64 * 1024) + max(mn) * x.itemsize
    y, peak = _converted_with_peak(x, src, dst, threads)
    assert y.tobytes() == want.tobytes() and np.shares_memory(x, y)
    assert peak <= bound, (peak, bound, x.nbytes)


# ---------------------------------------------------------------------------- interrupts
@pytest.fixture
def ctrl_c():
    """Python's own Ctrl-C handler, whatever the runner started with (CI may ignore SIGINT)."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def test_keyboard_interrupt_undoes_the_finished_passes(ctrl_c):
    from layouts.inplace.faultpoints import injected
    shape = Layout("NHWC", N=8, C=64, H=28, W=28).shape
    plan = ip.plan_inplace("NHWC", "CHWN", shape, np.float32)
    assert len(plan.passes) >= 2
    x = _random(shape, np.float32, np.random.default_rng(1))
    before = x.copy()

    def first_pass_ends(name, **info):
        if name == "segment" and info["index"] == 0:
            os.kill(os.getpid(), signal.SIGINT)  # arrives while the first pass ends

    with injected(first_pass_ends), pytest.raises(KeyboardInterrupt, match="undone"):
        ly.convert_inplace(x, "NHWC", "CHWN")
    assert _same(x, before)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_keyboard_interrupt_after_the_last_pass_says_x_holds_the_destination(ctrl_c, monkeypatch):
    """A Ctrl-C delivered while the hold puts the handlers back (after the last pass's check):
    nothing was undone, so the message must not say so; x holds dst's bytes."""
    from layouts.inplace.signals import SignalHold
    real_exit = SignalHold.__exit__

    def late_exit(self, *exc):
        self._record(signal.SIGINT, None)
        return real_exit(self, *exc)

    monkeypatch.setattr(SignalHold, "__exit__", late_exit)
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    before = x.copy()
    with pytest.raises(KeyboardInterrupt) as info:
        ly.convert_inplace(x, "NCHW", "NHWC")
    message = str(info.value)
    assert "undone" not in message and "destination" in message and "(2, 4, 5, 3)" in message
    assert np.array_equal(x.reshape(2, 4, 5, 3), before.transpose(0, 2, 3, 1))
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


# ---------------------------------------------------------------------------- shared with convert
def test_padding_read_as_data_warns_as_convert_does_before_any_write():
    """A blocked source whose C is read from the shape keeps its padding as data: convert warns
    (LayoutWarning), and so must convert_inplace, with the same reason, before moving a byte."""
    x = np.arange(2 * 2 * 3 * 3 * 8, dtype=np.float32).reshape(2, 2, 3, 3, 8)
    x[:, 1, :, :, 5:] = 0                                   # C=13 padded to 16: c=13..15 are zeros
    with pytest.warns(ly.LayoutWarning) as out_of_place:
        want = ly.convert(x, "NCHW8c", "NCHW")
    with pytest.warns(ly.LayoutWarning, match=r"^convert_inplace\('NCHW8c' -> 'NCHW'\)") as in_place:
        y = ly.convert_inplace(x.copy(), "NCHW8c", "NCHW")
    reason = str(out_of_place[0].message).split("): ", 1)[1]
    assert str(in_place[0].message).split("): ", 1)[1] == reason and "C=<true size>" in reason
    assert in_place[0].filename == __file__                  # points at the caller
    assert np.array_equal(y, want)
    before = x.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ly.LayoutWarning)
        with pytest.raises(ly.LayoutWarning):
            ly.convert_inplace(x, "NCHW8c", "NCHW")
    assert np.array_equal(x, before)                        # refused before the first write
    with warnings.catch_warnings():
        warnings.simplefilter("error", ly.LayoutWarning)    # C given: no warning
        assert np.array_equal(ly.convert_inplace(x.copy(), "NCHW8c", "NCHW", C=16), want)


def test_messages_name_layouts_as_convert_does():
    x = np.zeros((1, 20, 2, 2), np.float32)
    for src in ("NCHW", Layout("NCHW", N=1, C=20, H=2, W=2)):
        for dst in ("NCHW16c", Layout("NCHW16c", N=1, C=20, H=2, W=2)):
            with pytest.raises(ly.LayoutError) as info:
                ly.convert_inplace(x, src, dst)
            assert str(info.value).startswith("convert_inplace('NCHW' -> 'NCHW16c', x shape (1, 20, 2, 2)): ")
    with pytest.raises(ly.LayoutError) as theirs:
        ly.convert(x, "NCHW", "NCHWD")
    with pytest.raises(ly.LayoutError) as ours:
        ly.convert_inplace(x, "NCHW", "NCHWD")
    assert str(ours.value).split("): ", 1)[1] == str(theirs.value).split("): ", 1)[1]
    check_refused(lambda: ly.convert_inplace(x, 3, "NHWC"), TypeError, "src", keep=[x])


# ---------------------------------------------------------------------------- refusals
def test_refusals_leave_x_untouched():
    x = np.arange(2 * 20 * 3 * 3, dtype=np.float32).reshape(2, 20, 3, 3)
    err = check_refused(lambda: ly.convert_inplace(x, "NCHW", "NCHW16c"), LayoutError, ["216 more elements", "padded"], keep=[x])
    assert "needs 576 elements" in str(err) and "holds 360" in str(err)
    check_refused(lambda: ly.convert_inplace(x.tolist(), "NCHW", "NHWC"), TypeError, "numpy array")
    check_refused(lambda: ly.convert_inplace(x[:, ::2], "NCHW", "NHWC"), LayoutError, "contiguous", keep=[x])
    check_refused(lambda: ly.convert_inplace(x.transpose(0, 2, 3, 1), "NHWC", "NCHW"), LayoutError, "contiguous", keep=[x])
    ro = x.copy()
    ro.flags.writeable = False
    check_refused(lambda: ly.convert_inplace(ro, "NCHW", "NHWC"), LayoutError, "read-only", keep=[ro])
    check_refused(lambda: ly.convert_inplace(x, "NCHW", "NHWD"), LayoutError, "axes", keep=[x])
    check_refused(lambda: ly.convert_inplace(x, "NCHW", "NHW"), LayoutError, "axes", keep=[x])
    check_refused(lambda: ly.convert_inplace(x, "NCHW", "NHWC", threads=0), LayoutError, "threads", keep=[x])
    check_refused(lambda: ly.convert_inplace(x, "NCHW", "NHWC", Q=3), LayoutError, "Q", keep=[x])
    check_refused(lambda: ly.convert_inplace(x, "NCHW", 5), TypeError, "dst", keep=[x])
    check_refused(lambda: ly.convert_inplace(x, "NCHW", "NC#HW"), LayoutError, "#", keep=[x])
    pitched = Layout("NHWC", N=2, C=20, H=3, W=3, align={"W": 32})
    check_refused(lambda: ly.convert_inplace(x, "NCHW", pitched), LayoutError, "out of place", keep=[x])
    padded = np.zeros((2, 2, 3, 3, 16), np.float32)
    check_refused(lambda: ly.convert_inplace(padded, "NCHW16c", "NCHW", C=20), LayoutError, "padding", keep=[padded])
    c24 = np.zeros((1, 3, 2, 2, 8), np.float32)
    check_refused(lambda: ly.convert_inplace(c24, "NCHW8c", "NCHW6c"), LayoutError, "do not nest", keep=[c24])
    obj = np.empty((1, 2, 2, 2), object)
    check_refused(lambda: ly.convert_inplace(obj, "NCHW", "NHWC"), LayoutError, "object")
    flat = np.zeros(10, np.float32)
    check_refused(lambda: ly.convert_inplace(flat, "NCHW", "NHWC", N=1, C=2, H=2, W=2), LayoutError, "8 elements", keep=[flat])
