"""OpenCV interop: type codes and Mat layouts (against cv2 where it can tell, hand vectors from
interface.h / mat.inl.hpp otherwise) and blob_from_images against cv2.dnn.blobFromImages."""

import numpy as np
import pytest

from layouts.errors import LayoutError
from layouts.interop import opencv as ocv
from layouts.interop.opencv import CV4, CV5, MatLayout, blob_from_images
from oracle import opencv_scalar

DEPTHS5 = ["8U", "8S", "16U", "16S", "32S", "32F", "64F", "16F", "16BF", "Bool", "64U", "64S",
           "32U"]


# --- type codes --------------------------------------------------------------------------------
def test_hand_vectors_both_encodings():
    assert ocv.make_type("8U", 3, version=4) == 16 and ocv.make_type("8U", 3) == 64
    assert ocv.make_type("32F", 3, version=4) == 21 and ocv.make_type("32F", 3) == 69
    assert ocv.make_type("16F", 4, version=4) == 31
    assert ocv.make_type("8U", 512, version=4) == 4088
    assert ocv.make_type("8U", 128) == 4064
    assert [CV5.depth_code(d) for d in DEPTHS5] == list(range(13))
    assert ocv.make_type("CV_32U", 2) == 12 + 32
    assert ocv.depth_of(69) == 5 and ocv.channels_of(69) == 3
    assert ocv.depth_of(21, version=4) == 5 and ocv.channels_of(21, version=4) == 3
    # the same number means different things in the two encodings
    assert ocv.type_name(16, version=4) == "CV_8UC3"
    assert ocv.type_name(64, version=4) == "CV_8UC9" and ocv.type_name(64) == "CV_8UC3"
    with pytest.raises(LayoutError, match="type code 16 has depth 16"):
        ocv.type_name(16)


def test_names_parse_and_round_trip():
    for enc in (CV4, CV5):
        for code, (name, _, _) in enumerate(enc.depths):
            for cn in (1, 2, 3, 4, 5, 9, enc.cn_max):
                t = enc.make_type(code, cn)
                assert enc.parse(enc.name(t)) == t
                assert enc.depth(t) == code and enc.channels(t) == cn
    assert ocv.parse_type("CV_8UC3") == 64 and ocv.parse_type("8UC3", version=4) == 16
    assert ocv.parse_type("CV_32F") == 5 and ocv.parse_type("CV_16UC(7)") == 2 + 6 * 32
    assert ocv.type_name(ocv.make_type("8U", 9)) == "CV_8UC9"
    assert ocv.parse_type("CV_8UC(9)") == ocv.parse_type("CV_8UC9")   # the CV_8UC(n) macro's form
    assert ocv.type_name(ocv.make_type("Bool", 1)) == "CV_BoolC1"


def test_type_errors_name_the_value():
    with pytest.raises(LayoutError, match="channel count 513.*1..512"):
        ocv.make_type("8U", 513, version=4)
    with pytest.raises(LayoutError, match="channel count 129.*1..128"):
        ocv.make_type("8U", 129)
    with pytest.raises(LayoutError, match="channel count 0"):
        ocv.make_type("8U", 0)
    with pytest.raises(LayoutError, match="16BF.*4.x"):
        ocv.make_type("16BF", 1, version=4)
    with pytest.raises(LayoutError, match="depth 13"):
        ocv.channels_of(13)
    with pytest.raises(LayoutError, match="out of range"):
        ocv.channels_of(4096)
    with pytest.raises(LayoutError, match="'CV_8X3' not understood"):
        ocv.parse_type("CV_8X3")
    with pytest.raises(LayoutError, match="version 6"):
        ocv.make_type("8U", 1, version=6)
    with pytest.raises(LayoutError, match="complex128"):
        ocv.type_from_dtype(np.complex128)
    with pytest.raises(LayoutError, match="no numpy dtype"):
        ocv.dtype_of(ocv.make_type("16BF", 1))


