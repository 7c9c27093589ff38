"""The kernel threads: a split never waits for a worker that has not started, the workers are kept
off the CPU of the thread that splits the work, and a forked child gets threads of its own."""

import os
import threading
import time

import pytest

from layouts.kernels.runtime import affinity
from layouts.kernels.runtime import pool as pool_mod

linux_multi_cpu = pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2
                                     or pool_mod.max_threads() < 2, reason="needs Linux and 2+ CPUs")


class BusyWorkers:
    """Every worker of the pool held on an event (at most 10 s), so that parts submitted now cannot start."""

    def __enter__(self):
        self.release = threading.Event()
        n = pool_mod.pool()._max_workers
        self.started = threading.Barrier(n + 1, timeout=10)

        def hold():
            self.started.wait()
            self.release.wait(10)
        self.futures = [pool_mod.pool().submit(hold) for _ in range(n)]
        self.started.wait()
        return self

    def __exit__(self, *exc):
        self.release.set()
        for f in self.futures:
            f.result()


@linux_multi_cpu
def test_the_caller_runs_the_parts_no_worker_has_started():
    parts = []
    with BusyWorkers():
        t0 = time.perf_counter()
        pool_mod.run_split(lambda a, b: parts.append((a, b, threading.current_thread().name)),
                           lambda a, b: (a, b), 10, 2)
        waited = time.perf_counter() - t0
    assert waited < 5                                 # not the 10 s the held worker would have taken
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
def test_a_worker_failure_is_raised_after_every_started_part_has_ended(monkeypatch):
    from concurrent.futures import ThreadPoolExecutor
    two = ThreadPoolExecutor(2)                       # two workers, whatever the machine
    monkeypatch.setattr(pool_mod, "_pool", two)
    monkeypatch.setattr(pool_mod, "max_threads", lambda: 3)
    ended = []

    def part(a, b):
        if a > 0:
            time.sleep(0.05 if a == 3 else 0.3)       # the first worker fails while the second still runs
            ended.append(a)
            raise ValueError(f"part at {a} failed")
        ended.append(a)

    try:
        with pytest.raises(ValueError, match="part at 3 failed"):
            pool_mod.run_split(part, lambda a, b: (a, b), 9, 3)
        assert sorted(ended) == [0, 3, 6]             # every started part ran to its end before the raise
    finally:
        two.shutdown()


@linux_multi_cpu
def test_workers_run_beside_the_caller_not_on_its_cpu():
    pool_mod.pool().submit(lambda: None).result()     # the worker exists and has registered
    pool_mod.run_split(lambda a, b: None, lambda a, b: (a, b), 2, 2)
    mine = os.sched_getaffinity(0)
    cpu, cpus = affinity._cpus
    assert cpu in mine and cpus == mine - {cpu}      # the CPU the caller ran on, and the rest of its CPUs
    assert affinity._ids
    for tid in affinity._ids:
        assert os.sched_getaffinity(tid) == mine - {cpu}
    assert os.sched_getaffinity(0) == mine            # the caller's own CPUs are left alone


@linux_multi_cpu
def test_a_helper_thread_is_forgotten_when_its_block_ends():
    with pool_mod.helper_thread("test-helper") as ex:
        tid = ex.submit(threading.get_native_id).result()
        assert tid in affinity._ids
    assert tid not in affinity._ids


@pytest.mark.skipif(not hasattr(os, "fork") or pool_mod.max_threads() < 2, reason="needs fork and 2+ CPUs")
def test_a_forked_child_splits_on_threads_of_its_own():
    pool_mod.run_split(lambda a, b: None, lambda a, b: (a, b), 2, 2)     # the parent's pool exists
    pool_mod.pool().made_in = os.getpid()
    parents = set(affinity._ids)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:                                      # the child: a pool of its own, none of the parent's ids
        try:
            parts = []
            pool_mod.run_split(lambda a, b: parts.append((a, b)), lambda a, b: (a, b), 2, 2)
            fresh = getattr(pool_mod.pool(), "made_in", None) is None
            os.write(w, f"{sorted(parts)}|{fresh}|{not parents & set(affinity._ids)}".encode())
        finally:
            os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    got = os.read(r, 1000).decode()
    os.close(r)
    assert got == "[(0, 1), (1, 2)]|True|True", got
