"""Threads for the kernels: the numba kernels release the GIL, and work is split over a pool.

One pool per worker count, made on first use and never shut down, so callers on several
threads with different ``threads=`` never submit to a pool another caller has closed.

>>> parts = []
>>> run_split(lambda a, b: parts.append((a, b)), lambda w0, w1: (w0, w1), 10, 2)
>>> sorted(parts)
[(0, 5), (5, 10)]
"""

from __future__ import annotations

import functools
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from ..config import check_threads


def thread_count(threads: Any) -> int:
    """``threads`` checked (None, or an int >= 1); None means numba's thread count."""
    threads = check_threads(threads)
    if threads is None:
        import numba
        return max(1, int(numba.config.NUMBA_NUM_THREADS))
    return threads


@functools.lru_cache(maxsize=None)
def pool(workers: int) -> ThreadPoolExecutor:
    """The pool of ``workers`` threads (one per distinct count, kept for the process)."""
    return ThreadPoolExecutor(max_workers=workers, thread_name_prefix="layouts-kernels")


def run_split(fn: Callable, make_args: Callable[[int, int], tuple], nwork: int, nthreads: int) -> None:
    """Run ``fn(*make_args(w0, w1))`` over ``[0, nwork)`` cut in ``nthreads`` contiguous parts;
    the calling thread takes the first part."""
    t = max(1, min(nthreads, nwork))
    if t == 1:
        fn(*make_args(0, nwork))
        return
    bounds = [nwork * k // t for k in range(t + 1)]
    futures = [pool(t - 1).submit(fn, *make_args(bounds[k], bounds[k + 1])) for k in range(1, t)]
    fn(*make_args(bounds[0], bounds[1]))
    for f in futures:
        f.result()
