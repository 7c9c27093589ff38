"""EdgeBoard FPGA image layout: hand vectors and a numpy pad/transpose oracle."""

import warnings

import numpy as np
import pytest

from layouts.errors import LayoutError
from layouts.interop import edgeboard as eb


def _oracle(x, alignment=16):
    """float NCHW -> FP16 rows of W*C padded to the alignment, by numpy transpose + pad."""
    N, C, H, W = x.shape
    rows = x.transpose(0, 2, 3, 1).reshape(N, H, W * C).astype(np.float16)
    pad = eb.align_to_x(W * C, alignment) - W * C
    return np.pad(rows, ((0, 0), (0, 0), (0, pad))).reshape(-1)


def test_align_to_x():
    assert [eb.align_to_x(n, 16) for n in (0, 1, 12, 15, 16, 17, 3315)] == \
        [0, 16, 16, 16, 16, 32, 3328]
    assert eb.align_to_x(10, 3) == 12 and eb.align_to_x(7, 1) == 7
    with pytest.raises(LayoutError, match="x must be >= 1"):
        eb.align_to_x(3, 0)
    with pytest.raises(LayoutError, match="num must be a non-negative int, got -1"):
        eb.align_to_x(-1, 16)


def test_reference_vectors():
    assert eb.fpga_image_size(N=1, C=3, H=5, W=4) == 80
    assert eb.fpga_image_nbytes(N=1, C=3, H=5, W=4) == 160
    assert eb.fpga_image_size(N=1, C=255, H=13, W=13) == 43264
    L = eb.fpga_image_layout(N=1, C=3, H=5, W=4)
    assert L.size == 80 and L.nbytes(np.float16) == 160
    assert L.offset(n=0, h=1, w=0, c=0) == 16 and L.offset(n=0, h=4, w=3, c=2) == 4 * 16 + 11
    assert eb.fpga_image_layout(N=1, C=255, H=13, W=13).size == 43264


@pytest.mark.parametrize("shape", [(1, 3, 5, 4), (2, 5, 3, 7), (1, 16, 2, 2), (1, 255, 13, 13),
                                   (3, 1, 4, 1)])
def test_feed_equals_oracle_and_fetch_inverts(shape):
    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal(shape).astype(np.float32) * 100
    before = x.copy()
    buf = eb.feed(x)
    assert buf.dtype == np.float16 and buf.size == eb.fpga_image_size(*_nchw_kw(shape).values())
    np.testing.assert_array_equal(buf, _oracle(x))
    back = eb.fetch(buf, *shape)
    assert back.dtype == np.float32 and back.shape == shape
    np.testing.assert_array_equal(back, x.astype(np.float16).astype(np.float32))
    np.testing.assert_array_equal(x, before)
    # raw bytes from the device read the same
    np.testing.assert_array_equal(eb.fetch(buf.view(np.uint8), *shape), back)


@pytest.mark.parametrize("shape,alignment", [((1, 16, 2, 2), 16), ((2, 4, 3, 4), 16), ((3, 8, 5, 2), 16),
                                             ((1, 3, 4, 8), 8), ((2, 5, 3, 7), 1), ((0, 4, 2, 2), 16)])
def test_feed_inplace_equals_oracle_in_x_memory(shape, alignment):
    """inplace=True: the same bytes as the copying feed (the numpy oracle), in x's own buffer."""
    rng = np.random.default_rng(sum(shape) + alignment)
    x = (rng.standard_normal(shape) * 100).astype(np.float16)
    want = _oracle(x, alignment)
    buf = eb.feed(x, alignment=alignment, inplace=True)
    assert buf.dtype == np.float16 and buf.ndim == 1 and buf.size == eb.fpga_image_size(*shape, alignment)
    assert np.shares_memory(buf, x) or x.size == 0
    np.testing.assert_array_equal(buf, want)
    np.testing.assert_array_equal(x.reshape(-1), want)          # x itself now holds the FPGA bytes
    np.testing.assert_array_equal(eb.fetch(buf.copy(), *shape, alignment=alignment),
                                  want.reshape(shape[0], shape[2], shape[3], shape[1]).transpose(0, 3, 1, 2)
                                  .astype(np.float32))


def test_feed_inplace_threads_do_not_change_the_result():
    x = np.random.default_rng(3).standard_normal((4, 32, 7, 6)).astype(np.float16)
    a, b = x.copy(), x.copy()
    np.testing.assert_array_equal(eb.feed(a, inplace=True, threads=1), eb.feed(b, inplace=True, threads=2))
    np.testing.assert_array_equal(a.reshape(-1), _oracle(x))


def _nchw_kw(shape):
    N, C, H, W = shape
    return {"N": N, "C": C, "H": H, "W": W}


def test_padding_is_zero_even_in_a_dirty_out_buffer():
    x = np.ones((1, 3, 5, 4), np.float32)
    out = np.full(80, np.float16(7), np.float16)
    eb.feed(x, out=out)
    rows = out.reshape(5, 16)
    assert (rows[:, :12] == 1).all() and (rows[:, 12:] == 0).all()


def test_errors():
    with pytest.raises(LayoutError, match="4-D NCHW"):
        eb.feed(np.zeros((3, 5, 4)))
    with pytest.raises(LayoutError, match="80 elements"):
        eb.feed(np.zeros((1, 3, 5, 4)), out=np.zeros(79, np.float16))
    with pytest.raises(LayoutError, match="80 float16 values"):
        eb.fetch(np.zeros(79, np.float16), 1, 3, 5, 4)


def test_feed_saturates_to_inf_quietly_and_keeps_nan():
    x = np.array([1e6, -1e6, np.nan, 65504.0], np.float32).reshape(1, 4, 1, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                         # no numpy overflow warning leaks
        buf = eb.feed(x)
    assert np.isposinf(buf[0]) and np.isneginf(buf[1]) and np.isnan(buf[2]) and buf[3] == 65504
    assert (buf[4:] == 0).all()
