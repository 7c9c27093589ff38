"""Reading numpy arrays from compiled code, for the blob kernel: each image's data pointer, shape
and strides come from numpy's array struct (its public C ABI, ``PyArrayObject_fields``) at the
address ``id(image)`` has in CPython, while the GIL is held, so a list of 256 crops costs ~10 us of
Python instead of ~2 us an image. :func:`scan_list` checks a list the same way (exact ``ndarray``,
one shape and dtype object, whole-element alignment, overlap with ``out``) before anything is
written. The struct offsets are verified on import (:data:`FAST`); where they do not match, the
callers take their checked Python paths.

The calls are numpy records read by field name (:data:`HEAD`, :data:`IMAGE`), as the copy
engine's kernels read theirs (:mod:`layouts.kernels.records`).

>>> import numpy as np
>>> a = np.zeros((4, 6, 3), np.uint8)[1:, ::2]
>>> call = BlobCall(1, 1, None, 3, 3, 3, 1, range(3), [a])
>>> call.scan(), FAST
(0, True)
>>> out = np.empty((1, 3, 3, 3), np.float32)      # referenced while the call reads it
>>> call.set_out(out); call.fill()
>>> int(call.recs[0]["row"]) == a.strides[0], int(call.recs[0]["pixel"])
(True, 6)
"""

from __future__ import annotations

import ctypes
import sys

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core.extending import intrinsic

from ...kernels.machine import jit_cache  # noqa: F401 - importing the copy engine clears stale cached kernels first

__all__ = ["HEAD", "IMAGE", "FAST", "TUPLE_ITEMS", "BlobCall", "scan_list", "fill", "ptr", "probe_struct_offsets",
           "probe_tuple_items"]

# --- numpy's array struct, read from compiled code ----------------------------------------------
#: byte offsets in ``PyArrayObject_fields`` (numpy/ndarraytypes.h) on 64-bit CPython: ob_type,
#: data, nd (int), dimensions, strides, descr
OB_TYPE, DATA, ND, DIMS, STRIDES, DESCR = 8, 16, 24, 32, 40, 56


def _fields(*names: str) -> np.dtype:
    return np.dtype([(n, np.int64) for n in names])


#: one call: ``n`` images (``mode`` 0: one N,H,W,C array, 1: a list), their dtype's item size,
#: the exact ndarray type's id, ``C, H, W``; the output (its id, item size, then, from
#: :func:`fill`, its address and element strides); ``tuple_id``: a tuple whose items are the images
#: (0: the ids are given)
HEAD = _fields("n", "mode", "ndarray_type", "item", "C", "H", "W", "out_id", "out_item", "tuple_id",
               "out_addr", "dn", "dc", "dh", "dw")
#: one image, as :func:`fill` reads it: its address, row stride in bytes, pixel and channel strides
#: in elements
IMAGE = _fields("addr", "row", "pixel", "chan")


def probe_struct_offsets() -> bool:
    """Whether the struct offsets above read real arrays right (checked with ctypes on arrays of
    several shapes, strides and dtypes)."""
    if sys.implementation.name != "cpython" or np.dtype(np.intp).itemsize != 8:
        return False
    if getattr(sys, "_is_gil_enabled", lambda: True)() is False:  # free-threaded header
        return False
    i64, i32 = ctypes.c_int64, ctypes.c_int32
    base = np.zeros((5, 7, 3), np.float32)
    for a in (base, base[1:4, ::-2], np.zeros((2, 3), np.uint8)[:, 1:], base[::-1, :, 1:2]):
        at = id(a)
        ok = (i64.from_address(at + OB_TYPE).value == id(np.ndarray)
              and i64.from_address(at + DATA).value == a.ctypes.data
              and i32.from_address(at + ND).value == a.ndim
              and i64.from_address(at + DESCR).value == id(a.dtype))
        if not ok:
            return False
        dims = i64.from_address(at + DIMS).value
        st = i64.from_address(at + STRIDES).value
        if (tuple(i64.from_address(dims + 8 * k).value for k in range(a.ndim)) != a.shape
                or tuple(i64.from_address(st + 8 * k).value for k in range(a.ndim)) != a.strides):
            return False
    return True


