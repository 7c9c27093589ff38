"""``convert_inplace``: change a tensor's layout inside its own memory.

A conversion between two layouts without padding is a permutation of the tensor's elements.
The plan here (pure Python, cached) turns it into a few *passes*, each a batched 2-D
transposition ``(B, M, N, I) -> (B, N, M, I)`` of the buffer (``I`` contiguous elements move
together), and picks for each pass how to do it in bounded memory:

``scratch``  the ``M x N`` blocks of a few batches fit the scratch budget: copy them out, and
             transpose them back into place with :func:`layouts.kernels.copy_into` (the same
             way a pass may reorder 3-5 trailing dims at once, e.g. ``(N, t, C) -> (C, t, N)``);
``chunks``   ``I`` is long (>= 16 bytes): follow the cycles of ``i -> i*M mod (MN-1)`` over
             whole chunks, with a bit per chunk to mark the visited ones;
``square``   ``M == N``: swap mirrored tiles, no scratch;
``split``    ``N = N1 * t`` (or ``M = M1 * s``): a chunk pass over ``M x N1`` chunks of ``t*I``
             elements, then a scratch pass over the ``M x t`` blocks (Gustavson-style);
``ckg``      when nothing above fits: Catanzaro-Keller-Garland (PPoPP 2014), a column
             rotation, a row shuffle and a column shuffle with ``max(M, N)`` elements of scratch.

The passes are chosen by a shortest-path search over the orders of the (merged) dims, each
move weighted by its method's measured cost, also with one merged dim cut in two (so that
NHWC -> CHWN becomes long-chunk, small-block, long-chunk passes). Extra memory is bounded by :func:`scratch_budget`:
``max(1% of x.nbytes, 64 KiB)`` in all, over all threads; the only exception is a ``ckg``
pass, used when neither side of an ``M x N`` transposition factors into pieces that fit: it
needs one row or column of ``max(M, N)`` elements (its indices are closed-form, nothing else is
stored, and its undo is the same size), so the bound is then
``max(1% of x.nbytes, 64 KiB) + max(M, N) * itemsize`` -- ``O(largest axis)`` when M and N are
single axes, but M or N may be merged axes (one RGB image NCHW -> NHWC is a ``3 x HW``
transposition: ``HW`` elements, a third of the tensor).

>>> import numpy as np, layouts as ly
>>> x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
>>> want = x.transpose(0, 2, 3, 1).copy()
>>> y = ly.convert_inplace(x, "NCHW", "NHWC")
>>> y.shape, np.shares_memory(y, x), np.array_equal(y, want)
((2, 4, 5, 3), True, True)
>>> [p.method for p in plan_inplace("NCHW", "CHWN", (128, 64, 56, 56), "float32", threads=1).passes]
['split']
"""

from __future__ import annotations

import heapq
import itertools
import math
import warnings
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

import numpy as np

from . import config
from .errors import LayoutError, LayoutTypeError, LayoutWarning
from .layout import Layout
from .inplace_run import run_segments, segments
from .request import layout_name, own_sizes, resolve, reworded
from .signal_hold import SignalHold
from .spec import parse

__all__ = ["convert_inplace", "plan_inplace", "scratch_budget", "InplacePlan", "Pass"]

#: The scratch floor: small tensors may use this much even when it is above 1% of them.
MIN_BUDGET = 64 << 10
#: Chunks shorter than this (bytes) are not moved by cycle-following (the bitset would be large).
CHUNK_MIN = 16
#: Search the best order of passes exhaustively up to this many merged dims (greedy above).
SEARCH_MAX_DIMS = 6

#: Estimated cost of a pass, in memcpys of the tensor (chunks: :func:`_chunk_cost`).
_COST = {"scratch": 2.5, "square": 2.0, "ckg": 8.0}


