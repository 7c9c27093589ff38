"""Caffe interop: Blob shape math and holder (hand vectors from blob.hpp/blob.cpp semantics),
BlobProto through the real protobuf runtime, mean files in any layout, weight layouts."""

import copy

import numpy as np
import pytest

from layouts.errors import LayoutError
from layouts.interop import caffe
from layouts.interop.caffe import Blob, BlobProtoData, parse_blobproto
from oracle import blobproto as _msg


# --- shape math: hand-computed vectors ----------------------------------------------------------
def test_counts_offsets_and_shape_string_of_2_16_5_4():
    b = Blob((2, 16, 5, 4))
    assert b.count() == 640
    assert b.count(1, 3) == 80
    assert b.count(1) == 320
    assert b.count(0, 0) == 1 and b.count(4, 4) == 1
    assert b.offset(1, 1, 0, 1) == 341
    assert b.offset(0) == 0 and b.offset(1) == 320
    assert b.offset([1, 1, 0, 1]) == 341
    assert b.offset([1, 1]) == 340
    assert b.shape_string == "2 16 5 4 (640)"
    assert (b.num, b.channels, b.height, b.width) == (2, 16, 5, 4)


def test_offset_equals_numpy_ravel_multi_index_everywhere():
    b = Blob((2, 3, 4, 5))
    for idx in np.ndindex(2, 3, 4, 5):
        assert b.offset(*idx) == np.ravel_multi_index(idx, (2, 3, 4, 5))


def test_canonical_axis_index_and_negative_axes():
    b = Blob((2, 16, 5, 4))
    assert [b.canonical_axis_index(i) for i in (-4, -1, 0, 3)] == [0, 3, 0, 3]
    assert b.shape_at(-1) == 4 and b.shape_at(-4) == 2
    for bad in (-5, 4):
        with pytest.raises(LayoutError, match=f"axis {bad} out of range for 4-D Blob with shape "
                                              r"2 16 5 4 \(640\)"):
            b.shape_at(bad)


@pytest.mark.parametrize("start,end", [(-1, 2), (3, 2), (0, 5)])
def test_count_range_errors(start, end):
    with pytest.raises(LayoutError, match=rf"count\({start}, {end}\)"):
        Blob((2, 16, 5, 4)).count(start, end)


def test_legacy_accessors_pad_with_one_and_refuse_five_axes():
    b = Blob((7, 3))
    assert (b.num, b.channels, b.height, b.width) == (7, 3, 1, 1)
    assert b.legacy_shape(-1) == 3 and b.legacy_shape(-3) == 1
    assert Blob(()).num == 1 and Blob(()).count() == 1  # a scalar blob
    with pytest.raises(LayoutError, match="> 4 axes"):
        Blob((1, 2, 3, 4, 5)).num
    with pytest.raises(LayoutError, match="legacy axis 4"):
        b.legacy_shape(4)


def test_offset_checks_as_caffe_does():
    b = Blob((2, 16, 5, 4))
    assert b.offset(2, 0, 0, 0) == 640  # Caffe checks n <= num: one past the end is accepted
    with pytest.raises(LayoutError, match="n=3"):
        b.offset(3)
    with pytest.raises(LayoutError, match="n=-1"):
        b.offset(-1)
    with pytest.raises(LayoutError, match="w=5"):
        b.offset(0, 0, 0, 5)
    with pytest.raises(LayoutError, match="index 4 on axis 1"):
        Blob((2, 4)).offset([0, 4])
    with pytest.raises(LayoutError, match="3 indices"):
        Blob((2, 4)).offset([0, 0, 0])


def test_default_blob_is_empty_and_reshape_limits():
    b = Blob()
    assert b.shape == () and b.count() == 0 and b.capacity == 0
    Blob((1,) * 32)
    with pytest.raises(LayoutError, match="33 axes.*at most 32"):
        Blob((1,) * 33)
    with pytest.raises(LayoutError, match="axis 1 is -2"):
        Blob((3, -2))
    Blob((2**31 - 1,))  # exactly INT_MAX is allowed (Blob allocates lazily)
    with pytest.raises(LayoutError, match="exceeds INT_MAX"):
        Blob((65536, 32768))
    assert Blob((0, 2**40)).count() == 0  # Caffe skips the check once the count is 0


