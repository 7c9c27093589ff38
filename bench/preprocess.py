"""Benchmark: blob_from_images (one fused numba pass) against cv2.dnn.blobFromImages.

HWC uint8 images -> NCHW float32 with mean subtraction, scaling and swapRB, the common
detector/classifier preprocessing. Prints medians of interleaved repeats (ms), the first-call
(JIT) cost apart, and two ratios: cv2 time / ours (speed-up, target >= 5) and memcpy of the
output's bytes / ours (1.0 = as fast as copying the result once).

    python bench/preprocess.py [--repeats 15] [--threads 1]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

CASES = [  # (name, N, H, W, C, source view)
    ("8x224x224x3", 8, 224, 224, 3, "contiguous"),
    ("1x1080x1920x3", 1, 1080, 1920, 3, "contiguous"),
    ("32x64x64x3", 32, 64, 64, 3, "contiguous"),
    ("4x300x300x3 ROI", 4, 300, 300, 3, "roi"),
    ("8x224x224x1", 8, 224, 224, 1, "contiguous"),
    ("8x224x224x4", 8, 224, 224, 4, "contiguous"),
]


def _images(N, H, W, C, view, rng):
    if view == "roi":  # cut from larger frames: rows are step > row apart
        big = rng.integers(0, 256, (N, H + 40, W + 60, C), dtype=np.uint8)
        return [b[20:20 + H, 30:30 + W] for b in big]
    return list(rng.integers(0, 256, (N, H, W, C), dtype=np.uint8))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--threads", type=int, default=1, help="threads for ours (cv2 uses its own)")
    args = ap.parse_args(argv)

    import cv2

    from layouts.interop.opencv import blob_from_images

    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    blob_from_images([np.zeros((2, 2, 3), np.uint8)], 1 / 255, mean=(1, 2, 3), swap_rb=True)
    print(f"first call (numba JIT, C=3): {time.perf_counter() - t0:.2f} s; "
          f"cv2 {cv2.__version__}, cv2 threads {cv2.getNumThreads()}, ours threads {args.threads}")
    print(f"{'case':18s} {'cv2 ms':>8s} {'ours ms':>8s} {'memcpy ms':>9s} "
          f"{'cv2/ours':>8s} {'memcpy/ours':>11s}  max|diff|")
    for name, N, H, W, C, view in CASES:
        imgs = _images(N, H, W, C, view, rng)
        mean = (104.0, 117.0, 123.0, 0.0)[:C] if C > 1 else 104.0
        out = np.empty((N, C, H, W), np.float32)
        src_bytes = np.empty_like(out)
        blob_from_images(imgs, 1 / 255, mean=mean, swap_rb=C >= 3, out=out, threads=args.threads)
        ref = cv2.dnn.blobFromImages(imgs, 1 / 255, None, mean, C >= 3, False)
        diff = float(np.abs(ref - out).max())
        fns = {
            "cv2": lambda: cv2.dnn.blobFromImages(imgs, 1 / 255, None, mean, C >= 3, False),
            "ours": lambda: blob_from_images(imgs, 1 / 255, mean=mean, swap_rb=C >= 3, out=out,
                                             threads=args.threads),
            "memcpy": lambda: np.copyto(src_bytes, out),
        }
        times = {k: [] for k in fns}
        for _ in range(args.repeats):  # interleaved, so drift hits all three alike
            for k, f in fns.items():
                s = time.perf_counter()
                f()
                times[k].append(time.perf_counter() - s)
        med = {k: float(np.median(v)) * 1e3 for k, v in times.items()}
        print(f"{name:18s} {med['cv2']:8.3f} {med['ours']:8.3f} {med['memcpy']:9.3f} "
              f"{med['cv2'] / med['ours']:8.1f} {med['memcpy'] / med['ours']:11.2f}  {diff:.1e}")


if __name__ == "__main__":
    main()
