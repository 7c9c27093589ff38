"""``cv2.dnn.blobFromImages`` in one fused pass: mean subtracted first, then scaled; swapRB swaps
channels 0 and 2 and takes mean/scale in the swapped order; NCHW, NHWC or any order of the four
axes; float32 (OpenCV's) or float16. The pass itself is :mod:`.blob_kernel` (numba, imported on
first use).

>>> img = np.array([[[10, 20, 30]]], np.uint8)          # one BGR pixel
>>> blob_from_images([img], 0.5, mean=(1, 2, 3), swap_rb=True)[0, :, 0, 0].tolist()
[14.5, 9.0, 3.5]
"""

from __future__ import annotations

import os

import numpy as np

from ...errors import LayoutError, LayoutTypeError
from ..._args import bool_arg, int_arg, ndarray_arg, number_arg, str_arg, threads_arg
from ...errors import kind

__all__ = ["blob_from_images"]

#: the largest OpenCV int (a resize size)
_INT_MAX = 2**31 - 1


def _scalar4(value, what: str) -> np.ndarray:
    """OpenCV's ``Scalar`` from Python: a number fills only channel 0 (``Scalar(v)``), a sequence
    up to 4 values, the rest 0."""
    return np.array(_scalar4_list(value, what))


def _plain(x) -> bool:
    """A Python int or float (bool is neither): what :func:`number_arg` takes as it is."""
    return type(x) is float or type(x) is int


def _scalar4_list(value, what: str) -> list:
    """:func:`_scalar4` as a list of four Python floats (the same checks; plain numbers skip
    the per-value call)."""
    if value is None:
        return [0.0, 0.0, 0.0, 0.0]
    if isinstance(value, np.ndarray):
        if value.ndim > 1:
            raise LayoutError(f"{what} must be a number or a flat sequence of up to 4 numbers, "
                              f"got shape {value.shape}")
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        if len(value) > 4:
            raise LayoutError(f"{what} has {len(value)} values; an OpenCV Scalar holds at most 4")
        if all(type(x) is float or type(x) is int for x in value):
            v = [float(x) for x in value]
        else:
            v = [number_arg(f"{what}[{i}]", x, finite=False) for i, x in enumerate(value)]
        return v + [0.0] * (4 - len(v))
    return [float(value) if _plain(value) else number_arg(what, value, finite=False), 0.0, 0.0, 0.0]


def _images_array(images):
    """``([4-D NHWC batch], N)`` for an array, ``([HWC images], N)`` for a list."""
    if isinstance(images, np.ndarray):
        if images.ndim == 4:
            return [images], images.shape[0]
        if images.ndim in (2, 3):
            raise LayoutError(f"images: got one array of shape {images.shape}; pass a list of "
                              "images (or a 4-D N,H,W,C batch)")
        raise LayoutError(f"images: expected a list of HWC images or an NHWC array, got shape "
                          f"{images.shape}")
    if not isinstance(images, (list, tuple)):
        raise LayoutTypeError(f"images must be a list of images or a 4-D numpy array, got "
                        f"{type(images).__name__}")
    imgs = []
    for i, im in enumerate(images):
        if not isinstance(im, np.ndarray):
            raise LayoutTypeError(f"image {i} must be a numpy array, got {type(im).__name__}")
        imgs.append(im)
    if not imgs:
        raise LayoutError("images is empty; expected at least one image")
    if all(im.ndim == 3 for im in imgs):
        return imgs, len(imgs)  # HWC images as they are (no per-image views: ~1 us each)
    out = []
    for i, im in enumerate(imgs):
        if im.ndim == 2:
            im = im[:, :, None]
        if im.ndim != 3:
            raise LayoutError(f"image {i} has shape {im.shape}; expected (rows, cols[, channels])")
        out.append(im)
    return out, len(out)


_SUPPORTED = {np.dtype(t) for t in ("uint8", "int8", "uint16", "int16", "int32", "float32",
                                    "float64")}
