"""Integer tuples, CuTe's shapes, strides and coordinates: an int or a tuple of them, nested.

The functions follow CuTe C++ (``cute/int_tuple.hpp`` and ``cute/stride.hpp``): ``crd2idx`` of a
1-D index does not wrap the last mode, ``idx2crd`` of a tuple index works mode by mode.

>>> crd2idx((1, (1, 0)), (2, (2, 2)), (4, (1, 2)))
5
>>> idx2crd(5, (2, (2, 2)))
(1, (0, 1))
>>> compact_col_major((2, 1, (3, 4)))
(1, 2, (2, 6))
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from ..errors import LayoutError, LayoutTypeError, type_name

__all__ = [
    "is_int", "is_tuple", "as_int_tuple", "product", "flatten", "rank", "depth", "congruent",
    "compact_col_major", "crd2idx", "idx2crd", "ceil_div", "check_coord",
]


def is_int(x: Any) -> bool:
    """True for a Python or numpy integer (not a bool).

    >>> is_int(3), is_int(True), is_int((3,))
    (True, False, False)
    """
    if type(x) is int:  # the common case, without the ABC check below
        return True
    return isinstance(x, numbers.Integral) and not isinstance(x, bool) and type(x).__name__ != "bool_"


def is_tuple(x: Any) -> bool:
    """True for a tuple (an IntTuple with modes).

    >>> is_tuple((1, 2)), is_tuple(3)
    (True, False)
    """
    return isinstance(x, tuple)


#: the deepest nesting an IntTuple or a tiler may have (CuTe's own layouts nest a few levels)
MAX_DEPTH = 64


def check_depth(x: Any, what: str) -> None:
    """LayoutError when ``x`` nests tuples (or lists) deeper than :data:`MAX_DEPTH`; walked
    without recursion, so any depth is measured, not a RecursionError."""
    if not isinstance(x, (tuple, list)):
        return
    stack = [(x, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (tuple, list)):
            if d >= MAX_DEPTH:
                raise LayoutError(f"{what} nests tuples more than {MAX_DEPTH} deep; a layout's modes nest a few "
                                  f"levels (layouts.cute.int_tuple.MAX_DEPTH)")
            stack.extend((e, d + 1) for e in v)


def as_int_tuple(x: Any, what: str, *, minimum: int | None = None) -> Any:
    """``x`` as an IntTuple of Python ints (lists read as tuples), or a LayoutTypeError /
    LayoutError naming ``what``; ``minimum`` bounds every leaf.

    >>> as_int_tuple([2, (3, 4)], "shape", minimum=0)
    (2, (3, 4))
    >>> as_int_tuple((2, -1), "shape", minimum=0)
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: shape (2, -1): every entry must be an integer >= 0, got -1
    """
    if type(x) is int and (minimum is None or x >= minimum):  # an int: nothing to walk
        return x

    def walk(v: Any) -> Any:
        if isinstance(v, (tuple, list)):
            return tuple(walk(e) for e in v)
        if not is_int(v):
            raise LayoutTypeError(f"{what} {_show(x)}: entries must be integers or tuples of them, got {type_name(v)}")
        v = int(v)
        if minimum is not None and v < minimum:
            raise LayoutError(f"{what} {_show(x)}: every entry must be an integer >= {minimum}, got {v}")
        return v
    check_depth(x, what)
    return walk(x)


def _show(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


def product(t: Any) -> int:
    """The product of every leaf (1 for an empty tuple).

    >>> product((2, (3, 4)))
    24
    """
    if is_tuple(t):
        return math.prod(product(e) for e in t)
    return t


def flatten(t: Any) -> Any:
    """The leaves of ``t`` as a flat tuple; an int stays an int.

    >>> flatten((2, (3, (4, 5)))), flatten(7)
    ((2, 3, 4, 5), 7)
    """
    if not isinstance(t, tuple):
        return t
    for e in t:
        if isinstance(e, tuple):
            break
    else:  # already flat: the common case, no copy
        return t
    out: list = []
    _leaves(t, out)
    return tuple(out)


def _leaves(t: tuple, out: list) -> None:
    for e in t:
        if isinstance(e, tuple):
            _leaves(e, out)
        else:
            out.append(e)


def rank(t: Any) -> int:
    """Number of top-level modes: 1 for an int.

    >>> rank((2, (3, 4))), rank(5)
    (2, 1)
    """
    return len(t) if is_tuple(t) else 1


def depth(t: Any) -> int:
    """Nesting depth: 0 for an int, 1 for a flat tuple.

    >>> depth(4), depth((2, 3)), depth((2, (3, 4)))
    (0, 1, 2)
    """
    if is_tuple(t):
        return 1 + max((depth(e) for e in t), default=0)
    return 0


def congruent(a: Any, b: Any) -> bool:
    """True when ``a`` and ``b`` have the same tuple structure.

    >>> congruent((2, (3, 4)), (1, (5, 6))), congruent((2, 3), (2, (3, 1)))
    (True, False)
    """
    if is_tuple(a) and is_tuple(b):
        return len(a) == len(b) and all(congruent(x, y) for x, y in zip(a, b))
    return not is_tuple(a) and not is_tuple(b)


def compact_col_major(shape: Any, current: int = 1) -> Any:
    """The compact column-major stride (CuTe's ``LayoutLeft``): exclusive prefix products, with
    stride 0 for the size-1 modes before the first larger one.

    CuTe's static integers give every size-1 mode stride 0, its dynamic ones none; pycute gives
    none and tensor-layouts the leading ones. A size-1 mode's stride never changes an offset; this
    is the form both references agree on, and CuTe's where they differ.

    >>> compact_col_major((4, (2, 3)))
    (1, (4, 8))
    >>> compact_col_major((1, (1, 4), 1))
    (0, (0, 1), 4)
    """
    leading = [True]

    def walk(s: Any, cur: int) -> tuple[Any, int]:
        if is_tuple(s):
            out = []
            for e in s:
                d, cur = walk(e, cur)
                out.append(d)
            return tuple(out), cur
        if s != 1:
            leading[0] = False
            return cur, cur * s
        return (0 if leading[0] else cur), cur
    return walk(shape, current)[0]


def crd2idx(crd: Any, shape: Any, stride: Any = None) -> int:
    """The index of coordinate ``crd`` in ``shape`` with ``stride`` (CuTe's ``crd2idx``).

    Without a stride the compact column-major stride is used, so the result is the
    colexicographic number of the coordinate. An int coordinate against a tuple mode is split
    across that mode's sub-modes (the last one is not wrapped), and a coordinate past its mode's
    size is evaluated, as in CuTe.

    >>> crd2idx((1, 2), (2, 3)), crd2idx(5, (2, 3), (3, 1)), crd2idx(7, (2, 3))
    (5, 5, 7)
    >>> crd2idx((1, 2, 3), (2, 3))
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: crd2idx: coordinate (1, 2, 3) has 3 modes where shape (2, 3) has 2
    """
    shape = as_int_tuple(shape, "shape", minimum=0)
    stride = compact_col_major(shape) if stride is None else as_int_tuple(stride, "stride")
    if not congruent(shape, stride):
        raise LayoutError(f"crd2idx: shape {shape} and stride {stride} are not congruent")
    crd = as_int_tuple(crd, "coordinate")
    check_coord(crd, shape, "crd2idx", bounded=False)
    return offset_of(crd, shape, stride)


def offset_of(crd: Any, shape: Any, stride: Any) -> int:
    """``crd2idx`` without checks: the algebra also evaluates a layout past its size (the last
    mode extends, as in CuTe).

    >>> offset_of(7, (2, 3), (1, 2))   # index 7 of a size-6 layout: the last mode goes on
    7
    """
    if is_tuple(crd):
        return sum(offset_of(c, s, d) for c, s, d in zip(crd, shape, stride))
    if is_tuple(shape):
        total = 0
        last = len(shape) - 1
        for k, (s, d) in enumerate(zip(shape, stride)):
            if k == last:
                return total + offset_of(crd, s, d)
            n = product(s)
            total += offset_of(crd % n, s, d)
            crd //= n
        return total
    return crd * stride


def check_coord(crd: Any, shape: Any, where: Any, bounded: bool = True) -> None:
    """LayoutError unless ``crd`` is a coordinate of ``shape``: congruent down to some level,
    every int ``>= 0`` and, when ``bounded``, inside the size of the mode it indexes (a layout
    evaluates any coordinate, as CuTe does: ``bounded=False``). ``where`` names the caller in a
    message (its ``str`` is taken only for one).

    >>> check_coord((1, 5), (2, (2, 3)), "here")
    >>> check_coord((1, 6), (2, (2, 3)), "here", bounded=False)
    >>> check_coord((1, 6), (2, (2, 3)), "here")
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: here: coordinate 6 is out of range for mode (2, 3) of shape (2, (2, 3)) (expected 0 <= 6 < 6)
    """
    def walk(c: Any, s: Any) -> None:
        if is_tuple(c):
            if not is_tuple(s):
                raise LayoutError(f"{where}: coordinate {_show(crd)} is a tuple where shape {s} is an int")
            if len(c) != len(s):
                raise LayoutError(f"{where}: coordinate {_show(crd)} has {len(c)} modes where shape {s} has {len(s)}")
            for x, y in zip(c, s):
                walk(x, y)
        elif c < 0:
            raise LayoutError(f"{where}: coordinate {c} is negative; a layout maps the integers >= 0")
        elif bounded and not c < product(s):
            raise LayoutError(f"{where}: coordinate {c} is out of range for mode {s} of shape {_show(shape)} "
                              f"(expected 0 <= {c} < {product(s)})")
    walk(crd, shape)


def idx2crd(idx: Any, shape: Any, stride: Any = None) -> Any:
    """The coordinate of index ``idx`` in ``shape`` (CuTe's ``idx2crd``): each leaf is
    ``(idx // stride) % shape``, with the compact column-major stride by default. A tuple index
    is split mode by mode (each of its ints indexes its own mode).

    >>> idx2crd(7, (2, (2, 3)))
    (1, (1, 1))
    >>> idx2crd((1, 5), (2, (2, 3)))
    (1, (1, 2))
    >>> idx2crd(5, (4, 2), (2, 1))
    (2, 1)
    """
    shape = as_int_tuple(shape, "shape", minimum=0)
    idx = as_int_tuple(idx, "index")
    if stride is not None:
        stride = as_int_tuple(stride, "stride")
        if is_tuple(stride) and not congruent(shape, stride):
            raise LayoutError(f"idx2crd: shape {shape} and stride {stride} are not congruent")
    if stride is None:
        check_coord(idx, shape, "idx2crd")
    return _idx2crd(idx, shape, stride)


def _idx2crd(idx: Any, shape: Any, stride: Any) -> Any:
    if is_tuple(idx):
        if not is_tuple(shape) or len(idx) != len(shape):
            raise LayoutError(f"idx2crd: index {_show(idx)} does not match the modes of shape {shape}")
        if stride is None or not is_tuple(stride):
            return tuple(_idx2crd(i, s, None if stride is None else compact_col_major(s, stride))
                         for i, s in zip(idx, shape))
        return tuple(_idx2crd(i, s, d) for i, s, d in zip(idx, shape, stride))
    if is_tuple(shape):
        if stride is None or not is_tuple(stride):
            stride = compact_col_major(shape, 1 if stride is None else stride)
        return tuple(_idx2crd(idx, s, d) for s, d in zip(shape, stride))
    if stride is None:
        return idx
    if shape == 1:
        return 0
    if stride == 0:
        raise LayoutError(f"idx2crd: a mode of size {shape} with stride 0 has no coordinate for an index")
    return (idx // stride) % shape


def ceil_div(a: Any, b: int) -> Any:
    """CuTe's ``ceil_div`` of an IntTuple by an int: mode by mode, the divisor consumed left to right.

    >>> ceil_div(10, 4), ceil_div((4, 6), 8), ceil_div((3, 5), 2)
    (3, (1, 3), (2, 5))
    """
    if is_tuple(a):
        out = []
        for e in a:
            out.append(ceil_div(e, b))
            b = -(-b // product(e)) if product(e) else b
        return tuple(out)
    return -(-a // b)
