"""Caffe: the Blob's shape arithmetic, a small Blob holder, BlobProto files, weight layouts.

What Caffe users meet, behaving as Caffe's ``include/caffe/blob.hpp`` and ``src/caffe/blob.cpp`` do:

One module a job: :mod:`.shape` (Caffe's shape rules), :mod:`.blob` (:class:`Blob`), :mod:`.proto`
(``BlobProto``), :mod:`.binaryproto` (mean files), :mod:`.weights` (weight layouts).

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

from .binaryproto import load_binaryproto, save_binaryproto
from .blob import Blob
from .proto import BlobProtoData, parse_blobproto
from .shape import INT_MAX, MAX_BLOB_AXES
from .weights import convert_weights

__all__ = [
    "MAX_BLOB_AXES", "Blob", "BlobProtoData", "parse_blobproto", "load_binaryproto",
    "save_binaryproto", "convert_weights", "INT_MAX",
]
