"""layouts.cute's algebra against pycute (CUTLASS's pure-Python reference), on the same random layouts.

    flock /tmp/layouts-bench.lock python bench/cute_algebra.py [--n 10000] [--rounds 5]

pycute ships in CUTLASS's wheel: ``pip install --no-deps nvidia-cutlass==4.2.0.0``. For each
function, ``--n`` random inputs (seeded: the same every run) are built for both libraries before
timing; a round times ours over all of them, then pycute (the order alternates between rounds);
figures are medians over the rounds, in one process; each round times fresh layout objects, so
no cache a layout keeps of itself helps. Inputs either library refuses (a
divisibility condition) are dropped from both before timing, so both time the same work. Ratio =
pycute's time / ours (> 1: ours is faster).

Two rows time evaluation instead: ``L(i)`` for every ``i`` of one rank-3 layout of 4,096 elements
(``(16, (16, 16)):(1, (256, 16))``, one object, a Python loop as a user writes it), and all of its
offsets at once (``L.offsets()`` against pycute's loop, which has no such call).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from layouts import LayoutError, cute  # noqa: E402


def _shape(rng: random.Random, depth: int = 2):
    while True:
        s = _rand(rng, depth)
        if cute.size(s) <= 1024:
            return s


def _rand(rng, depth):
    if depth == 0 or rng.random() < 0.45:
        return rng.choice([1, 2, 3, 4, 6, 8])
    return tuple(_rand(rng, depth - 1) for _ in range(rng.randrange(1, 4)))


def _flat(t):
    return cute.flatten(t) if isinstance(t, tuple) else (t,)


def _like(shape, values):
    it = iter(values)

    def walk(s):
        return tuple(walk(e) for e in s) if isinstance(s, tuple) else next(it)
    return walk(shape)


def injective(rng):
    """A compact layout with its modes in a random order."""
    shape = _shape(rng)
    sizes = _flat(shape)
    order = list(range(len(sizes)))
    rng.shuffle(order)
    strides, cur = [0] * len(sizes), 1
    for k in order:
        strides[k] = cur
        cur *= sizes[k]
    return cute.Layout(shape, _like(shape, strides))


def tile_of(rng, a):
    n = cute.size(a)
    d = rng.choice([d for d in range(1, n + 1) if n % d == 0])
    rest = n // d
    return cute.Layout(d, rng.choice([s for s in range(1, rest + 1) if rest % s == 0]))


#: name -> (inputs from rng, ours, pycute's)
CASES = {
    "coalesce": (lambda r: (injective(r),), cute.coalesce, "coalesce"),
    "composition": (lambda r: (lambda a: (a, tile_of(r, a)))(injective(r)), cute.composition, "composition"),
    "complement": (lambda r: (injective(r),), cute.complement, "complement"),
    "right_inverse": (lambda r: (injective(r),), cute.right_inverse, "right_inverse"),
    "left_inverse": (lambda r: (injective(r),), cute.left_inverse, "left_inverse"),
    "logical_divide": (lambda r: (lambda a: (a, tile_of(r, a)))(injective(r)), cute.logical_divide, "logical_divide"),
    "logical_product": (lambda r: (injective(r), injective(r)), cute.logical_product, "logical_product"),
}


def _to_pycute(pycute, x):
    return pycute.Layout(x.shape, x.stride) if isinstance(x, cute.Layout) else x


def _fresh(x):
    return cute.Layout(x.shape, x.stride) if isinstance(x, cute.Layout) else x


def _usable(ours, theirs, ours_args, their_args) -> bool:
    try:
        ours(*ours_args)
        theirs(*their_args)
    except (LayoutError, AssertionError, ValueError, ZeroDivisionError, TypeError, IndexError):
        return False
    return True


def _time(fn, inputs) -> float:
    t = time.perf_counter()
    for args in inputs:
        fn(*args)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", default=None, help="comma-separated function names")
    args = ap.parse_args()
    try:
        import pycute
    except ImportError:
        sys.exit("pycute is missing: pip install --no-deps nvidia-cutlass==4.2.0.0")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _machine import describe, machine_info

    print("\n".join(describe(machine_info())))
    print(f"{args.n} random inputs per function (seeded), medians of {args.rounds} rounds, one process")
    print(f"{'function':<16} {'inputs':>6} {'ours ms':>9} {'pycute ms':>10} {'ratio':>6}")
    names = args.only.split(",") if args.only else list(CASES)
    for name in [n for n in names if n in CASES]:
        make, ours, theirs_name = CASES[name]
        theirs = getattr(pycute, theirs_name)
        rng = random.Random(zlib.crc32(name.encode()))
        pairs = []
        for _ in range(args.n):
            a = make(rng)
            b = tuple(_to_pycute(pycute, x) for x in a)
            if _usable(ours, theirs, a, b):
                pairs.append((a, b))
        t_ours, t_ref = [], []
        for r in range(args.rounds):
            # fresh objects each round (built outside the timing): no cache a layout keeps of itself
            # carries over from an earlier round, as none would for layouts met the first time
            mine = [tuple(_fresh(x) for x in a) for a, _ in pairs]
            refs = [tuple(_to_pycute(pycute, x) for x in a) for a, _ in pairs]
            if r % 2:
                t_ref.append(_time(theirs, refs))
                t_ours.append(_time(ours, mine))
            else:
                t_ours.append(_time(ours, mine))
                t_ref.append(_time(theirs, refs))
        o, p = statistics.median(t_ours), statistics.median(t_ref)
        print(f"{name:<16} {len(pairs):>6} {o * 1e3:>9.1f} {p * 1e3:>10.1f} {p / o:>6.2f}")
    if not args.only or "evaluate" in names:
        _evaluate(pycute, args.rounds)


def _evaluate(pycute, rounds: int) -> None:
    """``L(i)`` over every index of one layout, and all its offsets at once, ours against pycute."""
    shape, stride = (16, (16, 16)), (1, (256, 16))
    ours, theirs = cute.Layout(shape, stride), pycute.Layout(shape, stride)
    n = cute.size(ours)
    assert [ours(i) for i in range(n)] == [theirs(i) for i in range(n)]

    def loop(L):
        t = time.perf_counter()
        for i in range(n):
            L(i)
        return time.perf_counter() - t

    def table():
        t = time.perf_counter()
        ours.offsets()
        return time.perf_counter() - t
    t_ours, t_ref, t_table = [], [], []
    for r in range(rounds):
        if r % 2:
            t_ref.append(loop(theirs))
            t_ours.append(loop(ours))
        else:
            t_ours.append(loop(ours))
            t_ref.append(loop(theirs))
        t_table.append(table())
    o, p, tab = statistics.median(t_ours), statistics.median(t_ref), statistics.median(t_table)
    print(f"{'L(i), all i':<16} {n:>6} {o * 1e3:>9.2f} {p * 1e3:>10.2f} {p / o:>6.2f}")
    print(f"{'L.offsets()':<16} {n:>6} {tab * 1e3:>9.3f} {p * 1e3:>10.2f} {p / tab:>6.0f}")


if __name__ == "__main__":
    main()
