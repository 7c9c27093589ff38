"""Measuring the in-place planner's costs on this machine (part of ``python -m layouts tune``).

The planner (:mod:`layouts.inplace.plan`) compares ways of permuting a tensor in place by their
cost in thousandths of a memcpy of the tensor: the profile's ``inplace_cost_*``,
``inplace_chunk_cost_*`` and ``inplace_alias_penalty_*`` fields. Each is measured here by running
the kernel op it prices (:func:`layouts.kernels.jit.inplace.transpose_batched`) on a buffer of the
tuned size, beside ``np.copyto`` of the same bytes, in interleaved rounds: ``cost = 1000 *
t(op) / t(copyto)``; an alias penalty is the cost of a reorder whose rows share cache sets less
that of the same reorder one row shorter. The other ``inplace_*`` fields are limits, not costs
(the scratch floor, the shortest chunk, the search depth) and keep their defaults.

>>> from layouts import kernels
>>> prof, found = tune_inplace(kernels.reference("epyc-avx512"), nbytes=1 << 18, rounds=1)
>>> sorted(m.field for m in found)[:3]
['inplace_alias_penalty_2k', 'inplace_alias_penalty_4k', 'inplace_chunk_cost_1k']
>>> all(getattr(prof, m.field) == m.chosen for m in found)
True
"""

from __future__ import annotations

import math

import numpy as np

from .methods import Op, chunk_op, scratch_op, tuning

__all__ = ["tune_inplace", "COST_CASES"]

#: field -> (what is timed, the op's method, B, dims, perm, element bytes), at 32 MiB; B is
#: rescaled to the size tuned (``B = 0``: the last dim is, for the one-batch ckg pass)
COST_CASES = {
    "inplace_cost_scratch": ("64 x 784 f32 blocks through the scratch", "scratch", 0, (64, 784), (1, 0), 4),
    "inplace_cost_square": ("512 x 512 f32 blocks, mirrored tiles swapped", "square", 0, (512, 512), (1, 0), 4),
    "inplace_cost_ckg": ("3 x N f32, Catanzaro-Keller-Garland", "ckg", 1, (3, 0), (1, 0), 4),
    "inplace_cost_reorder": ("(56, 7, 56) f32 blocks reversed through the scratch", "scratch", 0, (56, 7, 56),
                             (2, 1, 0), 4),
    "inplace_chunk_cost_4k": ("48 x N chunks of 4096 bytes, cycle-following", "chunks", 1, (48, 0), (1, 0), 4096),
    "inplace_chunk_cost_2k": ("48 x N chunks of 2048 bytes", "chunks", 1, (48, 0), (1, 0), 2048),
    "inplace_chunk_cost_1k": ("48 x N chunks of 1024 bytes", "chunks", 1, (48, 0), (1, 0), 1024),
    "inplace_chunk_cost_256": ("48 x N chunks of 256 bytes", "chunks", 1, (48, 0), (1, 0), 256),
    "inplace_chunk_cost_short": ("48 x N chunks of 64 bytes", "chunks", 1, (48, 0), (1, 0), 64),
}
#: penalty field -> (rows a multiple of 4 KiB / 2 KiB apart, the same reorder one row shorter)
ALIAS_CASES = {
    "inplace_alias_penalty_4k": ((128, 16, 64), (128, 15, 64)),
    "inplace_alias_penalty_2k": ((128, 28, 64), (128, 27, 64)),
}


def _op(method: str, B: int, dims: tuple[int, ...], perm: tuple[int, ...], e: int, nbytes: int, tu) -> Op:
    if 0 in dims:  # one batch: the open dim takes the size
        k = dims.index(0)
        dims = dims[:k] + (max(1, nbytes // (math.prod(d for d in dims if d) * e)),) + dims[k + 1:]
    block = math.prod(dims) * e
    B = B or max(1, nbytes // block)
    budget = max(4 * block, tu.min_budget)
    if method == "scratch":
        return scratch_op(B, dims, perm, e, budget, 1, tu)
    if method == "chunks":
        return chunk_op(B, dims[0], dims[1], e, max(budget, (dims[0] * dims[1]) // 4 + e + 4096), 1, tu)
    need = max(dims) * e + tu.pad if method == "ckg" else 0
    return Op(method, B, dims, perm, e, 1, 1, need)


def _cost(op: Op, rounds: int) -> tuple[int, float, float]:
    """(bytes, seconds of np.copyto of them, seconds of the op) on a buffer of the op's size."""
    from .driver import transpose_batched
    from ..kernels.tune import medians
    nbytes = op.B * math.prod(op.dims) * op.e
    buf = np.random.default_rng(0).integers(0, 255, nbytes, dtype=np.uint8)
    other = np.empty_like(buf)
    scratch = np.empty(max(1, op.workers * op.need), np.uint8)
    # the content does not change the cost of a permutation: the op runs again on its own result
    t_copy, t_op = medians([lambda: np.copyto(other, buf), lambda: transpose_batched(buf, op, scratch)], nbytes, rounds)
    return nbytes, t_copy, t_op


def tune_inplace(base, nbytes: int = 32 << 20, rounds: int = 5):
    """Measure the in-place costs (see the module doc) on tensors of about ``nbytes``: the profile
    ``base`` with them set, and the :class:`~layouts.kernels.tune.Measured` of each."""
    from ..kernels.tune import Measured
    tu = tuning()
    found, costs = [], {}
    for field, (what, method, B, dims, perm, e) in COST_CASES.items():
        op = _op(method, B, dims, perm, e, nbytes, tu)
        n, t_copy, t_op = _cost(op, rounds)
        costs[field] = max(1, round(1000 * t_op / t_copy))
        found.append(Measured(field, "np.copyto", method, [n], [(what, n, t_copy, t_op)], costs[field],
                              unit="thousandths of a memcpy"))
    for field, (aliased, plain) in ALIAS_CASES.items():
        rows, per = [], []
        for dims in (aliased, plain):
            n, t_copy, t_op = _cost(_op("scratch", 0, dims, (2, 1, 0), 4, nbytes, tu), rounds)
            rows.append((f"{dims} f32 reversed", n, t_copy, t_op))
            per.append(t_op / t_copy)
        costs[field] = max(0, round(1000 * (per[0] - per[1])))
        found.append(Measured(field, "np.copyto", "scratch reorder", [rows[0][1]], rows, costs[field],
                              note="the aliased reorder's cost less the plain one's", unit="thousandths of a memcpy"))
    return base.replace(**costs), found
