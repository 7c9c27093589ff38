"""copy_into's repeated calls: a one-thread copy into the same buffers makes the kernel calls it
recorded the first time, so these tests check that a repeat is bitwise np.copyto, that it is
only made for the very same bytes, and that the address it is keyed by is numpy's own."""

import numpy as np
import pytest

from layouts import kernels
from layouts.kernels.runtime import pool
from layouts.kernels.machine import profile
from layouts.kernels.runtime.pointers import address

# below small_bytes copy_into hands the copy to numpy; these tests are about the kernel path, with
# the stores the profile's sizes give (no output judged cold by kernels.recency, tested at the end)
PINNED = profile.reference("epyc-avx2").replace(small_bytes=0, small_short_rows=0, cold_nt_min_bytes=1 << 62)


def _views(rng, shape, perm, dtype):
    x = rng.integers(0, 255, size=shape).astype(dtype)
    return x.transpose(perm), np.empty(tuple(shape[p] for p in perm), dtype)


@pytest.mark.parametrize("shape, perm, dtype", [
    ((2, 3, 16, 16), (0, 2, 3, 1), np.float32),       # small-c interleave
    ((2, 16, 16, 3), (0, 3, 1, 2), np.uint8),         # small-c deinterleave
    ((3, 64, 24, 40), (0, 2, 3, 1), np.uint8),        # tiles with edges
    ((4, 40, 70), (0, 2, 1), np.float16),             # tiles, odd sizes
    ((5, 7, 90), (1, 0, 2), np.float64),              # rows
])
def test_repeats_match_numpy_and_are_recorded(shape, perm, dtype):
    rng = np.random.default_rng(0)
    with profile.use_profile(PINNED):
        v, out = _views(rng, shape, perm, dtype)
        kernels.copy._repeats.clear()
        for k in range(3):
            v.base[...] = rng.integers(0, 255, size=v.base.shape).astype(dtype)   # new data, same bytes
            out.fill(0)
            kernels.copy_into(out, v, threads=1)
            assert np.array_equal(out, v), k
        assert any(key[4] == (address(out), address(v)) for key in kernels.copy._repeats)


@pytest.mark.parametrize("offset", [0, 4, 16])
def test_tiles_whose_edges_numpy_copies_repeat_them_too(offset):
    """A 2-D transpose whose few edge rectangles go to np.copyto (one batch index): the edge
    copies are recorded with the kernel's and a repeat writes every byte again, whatever the
    alignment of out."""
    rng = np.random.default_rng(4)
    x = rng.integers(0, 255, size=(1000, 96)).astype(np.float32)
    buf = np.empty(x.nbytes + 128, np.uint8)
    start = (-buf.ctypes.data) % 64 + offset
    out = buf[start:start + x.nbytes].view(np.float32).reshape(96, 1000)
    with profile.use_profile(PINNED):
        c, _ = kernels.copy._choice(out, x.T, False, PINNED, 1)
        assert c.params["edges"].endswith("by np.copyto")
        kernels.copy._repeats.clear()
        for k in range(3):
            x[...] = rng.integers(0, 255, size=x.shape)                          # new data, same bytes
            out.fill(0)
            kernels.copy_into(out, x.T, threads=1)
            assert np.array_equal(out, x.T), k
        assert any(key[4] == (address(out), address(x.T)) for key in kernels.copy._repeats)


def test_a_repeat_is_made_only_for_the_same_bytes():
    rng = np.random.default_rng(1)
    with profile.use_profile(PINNED):
        base = rng.integers(0, 255, size=(2, 64, 32, 48)).astype(np.uint8)
        out_big = np.zeros((2, 32, 48, 64 + 8), np.uint8)
        kernels.copy._repeats.clear()
        for lo in (0, 8, 0):                      # same shape and strides, other addresses
            out = out_big[..., lo:lo + 64]
            kernels.copy_into(out, base.transpose(0, 2, 3, 1), threads=1)
            assert np.array_equal(out, base.transpose(0, 2, 3, 1))
            assert not out_big[..., 64 if lo == 0 else 0].any(), "a repeat wrote outside its out"
            out_big[...] = 0
        assert len([k for k in kernels.copy._repeats if k[0] == (2, 32, 48, 64)]) == 2


