"""Larger than memory and beyond one machine: convert_file and ly.convert on dask arrays.

Run it under the shared lock, from the repository root::

    flock /tmp/layouts-bench.lock python bench/chunked.py              # both parts
    flock /tmp/layouts-bench.lock python bench/chunked.py --part file  # or --part dask

**file**: a float32 NCHW ``.npy`` of ``--file-gb`` (default 2.2 GB, 8.4x the default budget) through ``memory=--memory``
(default 256MB) to NHWC and to CHWN, each run in a fresh child process that first converts a
small file (so numba's compile is not timed), then reports its wall time and its peak resident
memory (``VmHWM`` of ``/proc/self/status``: the high-water mark of the process's resident
pages, which ``ru_maxrss`` would mix with the parent's across ``exec``; page-cache pages of the
files are not counted, and convert_file maps no file, so none of them is resident in it). The reference
is ``shutil.copyfile`` of the same file in the same run, with and without an ``fsync`` (so
``convert_file`` is compared with ``fsync=True`` against copy+fsync and with ``fsync=False``
against the plain copy); rounds are interleaved, each run starts after an ``os.sync()`` (so no
run pays for the writeback of the one before), and medians are reported.

**dask**: a persisted float32 NCHW array on a ``LocalCluster`` of 1 and of 2 worker processes
(1 thread each), converted and persisted (``ly.convert``) against dask's own ``transpose``
(+ ``rechunk`` to the same output chunks; + ``pad`` and ``reshape`` for NCHW16c), each output
chunk made contiguous (``map_blocks(np.ascontiguousarray)``: dask's transpose alone leaves
views, which is no conversion; for ly.convert's chunks it is a no-op). Results are checked
equal. Medians of ``--repeats``, interleaved, after one warm-up each: the wall time of
``persist`` + ``wait``, and the workers' summed task compute time (from the task stream: the
conversion work without scheduling and transfers).

The machine is shared with other work: read ratios measured side by side, not absolute figures.
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
import time

import numpy as np

os.environ.setdefault("LAYOUTS_EAGER_KERNELS", "1")   # kernel speed from the first call; bench/first_call.py times the default

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

CHILD = textwrap.dedent("""
    import json, os, resource, shutil, sys, time
    import numpy as np
    mode, src, dst, memory = sys.argv[1:5]
    def peak():  # VmHWM: this process's resident high-water mark (ru_maxrss would carry the parent's over exec)
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    if mode.startswith("copy"):
        warm = peak()
        t = time.perf_counter()
        shutil.copyfile(src, dst)
        if mode == "copy+fsync":
            fd = os.open(dst, os.O_RDONLY); os.fsync(fd); os.close(fd)
        dt = time.perf_counter() - t
    else:
        import layouts as ly
        spec, fsync = mode.split(":")
        small = dst + ".warm.npy"
        np.save(small, np.ones((4, 64, 256, 256), np.float32))    # compile the kernels outside the timing:
        ly.convert_file(small, "NCHW", small + ".out.npy", spec, memory=memory, progress=False)   # tiles as large
        ly.convert_file(small, "NCHW", small + ".out.npy", spec, memory="64KB", progress=False)   # and small
        os.remove(small); os.remove(small + ".out.npy")
        warm = peak()
        t = time.perf_counter()
        ly.convert_file(src, "NCHW", dst, spec, memory=memory, progress=False, fsync=fsync == "fsync")
        dt = time.perf_counter() - t
    print(json.dumps({"seconds": dt, "peak": peak(), "warm": warm}))
