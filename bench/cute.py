"""CuTe layouts realised by the kernels: ``ly.convert`` with CuTe layouts against numpy.

    flock /tmp/layouts-bench.lock env PYTHONPATH=. python bench/cute.py [--repeats 7] [--shape 8,64,56,56]

Three conversions of an NCHW float32 tensor, each timed as the median of interleaved repeats
beside its references (the first call, which loads or compiles numba kernels, is timed apart):

* NCHW -> NHWC given as CuTe layouts (``Layout.to_cute()`` of both) vs the same conversion by
  name, ``ly.convert(x, "NCHW", "NHWC")``: the same views reach the same engine;
* NCHW -> 8x8 tiles of (H, W), a ``blocked_product`` layout (plain, strided): ``ly.convert``
  (the copy engine on strided views) vs ``np.copyto`` of the same bytes (the memcpy reference),
  ``np.copyto`` on the same strided views, and a numpy fancy-index gather with precomputed offsets;
* NCHW -> the same tiles swizzled (``Swizzle(3, 0, 3)`` on each 8x8 tile): ``ly.convert``
  (the swizzle gather/scatter kernel) vs the numpy fancy-index gather.

Ratio = reference time / ly.convert time (> 1: faster than the reference). Every result is
checked against the gather before it is timed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import layouts as ly  # noqa: E402
from layouts import cute  # noqa: E402

os.environ.setdefault("LAYOUTS_EAGER_KERNELS", "1")   # kernel speed from the first call; bench/first_call.py times the default


def layouts_for(n: int, c: int, h: int, w: int):
    """NCHW as CuTe, and NCHW with each (H, W) plane cut into 8x8 row-major tiles (tiles column-major)."""
    src = ly.Layout("NCHW", N=n, C=c, H=h, W=w).to_cute()
    tiles = cute.blocked_product(cute.Layout((8, 8), (8, 1)), cute.Layout((h // 8, w // 8)))
    plane = h * w
    tiled = cute.Layout((n, c) + tiles.shape, (c * plane, plane) + tiles.stride)
    # swizzle the 64 elements of each tile: Sw<3,0,3> XORs the row (bits 3-5) into the column (bits 0-2)
    swizzled = cute.composition(cute.Swizzle(3, 0, 3), tiled)
    return src, tiled, swizzled


def median_time(fn, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def run(shape: tuple[int, int, int, int], repeats: int) -> None:
    n, c, h, w = shape
    src, tiled, swizzled = layouts_for(n, c, h, w)
    x = np.random.default_rng(0).standard_normal(cute.size(src)).astype(np.float32)
    print(f"NCHW {shape} float32, {x.nbytes / 2**20:.1f} MiB; tiles {tiled}; swizzled {swizzled.outer}")
    nhwc = ly.Layout("NHWC", N=n, C=c, H=h, W=w).to_cute()
    x4 = x.reshape(n, c, h, w)
    for name, dst in (("NHWC as CuTe", nhwc), ("blocked_product tiles", tiled), ("swizzled tiles", swizzled)):
        s_off, d_off = src.offsets(), dst.offsets()
        ref = np.zeros(dst.cosize(), np.float32)
        ref[d_off] = x[s_off]
        t0 = time.perf_counter()
        got = ly.convert(x, src, dst)
        first = time.perf_counter() - t0
        assert np.array_equal(got, ref), name
        out = np.zeros_like(ref)
        copy_dst = np.empty_like(x)
        views = None
        if isinstance(dst, cute.Layout):  # the strided views ly.convert hands the engine, copied by numpy
            from layouts.conversion.generic import common_modes, view_modes
            modes = view_modes(common_modes(src, dst))
            shp = tuple(m[0] for m in modes)
            views = (np.lib.stride_tricks.as_strided(out, shp, tuple(m[2] * 4 for m in modes)),
                     np.lib.stride_tricks.as_strided(x, shp, tuple(m[1] * 4 for m in modes)))
        timings = {"ly.convert": [], "np.copyto (same bytes)": [], "numpy gather": []}
        for _ in range(repeats):  # interleaved: each round times all three
            timings["ly.convert"] += median_time(lambda: ly.convert(x, src, dst, out=out), 1)
            timings["np.copyto (same bytes)"] += median_time(lambda: np.copyto(copy_dst, x), 1)
            timings["numpy gather"] += median_time(lambda: out.__setitem__(d_off, x[s_off]), 1)
            if views is not None:
                timings.setdefault("np.copyto (same views)", []).extend(median_time(lambda: np.copyto(*views), 1))
            if dst is nhwc:
                out4 = out.reshape(n, h, w, c)
                timings.setdefault("ly.convert by name", []).extend(
                    median_time(lambda: ly.convert(x4, "NCHW", "NHWC", out=out4), 1))
        med = {k: float(np.median(v)) for k, v in timings.items()}
        print(f"\n{name}: first call {first * 1e3:.1f} ms")
        for k, v in med.items():
            ratio = "" if k == "ly.convert" else f"   ratio {v / med['ly.convert']:.2f}"
            print(f"  {k:24s} {v * 1e3:8.2f} ms  {x.nbytes / v / 1e9:6.2f} GB/s{ratio}")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--shape", default="8,64,56,56", help="N,C,H,W (H and W multiples of 8)")
    args = p.parse_args(argv)
    shape = tuple(int(v) for v in args.shape.split(","))
    if len(shape) != 4 or shape[2] % 8 or shape[3] % 8:
        p.error("--shape is N,C,H,W with H and W multiples of 8")
    run(shape, args.repeats)


if __name__ == "__main__":
    main()
