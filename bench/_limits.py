"""The machine's copy limit: a one-thread copy with vector loads and non-temporal stores.

    python bench/_limits.py               # GB/s of each store width against np.copyto
    python bench/_limits.py --two-cores   # how much two threads gain on a copy out of cache

``np.copyto`` reads the destination before writing it (read-for-ownership), so it moves
three streams for two; a copy whose stores bypass the cache (``!nontemporal``) moves only
the two it must, and is what the memory system allows one core to do.  The benchmark
reports every conversion as a ratio to this copy of the same bytes as well as to
``np.copyto``.

The stores are aligned: the destination is 64-byte aligned by :func:`aligned_empty`, and
:func:`nt_copy` copies any unaligned head byte by byte anyway, so every vector store lands
on a whole cache line.  Loads are unaligned (``align=1``): the source is wherever numpy put it.

>>> import numpy as np
>>> src = np.arange(1000, dtype=np.uint8)
>>> dst = aligned_empty(1003)[3:]             # an unaligned destination: head peeled
>>> nt_copy(src, dst)
>>> bool(np.array_equal(src, dst))
True
"""

import numpy as np

__all__ = ["aligned_empty", "nt_copy", "WIDTHS"]

WIDTHS = (16, 32, 64)       # bytes per vector store
_kernels = {}


def aligned_empty(nbytes, align=64):
    """A uint8 array of ``nbytes`` whose first byte is ``align``-byte aligned."""
    buf = np.empty(nbytes + align, np.uint8)
    off = (-buf.ctypes.data) % align
    return buf[off:off + nbytes]


def _build(width):
    from llvmlite import ir
    from numba import njit, types
    from numba.extending import intrinsic

    lanes = width // 8

    @intrinsic
    def _nt_vec(typingctx, src, dst, i):
        """dst[i:i+width] = src[i:i+width]: unaligned vector load, aligned non-temporal store."""
        def codegen(context, builder, sig, args):
            s, d, idx = args
            sa = context.make_array(sig.args[0])(context, builder, s)
            da = context.make_array(sig.args[1])(context, builder, d)
            vt = ir.VectorType(ir.IntType(64), lanes)
            sp = builder.bitcast(builder.gep(sa.data, [idx]), vt.as_pointer())
            dp = builder.bitcast(builder.gep(da.data, [idx]), vt.as_pointer())
            v = builder.load(sp, align=1)
            st = builder.store(v, dp, align=width)
            st.set_metadata("nontemporal", builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)]))
            return context.get_dummy_value()
        return types.void(src, dst, i), codegen

    @intrinsic
    def _fence(typingctx):
        """Order the weakly ordered NT stores before anything after the copy (an mfence)."""
        def codegen(context, builder, sig, args):
            builder.fence("seq_cst")
            return context.get_dummy_value()
        return types.void(), codegen

    @njit(boundscheck=False, nogil=True)
    def copy(src, dst, head):
        n = src.size
        i = 0
        while i < head and i < n:           # peel up to the first aligned byte of dst
            dst[i] = src[i]
            i += 1
        while i + 2 * width <= n:
            _nt_vec(src, dst, i)
            _nt_vec(src, dst, i + width)
            i += 2 * width
        while i + width <= n:
            _nt_vec(src, dst, i)
            i += width
        while i < n:
            dst[i] = src[i]
            i += 1
        _fence()

    return copy


def nt_copy(src, dst, width=64):
    """``dst[...] = src`` for C-contiguous arrays of the same byte size, with NT stores."""
    if width not in WIDTHS:
        raise ValueError(f"nt_copy: width must be one of {WIDTHS}, got {width}")
    s = src.reshape(-1).view(np.uint8)
    d = dst.reshape(-1).view(np.uint8)
    if s.size != d.size:
        raise ValueError(f"nt_copy: src has {s.size} bytes, dst {d.size}")
    k = _kernels.get(width)
    if k is None:
        k = _kernels[width] = _build(width)
    k(s, d, (-d.ctypes.data) % width)


def bound(src, width=64):
    """A callable copying ``src`` (contiguous) with :func:`nt_copy` into a fresh aligned buffer,
    and that buffer, for timing; the buffer is faulted in by one call."""
    dst = aligned_empty(src.nbytes)
    nt_copy(src, dst, width)
    s = src.reshape(-1).view(np.uint8)
    k = _kernels[width]
    return (lambda: k(s, dst, 0)), dst


def two_core_scaling(nbytes=100 << 20, rounds=11):
    """How much faster two threads copy than one, out of cache: the ceiling of any two-thread
    conversion on this machine. Medians of interleaved rounds of {name: (1-thread s, 2-thread s)}
    for the NT copy and np.copyto, the 2-thread runs copying one half each on their own thread
    (both kernels release the GIL)."""
    import statistics
    import threading
    import time
    a = (np.arange(nbytes // 8, dtype=np.uint64) * 0x9E3779B97F4A7C15).view(np.uint8)
    b = aligned_empty(nbytes)
    nt_copy(a, b)
    k = _kernels[64]
    half = nbytes // 2 // 64 * 64
    parts = ((a[:half], b[:half]), (a[half:], b[half:]))
    ways = {"nt": lambda s, d: k(s, d, 0), "np.copyto": lambda s, d: np.copyto(d, s)}

    def two(way):
        ts = [threading.Thread(target=way, args=p) for p in parts]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    runs = {}
    for name, way in ways.items():
        runs[(name, 1)] = lambda way=way: way(a, b)
        runs[(name, 2)] = lambda way=way: two(way)
    times = {key: [] for key in runs}
    for _ in range(rounds):
        for key, run in runs.items():
            t = time.perf_counter()
            run()
            times[key].append(time.perf_counter() - t)
    med = {key: statistics.median(v) for key, v in times.items()}
    return {name: (med[(name, 1)], med[(name, 2)]) for name in ways}


if __name__ == "__main__":       # which store width is fastest here (out of cache)?
    import statistics
    import sys
    import time
    if "--two-cores" in sys.argv:
        for name, (t1, t2) in two_core_scaling().items():
            print(f"{name:10s} 1 thread {2 * (100 << 20) / t1 / 1e9:5.1f} GB/s, 2 threads "
                  f"{2 * (100 << 20) / t2 / 1e9:5.1f} GB/s: x{t1 / t2:.2f}")
        sys.exit()
    for nbytes in (3 << 20, 100 << 20):
        a = (np.arange(nbytes // 8, dtype=np.uint64) * 0x9E3779B97F4A7C15).view(np.uint8)
        b = np.empty_like(a)
        fs = {"np.copyto": lambda: np.copyto(b, a)}
        for w in WIDTHS:
            f, d = bound(a, w)
            assert np.array_equal(d, a)
            fs[f"nt{w}"] = f
        ts = {k: [] for k in fs}
        for _ in range(11):
            for k, f in fs.items():
                t = time.perf_counter(); f(); ts[k].append(time.perf_counter() - t)
        tc = statistics.median(ts["np.copyto"])
        print(f"{nbytes / 1e6:7.1f} MB " + "  ".join(
            f"{k} {2 * nbytes / statistics.median(v) / 1e9:5.1f} GB/s ({tc / statistics.median(v):.2f})"
            for k, v in ts.items()))
