"""The rules ``python -m layouts tune`` turns its timings into thresholds with, against a brute
force over every candidate threshold (no timing: hand-made and random rows)."""

import math
import random

import pytest

from layouts.kernels.tune import Measured, at_least_half_l2, first_winning, least_time


def brute_least_time(sizes, rows):
    """Each candidate threshold (every size, and past the largest), with the summed log seconds of
    the way it picks at every row; the least, the larger on a tie."""
    def total(t):
        return sum(math.log(t1 if size >= t else t0) for _case, size, t0, t1 in rows)
    candidates = sorted(sizes) + [2 * max(sizes)]
    best = min(total(t) for t in candidates)
    return max(t for t in candidates if math.isclose(total(t), best, rel_tol=0, abs_tol=1e-12))


@pytest.mark.parametrize("seed", range(40))
def test_least_time_is_the_brute_force_optimum(seed):
    rng = random.Random(seed)
    sizes = [1 << k for k in range(10, 10 + rng.randint(1, 8))]
    rows = [(case, s, rng.uniform(0.5, 2.0), rng.uniform(0.5, 2.0))
            for case in ("a", "b", "c")[:rng.randint(1, 3)] for s in sizes]
    assert least_time(sizes, rows, "second")[0] == brute_least_time(sizes, rows)


def test_one_close_loss_does_not_push_the_threshold_past_the_wins():
    sizes = [256, 512, 1024, 2048]
    rows = [("x", 256, 2.0, 1.0), ("x", 512, 2.0, 1.0), ("x", 1024, 2.0, 2.1), ("x", 2048, 2.0, 1.0)]
    assert first_winning(sizes, {s: t1 <= t0 for _, s, t0, t1 in rows}, "second")[0] == 2048
    chosen, note = least_time(sizes, rows, "second")
    assert (chosen, note) == (256, "the second won already at the smallest size tried")


def test_never_winning_sets_past_the_largest():
    rows = [("x", 1, 1.0, 1.2), ("x", 2, 1.0, 1.01)]
    assert least_time([1, 2], rows, "second") == (4, "the second did not win at the largest size tried: set past it")


def test_a_win_that_a_larger_loss_outweighs_is_not_taken():
    # from 1 the second way saves log(1/0.9) once and loses log(2) at 2: worse than never
    rows = [("x", 1, 1.0, 0.9), ("x", 2, 1.0, 2.0)]
    assert least_time([1, 2], rows, "second")[0] == 4


@pytest.mark.parametrize("chosen, l2, expected", [(1 << 18, 1 << 20, 1 << 19), (1 << 20, 1 << 20, 1 << 20),
                                                  (4 << 20, 2 << 20, 4 << 20), (0, 512 << 10, 256 << 10)])
def test_streaming_starts_at_half_the_l2_at_the_earliest(chosen, l2, expected):
    m = Measured("nt_min_bytes", "plain stores", "non-temporal stores", [chosen], [], chosen, "a note")
    got = at_least_half_l2(m, l2)
    assert got.chosen == expected
    assert got.note == ("a note" if expected == chosen else "a note; raised to half the L2 size")


def test_paused_timings_count_the_calls_not_the_sleeps():
    """With a pause, each call follows a sleep that its time leaves out; a call lasts 5 ms here
    and each sleep 20 ms, so a sleep counted in would show."""
    import time

    from layouts.kernels.tune import seconds_per_call
    calls, gaps, last = [], [], [None]

    def run():
        now = time.perf_counter()
        if last[0] is not None:
            gaps.append(now - last[0])
        time.sleep(0.005)
        calls.append(now)
        last[0] = time.perf_counter()

    t = seconds_per_call(run, 1, pause=0.02)
    assert len(calls) == 8                        # 2000 calls back to back; at most 8 with a pause
    assert 0.005 <= t < 0.015
    assert min(gaps) >= 0.02                      # the sleep came between the calls


def test_paused_timings_produce_the_source_before_each_call():
    """``produce`` runs before each paused call and outside its time."""
    import time

    from layouts.kernels.tune import seconds_per_call
    log = []
    t = seconds_per_call(lambda: log.append("call"), 1, pause=0.001,
                         produce=lambda: (log.append("produce"), time.sleep(0.02)))
    assert log == ["produce", "call"] * 8
    assert t < 0.01


def test_the_producer_rewrites_the_source_the_view_reads():
    import numpy as np

    from layouts.kernels.tune import producer
    xs = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    v = xs.transpose(0, 2, 1)
    produce = producer(v)
    xs[...] = -1                       # the producer writes back the values it saw
    produce()
    assert np.array_equal(xs, np.arange(24, dtype=np.float32).reshape(2, 3, 4))
