"""Benchmark layout conversions: ours vs np.copyto and a non-temporal copy of the same bytes vs peers.

    python bench/run.py                  # the issue's matrix (84 cases), ours with 1 thread
    python bench/run.py --threads 1,2    # ours with 1 and 2 threads in the same rounds (~5 min, 2 cores)
    python bench/run.py --quick          # a smoke subset
    python bench/run.py --only 256x3x32x32 --dtypes float32 --dirs NCHW-CHWN --repeats 3
    python bench/run.py --all-shapes     # every shape of SHAPES + EXTRA_SHAPES

Per case (shape, dtype, direction) these methods run interleaved: one round calls each once,
in a shuffled order, and each figure is the median over the rounds; the first call of each
method (JIT compile, page faults) is made before the rounds and not timed, and each timed call
follows a short sleep (``--gap``) so that the previous method's worker threads stop spinning
(after a torch call, :data:`TORCH_SETTLE_S` more: libgomp's workers spin far longer):

- ``ours<k>``  ``layouts.convert(x, src, dst, out=out, threads=k)`` for each k of ``--threads``
  (the direct ``layouts.kernels.copy_into(out, view)`` when convert is missing or differs; the
  "path" column says which)
- ``converter`` ``c(src, out=out)`` for ``c = layouts.converter(src, dst, shape, dtype, threads=k)``
  made once per case, k the first thread count (unless ``--no-converter``)
- ``copyto``   ``np.copyto`` of the same bytes, contiguous to contiguous
- ``nt``       the same bytes copied with vector loads and non-temporal stores into a 64-byte
  aligned buffer (``bench/_limits.py``): the copy limit of one core out of cache
- peers (``bench/_peers.py``): numpy, torch 1 and 2 threads, cv2.transpose per 2-D block and as
  one call, cv2.transposeND; each into a preallocated output of its own

Ours and every peer write into outputs of their own, each 64-byte aligned (TVM requires it):
kernels that stream whole cache lines run up to 1.6x faster into such an output than into numpy's
16-byte aligned arrays, so an alignment for the peers alone would compare them on other buffers
than ours. Each has its own because a method's time depends on the state in which the previous
writer left the output's cache lines: where the last-level cache holds the whole output, stores
into lines another method left dirty there run at another speed than into lines out of the cache
(non-temporal stores slower, plain ones faster), so in shuffled rounds over one shared output each
time depended on which method ran before it. With its own output each method is timed as a loop
converting into one buffer finds it: in the state its own previous call left.

Ratios are ``t(reference) / t(method)``, higher is better: "/copyto" and "/NT" for ours with the
first thread count (1 when listed), peers on the ``np.copyto`` scale, "ours/best" = t(fastest peer)
/ t(ours).  Before timing, every method's output is checked once against numpy's result (ours and
the peers against ``view``, the NT copy against its source); a peer that writes wrong bytes is
dropped and named.  Then the per-call overhead on a 1x3x4x4 tensor, the first call in a fresh
process (empty and warm numba cache), and each target of issue 10, met or missed.

The padding cells (blocked layouts whose block does not divide C) are ``bench/padded.py``'s: their
reference is the padded side's bytes, and their peers pad rather than transpose.

Results: markdown on stdout, ``bench/results/results.json``, ``bench/results/ratios.png``.
Run under the shared lock: ``flock /tmp/layouts-bench.lock python bench/run.py ...``.
"""

import argparse
import gc
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)
RESULTS = os.path.join(ROOT, "bench", "results")

import _limits                   # noqa: E402  (bench/ modules, found through HERE)
import _machine                  # noqa: E402
import _peers                    # noqa: E402

os.environ.setdefault("LAYOUTS_EAGER_KERNELS", "1")   # kernel speed from the first call; bench/first_call.py times the default

# the matrix; the large two are where the copy-ratio targets apply
SHAPES = [(128, 64, 56, 56), (64, 3, 224, 224), (256, 3, 32, 32), (32, 64, 56, 56)]
LARGE = [(128, 64, 56, 56), (64, 3, 224, 224)]
EXTRA_SHAPES = [(1, 3, 224, 224), (8, 256, 28, 28), (16, 512, 7, 7), (1, 1024, 64, 64),
                (32, 1, 112, 112), (16, 3, 112, 112)]
