"""Benchmark: blob_from_images against cv2.dnn.blobFromImages, numpy and torch.

HWC images -> NCHW float32 with mean subtraction, scaling and swapRB (the common
detector/classifier preprocessing), every method into a preallocated output where it can
(cv2 allocates its own). One interleaved run: each repeat calls every method once, in a shuffled order, so
drift and the other load of a shared machine hit all alike; medians of the repeats. Each method
is called twice in a row and the second call timed: its own inputs and output are as warm as in a
loop over frames, whatever ran before it (timing the first call instead measured mostly which
method ran after which: ours on 256 crops 0.80 right after torch, 1.87 right after itself).

Ratio = time of ``np.copyto`` of the float32 output (1 thread, preallocated, source filled) /
the method's time: 1.0 is as fast as copying the result once. Ours must be >= 0.5 on every case
with 1 thread; the table also says how far 2 threads get against 1.

Methods: cv2 ``dnn.blobFromImages``; numpy ``subtract``/``multiply`` into out (after
``np.stack`` for a list); torch ``copy_``/``sub_``/``mul_`` into out with 1 and 2 threads (after
``torch.stack`` for a list); ours with ``threads=1`` and ``threads=2`` (the automatic rules:
one thread below the profile's ``blob_thread_min_bytes`` of output, no more threads than idle cores), and a forced 2-thread
split (rules off) to show what the rules decline.

    flock /tmp/layouts-bench.lock python bench/preprocess.py [--repeats 31] [--markdown]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

#: (name, N, H, W, C, how the images are given)
CASES = [
    # the table
    ("256 crops 32x32x3, list", 256, 32, 32, 3, "list"),
    ("1 image 224x224x3", 1, 224, 224, 3, "list"),
    ("64 images 224x224x3, list", 64, 224, 224, 3, "list"),
    # our own
    ("256 crops of one frame (ROIs)", 256, 32, 32, 3, "crops"),
    ("64x224x224x3 as one array", 64, 224, 224, 3, "array"),
    ("8 images 224x224x3, list", 8, 224, 224, 3, "list"),
    ("1 frame 1080x1920x3", 1, 1080, 1920, 3, "list"),
    ("32 images 64x64x3, list", 32, 64, 64, 3, "list"),
    ("4 ROIs 300x300x3 (step > row)", 4, 300, 300, 3, "roi"),
    ("8 images 224x224x1", 8, 224, 224, 1, "list"),
    ("8 images 224x224x4", 8, 224, 224, 4, "list"),
]

METHODS = ["cv2", "numpy", "torch1", "torch2", "ours1", "ours2", "ours2f"]


def _images(N, H, W, C, how, rng):
    if how == "roi":  # cut from larger frames: rows are step > row apart
        big = rng.integers(0, 256, (N, H + 40, W + 60, C), dtype=np.uint8)
        return [b[20:20 + H, 30:30 + W] for b in big]
    if how == "crops":  # face/detection crops: views into one 1080p frame
        frame = rng.integers(0, 256, (1080, 1920, C), dtype=np.uint8)
        ys = rng.integers(0, 1080 - H, N)
        xs = rng.integers(0, 1920 - W, N)
        return [frame[y:y + H, x:x + W] for y, x in zip(ys, xs)]
    batch = rng.integers(0, 256, (N, H, W, C), dtype=np.uint8)
    return batch if how == "array" else list(batch)


def first_call_seconds():
    """(import of layouts + opencv interop, first blob_from_images call, of which numba's own
    import) in a fresh process, with the kernel in numba's disk cache (warmed by the caller)."""
    code = (
        "import time, sys; t0 = time.perf_counter()\n"
        "import numpy as np\n"
        "from layouts.interop.opencv import blob_from_images\n"
        "t1 = time.perf_counter()\n"
        "blob_from_images([np.zeros((2, 2, 3), np.uint8)], 1 / 255, mean=(1, 2, 3), swap_rb=True)\n"
        "t2 = time.perf_counter()\n"
        "print(t1 - t0, t2 - t1)\n")
    # numba's import alone, in another fresh process
    numba_code = ("import time; import numpy; t0 = time.perf_counter(); import numba\n"
                  "print(time.perf_counter() - t0)")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    runs = []
    for _ in range(3):
        a = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                           check=True).stdout.split()
        b = subprocess.run([sys.executable, "-c", numba_code], capture_output=True, text=True,
                           env=env, check=True).stdout.split()
        runs.append((float(a[0]), float(a[1]), float(b[0])))
    return tuple(float(np.median([r[k] for r in runs])) for k in range(3))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=31)
    ap.add_argument("--cases", default="", help="comma-separated case numbers (default: all)")
    ap.add_argument("--no-first-call", action="store_true")
    args = ap.parse_args(argv)

    # torch's OpenMP workers spin after each call by default: on a 2-core machine they would
    # take the core from whatever runs next in the interleaved loop (measured: ours 1 thread
    # 2.5x slower right after torch 2 threads). Passive waiting keeps each method to its own time.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import cv2
    import torch

    from layouts import kernels
    from layouts.interop.opencv import blob_from_images
    from layouts.interop.opencv import blob_kernel

    rng = np.random.default_rng(0)
    blob_from_images([np.zeros((2, 2, 3), np.uint8)], 1 / 255, mean=(1, 2, 3), swap_rb=True)
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo")
                if ln.startswith("model name")), "?")
    flags = open("/proc/cpuinfo").read()
    isa = "AVX-512" if " avx512f" in flags else ("AVX2" if " avx2" in flags else "no AVX2")
    print(f"machine: {cpu}, {os.cpu_count()} cpus, {isa}; load average "
          f"{os.getloadavg()[0]:.1f} (a shared machine: absolute times are noisy, compare "
          f"ratios of one run)")
    print(f"cv2 {cv2.__version__} (threads {cv2.getNumThreads()}), torch {torch.__version__}, "
          f"numpy {np.__version__}; ours: blob_thread_min_bytes {kernels.current().blob_thread_min_bytes}, "
          f"compiled list reading {'on' if blob_kernel.FAST else 'OFF'}")
    if not args.no_first_call:
        imp, first, nb = first_call_seconds()
        print(f"fresh process, kernel in numba's disk cache: import layouts.interop.opencv "
              f"{imp * 1e3:.0f} ms, first blob_from_images call {first * 1e3:.0f} ms "
              f"(numba's own import alone: {nb * 1e3:.0f} ms)")
    tiny = [np.zeros((1, 1, 3), np.uint8)]
    tout = np.empty((1, 3, 1, 1), np.float32)
    per_call = []
    for _ in range(2000):
        s = time.perf_counter()
        blob_from_images(tiny, 1 / 255, mean=(104, 117, 123), swap_rb=True, out=tout, threads=1)
        per_call.append(time.perf_counter() - s)
    print(f"per-call overhead (one 1x1x3 image, out=, 1 thread): "
          f"{np.median(per_call) * 1e6:.1f} us median, {np.min(per_call) * 1e6:.1f} us min")

    pick = [int(x) for x in args.cases.split(",") if x] or range(len(CASES))
    scale = 1 / 255
    rows = []
    for ci in pick:
        name, N, H, W, C, how = CASES[ci]
        imgs = _images(N, H, W, C, how, rng)
        swap = C >= 3
        mean = (104.0, 117.0, 123.0, 9.0)[:C] if C > 1 else 104.0
        perm = ([2, 1, 0, 3][:C] if swap else list(range(C)))
        m4 = np.float32(np.array(mean if C > 1 else [mean], np.float64))
        mc = m4[:, None, None]
        kc = np.float32(scale)
        out = np.empty((N, C, H, W), np.float32)
        ref_src = rng.standard_normal((N, C, H, W)).astype(np.float32)  # real data to copy
        cp_dst = np.empty_like(ref_src)
        outs = {k: np.empty((N, C, H, W), np.float32) for k in ("numpy", "torch1", "torch2")}
        t_out = {k: torch.from_numpy(outs[k]) for k in ("torch1", "torch2")}
        t_mean = torch.from_numpy(m4)[:, None, None]
        is_array = isinstance(imgs, np.ndarray)
        pidx = torch.tensor(perm)

        def f_numpy():
            x = imgs if is_array else np.stack(imgs)
            o = outs["numpy"]
            np.subtract(x[..., perm].transpose(0, 3, 1, 2), mc, out=o, dtype=np.float32)
            np.multiply(o, kc, out=o)

        def f_torch(k):
            def f():
                torch.set_num_threads(k)
                x = torch.from_numpy(imgs) if is_array else torch.stack(
                    [torch.from_numpy(np.ascontiguousarray(im)) if how == "roi" else
                     torch.from_numpy(im) for im in imgs])
                o = t_out[f"torch{k}"]
                o.copy_(x.permute(0, 3, 1, 2).index_select(1, pidx))
                o.sub_(t_mean).mul_(scale)
            return f

        split = kernels.current().replace(blob_thread_min_bytes=0, blob_load_aware=False)

        def forced_split():  # 2 threads whatever the size and the load (the automatic rules off)
            with kernels.use_profile(split):
                blob_from_images(imgs, scale, mean=mean, swap_rb=swap, out=out, threads=2)

        fns = {
            "copyto": lambda: np.copyto(cp_dst, ref_src),
            "cv2": lambda: cv2.dnn.blobFromImages(imgs if not is_array else list(imgs), scale,
                                                  None, mean, swap, False),
            "numpy": f_numpy,
            "torch1": f_torch(1),
            "torch2": f_torch(2),
            "ours1": lambda: blob_from_images(imgs, scale, mean=mean, swap_rb=swap, out=out,
                                              threads=1),
            "ours2": lambda: blob_from_images(imgs, scale, mean=mean, swap_rb=swap, out=out,
                                              threads=2),
            "ours2f": forced_split,
        }
        # exactness against cv2 (and the peers against it), before timing
        want = cv2.dnn.blobFromImages(imgs if not is_array else list(imgs), scale, None, mean,
                                      swap, False)
        for k in ("ours1", "numpy", "torch1"):
            fns[k]()
        exact = {"ours": bool(np.array_equal(out, want)),
                 "numpy": bool(np.array_equal(outs["numpy"], want)),
                 "torch": bool(np.array_equal(outs["torch1"], want))}
        for f in fns.values():  # warm
            f()
        times = {k: [] for k in fns}
        order = list(fns)
        for _ in range(args.repeats):
            rng.shuffle(order)  # a new order each repeat: no method always follows the same one
            for k in order:
                f = fns[k]
                f()  # each method times its second call in a row: its own data warm, as in a loop
                s = time.perf_counter()
                f()
                times[k].append(time.perf_counter() - s)
        torch.set_num_threads(1)
        med = {k: float(np.median(v)) for k, v in times.items()}
        rows.append((name, med, exact, out.nbytes))
        ratio = {k: med["copyto"] / med[k] for k in METHODS}
        print(f"{name:32s} copyto {med['copyto'] * 1e3:7.3f} ms | " + " ".join(
            f"{k} {ratio[k]:5.3f} ({med[k] * 1e3:.3f})" for k in METHODS)
            + f" | 2T/1T {med['ours1'] / med['ours2']:.2f}x, forced {med['ours1'] / med['ours2f']:.2f}x"
            f" | exact {exact} | load {os.getloadavg()[0]:.1f}", flush=True)

    print()
    print("| case (uint8 HWC -> NCHW float32, mean, scale, swapRB) | out MB | cv2 | numpy "
          "subtract/multiply into out | torch 1 thread | torch 2 threads | ours 1 thread | "
          "ours 2 threads | ours 2T / 1T | forced split 2T / 1T | ours == cv2 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, med, exact, nbytes in rows:
        r = {k: med["copyto"] / med[k] for k in METHODS}
        cells = [f"{r['cv2']:.3f} ({med['cv2'] * 1e3:.3f} ms)", f"{r['numpy']:.3f}",
                 f"{r['torch1']:.3f}", f"{r['torch2']:.3f}",
                 f"**{r['ours1']:.3f}** ({med['ours1'] * 1e3:.3f} ms)",
                 f"{r['ours2']:.3f} ({med['ours2'] * 1e3:.3f} ms)",
                 f"{med['ours1'] / med['ours2']:.2f}x", f"{med['ours1'] / med['ours2f']:.2f}x",
                 "yes" if exact["ours"] else "NO"]
        print(f"| {name} | {nbytes / 2**20:.1f} | " + " | ".join(cells) + " |")
    print("ratio = median time of np.copyto of the float32 output (1 thread) / median time of "
          "the method; ms in brackets; cv2/ours on the first case: "
          + (f"{rows[0][1]['cv2'] / rows[0][1]['ours1']:.1f}x" if rows else "-"))


if __name__ == "__main__":
    main()
