"""Threads for the kernels: the numba kernels release the GIL, and work is split over a pool.

Thread counts are **clamped** to :func:`max_threads` (the cores this process may run on, or
numba's thread count if larger): a kernel thread beyond the cores only waits for one, so
``threads=10**6`` runs as ``threads=max_threads()``. One pool of ``max_threads() - 1`` workers
serves every caller and every count, made on first use and never shut down, so the number of
live threads stays bounded whatever callers pass, and callers on several threads never submit to
a pool another caller has closed. A part submitted by a worker of the pool runs inline (a nested
split never waits on the pool it runs in).

Two things keep a second thread from making a copy slower than one. The workers are kept off
the CPU the caller runs on (:mod:`.affinity`), where a woken worker may otherwise be queued
behind the caller and take turns with it. And the caller never waits for a worker that has not
started: :func:`run_split` runs such a part itself.

>>> parts = []
>>> run_split(lambda a, b: parts.append((a, b)), lambda w0, w1: (w0, w1), 10, 2)
>>> sorted(parts)[0][0], sorted(parts)[-1][1], sum(b - a for a, b in parts)   # [(0, 5), (5, 10)] on 2+ cores
(0, 10, 10)
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any, Callable

from ...settings import check_threads, get_threads
from .affinity import keep_workers_off_this_cpu, register_this_thread, unregister

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_local = threading.local()


@functools.lru_cache(maxsize=1)
def max_threads() -> int:
    """The most threads a conversion uses: the CPUs this process may run on (or numba's count if
    larger), read once per process."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cpus = os.cpu_count() or 1
    import numba
    return max(1, cpus, int(numba.config.NUMBA_NUM_THREADS))


def thread_count(threads: Any) -> int:
    """``threads`` checked (None, or an int >= 1) and clamped to :func:`max_threads`; None means
    the package setting (:func:`layouts.set_threads`), and when that is None too numba's thread count."""
    if type(threads) is not int or threads < 1:      # the common case (None, a plain int) stays cheap
        threads = check_threads(threads)
    if threads is None:
        threads = get_threads()
    if threads is None:
        import numba
        return max(1, int(numba.config.NUMBA_NUM_THREADS))
    return min(threads, max_threads())


def pool(workers: int | None = None) -> ThreadPoolExecutor:
    """The one shared pool (``max_threads() - 1`` workers; ``workers`` is accepted and ignored)."""
    global _pool
    if _pool is None:
        with _lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(max_workers=max(1, max_threads() - 1), thread_name_prefix="layouts-kernels",
                                           initializer=_mark_worker)
    return _pool


def _new_pool_after_fork() -> None:
    """A forked child has none of the parent's threads: its first split makes a pool of its own
    (the parent's, copied, would queue parts that no thread ever runs)."""
    global _pool, _lock
    _lock = threading.Lock()
    _pool = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_pool_after_fork)


def _mark_worker() -> None:
    _local.worker = True
    register_this_thread()


@contextlib.contextmanager
def helper_thread(name: str):
    """A one-thread executor for work beside the calling thread (a file's writes), kept off the
    caller's CPU as the pool's workers are (:func:`keep_workers_off_this_cpu` before each
    submit), and shut down, waiting for its work, when the block ends.

    >>> with helper_thread("example") as ex:
    ...     keep_workers_off_this_cpu()
    ...     ex.submit(sum, [1, 2]).result()
    3
    """
    mine = []
    ex = ThreadPoolExecutor(1, thread_name_prefix=name, initializer=lambda: mine.append(register_this_thread()))
    try:
        yield ex
    finally:
        try:
            ex.shutdown(wait=True)
        finally:                          # also when the wait is interrupted: an id kept past its thread could be reused
            for tid in mine:
                unregister(tid)


def _wait(futures: list) -> None:
    """Cancel the parts no worker has started, wait for every one that has, then raise the first
    failure among them (so that no part still runs when the split returns or raises)."""
    started = [f for f in futures if not f.cancel()]   # cancel(): True where it had not started
    wait(started)
    for f in started:
        f.result()


