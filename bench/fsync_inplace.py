"""What power-loss safety costs: an in-place ``convert_file`` with ``fsync=True`` against ``cp`` + ``sync``.

Run it under the shared lock, from the repository root::

    flock /tmp/layouts-bench.lock python bench/fsync_inplace.py             # 256 MiB, 5 rounds
    flock /tmp/layouts-bench.lock python bench/fsync_inplace.py --mib 1024 --rounds 3

A float32 NCHW ``.npy`` of ``--mib`` MiB converted to NHWC in its own bytes (``inplace=True``,
the default ``memory="256MB"``), with ``fsync=True`` (the journaled transaction that survives a
power cut: each step's backup and the moved data flushed before the records that describe
them) and with ``fsync=False`` (no power-loss promise), against the same file copied to another
file and flushed (``shutil.copyfile`` + ``fsync``: what ``cp`` + ``sync`` does) and against the
two-file ``convert_file`` with ``fsync=True``. Each run is a fresh child process that first
converts a small file (so numba's compile or cache load is not timed), on a file copied from a
pristine source and flushed beforehand (``os.sync()``, so no run pays for the writeback of the
one before). Rounds interleave the modes; medians are reported, and the in-place result is
checked against numpy once.

The in-place run writes every byte twice (its backup in the journal, then the moved data), so
about 0.5 of the copy's speed is the most to expect.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import textwrap

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

CHILD = textwrap.dedent("""
    import json, os, shutil, sys, time
    import numpy as np
    mode, path, other = sys.argv[1:4]
    if mode == "copy+fsync":
        t = time.perf_counter()
        shutil.copyfile(path, other)
        fd = os.open(other, os.O_RDONLY); os.fsync(fd); os.close(fd)
        dt = time.perf_counter() - t
    else:
        import layouts as ly
        small = other + ".warm.npy"
        np.save(small, np.ones((2, 64, 32, 32), np.float32))   # the kernels loaded outside the timing
        ly.convert_file(small, "NCHW", small, "NHWC", inplace=True, progress=False, memory="256KB")
        ly.convert_file(small, "NHWC", small + ".out.npy", "NCHW", progress=False)
        os.remove(small); os.remove(small + ".out.npy")
        kind, fsync = mode.split(":")
        t = time.perf_counter()
        if kind == "inplace":
            ly.convert_file(path, "NCHW", path, "NHWC", inplace=True, progress=False, fsync=fsync == "fsync")
        else:
            ly.convert_file(path, "NCHW", other, "NHWC", progress=False, fsync=fsync == "fsync")
        dt = time.perf_counter() - t
    print(json.dumps({"seconds": dt}))
""")

MODES = ["copy+fsync", "inplace:fsync", "inplace:nofsync", "twofile:fsync"]


def _run(mode: str, pristine: str, path: str, other: str) -> float:
    shutil.copyfile(pristine, path)
    os.sync()
    out = subprocess.run([sys.executable, "-c", CHILD, mode, path, other], env=dict(os.environ, PYTHONPATH=ROOT),
                         check=True, capture_output=True, text=True).stdout
    if os.path.exists(other):
        os.remove(other)
    return json.loads(out.strip().splitlines()[-1])["seconds"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--dir", default=os.path.join(ROOT, "bench", ".fsync-work"), help="a folder on the disk to measure")
    args = ap.parse_args()
    from _machine import describe, machine_info  # the bench folder's helper

    os.makedirs(args.dir, exist_ok=True)
    pristine, path, other = (os.path.join(args.dir, n) for n in ("pristine.npy", "x.npy", "y.npy"))
    try:
        C, H, W = 64, 128, 128
        N = max(1, args.mib * 2**20 // (C * H * W * 4))
        x = np.random.default_rng(0).standard_normal((N, C, H, W), dtype=np.float32)
        np.save(pristine, x)
        _run("inplace:fsync", pristine, path, other)
        assert np.array_equal(np.load(path), x.transpose(0, 2, 3, 1)), "wrong result"
        size = os.path.getsize(pristine)
        del x
        times: dict[str, list[float]] = {m: [] for m in MODES}
        for _ in range(args.rounds):
            for m in MODES:
                times[m].append(_run(m, pristine, path, other))
        print("\n".join(describe(machine_info())))
        print(f"float32 NCHW -> NHWC, {N}x{C}x{H}x{W}, {size / 2**20:.0f} MiB, memory='256MB'; "
              f"medians of {args.rounds} interleaved rounds")
        ref = statistics.median(times["copy+fsync"])
        print(f"{'mode':<17} {'median s':>9} {'MB/s':>7} {'x copy+fsync':>13}   all runs")
        for m in MODES:
            med = statistics.median(times[m])
            runs = " ".join(f"{t:.3f}" for t in times[m])
            print(f"{m:<17} {med:>9.3f} {size / med / 1e6:>7.0f} {ref / med:>13.2f}   {runs}")
    finally:
        shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
