"""The compiled list path of blob_from_images (layouts.interop.opencv.blob_kernel): images read by id in
compiled code, checked in one scan, split over threads by rows -- against cv2.dnn.blobFromImages
and a plain numpy twin, and against the checked Python path it falls back to."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layouts import kernels
from layouts.errors import LayoutError
from layouts.interop.opencv import blob as blob_module
from layouts.interop.opencv import blob_from_images
from layouts.interop.opencv import blob_kernel as pp
from oracle import opencv_scalar

cv2 = pytest.importorskip("cv2")


def twin(images, scale, mean, swap, layout="NCHW"):
    """The definition in numpy float32: subtract the mean, then scale; channels 0, 2 swapped."""
    x = np.stack([im if im.ndim == 3 else im[:, :, None] for im in images]).astype(np.float32)
    C = x.shape[-1]
    if swap and C >= 3:
        x = x[..., [2, 1, 0, 3][:C]]
    m = opencv_scalar(mean)[:C].astype(np.float32)
    s = (np.full(4, scale) if np.ndim(scale) == 0 else opencv_scalar(scale))[:C]
    y = (x - m) * s.astype(np.float32)
    return np.ascontiguousarray(y.transpose([{"N": 0, "H": 1, "W": 2, "C": 3}[a] for a in layout]))


def cv2_blob(images, scale, mean, swap):
    return cv2.dnn.blobFromImages([np.ascontiguousarray(im) for im in images], scale, None,
                                  mean if mean is not None else 0, swap, False)


def scanned(images, out=None):
    return blob_module._scan_list(images, out) is not None


RNG = np.random.default_rng(2024)
FRAME = RNG.integers(0, 256, (120, 160, 3), dtype=np.uint8)


def crops_of(frame, n, h, w, rng):
    ys, xs = rng.integers(0, frame.shape[0] - h, n), rng.integers(0, frame.shape[1] - w, n)
    return [frame[y:y + h, x:x + w] for y, x in zip(ys, xs)]


LISTS = {
    "separate crops": lambda: list(RNG.integers(0, 256, (37, 8, 8, 3), dtype=np.uint8)),
    "views of one frame": lambda: crops_of(FRAME, 40, 9, 13, RNG),
    "flipped views": lambda: [FRAME[::-1][5:20, 3:30], FRAME[:, ::-1][2:17, 1:28],
                              FRAME[::-1, ::-1][:15, :27]],
    "strided pixels": lambda: [FRAME[::2, ::3][:10, :11], FRAME[1::2, 1::3][:10, :11]],
    "tuple": lambda: tuple(RNG.integers(0, 256, (4, 6, 7, 3), dtype=np.uint8)),
    "gray 2-D": lambda: list(RNG.integers(0, 256, (5, 6, 7), dtype=np.uint8)),
    "gray 3-D": lambda: list(RNG.integers(0, 256, (5, 6, 7, 1), dtype=np.uint8)),
    "4 channels": lambda: list(RNG.integers(0, 256, (3, 6, 7, 4), dtype=np.uint8)),
    "float32": lambda: list(RNG.uniform(-50, 300, (3, 6, 7, 3)).astype(np.float32)),
    "int16 ROIs": lambda: [a[1:5, 2:6] for a in RNG.integers(-300, 300, (3, 8, 9, 3)).astype(np.int16)],
    "float64": lambda: list(RNG.uniform(-50, 300, (2, 5, 4, 3))),
}


@pytest.mark.parametrize("name", sorted(LISTS))
@pytest.mark.parametrize("swap", [False, True])
def test_compiled_list_path_equals_cv2_exactly(name, swap):
    images = LISTS[name]()
    C = 1 if images[0].ndim == 2 else images[0].shape[2]
    mean = (104.0, 117.5, 123.0, 9.0)[:C] if C > 1 else 104.0
    assert pp.FAST and scanned(images)
    got = blob_from_images(images, 1 / 255, mean=mean, swap_rb=swap)
    np.testing.assert_array_equal(got, cv2_blob(images, 1 / 255, mean, swap))
    np.testing.assert_array_equal(got, twin(images, 1 / 255, mean, swap))
    for layout in ("NHWC", "CHWN", "HWCN"):
        np.testing.assert_array_equal(blob_from_images(images, 1 / 255, mean=mean, swap_rb=swap,
                                                       layout=layout),
                                      twin(images, 1 / 255, mean, swap, layout))


def test_compiled_and_checked_paths_agree(monkeypatch):
    """FAST off (another interpreter or numpy ABI): the checked path gives the same bits."""
    cases = [LISTS[k]() for k in sorted(LISTS)]
    want = [blob_from_images(im, 0.5, mean=(1, 2, 3), swap_rb=True) for im in cases]
    monkeypatch.setattr(pp, "FAST", False)
    for images, w in zip(cases, want):
        assert not scanned(images)
        np.testing.assert_array_equal(blob_from_images(images, 0.5, mean=(1, 2, 3), swap_rb=True), w)


def test_probe_reads_real_arrays():
    import sys
    cpython64 = sys.implementation.name == "cpython" and sys.maxsize == 2**63 - 1
    assert pp.FAST == (cpython64 and getattr(sys, "_is_gil_enabled", lambda: True)())
    assert pp.TUPLE_ITEMS in ((24,) if cpython64 else (None,))        # PyTupleObject.ob_item on 64-bit CPython
    if pp.FAST:  # what the kernel will read, read back through it
        a = FRAME[3:9, ::-2]
        out = np.empty((1, 3, 6, 80), np.float32)
        call = pp.BlobCall(1, 1, out, 3, 6, 80, 1, [0, 1, 2], [a])
        assert call.scan() == 0
        call.fill()
        r = call.recs[0]
        assert [r["addr"], r["row"], r["pixel"], r["chan"]] == [a.ctypes.data, a.strides[0], a.strides[1], 1]
        h = call.head[0]
        assert [h["out_addr"], h["dn"], h["dc"], h["dh"], h["dw"]] == [out.ctypes.data, 3 * 6 * 80, 6 * 80, 80, 1]


class Sub(np.ndarray):
    pass


def test_lists_the_scan_does_not_take_are_checked_in_python():
    base = RNG.integers(0, 256, (3, 6, 7, 3), dtype=np.uint8)
    f32 = base.astype(np.float32)
    raw = np.zeros(6 * 7 * 3 * 4 + 1, np.uint8)
    odd = raw[1:].view(np.float32).reshape(6, 7, 3)   # one byte off alignment
    odd[:] = f32[0]
    swapped = f32[1].astype(">f4")                    # non-native byte order
    cases = {
        "subclass": [base[0].view(Sub), base[1]],
        "misaligned": [odd, f32[1]],
        "big-endian": [f32[0].astype(">f4"), swapped],
        "2-D and 3-D gray": [base[0, :, :, 0], base[1, :, :, :1]],
    }
    for name, images in cases.items():
        assert not scanned(images), name
        got = blob_from_images(images, 2.0, mean=(1, 2, 3), swap_rb=True)
        np.testing.assert_array_equal(got, twin([np.asarray(im) for im in images], 2.0, (1, 2, 3), True))
    # equal dtypes as different dtype objects: still exact
    other = np.dtype(np.dtype("f4").str)
    alt = np.empty((6, 7, 3), other)
    alt[:] = f32[2]
    got = blob_from_images([f32[0], alt], 0.5, mean=(3, 2, 1))
    np.testing.assert_array_equal(got, twin([f32[0], f32[2]], 0.5, (3, 2, 1), False))


@pytest.mark.parametrize("images,word", [
    ([np.zeros((4, 5, 3), np.uint8), np.zeros((4, 5, 3), np.int8)], "same channels and dtype"),
    ([np.zeros((4, 5, 3), np.uint8), np.zeros((4, 6, 3), np.uint8)], "all images must match"),
    ([np.zeros((4, 5, 3), np.uint8), np.zeros((4, 5, 4), np.uint8)], "same channels and dtype"),
    ([np.zeros((4, 5, 3), np.uint8), "x"], "image 1"),
    ([np.zeros((4, 5, 3), np.uint8), np.zeros((2, 4, 5, 3), np.uint8)], "image 1"),
    ([np.zeros((4, 5, 2), np.uint8)] * 2, "2 channels"),
    ([np.zeros((4, 5, 3), np.float16)] * 2, "float16"),
])
def test_bad_lists_get_the_checked_paths_words(images, word):
    with pytest.raises((LayoutError, TypeError), match=word):
        blob_from_images(images)


def test_overlap_found_by_the_scan_as_numpy_finds_it():
    buf = np.zeros(4 * 3 * 6 * 7 * 4 + 4096, np.uint8)
    out = buf[:4 * 3 * 6 * 7 * 4].view(np.float32).reshape(4, 3, 6, 7)
    inside = [buf[1000:1000 + 6 * 7 * 3].reshape(6, 7, 3)] + [np.zeros((6, 7, 3), np.uint8)] * 3
    assert scanned(inside, out)
    with pytest.raises(LayoutError, match="overlaps an input image"):
        blob_from_images(inside, out=out)
    after = [buf[-6 * 7 * 3:].reshape(6, 7, 3)] * 4          # same buffer, past out's end
    np.testing.assert_array_equal(blob_from_images(after, out=out), twin(after, 1.0, None, False))


@settings(max_examples=120, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.integers(0, 5000), st.integers(0, 5000), st.integers(1, 300), st.integers(1, 300),
       st.booleans())
def test_scan_overlap_flag_equals_may_share_memory(a0, o0, alen, olen, flip):
    buf = np.zeros(6000, np.uint8)
    a = buf[a0:a0 + alen]
    img = (a[::-1] if flip else a)[:alen // 3 * 3].reshape(-1, 1, 3) if alen >= 3 else None
    out = buf[o0:o0 + olen]
    if img is None or img.shape[0] == 0:
        return
    images = [img, np.zeros_like(img)]
    call = pp.BlobCall(2, 1, out, 3, img.shape[0], 1, 1, range(3), images)
    assert call.scan() == int(any(np.may_share_memory(out, im) for im in images))


@pytest.mark.parametrize("threads", [2, 3, 5])
def test_threads_split_rows_inside_images_same_bits(threads):
    with kernels.use_profile(kernels.current().replace(blob_thread_min_bytes=0, blob_load_aware=False)):
        _threads_same_bits(threads)


def _threads_same_bits(threads):
    for images in (list(RNG.integers(0, 256, (3, 5, 9, 3), dtype=np.uint8)),   # whole images
                   crops_of(FRAME, 3, 5, 9, RNG),                                # ROIs
                   RNG.integers(0, 256, (3, 5, 9, 3), dtype=np.uint8)):          # one 4-D array
        want = twin(list(images), 0.5, (1, 2, 3), True)
        for layout in ("NCHW", "NHWC"):
            got = blob_from_images(images, 0.5, mean=(1, 2, 3), swap_rb=True, layout=layout,
                                   threads=threads)
            np.testing.assert_array_equal(got, want if layout == "NCHW" else want.transpose(0, 2, 3, 1))


def test_threads_only_above_the_size_threshold_and_on_idle_cores(monkeypatch):
    import layouts.kernels.runtime.pool as pool
    monkeypatch.setattr(pool, "max_threads", lambda: 8)   # an 8-core machine: the rules, not this one's clamp
    idle = pp.idle_cores()
    assert idle is None or 1 <= idle <= (os.cpu_count() or 1)
    p = kernels.current().replace(blob_thread_min_bytes=1 << 20)
    big = 10 << 20
    monkeypatch.setattr(pp, "idle_cores", lambda: 8)
    assert pp.nthreads_for(2, (1 << 20) - 1, 1000, p) == 1
    assert pp.nthreads_for(2, 1 << 20, 1000, p) == 2
    assert pp.nthreads_for(8, 1 << 20, 3, p) == 3
    assert pp.nthreads_for(1, big, 1000, p) == 1
    monkeypatch.setattr(pp, "idle_cores", lambda: 1)
    assert pp.nthreads_for(2, big, 1000, p) == 1
    monkeypatch.setattr(pp, "idle_cores", lambda: 3)
    assert pp.nthreads_for(8, big, 1000, p) == 3
    monkeypatch.setattr(pp, "idle_cores", lambda: None)      # unknown: as asked
    assert pp.nthreads_for(4, big, 1000, p) == 4
    monkeypatch.setattr(pp, "idle_cores", lambda: 1)
    assert pp.nthreads_for(2, big, 1000, p.replace(blob_load_aware=False)) == 2


def test_one_4d_array_on_the_compiled_path():
    batch = RNG.integers(0, 256, (4, 6, 9, 3), dtype=np.uint8)
    f32 = batch.astype(np.float32)
    raw = np.zeros(f32.nbytes + 1, np.uint8)
    odd = raw[1:].view(np.float32).reshape(f32.shape)   # misaligned: the checked path
    odd[:] = f32
    for arr, fast in ((batch, True), (batch[::-1, ::-1, ::2], True), (f32[:, 1:5, 2:8], True),
                      (odd, False), (f32.astype(">f4"), False)):
        assert scanned(arr) is fast
        for layout in ("NCHW", "NHWC"):
            got = blob_from_images(arr, 0.5, mean=(1, 2, 3), swap_rb=True, layout=layout)
            np.testing.assert_array_equal(got, twin(list(np.asarray(arr)), 0.5, (1, 2, 3), True, layout))
    np.testing.assert_array_equal(blob_from_images(batch, 0.5, mean=(1, 2, 3), swap_rb=True),
                                  cv2_blob(list(batch), 0.5, (1, 2, 3), True))
    # resized: cv2 resizes each image, as for a list
    np.testing.assert_array_equal(blob_from_images(batch, 0.5, size=(5, 4), mean=(1, 2, 3)),
                                  cv2.dnn.blobFromImages(list(batch), 0.5, (5, 4), (1, 2, 3), False, False))
    with pytest.raises(LayoutError, match="overlaps an input image"):
        blob_from_images(f32, out=f32.reshape(4, 3, 6, 9))


def test_out_written_in_place_and_list_not_kept():
    images = crops_of(FRAME, 6, 4, 5, RNG)
    before = [im.copy() for im in images]
    out = np.full((6, 4, 5, 3), np.nan, np.float32)
    got = blob_from_images(images, 0.25, mean=(5, 6, 7), swap_rb=True, layout="NHWC", out=out)
    assert got is out
    np.testing.assert_array_equal(out, twin(images, 0.25, (5, 6, 7), True, "NHWC"))
    for a, b in zip(images, before):
        np.testing.assert_array_equal(a, b)
    # a strided out (every other column of a wider array) is written through its strides
    wide = np.zeros((6, 3, 4, 10), np.float32)
    blob_from_images(images, 0.25, mean=(5, 6, 7), swap_rb=True, out=wide[..., ::2])
    np.testing.assert_array_equal(wide[..., ::2], twin(images, 0.25, (5, 6, 7), True))
    assert not wide[..., 1::2].any()


def test_empty_images_on_the_compiled_path():
    images = [np.zeros((0, 5, 3), np.uint8)] * 3
    assert scanned(images)
    assert blob_from_images(images, mean=(1, 2, 3)).shape == (3, 3, 0, 5)


VIEWS = st.sampled_from(["whole", "roi", "flip-rows", "flip-cols", "step"])


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.integers(1, 6), st.integers(1, 9), st.integers(1, 9), st.sampled_from([1, 3, 4]),
       st.sampled_from(["uint8", "int8", "uint16", "int16", "int32", "float32", "float64"]),
       st.lists(VIEWS, min_size=6, max_size=6), st.booleans(), st.sampled_from(["NCHW", "NHWC"]),
       st.integers(0, 2**32 - 1))
def test_random_lists_equal_twin_and_cv2(n, h, w, c, dtype, views, swap, layout, seed):
    rng = np.random.default_rng(seed)
    images = []
    for i in range(n):
        big = (rng.uniform(-300, 300, (h + 3, 2 * w + 3, c)) if dtype.startswith("float")
               else rng.integers(0, 120, (h + 3, 2 * w + 3, c))).astype(dtype)
        v = views[i]
        im = {"whole": np.ascontiguousarray(big[:h, :w]), "roi": big[1:h + 1, 2:w + 2],
              "flip-rows": big[::-1][:h, :w], "flip-cols": big[:, ::-1][:h, :w],
              "step": big[:h, ::2][:, :w]}[v]
        images.append(im)
    mean = tuple(rng.uniform(-5, 130, c).round(2)) if c > 1 else float(rng.uniform(0, 100))
    scale = float(rng.choice([1.0, 0.5, 1 / 255, 2.0]))
    got = blob_from_images(images, scale, mean=mean, swap_rb=swap, layout=layout)
    np.testing.assert_array_equal(got, twin(images, scale, mean, swap, layout))
    if dtype not in ("int32",) and layout == "NCHW":  # cv2's blobFromImages takes these depths
        np.testing.assert_array_equal(got, cv2_blob(images, scale, mean, swap))


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint16)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("form", ["list", "batch", "views", "resized"])
def test_float16_blob_is_cv2s_float32_blob_cast(layout, form):
    """float16 out of the same fused pass: bitwise ``cv2.dnn.blobFromImages(...).astype(float16)``
    on every path (the compiled list scan, one 4-D array, strided views that take the checked
    path, and a resize); values chosen to span float16's normal and subnormal range."""
    rng = np.random.default_rng(16)
    images = [rng.integers(0, 256, (37, 53, 3), dtype=np.uint8) for _ in range(5)]
    given = {"list": images, "batch": np.stack(images), "views": [im[::-1, 1:] for im in images],
             "resized": images}[form]
    size = (24, 16) if form == "resized" else None
    want = cv2.dnn.blobFromImages([np.ascontiguousarray(im) for im in
                                   (given if form != "batch" else images)], 1 / 700.0, size,
                                  (120.0, 110.0, 100.0), True, False)
    if layout == "NHWC":
        want = want.transpose(0, 2, 3, 1)
    got = blob_from_images(given, 1 / 700.0, size=size, mean=(120, 110, 100), swap_rb=True, layout=layout,
                           dtype=np.float16)
    assert got.dtype == np.float16 and got.shape == want.shape
    assert np.array_equal(_bits(got), _bits(want.astype(np.float16)))
    assert np.count_nonzero(np.abs(got) < 2 ** -14) > 0            # some subnormals were rounded too
    out = np.full(want.shape, np.nan, np.float16)
    assert blob_from_images(given, 1 / 700.0, size=size, mean=(120, 110, 100), swap_rb=True, layout=layout,
                            out=out) is out
    assert np.array_equal(_bits(out), _bits(want.astype(np.float16)))


