"""What a small conversion's time is made of after other work (the matrix's 256x3x32x32 cells).

    flock /tmp/layouts-bench.lock python bench/in_cache.py [--shape 256x3x32x32] [--rounds 60]

A 256x3x32x32 uint8 tensor is 768 KiB: its conversion takes about 100 us, where the per-call work
in Python and the kind of stores both show. Each case is timed twice: after other work (before
each timed call a 16 MB ``np.copyto`` evicts L1 and L2, as other work in a pipeline, or the
matrix's other methods, does) and in a loop (each timed call the third in a row, its arrays in
cache; ``--warm 3``: the fourth, where ``convert``'s loop has left the first call's non-temporal
stores behind). Interleaved per round in a shuffled order, each into an output of its own:

- ``convert``: ``layouts.convert(src, s, d, out=o, threads=1)``, as the matrix times it;
- ``kernels``: the kernel calls that same call makes (recorded once with
  :func:`layouts.kernels.runtime.pool.recorded`), made directly: ``convert - kernels`` is the call's work
  in Python after other work;
- ``plain`` and ``NT``: the call with plain stores whatever the output's recency, and under a
  profile whose ``nt_min_bytes`` is below this output, so with non-temporal stores. ``convert``
  itself takes non-temporal stores into an output it has not written in the last millisecond
  (:mod:`layouts.kernels.runtime.recency`): after other work, not in a loop;
- ``... + read``: both followed by a sum of the output, the next step's read;
- ``np.copyto`` and the non-temporal copy of the same bytes, and ``cv2.transposeND`` where
  OpenCV is installed (the matrix's fastest peer on these cells).

Medians, in microseconds.

``--experiments`` times instead where a call after other work loses its time, one suspect at a
time, for ``--cases`` (default uint8 and float32 NCHW-NHWC), each condition made before each
timed call, all interleaved per round in a shuffled order:

- what came before: nothing (a loop), a 16 MB copy, a 1 ms sleep (the matrix's gap before each
  call), a 30 ms sleep (its pause after torch);
- page-table walks: the same call on source and output in 2 MiB huge pages (``MADV_HUGEPAGE``);
- first touch of ``out``: a new output each call, its pages never written;
- the call's own start-up: a 1x3x4x4 conversion into ``out=``, where nothing but the call's code
  and objects can be cold;
- the thread pool waking: the same call with ``threads=2`` (the copy is below the size that
  splits, so this only shows when a pool would wake);
- the peers under the same conditions: ``np.copyto`` of the same bytes and ``cv2.transposeND``;
- in a loop, ours and ``cv2.transposeND`` each followed by a sum of its output (the next step's read).

``--inside-matrix`` runs the matrix's own protocol (``bench/run.py``'s rounds: every peer
interleaved, 1 ms gaps, the pause after torch) for ``--cases``, with the kernel calls each repeat
makes (:mod:`layouts.conversion.replays`) timed inside it: ``ours1`` less those calls is the repeat's front
end in the matrix's own conditions, beside the non-temporal copy of the same bytes (the kernels'
floor) and ``cv2.transposeND``.

``--start-up`` times calls that move next to nothing, cold and warm (:func:`start_up`), among them
a repeat conversion into ``out=`` beside the kernel calls it makes: its front end after other work.
"""

from __future__ import annotations

import argparse
import mmap
import os
import random
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import _limits           # noqa: E402  (bench/_limits.py: the non-temporal copy)
import _peers            # noqa: E402  (bench/_peers.py: the matrix's peers)
import run as matrix     # noqa: E402  (bench/run.py: the cases and their arrays)
import layouts as ly     # noqa: E402
from layouts.kernels.runtime import pool  # noqa: E402
from layouts.kernels.machine import profile  # noqa: E402

os.environ.setdefault("LAYOUTS_EAGER_KERNELS", "1")   # kernel speed from the first call; bench/first_call.py times the default

