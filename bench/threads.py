"""Is a second thread ever slower than one, and is the default ever slower than the best count?

    python bench/threads.py                         # the 84-case matrix (~3 min on 2 cores)
    python bench/threads.py --only 256x3x32x32 --rounds 61 --blocks 5

Issue 59's targets, judged with their uncertainty. For every case of ``bench/run.py``'s matrix
(its shapes, dtypes and directions; its arrays), these calls run interleaved, one round calling
each once in a shuffled order after a short sleep (the matrix's protocol), each into an ``out``
of its own: ``ly.convert(..., threads=k)`` for k = 1, 2 and None (the default), and threads=1 a
second time into another ``out`` -- the same code timed twice, the A/A ratio that says how far
this machine's noise alone moves a ratio.

The rounds come in ``--blocks`` blocks, each with arrays allocated afresh: on a VM the same cell
can run 1.4x faster on two threads with one allocation and 0.9x with the next, each with a tight
interval over its own rounds, so a verdict must see more than one allocation. For each ratio
``t(1) / t(k)`` (and ``t(best explicit) / t(None)``) the figure is the ratio of medians over all
rounds, with a 95% interval from resampling blocks and then rounds within them (a cluster
bootstrap), and the range of the blocks' own ratios is printed beside it. A cell
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
    """median(num) / median(den) over all rounds and its 95% interval, ``num`` and ``den`` lists
    of blocks of per-round seconds (paired by round): blocks resampled, then rounds within each."""
    num, den = [np.asarray(b) for b in num], [np.asarray(b) for b in den]
    boot = np.empty(resamples)
    for r in range(resamples):
        picks = rng.integers(0, len(num), size=len(num))
        rows = [rng.integers(0, len(num[b]), size=len(num[b])) for b in picks]
        boot[r] = (np.median(np.concatenate([num[b][i] for b, i in zip(picks, rows)]))
                   / np.median(np.concatenate([den[b][i] for b, i in zip(picks, rows)])))
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return float(np.median(np.concatenate(num)) / np.median(np.concatenate(den))), float(lo), float(hi)


def block_range(num, den):
    """The least and largest of the blocks' own ratios of medians."""
    ratios = [np.median(n) / np.median(d) for n, d in zip(num, den)]
    return float(min(ratios)), float(max(ratios))


def verdict(lo, hi, bar=BAR):
    return "loses" if hi < bar else "holds" if lo >= bar else "undecided"


def time_case(shape, dtype, direction, rounds, gap, blocks):
    """{call name: [[seconds per round] per block]} and the threads each count really runs, or
    None where the case does not apply; each block on arrays of its own."""
    times = None
    for _ in range(blocks):
        got = _time_block(shape, dtype, direction, max(1, rounds // blocks), gap)
        if got is None:
            return None
        block, used = got
        times = {k: [] for k in block} if times is None else times
        for k, v in block.items():
            times[k].append(v)
    return times, used


def _time_block(shape, dtype, direction, rounds, gap):
    """One block: fresh arrays, ``rounds`` interleaved rounds."""
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
    ap.add_argument("--rounds", type=int, default=45, help="rounds per case, over all blocks")
    ap.add_argument("--blocks", type=int, default=3, help="allocations per case, each timed in rounds // blocks rounds")
    ap.add_argument("--gap", type=float, default=0.001, help="seconds slept before each timed call")
    a = ap.parse_args(argv)
    ly.load_kernels()
    random.seed(1)
    rng = np.random.default_rng(2)
    print("\n".join(_machine.describe(_machine.machine_info())))
    print(f"\n{a.rounds} rounds in {a.blocks} allocations, ratios t(1)/t(k) (higher: k faster), 95% cluster "
          f"bootstrap intervals, [least, largest] of the allocations' own ratios; bar {BAR}\n")
    print("| case | us t1 | threads run by 2 / None | A/A t1/t1b | t1/t2 | blocks | verdict | best/None | verdict |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    rows = []
    shapes = [sh for sh in matrix.SHAPES if a.only is None or a.only in matrix.label(sh)]
    for shape in shapes:
        for dtype in a.dtypes.split(","):
            for direction in a.dirs.split(","):
                got = time_case(shape, dtype, direction, a.rounds, a.gap, a.blocks)
                if got is None:
                    continue
                times, used = got
                t1 = times["1"]
                aa = ratio_interval(t1, times["1b"], rng)
                two = ratio_interval(t1, times["2"], rng)
                spread = block_range(t1, times["2"])
                flat = {k: np.concatenate(v) for k, v in times.items()}
                best = times["1"] if np.median(flat["1"]) <= np.median(flat["2"]) else times["2"]
                default = ratio_interval(best, times["None"], rng)
                row = dict(case=f"{matrix.label(shape)} {dtype} {direction}", t1=np.median(flat["1"]) * 1e6,
                           used=(used.get(2), used.get(None)), aa=aa, two=two, default=default,
                           v_two=verdict(two[1], two[2]), v_default=verdict(default[1], default[2]))
                rows.append(row)
                f = "{:.2f} [{:.2f}, {:.2f}]".format
                print(f"| {row['case']} | {row['t1']:.0f} | {row['used'][0]} / {row['used'][1]} | {f(*aa)} | "
                      f"{f(*two)} | {spread[0]:.2f}-{spread[1]:.2f} | {row['v_two']} | {f(*default)} | "
                      f"{row['v_default']} |", flush=True)
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
