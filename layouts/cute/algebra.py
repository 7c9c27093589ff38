"""Composition, complement and the inverses of CuTe layouts (``cute/layout.hpp``), static integers.

>>> from layouts.cute import Layout
>>> print(composition(Layout((6, 2), (8, 2)), Layout((4, 3), (3, 1))))
((2,2),3):((24,2),8)
>>> print(complement(Layout(4, 2), 24))
(2,3):(1,8)
>>> print(right_inverse(Layout((4, 8), (8, 1))))
(8,4):(4,1)
"""

from __future__ import annotations

from typing import Any

from ..errors import LayoutError, LayoutTypeError, type_name
from . import int_tuple as it
from .flat import bw_lists, flat_tuples
from .layout import Layout, _as_layout, _bw_coalesce, _coalesced_modes, _flat_modes, _from_lists, coalesce, make_layout
from .swizzle import ComposedLayout, Swizzle

__all__ = ["composition", "complement", "right_inverse", "left_inverse"]


def composition(a: Any, b: Any) -> Any:
    """``A o B``: the layout ``i -> A(B(i))`` with ``B``'s shape (CuTe's ``composition``).

    Parameters
    ----------
    a : Layout or Swizzle or ComposedLayout
    b : Layout, int, None or tuple
        A layout; an int ``n`` means ``n:1``; ``None`` keeps ``a``; a tuple is a tiler applied
        mode by mode (modes of ``a`` past the tuple are dropped, as in CuTe).

    Raises
    ------
    LayoutError
        When the divisibility conditions fail (the result would not be a layout).

    Examples
    --------
    >>> from layouts.cute import Layout
    >>> print(composition(Layout(20, 2), Layout((5, 4), (4, 1))))
    (5,4):(8,2)
    >>> print(composition(Layout((12, 8)), (Layout(4, 3), 8)))
    (4,8):(3,12)
    >>> composition(Layout((6, 2), (1, 10)), Layout(4, 4))
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: composition of (6,2):(1,10) with 4:4: stride divisibility condition fails: stride 4 does not divide mode size 6 (nor the reverse) and 4 elements do not fit in it
    """
    if type(a) is Layout and type(b) is Layout:  # the hot path
        return _compose_layouts(a, b)
    it.check_depth(b, "composition: b")
    if isinstance(a, (Swizzle, ComposedLayout)):
        return _compose_swizzle(a, b)
    if not isinstance(a, Layout):
        raise LayoutTypeError(f"composition: a must be a layouts.cute.Layout or Swizzle, got {type_name(a)}")
    if b is None:
        return a
    if it.is_tuple(b):
        if len(b) > len(a):
            raise LayoutError(f"composition: tiler has {len(b)} modes, more than layout {a} ({len(a)})")
        return make_layout(*[composition(a[i], t) for i, t in enumerate(b)])
    if it.is_int(b):
        if b < 0:
            raise LayoutError(f"composition: an int tiler is a size >= 0, got {b}")
        b = Layout._raw(int(b), 1)
    if isinstance(b, (Swizzle, ComposedLayout)):
        raise LayoutTypeError("composition: a swizzle composes on the left, composition(Swizzle, Layout)")
    if not isinstance(b, Layout):
        raise LayoutTypeError(f"composition: b must be a Layout, an int, None or a tuple tiler, got {type_name(b)}")
    return _compose_layouts(a, b)


def _compose_layouts(a: Layout, b: Layout) -> Layout:
    """``A o B`` for two layouts, on the flat modes of ``coalesce_x(A)`` (CuTe's composition_impl)."""
    shapes, strides = flat_tuples(a)
    n = len(shapes) - 1
    ls, ld = bw_lists(shapes, strides, 2 if shapes[n] == 1 else shapes[n], strides[n], n)  # coalesce_x(A)
    reach: dict[int, int] = {}
    rshape, rstride = b._shape, b._stride
    if type(rshape) is int:
        shape, stride = _compose(ls, ld, rshape, rstride, (a, b), reach)
    else:
        shape, stride = _compose(ls, ld, rshape, rstride, (a, b), reach)
        for p, top in reach.items():
            # right-distributivity (A o (B0, B1) = (A o B0, A o B1)) holds only while the modes of B
            # add up without a carry in any mode of A but the last
            if top >= ls[p]:
                raise LayoutError(f"composition of {a} with {b}: the modes of B together reach {top} in mode "
                                  f"{ls[p]}:{ld[p]} of coalesce(A), so they carry into the next "
                                  "mode and A o B is not a layout")
    result = object.__new__(Layout)
    result._shape, result._stride, result._flat = shape, stride, None
    return result