QUICK_SHAPES = [(256, 3, 32, 32), (128, 64, 56, 56)]
DTYPES = ["float32", "float16", "uint8"]
QUICK_DTYPES = ["float32", "uint8"]
DIRS = ["NCHW-NHWC", "NHWC-NCHW", "NCHW-CHWN", "CHWN-NCHW", "NHWC-CHWN", "CHWN-NHWC",
        "NCHW-NCHW16c", "NCHW16c-NCHW"]
QUICK_DIRS = ["NCHW-NHWC", "NHWC-NCHW", "NCHW-CHWN", "NHWC-CHWN", "NCHW-NCHW16c"]

# axis permutation from the NCHW-ordered logical tensor to each plain layout's memory order
PERM = {"NCHW": (0, 1, 2, 3), "NHWC": (0, 2, 3, 1), "CHWN": (1, 2, 3, 0)}
REFS = ("copyto", "nt")
#: seconds to wait after a torch call, untimed: its OpenMP workers (libgomp) spin for milliseconds
#: after a parallel region, on the core the next method's second thread needs
TORCH_SETTLE_S = 0.03


def label(shape):
    return "x".join(map(str, shape))


def check_direction(direction):
    s, _, d = direction.partition("-")
    if (s in PERM and d in PERM and s != d) or {s, d} == {"NCHW", "NCHW16c"}:
        return s, d
    raise SystemExit(f"--dirs: {direction!r} is not measured here; expected two different plain layouts "
                     f"among {tuple(PERM)} or NCHW-NCHW16c / NCHW16c-NCHW, e.g. NCHW-NHWC")


def case_arrays(shape, dtype, s, d, rng):
    """The arrays of one case, as a dict.

    src: contiguous input in layout s (real data); out: contiguous output in layout d, in the
    shape of ``view`` (a strided view of src with ``out[...] = view`` doing the conversion);
    out_conv: ``out`` in the shape ``layouts.convert`` writes; src_nd, perm: ``view ==
    src_nd.transpose(perm)`` with src_nd a contiguous reshape of src (for cv2.transposeND).
    """
    n, c, h, w = shape
    x = rng.integers(0, 255, size=shape, dtype=np.uint8).astype(dtype)    # real data, not the zero page
    if s == "NCHW16c" or d == "NCHW16c":
        cb = c // 16
        if s == "NCHW":                        # (n, cb, 16, h, w) -> (n, cb, h, w, 16)
            src = np.ascontiguousarray(x)
            src_nd, perm = src.reshape(n, cb, 16, h, w), (0, 1, 3, 4, 2)
            out = np.empty((n, cb, h, w, 16), dtype)
            out_conv = out
        else:                                  # (n, cb, h, w, 16) -> (n, cb, 16, h, w)
            src = np.ascontiguousarray(x.reshape(n, cb, 16, h, w).transpose(0, 1, 3, 4, 2))
            src_nd, perm = src, (0, 1, 4, 2, 3)
            out = np.empty((n, cb, 16, h, w), dtype)
            out_conv = out.reshape(n, c, h, w)
    else:
        src = np.ascontiguousarray(x.transpose(PERM[s]))
        inv = np.argsort(PERM[s])
        src_nd, perm = src, tuple(int(inv[p]) for p in PERM[d])
        out = np.empty(tuple(shape[p] for p in PERM[d]), dtype)
        out_conv = out
    return dict(src=src, out=out, out_conv=out_conv, view=src_nd.transpose(perm), src_nd=src_nd, perm=perm)


def _poison(a):
    a.view(np.uint8).fill(0xA5)


def ours_fn(a, s, d, k, use_convert):
    """(callable, path) for our conversion with k threads, checked once against numpy's view."""
    import layouts
    from layouts.kernels import copy_into
    out, out_conv, view, src = a["out"], a["out_conv"], a["view"], a["src"]
    if use_convert:
        try:
            _poison(out)
            r = layouts.convert(src, s, d, out=out_conv, threads=k)
            if np.may_share_memory(r, out) and np.array_equal(out, view):
                return (lambda: layouts.convert(src, s, d, out=out_conv, threads=k)), "convert"
            print(f"  note: convert {s}->{d} gave other bytes or another array; timing copy_into",
                  file=sys.stderr)
        except Exception as e:
            print(f"  note: convert {s}->{d} failed ({type(e).__name__}: {e}); timing copy_into",
                  file=sys.stderr)
    _poison(out)
    copy_into(out, view, threads=k)
    assert np.array_equal(out, view), ("copy_into gave wrong bytes", s, d, k)
    return (lambda: copy_into(out, view, threads=k)), "copy_into"