# --- the holder -----------------------------------------------------------------------------------
def test_reshape_grows_capacity_only_and_new_memory_is_zero():
    b = Blob((2, 3))
    b.data[:] = np.arange(6).reshape(2, 3)
    b.reshape((4,))                      # shrink: same buffer, first 4 values survive
    assert b.capacity == 6
    np.testing.assert_array_equal(b.data, [0, 1, 2, 3])
    b.reshape((3, 2))                    # back within capacity: the old values are still there
    np.testing.assert_array_equal(b.data.ravel(), np.arange(6))
    b.reshape((7,))                      # past capacity: fresh zeroed data and diff
    assert b.capacity == 7
    np.testing.assert_array_equal(b.data, np.zeros(7))
    np.testing.assert_array_equal(b.diff, np.zeros(7))


def test_update_asum_sumsq_scale():
    b = Blob((2, 2))
    assert b.asum_data() == 0 and b.sumsq_diff() == 0  # untouched memory
    b.data[:] = [[1, -2], [3, -4]]
    b.diff[:] = [[0.5, 0.5], [-1, 1]]
    b.update()
    np.testing.assert_array_equal(b.data, [[0.5, -2.5], [4, -5]])
    assert b.asum_data() == 12.0 and b.sumsq_data() == 0.25 + 6.25 + 16 + 25
    assert b.asum_diff() == 3.0 and b.sumsq_diff() == 2.5
    b.scale_data(2)
    b.scale_diff(-1)
    np.testing.assert_array_equal(b.data, [[1, -5], [8, -10]])
    np.testing.assert_array_equal(b.diff, [[-0.5, -0.5], [1, -1]])
    assert b.data.dtype == np.float32 and isinstance(b.asum_data(), np.float32)


def test_copy_from_sizes_reshape_and_diff():
    src = Blob((2, 3))
    src.data[:] = 1.5
    src.diff[:] = -3
    dst = Blob((3, 2))
    with pytest.raises(LayoutError, match="Trying to copy blobs of different sizes"):
        dst.copy_from(src)
    dst.copy_from(src, reshape=True)
    assert dst.shape == (2, 3)
    np.testing.assert_array_equal(dst.data, src.data)
    np.testing.assert_array_equal(dst.diff, 0)
    dst.copy_from(src, copy_diff=True)
    np.testing.assert_array_equal(dst.diff, -3)
    src.data[0, 0] = 9  # a copy, not a share
    assert dst.data[0, 0] == 1.5


def test_share_data_and_diff():
    a, b = Blob((2, 3)), Blob((6,))
    b.share_data(a)
    a.data[1, 2] = 7
    assert b.data[5] == 7
    b.share_diff(a)
    b.diff[0] = -1
    assert a.diff[0, 0] == -1
    with pytest.raises(LayoutError, match="equal counts"):
        Blob((5,)).share_data(a)
    a.reshape((10,))  # a grows: gets new memory; b keeps the old buffer, as with shared_ptr
    a.data[5] = 0
    assert b.data[5] == 7


# --- BlobProto through protobuf ---------------------------------------------------------------------
@pytest.fixture
def pb():
    """protobuf is a test extra; without it only the BlobProto tests skip."""
    return pytest.importorskip("google.protobuf")


def test_schema_matches_caffe_proto_field_numbers_and_packing(pb):
    from layouts.interop.caffe_schema import messages

    d = messages()["BlobProto"].DESCRIPTOR
    got = {f.name: (f.number, f.type) for f in d.fields}
    F = type(d.fields[0])
    assert got == {"shape": (7, F.TYPE_MESSAGE), "data": (5, F.TYPE_FLOAT),
                   "diff": (6, F.TYPE_FLOAT), "double_data": (8, F.TYPE_DOUBLE),
                   "double_diff": (9, F.TYPE_DOUBLE), "num": (1, F.TYPE_INT32),
                   "channels": (2, F.TYPE_INT32), "height": (3, F.TYPE_INT32),
                   "width": (4, F.TYPE_INT32)}
    assert d.full_name == "caffe.BlobProto"
    assert messages()["BlobShape"].DESCRIPTOR.fields[0].type == F.TYPE_INT64
    # packed: two floats of data are one length-delimited record (tag 0x2a, length 8)
    assert _msg(data=[1.0, 2.0]).SerializeToString()[:2] == b"\x2a\x08"


