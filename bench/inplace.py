"""In-place conversion against np.copyto of the same bytes and MKL's in-place transposition.

    flock /tmp/layouts-bench.lock env PYTHONPATH=. python bench/inplace.py [--repeats 7] [--threads 1]

For each dtype and conversion of a 128x64x56x56 tensor, one run interleaves, per repeat:
``np.copyto(work, x)`` (timed: the memcpy reference, and the refill of the buffer),
``ly.convert_inplace(work, ...)`` (timed), a refill, and ``mkl_?imatcopy`` doing the same
permutation as a loop of in-place transpositions (float32 only: MKL has no 1- or 2-byte
variant). Medians. Ratio = copyto time / conversion time (1.0 = memcpy speed). The first call
(numba loading or compiling the kernels) is timed apart. Then, per case, the extra memory of one
call: the tracemalloc peak (every scratch buffer is a numpy array) and the peak-RSS delta (Linux:
VmHWM after ``/proc/self/clear_refs`` minus VmRSS before), beside the tensor's size and the
documented bound ``max(1% of the tensor, 64 KiB)``.
"""

from __future__ import annotations

import argparse
import ctypes
import glob
import os
import platform
import sys
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import layouts as ly  # noqa: E402
from layouts import inplace as ip  # noqa: E402

os.environ.setdefault("LAYOUTS_EAGER_KERNELS", "1")   # kernel speed from the first call; bench/first_call.py times the default

