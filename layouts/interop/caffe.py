"""Caffe: the Blob's shape arithmetic, a small Blob holder, BlobProto files, weight layouts.

What Caffe users meet, behaving as Caffe's ``include/caffe/blob.hpp`` and ``src/caffe/blob.cpp`` do:

* :class:`Blob` -- shape math (``count``, ``count(start, end)``, canonical axis indices, legacy
  ``num/channels/height/width``, ``offset``, ``shape_string``, at most 32 axes, the INT_MAX check)
  and a holder for ``data``/``diff`` with Caffe's capacity rule, ``update``, ``asum``/``sumsq``/
  ``scale``, ``copy_from``, ``share_data``/``share_diff``, ``from_proto``/``to_proto``.
* :func:`parse_blobproto` / :class:`BlobProtoData` -- a ``BlobProto`` read and written through the
  real ``protobuf`` runtime (schema in :mod:`layouts.interop.caffe_schema`), byte-exact round trips.
* :func:`load_binaryproto` / :func:`save_binaryproto` -- a ``.binaryproto`` (mean file) to a numpy
  array in any layout in one call, and back.
* :func:`convert_weights` -- convolution weights OIHW <-> HWIO / OHWI / IHWO through the engine.

Caffe stores every blob row-major over its axes, so a 4-D blob is NCHW; the memory order itself
is the core's business (:class:`layouts.Layout`), this module only speaks Caffe.

>>> b = Blob((2, 16, 5, 4))
>>> b.count(), b.count(1, 3), b.offset(1, 1, 0, 1), b.shape_string
(640, 80, 341, '2 16 5 4 (640)')
"""

from __future__ import annotations

import dataclasses
import io
import os
from typing import Optional, Sequence

import numpy as np

from ..errors import LayoutError, LayoutTypeError
from ..layout import canonical_order
from ..spec import parse
from ._args import bool_arg, dtype_arg, int_arg, kind, number_arg, numeric_array, show_int, str_arg

MAX_BLOB_AXES = 32  # Caffe's kMaxBlobAxes
INT_MAX = 2**31 - 1

__all__ = [
    "MAX_BLOB_AXES", "Blob", "BlobProtoData", "parse_blobproto", "load_binaryproto",
    "save_binaryproto", "convert_weights",
]


def _shape_string(shape, count) -> str:
    return "".join(f"{d} " for d in shape) + f"({count})"


def _checked_shape(shape) -> tuple:
    """Caffe's ``Reshape`` checks: <= 32 axes, every dim >= 0, the product within INT_MAX."""
    if isinstance(shape, (str, bytes, dict, set)) or not hasattr(shape, "__iter__"):
        raise LayoutTypeError(f"blob shape must be a sequence of ints, got {kind(shape)}")
    try:
        dims = tuple(shape)
    except TypeError:  # a 0-d array or tensor
        raise LayoutTypeError(f"blob shape must be a sequence of ints, got {kind(shape)}") from None
    if len(dims) > MAX_BLOB_AXES:
        raise LayoutError(
            f"blob shape has {len(dims)} axes; Caffe allows at most {MAX_BLOB_AXES} (kMaxBlobAxes)")
    count = 1
    out = []
    for axis, d in enumerate(dims):
        d = int_arg(f"blob shape axis {axis}", d)
        if d < 0:
            raise LayoutError(f"blob shape axis {axis} is {show_int(d)}; expected a non-negative int")
        if count != 0 and d > INT_MAX // count:
            shown = show_int(d)
            raise LayoutError(
                f"blob size exceeds INT_MAX: axis {axis} = {shown} > {INT_MAX} // {count}"
                f" (shape of {len(dims)} axes)")
        count *= d
        out.append(d)
    return tuple(out)