def test_shape_proto_round_trip_is_byte_exact(pb):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    raw = _msg(shape=[2, 3, 4, 5], data=x.ravel().tolist(),
               diff=(-x).ravel().tolist()).SerializeToString()
    p = parse_blobproto(raw)
    assert p.shape == (2, 3, 4, 5) and p.legacy is None and not p.double
    np.testing.assert_array_equal(p.data, x)
    np.testing.assert_array_equal(p.diff, -x)
    assert p.to_bytes() == raw


def test_legacy_and_double_round_trips_are_byte_exact(pb):
    x = np.linspace(-1, 1, 24)
    raw = _msg(num=1, channels=3, height=2, width=4, double_data=x.tolist()).SerializeToString()
    p = parse_blobproto(raw)
    assert p.shape == (1, 3, 2, 4) and p.legacy == (True,) * 4 and p.double
    assert p.data.dtype == np.float64
    np.testing.assert_array_equal(p.data.ravel(), x)
    assert p.to_bytes() == raw
    # only some legacy fields present: the others read as 0 (proto default) and stay absent
    raw2 = _msg(num=0, height=3, data=[]).SerializeToString()
    p2 = parse_blobproto(raw2)
    assert p2.shape == (0, 0, 3, 0) and p2.legacy == (True, False, True, False)
    assert p2.to_bytes() == raw2


def test_legacy_fields_win_over_shape_as_in_from_proto(pb):
    p = parse_blobproto(_msg(shape=[6], num=1, channels=2, height=3, width=1,
                             data=[0.0] * 6).SerializeToString())
    assert p.shape == (1, 2, 3, 1)


def _unpacked_blobproto_class():
    """The same schema with packed=False, built through protobuf (test-only), to make bytes
    as an old writer would."""
    from google.protobuf import descriptor_pool, message_factory

    from layouts.interop import caffe_schema

    fdp = caffe_schema._file_descriptor_proto()
    for m in fdp.message_type:
        for f in m.field:
            f.options.packed = False
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("caffe.BlobProto"))


def test_unpacked_repeated_fields_are_read(pb):
    U = _unpacked_blobproto_class()
    m = U()
    m.shape.dim.extend([2, 2])
    m.data.extend([1.0, 2.0, 3.0, 4.0])
    m.diff.extend([4.0, 3.0, 2.0, 1.0])
    raw = m.SerializeToString()
    assert raw.count(b"\x2d") == 4  # four unpacked fixed32 records of field 5
    p = parse_blobproto(raw)
    np.testing.assert_array_equal(p.data, [[1, 2], [3, 4]])
    np.testing.assert_array_equal(p.diff, [[4, 3], [2, 1]])
    packed = _msg(shape=[2, 2], data=[1.0, 2, 3, 4], diff=[4.0, 3, 2, 1]).SerializeToString()
    assert p.to_bytes() == packed and raw != packed


@pytest.mark.parametrize("cut", [1, 5, 17, 40])
def test_truncated_bytes_give_a_clear_error(cut, pb):
    raw = _msg(shape=[1, 3, 2, 2], data=[float(i) for i in range(12)]).SerializeToString()
    with pytest.raises(LayoutError, match="caffe.BlobProto"):
        parse_blobproto(raw[:-cut])


def test_malformed_bytes_and_count_mismatch(pb):
    with pytest.raises(LayoutError, match="not a valid caffe.BlobProto"):
        parse_blobproto(b"\xff\xff\xff\xff")
    with pytest.raises(LayoutError, match="data has 3 values but shape 2 2 \\(4\\) needs 4"):
        parse_blobproto(_msg(shape=[2, 2], data=[1.0, 2, 3]).SerializeToString())
    with pytest.raises(LayoutError, match="axis 0 is -1"):
        parse_blobproto(_msg(shape=[-1], data=[]).SerializeToString())
    with pytest.raises(TypeError, match="source must be bytes, a path or a binary file, got int"):
        parse_blobproto(12)