def converter_fn(a, out, s, d, k):
    """A call of ``layouts.converter`` made once for this case (None, with a note, where the
    library has no converters or it gives other bytes)."""
    import layouts
    if not hasattr(layouts, "converter"):
        return None
    src, view = a["src"], a["view"]
    target = out.reshape(a["out_conv"].shape)
    c = layouts.converter(s, d, src.shape, src.dtype, threads=k)
    _poison(out)
    c(src, out=target)
    if not np.array_equal(out, view):
        print(f"  note: converter {s}->{d} gave other bytes; not timed", file=sys.stderr)
        return None
    return lambda: c(src, out=target)


def _aligned_like(a: np.ndarray) -> np.ndarray:
    buf = np.empty(a.nbytes + 64, np.uint8)
    start = (-buf.ctypes.data) % 64
    return buf[start:start + a.nbytes].view(a.dtype).reshape(a.shape)


def bench_case(shape, dtype, direction, o):
    """Time one case; a dict of medians and ratios, or None when the case does not apply."""
    s, d = check_direction(direction)
    if "NCHW16c" in (s, d) and shape[1] % 16:
        return None
    rng = np.random.default_rng(0)
    a = case_arrays(shape, dtype, s, d, rng)
    src, view = a["src"], a["view"]
    nothing = lambda: None
    methods, first, paths = {}, {}, {}
    for k in o.threads:
        out = _aligned_like(a["out"])        # an output of its own for each method (see the module doc)
        t0 = time.perf_counter()
        f, paths[k] = ours_fn(dict(a, out=out, out_conv=out.reshape(a["out_conv"].shape)), s, d, k, o.use_convert)
        first[f"ours{k}"] = time.perf_counter() - t0      # includes any compile and the check
        methods[f"ours{k}"] = (nothing, f)
    path = "/".join(dict.fromkeys(paths.values()))
    if o.use_converter:
        conv_out = _aligned_like(a["out"])
        conv_run = converter_fn(a, conv_out, s, d, o.main_threads)
        if conv_run is not None:
            methods["converter"] = (nothing, conv_run)
    used = _threads_used(a, o.threads)
    cdst = np.empty_like(src)
    np.copyto(cdst, src)
    methods["copyto"] = (nothing, lambda: np.copyto(cdst, src))
    nt_run, nt_dst = _limits.bound(src, o.nt_width)
    _poison(nt_dst)
    nt_run()
    assert np.array_equal(nt_dst, src.reshape(-1).view(np.uint8)), "NT copy gave wrong bytes"
    methods["nt"] = (nothing, nt_run)
    peer_errors = {}
    made = {}
    for peer in o.peers:
        own = _aligned_like(a["out"])
        made.update((name, (own, run)) for name, run in
                    _peers.make_peers([peer], own, view, a["src_nd"], a["perm"], (s, d), src).items())
    for name, (own, (prep, run)) in made.items():
        try:
            prep()
            _poison(own)
            run()
            ok = np.array_equal(own, view)
        except Exception as e:
            ok, why = False, f"{type(e).__name__}: {e}"
        else:
            why = "wrong bytes"
        if ok:
            methods[name] = (prep, run)
        else:
            peer_errors[name] = why
            print(f"  note: peer {name} dropped for {label(shape)} {dtype} {direction}: {why}", file=sys.stderr)
    times = {m: [] for m in methods}
    order = list(methods)
    shuffle = random.Random(zlib.crc32(f"{label(shape)} {dtype} {direction}".encode())).shuffle
    budget = time.perf_counter() + o.budget
    gc.collect()
    gc.disable()
    try:
        for r in range(o.repeats):
            shuffle(order)
            for m in order:
                prep, run = methods[m]
                prep()
                if o.gap:
                    time.sleep(o.gap)
                t0 = time.perf_counter()
                run()
                times[m].append(time.perf_counter() - t0)
                if m.startswith("torch"):
                    time.sleep(TORCH_SETTLE_S)
            if r >= 2 and time.perf_counter() > budget:
                break
    finally:
        gc.enable()
    med = {m: float(np.median(v)) for m, v in times.items()}
    main = f"ours{o.main_threads}"
    t = med[main]
    res = dict(shape=list(shape), dtype=dtype, direction=direction, path=path, paths=paths, bytes=int(src.nbytes),
               rounds=len(times[main]), threads=o.threads, main_threads=o.main_threads,
               t={m: v for m, v in med.items()}, first_call_s=first,
               t_ours=t, t_copyto=med["copyto"], t_nt=med["nt"], gbps=2 * src.nbytes / t / 1e9,
               ratio=med["copyto"] / t, ratio_nt=med["nt"] / t, nt_over_copyto=med["copyto"] / med["nt"],
               peer_errors=peer_errors, loadavg_1min=_load(), threads_used=used)
    if "converter" in med:
        res["t_converter"] = med["converter"]
        res["ratio_converter"] = med["copyto"] / med["converter"]
    for k in o.threads:
        if k != o.main_threads:
            res[f"ratio_{k}T"] = med["copyto"] / med[f"ours{k}"]
            res[f"ratio_nt_{k}T"] = med["nt"] / med[f"ours{k}"]
            res[f"speedup_{k}T"] = t / med[f"ours{k}"]
    peers = {m: med[m] for m in methods if m in _peers.PEERS}
    for m in _peers.PEERS:
        res["r_" + m] = med["copyto"] / peers[m] if m in peers else None
        res["r_nt_" + m] = med["nt"] / peers[m] if m in peers else None
    if peers:
        best = min(peers, key=peers.get)
        res["best_peer"], res["vs_best_peer"] = best, peers[best] / t
        if "converter" in med:
            res["converter_vs_best_peer"] = peers[best] / med["converter"]
    else:
        res["best_peer"], res["vs_best_peer"] = None, None
    return res


