"""The core: spec grammar, offsets, index, strides, padding, pitch, formulas, errors."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layouts as ly
from layouts import Layout, LayoutError
from oracle import blocked_physical, expected_strides, pitched_buffer

ART = dict(N=2, C=16, H=5, W=4)


# ---------------------------------------------------------------- the article's vectors
def test_article_offsets():
    assert Layout("NCHW", **ART).offset(n=1, c=1, h=0, w=1) == 341
    assert Layout("NHWC", **ART).offset(n=1, c=1, h=0, w=1) == 337
    assert Layout("CHWN", **ART).offset(n=1, c=1, h=0, w=1) == 43
    assert ly.offset_nchw(1, 1, 0, 1, **ART) == 341
    assert ly.offset_nhwc(1, 1, 0, 1, **ART) == 337
    assert ly.offset_chwn(1, 1, 0, 1, **ART) == 43


def test_public_contract_of_issue():
    L = Layout("NHWC", **ART)
    i = L.index(337)
    assert (i.n, i.c, i.h, i.w) == (1, 1, 0, 1)
    assert L.shape == (2, 5, 4, 16)
    assert L.strides == {"N": 320, "H": 64, "W": 16, "C": 1}
    assert list(L.strides) == ["N", "H", "W", "C"]
    assert L.formula() == "n*HWC + h*WC + w*C + c"
    assert Layout("NCHW", **ART).formula() == "n*CHW + c*HW + h*W + w"
    assert Layout("CHWN", **ART).formula() == "c*HWN + h*WN + w*N + n"


@pytest.mark.parametrize("spec,perm", [("NCHW", (0, 1, 2, 3)), ("NHWC", (0, 2, 3, 1)), ("CHWN", (1, 2, 3, 0))])
def test_article_physical_orders_equal_numpy(spec, perm):
    labels = np.arange(640).reshape(2, 16, 5, 4)           # logical number n*CHW + c*HW + h*W + w
    expected = labels.transpose(perm).reshape(-1)
    assert np.array_equal(Layout(spec, **ART).physical_order(), expected)


def test_article_order_prefixes():
    nhwc = Layout("NHWC", **ART).physical_order()
    assert nhwc[:3].tolist() == [0, 20, 40] and nhwc[15] == 300 and nhwc[16:18].tolist() == [1, 21]
    assert Layout("CHWN", **ART).physical_order()[:4].tolist() == [0, 320, 1, 321]


def test_vectorised_offsets_match_article_formulas():
    n, c, h, w = np.meshgrid(*[np.arange(k) for k in (2, 16, 5, 4)], indexing="ij")
    for spec, f in (("NCHW", ly.offset_nchw), ("NHWC", ly.offset_nhwc), ("CHWN", ly.offset_chwn)):
        got = Layout(spec, **ART).offset(n=n, c=c, h=h, w=w)
        assert got.dtype == np.int64
        assert np.array_equal(got, f(n, c, h, w, **ART))


def test_offsets_broadcast():
    L = Layout("NCHW", **ART)
    got = L.offset(n=np.array([[0], [1]]), c=np.arange(3), h=0, w=0)
    assert got.shape == (2, 3)
    assert got.tolist() == [[0, 20, 40], [320, 340, 360]]


def test_int64_offsets_beyond_2_31():
    L = Layout("NCHW", N=4, C=1024, H=1024, W=1024)      # 2**32 elements
    assert L.size == 2**32
    assert L.offset(n=3, c=1023, h=1023, w=1023) == 2**32 - 1
    got = L.offset(n=np.array([3]), c=np.array([1023]), h=1023, w=1023)
    assert got.dtype == np.int64 and int(got[0]) == 2**32 - 1
    i = L.index(np.array([2**32 - 1], dtype=np.int64))
    assert (int(i.n[0]), int(i.c[0]), int(i.h[0]), int(i.w[0])) == (3, 1023, 1023, 1023)


def test_byte_strides_and_nbytes():
    L = Layout("NHWC", **ART)
    assert L.byte_strides(np.float32) == {"N": 1280, "H": 256, "W": 64, "C": 4}
    assert L.nbytes("float16") == 1280
    x = np.zeros(L.shape, np.float32)
    assert tuple(L.byte_strides(np.float32).values()) == x.strides


# ---------------------------------------------------------------- blocks and padding
def test_blocked_padding_is_said():
    L = Layout("NCHW8c", N=1, C=17, H=5, W=4)
    assert L.shape == (1, 3, 5, 4, 8)
    assert L.padded_dims == {"N": 1, "C": 24, "H": 5, "W": 4}
    assert L.size == 480 and L.count == 340 and L.has_padding
    assert Layout("nChw8c", N=1, C=17, H=5, W=4) == L
    with pytest.raises(LayoutError, match="padding.*c=17.*size 17.*24"):
        L.index(L.offset(n=0, c=16, h=0, w=0) + 1)
    marked = L.index(np.arange(L.size), padding="mark")
    assert int(marked.padding.sum()) == 480 - 340
    assert np.all(marked.c[marked.padding] == -1)


def test_ascend_nc1hwc0():
    L = Layout("NC1HWC0", N=1, C=20, H=2, W=3)
    assert L.shape == (1, 2, 2, 3, 16) and L.dim_names == ("N", "C1", "H", "W", "C0")
    L32 = Layout("NC1HWC0", N=1, C=20, H=2, W=3, C0=32)
    assert L32.shape == (1, 1, 2, 3, 32)
    assert L == Layout("NCHW16c", N=1, C=20, H=2, W=3).__class__("NC1HWC0", N=1, C=20, H=2, W=3, C0=16)
    # same memory as NCHW16c
    assert L.stride_tuple == Layout("NCHW16c", N=1, C=20, H=2, W=3).stride_tuple


# ---------------------------------------------------------------- pitch and alignment
def test_edgeboard_rows_aligned_to_16():
    L = Layout("NHWC", N=1, H=5, W=4, C=3, align={"H": 16})
    assert (L.stride_tuple, L.size) == expected_strides((1, 5, 4, 3), align_at={1: 16})
    assert L.size == 80 and L.nbytes(np.float16) == 160
    assert L.strides == {"N": 80, "H": 16, "W": 3, "C": 1}
    big = Layout("NHWC", N=1, H=13, W=13, C=255, align={"H": 16})
    assert big.size == 43264 == 13 * (-(-13 * 255 // 16) * 16)
    assert "align16(WC)" in L.formula()
    with pytest.raises(LayoutError, match="pitch of dim H"):
        L.index(12)


def test_explicit_pitch_like_opencv_step():
    # a 4x5 CV_8UC3 ROI inside an image 8 pixels wide: step = 24 bytes
    L = Layout("HWC", H=4, W=5, C=3, pitch={"H": 24})
    parent = np.arange(6 * 8 * 3).reshape(6, 8, 3)
    roi = parent[1:5, 2:7]
    base = 1 * 24 + 2 * 3                                   # where the ROI starts in its parent
    h, w, c = np.meshgrid(np.arange(4), np.arange(5), np.arange(3), indexing="ij")
    assert np.array_equal(parent.reshape(-1)[base + L.offset(h=h, w=w, c=c)], roi)
    with pytest.raises(LayoutError, match="pitch of dim H is 10 elements.*>= 15"):
        Layout("HWC", H=4, W=5, C=3, pitch={"H": 10})
    with pytest.raises(LayoutError, match="no dim 'X'"):
        Layout("HWC", H=4, W=5, C=3, pitch={"X": 10})


def test_view_and_span():
    L = Layout("HWC", H=2, W=2, C=3, pitch={"H": 8})
    assert L.size == 16 and L.span == 14
    v = L.view(np.arange(16))
    assert v.tolist() == [[[0, 1, 2], [3, 4, 5]], [[8, 9, 10], [11, 12, 13]]]
    with pytest.raises(LayoutError, match="needs at least 14"):
        L.view(np.arange(10))


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize("spec,match", [
    ("", "empty"),
    ("NCHWN", "axis N appears twice"),
    ("NHW16c", "block '16c' has no axis C"),
    ("NCHW0c", "size 0"),
    ("NC-HW", "unexpected character '-'"),
    ("NCHW16", "must be followed by a lower-case axis letter"),
])
def test_bad_specs(spec, match):
    with pytest.raises(LayoutError, match=match):
        Layout(spec, N=1, C=1, H=1, W=1)


@pytest.mark.parametrize("kwargs,match", [
    (dict(N=1, C=2, H=3), "needs the size of axis W"),
    (dict(N=1, C=2, H=3, W=4, D=5), "has no axis D"),
    (dict(N=1, C=-2, H=3, W=4), "C must be a non-negative integer, got -2"),
    (dict(N=1, C=2.5, H=3, W=4), "C must be a non-negative integer, got float 2.5"),
    (dict(N=True, C=2, H=3, W=4), "N must be a non-negative integer"),
])
def test_bad_dims(kwargs, match):
    with pytest.raises(LayoutError, match=match):
        Layout("NCHW", **kwargs)


def test_bad_coordinates_and_offsets():
    L = Layout("NCHW", **ART)
    with pytest.raises(LayoutError, match=r"c=16 is out of range for axis C of size 16"):
        L.offset(n=0, c=16, h=0, w=0)
    with pytest.raises(LayoutError, match=r"h has value -1 at position \(1,\)"):
        L.offset(n=0, c=0, h=np.array([0, -1]), w=0)
    with pytest.raises(LayoutError, match="missing coordinate w"):
        L.offset(n=0, c=0, h=0)
    with pytest.raises(LayoutError, match="unknown coordinate d"):
        L.offset(n=0, c=0, h=0, w=0, d=0)
    with pytest.raises(LayoutError, match="must be integers, got float64"):
        L.offset(n=0, c=np.array([0.5]), h=0, w=0)
    with pytest.raises(LayoutError, match=r"offset 640 is outside.*0 <= offset < 640"):
        L.index(640)
    with pytest.raises(LayoutError, match="offset -1 is outside"):
        L.index(np.array([3, -1]))


def test_error_is_a_value_error():
    with pytest.raises(ValueError):
        Layout("NCHW", N=1, C=1, H=1)


def test_equality_hash_repr():
    a = Layout("NCHW", **ART)
    b = Layout("NCHW", N=2, C=16, H=5, W=4, pitch={"H": 4})  # the packed pitch: same layout
    assert a == b and hash(a) == hash(b)
    assert a != Layout("NHWC", **ART)
    assert eval(repr(Layout("NCHW8c", N=1, C=17, H=5, W=4)), {"Layout": Layout}) == Layout("NCHW8c", N=1, C=17, H=5, W=4)
    r = Layout("NHWC", N=1, H=5, W=4, C=3, align={"H": 16})
    assert eval(repr(r), {"Layout": Layout}) == r


def test_from_shape():
    L = Layout.from_shape("NCHW16c", (2, 2, 3, 3, 16))
    assert L.dims["C"] == 32
    assert Layout.from_shape("NCHW16c", (2, 2, 3, 3, 16), C=20).dims["C"] == 20
    with pytest.raises(LayoutError, match="C=40 was given"):
        Layout.from_shape("NCHW16c", (2, 2, 3, 3, 16), C=40)
    with pytest.raises(LayoutError, match="holds 16 elements"):
        Layout.from_shape("NCHW16c", (2, 2, 3, 3, 8))
    with pytest.raises(LayoutError, match="has 4 dims"):
        Layout.from_shape("NCHW", (2, 3, 4))


# ---------------------------------------------------------------- properties over random layouts
@st.composite
def layouts(draw, max_axes=4, pitched=True):
    letters = draw(st.lists(st.sampled_from("NCHWDOIX"), min_size=1, max_size=max_axes, unique=True))
    order = draw(st.permutations(letters))
    dims = {a: draw(st.integers(1, 5)) for a in letters}
    spec_dims = [(a, None) for a in order]
    blocked = draw(st.lists(st.sampled_from(letters), max_size=2))
    for a in blocked:
        spec_dims.append((a, draw(st.sampled_from([1, 2, 3, 4, 8]))))
    text = "".join(a if b is None else f"{b}{a.lower()}" for a, b in spec_dims)
    pitch, pitch_at = {}, {}
    if pitched and draw(st.booleans()):
        layout = Layout(text, **dims)
        pos = draw(st.integers(0, len(spec_dims) - 1))
        name = layout.dim_names[pos]
        pitch_at[pos] = pitch[name] = layout.strides[name] + draw(st.integers(0, 5))
    return Layout(text, pitch=pitch or None, **dims), spec_dims, pitch_at


@settings(max_examples=150, deadline=None)
@given(layouts())
def test_offset_is_a_bijection_onto_real_slots(case):
    L, _, _ = case
    grids = np.meshgrid(*[np.arange(L.dims[a]) for a in L.axes], indexing="ij")
    coords = {a.lower(): g for a, g in zip(L.axes, grids)}
    off = L.offset(**coords).reshape(-1)
    assert off.size == L.count
    assert len(np.unique(off)) == off.size                     # injective
    assert off.min() >= 0 and off.max() < L.size               # inside the layout
    idx = L.index(off)                                         # index(offset(x)) == x
    for a, g in zip(L.axes, grids):
        assert np.array_equal(getattr(idx, a.lower()), g.reshape(-1))
    marked = L.index(np.arange(L.size), padding="mark")        # the rest is padding, and only the rest
    real = np.zeros(L.size, bool)
    real[off] = True
    assert np.array_equal(~marked.padding, real)


@settings(max_examples=150, deadline=None)
@given(layouts())
def test_offsets_equal_numpy_oracle(case):
    L, spec_dims, pitch_at = case
    axes = "".join(L.axes)
    logical = np.arange(1, L.count + 1).reshape([L.dims[a] for a in axes])
    physical = blocked_physical(logical, axes, spec_dims)
    assert physical.shape == L.shape
    strides, size = expected_strides(physical.shape, pitch_at)
    assert L.stride_tuple == strides and L.size == size
    buf = pitched_buffer(physical, strides, size)
    grids = np.meshgrid(*[np.arange(L.dims[a]) for a in axes], indexing="ij")
    off = L.offset(**{a.lower(): g for a, g in zip(axes, grids)})
    assert np.array_equal(buf[off], logical)
    # and padding slots of the oracle buffer are exactly the slots index() calls padding
    marked = L.index(np.arange(L.size), padding="mark")
    assert np.all(buf[marked.padding] == 0)


def test_import_stays_light():
    code = ("import sys; import layouts; "
            "print(' '.join(m for m in ('numba', 'matplotlib', 'cv2', 'torch', 'google.protobuf') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_zero_size_axes():
    L = Layout("NCHW8c", N=0, C=3, H=2, W=2)
    assert L.size == 0 and L.count == 0 and L.span == 0
    assert L.offset(n=np.array([], dtype=np.int64), c=0, h=0, w=0).size == 0
    assert L.physical_order().size == 0


def test_index_copies_and_pickles():
    import copy
    import pickle
    i = Layout("NHWC", **ART).index(337)
    for j in (copy.copy(i), copy.deepcopy(i), pickle.loads(pickle.dumps(i))):
        assert j == i and (j.n, j.c, j.h, j.w) == (1, 1, 0, 1)


def test_offsets_beyond_int64_are_refused_not_wrapped():
    L = Layout("NCHW", **ART)
    for bad in (2**64 - 1, np.uint64(2**64 - 1), 2**70, np.array([1, 2**64 - 1], dtype=np.uint64)):
        with pytest.raises(LayoutError, match="outside the int64 range"):
            L.index(bad)


@pytest.mark.parametrize("spec", ["nChw8c", "NCHW8c", "nhwc", "NC1HWC0", "NHWC"])
def test_repr_keeps_the_spelling_given_and_round_trips(spec):
    L = Layout(spec, N=2, C=16, H=5, W=4)
    assert repr(L).startswith(f"Layout({spec!r}, N=2, C=16, H=5, W=4")
    assert eval(repr(L), {"Layout": Layout}) == L


@pytest.mark.parametrize("spec", ["NCHW", "NHWC", "CHWN", "nChw8c", "NC1HWC0"])
def test_offset_by_position_is_the_logical_order(spec):
    """``offset(n, c, h, w)`` against the hand formula of each layout at a few coordinates."""
    L = Layout(spec, N=2, C=16, H=5, W=4)
    C0 = 8 if spec == "nChw8c" else 16
    formula = {"NCHW": lambda n, c, h, w: ((n * 16 + c) * 5 + h) * 4 + w,
               "NHWC": lambda n, c, h, w: ((n * 5 + h) * 4 + w) * 16 + c,
               "CHWN": lambda n, c, h, w: ((c * 5 + h) * 4 + w) * 2 + n,
               "nChw8c": lambda n, c, h, w: (((n * 2 + c // C0) * 5 + h) * 4 + w) * C0 + c % C0,
               "NC1HWC0": lambda n, c, h, w: (((n * 1 + c // C0) * 5 + h) * 4 + w) * C0 + c % C0}[spec]
    for n, c, h, w in [(0, 0, 0, 0), (1, 11, 2, 1), (1, 15, 4, 3), (0, 9, 3, 2)]:
        assert L.offset(n, c, h, w) == L.offset(n=n, c=c, h=h, w=w) == formula(n, c, h, w)
    with pytest.raises(LayoutError, match=r"takes 4 coordinates \(n, c, h, w\), got 3"):
        L.offset(1, 2, 3)
    with pytest.raises(ly.LayoutTypeError, match="not both"):
        L.offset(1, 2, 3, 0, n=1)
    with pytest.raises(LayoutError, match="out of range"):
        L.offset(2, 0, 0, 0)


def test_an_unbound_service_names_the_known_ones():
    from layouts import hooks
    with pytest.raises(ly.LayoutError, match=r"no service 'nope'.*known: draw_banks, mimebundle, picture, to_cute"):
        hooks.service("nope")


def test_the_core_reaches_cute_and_viz_only_through_hooks():
    # a fresh interpreter: importing the core, formula() and explain() load neither layer above it
    code = ("import sys, layouts as ly; L = ly.Layout('NCHW16c', N=1, C=20, H=2, W=2); L.formula(); L.explain(); "
            "print(sorted(m for m in sys.modules if m.startswith(('layouts.viz', 'layouts.cute', 'layouts.chunked', "
            "'matplotlib', 'numba'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    code = "import layouts as ly; print(ly.Layout('NCHW16c', N=1, C=20, H=2, W=2).to_cute())"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "(1,(16,2),2,2):(128,(1,64),32,16)"  # C1 = ceil(20/16) = 2: n*2*2*2*16