class Blob:
    """Caffe's ``Blob<Dtype>``: an N-d shape over a row-major buffer, with ``data`` and ``diff``.

    ``Blob()`` is Caffe's default-constructed blob (no axes, count 0); ``Blob(shape)`` reshapes at
    once; :meth:`legacy` is the deprecated 4-D constructor. Memory is allocated on first use and
    zero-filled, as ``SyncedMemory`` does. ``data`` and ``diff`` are writable numpy views of shape
    ``shape`` over the first ``count`` elements of the buffers (``mutable_cpu_data``).

    >>> b = Blob((2, 3))
    >>> b.data[:] = 1.0; b.diff[:] = 0.25
    >>> b.update(); float(b.asum_data())
    4.5
    >>> b.reshape((2, 2)); b.capacity        # shrinking keeps the buffer
    6
    >>> b.num, b.channels, b.height, b.width  # legacy accessors pad with 1
    (2, 2, 1, 1)
    """

    def __init__(self, shape: Optional[Sequence[int]] = None, dtype=np.float32):
        self.dtype = dtype_arg("dtype", dtype)
        if self.dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
            raise LayoutError(f"Blob dtype is {self.dtype}; Caffe blobs are float32 or float64")
        self._shape: tuple = ()
        self._count = 0
        self.capacity = 0
        self._data: Optional[np.ndarray] = None  # flat buffers; None = not yet touched
        self._diff: Optional[np.ndarray] = None
        self._data_size = 0  # size of the (possibly lazily allocated) buffers, in elements
        self._diff_size = 0
        if shape is not None:
            self.reshape(shape)

    @classmethod
    def legacy(cls, num: int, channels: int, height: int, width: int, dtype=np.float32) -> "Blob":
        """The deprecated ``Blob(num, channels, height, width)`` constructor."""
        return cls(tuple(int_arg(name, v) for name, v in (
            ("num", num), ("channels", channels), ("height", height), ("width", width))), dtype)

    # --- shape arithmetic -------------------------------------------------------------------
    def reshape(self, shape: Sequence[int]) -> None:
        """``Reshape``: grow the capacity only; growing past it gives new zero-filled buffers."""
        dims = _checked_shape(shape)
        count = 1
        for d in dims:
            count *= d
        self._shape, self._count = dims, count
        if count > self.capacity:
            self.capacity = count
            self._data = self._diff = None
            self._data_size = self._diff_size = count

    def reshape_like(self, other: "Blob") -> None:
        self.reshape(_blob_arg("other", other).shape)

    @property
    def shape(self) -> tuple:
        """The shape as a tuple (use :meth:`shape_at` for Caffe's ``shape(index)``)."""
        return self._shape

    @property
    def num_axes(self) -> int:
        return len(self._shape)

    @property
    def shape_string(self) -> str:
        """``"2 16 5 4 (640)"``: the dims, each followed by a space, then the count in brackets."""
        return _shape_string(self._shape, self._count)

    def canonical_axis_index(self, axis_index: int) -> int:
        """``CanonicalAxisIndex``: ``-num_axes <= axis < num_axes``, negatives count from the end."""
        n = self.num_axes
        axis_index = int_arg("axis_index", axis_index)
        if not -n <= axis_index < n:
            raise LayoutError(
                f"axis {axis_index} out of range for {n}-D Blob with shape {self.shape_string}")
        return axis_index + n if axis_index < 0 else axis_index

    def shape_at(self, index: int) -> int:
        """Caffe's ``shape(index)``, negative indices allowed."""
        return self._shape[self.canonical_axis_index(index)]

    def count(self, start_axis: Optional[int] = None, end_axis: Optional[int] = None) -> int:
        """``count()``, ``count(start)`` or ``count(start, end)``: the product of dims in [start, end).

        Caffe's checks: ``0 <= start <= end <= num_axes`` (no negative axes here).
        """
        if start_axis is None:
            return self._count
        start_axis = int_arg("start_axis", start_axis)
        end_axis = self.num_axes if end_axis is None else int_arg("end_axis", end_axis)
        n = self.num_axes
        if not (0 <= start_axis <= end_axis <= n):
            raise LayoutError(
                f"count({start_axis}, {end_axis}) out of range for {n}-D Blob with shape "
                f"{self.shape_string}: expected 0 <= start <= end <= {n}")
        out = 1
        for i in range(start_axis, end_axis):
            out *= self._shape[i]
        return out

    def legacy_shape(self, index: int) -> int:
        """``LegacyShape``: dims 0..3 of a <= 4-axis blob; an axis beyond the rank reads as 1."""
        if self.num_axes > 4:
            raise LayoutError(
                f"Cannot use legacy accessors on Blobs with > 4 axes (shape {self.shape_string})")
        index = int_arg("index", index)
        if not -4 <= index < 4:
            raise LayoutError(f"legacy axis {index} out of range: expected -4 <= index < 4")
        if index >= self.num_axes or index < -self.num_axes:
            return 1
        return self.shape_at(index)

    num = property(lambda self: self.legacy_shape(0), doc="legacy N (1 beyond the rank)")
    channels = property(lambda self: self.legacy_shape(1), doc="legacy C (1 beyond the rank)")
    height = property(lambda self: self.legacy_shape(2), doc="legacy H (1 beyond the rank)")
    width = property(lambda self: self.legacy_shape(3), doc="legacy W (1 beyond the rank)")

    def offset(self, *indices) -> int:
        """``offset(n, c=0, h=0, w=0)`` or ``offset([i0, i1, ...])``: the row-major element offset.

        The 4-argument form checks what Caffe checks, no more: ``0 <= n <= num``, ``c <= channels``,
        ``h <= height``, ``w <= width`` (one past the end is accepted, as in Caffe). The list form
        checks ``0 <= i < shape(axis)`` for each given index and at most ``num_axes`` indices.

        >>> Blob((2, 16, 5, 4)).offset(1, 1, 0, 1)
        341
        >>> Blob((2, 16, 5, 4)).offset([1, 1])
        340
        """
        if len(indices) == 1 and isinstance(indices[0], (list, tuple, np.ndarray)):
            if isinstance(indices[0], np.ndarray) and indices[0].ndim != 1:
                raise LayoutError(f"offset takes one flat list of indices, got shape "
                                  f"{indices[0].shape}")
            idx = [int_arg(f"offset index {k}", i) for k, i in enumerate(indices[0])]
            if len(idx) > self.num_axes:
                raise LayoutError(
                    f"offset got {len(idx)} indices for a {self.num_axes}-D Blob with shape "
                    f"{self.shape_string}")
            off = 0
            for axis, d in enumerate(self._shape):
                off *= d
                if axis < len(idx):
                    if not 0 <= idx[axis] < d:
                        raise LayoutError(
                            f"offset index {show_int(idx[axis])} on axis {axis} out of range: expected "
                            f"0 <= index < {d} (shape {self.shape_string})")
                    off += idx[axis]
            return off
        if not 1 <= len(indices) <= 4:
            raise LayoutError(f"offset takes n, c=0, h=0, w=0 or one list; got {len(indices)} values")
        n, c, h, w = (int_arg(name, v) for name, v in zip("nchw", (list(indices) + [0, 0, 0])[:4]))
        num, ch, hh, ww = self.num, self.channels, self.height, self.width
        for name, v, lim in (("n", n, num), ("c", c, ch), ("h", h, hh), ("w", w, ww)):
            if v > lim or (name == "n" and v < 0):
                raise LayoutError(f"offset {name}={show_int(v)} out of range: expected {name} <= {lim} "
                                  f"(shape {self.shape_string})")
        return ((n * ch + c) * hh + h) * ww + w

    # --- the holder ---------------------------------------------------------------------------
    def _buffer(self, which: str) -> np.ndarray:
        buf = getattr(self, "_" + which)
        if buf is None:
            buf = np.zeros(getattr(self, f"_{which}_size"), self.dtype)
            setattr(self, "_" + which, buf)
        return buf

    @property
    def data(self) -> np.ndarray:
        """Writable view of ``shape`` over the data buffer (``mutable_cpu_data``)."""
        return self._view("data")

    def _view(self, which: str) -> np.ndarray:
        if not self._shape and self._count == 0:
            # Caffe: CHECK(data_) fails on a blob that was never shaped
            raise LayoutError(f"this Blob was never shaped, so it has no {which}; call reshape(shape) first")
        return self._buffer(which)[: self._count].reshape(self._shape)

    @property
    def diff(self) -> np.ndarray:
        """Writable view of ``shape`` over the diff buffer (``mutable_cpu_diff``)."""
        return self._view("diff")

    def update(self) -> None:
        """``Update()``: ``data -= diff`` over ``count`` elements."""
        d = self._buffer("data")[: self._count]
        d -= self._buffer("diff")[: self._count]

    def _reduce(self, which, fn):
        if getattr(self, "_" + which) is None:
            return self.dtype.type(0)
        return self.dtype.type(fn(self._buffer(which)[: self._count]))

    def asum_data(self):
        """Sum of absolute values of data (L1)."""
        return self._reduce("data", lambda a: np.abs(a).sum(dtype=self.dtype))

    def asum_diff(self):
        return self._reduce("diff", lambda a: np.abs(a).sum(dtype=self.dtype))

    def sumsq_data(self):
        """Sum of squares of data (squared L2)."""
        return self._reduce("data", lambda a: np.dot(a, a))

    def sumsq_diff(self):
        return self._reduce("diff", lambda a: np.dot(a, a))

    def scale_data(self, factor) -> None:
        d = self._buffer("data")[: self._count]
        d *= self.dtype.type(number_arg("factor", factor, finite=False))

    def scale_diff(self, factor) -> None:
        d = self._buffer("diff")[: self._count]
        d *= self.dtype.type(number_arg("factor", factor, finite=False))

    def copy_from(self, source: "Blob", copy_diff: bool = False, reshape: bool = False) -> None:
        """``CopyFrom``: copy source's data (or its diff into this diff); sizes must agree unless
        ``reshape``."""
        _blob_arg("source", source)
        copy_diff, reshape = bool_arg("copy_diff", copy_diff), bool_arg("reshape", reshape)
        if source.count() != self._count or source.shape != self._shape:
            if reshape:
                self.reshape_like(source)
            else:
                raise LayoutError(
                    f"Trying to copy blobs of different sizes: source {source.shape_string}, "
                    f"this blob {self.shape_string} (pass reshape=True to reshape)")
        which = "diff" if copy_diff else "data"
        self._buffer(which)[: self._count] = source._buffer(which)[: self._count]

    def _share(self, other: "Blob", which: str) -> None:
        _blob_arg("other", other)
        if other.count() != self._count:
            raise LayoutError(
                f"share_{which} needs equal counts: this blob {self.shape_string}, "
                f"other {other.shape_string}")
        if other.dtype != self.dtype:
            raise LayoutError(f"share_{which} needs equal dtypes: {self.dtype} vs {other.dtype}")
        setattr(self, "_" + which, other._buffer(which))
        setattr(self, f"_{which}_size", getattr(other, f"_{which}_size"))

    def share_data(self, other: "Blob") -> None:
        """``ShareData``: use other's data buffer (counts must agree)."""
        self._share(other, "data")

    def share_diff(self, other: "Blob") -> None:
        """``ShareDiff``: use other's diff buffer (counts must agree)."""
        self._share(other, "diff")

    # --- protobuf -----------------------------------------------------------------------------
    def to_proto(self, write_diff: bool = False) -> "BlobProtoData":
        """``ToProto``: shape, data (float32 -> ``data``, float64 -> ``double_data``), diff."""
        write_diff = bool_arg("write_diff", write_diff)
        return BlobProtoData(
            shape=self._shape, data=self.data.copy(),
            diff=self.diff.copy() if write_diff else None,
            double=self.dtype == np.float64)

    def from_proto(self, proto: "BlobProtoData | bytes", reshape: bool = True) -> None:
        """``FromProto``: take shape (when ``reshape``; else it must match) and data/diff."""
        if isinstance(proto, (bytes, bytearray, memoryview)):
            proto = parse_blobproto(proto)
        elif not isinstance(proto, BlobProtoData):
            raise LayoutTypeError(f"proto must be a BlobProtoData or serialized bytes, got "
                            f"{type(proto).__name__}")
        if bool_arg("reshape", reshape):
            self.reshape(proto.shape)
        elif not self._shape_equals(proto):
            raise LayoutError(f"shape mismatch (reshape not set): proto "
                              f"{_shape_string(proto.shape, proto.count)}, blob {self.shape_string}")
        self._buffer("data")[: self._count] = proto.data.ravel()
        if proto.diff is not None:
            self._buffer("diff")[: self._count] = proto.diff.ravel()

    def _shape_equals(self, proto: "BlobProtoData") -> bool:
        if proto.legacy is not None:
            # Caffe's ShapeEquals reads legacy dims from the END of the shape (LegacyShape(-4..-1)):
            # an inner-product weight (M, N) matches num=1, channels=1, height=M, width=N
            return self.num_axes <= 4 and tuple(
                self.legacy_shape(i) for i in range(-4, 0)) == proto.shape
        return self._shape == proto.shape

    def __repr__(self) -> str:
        return f"Blob({self.shape_string}, dtype={self.dtype}, capacity={self.capacity})"


