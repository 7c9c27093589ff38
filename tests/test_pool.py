"""The kernel threads: a split never waits for a worker that has not started, and the workers are
kept off the CPU of the thread that splits the work."""

import os
import threading

import pytest

from layouts.kernels import pool as pool_mod

linux_multi_cpu = pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2
                                     or pool_mod.max_threads() < 2, reason="needs Linux and 2+ CPUs")


class BusyWorkers:
    """Every worker of the pool held on an event (at most 10 s), so that parts submitted now cannot start."""

    def __enter__(self):
        self.release = threading.Event()
        self.started = threading.Barrier(pool_mod.pool()._max_workers + 1, timeout=10)

        def hold():
            self.started.wait()
            self.release.wait(10)
        self.futures = [pool_mod.pool().submit(hold) for _ in range(pool_mod.pool()._max_workers)]
        self.started.wait()
        return self

    def __exit__(self, *exc):
        self.release.set()
        for f in self.futures:
            f.result()


@linux_multi_cpu
def test_the_caller_runs_the_parts_no_worker_has_started():
    parts = []
    with BusyWorkers() as busy:
        pool_mod.run_split(lambda a, b: parts.append((a, b, threading.current_thread().name)),
                           lambda a, b: (a, b), 10, 2)
        assert not busy.release.is_set()          # returned while the only workers were still held
    assert sorted((a, b) for a, b, _ in parts) == [(0, 5), (5, 10)]
    assert {name for _, _, name in parts} == {threading.current_thread().name}


@linux_multi_cpu
def test_a_failing_part_leaves_the_parts_not_started_undone():
    parts = []

    def part(a, b):
        parts.append((a, b))
        if a == 0:
            raise ValueError("part 0 failed")

    with BusyWorkers():
        with pytest.raises(ValueError, match="part 0 failed"):
            pool_mod.run_split(part, lambda a, b: (a, b), 10, 2)
    assert parts == [(0, 5)]


@linux_multi_cpu
def test_workers_run_beside_the_caller_not_on_its_cpu():
    seen = []
    pool_mod.run_split(lambda a, b: seen.append(threading.get_native_id()), lambda a, b: (a, b), 2, 2)
    mine = os.sched_getaffinity(0)
    cpu, cpus = pool_mod._worker_cpus
    assert cpu in mine and cpus == mine - {cpu}      # the CPU the caller ran on, and the rest of its CPUs
    assert pool_mod._worker_ids
    for tid in pool_mod._worker_ids:
        assert os.sched_getaffinity(tid) == mine - {cpu}
    assert os.sched_getaffinity(0) == mine            # the caller's own CPUs are left alone
