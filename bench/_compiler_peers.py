"""Optional peers that compile a layout transform: Apache TVM's ``topi.layout_transform`` and
OpenVINO's CPU ``Transpose``. Each is used where its package is installed (``pip install
apache-tvm openvino``) and skipped otherwise; both write into their own preallocated output.

- ``tvm``: the best of TVM's default schedule and a tiled one whose two tile sizes (the
  dst-contiguous loop and the source-contiguous loop, each 4..64) are searched on the tensor
  itself, as a user tuning it would (``TILES``); one thread (``TVM_NUM_THREADS=1``); it reads
  ``x`` and writes ``out`` in place (DLPack).
- ``openvino``: a one-node model (``Parameter -> Transpose``) compiled for the CPU with one
  inference thread, run on the same input each call. Blocked layouts are not transposes: skipped.

Compile and search time is spent before the timing; the benchmark times only the call.

>>> tvm_loop_roles("NCHW", "NHWC"), tvm_loop_roles("NCHW", "NCHW16c"), tvm_loop_roles("NHWC", "CHWN")
((3, 2), (4, 3), (3, 0))
"""

from __future__ import annotations

import os
import time

import numpy as np

__all__ = ["tvm_peer", "openvino_peer", "tvm_loop_roles", "TILES"]

#: the tile sizes the TVM search tries for each of the two loops
TILES = (4, 8, 16, 32, 64)


def _dims(spec: str) -> list[str]:
    """'NCHW16c' -> ['N', 'C', 'H', 'W', '16c'] (a block is its digits and letter)."""
    out, digits = [], ""
    for ch in spec:
        if ch.isdigit():
            digits += ch
        else:
            out.append(digits + ch if digits else ch)
            digits = ""
    return out


def tvm_loop_roles(src: str, dst: str) -> tuple[int, int]:
    """(i, j): the dst loop that is contiguous in dst (its last) and the dst loop that runs along
    the source's contiguous dim, for TVM's tiled schedule."""
    sd, dd = _dims(src), _dims(dst)
    inner = sd[-1]
    letter = inner[-1].upper()
    if inner[-1].islower():                       # a block of C: the dst dim holding C's low bits
        j = next((k for k, d in enumerate(dd) if d[-1] == inner[-1]), dd.index(letter))
    else:
        j = dd.index(letter) if letter in dd else dd.index(next(d for d in dd if d[-1].lower() == letter.lower()))
    return len(dd) - 1, j


def tvm_peer(src: str, dst: str, x: np.ndarray, out: np.ndarray, budget_s: float = 20.0):
    """``run()`` writing ``out`` (dst layout) from ``x`` (src layout) with TVM's fastest schedule
    found within ``budget_s``, and a description; None when TVM is missing or refuses the pair."""
    os.environ.setdefault("TVM_NUM_THREADS", "1")
    try:
        import tvm
        from tvm import te, topi
    except ImportError:
        return None
    A = te.placeholder(x.shape, str(x.dtype), name="A")
    try:
        B = topi.layout_transform(A, src, dst)
    except Exception:  # noqa: BLE001 - a pair TVM's grammar does not take
        return None
    shape = tuple(int(s) for s in B.shape)
    if shape != out.shape:          # the bench's output of a blocked source is 5-D: the same bytes
        if int(np.prod(shape)) != out.size or not out.flags.c_contiguous:
            return None
        out = out.reshape(shape)
    func = te.create_prim_func([A, B])
    if out.ctypes.data % 64:
        return None                          # TVM takes 64-byte aligned buffers only
    x = x if x.ctypes.data % 64 == 0 else _aligned_copy(x)
    a, b = tvm.runtime.from_dlpack(x), tvm.runtime.from_dlpack(out)     # zero-copy: TVM writes ``out``

    def timed(f):
        f(a, b)
        t0 = time.perf_counter()
        f(a, b)
        return time.perf_counter() - t0

    best = (timed(f := tvm.compile(func, target="llvm")), f, "default schedule")
    i, j = tvm_loop_roles(src, dst)
    start = time.perf_counter()
    for ti in TILES:
        for tj in TILES:
            if time.perf_counter() - start > budget_s or i == j:
                break
            sch = tvm.s_tir.Schedule(func)
            blk = sch.get_sblock("T_layout_trans")
            loops = sch.get_loops(blk)
            io, ii = sch.split(loops[i], [None, ti])
            jo, ji = sch.split(loops[j], [None, tj])
            outer = [lp for k, lp in enumerate(loops) if k not in (i, j)]
            sch.reorder(*outer, jo, io, ji, ii)
            sch.vectorize(ii)
            try:
                f = tvm.compile(sch.mod, target="llvm")
            except Exception:  # noqa: BLE001 - a tiling TVM cannot lower: not a candidate
                continue
            t = timed(f)
            if t < best[0]:
                best = (t, f, f"tiles {ti}x{tj}")
    f = best[1]

    def run():
        f(a, b)
    return run, f"TVM {tvm.__version__} topi.layout_transform, {best[2]}"


def _aligned_copy(x: np.ndarray) -> np.ndarray:
    """The same bytes in a 64-byte aligned array (outside the timing)."""
    buf = np.empty(x.nbytes + 64, np.uint8)
    start = (-buf.ctypes.data) % 64
    y = buf[start:start + x.nbytes].view(x.dtype).reshape(x.shape)
    np.copyto(y, x)
    return y


def openvino_peer(src: str, dst: str, x: np.ndarray, out: np.ndarray):
    """``run()`` of an OpenVINO CPU Transpose from ``src`` to ``dst`` (plain axis orders only),
    and a description; None when OpenVINO is missing or the pair is not a transpose."""
    if any(ch.isdigit() or ch.islower() for ch in src + dst) or sorted(src) != sorted(dst):
        return None
    try:
        import openvino as ov
        from openvino import opset13 as ops
    except ImportError:
        try:
            import openvino as ov
            import openvino.runtime.opset13 as ops
        except ImportError:
            return None
    perm = [src.index(a) for a in dst]
    p = ops.parameter(list(x.shape), ov.Type(x.dtype) if hasattr(ov, "Type") else None)
    t = ops.transpose(p, ops.constant(np.array(perm, np.int64)))
    model = ov.Model([t], [p])
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_NUM_THREADS": 1})
    request = compiled.create_infer_request()
    request.set_input_tensor(ov.Tensor(x, shared_memory=True))
    request.set_output_tensor(ov.Tensor(out, shared_memory=True))
    request.infer()
    if not np.array_equal(out, x.transpose(perm)):
        return None

    def run():
        request.infer()
    return run, f"OpenVINO {ov.__version__.split('-')[0]} CPU Transpose"
