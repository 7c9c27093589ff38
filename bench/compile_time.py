"""First-ever compile and warm-cache first call of the kernels, per direction and dtype.

Each case runs in a fresh subprocess with a fresh NUMBA_CACHE_DIR.  numba's own one-time
start-up (CPU target init) is timed apart by compiling a trivial @njit function first;
"kernel" is the first copy_into of one direction beyond that.  Then the same case again
in a new process with the warm cache ("cold start": first call, cache loads only).

    python bench/compile_time.py [--dtypes uint8,float32] [--dirs NCHW-NHWC,...]
"""

import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CODE = r"""
import time, sys
sys.path.insert(0, {root!r})
import numpy as np
sys.path.insert(0, {bench!r})
from run import make_src, dst_and_view
t0 = time.perf_counter()
import numba
@numba.njit(cache=False)
def f(x):
    return x + 1
f(1)
t1 = time.perf_counter()
import layouts.kernels as K
shape = {shape}
src = make_src({s!r}, shape, np.{dt}, np.random.default_rng(0))
out, view, _ = dst_and_view(src, {s!r}, {d!r}, shape)
t2 = time.perf_counter()
K.copy_into(out, view, threads=1)
t3 = time.perf_counter()
assert np.array_equal(out, view)
print((t1 - t0) * 1e3, (t3 - t2) * 1e3)
"""

DIRS = ["NCHW-NHWC", "NHWC-NCHW", "NCHW-CHWN", "CHWN-NCHW", "NHWC-CHWN", "CHWN-NHWC",
        "NCHW-NCHW16c", "NCHW16c-NCHW"]


def one(code, env):
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if p.returncode:
        print(p.stderr[-2000:], file=sys.stderr)
        return None
    return [float(v) for v in p.stdout.split()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dtypes", default="float32,float16,uint8")
    ap.add_argument("--dirs", default=",".join(DIRS))
    ap.add_argument("--shape", default="4,64,20,20")
    a = ap.parse_args()
    shape = tuple(int(v) for v in a.shape.split(","))
    print("| dtype | direction | numba start-up ms | first compile ms | warm-cache first call ms |")
    print("|---|---|---|---|---|")
    for dt in a.dtypes.split(","):
        for di in a.dirs.split(","):
            s, d = di.split("-")
            code = CODE.format(root=ROOT, bench=os.path.join(ROOT, "bench"), shape=shape, s=s, d=d, dt=dt)
            with tempfile.TemporaryDirectory() as cache:
                env = dict(os.environ, NUMBA_CACHE_DIR=cache)
                r0 = one(code, env)
                r1 = one(code, env)
            print(f"| {dt} | {di} | {r0[0]:.0f} | {r0[1]:.0f} | {r1[1]:.0f} |" if r0 and r1 else f"| {dt} | {di} | fail |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
