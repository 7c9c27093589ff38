"""Does a call cost the same whatever came before it? Call histories on one conversion.

    python bench/histories.py                  # float32 NHWC -> NCHW, 256x3x32x32 (~1 min)
    python bench/histories.py --dtype uint8 --rounds 41

Each timed call follows 16 MiB of unrelated writes (what a loader's other work does to the
caches) and converts ``x`` into a preallocated ``out`` with ``ly.convert(..., threads=k)``; the
kernels are loaded first. Medians over the rounds, in microseconds, for each history:

- ``alone``: each thread setting (``None``, 1, 2) converting into an ``out`` of its own;
- ``alternating``: ``threads=None`` and ``threads=1`` taking turns on ONE shared ``out``;
- ``three shared``: ``None``, 1 and 2 taking turns on one shared ``out``;
- ``two outputs``: ``threads=1`` alternating between two ``out`` arrays.

All histories are interleaved round by round, so a slow stretch of the machine falls on each.

Issue 59's target: in ``alternating``, each setting within 15% of its time ``alone``.
"""

import argparse
import gc
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import _machine                  # noqa: E402


def main(argv=None):
    import layouts as ly
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--rounds", type=int, default=31)
    ap.add_argument("--set", default="", help="profile fields for the whole run, e.g. recent_write_us=0")
    a = ap.parse_args(argv)
    _machine.set_profile_fields(a.set)
    ly.load_kernels()
    rng = np.random.default_rng(0)
    x = rng.integers(0, 255, (256, 32, 32, 3)).astype(a.dtype)          # NHWC
    want = x.transpose(0, 3, 1, 2)
    junk, junk2 = np.ones(16 << 20, np.uint8), np.empty(16 << 20, np.uint8)

    def out():
        return ly.aligned_empty((256, 3, 32, 32), a.dtype)

    def timed(threads, o):
        np.copyto(junk2, junk)                   # other work
        t0 = time.perf_counter()
        ly.convert(x, "NHWC", "NCHW", out=o, threads=threads)
        return time.perf_counter() - t0

    def histories(named):
        """named: {history: [(label, threads, out)]}, each history's steps taken in turn, the
        histories interleaved round by round (so that a slow stretch of the machine falls on
        all of them alike); {history: {label: median us}}."""
        for steps in named.values():
            for _, k, o in steps:                 # first calls (compile, page faults) untimed
                ly.convert(x, "NHWC", "NCHW", out=o, threads=k)
                assert np.array_equal(o, want)
        times = {h: {label: [] for label, _, _ in steps} for h, steps in named.items()}
        gc.collect()
        gc.disable()
        try:
            for _ in range(a.rounds):
                for h, steps in named.items():
                    for label, k, o in steps:
                        times[h][label].append(timed(k, o))
        finally:
            gc.enable()
        return {h: {label: float(np.median(v)) * 1e6 for label, v in t.items()} for h, t in times.items()}

    info = _machine.machine_info()
    print(f"CPU: {info['cpu_model']} ({info.get('llvm_host_cpu', '?')}), {info['cores']} cores; {a.dtype} "
          f"256x32x32x3 NHWC -> 256x3x32x32 NCHW into a preallocated out, 16 MiB of other writes before each "
          f"call, medians of {a.rounds} rounds (us){'; profile ' + a.set if a.set else ''}\n")
    shared, shared3, o1, o2 = out(), out(), out(), out()
    found = histories({
        "alone": [("None", None, out()), ("1", 1, out()), ("2", 2, out())],
        "alternating": [("None", None, shared), ("1", 1, shared)],
        "three": [("None", None, shared3), ("1", 1, shared3), ("2", 2, shared3)],
        "two": [("1 into out A", 1, o1), ("1 into out B", 1, o2)]})
    alone, alternating, three, two = found["alone"], found["alternating"], found["three"], found["two"]
    print("| history | threads=None | threads=1 | threads=2 |")
    print("| --- | --- | --- | --- |")
    print(f"| alone (an out each) | {alone['None']:.0f} | {alone['1']:.0f} | {alone['2']:.0f} |")
    print(f"| alternating None / 1 on one out | {alternating['None']:.0f} | {alternating['1']:.0f} | - |")
    print(f"| None / 1 / 2 on one out | {three['None']:.0f} | {three['1']:.0f} | {three['2']:.0f} |")
    print(f"| threads=1 alternating two outs | - | {two['1 into out A']:.0f} / {two['1 into out B']:.0f} | - |")
    worst = max(alternating[k] / alone[k] for k in ("None", "1"))
    print(f"\nalternating / alone, worst of the two settings: {worst:.2f} (issue 59's target: <= 1.15)")


if __name__ == "__main__":
    main()
