"""The arithmetic of integer tuples that CuTe's algebra is written in, under CuTe's names (the
names pycute users call): ``inner_product``, ``shape_div``, ``prefix_product``, ``elem_scale``,
``crd2crd``, ``signum``, ``tuple_max``, ``shiftl``, ``shiftr``, and the ``Integer`` type to test
against. Each is written from what CuTe's documentation and ``cute/int_tuple.hpp`` say it
computes; pycute and the CuTe DSL judge them in the tests.

>>> inner_product((2, (3, 4)), (1, (10, 100)))
432
>>> shape_div((6, 4, 8), 12)           # 12 consumed left to right: 6, then 2 of the 4
(1, 2, 8)
>>> prefix_product((2, (3, 4)))
(1, (2, 6))
"""

from __future__ import annotations

import abc
from typing import Any

from ..errors import LayoutError, LayoutTypeError, type_name
from .int_tuple import as_int_tuple, idx2crd, crd2idx, is_int, is_tuple, product

__all__ = ["Integer", "inner_product", "shape_div", "prefix_product", "elem_scale", "crd2crd", "signum",
           "tuple_max", "shiftl", "shiftr"]


class Integer(abc.ABC):
    """The type of a CuTe integer, to test against: ``isinstance(4, Integer)`` is True for every
    int type, numpy's included (pycute's ``Integer`` says no to numpy's ints, which do not subclass
    ``int``), False for ``bool`` and ``float``.

    >>> import numpy as np
    >>> isinstance(4, Integer), isinstance(np.int32(4), Integer), isinstance(True, Integer), isinstance(4.0, Integer)
    (True, True, False, False)
    """

    @classmethod
    def __subclasshook__(cls, c: type) -> bool:
        import numbers
        return issubclass(c, numbers.Integral) and not issubclass(c, bool)


def _congruent_pairs(a: Any, b: Any, what: str) -> list:
    if len(a) != len(b):
        raise LayoutError(f"{what}: {a} has {len(a)} modes and {b} has {len(b)}; they must match")
    return list(zip(a, b))


def inner_product(a: Any, b: Any) -> int:
    """The sum of the products of matching leaves of two congruent IntTuples (the offset of
    coordinate ``a`` under stride ``b``).

    >>> inner_product(3, 4), inner_product((1, 2), (3, 4))
    (12, 11)
    """
    a, b = as_int_tuple(a, "inner_product: a"), as_int_tuple(b, "inner_product: b")

    def walk(x: Any, y: Any) -> int:
        if is_tuple(x) != is_tuple(y):
            raise LayoutError(f"inner_product: {a} and {b} are not congruent")
        if is_tuple(x):
            return sum(walk(u, v) for u, v in _congruent_pairs(x, y, "inner_product"))
        return x * y
    return walk(a, b)


def shape_div(a: Any, b: Any) -> Any:
    """The shape ``a`` divided by ``b``, as CuTe divides shapes: two ints divide exactly one way
    or the other (``b`` divides ``a``: ``a / b``; ``a`` divides ``b``: 1, or 0 for ``a == 0``);
    a tuple by an int divides its modes left to right, each taking what is left of the divisor;
    by a tuple, mode by mode; an int by a tuple, by the tuple's product.

    >>> shape_div(12, 4), shape_div(4, 12), shape_div((4, 6), (2, 3)), shape_div(8, (2, 2))
    (3, 1, (2, 2), 2)
    >>> shape_div(6, 4)
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: shape_div: neither of 6 and 4 divides the other
    """
    a, b = as_int_tuple(a, "shape_div: a", minimum=0), as_int_tuple(b, "shape_div: b", minimum=1)
    return _shape_div(a, b)


def _shape_div(a: Any, b: Any) -> Any:
    if is_tuple(a):
        if is_tuple(b):
            return tuple(_shape_div(x, y) for x, y in _congruent_pairs(a, b, "shape_div"))
        out = []
        for mode in a:                       # each mode takes what the modes before it left of b
            out.append(_shape_div(mode, b))
            b = _shape_div(b, product(mode)) if product(mode) else b
        return tuple(out)
    if is_tuple(b):
        return _shape_div(a, product(b))
    if a % b and b % a:
        raise LayoutError(f"shape_div: neither of {a} and {b} divides the other")
    quotient = a // b
    return quotient if quotient or a == 0 else 1


def prefix_product(a: Any, init: Any = 1) -> Any:
    """The exclusive prefix product of ``a``, congruent with it: each leaf is the product of the
    leaves before it, times ``init`` (CuTe's compact column-major stride, size-1 modes included).

    >>> prefix_product((2, 3, 4)), prefix_product((2, (3, 4)), 5), prefix_product(((2, 3), 4), (1, 7))
    ((1, 2, 6), (5, (10, 30)), ((1, 2), 7))
    """
    a, init = as_int_tuple(a, "prefix_product: a"), as_int_tuple(init, "prefix_product: init")
    return _prefix(a, init)


