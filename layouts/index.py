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


class Index:
    """Coordinates by lower-case axis letter (``.n``, ``.c``...), plus ``padding``.

    Iterating yields the coordinates in canonical order (n, c, h, w for images). For an array of offsets
    each coordinate is an int64 array and ``padding`` a bool array.
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
        if isinstance(other, Index):
            return self._coords == other._coords
        if isinstance(other, Mapping):
            return self._coords == {k.lower(): v for k, v in other.items()}
        return NotImplemented

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={v!r}" for k, v in self._coords.items())
        return f"Index({body}{', padding=True' if self.padding is True else ''})"
