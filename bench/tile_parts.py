"""What a byte transpose's time in cache is made of: the tiles' own work, the reads, the stores.

    flock /tmp/layouts-bench.lock python bench/tile_parts.py [--rows 3072 --cols 256] [--rounds 41]

The matrix's 256x3x32x32 uint8 CHWN->NCHW is one transpose of 3072 rows of 256 bytes into 256
rows of 3072 (``--rows``, ``--cols``). In a loop both arrays stay in L2, yet the tiles take about
twice ``np.copyto``'s time. This times the tile walk the planner picks for it (``simd.tile``'s
64x16 tiles, the block of :func:`layouts.kernels.geometry.tiling`) over the same number of tiles
in each of these conditions, each timed call the third in a row, interleaved per round in a
shuffled order:

- ``in L1``: source and output offsets wrapped into about 16 KiB each (64 source rows; 16
  output rows), so next to nothing leaves L1: the tiles' own work (their shuffles);
- ``source read``: the source walked whole, the output wrapped: what reading it from L2 adds;
- ``output written``: the output written whole, the source wrapped: what the stores add;
- ``both``: the transpose itself (checked against numpy);
- ``output pitch + a line``: the same into rows one line longer (a pitch not a multiple of
  1 KiB spreads a tile's rows over more L1 sets);
- ``np.copyto`` of the same bytes, and ``cv2.transpose`` where OpenCV is installed.

Medians in microseconds and nanoseconds per KiB.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

import numpy as np

os.environ.setdefault("LAYOUTS_EAGER_KERNELS", "1")

import layouts as ly     # noqa: E402
from layouts.kernels import geometry
from layouts.kernels.machine import profile  # noqa: E402

WRAP = 16 << 10          # bytes each wrapped side stays within


def _walk():
    import numba
    from layouts.kernels.jit.simd import tile
    U = np.uint64

    @numba.njit(nogil=True)
    def walk(d, s, ni, nj, dJ, sI, Bi, Bj, di_mask, dj_mask, si_mask):
        """The tiles of ``tiles_block`` (64 rows of i by 16 columns of j, blocks of Bi by Bj),
        the output's column and row and the source's row taken through the masks (all ones: the
        whole array; a power of two less one: wrapped, without a division in the loop)."""
        for i0 in range(0, ni, Bi):
            for j0 in range(0, nj, Bj):
                for i in range(i0, min(i0 + Bi, ni), 64):
                    for j in range(j0, min(j0 + Bj, nj), 16):
                        tile(d, (U(i) & di_mask) + (U(j) & dj_mask) * U(dJ), U(dJ), s,
                             (U(i) & si_mask) * U(sI) + U(j), U(sI))
    return walk


def _below(n: int) -> int:
    """The largest power of two at most ``n`` (and at least 64: whole tiles)."""
    return max(64, 1 << (max(n, 1).bit_length() - 1))


def parts(rows: int, cols: int, rounds: int) -> dict[str, float]:
    """Medians in us of each condition of the module's list, for a ``rows`` x ``cols`` uint8
    transpose (rows a multiple of 64, cols of 16)."""
    if rows % 64 or cols % 16:
        raise SystemExit("--rows must be a multiple of 64 and --cols of 16 (whole tiles)")
    walk = _walk()
    src = np.random.default_rng(0).integers(0, 256, rows * cols, dtype=np.uint8)
    t = geometry.tiling(rows, cols, rows, (), 1, 0, False, profile.current(), sI=cols)
    if isinstance(t, str):
        raise SystemExit(f"no tiles for {rows}x{cols}: {t}")
    Bi, Bj = max(t.Bi, 64), max(t.Bj, 16)
    outs = {}
    runs = {}
    every = np.uint64(2 ** 64 - 1)
    dw = np.uint64(_below(WRAP // 16) - 1)       # columns of i: 16 output rows of this many bytes
    sw = np.uint64(_below(WRAP // cols) - 1)     # source rows
    wrapped, whole = (dw, np.uint64(15)), (every, every)
    for name, pitch, dmasks, smask in (("in L1", rows, wrapped, sw), ("source read", rows, wrapped, every),
                                       ("output written", rows, whole, sw), ("both", rows, whole, every),
                                       ("output pitch + a line", rows + 64, whole, every)):
        out = ly.aligned_empty(pitch * cols, np.uint8)
        outs[name] = (out, pitch)
        runs[name] = (lambda out=out, pitch=pitch, dmasks=dmasks, smask=smask:
                      walk(out, src, rows, cols, pitch, cols, Bi, Bj, *dmasks, smask))
    for run in runs.values():
        run()
    want = src.reshape(rows, cols).T
    for name in ("both", "output pitch + a line"):
        out, pitch = outs[name]
        assert np.array_equal(out.reshape(cols, pitch)[:, :rows], want), name
    copy_out = np.empty_like(src)
    runs["np.copyto"] = lambda: np.copyto(copy_out, src)
    try:
        import cv2
        cv2.setNumThreads(1)
        cv_out = np.empty((cols, rows), np.uint8)
        s2 = src.reshape(rows, cols)
        cv2.transpose(s2, cv_out)
        assert np.array_equal(cv_out, want)
        runs["cv2.transpose"] = lambda: cv2.transpose(s2, cv_out)
    except ImportError:
        pass
    times = {k: [] for k in runs}
    order = list(runs)
    for _ in range(rounds):
        random.shuffle(order)
        for k in order:
            runs[k](), runs[k]()
            t0 = time.perf_counter()
            runs[k]()
            times[k].append(time.perf_counter() - t0)
    return {k: statistics.median(v) * 1e6 for k, v in times.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=3072)
    ap.add_argument("--cols", type=int, default=256)
    ap.add_argument("--rounds", type=int, default=41)
    args = ap.parse_args(argv)
    kib = args.rows * args.cols / 1024
    for k, us in parts(args.rows, args.cols, args.rounds).items():
        print(f"{k:24s} {us:8.1f} us {us * 1e3 / kib:7.1f} ns/KiB", flush=True)


if __name__ == "__main__":
    main()