#: what OpenCV's resize takes with INTER_LINEAR (it has no int8 or int32 linear resize)
_RESIZABLE = {np.dtype(t) for t in ("uint8", "uint16", "int16", "float32", "float64")}


def _memory_bytes() -> int:
    """Physical memory of this machine (a bound for what one call may allocate)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return 2**40


def _check_size(size):
    """``(width, height)``: two ints, both > 0 (resize) or both 0 (no resize), within int."""
    if isinstance(size, (str, bytes)) or not isinstance(size, (tuple, list, np.ndarray)):
        raise LayoutTypeError(f"size must be (width, height), got {kind(size)}")
    if len(size) != 2:
        raise LayoutError(f"size has {len(size)} values; expected (width, height)")
    w, h = (int_arg(f"size {name}", v, lo=0, hi=_INT_MAX) for name, v in
            zip(("width", "height"), size))
    if (w == 0) != (h == 0):
        raise LayoutError(f"size=({w}, {h}): width and height must both be > 0 (resize to them) "
                          "or both 0 (no resize)")
    return w, h


def _resize(img, size, crop):
    """OpenCV's resize / centre crop inside blobFromImages, done by cv2 itself."""
    import cv2

    w, h = size
    ih, iw = img.shape[:2]
    if (iw, ih) == (w, h):
        return img
    squeeze = img.ndim == 3 and img.shape[2] == 1
    if crop:
        f = max(np.float32(w) / np.float32(iw), np.float32(h) / np.float32(ih))
        r = cv2.resize(img, None, fx=float(f), fy=float(f), interpolation=cv2.INTER_LINEAR)
        x0, y0 = int(0.5 * (r.shape[1] - w)), int(0.5 * (r.shape[0] - h))
        r = r[y0:y0 + h, x0:x0 + w]
    else:
        r = cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)
    if squeeze and r.ndim == 2:
        r = r[:, :, None]
    return r


_PP = []


def _kernel_module():
    """:mod:`.blob_kernel` (imported on first use: it brings numba)."""
    if not _PP:
        from . import blob_kernel

        _PP.append(blob_kernel)
    return _PP[0]


def _scan_list(images, out):
    """A list (or tuple) of plain ndarrays checked in one compiled pass, or None.

    Returns ``(images, N, call, dtype, (H, W, C), overlaps)`` when every image is an exact
    ``np.ndarray`` of image 0's shape (2-D, or 3-D with 1, 3 or 4 channels) and dtype object,
    a supported native dtype, whole-element aligned; ``overlaps``: one shares memory bounds with
    ``out`` (an exact ndarray, else not looked at). ``images`` is a tuple holding the arrays
    while the kernel reads them by id; ``call`` the kernel's records (perm and output set later).
    None: take the checked Python path, which also words every error.
    """
    if type(images) is np.ndarray:
        return _scan_batch(images, out)
    if (type(images) is not list and type(images) is not tuple) or not images:
        return None
    im0 = images[0]
    if type(im0) is not np.ndarray or (out is not None and type(out) is not np.ndarray):
        return None
    pp = _kernel_module()
    dt = im0.dtype
    if not pp.FAST or dt not in pp.PROTO:  # PROTO: the supported dtypes, native order
        return None
    shape = im0.shape
    if len(shape) == 3:
        H, W, C = shape
        if C != 3 and C != 1 and C != 4:
            return None
    elif len(shape) == 2:
        (H, W), C = shape, 1
    else:
        return None
    images = tuple(images)  # our own references: the list may change, the tuple cannot
    call = pp.BlobCall(len(images), 1, out, C, H, W, dt.itemsize, range(C), images)
    r = call.scan()
    if r < 0:
        return None
    return images, len(images), call, dt, (H, W, C), r == 1