""")


def _child(mode: str, src: str, dst: str, memory: str) -> dict:
    env = dict(os.environ, PYTHONPATH=ROOT)
    os.sync()  # start each run without the previous runs' dirty pages (their writeback throttles the next writer)
    out = subprocess.run([sys.executable, "-c", CHILD, mode, src, dst, memory], env=env, check=True,
                         capture_output=True, text=True).stdout
    os.remove(dst)
    return json.loads(out.strip().splitlines()[-1])


def make_source(path: str, gb: float) -> tuple[int, ...]:
    C, H, W = 64, 256, 256
    N = max(1, round(gb * 1e9 / (C * H * W * 4)))
    arr = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(N, C, H, W))
    rng = np.random.default_rng(0)
    for n in range(N):
        arr[n] = rng.standard_normal((C, H, W), dtype=np.float32)
    arr.flush()
    del arr
    return (N, C, H, W)


def bench_file(args) -> None:
    import layouts as ly

    work = args.dir
    os.makedirs(work, exist_ok=True)
    src, dst = os.path.join(work, "src.npy"), os.path.join(work, "dst.npy")
    try:
        shape = make_source(src, args.file_gb)
        size = os.path.getsize(src)
        budget = ly.chunked.parse_memory(args.memory)
        print(f"file: float32 NCHW {shape}, {size / 1e9:.2f} GB, memory={args.memory} ({size / budget:.1f}x the budget)")
        # a check of the result, once, against numpy on a slice (the file is larger than we want in RAM here)
        ly.convert_file(src, "NCHW", dst, "NHWC", memory=args.memory, progress=False)
        x, y = np.load(src, mmap_mode="r"), np.load(dst, mmap_mode="r")
        for n in (0, shape[0] // 2, shape[0] - 1):
            assert np.array_equal(y[n], np.asarray(x[n]).transpose(1, 2, 0)), "wrong result"
        del x, y
        os.remove(dst)
        modes = ["copy", "copy+fsync", "NHWC:fsync", "NHWC:nofsync", "CHWN:fsync", "CHWN:nofsync"]
        res: dict[str, list] = {m: [] for m in modes}
        for r in range(args.rounds):
            for m in modes:
                res[m].append(_child(m, src, dst, args.memory))
        med = {m: statistics.median(v["seconds"] for v in res[m]) for m in modes}
        print(f"{'mode':<14} {'median s':>9} {'GB/s':>6} {'x copy':>7} {'peak RSS MB':>12} {'(after warm-up)':>16}")
        for m in modes:
            ref = med["copy+fsync"] if m.endswith(":fsync") else med["copy"]
            peak = max(v["peak"] for v in res[m]) / 1e6
            warm = max(v["warm"] for v in res[m]) / 1e6
            ratio = "" if m.startswith("copy") else f"{ref / med[m]:.2f}"
            print(f"{m:<14} {med[m]:>9.2f} {size / med[m] / 1e9:>6.2f} {ratio:>7} {peak:>12.0f} {warm:>16.0f}")
        print(f"budget + 150 MB = {(budget + 150e6) / 1e6:.0f} MB; 'x copy' is copyfile time / convert time "
              f"(fsync rows against copy+fsync), medians of {args.rounds} interleaved rounds")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def bench_dask(args) -> None:
    import dask
    import dask.array as da
    from distributed import Client, LocalCluster, get_task_stream, wait

    import layouts as ly

    N, C, H, W = args.dask_shape
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            for cchunk in (C, 24):
                x = da.random.default_rng(0).standard_normal((N, C, H, W), chunks=(args.nchunk, cchunk, H, W), dtype=np.float32)
                x = client.persist(x)
                wait(x)
                pc = -(-C // 16) * 16
                cases = {
                    "NHWC": (lambda: ly.convert(x, "NCHW", "NHWC"),
                             lambda ch: x.transpose(0, 2, 3, 1).rechunk(ch).map_blocks(np.ascontiguousarray)),
                    "NCHW16c": (lambda: ly.convert(x, "NCHW", "NCHW16c"),
                                lambda ch: da.pad(x, ((0, 0), (0, pc - C), (0, 0), (0, 0))).reshape(N, pc // 16, 16, H, W)
                                .transpose(0, 1, 3, 4, 2).rechunk(ch).map_blocks(np.ascontiguousarray)),
                }
                for name, (ours, theirs) in cases.items():
                    ch = ours().chunks
                    a, b = ours(), theirs(ch)
                    assert a.chunks == b.chunks, (a.chunks, b.chunks)
                    with dask.config.set({"array.slicing.split_large_chunks": False}):
                        same = bool(da.all(a == b).compute())
                    assert same, "ly.convert and dask differ"
                    times = {"layouts": [], "dask": []}
                    busy = {"layouts": [], "dask": []}
                    for r in range(args.repeats + 1):
                        for who, fn in (("layouts", ours), ("dask", lambda: theirs(ch))):
                            with get_task_stream(client) as ts:
                                t = time.perf_counter()
                                y = client.persist(fn())
                                wait(y)
                                dt = time.perf_counter() - t
                            del y
                            if r:
                                times[who].append(dt)
                                busy[who].append(sum(s["stop"] - s["start"] for task in ts.data
                                                     for s in task["startstops"] if s["action"] == "compute"))
                    ml, md = statistics.median(times["layouts"]), statistics.median(times["dask"])
                    bl, bd = statistics.median(busy["layouts"]), statistics.median(busy["dask"])
                    print(f"dask {workers} worker{'s' if workers > 1 else ' '} {N}x{C}x{H}x{W} f32, input chunks "
                          f"{(args.nchunk, cchunk, H, W)} -> {name}: wall layouts {ml * 1e3:5.0f} ms, dask {md * 1e3:5.0f} ms, "
                          f"{md / ml:.2f}x | task compute layouts {bl * 1e3:5.0f} ms, dask {bd * 1e3:5.0f} ms, {bd / bl:.2f}x | equal: {same}")
                del x


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--part", choices=["file", "dask", "both"], default="both")
    p.add_argument("--file-gb", type=float, default=2.2)
    p.add_argument("--memory", default="256MB")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--dir", default="/tmp/layouts-chunked-bench")
    p.add_argument("--dask-shape", type=lambda s: tuple(int(v) for v in s.split(",")), default=(256, 60, 56, 56))
    p.add_argument("--nchunk", type=int, default=16, help="images per input chunk")
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    print(f"{os.cpu_count()} CPUs; {' '.join(l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name'))[:60]}")
    if args.part in ("file", "both"):
        bench_file(args)
    if args.part in ("dask", "both"):
        bench_dask(args)


if __name__ == "__main__":
    main()
