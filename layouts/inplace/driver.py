"""Running an in-place op: its batches handed to threads, each through the numba kernel of its
method (:mod:`layouts.kernels.jit.inplace`) or, for the scratch method, the copy engine, with
every batch marked once it holds its result. :data:`RUNNERS` maps each in-place method
(:mod:`.methods`) to the driver that runs it.
"""

from __future__ import annotations

import math

import numpy as np

from ..kernels.copy import copy_into
from ..kernels.jit.inplace import INPLACE, chunk_kernel, ckg_kernel, square_kernel
from ..kernels.records import record
from ..kernels.runtime.pool import run_split
from .faultpoints import point

__all__ = ["RUNNERS", "transpose_batched", "warm"]

_UNITS = {8: np.uint64, 4: np.uint32, 2: np.uint16, 1: np.uint8}


def _unit(e: int, address: int) -> int:
    """The widest unsigned type (bytes) dividing both the element size and the buffer address."""
    for u in (8, 4, 2, 1):
        if e % u == 0 and address % u == 0:
            return u
    return 1


def transpose_batched(buf: np.ndarray, op, scratch: np.ndarray, done: np.ndarray | None = None) -> None:
    """Run one op (see :class:`layouts.inplace.methods.Op`) on the byte buffer ``buf`` (its first
    ``op.B * prod(op.dims) * op.e`` bytes); ``scratch``: a byte array of at least
    ``op.workers * op.need`` bytes, cut into one slice per worker.

    ``done`` (``op.B`` bools), when given, is set for each batch once it holds its result, so that
    after an exception the caller knows which batches moved: every batch is either untouched or
    done (a scratch group that fails midway is copied back from its scratch copy first)."""
    B, dims, e = op.B, op.dims, op.e
    u = _unit(e, buf.ctypes.data)
    w = e // u
    U = buf[:B * math.prod(dims) * e].view(_UNITS[u])
    t = op.workers
    mark = done if done is not None else np.zeros(B, bool)

    def part(k0: int, n: int) -> np.ndarray:
        k = _worker(k0, n, t)
        return scratch[k * op.need:(k + 1) * op.need]

    RUNNERS[op.method](U, op, w, u, mark, part)


def _run_scratch(U: np.ndarray, op, w: int, u: int, mark: np.ndarray, part) -> None:
    B, dims, t, g = op.B, op.dims, op.workers, op.group
    blk = math.prod(dims) * w
    ngroups = -(-B // g)
    out_dims = tuple(dims[p] for p in op.perm) + (w,)
    axes = (0,) + tuple(p + 1 for p in op.perm) + (len(dims) + 1,)

    def work(k0: int, k1: int, mine: np.ndarray) -> None:
        # copy the blocks out (memcpy), transpose them back into place (cheaper than transposing
        # into the scratch and copying back)
        tmp = _head(mine, g * blk * u, u)
        for k in range(k0, k1):
            b0, b1 = k * g, min(B, (k + 1) * g)
            n = b1 - b0
            np.copyto(tmp[:n * blk], U[b0 * blk:b1 * blk])
            try:
                point("group", batch=b0)
                copy_into(U[b0 * blk:b1 * blk].reshape((n,) + out_dims),
                          tmp[:n * blk].reshape((n,) + dims + (w,)).transpose(axes), threads=1)
            except BaseException:
                np.copyto(U[b0 * blk:b1 * blk], tmp[:n * blk])  # the group as it was
                raise
            mark[b0:b1] = True

    run_split(work, lambda k0, k1: (k0, k1, part(k0, ngroups)), ngroups, t)


def _run_chunks(U: np.ndarray, op, w: int, u: int, mark: np.ndarray, part) -> None:
    M, N = op.dims[0], op.dims[1]

    def chunk(k0: int, k1: int, mine: np.ndarray) -> None:
        vis = _head(mine, (M * N + 7) // 8, 1)
        chunk_kernel(U, record(INPLACE, b0=k0, b1=k1, M=M, N=N, w=w), vis, _tail(mine, op.e, u))
        mark[k0:k1] = True

    run_split(chunk, lambda k0, k1: (k0, k1, part(k0, op.B)), op.B, op.workers)


def _run_square(U: np.ndarray, op, w: int, u: int, mark: np.ndarray, part) -> None:
    M = op.dims[0]

    def square(k0: int, k1: int) -> None:
        square_kernel(U, record(INPLACE, b0=k0, b1=k1, M=M, N=M, w=w))
        mark[k0:k1] = True

    run_split(square, lambda k0, k1: (k0, k1), op.B, op.workers)


def _run_ckg(U: np.ndarray, op, w: int, u: int, mark: np.ndarray, part) -> None:
    M, N = op.dims[0], op.dims[1]

    def ckg(k0: int, k1: int, mine: np.ndarray) -> None:
        ckg_kernel(U, record(INPLACE, b0=k0, b1=k1, M=M, N=N, w=w), _head(mine, max(M, N) * op.e, u))
        mark[k0:k1] = True

    run_split(ckg, lambda k0, k1: (k0, k1, part(k0, op.B)), op.B, op.workers)


#: the driver of each in-place method (:mod:`layouts.inplace.methods` names them)
RUNNERS = {"scratch": _run_scratch, "chunks": _run_chunks, "square": _run_square, "ckg": _run_ckg}


def _head(scratch: np.ndarray, nbytes: int, u: int) -> np.ndarray:
    """The first ``nbytes`` of a worker's scratch from a 64-byte boundary, as units of ``u`` bytes."""
    start = (-scratch.ctypes.data) % 64
    return scratch[start:start + nbytes].view(_UNITS[u])


def _tail(scratch: np.ndarray, nbytes: int, u: int) -> np.ndarray:
    """``nbytes`` at the end of a worker's scratch, aligned to ``u``, as units of ``u`` bytes."""
    start = scratch.shape[0] - nbytes
    start -= (scratch.ctypes.data + start) % u
    return scratch[start:start + nbytes].view(_UNITS[u])


def _worker(k0: int, n: int, t: int) -> int:
    """Which of ``t`` workers :func:`run_split` gives the part of ``[0, n)`` starting at ``k0``."""
    t = max(1, min(t, n))
    for k in range(t):
        if n * k // t == k0:
            return k
    raise AssertionError((k0, n, t))


def warm(buf: np.ndarray, plan) -> None:
    """Compile (or load from numba's disk cache) the kernels a plan uses, for every unit width a
    part of the buffer may take (a batch range starts anywhere), before any byte moves."""
    ops = {(op.method, u) for p in plan.passes for op in p.ops + p.undo for u in _UNITS if op.e % u == 0}
    for method, u in ops:
        if method in _WARM:
            _WARM[method](_UNITS[u])


_WARM = {
    "chunks": lambda T: chunk_kernel(np.zeros(6, T), record(INPLACE, b0=0, b1=1, M=2, N=3, w=1),
                                     np.zeros(1, np.uint8), np.zeros(1, T)),
    "square": lambda T: square_kernel(np.zeros(4, T), record(INPLACE, b0=0, b1=1, M=2, N=2, w=1)),
    "ckg": lambda T: ckg_kernel(np.zeros(6, T), record(INPLACE, b0=0, b1=1, M=2, N=3, w=1), np.zeros(3, T)),
}