SHAPES = {"NCHW": lambda N, C, H, W: (N, C, H, W), "NHWC": lambda N, C, H, W: (N, H, W, C),
          "CHWN": lambda N, C, H, W: (C, H, W, N), "NCHW16c": lambda N, C, H, W: (N, C // 16, H, W, 16)}
CASES = [("NCHW", "NHWC"), ("NHWC", "NCHW"), ("NCHW", "CHWN"), ("NHWC", "CHWN"), ("NCHW", "NCHW16c")]


def load_mkl():
    """MKL_Simatcopy from pip's mkl (libmkl_rt), one thread; None with the reason when absent."""
    paths = glob.glob(os.path.join(sys.prefix, "lib", "libmkl_rt.so*"))
    if not paths:
        return None, "mkl not installed (pip install mkl puts libmkl_rt.so in sys.prefix/lib)"
    try:
        lib = ctypes.CDLL(paths[0])
    except OSError as err:
        return None, f"libmkl_rt did not load: {err}"
    fn = lib.MKL_Simatcopy
    fn.restype = None
    fn.argtypes = [ctypes.c_char, ctypes.c_char, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_float,
                   ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t]
    lib.MKL_Set_Num_Threads(1)
    return fn, os.path.basename(paths[0])


def mkl_transposes(src, dst, N, C, H, W):
    """The conversion as (batch, rows, cols) in-place transpositions, in order (None: not one)."""
    P = H * W
    return {("NCHW", "NHWC"): [(N, C, P)], ("NHWC", "NCHW"): [(N, P, C)], ("NCHW", "CHWN"): [(1, N, C * P)],
            ("NHWC", "CHWN"): [(N, P, C), (1, N, C * P)], ("NCHW", "NCHW16c"): [(N * C // 16, 16, P)]}.get((src, dst))


def run_mkl(fn, buf, steps):
    addr = buf.ctypes.data
    for B, m, n in steps:
        for b in range(B):
            fn(b"R", b"T", m, n, 1.0, addr + 4 * b * m * n, n, m)


def rss_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1])
    return -1


def reset_peak_rss():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--dtypes", default="float32,float16,uint8")
    ap.add_argument("--shape", default="128,64,56,56", help="N,C,H,W")
    args = ap.parse_args()
    N, C, H, W = (int(v) for v in args.shape.split(","))
    mkl, mkl_note = load_mkl()
    print(f"# {platform.machine()} {platform.processor() or ''}, {os.cpu_count()} cpus, numpy {np.__version__}, "
          f"threads={args.threads}, repeats={args.repeats}, MKL: {mkl_note}")
    print(f"# tensor {N}x{C}x{H}x{W}; ratio = np.copyto time / time (1.0 = memcpy speed); medians, interleaved\n")
    rows = []
    for dname in args.dtypes.split(","):
        dt = np.dtype(dname)
        rng = np.random.default_rng(0)
        for src, dst in CASES:
            shape = SHAPES[src](N, C, H, W)
            x = rng.integers(0, 120, size=shape).astype(dt)
            work = np.empty_like(x)
            np.copyto(work, x)
            t0 = time.perf_counter()
            y = ly.convert_inplace(work, src, dst, threads=args.threads)
            first = time.perf_counter() - t0
            assert np.array_equal(y, ly.convert(x, src, dst)), (src, dst, dname)
            steps = mkl_transposes(src, dst, N, C, H, W) if mkl is not None and dt == np.float32 else None
            if steps:  # check the peer does the same permutation
                np.copyto(work, x)
                run_mkl(mkl, work, steps)
                assert np.array_equal(work.reshape(y.shape), y), ("mkl", src, dst)
            tc, ti, tm = [], [], []
            for _ in range(args.repeats):
                t0 = time.perf_counter(); np.copyto(work, x); tc.append(time.perf_counter() - t0)
                t0 = time.perf_counter(); ly.convert_inplace(work, src, dst, threads=args.threads)
                ti.append(time.perf_counter() - t0)
                if steps:
                    np.copyto(work, x)
                    t0 = time.perf_counter(); run_mkl(mkl, work, steps); tm.append(time.perf_counter() - t0)
            c, i = np.median(tc), np.median(ti)
            m = np.median(tm) if tm else None
            # memory of one call
            np.copyto(work, x)
            tracemalloc.start()
            base = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            ly.convert_inplace(work, src, dst, threads=args.threads)
            tpeak = tracemalloc.get_traced_memory()[1] - base
            tracemalloc.stop()
            np.copyto(work, x)
            ok = reset_peak_rss()
            before = rss_kb("VmRSS:")
            ly.convert_inplace(work, src, dst, threads=args.threads)
            rss = (rss_kb("VmHWM:") - before) * 1024 if ok else None
            plan = ip.plan_inplace(src, dst, shape, dt, threads=args.threads)
            rows.append((dname, f"{src}->{dst}", "+".join(p.method for p in plan.passes), i * 1e3, c * 1e3,
                         c / i, (c / m) if m else None, (m / i) if m else None, first, tpeak, rss,
                         x.nbytes, ip.scratch_budget(x.nbytes)))
            print(f"{dname:8s} {src}->{dst:8s} {rows[-1][2]:16s} inplace {i * 1e3:7.1f} ms  copyto {c * 1e3:6.1f} ms  "
                  f"ratio {c / i:.2f}" + (f"  mkl ratio {c / m:.2f} (ours {m / i:.2f}x mkl)" if m else "")
                  + f"  first call {first:.2f} s  tracemalloc {tpeak / 1e3:.0f} kB  rss {rss / 1e3 if rss is not None else float('nan'):.0f} kB"
                  f"  (tensor {x.nbytes / 1e6:.1f} MB, bound {ip.scratch_budget(x.nbytes) / 1e3:.0f} kB)", flush=True)
            del x, work, y
    print("\n| dtype | conversion | passes | ratio to np.copyto | MKL imatcopy ratio | ours / MKL | tracemalloc peak | peak RSS delta | tensor | bound |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        d, case, passes, i, c, ratio, mr, vs, first, tp, rss, nb, bound = r
        print(f"| {d} | {case} | {passes} | {ratio:.2f} | {mr:.2f} | {vs:.2f}x | " if mr else
              f"| {d} | {case} | {passes} | {ratio:.2f} | n/a | n/a | ", end="")
        print(f"{tp / 1e3:.0f} kB ({100 * tp / nb:.2f}%) | {rss / 1e3:.0f} kB | {nb / 1e6:.1f} MB | {bound / 1e3:.0f} kB |"
              if rss is not None else f"{tp / 1e3:.0f} kB | n/a | {nb / 1e6:.1f} MB | {bound / 1e3:.0f} kB |")


if __name__ == "__main__":
    main()
