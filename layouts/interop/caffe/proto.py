"""One Caffe ``BlobProto`` as numpy arrays, read and written through the real ``protobuf`` runtime
(schema in :mod:`layouts.interop.caffe_schema`), with byte-exact round trips.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Optional

import numpy as np

from ...errors import LayoutError, LayoutTypeError
from ..._args import bool_arg, numeric_array
from ...errors import kind
from .shape import INT_MAX
from .shape import checked_shape as _checked_shape
from .shape import shape_string as _shape_string

__all__ = ["BlobProtoData", "parse_blobproto"]

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
        from ..caffe_schema import messages

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

    >>> p = parse_blobproto(b"\\x3a\\x04\\x0a\\x02\\x01\\x02"   # shape { dim: [1, 2] }
    ...                     b"\\x2a\\x08\\x00\\x00\\xc0\\x3f\\x00\\x00\\x00\\xc0")  # data: [1.5, -2.0]
    >>> p.shape, p.data.tolist(), p.legacy
    ((1, 2), [[1.5, -2.0]], None)
    >>> parse_blobproto(b"\\x3a\\x04\\x0a\\x02\\x01")        # cut off inside the shape
    Traceback (most recent call last):
    layouts.errors.LayoutError: not a valid caffe.BlobProto (5 bytes): ...
    """
    from ..caffe_schema import messages

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