def _scan_batch(images, out):
    """:func:`_scan_list` for one N,H,W,C array (an exact, aligned ndarray of a supported
    native dtype with 1, 3 or 4 channels), or None."""
    if images.ndim != 4 or (out is not None and type(out) is not np.ndarray):
        return None
    pp = _kernel_module()
    dt = images.dtype
    if not pp.FAST or dt not in pp.PROTO or not images.flags.aligned:
        return None
    N, H, W, C = images.shape
    if C != 3 and C != 1 and C != 4:
        return None
    keep = (images,)  # the call holds this tuple's id: it must live as long as the call
    call = pp.BlobCall(N, 0, None, C, H, W, dt.itemsize, range(C), keep)
    overlaps = out is not None and np.may_share_memory(out, images)
    return keep, N, call, dt, (H, W, C), overlaps


#: ``perm`` (the output channel of each source channel) by (channels, swap_rb)
_PERMS = {(C, swap): ([2, 1, 0, 3][:C] if swap and C >= 3 else list(range(C))) for C in (1, 3, 4)
          for swap in (False, True)}


def blob_from_images(images, scalefactor=1.0, size=None, mean=None, swap_rb: bool = False,
                     crop: bool = False, layout: str = "NCHW", out=None,
                     threads=None, dtype=None) -> np.ndarray:
    """``cv2.dnn.blobFromImages`` in one fused pass: HWC images -> a float32 or float16
    NCHW/NHWC blob.

    ``out[n, c] = (image[..., c'] - mean[c]) * scalefactor[c]`` with ``c' = c`` or, when
    ``swap_rb``, channels 0 and 2 exchanged -- so ``mean`` and ``scalefactor`` are in the output
    (RGB) order, as in OpenCV. Like OpenCV's ``Scalar``, a single number for ``mean`` subtracts
    from channel 0 only; a single ``scalefactor`` scales every channel.

    Parameters
    ----------
    images : list of arrays (rows, cols[, 1|3|4]) or one (N, rows, cols, C) array
        uint8/int8/uint16/int16/int32/float32/float64; any strides (ROIs, flipped views).
        All must share size, channels and dtype.
    size : (width, height), optional
        Resize (and, with ``crop``, centre-crop) each image first -- done by ``cv2`` itself.
    layout : ``"NCHW"`` (OpenCV's) or ``"NHWC"``, or any order of those four letters.
    out : float32 or float16 array of the blob's shape, optional (written in place, and returned).
    dtype : ``np.float32`` (OpenCV's) or ``np.float16``, optional; default ``out``'s dtype, else
        float32. float16 is computed in float32 and rounded once, to nearest even, in the same
        pass: bitwise OpenCV's float32 blob cast by ``astype(np.float16)``.
    threads : None (automatic), or at most this many threads; outputs below the machine
        profile's ``blob_thread_min_bytes`` run on the calling thread only (a second thread
        costs more than it saves there).

    Notes
    -----
    A list of plain arrays is checked and converted in compiled code (each image's address,
    shape and strides read there), so many small crops cost little more than their bytes.

    >>> img = np.array([[[10, 20, 30]]], np.uint8)          # one BGR pixel
    >>> blob_from_images([img], 0.5, mean=(1, 2, 3), swap_rb=True)[0, :, 0, 0].tolist()
    [14.5, 9.0, 3.5]
    >>> blob_from_images([img], 1 / 3, dtype=np.float16)[0, :, 0, 0].tolist()
    [3.333984375, 6.66796875, 10.0]
    """
    dtype = _blob_dtype(dtype, out)
    scan = _scan_list(images, out)  # lists of plain arrays, or one 4-D array
    if scan is None:
        images_is_batch = isinstance(images, np.ndarray)
        batches, n = _images_array(images)
    swap_rb, crop = bool_arg("swap_rb", swap_rb), bool_arg("crop", crop)
    threads = threads_arg(threads)
    str_arg("layout", layout)
    if layout != "NCHW" and not (len(layout) == 4 and set(layout) == set("NCHW")):
        raise LayoutError(f"layout={layout[:20]!r}; expected 'NCHW', 'NHWC' or another order of "
                          "N, C, H, W")
    mean4 = _scalar4_list(mean, "mean")
    if isinstance(scalefactor, (list, tuple)) or (isinstance(scalefactor, np.ndarray)
                                                  and scalefactor.ndim):
        scale4 = _scalar4_list(scalefactor, "scalefactor")  # per channel, unset ones 0 as in Scalar
    else:  # one number scales every channel
        scale4 = [float(scalefactor) if _plain(scalefactor) else
                  number_arg("scalefactor", scalefactor, finite=False)] * 4
    if out is not None:
        ndarray_arg("out", out)
    if scan is not None:
        # every image checked already (same shape and dtype, supported, native, aligned)
        if size is None or _check_size(size) == (0, 0):
            return _blob_scanned(scan, mean4, scale4, swap_rb, layout, out, threads, dtype)
        images_is_batch = isinstance(images, np.ndarray)
        batches, n = _images_array(images)  # resized below: the checked path
    return _blob_checked(images, images_is_batch, batches, n, np.array(mean4), np.array(scale4),
                         swap_rb, crop, size, layout, out, threads, dtype)


