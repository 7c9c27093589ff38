"""Blocked layouts with padding: the matrix's padding cells, into the blocks and back.

    python bench/padded.py                       # every cell, 1 thread (~1 min on 2 cores)
    python bench/padded.py --cells NCHW8c --repeats 9

A cell is a conversion whose block does not divide its axis (``NCHW16c`` / ``NCHW8c`` with
C=3 and C=17, Ascend's ``NC1HWC0`` with C=3 in float16), on a large batch (8 x C x 224 x 224),
into the blocked layout ("in") and back with the padding dropped ("back"). Its reference is
``np.copyto`` of the padded side's bytes (the destination's on the way in, the source's on the
way back: what any code must at least write or read), contiguous to contiguous, and the
non-temporal copy of those bytes (``bench/_limits.py``, one core's copy limit).

Methods, run interleaved as in ``bench/run.py`` (shuffled rounds, each its own 64-byte aligned
output, the first call untimed, medians; ratios are ``t(reference) / t(method)``):

- ``ours``      ``layouts.convert(x, src, dst, out=out, threads=1)``
- ``two-pass``  what convert did before it wrote padded rows in one pass: the copy engine's
  copy of the used slots and its zero fill of the padding (``layouts.kernels``), on the way
  in; on the way back the engine with the ``padded-rows`` strategy disabled
- ``numpy``     numpy's own answer: ``np.copyto`` of the used slots (of the strided view) and a
  zero fill of the padding (in), ``np.copyto`` of the strided view (back)
- ``torch``     ``torch.nn.functional.pad`` on the channels then a copy into the blocks (in),
  a strided copy (back); when torch is installed (1 thread)

The issue's target: ours >= 0.5 of ``np.copyto`` in every cell.
"""

import argparse
import gc
import json
import os
import random
import sys
import time
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

import _limits                   # noqa: E402
import _machine                  # noqa: E402

os.environ.setdefault("LAYOUTS_EAGER_KERNELS", "1")

#: (layout, block, C, dtype)
CELLS = [("NCHW16c", 16, 3, "float32"), ("NCHW16c", 16, 17, "float32"), ("NCHW8c", 8, 3, "float32"),
         ("NCHW8c", 8, 17, "float32"), ("NC1HWC0", 16, 3, "float16"), ("NCHW16c", 16, 3, "uint8")]
N, H, W = 8, 224, 224
TARGET = 0.5


def _aligned(shape, dtype):
    dt = np.dtype(dtype)
    return _limits.aligned_empty(int(np.prod(shape)) * dt.itemsize).view(dt).reshape(shape)


