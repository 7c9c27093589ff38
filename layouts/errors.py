"""The exception and warning types of the package.

Every message names what was wrong (the argument, the axis, the value) and what was expected.
A layout is named by its spec in single quotes (``'NCHW16c'``), or by its repr
(``Layout('NCHW16c', N=1, C=20, H=5, W=4)``) where the sizes matter.

* :class:`LayoutError` (a ``ValueError``): a wrong value -- a spec, a size, a coordinate, an
  offset or an array that does not fit a layout.
* :class:`LayoutTypeError` (a ``TypeError`` and a ``LayoutError``): a wrong kind of argument
  (``align=[("H", 16)]`` where a mapping belongs, ``None`` where a spec belongs). It is both, so
  ``except TypeError`` and ``except LayoutError`` each catch it.
* :class:`LayoutWarning` (a ``UserWarning``): a call that works but may not do what was meant.

>>> from layouts.errors import LayoutError, LayoutTypeError
>>> issubclass(LayoutError, ValueError), issubclass(LayoutTypeError, TypeError)
(True, True)
"""

from __future__ import annotations

from typing import Any


class LayoutError(ValueError):
    """A spec, a size, a coordinate, an offset or an array that does not fit a layout."""


class LayoutTypeError(LayoutError, TypeError):
    """An argument of the wrong kind (a TypeError; also a LayoutError for callers that catch those)."""


class LayoutWarning(UserWarning):
    """A call that works but may not do what was meant (it says how to be explicit)."""


def number(value: int) -> str:
    """An int for a message: in full, or its size when it is too long to print (Python refuses
    to turn ints of more than 4300 digits into text)."""
    if abs(value).bit_length() <= 256:
        return str(value)
    return f"{'-' if value < 0 else ''}(a number of about {int(abs(value).bit_length() * 0.30103) + 1} digits)"


def type_name(value: Any) -> str:
    """A short repr of ``value`` and its type, for messages: ``"[('H', 16)] (a list)"``."""
    try:
        text = number(value) if isinstance(value, int) and not isinstance(value, bool) else repr(value)
    except Exception:  # noqa: BLE001 - a hostile __repr__ must not hide the real message
        text = "<unprintable>"
    if len(text) > 60:
        text = text[:57] + "..."
    name = type(value).__name__
    return f"{text} ({'an' if name[:1] in 'aeiou' else 'a'} {name})"
