"""Caffe's blob shape rules (``blob.cpp``): at most :data:`MAX_BLOB_AXES` axes, a count within
``INT_MAX``, the shape string Caffe prints.

>>> shape_string((2, 16, 5, 4), 640)
'2 16 5 4 (640)'
"""

from __future__ import annotations



from ...errors import LayoutError, LayoutTypeError
from ..._args import int_arg
from ...errors import kind, number as show_int

__all__ = ["MAX_BLOB_AXES", "INT_MAX", "shape_string", "checked_shape"]

MAX_BLOB_AXES = 32  # Caffe's kMaxBlobAxes
INT_MAX = 2**31 - 1


def shape_string(shape, count) -> str:
    return "".join(f"{d} " for d in shape) + f"({count})"


def checked_shape(shape) -> tuple:
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
