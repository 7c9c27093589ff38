"""``LinearLayout.apply`` over every input of a layout, against a numpy gather of a precomputed table.

    flock /tmp/layouts-bench.lock python bench/linear_apply.py [--rounds 15]

The layout is the 32x32 MMA v2 accumulator of one warp (Triton's MMAv2_32x32 test: register
5 bits, lane 5 bits -> dim0, dim1). The inputs are all 1024 (register, lane) pairs as two int64
arrays. The peers are numpy gathers of both outputs precomputed per flat input
``register + 32 * lane``: "table" computes that flat index from the two arrays, as a caller
holding (register, lane) must, then one ``np.take`` per out-dim; "take only" is the two takes
with the flat index precomputed too (the floor of any table lookup). Ours is ``L.apply`` on the
two arrays, its tables and kernel built before timing (the first call's cost is printed apart).
Rounds interleave the three; figures are medians. Ratio = the peer's time / ours (>= 1: as fast).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from layouts.linear import LinearLayout  # noqa: E402

MMA_32x32 = {"register": [[0, 1], [8, 0], [0, 8], [0, 16], [16, 0]],
             "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _time(fn, inner: int) -> float:
    t = time.perf_counter()
    for _ in range(inner):
        fn()
    return (time.perf_counter() - t) / inner


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--inner", type=int, default=2000)
    args = ap.parse_args()
    fresh = LinearLayout.from_bases(MMA_32x32, ["dim0", "dim1"])
    reg, lane = np.meshgrid(np.arange(32), np.arange(32), indexing="ij")
    reg, lane = reg.ravel().astype(np.int64), lane.ravel().astype(np.int64)
    t0 = time.perf_counter()
    first = fresh.apply({"register": reg, "lane": lane})
    first_s = time.perf_counter() - t0
    L = fresh
    flat = reg + 32 * lane
    table0, table1 = np.empty(1024, np.int64), np.empty(1024, np.int64)
    table0[flat], table1[flat] = first["dim0"], first["dim1"]
    for r, l, a, b in zip(reg[:64], lane[:64], first["dim0"][:64], first["dim1"][:64]):   # the point formula agrees
        assert L(register=int(r), lane=int(l)) == {"dim0": int(a), "dim1": int(b)}

    def ours():
        L.apply({"register": reg, "lane": lane})

    def table():
        f = reg + (lane << 5)
        np.take(table0, f), np.take(table1, f)

    def take_only():
        np.take(table0, flat), np.take(table1, flat)

    runs = [("ours", ours), ("table", table), ("take only", take_only)]
    results = {name: [] for name, _ in runs}
    for k in range(args.rounds):
        for name, fn in (runs if k % 2 == 0 else runs[::-1]):
            results[name].append(_time(fn, args.inner))
    med = {name: statistics.median(v) for name, v in results.items()}
    print(f"CPU: {_cpu()}  numpy {np.__version__}  load average {_load()}")
    print(f"first apply (tables built, numba kernel loaded or compiled): {first_s * 1e3:.1f} ms")
    print(f"apply over all 1024 inputs of the 32x32 MMA layout: ours {med['ours'] * 1e6:.2f} us")
    for name in ("table", "take only"):
        # the median of each round's ratio too: rounds run back to back, so a busy spell on a shared
        # machine moves both sides of one round's ratio alike
        per_round = statistics.median(p / o for p, o in zip(results[name], results["ours"]))
        print(f"  {name:9s} {med[name] * 1e6:.2f} us   ratio {med[name] / med['ours']:.2f}"
              f"   (median of per-round ratios {per_round:.2f})")


def _load() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


if __name__ == "__main__":
    main()
