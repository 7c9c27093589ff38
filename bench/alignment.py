"""Conversions into an ``out`` on the 64-byte grid against one 16 bytes off it (numpy's own arrays).

    flock /tmp/layouts-bench.lock python bench/alignment.py [--only 64x3] [--dtypes float32] [--repeats 7]

For each case of the matrix (``bench/run.py``'s shapes, dtypes and directions) one run
interleaves, per round and in a shuffled order, ``layouts.convert(src, s, d, out=o, threads=1)``
into two outputs of their own: one from :func:`layouts.aligned_empty` and one whose first byte
lies 16 bytes past a line, where ``np.empty`` puts a large array. Each call follows a 1 ms sleep,
as in ``bench/run.py``; the first two calls into each output (planning, the planner's measuring)
are not timed. Prints the medians and ``t(off) / t(aligned)`` (above 1: the unaligned output is
slower), and the cases where that ratio is 1.15 or more.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import run as matrix     # noqa: E402  (bench/run.py: the cases and their arrays)
import layouts as ly     # noqa: E402  (found through run's path)

os.environ.setdefault("LAYOUTS_EAGER_KERNELS", "1")   # kernel speed from the first call; bench/first_call.py times the default

OFFSET = 16


def offset_like(a: np.ndarray, offset: int) -> np.ndarray:
    """An array of ``a``'s shape and dtype whose first byte is ``offset`` bytes past a 64-byte line."""
    raw = np.empty(a.nbytes + 128, np.uint8)
    start = (-raw.ctypes.data) % 64 + offset
    return raw[start:start + a.nbytes].view(a.dtype).reshape(a.shape)


def time_case(shape, dtype, direction, repeats):
    s, d = matrix.check_direction(direction)
    if "NCHW16c" in (s, d) and shape[1] % 16:
        return None
    a = matrix.case_arrays(shape, dtype, s, d, np.random.default_rng(0))
    src, like, want = a["src"], a["out_conv"], a["view"]
    outs = {"aligned": ly.aligned_empty(like.shape, like.dtype), "off": offset_like(like, OFFSET)}
    for out in outs.values():
        for _ in range(2):
            ly.convert(src, s, d, out=out, threads=1)
        assert np.array_equal(out.reshape(want.shape), want), (shape, dtype, direction)
    times = {k: [] for k in outs}
    order = list(outs)
    for _ in range(repeats):
        random.shuffle(order)
        for k in order:
            time.sleep(0.001)
            t0 = time.perf_counter()
            ly.convert(src, s, d, out=outs[k], threads=1)
            times[k].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="substring of the shape label, e.g. 64x3")
    ap.add_argument("--dtypes", default=",".join(matrix.DTYPES))
    ap.add_argument("--dirs", default=",".join(matrix.DIRS))
    ap.add_argument("--repeats", type=int, default=7)
    o = ap.parse_args(argv)
    slow = []
    print(f"ours (1 thread) into an out {OFFSET} bytes off the 64-byte grid, against an aligned one")
    for shape in matrix.SHAPES:
        if o.only and o.only not in matrix.label(shape):
            continue
        for dtype in o.dtypes.split(","):
            for direction in o.dirs.split(","):
                m = time_case(shape, dtype, direction, o.repeats)
                if m is None:
                    continue
                r = m["off"] / m["aligned"]
                print(f"{matrix.label(shape):13s} {dtype:8s} {direction:13s} aligned {m['aligned'] * 1e3:8.3f} ms"
                      f"  off {m['off'] * 1e3:8.3f} ms  {r:.2f}", flush=True)
                if r >= 1.15:
                    slow.append((matrix.label(shape), dtype, direction, r))
    print(f"{len(slow)} cases 1.15x or more slower off the grid: "
          + ", ".join(f"{s} {t} {d} {r:.2f}" for s, t, d, r in slow))


if __name__ == "__main__":
    main()
