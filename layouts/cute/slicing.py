"""Slicing a layout as CuTe users write it: ``L(_, 3)``, ``L[_, 3]``, ``slice_and_offset``.

A coordinate with ``_`` (CuTe's ``Underscore``; ``None`` too, as the CuTe DSL spells it) in some
modes selects those modes whole: the result is the sub-layout of the ``_`` modes, and the
integer modes fix an offset. As in CuTe C++ (``slice`` over ``filter_tuple``), the kept modes
are gathered into one tuple, each ``_`` mode whole (``(4,8):(1,4)`` sliced ``(_, 3)`` is ``(4):(1)``,
at offset 12; ``(4,(2,4))`` sliced ``(_, (1, _))`` is ``(4,4)``).

>>> slice_parts((_, 3), (4, 8), (1, 4))
((4,), (1,), 12)
>>> slice_parts((2, _), (4, (2, 4)), (8, (1, 2)))
(((2, 4),), ((1, 2),), 16)
"""

from __future__ import annotations

from typing import Any

from ..errors import LayoutError, LayoutTypeError, type_name
from . import int_tuple as it

__all__ = ["Underscore", "_", "is_underscore", "has_underscore", "slice_parts"]


class Underscore:
    """CuTe's ``_``: take this mode whole."""

    _one = None

    def __new__(cls) -> "Underscore":
        if cls._one is None:
            cls._one = super().__new__(cls)
        return cls._one

    def __repr__(self) -> str:
        return "_"


_ = Underscore()


def is_underscore(x: Any) -> bool:
    return x is _ or x is None


def has_underscore(crd: Any) -> bool:
    """Whether ``crd`` holds ``_`` (or None) anywhere."""
    stack = [crd]
    while stack:
        v = stack.pop()
        if is_underscore(v):
            return True
        if isinstance(v, (tuple, list)):
            stack.extend(v)
    return False


def _check(crd: Any, shape: Any, where: str) -> Any:
    it.check_depth(crd, f"{where}: coordinate")
    if isinstance(crd, list):
        crd = tuple(crd)
    if is_underscore(crd):
        return _
    if isinstance(crd, tuple):
        if not it.is_tuple(shape) or len(crd) != len(shape):
            raise LayoutError(f"{where}: coordinate {_show(crd)} has {len(crd)} modes, shape {shape} has "
                              f"{it.rank(shape)}; a slice names each mode (an int, _ or a tuple)")
        return tuple(_check(c, s, where) for c, s in zip(crd, shape))
    if not it.is_int(crd):
        raise LayoutTypeError(f"{where}: a slice's entries are ints, _ (or None) or tuples, got {type_name(crd)}")
    n = it.product(shape)
    if not 0 <= int(crd) < n:
        raise LayoutError(f"{where}: coordinate {int(crd)} is out of range for mode {shape} (0 <= c < {n})")
    return int(crd)


def _show(crd: Any) -> str:
    return repr(crd).replace("Underscore()", "_")


def _kept(crd: Any, t: Any) -> tuple:
    """CuTe's ``lift_slice`` of an IntTuple ``t`` by ``crd``: the kept parts, concatenated by
    ``filter_tuple`` (a ``_`` keeps its part whole; a nested tuple adds its own kept parts)."""
    if crd is _:
        return (t,)
    if isinstance(crd, tuple):
        return tuple(x for c, e in zip(crd, t) for x in _kept(c, e))
    return ()


def _zeros(crd: Any, shape: Any) -> Any:
    """``crd`` with each ``_`` a zero congruent with its mode: a 0 for a tuple mode would be
    split by the mode sizes, and a size-0 sub-mode has none to split by."""
    if crd is _:
        return tuple(_zeros(_, m) for m in shape) if it.is_tuple(shape) else 0
    if isinstance(crd, tuple):
        return tuple(_zeros(c, s) for c, s in zip(crd, shape))
    return crd


def slice_parts(crd: Any, shape: Any, stride: Any) -> tuple:
    """``(shape, stride, offset)`` of the slice ``crd`` of the layout ``shape:stride``: the
    kept modes' shape and stride (``()`` when none is kept) and the offset the integer modes fix
    (CuTe's ``slice_and_offset``, on IntTuples; :func:`layouts.cute.slice_and_offset` makes it a
    layout)."""
    crd = _check(crd, shape, "slice")
    if crd is _:
        return shape, stride, 0
    return _kept(crd, shape), _kept(crd, stride), it.offset_of(_zeros(crd, shape), shape, stride)
