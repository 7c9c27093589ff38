"""What a small conversion's time is made of after other work (the matrix's 256x3x32x32 cells).

    flock /tmp/layouts-bench.lock python bench/in_cache.py [--shape 256x3x32x32] [--rounds 60]

A 256x3x32x32 uint8 tensor is 768 KiB: its conversion takes about 100 us, where the per-call work
in Python and the kind of stores both show. Each case is timed twice: after other work (before
each timed call a 16 MB ``np.copyto`` evicts L1 and L2, as other work in a pipeline, or the
matrix's other methods, does) and in a loop (each timed call the third in a row, its arrays in
cache). Interleaved per round in a shuffled order, each into an output of its own:

- ``convert``: ``layouts.convert(src, s, d, out=o, threads=1)``, as the matrix times it;
- ``kernels``: the kernel calls that same call makes (recorded once with
  :func:`layouts.kernels.pool.recorded`), made directly: ``convert - kernels`` is the call's work
  in Python after other work;
- ``plain`` and ``NT``: the call under the current profile and under one whose ``nt_min_bytes`` is
  below this output, so with non-temporal stores (the default keeps plain stores below half the
  L2, so that the output stays in cache for the next step);
- ``... + read``: both followed by a sum of the output, the next step's read;
- ``np.copyto`` and the non-temporal copy of the same bytes, and ``cv2.transposeND`` where
  OpenCV is installed (the matrix's fastest peer on these cells).

Medians, in microseconds.
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

import _limits           # noqa: E402  (bench/_limits.py: the non-temporal copy)
import _peers            # noqa: E402  (bench/_peers.py: the matrix's peers)
import run as matrix     # noqa: E402  (bench/run.py: the cases and their arrays)
import layouts as ly     # noqa: E402
from layouts.kernels import pool, profile  # noqa: E402

os.environ.setdefault("LAYOUTS_EAGER_KERNELS", "1")   # kernel speed from the first call; bench/first_call.py times the default

CASES = (("uint8", "NCHW-NHWC"), ("uint8", "NHWC-NCHW"), ("uint8", "NCHW-CHWN"), ("uint8", "CHWN-NCHW"))


def methods(shape, dtype, direction):
    """{name: callable} for one case, every output checked against numpy's."""
    s, d = matrix.check_direction(direction)
    a = matrix.case_arrays(shape, dtype, s, d, np.random.default_rng(0))
    src, like, want = a["src"], a["out_conv"], a["view"]
    plain = profile.current()
    nt = plain.replace(nt_min_bytes=min(plain.nt_min_bytes, like.nbytes // 2))
    out = {}
    runs = {}
    o = out["convert"] = ly.aligned_empty(like.shape, like.dtype)
    runs["convert"] = lambda o=o: ly.convert(src, s, d, out=o, threads=1)
    # the two kinds of stores each under a profile of its own, so that both pay for use_profile
    for name, prof in (("plain", plain), ("NT", nt)):
        o = out[name] = ly.aligned_empty(like.shape, like.dtype)

        def call(o=o, prof=prof):
            with profile.use_profile(prof):
                ly.convert(src, s, d, out=o, threads=1)
        runs[name] = call
    for name in ("convert", "plain", "NT"):
        for _ in range(3):             # planning, the record of the calls, then the replay
            runs[name]()
        o = out[name]
        assert np.array_equal(o.reshape(want.shape), want), (shape, dtype, direction, name)
    for name in ("plain", "NT"):
        o, call = out[name], runs[name]
        words = o.reshape(-1).view(np.uint8)[:o.nbytes // 8 * 8].view(np.uint64)    # a sum at memory speed
        runs[f"{name} + read"] = lambda call=call, words=words: (call(), words.sum())
    k = out["kernels"] = ly.aligned_empty(like.shape, like.dtype)
    ly.convert(src, s, d, out=k, threads=1)
    calls = pool.recorded(lambda: ly.convert(src, s, d, out=k, threads=1))
    assert calls, "the conversion made no kernel calls to time alone"
    k[...] = 0
    pool.replay(calls)
    assert np.array_equal(k.reshape(want.shape), want)
    # the calls hold k's and src's addresses, not the arrays: the lambda keeps both alive
    runs["kernels"] = lambda keep=(k, src): pool.replay(calls)
    copy_out = np.empty_like(src)
    runs["np.copyto"] = lambda: np.copyto(copy_out, src)
    runs["NT copy"] = _limits.bound(src)[0]
    own = matrix._aligned_like(a["out"])
    for name, (_, run) in _peers.make_peers(["cv2nd"], own, a["view"], a["src_nd"], a["perm"], (s, d), src).items():
        run()
        assert np.array_equal(own, a["view"]), name
        runs["cv2.transposeND"] = run
    return runs


def time_case(runs, rounds, after_other_work=True):
    """Medians in us of each of ``runs``: after a 16 MB copy (other work), or as the third of three
    calls in a row (a loop over the same arrays, all of them in cache)."""
    big = np.ones(16 << 20, np.uint8)
    other = np.empty_like(big)
    times = {k: [] for k in runs}
    order = list(runs)
    for _ in range(rounds):
        random.shuffle(order)
        for k in order:
            if after_other_work:
                np.copyto(other, big)      # L1 and L2 then hold none of this case's arrays
                time.sleep(0.0005)
            else:
                runs[k](), runs[k]()
            t0 = time.perf_counter()
            runs[k]()
            times[k].append(time.perf_counter() - t0)
    return {k: statistics.median(v) * 1e6 for k, v in times.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", default="256x3x32x32")
    ap.add_argument("--rounds", type=int, default=60)
    args = ap.parse_args(argv)
    shape = tuple(int(n) for n in args.shape.split("x"))
    for dtype, direction in CASES:
        runs = methods(shape, dtype, direction)
        for after_other_work in (True, False):
            m = time_case(runs, args.rounds, after_other_work)
            print(f"{args.shape} {dtype} {direction}, {'after other work' if after_other_work else 'in a loop'}: "
                  + ", ".join(f"{k} {v:.0f}" for k, v in m.items()), flush=True)
            print(f"    Python work {m['convert'] - m['kernels']:.0f} us of {m['convert']:.0f}; NT stores "
                  f"{m['NT'] - m['plain']:+.0f} us alone, {m['NT + read'] - m['plain + read']:+.0f} with the read",
                  flush=True)


if __name__ == "__main__":
    main()
