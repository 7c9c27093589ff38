"""Property-based fuzzing of the core's public entries with random hostile arguments (issue 8).

Every call either returns or raises a :class:`~layouts.LayoutError` (which covers
``LayoutTypeError``, the TypeError for a wrong kind of argument). Anything else -- an
``AttributeError``, ``ZeroDivisionError``, ``OverflowError``, a numpy message, a ``MemoryError``
-- fails the test. Sizes are drawn so that no accepted call may allocate more than a few MB, and
the whole run is additionally repeated in a bounded child process so that a hang shows as a
failure instead of a stuck suite.
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import layouts as ly
from layouts import Layout, LayoutError
from hostile import run_bounded

BIG_INTS = [2**31, 2**32 - 1, 2**62, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 10**30, -1, -2**63, -2**64, 10**5000]

ints = st.one_of(st.integers(-3, 40), st.sampled_from(BIG_INTS))
text = st.one_of(st.sampled_from(["NCHW", "NHWC", "CHWN", "NCHW16c", "nChw8c", "NC1HWC0", "OIHW4i16o4i", "HW",
                                  "NC", "", "NCHWN", "16c", "NCHW0c", "NCHW" + "9" * 30 + "c", "N\x00C", "Né"]),
                 st.text(max_size=12))
dtypes = st.sampled_from([np.uint8, np.int8, np.int16, np.uint16, np.float16, np.int32, np.float32, np.uint32,
                          np.int64, np.uint64, np.float64, np.complex64, np.bool_, np.object_])


@st.composite
def arrays(draw, max_ndim=5):
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=max_ndim)))
    dtype = np.dtype(draw(dtypes))
    a = np.zeros(shape, dtype)
    if dtype != object and a.size:
        a[...] = np.asarray(draw(st.integers(0, 200))).astype(dtype)
    if a.ndim and draw(st.booleans()):
        a = a[::2] if draw(st.booleans()) else np.moveaxis(a, 0, -1)
    return a


values = st.one_of(ints, text, st.none(), st.booleans(), st.floats(allow_nan=True), st.binary(max_size=4),
                   st.lists(ints, max_size=3), st.tuples(text, ints), st.dictionaries(text, ints, max_size=2),
                   arrays(), st.builds(object), st.sampled_from([np.uint64(2**64 - 1), np.int8(-1), np.float32(1.5),
                                                                 np.array(3), np.array([2**63 - 1], np.uint64)]))


def _only_layout_errors(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return call()
        except LayoutError:
            return None
        except BaseException as err:  # noqa: BLE001 - any other exception fails the property
            raise AssertionError(f"{type(err).__name__} leaked: {err}") from err


SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None)


@SETTINGS
@given(spec=st.one_of(text, values), dims=st.dictionaries(st.sampled_from("NCHWDOI") | text, values, max_size=5),
       align=st.one_of(st.none(), values, st.dictionaries(text, values, max_size=2)),
       pitch=st.one_of(st.none(), values, st.dictionaries(st.sampled_from("NCHW"), ints, max_size=2)))
def test_layout_construction(spec, dims, align, pitch):
    dims = {k: v for k, v in dims.items() if k not in ("spec", "align", "pitch")}   # Python's own call error, not ours
    L = _only_layout_errors(lambda: Layout(spec, align=align, pitch=pitch, **dims))
    if L is not None:
        assert 0 <= L.size <= 2**63 - 1 and all(0 <= s <= 2**63 - 1 for s in L.stride_tuple)
        _only_layout_errors(lambda: (L.spec, L.shape, L.strides, repr(L), L.formula(), L.count, L.span))
    _only_layout_errors(lambda: ly.parse(spec))


@SETTINGS
@given(sizes=st.lists(st.one_of(st.integers(0, 4), st.sampled_from([2**31, 2**40, 2**62])), min_size=4, max_size=4),
       spec=st.sampled_from(["NCHW", "NHWC", "CHWN", "NCHW8c", "NC1HWC0", "HWNC2n"]),
       coords=st.lists(values, min_size=4, max_size=5), offset=values, padding=values, dtype=values)
def test_offset_index_byte_offset(sizes, spec, coords, offset, padding, dtype):
    L = _only_layout_errors(lambda: Layout(spec, **dict(zip("NCHW", sizes))))
    if L is None:
        return
    kw = dict(zip("nchwd", coords))
    kw4 = dict(zip("nchw", coords))
    _only_layout_errors(lambda: L.offset(**kw))
    _only_layout_errors(lambda: L.offset(**kw4))
    _only_layout_errors(lambda: L.byte_offset(dtype, **kw4))
    _only_layout_errors(lambda: L.byte_offset(np.float64, **kw4))
    _only_layout_errors(lambda: L.index(offset))
    _only_layout_errors(lambda: L.index(offset, padding=padding))
    _only_layout_errors(lambda: L.index(offset, padding="mark"))
    _only_layout_errors(lambda: L.dim_indices(offset))
    _only_layout_errors(lambda: L.nbytes(dtype))
    _only_layout_errors(lambda: L.byte_strides(dtype))
    _only_layout_errors(lambda: ly.offset_nchw(*coords[:4], **dict(zip("NCHW", sizes))))
    if L.size <= 4096:
        _only_layout_errors(lambda: L.physical_order(padding if isinstance(padding, str) else None))
        _only_layout_errors(lambda: L.view(offset))


@SETTINGS
@given(x=st.one_of(arrays(), values), axes=st.one_of(text, values), prefer=st.one_of(st.none(), text, values))
def test_layout_of(x, axes, prefer):
    _only_layout_errors(lambda: ly.layout_of(x, axes, prefer=prefer))
    _only_layout_errors(lambda: ly.candidate_layouts(x, axes))


@SETTINGS
@given(x=st.one_of(arrays(), values), src=st.one_of(text, values), dst=st.one_of(text, values),
       out=st.one_of(st.none(), arrays(), values), threads=st.one_of(st.none(), st.integers(-2, 6), values),
       copy=st.one_of(st.sampled_from([True, False, None]), values),
       dims=st.dictionaries(st.sampled_from(["N", "C", "H", "W", "C0", "Q"]), st.one_of(st.integers(-1, 40), values), max_size=2))
def test_convert(x, src, dst, out, threads, copy, dims):
    snap = x.tobytes() if isinstance(x, np.ndarray) and x.dtype != object else None
    _only_layout_errors(lambda: ly.convert(x, src, dst, out=out, threads=threads, copy=copy, **dims))
    if snap is not None:
        assert x.tobytes() == snap                              # never modified


@SETTINGS
@given(x=arrays(max_ndim=4), perm=st.permutations("NCHW"), block=st.sampled_from(["", "2c", "4n", "3h", "16w"]),
       threads=st.one_of(st.none(), st.integers(1, 10**6)), copy=st.sampled_from([True, False, None]))
def test_convert_valid_shapes_hostile_options(x, perm, block, threads, copy):
    """Well-formed calls with random options: a result, when there is one, equals the numpy oracle."""
    if x.ndim != 4 or x.dtype == object:
        return
    dst = "".join(perm) + block
    y = _only_layout_errors(lambda: ly.convert(x, "NCHW", dst, threads=threads, copy=copy))
    if y is not None and not block:
        assert np.array_equal(y, x.transpose(["NCHW".index(a) for a in perm]))


@SETTINGS
@given(threads=values)
def test_set_threads(threads):
    try:
        _only_layout_errors(lambda: ly.set_threads(threads))
    finally:
        ly.set_threads(None)


def test_fuzz_never_hangs():
    """The same properties, fewer examples, in a child with a wall-clock and memory limit."""
    run_bounded(f"""
        import sys, pytest
        sys.exit(pytest.main(["-q", "-x", "-p", "no:cacheprovider", {os.path.abspath(__file__)!r},
                              "-k", "not never_hangs", "--hypothesis-seed=1"]))
    """, timeout=240, memory_mb=4096)