def _prefix(a: Any, init: Any) -> Any:
    if is_tuple(a):
        if is_tuple(init):
            return tuple(_prefix(x, i) for x, i in _congruent_pairs(a, init, "prefix_product"))
        out = []
        for mode in a:
            out.append(_prefix(mode, init))
            init = init * product(mode)
        return tuple(out)
    if is_tuple(init):
        raise LayoutError(f"prefix_product: an int {a} with a tuple init {init}")
    return init


def elem_scale(a: Any, b: Any) -> Any:
    """``a`` scaled by ``b``, mode by mode: an int leaf of ``a`` times the product of the part of
    ``b`` it meets (``b`` congruent with ``a`` down to ``a``'s leaves).

    >>> elem_scale(2, (3, 4)), elem_scale((2, 3), (4, (5, 6)))
    (24, (8, 90))
    """
    a, b = as_int_tuple(a, "elem_scale: a"), as_int_tuple(b, "elem_scale: b")
    return _elem_scale(a, b)


def _elem_scale(a: Any, b: Any) -> Any:
    if is_tuple(a):
        if not is_tuple(b):
            raise LayoutError(f"elem_scale: a tuple {a} scaled by an int {b}")
        return tuple(_elem_scale(x, y) for x, y in _congruent_pairs(a, b, "elem_scale"))
    return a * product(b)


def crd2crd(crd: Any, dst_shape: Any, src_shape: Any = None) -> Any:
    """Coordinate ``crd`` of ``src_shape`` as the coordinate of ``dst_shape`` naming the same
    element (both numbered colexicographically): mode by mode where both are tuples, an int
    index split over a tuple, a tuple coordinate read as its index in ``src_shape``.

    >>> crd2crd(5, (2, 3)), crd2crd((1, 2), 6, (2, 3)), crd2crd((1, 5), (2, (2, 3)))
    ((1, 2), 5, (1, (1, 2)))
    """
    crd = as_int_tuple(crd, "crd2crd: crd")
    dst_shape = as_int_tuple(dst_shape, "crd2crd: dst_shape", minimum=0)
    if src_shape is not None:
        src_shape = as_int_tuple(src_shape, "crd2crd: src_shape", minimum=0)
    return _crd2crd(crd, dst_shape, src_shape)


def _crd2crd(crd: Any, dst: Any, src: Any) -> Any:
    if is_tuple(crd):
        if is_tuple(dst):
            srcs = src if is_tuple(src) else (None,) * len(crd)
            return tuple(_crd2crd(c, d, s) for (c, d), s in zip(_congruent_pairs(crd, dst, "crd2crd"), srcs))
        if src is None:
            raise LayoutError(f"crd2crd: a tuple coordinate {crd} to an int shape {dst} needs its src_shape")
        return crd2idx(crd, src)
    if is_tuple(dst):
        return idx2crd(crd, dst)
    return crd


def signum(a: Any) -> int:
    """-1, 0 or 1: the sign of an int.

    >>> signum(-7), signum(0), signum(3)
    (-1, 0, 1)
    """
    if not is_int(a):
        raise LayoutTypeError(f"signum: a must be an int, got {type_name(a)}")
    return (a > 0) - (a < 0)


def tuple_max(a: Any) -> int:
    """The largest leaf of an IntTuple.

    >>> tuple_max((2, (7, 4)))
    7
    """
    a = as_int_tuple(a, "tuple_max: a")
    return max(_leaves_of(a)) if is_tuple(a) else a


def _leaves_of(a: Any) -> list:
    if not is_tuple(a):
        return [a]
    out: list = []
    for e in a:
        out += _leaves_of(e)
    if not out:
        raise LayoutError("tuple_max: an empty tuple has no largest leaf")
    return out


def shiftl(a: int, s: int) -> int:
    """``a`` shifted left by ``s`` bits (right by ``-s`` when ``s`` is negative), as CuTe's swizzle
    functors shift.

    >>> shiftl(3, 2), shiftl(12, -2)
    (12, 3)
    """
    a, s = _ints("shiftl", a, s)
    return a << s if s >= 0 else a >> -s


def shiftr(a: int, s: int) -> int:
    """``a`` shifted right by ``s`` bits (left by ``-s`` when ``s`` is negative).

    >>> shiftr(12, 2), shiftr(3, -2)
    (3, 12)
    """
    a, s = _ints("shiftr", a, s)
    return a >> s if s >= 0 else a << -s


def _ints(what: str, a: Any, s: Any) -> tuple[int, int]:
    for name, v in (("a", a), ("s", s)):
        if not is_int(v):
            raise LayoutTypeError(f"{what}: {name} must be an int, got {type_name(v)}")
    return int(a), int(s)