def scratch_budget(nbytes: int) -> int:
    """Extra bytes a conversion of an ``nbytes`` tensor may use: ``max(nbytes // 100, 64 KiB)``.

    >>> scratch_budget(128 * 64 * 56 * 56 * 4)
    1027604
    """
    return max(int(nbytes) // 100, MIN_BUDGET)


# ---------------------------------------------------------------------------- the plan objects
@dataclass(frozen=True)
class Op:
    """One kernel call pattern: ``method`` over ``B`` batches of a block of ``dims`` elements of
    ``e`` bytes, whose dims end up in the order ``perm`` (``(1, 0)``: an ``M x N`` transposition).

    ``group``: batches per scratch copy; ``need``: scratch bytes per worker; ``workers``: threads.
    """

    method: str
    B: int
    dims: tuple[int, ...]
    perm: tuple[int, ...]
    e: int
    workers: int = 1
    group: int = 1
    need: int = 0

    @property
    def M(self) -> int:
        return self.dims[0]

    @property
    def N(self) -> int:
        return self.dims[1]


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
@lru_cache(maxsize=4096)
def _divisors(n: int) -> tuple[int, ...]:
    small, large = [], []
    k = 1
    while k * k <= n:
        if n % k == 0:
            small.append(k)
            if k * k != n:
                large.append(n // k)
        k += 1
    return tuple(small + large[::-1])


def _slack(budget: int) -> int:
    return min(_SLACK, budget // 8)


def _scratch_room(W: int, dims: tuple[int, ...], e: int, slack: int) -> int:
    """Bytes of a worker's budget ``W`` a scratch copy may fill: copy_into's own temporaries
    (its small-C path buffers up to the copy's size, its byte-grouped path 512 KiB) and the
    call's Python objects (a few KiB) must fit beside it."""
    if e <= 8 and any(n in (2, 3, 4) for n in dims):
        return W // 2 - slack
    return (W - (1 << 20) if W >= 24 << 20 else W) - slack


#: bytes a worker's scratch adds for alignment (a 64-byte aligned start, an aligned tail)
_PAD = 192
#: bytes of the budget left to the call's Python objects (plans, views, small index arrays)
_SLACK = 8 << 10


def _bits(n: int) -> int:
    return (n + 7) // 8


def _chunk_cost(e: int) -> float:
    """Measured on 128x64x56x56 f32: whole-chunk cycles run at ~1.1x a memcpy from 4 KiB chunks,
    ~2.4x at 256 bytes (random lines); a scratch pass (in-cache transpose + copy back) ~2.5x."""
    return 1.1 if e >= 4096 else 1.2 if e >= 2048 else 1.5 if e >= 1024 else 2.4 if e >= 256 else 3.5


def scratch_op(B: int, dims: tuple[int, ...], perm: tuple[int, ...], e: int, budget: int, threads: int) -> Op | None:
    """``B`` blocks of ``dims`` reordered to ``perm`` through a scratch copy, if a block fits."""
    blk = math.prod(dims) * e
    for workers in range(max(1, min(threads, B)), 0, -1):
        room = _scratch_room(budget // workers, dims, e, _slack(budget)) - _PAD
        if blk <= room:
            g = max(1, min(room // blk, -(-B // workers)))
            return Op("scratch", B, dims, perm, e, workers, g, g * blk + _PAD)
    return None


@lru_cache(maxsize=65536)
def choose(B: int, M: int, N: int, e: int, budget: int, threads: int) -> tuple[str, tuple[Op, ...], float]:
    """How to transpose ``B`` batches of ``M x N`` elements of ``e`` bytes in ``budget`` bytes of
    scratch with up to ``threads`` workers: (method, ops, cost in passes of about memcpy cost)."""
    T = (1, 0)

    def chunk_op(B: int, M: int, N: int, e: int) -> Op | None:
        need = _bits(M * N) + e + _PAD
        if e < CHUNK_MIN:
            return None
        workers = max(1, min(threads, B, budget // need))
        return Op("chunks", B, (M, N), T, e, workers, 1, need) if need <= budget - _slack(budget) else None

    op = scratch_op(B, (M, N), T, e, budget, threads)
    if op:
        return "scratch", (op,), _COST["scratch"]
    if M == N:
        return "square", (Op("square", B, (M, N), T, e, max(1, min(threads, B)), 1, 0),), _COST["square"]
    op = chunk_op(B, M, N, e)
    if op:
        return "chunks", (op,), _chunk_cost(e)
    best = None
    for t in reversed(_divisors(N)[1:-1]):  # N = N1 * t: chunks of t elements, then M x t blocks
        a, b = chunk_op(B, M, N // t, t * e), scratch_op(B * (N // t), (M, t), T, e, budget, threads)
        if a and b:
            best = (t * e, (a, b))
            break
    for s in reversed(_divisors(M)[1:-1]):  # M = M1 * s: s x N blocks, then chunks of s elements
        a, b = scratch_op(B * (M // s), (s, N), T, e, budget, threads), chunk_op(B, M // s, N, s * e)
        if a and b:
            if best is None or s * e > best[0]:
                best = (s * e, (a, b))
            break
    if best:
        return "split", best[1], _COST["scratch"] + _chunk_cost(best[0])
    need = max(M, N) * e + _PAD  # the kernel's one row/column buffer; its indices are closed-form
    return "ckg", (Op("ckg", B, (M, N), T, e, max(1, min(threads, B, budget // need)), 1, need),), _COST["ckg"]


# ---------------------------------------------------------------------------- pass search
def _apply(state: tuple, move: tuple) -> tuple:
    if move[0] == "swap":
        _, a, b, c = move
        return state[:a] + state[b:c] + state[a:b] + state[c:]
    _, a, perm = move
    return state[:a] + tuple(state[a + p] for p in perm)


def _move_cost(sizes: tuple[int, ...], state: tuple, move: tuple, isz: int, budget: int, threads: int) -> float:
    sz = [sizes[i] for i in state]
    if move[0] == "swap":
        _, a, b, c = move
        return choose(math.prod(sz[:a]), math.prod(sz[a:b]), math.prod(sz[b:c]), math.prod(sz[c:]) * isz,
                      budget, threads)[2]
    _, a, perm = move
    dims = tuple(sz[a:])
    return _perm_cost(perm, dims, isz) if scratch_op(math.prod(sz[:a]), dims, perm, isz, budget, threads) else math.inf


def _conflicts(dims: tuple[int, ...], perm: tuple[int, ...], e: int) -> float:
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
    return 1.0 if any(st % 4096 == 0 for st in every) else 0.3 if any(st % 2048 == 0 for st in every) else 0.0


def _perm_cost(perm: tuple[int, ...], dims: tuple[int, ...] = (), e: int = 1) -> float:
    """A scratch reorder of 3+ dims: copy_into's strided 3-D copies ran 1.7-2x a memcpy, more
    with power-of-two strides (:func:`_conflicts`)."""
    penalty = _conflicts(dims, perm, e) if dims else 0.0
    k = len(perm)
    while k and perm[k - 1] == k - 1:  # an unmoved tail: the element grows
        k -= 1
    runs = 1 + sum(1 for i in range(k - 1) if perm[i + 1] != perm[i] + 1)
    return (3.0 if runs > 2 else _COST["scratch"]) + penalty


def _move_ops(sizes: tuple[int, ...], state: tuple, move: tuple, isz: int, budget: int, threads: int):
    """(pass, cost) of ``move`` from ``state``: a block swap ("swap", a, b, c) or a reorder of
    the dims from ``a`` on through the scratch ("perm", a, perm)."""
    sz = [sizes[i] for i in state]
    if move[0] == "swap":
        _, a, b, c = move
        B, M, N, I = math.prod(sz[:a]), math.prod(sz[a:b]), math.prod(sz[b:c]), math.prod(sz[c:])
        method, ops, cost = choose(B, M, N, I * isz, budget, threads)
        undo = choose(B, N, M, I * isz, budget, threads)[1]
        return Pass(B, (M, N, I), (1, 0, 2), method, ops, undo), cost
    _, a, perm = move
    B, dims = math.prod(sz[:a]), tuple(sz[a:])
    op = scratch_op(B, dims, perm, isz, budget, threads)
    if op is None:
        return None, math.inf
    inv = tuple(perm.index(i) for i in range(len(perm)))
    undo = scratch_op(B, tuple(dims[p] for p in perm), inv, isz, budget, threads)
    return Pass(B, dims, perm, "scratch", (op,), (undo,)), _perm_cost(perm, dims, isz)


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


def _search(sizes: tuple[int, ...], target: tuple[int, ...], isz: int, budget: int, threads: int) -> tuple[list, float]:
    """Cheapest sequence of moves turning ``range(k)`` into ``target``, and its cost."""
    k = len(sizes)
    start = tuple(range(k))
    if start == target:
        return [], 0.0
    if k <= SEARCH_MAX_DIMS:
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
                nc = cost + _move_cost(sizes, state, move, isz, budget, threads)
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
        total += _move_cost(sizes, state, move, isz, budget, threads)
        path.append(move)
        state = _apply(state, move)
    return path, total


def _split_variants(sizes: tuple[int, ...], order: tuple[int, ...]):
    """The merged dims with one dim cut in two (a few cut points each): a cut lets a pass move
    long chunks and reorder small blocks (NHWC -> CHWN: chunks, a 3-D scratch reorder, chunks)."""
    if len(sizes) > 4:
        return
    for i, n in enumerate(sizes):
        divs = [t for t in _divisors(n) if 4 <= t <= n // 4]
        if not divs:
            continue
        picks = divs if len(divs) <= 24 else sorted({divs[round(j * (len(divs) - 1) / 15)] for j in range(16)})
        for t in picks:
            new_sizes = sizes[:i] + (n // t, t) + sizes[i + 1:]
            new_order = []
            for j in order:
                new_order += [j] if j < i else [i, i + 1] if j == i else [j + 1]
            yield new_sizes, tuple(new_order)


@lru_cache(maxsize=512)
def _plan_cached(sizes: tuple[int, ...], order: tuple[int, ...], isz: int, nbytes: int, threads: int) -> InplacePlan:
    budget = scratch_budget(nbytes)
    best = (sizes, order) + _search(sizes, order, isz, budget, threads)
    for variant in _split_variants(sizes, order):
        found = variant + _search(*variant, isz, budget, threads)
        if found[3] < best[3] - 0.05:
            best = found
    sizes_used, _, path, cost = best
    state = tuple(range(len(sizes_used)))
    passes = []
    for move in path:
        passes.append(_move_ops(sizes_used, state, move, isz, budget, threads)[0])
        state = _apply(state, move)
    scratch = max([op.workers * op.need for p in passes for op in p.ops + p.undo] or [0])
    return InplacePlan(tuple(passes), isz, nbytes, budget, sizes, order, scratch, cost)


# ---------------------------------------------------------------------------- layouts
def _layouts(shape: tuple[int, ...], src: Any, dst: Any, byte_sized: bool, dims: Mapping[str, int]) -> tuple[Layout, Layout]:
    """Both layouts (:func:`layouts.request.resolve`: convert's defaults, checks and messages),
    plus a flat ``x`` and the in-place limits (no pitch, no padding)."""
    return _request(shape, src, dst, byte_sized, dims)[0:2]


def _request(shape: tuple[int, ...], src: Any, dst: Any, byte_sized: bool, dims: Mapping[str, int]):
    if not isinstance(src, (str, Layout)) or not isinstance(dst, (str, Layout)):
        resolve(src, dst, shape)  # the wrong kind, worded as every entry does
    flat = len(shape) == 1
    if flat and isinstance(src, Layout) and shape != src.shape:
        if shape[0] != src.size:
            raise LayoutError(f"a flat x for {src!r} must hold {src.size} elements, got {shape[0]}")
        shape = src.shape
    elif flat and isinstance(src, str) and len(parse(src).dims) != 1:  # a flat buffer: every size from dims
        spec = parse(src)
        s = Layout(spec, **own_sizes(spec, dims))
        if s.size != shape[0]:
            raise LayoutError(f"a flat x for {s!r} must hold {s.size} elements, got {shape[0]}")
        shape = s.shape
    request = resolve(src, dst, shape, "u1" if byte_sized else None, **dims)
    s, d = request.src, request.dst
    for name, L in (("source", s), ("destination", d)):
        if L.pitch or L.align:
            raise LayoutError(f"the {name} layout {L!r} has pitched rows (pitch/align): its gaps make it a different "
                              f"size than the packed tensor; pitched layouts convert out of place only (ly.convert)")
    if s.has_padding:
        raise LayoutError(f"the source layout {s!r} holds {s.size - s.count} padding slots; in place, both layouts "
                          f"must be padding-free (convert it out of place with ly.convert)")
    if d.has_padding:
        padded = ", ".join(f"{a} padded to {n}" for a, n in d.padded_dims.items() if n != d.dims[a])
        raise LayoutError(f"the destination {d!r} needs {d.size} elements ({padded}), but x's buffer holds "
                          f"{s.size}: it would need {d.size - s.size} more elements; in place, every block must "
                          f"divide its axis (ly.convert pads into a new array)")
    return s, d, request


def plan_inplace(src: str | Layout, dst: str | Layout, shape: tuple[int, ...], dtype: Any, *,
                 threads: int | None = None, **dims: int) -> InplacePlan:
    """The plan :func:`convert_inplace` would run for an array of ``shape`` and ``dtype``.

    >>> p = plan_inplace("NCHW", "NHWC", (128, 64, 56, 56), "float32", threads=1)
    >>> [(q.B, q.dims, q.perm, q.method) for q in p.passes], p.scratch_bytes <= p.budget
    ([(128, (64, 3136, 1), (1, 0, 2), 'scratch')], True)
    """
    dt = np.dtype(dtype)
    shape = tuple(int(n) for n in shape)
    s, d = _layouts(shape, src, dst, dt.itemsize == 1, dims)
    return _plan_for(s, d, dt, threads)


def _plan_for(s: Layout, d: Layout, dt: np.dtype, threads: int | None) -> InplacePlan:
    from .kernels.pool import thread_count
    nth = thread_count(config.check_threads(threads) if threads is not None else config.get_threads())
    sizes, order = fine_dims(s, d)
    return _plan_cached(sizes, order, dt.itemsize, s.size * dt.itemsize, nth)


# ---------------------------------------------------------------------------- the public entry
def convert_inplace(x: np.ndarray, src: str | Layout, dst: str | Layout, *, threads: int | None = None,
                    **dims: int) -> np.ndarray:
    """Convert ``x`` from layout ``src`` to ``dst`` in its own memory; return the ``dst``-shaped view.

    Parameters
    ----------
    x : ndarray
        A writable, C-contiguous array in ``src``'s physical shape, or a flat (1-D, contiguous)
        buffer of the tensor's size (then every size comes from ``dims`` or a ``src`` Layout).
    src, dst : str or Layout
        Padding-free layouts of the same axes: any permutation, blocks that divide their axis
        (``NCHW`` <-> ``NCHW16c`` with ``C % 16 == 0``, ``NC1HWC0``). Pitched/aligned layouts
        and destinations that would need padding are refused (a ``LayoutError`` that says how
        many more elements the destination needs).
    threads : int, optional
        As in :func:`layouts.convert`; the result does not depend on it.
    **dims : int
        Sizes the shape cannot tell (``C0=``, or every axis for a flat ``x``).

    Returns
    -------
    ndarray
        A view of ``x``'s buffer with ``dst``'s physical shape (``np.shares_memory(result, x)``).
        ``x`` itself keeps its shape and now holds the bytes of the destination layout.

    Notes
    -----
    Extra memory: at most :func:`scratch_budget` (``max(1% of x.nbytes, 64 KiB)``), over all
    threads, allocated before the first write; :func:`plan_inplace` tells the passes and the
    exact scratch. The only exception is a ``ckg`` pass (an ``M x N`` transposition where
    neither side factors into pieces that fit; ``plan_inplace(...).passes`` shows its ``dims``),
    which needs one line of ``max(M, N)`` elements: then the bound is ``max(1% of x.nbytes,
    64 KiB) + max(M, N) * x.itemsize`` (``O(largest axis)`` for single axes; merged axes such as
    ``HW`` count as one, up to half the tensor for a ``2 x n`` transposition).

    Every argument is checked and all scratch allocated and kernels compiled before the first
    byte moves. Whatever stops the passes -- Ctrl-C, a signal handler that raises (``SystemExit``
    from a SIGTERM handler), ``MemoryError``, any exception -- ``x`` holds its source layout when
    the exception propagates: signals handled in Python are held to the end of a step
    (:mod:`layouts.signal_hold`) and what had moved is undone (:mod:`layouts.inplace_run`). One
    that arrives after the last pass finds the work done: ``x`` holds ``dst`` and the message
    says so.

    Examples
    --------
    >>> import numpy as np, layouts as ly
    >>> x = np.arange(2 * 32 * 3 * 3, dtype=np.int16).reshape(2, 32, 3, 3)
    >>> want = ly.convert(x, "NCHW", "NCHW16c")
    >>> y = ly.convert_inplace(x, "NCHW", "NCHW16c")
    >>> y.shape, np.array_equal(y, want), np.shares_memory(x, y)
    ((2, 2, 3, 3, 16), True, True)
    >>> ly.convert_inplace(np.zeros((1, 20, 2, 2)), "NCHW", "NCHW16c")
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: convert_inplace('NCHW' -> 'NCHW16c', x shape (1, 20, 2, 2)): the destination Layout('NCHW16c', N=1, C=20, H=2, W=2) needs 128 elements (C padded to 32), but x's buffer holds 80: it would need 48 more elements; in place, every block must divide its axis (ly.convert pads into a new array)
    """
    try:
        return _convert_inplace(x, src, dst, threads, dims)
    except LayoutError as err:
        raise reworded(err, "convert_inplace", src, dst, shape=getattr(x, "shape", None), label="x shape") from None


def _convert_inplace(x: Any, src: Any, dst: Any, threads: Any, dims: Mapping[str, int]) -> np.ndarray:
    if not isinstance(x, np.ndarray):
        raise LayoutTypeError(f"convert_inplace needs a numpy array to convert in its own memory, got {type(x).__name__} "
                        f"(use ly.convert for other inputs)")
    if x.dtype.hasobject:
        raise LayoutError(f"dtype {x.dtype} holds Python objects; in-place conversion moves numeric and bool data only")
    if x.dtype.itemsize == 0:
        raise LayoutError(f"x has dtype {x.dtype} of item size 0: there are no bytes to move")
    if not x.flags.writeable:
        raise LayoutError("x is read-only; convert_inplace writes into x's buffer (pass a writable array or use ly.convert)")
    if not x.flags.c_contiguous:
        raise LayoutError(f"x is not C-contiguous (strides {x.strides}); convert_inplace needs one packed buffer "
                          f"(np.ascontiguousarray(x) first, or ly.convert)")
    if threads is not None:
        config.check_threads(threads)
    s, d, request = _request(x.shape, src, dst, x.dtype.itemsize == 1, dims)
    if x.size == 0 or x.ndim == 0:
        return x.reshape(d.shape)
    plan = _plan_for(s, d, x.dtype, threads)
    warning = request.padding_warning(x.reshape(s.shape))  # convert's warning: a blocked source's padding read as data
    if warning:  # after every check, before the first write: a warning made an error leaves x untouched
        warnings.warn(f"convert_inplace({layout_name(src)} -> {layout_name(dst)}): {warning}", LayoutWarning,
                      stacklevel=3)
    if plan.passes:
        run_plan(x.reshape(-1).view(np.uint8), plan, SignalHold(), d.shape)
    return x.reshape(d.shape)


def run_plan(buf: np.ndarray, plan: InplacePlan, hold: SignalHold, dst_shape: tuple | None = None) -> None:
    """Run ``plan`` on the byte buffer ``buf`` (:func:`layouts.inplace_run.run_segments`): scratch
    allocated and kernels compiled first, signals held to step boundaries, what moved undone on
    any exception."""
    from .kernels.inplace import warm  # numba loads here
    scratch = np.empty(plan.scratch_bytes, np.uint8)
    warm(buf, plan)
    run_segments(buf, segments(plan), scratch, hold, dst_shape)