def _methods(spec, block, C, dtype, way):
    """{name: callable} for one cell, each checked once against numpy's answer."""
    import layouts as ly
    from layouts import kernels
    rng = np.random.default_rng(0)
    x = rng.integers(1, 255, (N, C, H, W)).astype(dtype)
    C1 = -(-C // block)
    full = np.zeros((N, C1 * block, H, W), dtype)
    full[:, :C] = x
    blocked = np.ascontiguousarray(full.reshape(N, C1, block, H, W).transpose(0, 1, 3, 4, 2))
    src, want = (x, blocked) if way == "in" else (blocked, x)
    s, d = ("NCHW", spec) if way == "in" else (spec, "NCHW")
    padded = blocked                                  # the side whose bytes the references copy
    m = {}
    out = _aligned(want.shape, dtype)
    m["ours"] = (lambda: ly.convert(src, s, d, out=out, threads=1, C=C)), out
    o2 = _aligned(want.shape, dtype)
    if way == "in":
        def two_pass(o=o2):
            blocks = o.reshape(N, C1, H, W, block)
            whole = C // block
            if whole:
                kernels.copy_into(blocks[:, :whole], x[:, :whole * block].reshape(N, whole, block, H, W)
                                  .transpose(0, 1, 3, 4, 2), threads=1)
            r = C - whole * block
            kernels.copy_into(blocks[:, whole, ..., :r], x[:, whole * block:].transpose(0, 2, 3, 1), threads=1)
            kernels.fill_zero(blocks[:, whole, ..., r:], threads=1)
        m["two-pass"] = two_pass, o2
        o3 = _aligned(want.shape, dtype)

        def numpy_way(o=o3):
            blocks = o.reshape(N, C1, H, W, block)
            whole = C // block
            if whole:
                np.copyto(blocks[:, :whole], x[:, :whole * block].reshape(N, whole, block, H, W).transpose(0, 1, 3, 4, 2))
            r = C - whole * block
            np.copyto(blocks[:, whole, ..., :r], x[:, whole * block:].transpose(0, 2, 3, 1))
            blocks[:, whole, ..., r:] = 0
        m["numpy"] = numpy_way, o3
    else:
        prof = kernels.current().replace(disabled=("padded-rows",))

        def two_pass(o=o2):
            with kernels.use_profile(prof):
                ly.convert(src, s, d, out=o, threads=1, C=C)
        m["two-pass"] = two_pass, o2
        o3 = _aligned(want.shape, dtype)
        strided = blocked.transpose(0, 1, 4, 2, 3)          # (N, C1, block, H, W), a view

        def numpy_way(o=o3):
            flat = o.reshape(N, C, H, W)
            whole = C // block
            if whole:
                np.copyto(flat[:, :whole * block].reshape(N, whole, block, H, W), strided[:, :whole])
            np.copyto(flat[:, whole * block:], strided[:, whole, :C - whole * block])
        m["numpy"] = numpy_way, o3
    try:
        import torch
        torch.set_num_threads(1)
        o4 = _aligned(want.shape, dtype)
        to, ts = torch.from_numpy(o4), torch.from_numpy(src)
        if way == "in":
            def torch_way():
                padded_c = torch.nn.functional.pad(ts, (0, 0, 0, 0, 0, C1 * block - C))
                to.copy_(padded_c.reshape(N, C1, block, H, W).permute(0, 1, 3, 4, 2))
        else:
            def torch_way():
                to.copy_(ts.permute(0, 1, 4, 2, 3).reshape(N, C1 * block, H, W)[:, :C])
        m["torch"] = torch_way, o4
    except ImportError:
        pass
    for name, (run, o) in list(m.items()):
        o.view(np.uint8).fill(0xA5)
        run()
        if not np.array_equal(o.reshape(want.shape), want):
            print(f"  note: {name} dropped for {spec} C={C} {way}: wrong bytes", file=sys.stderr)
            del m[name]
    ref = _aligned(padded.shape, dtype)
    np.copyto(ref, padded)
    m["copyto"] = (lambda: np.copyto(ref, padded)), ref
    nt_run, _ = _limits.bound(padded)
    m["nt"] = nt_run, None
    return {k: v[0] for k, v in m.items()}, padded.nbytes


def bench_cell(spec, block, C, dtype, way, repeats):
    methods, nbytes = _methods(spec, block, C, dtype, way)
    times = {k: [] for k in methods}
    order = list(methods)
    shuffle = random.Random(zlib.crc32(f"{spec} {C} {dtype} {way}".encode())).shuffle
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeats):
            shuffle(order)
            for k in order:
                time.sleep(0.002)
                t0 = time.perf_counter()
                methods[k]()
                times[k].append(time.perf_counter() - t0)
    finally:
        gc.enable()
    med = {k: float(np.median(v)) for k, v in times.items()}
    return dict(cell=f"{spec} C={C} {dtype}", way=way, padded_bytes=nbytes, t_ms={k: v * 1e3 for k, v in med.items()},
                ratio=med["copyto"] / med["ours"], ratio_nt=med["nt"] / med["ours"],
                peers={k: med["copyto"] / v for k, v in med.items() if k not in ("ours", "copyto", "nt")})


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cells", default=None, help="substring of a cell's layout, e.g. NCHW8c")
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--json", default=None, help="also write the figures to this file (not under bench/results/, "
                    "whose files the docs read as matrices)")
    a = ap.parse_args(argv)
    info = _machine.machine_info()
    print(f"CPU: {info['cpu_model']}, {info['cores']} cores; N x C x H x W = {N} x C x {H} x {W}, 1 thread; "
          f"ratios = t(np.copyto of the padded side's bytes) / t(method)\n")
    print("| cell | way | ours ms | copyto ms | ours/copyto | ours/NT | two-pass | numpy | torch | target |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    results = []
    for spec, block, C, dtype in CELLS:
        if a.cells and a.cells not in spec:
            continue
        for way in ("in", "back"):
            r = bench_cell(spec, block, C, dtype, way, a.repeats)
            results.append(r)
            p = r["peers"]
            cols = " | ".join(f"{p[k]:.2f}" if k in p else "-" for k in ("two-pass", "numpy", "torch"))
            print(f"| {r['cell']} | {way} | {r['t_ms']['ours']:.2f} | {r['t_ms']['copyto']:.2f} | {r['ratio']:.2f} | "
                  f"{r['ratio_nt']:.2f} | {cols} | {'met' if r['ratio'] >= TARGET else 'MISSED'} |", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(machine=info, cells=results), f, indent=1)


if __name__ == "__main__":
    main()