def test_a_new_profile_plans_again():
    rng = np.random.default_rng(2)
    v, out = _views(rng, (2, 64, 8, 40), (0, 2, 3, 1), np.float32)
    key = (out.shape, out.strides, v.strides, out.dtype, (address(out), address(v)), False, 1)
    other = PINNED.replace(disabled=("simd-tiles",))
    with profile.use_profile(PINNED):
        kernels.copy_into(out, v, threads=1)
        assert kernels.copy._repeats[key][0] is PINNED
    with profile.use_profile(other):
        out.fill(0)
        kernels.copy_into(out, v, threads=1)
        assert np.array_equal(out, v)
        assert kernels.copy._repeats[key][0] is other          # planned under the new profile
        assert kernels.explain_copy(out, v, threads=1).strategy != "simd-tiles"


def test_threaded_copies_are_not_recorded():
    rng = np.random.default_rng(3)
    prof = PINNED.replace(thread_min_bytes=0, thread_min_bytes_by_strategy=())
    with profile.use_profile(prof):
        v, out = _views(rng, (8, 64, 32, 32), (0, 2, 3, 1), np.float32)
        kernels.copy._repeats.clear()
        kernels.copy_into(out, v, threads=2)
        assert np.array_equal(out, v)
        if pool.max_threads() > 1:
            assert not kernels.copy._repeats


def test_recorded_returns_none_for_a_split_run():
    assert pool.recorded(lambda: pool.run_split(lambda a, b: None, lambda a, b: (a, b), 4, 1)) is not None
    if pool.max_threads() > 1:
        assert pool.recorded(lambda: pool.run_split(lambda a, b: None, lambda a, b: (a, b), 4, 2)) is None


def test_address_is_numpys_data_pointer():
    base = np.arange(2 * 5 * 7 * 3, dtype=np.float64).reshape(2, 5, 7, 3)
    views = [base, base[1], base[:, 2:, ::-1], base[..., 1:2].transpose(3, 0, 2, 1), base.view(np.uint8)[..., 3:],
             np.zeros(0, np.int8), np.zeros((), np.complex64), np.asfortranarray(base)[1:]]
    for a in views:
        assert address(a) == a.ctypes.data


def _set_strides(a, strides):
    """``a.strides = strides``, which numpy 2.4 deprecates but still does (a user's code can)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        a.strides = strides


_CHANGES = {
    "nothing": lambda a: a,
    "data pointer": lambda a: a.__setstate__(np.ones_like(a).__reduce__()[2]),
    "shape in place": lambda a: setattr(a, "shape", (a.shape[1], a.shape[0]) + a.shape[2:]),
    "strides in place": lambda a: _set_strides(a, (a.itemsize,) + a.strides[1:]),
    "dtype in place": lambda a: setattr(a, "dtype", np.int16),
    "read-only": lambda a: setattr(a.flags, "writeable", False),
}


def test_new_objects_of_the_old_shapes_after_an_in_place_reshape_are_converted_right():
    """Calls kept for two buffers, the arrays reshaped in place and converted (calls kept again
    for the same addresses), then new array objects of the first shapes over the same buffers:
    the address lookup must not give them the second shapes' calls."""
    import layouts
    rng = np.random.default_rng(25)
    xb = rng.integers(0, 255, size=64 * 4 * 32 * 32).astype(np.uint8)
    ob = np.zeros(xb.size, np.uint8)
    with profile.use_profile(PINNED):
        x, out = xb.reshape(64, 4, 32, 32), ob.reshape(64, 32, 32, 4)
        _replayed_three_times(x, out)
        x.shape, out.shape = (64, 8, 32, 16), (64, 32, 16, 8)
        for _ in range(3):
            assert layouts.convert(x, "NCHW", "NHWC", out=out, threads=1) is out
        x2, out2 = xb.reshape(64, 4, 32, 32), ob.reshape(64, 32, 32, 4)
        for _ in range(2):
            xb[...] = rng.integers(0, 255, size=xb.size)
            assert layouts.convert(x2, "NCHW", "NHWC", out=out2, threads=1) is out2
            assert np.array_equal(out2, x2.transpose(0, 2, 3, 1))


