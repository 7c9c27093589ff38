"""Benchmark layout conversions: ours vs np.copyto of the same bytes vs peers.

    python bench/run.py            # full matrix (a few minutes on 2 cores)
    python bench/run.py --quick    # a handful of cases
    python bench/run.py --only "128x64x56x56" --dtypes float32 --dirs NCHW-NHWC

Per case: our time (median), GB/s (bytes read + written), ratio = t(np.copyto of the
same bytes, contiguous) / t(ours), and each peer's ratio on the same scale:
numpy ``np.copyto(out, x.transpose(...))``, torch ``out.copy_(x.permute(...))`` with 2 and 1
threads, and a Python loop of ``cv2.transpose`` over the 2-D transposes of the plan.
All methods write into a preallocated output and are timed interleaved (one round =
every method once), medians over the rounds.  Ours runs with 1 thread unless --threads.

The public path ``layouts.convert(x, src, dst, out=...)`` is timed when it exists and
gives the same result as the direct ``layouts.kernels.copy_into`` call on the view;
otherwise the direct call is timed (the "path" column says which).

Results: a markdown table on stdout, ``bench/results/results.json`` and
``bench/results/ratios.png``; first-call compile and warm-cache cold start are measured
in subprocesses and reported apart.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
RESULTS = os.path.join(ROOT, "bench", "results")

SHAPES = [(1, 3, 224, 224), (32, 64, 56, 56), (8, 256, 28, 28), (64, 3, 224, 224), (16, 512, 7, 7),
          (1, 1024, 64, 64), (128, 64, 56, 56), (32, 1, 112, 112), (16, 3, 112, 112)]
QUICK_SHAPES = [(128, 64, 56, 56), (32, 64, 56, 56), (64, 3, 224, 224)]
DTYPES = ["float32", "float16", "uint8"]
DIRS = ["NCHW-NHWC", "NHWC-NCHW", "NCHW-CHWN", "CHWN-NCHW", "NHWC-CHWN", "CHWN-NHWC",
        "NCHW-NCHW16c", "NCHW16c-NCHW"]

# axis permutation from the NCHW-ordered logical tensor to each plain layout's memory order
PERM = {"NCHW": (0, 1, 2, 3), "NHWC": (0, 2, 3, 1), "CHWN": (1, 2, 3, 0)}


def make_src(layout, shape, dtype, rng):
    """A contiguous array holding an NCHW-shaped tensor in ``layout``."""
    n, c, h, w = shape
    x = rng.integers(0, 255, size=shape).astype(dtype)
    if layout == "NCHW16c":
        return np.ascontiguousarray(x.reshape(n, c // 16, 16, h, w).transpose(0, 1, 3, 4, 2))
    return np.ascontiguousarray(x.transpose(PERM[layout]))


def to_nchw_view(a, layout, shape):
    """A view of ``a`` (stored in ``layout``) indexed as NCHW (or as N,C/16,16,H,W)."""
    n, c, h, w = shape
    if layout == "NCHW16c":
        return a.transpose(0, 1, 4, 2, 3)
    inv = np.argsort(PERM[layout])
    return a.transpose(inv)


def dst_and_view(src, s, d, shape):
    """(out array in layout d, view of src with out's shape) such that out[...] = view."""
    n, c, h, w = shape
    if s == "NCHW16c" or d == "NCHW16c":
        if s == "NCHW16c":          # src (n, cb, h, w, 16) -> NCHW out (n, cb, 16, h, w)
            out = np.empty((n, c // 16, 16, h, w), src.dtype)
            return out, src.transpose(0, 1, 4, 2, 3), out.reshape(n, c, h, w)
        out = np.empty((n, c // 16, h, w, 16), src.dtype)
        v = src.reshape(n, c // 16, 16, h, w).transpose(0, 1, 3, 4, 2)
        return out, v, out
    nchw = to_nchw_view(src, s, shape)          # logical NCHW view of src
    out = np.empty(tuple(shape[p] for p in PERM[d]), src.dtype)
    return out, nchw.transpose(PERM[d]), out


# ------------------------------------------------------------------ peers

def cv2_loop(plan_src_view, out):
    """A callable doing out[...] = view with one cv2.transpose per 2-D transpose, or None."""
    try:
        import cv2
    except Exception:
        return None
    from layouts.kernels.plan import make_plan
    v = plan_src_view
    p = make_plan(out, v)
    if p.kind != "transpose" or p.sJ != 1 or p.dI != 1 or p.sI != p.nj or p.dJ != p.ni:
        return None
    dt = {1: np.uint8, 2: np.uint16, 4: np.float32, 8: np.float64}.get(v.dtype.itemsize)
    if dt is None:
        return None
    u = p.unit.itemsize
    s_flat = np.lib.stride_tricks.as_strided(v, (p.sext // v.itemsize,), (v.itemsize,)).view(dt)
    d_flat = np.lib.stride_tricks.as_strided(out, (p.dext // out.itemsize,), (out.itemsize,)).view(dt)
    scale = u // np.dtype(dt).itemsize if u >= np.dtype(dt).itemsize else 1
    if u != np.dtype(dt).itemsize:
        return None
    pairs = []
    for idx in np.ndindex(*[a[0] for a in p.batch]):
        do = sum(i * a[1] for i, a in zip(idx, p.batch)) * scale
        so = sum(i * a[2] for i, a in zip(idx, p.batch)) * scale
        pairs.append((s_flat[so:so + p.ni * p.nj].reshape(p.ni, p.nj),
                      d_flat[do:do + p.ni * p.nj].reshape(p.nj, p.ni)))

    def run():
        for a, b in pairs:
            cv2.transpose(a, b)
    return run


# ------------------------------------------------------------------ timing

def bench_case(shape, dtype, direction, repeats, threads, use_convert, peers):
    from layouts.kernels import copy_into
    s, d = direction.split("-")
    n, c, h, w = shape
    if ("16c" in direction) and c % 16:
        return None
    rng = np.random.default_rng(0)
    src = make_src(s, shape, dtype, rng)
    out, view, out_conv = dst_and_view(src, s, d, shape)
    nbytes = src.nbytes
    # memcpy baseline of the same bytes
    cdst = np.empty_like(src)
    methods = {}
    methods["copyto"] = lambda: np.copyto(cdst, src)
    path = "copy_into"
    conv = None
    if use_convert:
        conv = _convert_fn(src, s, d, shape, out_conv, threads)
        if conv is not None:
            path = "convert"
    if conv is not None:
        methods["ours"] = conv
    else:
        methods["ours"] = lambda: copy_into(out, view, threads=threads)
    out2 = np.empty_like(out)
    if "numpy" in peers:
        methods["numpy"] = lambda: np.copyto(out2, view)
    if "torch" in peers:
        try:
            import torch
            tv = torch.from_numpy(view)
            to = torch.from_numpy(out2)

            def tor(k):
                def f():
                    torch.set_num_threads(k)
                    to.copy_(tv)
                return f
            methods["torch2"] = tor(2)
            methods["torch1"] = tor(1)
        except Exception:
            pass
    if "cv2" in peers:
        f = cv2_loop(view, out2)
        if f is not None:
            methods["cv2"] = f
    # warm up + correctness
    for k, f in methods.items():
        f()
        if k == "ours":
            assert np.array_equal(out, view), (shape, dtype, direction)
    times = {k: [] for k in methods}
    budget = time.perf_counter() + 20.0
    for r in range(repeats):
        for k, f in methods.items():
            t0 = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - t0)
        if time.perf_counter() > budget and r >= 2:
            break
    med = {k: float(np.median(v)) for k, v in times.items()}
    res = dict(shape=list(shape), dtype=dtype, direction=direction, path=path, bytes=nbytes,
               t_ours=med["ours"], t_copyto=med["copyto"],
               gbps=2 * nbytes / med["ours"] / 1e9,
               ratio=med["copyto"] / med["ours"])
    for k in ("numpy", "torch2", "torch1", "cv2"):
        res["r_" + k] = med["copyto"] / med[k] if k in med else None
    best = max([res["r_" + k] for k in ("numpy", "torch2", "torch1", "cv2") if res["r_" + k]] or [0])
    res["vs_best_peer"] = res["ratio"] / best if best else None
    return res


def _convert_fn(src, s, d, shape, out, threads):
    try:
        from layouts.convert import convert
    except Exception:
        return None
    n, c, h, w = shape
    try:
        r = convert(src, s, d, out=out, threads=threads)
        ref0, v, ref = dst_and_view(src, s, d, shape)
        from layouts.kernels import copy_into
        copy_into(ref0, v)
        if r is not out and not np.shares_memory(r, out):
            return None
        if not np.array_equal(out, ref):
            return None
    except Exception:
        return None
    return lambda: convert(src, s, d, out=out, threads=threads)


COLD = r"""
import time, sys
t0 = time.perf_counter()
import numpy as np
sys.path.insert(0, {root!r})
import layouts.kernels as K
t1 = time.perf_counter()
import numba
t2 = time.perf_counter()
x = np.ones((2, 64, 32, 32), np.{dt}); out = np.empty((2, 32, 32, 64), np.{dt})
t3 = time.perf_counter()
K.copy_into(out, x.transpose(0, 2, 3, 1), threads=1)
t4 = time.perf_counter()
K.copy_into(out, x.transpose(0, 2, 3, 1), threads=1)
t5 = time.perf_counter()
print((t1 - t0) * 1e3, (t2 - t1) * 1e3, (t4 - t3) * 1e3, (t5 - t4) * 1e3)
"""


def cold_start(dtypes):
    """First call with an empty cache (compile) and then with a warm cache, in subprocesses."""
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for dt in dtypes:
            dtn = {"float16": "float16", "float32": "float32", "uint8": "uint8"}[dt]
            code = COLD.format(root=ROOT, dt=dtn)
            r = []
            for k in range(2):
                p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
                if p.returncode:
                    r.append(None)
                    print(p.stderr[-2000:], file=sys.stderr)
                    continue
                r.append([float(v) for v in p.stdout.split()])
            out[dt] = dict(import_ms=r[1][0] if r[1] else None, numba_import_ms=r[1][1] if r[1] else None,
                           first_call_compile_ms=r[0][2] if r[0] else None,
                           first_call_warm_cache_ms=r[1][2] if r[1] else None,
                           second_call_ms=r[1][3] if r[1] else None)
    return out


def fmt(v, f="{:.2f}"):
    return "-" if v is None else f.format(v)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default=None, help="substring of the shape label, e.g. 128x64")
    ap.add_argument("--dtypes", default=None)
    ap.add_argument("--dirs", default=None)
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--peers", default="numpy,torch,cv2")
    ap.add_argument("--no-convert", action="store_true")
    ap.add_argument("--no-cold", action="store_true")
    a = ap.parse_args(argv)
    shapes = QUICK_SHAPES if a.quick else SHAPES
    dtypes = a.dtypes.split(",") if a.dtypes else DTYPES
    dirs = a.dirs.split(",") if a.dirs else (["NCHW-NHWC", "NHWC-NCHW", "NCHW-CHWN", "NHWC-CHWN",
                                              "NCHW-NCHW16c", "NCHW16c-NCHW"] if a.quick else DIRS)
    repeats = a.repeats or (5 if a.quick else 7)
    peers = set(a.peers.split(",")) if a.peers else set()
    try:
        import torch
        torch.set_num_threads(2)
    except Exception:
        peers.discard("torch")
    rows = []
    print(f"# layouts kernels benchmark ({'quick' if a.quick else 'full'}), ours with threads={a.threads}; "
          f"ratio = t(np.copyto same bytes) / t(method), higher is better\n")
    hdr = ("| shape | dtype | direction | path | ours ms | GB/s | ratio | numpy | torch2 | torch1 | cv2 "
           "| ours/best peer |")
    print(hdr)
    print("|" + "---|" * (hdr.count("|") - 1))
    for shape in shapes:
        label = "x".join(map(str, shape))
        if a.only and a.only not in label:
            continue
        for dt in dtypes:
            for dr in dirs:
                r = bench_case(shape, dt, dr, repeats, a.threads, not a.no_convert, peers)
                if r is None:
                    continue
                rows.append(r)
                print(f"| {label} | {dt} | {dr.replace('-', '->')} | {r['path']} | {r['t_ours'] * 1e3:.3f} "
                      f"| {r['gbps']:.1f} | {r['ratio']:.2f} | {fmt(r['r_numpy'])} | {fmt(r['r_torch2'])} "
                      f"| {fmt(r['r_torch1'])} | {fmt(r['r_cv2'])} | {fmt(r['vs_best_peer'])} |", flush=True)
    cold = None if a.no_cold else cold_start(dtypes)
    if cold:
        print("\n| dtype | import layouts.kernels ms | import numba ms | first call, empty cache (compile) ms "
              "| first call, warm cache ms | second call ms |")
        print("|---|---|---|---|---|---|")
        for dt, c in cold.items():
            print(f"| {dt} | {fmt(c['import_ms'], '{:.1f}')} | {fmt(c['numba_import_ms'], '{:.1f}')} "
                  f"| {fmt(c['first_call_compile_ms'], '{:.0f}')} | {fmt(c['first_call_warm_cache_ms'], '{:.1f}')} "
                  f"| {fmt(c['second_call_ms'], '{:.3f}')} |")
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, "results.json"), "w") as f:
        json.dump(dict(cases=rows, cold=cold, argv=sys.argv[1:]), f, indent=1)
    try:
        _plot(rows, os.path.join(RESULTS, "ratios.png"))
    except Exception as e:     # plotting is optional
        print("plot skipped:", e, file=sys.stderr)


def _plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    if not rows:
        return
    labels = [f"{'x'.join(map(str, r['shape']))} {r['dtype'][0:3]} {r['direction']}" for r in rows]
    keys = [("ratio", "ours"), ("r_numpy", "numpy"), ("r_torch2", "torch 2T"), ("r_cv2", "cv2 loop")]
    fig, ax = plt.subplots(figsize=(10, max(3, 0.22 * len(rows))))
    y = np.arange(len(rows))
    hgt = 0.8 / len(keys)
    for k, (key, name) in enumerate(keys):
        ax.barh(y + k * hgt, [r[key] or 0 for r in rows], height=hgt, label=name)
    ax.set_yticks(y + 0.4, labels, fontsize=6)
    ax.axvline(1.0, color="k", lw=0.5)
    ax.set_xlabel("t(np.copyto same bytes) / t(method)  (higher is better)")
    ax.invert_yaxis()
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
