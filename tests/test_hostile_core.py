"""The core's share of the hostile-input catalogue (issue 8): grammar, dims, coordinates,
``index``, ``convert`` and ``out=``, ``layout_of``, threads.

Each case is a call that must be refused: the exception type (``LayoutError`` for a wrong value,
``TypeError`` -- a ``LayoutTypeError`` -- for a wrong kind), a key word of the message, and the
arrays that must come out bit-identical (:func:`hostile.check_refused`). Calls whose work could
explode run in a bounded child process (:func:`hostile.run_bounded`). The last part holds the
values that must come out exact where they used to wrap.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import layouts as ly
from layouts import Layout, LayoutError
from hostile import check_refused, run_bounded

T = TypeError
E = LayoutError

L4 = Layout("NCHW", N=2, C=3, H=4, W=5)
B8 = Layout("NCHW8c", N=1, C=17, H=2, W=2)
P = Layout("HWC", H=2, W=3, C=3, pitch={"H": 12})
BIG = Layout("NC", N=2**62, C=1)
X = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
OUT = np.full((2, 4, 5, 3), 7, np.float32)


def _case(id_, call, exc, word, keep=()):
    return pytest.param(call, exc, word, keep, id=id_)


# ---------------------------------------------------------------------------- grammar (parse, spec)
GRAMMAR = [
    _case("empty", lambda: ly.parse(""), E, "empty"),
    _case("none", lambda: ly.parse(None), T, "string"),
    _case("int", lambda: ly.parse(4), T, "string"),
    _case("bytes", lambda: ly.parse(b"NCHW"), T, "string"),
    _case("list", lambda: ly.parse(["N", "C"]), T, "string"),
    _case("twice", lambda: ly.parse("NCHWN"), E, "appears twice"),
    _case("twice-case", lambda: ly.parse("NCHn"), E, "appears twice"),
    _case("dash", lambda: ly.parse("NC-HW"), E, "unexpected character '-'"),
    _case("space", lambda: ly.parse("NC HW"), E, "unexpected character ' '"),
    _case("unicode-letter", lambda: ly.parse("NCHWé"), E, "unexpected character"),
    _case("unicode-digit", lambda: ly.parse("NCHW1\u0661c"), E, "unexpected character"),
    _case("superscript", lambda: ly.parse("NCHW\u00b2c"), E, "unexpected character"),
    _case("number-at-end", lambda: ly.parse("NCHW16"), E, "lower-case axis letter"),
    _case("number-upper", lambda: ly.parse("NCHW16C"), E, "lower-case axis letter"),
    _case("block-zero", lambda: ly.parse("NCHW0c"), E, "size 0"),
    _case("block-zeros", lambda: ly.parse("NCHW000c"), E, "size 0"),
    _case("block-no-axis", lambda: ly.parse("NHW16c"), E, "has no axis C"),
    _case("block-digits-5000", lambda: ly.parse("NC" + "9" * 200 + "c"), E, "digits"),
    _case("block-digits-19", lambda: ly.parse("NC" + "1" * 19 + "c"), E, "digits"),
    _case("spec-too-long", lambda: ly.parse("NC" + "9" * 5000 + "c"), E, "at most"),
    _case("too-many-dims", lambda: ly.parse("N" + "1n" * 70), E, "at most 64"),
    _case("ascend-c0-alone", lambda: ly.parse("NCHWC0"), E, "C1"),
    _case("ascend-c1-alone", lambda: ly.parse("NC1HW"), E, "needs its block C0"),
    _case("ascend-c0-twice", lambda: ly.parse("NC1HWC0C0"), E, "C0"),
    _case("only-digits", lambda: ly.parse("16"), E, "lower-case axis letter"),
    _case("tab", lambda: ly.parse("N\tC"), E, "unexpected character"),
    _case("layout-spec-none", lambda: Layout(None, N=1), T, "string"),
    _case("layout-spec-float", lambda: Layout(1.5), T, "string"),
    _case("from-shape-spec-none", lambda: Layout.from_shape(None, (1,)), T, "string"),
    _case("explain-digits", lambda: Layout("NC" + "7" * 30 + "c", N=1, C=1), E, "digits"),
]

# ---------------------------------------------------------------------------- dims, align, pitch, from_shape
DIMS = [
    _case("missing", lambda: Layout("NCHW", N=1, C=2, H=3), E, "needs the size of axis W"),
    _case("unknown", lambda: Layout("NCHW", N=1, C=2, H=3, W=4, D=5), E, "has no axis D"),
    _case("lower-key", lambda: Layout("NCHW", n=1, C=2, H=3, W=4), E, "has no axis n"),
    _case("negative", lambda: Layout("NCHW", N=1, C=-2, H=3, W=4), E, "non-negative"),
    _case("float", lambda: Layout("NCHW", N=1, C=2.5, H=3, W=4), T, "non-negative integer"),
    _case("float-integral", lambda: Layout("NCHW", N=1, C=2.0, H=3, W=4), T, "non-negative integer"),
    _case("bool", lambda: Layout("NCHW", N=True, C=2, H=3, W=4), T, "non-negative integer"),
    _case("np-bool", lambda: Layout("NCHW", N=np.True_, C=2, H=3, W=4), T, "non-negative integer"),
    _case("str", lambda: Layout("NCHW", N="2", C=2, H=3, W=4), T, "non-negative integer"),
    _case("none", lambda: Layout("NCHW", N=None, C=2, H=3, W=4), T, "non-negative integer"),
    _case("array", lambda: Layout("NCHW", N=np.array([2]), C=2, H=3, W=4), T, "non-negative integer"),
    _case("complex", lambda: Layout("NCHW", N=2j, C=2, H=3, W=4), T, "non-negative integer"),
    _case("2**63", lambda: Layout("NC", N=2**63, C=1), E, "more than a layout can address"),
    _case("10**4000", lambda: Layout("NC", N=10**400, C=1), E, "more than a layout can address"),
    _case("product-overflow", lambda: Layout("NC", N=2**32, C=2**32), E, "int64"),
    _case("blocked-overflow", lambda: Layout("NCHW16c", N=2**59, C=17, H=1, W=1), E, "int64"),
    _case("pitch-overflow", lambda: Layout("NC", N=3, C=1, pitch={"N": 2**62}), E, "int64"),
    _case("align-overflow", lambda: Layout("NC", N=4, C=3, align={"N": 2**62}), E, "int64"),
    _case("zero-N-huge-inner", lambda: Layout("NC", N=0, C=2**62, pitch={"C": 2}), E, "int64"),
    _case("ascend-c0-zero", lambda: Layout("NC1HWC0", N=1, C=3, H=1, W=1, C0=0), E, "C0 must be >= 1"),
    _case("ascend-c0-float", lambda: Layout("NC1HWC0", N=1, C=3, H=1, W=1, C0=16.0), T, "C0"),
    _case("ascend-c0-neg", lambda: Layout("NC1HWC0", N=1, C=3, H=1, W=1, C0=-16), E, "C0"),
    _case("align-list", lambda: Layout("NHWC", N=1, H=2, W=2, C=3, align=[("H", 16)]), T, "align must be a mapping"),
    _case("align-int", lambda: Layout("NHWC", N=1, H=2, W=2, C=3, align=16), T, "align must be a mapping"),
    _case("align-str", lambda: Layout("NHWC", N=1, H=2, W=2, C=3, align="H"), T, "align must be a mapping"),
    _case("align-set", lambda: Layout("NHWC", N=1, H=2, W=2, C=3, align={"H"}), T, "align must be a mapping"),
    _case("pitch-int", lambda: Layout("NHWC", N=1, H=2, W=2, C=3, pitch=16), T, "pitch must be a mapping"),
    _case("pitch-tuple", lambda: Layout("NHWC", N=1, H=2, W=2, C=3, pitch=("H", 16)), T, "pitch must be a mapping"),
    _case("align-zero", lambda: Layout("NHWC", N=1, H=2, W=2, C=3, align={"H": 0}), E, "must be >= 1"),
    _case("align-neg", lambda: Layout("NHWC", N=1, H=2, W=2, C=3, align={"H": -16}), E, "non-negative"),
    _case("align-float", lambda: Layout("NHWC", N=1, H=2, W=2, C=3, align={"H": 16.0}), T, "align of dim"),
    _case("align-bad-dim", lambda: Layout("NHWC", N=1, H=2, W=2, C=3, align={"X": 16}), E, "no dim 'X'"),
    _case("align-key-int", lambda: Layout("NHWC", N=1, H=2, W=2, C=3, align={0: 16}), T, "dim names are strings"),
    _case("pitch-below-packed", lambda: Layout("HWC", H=2, W=3, C=3, pitch={"H": 5}), E, "expected a pitch >= 9"),
    _case("pitch-zero", lambda: Layout("HWC", H=2, W=3, C=3, pitch={"H": 0}), E, "must be >= 1"),
    _case("pitch-str", lambda: Layout("HWC", H=2, W=3, C=3, pitch={"H": "12"}), T, "pitch of dim"),
    _case("from-shape-int", lambda: Layout.from_shape("NC", 5), E, "has 2 dims"),
    _case("from-shape-none", lambda: Layout.from_shape("NC", None), T, "shape must be a tuple"),
    _case("from-shape-float", lambda: Layout.from_shape("NC", (2, 2.5)), T, "shape[1]"),
    _case("from-shape-neg", lambda: Layout.from_shape("NC", (2, -1)), E, "shape[1]"),
    _case("from-shape-rank", lambda: Layout.from_shape("NCHW", (2, 3, 4)), E, "has 4 dims"),
    _case("from-shape-block", lambda: Layout.from_shape("NCHW16c", (2, 2, 3, 3, 8)), E, "holds 16 elements"),
    _case("from-shape-given", lambda: Layout.from_shape("NCHW16c", (2, 2, 3, 3, 16), C=40), E, "C=40 was given"),
    _case("from-shape-given-str", lambda: Layout.from_shape("NCHW", (2, 2, 3, 3), C="2"), T, "size of axis C"),
    _case("from-shape-extra", lambda: Layout.from_shape("NC", (2, 2), Q=3), E, "no axis Q"),
]

# ---------------------------------------------------------------------------- coordinates, offsets, formulas
_u = np.array([2**64 - 1], np.uint64)
COORDS = [
    _case("out-of-range", lambda: L4.offset(n=2, c=0, h=0, w=0), E, "out of range for axis N"),
    _case("negative", lambda: L4.offset(n=-1, c=0, h=0, w=0), E, "out of range"),
    _case("np-negative", lambda: L4.offset(n=np.int8(-1), c=0, h=0, w=0), E, "out of range"),
    _case("uint64-scalar-max", lambda: L4.offset(n=np.uint64(2**64 - 1), c=0, h=0, w=0), E, "18446744073709551615"),
    _case("uint64-array-max", lambda: L4.offset(n=_u, c=0, h=0, w=0), E, "18446744073709551615", [_u]),
    _case("uint32-array", lambda: L4.offset(n=np.array([2**32 - 1], np.uint32), c=0, h=0, w=0), E, "4294967295"),
    _case("python-2**100", lambda: L4.offset(n=2**100, c=0, h=0, w=0), E, str(2**100)),
    _case("object-2**70", lambda: L4.offset(n=np.array([2**70], dtype=object), c=0, h=0, w=0), E, "int64 range"),
    _case("object-mixed", lambda: L4.offset(n=np.array([1, "a"], dtype=object), c=0, h=0, w=0), T, "coordinate n"),
    _case("list-out-of-range", lambda: L4.offset(n=[0, 1, 2], c=0, h=0, w=0), E, "position (2,)"),
    _case("float", lambda: L4.offset(n=0.0, c=0, h=0, w=0), T, "integers"),
    _case("float-array", lambda: L4.offset(n=np.array([0.5]), c=0, h=0, w=0), T, "float64"),
    _case("bool", lambda: L4.offset(n=True, c=0, h=0, w=0), T, "integer"),
    _case("bool-array", lambda: L4.offset(n=np.array([True]), c=0, h=0, w=0), T, "bool"),
    _case("str", lambda: L4.offset(n="1", c=0, h=0, w=0), T, "integers"),
    _case("none", lambda: L4.offset(n=None, c=0, h=0, w=0), T, "coordinate n"),
    _case("ragged", lambda: L4.offset(n=[[0], [0, 1]], c=0, h=0, w=0), T, "coordinate n"),
    _case("complex", lambda: L4.offset(n=1j, c=0, h=0, w=0), T, "coordinate n"),
    _case("dict", lambda: L4.offset(n={}, c=0, h=0, w=0), T, "coordinate n"),
    _case("no-broadcast", lambda: L4.offset(n=np.zeros(3, int), c=np.zeros(2, int), h=0, w=0), E, "broadcast"),
    _case("missing", lambda: L4.offset(n=0, c=0, h=0), E, "missing coordinate w"),
    _case("unknown", lambda: L4.offset(n=0, c=0, h=0, w=0, d=0), E, "unknown coordinate d"),
    _case("upper-key", lambda: L4.offset(N=0, c=0, h=0, w=0), E, "unknown coordinate N"),
    _case("blocked-range", lambda: B8.offset(n=0, c=17, h=0, w=0), E, "out of range for axis C"),
    _case("byte-offset-array-wraps", lambda: BIG.byte_offset(np.float64, n=np.array([2**62 - 1]), c=0), E, "does not fit int64"),
    _case("byte-offset-dtype-none", lambda: L4.byte_offset(None, n=0, c=0, h=0, w=0), T, "dtype"),
    _case("byte-offset-dtype-bad", lambda: L4.byte_offset("float99", n=0, c=0, h=0, w=0), T, "dtype"),
    _case("byte-offset-dtype-empty", lambda: L4.byte_offset("V0", n=0, c=0, h=0, w=0), E, "item size 0"),
    _case("byte-strides-dtype", lambda: L4.byte_strides(object()), T, "dtype"),
    _case("nbytes-dtype", lambda: L4.nbytes("nope"), T, "dtype"),
    _case("formula-no-broadcast", lambda: ly.offset_nchw(np.zeros(0, int), np.zeros((0, 2), int), 0, 0, N=1, C=1, H=1, W=1),
          E, "broadcast"),
    _case("formula-float", lambda: ly.offset_nchw(0.5, 0, 0, 0, N=1, C=1, H=1, W=1), T, "integer"),
    _case("formula-range", lambda: ly.offset_nhwc(0, 1, 0, 0, N=1, C=1, H=1, W=1), E, "out of range"),
    _case("formula-size-str", lambda: ly.offset_chwn(0, 0, 0, 0, N="1", C=1, H=1, W=1), T, "size of axis N"),
    _case("formula-size-neg", lambda: ly.offset_chwn(0, 0, 0, 0, N=-1, C=1, H=1, W=1), E, "non-negative"),
    _case("formula-overflow", lambda: ly.offset_nchw(np.array([0]), 0, 0, 0, N=2**40, C=2**40, H=1, W=1), E, "int64"),
    _case("formula-uint64", lambda: ly.offset_nchw(np.uint64(2**64 - 1), 0, 0, 0, N=1, C=1, H=1, W=1), E, "18446744073709551615"),
    _case("view-list", lambda: P.view([1, 2, 3]), T, "numpy array"),
    _case("view-2d", lambda: P.view(np.zeros((4, 6))), E, "flat contiguous"),
    _case("view-short", lambda: P.view(np.zeros(10)), E, "needs at least 21"),
    _case("zeros-huge", lambda: Layout("NC", N=2**40, C=2**22).zeros(np.float64), E, "more than numpy can hold"),
    _case("zeros-empty-huge-extents", lambda: Layout("NCHW", N=0, C=2**31, H=0, W=2**31).zeros(), E, "numpy can hold"),
    _case("view-empty-huge-extents", lambda: Layout("NCHW", N=0, C=2**31, H=0, W=2**31).view(np.zeros(1)), E, "numpy"),
    _case("physical-order-huge", lambda: Layout("NC", N=2**40, C=2**22).physical_order(), E, "MAX_ENUMERATED"),
    _case("physical-order-logical-int", lambda: L4.physical_order(5), T, "logical"),
    _case("physical-order-logical-bad", lambda: L4.physical_order("NCH"), E, "must name each axis"),
]

# ---------------------------------------------------------------------------- index
INDEX = [
    _case("beyond", lambda: L4.index(120), E, "outside"),
    _case("negative", lambda: L4.index(-1), E, "outside"),
    _case("array-beyond", lambda: L4.index(np.array([3, 120])), E, "offset 120 is outside"),
    _case("uint64-max", lambda: L4.index(np.uint64(2**64 - 1)), E, "18446744073709551615"),
    _case("uint64-array", lambda: L4.index(np.array([1, 2**64 - 1], np.uint64)), E, "int64 range"),
    _case("python-2**70", lambda: L4.index(2**70), E, "int64 range"),
    _case("python--2**70", lambda: L4.index(-2**70), E, "int64 range"),
    _case("float", lambda: L4.index(1.5), T, "integers"),
    _case("float-integral", lambda: L4.index(1.0), T, "integers"),
    _case("bool", lambda: L4.index(True), T, "integers"),
    _case("str", lambda: L4.index("3"), T, "integers"),
    _case("none", lambda: L4.index(None), T, "offset"),
    _case("ragged", lambda: L4.index([[1], [1, 2]]), T, "offset"),
    _case("complex-array", lambda: L4.index(np.array([1j])), T, "complex"),
    _case("padding-bad", lambda: L4.index(3, padding="drop"), E, "'raise' or 'mark'"),
    _case("padding-none", lambda: L4.index(3, padding=None), T, "'raise' or 'mark'"),
    _case("padding-array", lambda: L4.index(3, padding=np.array([1])), T, "'raise' or 'mark'"),
    _case("block-padding", lambda: B8.index(B8.offset(n=0, c=16, h=0, w=0) + 1), E, "is padding"),
    _case("block-padding-array", lambda: B8.index(np.arange(B8.size)), E, "is padding"),
    _case("pitch-gap", lambda: P.index(9), E, "pitch"),
    _case("dim-indices-float", lambda: L4.dim_indices([0.5]), T, "float64"),
]

# ---------------------------------------------------------------------------- convert and out=
_ro = np.zeros((2, 4, 5, 3), np.float32)
_ro.flags.writeable = False
_buf = np.zeros(2 * 3 * 4 * 5 * 2, np.float32)
_share = _buf[:120].reshape(2, 3, 4, 5)
_flat_out = np.full(10, 3, np.float32)
_z16 = np.zeros((1, 2, 2, 2, 16), np.float32)
_i8 = np.arange(24, dtype=np.int8).reshape(1, 2, 3, 4)
CONVERT = [
    _case("x-none", lambda: ly.convert(None, "NCHW", "NHWC"), E, "python objects"),
    _case("x-object", lambda: ly.convert(np.zeros((1, 1, 1, 1), object), "NCHW", "NHWC"), E, "python objects"),
    _case("x-ragged", lambda: ly.convert([[1], [1, 2]], "NC", "CN"), T, "array-like"),
    _case("x-void0", lambda: ly.convert(np.zeros((1, 1, 1, 1), "V0"), "NCHW", "NHWC"), E, "item size 0"),
    _case("x-rank", lambda: ly.convert(np.zeros((2, 3, 4)), "NCHW", "NHWC"), E, "has 4 dims"),
    _case("x-scalar", lambda: ly.convert(3.0, "N", "N"), E, "has 1 dims"),
    _case("src-none", lambda: ly.convert(X, None, "NHWC"), T, "src must be"),
    _case("dst-none", lambda: ly.convert(X, "NCHW", None), T, "dst must be"),
    _case("dst-int", lambda: ly.convert(X, "NCHW", 5), T, "dst must be"),
    _case("src-bad-spec", lambda: ly.convert(X, "NC-W", "NHWC"), E, "unexpected character"),
    _case("dst-digits", lambda: ly.convert(X, "NCHW", "NCHW" + "9" * 300 + "c"), E, "at most"),
    _case("dst-block-digits", lambda: ly.convert(X, "NCHW", "NCHW" + "9" * 25 + "c"), E, "digits"),
    _case("axes-differ", lambda: ly.convert(X, "NCHW", "NDHW"), E, "differ"),
    _case("axes-fewer", lambda: ly.convert(X, "NCHW", "NCH"), E, "differ"),
    _case("size-mismatch", lambda: ly.convert(X, "NCHW", "NHWC", C=7), E, "C=7 was given"),
    _case("size-str", lambda: ly.convert(X, "NCHW", "NHWC", C="3"), T, "size of axis C"),
    _case("size-unknown", lambda: ly.convert(X, "NCHW", "NHWC", Q=3), E, "unknown size Q"),
    _case("size-float", lambda: ly.convert(_z16, "NCHW16c", "NCHW", C=20.0), T, "size of axis C"),
    _case("size-too-big", lambda: ly.convert(_z16, "NCHW16c", "NCHW", C=40), E, "C=40"),
    _case("c0-zero", lambda: ly.convert(X, "NCHW", "NC1HWC0", C0=0), E, "C0 must be >= 1"),
    _case("c0-str", lambda: ly.convert(X, "NCHW", "NC1HWC0", C0="16"), T, "C0"),
    _case("copy-str", lambda: ly.convert(X, "NCHW", "NHWC", copy="yes"), T, "copy must be"),
    _case("copy-int", lambda: ly.convert(X, "NCHW", "NHWC", copy=0), T, "copy must be"),
    _case("copy-false-needs-copy", lambda: ly.convert(X, "NCHW", "NHWC", copy=False), E, "copy=false"),
    _case("copy-false-padding", lambda: ly.convert(X, "NCHW", "NCHW16c", copy=False), E, "copy=false"),
    _case("copy-false-out", lambda: ly.convert(X, "NCHW", "NHWC", copy=False, out=OUT), E, "copy=false", [X, OUT]),
    _case("threads-zero", lambda: ly.convert(X, "NCHW", "NHWC", threads=0), E, "threads"),
    _case("threads-neg", lambda: ly.convert(X, "NCHW", "NHWC", threads=-3), E, "threads"),
    _case("threads-str", lambda: ly.convert(X, "NCHW", "NHWC", threads="2"), T, "threads"),
    _case("threads-float", lambda: ly.convert(X, "NCHW", "NHWC", threads=2.0), T, "threads"),
    _case("threads-bool", lambda: ly.convert(X, "NCHW", "NHWC", threads=True), T, "threads"),
    _case("out-shape", lambda: ly.convert(X, "NCHW", "NHWC", out=np.zeros((2, 3, 4, 5), np.float32)), E, "out has shape"),
    _case("out-dtype", lambda: ly.convert(X, "NCHW", "NHWC", out=np.zeros((2, 4, 5, 3))), E, "out has dtype", [X]),
    _case("out-readonly", lambda: ly.convert(X, "NCHW", "NHWC", out=_ro), E, "read-only", [X, _ro]),
    _case("out-overlaps", lambda: ly.convert(_share, "NCHW", "NHWC", out=_buf[100:220].reshape(2, 4, 5, 3)), E, "overlaps", [_buf]),
    _case("out-list", lambda: ly.convert(X, "NCHW", "NHWC", out=[0]), T, "out must be"),
    _case("out-none-like", lambda: ly.convert(X, "NCHW", "NHWC", out="buf"), T, "out must be"),
    _case("out-flat-short", lambda: ly.convert(X, "NCHW", "NHWC", out=_flat_out), E, "must hold 120", [X, _flat_out]),
    _case("out-flat-strided", lambda: ly.convert(X, "NCHW", "NHWC", out=np.zeros(240, np.float32)[::2]), E, "contiguous"),
    _case("out-after-bad-size", lambda: ly.convert(X, "NCHW", "NHWC", out=OUT, C=4), E, "C=4", [X, OUT]),
    _case("flat-src-short", lambda: ly.convert(np.zeros(10, np.float32), P, "HWC"), E, "needs at least"),
    _case("layout-src-shape", lambda: ly.convert(np.zeros((2, 3, 4)), P, "HWC"), E, "physical shape"),
    _case("layout-dst-size", lambda: ly.convert(X, "NCHW", Layout("NHWC", N=2, C=4, H=4, W=5)), E, "axis C has size 3"),
    _case("huge-result", lambda: ly.convert(np.zeros((1, 1, 1, 1)), "NCHW",
                                            Layout("NHWC", N=1, C=1, H=1, W=1, pitch={"N": 2**62})), E, "cannot be allocated"),
    _case("huge-empty-result", lambda: ly.convert(np.zeros((0, 2, 0, 2)), "NCHW",
                                                  Layout("NHWC", N=0, C=2**31, H=0, W=2**31)), E, "size 2"),
    _case("int8-out-uint8", lambda: ly.convert(_i8, "NCHW", "NHWC", out=np.zeros((1, 3, 4, 2), np.uint8)), E, "dtype", [_i8]),
]

# ---------------------------------------------------------------------------- layout_of, candidate_layouts
_neg = np.zeros((3, 4))[::-1]
_bc = np.broadcast_to(np.zeros(4), (3, 4))
_ov = np.lib.stride_tricks.as_strided(np.zeros(10), shape=(3, 3), strides=(8, 8))
_odd = np.lib.stride_tricks.as_strided(np.zeros(40, np.float32), shape=(3, 2), strides=(6, 4))
_inter = np.lib.stride_tricks.as_strided(np.zeros(40), shape=(4, 3), strides=(16, 24))
INFER = [
    _case("list", lambda: ly.layout_of([[1, 2]], "NC"), T, "array"),
    _case("none", lambda: ly.layout_of(None, "NC"), T, "array"),
    _case("int", lambda: ly.layout_of(3, "N"), T, "array"),
    _case("str", lambda: ly.layout_of("NCHW", "NCHW"), T, "array"),
    _case("object-no-shape", lambda: ly.layout_of(object(), "N"), T, "array"),
    _case("axes-none", lambda: ly.layout_of(np.zeros((1, 2)), None), T, "axes must be a string"),
    _case("axes-list", lambda: ly.layout_of(np.zeros((1, 2)), ["N", "C"]), T, "axes must be a string"),
    _case("axes-twice-case", lambda: ly.layout_of(np.zeros((1, 2, 3, 4)), "NCHn"), E, ["axes 'nchn'", "twice"]),
    _case("axes-digit", lambda: ly.layout_of(np.zeros((1, 2, 3)), "NC1"), E, "axes 'nc1'"),
    _case("axes-unicode", lambda: ly.layout_of(np.zeros((1, 2)), "Né"), E, "ascii"),
    _case("axes-short", lambda: ly.layout_of(np.zeros((3, 4)), "HWC"), E, "2 dims"),
    _case("axes-empty", lambda: ly.layout_of(np.zeros((3, 4)), ""), E, "axes"),
    _case("void0", lambda: ly.layout_of(np.zeros((2, 3), "V0"), "HW"), E, "item size 0"),
    _case("negative-stride", lambda: ly.layout_of(_neg, "HW"), E, "negative stride", [_neg]),
    _case("broadcast", lambda: ly.layout_of(_bc, "HW"), E, "broadcast"),
    _case("overlap", lambda: ly.layout_of(_ov, "HW"), E, "share the stride"),
    _case("odd-bytes", lambda: ly.layout_of(_odd, "HW"), E, "not a multiple of the item size 4"),
    _case("interleaved", lambda: ly.layout_of(_inter, "HW"), E, "interleaves"),
    _case("ambiguous", lambda: ly.layout_of(np.zeros((1, 3, 2, 2)), "NCHW"), E, "ambiguous"),
    _case("ambiguous-empty", lambda: ly.layout_of(np.zeros((0, 3)), "HW"), E, "empty"),
    _case("ambiguous-many", lambda: ly.layout_of(np.zeros((1,) * 10), "ABCDEFGHIJ"), E, ["3628800", "first few"]),
    _case("candidates-many", lambda: ly.candidate_layouts(np.zeros((1,) * 9), "ABCDEFGHI"), E, ["362880", "max_candidates"]),
    _case("prefer-int", lambda: ly.layout_of(np.zeros((1, 2)), "NC", prefer=3), T, "prefer"),
    _case("prefer-list-int", lambda: ly.layout_of(np.zeros((1, 2)), "NC", prefer=["NC", 3]), T, "prefer"),
    _case("prefer-no-match", lambda: ly.layout_of(np.zeros((1, 3, 2, 2)), "NCHW", prefer="NHWC"), E, "ambiguous"),
    _case("candidates-none", lambda: ly.candidate_layouts(None, "NC"), T, "array"),
]

# ---------------------------------------------------------------------------- threads
THREADS = [
    _case("set-zero", lambda: ly.set_threads(0), E, "threads"),
    _case("set-neg", lambda: ly.set_threads(-1), E, "threads"),
    _case("set-bool", lambda: ly.set_threads(True), T, "threads"),
    _case("set-float", lambda: ly.set_threads(1.5), T, "threads"),
    _case("set-str", lambda: ly.set_threads("4"), T, "threads"),
    _case("set-list", lambda: ly.set_threads([2]), T, "threads"),
    _case("copy-into-zero", lambda: __import__("layouts.kernels", fromlist=["copy_into"]).copy_into(
        np.zeros(3), np.ones(3), threads=0), E, "threads"),
    _case("fill-zero-float", lambda: __import__("layouts.kernels", fromlist=["fill_zero"]).fill_zero(
        np.zeros(3), threads=2.5), T, "threads"),
]

CATALOGUE = GRAMMAR + DIMS + COORDS + INDEX + CONVERT + INFER + THREADS


@pytest.mark.parametrize("call,exc,word,keep", CATALOGUE)
def test_refused(call, exc, word, keep):
    check_refused(call, exc, word, keep)


def test_catalogue_size():
    assert len(CATALOGUE) >= 180, len(CATALOGUE)


def test_cached_plans_do_not_hide_wrong_kinds():
    z = np.zeros((1, 2, 2, 2, 16), np.float32)
    ly.convert(z, "NCHW16c", "NCHW", C=17)                      # cached with C=17 (an int)
    check_refused(lambda: ly.convert(z, "NCHW16c", "NCHW", C=17.0), TypeError, "size of axis C", [z])
    ly.convert(np.zeros((1, 1, 1, 1)), "NCHW", "NHWC", C=1)
    check_refused(lambda: ly.convert(np.zeros((1, 1, 1, 1)), "NCHW", "NHWC", C=True), TypeError, "size of axis C")


def test_failing_calls_leave_inputs_and_out_untouched():
    """The same failures with dirty outputs of every kind: nothing written before the refusal."""
    x = np.random.default_rng(0).standard_normal((2, 20, 3, 3)).astype(np.float32)
    outs = [np.full((2, 2, 3, 3, 16), np.nan, np.float32), np.full(2 * 2 * 3 * 3 * 16, 5, np.float32)]
    for out in outs:
        check_refused(lambda: ly.convert(x, "NCHW", "NCHW16c", out=out, C=21), LayoutError, "C=21", [x, out])
        check_refused(lambda: ly.convert(x, "NCHW", "NCHW16c", out=out, threads=0), LayoutError, "threads", [x, out])
        check_refused(lambda: ly.convert(x, "NCHW", "NCHW16c", out=out, copy="x"), TypeError, "copy", [x, out])
        check_refused(lambda: ly.convert(x, "NCHW", "NCHW8c", out=out), LayoutError, "out", [x, out])


# ---------------------------------------------------------------------------- exact, never wrapped
def test_scalar_and_array_offsets_are_exact_near_int64():
    assert BIG.offset(n=2**62 - 1, c=0) == 2**62 - 1
    assert BIG.offset(n=np.array([2**62 - 1]), c=0).tolist() == [2**62 - 1]
    assert BIG.byte_offset(np.float64, n=2**62 - 1, c=0) == (2**62 - 1) * 8           # a Python int, exact
    assert BIG.byte_offset(np.uint8, n=np.array([2**62 - 1]), c=0).tolist() == [2**62 - 1]   # fits: returned
    assert BIG.byte_offset(np.int16, n=np.array([2**61]), c=0).tolist() == [2**62]
    assert BIG.nbytes(np.float64) == 2**65 and BIG.byte_strides(np.float64) == {"N": 8, "C": 8}
    top = Layout("NC", N=2**31, C=2**32 - 1)                                       # size 2**63 - 2**31
    last = top.offset(n=np.array([2**31 - 1], np.uint64), c=np.array([2**32 - 2], np.uint32))
    assert last.dtype == np.int64 and int(last[0]) == (2**31 - 1) * (2**32 - 1) + 2**32 - 2 == top.size - 1
    assert top.index(np.uint64(top.size - 1)) == {"n": 2**31 - 1, "c": 2**32 - 2}
    assert ly.offset_nchw(np.array([2**20 - 1]), 0, 0, 0, N=2**20, C=2**40, H=1, W=1).tolist() == [(2**20 - 1) * 2**40]


def test_index_returns_one_kind_per_kind_of_input():
    L = Layout("NCHW8c", N=1, C=3, H=2, W=2)
    for off in (8, np.int64(8), np.uint8(8)):
        i = L.index(off)
        assert all(type(v) is int for v in i) and type(i.padding) is bool
        m = L.index(off, padding="mark")
        assert all(type(v) is int for v in m) and type(m.padding) is bool
    assert L.index(3, padding="mark").padding is True and L.index(3, padding="mark").c == -1
    for off in ([8], np.array([8]), np.array(8), np.array([[0, 8]])):
        i = L.index(off)
        shape = np.shape(off)
        assert all(isinstance(v, np.ndarray) and v.dtype == np.int64 and v.shape == shape for v in i)
        assert isinstance(i.padding, np.ndarray) and i.padding.dtype == bool and i.padding.shape == shape
    assert L.index([0, 8]) == L.index(np.array([0, 8]))            # Index equality on arrays (no numpy ambiguity error)
    assert L.index(0) != L.index([0])


def test_rank_beyond_numpy_split_limit_converts():
    """Ranks 22..26 (and blocked specs up to 48 physical dims) against a numpy transpose oracle."""
    import string
    rng = np.random.default_rng(3)
    for n in (22, 24, 26):
        axes = string.ascii_uppercase[:n]
        shape = [2 if i % 3 else 1 for i in range(n)]
        x = rng.integers(0, 100, shape).astype(np.int16)
        perm = rng.permutation(n)
        dst = "".join(axes[i] for i in perm)
        y = ly.convert(x, axes, dst)
        assert np.array_equal(y, x.transpose(perm))
        assert np.array_equal(ly.convert(y, dst, axes), x)
    axes = string.ascii_uppercase[:24]
    x = rng.integers(0, 100, [3 if i < 4 else 2 for i in range(24)]).astype(np.uint8)
    spec = axes + "".join(f"2{a.lower()}" for a in axes)            # 48 physical dims
    from layouts._args import numpy_max_dims
    if numpy_max_dims() < 48:                                       # numpy 1.x: 32 dims at most, said so
        check_refused(lambda: ly.convert(x, axes, spec), LayoutError, "at most 32", [x])
        return
    y = ly.convert(x, axes, spec)
    assert y.ndim == 48
    padded = np.pad(x, [(0, 1) if i < 4 else (0, 0) for i in range(24)])
    oracle = padded.reshape([s for n in padded.shape for s in (n // 2, 2)]).transpose(
        list(range(0, 48, 2)) + list(range(1, 48, 2)))
    assert np.array_equal(y, oracle)
    assert np.array_equal(ly.convert(y, spec, axes, **{a: n for a, n in zip(axes, x.shape)}), x)


# ---------------------------------------------------------------------------- bounded: work that could explode
def test_layout_of_many_size_one_axes_is_bounded():
    run_bounded("""
        import numpy as np, layouts as ly
        for n in (10, 12, 16, 26):
            x = np.zeros((1,) * n)
            try:
                ly.layout_of(x, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:n])
            except ly.LayoutError as err:
                assert "first few" in str(err), err
            else:
                raise AssertionError("no ambiguity reported")
        x = np.zeros((2,) * 26)
        assert ly.layout_of(x.transpose(list(range(25, -1, -1))), "ABCDEFGHIJKLMNOPQRSTUVWXYZ").spec == "ZYXWVUTSRQPONMLKJIHGFEDCBA"
        assert ly.layout_of(np.zeros((1,) * 12), "ABCDEFGHIJKL", prefer="LKJIHGFEDCBA").spec == "LKJIHGFEDCBA"
    """, timeout=30, memory_mb=1024)


def test_plan_with_many_partial_blocks_is_bounded():
    run_bounded("""
        import numpy as np, layouts as ly
        axes = "ABCDEFGHIJ"
        x = np.arange(3 ** 10, dtype=np.int32).reshape((3,) * 10)
        a = axes + "".join(f"2{c.lower()}" for c in axes)       # every axis with a partial block on both sides:
        b = axes + "".join(f"4{c.lower()}" for c in axes)       # 2**10 copy steps without the gather fallback
        import sys; sys.path.insert(0, "tests")
        from oracle import blocked_physical
        dims_of = lambda spec: [(d.axis, d.block if d.is_block else None) for d in ly.parse(spec).dims]
        ya = ly.convert(x, axes, a)
        assert np.array_equal(ya, blocked_physical(x, axes, dims_of(a)))
        y = ly.convert(ya, a, b, **{c: 3 for c in axes})
        assert np.array_equal(y, blocked_physical(x, axes, dims_of(b)))
        assert np.array_equal(ly.convert(y, b, axes, **{c: 3 for c in axes}), x)
    """, timeout=60, memory_mb=2048)


def test_huge_specs_and_sizes_are_refused_fast():
    run_bounded("""
        import numpy as np, layouts as ly
        for call in (lambda: ly.parse("NC" + "9" * 100000 + "c"),
                     lambda: ly.Layout("NC", N=10**100000, C=1),
                     lambda: ly.Layout("NC", N=2**62, C=2**62),
                     lambda: ly.Layout("NC", N=2**40, C=2**22).physical_order(),
                     lambda: ly.Layout("NC", N=2**40, C=2**22).zeros(),
                     lambda: ly.convert(np.zeros((1, 1)), "NC", ly.Layout("NC", N=1, C=1, pitch={"N": 2**61}))):
            try:
                call()
            except ly.LayoutError:
                pass
            else:
                raise AssertionError("accepted")
    """, timeout=20, memory_mb=1024)


def test_thread_counts_stay_bounded():
    run_bounded("""
        import threading, numpy as np, layouts as ly
        from layouts import kernels
        from layouts.kernels.runtime.pool import max_threads
        kernels.set_profile(kernels.current().replace(small_bytes=0, thread_min_bytes=0))
        x = np.random.default_rng(0).standard_normal((4, 16, 32, 32)).astype(np.float32)
        ref = x.transpose(0, 2, 3, 1)
        for n in (10**6, 10**6 - 1, 999, 64, 3, 2, 1, 10**100):
            assert np.array_equal(ly.convert(x, "NCHW", "NHWC", threads=n), ref)
        alive = threading.active_count()
        assert alive <= 1 + max_threads(), (alive, max_threads())
    """, timeout=60, memory_mb=2048)


def test_many_callers_at_once_equal_numpy_and_threads_bounded():
    from layouts import kernels
    from layouts.kernels.runtime.pool import max_threads
    with kernels.use_profile(kernels.current().replace(small_bytes=0, thread_min_bytes=0)):
        _many_callers(max_threads)


def _many_callers(max_threads):
    rng = np.random.default_rng(11)
    jobs = []
    dtypes = [np.uint8, np.int16, np.float16, np.float32, np.float64, np.complex128, np.bool_]
    pairs = [("NCHW", "NHWC", (0, 2, 3, 1)), ("NCHW", "CHWN", (1, 2, 3, 0)), ("NHWC", "NCHW", (0, 3, 1, 2))]
    for k in range(24):
        shape = tuple(int(v) for v in rng.integers(1, 24, 4))
        dtype = dtypes[k % len(dtypes)]
        x = (rng.standard_normal(shape) * 50).astype(dtype)
        jobs.append((x, *pairs[k % 3], [1, 2, 3, 8, 10**6, None][k % 6]))
    before = threading.active_count()
    errors = []

    def work(x, src, dst, perm, threads):
        try:
            for _ in range(3):
                y = ly.convert(x, src, dst, threads=threads)
                if not np.array_equal(y, x.transpose(perm)):
                    errors.append((src, dst, x.shape, x.dtype, threads))
        except Exception as err:  # noqa: BLE001 - reported below
            errors.append(err)

    callers = [threading.Thread(target=work, args=job) for job in jobs]
    for t in callers:
        t.start()
    for t in callers:
        t.join()
    assert errors == []
    assert threading.active_count() <= before + max_threads()


@pytest.mark.parametrize("formula", [ly.offset_nchw, ly.offset_nhwc, ly.offset_chwn])
def test_formulas_refuse_a_stride_past_int64_when_an_axis_is_empty(formula):
    """N=0 makes N*C*H*W zero, but the stride C*H*W (or H*W*N, H*W*C) still multiplies an int64
    array: refused by name instead of numpy's OverflowError (found by the fuzz test)."""
    n = np.array([], np.uint8)
    check_refused(lambda: formula(n, n, n, n, N=0, C=2**31, H=2**31, W=2**40), LayoutError,
                  "int64", keep=[n])
    assert formula(1, 1, 0, 1, N=2, C=16, H=5, W=4) in (341, 337, 43)