@pytest.mark.parametrize("side", ["x", "out"])
def test_a_replay_is_not_made_for_strides_changed_in_place(side):
    """The same array object, its strides set in place to memory in another order (numpy writes
    the new strides over the old ones, in the same block): convert reads and writes the memory
    the strides say now."""
    import layouts
    rng = np.random.default_rng(23)
    with profile.use_profile(PINNED):
        # strided views to begin with, so that new strides leave numpy's flags as they were
        x = rng.integers(0, 255, size=(64, 32, 32, 3)).astype(np.uint8).transpose(0, 3, 1, 2)   # NHWC memory
        out = np.zeros((64, 32, 3, 32), np.uint8).transpose(0, 1, 3, 2)                        # NHCW memory
        _replayed_three_times(x, out)
        flags = x.flags.c_contiguous, x.flags.f_contiguous, out.flags.c_contiguous, out.flags.f_contiguous
        if side == "x":
            _set_strides(x, (3072, 1, 3, 96))                  # NWHC memory under the NCHW shape
        else:
            _set_strides(out, (3072, 3, 96, 1))                # NWHC memory under the NHWC shape
        assert flags == (x.flags.c_contiguous, x.flags.f_contiguous, out.flags.c_contiguous,
                         out.flags.f_contiguous) == (False,) * 4
        for _ in range(2):
            x[...] = rng.integers(0, 255, size=x.shape)
            assert layouts.convert(x, "NCHW", "NHWC", out=out, threads=1) is out
            assert np.array_equal(out, x.transpose(0, 2, 3, 1))


def test_a_recording_refuses_what_it_cannot_repeat():
    rng = np.random.default_rng(4)
    v, out = _views(rng, (1, 3, 4, 4), (0, 2, 3, 1), np.float32)        # below small_bytes: np.copyto
    assert pool.recorded(lambda: kernels.copy_into(out, v, threads=1)) is None
    assert np.array_equal(out, v)
    with profile.use_profile(PINNED):
        x = rng.integers(0, 255, size=(8, 3, 8, 8)).astype(np.float32)   # contiguous: not a kernel strategy
        out = np.empty_like(x)
        assert kernels.explain_copy(out, x, threads=1).strategy in ("memcpy", "numpy")
        assert pool.recorded(lambda: kernels.copy_into(out, x, threads=1)) is None
        v, out = _views(rng, (2, 64, 8, 40), (0, 2, 3, 1), np.float32)
        kernels.copy._repeats.clear()
        for _ in range(2):                                   # recorded, then made again from the record
            calls = pool.recorded(lambda: kernels.copy_into(out, v, threads=1))
            assert calls
        v.base[...] += 1
        for fn, args in calls:
            fn(*args)
        assert np.array_equal(out, v)


@pytest.mark.parametrize("src, dst, shape", [("NCHW", "NHWC", (2, 3, 32, 32)), ("NHWC", "NCHW", (2, 32, 32, 3)),
                                             ("NCHW", "NCHW16c", (2, 32, 9, 11)), ("NCHW16c", "NCHW", (2, 2, 9, 11, 16)),
                                             ("NCHW", "CHWN", (4, 64, 8, 8)), ("NHWC", "CHWN", (8, 16, 16, 3)),
                                             ("CHWN", "NHWC", (3, 16, 16, 8))])
def test_convert_into_out_again_matches_numpy(src, dst, shape):
    """convert's known conversions make the kernel calls of the last call for the same buffers:
    each repeat, with new data in x, is the numpy oracle's answer."""
    import layouts
    rng = np.random.default_rng(5)
    with profile.use_profile(PINNED):
        x = rng.integers(0, 255, size=shape).astype(np.uint8)
        out = layouts.convert(x, src, dst)
        for _ in range(3):
            x[...] = rng.integers(0, 255, size=shape)
            assert layouts.convert(x, src, dst, out=out, threads=1) is out
            assert np.array_equal(out, _numpy_oracle(x, src, dst)), (src, dst)


