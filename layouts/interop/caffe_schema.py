"""Caffe's ``BlobShape`` / ``BlobProto`` / ``BlobProtoVector`` messages, declared for ``protobuf``.

The schema is the subset of Caffe's ``src/caffe/proto/caffe.proto`` that a ``.binaryproto`` file
(a mean image, a saved blob) uses, written out as a ``FileDescriptorProto`` so that the real
``protobuf`` runtime does all the wire work: no ``protoc``, no generated ``_pb2`` module, no
hand-written varint code. Field numbers, types, labels and ``packed`` options are Caffe's::

    syntax = "proto2";
    package caffe;
    message BlobShape { repeated int64 dim = 1 [packed = true]; }
    message BlobProto {
      optional BlobShape shape = 7;
      repeated float data = 5 [packed = true];
      repeated float diff = 6 [packed = true];
      repeated double double_data = 8 [packed = true];
      repeated double double_diff = 9 [packed = true];
      optional int32 num = 1 [default = 0];       // legacy 4-D shape
      optional int32 channels = 2 [default = 0];
      optional int32 height = 3 [default = 0];
      optional int32 width = 4 [default = 0];
    }
    message BlobProtoVector { repeated BlobProto blobs = 1; }

The classes are built once, in a private descriptor pool (so they never collide with another
``caffe.proto`` registered in the process), the first time :func:`messages` is called.
``protobuf`` is imported only then.

>>> BlobProto = messages()["BlobProto"]
>>> m = BlobProto(data=[1.5, -2.0])
>>> m.shape.dim.extend([1, 2])
>>> m.SerializeToString()              # by field number: packed data (5), then shape (7)
b'*\\x08\\x00\\x00\\xc0?\\x00\\x00\\x00\\xc0:\\x04\\n\\x02\\x01\\x02'
>>> [f.name for f in BlobProto.DESCRIPTOR.fields if f.number in (1, 2, 3, 4)]
['num', 'channels', 'height', 'width']
"""

from __future__ import annotations

import functools

_PACKAGE = "caffe"
_FILE = "layouts/interop/caffe_blob.proto"


def _file_descriptor_proto():
    from google.protobuf import descriptor_pb2

    F = descriptor_pb2.FieldDescriptorProto
    fdp = descriptor_pb2.FileDescriptorProto(name=_FILE, package=_PACKAGE, syntax="proto2")

    def field(msg, name, number, ftype, label=F.LABEL_OPTIONAL, packed=False, type_name=None,
              default=None):
        f = msg.field.add(name=name, number=number, type=ftype, label=label)
        if type_name is not None:
            f.type_name = type_name
        if default is not None:
            f.default_value = default
        if packed:
            f.options.packed = True
        return f

    shape = fdp.message_type.add(name="BlobShape")
    field(shape, "dim", 1, F.TYPE_INT64, F.LABEL_REPEATED, packed=True)

    blob = fdp.message_type.add(name="BlobProto")
    field(blob, "shape", 7, F.TYPE_MESSAGE, type_name=".caffe.BlobShape")
    field(blob, "data", 5, F.TYPE_FLOAT, F.LABEL_REPEATED, packed=True)
    field(blob, "diff", 6, F.TYPE_FLOAT, F.LABEL_REPEATED, packed=True)
    field(blob, "double_data", 8, F.TYPE_DOUBLE, F.LABEL_REPEATED, packed=True)
    field(blob, "double_diff", 9, F.TYPE_DOUBLE, F.LABEL_REPEATED, packed=True)
    field(blob, "num", 1, F.TYPE_INT32, default="0")
    field(blob, "channels", 2, F.TYPE_INT32, default="0")
    field(blob, "height", 3, F.TYPE_INT32, default="0")
    field(blob, "width", 4, F.TYPE_INT32, default="0")

    vec = fdp.message_type.add(name="BlobProtoVector")
    field(vec, "blobs", 1, F.TYPE_MESSAGE, F.LABEL_REPEATED, type_name=".caffe.BlobProto")
    return fdp


@functools.lru_cache(maxsize=1)
def messages() -> dict:
    """The message classes ``{"BlobShape", "BlobProto", "BlobProtoVector"}`` (built once).

    Raises ``ImportError`` with an install hint when ``protobuf`` is missing.
    """
    try:
        from google.protobuf import descriptor_pool, message_factory
    except ImportError as exc:  # pragma: no cover - exercised only without protobuf
        raise ImportError(
            "reading or writing Caffe BlobProto needs the 'protobuf' package "
            "(pip install protobuf)") from exc
    pool = descriptor_pool.DescriptorPool()
    pool.Add(_file_descriptor_proto())
    out = {}
    for name in ("BlobShape", "BlobProto", "BlobProtoVector"):
        desc = pool.FindMessageTypeByName(f"{_PACKAGE}.{name}")
        out[name] = message_factory.GetMessageClass(desc)
    return out
