"""A blocked axis with padding: planes <-> rows of ``P`` units whose slots past ``C`` are padding.

    pad_kernel:    dst[db + j*P + c] = src[sb + c*sC + j*sJ]  for c < C,  0 for C <= c < P
    unpad_kernel:  dst[db + c*dC + i] = src[sb + i*P + c]     for c < C   (the padding is skipped)

``NCHW`` -> ``NCHW16c`` with ``C=3`` is ``pad_kernel`` over the pixels of each image: every
destination line is written once, data and zeros together, instead of a copy of 3 units a row
and a zero fill of the other 13 (two passes over the same lines). ``NCHW16c`` -> ``NCHW`` is
``unpad_kernel``.

Where ``P`` is a power of two from 4 to :data:`VECTOR_P` and the pixels are unit-stride on the
plane side, ``V`` pixels (a 64-byte line of a plane) move at a time: ``P`` plane lines (the
ones past ``C`` are zero vectors) are transposed in registers by ``log2(P)`` rounds of
interleaves into the ``P`` lines of ``V`` rows (and back by de-interleaves). The rows past the
last whole line, other ``P`` and strided pixels take the scalar loop. ``pad_nt_kernel`` and
``unpad_nt_kernel`` store those lines with non-temporal stores where they start on a cache line.

``args``: a :data:`.records.PADDED` record; work item = (batch index, chunk of the pixels).

>>> import numpy as np
>>> from layouts.kernels.records import record, batch_axes, PADDED
>>> s = np.arange(8, dtype=np.uint16)                  # 2 planes of 4 pixels
>>> d = np.full(16, 9, np.uint16)                      # 4 rows of P=4
>>> a = record(PADDED, C=2, P=4, n=4, sC=4, sJ=1, dC=0, chunk=1024)
>>> pad_kernel(d, s, a, batch_axes([]), np.uint64(0), np.uint64(1)); d.reshape(4, 4).tolist()
[[0, 4, 0, 0], [1, 5, 0, 0], [2, 6, 0, 0], [3, 7, 0, 0]]
>>> back = np.zeros(8, np.uint16)
>>> a = record(PADDED, C=2, P=4, n=4, sC=0, sJ=0, dC=4, chunk=1024)
>>> unpad_kernel(back, d, a, batch_axes([]), np.uint64(0), np.uint64(1)); back.tolist()
[0, 1, 2, 3, 4, 5, 6, 7]
"""

import numpy as np
from llvmlite import ir
from numba import njit
from numba.core import types
from numba.core.extending import intrinsic

from .transpose import batch_offsets

__all__ = ["pad_kernel", "pad_nt_kernel", "unpad_kernel", "unpad_nt_kernel", "pad_lines", "unpad_lines",
           "VECTOR_P"]

#: the largest row length (units) moved by the register transpose
VECTOR_P = 32

U0 = np.uint64(0)
U1 = np.uint64(1)
LINE = np.uint64(64)