def _numpy_oracle(x, src, dst):
    if src == "NCHW16c":                                   # (n, c1, h, w, 16) -> NCHW
        n, c1, h, w, _ = x.shape
        nchw = x.transpose(0, 1, 4, 2, 3).reshape(n, c1 * 16, h, w)
    else:
        nchw = x.transpose([src.index(a) for a in "NCHW"])
    if dst == "NCHW16c":
        n, c, h, w = nchw.shape
        return nchw.reshape(n, c // 16, 16, h, w).transpose(0, 1, 3, 4, 2)
    return nchw.transpose(["NCHW".index(a) for a in dst])


def test_a_recordings_calls_made_again_are_np_copytos_answer():
    """The calls a recording keeps, made again on new data in the same buffers, write what
    np.copyto writes."""
    rng = np.random.default_rng(6)
    with profile.use_profile(PINNED):
        v, out = _views(rng, (2, 64, 24, 40), (0, 2, 3, 1), np.uint8)
        kernels.copy._repeats.clear()
        calls = pool.recorded(lambda: kernels.copy_into(out, v, threads=1))
        assert calls
        out.fill(0)
        v.base[...] = rng.integers(0, 255, size=v.base.shape)
        pool.replay(calls)
        assert np.array_equal(out, v)


def test_convert_refuses_an_out_made_read_only_after_its_calls_were_recorded():
    import layouts
    from layouts import LayoutError
    with profile.use_profile(PINNED):
        x = np.arange(2 * 64 * 8 * 8, dtype=np.float32).reshape(2, 64, 8, 8)
        out = np.zeros((2, 8, 8, 64), np.float32)
        for _ in range(2):
            layouts.convert(x, "NCHW", "NHWC", out=out, threads=1)       # the second records its kernel calls
        out[...] = -1
        out.flags.writeable = False
        with pytest.raises(LayoutError, match="out"):
            layouts.convert(x, "NCHW", "NHWC", out=out, threads=1)    # these buffers' calls are recorded
        assert (out == -1).all()


def test_a_replay_is_not_made_for_arrays_reshaped_in_place():
    """The same two addresses with other shapes (``a.shape = ...`` reshapes an array object in
    place, here to another channel count, so the old calls would move other bytes): convert plans
    again, and the result is numpy's."""
    import layouts
    rng = np.random.default_rng(7)
    with profile.use_profile(PINNED):
        x = rng.integers(0, 255, size=(64, 4, 32, 32)).astype(np.uint8)
        out = np.empty((64, 32, 32, 4), np.uint8)
        for _ in range(3):                                   # full path, recorded, replayed
            assert layouts.convert(x, "NCHW", "NHWC", out=out, threads=1) is out
        x.shape, out.shape = (64, 8, 16, 32), (64, 16, 32, 8)
        for _ in range(2):
            x[...] = rng.integers(0, 255, size=x.shape)
            assert layouts.convert(x, "NCHW", "NHWC", out=out, threads=1) is out
            assert np.array_equal(out, x.transpose(0, 2, 3, 1))


def _replayed_three_times(x, out, src="NCHW", dst="NHWC", small=False):
    """Convert into ``out`` until its kernel calls are kept and made again (the third call), or,
    ``small``, until numpy's copies repeat it (nothing kept: views made per call)."""
    import layouts
    from layouts.conversion import replays
    replays.forget()
    for _ in range(3):
        assert layouts.convert(x, src, dst, out=out, threads=1) is out
    assert bool(replays.kept(out)) is not small, "the test would not test the path it names"


@pytest.mark.parametrize("side", ["x", "out"])
def test_a_replay_is_not_made_for_other_strides_at_the_same_address(side):
    """A view of the same first byte and shape whose strides differ (memory in another order):
    the kept calls would read or write other bytes, so convert plans again."""
    import layouts
    rng = np.random.default_rng(9)
    with profile.use_profile(PINNED):
        xbuf = rng.integers(0, 255, size=64 * 3 * 32 * 32).astype(np.uint8)
        obuf = np.zeros(64 * 32 * 32 * 3, np.uint8)
        x, out = xbuf.reshape(64, 3, 32, 32), obuf.reshape(64, 32, 32, 3)
        _replayed_three_times(x, out)
        if side == "x":
            x = xbuf.reshape(64, 32, 32, 3).transpose(0, 3, 1, 2)           # NHWC memory, NCHW shape
        else:
            out = obuf.reshape(64, 32, 3, 32).transpose(0, 1, 3, 2)         # (64, 32, 32, 3), other strides
        assert layouts.convert(x, "NCHW", "NHWC", out=out, threads=1) is out
        assert np.array_equal(out, x.transpose(0, 2, 3, 1))


def test_a_replay_is_not_made_for_another_dtype_of_the_same_strides():
    """uint16 views of every other half of float32 arrays: same addresses, shapes and byte strides,
    another dtype. The float32 calls would write the other halves too; convert leaves them."""
    import layouts
    rng = np.random.default_rng(10)
    with profile.use_profile(PINNED):
        x = rng.random((64, 3, 32, 32)).astype(np.float32)
        out = np.zeros((64, 32, 32, 3), np.float32)
        _replayed_three_times(x, out)
        x16, out16 = x.view(np.uint16)[..., ::2], out.view(np.uint16)[..., ::2]
        assert (x16.strides, x16.shape) == (x.strides, x.shape)
        out.view(np.uint16)[..., 1::2] = 0xBEEF
        assert layouts.convert(x16, "NCHW", "NHWC", out=out16, threads=1) is out16
        assert np.array_equal(out16, x16.transpose(0, 2, 3, 1))
        assert (out.view(np.uint16)[..., 1::2] == 0xBEEF).all(), "the other halves were written"


def test_a_replay_is_found_by_the_two_addresses(monkeypatch):
    """The loop's case, the same two array objects again, and new objects over the same buffers
    are both found by the two addresses (read once each, nothing of numpy's struct); new buffers
    convert on the full path; each call right."""
    import layouts
    from layouts.conversion import replays
    rng = np.random.default_rng(16)
    with profile.use_profile(PINNED):
        x = rng.integers(0, 255, size=(64, 3, 32, 32)).astype(np.uint8)
        out = np.zeros((64, 32, 32, 3), np.uint8)
        _replayed_three_times(x, out)
        engine = replays._engine
        read = []

        def counted(a):
            read.append(a)
            return engine[0](a)
        monkeypatch.setattr(replays, "_engine", (counted,) + engine[1:])
        x[...] = rng.integers(0, 255, size=x.shape)
        assert layouts.convert(x, "NCHW", "NHWC", out=out, threads=1) is out
        assert np.array_equal(out, x.transpose(0, 2, 3, 1)) and len(read) == 2
        same_buffers = x[...], out[...]
        assert layouts.convert(same_buffers[0], "NCHW", "NHWC", out=same_buffers[1], threads=1) is same_buffers[1]
        assert len(read) == 4 and np.array_equal(out, x.transpose(0, 2, 3, 1))
        for _ in range(3):                      # a fresh source each call, as a loader decodes
            fresh = rng.integers(0, 255, size=x.shape).astype(np.uint8)
            assert layouts.convert(fresh, "NCHW", "NHWC", out=out, threads=1) is out
            assert np.array_equal(out, fresh.transpose(0, 2, 3, 1))


def test_a_small_conversion_repeats_numpys_copies_and_keeps_nothing():
    """Below small_bytes a known conversion is one ``np.copyto`` a step of views made per call:
    right for new data each time, with no kernel calls kept for the buffers, and a recording
    around such a call is told it cannot make it again (from the first known call on)."""
    import layouts
    from layouts.conversion import replays
    rng = np.random.default_rng(18)
    with profile.use_profile(profile.reference("epyc-avx2")):
        x = rng.random((1, 3, 5, 7)).astype(np.float32)                 # a shape no other test converts
        out = np.zeros((1, 5, 7, 3), np.float32)
        replays.forget()
        layouts.convert(x, "NCHW", "NHWC", out=out, threads=1)           # the checked call
        assert pool.recorded(lambda: layouts.convert(x, "NCHW", "NHWC", out=out, threads=1)) is None
        for _ in range(3):
            x[...] = rng.random(x.shape)
            assert layouts.convert(x, "NCHW", "NHWC", out=out, threads=1) is out
            assert np.array_equal(out, x.transpose(0, 2, 3, 1))
        assert not replays.kept(out)
        assert pool.recorded(lambda: layouts.convert(x, "NCHW", "NHWC", out=out, threads=1)) is None


def _oracle(x, src, dst):
    return x.transpose([src.index(a) for a in dst])


def test_a_replay_for_the_same_objects_is_made_only_for_the_same_layouts():
    """The same two square arrays converted between other layouts of the same shapes: each call
    moves the bytes its own layouts name, never the calls kept for the others."""
    import layouts
    rng = np.random.default_rng(19)
    with profile.use_profile(PINNED):
        x = rng.integers(0, 255, size=(8, 3, 32, 32)).astype(np.uint8)
        out = np.zeros((8, 32, 32, 3), np.uint8)
        _replayed_three_times(x, out)
        for src, dst in [("NCHW", "NWHC"), ("NCWH", "NHWC"), ("NCHW", "NHWC"), ("NCWH", "NWHC")] * 3:
            assert layouts.convert(x, src, dst, out=out, threads=1) is out
            assert np.array_equal(out, _oracle(x, src, dst)), (src, dst)


def test_a_replay_is_not_made_into_a_shorter_view_of_the_same_out():
    """After repeats into a whole batch, a view of its first half (same address and strides):
    the whole batch's calls would write past it, so a source of the whole batch is refused with
    nothing written, and a source of half converts into that half alone."""
    import layouts
    rng = np.random.default_rng(20)
    with profile.use_profile(PINNED):
        x = rng.integers(0, 255, size=(4, 3, 32, 32)).astype(np.uint8)
        full = np.zeros((4, 32, 32, 3), np.uint8)
        _replayed_three_times(x, full)
        full[...] = 7
        with pytest.raises(layouts.LayoutError):
            layouts.convert(x, "NCHW", "NHWC", out=full[:2], threads=1)
        assert (full == 7).all()
        x[...] = rng.integers(0, 255, size=x.shape)
        for _ in range(3):
            layouts.convert(x[:2], "NCHW", "NHWC", out=full[:2], threads=1)
        assert np.array_equal(full[:2], x[:2].transpose(0, 2, 3, 1)) and (full[2:] == 7).all()


@pytest.mark.parametrize("side", ["x", "out"])
@pytest.mark.parametrize("path", ["kernels", "numpy's copies"])
def test_a_replay_follows_an_array_object_given_another_buffer(side, path):
    """``__setstate__`` gives the same array object another buffer: the next conversion reads
    and writes the buffers the two objects hold now (the kept calls would reach freed memory)."""
    import layouts
    rng = np.random.default_rng(21)
    small = path != "kernels"
    with profile.use_profile(profile.reference("epyc-avx2") if small else PINNED):
        shape = (1, 3, 16, 16) if small else (64, 3, 32, 32)
        size = int(np.prod(shape))
        held = bytearray(size), bytearray(size)       # the old buffers outlive the move: a new address
        x = np.frombuffer(held[0], np.uint8).reshape(shape)
        x[...] = rng.integers(0, 255, size=shape)
        out = np.frombuffer(held[1], np.uint8).reshape(shape[0], shape[2], shape[3], shape[1])
        _replayed_three_times(x, out, small=small)
        moved = x if side == "x" else out
        before = moved.ctypes.data
        moved.__setstate__(np.zeros_like(moved).__reduce__()[2])       # same object, new buffer
        assert moved.ctypes.data != before
        del moved
        x[...] = rng.integers(0, 255, size=x.shape)
        assert layouts.convert(x, "NCHW", "NHWC", out=out, threads=1) is out
        assert np.array_equal(out, x.transpose(0, 2, 3, 1))


def test_kept_replays_stay_bounded_and_keep_no_source_alive():
    """Conversions into many outputs keep at most MAX_KEPT records a lookup, and kept kernel
    calls do not keep their source's whole base alive."""
    import gc
    import weakref
    import layouts
    from layouts.conversion import replays
    rng = np.random.default_rng(22)
    with profile.use_profile(PINNED):
        replays.forget()
        x = rng.random((2, 4, 64, 64)).astype(np.float32)                # 128 KiB: the kernels
        outs = [np.zeros((2, 64, 64, 4), np.float32) for _ in range(2 * replays.MAX_KEPT + 10)]
        for out in outs:
            for _ in range(2):
                layouts.convert(x, "NCHW", "NHWC", out=out, threads=1)
            assert np.array_equal(out, x.transpose(0, 2, 3, 1))
        assert 0 < replays.count() <= 2 * replays.MAX_KEPT
        big = rng.random((64, 4, 64, 64)).astype(np.float32)
        gone = weakref.ref(big)
        for _ in range(3):
            layouts.convert(big[:2], "NCHW", "NHWC", out=outs[0], threads=1)
        assert replays.kept(outs[0])
        del big
        gc.collect()
        assert gone() is None, "a kept replay holds the source's base"


def test_small_conversions_of_fresh_sources_do_not_crowd_out_kept_kernel_calls():
    """A loader that converts a fresh small source each call keeps no record for it, so a large
    conversion's kernel calls, kept before, are still kept after many such calls."""
    import layouts
    from layouts.conversion import replays
    rng = np.random.default_rng(24)
    with profile.use_profile(profile.reference("epyc-avx2")):
        replays.forget()
        x = rng.integers(0, 255, size=(64, 3, 32, 32)).astype(np.uint8)     # 192 KiB: the kernels
        out = np.zeros((64, 32, 32, 3), np.uint8)
        for _ in range(2):
            layouts.convert(x, "NCHW", "NHWC", out=out, threads=1)
        assert replays.kept(out)
        small_out = np.zeros((1, 8, 8, 3), np.float32)
        batches = []                               # all alive: each at an address of its own
        for _ in range(2 * replays.MAX_KEPT):
            fresh = rng.random((1, 3, 8, 8)).astype(np.float32)
            batches.append(fresh)
            layouts.convert(fresh, "NCHW", "NHWC", out=small_out, threads=1)
            assert np.array_equal(small_out, fresh.transpose(0, 2, 3, 1))
        assert replays.kept(out), "the kernel calls kept for out were dropped"


def test_a_replay_is_not_made_for_a_new_out_at_a_freed_outs_id():
    """``out`` a view, freed after its calls were kept (they keep its buffer alive), and a view of
    another buffer made at the same ``id``: the lookup keyed by the objects must not take it for
    the first, or the kept calls would write the old buffer."""
    import layouts
    rng = np.random.default_rng(17)
    with profile.use_profile(PINNED):
        x = rng.integers(0, 255, size=(64, 3, 32, 32)).astype(np.uint8)
        old_buffer, new_buffer = np.zeros(x.size, np.uint8), np.zeros(x.size, np.uint8)
        out = old_buffer.reshape(64, 32, 32, 3)
        _replayed_three_times(x, out)
        freed_id = id(out)
        del out
        for _ in range(1000):            # CPython hands a freed object's memory to the next one
            out = new_buffer.reshape(64, 32, 32, 3)
            if id(out) == freed_id:
                break
        else:
            pytest.skip("no new array object was made at the freed one's id")
        old_buffer[...] = 7
        assert layouts.convert(x, "NCHW", "NHWC", out=out, threads=1) is out
        assert np.array_equal(out, x.transpose(0, 2, 3, 1)) and (old_buffer == 7).all()


@pytest.mark.parametrize("change", ["x shape", "x dtype", "out dtype", "x dtype in place", "out dtype in place"])
def test_a_replay_is_not_made_for_one_array_changed_alone(change):
    """One of the two arrays reshaped or retyped at the same address and strides, as a new view
    or the same object given another dtype (found by the lookup keyed by the objects): the pair
    no longer converts, and convert says so as on the first call, writing nothing."""
    import layouts
    rng = np.random.default_rng(13)
    with profile.use_profile(PINNED):
        x = rng.random((64, 3, 32, 32)).astype(np.float32)
        out = np.zeros((64, 32, 32, 3), np.float32)
        _replayed_three_times(x, out)
        before = out.copy()
        if change == "x shape":
            x = x[:, :, :16]                        # same first byte and strides
        elif change == "x dtype":
            x = x.view(np.int32)
        elif change == "out dtype":
            out = out.view(np.int32)
        elif change == "x dtype in place":
            x.dtype = np.int32
        else:
            out.dtype = np.int32
        with pytest.raises(layouts.LayoutError):
            layouts.convert(x, "NCHW", "NHWC", out=out, threads=1)
        assert np.array_equal(out.view(np.float32), before)


def test_a_replay_is_not_made_under_another_profile():
    import layouts
    from layouts.conversion import replays
    rng = np.random.default_rng(11)
    other = PINNED.replace(disabled=("simd-tiles",))
    x = rng.integers(0, 255, size=(64, 3, 32, 32)).astype(np.uint8)
    out = np.empty((64, 32, 32, 3), np.uint8)
    with profile.use_profile(PINNED):
        _replayed_three_times(x, out)
    with profile.use_profile(other):
        for _ in range(2):
            assert layouts.convert(x, "NCHW", "NHWC", out=out, threads=1) is out
        assert [r.profile for r in replays.kept(out)] == [other]      # recorded again under it
    assert np.array_equal(out, x.transpose(0, 2, 3, 1))


@pytest.mark.parametrize("path", ["kernels", "numpy's copies"])
def test_a_replay_still_warns_when_a_blocked_sources_last_slot_turns_to_padding(path):
    """NCHW16c -> NCHW without C=: a last channel slot that held data when the calls were kept and
    holds only zeros now is read as padding, and the warning says so on the repeat too (kernel
    calls, or below small_bytes numpy's copies)."""
    import warnings
    import layouts
    rng = np.random.default_rng(12)
    with profile.use_profile(PINNED if path == "kernels" else profile.reference("epyc-avx2")):
        x = (rng.random((2, 2, 8, 8, 16)) + 1).astype(np.float32)
        out = np.empty((2, 32, 8, 8), np.float32)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            _replayed_three_times(x, out, "NCHW16c", "NCHW", small=path != "kernels")
        x[:, -1, :, :, -1] = 0
        with pytest.warns(layouts.LayoutWarning, match="padding|zero"):
            layouts.convert(x, "NCHW16c", "NCHW", out=out, threads=1)
        assert np.array_equal(out, x.transpose(0, 1, 4, 2, 3).reshape(out.shape))


def test_a_replay_refuses_an_out_made_read_only():
    import layouts
    rng = np.random.default_rng(8)
    with profile.use_profile(PINNED):
        x = rng.integers(0, 255, size=(64, 32, 32, 3)).astype(np.uint8)
        out = np.empty((64, 3, 32, 32), np.uint8)
        for _ in range(3):
            layouts.convert(x, "NHWC", "NCHW", out=out, threads=1)
        before = out.copy()
        out.flags.writeable = False
        x[...] = 0
        with pytest.raises(layouts.LayoutError, match="read-only|writ"):
            layouts.convert(x, "NHWC", "NCHW", out=out, threads=1)
        assert np.array_equal(out, before)


def test_set_threads_drops_the_kept_calls_and_a_recording_across_it_is_not_kept():
    """Kept calls ran on the thread count of the setting they were recorded under: set_threads
    drops them, and calls recorded while it changed the setting are not kept."""
    import layouts
    from layouts import settings
    from layouts.conversion import replays
    rng = np.random.default_rng(14)
    before = settings.get_threads()
    try:
        with profile.use_profile(PINNED):
            x = rng.integers(0, 255, size=(64, 3, 32, 32)).astype(np.uint8)
            out = np.empty((64, 32, 32, 3), np.uint8)
            replays.forget()
            for _ in range(3):
                layouts.convert(x, "NCHW", "NHWC", out=out)
            assert replays.kept(out)
            layouts.set_threads(1)
            assert not replays.kept(out) and replays.count() == 0
            real = pool.recorded

            def recorded_across_set_threads(run):       # set_threads(2) while the calls are recorded
                calls = real(run)
                layouts.set_threads(2)
                return calls
            pool.recorded = recorded_across_set_threads
            try:
                layouts.convert(x, "NCHW", "NHWC", out=out)     # known, so its calls are recorded
            finally:
                pool.recorded = real
            assert np.array_equal(out, x.transpose(0, 2, 3, 1))
            assert not replays.kept(out)
    finally:
        layouts.set_threads(before)