def test_elem_sizes_match_numpy_itemsize():
    for enc in (CV4, CV5):
        for code, (name, size1, npname) in enumerate(enc.depths):
            t = enc.make_type(code, 3)
            assert enc.elem_size1(t) == size1 and enc.elem_size(t) == 3 * size1
            if npname is not None:
                assert np.dtype(npname).itemsize == size1
                assert enc.from_dtype(npname, 3) == t and enc.dtype(t) == np.dtype(npname)
    assert ocv.elem_size(ocv.make_type("16BF", 3)) == 6
    assert ocv.elem_size_of(np.float32, 3) == (12, 4)
    assert ocv.elem_size_of(np.uint16, 4) == (8, 2)


def _cv2_major(cv2):
    major = int(cv2.__version__.split(".")[0])
    assert major in (4, 5), f"cv2 {cv2.__version__}: layouts knows the 4.x and 5.x encodings only"
    return major


def _cv2_type_to_string(cv2, t):
    """OpenCV's own typeToString of type code ``t``: cv2.typeToString where the binding has it,
    else what cv::utils::dumpInputArray prints (it calls typeToString) for a 1x1 UMat of type t."""
    if hasattr(cv2, "typeToString"):
        return cv2.typeToString(t)
    text = cv2.utils.dumpInputArray(cv2.UMat(1, 1, t))
    return text.split("type(-1)=")[1].split()[0]


def test_type_name_spells_as_the_installed_opencv_for_every_depth_and_channel_count():
    """Every depth x channels 1..CV_CN_MAX of the installed cv2's own encoding (4.x: 8 depths x
    512, 5.x: 13 x 128), spelled by OpenCV itself: CV_8UC5, never CV_8UC(5)."""
    cv2 = pytest.importorskip("cv2")
    major = _cv2_major(cv2)
    enc = ocv.encoding(major)
    checked = 0
    for code in range(len(enc.depths)):
        for cn in range(1, enc.cn_max + 1):
            t = enc.make_type(code, cn)
            assert t == cv2.CV_MAKETYPE(code, cn)
            assert enc.name(t) == _cv2_type_to_string(cv2, t), (code, cn)
            checked += 1
    assert checked == {4: 8 * 512, 5: 13 * 128}[major]


@pytest.mark.parametrize("version", [4, 5])
def test_type_name_round_trips_every_code_up_to_512_channels(version):
    """The other encoding (not installed): names parse back to the same code for every depth and
    channel count, and counts beyond the encoding's CV_CN_MAX are refused, up to 512."""
    enc = ocv.encoding(version)
    for code, (depth, _, _) in enumerate(enc.depths):
        for cn in range(1, 513):
            if cn > enc.cn_max:
                with pytest.raises(LayoutError, match=f"channel count {cn}"):
                    enc.make_type(code, cn)
                continue
            t = enc.make_type(code, cn)
            name = enc.name(t)
            assert name.startswith("CV_" + depth + "C") and "(" not in name
            assert int(name[len("CV_" + depth + "C"):]) == cn
            assert enc.parse(name) == t == enc.parse(f"CV_{depth}C({cn})")


def test_5x_codes_equal_cv2_constants():
    cv2 = pytest.importorskip("cv2")
    if _cv2_major(cv2) != 5:
        pytest.skip(f"cv2 {cv2.__version__} uses the 4.x encoding (checked by the 4.x test)")
    for name in DEPTHS5:
        for cn in (1, 2, 3, 4):
            attr = f"CV_{name}C{cn}"
            if hasattr(cv2, attr):
                assert ocv.parse_type(attr) == getattr(cv2, attr), attr
        if hasattr(cv2, f"CV_{name}"):
            assert CV5.depth_code(name) == getattr(cv2, f"CV_{name}")
        for cn in (1, 5, 77, 128):
            assert ocv.make_type(name, cn) == cv2.CV_MAKETYPE(CV5.depth_code(name), cn)
    assert cv2.CV_8UC3 == 64 == ocv.make_type("8U", 3)


