"""Outputs judged cold (layouts.kernels.runtime.recency): one this process has not written lately with
plain stores is written past the cache (one it streamed is not in the cache however recent), one it
wrote moments ago with plain stores is not, and the bytes are numpy's either way.

Which stores a copy used shows in the key its kernel calls are kept under (the ``stream`` flag of
copy_into's repeats) or in which of a replay's two call sets convert made (layouts.conversion.replays); the
bytes are checked against numpy."""

import numpy as np
import pytest

import layouts
from layouts import kernels
from layouts.conversion import replays
from layouts.kernels.runtime import pool, recency
from layouts.kernels.machine import profile
from layouts.kernels.runtime.pointers import address

# 2 MiB L2: outputs from 512 KiB (a quarter) to 4 MiB (nt_min_bytes) are judged by recency
XEON = profile.reference("xeon-avx512")


def _streams_used(out):
    """The stream flags of copy_into's kept calls into ``out``, in the order they were kept."""
    return [key[5] for key in kernels.copy._repeats if key[4][0] == address(out)]


def _nchw_to_nhwc(shape, rng):
    x = rng.random(shape).astype(np.float32)
    return x, np.empty((shape[0], shape[2], shape[3], shape[1]), np.float32)


def test_the_reference_range_is_a_quarter_of_l2_up_to_nt_min_bytes():
    assert XEON.cold_nt_min_bytes == XEON.l2_bytes // 4 == 512 << 10
    assert profile.reference("epyc-avx2").cold_nt_min_bytes == 128 << 10
    assert XEON.cold_nt_min_bytes < XEON.nt_min_bytes


def test_a_cold_output_streams_and_one_written_just_now_does_not():
    rng = np.random.default_rng(0)
    x, out = _nchw_to_nhwc((256, 3, 32, 32), rng)                  # 3 MiB: inside the range
    with profile.use_profile(XEON.replace(recent_write_us=10 ** 9)):  # "just now" lasts the test
        recency.forget()
        kernels.copy._repeats.clear()
        kernels.copy_into(out, x.transpose(0, 2, 3, 1), threads=1)
        assert np.array_equal(out, x.transpose(0, 2, 3, 1))
        assert _streams_used(out) == [True]                        # never written: cold
        x[...] = rng.random(x.shape)
        kernels.copy_into(out, x.transpose(0, 2, 3, 1), threads=1)
        assert np.array_equal(out, x.transpose(0, 2, 3, 1))
        assert _streams_used(out) == [True]                        # streamed just now: its lines are not cached
        recency.wrote(address(out))                                # written with plain stores just now
        for _ in range(2):
            x[...] = rng.random(x.shape)
            kernels.copy_into(out, x.transpose(0, 2, 3, 1), threads=1)
            assert np.array_equal(out, x.transpose(0, 2, 3, 1))
            assert _streams_used(out) == [True, False]             # in the cache: plain stores, which keep it there
    with profile.use_profile(XEON.replace(recent_write_us=0)):     # every earlier write is long ago
        x[...] = rng.random(x.shape)
        out.fill(0)
        kernels.copy._repeats.clear()
        kernels.copy_into(out, x.transpose(0, 2, 3, 1), threads=1)
        assert np.array_equal(out, x.transpose(0, 2, 3, 1))
        assert _streams_used(out) == [True]                        # written long ago: cold again


@pytest.mark.parametrize("shape, why", [((32, 3, 32, 32), "below cold_nt_min_bytes"),
                                        ((512, 3, 32, 32), "at nt_min_bytes: streams whatever recency says")])
def test_outside_the_range_recency_decides_nothing(shape, why):
    rng = np.random.default_rng(1)
    x, out = _nchw_to_nhwc(shape, rng)
    with profile.use_profile(XEON.replace(recent_write_us=10 ** 9)):
        recency.forget()
        assert not recency.cold(address(out), out.nbytes, XEON), why
        kernels.copy._repeats.clear()
        for _ in range(2):
            kernels.copy_into(out, x.transpose(0, 2, 3, 1), threads=1)
            assert np.array_equal(out, x.transpose(0, 2, 3, 1))
        assert _streams_used(out) == [False], why                   # one plan, kept and made again


def test_without_non_temporal_stores_nothing_is_cold():
    assert not recency.cold(1 << 40, 1 << 20, XEON.replace(nt_stores=False))
    assert recency.cold(1 << 40, 1 << 20, XEON)


def test_convert_into_out_keeps_a_replay_for_each_kind_of_store():
    rng = np.random.default_rng(2)
    x = rng.integers(0, 255, size=(256, 32, 32, 3)).astype(np.uint8)   # 768 KiB NHWC
    out = layouts.convert(x, "NHWC", "NCHW")
    with profile.use_profile(XEON.replace(recent_write_us=10 ** 9)):
        layouts.convert(x, "NHWC", "NCHW", out=out, threads=1)      # the full path, which remembers the steps
        recency.forget()
        replays.forget()
        for k in range(3):
            x[...] = rng.integers(0, 255, size=x.shape)
            assert layouts.convert(x, "NHWC", "NCHW", out=out, threads=1) is out
            assert np.array_equal(out, x.transpose(0, 3, 1, 2)), k
            if k == 0:                         # streamed: still cold, until a plain write puts it in the cache
                assert recency.cold(address(out), out.nbytes, XEON)
                recency.wrote(address(out))
        [r] = replays.kept(out)
        assert all(r.calls)                    # the first call found out cold, the next two warm
        x[...] = rng.integers(0, 255, size=x.shape)
        assert pool.recorded(lambda: layouts.convert(x, "NHWC", "NCHW", out=out, threads=1)) == r.calls[False]
        recency.forget()                       # as if written long ago: the cold set is made again
        x[...] = rng.integers(0, 255, size=x.shape)
        assert pool.recorded(lambda: layouts.convert(x, "NHWC", "NCHW", out=out, threads=1)) == r.calls[True]
        assert np.array_equal(out, x.transpose(0, 3, 1, 2))


def test_the_record_of_writes_stays_small():
    recency.forget()
    for k in range(1000):
        recency.wrote(1 << 40 | k << 12)
    assert 0 < len(recency.WRITTEN) <= 256
    recency.forget()
    assert not recency.WRITTEN