_BLOB_DTYPES = (np.dtype(np.float32), np.dtype(np.float16))


def _blob_dtype(dtype, out) -> np.dtype:
    """The blob's element type: ``dtype`` (float32 or float16), else ``out``'s, else float32."""
    if dtype is None:
        if isinstance(out, np.ndarray) and out.dtype in _BLOB_DTYPES:
            return out.dtype
        return _BLOB_DTYPES[0]
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise LayoutTypeError(f"dtype must be np.float32 or np.float16, got {kind(dtype)}") from None
    if dt not in _BLOB_DTYPES:
        raise LayoutError(f"dtype={dt}: a blob is float32 (OpenCV's) or float16, not {dt}")
    return dt


def _new_or_out(shape, layout, n, C, H, W, out, dtype):
    """The blob: a new ``dtype`` array of ``shape``, or ``out`` checked against it."""
    if out is None:
        try:
            return np.empty(shape, dtype)  # every element is written: no zero fill
        except MemoryError:
            raise LayoutError(f"the blob {shape} ({layout}) needs {dtype.itemsize * n * C * H * W} bytes, "
                              "more than this machine can allocate") from None
    blob = out
    if not isinstance(blob, np.ndarray) or blob.shape != shape or blob.dtype != dtype:
        raise LayoutError(f"out must be a {dtype} array of shape {shape} ({layout}); got "
                          f"{getattr(blob, 'dtype', type(blob).__name__)} "
                          f"{getattr(blob, 'shape', '')}")
    if not blob.flags.writeable:
        raise LayoutError(f"out is read-only; pass a writable {dtype} array")
    return blob


def _blob_scanned(scan, mean4, scale4, swap_rb, layout, out, threads, dtype):
    """blob_from_images for a list or 4-D array that passed :func:`_scan_list`, no resize."""
    pp = _kernel_module()

    keep, n, call, dt, (H, W, C), overlaps = scan  # keep: the arrays the call holds ids of
    perm = _PERMS[C, swap_rb]
    shape = ((n, C, H, W) if layout == "NCHW" else
             tuple({"N": n, "C": C, "H": H, "W": W}[a] for a in layout))
    blob = _new_or_out(shape, layout, n, C, H, W, out, dtype)
    if out is not None:
        if overlaps:
            raise LayoutError("out overlaps an input image; blob_from_images needs a separate output")
    nchw = blob if layout == "NCHW" else blob.transpose([layout.index(a) for a in "NCHW"])
    if out is not None and not out.flags.c_contiguous and any(s < 0 or s % dtype.itemsize for s in nchw.strides):
        raise LayoutError(f"out must have non-negative whole-element strides, got {nchw.strides}")
    if n * H * W * C and dtype == np.float16 and not pp.HALF_NATIVE:   # no float16 instruction
        np.copyto(blob, _blob_scanned(scan, mean4, scale4, swap_rb, layout, None, threads, _BLOB_DTYPES[0]),
                  casting="same_kind")
    elif n * H * W * C:
        call.set_out(nchw)
        call.perm[:] = perm
        call.fill()  # addresses and strides into the records while the GIL is held
        pp.run(call, *pp.consts(mean4[:C], scale4[:C], perm), dt, nchw, threads)
    return blob