def test_blob_to_and_from_proto(pb):
    b = Blob((2, 3), dtype=np.float64)
    b.data[:] = np.arange(6).reshape(2, 3)
    b.diff[:] = 1
    raw = b.to_proto(write_diff=True).to_bytes()
    m = _msg()
    m.ParseFromString(raw)
    assert list(m.double_data) == list(range(6)) and list(m.double_diff) == [1.0] * 6
    assert list(m.shape.dim) == [2, 3] and len(m.data) == 0
    c = Blob(dtype=np.float64)
    c.from_proto(raw)
    assert c.shape == (2, 3)
    np.testing.assert_array_equal(c.data, b.data)
    np.testing.assert_array_equal(c.diff, b.diff)
    with pytest.raises(LayoutError, match="shape mismatch"):
        Blob((3, 2)).from_proto(raw, reshape=False)
    # a legacy proto matches a blob of fewer axes through LegacyShape(-4..-1), counted from the end
    # (caffe/src/caffe/blob.cpp ShapeEquals: an IP weight blob (M, N) is legacy 1 x 1 x M x N)
    leg = _msg(num=1, channels=1, height=2, width=3, data=[0.0] * 6).SerializeToString()
    Blob((2, 3)).from_proto(leg, reshape=False)
    wrong_end = _msg(num=2, channels=3, height=1, width=1, data=[0.0] * 6).SerializeToString()
    with pytest.raises(LayoutError, match="shape mismatch"):
        Blob((2, 3)).from_proto(wrong_end, reshape=False)


def test_mean_file_loads_in_any_layout_and_saves(tmp_path, pb):
    mean = np.arange(3 * 4 * 5, dtype=np.float32).reshape(1, 3, 4, 5)
    raw = _msg(num=1, channels=3, height=4, width=5, data=mean.ravel().tolist()).SerializeToString()
    path = tmp_path / "mean.binaryproto"
    path.write_bytes(raw)
    np.testing.assert_array_equal(caffe.load_binaryproto(path), mean)
    np.testing.assert_array_equal(caffe.load_binaryproto(path, "NHWC"),
                                  mean.transpose(0, 2, 3, 1))
    hwc = caffe.load_binaryproto(raw, "HWC")
    np.testing.assert_array_equal(hwc, mean[0].transpose(1, 2, 0))
    np.testing.assert_array_equal(caffe.load_binaryproto(raw, "CHW"), mean[0])
    with open(path, "rb") as f:
        np.testing.assert_array_equal(caffe.load_binaryproto(f, "NCHW"), mean)
    # saving: HWC image -> a 1xCxHxW legacy blob, byte-identical to what Caffe's tool wrote
    assert caffe.save_binaryproto(hwc, layout="HWC", legacy=True) == raw
    out = tmp_path / "again.binaryproto"
    assert caffe.save_binaryproto(mean.transpose(0, 2, 3, 1), out, layout="NHWC") is None
    saved = out.read_bytes()                     # writing a file returns None, not the bytes
    assert saved == caffe.save_binaryproto(mean.transpose(0, 2, 3, 1), layout="NHWC")
    p = parse_blobproto(saved)
    assert p.shape == (1, 3, 4, 5) and p.legacy is None
    np.testing.assert_array_equal(p.data, mean)


def test_load_binaryproto_errors(pb):
    raw = _msg(shape=[2, 3, 1, 1], data=[0.0] * 6).SerializeToString()
    with pytest.raises(LayoutError, match="axis N of the blob has size 2"):
        caffe.load_binaryproto(raw, "HWC")
    raw3 = _msg(shape=[2, 3, 4], data=[0.0] * 24).SerializeToString()
    with pytest.raises(LayoutError, match="pass blob_axes="):
        caffe.load_binaryproto(raw3, "HWC")
    got = caffe.load_binaryproto(raw3, "WHC", blob_axes="CHW")
    assert got.shape == (4, 3, 2)


def test_input_arrays_are_not_mutated(pb):
    x = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    before = x.copy()
    caffe.save_binaryproto(x)
    caffe.convert_weights(x, "OIHW", "HWIO")
    np.testing.assert_array_equal(x, before)