def probe_tuple_items():
    """The byte offset of a tuple's first item pointer (``PyTupleObject.ob_item``), or None."""
    if not FAST:
        return None
    items = (np.zeros(1), np.ones(2), np.zeros(3))
    for off in (24, 32):
        if all(ctypes.c_int64.from_address(id(items) + off + 8 * k).value == id(x)
               for k, x in enumerate(items)):
            return off
    return None



#: the struct offsets hold on this interpreter: lists are read in compiled code
FAST = probe_struct_offsets()
#: where a tuple's items start (None: ids are gathered in Python, ``map(id, images)``)
TUPLE_ITEMS = probe_tuple_items()
_TI = TUPLE_ITEMS or 0


@intrinsic
def _ld(typingctx, addr):
    """The int64 at ``addr``."""
    def codegen(context, builder, sig, args):
        return builder.load(builder.inttoptr(args[0], ir.IntType(64).as_pointer()))
    return types.int64(types.int64), codegen


@intrinsic
def _ld32(typingctx, addr):
    """The int32 at ``addr``, widened to int64."""
    def codegen(context, builder, sig, args):
        v = builder.load(builder.inttoptr(args[0], ir.IntType(32).as_pointer()))
        return builder.sext(v, ir.IntType(64))
    return types.int64(types.int64), codegen


@intrinsic
def ptr(typingctx, addr, proto):
    """``addr`` as a pointer to ``proto``'s dtype (indexed as ``p[i]`` in elements)."""
    def codegen(context, builder, sig, args):
        return builder.inttoptr(args[0], context.get_value_type(sig.return_type))
    return types.CPointer(proto.dtype)(types.int64, proto), codegen



@numba.njit(cache=True)
def _take_ids(head, ids):
    """The item pointers (ids) of the tuple ``head.tuple_id`` into ``ids``, once."""
    h = head[0]
    if h.tuple_id != 0:
        for i in range(ids.size):
            ids[i] = _ld(h.tuple_id + _TI + 8 * i)
        h.tuple_id = 0
    return 0


@numba.njit(nogil=True, cache=True)
def _bounds(obj, nd, item):
    """[lowest, one past highest) byte address an array of ``item``-byte elements touches, as
    numpy's ``may_share_memory`` takes them; (0, 0) when it is empty."""
    data = _ld(obj + DATA)
    dims = _ld(obj + DIMS)
    st = _ld(obj + STRIDES)
    lo = data
    hi = data + item
    for k in range(nd):
        n = _ld(dims + 8 * k)
        if n == 0:
            return 0, 0
        e = (n - 1) * _ld(st + 8 * k)
        if e < 0:
            lo += e
        else:
            hi += e
    return lo, hi


@numba.njit(cache=True)
def scan_list(head, ids):
    """Check the images ``ids``: every one an exact ndarray (type ``head.ndarray_type``) of image
    0's shape (2-D or 3-D) and dtype object, whole-element aligned (``head.item`` bytes). -1 when
    any is not (the caller takes its checked Python path), else 1 when one overlaps the array
    ``head.out_id`` (0: none given; ``head.out_item`` bytes an element), else 0."""
    _take_ids(head, ids)
    h = head[0]
    tnd = h.ndarray_type
    item = h.item
    o0 = ids[0]
    if _ld(o0 + OB_TYPE) != tnd:
        return -1
    nd = _ld32(o0 + ND)
    if nd != 2 and nd != 3:
        return -1
    d0 = _ld(o0 + DIMS)
    descr = _ld(o0 + DESCR)
    s0 = _ld(d0)
    s1 = _ld(d0 + 8)
    s2 = _ld(d0 + 16) if nd == 3 else 1
    for i in range(ids.size):
        o = ids[i]
        if _ld(o + OB_TYPE) != tnd or _ld32(o + ND) != nd or _ld(o + DESCR) != descr:
            return -1
        d = _ld(o + DIMS)
        if _ld(d) != s0 or _ld(d + 8) != s1 or (nd == 3 and _ld(d + 16) != s2):
            return -1
        if item > 1:
            if _ld(o + DATA) % item:
                return -1
            st = _ld(o + STRIDES)
            for k in range(nd):
                if _ld(st + 8 * k) % item:
                    return -1
    out = h.out_id
    if out == 0:
        return 0
    olo, ohi = _bounds(out, _ld32(out + ND), h.out_item)
    if olo == ohi:
        return 0
    for i in range(ids.size):
        lo, hi = _bounds(ids[i], nd, item)
        if lo < ohi and olo < hi:  # numpy's may_share_memory (memory bounds)
            return 1
    return 0


