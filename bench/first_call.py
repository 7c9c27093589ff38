"""The first conversion in a new process, with numba's kernel cache warm.

    flock /tmp/layouts-bench.lock python bench/first_call.py [--runs 7]

Each run is a fresh Python process that imports numpy and layouts (timed: ``import``), makes
one conversion (``first``), then the same conversion again (``second``). Three ways, their
processes interleaved per run:

- ``default``: what a user gets: numpy's copies until the kernels pay for their load
  (:mod:`layouts.conversion.loading`);
- ``eager``: ``LAYOUTS_EAGER_KERNELS=1``, the kernels from the first call (numba's start-up in it);
- ``load_kernels()``: :func:`layouts.load_kernels` timed alone, before the first call.

Before the runs one process per case converts with the kernels, so their cache is warm (a cold
cache, the first compile, is ``bench/compile_time.py``'s). Medians over the runs, milliseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _machine import describe, machine_info  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CASES = [  # (shape, dtype, src, dst): a CIFAR batch both ways, an image batch, a blocked format
    ((256, 3, 32, 32), "float32", "NCHW", "NHWC"),
    ((256, 32, 32, 3), "uint8", "NHWC", "NCHW"),
    ((8, 3, 224, 224), "uint8", "NCHW", "NHWC"),
    ((32, 64, 56, 56), "float16", "NCHW", "NCHW16c"),
]

CODE = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import layouts as ly
t1 = time.perf_counter()
shape, dtype, s, d, load = json.loads(sys.argv[1])
x = (np.arange(np.prod(shape)) % 251).astype(dtype).reshape(shape)
t2 = time.perf_counter()
if load:
    ly.load_kernels()
t3 = time.perf_counter()
y = ly.convert(x, s, d)
t4 = time.perf_counter()
y = ly.convert(x, s, d)
t5 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load": t3 - t2, "first": t4 - t3, "second": t5 - t4,
                  "numba": "numba" in sys.modules}))
"""


def child(case, env_extra=None, load=False):
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("LAYOUTS_EAGER_KERNELS", None)
    env.update(env_extra or {})
    shape, dtype, s, d = case
    p = subprocess.run([sys.executable, "-c", CODE, json.dumps([shape, dtype, s, d, load])], env=env,
                       capture_output=True, text=True, timeout=600)
    if p.returncode:
        sys.exit(p.stderr[-3000:])
    return json.loads(p.stdout)


WAYS = {"default": ({}, False), "eager": ({"LAYOUTS_EAGER_KERNELS": "1"}, False), "load_kernels()": ({}, True)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7)
    a = ap.parse_args()
    print("\n".join(describe(machine_info())))
    for case in CASES:
        child(case, {"LAYOUTS_EAGER_KERNELS": "1"})        # the kernels' cache warm
    print("\n| case | way | import ms | load_kernels() ms | first convert ms | second ms | numba imported |")
    print("|---|---|---|---|---|---|---|")
    for case in CASES:
        got = {w: [] for w in WAYS}
        for _ in range(a.runs):
            for w, (env, load) in WAYS.items():
                got[w].append(child(case, env, load))
        shape, dtype, s, d = case
        name = f"{'x'.join(map(str, shape))} {dtype} {s}->{d}"
        for w, rs in got.items():
            med = {k: statistics.median(r[k] for r in rs) * 1e3 for k in ("import", "load", "first", "second")}
            print(f"| {name} | {w} | {med['import']:.0f} | {med['load']:.0f} | {med['first']:.1f} | "
                  f"{med['second']:.2f} | {'yes' if all(r['numba'] for r in rs) else 'no'} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
