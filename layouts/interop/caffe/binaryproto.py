"""A ``.binaryproto`` file (a Caffe mean file) to a numpy array in any layout in one call, and back.
"""

from __future__ import annotations

import os
from typing import Optional

import numpy as np

from ...errors import LayoutError, LayoutTypeError
from ...named.layout import canonical_order
from ...named.spec import parse
from ..._args import bool_arg, numeric_array, str_arg
from ...errors import number as show_int
from .proto import BlobProtoData, parse_blobproto

__all__ = ["load_binaryproto", "save_binaryproto"]


def _squeeze_to(x: np.ndarray, src: str, dst_logical: set) -> tuple:
    """Drop size-1 axes of ``src`` that the destination does not name (a mean file's N=1)."""
    keep = [i for i, a in enumerate(src) if a in dst_logical]
    for i, a in enumerate(src):
        if a not in dst_logical and x.shape[i] != 1:
            raise LayoutError(
                f"axis {a} of the blob has size {x.shape[i]} but layout lacks {a}: only size-1 "
                "axes can be dropped")
    return x.reshape([x.shape[i] for i in keep]), "".join(src[i] for i in keep)


def _letters(name: str, spec, ndim: Optional[int] = None) -> str:
    """A plain order of distinct upper-case axis letters (``"NCHW"``, ``"HWC"``)."""
    str_arg(name, spec)
    if not (spec.isascii() and spec.isalpha() and spec.isupper()) or len(set(spec)) != len(spec):
        raise LayoutError(f"{name}={spec[:40]!r} must name each axis once with an upper-case "
                          "letter, e.g. 'NCHW' or 'HWC'")
    if ndim is not None and len(spec) != ndim:
        raise LayoutError(f"{name}={spec!r} names {len(spec)} axes but the array has {ndim}")
    return spec


def _default_blob_axes(layout: str) -> str:
    """Caffe's row-major order for ``layout``'s letters (NCHW-like), with ``N`` put first when
    an image layout lacks it (a mean image is a 1 x C x H x W blob)."""
    order = canonical_order(layout)
    if "N" not in layout and set("CHW") <= set(layout):
        order = "N" + order
    return order


def load_binaryproto(source, layout: str = "NCHW", blob_axes: Optional[str] = None) -> np.ndarray:
    """A ``.binaryproto`` file (e.g. a mean image) as a numpy array in ``layout``, in one call.

    The two keywords mean the same here as in :func:`save_binaryproto`:

    ``layout``
        the layout of the numpy array (here: the one returned) -- any spec the core reads
        (``"NCHW"``, ``"NHWC"``, ``"HWC"``, ``"CHW"``, ``"NCHW16c"``, ...).
    ``blob_axes``
        the letters naming the stored blob's axes, in Caffe's row-major order (default
        ``"NCHW"`` for a 4-axis blob; give it for other ranks). Blob axes that ``layout`` does
        not name must have size 1 and are dropped (a mean file's N).

    ``source`` is the bytes, a path or a binary file. float32 (float64 for ``double_data``
    blobs).

    >>> mean = np.arange(12, dtype=np.float32).reshape(1, 3, 2, 2)
    >>> blob = save_binaryproto(mean)            # no path: the serialized bytes
    >>> load_binaryproto(blob, "HWC")[0, 1]
    array([1., 5., 9.], dtype=float32)
    """
    str_arg("layout", layout)
    if blob_axes is not None:
        _letters("blob_axes", blob_axes)
    p = parse_blobproto(source)
    return _to_layout(p.data, blob_axes, layout)


def _to_layout(x: np.ndarray, src: Optional[str], layout: str) -> np.ndarray:
    from ...conversion.front import convert

    if src is None:
        if x.ndim != 4:
            raise LayoutError(
                f"blob has {x.ndim} axes (shape {x.shape}); pass blob_axes= with {x.ndim} "
                "letters (Caffe's default NCHW needs 4)")
        src = "NCHW"
    if len(src) != x.ndim:
        raise LayoutError(f"blob_axes={src!r} must name each of the blob's {x.ndim} axes once "
                          f"(upper-case letters), shape {x.shape}")
    x, src = _squeeze_to(x, src, set(parse(layout).axes))
    if src == layout:
        return x.copy()
    return convert(x, src, layout)


