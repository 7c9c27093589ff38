"""layouts.aligned_empty: outputs on the 64-byte grid, checked against numpy's own arrays."""

from __future__ import annotations

import numpy as np
import pytest

import layouts as ly
from layouts import LayoutError, LayoutTypeError


@pytest.mark.parametrize("shape", [(), 0, 7, (3, 0), (2, 3, 5), [4, 1, 9], (np.int64(2), np.uint8(3)),
                                   np.array([2, 3]), range(1, 4)])
@pytest.mark.parametrize("dtype", [np.uint8, "float16", np.float32, np.complex128, "V3", np.dtype("S5"), "S0", "V0",
                                   ("f4", (3,)), [("a", "u1"), ("b", "<f8")]])
def test_aligned_arrays_are_numpys_empty_and_zeros_on_a_line(shape, dtype):
    want = np.zeros(shape, dtype)                   # numpy's reading of the same arguments
    for zero in (False, True):
        a = ly.aligned_empty(shape, dtype, zero=zero)
        assert type(a) is np.ndarray and a.shape == want.shape and a.dtype == want.dtype
        assert a.flags.c_contiguous and a.flags.writeable
        assert a.ctypes.data % 64 == 0 or a.nbytes == 0
        if zero:
            assert a.tobytes() == want.tobytes()


def test_many_allocations_all_start_a_line_and_never_share_memory():
    arrays = [ly.aligned_empty((n, 3), np.float32) for n in range(1, 200, 7)]
    assert all(a.ctypes.data % 64 == 0 for a in arrays)
    assert not any(np.shares_memory(a, b) for i, a in enumerate(arrays) for b in arrays[i + 1:])


def test_an_aligned_out_takes_the_same_bytes_as_numpy():
    x = np.random.default_rng(5).integers(0, 255, (4, 64, 24, 20)).astype(np.float32)
    out = ly.aligned_empty((4, 24, 20, 64), np.float32)
    for _ in range(3):                              # the first call and the short path after it
        assert ly.convert(x, "NCHW", "NHWC", out=out) is out
        assert np.array_equal(out, x.transpose(0, 2, 3, 1))


@pytest.mark.parametrize("shape, dtype, error, words", [
    ((2, -1), np.float32, LayoutError, "sizes >= 0"),
    (-3, np.float32, LayoutError, "sizes >= 0"),
    ((2, 1.5), np.float32, LayoutTypeError, "int or a sequence of ints"),
    ("34", np.float32, LayoutTypeError, "int or a sequence of ints"),
    (None, np.float32, LayoutTypeError, "int or a sequence of ints"),
    (True, np.float32, LayoutTypeError, "int or a sequence of ints"),
    ((2, True), np.float32, LayoutTypeError, "int or a sequence of ints"),
    ((2, 3), "no-such-type", LayoutTypeError, "dtype"),
    ((2, 3), ("f4", -1), LayoutError, "not a valid numpy dtype"),
    ((2, 3), "i4,,", LayoutError, "not a valid numpy dtype"),
    ((2, 3), object, LayoutError, "Python objects"),
    ((1 << 62, 1 << 62), np.float32, LayoutError, "cannot allocate"),
    ((0, 1 << 62, 1 << 62), np.float32, LayoutError, "cannot allocate"),
    ((1,) * 65, np.uint8, LayoutError, "at most"),
])
def test_bad_arguments_are_named(shape, dtype, error, words):
    with pytest.raises(error, match=words):
        ly.aligned_empty(shape, dtype)