def test_float16_rounds_ties_to_even_and_overflows_to_inf():
    """float32 pixels whose (x - 0) * 1 sit exactly between two float16 values, or beyond its range."""
    ties = np.array([1 + 2 ** -11, 1 + 3 * 2 ** -11, 2048 + 1, 65520, 65519.99, -7e4, 2 ** -25, 3 * 2 ** -25],
                    np.float32)
    img = ties.reshape(1, -1, 1)
    got = blob_from_images([img], dtype=np.float16)[0, 0, 0]
    with np.errstate(over="ignore"):
        assert np.array_equal(_bits(got), _bits(ties.astype(np.float16)))
    assert got.tolist()[:3] == [1.0, 1 + 2 * 2 ** -10, 2048.0] and np.isinf(got[3]) and got[4] == 65504


def test_float16_without_a_conversion_instruction_is_the_same_bits(monkeypatch):
    """Where the CPU has no float16 conversion the blob is a float32 pass and a cast: same bits."""
    rng = np.random.default_rng(3)
    images = [rng.integers(0, 256, (20, 30, 3), dtype=np.uint8) for _ in range(3)]
    forms = (images, np.stack(images), [im[:, ::-1] for im in images])
    want = [blob_from_images(given, 0.01, mean=(1, 2, 3), dtype=np.float16) for given in forms]
    monkeypatch.setattr(pp, "HALF_NATIVE", False)
    for given, w in zip(forms, want):
        got = blob_from_images(given, 0.01, mean=(1, 2, 3), dtype=np.float16)
        assert np.array_equal(_bits(got), _bits(w))
        assert np.array_equal(_bits(got), _bits(cv2_blob(given, 0.01, (1, 2, 3), False).astype(np.float16)))


@pytest.mark.parametrize("dtype,error,word", [("int8", LayoutError, r"float32 \(OpenCV's\) or float16"),
                                              ("float64", LayoutError, "float64"),
                                              (3.5, TypeError, "np.float32 or np.float16")])
def test_blob_dtype_refusals(dtype, error, word):
    with pytest.raises(error, match=word):
        blob_from_images([np.zeros((2, 2, 3), np.uint8)], dtype=dtype)
    with pytest.raises(LayoutError, match="float16 array"):
        blob_from_images([np.zeros((2, 2, 3), np.uint8)], dtype=np.float16, out=np.empty((1, 3, 2, 2), np.float32))
