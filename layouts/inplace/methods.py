"""The in-place strategies: how one batched transposition is done in bounded memory.

The engine dialect of :mod:`layouts.kernels.registry`, for transpositions in place: a
:class:`Transposition` (``B`` batches of ``M x N`` elements of ``e`` bytes, a scratch budget,
threads) is offered to each strategy of :data:`STRATEGIES` in order; the first that accepts
returns its named ops (:class:`Op`, the kernel call patterns :mod:`layouts.kernels.jit.inplace`
runs) and cost, and each one before it says why it declined (:func:`explain`). Every constant
is a field of :class:`InplaceTuning`, read from the profile's ``inplace_*`` fields.

``scratch``  the ``M x N`` blocks of a few batches fit the scratch budget: copy them out and
             transpose them back with :func:`layouts.kernels.copy_into`;
``square``   ``M == N``: swap mirrored tiles, no scratch;
``chunks``   long elements: follow the cycles of ``i -> i*M mod (MN-1)`` over whole chunks;
``split``    ``N = N1 * t`` (or ``M = M1 * s``): a chunk pass, then a scratch pass (Gustavson-style);
``ckg``      Catanzaro-Keller-Garland, with ``max(M, N)`` elements of scratch: always fits.

>>> c, declined = choose_with_reasons(Transposition(128, 64, 3136, 4, 1 << 20, 1))
>>> c.method, [op.method for op in c.ops], declined
('scratch', ['scratch'], [])
>>> c, declined = choose_with_reasons(Transposition(1, 3, 100003, 4, 65536, 1))
>>> c.method, [name for name, _ in declined]
('ckg', ['scratch', 'square', 'chunks', 'split'])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

__all__ = ["Op", "Transposition", "MethodChoice", "InplaceStrategy", "STRATEGIES", "InplaceTuning", "tuning",
           "scratch_budget", "scratch_op", "chunk_op", "choose", "choose_with_reasons", "explain"]

#: The default scratch floor (the profile's ``inplace_min_budget``: small tensors may use this
#: much even when it is above 1% of them).
MIN_BUDGET = 64 << 10
#: The default shortest chunk moved by cycle-following (the profile's ``inplace_chunk_min``).
CHUNK_MIN = 16
#: The default number of merged dims up to which the pass order is searched exhaustively.
SEARCH_MAX_DIMS = 6


@dataclass(frozen=True)
class InplaceTuning:
    """The in-place planner's constants, read from the :class:`~layouts.kernels.machine.profile.MachineProfile`
    (its ``inplace_*`` fields; costs there in thousandths of a memcpy of the tensor)."""

    min_budget: int = MIN_BUDGET
    chunk_min: int = CHUNK_MIN
    slack: int = 8 << 10
    pad: int = 192
    search_max_dims: int = SEARCH_MAX_DIMS
    cost_scratch: float = 2.5
    cost_square: float = 2.0
    cost_ckg: float = 8.0
    cost_reorder: float = 3.0
    #: (shortest chunk bytes, cost) for cycle-following, longest first
    chunk_costs: tuple = ((4096, 1.1), (2048, 1.2), (1024, 1.5), (256, 2.4), (0, 3.5))
    #: (row stride multiple, penalty) of a scratch reorder whose rows share cache sets
    alias_penalties: tuple = ((4096, 1.0), (2048, 0.3))

    @classmethod
    def of(cls, profile: Any) -> "InplaceTuning":
        g = lambda name, default: getattr(profile, name, default)  # noqa: E731 - a profile without the block
        k = lambda name, default: g(name, round(default * 1000)) / 1000  # noqa: E731
        d = cls()
        return cls(g("inplace_min_budget", d.min_budget), g("inplace_chunk_min", d.chunk_min),
                   g("inplace_slack", d.slack), g("inplace_pad", d.pad), g("inplace_search_max_dims", d.search_max_dims),
                   k("inplace_cost_scratch", d.cost_scratch), k("inplace_cost_square", d.cost_square),
                   k("inplace_cost_ckg", d.cost_ckg), k("inplace_cost_reorder", d.cost_reorder),
                   ((4096, k("inplace_chunk_cost_4k", 1.1)), (2048, k("inplace_chunk_cost_2k", 1.2)),
                    (1024, k("inplace_chunk_cost_1k", 1.5)), (256, k("inplace_chunk_cost_256", 2.4)),
                    (0, k("inplace_chunk_cost_short", 3.5))),
                   ((4096, k("inplace_alias_penalty_4k", 1.0)), (2048, k("inplace_alias_penalty_2k", 0.3))))


def tuning() -> InplaceTuning:
    """The in-place constants of the active profile (:func:`layouts.kernels.machine.profile.current`)."""
    from ..kernels.machine.profile import current
    return _tuning_of(current())


@lru_cache(maxsize=16)
def _tuning_of(profile: Any) -> InplaceTuning:
    return InplaceTuning.of(profile)


def scratch_budget(nbytes: int, tu: InplaceTuning | None = None) -> int:
    """Extra bytes a conversion of an ``nbytes`` tensor may use: ``max(nbytes // 100, 64 KiB)``
    (the floor is the profile's ``inplace_min_budget``).

    >>> scratch_budget(128 * 64 * 56 * 56 * 4)
    1027604
    """
    return max(int(nbytes) // 100, (tu or tuning()).min_budget)


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
class Transposition:
    """What an in-place strategy is offered: ``B`` batches of ``M x N`` elements of ``e`` bytes,
    ``budget`` bytes of scratch over all workers, up to ``threads`` workers."""

    B: int
    M: int
    N: int
    e: int
    budget: int
    threads: int


@dataclass(frozen=True)
class MethodChoice:
    """A strategy's answer: its ``method``, the ``ops`` that run it, its ``cost`` (in passes of
    about memcpy cost) and ``why`` it fits."""

    method: str
    ops: tuple
    cost: float
    why: str


@dataclass(frozen=True)
class InplaceStrategy:
    name: str
    handles: str
    tunables: tuple[str, ...]
    consider: Callable[[Transposition, "InplaceTuning"], "MethodChoice | str"]


@lru_cache(maxsize=4096)
def divisors(n: int) -> tuple[int, ...]:
    small, large = [], []
    k = 1
    while k * k <= n:
        if n % k == 0:
            small.append(k)
            if k * k != n:
                large.append(n // k)
        k += 1
    return tuple(small + large[::-1])


def _slack(budget: int, tu: InplaceTuning) -> int:
    return min(tu.slack, budget // 8)


def _scratch_room(W: int, dims: tuple[int, ...], e: int, slack: int) -> int:
    """Bytes of a worker's budget ``W`` a scratch copy may fill: copy_into's own temporaries
    (its small-C path buffers up to the copy's size, its byte-grouped path 512 KiB) and the
    call's Python objects (a few KiB) must fit beside it."""
    if e <= 8 and any(n in (2, 3, 4) for n in dims):
        return W // 2 - slack
    return (W - (1 << 20) if W >= 24 << 20 else W) - slack


def _bits(n: int) -> int:
    return (n + 7) // 8


def chunk_cost(e: int, tu: InplaceTuning) -> float:
    """Whole-chunk cycles cost about a memcpy from 4 KiB chunks, more as chunks shorten (random lines)."""
    for shortest, cost in tu.chunk_costs:
        if e >= shortest:
            return cost
    return tu.chunk_costs[-1][1]


def scratch_op(B: int, dims: tuple[int, ...], perm: tuple[int, ...], e: int, budget: int, threads: int,
               tu: InplaceTuning | None = None) -> Op | None:
    """``B`` blocks of ``dims`` reordered to ``perm`` through a scratch copy, if a block fits."""
    tu = tu or tuning()
    blk = math.prod(dims) * e
    for workers in range(max(1, min(threads, B)), 0, -1):
        room = _scratch_room(budget // workers, dims, e, _slack(budget, tu)) - tu.pad
        if blk <= room:
            g = max(1, min(room // blk, -(-B // workers)))
            return Op("scratch", B, dims, perm, e, workers, g, g * blk + tu.pad)
    return None



def chunk_op(B: int, M: int, N: int, e: int, budget: int, threads: int, tu: InplaceTuning) -> Op | None:
    """Cycle-following over ``B`` batches of ``M x N`` chunks of ``e`` bytes, if the chunks are long
    enough and a visited bit per chunk fits."""
    need = _bits(M * N) + e + tu.pad
    if e < tu.chunk_min:
        return None
    workers = max(1, min(threads, B, budget // need))
    return Op("chunks", B, (M, N), (1, 0), e, workers, 1, need) if need <= budget - _slack(budget, tu) else None


def _scratch(t: Transposition, tu: InplaceTuning) -> "MethodChoice | str":
    op = scratch_op(t.B, (t.M, t.N), (1, 0), t.e, t.budget, t.threads, tu)
    if op is None:
        return f"one {t.M} x {t.N} block of {t.M * t.N * t.e} bytes does not fit the scratch budget of {t.budget}"
    return MethodChoice("scratch", (op,), tu.cost_scratch, f"{op.group} block(s) per copy fit the scratch, "
                                                           f"{op.workers} worker(s)")


def _square(t: Transposition, tu: InplaceTuning) -> "MethodChoice | str":
    if t.M != t.N:
        return f"M != N ({t.M} x {t.N})"
    op = Op("square", t.B, (t.M, t.N), (1, 0), t.e, max(1, min(t.threads, t.B)), 1, 0)
    return MethodChoice("square", (op,), tu.cost_square, "M == N: mirrored tiles swap, no scratch")


def _chunks(t: Transposition, tu: InplaceTuning) -> "MethodChoice | str":
    op = chunk_op(t.B, t.M, t.N, t.e, t.budget, t.threads, tu)
    if op is None:
        if t.e < tu.chunk_min:
            return f"elements of {t.e} bytes are shorter than inplace_chunk_min={tu.chunk_min}"
        return f"a visited bit per element ({_bits(t.M * t.N)} bytes) does not fit the budget"
    return MethodChoice("chunks", (op,), chunk_cost(t.e, tu), f"chunks of {t.e} bytes follow their cycles")


def _split(t: Transposition, tu: InplaceTuning) -> "MethodChoice | str":
    B, M, N, e, budget, threads = t.B, t.M, t.N, t.e, t.budget, t.threads
    best = None
    for s in reversed(divisors(N)[1:-1]):  # N = N1 * s: chunks of s elements, then M x s blocks
        a = chunk_op(B, M, N // s, s * e, budget, threads, tu)
        b = scratch_op(B * (N // s), (M, s), (1, 0), e, budget, threads, tu)
        if a and b:
            best = (s * e, (a, b))
            break
    for s in reversed(divisors(M)[1:-1]):  # M = M1 * s: s x N blocks, then chunks of s elements
        a = scratch_op(B * (M // s), (s, N), (1, 0), e, budget, threads, tu)
        b = chunk_op(B, M // s, N, s * e, budget, threads, tu)
        if a and b:
            if best is None or s * e > best[0]:
                best = (s * e, (a, b))
            break
    if best is None:
        return "neither side factors into chunks and blocks that fit the budget"
    return MethodChoice("split", best[1], tu.cost_scratch + chunk_cost(best[0], tu),
                        f"chunks of {best[0]} bytes, then blocks that fit the scratch")


def _ckg(t: Transposition, tu: InplaceTuning) -> "MethodChoice | str":
    need = max(t.M, t.N) * t.e + tu.pad  # the kernel's one row/column buffer; its indices are closed-form
    op = Op("ckg", t.B, (t.M, t.N), (1, 0), t.e, max(1, min(t.threads, t.B, t.budget // need)), 1, need)
    return MethodChoice("ckg", (op,), tu.cost_ckg, f"one line of max(M, N) = {max(t.M, t.N)} elements always fits")


#: every in-place strategy, in the order they are offered a transposition
STRATEGIES: tuple[InplaceStrategy, ...] = (
    InplaceStrategy("scratch", "blocks that fit the scratch: copied out, transposed back", ("inplace_cost_scratch",),
                    _scratch),
    InplaceStrategy("square", "M == N: swap mirrored tiles", ("inplace_cost_square",), _square),
    InplaceStrategy("chunks", "long elements: cycle-following over whole chunks", ("inplace_chunk_min",), _chunks),
    InplaceStrategy("split", "a chunk pass and a scratch pass", ("inplace_chunk_min", "inplace_cost_scratch"), _split),
    InplaceStrategy("ckg", "Catanzaro-Keller-Garland with one line of scratch", ("inplace_cost_ckg",), _ckg),
)


def choose_with_reasons(t: Transposition, tu: InplaceTuning | None = None) -> tuple[MethodChoice, list[tuple[str, str]]]:
    """The first strategy that accepts ``t``, and (name, why not) of those before it."""
    tu = tu or tuning()
    declined = []
    for s in STRATEGIES:
        c = s.consider(t, tu)
        if isinstance(c, str):
            declined.append((s.name, c))
            continue
        return c, declined
    raise AssertionError("unreachable: ckg always accepts")


@lru_cache(maxsize=65536)
def choose(B: int, M: int, N: int, e: int, budget: int, threads: int,
           tu: InplaceTuning | None = None) -> tuple[str, tuple[Op, ...], float]:
    """How to transpose ``B`` batches of ``M x N`` elements of ``e`` bytes in ``budget`` bytes of
    scratch with up to ``threads`` workers: (method, ops, cost in passes of about memcpy cost)."""
    c, _ = choose_with_reasons(Transposition(B, M, N, e, budget, threads), tu or tuning())
    return c.method, c.ops, c.cost


def explain(t: Transposition, tu: InplaceTuning | None = None) -> str:
    """A few lines: the chosen method, its ops, and why each strategy before it declined.

    >>> print(explain(Transposition(1, 3, 100003, 4, 65536, 1)))
    ckg: one line of max(M, N) = 100003 elements always fits
      op ckg: 1 batch(es) of (3, 100003), 4-byte elements, 1 worker(s), 400204 bytes of scratch each
      declined scratch: one 3 x 100003 block of 1200036 bytes does not fit the scratch budget of 65536
      declined square: M != N (3 x 100003)
      declined chunks: elements of 4 bytes are shorter than inplace_chunk_min=16
      declined split: neither side factors into chunks and blocks that fit the budget
    """
    c, declined = choose_with_reasons(t, tu)
    out = [f"{c.method}: {c.why}"]
    for op in c.ops:
        out.append(f"  op {op.method}: {op.B} batch(es) of {op.dims}, {op.e}-byte elements, {op.workers} worker(s), "
                   f"{op.need} bytes of scratch each")
    out += [f"  declined {name}: {why}" for name, why in declined]
    return "\n".join(out)

