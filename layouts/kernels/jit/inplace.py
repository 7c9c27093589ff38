"""In-place batched transpositions (numba); :mod:`layouts.inplace.driver` runs them.

A batch ``b`` of a pass holds an ``M x N`` matrix of elements of ``w`` units at units
``[b*M*N*w, (b+1)*M*N*w)`` of a flat unsigned buffer; each kernel turns it into the ``N x M``
matrix in the same units. Kernels take one :data:`INPLACE` record (read by field name, as the
copy kernels read theirs: :mod:`.records`) whose batch range ``[b0, b1)`` lets
:func:`layouts.kernels.runtime.pool.run_split` hand batches to threads; every scratch array is
allocated by the caller with numpy (tracemalloc sees it).

``chunk_kernel``   cycle-following over whole elements (long chunks), a visited bit per element
``square_kernel``  ``M == N``: swap mirrored elements tile by tile
``ckg_kernel``     Catanzaro-Keller-Garland: column rotation, row shuffle, column shuffle

>>> import numpy as np
>>> from layouts.kernels.records import record
>>> a = np.arange(3 * 5 * 2, dtype=np.uint16)               # 3 x 5 elements of 2 units
>>> want = a.reshape(3, 5, 2).transpose(1, 0, 2).ravel().copy()
>>> ckg_kernel(a, record(INPLACE, b0=0, b1=1, M=3, N=5, w=2), np.empty(10, np.uint16))
>>> bool((a == want).all())
True
"""

from __future__ import annotations


import numpy as np
from numba import njit

__all__ = ["INPLACE", "chunk_kernel", "square_kernel", "ckg_kernel"]

#: one in-place kernel call: batches ``[b0, b1)`` of ``M x N`` elements of ``w`` units
INPLACE = np.dtype([(n, np.uint64) for n in ("b0", "b1", "M", "N", "w")])


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