def run_split(fn: Callable, make_args: Callable[[int, int], tuple], nwork: int, nthreads: int) -> None:
    """Run ``fn(*make_args(w0, w1))`` over ``[0, nwork)`` cut in ``nthreads`` contiguous parts
    (clamped to :func:`max_threads`); the calling thread takes the first part, then each part
    whose worker has not started yet (a part runs once, on one thread, as a whole). When the
    caller's part raises, the parts not started are not run; when a part raises, the split raises
    it once every part started has ended."""
    t = max(1, min(int(nthreads), nwork))
    if t > 1:
        t = min(t, max_threads())
    calls = getattr(_local, "calls", None)
    if t == 1:
        args = make_args(0, nwork)
        if calls is not None:
            calls.append((fn, args))
        fn(*args)
        return
    if calls is not None:
        calls.append(None)                # split over threads: not a call to repeat
    bounds = [nwork * k // t for k in range(t + 1)]
    parts = [make_args(bounds[k], bounds[k + 1]) for k in range(t)]
    if getattr(_local, "worker", False):  # already on a pool thread: do every part here
        for args in parts:
            fn(*args)
        return
    keep_workers_off_this_cpu()
    futures = [pool().submit(fn, *args) for args in parts[1:]]
    try:
        fn(*parts[0])
        for f, args in zip(futures, parts[1:]):
            if f.cancel():                # its worker has not woken yet: cheaper to run it here
                fn(*args)
    finally:
        _wait(futures)


#: one item per :func:`recorded` run under way on any thread: where it is empty no :func:`made`
#: call can matter, which a caller after other work checks before paying for the call
RECORDING: list = []


def recorded(run: Callable[[], None]) -> tuple | None:
    """Run ``run`` and return the calls it made through :func:`run_split` (or told of with
    :func:`made`), ``(fn, args)`` pairs in order, so that they can be made again; None when the
    run cannot be repeated that way: a call was split over threads, or work was done another way
    (``made(None)``). A recording inside another adds its calls to the outer one too.

    The copy engine's calls reach the arrays through views made from their addresses, which do
    not keep the arrays alive: make such calls again only while the arrays they were made for
    live (the copy engine replays them only for arrays passed to it at those very addresses).

    >>> calls = recorded(lambda: run_split(print, lambda w0, w1: (w0, w1), 3, 1))
    0 3
    >>> calls == ((print, (0, 3)),)
    True
    >>> recorded(lambda: made(None)) is None
    True
    """
    outer = getattr(_local, "calls", None)
    _local.calls = calls = []
    RECORDING.append(None)
    try:
        run()
    finally:
        RECORDING.pop()
        _local.calls = outer
    if outer is not None:
        outer.extend(calls)
    return None if None in calls else tuple(calls)


def unrecorded(run: Callable[[], Any]) -> Any:
    """``run()``, its calls kept from any :func:`recorded` run around it: work a repeat must not
    make again, such as the planner timing the ways of a copy on slices of its arrays the first
    time it meets the copy, which may be inside a recording.

    >>> recorded(lambda: unrecorded(lambda: run_split(print, lambda w0, w1: (w0, w1), 2, 1)))
    0 2
    ()
    """
    outer = getattr(_local, "calls", None)
    _local.calls = None
    try:
        return run()
    finally:
        _local.calls = outer


def made(calls: tuple | None) -> None:
    """Tell a :func:`recorded` run on this thread of kernel calls made without :func:`run_split`
    (``(fn, args)`` pairs), or, with None, of work it cannot repeat."""
    rec = getattr(_local, "calls", None)
    if rec is not None:
        if calls is None:
            rec.append(None)
        else:
            rec.extend(calls)


def replay(calls: tuple) -> None:
    """Make the calls :func:`recorded` returned again (telling a recording around this of them)."""
    made(calls)
    for fn, args in calls:
        fn(*args)


def run_items(kernel: Callable, head: tuple, tail: tuple, nwork: int, nthreads: int) -> None:
    """``kernel(*head, w0, w1, *tail)`` over work items ``[0, nwork)`` cut in ``nthreads`` parts,
    with ``w0, w1`` as uint64 (the kernels' index type)."""
    import numpy as np
    run_split(kernel, lambda w0, w1: head + (np.uint64(w0), np.uint64(w1)) + tail, nwork, nthreads)
