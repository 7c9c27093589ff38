"""Caffe's ``Blob`` as ``include/caffe/blob.hpp`` and ``src/caffe/blob.cpp`` define it: shape math
(``count``, ``count(start, end)``, canonical axis indices, legacy ``num/channels/height/width``,
``offset``, ``shape_string``) and a holder for ``data``/``diff`` with Caffe's capacity rule,
``update``, ``asum``/``sumsq``/``scale``, ``copy_from``, ``share_data``/``share_diff`` and
``from_proto``/``to_proto``.

>>> b = Blob((2, 16, 5, 4))
>>> b.count(), b.count(1, 3), b.offset(1, 1, 0, 1), b.shape_string
(640, 80, 341, '2 16 5 4 (640)')
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from ...errors import LayoutError, LayoutTypeError
from ..._args import bool_arg, dtype_arg, int_arg, number_arg
from ...errors import number as show_int
from .proto import BlobProtoData, parse_blobproto
from .shape import checked_shape as _checked_shape
from .shape import shape_string as _shape_string

__all__ = ["Blob"]


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
