"""In-place batched transpositions (numba) and the driver that runs an in-place plan.

A batch ``b`` of a pass holds an ``M x N`` matrix of elements of ``w`` units at units
``[b*M*N*w, (b+1)*M*N*w)`` of a flat unsigned buffer; each kernel turns it into the ``N x M``
matrix in the same units. Kernels take one :data:`INPLACE` record (read by field name, as the
copy kernels read theirs: :mod:`.records`) whose batch range ``[b0, b1)`` lets
:func:`layouts.kernels.runtime.pool.run_split` hand batches to threads; every scratch array is
allocated by the caller with numpy (tracemalloc sees it). :data:`RUNNERS` maps each in-place
method (:mod:`layouts.inplace.methods`) to the driver that runs its kernel.

``chunk_kernel``   cycle-following over whole elements (long chunks), a visited bit per element
``square_kernel``  ``M == N``: swap mirrored elements tile by tile
``ckg_kernel``     Catanzaro-Keller-Garland: column rotation, row shuffle, column shuffle

>>> import numpy as np
>>> a = np.arange(3 * 5 * 2, dtype=np.uint16)               # 3 x 5 elements of 2 units
>>> want = a.reshape(3, 5, 2).transpose(1, 0, 2).ravel().copy()
>>> ckg_kernel(a, record(INPLACE, b0=0, b1=1, M=3, N=5, w=2), np.empty(10, np.uint16))
>>> bool((a == want).all())
True
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..copy import copy_into
from ...inplace.faultpoints import point
from ..runtime.pool import run_split
from ..records import record

__all__ = ["INPLACE", "RUNNERS", "chunk_kernel", "square_kernel", "ckg_kernel", "transpose_batched", "warm"]

#: one in-place kernel call: batches ``[b0, b1)`` of ``M x N`` elements of ``w`` units
INPLACE = np.dtype([(n, np.uint64) for n in ("b0", "b1", "M", "N", "w")])

_UNITS = {8: np.uint64, 4: np.uint32, 2: np.uint16, 1: np.uint8}


@njit(cache=True, nogil=True)
def chunk_kernel(buf, args, visited, tmp):
    """An :data:`INPLACE` record. Element p = i*N + j of a batch moves to j*M + i."""
    a = args[0]
    b0 = a.b0; b1 = a.b1; M = a.M; N = a.N; w = a.w
    one = np.uint64(1)
    MN = M * N
    L = MN - one
    for b in range(b0, b1):
        base = b * MN * w
        for q in range(visited.shape[0]):
            visited[q] = 0
        for start in range(one, L):
            if visited[start >> np.uint64(3)] & (one << (start & np.uint64(7))):
                continue
            s0 = base + start * w
            for t in range(w):
                tmp[t] = buf[s0 + t]
            cur = start
            while True:
                visited[cur >> np.uint64(3)] |= np.uint8(one << (cur & np.uint64(7)))
                src = (cur * N) % L             # the element that lands on cur
                d0 = base + cur * w
                if src == start:
                    for t in range(w):
                        buf[d0 + t] = tmp[t]
                    break
                s1 = base + src * w
                for t in range(w):
                    buf[d0 + t] = buf[s1 + t]
                cur = src


@njit(cache=True, nogil=True)
def square_kernel(buf, args):
    """An :data:`INPLACE` record (``N == M``): transpose M x M elements of w units, tiles of 16."""
    a = args[0]
    b0 = a.b0; b1 = a.b1; M = a.M; w = a.w
    T = np.uint64(16)
    for b in range(b0, b1):
        base = b * M * M * w
        for ib in range(np.uint64(0), M, T):
            ie = min(ib + T, M)
            for jb in range(ib, M, T):
                je = min(jb + T, M)
                for i in range(ib, ie):
                    j0 = max(jb, i + np.uint64(1))
                    for j in range(j0, je):
                        p = base + (i * M + j) * w
                        q = base + (j * M + i) * w
                        for t in range(w):
                            v = buf[p + t]
                            buf[p + t] = buf[q + t]
                            buf[q + t] = v


@njit(cache=True, nogil=True)
def ckg_kernel(buf, args, tmp):
    """An :data:`INPLACE` record; tmp holds max(M, N) elements of w units (the only scratch).

    C2R transposition of Catanzaro, Keller and Garland: with c = gcd(M, N), a = M/c, b = N/c,
    k = a^-1 mod b: rotate column j up by j // b; gather row i from s(i, j); gather column j
    from row (p(i) + j) mod M, p(i) = (i*N - i*c // M) mod M. Every index is closed-form:
    p(i) is stepped along i (two additions and two compares), never stored.
    """
    r0 = args[0]  # signed below: the rotation and p(i) step through negative values
    b0 = np.int64(r0.b0); b1 = np.int64(r0.b1); M = np.int64(r0.M); N = np.int64(r0.N); w = np.int64(r0.w)
    c = M
    r = N
    while r:
        c, r = r, c % r
    a = M // c
    bb = N // c
    k = 0
    if bb > 1:  # modular inverse of a mod bb (extended Euclid)
        r0, r1, t0, t1 = bb, a % bb, 0, 1
        while r1:
            q = r0 // r1
            r0, r1 = r1, r0 - q * r1
            t0, t1 = t1, t0 - q * t1
        k = t0 % bb
    nm = N % M
    for bt in range(b0, b1):
        base = bt * M * N * w
        if c > 1:
            for j in range(N):
                rot = (j // bb) % M
                if rot == 0:
                    continue
                for i in range(M):
                    s0 = base + (((i + rot) % M) * N + j) * w
                    for t in range(w):
                        tmp[i * w + t] = buf[s0 + t]
                for i in range(M):
                    d0 = base + (i * N + j) * w
                    for t in range(w):
                        buf[d0 + t] = tmp[i * w + t]
        for i in range(M):
            row = base + i * N * w
            for j in range(N):
                if i < M + 1 - c + (j % c):
                    f = j + i * (N - 1)
                else:
                    f = j + i * (N - 1) + M
                s = ((((f // c) % bb) * k) % bb + (f % c) * bb) % N
                for t in range(w):
                    tmp[j * w + t] = buf[row + s * w + t]
            for q in range(N * w):
                buf[row + q] = tmp[q]
        for j in range(N):
            jm = j % M
            # p(i) = (i*(N mod M) - (i*c) // M) mod M, stepped: am = i*nm mod M, qd = i*c // M
            # (qd < c <= M), rm = i*c mod M
            am = 0
            qd = 0
            rm = 0
            for i in range(M):
                p = am - qd
                if p < 0:
                    p += M
                src = p + jm
                if src >= M:
                    src -= M
                s0 = base + (src * N + j) * w
                for t in range(w):
                    tmp[i * w + t] = buf[s0 + t]
                am += nm
                if am >= M:
                    am -= M
                rm += c
                if rm >= M:
                    rm -= M
                    qd += 1
            for i in range(M):
                d0 = base + (i * N + j) * w
                for t in range(w):
                    buf[d0 + t] = tmp[i * w + t]


def _unit(e: int, address: int) -> int:
    """The widest unsigned type (bytes) dividing both the element size and the buffer address."""
    for u in (8, 4, 2, 1):
        if e % u == 0 and address % u == 0:
            return u
    return 1


def transpose_batched(buf: np.ndarray, op, scratch: np.ndarray, done: np.ndarray | None = None) -> None:
    """Run one op (see :class:`layouts.inplace.front.Op`) on the byte buffer ``buf`` (its first
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
