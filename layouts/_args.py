"""The argument checks of the whole package, in one place: a wrong kind of argument is a
:class:`~layouts.errors.LayoutTypeError`, a wrong value a :class:`~layouts.errors.LayoutError`,
and both name the argument and what was expected. Integers are never wrapped, and any size is
reported safely.

- ints, strs, bools, real numbers, powers of two (:func:`int_arg`, :func:`str_arg`,
  :func:`bool_arg`, :func:`number_arg`, :func:`is_pow2`);
- arrays and dtypes (:func:`ndarray_arg`, :func:`numeric_array`, :func:`dtype_arg`,
  :func:`itemsize`) and numpy's limits (:data:`MAX_ELEMENTS`, :func:`numpy_max_dims`);
- what a framework layout is given: sizes, coordinates, shapes (:func:`check_size`,
  :func:`coordinate`, :func:`shape_tuple`).

A kind's own structures are checked by its package (a linear layout's bases in
:mod:`layouts.linear.args`), with these as its pieces.

>>> check_size("C", 16, "size")
16
>>> coordinate(np.array([0, 3]), "w", "W", 4).tolist()
[0, 3]
>>> int_arg("cn", 0, lo=1, hi=128)
Traceback (most recent call last):
layouts.errors.LayoutError: cn is 0; expected 1..128
"""

from __future__ import annotations

import numbers
from typing import Any, Mapping, Optional

import numpy as np

from .errors import LayoutError, LayoutTypeError, _is_int, kind, number, type_name

__all__ = ["MAX_ELEMENTS", "MAX_ENUMERATED", "numpy_max_dims", "check_size", "itemsize", "as_array", "integer_array",
           "coordinate", "check_broadcast", "shape_tuple", "int_arg", "str_arg", "bool_arg", "number_arg",
           "threads_arg", "ndarray_arg", "numeric_array", "dtype_arg", "is_pow2", "log2"]

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


def int_arg(name: str, value: Any, lo: Optional[int] = None, hi: Optional[int] = None, *,
            expected: Optional[str] = None, allow_none: bool = False) -> Optional[int]:
    """``value`` as a Python int, checked: a :class:`LayoutTypeError` unless it is an integer
    (bool is not), a :class:`LayoutError` outside ``lo..hi`` (either bound optional). Both name
    ``name`` and what was expected (``expected``, or the bounds); ``None`` passes when
    ``allow_none``. Any size is reported safely.

    >>> int_arg("cn", 3, lo=1)
    3
    >>> int_arg("cn", "3")
    Traceback (most recent call last):
    layouts.errors.LayoutTypeError: cn must be an int, got str '3'
    >>> int_arg("cn", -10**5000, lo=1, hi=128)
    Traceback (most recent call last):
    layouts.errors.LayoutError: cn is a negative integer of about 5001 digits; expected 1..128
    >>> int_arg("wrap", 0, lo=1, expected="a positive number of slots per row", allow_none=True)
    Traceback (most recent call last):
    layouts.errors.LayoutError: wrap is 0; expected a positive number of slots per row (or None for the default)
    """
    if value is None and allow_none:
        return None
    if not _is_int(value):
        raise LayoutTypeError(f"{name} must be {expected or 'an int'}{' or None' if allow_none else ''}, "
                              f"got {kind(value)}")
    value = int(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        if expected is None:
            expected = f">= {lo}" if hi is None else f"<= {hi}" if lo is None else f"{lo}..{hi}"
        raise LayoutError(f"{name} is {number(value)}; expected {expected}"
                          f"{' (or None for the default)' if allow_none else ''}")
    return value


def str_arg(name: str, value: Any, *, allow_none: bool = False) -> Optional[str]:
    """``value`` if it is a str (or ``None`` when ``allow_none``), else a :class:`LayoutTypeError`
    naming ``name``.

    >>> str_arg("title", 3, allow_none=True)
    Traceback (most recent call last):
    layouts.errors.LayoutTypeError: title must be a str or None, got int 3
    """
    if value is None and allow_none:
        return None
    if not isinstance(value, str):
        raise LayoutTypeError(f"{name} must be a str{' or None' if allow_none else ''}, got {kind(value)}")
    return value


def bool_arg(name: str, v: Any) -> bool:
    """True or False (numpy's too; the ints 0 and 1 as OpenCV's Python binding takes them)."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, numbers.Integral) and v in (0, 1):
        return bool(v)
    raise LayoutTypeError(f"{name} must be True or False, got {kind(v)}")


def number_arg(name: str, v: Any, finite: bool = True) -> float:
    """A real number (int or float, numpy scalars too), finite unless ``finite=False``."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
        raise LayoutTypeError(f"{name} must be a real number, got {kind(v)}")
    f = float(v)
    if finite and not np.isfinite(f):
        raise LayoutError(f"{name} is {f}; expected a finite number")
    return f


def threads_arg(v: Any) -> Optional[int]:
    """``None`` or a positive int (the core clamps the count)."""
    if v is None:
        return None
    return int_arg("threads", v, lo=1)


def ndarray_arg(name: str, v: Any) -> np.ndarray:
    if not isinstance(v, np.ndarray):
        raise LayoutTypeError(f"{name} must be a numpy array, got {type(v).__name__}")
    return v


def numeric_array(name: str, v: Any, kinds: str = "biuf") -> np.ndarray:
    """``np.asarray(v)`` of a numeric dtype (numpy kinds ``kinds``); strings, objects, lists of
    mixed things are refused with the dtype numpy saw."""
    if v is None or isinstance(v, (str, bytes, dict, set)):
        raise LayoutTypeError(f"{name} must be an array, got {type(v).__name__}")
    try:
        a = np.asarray(v)
    except (ValueError, TypeError) as exc:  # ragged nested lists and the like
        raise LayoutTypeError(f"{name} must be an array, got {type(v).__name__} that numpy cannot read "
                        f"as one ({exc})") from None
    if a.dtype.kind not in kinds:
        raise LayoutTypeError(f"{name} must hold real numbers (bool, int or float), got dtype {a.dtype}")
    return a


def dtype_arg(name: str, v: Any) -> np.dtype:
    """``np.dtype(v)``, with numpy's own failures for strings it cannot read (which include a
    SyntaxError for ``","``) turned into one TypeError naming the argument."""
    if isinstance(v, np.dtype):
        return v
    if not isinstance(v, (str, type)):
        raise LayoutTypeError(f"{name} must be a numpy dtype (np.float32, 'float32', ...), got {kind(v)}")
    try:
        return np.dtype(v)
    except Exception:  # noqa: BLE001 - TypeError, ValueError, SyntaxError from numpy's parser
        raise LayoutTypeError(f"{name} must be a numpy dtype (np.float32, 'float32', ...), got "
                        f"{kind(v)}") from None


def log2(size: int) -> int:
    """The exponent of a power of two.

    >>> log2(8)
    3
    """
    return size.bit_length() - 1


def is_pow2(n: Any) -> bool:
    """Is ``n`` an int (not a bool) and a power of two?

    >>> is_pow2(4), is_pow2(6), is_pow2(True)
    (True, False, False)
    """
    return isinstance(n, int) and not isinstance(n, bool) and n > 0 and n & (n - 1) == 0