CASES = (("uint8", "NCHW-NHWC"), ("uint8", "NHWC-NCHW"), ("uint8", "NCHW-CHWN"), ("uint8", "CHWN-NCHW"))


def _words(o: np.ndarray) -> np.ndarray:
    """``o``'s bytes as uint64 words (whole words only), for a sum at memory speed: the next step's read."""
    return o.reshape(-1).view(np.uint8)[:o.nbytes // 8 * 8].view(np.uint64)


def methods(shape, dtype, direction):
    """{name: callable} for one case, every output checked against numpy's."""
    s, d = matrix.check_direction(direction)
    a = matrix.case_arrays(shape, dtype, s, d, np.random.default_rng(0))
    src, like, want = a["src"], a["out_conv"], a["view"]
    plain = profile.current().replace(cold_nt_min_bytes=1 << 62)     # never judged cold (kernels.recency)
    nt = plain.replace(nt_min_bytes=min(plain.nt_min_bytes, like.nbytes // 2))
    out = {}
    runs = {}
    o = out["convert"] = ly.aligned_empty(like.shape, like.dtype)
    runs["convert"] = lambda o=o: ly.convert(src, s, d, out=o, threads=1)
    # the two kinds of stores each under a profile of its own, so that both pay for use_profile
    for name, prof in (("plain", plain), ("NT", nt)):
        o = out[name] = ly.aligned_empty(like.shape, like.dtype)

        def call(o=o, prof=prof):
            with profile.use_profile(prof):
                ly.convert(src, s, d, out=o, threads=1)
        runs[name] = call
    for name in ("convert", "plain", "NT"):
        for _ in range(3):             # planning, the record of the calls, then the replay
            runs[name]()
        o = out[name]
        assert np.array_equal(o.reshape(want.shape), want), (shape, dtype, direction, name)
    for name in ("plain", "NT"):
        o, call = out[name], runs[name]
        words = _words(o)
        runs[f"{name} + read"] = lambda call=call, words=words: (call(), words.sum())
    k = out["kernels"] = ly.aligned_empty(like.shape, like.dtype)
    ly.convert(src, s, d, out=k, threads=1)
    calls = pool.recorded(lambda: ly.convert(src, s, d, out=k, threads=1))
    assert calls, "the conversion made no kernel calls to time alone"
    k[...] = 0
    pool.replay(calls)
    assert np.array_equal(k.reshape(want.shape), want)
    # the calls hold k's and src's addresses, not the arrays: the lambda keeps both alive
    runs["kernels"] = lambda keep=(k, src): pool.replay(calls)
    copy_out = np.empty_like(src)
    runs["np.copyto"] = lambda: np.copyto(copy_out, src)
    runs["NT copy"] = _limits.bound(src)[0]
    own = matrix._aligned_like(a["out"])
    for name, (_, run) in _peers.make_peers(["cv2nd"], own, a["view"], a["src_nd"], a["perm"], (s, d), src).items():
        run()
        assert np.array_equal(own, a["view"]), name
        runs["cv2.transposeND"] = run
    return runs


def time_case(runs, rounds, after_other_work=True, warm=2):
    """Medians in us of each of ``runs``: after a 16 MB copy (other work), or after ``warm`` calls
    in a row (a loop over the same arrays, all of them in cache). A loop's first call after the
    other methods' turns is a call after other work, so ``convert`` writes it with non-temporal
    stores, and its next call reads those lines back from memory: its steady state starts with
    the fourth call (``--warm 3``)."""
    big = np.ones(16 << 20, np.uint8)
    other = np.empty_like(big)
    times = {k: [] for k in runs}
    order = list(runs)
    for _ in range(rounds):
        random.shuffle(order)
        for k in order:
            if after_other_work:
                np.copyto(other, big)      # L1 and L2 then hold none of this case's arrays
                time.sleep(0.0005)
            else:
                for _ in range(warm):
                    runs[k]()
            t0 = time.perf_counter()
            runs[k]()
            times[k].append(time.perf_counter() - t0)
    return {k: statistics.median(v) * 1e6 for k, v in times.items()}


def huge_like(a: np.ndarray) -> np.ndarray:
    """An array of ``a``'s shape and dtype in anonymous memory asked to be 2 MiB huge pages
    (``MADV_HUGEPAGE``), written once so its pages exist."""
    size = -(-a.nbytes // (2 << 20)) * (2 << 20)
    m = mmap.mmap(-1, size + (2 << 20), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        m.madvise(mmap.MADV_HUGEPAGE)
    buf = np.frombuffer(m, np.uint8)
    start = (-buf.ctypes.data) % (2 << 20)
    out = buf[start:start + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def experiments(shape, dtype, direction, rounds):
    """Medians in us of the call under each condition of the module's ``--experiments`` list."""
    s, d = matrix.check_direction(direction)
    a = matrix.case_arrays(shape, dtype, s, d, np.random.default_rng(0))
    src, like, want = a["src"], a["out_conv"], a["view"]
    big = np.ones(16 << 20, np.uint8)
    other = np.empty_like(big)
    before = {"loop": None, "16 MB copy": lambda: np.copyto(other, big),
              "sleep 1 ms": lambda: time.sleep(0.001), "sleep 30 ms": lambda: time.sleep(0.03)}
    hsrc, hout = huge_like(src), huge_like(ly.aligned_empty(like.shape, like.dtype))
    tiny = np.zeros((1, 3, 4, 4), dtype)
    tiny_out = ly.aligned_empty(ly.convert(tiny, "NCHW", "NHWC").shape, dtype)
    calls = {}
    for name in before:
        o = ly.aligned_empty(like.shape, like.dtype)
        calls[f"convert, after {name}"] = (name, lambda o=o: ly.convert(src, s, d, out=o, threads=1))
    for name in ("16 MB copy", "sleep 30 ms"):
        calls[f"convert, huge pages, after {name}"] = (name, lambda: ly.convert(hsrc, s, d, out=hout, threads=1))
        o = ly.aligned_empty(like.shape, like.dtype)
        calls[f"convert threads=2, after {name}"] = (name, lambda o=o: ly.convert(src, s, d, out=o, threads=2))
        cp = np.empty_like(src)
        calls[f"np.copyto, after {name}"] = (name, lambda cp=cp: np.copyto(cp, src))
        own = matrix._aligned_like(a["out"])
        for _, (_, run) in _peers.make_peers(["cv2nd"], own, want, a["src_nd"], a["perm"], (s, d), src).items():
            calls[f"cv2.transposeND, after {name}"] = (name, run)
    o = ly.aligned_empty(like.shape, like.dtype)
    calls["convert + a sum of the output, after loop"] = (
        "loop", lambda o=o, w=_words(o): (ly.convert(src, s, d, out=o, threads=1), w.sum()))
    own = matrix._aligned_like(a["out"])
    for _, (_, run) in _peers.make_peers(["cv2nd"], own, want, a["src_nd"], a["perm"], (s, d), src).items():
        calls["cv2.transposeND + a sum of the output, after loop"] = ("loop", lambda run=run, w=_words(own): (run(), w.sum()))
    calls["convert, new out each call, after 16 MB copy"] = (
        "16 MB copy", lambda: ly.convert(src, s, d, out=ly.aligned_empty(like.shape, like.dtype), threads=1))
    for name in ("loop", "16 MB copy", "sleep 30 ms"):
        calls[f"1x3x4x4 convert, after {name}"] = (name, lambda: ly.convert(tiny, "NCHW", "NHWC", out=tiny_out, threads=1))
    for _, run in calls.values():      # planning, the record of the calls, the replay
        run(), run(), run()
    assert np.array_equal(hout.reshape(want.shape), want)
    times = {k: [] for k in calls}
    order = list(calls)
    for _ in range(rounds):
        random.shuffle(order)
        for k in order:
            name, run = calls[k]
            if before[name] is None:
                run(), run()
            else:
                before[name]()
            t0 = time.perf_counter()
            run()
            times[k].append(time.perf_counter() - t0)
    return {k: statistics.median(v) * 1e6 for k, v in times.items()}


def _first_of(d, s):
    d[0] = s[0]


def start_up(rounds):
    """Medians in us of calls that move next to nothing (the calls' own start-up), in a loop, after
    a 16 MB copy and after a 30 ms sleep: an empty Python call, ``np.copyto`` of 48 floats, a numba
    kernel with two arrays (through its dispatcher, as kept calls make it), ``cv2.transposeND`` of 1x3x4x4 and
    ``layouts.convert`` of the same into ``out=``; and a repeat into ``out=`` that makes the kernel
    calls kept for it (:mod:`layouts.conversion.replays`, a 1x3x64x64 uint8 NCHW->NHWC: 12 KiB, but 4096
    pixels numpy would loop over, so the kernels copy it), beside those calls alone: the
    difference is the repeat's front end."""
    import numba
    from layouts.conversion import replays
    img = (np.arange(3 * 64 * 64) % 251).astype(np.uint8).reshape(1, 3, 64, 64)
    iout = ly.aligned_empty((1, 64, 64, 3), np.uint8)
    replays.forget()
    for _ in range(3):                  # checked, recorded, replayed (4096 pixels: numpy would loop)
        ly.convert(img, "NCHW", "NHWC", out=iout, threads=1)
    [kept] = replays.kept(iout)
    kept_calls = next(c for c in kept.calls if c is not None)
    tiny = np.zeros((1, 3, 4, 4), np.float32)
    tout = ly.aligned_empty((1, 4, 4, 3), np.float32)
    a, b = np.zeros(48, np.float32), np.zeros(48, np.float32)
    first = numba.njit(nogil=True)(_first_of)
    first(a, b)
    runs = {"empty Python call": lambda: None, "np.copyto of 48 floats": lambda: np.copyto(a, b),
            "numba kernel, two arrays": lambda: first(a, b),
            "layouts.convert 1x3x4x4, out=": lambda: ly.convert(tiny, "NCHW", "NHWC", out=tout, threads=1),
            "layouts.convert 1x3x64x64 uint8, out=, calls kept": (
                lambda: ly.convert(img, "NCHW", "NHWC", out=iout, threads=1)),
            "those kept calls alone": lambda: pool.replay(kept_calls)}
    try:
        import cv2
        cv2.setNumThreads(1)
        runs["cv2.transposeND 1x3x4x4"] = lambda: cv2.transposeND(tiny, [0, 2, 3, 1], tout)
    except ImportError:
        pass
    big = np.ones(16 << 20, np.uint8)
    other = np.empty_like(big)
    out = {}
    for mode, before in (("loop", None), ("16 MB copy", lambda: np.copyto(other, big)),
                         ("30 ms sleep", lambda: time.sleep(0.03))):
        times = {k: [] for k in runs}
        for _ in range(rounds):
            order = list(runs)
            random.shuffle(order)
            for k in order:
                if before is None:
                    runs[k](), runs[k]()
                else:
                    before()
                t0 = time.perf_counter()
                runs[k]()
                times[k].append(time.perf_counter() - t0)
        out[mode] = {k: statistics.median(v) * 1e6 for k, v in times.items()}
    assert np.array_equal(iout, img.transpose(0, 2, 3, 1))
    return out


def inside_matrix(shape, cases, rounds):
    """{(dtype, direction): {name: median us}} of the matrix's protocol for ``cases`` (its
    ``bench_case`` with ``rounds`` rounds), with ``kernels``: the kernel calls of each repeat, timed
    inside ``ours1`` (by a wrapper the repeat calls: a Python call more inside ``ours1``)."""
    from layouts.conversion import replays
    inside: list = []
    keep = replays.keep

    def timed(fn, first):
        def run(*args):
            t0 = time.perf_counter_ns()
            fn(*args)
            t = time.perf_counter_ns() - t0
            if first:
                inside.append(t)
            else:
                inside[-1] += t
        return run

    def keep_timed(x, src, dst, out, threads, prof, probes, cold, calls, **how):
        calls = tuple((timed(fn, k == 0), args) for k, (fn, args) in enumerate(calls))
        return keep(x, src, dst, out, threads, prof, probes, cold, calls, **how)
    o = matrix.parse(["--only", "x".join(map(str, shape)), "--repeats", str(rounds), "--no-cold", "--no-overhead"])
    out = {}
    replays.keep = keep_timed
    try:
        for dtype, direction in cases:
            replays.forget()
            inside.clear()
            r = matrix.bench_case(shape, dtype, direction, o)
            m = {k: v * 1e6 for k, v in r["t"].items()}
            m["kernels"] = statistics.median(inside[1:]) / 1e3      # the first made them while recording
            out[dtype, direction] = m
    finally:
        replays.keep = keep
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", default="256x3x32x32")
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("--experiments", action="store_true", help="where a call after other work loses its time")
    ap.add_argument("--start-up", action="store_true", help="the cold start-up of calls that move next to nothing")
    ap.add_argument("--warm", type=int, default=2, help="calls in a row before each timed one in a loop (default 2)")
    ap.add_argument("--inside-matrix", action="store_true", help="the kernels' share of a repeat in the matrix's protocol")
    ap.add_argument("--cases", default="uint8:NCHW-NHWC,float32:NCHW-NHWC",
                    help="dtype:direction list (--experiments, --inside-matrix)")
    args = ap.parse_args(argv)
    shape = tuple(int(n) for n in args.shape.split("x"))
    if args.inside_matrix:
        cases = [tuple(c.split(":")) for c in args.cases.split(",")]
        for (dtype, direction), m in inside_matrix(shape, cases, args.rounds).items():
            best = min((m[k], k) for k in _peers.PEERS if k in m)
            print(f"{args.shape} {dtype} {direction}: ours1 {m['ours1']:.1f} = kernels {m['kernels']:.1f} + front end "
                  f"{m['ours1'] - m['kernels']:.1f}; NT copy {m['nt']:.1f}, np.copyto {m['copyto']:.1f}, "
                  f"fastest peer {best[1]} {best[0]:.1f} (medians of {args.rounds} rounds, us)", flush=True)
        return
    if args.start_up:
        for mode, m in start_up(args.rounds).items():
            print(f"after {mode}: " + ", ".join(f"{k} {v:.1f}" for k, v in m.items()), flush=True)
        return
    if args.experiments:
        for case in args.cases.split(","):
            dtype, direction = case.split(":")
            m = experiments(shape, dtype, direction, args.rounds)
            print(f"\n{args.shape} {dtype} {direction} (medians of {args.rounds} rounds, us)")
            for k, v in m.items():
                print(f"  {k:50s} {v:8.1f}", flush=True)
        return
    for dtype, direction in CASES:
        runs = methods(shape, dtype, direction)
        for after_other_work in (True, False):
            m = time_case(runs, args.rounds, after_other_work, args.warm)
            print(f"{args.shape} {dtype} {direction}, "
                  f"{'after other work' if after_other_work else f'in a loop (after {args.warm} calls)'}: "
                  + ", ".join(f"{k} {v:.0f}" for k, v in m.items()), flush=True)
            print(f"    Python work {m['convert'] - m['kernels']:.0f} us of {m['convert']:.0f}; NT stores "
                  f"{m['NT'] - m['plain']:+.0f} us alone, {m['NT + read'] - m['plain + read']:+.0f} with the read",
                  flush=True)


if __name__ == "__main__":
    main()
