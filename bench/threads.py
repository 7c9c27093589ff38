"""Is a second thread ever slower than one, and is the default ever slower than the best count?

    python bench/threads.py                         # the 84-case matrix (~10 min on 2 cores)
    python bench/threads.py --only 256x3x32x32 --rounds 61

Issue 59's targets, judged with their uncertainty. For every case of ``bench/run.py``'s matrix
(its shapes, dtypes and directions; its arrays), these calls run interleaved, one round calling
each once in a shuffled order after a short sleep (the matrix's protocol), each into an ``out``
of its own: ``ly.convert(..., threads=k)`` for k = 1, 2 and None (the default), and threads=1 a
second time into another ``out`` -- the same code timed twice, the A/A ratio that says how far
this machine's noise alone moves a ratio.

For each ratio ``t(1) / t(k)`` (and ``t(best explicit) / t(None)``) the figure is the ratio of
medians over the rounds, with a 95% interval from resampling the rounds (bootstrap). A cell
*loses* when the whole interval lies below 0.95, *holds* when it lies at or above 0.95, and is
*undecided* otherwise. The planner's own word (``layouts.kernels.explain_copy``) says how many
threads a count really runs; a count run on one thread is the threads=1 code.

Output: a markdown table per case, then the counts of each verdict and the worst cells.
"""

import argparse
import os
import random
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import _machine                  # noqa: E402
import run as matrix             # noqa: E402  (bench/run.py: the cases and their arrays)

#: the calls of a round: (name, threads)
CALLS = (("1", 1), ("1b", 1), ("2", 2), ("None", None))
BAR = 0.95


def ratio_interval(num, den, rng, resamples=2000):
    """median(num) / median(den) and its 95% bootstrap interval, resampling rounds in pairs."""
    num, den = np.asarray(num), np.asarray(den)
    idx = rng.integers(0, len(num), size=(resamples, len(num)))
    boot = np.median(num[idx], axis=1) / np.median(den[idx], axis=1)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return float(np.median(num) / np.median(den)), float(lo), float(hi)


def verdict(lo, hi, bar=BAR):
    return "loses" if hi < bar else "holds" if lo >= bar else "undecided"


def time_case(shape, dtype, direction, rounds, gap):
    """{call name: [seconds per round]} and the threads each count really runs, or None."""
    import layouts as ly
    s, d = matrix.check_direction(direction)
    if "NCHW16c" in (s, d) and shape[1] % 16:
        return None
    a = matrix.case_arrays(shape, dtype, s, d, np.random.default_rng(0))
    src, want = a["src"], a["view"]
    outs = {}
    for name, k in CALLS:
        out = matrix._aligned_like(a["out_conv"])
        ly.convert(src, s, d, out=out, threads=k)
        assert np.array_equal(out.reshape(want.shape), want), (name, shape, dtype, direction)
        outs[name] = out
    used = matrix._threads_used(a, [1, 2, None])
    times = {name: [] for name, _ in CALLS}
    order = list(CALLS)
    for _ in range(rounds):
        random.shuffle(order)
        for name, k in order:
            out = outs[name]
            time.sleep(gap)
            t0 = time.perf_counter()
            ly.convert(src, s, d, out=out, threads=k)
            times[name].append(time.perf_counter() - t0)
    return times, used


def main(argv=None):
    import layouts as ly
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default=None, help="substring of the shape label, e.g. 256x3")
    ap.add_argument("--dtypes", default=",".join(matrix.DTYPES))
    ap.add_argument("--dirs", default=",".join(matrix.DIRS))
    ap.add_argument("--rounds", type=int, default=31)
    ap.add_argument("--gap", type=float, default=0.001, help="seconds slept before each timed call")
    a = ap.parse_args(argv)
    ly.load_kernels()
    random.seed(1)
    rng = np.random.default_rng(2)
    print("\n".join(_machine.describe(_machine.machine_info())))
    print(f"\n{a.rounds} rounds, ratios t(1)/t(k) (higher: k faster), 95% bootstrap intervals; bar {BAR}\n")
    print("| case | us t1 | threads run by 2 / None | A/A t1/t1b | t1/t2 | verdict | best/None | verdict |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    rows = []
    shapes = [sh for sh in matrix.SHAPES if a.only is None or a.only in matrix.label(sh)]
    for shape in shapes:
        for dtype in a.dtypes.split(","):
            for direction in a.dirs.split(","):
                got = time_case(shape, dtype, direction, a.rounds, a.gap)
                if got is None:
                    continue
                times, used = got
                t1 = times["1"]
                aa = ratio_interval(t1, times["1b"], rng)
                two = ratio_interval(t1, times["2"], rng)
                best = times["1"] if np.median(times["1"]) <= np.median(times["2"]) else times["2"]
                default = ratio_interval(best, times["None"], rng)
                row = dict(case=f"{matrix.label(shape)} {dtype} {direction}", t1=np.median(t1) * 1e6,
                           used=(used.get(2), used.get(None)), aa=aa, two=two, default=default,
                           v_two=verdict(two[1], two[2]), v_default=verdict(default[1], default[2]))
                rows.append(row)
                f = "{:.2f} [{:.2f}, {:.2f}]".format
                print(f"| {row['case']} | {row['t1']:.0f} | {row['used'][0]} / {row['used'][1]} | {f(*aa)} | "
                      f"{f(*two)} | {row['v_two']} | {f(*default)} | {row['v_default']} |", flush=True)
    for key, what in (("v_two", "threads=2 against threads=1"), ("v_default", "the default against the best count")):
        counts = {v: sum(r[key] == v for r in rows) for v in ("holds", "undecided", "loses")}
        print(f"\n{what}: " + ", ".join(f"{n} {v}" for v, n in counts.items()) + f" of {len(rows)} cells")
        worst = sorted(rows, key=lambda r: r["two" if key == "v_two" else "default"][2])[:5]
        for r in worst:
            lo_hi = r["two" if key == "v_two" else "default"]
            print(f"  {r['case']}: {lo_hi[0]:.2f} [{lo_hi[1]:.2f}, {lo_hi[2]:.2f}] (A/A {r['aa'][0]:.2f} "
                  f"[{r['aa'][1]:.2f}, {r['aa'][2]:.2f}]; threads run {r['used']})")


if __name__ == "__main__":
    main()
