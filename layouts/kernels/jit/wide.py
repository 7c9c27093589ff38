"""Register tiles of whole source lines for 4- and 8-byte units (``tiles-wide``, ``tiles-nt-wide``).

The tiles of :mod:`.simd` read 16 bytes of each of ``K*L`` source rows and put the rows side by
side, one per 128-bit lane, before their lane-wise zips: each source line is read in four loads
from four tiles, and the stacking costs a shuffle per row. A wide tile reads ``N = K*L`` source
rows whole (one 64-byte line each: 16 float32 or 8 float64) and writes ``N`` dst lines:

* the lane-wise zips of :mod:`.simd` transpose each group of ``L`` rows inside every lane at once,
  leaving in lane ``b`` of vector ``c`` of group ``g`` the piece of dst row ``b*L + c`` that
  group ``g``'s rows make;
* a ``K x K`` transpose of 128-bit lanes across the ``K`` groups then joins each dst row's pieces.

One load per line instead of four, and for 4-byte units fewer shuffles a line: on the Xeon of
the design notes the in-cache transpose of float32 took 44 ns/KiB against 52-62.

``tile_nt_wide(dst, doff, dstride, src, soff, sstride)``: ``dst[doff + c*dstride + r] =
src[soff + r*sstride + c]`` for ``r, c < N``, non-temporal aligned stores (every dst row's
``doff + c*dstride`` must be 64-byte aligned); ``tile_nt_wide_pair`` also does rows ``N..2N-1``
of i, each dst row's second line right after its first (two lines a row at a time stream faster);
``tile_wide`` stores with plain unaligned stores, for an output that stays in cache.

>>> import numpy as np, numba, layouts as ly
>>> from layouts.kernels.jit.wide import tile_nt_wide_pair, WIDE_SIDE
>>> @numba.njit
... def pair(d, s):
...     tile_nt_wide_pair(d, np.uint64(0), np.uint64(32), s, np.uint64(0), np.uint64(16))
>>> d = ly.aligned_empty(16 * 32, np.uint32)                 # 64-byte aligned, as streaming needs
>>> s = np.arange(32 * 16, dtype=np.uint32)
>>> pair(d, s)
>>> bool((d.reshape(16, 32) == s.reshape(32, 16).T).all()), WIDE_SIDE[4]
(True, 16)
"""

from llvmlite import ir
from numba.core import types
from numba.core.extending import intrinsic

from ..geometry import TILE_SHAPE, WIDE_SIDE
from .simd import _zipped

__all__ = ["WIDE_SIDE", "tile_wide", "tile_nt_wide", "tile_nt_wide_pair"]


def _lanes(builder, a, b, pick, L):
    """A vector of four 128-bit lanes taken from ``a`` (lanes 0-3) and ``b`` (4-7) as ``pick`` says."""
    i32 = ir.IntType(32)
    mask = [lane * L + u for lane in pick for u in range(L)]
    return builder.shuffle_vector(a, b, ir.Constant(ir.VectorType(i32, 4 * L), mask))


def _make_wide(nontemporal, pair=False):
    def impl(typingctx, dst, doff, dstride, src, soff, sstride):
        if not (isinstance(dst, types.Array) and isinstance(src, types.Array) and dst.dtype == src.dtype
                and isinstance(dst.dtype, types.Integer) and dst.dtype.bitwidth // 8 in WIDE_SIDE):
            return None
        bits = dst.dtype.bitwidth
        L, K = TILE_SHAPE[bits]
        N = K * L
        assert K == 4, "the lane transpose joins four 128-bit lanes"
        sig = types.void(dst, doff, dstride, src, soff, sstride)

        def codegen(context, builder, signature, args):
            dary = context.make_array(signature.args[0])(context, builder, args[0])
            sary = context.make_array(signature.args[3])(context, builder, args[3])
            d_off, d_st, s_off, s_st = args[1], args[2], args[4], args[5]
            elt, i64 = ir.IntType(bits), ir.IntType(64)
            line = ir.VectorType(elt, N)

            def transposed(first_row):
                """Source rows first_row .. first_row + N - 1, transposed: dst row q's line in the q-th."""
                rows = []
                for r in range(first_row, first_row + N):
                    off = builder.add(s_off, builder.mul(s_st, ir.Constant(i64, r)))
                    p = builder.bitcast(builder.gep(sary.data, [off], inbounds=True, source_etype=elt),
                                        line.as_pointer())
                    rows.append(builder.load(p, align=bits // 8, typ=line))
                # :mod:`.simd`'s zips inside every lane of each group of L rows at once: lane b of
                # groups[g][c] is dst row b*L + c, i from g*L
                groups = [_zipped(builder, rows[g * L:(g + 1) * L], L, K) for g in range(K)]
                out = [None] * N
                for c in range(L):          # lane b of dst row b*L + c from lane b of each group
                    a0, a1, a2, a3 = (groups[g][c] for g in range(K))
                    t0, t1 = _lanes(builder, a0, a1, (0, 1, 4, 5), L), _lanes(builder, a0, a1, (2, 3, 6, 7), L)
                    t2, t3 = _lanes(builder, a2, a3, (0, 1, 4, 5), L), _lanes(builder, a2, a3, (2, 3, 6, 7), L)
                    out[c] = _lanes(builder, t0, t2, (0, 2, 4, 6), L)
                    out[L + c] = _lanes(builder, t0, t2, (1, 3, 5, 7), L)
                    out[2 * L + c] = _lanes(builder, t1, t3, (0, 2, 4, 6), L)
                    out[3 * L + c] = _lanes(builder, t1, t3, (1, 3, 5, 7), L)
                return out

            tiles = [transposed(0)] + ([transposed(N)] if pair else [])
            md = builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)]) if nontemporal else None
            for q in range(N):
                off = builder.add(d_off, builder.mul(d_st, ir.Constant(i64, q)))
                for t, v in enumerate(tiles):
                    p = builder.gep(dary.data, [builder.add(off, ir.Constant(i64, t * N))], inbounds=True,
                                    source_etype=elt)
                    st = builder.store(v[q], builder.bitcast(p, line.as_pointer()),
                                       align=64 if nontemporal else bits // 8)
                    if nontemporal:
                        st.set_metadata("nontemporal", md)
            return context.get_dummy_value()

        return sig, codegen

    impl.__name__ = ("tile_nt_wide" if nontemporal else "tile_wide") + ("_pair" if pair else "")
    return intrinsic(impl)


tile_nt_wide = _make_wide(True)
#: two tiles of i at once, ``N`` rows apart: each dst row gets its two lines one after the other
tile_nt_wide_pair = _make_wide(True, pair=True)
#: plain unaligned stores (an output that stays in cache)
tile_wide = _make_wide(False)
