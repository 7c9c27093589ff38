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

It also holds the one set of message helpers every part of the package (core, interop, viz)
uses, so a value is described alike everywhere and never crashes the message: :func:`number`
(an int of any size), :func:`show` (any value, short), :func:`type_name` / :func:`kind` (a
value and its type). The checks that raise them live in :mod:`layouts._args`.

>>> from layouts.errors import LayoutError, LayoutTypeError
>>> issubclass(LayoutError, ValueError), issubclass(LayoutTypeError, TypeError)
(True, True)
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np


class LayoutError(ValueError):
    """A spec, a size, a coordinate, an offset or an array that does not fit a layout."""


class LayoutTypeError(LayoutError, TypeError):
    """An argument of the wrong kind (a TypeError; also a LayoutError for callers that catch those)."""


class LayoutWarning(UserWarning):
    """A call that works but may not do what was meant (it says how to be explicit)."""


def number(value: Any) -> str:
    """An int for a message: in full, or its size when it is too long to print (Python refuses
    to turn ints of more than 4300 digits into text, and a message of thousands of digits helps
    nobody).

    >>> number(-12), number(10**4999), number(-10**5000)
    ('-12', 'an integer of about 5000 digits', 'a negative integer of about 5001 digits')
    """
    value = int(value)
    if abs(value).bit_length() <= 256:
        return str(value)
    digits = int(abs(value).bit_length() * 0.30103) + 1
    return f"{'a negative' if value < 0 else 'an'} integer of about {digits} digits"


def _is_int(value: Any) -> bool:
    """An integer argument: Python's, numpy's (anything ``numbers.Integral``), but not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def show(value: Any, _outer: bool = True) -> str:
    """A short text of ``value`` for a message, safe whatever it is: an int of any size
    (:func:`number`), a ``repr`` cut to 60 characters, ``<unprintable>`` for a failing ``repr``
    (a list or tuple whose ``repr`` fails, as one holding a huge int does, is shown item by item).

    >>> show("NCHW"), show(10**5000), show("x" * 100)[-5:], show([4, -10**5000])
    ("'NCHW'", 'an integer of about 5001 digits', 'xx...', '[4, a negative integer of about 5001 digits]')
    """
    try:
        text = number(value) if _is_int(value) else repr(value)
    except Exception:  # noqa: BLE001 - a hostile __repr__ must not hide the real message
        text = "<unprintable>"
        if _outer and type(value) in (list, tuple):
            items = ", ".join(show(v, False) for v in value[:4]) + (", ..." if len(value) > 4 else "")
            text = f"[{items}]" if type(value) is list else f"({items}{',' if len(value) == 1 else ''})"
    return text if len(text) <= 60 else text[:57] + "..."


def type_name(value: Any) -> str:
    """A short repr of ``value`` and its type, for messages: ``"[('H', 16)] (a list)"``."""
    name = type(value).__name__
    return f"{show(value)} ({'an' if name[:1] in 'aeiou' else 'a'} {name})"


def kind(value: Any) -> str:
    """The type and a short repr of ``value``, for messages: ``"str '3'"``."""
    return f"{type(value).__name__} {show(value)}"
