"""Hostile-input catalogue for the interop edges (Caffe, OpenCV, EdgeBoard, PyTorch).

Each case is a call a hostile or careless caller might make. It must be refused with the named
exception type (TypeError for a wrong kind of argument, LayoutError for a wrong value) and a
message holding the key word, before numpy, cv2, protobuf or torch can fail inside, and the
arrays it was given must come out bit-identical (tests/hostile.py). A property test then throws
random hostile arguments at every interop entry point: only LayoutError, TypeError or a
ValueError raised by layouts itself may come out -- never cv2.error, AttributeError,
ZeroDivisionError, OverflowError or a numpy/protobuf internal -- and the whole run is bounded in
time and memory in a child process.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

from hostile import check_refused, require, run_bounded
from oracle import blobproto

require("google.protobuf")   # the Caffe cases build real BlobProtos (the 'caffe' extra)
require("cv2")               # the OpenCV cases compare with the real library (the 'opencv' extra)
from layouts.errors import LayoutError
from layouts.interop import caffe, edgeboard, opencv
from layouts.interop.caffe import Blob, BlobProtoData, parse_blobproto
from layouts.interop.opencv import MatLayout, blob_from_images

L, T = LayoutError, TypeError


# --- Caffe --------------------------------------------------------------------------------------
def _proto(**fields) -> bytes:
    """A serialized caffe.BlobProto with ``fields``, written by protobuf itself (no layouts code)."""
    return blobproto(**fields).SerializeToString()


X_HWC = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
X_NCHW = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
W_OIHW = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
GOOD = bytes(caffe.save_binaryproto(X_NCHW))

CAFFE = [
    ("blob-shape-str", lambda: Blob("2345"), T, "blob shape"),
    ("blob-shape-int", lambda: Blob(5), T, "blob shape"),
    ("blob-shape-negative", lambda: Blob((2, -1)), L, "axis 1 is -1"),
    ("blob-shape-float", lambda: Blob((2, 2.5)), T, "blob shape axis 1"),
    ("blob-shape-bool", lambda: Blob((2, True)), T, "blob shape axis 1"),
    ("blob-33-axes", lambda: Blob((1,) * 33), L, "kMaxBlobAxes"),
    ("blob-int-max", lambda: Blob((2**31, 2)), L, "INT_MAX"),
    ("blob-5000-digit-dim", lambda: Blob((10**4999,)), L, "about 5000 digits"),
    ("blob-int-dtype", lambda: Blob((2, 3), dtype=np.int32), L, "float32 or float64"),
    ("blob-garbage-dtype", lambda: Blob((2, 3), dtype="nonsense"), T, "dtype"),
    ("blob-comma-dtype", lambda: Blob((2, 3), dtype=","), T, "dtype"),      # numpy: SyntaxError
    ("blob-bytes-dtype", lambda: Blob((2, 3), dtype=b","), T, "dtype"),
    ("blob-0d-shape", lambda: Blob(np.array(5)), T, "blob shape"),
    ("blob-legacy-float", lambda: Blob.legacy(1, 2.0, 3, 4), T, "channels"),
    ("offset-n-past-num", lambda: Blob((2, 3)).offset(5, 0, 0, 0), L, "n=5"),
    ("offset-str", lambda: Blob((2, 3)).offset("1"), T, "n must be an int"),
    ("offset-list-range", lambda: Blob((2, 3)).offset([0, 7]), L, "out of range"),
    ("offset-list-nested", lambda: Blob((2, 3)).offset([[0]]), T, "offset index 0"),
    ("offset-array-2d", lambda: Blob((2, 3)).offset(np.zeros((1, 2), int)), L, "flat"),
    ("offset-list-float", lambda: Blob((2, 3)).offset([0, 1.5]), T, "offset index 1"),
    ("offset-too-many", lambda: Blob((2, 3)).offset(0, 0, 0, 0, 0), L, "got 5 values"),
    ("count-range", lambda: Blob((2, 3)).count(0, 9), L, "count(0, 9)"),
    ("count-str", lambda: Blob((2, 3)).count("a"), T, "start_axis"),
    ("shape-at-float", lambda: Blob((2, 3)).shape_at(2.0), T, "axis_index"),
    ("shape-at-range", lambda: Blob((2, 3)).shape_at(-3), L, "axis -3 out of range"),
    ("legacy-5-axes", lambda: Blob((1, 2, 3, 4, 5)).num, L, "> 4 axes"),
    ("legacy-index", lambda: Blob((2, 3)).legacy_shape(7), L, "legacy axis 7"),
    ("unshaped-data", lambda: Blob().data, L, "never shaped"),
    ("copy-from-array", lambda: Blob((2, 3)).copy_from(np.zeros((2, 3))), T, "caffe.Blob"),
    ("copy-from-size", lambda: Blob((2, 3)).copy_from(Blob((3, 3))), L, "different sizes"),
    ("scale-str", lambda: Blob((2, 3)).scale_data("x"), T, "factor"),
    ("share-counts", lambda: Blob((2, 3)).share_data(Blob((7,))), L, "equal counts"),
    ("share-kind", lambda: Blob((2, 3)).share_diff("blob"), T, "caffe.Blob"),
    ("from-proto-int", lambda: Blob((2, 3)).from_proto(123), T, "proto must be"),
    ("from-proto-mismatch", lambda: Blob((3, 3)).from_proto(GOOD, reshape=False), L, "shape mismatch"),
    ("proto-truncated-header", lambda: parse_blobproto(b"\x0a\x01"), L, "not a valid"),
    ("proto-garbage", lambda: parse_blobproto(b"\xff" * 16), L, "not a valid"),
    ("proto-truncated-data", lambda: parse_blobproto(GOOD[:-3]), L, "not a valid"),
    ("proto-huge-dim", lambda: parse_blobproto(_proto(shape=[2**40])), L, "INT_MAX"),
    ("proto-huge-product", lambda: parse_blobproto(_proto(shape=[2**20, 2**20, 2**20])), L, "INT_MAX"),
    ("proto-negative-dim", lambda: parse_blobproto(_proto(shape=[3, -5])), L, "axis 1 is -5"),
    ("proto-33-dims", lambda: parse_blobproto(_proto(shape=[1] * 33)), L, "kMaxBlobAxes"),
    ("proto-legacy-negative", lambda: parse_blobproto(_proto(num=-1, channels=1, height=1, width=1)),
     L, "axis 0 is -1"),
    ("proto-count-mismatch", lambda: parse_blobproto(_proto(shape=[2, 2], data=[1.0] * 3)), L,
     "needs 4"),
    ("proto-none", lambda: parse_blobproto(None), T, "source must be"),
    ("proto-text-file", lambda: parse_blobproto(io.StringIO("abc")), T, "binary mode"),
    ("load-layout-int", lambda: caffe.load_binaryproto(GOOD, layout=5), T, "layout must be a str"),
    ("load-drop-big-axis", lambda: caffe.load_binaryproto(_proto(shape=[2, 3, 1, 1], data=[0.0] * 6),
                                                          "HWC"), L, "size 2"),
    ("load-3-axes", lambda: caffe.load_binaryproto(_proto(shape=[2, 3, 4], data=[0.0] * 24), "HWC"),
     L, "pass blob_axes="),
    ("load-blob-axes-lower", lambda: caffe.load_binaryproto(GOOD, blob_axes="nchw"), L, "upper-case"),
    ("load-blob-axes-repeat", lambda: caffe.load_binaryproto(GOOD, blob_axes="NCCW"), L, "once"),
    ("load-bad-layout", lambda: caffe.load_binaryproto(GOOD, "NCHW!"), L, "NCHW!"),
    ("save-complex", lambda: caffe.save_binaryproto(X_HWC.astype(complex), layout="HWC"), T,
     "real numbers"),
    ("save-str-array", lambda: caffe.save_binaryproto("abc"), T, "array"),
    ("save-blocked", lambda: caffe.save_binaryproto(X_NCHW, layout="NCHW16c"), L, "plain"),
    ("save-int-past-float32", lambda: caffe.save_binaryproto(np.full((1, 1, 1, 2), 2**40 + 1), double=False), L,
     ["float32 cannot store exactly", "1099511627777", "double=True"]),
    ("save-int-past-float64", lambda: caffe.save_binaryproto(np.full((1, 1, 1, 2), 2**63 - 1)), L,
     ["float64 cannot store exactly", "9223372036854775807", "astype"]),
    ("save-uint64-diff-past-float64", lambda: caffe.save_binaryproto(X_NCHW, diff=np.full(X_NCHW.shape, 2**64 - 1, np.uint64)), L,
     ["diff holds integers", "18446744073709551615"]),
    ("save-rank", lambda: caffe.save_binaryproto(X_HWC, layout="NCHW"), L, "has 4 axes"),
    ("save-path-float", lambda: caffe.save_binaryproto(X_NCHW, 3.5), T, "path"),
    ("save-legacy-str", lambda: caffe.save_binaryproto(X_HWC, layout="HWC", legacy="yes"), T, "legacy"),
    ("save-diff-shape", lambda: caffe.save_binaryproto(X_HWC, layout="HWC", diff=np.zeros(3)), L,
     "diff has shape"),
    ("save-legacy-5d", lambda: caffe.save_binaryproto(np.zeros((1, 2, 1, 2, 2), np.float32),
                                                      layout="NCDHW", legacy=True), L, "4 axes"),
    ("save-blob-axes-missing", lambda: caffe.save_binaryproto(X_HWC, layout="HWC", blob_axes="NCH"),
     L, "every axis"),
    ("weights-not-weights", lambda: caffe.convert_weights(W_OIHW, "NCHW", "NHWC"), L, "weight layout"),
    ("weights-dst-int", lambda: caffe.convert_weights(W_OIHW, "OIHW", 5), T, "dst"),
    ("weights-rank", lambda: caffe.convert_weights(W_OIHW[0], "OIHW", "HWIO"), L, "shape"),
    ("weights-strings", lambda: caffe.convert_weights(np.array(["a"] * 4).reshape(1, 1, 2, 2)), T,
     "real numbers"),
    ("protodata-count", lambda: BlobProtoData(shape=(2,), data=np.zeros(3)), L, "needs 2"),
    ("protodata-legacy-kind", lambda: BlobProtoData(shape=(1, 1, 1, 1), data=np.zeros(1), legacy=True),
     T, "legacy"),
]

# --- OpenCV -------------------------------------------------------------------------------------
IMG = np.arange(5 * 6 * 3, dtype=np.uint8).reshape(5, 6, 3)
OTHER = np.zeros((5, 6, 3), np.uint8)
F32 = np.zeros((5, 6, 3), np.float32)
MAT = MatLayout.create(4, 6, "CV_16UC3")
BUF = np.zeros(100, np.float64)
RO_OUT = np.zeros((1, 3, 5, 6), np.float32)
RO_OUT.flags.writeable = False

OPENCV = [
    ("cn-zero", lambda: opencv.make_type("8U", 0), L, "channel count 0"),
    ("cn-129-v5", lambda: opencv.make_type("8U", 129), L, "1..128"),
    ("cn-513-v4", lambda: opencv.make_type("8U", 513, version=4), L, "1..512"),
    ("cn-float", lambda: opencv.make_type("8U", 3.0), T, "cn"),
    ("depth-float", lambda: opencv.make_type(2.5, 3), T, "depth"),
    ("depth-name", lambda: opencv.make_type("9U", 1), L, "not an OpenCV"),
    ("depth-code", lambda: opencv.make_type(13, 1), L, "depth code 13"),
    ("depth-16bf-v4", lambda: opencv.make_type("16BF", 1, version=4), L, "16BF"),
    ("version-6", lambda: opencv.make_type("8U", 1, version=6), L, "version 6"),
    ("version-list", lambda: opencv.make_type("8U", 1, version=[5]), T, "version"),
    ("version-array", lambda: opencv.make_type("8U", 1, version=np.array([5, 4])), T, "version"),
    ("type-negative", lambda: opencv.type_name(-1), L, "out of range"),
    ("type-2**64", lambda: opencv.type_name(2**64), L, "out of range"),
    ("type-5000-digits", lambda: opencv.type_name(10**4999), L, "about 5000 digits"),
    ("cn-5000-digits", lambda: opencv.make_type("8U", 10**4999), L, "about 5000 digits"),
    ("type-none", lambda: opencv.type_name(None), T, "type"),
    ("type-depth-13", lambda: opencv.type_name(13), L, "depth 13"),
    ("type-float", lambda: opencv.elem_size(3.0), T, "type"),
    ("name-5000-digits", lambda: opencv.parse_type("CV_8UC" + "9" * 5000), L, "not understood"),
    ("name-bytes", lambda: opencv.parse_type(b"CV_8UC3"), T, "type name"),
    ("name-cn-zero", lambda: opencv.parse_type("CV_8UC0"), L, "channel count 0"),
    ("dtype-complex", lambda: opencv.type_from_dtype(np.complex64), L, "complex64"),
    ("dtype-garbage", lambda: opencv.type_from_dtype("nonsense"), T, "dtype"),
    ("dtype-16bf", lambda: opencv.dtype_of(opencv.make_type("16BF", 1)), L, "no numpy dtype"),
    ("mat-rows-negative", lambda: MatLayout.create(-1, 3, "CV_8UC1"), L, "rows"),
    ("mat-cols-str", lambda: MatLayout.create(2, "3", "CV_8UC1"), T, "cols"),
    ("mat-step-short", lambda: MatLayout.create(2, 3, "CV_8UC3", step=8), L, "step 8"),
    ("mat-step-esz1", lambda: MatLayout.create(2, 3, "CV_16UC3", step=19), L, "multiple of elemSize1"),
    ("mat-type-float", lambda: MatLayout.create(2, 3, 3.5), T, "type"),
    ("mat-end-short", lambda: MatLayout(2, 3, 0, 3, end=2), L, "end 2"),
    ("mat-submatrix-str", lambda: MatLayout(2, 3, 0, 3, submatrix="no"), T, "submatrix"),
    ("from-list", lambda: MatLayout.from_array([[1, 2]]), T, "image must be a numpy array"),
    ("from-4d", lambda: MatLayout.from_array(np.zeros((2, 2, 2, 2))), L, "2-D or 3-D"),
    ("from-gapped-pixels", lambda: MatLayout.from_array(IMG[:, ::2]), L, "pixels are"),
    ("from-planar", lambda: MatLayout.from_array(IMG.transpose(2, 1, 0).copy().transpose(2, 1, 0)),
     L, "channels are"),
    ("from-unrelated-parent", lambda: MatLayout.from_array(IMG, parent=OTHER), L,
     "not an ROI of this parent"),
    ("from-roi-of-other", lambda: MatLayout.from_array(IMG[1:3, 1:4], parent=OTHER), L,
     "not an ROI of this parent"),
    ("from-bigger-than-parent", lambda: MatLayout.from_array(IMG, parent=IMG[1:3]), L,
     "not an ROI of this parent"),
    ("from-type-mismatch", lambda: MatLayout.from_array(F32[1:3], parent=IMG), L, "not an ROI"),
    ("from-parent-str", lambda: MatLayout.from_array(IMG[1:3], parent="x"), T, "parent"),
    ("from-complex", lambda: MatLayout.from_array(np.zeros((2, 2), complex)), L, "complex128"),
    ("from-negative-step", lambda: MatLayout.from_array(IMG[::-1]), L, "negative step"),
    ("from-600-channels", lambda: MatLayout.from_array(np.zeros((2, 3, 600), np.uint8)), L,
     "channel count 600"),
    ("roi-outside", lambda: MAT.roi(5, 0, 4, 1), L, "outside"),
    ("roi-str", lambda: MAT.roi("1", 0, 1, 1), T, "x must be an int"),
    ("roi-negative", lambda: MAT.roi(-1, 0, 1, 1), L, "outside"),
    ("adjust-float", lambda: MAT.adjust_roi(1.5, 0, 0, 0), T, "dtop"),
    ("view-odd-bytes", lambda: MAT.view(b"\x00" * 5), L, "whole number"),
    ("view-short", lambda: MAT.view(b"\x00" * 10), L, "reaches"),
    ("view-list", lambda: MAT.view([1, 2, 3]), T, "buffer"),
    ("view-strided", lambda: MAT.view(BUF[::2]), L, "contiguous"),
    ("view-dtype", lambda: MAT.view(np.zeros(3, np.float32)), L, "does not match"),
    ("blob-size-0-4", lambda: blob_from_images([IMG], size=(0, 4)), L, "both be > 0"),
    ("blob-size-negative", lambda: blob_from_images([IMG], size=(-1, -1)), L, "size width"),
    ("blob-size-1-value", lambda: blob_from_images([IMG], size=(4,)), L, "width, height"),
    ("blob-size-str", lambda: blob_from_images([IMG], size="44"), T, "size"),
    ("blob-size-int-max", lambda: blob_from_images([IMG], size=(2**40, 4)), L, "size width"),
    ("blob-size-memory", lambda: blob_from_images([IMG], size=(2**30, 2**30)), L, "memory"),
    ("blob-size-float", lambda: blob_from_images([IMG], size=(4.5, 4)), T, "size width"),
    ("blob-resize-int32", lambda: blob_from_images([IMG.astype(np.int32)], size=(4, 4)), L, "resize"),
    ("blob-resize-empty", lambda: blob_from_images([IMG[:0]], size=(4, 4)), L, "empty"),
    ("blob-images-str", lambda: blob_from_images("img"), T, "images"),
    ("blob-image-str", lambda: blob_from_images([IMG, "x"]), T, "image 1"),
    ("blob-images-empty", lambda: blob_from_images([]), L, "empty"),
    ("blob-one-array", lambda: blob_from_images(IMG), L, "list of images"),
    ("blob-scale-str", lambda: blob_from_images([IMG], scalefactor="2"), T, "scalefactor"),
    ("blob-scale-ragged", lambda: blob_from_images([IMG], scalefactor=[np.zeros(0), np.zeros(1)]), T,
     "scalefactor[0]"),
    ("blob-mean-5", lambda: blob_from_images([IMG], mean=(1, 2, 3, 4, 5)), L, "at most 4"),
    ("blob-mean-str", lambda: blob_from_images([IMG], mean="abc"), T, "mean"),
    ("blob-mean-2d", lambda: blob_from_images([IMG], mean=np.ones((1, 2))), L, "flat"),
    ("blob-mean-nested", lambda: blob_from_images([IMG], mean=[[1, 2]]), T, "mean[0]"),
    ("blob-swap-str", lambda: blob_from_images([IMG], swap_rb="yes"), T, "swap_rb"),
    ("blob-crop-2", lambda: blob_from_images([IMG], crop=2), T, "crop"),
    ("blob-layout-blocked", lambda: blob_from_images([IMG], layout="NCHW16c"), L, "layout"),
    ("blob-layout-none", lambda: blob_from_images([IMG], layout=None), T, "layout"),
    ("blob-out-list", lambda: blob_from_images([IMG], out=[1]), T, "out"),
    ("blob-out-float64", lambda: blob_from_images([IMG], out=np.zeros((1, 3, 5, 6))), L, "float32"),
    ("blob-out-readonly", lambda: blob_from_images([IMG], out=RO_OUT), L, "read-only"),
    ("blob-threads-zero", lambda: blob_from_images([IMG], threads=0), L, "threads"),
    ("blob-threads-str", lambda: blob_from_images([IMG], threads="2"), T, "threads"),
    ("blob-2-channels", lambda: blob_from_images([np.zeros((5, 6, 2), np.uint8)]), L, "2 channels"),
    ("blob-float16", lambda: blob_from_images([np.zeros((5, 6, 3), np.float16)]), L, "float16"),
    ("blob-mixed-dtypes", lambda: blob_from_images([IMG, F32]), L, "same channels and dtype"),
    ("blob-object", lambda: blob_from_images([np.zeros((5, 6, 3), object)]), L, "not supported"),
    ("blob-mixed-sizes", lambda: blob_from_images([IMG, IMG[1:]]), L, "all images must match"),
]

# --- EdgeBoard ----------------------------------------------------------------------------------
X_FEED = np.arange(60, dtype=np.float32).reshape(1, 3, 5, 4)
FP16 = edgeboard.feed(X_FEED)
RO_FP16 = np.zeros(80, np.float16)
RO_FP16.flags.writeable = False
X16_OK = np.arange(96, dtype=np.float16).reshape(2, 4, 3, 4)      # W*C = 16: rows need no padding
X32_OK = X16_OK.astype(np.float32)
X16_PAD = X_FEED.astype(np.float16)                                 # W*C = 12: padded to 16
X16_WIDE = np.zeros((2, 4, 3, 8), np.float16)
X16_RO = X16_OK.copy()
X16_RO.flags.writeable = False

EDGEBOARD = [
    ("fetch-159-bytes", lambda: edgeboard.fetch(np.zeros(159, np.uint8), 1, 3, 5, 4), L, "160 bytes"),
    ("fetch-161-bytes", lambda: edgeboard.fetch(bytes(161), 1, 3, 5, 4), L, "160 bytes"),
    ("fetch-79-values", lambda: edgeboard.fetch(FP16[:79], 1, 3, 5, 4), L, "80 float16"),
    ("fetch-float32", lambda: edgeboard.fetch(FP16.astype(np.float32), 1, 3, 5, 4), L, "float16"),
    ("fetch-2d", lambda: edgeboard.fetch(FP16.reshape(5, 16), 1, 3, 5, 4), L, "80 float16"),
    ("fetch-str", lambda: edgeboard.fetch("abc", 1, 3, 5, 4), T, "buffer"),
    ("fetch-float-dim", lambda: edgeboard.fetch(FP16, 1, 3, 5, 4.0), T, "W must be an int"),
    ("fetch-negative-dim", lambda: edgeboard.fetch(FP16, 1, 3, 5, -4), L, "W must be a non-negative"),
    ("fetch-alignment-0", lambda: edgeboard.fetch(FP16, 1, 3, 5, 4, alignment=0), L, "alignment"),
    ("fetch-threads-0", lambda: edgeboard.fetch(FP16, 1, 3, 5, 4, threads=0), L, "threads"),
    ("feed-3d", lambda: edgeboard.feed(X_FEED[0]), L, "4-D NCHW"),
    ("feed-str", lambda: edgeboard.feed("x"), T, "feed input"),
    ("feed-complex", lambda: edgeboard.feed(X_FEED.astype(complex)), T, "real numbers"),
    ("feed-out-short", lambda: edgeboard.feed(X_FEED, out=np.zeros(79, np.float16)), L, "80 elements"),
    ("feed-out-list", lambda: edgeboard.feed(X_FEED, out=[0] * 80), T, "out"),
    ("feed-out-readonly", lambda: edgeboard.feed(X_FEED, out=RO_FP16), L, "read-only"),
    ("feed-alignment-negative", lambda: edgeboard.feed(X_FEED, alignment=-16), L, "alignment"),
    ("feed-threads-negative", lambda: edgeboard.feed(X_FEED, threads=-1), L, "threads"),
    ("feed-inplace-float32", lambda: edgeboard.feed(X32_OK, inplace=True), L, ["float16", "cast"]),
    ("feed-inplace-padded", lambda: edgeboard.feed(X16_PAD, inplace=True), L, ["padding", "20 more"]),
    ("feed-inplace-strided", lambda: edgeboard.feed(X16_WIDE[..., ::2], inplace=True), L, "C-contiguous"),
    ("feed-inplace-readonly", lambda: edgeboard.feed(X16_RO, inplace=True), L, "read-only"),
    ("feed-inplace-out", lambda: edgeboard.feed(X16_OK, out=np.zeros(96, np.float16), inplace=True), L, "exclude"),
    ("feed-inplace-list", lambda: edgeboard.feed(X16_OK.tolist(), inplace=True), L, "numpy float16 array"),
    ("feed-inplace-str", lambda: edgeboard.feed(X16_OK, inplace="yes"), T, "inplace"),
    ("align-zero", lambda: edgeboard.align_to_x(3, 0), L, "x must be >= 1"),
    ("align-str", lambda: edgeboard.align_to_x("3", 16), T, "num"),
    ("size-bool", lambda: edgeboard.fpga_image_size(1, 3, 5, True), T, "W"),
]

KEEP = [X_HWC, X_NCHW, W_OIHW, IMG, OTHER, F32, BUF, RO_OUT, X_FEED, FP16, RO_FP16, X16_OK, X32_OK, X16_PAD,
        X16_WIDE, X16_RO]


@pytest.mark.parametrize("name,call,exc,word", CAFFE + OPENCV + EDGEBOARD,
                         ids=[c[0] for c in CAFFE + OPENCV + EDGEBOARD])
def test_refused(name, call, exc, word):
    if name.startswith(("proto", "load", "save", "from-proto")):
        pytest.importorskip("google.protobuf")
    check_refused(call, exc, word, keep=KEEP)


# --- PyTorch ------------------------------------------------------------------------------------
def _torch_cases():
    torch = pytest.importorskip("torch")
    from layouts.interop import pytorch as lt

    t = torch.arange(120, dtype=torch.float32).reshape(2, 3, 4, 5)
    a = np.zeros((2, 4, 5, 3), np.float32)
    return torch, lt, t, a, [
        ("formats-ndarray", lambda: lt.memory_formats(np.zeros((2, 3, 4, 5))), T, "torch.Tensor"),
        ("formats-2d", lambda: lt.memory_formats(torch.zeros(3, 4)), L, "pass axes="),
        ("layout-axes-short", lambda: lt.layout_of_tensor(t, axes="NCH"), L, "axes='NCH'"),
        ("layout-axes-int", lambda: lt.layout_of_tensor(t, axes=5), T, "axes must be a str"),
        ("layout-axes-repeat", lambda: lt.layout_of_tensor(t, axes="NCCW"), L, "once"),
        ("layout-prefer-array", lambda: lt.layout_of_tensor(t, prefer=np.zeros(1)), T, "prefer"),
        ("layout-ambiguous", lambda: lt.layout_of_tensor(torch.zeros(2, 3, 1, 1)), L, "ambiguous"),
        ("numpy-bfloat16", lambda: lt.to_numpy(t.to(torch.bfloat16)), L, "no numpy dtype"),
        ("numpy-grad", lambda: lt.to_numpy(t.clone().requires_grad_()), L, "requires grad"),
        ("numpy-meta", lambda: lt.to_numpy(torch.empty(2, 3, 4, 5, device="meta")), L, "meta"),
        ("convert-dst-none", lambda: lt.convert_tensor(t, None), T, "dst"),
        ("convert-threads-0", lambda: lt.convert_tensor(t, "NHWC", threads=0), L, "threads"),
        ("convert-src-int", lambda: lt.convert_tensor(t, "NHWC", src=5), T, "src"),
        ("convert-sparse", lambda: lt.convert_tensor(t.to_sparse(), "NHWC"), L, "strided"),
        ("convert-quantized", lambda: lt.convert_tensor(
            torch.quantize_per_tensor(t, 0.1, 0, torch.quint8), "NHWC"), L, "quantized"),
        ("convert-grad", lambda: lt.convert_tensor(t.clone().requires_grad_(), "NHWC"), L, "detach"),
        ("convert-meta", lambda: lt.convert_tensor(torch.empty(2, 3, 4, 5, device="meta"), "NHWC"),
         L, "meta"),
        ("convert-unknown-axis", lambda: lt.convert_tensor(t, "NHWX"), L, "X"),
        ("from-list", lambda: lt.from_numpy([1], "NCHW"), T, "array"),
        ("from-blocked", lambda: lt.from_numpy(a, "NCHW16c"), L, "plain order"),
        ("from-layout-int", lambda: lt.from_numpy(a, 5), T, "layout"),
        ("from-object", lambda: lt.from_numpy(a.astype(object), "NHWC"), T, "dtype"),
        ("from-dtype-size", lambda: lt.from_numpy(a, "NHWC", dtype=torch.bfloat16), L, "2-byte"),
    ]


TORCH_IDS = ["formats-ndarray", "formats-2d", "layout-axes-short", "layout-axes-int",
             "layout-axes-repeat", "layout-prefer-array", "layout-ambiguous", "numpy-bfloat16", "numpy-grad", "numpy-meta",
             "convert-dst-none", "convert-threads-0", "convert-src-int", "convert-sparse",
             "convert-quantized", "convert-grad", "convert-meta", "convert-unknown-axis",
             "from-list", "from-blocked", "from-layout-int", "from-object", "from-dtype-size"]


@pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor:UserWarning")  # torch's deprecation
@pytest.mark.parametrize("name", TORCH_IDS)
def test_torch_refused(name):
    torch, lt, t, a, cases = _torch_cases()
    assert [c[0] for c in cases] == TORCH_IDS
    _, call, exc, word = cases[TORCH_IDS.index(name)]
    check_refused(call, exc, word, keep=[t.numpy(), a])   # t.numpy() shares t's memory


def test_catalogue_size():
    assert len(CAFFE) + len(OPENCV) + len(EDGEBOARD) + len(TORCH_IDS) >= 150


# --- the fuzz: random hostile arguments at every interop entry point ----------------------------
FUZZ = r'''
import os, sys, traceback
import numpy as np
from hypothesis import given, settings, strategies as st, HealthCheck
import layouts
from layouts.errors import LayoutError
from layouts.interop import caffe, opencv, edgeboard
from layouts.interop.opencv import MatLayout
WITH_TORCH = {with_torch}
if WITH_TORCH:
    import torch
    from layouts.interop import pytorch

PKG = os.path.dirname(layouts.__file__)

def arrays():
    dt = st.sampled_from(["uint8", "int8", "uint16", "int32", "float16", "float32", "float64", ">f4",
                          "complex64", "bool", "object", "U3", "datetime64[s]"])
    shape = st.lists(st.integers(0, 4), min_size=0, max_size=5)
    return st.builds(lambda d, s: np.zeros(s, d), dt, shape)

scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
                    st.binary(max_size=40), st.sampled_from(["NCHW", "NHWC", "HWC", "CV_8UC3",
                    "NCHW16c", "8U", "", "nchw", "OIHW", "HWIO", "CHW"]))
small = st.integers(-2, 20)
images = st.builds(lambda h, w, c, d: np.zeros((h, w, c), d), st.integers(0, 6), st.integers(0, 6),
                   st.sampled_from([1, 2, 3, 4, 600]), st.sampled_from(["uint8", "float32", "int32", ">u2"]))
buffers = st.builds(lambda n, d: np.zeros(n, d), st.integers(0, 200), st.sampled_from(["uint8", "float16", "float32"]))
values = st.one_of(small, small, small, scalars, arrays(), images, images.map(lambda a: [a, a]),
                   buffers, st.lists(st.integers(-3, 2**33), max_size=6).map(tuple),
                   st.lists(arrays(), min_size=0, max_size=3), st.dictionaries(st.text(max_size=2),
                   st.integers(), max_size=2))
if WITH_TORCH:
    tensors = st.builds(lambda s, d: torch.zeros(s, dtype=d),
                        st.lists(st.integers(0, 3), max_size=5),
                        st.sampled_from([torch.float32, torch.bfloat16, torch.uint8, torch.bool]))
    values = st.one_of(values, tensors)

MAT = MatLayout.create(4, 6, "CV_16UC3")
ENTRIES = [
    (caffe.Blob, 2), (lambda *a: caffe.Blob((2, 3)).offset(*a), 4),
    (lambda *a: caffe.Blob((2, 3)).count(*a), 2), (caffe.parse_blobproto, 1),
    (caffe.load_binaryproto, 3), (caffe.save_binaryproto, 3), (caffe.convert_weights, 3),
    (lambda a, b: caffe.BlobProtoData(shape=a, data=b), 2),
    (opencv.make_type, 3), (opencv.type_name, 2), (opencv.parse_type, 2), (opencv.elem_size, 2),
    (opencv.type_from_dtype, 3), (opencv.dtype_of, 2), (MatLayout.create, 4),
    (MatLayout.from_array, 2), (MAT.roi, 4), (MAT.adjust_roi, 4), (MAT.view, 1),
    (opencv.blob_from_images, 4),
    (lambda im, sz, mean, layout: opencv.blob_from_images(im, 1.0, size=sz, mean=mean, layout=layout), 4),
    (lambda sz: opencv.blob_from_images([np.zeros((3, 4, 3), np.uint8)], size=sz), 1),
    (edgeboard.feed, 3), (edgeboard.fetch, 5), (edgeboard.align_to_x, 2),
    (edgeboard.fpga_image_size, 4), (edgeboard.fpga_image_layout, 4),
]
if WITH_TORCH:
    ENTRIES += [(pytorch.memory_formats, 1), (pytorch.layout_of_tensor, 3), (pytorch.to_numpy, 2),
                (pytorch.from_numpy, 3), (pytorch.convert_tensor, 3)]

def ours(err):
    """The innermost frame that raised is in layouts (not numpy, cv2, protobuf, torch)."""
    tb = err.__traceback__
    last = None
    while tb is not None:
        last = tb.tb_frame.f_code.co_filename
        tb = tb.tb_next
    return last is not None and os.path.abspath(last).startswith(PKG)

seen = {{}}

@settings(max_examples={examples}, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.integers(0, len(ENTRIES) - 1), st.lists(values, min_size=0, max_size=5))
def fuzz(which, args):
    fn, nargs = ENTRIES[which]
    args = args[:nargs]
    try:
        fn(*args)
    except LayoutError:
        seen["LayoutError"] = seen.get("LayoutError", 0) + 1
    except (TypeError, ValueError) as err:
        # a plain TypeError/ValueError must come from layouts' own checks, not a library inside
        # (a wrong number of positional arguments is the caller's TypeError from Python itself)
        if not ours(err) and "positional argument" not in str(err) and "required" not in str(err):
            raise AssertionError(f"{{type(err).__name__}} from inside a library for "
                                 f"{{getattr(fn, '__name__', fn)}}{{tuple(map(type, args))}}: {{err}}\n"
                                 + "".join(traceback.format_tb(err.__traceback__)[-3:]))
        seen[type(err).__name__] = seen.get(type(err).__name__, 0) + 1
    except (FileNotFoundError, IsADirectoryError, PermissionError, NotADirectoryError):
        pass  # a str source names a file: the OS says it is not there, as open() does
    except BaseException as err:
        raise AssertionError(f"{{type(err).__name__}} leaked from {{getattr(fn, '__name__', fn)}}"
                             f"{{tuple(map(type, args))}}: {{err}}\n"
                             + "".join(traceback.format_tb(err.__traceback__)[-4:]))

fuzz()
print("OK", sorted(seen.items()))
'''


@pytest.mark.parametrize("with_torch", [False, True])
def test_fuzz_interop_entry_points_only_refuse_cleanly(with_torch):
    """Hypothesis drives random hostile arguments (wrong kinds, huge ints, NaN, odd dtypes and
    shapes, tensors) through every interop entry point in a child process bounded to 240 s and
    3 GiB: anything but a clean refusal, a hang or a memory blow-up fails."""
    pytest.importorskip("hypothesis")
    pytest.importorskip("google.protobuf")
    pytest.importorskip("cv2")
    if with_torch:
        pytest.importorskip("torch")
    proc = run_bounded(FUZZ.format(with_torch=with_torch, examples=1500), timeout=240,
                       memory_mb=6144 if with_torch else 3072)
    assert proc.stdout.startswith("OK"), proc.stdout
    assert "LayoutError" in proc.stdout and "TypeError" in proc.stdout
