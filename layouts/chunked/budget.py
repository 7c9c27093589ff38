"""``memory=`` budgets: ``"256MB"``, ``"1GiB"``, ``"64 kB"`` or an int of bytes.

Decimal units (kB/KB, MB, GB, TB) are powers of 1000, binary ones (KiB, MiB, GiB, TiB) powers
of 1024, as in the SI and IEC standards; the unit's case is not significant.

>>> parse_memory("256MB"), parse_memory("1GiB"), parse_memory(4096), parse_memory("1.5 kB")
(256000000, 1073741824, 4096, 1500)
>>> parse_memory("lots")
Traceback (most recent call last):
...
layouts.errors.LayoutError: memory='lots' is not a size: expected bytes as an int or a string such as '256MB' or '1GiB'
"""

from __future__ import annotations

import math
import numbers
import re

from ..errors import LayoutError, LayoutTypeError

_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
_PATTERN = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-zA-Z]*)\s*$")


def parse_memory(memory: object, name: str = "memory") -> int:
    """Bytes of a budget given as an int or a string with a unit; a LayoutError naming ``name``
    for anything else (zero, negative, a bool, an unknown unit)."""
    if isinstance(memory, bool) or not isinstance(memory, (numbers.Integral, str)):
        raise LayoutTypeError(f"{name} must be an int of bytes or a string such as '256MB', "
                        f"got {type(memory).__name__} {memory!r}")
    if isinstance(memory, numbers.Integral):
        value = int(memory)
    else:
        match = _PATTERN.match(memory)
        unit = match.group(2).lower() if match else None
        if match is None or unit not in _UNITS:
            raise LayoutError(f"{name}={memory!r} is not a size: expected bytes as an int or a string "
                              f"such as '256MB' or '1GiB'")
        value = math.floor(float(match.group(1)) * _UNITS[unit])
    if value <= 0:
        raise LayoutError(f"{name}={memory!r} must be a positive number of bytes")
    return value