# --- weights ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("dst", ["HWIO", "OHWI", "IHWO", "IOHW"])
def test_weight_layouts_equal_numpy_transpose(dst):
    rng = np.random.default_rng(1)
    w = rng.standard_normal((8, 3, 5, 7)).astype(np.float32)
    got = caffe.convert_weights(w, "OIHW", dst)
    want = w.transpose(["OIHW".index(a) for a in dst])
    np.testing.assert_array_equal(got, want)
    back = caffe.convert_weights(got, dst, "OIHW")
    np.testing.assert_array_equal(back, w)


def test_weight_layout_errors():
    w = np.zeros((2, 3, 4, 5))
    with pytest.raises(LayoutError, match="NCHW"):
        caffe.convert_weights(w, "NCHW", "NHWC")
    with pytest.raises(LayoutError, match="shape"):
        caffe.convert_weights(w[0], "OIHW", "HWIO")
    with pytest.raises(LayoutError, match="different axes"):
        caffe.convert_weights(w, "OIHW", "HWIOD")


def test_save_converts_diff_like_data(pb):
    x = np.arange(12, dtype=np.float32).reshape(2, 2, 3)            # HWC
    d = -x
    p = parse_blobproto(caffe.save_binaryproto(x, layout="HWC", diff=d))
    np.testing.assert_array_equal(p.data.reshape(3, 2, 2), x.transpose(2, 0, 1))
    np.testing.assert_array_equal(p.diff.reshape(3, 2, 2), d.transpose(2, 0, 1))
    with pytest.raises(LayoutError, match="diff has shape"):
        caffe.save_binaryproto(x, layout="HWC", diff=np.zeros(3))


def test_unshaped_blob_has_no_data():
    with pytest.raises(LayoutError, match="never shaped"):
        Blob().data
    assert Blob(()).data.shape == () and Blob((0,)).data.shape == (0,)


# --- one vocabulary for the load/save pair -------------------------------------------------------
@pytest.mark.parametrize("layout,blob_axes,want_axes", [
    ("HWC", None, "NCHW"), ("NHWC", None, "NCHW"), ("HWC", "CHW", "CHW"), ("WHC", "NCHW", "NCHW"),
    ("CHW", "CHWN", "CHWN"), ("OIHW", None, "OIHW"), ("HWIO", None, "OIHW")])
def test_save_and_load_keywords_mean_the_same_thing(layout, blob_axes, want_axes, tmp_path, pb):
    """layout= is the numpy array's layout and blob_axes= the stored blob's axes, on both sides:
    the blob on the wire is numpy's transpose of the array (size-1 axes added), and loading
    with the same keywords gives the array back."""
    rng = np.random.default_rng(len(layout))
    sizes = dict(zip("NCHWOI", (1, 3, 4, 5, 2, 3)))
    x = rng.standard_normal([sizes[a] for a in layout]).astype(np.float32)
    raw = caffe.save_binaryproto(x, layout=layout, blob_axes=blob_axes)
    m = _msg()
    m.ParseFromString(raw)
    present = "".join(a for a in want_axes if a in layout)
    want = x.transpose([layout.index(a) for a in present]).reshape(
        [sizes[a] if a in layout else 1 for a in want_axes])
    assert list(m.shape.dim) == list(want.shape)
    np.testing.assert_array_equal(np.array(m.data, np.float32).reshape(want.shape), want)
    back = caffe.load_binaryproto(raw, layout, blob_axes=want_axes)
    np.testing.assert_array_equal(back, x)
    # the same keywords, through a file given by name and by an open binary file
    path = tmp_path / "blob.binaryproto"
    assert caffe.save_binaryproto(x, path, layout=layout, blob_axes=blob_axes) is None
    assert path.read_bytes() == raw
    with open(tmp_path / "f.binaryproto", "wb") as f:
        assert caffe.save_binaryproto(x, f, layout=layout, blob_axes=blob_axes) is None
    with open(tmp_path / "f.binaryproto", "rb") as f:
        np.testing.assert_array_equal(caffe.load_binaryproto(f, layout, want_axes), x)


