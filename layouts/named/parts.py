"""What the :class:`~layouts.Layout`'s mixins (:mod:`.inverse`, :mod:`.describe`) read of the
layout they are part of, declared once for type checkers (at run time the base is empty)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["LayoutParts"]


class LayoutParts:
    """The base of the Layout's mixins: the slots and properties they read, for type checkers."""

    __slots__ = ()

    if TYPE_CHECKING:
        _spec: Any
        _dims: dict[str, int]
        _block_sizes: tuple[int, ...]
        _shape: tuple[int, ...]
        _strides: tuple[int, ...]

        @property
        def spec(self) -> str: ...
        @property
        def parsed(self) -> Any: ...
        @property
        def axes(self) -> tuple[str, ...]: ...
        @property
        def dims(self) -> dict[str, int]: ...
        @property
        def padded_dims(self) -> dict[str, int]: ...
        @property
        def shape(self) -> tuple[int, ...]: ...
        @property
        def stride_tuple(self) -> tuple[int, ...]: ...
        @property
        def size(self) -> int: ...
        @property
        def count(self) -> int: ...
        @property
        def dim_names(self) -> tuple[str, ...]: ...
        @property
        def strides(self) -> dict[str, int]: ...
        @property
        def align(self) -> dict[str, int]: ...
        @property
        def pitch(self) -> dict[str, int]: ...
        def index(self, offset: Any, *, padding: str = "raise") -> Any: ...
        def formula(self, numeric: bool = False) -> str: ...
