"""Small channel counts: (de)interleave loops with a constant count (numba).

A transpose whose dst-contiguous axis has 2, 3 or 4 elements (NCHW->NHWC with C=3) or
whose src-contiguous axis has 2, 3 or 4 elements (NHWC->NCHW with C=3) is a plain
(de)interleave; with the count a compile-time constant LLVM's loop vectoriser turns it
into vector shuffles, while a tile transpose would waste almost all of each tile.

    interleave   (mode 0): dst[db + j*C + c] = src[sb + c*sI + j]      (dst rows of C)
    deinterleave (mode 1): dst[db + c*dJ + i] = src[sb + i*C + c]      (src rows of C)

``P``: d0, s0, C, n (length of the long axis), stride (sI or dJ), mode, w0, w1, chunk;
work item ``w`` = (batch index, chunk of the long axis).

>>> import numpy as np
>>> from layouts.kernels.small import small_kernel
>>> s = np.arange(12, dtype=np.uint8); d = np.zeros(12, np.uint8)
>>> e = np.zeros(0, np.uint64)
>>> small_kernel(d, s, np.array([0, 0, 3, 4, 4, 0, 0, 1, 4096], np.uint64), e, e, e)
>>> d.tolist()          # planes of 4 (C=3) -> pixels of 3
[0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]
"""

import numpy as np
from numba import njit

from .transpose import batch_offsets

__all__ = ["small_kernel", "try_small"]

U0 = np.uint64(0)
U1 = np.uint64(1)
U2 = np.uint64(2)
U3 = np.uint64(3)
U4 = np.uint64(4)


@njit(cache=True, nogil=True)
def small_kernel(dst, src, P, bsh, dbs, sbs):
    d0 = P[0]; s0 = P[1]; C = P[2]; n = P[3]; st = P[4]; mode = P[5]
    w0 = P[6]; w1 = P[7]; ch = P[8]
    nch = (n + ch - U1) // ch
    for w in range(w0, w1):
        b = w // nch
        k0 = (w - b * nch) * ch
        k1 = min(k0 + ch, n)
        db, sb = batch_offsets(b, d0, s0, bsh, dbs, sbs)
        if mode == U0:
            if C == U3:
                for j in range(k0, k1):
                    dst[db + j * U3] = src[sb + j]
                    dst[db + j * U3 + U1] = src[sb + st + j]
                    dst[db + j * U3 + U2] = src[sb + U2 * st + j]
            elif C == U4:
                for j in range(k0, k1):
                    dst[db + j * U4] = src[sb + j]
                    dst[db + j * U4 + U1] = src[sb + st + j]
                    dst[db + j * U4 + U2] = src[sb + U2 * st + j]
                    dst[db + j * U4 + U3] = src[sb + U3 * st + j]
            else:
                for j in range(k0, k1):
                    dst[db + j * U2] = src[sb + j]
                    dst[db + j * U2 + U1] = src[sb + st + j]
        else:
            if C == U3:
                for i in range(k0, k1):
                    dst[db + i] = src[sb + i * U3]
                    dst[db + st + i] = src[sb + i * U3 + U1]
                    dst[db + U2 * st + i] = src[sb + i * U3 + U2]
            elif C == U4:
                for i in range(k0, k1):
                    dst[db + i] = src[sb + i * U4]
                    dst[db + st + i] = src[sb + i * U4 + U1]
                    dst[db + U2 * st + i] = src[sb + i * U4 + U2]
                    dst[db + U3 * st + i] = src[sb + i * U4 + U3]
            else:
                for i in range(k0, k1):
                    dst[db + i] = src[sb + i * U2]
                    dst[db + st + i] = src[sb + i * U2 + U1]


CHUNK = 1 << 14


def try_small(d, s, plan, nth, run):
    """Run the (de)interleave kernel if ``plan`` fits it; return whether it ran."""
    if plan.dI != 1 or plan.sJ != 1:
        return False
    if plan.ni in (2, 3, 4) and plan.dJ == plan.ni:
        C, n, st, mode = plan.ni, plan.nj, plan.sI, 0
    elif plan.nj in (2, 3, 4) and plan.sI == plan.nj:
        C, n, st, mode = plan.nj, plan.ni, plan.dJ, 1
    else:
        return False
    bsh = np.array([a[0] for a in plan.batch], np.uint64)
    dbs = np.array([a[1] for a in plan.batch], np.uint64)
    sbs = np.array([a[2] for a in plan.batch], np.uint64)
    nch = -(-n // CHUNK)
    base = [0, 0, C, n, st, mode]
    run(small_kernel, lambda w0, w1: (d, s, np.array(base + [w0, w1, CHUNK], np.uint64), bsh, dbs, sbs),
        plan.nbatch * nch, nth)
    return True
