"""Register-tile transposes emitted as LLVM ``shufflevector`` (numba ``@intrinsic``).

numba runs LLVM without the SLP vectoriser, so a straight-line micro-tile stays
scalar.  Here the tile is written directly in LLVM IR through llvmlite's builder:

* load ``K*L`` source rows of ``L`` units each (row stride ``sstride`` units),
* put the ``K`` groups of ``L`` rows side by side, one group per 128-bit lane,
* transpose all ``K`` groups at once with ``log2(L)`` lane-wise zip stages
  (``shufflevector``), which leaves column ``c`` of every group in one vector of
  ``K*L`` units (64 bytes for every unit size), stored at ``doff + c*dstride``.

``tile_nt`` marks the stores ``!nontemporal`` and 64-byte aligned: the caller must
guarantee that every store address is 64-byte aligned. ``tile_nt_pair`` transposes the next
``K*L`` source rows too and stores each column's two lines one after the other (``doff`` and
``doff + K*L``): streamed out of the cache, a line into each of many rows at a time leaves write
bandwidth unused that two lines a row do not.  ``tile`` uses plain
unaligned stores.  The unit type (uint8/16/32/64) is taken from the array dtype.

``TILE_SHAPE[bits] == (L, K)``; ``K*L*bits == 512`` for every unit.

>>> import numpy as np, numba
>>> from layouts.kernels.jit.simd import tile, TILE_SHAPE
>>> @numba.njit
... def t(d, s):
...     tile(d, np.uint64(0), np.uint64(16), s, np.uint64(0), np.uint64(4))
>>> L, K = TILE_SHAPE[32]
>>> s = np.arange(16 * 4, dtype=np.uint32); d = np.zeros(4 * 16, np.uint32)
>>> t(d, s)
>>> bool((d.reshape(4, 16) == s.reshape(16, 4).T).all())
True
>>> from layouts.kernels.jit.simd import tile_nt_pair
>>> @numba.njit
... def pair(d, s):
...     tile_nt_pair(d, np.uint64(0), np.uint64(32), s, np.uint64(0), np.uint64(4))
>>> buf = np.zeros(4 * 32 + 16, np.uint32)
>>> d = buf[(-buf.ctypes.data) % 64 // 4:][:4 * 32]        # 64-byte aligned, as streaming needs
>>> s = np.arange(32 * 4, dtype=np.uint32)
>>> pair(d, s)
>>> bool((d.reshape(4, 32) == s.reshape(32, 4).T).all())
True
"""

from llvmlite import ir
from numba.core import cgutils, types
from numba.core.extending import intrinsic

from ..geometry import TILE_SHAPE

__all__ = ["tile", "tile_nt", "tile_nt_pair", "tile_nt_split", "tile_nt_gather", "tile_nt_scatter", "tile_scatter", "tile_k1",
           "tile_k2", "prefetch", "tile_lines1", "tile_lines1_nt", "tile_lines2", "tile_lines2_nt",
           "tile_lines2_nt_first", "tile_lines2_nt_carry", "nt_line", "zip4", "pack_lines", "pack_lines_nt",
           "unpack_lines", "unpack_lines_nt", "TILE_SHAPE"]