@numba.njit(cache=True)
def fill(head, ids, recs):
    """Copy what the kernel needs out of the arrays while the GIL is held (the kernel, which
    runs without it, then reads no Python object): the output view's (``head.out_id``) address
    and element strides into ``head``, and per image its address and strides into ``recs``
    (mode 0: image ``n`` of the one N,H,W,C array; mode 1: the array with the n-th id)."""
    _take_ids(head, ids)
    h = head[0]
    item = h.item
    st = _ld(h.out_id + STRIDES)
    h.out_addr = _ld(h.out_id + DATA)
    h.dn = _ld(st) // h.out_item
    h.dc = _ld(st + 8) // h.out_item
    h.dh = _ld(st + 16) // h.out_item
    h.dw = _ld(st + 24) // h.out_item
    if h.mode == 0:
        o = ids[0]
        st = _ld(o + STRIDES)
        data = _ld(o + DATA)
        sn = _ld(st)
        for n in range(h.n):
            r = recs[n]
            r.addr = data + n * sn
            r.row = _ld(st + 8)
            r.pixel = _ld(st + 16) // item
            r.chan = _ld(st + 24) // item
    else:
        for n in range(h.n):
            o = ids[n]
            st = _ld(o + STRIDES)
            r = recs[n]
            r.addr = _ld(o + DATA)
            r.row = _ld(st)
            r.pixel = _ld(st + 8) // item
            r.chan = _ld(st + 16) // item if h.C > 1 else 1  # 2-D images: C == 1
    return 0



class BlobCall:
    """One call's records: ``head`` (:data:`HEAD`), the images' ``ids``, ``perm`` and ``recs``
    (:data:`IMAGE`, one per image). The images (and ``images`` itself when it is a tuple whose
    ids compiled code reads) must stay referenced by the caller while the call is in use."""

    __slots__ = ("head", "ids", "perm", "recs")

    def __init__(self, n: int, mode: int, out, C: int, H: int, W: int, item: int, perm, images) -> None:
        from_tuple = type(images) is tuple and TUPLE_ITEMS is not None
        self.head = np.zeros(1, HEAD)
        h = self.head[0]
        h["n"], h["mode"], h["ndarray_type"], h["item"] = n, mode, id(np.ndarray), item
        h["C"], h["H"], h["W"] = C, H, W
        self.set_out(out)
        self.ids = np.empty(len(images), np.int64)
        if from_tuple:
            h["tuple_id"] = id(images)
        else:
            self.ids[:] = np.fromiter(map(id, images), np.int64, len(images))
        self.perm = np.asarray(perm, np.int64)
        self.recs = np.empty(n, IMAGE)

    def set_out(self, out) -> None:
        """The output view the call writes (None: not known yet)."""
        h = self.head[0]
        h["out_id"], h["out_item"] = (id(out), out.itemsize) if out is not None else (0, 0)

    def scan(self) -> int:
        """:func:`scan_list` of these images."""
        return scan_list(self.head, self.ids)

    def fill(self) -> None:
        """:func:`fill`: addresses and strides read while the GIL is held."""
        fill(self.head, self.ids, self.recs)


