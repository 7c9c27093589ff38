"""Draw times of the pictures (issue 21's targets), medians of interleaved repeats after a warm-up:
the CuTe picture written by cute_svg against draw_cute + to_svg, draw_layout of 640 slots and the
article figure built and saved as PNG, and the SVG sizes. Run it on a quiet machine:

    flock -x /work/wt/cpu.lock python bench/draw.py [--repeats 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import layouts as ly
from layouts import cute, viz
from layouts.cute.atoms import SM80_16x8x16_C


def cases(tmp: Path) -> dict:
    L640 = ly.Layout("NCHW", N=2, C=16, H=5, W=4)
    e8, e32 = cute.Layout((8, 8), (8, 1)), cute.Layout((32, 32), (1, 32))
    sw = cute.Swizzle(3, 0, 3)
    return {
        "cute 8x8 cute_svg": lambda: viz.cute_svg(e8),
        "cute 8x8 draw_cute+to_svg": lambda: viz.to_svg(viz.draw_cute(e8)),
        "cute 32x32 cute_svg": lambda: viz.cute_svg(e32),
        "cute 32x32 draw_cute+to_svg": lambda: viz.to_svg(viz.draw_cute(e32)),
        "cute 8x8 swizzle cute_svg": lambda: viz.cute_svg(e8, sw, elem_bytes=16),
        "cute 8x8 swizzle draw_cute+to_svg": lambda: viz.to_svg(viz.draw_cute(e8, sw, elem_bytes=16)),
        "cute TV 16x8 cute_svg": lambda: viz.cute_svg(SM80_16x8x16_C, tv_tile=(16, 8)),
        "cute TV 16x8 draw_cute+to_svg": lambda: viz.to_svg(viz.draw_cute(SM80_16x8x16_C, tv_tile=(16, 8))),
        "draw_layout 640 slots, save png": lambda: viz.save(viz.draw_layout(L640), tmp / "a.png"),
        "article figure, save png": lambda: viz.save(viz.draw_article_figure(), tmp / "b.png"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        todo = cases(tmp)
        for f in todo.values():      # warm-up: fonts, colormaps, imports
            f()
        times: dict = {k: [] for k in todo}
        print("load before", os.getloadavg())
        for _ in range(args.repeats):
            for name, f in todo.items():
                t = time.perf_counter()
                f()
                times[name].append(time.perf_counter() - t)
        print("load after ", os.getloadavg())
        for name, ts in times.items():
            print(f"{name:36s} median {statistics.median(ts) * 1000:8.1f} ms   (min {min(ts) * 1000:.1f}, max {max(ts) * 1000:.1f})")
        L640 = ly.Layout("NCHW", N=2, C=16, H=5, W=4)
        print(f"{'draw_layout 640 slots svg':36s} {len(viz.to_svg(viz.draw_layout(L640)).encode()):8d} bytes")
        print(f"{'article figure svg':36s} {len(viz.to_svg(viz.draw_article_figure()).encode()):8d} bytes")
        print(f"{'draw_layout 640 slots png':36s} {(tmp / 'a.png').stat().st_size:8d} bytes")
        for name, layout in (("cute 8x8", cute.Layout((8, 8), (8, 1))), ("cute 32x32", cute.Layout((32, 32), (1, 32)))):
            print(f"{name + ' svg (cute_svg / draw_cute)':36s} {len(viz.cute_svg(layout).encode()):8d} / "
                  f"{len(viz.to_svg(viz.draw_cute(layout)).encode())} bytes")


if __name__ == "__main__":
    main()