def test_blob_axes_errors(pb):
    x = np.zeros((2, 3, 4), np.float32)
    with pytest.raises(LayoutError, match="must name every axis of layout 'HWC'"):
        caffe.save_binaryproto(x, layout="HWC", blob_axes="NCH")
    with pytest.raises(LayoutError, match="upper-case letter"):
        caffe.save_binaryproto(x, layout="HWC", blob_axes="nchw")
    with pytest.raises(TypeError, match="unexpected keyword argument 'src'"):    # blob_axes= is its only name
        caffe.load_binaryproto(caffe.save_binaryproto(x, layout="HWC"), "HWC", "NCHW", src="NCHW")
    with pytest.raises(TypeError, match="path must be a file name"):
        caffe.save_binaryproto(x, 12, layout="HWC")


# --- integers: never rounded silently (issue 12) ------------------------------------------------------
def _parsed(raw: bytes):
    """The BlobProto as protobuf itself reads it (no layouts code)."""
    from layouts.interop.caffe_schema import messages

    m = messages()["BlobProto"]()
    m.ParseFromString(raw)
    return m


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64, bool])
def test_integers_float32_holds_exactly_still_save_as_float32(dtype, pb):
    info = np.iinfo(dtype) if dtype is not bool else None
    vals = [0, 1, -1, 2**24, -(2**24), 2**40, 3 * 2**60, 2**63, 16777215, 255, 2**53]  # all exact in float32
    vals = [v for v in vals if info is None and v in (0, 1) or info is not None and info.min <= v <= info.max]
    x = np.array(vals, dtype=dtype).reshape(1, 1, -1, 1)
    assert x.size >= 2
    m = _parsed(caffe.save_binaryproto(x))
    assert len(m.double_data) == 0 and [int(v) for v in m.data] == [int(v) for v in x.ravel()]
    y = caffe.load_binaryproto(caffe.save_binaryproto(x))
    assert y.dtype == np.float32 and [int(v) for v in y.ravel()] == [int(v) for v in x.ravel()]


@pytest.mark.parametrize("value", [2**24 + 1, 2**40 + 1, -(2**53 - 1), 2**53 - 2, 2**62 + 2**10])
def test_integers_past_float32_are_saved_as_double_exactly(value, pb):
    x = np.array([value, 3], np.int64).reshape(1, 2, 1, 1)
    raw = caffe.save_binaryproto(x)
    m = _parsed(raw)
    assert len(m.data) == 0 and [int(v) for v in m.double_data] == [value, 3]  # exact, as Python ints
    y = caffe.load_binaryproto(raw)
    assert y.dtype == np.float64 and int(y.ravel()[0]) == value
    lo, hi = min(value, 3), max(value, 3)
    with pytest.raises(LayoutError, match=rf"array holds integers float32 cannot store exactly \(values {lo}\.\.{hi};.*double=True"):
        caffe.save_binaryproto(x, double=False)
    assert caffe.load_binaryproto(caffe.save_binaryproto(x, double=True)).tolist() == y.tolist()


@pytest.mark.parametrize("value, dtype", [(2**53 + 1, np.int64), (2**63 - 1, np.int64), (-(2**63) + 1, np.int64),
                                          (2**64 - 1, np.uint64)])
def test_integers_past_float64_are_refused_naming_the_range(value, dtype, pb):
    x = np.array([value, 0], dtype).reshape(1, 1, 1, 2)
    lo, hi = min(value, 0), max(value, 0)
    for double in (None, True):
        with pytest.raises(LayoutError, match=rf"array holds integers float64 cannot store exactly \(values {lo}\.\.{hi};.*astype"):
            caffe.save_binaryproto(x, double=double)
    assert int(x.ravel()[0]) == value  # the input is untouched


def test_integer_diff_is_checked_like_the_data(pb):
    x = np.zeros((1, 1, 1, 2), np.int32)
    d = np.array([2**30 + 1, 1], np.int32).reshape(x.shape)
    m = _parsed(caffe.save_binaryproto(x, diff=d))                 # the diff needs double: both go as double
    assert [int(v) for v in m.double_diff] == [2**30 + 1, 1] and len(m.double_data) == 2
    with pytest.raises(LayoutError, match="diff holds integers float32 cannot"):
        caffe.save_binaryproto(x, diff=d, double=False)
