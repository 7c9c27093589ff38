"""Keeping the library's own threads off the CPU of the thread that hands them work.

A thread woken while its waker runs may be queued behind it on the waker's CPU, so that the two
take turns instead of running side by side: under KVM this happened after every pause of a few
milliseconds (the guest's scheduler probably takes the other, halted vCPU for busy), and a copy
split over two threads ran slower than on one. So the kernel pool's workers and the file writer
register here (:func:`register_this_thread`), and before handing out work the caller lets them
run on every CPU it may use itself but the one it runs on now (:func:`keep_workers_off_this_cpu`).

Only threads of this library are ever moved; the caller's own affinity is never changed. Where
the platform cannot tell the CPU or set an affinity (not Linux), nothing happens. A caller that
moves between CPUs, or two callers on different CPUs, re-pin the registered threads (a system
call each) when the CPU differs from the last split's.

>>> keep_workers_off_this_cpu()        # a no-op where nothing is registered or it cannot apply
"""

from __future__ import annotations

import functools
import os
import threading
from typing import Callable

__all__ = ["register_this_thread", "unregister", "keep_workers_off_this_cpu"]

_lock = threading.Lock()
#: native ids of the registered threads, and the (caller's CPU, CPUs) they were last given
_ids: list[int] = []
_cpus: tuple[int, frozenset | None] = (-1, None)


def register_this_thread() -> int:
    """Register the calling thread (a worker, as it starts) and give it the CPUs the others
    have; returns its native id."""
    tid = threading.get_native_id()
    with _lock:                           # under the lock: a re-pin cannot slip in between
        _ids.append(tid)
        if _cpus[1]:
            _set_affinity(0, _cpus[1])
    return tid


def unregister(tid: int) -> None:
    """Forget a registered thread (before its id can belong to another)."""
    with _lock:
        if tid in _ids:
            _ids.remove(tid)


def keep_workers_off_this_cpu() -> None:
    """Let the registered threads run on every CPU the calling thread may use but the one it
    runs on now (nothing changes where that leaves none, or the platform cannot tell). The
    affinity is set only when that CPU or the calling thread's CPUs differ from the last call's."""
    global _cpus
    try:
        allowed = frozenset(os.sched_getaffinity(0))
    except (AttributeError, OSError):    # not on Linux
        return
    cpu = _getcpu()()
    if cpu not in allowed or len(allowed) < 2 or _cpus == (cpu, allowed - {cpu}):
        return
    with _lock:
        _cpus = (cpu, allowed - {cpu})
        for tid in _ids:
            _set_affinity(tid, _cpus[1])


def _set_affinity(tid: int, cpus: frozenset) -> None:
    try:
        os.sched_setaffinity(tid, cpus)
    except (AttributeError, OSError):    # not on Linux, or the thread has ended
        pass


@functools.lru_cache(maxsize=1)
def _getcpu() -> Callable[[], int]:
    """A function returning the CPU the calling thread runs on, or -1 where the C library has none."""
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).sched_getcpu
    except Exception:  # noqa: BLE001 - no C library by that name, or no such function: cannot tell
        return lambda: -1


def _forget_after_fork() -> None:
    """In a forked child the registered threads are the parent's: never move them."""
    global _lock, _cpus
    _lock = threading.Lock()
    _ids.clear()
    _cpus = (-1, None)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)
