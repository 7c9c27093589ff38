"""Argument checks shared by the interop modules: a wrong kind of argument is a ``TypeError``, a
wrong value a :class:`~layouts.LayoutError`, and both name the argument and what was expected.

They run before anything reaches numpy, cv2, protobuf or torch, so none of those libraries' own
errors (or Python's int-conversion limits) leak out of a public function. ``int_arg``,
``str_arg``, ``kind`` and ``show_int`` are :mod:`layouts.errors`' (one set for the whole package).

>>> int_arg("cn", 3, lo=1)
3
>>> int_arg("cn", "3")
Traceback (most recent call last):
layouts.errors.LayoutTypeError: cn must be an int, got str '3'
>>> int_arg("cn", 0, lo=1, hi=128)
Traceback (most recent call last):
layouts.errors.LayoutError: cn is 0; expected 1..128
"""

from __future__ import annotations

import numbers
from typing import Any, Optional

import numpy as np

# The generic pieces (describe a value of any size, check an int or a str) are the core's, shared
# with the pictures; this module keeps only what the interop edges need besides.
from ..errors import LayoutError, LayoutTypeError, int_arg, kind, str_arg  # noqa: F401 - re-exported for the edges
from ..errors import number as show_int  # noqa: F401 - an int of any size, for messages


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
