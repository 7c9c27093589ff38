"""CuTe's ``Layout``: a function from coordinates to offsets, ``Shape:Stride``, and the
operations that keep its function (``coalesce``, ``filter``, ``flatten``) or measure it.

>>> L = Layout((2, (2, 2)), (4, (1, 2)))
>>> print(L)
(2,(2,2)):(4,(1,2))
>>> L(1, (1, 0)), L(5), L.offsets().tolist()
(5, 6, [0, 4, 1, 5, 2, 6, 3, 7])
>>> print(coalesce(Layout((2, (1, 6)), (1, (6, 2)))))
12:1
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import LayoutError, LayoutTypeError, type_name
from ..hooks import service
from . import int_tuple as it
from .flat import bw_lists, flat_tuples
from .slicing import has_underscore, slice_parts
from .words import explain_text, formula_text

__all__ = ["Layout", "make_layout", "size", "cosize", "rank", "depth", "coalesce", "filter", "flatten",
           "slice_", "slice_and_offset"]


def _fmt(t: Any) -> str:
    if it.is_tuple(t):
        return "(" + ",".join(_fmt(e) for e in t) + ")"
    return str(t)


class Layout:
    """A CuTe layout ``Shape:Stride``: coordinate ``c`` maps to the inner product of ``c`` and
    the stride; a 1-D index is first split colexicographically (the first mode fastest).

    Parameters
    ----------
    shape : int or nested tuple of ints
        Sizes of the modes (each >= 0).
    stride : int or nested tuple of ints, optional
        Congruent with ``shape``. ``None`` gives CuTe's compact column-major stride (LayoutLeft):
        prefix products, leading size-1 modes stride 0
        (:func:`~layouts.cute.int_tuple.compact_col_major`).

    Examples
    --------
    >>> L = Layout((4, 2))
    >>> L.shape, L.stride, L(3, 1), L((3, 1))
    ((4, 2), (1, 4), 7, 7)
    >>> Layout((2, 3), (1, 2, 3))
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: Layout: shape (2, 3) and stride (1, 2, 3) are not congruent
    """

    __slots__ = ("_shape", "_stride", "_flat")

    def __init__(self, shape: Any, stride: Any = None) -> None:
        if isinstance(shape, Layout):
            raise LayoutTypeError("Layout: shape must be an int or a tuple of ints; use make_layout(A, B) to bundle layouts")
        shape = it.as_int_tuple(shape, "Layout: shape", minimum=0)
        if stride is None:
            stride = it.compact_col_major(shape)
        else:
            stride = it.as_int_tuple(stride, "Layout: stride")
            if not it.congruent(shape, stride):
                raise LayoutError(f"Layout: shape {shape} and stride {stride} are not congruent")
        self._shape = shape
        self._stride = stride
        self._flat = None

    @classmethod
    def _raw(cls, shape: Any, stride: Any) -> "Layout":
        obj = object.__new__(cls)
        obj._shape, obj._stride, obj._flat = shape, stride, None
        return obj

    @classmethod
    def from_layout(cls, layout: Any) -> "Layout":
        """The CuTe form of a :class:`layouts.Layout` (the same as ``layout.to_cute()``).

        >>> import layouts as ly
        >>> print(Layout.from_layout(ly.Layout("NCHW", N=2, C=3, H=4, W=5)))
        (2,3,4,5):(60,20,5,1)
        """
        from ..named.layout import Layout as NamedLayout
        if not isinstance(layout, NamedLayout):
            raise LayoutTypeError(f"Layout.from_layout: expected a layouts.Layout, got {type_name(layout)}")
        return layout.to_cute()

    @property
    def shape(self) -> Any:
        """The shape, a nested tuple (or an int)."""
        return self._shape

    @property
    def stride(self) -> Any:
        """The stride, congruent with :attr:`shape`."""
        return self._stride

    def __call__(self, *coords: Any) -> int:
        """The offset of a coordinate: an int index (colexicographic) or a tuple congruent with
        the shape at any level; several arguments are read as one tuple. A coordinate with ``_``
        gives the sub-layout of those modes instead (CuTe's slice: :mod:`layouts.cute.slicing`).

        A layout is a function on all the non-negative integers, as in CuTe C++: an index past the
        size, or a coordinate past its mode's size, goes on along the last mode it reaches.

        >>> Layout((2, 3), (3, 1))(1, 2), Layout((2, 3), (3, 1))(5)
        (5, 5)
        >>> Layout(4, 1)(6), Layout((2, 3), (3, 1))(6), Layout(1, 0)(1)
        (6, 3, 0)
        """
        if len(coords) == 1:
            crd = coords[0]
            if type(crd) is int and crd >= 0:      # an index, the common call: the flat modes, once
                shapes, strides = self._flat or flat_tuples(self)
                last = len(shapes) - 1
                total = 0
                for k in range(last):
                    n = shapes[k]
                    if n:
                        crd, c = divmod(crd, n)
                        total += c * strides[k]
                    else:                          # a size-0 mode holds no coordinate but 0
                        crd = 0
                return total + crd * strides[last]
        elif not coords:
            raise LayoutError("Layout(): give a coordinate, an int index or a tuple")
        else:
            crd = coords
        if type(crd) is not int and has_underscore(crd):  # L(_, 3): CuTe's slice, the sub-layout of the _ modes
            return slice_(crd, self)
        crd = it.as_int_tuple(crd, "coordinate")
        it.check_coord(crd, self._shape, self, bounded=False)
        return it.offset_of(crd, self._shape, self._stride)

    def __layouts_kind__(self) -> Any:
        """The answers of this layout to the protocol of :mod:`layouts.kinds`."""
        from .kind import CuteKind
        return CuteKind(self)

    def offsets(self) -> np.ndarray:
        """``L(i)`` for every ``i`` in ``range(size(L))``, as an int64 array.

        >>> Layout((2, 2), (2, 1)).offsets().tolist()
        [0, 2, 1, 3]
        """
        out = np.zeros(1, dtype=np.int64)
        shapes, strides = it.flatten(self._shape), it.flatten(self._stride)
        if not it.is_tuple(shapes):
            shapes, strides = (shapes,), (strides,)
        check_int64_offsets(shapes, strides, self)
        for s, d in zip(shapes, strides):
            if s > 1 and d:  # a size-1 or stride-0 mode adds 0 (its stride may not even fit int64)
                out = np.add.outer(np.arange(s, dtype=np.int64) * d, out).ravel()
            elif s != 1:
                out = np.broadcast_to(out, (s,) + out.shape).ravel() if s else out[:0]
        return out

    def __getitem__(self, i: int) -> "Layout":
        """Mode ``i`` as a layout (a rank-1 layout is its own mode 0); a coordinate with ``_``
        (``L[_, 3]``) slices as ``L(_, 3)`` does.

        >>> print(Layout((2, (3, 4)))[1])
        (3,4):(2,6)
        """
        if type(i) is not int and has_underscore(i):  # mode access by int is the hot path
            return slice_(i, self)
        if not it.is_tuple(self._shape):
            if i in (0, -1):
                return self
            raise LayoutError(f"layout {self} has one mode; mode {i} does not exist")
        if not it.is_int(i):
            raise LayoutTypeError(f"a mode index is an int, got {type_name(i)}")
        if not -len(self._shape) <= i < len(self._shape):
            raise LayoutError(f"layout {self} has {len(self._shape)} modes; mode {i} does not exist")
        return Layout._raw(self._shape[i], self._stride[i])

    def __len__(self) -> int:
        return it.rank(self._shape)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and self._shape == other._shape and self._stride == other._stride

    def __hash__(self) -> int:
        return hash((self._shape, self._stride))

    def __str__(self) -> str:
        return f"{_fmt(self._shape)}:{_fmt(self._stride)}"

    def __repr__(self) -> str:
        return f"Layout({self._shape!r}, {self._stride!r})"

    def size(self) -> int:
        """Elements of the domain.

        >>> Layout((2, (3, 4))).size()
        24
        """
        return it.product(self._shape)

    def cosize(self) -> int:
        """One past the offset of the last index, ``L(size - 1) + 1`` (0 for an empty layout).

        >>> Layout((2, 3), (3, 1)).cosize()
        6
        """
        return _cosize(self)

    def formula(self) -> str:
        """The offset as a formula of the coordinates (see :func:`layouts.cute.explain.formula`).

        >>> Layout((4, 8), (8, 1)).formula()
        'i0*8 + i1'
        """
        return formula_text(self, self, None)

    def explain(self) -> str:
        """Shape, stride, sizes and the offset formula, as :meth:`layouts.Layout.explain` writes them.

        >>> print(Layout(4, 3).explain().splitlines()[2])
          offset(i) = i*3
        """
        return explain_text(self, self, None)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        """Jupyter's display: the picture of :func:`layouts.viz.draw_cute` and the text."""
        return service("mimebundle")(self, include=include, exclude=exclude)


def _cosize(layout: Layout) -> int:
    if it.product(layout.shape) == 0:
        return 0
    shapes, strides = it.flatten(layout.shape), it.flatten(layout.stride)
    if not it.is_tuple(shapes):
        shapes, strides = (shapes,), (strides,)
    return sum((s - 1) * d for s, d in zip(shapes, strides)) + 1


INT64 = (-(1 << 63), (1 << 63) - 1)


def check_int64_offsets(shapes: Any, strides: Any, what: Any) -> None:
    """LayoutError unless every offset of the flat modes ``shapes``/``strides`` fits int64: the
    smallest and largest offsets, sums of ``(s - 1) * d`` over the negative and positive strides,
    computed exactly with Python ints (every partial sum lies between them)."""
    if any(s == 0 for s in shapes):
        return
    low = sum((s - 1) * d for s, d in zip(shapes, strides) if d < 0)
    high = sum((s - 1) * d for s, d in zip(shapes, strides) if d > 0)
    if low < INT64[0] or high > INT64[1]:
        raise LayoutError(f"the offsets of {what} do not fit int64 (they reach {low if low < INT64[0] else high}); "
                          f"call the layout for one exact offset, L(i)")


def slice_and_offset(crd: Any, layout: Layout) -> tuple:
    """``(sub-layout, offset)``: the modes ``crd`` marks ``_`` (or None) as a layout, and the
    offset its integer modes fix (CuTe's ``slice_and_offset``; :mod:`layouts.cute.slicing`).

    >>> from layouts.cute import _
    >>> L = Layout((4, 8), (1, 4))
    >>> sub, offset = slice_and_offset((_, 3), L)
    >>> print(sub, offset, L(_, 3) == L[_, 3] == sub)
    (4):(1) 12 True
    """
    layout = _as_layout(layout, "slice_and_offset: layout")
    shape, stride, offset = slice_parts(crd, layout.shape, layout.stride)
    return (Layout._raw(1, 0) if shape == () else Layout._raw(shape, stride)), offset


def slice_(crd: Any, layout: Layout) -> Layout:
    """The sub-layout of the modes ``crd`` marks ``_`` (CuTe's ``slice``, as ``layout(crd)``).

    >>> from layouts.cute import _
    >>> print(slice_((2, _), Layout((4, (2, 4)), (8, (1, 2)))))
    ((2,4)):((1,2))
    """
    return slice_and_offset(crd, layout)[0]


def _as_layout(x: Any, what: str) -> Layout:
    if isinstance(x, Layout):
        return x
    raise LayoutTypeError(f"{what} must be a layouts.cute.Layout, got {type_name(x)}")


def make_layout(*args: Any, stride: Any = None) -> Layout:
    """CuTe's ``make_layout``, both spellings: layouts bundled into one whose modes they are
    (``make_layout(A, B)``), or a shape and its stride (``make_layout((8, 8), (8, 1))``; without
    a stride, compact column-major as ``Layout(shape)``).

    >>> print(make_layout(Layout(4, 2), Layout((2, 2))))
    (4,(2,2)):(2,(1,2))
    >>> print(make_layout((8, 8), (8, 1)))
    (8,8):(8,1)
    >>> print(make_layout((2, (2, 2)), stride=(4, (1, 2))))
    (2,(2,2)):(4,(1,2))
    """
    if len(args) == 1 and isinstance(args[0], list):
        args = tuple(args[0])
    if len(args) == 1 and isinstance(args[0], tuple) and args[0] and all(isinstance(x, Layout) for x in args[0]):
        args = args[0]
    if args and all(isinstance(x, Layout) for x in args):
        if stride is not None:
            raise LayoutTypeError("make_layout: stride= goes with a shape (make_layout(shape, stride)), not with "
                                  "layouts to bundle")
        return Layout._raw(tuple(x.shape for x in args), tuple(x.stride for x in args))
    if not any(isinstance(x, Layout) for x in args) and 1 <= len(args) <= 2 and (len(args) == 1 or stride is None):
        return Layout(args[0], args[1] if len(args) == 2 else stride)
    got = ", ".join(type_name(x) for x in args) or "nothing"
    raise LayoutTypeError(f"make_layout takes layouts to bundle (make_layout(A, B): each a layouts.cute.Layout) or a "
                          f"shape and a stride (make_layout((8, 8), (8, 1)), or stride=); got {got}")


def size(x: Any) -> int:
    """Elements of the domain of a layout (or the product of an IntTuple).

    >>> size(Layout((2, (3, 4)))), size((2, 5))
    (24, 10)
    """
    if hasattr(x, "size") and callable(x.size):
        return x.size()
    return it.product(it.as_int_tuple(x, "size: argument", minimum=0))


def cosize(x: Any) -> int:
    """One past the offset of the last index, ``L(size(L) - 1) + 1`` (CuTe's ``cosize``; the
    largest offset + 1 when strides are non-negative).

    >>> cosize(Layout((2, 3), (3, 1))), cosize(Layout(4, 2))
    (6, 7)
    """
    if isinstance(x, Layout):
        return _cosize(x)
    if hasattr(x, "cosize") and callable(x.cosize):
        return x.cosize()
    raise LayoutTypeError(f"cosize: expected a layout, got {type_name(x)}")


def _shape_of(x: Any, where: str) -> Any:
    """The shape of a layout (plain or swizzled), or ``x`` itself read as an IntTuple."""
    if hasattr(x, "inner") and isinstance(getattr(x, "inner"), Layout):
        return x.inner.shape
    if isinstance(x, Layout):
        return x.shape
    return it.as_int_tuple(x, f"{where}: argument")


def rank(x: Any) -> int:
    """Number of top-level modes of a layout or IntTuple (1 for an int).

    >>> rank(Layout((2, (3, 4)))), rank(7)
    (2, 1)
    """
    return it.rank(_shape_of(x, "rank"))


def depth(x: Any) -> int:
    """Nesting depth of a layout's shape or of an IntTuple (0 for an int).

    >>> depth(Layout((2, (3, 4)))), depth(7)
    (2, 0)
    """
    return it.depth(_shape_of(x, "depth"))


def flatten(x: Any) -> Any:
    """A layout with every leaf mode at the top level (an IntTuple's leaves, for a tuple).

    >>> print(flatten(Layout((2, (3, 4)))))
    (2,3,4):(1,2,6)
    """
    if isinstance(x, Layout):
        return Layout._raw(it.flatten(x.shape), it.flatten(x.stride))
    return it.flatten(x)


def _flat_modes(layout: Layout) -> tuple[list[int], list[int]]:
    """The leaves of the shape and of the stride (new lists: callers may change them)."""
    shapes, strides = flat_tuples(layout)
    return list(shapes), list(strides)


def _bw_coalesce(shapes: Any, strides: Any, new_shape: int, new_stride: int) -> Layout:
    """CuTe's ``bw_coalesce``: walk the flat modes right to left from (new_shape, new_stride),
    dropping size-1 modes and merging a mode into the next when ``s * d`` is the next stride."""
    return _from_lists(*bw_lists(shapes, strides, new_shape, new_stride))


def _coalesced_modes(layout: Layout) -> tuple[list[int], list[int]]:
    """The flat modes of ``coalesce(layout)``, as lists, without building the layout."""
    shapes, strides = flat_tuples(layout)
    n = len(shapes) - 1
    ns, nd = bw_lists(shapes, strides, shapes[n], strides[n], n)
    return ([1], [0]) if len(ns) == 1 and ns[0] == 1 else (ns, nd)


def coalesce(layout: Layout, profile: Any = None) -> Layout:
    """The same function of the index with as few modes as possible (CuTe's ``coalesce``):
    size-1 modes go, a mode merges into the next when ``shape * stride`` is the next stride.
    With a tuple ``profile``, each mode it names is coalesced on its own.

    >>> print(coalesce(Layout((2, (1, 6)), (1, (6, 2)))))
    12:1
    >>> print(coalesce(Layout(((2, 2), (2, 2)), ((1, 2), (4, 8))), (1, 1)))
    (4,4):(1,4)
    """
    if type(layout) is Layout and profile is None:  # the hot path: no argument checks, no _from_lists
        shape = layout._shape
        if type(shape) is int:  # one mode: itself (a layout is a value), or 1:0 for size 1
            return layout if shape != 1 or layout._stride == 0 else Layout._raw(1, 0)
        flat = layout._flat
        shapes, strides = flat if flat is not None else flat_tuples(layout)
        n = len(shapes) - 1
        out_s, out_d = bw_lists(shapes, strides, shapes[n], strides[n], n)
        result = object.__new__(Layout)
        if len(out_s) == 1:
            cs = out_s[0]
            cd = 0 if cs == 1 else out_d[0]
            result._shape, result._stride, result._flat = cs, cd, ((cs,), (cd,))
            return result
        shape, stride = tuple(out_s), tuple(out_d)
        result._shape, result._stride, result._flat = shape, stride, (shape, stride)
        return result
    layout = _as_layout(layout, "coalesce: layout")
    if profile is not None:
        it.check_depth(profile, "coalesce: profile")
        if it.is_tuple(profile):
            return _by_profile(coalesce, "coalesce", layout, profile)
    shapes, strides = flat_tuples(layout)
    n = len(shapes) - 1
    return _from_lists(*bw_lists(shapes, strides, shapes[n], strides[n], n))


def _by_profile(op: Any, name: str, layout: Layout, profile: tuple) -> Layout:
    """``op`` (coalesce or filter) on each mode a tuple ``profile`` names, the other modes kept."""
    if len(profile) > len(layout):
        raise LayoutError(f"{name}: profile {profile} has more modes than layout {layout} ({len(layout)})")
    modes = [op(layout[i], p) for i, p in enumerate(profile)]
    modes += [layout[i] for i in range(len(profile), len(layout))]
    return make_layout(*modes)


def _from_lists(ns: list, nd: list) -> Layout:
    """The layout of the flat modes :func:`~layouts.cute.flat.bw_lists` gives (one mode: an int
    shape), its flat form kept."""
    result = object.__new__(Layout)
    if len(ns) == 1:
        shape, stride = ns[0], (nd[0] if ns[0] != 1 else 0)
        result._shape, result._stride, result._flat = shape, stride, ((shape,), (stride,))
    else:
        shape, stride = tuple(ns), tuple(nd)
        result._shape, result._stride, result._flat = shape, stride, (shape, stride)
    return result


def coalesce_x(layout: Layout) -> Layout:
    """``coalesce`` that keeps the function outside the domain too (CuTe's ``detail::coalesce_x``):
    the last mode's stride survives even when its size is 1, as composition needs.

    >>> str(coalesce(Layout((4, 1), (1, 0)))), str(coalesce_x(Layout((4, 1), (1, 0))))
    ('4:1', '(4,2):(1,0)')
    """
    shapes, strides = flat_tuples(layout)
    n = len(shapes) - 1
    last = 2 if shapes[n] == 1 else shapes[n]
    return _from_lists(*bw_lists(shapes, strides, last, strides[n], n))


def filter(layout: Layout, profile: Any = None) -> Layout:  # noqa: A001 - CuTe's name
    """``coalesce`` after removing every stride-0 mode (CuTe's ``filter``): the distinct offsets.

    >>> print(filter(Layout((2, 3, 2), (0, 1, 3))))
    6:1
    """
    layout = _as_layout(layout, "filter: layout")
    it.check_depth(profile, "filter: profile")
    if it.is_tuple(profile):
        return _by_profile(filter, "filter", layout, profile)

    shapes, strides = _flat_modes(layout)
    shapes = [1 if d == 0 else n for n, d in zip(shapes, strides)]  # a stride-0 mode as size 1: coalesce drops it
    return _bw_coalesce(shapes[:-1], strides[:-1], shapes[-1], strides[-1])
