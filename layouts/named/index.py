"""``Index``: logical coordinates returned by :meth:`Layout.index`.

>>> from layouts import Layout
>>> i = Layout("NHWC", N=2, C=16, H=5, W=4).index(337)
>>> i.n, i.c, i.h, i.w
(1, 1, 0, 1)
>>> i.as_dict()
{'n': 1, 'c': 1, 'h': 0, 'w': 1}
>>> i.padding
False
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

import numpy as np


class Index:
    """Coordinates by lower-case axis letter (``.n``, ``.c``...), plus ``padding``.

    Iterating yields the coordinates in canonical order (n, c, h, w for images).

    One kind of input gives one kind of output, with either ``padding=`` mode:

    * an integer (a Python int or a numpy integer scalar): every coordinate is a Python ``int``
      and ``padding`` a Python ``bool``;
    * anything else (a list, an array, a 0-d array): every coordinate is an int64 array of the
      input's shape and ``padding`` a bool array of that shape.

    Padding slots (only with ``padding="mark"``) have every coordinate -1.
    """

    __slots__ = ("_axes", "_coords", "padding")

    def __init__(self, axes: tuple[str, ...], coords: Mapping[str, Any], padding: Any) -> None:
        self._axes = tuple(axes)
        self._coords = {a.lower(): coords[a] for a in self._axes}
        self.padding = padding

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # copy/pickle probe special names before __init__ has run
            raise AttributeError(name)
        try:
            return self._coords[name]
        except KeyError:
            raise AttributeError(f"no axis {name!r}: this index has {', '.join(self._coords)}") from None

    def __getitem__(self, key: str) -> Any:
        return self._coords[key.lower()]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._coords.values())

    def __len__(self) -> int:
        return len(self._coords)

    def __getstate__(self) -> tuple:
        return self._axes, self._coords, self.padding

    def __setstate__(self, state: tuple) -> None:
        self._axes, self._coords, self.padding = state

    def as_dict(self) -> dict[str, Any]:
        """Coordinates as ``{"n": ..., ...}``, ready for ``Layout.offset(**d)``."""
        return dict(self._coords)

    def __eq__(self, other: object) -> bool:
        """Same coordinates (compared as arrays for the array form) and, for two Index, same padding."""
        if isinstance(other, Index):
            return _same(self._coords, other._coords) and bool(np.array_equal(self.padding, other.padding))
        if isinstance(other, Mapping):
            return _same(self._coords, {str(k).lower(): v for k, v in other.items()})
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable arrays inside: not hashable

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={v!r}" for k, v in self._coords.items())
        return f"Index({body}{', padding=True' if self.padding is True else ''})"


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return a.keys() == b.keys() and all(
        type(a[k]) is type(b[k]) or isinstance(a[k], np.ndarray) == isinstance(b[k], np.ndarray)
        for k in a) and all(bool(np.array_equal(a[k], b[k])) for k in a)