def test_4x_codes_equal_cv2_constants_when_cv2_is_4x():
    cv2 = pytest.importorskip("cv2")
    if _cv2_major(cv2) != 4:
        pytest.skip(f"cv2 {cv2.__version__} uses the 5.x encoding (checked by the 5.x test)")
    for name in DEPTHS5[:8]:
        for cn in (1, 2, 3, 4):
            assert ocv.parse_type(f"CV_{name}C{cn}", version=4) == getattr(cv2, f"CV_{name}C{cn}")
        assert CV4.depth_code(name) == getattr(cv2, f"CV_{name}")
        for cn in (1, 5, 77, 512):
            assert ocv.make_type(name, cn, version=4) == cv2.CV_MAKETYPE(CV4.depth_code(name), cn)
    assert cv2.CV_8UC3 == 16 == ocv.make_type("8U", 3, version=4)
    for name in DEPTHS5[8:]:        # 16BF, Bool, 64U, 64S, 32U are 5.x only
        assert not hasattr(cv2, f"CV_{name}C1")


def test_from_array_type_equals_what_cv2_makes_of_the_image():
    """The type code MatLayout.from_array gives a numpy image is the one cv2 itself reads from it
    (in the installed cv2's encoding)."""
    cv2 = pytest.importorskip("cv2")
    major = _cv2_major(cv2)
    for dt in ("uint8", "int8", "uint16", "int16", "int32", "float32", "float64", "float16"):
        for cn in (1, 3, 4, 7):
            img = np.zeros((2, 3, cn), dt)
            m = MatLayout.from_array(img, version=major)
            assert ocv.type_name(m.type, version=major) == \
                cv2.utils.dumpInputArray(img).split("type(-1)=")[1].split()[0]


# --- Mat -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,step,esz,esz1", [("CV_8UC3", 1536, 3, 1), ("CV_8UC4", 2048, 4, 1),
                                                ("CV_32FC3", 6144, 12, 4)])