def _blob_arg(name: str, v) -> "Blob":
    if not isinstance(v, Blob):
        raise LayoutTypeError(f"{name} must be a caffe.Blob, got {type(v).__name__}")
    return v


# --- BlobProto --------------------------------------------------------------------------------
_LEGACY = ("num", "channels", "height", "width")


@dataclasses.dataclass
class BlobProtoData:
    """The contents of one ``BlobProto``, as numpy arrays.

    ``shape``: Caffe's shape (from ``shape.dim``, or the legacy num/channels/height/width when any
    of those is present -- legacy wins, as in ``Blob::FromProto``). ``data``/``diff``: arrays of
    ``shape`` (float32, or float64 when ``double``). ``legacy``: ``None`` for a ``shape`` message,
    else which legacy fields were present (a 4-tuple of bools) so :meth:`to_bytes` writes them back.

    >>> p = BlobProtoData(shape=(1, 2), data=np.array([[1.5, -2.0]], np.float32))
    >>> p.count, p.data.dtype.name
    (2, 'float32')
    """

    shape: tuple
    data: np.ndarray
    diff: Optional[np.ndarray] = None
    double: bool = False
    legacy: Optional[tuple] = None

    def __post_init__(self):
        self.shape = _checked_shape(self.shape)
        self.double = bool_arg("double", self.double)
        dt = np.float64 if self.double else np.float32
        if self.legacy is not None:
            if not (isinstance(self.legacy, tuple) and len(self.legacy) == 4):
                raise LayoutTypeError(f"legacy must be None or a 4-tuple of bools, got {kind(self.legacy)}")
            self.legacy = tuple(bool_arg("legacy field", v) for v in self.legacy)
            if len(self.shape) != 4:
                raise LayoutError(f"legacy BlobProto shape must have 4 axes, got {self.shape}")
            big = [d for d in self.shape if d > INT_MAX]
            if big:
                raise LayoutError(f"legacy BlobProto dims are int32; {big[0]} does not fit")
        for name in ("data", "diff"):
            a = getattr(self, name)
            if a is None:
                continue
            a = numeric_array(f"BlobProto {name}", a)
            if a.size != self.count:
                raise LayoutError(
                    f"BlobProto {name} has {a.size} values but shape "
                    f"{_shape_string(self.shape, self.count)} needs {self.count}")
            setattr(self, name, np.ascontiguousarray(a, dtype=dt).reshape(self.shape))
        if self.data is None:
            raise LayoutError("BlobProto data is required (an array of the blob's shape)")

    @property
    def count(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1

    def to_message(self):
        """The ``caffe.BlobProto`` protobuf message (field order as Caffe writes it)."""
        from .caffe_schema import messages

        msg = messages()["BlobProto"]()
        if self.legacy is not None:
            for name, present, d in zip(_LEGACY, self.legacy, self.shape):
                if present:
                    setattr(msg, name, d)
        else:
            msg.shape.SetInParent()
            msg.shape.dim.extend(self.shape)
        data_field, diff_field = ("double_data", "double_diff") if self.double else ("data", "diff")
        getattr(msg, data_field).extend(self.data.ravel().tolist())
        if self.diff is not None:
            getattr(msg, diff_field).extend(self.diff.ravel().tolist())
        return msg

    def to_bytes(self) -> bytes:
        """Serialized ``BlobProto`` (packed repeated fields, as Caffe's C++ writes them)."""
        return self.to_message().SerializeToString()


def _read_source(source) -> bytes:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as f:
            return f.read()
    if hasattr(source, "read"):
        raw = source.read()
        if not isinstance(raw, (bytes, bytearray)):
            raise LayoutTypeError(f"source file gave {type(raw).__name__}, not bytes; open it in "
                            "binary mode ('rb')")
        return bytes(raw)
    raise LayoutTypeError(f"source must be bytes, a path or a binary file, got {type(source).__name__}")


def parse_blobproto(source) -> BlobProtoData:
    """Read a serialized ``caffe.BlobProto`` (bytes, a path, or a binary file).

    Packed and unpacked repeated fields are both accepted (protobuf's parser reads either).
    Malformed or truncated bytes, dims out of range, or a data count that does not match the shape
    raise :class:`~layouts.LayoutError`.

    >>> import pytest; _ = pytest.importorskip("google.protobuf")   # the 'caffe' extra
    >>> p = parse_blobproto(b"\\x3a\\x04\\x0a\\x02\\x01\\x02"   # shape { dim: [1, 2] }
    ...                     b"\\x2a\\x08\\x00\\x00\\xc0\\x3f\\x00\\x00\\x00\\xc0")  # data: [1.5, -2.0]
    >>> p.shape, p.data.tolist(), p.legacy
    ((1, 2), [[1.5, -2.0]], None)
    >>> parse_blobproto(b"\\x3a\\x04\\x0a\\x02\\x01")        # cut off inside the shape
    Traceback (most recent call last):
    layouts.errors.LayoutError: not a valid caffe.BlobProto (5 bytes): ...
    """
    from .caffe_schema import messages

    raw = _read_source(source)
    msg = messages()["BlobProto"]()
    try:
        msg.ParseFromString(raw)
    except Exception as exc:  # google.protobuf.message.DecodeError and friends
        raise LayoutError(
            f"not a valid caffe.BlobProto ({len(raw)} bytes): {exc or type(exc).__name__}; "
            "the bytes are malformed or truncated") from None
    return _from_message(msg, len(raw))


def _from_message(msg, nbytes: int) -> BlobProtoData:
    present = tuple(msg.HasField(n) for n in _LEGACY)
    if any(present):
        shape = tuple(getattr(msg, n) for n in _LEGACY)
        legacy = present
    else:
        shape = tuple(msg.shape.dim)
        legacy = None
    double = len(msg.double_data) > 0
    data = np.array(msg.double_data if double else msg.data,
                    dtype=np.float64 if double else np.float32)
    if len(msg.double_diff) > 0:
        diff = np.array(msg.double_diff, dtype=np.float64)
    elif len(msg.diff) > 0:
        diff = np.array(msg.diff, dtype=np.float32)
    else:
        diff = None
    try:
        dims = _checked_shape(shape)
        count = int(np.prod(dims, dtype=np.int64)) if dims else 1
        if data.size != count:
            raise LayoutError(
                f"BlobProto data has {data.size} values but shape {_shape_string(dims, count)} "
                f"needs {count}")
        if diff is not None and diff.dtype != data.dtype:
            diff = diff.astype(data.dtype)
        return BlobProtoData(shape=dims, data=data, diff=diff, double=double, legacy=legacy)
    except LayoutError as exc:
        raise LayoutError(f"caffe.BlobProto ({nbytes} bytes): {exc}; the bytes may be truncated") \
            from None


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


def load_binaryproto(source, layout: str = "NCHW", blob_axes: Optional[str] = None, *,
                     src: Optional[str] = None) -> np.ndarray:
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
    blobs). ``src=`` is the old name of ``blob_axes=``.

    >>> import pytest; _ = pytest.importorskip("google.protobuf")   # the 'caffe' extra
    >>> mean = np.arange(12, dtype=np.float32).reshape(1, 3, 2, 2)
    >>> blob = save_binaryproto(mean)            # no path: the serialized bytes
    >>> load_binaryproto(blob, "HWC")[0, 1]
    array([1., 5., 9.], dtype=float32)
    """
    if src is not None:
        if blob_axes is not None:
            raise LayoutTypeError("pass blob_axes= or its old name src=, not both")
        blob_axes = src
    str_arg("layout", layout)
    if blob_axes is not None:
        _letters("blob_axes", blob_axes)
    p = parse_blobproto(source)
    return _to_layout(p.data, blob_axes, layout)


def _to_layout(x: np.ndarray, src: Optional[str], layout: str) -> np.ndarray:
    from layouts import convert

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

    >>> import pytest; _ = pytest.importorskip("google.protobuf")   # the 'caffe' extra
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
        from layouts import convert

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


_WEIGHT_LETTERS = set("OIHWD")


def convert_weights(w, src: str = "OIHW", dst: str = "HWIO", out=None) -> np.ndarray:
    """Convolution weights between layouts: Caffe/PyTorch ``OIHW`` <-> TensorFlow ``HWIO``,
    TFLite ``OHWI``, ``IHWO`` (TFLite depthwise-style), or any other order of the same letters
    (``OIDHW`` <-> ``DHWIO`` for 3-D). Done by :func:`layouts.convert`.

    >>> w = np.arange(2 * 3 * 1 * 2).reshape(2, 3, 1, 2)      # O=2 I=3 H=1 W=2
    >>> bool(convert_weights(w, "OIHW", "HWIO")[0, 1, 2, 0] == w[0, 2, 0, 1])
    True
    """
    from layouts import convert

    x = numeric_array("w", w)
    for name, spec in (("src", src), ("dst", dst)):
        str_arg(name, spec)
        if not _is_plain(spec) or not set(spec) <= _WEIGHT_LETTERS:
            raise LayoutError(f"{name}={spec[:40]!r}: expected a weight layout over the letters "
                              "O, I, H, W (and D), e.g. 'OIHW', 'HWIO', 'OHWI', 'IHWO'")
    if set(src) != set(dst):
        raise LayoutError(f"src={src!r} and dst={dst!r} name different axes")
    if x.ndim != len(src):
        raise LayoutError(f"weights have shape {x.shape} ({x.ndim} axes) but src={src!r} "
                          f"names {len(src)}")
    return convert(x, src, dst, out=out)