def _zip_masks(L, K):
    """Interleave masks of the low and high halves of two vectors of K lanes of L units, lane by
    lane (x86's punpckl / punpckh on 128-bit lanes)."""
    i32 = ir.IntType(32)
    n = K * L
    lo = [x for g in range(K) for m in range(L // 2) for x in (g * L + m, n + g * L + m)]
    hi = [x for g in range(K) for m in range(L // 2, L) for x in (g * L + m, n + g * L + m)]
    return ir.Constant(ir.VectorType(i32, n), lo), ir.Constant(ir.VectorType(i32, n), hi)


def _zipped(builder, v, L, K):
    """The ``log2(L)`` lane-wise zip stages over the ``L`` vectors ``v`` (``K`` lanes of ``L``
    units each): where lane g of ``v[m]`` holds row m of a group, lane g of the m-th vector
    returned holds column m of it."""
    lo, hi = _zip_masks(L, K)
    h = L // 2
    for _ in range(L.bit_length() - 1):
        new = [None] * L
        for m in range(h):
            new[2 * m] = builder.shuffle_vector(v[m], v[m + h], lo)
            new[2 * m + 1] = builder.shuffle_vector(v[m], v[m + h], hi)
        v = new
    return v


def _stacked(builder, parts, n):
    """One vector of the vectors ``parts`` (``n`` units each) side by side, first part lowest."""
    i32 = ir.IntType(32)
    while len(parts) > 1:
        mask = ir.Constant(ir.VectorType(i32, 2 * n), list(range(2 * n)))
        parts = [builder.shuffle_vector(parts[q], parts[q + 1], mask) for q in range(0, len(parts), 2)]
        n *= 2
    return parts[0]


def _listed(builder, ary, first, k: int, add):
    """``ary[first + k] + add``: a row offset read from a uint64 offset array (gather, scatter)."""
    i64 = ir.IntType(64)
    p = builder.gep(ary.data, [builder.add(first, ir.Constant(i64, k))], inbounds=True, source_etype=i64)
    return builder.add(builder.load(p, typ=i64), add)


def _make(nontemporal, kk=None, split=False, gather=False, scatter=False, pair=False):
    def tile_impl(typingctx, dst, doff, dstride, src, soff, sstride, *more):
        if not (isinstance(dst, types.Array) and isinstance(src, types.Array)):
            return None
        if gather and not (isinstance(soff, types.Array) and soff.dtype == types.uint64):
            return None
        if scatter and not (isinstance(doff, types.Array) and doff.dtype == types.uint64):
            return None
        if dst.dtype != src.dtype or not isinstance(dst.dtype, types.Integer):
            return None
        bits = dst.dtype.bitwidth
        L, K = TILE_SHAPE[bits]
        if kk is not None:
            K = kk
        sig = types.void(dst, doff, dstride, src, soff, sstride, *more)

        def codegen(context, builder, signature, args):
            dary = context.make_array(signature.args[0])(context, builder, args[0])
            sary = context.make_array(signature.args[3])(context, builder, args[3])
            d_off, d_st, s_off, s_st = args[1], args[2], args[4], args[5]
            elt = ir.IntType(bits)
            vin = ir.VectorType(elt, L)
            vout = ir.VectorType(elt, K * L)
            i64 = ir.IntType(64)
            ub = bits // 8
            if gather:          # soff is the uint64 array of row offsets, sstride the first index, more[0] j
                rary = context.make_array(signature.args[4])(context, builder, args[4])

            def transposed(first_row):
                """Source rows first_row .. first_row + K*L - 1 of the tile, transposed: L vectors,
                column c's 64-byte line in the c-th."""
                rows = []
                for r in range(first_row, first_row + K * L):
                    if gather:
                        off = _listed(builder, rary, s_st, r, args[6])
                    else:
                        off = builder.add(s_off, builder.mul(s_st, ir.Constant(i64, r)))
                    if split:       # rows r >= nsplit start over at soff2
                        rr = ir.Constant(i64, r)
                        off2 = builder.add(args[6], builder.mul(s_st, builder.sub(rr, args[7])))
                        off = builder.select(builder.icmp_unsigned("<", rr, args[7]), off, off2)
                    p = builder.gep(sary.data, [off], inbounds=True, source_etype=elt)
                    p = builder.bitcast(p, vin.as_pointer())
                    rows.append(builder.load(p, align=ub, typ=vin))
                # the K groups side by side, one per 128-bit lane: v[m] holds row g*L + m in lane g,
                # so each zip stage is one lane-wise interleave (punpck) over all K groups at once and
                # the last stage leaves column c's whole 64-byte line in v[c], with no concatenation
                return _zipped(builder, [_stacked(builder, [rows[g * L + m] for g in range(K)], L)
                                         for m in range(L)], L, K)

            # a pair: the next K*L rows too, whose lines follow in each dst row, so that every row
            # gets two lines in a row (one line per row at a time streams slower out of the cache)
            tiles = [transposed(0)] + ([transposed(K * L)] if pair else [])
            md = builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)]) if nontemporal else None
            if scatter:         # doff is the uint64 array of dst row offsets, dstride the first index, more[0] i
                drary = context.make_array(signature.args[1])(context, builder, args[1])
            for c in range(L):
                if scatter:
                    off = _listed(builder, drary, d_st, c, args[6])
                else:
                    off = builder.add(d_off, builder.mul(d_st, ir.Constant(i64, c)))
                for t, v in enumerate(tiles):
                    p = builder.gep(dary.data, [builder.add(off, ir.Constant(i64, t * K * L))], inbounds=True,
                                    source_etype=elt)
                    p = builder.bitcast(p, vout.as_pointer())
                    st = builder.store(v[c], p, align=64 if nontemporal else ub)
                    if nontemporal:
                        st.set_metadata("nontemporal", md)
            return context.get_dummy_value()

        return sig, codegen

    if scatter:
        def impl(typingctx, dst, rows, first, src, soff, sstride, ioff):
            return tile_impl(typingctx, dst, rows, first, src, soff, sstride, ioff)
    elif gather:
        def impl(typingctx, dst, doff, dstride, src, rows, first, joff):
            return tile_impl(typingctx, dst, doff, dstride, src, rows, first, joff)
    elif split:
        def impl(typingctx, dst, doff, dstride, src, soff, sstride, soff2, nsplit):
            return tile_impl(typingctx, dst, doff, dstride, src, soff, sstride, soff2, nsplit)
    else:
        def impl(typingctx, dst, doff, dstride, src, soff, sstride):
            return tile_impl(typingctx, dst, doff, dstride, src, soff, sstride)
    impl.__name__ = ("tile_nt" if nontemporal else "tile") + (f"_k{kk}" if kk else "") + \
        ("_split" if split else "") + ("_gather" if gather else "") + ("_scatter" if scatter else "") + \
        ("_pair" if pair else "")
    return intrinsic(impl)


tile = _make(False)
tile_nt = _make(True)
#: two tiles of i at once, ``K*L`` rows apart: each dst row gets its two lines one after the other
tile_nt_pair = _make(True, pair=True)
# narrow tiles (K = 1 or 2 groups: L or 2L rows of i) for short dst rows such as the
# 16 channels of NCHW16c in uint8/uint16; plain stores
tile_k1 = _make(False, 1)
tile_k2 = _make(False, 2)
# a tile whose rows r >= nsplit come from soff2 + (r - nsplit)*sstride: with dst rows that
# follow each other (dJ == ni) and ni a multiple of the tile height, the 64-byte line that
# straddles dst rows j and j+1 (tail of row j, head of row j+1) is one tile.  NT stores.
tile_nt_split = _make(True, None, True)
# a tile whose K*L source rows start anywhere: row r at rows[first + r] + joff (rows: uint64
# offsets), for dst rows shorter than a tile whose rows follow each other across batch indices
# (CHWN->NHWC with C=3: a tile takes the channels of several pixels). NT stores.
tile_nt_gather = _make(True, None, False, True)
# the same with plain stores, for a copy small enough that its output should stay in cache
tile_gather = _make(False, None, False, True)
# its mirror: dst row c at rows[first + c] + ioff, for src rows shorter than a tile that follow
# each other across batch indices (NHWC->CHWN with C=3: a tile's columns span several pixels)
tile_nt_scatter = _make(True, None, False, False, True)
# the same with plain unaligned stores, for a dst whose rows are not 64-byte aligned
tile_scatter = _make(False, None, False, False, True)


def _make_lines(nontemporal, gi, shifted=None):
    """A tile for dst rows of ``gi`` groups (``gi*L`` units) that follow each other (NCHW16c in
    uint8 or float16, NCHW8c in float32): its ``K`` lanes hold ``gi`` groups of i by ``K // gi``
    groups of j, so each source row is read ``K // gi * L`` units at a time instead of ``L``; after
    the lane-wise zips the lanes are put in dst order, whole 64-byte lines of ``K // gi``
    consecutive dst rows.

    ``tile_lines(dst, doff, src, soff, sstride)``: dst[doff + j*gi*L + i] = src[soff + i*sstride + j]
    for i < gi*L, j < (K // gi) * L.

    ``shifted`` (non-temporal only): the tile's first unit lies one lane (16 bytes) past a line,
    so each line stored is the last lane of one tile line and the first three of the next, the
    last lane left in ``carry`` (an array of one lane's units, an extra argument) for the next
    tile of the run, whose first line takes it (``"carry"``); the first tile of a run (``"first"``)
    stores its first three lanes with plain stores instead. The caller stores the last carry."""
    def lines_impl(typingctx, dst, doff, src, soff, sstride, *carry):
        if not (isinstance(dst, types.Array) and isinstance(src, types.Array) and dst.dtype == src.dtype
                and isinstance(dst.dtype, types.Integer)):
            return None
        if len(carry) != (1 if shifted else 0) or (shifted and not (isinstance(carry[0], types.Array)
                                                                     and carry[0].dtype == dst.dtype)):
            return None
        bits = dst.dtype.bitwidth
        L, K = TILE_SHAPE[bits]
        gj = K // gi

        def codegen(context, builder, signature, args):
            dary = context.make_array(signature.args[0])(context, builder, args[0])
            sary = context.make_array(signature.args[2])(context, builder, args[2])
            d_off, s_off, s_st = args[1], args[3], args[4]
            elt, i32, i64 = ir.IntType(bits), ir.IntType(32), ir.IntType(64)
            vin = ir.VectorType(elt, gj * L)
            rows = []
            for r in range(gi * L):
                off = builder.add(s_off, builder.mul(s_st, ir.Constant(i64, r)))
                p = builder.bitcast(builder.gep(sary.data, [off], inbounds=True, source_etype=elt), vin.as_pointer())
                rows.append(builder.load(p, align=bits // 8, typ=vin))
            # lane g*gj + b of v[m]: row g*L + m, columns b*L.. (one load covers a row's gj lanes)
            v = _zipped(builder, [_stacked(builder, [rows[g * L + m] for g in range(gi)], gj * L)
                                  for m in range(L)], L, K)
            # now lane g*gj + b of v[c] is dst row b*L + c, units g*L..: dst lane t (row t // gi,
            # group t % gi) of line q comes from there
            lines = []
            for q in range(L):
                src_lanes = []
                for t in range(K * q, K * q + K):
                    row, g = divmod(t, gi)
                    b, c = divmod(row, L)
                    src_lanes.append((c, g * gj + b))
                lines.append(_gathered_lanes(builder, v, src_lanes, L, K))
            md = builder.module.add_metadata([ir.Constant(i32, 1)]) if nontemporal else None

            def mask(m):
                return ir.Constant(ir.VectorType(i32, len(m)), m)

            def store(vec, at, n, stream):          # vec's first n units at unit offset ``at``
                if n < K * L:
                    vec = builder.shuffle_vector(vec, vec, mask(list(range(n))))
                p = builder.bitcast(builder.gep(dary.data, [at], inbounds=True, source_etype=elt),
                                    ir.VectorType(elt, n).as_pointer())
                st = builder.store(vec, p, align=64 if stream else bits // 8)
                if stream:
                    st.set_metadata("nontemporal", md)

            if not shifted:
                for q in range(L):
                    store(lines[q], builder.add(d_off, ir.Constant(i64, q * K * L)), K * L, nontemporal)
                return context.get_dummy_value()
            n = K * L
            cary = context.make_array(signature.args[5])(context, builder, args[5])
            cptr = builder.bitcast(cary.data, ir.VectorType(elt, L).as_pointer())
            last_lane = [(K - 1) * L + u for u in range(L)]
            rest = [n + u for u in range((K - 1) * L)]      # the first K - 1 lanes of the second vector
            if shifted == "carry":              # the line before the tile: the carry, then lanes 0-2
                held = builder.load(cptr, align=bits // 8)
                wide = builder.shuffle_vector(held, held, mask([u % L for u in range(n)]))
                store(builder.shuffle_vector(wide, lines[0], mask(list(range(L)) + rest)),
                      builder.sub(d_off, ir.Constant(i64, L)), n, True)
            else:                               # the run's first tile: its first lanes, plainly
                store(lines[0], d_off, (K - 1) * L, False)
            for q in range(1, L):
                line = builder.shuffle_vector(lines[q - 1], lines[q], mask(last_lane + rest))
                store(line, builder.add(d_off, ir.Constant(i64, q * n - L)), n, True)
            builder.store(builder.shuffle_vector(lines[L - 1], lines[L - 1], mask(last_lane)), cptr, align=bits // 8)
            return context.get_dummy_value()

        return types.void(dst, doff, src, soff, sstride, *carry), codegen

    if shifted:
        def impl(typingctx, dst, doff, src, soff, sstride, carry):
            return lines_impl(typingctx, dst, doff, src, soff, sstride, carry)
    else:
        def impl(typingctx, dst, doff, src, soff, sstride):
            return lines_impl(typingctx, dst, doff, src, soff, sstride)
    impl.__name__ = f"tile_lines{gi}" + ("_nt" if nontemporal else "") + (f"_{shifted}" if shifted else "")
    return intrinsic(impl)


def _gathered_lanes(builder, v, lanes, L, K):
    """One vector of ``K`` lanes of ``L`` units whose lane ``t`` is lane ``lanes[t][1]`` of vector
    ``v[lanes[t][0]]``: one shuffle of two vectors, or a shuffle of two such halves."""
    i32 = ir.IntType(32)
    n = K * L

    def shuffled(a, b, picks):          # picks: per output lane, (0 for a / 1 for b, lane)
        mask = [w * n + lane * L + u for w, lane in picks for u in range(L)]
        return builder.shuffle_vector(a, b, ir.Constant(ir.VectorType(i32, n), mask))

    used = list(dict.fromkeys(c for c, _ in lanes))
    if len(used) <= 2:
        b = v[used[-1]]
        return shuffled(v[used[0]], b, [(used.index(c), lane) for c, lane in lanes])
    h = len(lanes) // 2
    # each half gathered into a whole vector (its lanes twice over), then the two halves joined
    halves = [_gathered_lanes(builder, v, part + part, L, K) for part in (lanes[:h], lanes[h:])]
    return shuffled(halves[0], halves[1], [(0, t) for t in range(h)] + [(1, h + t) for t in range(h)])


# dst rows of one or two groups that follow each other (NCHW16c in uint8 or float16, NCHW8c in
# float32), stored as whole lines
tile_lines1 = _make_lines(False, 1)
tile_lines1_nt = _make_lines(True, 1)
tile_lines2 = _make_lines(False, 2)
tile_lines2_nt = _make_lines(True, 2)
# ... into rows that start a lane past a line (32-byte rows 16 bytes off the grid: numpy's arrays)
tile_lines2_nt_first = _make_lines(True, 2, "first")
tile_lines2_nt_carry = _make_lines(True, 2, "carry")


@intrinsic
def prefetch(typingctx, arr, off):
    """Software prefetch (read, keep in all levels) of ``arr[off]``; never faults."""
    if not isinstance(arr, types.Array):
        return None
    sig = types.void(arr, off)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i8p = ir.IntType(8).as_pointer()
        p = builder.gep(ary.data, [args[1]], inbounds=False)
        p = builder.bitcast(p, i8p)
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [p, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def nt_line(typingctx, dst, doff, src, soff):
    """``dst[doff:]`` <- ``src[soff:]``, 64 bytes: an unaligned load and a non-temporal store,
    which the caller must place on a 64-byte boundary (a whole cache line, written past the cache)."""
    if not (isinstance(dst, types.Array) and isinstance(src, types.Array) and dst.dtype == src.dtype
            and isinstance(dst.dtype, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        dary = context.make_array(signature.args[0])(context, builder, args[0])
        sary = context.make_array(signature.args[2])(context, builder, args[2])
        elt = ir.IntType(signature.args[0].dtype.bitwidth)
        vt = ir.VectorType(ir.IntType(64), 8)
        sp = builder.bitcast(builder.gep(sary.data, [args[3]], inbounds=True, source_etype=elt), vt.as_pointer())
        dp = builder.bitcast(builder.gep(dary.data, [args[1]], inbounds=True, source_etype=elt), vt.as_pointer())
        st = builder.store(builder.load(sp, align=1, typ=vt), dp, align=64)
        st.set_metadata("nontemporal", builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)]))
        return context.get_dummy_value()

    return types.void(dst, doff, src, soff), codegen


@intrinsic
def zip4(typingctx, dst, doff, src, soff, sstride):
    """``dst[doff + j] = src[r0 + j] | src[r1 + j] << 8 | src[r2 + j] << 16 | src[r3 + j] << 24``
    for j < 32, rows ``rk = soff + k*sstride``: uint8 -> uint32 words by two rounds of
    byte / 16-bit interleaves (punpckl/h) instead of widening each byte to a word.
    Does nothing for a source of other integer units (typed so that callers generic in the
    unit size compile; they must call it only for uint8).

    >>> import numpy as np, numba
    >>> @numba.njit
    ... def z(d, s):
    ...     zip4(d, np.uint64(0), s, np.uint64(0), np.uint64(40))
    >>> s = np.arange(160, dtype=np.uint8); d = np.zeros(32, np.uint32)
    >>> z(d, s)
    >>> bool((d == s[0:32].astype(np.uint32) | s[40:72].astype(np.uint32) << 8
    ...       | s[80:112].astype(np.uint32) << 16 | s[120:152].astype(np.uint32) << 24).all())
    True"""
    if not (isinstance(dst, types.Array) and isinstance(src, types.Array)):
        return None
    if dst.dtype != types.uint32 or not isinstance(src.dtype, types.Integer):
        return None
    sig = types.void(dst, doff, src, soff, sstride)

    def codegen(context, builder, signature, args):
        if signature.args[2].dtype.bitwidth != 8:     # a no-op (typed for shared code paths)
            return context.get_dummy_value()
        dary = context.make_array(signature.args[0])(context, builder, args[0])
        sary = context.make_array(signature.args[2])(context, builder, args[2])
        d_off, s_off, s_st = args[1], args[3], args[4]
        i8, i16, i32, i64 = ir.IntType(8), ir.IntType(16), ir.IntType(32), ir.IntType(64)
        vin = ir.VectorType(i8, 32)
        rows = []
        for r in range(4):
            off = builder.add(s_off, builder.mul(s_st, ir.Constant(i64, r)))
            p = builder.gep(sary.data, [off], inbounds=True, source_etype=i8)
            rows.append(builder.load(builder.bitcast(p, vin.as_pointer()), align=1, typ=vin))
        m = ir.Constant(ir.VectorType(i32, 64), [x for j in range(32) for x in (j, j + 32)])
        ab = builder.bitcast(builder.shuffle_vector(rows[0], rows[1], m), ir.VectorType(i16, 32))
        cd = builder.bitcast(builder.shuffle_vector(rows[2], rows[3], m), ir.VectorType(i16, 32))
        w = builder.bitcast(builder.shuffle_vector(ab, cd, m), ir.VectorType(i32, 32))
        p = builder.gep(dary.data, [d_off], inbounds=True, source_etype=i32)
        builder.store(w, builder.bitcast(p, ir.VectorType(i32, 32).as_pointer()), align=4)
        return context.get_dummy_value()

    return sig, codegen


def _lines(nontemporal: bool, planar_dst: bool):
    """``C`` planes of one 64-byte line each <-> ``C`` lines of units interleaved by ``C``, through
    one vector of all ``C*V`` units (``V`` units a line) and one shuffle a line stored or loaded."""
    def impl(typingctx, dst, doff, dstride, src, soff, sstride, C):
        if not (isinstance(dst, types.Array) and isinstance(src, types.Array) and dst.dtype == src.dtype
                and isinstance(dst.dtype, types.Integer) and isinstance(C, types.IntegerLiteral)):
            return None
        c = C.literal_value
        bits = dst.dtype.bitwidth
        V = 512 // bits

        def codegen(context, builder, signature, args):
            dary = context.make_array(signature.args[0])(context, builder, args[0])
            sary = context.make_array(signature.args[3])(context, builder, args[3])
            elt, i32, i64 = ir.IntType(bits), ir.IntType(32), ir.IntType(64)
            vline = ir.VectorType(elt, V)

            def at(ary, off, k, stride):            # the k-th line: off + k*stride units
                p = builder.gep(ary.data, [builder.add(off, builder.mul(stride, ir.Constant(i64, k)))],
                                inbounds=True, source_etype=elt)
                return builder.bitcast(p, vline.as_pointer())
            one = ir.Constant(i64, V)
            lines = [builder.load(at(sary, args[4], k, args[5] if planar_dst is False else one), align=bits // 8,
                                  typ=vline) for k in range(c)]
            parts = lines + [ir.Constant(vline, ir.Undefined)] * ((1 << (c - 1).bit_length()) - c)
            whole = _stacked(builder, parts, V)
            undef = ir.Constant(whole.type, ir.Undefined)
            md = builder.module.add_metadata([ir.Constant(i32, 1)]) if nontemporal else None
            for k in range(c):
                # unit u of the interleaved run is unit u // c of plane u % c
                mask = ([u // c + (u % c) * V for u in range(k * V, (k + 1) * V)] if not planar_dst
                        else [k + c * m for m in range(V)])
                v = builder.shuffle_vector(whole, undef, ir.Constant(ir.VectorType(i32, V), mask))
                st = builder.store(v, at(dary, args[1], k, args[2] if planar_dst else one),
                                   align=64 if nontemporal else bits // 8)
                if nontemporal:
                    st.set_metadata("nontemporal", md)
            return context.get_dummy_value()

        return types.void(dst, doff, dstride, src, soff, sstride, C), codegen

    impl.__name__ = ("unpack" if planar_dst else "pack") + ("_lines_nt" if nontemporal else "_lines")
    return intrinsic(impl)


# C = 2-4 planes <-> pixels of C (NCHW <-> NHWC with C=3), a line of each plane per call:
# ``pack_lines(dst, doff, _, src, soff, sstride, C)``: dst[doff + j*C + c] = src[soff + c*sstride + j];
# ``unpack_lines(dst, doff, dstride, src, soff, _, C)``: dst[doff + c*dstride + i] = src[soff + i*C + c];
# for j, i < V = 64 bytes of units. The _nt forms store with non-temporal 64-byte aligned stores.
pack_lines = _lines(False, False)
pack_lines_nt = _lines(True, False)
unpack_lines = _lines(False, True)
unpack_lines_nt = _lines(True, True)
