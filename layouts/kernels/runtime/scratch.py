"""Scratch buffers that a thread keeps between copies.

A strategy that stages data through a cache-sized scratch (``staged``) would otherwise allocate
it on every call, and a fresh allocation of a few MiB is fresh pages: the kernel then pays a page
fault per 4 KiB before it moves a byte, which on a virtual machine costs more than the copy of a
small tensor. Each thread (the caller's and the pool's) keeps one buffer per name, grown when a
call needs more, up to :data:`MAX_KEPT` bytes (larger ones are allocated per call).

>>> a = buffer("doc", 1000)
>>> b = buffer("doc", 500)
>>> a.ctypes.data == b.ctypes.data, a.ctypes.data % 64, b.nbytes
(True, 0, 500)
"""

from __future__ import annotations

import threading

import numpy as np

__all__ = ["buffer", "MAX_KEPT"]

#: the largest buffer a thread keeps for a name
MAX_KEPT = 64 << 20

_local = threading.local()


def buffer(name: str, nbytes: int, align: int = 64) -> np.ndarray:
    """``nbytes`` uint8 starting on an ``align``-byte boundary, this thread's buffer ``name``
    (its contents are whatever the last user left)."""
    kept = getattr(_local, "kept", None)
    if kept is None:
        kept = _local.kept = {}
    raw = kept.get(name)
    if raw is None or raw.nbytes < nbytes + align:
        raw = np.empty(nbytes + align, np.uint8)
        if nbytes + align <= MAX_KEPT:
            kept[name] = raw
    start = (-raw.ctypes.data) % align
    return raw[start:start + nbytes]