def _compose(ls: list, ld: list, rshape: Any, rstride: Any, names: tuple, reach: dict) -> tuple:
    """(shape, stride) of ``A o (rshape:rstride)``, ``A`` given by the flat modes ``ls:ld`` of
    ``coalesce_x(A)``; ``reach`` collects how far B's modes go into each mode of A."""
    if type(rshape) is tuple:  # right-distributive over the modes of B
        parts = [_compose(ls, ld, s, d, names, reach) for s, d in zip(rshape, rstride)]
        return tuple(p[0] for p in parts), tuple(p[1] for p in parts)
    if rstride == 0:
        return rshape, 0
    if len(ls) == 1:
        return rshape, rstride * ld[0]
    fail = _failure(names)
    if rstride < 0:
        if rshape != 1:
            raise fail("a negative stride in B needs a layout A of one mode (after coalesce)")
        rstride = -rstride
    if 0 in ls[:-1]:
        # C++'s composition_impl divides B's stride by every mode of coalesce(A) but the last (a
        # static_assert for static shapes, a division by zero for dynamic ones): no result defined
        raise fail(f"a has a size-0 mode before the last mode of coalesce(a) = ({','.join(map(str, ls))}):"
                   f"({','.join(map(str, ld))}), and C++ divides B's stride {rstride} by it: no result is defined")
    shapes, strides = [], []
    rest_shape, rest_stride = rshape, rstride
    for p in range(len(ls) - 1):
        curr_shape, curr_stride = ls[p], ld[p]
        step = rest_stride
        # CuTe's weak condition lets rest_stride < curr_shape through unconditionally; that is
        # exact only when the rest of B stays inside this mode, so that is what is asked here.
        if not (step % curr_shape == 0 or curr_shape % step == 0 or (rest_shape - 1) * step < curr_shape):
            raise fail(f"stride divisibility condition fails: stride {step} does not divide mode size "
                       f"{curr_shape} (nor the reverse) and {rest_shape} elements do not fit in it")
        next_shape = -(-curr_shape // step)
        next_stride = -(-step // curr_shape)
        if next_shape != 1 and rest_shape != 1:
            new_shape = next_shape if next_shape < rest_shape else rest_shape
            if new_shape == 0:  # C++ computes rest_shape % 0 here: it defines no result either
                raise fail(f"b has a size-0 mode ({rshape}:{rstride}) reaching mode {curr_shape}:{curr_stride} of "
                           f"coalesce(a), and C++ splits it into runs of 0 elements: no result is defined")
            if rest_shape % new_shape:
                raise fail(f"shape divisibility condition fails: {rest_shape} elements do not split "
                           f"into whole runs of {new_shape}")
            shapes.append(new_shape)
            strides.append(rest_stride * curr_stride)
            reach[p] = reach.get(p, 0) + (new_shape - 1) * step
            rest_shape //= new_shape
            if rest_shape == 1:  # B is used up: the modes left change nothing the result keeps
                break
        rest_stride = next_stride
    if not shapes:
        return rest_shape, rest_stride * ld[-1]
    if rest_shape == 1:
        if len(shapes) == 1:
            return shapes[0], strides[0]
        return tuple(shapes), tuple(strides)
    shapes.append(rest_shape)
    strides.append(rest_stride * ld[-1])
    return tuple(shapes), tuple(strides)


def _failure(names: tuple):
    def fail(what: str) -> LayoutError:
        return LayoutError(f"composition of {names[0]} with {names[1]}: {what}")
    return fail


def complement(layout: Any, cotarget: Any = None) -> Layout:
    """The layout of the offsets ``layout`` skips, up to ``cotarget`` (CuTe's ``complement``):
    ordered, disjoint from ``layout``'s image except at 0, and ``make_layout(A, complement(A, M))``
    covers ``[0, M)`` when the strides divide.

    Parameters
    ----------
    layout : Layout or int
        Injective, non-negative strides (an int ``n`` means ``n:1``).
    cotarget : int or tuple, optional
        The size (or shape) of the codomain to fill; default ``cosize(filter(layout))``.

    Examples
    --------
    >>> from layouts.cute import Layout
    >>> print(complement(Layout((2, 2), (1, 6)), 24))
    (3,2):(2,12)
    >>> print(complement(Layout(4, 1), 24))
    6:4
    >>> complement(Layout((2, 2), (1, 1)))
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: complement of (2,2):(1,1): the layout is not injective (its modes overlap)
    """
    if type(layout) is Layout and (cotarget is None or (type(cotarget) is int and cotarget >= 0)):
        return _complement_flat(layout, cotarget)
    if it.is_int(layout):
        layout = Layout(int(layout))
    if not isinstance(layout, Layout):
        raise LayoutTypeError(f"complement: layout must be a layouts.cute.Layout, got {type_name(layout)}")
    shapes, strides = _flat_modes(layout)
    kept = [(n, d) for n, d in zip(shapes, strides) if n != 1 and d != 0]  # filter: what reaches offsets
    shapes, strides = ([n for n, _ in kept], [d for _, d in kept]) if kept else ([1], [0])
    if any(d < 0 for d in strides):
        raise LayoutError(f"complement of {layout}: negative strides have no complement")
    if 0 in shapes:  # as _complement_flat: C++ would divide the cotarget by a 0 reach
        raise LayoutError(f"complement of {layout}: a mode of size 0 has no offsets to complement")
    if cotarget is None:
        cotarget = sum((s - 1) * d for s, d in zip(shapes, strides)) + 1
    else:
        if isinstance(cotarget, Layout):
            cotarget = cotarget.shape
        cotarget = it.as_int_tuple(cotarget, "complement: cotarget", minimum=0)
    if strides == [0]:  # filter left 1:0
        return coalesce(Layout(it.product(cotarget)))
    modes = sorted(zip(strides, range(len(shapes)), shapes))  # stable: equal strides keep their order
    result_shape, result_stride = [], [1]
    for d, _, s in modes:
        new_shape = d // result_stride[-1]
        if new_shape == 0:
            raise LayoutError(f"complement of {layout}: the layout is not injective (its modes overlap)")
        result_shape.append(new_shape)
        result_stride.append(d * s)
    last = result_stride[-1]
    rest = it.ceil_div(cotarget, last)
    rest = it.product(rest)  # CuTe coalesces the static rest shape to one mode
    result_shape.append(rest)
    if rest == 1:
        result_stride[-1] = 0
    return _bw_coalesce(result_shape[:-1], result_stride[:-1], result_shape[-1], result_stride[-1])


def _complement_flat(layout: Layout, cotarget: Any) -> Layout:
    """``complement`` of a layout up to a cotarget that is None (the default), an int >= 0 or a
    flat tuple of them (a shape, divided mode by mode as CuTe's ``ceil_div``), in one pass over
    the layout's flat modes sorted by stride."""
    shapes, strides = flat_tuples(layout)
    result_shape, result_stride, current, reach = [], [], 1, 1
    for d, n in sorted(zip(strides, shapes)):  # equal strides overlap: refused whatever their order
        if n == 1 or d == 0:  # filter: only these modes reach offsets
            continue
        if d < 0:  # (sorted first)
            raise LayoutError(f"complement of {layout}: negative strides have no complement")
        if n == 0:
            raise LayoutError(f"complement of {layout}: a mode of size 0 has no offsets to complement")
        new_shape = d // current
        if new_shape == 0:
            raise LayoutError(f"complement of {layout}: the layout is not injective (its modes overlap)")
        if new_shape != 1:  # a size-1 gap: coalesce would drop it
            result_shape.append(new_shape)
            result_stride.append(current)
        reach += (n - 1) * d
        current = d * n
    # the rest up to the cotarget, one mode (CuTe coalesces the static rest shape)
    if type(cotarget) is tuple:  # a shape: ceil_div by mode, the divisor consumed left to right
        rest, divisor = 1, current
        for e in cotarget:
            rest *= -(-e // divisor)
            if e:
                divisor = -(-divisor // e)
    else:
        rest = -(-(reach if cotarget is None else cotarget) // current)
    if rest != 1:
        result_shape.append(rest)
        result_stride.append(current)
    k = len(result_shape) - 1
    if k <= 0:
        return Layout._raw(1, 0) if k < 0 else Layout._raw(result_shape[0], result_stride[0])
    return _from_lists(*bw_lists(result_shape, result_stride, result_shape[k], result_stride[k], k))


def right_inverse(layout: Any) -> Layout:
    """A layout ``R`` with ``layout(R(i)) == i`` for every ``i < size(R)``, as large as the
    contiguous offsets from 0 allow (CuTe's ``right_inverse``).

    Examples
    --------
    >>> from layouts.cute import Layout
    >>> print(right_inverse(Layout((4, 2), (0, 1))))
    2:4
    >>> print(right_inverse(Layout((2, 3), (3, 1))))
    (3,2):(2,1)
    """
    if layout is None:
        return None
    if it.is_int(layout):
        return Layout(int(layout))
    if isinstance(layout, Swizzle):
        return layout  # a swizzle is its own inverse
    if isinstance(layout, ComposedLayout):
        raise LayoutError("right_inverse of a swizzled layout is not a plain layout; invert its inner layout")
    if not isinstance(layout, Layout):
        raise LayoutTypeError(f"right_inverse: expected a layouts.cute.Layout, got {type_name(layout)}")
    shapes, strides = _coalesced_modes(layout)
    n = len(shapes)
    if n == 1:  # one mode s:d: itself when d is 1, else nothing past index 0
        return Layout._raw(shapes[0], 1) if strides[0] == 1 and shapes[0] != 1 else Layout._raw(1, 0)
    preprod, p = [], 1
    for s in shapes:
        preprod.append(p)
        p *= s
    # the chain of modes from stride 1, each next one's stride the span of those before: the
    # modes of a coalesced layout have size 0 or >= 2, so the span grows (or ends at 0) and each
    # stride is met once
    first = {}
    for i in range(n - 1, -1, -1):
        first[strides[i]] = i  # equal strides: the first mode, as a stable sort would take
    result_shape, result_stride, curr = [], [], 1
    i = first.get(1)
    while i is not None:
        result_shape.append(shapes[i])
        result_stride.append(preprod[i])
        curr *= shapes[i]
        i = first.get(curr) if curr else None  # after a mode of size 0 nothing is contiguous
    if not result_shape:
        return Layout._raw(1, 0)
    k = len(result_shape) - 1
    return _from_lists(*bw_lists(result_shape, result_stride, result_shape[k], result_stride[k], k))


def left_inverse(layout: Any) -> Layout:
    """A layout ``R`` with ``R(layout(i)) == i`` for every ``i`` when ``layout`` is injective
    (in general ``layout(R(layout(i))) == layout(i)``): CuTe's ``left_inverse``.

    Raises
    ------
    LayoutError
        When a stride does not divide by the span of the modes below it (CuTe's left-inverse
        divisibility condition).

    Examples
    --------
    >>> from layouts.cute import Layout
    >>> print(left_inverse(Layout((2, 4), (4, 1))))
    (4,2):(2,1)
    >>> print(left_inverse(Layout(4, 2)))
    (2,4):(0,1)
    >>> print(left_inverse(Layout(4, 0)))      # its codomain is one offset: so is the inverse's domain
    1:0
    """
    if layout is None:
        return None
    if it.is_int(layout):
        return Layout(int(layout))
    if isinstance(layout, Swizzle):
        return layout
    if isinstance(layout, ComposedLayout):
        raise LayoutError("left_inverse of a swizzled layout is not a plain layout; invert its inner layout")
    if not isinstance(layout, Layout):
        raise LayoutTypeError(f"left_inverse: expected a layouts.cute.Layout, got {type_name(layout)}")
    shapes, strides = flat_tuples(coalesce(layout))
    if any(d < 0 for d in strides):
        raise LayoutError(f"left_inverse of {layout}: negative strides are not supported")
    preprod = [1]
    for s in shapes:
        preprod.append(preprod[-1] * s)
    order = sorted(range(len(strides)), key=lambda i: strides[i])
    result_shape, result_stride, span = [], [0], 1
    for i in order:
        d = strides[i]
        if d == 0:
            continue
        if d % span:
            raise LayoutError(f"left_inverse of {layout}: stride {d} is not a multiple of {span}, the span "
                              "of the modes with smaller strides (left inverse divisibility condition)")
        result_shape.append(d // span)
        result_stride.append(preprod[i])
        span *= d // span
    moving = [i for i in order if strides[i] != 0]
    if not moving:  # every offset is 0: the codomain, and so the inverse's domain, is one element
        return Layout._raw(1, 0)
    result_shape.append(shapes[moving[-1]])
    return coalesce(Layout._raw(tuple(result_shape), tuple(result_stride)))


def max_common_layout(a: Any, b: Any) -> Layout:
    """The largest layout ``R`` of indices that ``a`` and ``b`` both map contiguously to the same
    offsets: ``a(R(i)) == b(R(i))`` and both step by 1 from ``R(0)`` (CuTe's
    ``max_common_layout``: ``composition(right_inverse(b), mode 0 of coalesce(a o right_inverse(b)))``
    when that mode has stride 1, else ``1:0``). The vector width two layouts share.

    >>> from layouts.cute import Layout
    >>> print(max_common_layout(Layout((4, 8), (1, 4)), Layout((4, 8), (1, 8))))
    4:1
    """
    a, b = _as_layout(a, "max_common_layout: a"), _as_layout(b, "max_common_layout: b")
    inv_b = right_inverse(b)
    common = coalesce(composition(a, inv_b))
    first = common[0]
    if it.is_int(first.shape) and first.stride == 1:
        return composition(inv_b, first)
    return Layout._raw(1, 0)


def max_common_vector(a: Any, b: Any) -> int:
    """How many consecutive elements ``a`` and ``b`` both store contiguously at the same offsets:
    the size of :func:`max_common_layout` (CuTe's ``max_common_vector``).

    >>> from layouts.cute import Layout
    >>> max_common_vector(Layout((4, 8), (1, 4)), Layout((4, 8), (1, 8))), max_common_vector(Layout(8), Layout(8, 2))
    (4, 1)
    """
    a, b = _as_layout(a, "max_common_vector: a"), _as_layout(b, "max_common_vector: b")
    common = coalesce(composition(a, right_inverse(b)))
    first = common[0]
    return int(first.shape) if it.is_int(first.shape) and first.stride == 1 else 1


def nullspace(layout: Any) -> Layout:
    """The indices ``layout`` maps to offset 0 through its stride-0 modes: a layout ``N`` with
    ``layout(N(i)) == 0`` for every ``i`` (CuTe's ``nullspace``: the stride-0 modes of the flat
    layout, with their compact column-major index strides; ``1:0`` when there are none).

    >>> from layouts.cute import Layout
    >>> print(nullspace(Layout((2, 4, 3), (0, 1, 0))))
    (2,3):(1,8)
    """
    layout = _as_layout(layout, "nullspace: layout")
    shapes, strides = _flat_modes(layout)
    index_strides = it.compact_col_major(tuple(shapes))
    index_strides = index_strides if it.is_tuple(index_strides) else (index_strides,)
    zero = [i for i, d in enumerate(strides) if d == 0]
    if not zero:
        return Layout._raw(1, 0)
    if len(zero) == 1:
        return Layout._raw(shapes[zero[0]], index_strides[zero[0]])
    return Layout._raw(tuple(shapes[i] for i in zero), tuple(index_strides[i] for i in zero))


def _compose_swizzle(a: Any, b: Any) -> Any:
    """``composition`` with a swizzle (or a swizzled layout) on the left.

    >>> print(_compose_swizzle(Swizzle(1, 0, 1), Layout(4)))
    Sw<1,0,1> o 0 o 4:1
    """
    if isinstance(a, Swizzle):
        if isinstance(b, Swizzle):
            raise LayoutTypeError("composition of two swizzles is not a layout; compose each with a Layout")
        if it.is_int(b):
            b = Layout._raw(int(b), 1)
        if not isinstance(b, Layout):
            raise LayoutTypeError(f"composition(Swizzle, b): b must be a layouts.cute.Layout, got {type_name(b)}")
        return ComposedLayout(a, 0, b)
    # (sw o off o A) o B = sw o off o (A o B)
    return ComposedLayout(a.outer, a.offset, composition(a.inner, b))
