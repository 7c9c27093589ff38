"""The checks a Layout applies to what callers give it: sizes, item sizes, coordinates, offsets,
shapes. A wrong kind is a :class:`~layouts.errors.LayoutTypeError`, a wrong value a
:class:`~layouts.errors.LayoutError`, each naming the argument; integers are never wrapped.

>>> check_size("C", 16, "size")
16
>>> coordinate(np.array([0, 3]), "w", "W", 4).tolist()
[0, 3]
"""

from __future__ import annotations

import numbers
from typing import Any, Mapping

import numpy as np

from .errors import LayoutError, LayoutTypeError, number, type_name

__all__ = ["MAX_ELEMENTS", "MAX_ENUMERATED", "numpy_max_dims", "check_size", "itemsize", "as_array", "integer_array", "coordinate",
           "check_broadcast", "shape_tuple"]

#: The largest number of elements a layout may span (offsets are int64). Every size, stride,
#: offset and byte offset a Layout reports is exact: one that int64 cannot hold is refused.
MAX_ELEMENTS = 2**63 - 1
#: The most slots :meth:`Layout.physical_order` enumerates (it builds several int64 arrays of that size).
MAX_ENUMERATED = 2**26


def check_size(name: str, value: Any, what: str) -> int:
    """A non-negative integer size below 2**63, or a LayoutError naming ``name``
    (a LayoutTypeError when ``value`` is not an integer at all)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        text = type_name(value).rsplit(" (a", 1)[0]
        raise LayoutTypeError(f"{what} {name} must be a non-negative integer, got {type(value).__name__} {text}")
    value = int(value)
    if value < 0:
        raise LayoutError(f"{what} {name} must be a non-negative integer, got {number(value)}")
    if value > MAX_ELEMENTS:
        raise LayoutError(f"{what} {name} is {number(value)}, more than a layout can address (at most 2**63 - 1 elements)")
    return value


def itemsize(dtype: Any, what: str = "dtype") -> int:
    """The item size in bytes of a numpy dtype (or anything ``np.dtype`` reads), refusing others."""
    if dtype is None:
        raise LayoutTypeError(f"{what} must be a numpy dtype such as 'float32', got None")
    try:
        size = np.dtype(dtype).itemsize
    except (TypeError, ValueError, SyntaxError) as err:
        raise LayoutTypeError(f"{what} must be a numpy dtype such as 'float32', got {type_name(dtype)}") from err
    if size == 0:
        raise LayoutError(f"{what} {np.dtype(dtype)} has item size 0; expected a dtype with bytes")
    return size


def as_array(value: Any, what: str) -> np.ndarray:
    """``np.asarray(value)`` for integer data: Python ints of any size are checked against int64
    first (an object array of them is converted exactly or refused), other kinds are a TypeError."""
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError, OverflowError) as err:
        raise LayoutTypeError(f"{what} must be an integer or an array of integers, got {type_name(value)}") from err
    if arr.dtype == object:
        flat = list(arr.flat)
        if not all(isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in flat):
            raise LayoutTypeError(f"{what} must be an integer or an array of integers, got {type_name(value)}")
        big = [int(v) for v in flat if not -2**63 <= int(v) < 2**63]
        if big:
            raise LayoutError(f"{what} {number(big[0])} is outside the int64 range a layout addresses")
        arr = np.array([int(v) for v in flat], dtype=np.int64).reshape(arr.shape)
    if arr.size == 0 and arr.dtype.kind in "fiu":
        return arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise LayoutTypeError(f"{what} must be integers, got {arr.dtype}")
    return arr


def integer_array(value: Any, what: str) -> np.ndarray:
    """``value`` as int64, refusing non-integers and integers int64 cannot hold (never wrapping)."""
    arr = as_array(value, what)
    if arr.dtype.kind == "u" and arr.size and arr.max() > np.uint64(MAX_ELEMENTS):
        raise LayoutError(f"{what} {int(arr.max())} is outside the int64 range a layout addresses")
    return arr.astype(np.int64)


def coordinate(value: Any, key: str, axis: str, size: int) -> Any:
    """A coordinate along ``axis`` checked against ``0 <= value < size`` in its own type (a
    uint64 2**64 - 1 is reported as that, not as -1); an int, or an int64 array."""
    if isinstance(value, (bool, np.bool_)):
        raise LayoutTypeError(f"coordinate {key} must be an integer, got {type_name(value)}")
    if isinstance(value, (numbers.Integral, np.integer)):
        v = int(value)
        if not 0 <= v < size:
            raise LayoutError(f"coordinate {key}={number(v)} is out of range for axis {axis} of size {size} (expected 0 <= {key} < {size})")
        return v
    arr = as_array(value, f"coordinate {key}")
    limit = np.uint64(size) if arr.dtype.kind == "u" else np.int64(size)
    bad = (arr >= limit) if arr.dtype.kind == "u" else ((arr < 0) | (arr >= limit))
    if bad.any():
        pos = tuple(int(i) for i in np.argwhere(bad)[0])
        raise LayoutError(
            f"coordinate {key} has value {int(arr[pos])} at position {pos}, out of range for axis {axis} of size {size} "
            f"(expected 0 <= {key} < {size})"
        )
    return arr.astype(np.int64)


def check_broadcast(values: Mapping[str, Any]) -> None:
    """Refuse coordinate arrays that do not broadcast together, naming each one's shape."""
    shapes = {k: v.shape for k, v in values.items() if isinstance(v, np.ndarray)}
    if len(shapes) > 1:
        try:
            np.broadcast_shapes(*shapes.values())
        except ValueError:
            listed = ", ".join(f"{k} {v}" for k, v in shapes.items())
            raise LayoutError(f"coordinate arrays do not broadcast together: shapes {listed}") from None


def shape_tuple(shape: Any) -> tuple[int, ...]:
    """A physical shape as a tuple of non-negative ints (a LayoutTypeError for other kinds)."""
    if isinstance(shape, (numbers.Integral, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        items = tuple(shape)
    except TypeError as err:
        raise LayoutTypeError(f"shape must be a tuple of ints, got {type_name(shape)}") from err
    return tuple(check_size(f"shape[{i}]", n, "extent") for i, n in enumerate(items))


def numpy_max_dims() -> int:
    """The most dims numpy accepts (64 from numpy 2, 32 before)."""
    for n in (64, 32):
        try:
            np.empty((1,) * n)
            return n
        except ValueError:
            continue
    return 32  # pragma: no cover
