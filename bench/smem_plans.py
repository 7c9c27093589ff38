"""``smem.layout_conversion`` on random 64 x 64 conversions, every plan a first one: plans a second.

    flock /tmp/layouts-bench.lock python bench/smem_plans.py [--pairs 120] [--rounds 5] [--profile]

The conversions (fixed seed) are those the oracle test against Triton's generated code draws
(``tests/test_smem_conversion.py``), on a 64 x 64 tensor: a source and a destination encoding of
the same warps (4 or 8), each a ``BlockedLayout``, an ``NVMMADistributedLayout`` (v2, or v3 with an
instruction 8..128 wide), a ``DotOperandLayout`` of either, or a ``SliceLayout`` of a 3-D blocked
layout; elements of 1, 2 or 4 bytes; sm_80 or sm_90. Pairs the encodings refuse on this shape are
redrawn. Each timed call is the whole user path -- both encodings made linear, the path decided and,
through shared memory, the shared layout searched -- with every ``lru_cache`` of ``layouts.smem``
cleared first (the tables that depend on the tile's shape alone too), so no plan is served from a
cache: a tool run once per conversion, or an autotuner meeting new pairs, sees these times. The goal of issue 55 is 100 plans a second; "x goal" is plans
per second / 100. Figures are medians of rounds, the pairs in a new order each round (the machine is
shared, so compare ratios measured side by side, not seconds). ``--profile`` prints where one round's
time goes (cProfile, the functions with the most cumulative time).
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import io
import os
import pstats
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
from _machine import describe, machine_info  # noqa: E402
from random_encodings import ENCODING_KINDS  # noqa: E402  (tests/: the oracle test's encodings)
from layouts import smem  # noqa: E402
from layouts.errors import LayoutError  # noqa: E402


def random_conversion(rng, shape=(64, 64)):
    """``(src, dst, shape, element_bytes, capability)``: two encodings of the same warps, as the oracle test draws them."""
    warps, element_bytes, capability = rng.choice([4, 8]), rng.choice([1, 2, 4]), rng.choice([80, 90])
    return rng.choice(ENCODING_KINDS)(rng, warps), rng.choice(ENCODING_KINDS)(rng, warps), shape, element_bytes, capability


def plan_caches():
    """Every ``lru_cache`` of the modules of ``layouts.smem`` (what a first plan must not use)."""
    import layouts.smem as package
    out = []
    for name, module in sorted(sys.modules.items()):
        if module is None or not (name == package.__name__ or name.startswith(package.__name__ + ".")):
            continue
        for value in vars(module).values():
            if isinstance(value, functools._lru_cache_wrapper) and value not in out:
                out.append(value)
    return out


def draw(count, seed=55, shape=(64, 64)):
    """``count`` conversions the encodings accept on ``shape``, with their paths (the first calls, untimed)."""
    rng = random.Random(seed)
    pairs = []
    while len(pairs) < count:
        src, dst, shape_, eb, cap = random_conversion(rng, shape)
        try:
            path = smem.layout_conversion(src, dst, shape_, element_bytes=eb, capability=cap).path
        except LayoutError:
            continue
        pairs.append((src, dst, shape_, eb, cap, path))
    return pairs


def first_plan(pair, caches):
    """Seconds of one ``layout_conversion`` with every plan cache cleared first."""
    src, dst, shape, eb, cap = pair[:5]
    for cache in caches:
        cache.cache_clear()
    t = time.perf_counter()
    smem.layout_conversion(src, dst, shape, element_bytes=eb, capability=cap)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=120)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=55)
    ap.add_argument("--profile", action="store_true", help="also print where one round's time goes (cProfile)")
    args = ap.parse_args()
    caches = plan_caches()
    pairs = draw(args.pairs, args.seed)
    shared = [i for i, p in enumerate(pairs) if p[5] == "shared memory"]
    order = list(range(len(pairs)))
    shuffle = random.Random(args.seed + 1)
    times = [[] for _ in pairs]
    for _ in range(args.rounds):
        shuffle.shuffle(order)
        for i in order:
            times[i].append(first_plan(pairs[i], caches))
    per_pair = [statistics.median(t) for t in times]
    rounds_all = [sum(t[r] for t in times) for r in range(args.rounds)]
    rounds_shared = [sum(times[i][r] for i in shared) for r in range(args.rounds)]
    for line in describe(machine_info()):
        print(line)
    print(f"{len(pairs)} random 64x64 conversions (seed {args.seed}), {len(shared)} through shared memory; "
          f"{args.rounds} rounds, medians; caches cleared before every call: {len(caches)} "
          f"({', '.join(c.__wrapped__.__qualname__ for c in caches)})")
    rate_all = len(pairs) / statistics.median(rounds_all)
    rate_shared = len(shared) / statistics.median(rounds_shared) if shared else float("nan")
    print(f"  every conversion       {rate_all:8.1f} plans/s   x goal (100/s) {rate_all / 100:5.2f}")
    print(f"  through shared memory  {rate_shared:8.1f} plans/s   x goal (100/s) {rate_shared / 100:5.2f}")
    print("  slowest pairs (median ms of the rounds):")
    for i in sorted(range(len(pairs)), key=lambda i: -per_pair[i])[:5]:
        src, dst, shape, eb, cap, path = pairs[i]
        print(f"    {1e3 * per_pair[i]:7.1f} ms  {eb} B sm_{cap}  {src!r} -> {dst!r}")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        for i in shared:
            first_plan(pairs[i], caches)
        profiler.disable()
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(30)
        print(text.getvalue())
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(25)
        print(text.getvalue())


if __name__ == "__main__":
    main()