def _interleave_masks(V):
    i32 = ir.IntType(32)
    lo = [x for m in range(V // 2) for x in (m, V + m)]
    hi = [x for m in range(V // 2, V) for x in (m, V + m)]
    vt = ir.VectorType(i32, V)
    return ir.Constant(vt, lo), ir.Constant(vt, hi)


def _parity_masks(V):
    i32 = ir.IntType(32)
    vt = ir.VectorType(i32, V)
    return ir.Constant(vt, list(range(0, 2 * V, 2))), ir.Constant(vt, list(range(1, 2 * V, 2)))


def _typed(dst, src, P):
    """(unit bits, P) when the arguments are two arrays of one unsigned unit and a literal P."""
    if not (isinstance(dst, types.Array) and isinstance(src, types.Array) and dst.dtype == src.dtype
            and isinstance(dst.dtype, types.Integer) and isinstance(P, types.IntegerLiteral)):
        return None
    p = P.literal_value
    if p < 2 or p & (p - 1) or p > VECTOR_P:
        return None
    return dst.dtype.bitwidth, p


def _line_ptr(builder, ary, off, elt, vline):
    return builder.bitcast(builder.gep(ary.data, [off], inbounds=True, source_etype=elt), vline.as_pointer())


def _pad_intrinsic(nontemporal):
    def impl(typingctx, dst, doff, src, soff, sstride, C, P):
        typed = _typed(dst, src, P)
        if typed is None:
            return None
        bits, p = typed
        V = 512 // bits

        def codegen(context, builder, signature, args):
            dary = context.make_array(signature.args[0])(context, builder, args[0])
            sary = context.make_array(signature.args[2])(context, builder, args[2])
            d_off, s_off, s_st, count = args[1], args[3], args[4], args[5]
            elt, i64 = ir.IntType(bits), ir.IntType(64)
            vline = ir.VectorType(elt, V)
            zero = ir.Constant(vline, None)
            planes = []
            for c in range(p):
                cc = ir.Constant(i64, c)
                live = builder.icmp_unsigned("<", cc, count)
                # a plane past C is zeros: load plane 0 again (always readable) and drop it
                off = builder.select(live, builder.add(s_off, builder.mul(s_st, cc)), s_off)
                v = builder.load(_line_ptr(builder, sary, off, elt, vline), align=bits // 8, typ=vline)
                planes.append(builder.select(live, v, zero))
            lo, hi = _interleave_masks(V)
            h = p // 2
            for _ in range(p.bit_length() - 1):      # each round halves the distance between a row's units
                new = [None] * p
                for m in range(h):
                    new[2 * m] = builder.shuffle_vector(planes[m], planes[m + h], lo)
                    new[2 * m + 1] = builder.shuffle_vector(planes[m], planes[m + h], hi)
                planes = new
            md = builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)]) if nontemporal else None
            for k in range(p):
                at = builder.add(d_off, ir.Constant(i64, k * V))
                st = builder.store(planes[k], _line_ptr(builder, dary, at, elt, vline),
                                   align=64 if nontemporal else bits // 8)
                if nontemporal:
                    st.set_metadata("nontemporal", md)
            return context.get_dummy_value()

        return types.void(dst, doff, src, soff, sstride, C, P), codegen

    impl.__name__ = "pad_lines_nt" if nontemporal else "pad_lines"
    return intrinsic(impl)


def _unpad_intrinsic(nontemporal):
    def impl(typingctx, dst, doff, dstride, src, soff, C, P):
        typed = _typed(dst, src, P)
        if typed is None:
            return None
        bits, p = typed
        V = 512 // bits

        def codegen(context, builder, signature, args):
            dary = context.make_array(signature.args[0])(context, builder, args[0])
            sary = context.make_array(signature.args[3])(context, builder, args[3])
            d_off, d_st, s_off, count = args[1], args[2], args[4], args[5]
            elt, i64 = ir.IntType(bits), ir.IntType(64)
            vline = ir.VectorType(elt, V)
            lines = [builder.load(_line_ptr(builder, sary, builder.add(s_off, ir.Constant(i64, k * V)), elt, vline),
                                  align=bits // 8, typ=vline) for k in range(p)]
            even, odd = _parity_masks(V)
            h = p // 2
            for _ in range(p.bit_length() - 1):      # the pad rounds undone: de-interleave pairs of lines
                new = [None] * p
                for m in range(h):
                    new[m] = builder.shuffle_vector(lines[2 * m], lines[2 * m + 1], even)
                    new[m + h] = builder.shuffle_vector(lines[2 * m], lines[2 * m + 1], odd)
                lines = new
            md = builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)]) if nontemporal else None
            for c in range(p):
                cc = ir.Constant(i64, c)
                with builder.if_then(builder.icmp_unsigned("<", cc, count), likely=True):
                    at = builder.add(d_off, builder.mul(d_st, cc))
                    st = builder.store(lines[c], _line_ptr(builder, dary, at, elt, vline),
                                       align=64 if nontemporal else bits // 8)
                    if nontemporal:
                        st.set_metadata("nontemporal", md)
            return context.get_dummy_value()

        return types.void(dst, doff, dstride, src, soff, C, P), codegen

    impl.__name__ = "unpad_lines_nt" if nontemporal else "unpad_lines"
    return intrinsic(impl)


# ``pad_lines(dst, doff, src, soff, sstride, C, P)``: V rows of P units at dst[doff:] from C planes
# (V units each, sstride apart) at src[soff:], zeros past C; ``unpad_lines(dst, doff, dstride, src,
# soff, C, P)`` the way back, C planes dstride apart. V = 64 bytes of units; P a literal power of
# two. The _nt forms store with non-temporal 64-byte aligned stores.
pad_lines = _pad_intrinsic(False)
pad_lines_nt = _pad_intrinsic(True)
unpad_lines = _unpad_intrinsic(False)
unpad_lines_nt = _unpad_intrinsic(True)


@njit(cache=True, nogil=True, inline="always")
def _pad_line(dst, d0, src, s0, sC, C, P, nt):
    """One tile of V rows through :func:`pad_lines` with the literal P."""
    if nt:
        if P == 4:
            pad_lines_nt(dst, d0, src, s0, sC, C, 4)
        elif P == 8:
            pad_lines_nt(dst, d0, src, s0, sC, C, 8)
        elif P == 16:
            pad_lines_nt(dst, d0, src, s0, sC, C, 16)
        else:
            pad_lines_nt(dst, d0, src, s0, sC, C, 32)
    elif P == 4:
        pad_lines(dst, d0, src, s0, sC, C, 4)
    elif P == 8:
        pad_lines(dst, d0, src, s0, sC, C, 8)
    elif P == 16:
        pad_lines(dst, d0, src, s0, sC, C, 16)
    else:
        pad_lines(dst, d0, src, s0, sC, C, 32)


@njit(cache=True, nogil=True, inline="always")
def _unpad_line(dst, d0, dC, src, s0, C, P, nt):
    """One tile of V rows through :func:`unpad_lines` with the literal P."""
    if nt:
        if P == 4:
            unpad_lines_nt(dst, d0, dC, src, s0, C, 4)
        elif P == 8:
            unpad_lines_nt(dst, d0, dC, src, s0, C, 8)
        elif P == 16:
            unpad_lines_nt(dst, d0, dC, src, s0, C, 16)
        else:
            unpad_lines_nt(dst, d0, dC, src, s0, C, 32)
    elif P == 4:
        unpad_lines(dst, d0, dC, src, s0, C, 4)
    elif P == 8:
        unpad_lines(dst, d0, dC, src, s0, C, 8)
    elif P == 16:
        unpad_lines(dst, d0, dC, src, s0, C, 16)
    else:
        unpad_lines(dst, d0, dC, src, s0, C, 32)


@njit(cache=True, nogil=True, inline="always")
def _vector_p(P):
    """Whether P has a line ladder in :func:`_pad_line` (a power of two from 4 to VECTOR_P)."""
    return P >= np.uint64(4) and P <= np.uint64(VECTOR_P) and (P & (P - U1)) == U0


@njit(cache=True, nogil=True, inline="always")
def _chunk(w, a, batch):
    nch = (a.n + a.chunk - U1) // a.chunk
    b = w // nch
    k0 = (w - b * nch) * a.chunk
    db, sb = batch_offsets(b, batch)
    return db, sb, k0, min(k0 + a.chunk, a.n)


@njit(cache=True, nogil=True, inline="always")
def _pad(dst, src, args, batch, w0, w1, nt, addr):
    a = args[0]
    C, P, sC, sJ = a.C, a.P, a.sC, a.sJ
    isz = np.uint64(dst.itemsize)
    V = LINE // isz
    vector = sJ == U1 and _vector_p(P)
    z = dst[0] ^ dst[0]
    for w in range(w0, w1):
        db, sb, j, k1 = _chunk(w, a, batch)
        if vector:
            lines_nt = nt and (addr + db * isz) % LINE == U0      # then every tile starts a line
            while j + V <= k1:
                _pad_line(dst, db + j * P, src, sb + j, sC, C, P, lines_nt)
                j += V
        for jj in range(j, k1):
            o = db + jj * P
            sj = sb + jj * sJ
            for c in range(C):
                dst[o + c] = src[sj + c * sC]
            for c in range(C, P):
                dst[o + c] = z


@njit(cache=True, nogil=True, inline="always")
def _unpad(dst, src, args, batch, w0, w1, nt, addr):
    a = args[0]
    C, P, dC = a.C, a.P, a.dC
    isz = np.uint64(dst.itemsize)
    V = LINE // isz
    vector = _vector_p(P)
    for w in range(w0, w1):
        db, sb, i, k1 = _chunk(w, a, batch)
        if vector:
            lines_nt = nt and (addr + db * isz) % LINE == U0 and (dC * isz) % LINE == U0
            while i + V <= k1:
                _unpad_line(dst, db + i, dC, src, sb + i * P, C, P, lines_nt)
                i += V
        for c in range(C):
            d = db + c * dC
            s = sb + c
            for ii in range(i, k1):
                dst[d + ii] = src[s + ii * P]


@njit(cache=True, nogil=True)
def pad_kernel(dst, src, args, batch, w0, w1):
    _pad(dst, src, args, batch, w0, w1, False, U0)


@njit(cache=True, nogil=True)
def pad_nt_kernel(dst, src, args, batch, w0, w1):
    _pad(dst, src, args, batch, w0, w1, True, np.uint64(dst.ctypes.data))


@njit(cache=True, nogil=True)
def unpad_kernel(dst, src, args, batch, w0, w1):
    _unpad(dst, src, args, batch, w0, w1, False, U0)


@njit(cache=True, nogil=True)
def unpad_nt_kernel(dst, src, args, batch, w0, w1):
    _unpad(dst, src, args, batch, w0, w1, True, np.uint64(dst.ctypes.data))
