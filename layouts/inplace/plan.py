"""The in-place planner: a conversion's permutation as merged dims, and the cheapest passes for it.

:func:`fine_dims` turns two padding-free layouts into merged dims and an order; the passes are
found by a shortest-path search over the orders of those dims (:func:`plan_passes`), each move a
batched transposition whose method the in-place strategies choose (:mod:`layouts.inplace.methods`)
or a reorder of trailing dims through the scratch, weighted by the costs of the profile's
``inplace_*`` fields (:class:`InplaceTuning`).

>>> p = plan_passes((64, 3136), (1, 0), 4, 64 * 3136 * 4, 1)
>>> [(q.method, q.B, q.dims) for q in p.passes]
[('square', 1, (64, 64, 49)), ('scratch', 64, (64, 49, 1))]
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

from ..errors import LayoutError
from .methods import InplaceTuning, Op, choose, divisors, scratch_budget, scratch_op, tuning
from ..named.layout import Layout

__all__ = ["Op", "Pass", "InplacePlan", "InplaceTuning", "tuning", "scratch_budget", "fine_dims", "scratch_op",
           "choose", "plan_passes"]


@dataclass(frozen=True)
class Pass:
    """One pass over the buffer: ``B`` batches of a block of ``dims`` (elements), whose dims are
    reordered to ``perm``; ``(M, N, I)`` with ``perm == (1, 0, 2)`` is a batched transposition.
    ``ops`` do it, ``undo`` reverses it."""

    B: int
    dims: tuple[int, ...]
    perm: tuple[int, ...]
    method: str
    ops: tuple[Op, ...]
    undo: tuple[Op, ...] = ()


@dataclass(frozen=True)
class InplacePlan:
    """The passes of an in-place conversion and the memory they need.

    ``scratch_bytes``: the scratch allocated (all workers); ``budget``: :func:`scratch_budget`
    of the tensor; ``shape``: the merged dims in source order; ``order``: the destination order;
    ``cost``: the planner's estimate, in passes of about memcpy cost.
    """

    passes: tuple[Pass, ...]
    itemsize: int
    nbytes: int
    budget: int
    shape: tuple[int, ...]
    order: tuple[int, ...]
    scratch_bytes: int = 0
    cost: float = 0.0


# ---------------------------------------------------------------------------- fine factors
def _cuts(layout: Layout) -> dict[str, list[tuple[int, int]]]:
    """Per axis, the (weight, extent) of each physical dim, in spec order."""
    out: dict[str, list[tuple[int, int]]] = {a: [] for a in layout.axes}
    dims = layout.parsed.dims
    for i, (d, e) in enumerate(zip(dims, layout.shape)):
        w = math.prod(layout.shape[j] for j in range(i + 1, len(dims)) if dims[j].axis == d.axis and dims[j].is_block)
        if not d.is_block:
            w = math.prod(layout.shape[j] for j in range(len(dims)) if dims[j].axis == d.axis and dims[j].is_block)
        out[d.axis].append((w, e))
    return out


def fine_dims(src: Layout, dst: Layout) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The permutation between two padding-free layouts as merged dims: (sizes in source
    memory order, destination order as indices into them). Size-1 dims are dropped.

    >>> fine_dims(Layout("NCHW", N=2, C=32, H=3, W=3), Layout("NCHW16c", N=2, C=32, H=3, W=3))
    ((4, 16, 9), (0, 2, 1))
    """
    cs, cd = _cuts(src), _cuts(dst)
    chains: dict[str, list[int]] = {}
    for axis in src.axes:
        points = sorted({w for w, e in cs[axis]} | {w * e for w, e in cs[axis]}
                        | {w for w, e in cd[axis]} | {w * e for w, e in cd[axis]})
        for lo, hi in zip(points, points[1:]):
            if hi % lo:
                raise LayoutError(
                    f"axis {axis} is cut into blocks that do not nest ({src.spec} and {dst.spec} split it at "
                    f"{lo} and {hi} elements); in place, each block size must divide the next")
        chains[axis] = points

    def side(layout: Layout, cuts: dict) -> list[tuple[tuple[str, int], int]]:
        seen = {a: 0 for a in layout.axes}
        out = []
        for d in layout.parsed.dims:
            w, e = cuts[d.axis][seen[d.axis]]
            seen[d.axis] += 1
            pts = [p for p in chains[d.axis] if w <= p <= w * e]
            for hi, lo in zip(reversed(pts), list(reversed(pts))[1:]):
                if hi // lo > 1:
                    out.append(((d.axis, lo), hi // lo))
        return out

    s, d = side(src, cs), side(dst, cd)
    pos = {label: i for i, (label, _) in enumerate(s)}
    order = [pos[label] for label, _ in d]
    groups: list[list[int]] = []
    for i in order:  # merge dims adjacent in both orders
        if groups and groups[-1][-1] + 1 == i:
            groups[-1].append(i)
        else:
            groups.append([i])
    by_src = sorted(range(len(groups)), key=lambda g: groups[g][0])
    sizes = tuple(math.prod(s[i][1] for i in groups[g]) for g in by_src)
    rank = {g: r for r, g in enumerate(by_src)}
    return sizes, tuple(rank[g] for g in range(len(groups)))


# ---------------------------------------------------------------------------- method choice
# ---------------------------------------------------------------------------- pass search
def _apply(state: tuple, move: tuple) -> tuple:
    if move[0] == "swap":
        _, a, b, c = move
        return state[:a] + state[b:c] + state[a:b] + state[c:]
    _, a, perm = move
    return state[:a] + tuple(state[a + p] for p in perm)


def _move_cost(sizes: tuple[int, ...], state: tuple, move: tuple, isz: int, budget: int, threads: int,
               tu: InplaceTuning) -> float:
    sz = [sizes[i] for i in state]
    if move[0] == "swap":
        _, a, b, c = move
        return choose(math.prod(sz[:a]), math.prod(sz[a:b]), math.prod(sz[b:c]), math.prod(sz[c:]) * isz,
                      budget, threads, tu)[2]
    _, a, perm = move
    dims = tuple(sz[a:])
    fits = scratch_op(math.prod(sz[:a]), dims, perm, isz, budget, threads, tu)
    return _perm_cost(perm, dims, isz, tu) if fits else math.inf


def _conflicts(dims: tuple[int, ...], perm: tuple[int, ...], e: int, tu: InplaceTuning) -> float:
    """A penalty for a reorder that reads or writes rows a multiple of 4 KiB apart (every row in
    the same cache sets: (128, 16, 64) -> (64, 16, 128) f32 blocks ran 3.1x a memcpy) or of
    2 KiB (two sets: (128, 28, 64) 2.1x); (128, 14, 64) ran 1.9x, (128, 7, 64) 1.7x."""
    def strides(shape: tuple[int, ...]) -> list[int]:
        out, acc = [], e
        for n in reversed(shape):
            out.append(acc)
            acc *= n
        return out[1:]
    every = strides(dims) + strides(tuple(dims[p] for p in perm))
    for multiple, penalty in tu.alias_penalties:
        if any(st % multiple == 0 for st in every):
            return penalty
    return 0.0


def _perm_cost(perm: tuple[int, ...], dims: tuple[int, ...] = (), e: int = 1, tu: InplaceTuning | None = None) -> float:
    """A scratch reorder of 3+ dims: copy_into's strided 3-D copies ran 1.7-2x a memcpy, more
    with power-of-two strides (:func:`_conflicts`)."""
    tu = tu or tuning()
    penalty = _conflicts(dims, perm, e, tu) if dims else 0.0
    k = len(perm)
    while k and perm[k - 1] == k - 1:  # an unmoved tail: the element grows
        k -= 1
    runs = 1 + sum(1 for i in range(k - 1) if perm[i + 1] != perm[i] + 1)
    return (tu.cost_reorder if runs > 2 else tu.cost_scratch) + penalty


def _move_ops(sizes: tuple[int, ...], state: tuple, move: tuple, isz: int, budget: int, threads: int,
              tu: InplaceTuning):
    """(pass, cost) of ``move`` from ``state``: a block swap ("swap", a, b, c) or a reorder of
    the dims from ``a`` on through the scratch ("perm", a, perm)."""
    sz = [sizes[i] for i in state]
    if move[0] == "swap":
        _, a, b, c = move
        B, M, N, I = math.prod(sz[:a]), math.prod(sz[a:b]), math.prod(sz[b:c]), math.prod(sz[c:])
        method, ops, cost = choose(B, M, N, I * isz, budget, threads, tu)
        undo = choose(B, N, M, I * isz, budget, threads, tu)[1]
        return Pass(B, (M, N, I), (1, 0, 2), method, ops, undo), cost
    _, a, perm = move
    B, dims = math.prod(sz[:a]), tuple(sz[a:])
    op = scratch_op(B, dims, perm, isz, budget, threads, tu)
    if op is None:
        return None, math.inf
    inv = tuple(perm.index(i) for i in range(len(perm)))
    undo = scratch_op(B, tuple(dims[p] for p in perm), inv, isz, budget, threads, tu)
    return Pass(B, dims, perm, "scratch", (op,), (undo,)), _perm_cost(perm, dims, isz, tu)


def _moves(sizes: tuple[int, ...], state: tuple, isz: int, budget: int):
    k = len(state)
    for a in range(k):
        for b in range(a + 1, k):
            for c in range(b + 1, k + 1):
                yield ("swap", a, b, c)
    for a in range(k - 2 if k <= 5 else 0):  # reorders of 3..5 trailing dims that fit the scratch at once
        if math.prod(sizes[i] for i in state[a:]) * isz <= budget:
            for perm in itertools.permutations(range(k - a)):
                if perm != tuple(range(k - a)):
                    yield ("perm", a, perm)


def _search(sizes: tuple[int, ...], target: tuple[int, ...], isz: int, budget: int, threads: int,
            tu: InplaceTuning) -> tuple[list, float]:
    """Cheapest sequence of moves turning ``range(k)`` into ``target``, and its cost."""
    k = len(sizes)
    start = tuple(range(k))
    if start == target:
        return [], 0.0
    if k <= tu.search_max_dims:
        best = {start: 0.0}
        heap = [(0.0, 0, start, [])]
        tie = 0
        while heap:
            cost, _, state, path = heapq.heappop(heap)
            if state == target:
                return path, cost
            if cost > best.get(state, math.inf):
                continue
            for move in _moves(sizes, state, isz, budget):
                new = _apply(state, move)
                nc = cost + _move_cost(sizes, state, move, isz, budget, threads, tu)
                if nc < best.get(new, math.inf) - 1e-12:
                    best[new] = nc
                    tie += 1
                    heapq.heappush(heap, (nc, tie, new, path + [move]))
        raise AssertionError("unreachable: block swaps generate every permutation")
    state, path, total = start, [], 0.0
    for i in range(k):  # greedy: bring the next destination dim (and any run after it) forward
        p = state.index(target[i])
        if p == i:
            continue
        run = 1
        while p + run < k and i + run < k and state[p + run] == target[i + run]:
            run += 1
        move = ("swap", i, p, p + run)
        total += _move_cost(sizes, state, move, isz, budget, threads, tu)
        path.append(move)
        state = _apply(state, move)
    return path, total


def _split_variants(sizes: tuple[int, ...], order: tuple[int, ...]):
    """The merged dims with one dim cut in two (a few cut points each): a cut lets a pass move
    long chunks and reorder small blocks (NHWC -> CHWN: chunks, a 3-D scratch reorder, chunks)."""
    if len(sizes) > 4:
        return
    for i, n in enumerate(sizes):
        divs = [t for t in divisors(n) if 4 <= t <= n // 4]
        if not divs:
            continue
        picks = divs if len(divs) <= 24 else sorted({divs[round(j * (len(divs) - 1) / 15)] for j in range(16)})
        for t in picks:
            new_sizes = sizes[:i] + (n // t, t) + sizes[i + 1:]
            new_order = []
            for j in order:
                new_order += [j] if j < i else [i, i + 1] if j == i else [j + 1]
            yield new_sizes, tuple(new_order)


def plan_passes(sizes: tuple[int, ...], order: tuple[int, ...], isz: int, nbytes: int, threads: int,
                tu: InplaceTuning | None = None, budget: int | None = None) -> InplacePlan:
    """The passes turning merged dims ``sizes`` (source order) into ``order``, for a tensor of
    ``nbytes`` bytes of ``isz``-byte items and up to ``threads`` workers (cached), within
    ``budget`` bytes of scratch (default :func:`scratch_budget`)."""
    return _plan_cached(sizes, order, isz, nbytes, threads, tu or tuning(), budget)


@lru_cache(maxsize=512)
def _plan_cached(sizes: tuple[int, ...], order: tuple[int, ...], isz: int, nbytes: int, threads: int,
                 tu: InplaceTuning, budget: int | None = None) -> InplacePlan:
    budget = scratch_budget(nbytes, tu) if budget is None else budget
    best = (sizes, order) + _search(sizes, order, isz, budget, threads, tu)
    for variant in _split_variants(sizes, order):
        found = variant + _search(*variant, isz, budget, threads, tu)
        if found[3] < best[3] - 0.05:
            best = found
    sizes_used, _, path, cost = best
    state = tuple(range(len(sizes_used)))
    passes = []
    for move in path:
        passes.append(_move_ops(sizes_used, state, move, isz, budget, threads, tu)[0])
        state = _apply(state, move)
    scratch = max([op.workers * op.need for p in passes for op in p.ops + p.undo] or [0])
    return InplacePlan(tuple(passes), isz, nbytes, budget, sizes, order, scratch, cost)