def save_binaryproto(array, path=None, layout: str = "NCHW", blob_axes: Optional[str] = None, *,
                     legacy: bool = False, double: Optional[bool] = None, diff=None):
    """Write ``array`` (stored in ``layout``) as a ``BlobProto``: to ``path`` (a file name or a
    binary file), returning ``None``; or, with no ``path``, return the serialized ``bytes``.

    ``layout`` and ``blob_axes`` mean what they mean in :func:`load_binaryproto`: the array's
    layout (plain: ``"NCHW"``, ``"NHWC"``, ``"HWC"``, ``"OIHW"``...) and the letters of the
    blob's axes in Caffe's row-major order. ``blob_axes`` defaults to the NCHW-like order of
    ``layout``'s letters, with ``N`` first when an image layout lacks it (a mean file is a
    1 x C x H x W blob); letters of ``blob_axes`` missing from ``layout`` get size 1.
    ``legacy=True`` writes num/channels/height/width instead of ``shape`` (what
    ``compute_image_mean`` writes). ``diff`` (an array of ``array``'s shape, in ``layout``) is
    converted like the data.

    ``double`` picks the field the values go to: ``data`` (float32) or ``double_data`` (float64).
    By default it is float64 for a float64 array, and for an integer array whose values float32
    cannot hold exactly (float32 holds every integer up to 2**24, float64 up to 2**53); otherwise
    float32. No integer is rounded silently: an integer array that the chosen type cannot hold
    exactly (``double=False`` with values past float32, or values past float64 in any case) is
    refused with a :class:`~layouts.LayoutError` naming the values' range; cast it yourself
    (``array.astype(np.float32)``) to accept the rounding.

    >>> big = np.array([2**40 + 1], np.int64).reshape(1, 1, 1, 1)
    >>> int(load_binaryproto(save_binaryproto(big)).ravel()[0]) == 2**40 + 1   # saved as double
    True
    >>> save_binaryproto(big, double=False)
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: array holds integers float32 cannot store exactly (values 1099511627777..1099511627777; float32 holds every integer up to 2**24 = 16777216): pass double=True (exact up to 2**53), or cast explicitly (array.astype(np.float32)) to accept the rounding

    >>> hwc = np.zeros((2, 2, 3), np.float32)
    >>> raw = save_binaryproto(hwc, layout="HWC")
    >>> parse_blobproto(raw).shape
    (1, 3, 2, 2)
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     f = pathlib.Path(d, "mean.binaryproto")
    ...     print(save_binaryproto(hwc, f, layout="HWC"), f.read_bytes() == raw)
    None True
    """
    x = numeric_array("array", array)
    str_arg("layout", layout)
    legacy = bool_arg("legacy", legacy)
    double = None if double is None else bool_arg("double", double)
    if path is not None and not isinstance(path, (str, os.PathLike)) and not hasattr(path, "write"):
        raise LayoutTypeError(f"path must be a file name or a binary file (or None for bytes), got "
                        f"{type(path).__name__}")
    if not _is_plain(layout):
        raise LayoutError(f"layout {layout[:40]!r}: only plain (unblocked) layouts can be saved; "
                          "convert to NCHW first")
    if len(layout) != x.ndim:
        raise LayoutError(f"layout {layout!r} has {len(layout)} axes but the array has shape {x.shape}")
    if blob_axes is None:
        blob_axes = _default_blob_axes(layout)
    _letters("blob_axes", blob_axes)
    if not set(layout) <= set(blob_axes):
        raise LayoutError(f"blob_axes={blob_axes!r} must name every axis of layout {layout!r} "
                          f"(it may add size-1 axes)")
    d = None if diff is None else numeric_array("diff", diff)
    if d is not None and d.shape != x.shape:
        raise LayoutError(f"diff has shape {d.shape}, expected the array's shape {x.shape} (layout {layout!r})")
    bits = {name: _integer_bits(a) for name, a in (("array", x), ("diff", d)) if a is not None}
    if double is None:
        double = x.dtype == np.float64 or max(bits.values()) > 24
    for name, need in bits.items():
        _check_exact(name, x if name == "array" else d, need, double)
    order = "".join(a for a in blob_axes if a in layout)  # the blob's order of the array's axes
    if layout != order:
        from ...conversion.front import convert

        x = convert(x, layout, order)
        d = None if d is None else convert(d, layout, order)
    sizes = dict(zip(order, x.shape))
    shape = tuple(sizes.get(a, 1) for a in blob_axes)
    d = None if d is None else d.reshape(shape)
    p = BlobProtoData(shape=shape, data=x.reshape(shape), diff=d, double=double,
                      legacy=(True,) * 4 if legacy else None)
    out = p.to_bytes()
    if path is None:
        return out
    if hasattr(path, "write"):
        path.write(out)
    else:
        with open(path, "wb") as f:
            f.write(out)
    return None


def _integer_bits(a: np.ndarray) -> int:
    """The significant bits the integers of ``a`` need in a float's mantissa: the bit length of
    the largest odd part ``|v| / 2**k`` (2**40 needs 1, 2**40 + 1 needs 41); 0 for a float,
    bool or empty array. A float type holds the values exactly iff its mantissa has that many
    bits (24 for float32, 53 for float64; no int64 exceeds either's exponent range)."""
    if a.dtype.kind not in "iu" or a.size == 0:
        return 0
    if a.dtype.kind == "u":
        u = a.astype(np.uint64).ravel()
    else:  # |v| as uint64; abs(-2**63) wraps to -2**63, whose bits read as 2**63 unsigned
        u = np.abs(a.astype(np.int64).ravel()).view(np.uint64)
    u = u[u != 0]
    if u.size == 0:
        return 0
    odd = u // (u & (~u + np.uint64(1)))  # u & -u: the lowest set bit
    return int(odd.max()).bit_length()


def _check_exact(name: str, a: np.ndarray, need: int, double: bool) -> None:
    """Refuse integers of ``a`` that the float type chosen for the blob would round."""
    have = 53 if double else 24
    if need <= have:
        return
    rng = f"values {show_int(a.min())}..{show_int(a.max())}"
    if double:
        raise LayoutError(f"{name} holds integers float64 cannot store exactly ({rng}; float64 holds "
                          f"every integer up to 2**53 = {2**53}): a BlobProto stores floats, so cast "
                          f"explicitly ({name}.astype(np.float64)) to accept the rounding")
    raise LayoutError(f"{name} holds integers float32 cannot store exactly ({rng}; float32 holds every "
                      f"integer up to 2**24 = {2**24}): pass double=True (exact up to 2**53), or cast "
                      f"explicitly ({name}.astype(np.float32)) to accept the rounding")


def _is_plain(spec: str) -> bool:
    """Upper-case axes only: no blocks, no Ascend pairs."""
    if not isinstance(spec, str):
        return False
    try:
        parsed = parse(spec)
    except LayoutError:
        return False
    return all(not d.is_block and d.name == d.axis for d in parsed.dims) and spec.isupper()