def _blob_checked(images, images_is_batch, batches, n, mean4, scale4, swap_rb, crop, size,
                  layout, out, threads, dtype):
    """blob_from_images for everything else: each image looked at in Python (and words every
    error), resized by cv2 when ``size`` asks, then :func:`.blob_kernel.normalize_into`."""
    # every image's dtype and channels before OpenCV's resize sees any of them
    first = batches[0]
    dt = first.dtype
    if dt.newbyteorder("=") not in _SUPPORTED:
        raise LayoutError(f"image dtype {dt} not supported; expected one of "
                          f"{', '.join(sorted(str(d) for d in _SUPPORTED))}")
    if first.shape[-1] not in (1, 3, 4):
        raise LayoutError(f"images have {first.shape[-1]} channels; blobFromImages takes 1, 3 or 4")
    if not images_is_batch:
        for i, b in enumerate(batches):
            if b.shape[2] != first.shape[2] or b.dtype != dt:
                raise LayoutError(f"image {i} is {b.shape} {b.dtype}; image 0 is {first.shape} "
                                  f"{dt}: all images must have the same channels and dtype")
    originals = list(batches)  # what out must not overlap
    if not dt.isnative:  # numba and OpenCV read native byte order: one copy, values kept
        batches = [b.astype(dt.newbyteorder("=")) for b in batches]
        if images_is_batch:
            images = batches[0]
    if size is not None:
        size = _check_size(size)
        if size != (0, 0):
            if dt.newbyteorder("=") not in _RESIZABLE:
                raise LayoutError(f"size={size}: OpenCV's linear resize takes "
                                  f"{', '.join(sorted(str(d) for d in _RESIZABLE))} images, not "
                                  f"{dt}; resize them yourself or drop size=")
            C0, itemsize = first.shape[-1], dt.itemsize
            need = n * C0 * size[0] * size[1] * (4 + itemsize)  # the blob and the resized images
            if need > _memory_bytes():
                raise LayoutError(f"size={size}: {n} resized images and their blob need {need} "
                                  f"bytes, more than this machine's {_memory_bytes()} bytes of "
                                  "memory")
            for i, b in enumerate(batches if not images_is_batch else [batches[0][0]]):
                if b.shape[0] == 0 or b.shape[1] == 0:
                    raise LayoutError(f"image {i} is empty ({b.shape}); it cannot be resized "
                                      f"to {size}")
            batches = [_resize(im, size, crop) for im in
                       (batches[0] if images_is_batch else batches)]
            images_is_batch = False
    from .blob_kernel import normalize_into

    first = batches[0]  # the 4-D batch, or image 0
    H, W, C = first.shape[-3:]
    if not images_is_batch:
        for i, b in enumerate(batches):
            if b.shape != (H, W, C) or b.dtype != first.dtype:
                raise LayoutError(f"image {i} is {b.shape} {b.dtype}; image 0 is {(H, W, C)} "
                                  f"{first.dtype}: all images must match (resize them, or pass size=)")
    perm = np.arange(C)
    if swap_rb and C >= 3:
        perm[[0, 2]] = [2, 0]
    dims = {"N": n, "C": C, "H": H, "W": W}
    shape = tuple(dims[a] for a in layout)  # what Layout(layout, ...).shape gives, ~25 us less
    blob = _new_or_out(shape, layout, n, C, H, W, out, dtype)
    if out is not None and any(np.may_share_memory(blob, im) for im in originals):
        raise LayoutError("out overlaps an input image; blob_from_images needs a separate output")
    nchw = blob.transpose([layout.index(a) for a in "NCHW"])  # logical N, C, H, W view
    # one kernel call for the whole batch: the 4-D array itself, or the images as they are
    images = images if images_is_batch else batches
    normalize_into(nchw, images, mean4[:C], scale4[:C], perm, threads=threads)
    return blob
