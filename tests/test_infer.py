"""Reading a layout back from an array's strides."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layouts as ly
from layouts import LayoutError


def _stored(shape_logical, memory_order, axes="NCHW", dtype=np.float32):
    """A logical-NCHW array whose memory is in ``memory_order`` (numpy transpose of a contiguous array)."""
    phys_shape = [shape_logical[axes.index(a)] for a in memory_order]
    base = np.zeros(phys_shape, dtype)
    return base.transpose([memory_order.index(a) for a in axes])


@pytest.mark.parametrize("order", ["NCHW", "NHWC", "CHWN", "HWCN", "WNCH"])
def test_unique_when_no_size_one_axes(order):
    x = _stored((2, 3, 4, 5), order)
    L = ly.layout_of(x, "NCHW")
    assert L.spec == order
    assert L.dims == {"N": 2, "C": 3, "H": 4, "W": 5}
    assert ly.candidate_layouts(x, "NCHW") == [L]


def test_offsets_of_the_found_layout_are_the_array_strides():
    x = _stored((2, 3, 4, 5), "HWNC", dtype=np.int16)
    L = ly.layout_of(x, "NCHW")
    n, c, h, w = np.meshgrid(*[np.arange(k) for k in x.shape], indexing="ij")
    item = x.itemsize
    by_strides = (n * x.strides[0] + c * x.strides[1] + h * x.strides[2] + w * x.strides[3]) // item
    assert np.array_equal(L.offset(n=n, c=c, h=h, w=w), by_strides)


def test_size_one_ambiguity_lists_every_candidate():
    x = _stored((2, 1, 4, 5), "NHWC")                 # C == 1: NCHW and NHWC store it alike
    specs = {L.spec for L in ly.candidate_layouts(x, "NCHW")}
    # C may stand anywhere among N, H, W (in that order): 4 places
    assert specs == {"CNHW", "NCHW", "NHCW", "NHWC"}
    with pytest.raises(LayoutError, match="ambiguous: size-1 axis C lets 4 layouts"):
        ly.layout_of(x, "NCHW")
    assert ly.layout_of(x, "NCHW", prefer="NHWC").spec == "NHWC"
    assert ly.layout_of(x, "NCHW", prefer=["CHWN", "NCHW"]).spec == "NCHW"


def test_h_w_one_ambiguity():
    x = np.zeros((8, 16, 1, 1))
    specs = [L.spec for L in ly.candidate_layouts(x, "NCHW")]
    assert specs[0] == "NCHW"                         # closest to the given axes first
    assert "NHWC" in specs and len(specs) == 12        # H, W each anywhere: 4 * 3 places


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=4, max_size=4), st.permutations("NCHW"))
def test_every_candidate_reproduces_the_strides(sizes, order):
    x = _stored(tuple(sizes), "".join(order))
    found = ly.candidate_layouts(x, "NCHW")
    assert "".join(order) in {L.spec for L in found}
    grids = np.meshgrid(*[np.arange(k) for k in x.shape], indexing="ij")
    truth = sum(g * (s // x.itemsize) for g, s in zip(grids, x.strides))
    for L in found:
        assert np.array_equal(L.offset(n=grids[0], c=grids[1], h=grids[2], w=grids[3]), truth)
    # and no other order does
    for other in itertools.permutations("NCHW"):
        spec = "".join(other)
        if spec not in {L.spec for L in found}:
            L = ly.Layout(spec, N=sizes[0], C=sizes[1], H=sizes[2], W=sizes[3])
            assert not np.array_equal(L.offset(n=grids[0], c=grids[1], h=grids[2], w=grids[3]), truth)


def test_pitched_rows_and_slices():
    img = np.zeros((10, 12, 3), np.uint8)
    L = ly.layout_of(img[2:6, 3:9], "HWC")
    assert L.pitch == {"H": 36} and L.dims == {"H": 4, "W": 6, "C": 3}
    L2 = ly.layout_of(np.zeros((4, 10))[:, ::2], "HW")
    assert L2.pitch == {"W": 2} and L2.strides == {"H": 10, "W": 2}     # every other element; rows of 10 are then packed


def test_errors():
    with pytest.raises(LayoutError, match="negative stride"):
        ly.layout_of(np.zeros((3, 4))[::-1], "HW")
    with pytest.raises(LayoutError, match="must name each of the array's 2 dims"):
        ly.layout_of(np.zeros((3, 4)), "HWC")
    overlap = np.lib.stride_tricks.as_strided(np.zeros(10), shape=(3, 3), strides=(8, 8))
    with pytest.raises(LayoutError, match="share the stride"):
        ly.layout_of(overlap, "HW")
    weird = np.lib.stride_tricks.as_strided(np.zeros(40, np.float32), shape=(3, 2), strides=(6, 4))
    with pytest.raises(LayoutError, match="not a multiple of the item size 4"):
        ly.layout_of(weird, "HW")


def test_torch_tensor_strides():
    torch = pytest.importorskip("torch")
    t = torch.zeros(2, 3, 4, 5).to(memory_format=torch.channels_last)
    assert ly.layout_of(t, "NCHW").spec == "NHWC"
    t1 = torch.zeros(2, 1, 4, 5).to(memory_format=torch.channels_last)
    assert {L.spec for L in ly.candidate_layouts(t1, "NCHW")} >= {"NCHW", "NHWC"}


def test_messages_for_broadcast_empty_and_flipped_size_one():
    with pytest.raises(LayoutError, match="broadcast"):
        ly.layout_of(np.broadcast_to(np.zeros(4), (3, 4)), "HW")
    with pytest.raises(LayoutError, match="the array is empty"):
        ly.layout_of(np.zeros((0, 3)), "HW")
    flipped = np.arange(6.0).reshape(1, 6)[::-1]               # negative stride on a size-1 axis: irrelevant
    assert {L.spec for L in ly.candidate_layouts(flipped, "HW")} == {"HW", "WH"}
    with pytest.raises(LayoutError, match="size-1 axes N, C let 12 layouts"):
        ly.layout_of(np.zeros((1, 1, 3, 4)), "NCHW")