def test_mat_512x512_steps_from_the_reference(name, step, esz, esz1):
    m = MatLayout.create(512, 512, name)
    assert m.steps == (step, esz) and m.elem_size == esz and m.elem_size1 == esz1
    assert m.step1 == step // esz1 and m.total == 512 * 512 and m.is_continuous
    assert not m.is_submatrix and m.end == 512 * step
    img = np.zeros((512, 512, esz // esz1), ocv.dtype_of(m.type))
    assert MatLayout.from_array(img) == m
    assert img.strides[:2] == m.steps


def test_user_step_rules():
    m = MatLayout.create(3, 5, "CV_16UC3", step=32)
    assert m.step1 == 16 and not m.is_continuous and m.end == 2 * 32 + 30
    one_row = MatLayout.create(1, 5, "CV_16UC3", step=64)          # 4.x/5.x keep a given step
    assert one_row.step == 64 and one_row.is_continuous                # ... and one row is continuous
    assert not MatLayout.create(3, 0, "CV_8UC1", step=16).is_continuous  # updateContinuityFlag: 0 cols, rows 16 bytes apart
    assert MatLayout.create(3, 0, "CV_8UC1").is_continuous             # ... but packed (step 0) it is
    with pytest.raises(LayoutError, match="expected step >= 30"):
        MatLayout.create(1, 5, "CV_16UC3", step=16)
    with pytest.raises(LayoutError, match="step 29 bytes is less than a row.*30"):
        MatLayout.create(3, 5, "CV_16UC3", step=29)
    with pytest.raises(LayoutError, match="step 33 is not a multiple of elemSize1 2"):
        MatLayout.create(3, 5, "CV_16UC3", step=33)


def test_continuity_needs_the_count_to_fit_an_int():
    assert MatLayout.create(46340, 46340, "CV_8UC1").is_continuous        # 2147395600 < INT_MAX
    assert not MatLayout.create(50000, 50000, "CV_8UC1").is_continuous   # 2.5e9 > INT_MAX
    assert not MatLayout.create(30000, 30000, "CV_8UC3").is_continuous   # 2.7e9 channels


def test_roi_keeps_step_and_continuity_rules():
    m = MatLayout.create(10, 8, "CV_8UC3")
    r = m.roi(2, 3, 4, 5)
    assert r.step == 24 and r.offset == 3 * 24 + 2 * 3 and r.is_submatrix
    assert not r.is_continuous
    band = m.roi(0, 2, 8, 3)                   # full width: rows still follow each other
    assert band.is_continuous and band.is_submatrix
    row = m.roi(3, 4, 2, 1)                    # one row is always continuous
    assert row.is_continuous and row.step == 24
    whole = m.roi(0, 0, 8, 10)
    assert whole.is_continuous and not whole.is_submatrix
    with pytest.raises(LayoutError, match="outside the 8x10"):
        m.roi(5, 0, 4, 1)
    # an ROI of an ROI is still a submatrix and still locates itself in the whole image
    rr = r.roi(1, 1, 2, 2)
    assert rr.is_submatrix and rr.locate_roi() == ((8, 10), (3, 4))


def test_locate_and_adjust_roi_hand_vectors():
    m = MatLayout.create(10, 8, "CV_32FC1")
    r = m.roi(2, 3, 4, 5)
    assert r.locate_roi() == ((8, 10), (2, 3))
    g = r.adjust_roi(1, 1, 1, 1)
    assert (g.rows, g.cols) == (7, 6) and g.locate_roi() == ((8, 10), (1, 2))
    big = r.adjust_roi(100, 100, 100, 100)     # clipped to the parent
    assert (big.rows, big.cols) == (10, 8) and big.locate_roi()[1] == (0, 0)
    assert big.is_continuous
    shrunk = r.adjust_roi(-1, -1, -1, -1)
    assert (shrunk.rows, shrunk.cols) == (3, 2) and shrunk.locate_roi()[1] == (3, 4)
    # a parent whose rows are padded (step > row): the whole width is still its cols
    p = MatLayout.create(6, 5, "CV_8UC1", step=8)
    assert p.roi(1, 2, 3, 2).locate_roi() == ((5, 6), (1, 2))
    assert m.locate_roi() == ((8, 10), (0, 0))


def test_numpy_roi_matches_mat_roi_and_layout_offsets():
    rng = np.random.default_rng(0)
    parent = rng.integers(0, 255, (9, 7, 3)).astype(np.float32)
    sub = parent[2:6, 1:5]
    m = MatLayout.from_array(sub, parent=parent)
    assert m == MatLayout.from_array(parent).roi(1, 2, 4, 4)
    assert m.step == parent.strides[0] and not m.is_continuous
    L = m.layout
    assert L.strides == {"H": m.step1, "W": 3, "C": 1}
    base = sub.__array_interface__["data"][0]
    for h, w, c in np.ndindex(sub.shape):
        addr = base + sub.strides[0] * h + sub.strides[1] * w + sub.strides[2] * c
        assert L.offset(h=h, w=w, c=c) * m.elem_size1 == addr - base
    np.testing.assert_array_equal(m.view(parent.reshape(-1)), sub)
    np.testing.assert_array_equal(m.view(parent.tobytes()), sub)
    with pytest.raises(LayoutError, match="not an ROI"):
        MatLayout.from_array(sub.astype(np.float64), parent=parent)


def test_from_array_refuses_what_a_mat_cannot_hold():
    img = np.zeros((4, 6, 3), np.uint8)
    with pytest.raises(LayoutError, match="pixels are 6 bytes apart"):
        MatLayout.from_array(img[:, ::2])
    planar = np.zeros((3, 4, 6), np.uint8).transpose(1, 2, 0)  # CHW memory seen as HWC
    with pytest.raises(LayoutError, match="channels are 24 bytes apart"):
        MatLayout.from_array(planar)
    with pytest.raises(LayoutError, match="2-D or 3-D"):
        MatLayout.from_array(np.zeros((2, 2, 2, 2)))
    gray = MatLayout.from_array(np.zeros((4, 5), np.uint16))
    assert ocv.type_name(gray.type) == "CV_16UC1" and gray.step == 10


# --- blob_from_images ----------------------------------------------------------------------------
def _numpy_twin(images, scale, mean, swap_rb, layout="NCHW"):
    """The definition, in plain numpy float32: subtract the mean, then scale, channels swapped."""
    x = np.stack([im if im.ndim == 3 else im[:, :, None] for im in images]).astype(np.float32)
    C = x.shape[-1]
    if swap_rb and C >= 3:
        x = x[..., [2, 1, 0, 3][:C]]
    m = opencv_scalar(mean)[:C].astype(np.float32)
    s = (np.full(4, scale) if np.ndim(scale) == 0 else opencv_scalar(scale))[:C]
    y = (x - m) * s.astype(np.float32)
    return y.transpose(0, 3, 1, 2) if layout == "NCHW" else y


def _images(dtype, n, h, w, c, seed=0):
    rng = np.random.default_rng(seed)
    shape = (h, w) if c == 1 and seed % 2 else (h, w, c)
    if dtype == np.uint8:
        return [rng.integers(0, 256, shape, dtype=np.uint8) for _ in range(n)]
    return [rng.uniform(-50, 300, shape).astype(dtype) for _ in range(n)]


CASES = [(np.uint8, 3, 1 / 255, (104, 117, 123), True), (np.uint8, 3, 1.0, None, False),
         (np.uint8, 1, 0.5, 10, False), (np.uint8, 4, 0.25, (1, 2, 3, 4), True),
         (np.float32, 3, 2.0, (0.5, -1.5, 3.25), True), (np.float32, 1, 1.0, 7.5, True),
         (np.uint8, 3, 1.0, 127.5, False)]


@pytest.mark.parametrize("dtype,c,scale,mean,swap", CASES)
def test_equals_numpy_twin(dtype, c, scale, mean, swap):
    imgs = _images(dtype, 3, 7, 11, c, seed=c)
    got = blob_from_images(imgs, scale, mean=mean, swap_rb=swap)
    np.testing.assert_array_equal(got, _numpy_twin(imgs, scale, mean, swap))
    nhwc = blob_from_images(imgs, scale, mean=mean, swap_rb=swap, layout="NHWC")
    np.testing.assert_array_equal(nhwc, _numpy_twin(imgs, scale, mean, swap, "NHWC"))


@pytest.mark.parametrize("dtype,c,scale,mean,swap", CASES)
def test_equals_cv2_blob_from_images(dtype, c, scale, mean, swap):
    cv2 = pytest.importorskip("cv2")
    imgs = _images(dtype, 4, 13, 17, c, seed=c)
    want = cv2.dnn.blobFromImages(imgs, scale, None, mean if mean is not None else 0, swap, False)
    got = blob_from_images(imgs, scale, mean=mean, swap_rb=swap)
    assert got.shape == want.shape and got.dtype == want.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("c,swap", [(1, False), (3, True), (3, False), (4, False)])
def test_nhwc_equals_cv2_image2blobparams(c, swap):
    cv2 = pytest.importorskip("cv2")
    if not hasattr(cv2.dnn, "Image2BlobParams"):
        pytest.skip("cv2 without Image2BlobParams")
    imgs = _images(np.uint8, 3, 6, 9, c, seed=2 * c)
    p = cv2.dnn.Image2BlobParams()
    # cv2 5.x exports the enum at the top level, 4.x inside cv2.dnn
    p.datalayout = cv2.DNN_LAYOUT_NHWC if hasattr(cv2, "DNN_LAYOUT_NHWC") else cv2.dnn.DNN_LAYOUT_NHWC
    p.scalefactor = (0.5, 0.25, 2.0, 1.0)
    p.mean = (3, 5, 7, 9)
    p.swapRB = swap
    want = cv2.dnn.blobFromImagesWithParams(imgs, p)
    got = blob_from_images(imgs, (0.5, 0.25, 2.0, 1.0), mean=(3, 5, 7, 9), swap_rb=swap,
                           layout="NHWC")
    np.testing.assert_allclose(got, want.reshape(got.shape), rtol=1e-6, atol=1e-5)


def test_rois_and_flipped_views_equal_cv2_on_copies():
    cv2 = pytest.importorskip("cv2")
    rng = np.random.default_rng(5)
    big = rng.integers(0, 256, (40, 50, 3), dtype=np.uint8)
    views = [big[3:23, 5:35], big[10:30, 12:42], big[::-1][:20, :30], big[:20, ::-1][:, :30]]
    got = blob_from_images(views, 1 / 127.5, mean=(127.5, 127.5, 127.5), swap_rb=True)
    want = cv2.dnn.blobFromImages([np.ascontiguousarray(v) for v in views], 1 / 127.5, None,
                                  (127.5, 127.5, 127.5), True, False)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    # cv2 takes the ROIs as they are (step > row) and agrees too
    want_roi = cv2.dnn.blobFromImages(views[:2], 1 / 127.5, None, (127.5,) * 3, True, False)
    np.testing.assert_allclose(got[:2], want_roi, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("crop", [False, True])
def test_resize_and_crop_follow_cv2(crop):
    cv2 = pytest.importorskip("cv2")
    imgs = _images(np.uint8, 2, 30, 41, 3, seed=4)
    want = cv2.dnn.blobFromImages(imgs, 0.5, (16, 12), (1, 2, 3), True, crop)
    got = blob_from_images(imgs, 0.5, size=(16, 12), mean=(1, 2, 3), swap_rb=True, crop=crop)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-5)


def test_batch_array_out_and_layouts():
    imgs = np.stack(_images(np.uint8, 5, 4, 6, 3))
    ref = _numpy_twin(list(imgs), 0.5, (1, 2, 3), True)
    out = np.full((5, 3, 4, 6), np.nan, np.float32)
    got = blob_from_images(imgs, 0.5, mean=(1, 2, 3), swap_rb=True, out=out)
    assert got is out
    np.testing.assert_array_equal(out, ref)
    chwn = blob_from_images(imgs, 0.5, mean=(1, 2, 3), swap_rb=True, layout="CHWN")
    np.testing.assert_array_equal(chwn, ref.transpose(1, 2, 3, 0))


def test_inputs_not_mutated_and_errors():
    imgs = _images(np.uint8, 2, 4, 5, 3)
    before = [im.copy() for im in imgs]
    blob_from_images(imgs, 2.0, mean=(1, 1, 1), swap_rb=True)
    for a, b in zip(imgs, before):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(LayoutError, match=r"image 1 is \(4, 6, 3\) uint8; image 0 is \(4, 5, 3\)"):
        blob_from_images([imgs[0], np.zeros((4, 6, 3), np.uint8)])
    with pytest.raises(LayoutError, match="2 channels"):
        blob_from_images([np.zeros((4, 5, 2), np.uint8)])
    with pytest.raises(LayoutError, match="layout='NCHW16c'"):
        blob_from_images(imgs, layout="NCHW16c")
    with pytest.raises(LayoutError, match="out must be a float32 array of shape"):
        blob_from_images(imgs, out=np.zeros((2, 3, 4, 4), np.float32))
    with pytest.raises(LayoutError, match="at most 4"):
        blob_from_images(imgs, mean=(1, 2, 3, 4, 5))
    with pytest.raises(LayoutError, match="empty"):
        blob_from_images([])
    with pytest.raises(LayoutError, match="float16"):
        blob_from_images([np.zeros((2, 2, 3), np.float16)])


def test_flipped_batch_array_and_misaligned_float_images():
    rng = np.random.default_rng(9)
    batch = rng.uniform(0, 255, (3, 5, 6, 3)).astype(np.float32)
    flipped = batch[::-1, :, ::-1]
    got = blob_from_images(flipped, 0.5, mean=(1, 2, 3), swap_rb=True)
    np.testing.assert_array_equal(got, _numpy_twin(list(flipped), 0.5, (1, 2, 3), True))
    raw = np.zeros(5 * 6 * 3 * 4 + 1, np.uint8)   # a float32 image one byte off alignment
    odd = raw[1:].view(np.float32).reshape(5, 6, 3)
    odd[:] = batch[0]
    got = blob_from_images([odd, batch[1]], 2.0, mean=7.0)
    np.testing.assert_array_equal(got, _numpy_twin([batch[0], batch[1]], 2.0, 7.0, False))


@pytest.mark.parametrize("c", [1, 3, 4])
def test_roi_lists_per_channel_count_equal_cv2(c):
    """The fused planar loop for C = 1, 3, 4 on ROIs (row stride > row), on lists of views
    sharing one set of strides (incl. flipped rows: negative strides), and on mixed strides."""
    cv2 = pytest.importorskip("cv2")
    rng = np.random.default_rng(11 + c)
    big = rng.integers(0, 256, (3, 30, 40, c), dtype=np.uint8)
    mean = (104.0, 117.0, 123.0, 9.0)[:c] if c > 1 else 104.0
    for views in ([b[2:22, 5:33] for b in big], [b[::-1][2:22, 5:33] for b in big],
                  [big[0, 2:22, 5:33], np.ascontiguousarray(big[1, 2:22, 5:33]),
                   big[2, ::-1, ::-1][:20, :28]]):
        got = blob_from_images(views, 1 / 255, mean=mean, swap_rb=c >= 3)
        want = cv2.dnn.blobFromImages([np.ascontiguousarray(v) for v in views], 1 / 255, None,
                                      mean, c >= 3, False)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_other_channel_counts_and_2d_images_and_batch_resize():
    from layouts.interop.opencv.blob_kernel import normalize_into
    rng = np.random.default_rng(12)
    imgs = [rng.integers(0, 256, (5, 7, 2), dtype=np.uint8) for _ in range(3)]
    out = np.empty((3, 2, 5, 7), np.float32)
    normalize_into(out, imgs, np.float32([1, 2]), np.float32([0.5, 2]), np.int64([1, 0]))
    want = np.stack([(im[..., ::-1].astype(np.float32) - [1, 2]) * np.float32([0.5, 2])
                     for im in imgs]).transpose(0, 3, 1, 2)
    np.testing.assert_array_equal(out, want)
    gray = [rng.integers(0, 256, (5, 7), dtype=np.uint8) for _ in range(2)]
    np.testing.assert_array_equal(blob_from_images(gray, 2.0, mean=3.0),
                                  _numpy_twin([g[:, :, None] for g in gray], 2.0, 3.0, False))
    cv2 = pytest.importorskip("cv2")
    batch = rng.integers(0, 256, (2, 30, 41, 3), dtype=np.uint8)
    want = cv2.dnn.blobFromImages(list(batch), 0.5, (16, 12), (1, 2, 3), True, False)
    got = blob_from_images(batch, 0.5, size=(16, 12), mean=(1, 2, 3), swap_rb=True)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-5)


def test_blob_out_must_be_writable_and_separate():
    imgs = np.random.default_rng(0).integers(0, 255, (2, 8, 8, 3)).astype(np.float32)
    with pytest.raises(LayoutError, match="overlaps an input"):
        blob_from_images(imgs, swap_rb=True, layout="NHWC", out=imgs)
    ro = np.zeros((2, 3, 8, 8), np.float32)
    ro.flags.writeable = False
    with pytest.raises(LayoutError, match="read-only"):
        blob_from_images(imgs, out=ro)