def _threads_used(a, threads):
    """{k: threads the library really uses when asked for k} (its profile runs copies below a
    size on one thread), from ``layouts.kernels.explain_copy``; {} when that is missing."""
    try:
        from layouts.kernels import explain_copy
        return {k: explain_copy(a["out"], a["view"], threads=k).threads for k in threads}
    except Exception:       # an older layouts without explain_copy
        return {}


def _load():
    """The 1-minute load average (other processes on the 2 cores skew 2-thread figures most)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


# ------------------------------------------------------------------ per-call overhead

#: the converter's own cost (issue 56): a converter on 1x3x8x8 float32 against np.copyto of its bytes
CONVERTER_8 = "1x3x8x8: converter c(x, out=out)"
COPYTO_8 = "1x3x8x8: np.copyto of the same bytes, contiguous"


def overhead(calls=2000, samples=9):
    """Median microseconds per call on a 1x3x4x4 float32 tensor, NCHW->NHWC, out= preallocated
    (and a converter's on 1x3x8x8 against ``np.copyto`` of those bytes)."""
    import layouts
    x = np.random.default_rng(0).integers(0, 255, (1, 3, 4, 4)).astype(np.float32)
    out = np.empty((1, 4, 4, 3), np.float32)
    x8 = np.random.default_rng(1).integers(0, 255, (1, 3, 8, 8)).astype(np.float32)
    out8, same8 = np.empty((1, 8, 8, 3), np.float32), np.empty((1, 3, 8, 8), np.float32)
    fns = {
        "convert(x, 'NCHW', 'NHWC', out=out)": lambda: layouts.convert(x, "NCHW", "NHWC", out=out),
        "convert(..., out=out, threads=1)": lambda: layouts.convert(x, "NCHW", "NHWC", out=out, threads=1),
        "convert(x, 'NCHW', 'NHWC') (allocates)": lambda: layouts.convert(x, "NCHW", "NHWC"),
        "np.copyto(out, x.transpose(0, 2, 3, 1))": lambda: np.copyto(out, x.transpose(0, 2, 3, 1)),
    }
    if hasattr(layouts, "converter"):
        c4 = layouts.converter("NCHW", "NHWC", x.shape, x.dtype)
        c8 = layouts.converter("NCHW", "NHWC", x8.shape, x8.dtype)
        fns["converter c(x, out=out)"] = lambda: c4(x, out=out)
        fns[CONVERTER_8] = lambda: c8(x8, out=out8)
        fns[COPYTO_8] = lambda: np.copyto(same8, x8)
    for f in fns.values():
        f()
    assert np.array_equal(layouts.convert(x, "NCHW", "NHWC", out=out), x.transpose(0, 2, 3, 1))
    ts = {k: [] for k in fns}
    gc.collect()
    gc.disable()
    try:
        for _ in range(samples):
            for k, f in fns.items():
                t0 = time.perf_counter()
                for _ in range(calls):
                    f()
                ts[k].append((time.perf_counter() - t0) / calls * 1e6)
    finally:
        gc.enable()
    return {k: dict(median_us=float(np.median(v)), min_us=float(min(v)), max_us=float(max(v)),
                    calls_per_sample=calls, samples=samples) for k, v in ts.items()}


# ------------------------------------------------------------------ cold start

COLD = r"""
import time, sys
t0 = time.perf_counter()
import numpy as np
sys.path.insert(0, {root!r})
import layouts.kernels as K
t1 = time.perf_counter()
import numba
t2 = time.perf_counter()
x = np.ones((2, 64, 32, 32), np.{dt})
buf = np.empty(x.nbytes + 64, np.uint8)      # out on a 64-byte boundary in every process, so that
at = (-buf.ctypes.data) % 64                 # the warm run takes the kernel the first one compiled
out = buf[at:at + x.nbytes].view(x.dtype).reshape(2, 32, 32, 64)
t3 = time.perf_counter()
K.copy_into(out, x.transpose(0, 2, 3, 1), threads=1)
t4 = time.perf_counter()
K.copy_into(out, x.transpose(0, 2, 3, 1), threads=1)
t5 = time.perf_counter()
print((t1 - t0) * 1e3, (t2 - t1) * 1e3, (t4 - t3) * 1e3, (t5 - t4) * 1e3)
"""


def cold_start(dtypes):
    """First copy_into (NCHW->NHWC, 2x64x32x32) in a fresh process: empty numba cache (compile),
    then warm cache; one subprocess each, per dtype. The output is 64-byte aligned in both: the
    tile variant can depend on its alignment, and another variant would compile in the warm run."""
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for dt in dtypes:
            code = COLD.format(root=ROOT, dt=dt)
            r = []
            for _ in range(2):
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


# ------------------------------------------------------------------ targets

COPY_TARGET = {4: 0.8, 2: 0.6, 1: 0.5}
NT_TARGET = {4: 0.7, 2: 0.5, 1: 0.4}
COLD_REF_S = {"first_call_warm_cache_ms": 0.4, "first_call_compile_ms": 1.0}   # the "today"
COLD_SLACK = 1.2


def _case_name(r):
    return f"{label(r['shape'])} {r['dtype']} {r['direction'].replace('-', '->')}"


def _worst(rows, key, cmp=min):
    rows = [r for r in rows if r.get(key) is not None]
    if not rows:
        return None, None
    r = cmp(rows, key=lambda r: r[key])
    return r[key], _case_name(r)


def targets(rows, ovh, cold, o):
    """[{target, value, case, status}] for each target of issue 10 (status met/missed/not measured)."""
    out = []

    def add(name, value, case, ok, note=""):
        status = "not measured" if value is None else ("met" if ok(value) else "missed")
        out.append(dict(target=name, value=value, case=case, status=status, note=note))

    one_t = o.main_threads == 1
    large = [r for r in rows if tuple(r["shape"]) in LARGE]
    for isz, dt in ((4, "float32"), (2, "float16"), (1, "uint8")):
        sel = [r for r in large if np.dtype(r["dtype"]).itemsize == isz] if one_t else []
        v, c = _worst(sel, "ratio")
        add(f"{isz}-byte, large, 1T: ours/np.copyto >= {COPY_TARGET[isz]} (worst)", v, c,
            lambda v, t=COPY_TARGET[isz]: v >= t)
    for isz in (4, 2, 1):
        sel = [r for r in large if np.dtype(r["dtype"]).itemsize == isz] if one_t else []
        v, c = _worst(sel, "ratio_nt")
        add(f"stretch: {isz}-byte, large, 1T: ours/NT copy >= {NT_TARGET[isz]} (worst)", v, c,
            lambda v, t=NT_TARGET[isz]: v >= t)
    v, c = _worst(large if one_t else [], "ratio_nt")
    add("large, 1T: ours >= 0.9 of the NT copy of the same bytes on every cell (worst; issue 56's limit in place "
        "of 1.5x HPTT)", v, c, lambda v: v >= 0.9)
    hptt = [dict(r, vs_hptt=r["ratio"] / r["r_hptt"]) for r in large if r.get("r_hptt")] if one_t else []
    v, c = _worst(hptt, "vs_hptt")
    if hptt:
        out.append(dict(target=f"large float32, 1T: t(HPTT) / t(ours), worst of {len(hptt)} (reported beside the "
                               "NT copy; no target)", value=v, case=c, status="info", note=""))
    v, c = _worst(rows, "vs_best_peer")
    add("ours/best peer >= 1.5 on every case (worst)", v, c, lambda v: v >= 1.5)
    vs = [r["vs_best_peer"] for r in rows if r.get("vs_best_peer")]
    g = math.exp(sum(map(math.log, vs)) / len(vs)) if vs else None
    add(f"geometric mean of ours/best peer >= 2 ({len(vs)} cases)", g, None, lambda v: v >= 2)
    has2 = o.main_threads == 1 and 2 in o.threads
    ran2 = [r for r in rows if r.get("threads_used", {}).get(2, 2) > 1]
    v, c = _worst(ran2, "speedup_2T") if has2 else (None, None)
    add(f"2 threads never slower than 1: t(1T)/t(2T) >= 1.0 (worst of the {len(ran2)} cases where 2 threads ran)",
        v, c, lambda v: v >= 1.0, "" if has2 else "run with --threads 1,2")
    same = [r for r in rows if r.get("threads_used", {}).get(2) == 1]
    if has2 and same:
        lo = min(r["speedup_2T"] for r in same)
        hi = max(r["speedup_2T"] for r in same)
        out.append(dict(target=f"noise floor: the {len(same)} cases where threads=2 ran on one thread "
                               "(below the profile's thread thresholds), the same code timed twice",
                        value=f"{lo:.2f}-{hi:.2f}", case=None, status="info", note=""))
    sel = [r for r in large if r["dtype"] == "float32"] if has2 else []
    v, c = _worst(sel, "speedup_2T")
    add("2 threads >= 1.6x 1 thread on large float32 (worst)", v, c, lambda v: v >= 1.6,
        "" if has2 else "run with --threads 1,2")
    k = "convert(x, 'NCHW', 'NHWC', out=out)"
    add("per-call overhead, 1x3x4x4 float32 NCHW->NHWC out=, <= 10 us", ovh[k]["median_us"] if ovh else None,
        None, lambda v: v <= 10)
    more = (ovh[CONVERTER_8]["median_us"] - ovh[COPYTO_8]["median_us"]) if ovh and CONVERTER_8 in ovh else None
    add("a converter's own cost, 1x3x8x8 float32 in a hot loop: <= 2 us more than np.copyto of its bytes",
        more, None, lambda v: v <= 2)
    conv = [r for r in rows if tuple(r["shape"]) == (256, 3, 32, 32) and r.get("converter_vs_best_peer")]
    v, c = _worst(conv, "converter_vs_best_peer")
    add(f"256x3x32x32 through a converter: >= 1x the fastest peer in every cell (worst of {len(conv)})", v, c,
        lambda v: v >= 1.0)
    for key, ref in COLD_REF_S.items():
        vals = [(c[key] / 1e3, dt) for dt, c in (cold or {}).items() if c.get(key) is not None]
        v, c = max(vals) if vals else (None, None)
        add(f"{key.replace('_ms', '').replace('_', ' ')} (fresh process) no regression: <= {ref} s "
            f"x {COLD_SLACK} (slowest dtype)", v, c, lambda v, ref=ref: v <= ref * COLD_SLACK)
    return out


# ------------------------------------------------------------------ output

def fmt(v, f="{:.2f}"):
    return "-" if v is None else v if isinstance(v, str) else f.format(v)


def table_header(o):
    extra = []
    for k in o.threads:
        if k != o.main_threads:
            extra += [f"{k}T/copyto", f"{k}T/{o.main_threads}T"]
    cols = (["shape", "dtype", "direction", "path", f"ours {o.main_threads}T ms", "GB/s", "/copyto", "/NT",
             "NT/copyto"] + extra + list(o.peers) + ["best peer", "ours/best"]
            + (["converter/copyto", "converter/best"] if o.use_converter else []))
    return "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols)


def table_row(r, o):
    cells = [label(r["shape"]), r["dtype"], r["direction"].replace("-", "->"), r["path"],
             f"{r['t_ours'] * 1e3:.3f}", f"{r['gbps']:.1f}", fmt(r["ratio"]), fmt(r["ratio_nt"]),
             fmt(r["nt_over_copyto"])]
    for k in o.threads:
        if k != o.main_threads:
            one = r.get("threads_used", {}).get(k) == 1          # the library ran it on one thread
            cells += [fmt(r[f"ratio_{k}T"]), fmt(r[f"speedup_{k}T"]) + ("*" if one else "")]
    cells += [fmt(r["r_" + p]) for p in o.peers]
    cells += [r["best_peer"] or "-", fmt(r["vs_best_peer"])]
    if o.use_converter:
        cells += [fmt(r.get("ratio_converter")), fmt(r.get("converter_vs_best_peer"))]
    return "| " + " | ".join(cells) + " |"


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("--quick", action="store_true", help="a smoke subset: 2 shapes, float32/uint8, 5 directions")
    ap.add_argument("--all-shapes", action="store_true", help="also the shapes of EXTRA_SHAPES")
    ap.add_argument("--only", default=None, help="substring of the shape label, e.g. 128x64 (any known shape)")
    ap.add_argument("--dtypes", default=None, help="comma list, default float32,float16,uint8")
    ap.add_argument("--dirs", default=None, help="comma list such as NCHW-NHWC,NCHW-NCHW16c")
    ap.add_argument("--repeats", type=int, default=None, help="rounds per case (default 7, --quick 5)")
    ap.add_argument("--budget", type=float, default=20.0, help="seconds per case after which rounds stop (>= 3)")
    ap.add_argument("--threads", default="1", help="our thread counts, comma list, e.g. 1,2 (default 1)")
    ap.add_argument("--peers", default="numpy,torch,cv2",
                    help=f"some of {_peers.PEERS}; torch, cv2 = all of theirs; tvm, openvino where installed, hptt where built")
    ap.add_argument("--gap", type=float, default=0.001,
                    help="seconds of sleep before each timed call, so that the thread pools of the previous "
                         "method (torch's OpenMP, numba's) stop spinning on the 2 cores (default 0.001)")
    ap.add_argument("--nt-width", type=int, default=64, choices=_limits.WIDTHS, help="bytes per NT store")
    ap.add_argument("--no-convert", action="store_true", help="time layouts.kernels.copy_into directly")
    ap.add_argument("--no-converter", action="store_true", help="leave out the converter column")
    ap.add_argument("--no-cold", action="store_true", help="skip the fresh-process first-call measurement")
    ap.add_argument("--no-overhead", action="store_true", help="skip the per-call overhead table")
    a = ap.parse_args(argv)
    try:
        th = [int(t) for t in a.threads.split(",")]
        assert th and all(t >= 1 for t in th)
    except (ValueError, AssertionError):
        ap.error(f"--threads: expected positive integers separated by commas, got {a.threads!r}")
    a.threads = list(dict.fromkeys(th))
    a.main_threads = 1 if 1 in a.threads else a.threads[0]
    try:
        a.peers = _peers.expand([p for p in a.peers.split(",") if p])
    except ValueError as e:
        ap.error(str(e))
    a.use_convert = not a.no_convert
    a.use_converter = not a.no_converter
    a.full_matrix = not (a.quick or a.all_shapes or a.only or a.dtypes or a.dirs)   # before the defaults fill in
    if a.only:
        a.shapes = [sh for sh in SHAPES + EXTRA_SHAPES + QUICK_SHAPES if a.only in label(sh)]
        a.shapes = list(dict.fromkeys(a.shapes))
        if not a.shapes:
            ap.error(f"--only {a.only!r} matches no shape of {[label(s) for s in SHAPES + EXTRA_SHAPES]}")
    else:
        a.shapes = QUICK_SHAPES if a.quick else SHAPES + (EXTRA_SHAPES if a.all_shapes else [])
    a.dtypes = a.dtypes.split(",") if a.dtypes else (QUICK_DTYPES if a.quick else DTYPES)
    for dt in a.dtypes:
        if dt not in DTYPES:
            ap.error(f"--dtypes: {dt!r} is not one of {DTYPES}")
    a.dirs = a.dirs.split(",") if a.dirs else (QUICK_DIRS if a.quick else DIRS)
    for dr in a.dirs:
        check_direction(dr)
    a.repeats = a.repeats or (5 if a.quick else 7)
    return a


def _slug(info: dict) -> str:
    """A file name for this CPU: its vendor-model words and llvmlite's CPU name, e.g.
    ``intel-xeon-processor-emeraldrapids``."""
    import re
    words = re.sub(r"\(r\)|\(tm\)|cpu|@.*", " ", info.get("cpu_model", "cpu").lower())
    return "-".join(re.findall(r"[a-z0-9]+", f"{words} {info.get('llvm_host_cpu', '')}"))[:80] or "cpu"


def main(argv=None):
    o = parse(argv)
    info = _machine.machine_info()
    t_start = time.time()
    print(f"# layouts kernels benchmark ({'quick' if o.quick else 'matrix'}), ours with threads "
          f"{','.join(map(str, o.threads))}, {o.repeats} interleaved rounds, medians\n")
    print("\n".join(_machine.describe(info)))
    print(f"- shared {info['cores']}-core machine (load average {fmt(_load())} at start): compare within "
          f"this run only; absolute GB/s move between runs, 2-thread figures most")
    print(f"- ratio = t(reference) / t(method), higher is better; /copyto: np.copyto of the same bytes; "
          f"/NT: a {o.nt_width}-byte non-temporal-store copy of them; peers on the np.copyto scale; "
          f"ours/best = t(fastest peer) / t(ours {o.main_threads}T); kT/1T marked * where the library ran "
          f"threads=k on one thread (below its profile's thread threshold): the same code timed twice\n")
    print(table_header(o), flush=True)
    rows = []
    for shape in o.shapes:
        for dt in o.dtypes:
            for dr in o.dirs:
                r = bench_case(shape, dt, dr, o)
                if r is not None:
                    rows.append(r)
                    print(table_row(r, o), flush=True)
    ovh = None if o.no_overhead else overhead()
    if ovh:
        print("\n| per-call overhead, 1x3x4x4 float32 NCHW->NHWC | median us/call | min-max us |")
        print("|---|---|---|")
        for k, v in ovh.items():
            print(f"| `{k}` | {v['median_us']:.2f} | {v['min_us']:.2f}-{v['max_us']:.2f} |")
    cold = None if o.no_cold else cold_start(o.dtypes)
    if cold:
        print("\n| dtype | import layouts.kernels ms | import numba ms | first call, empty cache (compile) ms "
              "| first call, warm cache ms | second call ms |")
        print("|---|---|---|---|---|---|")
        for dt, c in cold.items():
            print(f"| {dt} | {fmt(c['import_ms'], '{:.1f}')} | {fmt(c['numba_import_ms'], '{:.1f}')} "
                  f"| {fmt(c['first_call_compile_ms'], '{:.0f}')} | {fmt(c['first_call_warm_cache_ms'], '{:.1f}')} "
                  f"| {fmt(c['second_call_ms'], '{:.3f}')} |")
    tg = targets(rows, ovh, cold, o)
    print("\n## Targets (issue 10)\n\n| target | measured | case | status |\n|---|---|---|---|")
    for t in tg:
        print(f"| {t['target']} | {fmt(t['value'], '{:.3g}')} | {t['case'] or '-'} | {t['status']}"
              f"{' (' + t['note'] + ')' if t['note'] and t['status'] == 'not measured' else ''} |")
    print(f"\n{len(rows)} cases in {time.time() - t_start:.0f} s; load average at the end {fmt(_load())} "
          f"(per case in results.json)")
    os.makedirs(RESULTS, exist_ok=True)
    settings = dict(threads=o.threads, main_threads=o.main_threads, repeats=o.repeats, budget_s=o.budget,
                    gap_s=o.gap,
                    peers=o.peers, nt_width=o.nt_width, use_convert=o.use_convert, use_converter=o.use_converter)
    doc = dict(machine=info, settings=settings, cases=rows, overhead=ovh, cold=cold, targets=tg,
               argv=sys.argv[1:] if argv is None else list(argv),
               when=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(t_start)))
    # results.json is this run's; <cpu>.json (one per CPU model, kept in git) feeds the docs'
    # performance page: a full run of the default matrix replaces its CPU's file
    names = [os.path.join(RESULTS, "results.json")]
    if o.full_matrix:
        names.append(os.path.join(RESULTS, _slug(info) + ".json"))
    for name in names:
        with open(name, "w") as f:
            json.dump(doc, f, indent=1)
        print(f"wrote {os.path.relpath(name, ROOT)}")
    try:
        _plot(rows, o, os.path.join(RESULTS, "ratios.png"))
    except Exception as e:     # plotting is optional
        print("plot skipped:", e, file=sys.stderr)


def _plot(rows, o, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    if not rows:
        return
    labels = [f"{label(r['shape'])} {r['dtype'][0:3]} {r['direction']}" for r in rows]
    keys = [("ratio", f"ours {o.main_threads}T"), ("nt_over_copyto", "NT copy")]
    keys += [("r_" + p, p) for p in o.peers]
    fig, ax = plt.subplots(figsize=(10, max(3, 0.3 * len(rows) * len(keys) / 4)))
    y = np.arange(len(rows))
    hgt = 0.8 / len(keys)
    for k, (key, name) in enumerate(keys):
        ax.barh(y + k * hgt, [r.get(key) or 0 for r in rows], height=hgt, label=name)
    ax.set_yticks(y + 0.4, labels, fontsize=6)
    ax.axvline(1.0, color="k", lw=0.5)
    ax.set_xlabel("t(np.copyto same bytes) / t(method)  (higher is better)")
    ax.invert_yaxis()
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
