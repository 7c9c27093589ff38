"""Composition, complement and the inverses of CuTe layouts, with static (Python int) sizes.

A layout is a function from an index to an offset; each operation here is derived from its
definition as a function (CUTLASS's CuTe documentation, ``media/docs/cpp/cute/02_layout_algebra.md``,
and the CuTe whitepaper, arXiv 2603.02298). pycute, the CuTe DSL and recorded CuTe C++ output
judge the results in the tests.

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
from .layout import Layout, _as_layout, _coalesced_modes, _flat_modes, _from_lists, coalesce, make_layout
from .swizzle import ComposedLayout, Swizzle

__all__ = ["composition", "complement", "right_inverse", "left_inverse"]


def composition(a: Any, b: Any) -> Any:
    """``A o B``: the layout ``i -> A(B(i))`` with ``B``'s shape (CuTe's ``composition``; its
    definition and divisibility conditions: ``02_layout_algebra.md``, "Composition").

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
    """``A o B`` for two layouts: each integer mode of ``B`` placed on the flat modes of
    ``coalesce(A)`` by :func:`_compose_mode`; ``B``'s nesting kept."""
    shapes, strides = flat_tuples(a)
    last = len(shapes) - 1
    # A extends past its size along its last mode, so that mode's stride counts even when its
    # size is 1: given any size but 1, coalescing keeps it (its size is never read)
    a_sizes, a_strides = bw_lists(shapes, strides, shapes[last] if shapes[last] != 1 else 2, strides[last], last)
    spans: dict[int, int] = {}
    shape, stride = _compose_modes(a_sizes, a_strides, b._shape, b._stride, (a, b), spans)
    for p, top in spans.items():
        # A o (B0, B1) = (A o B0, A o B1) only while the modes of B together stay inside each
        # mode of A but the last: past it the index carries into the next mode
        if top >= a_sizes[p]:
            raise LayoutError(f"composition of {a} with {b}: the modes of B together reach {top} in mode "
                              f"{a_sizes[p]}:{a_strides[p]} of coalesce(A), so they carry into the next "
                              "mode and A o B is not a layout")
    result = object.__new__(Layout)
    result._shape, result._stride, result._flat = shape, stride, None
    return result


def _compose_modes(a_sizes: list, a_strides: list, b_shape: Any, b_stride: Any, names: tuple, spans: dict) -> tuple:
    """(shape, stride) of ``A o (b_shape:b_stride)``, mode by mode of ``B`` (composition is
    right-distributive over the modes of ``B``), ``A`` given by its coalesced flat modes."""
    if type(b_shape) is tuple:
        parts = [_compose_modes(a_sizes, a_strides, s, d, names, spans) for s, d in zip(b_shape, b_stride)]
        return tuple(p[0] for p in parts), tuple(p[1] for p in parts)
    return _compose_mode(a_sizes, a_strides, b_shape, b_stride, names, spans)


def _compose_mode(a_sizes: list, a_strides: list, size: int, stride: int, names: tuple, spans: dict) -> tuple:
    """(shape, stride) of ``A o (size:stride)``: the layout ``i -> A(stride * i)``, ``i < size``.

    CuTe's layout algebra documentation (``02_layout_algebra.md``, "Composition") and the
    whitepaper (arXiv 2603.02298) build it on the flat modes of ``coalesce(A)``, read as a mixed
    radix of A's index. The indices ``0, stride, 2*stride, ...`` are placed by

    * *shape division* by the stride: a leading mode whose size divides the stride only ever
      sees digit 0 (each step moves past it whole), so it is skipped and the step, counted in
      units of the next mode, shrinks by its size;
    * then the first mode the step lands inside takes ``ceil(m / step)`` digit values spaced
      ``step`` apart, each later mode its ``m`` values at unit spacing, and *shape modulo*
      ``size`` takes as many as ``size`` needs from these, in order;
    * what is left runs on along A's last mode, which extends past its size.

    The divisibility conditions make the result a layout: each skipped or entered mode and the
    step divide one another (or all of ``size`` fits inside the entered mode), and each take
    divides what is left of ``size``. ``spans`` gathers, per mode of A, how far B reaches in it.
    """
    if stride == 0:
        return size, 0
    if len(a_sizes) == 1:  # A is i -> i * d: no mode to carry into
        return size, stride * a_strides[0]
    if stride < 0:
        if size != 1:
            raise _refusal(names, "a negative stride in B needs a layout A of one mode (after coalesce)")
        stride = -stride
    inner = len(a_sizes) - 1
    if 0 in a_sizes[:inner]:
        sizes_text, strides_text = ",".join(map(str, a_sizes)), ",".join(map(str, a_strides))
        raise _refusal(names, f"a has a size-0 mode before the last mode of coalesce(a) = "
                              f"({sizes_text}):({strides_text}), and shape division of B's stride {stride} "
                              "by a size 0 is undefined: no result is defined")
    entered, step = _divide_shape(a_sizes, stride, size, names)
    if entered == inner:  # the step passed every mode but the last
        return size, step * a_strides[inner]
    if size == 0:
        raise _refusal(names, f"b has a size-0 mode ({size}:{stride}) reaching mode {a_sizes[entered]}:"
                              f"{a_strides[entered]} of coalesce(a), and its elements cannot be split into "
                              "runs of 0: no result is defined")
    return _take_shape(a_sizes, a_strides, entered, step, size, names, spans)


def _divide_shape(a_sizes: list, step: int, size: int, names: tuple) -> tuple[int, int]:
    """The first mode of A (but the last) that the index step lands inside, and the step in
    units of that mode, after checking that each mode before it divides the step (it need not
    when B has at most one element to place: the step is then rounded up)."""
    inner = len(a_sizes) - 1
    p = 0
    while p < inner and step >= a_sizes[p]:
        if step % a_sizes[p] and size > 1:
            raise _refusal(names, _stride_condition(step, a_sizes[p], size))
        step = -(-step // a_sizes[p])
        p += 1
    if p < inner and a_sizes[p] % step and (size - 1) * step >= a_sizes[p]:
        raise _refusal(names, _stride_condition(step, a_sizes[p], size))
    return p, step


def _take_shape(a_sizes: list, a_strides: list, entered: int, step: int, size: int, names: tuple,
                spans: dict) -> tuple:
    """Shape modulo: ``size`` (>= 1) elements taken in order from the digits B reaches (the
    entered mode's ``ceil(m / step)`` values spaced ``step``, then each later mode's values at
    unit spacing), each take a divisor of what is left, the rest on A's last mode."""
    taken_sizes, taken_strides = [], []
    left = size
    values, spacing = -(-a_sizes[entered] // step), step
    for p in range(entered, len(a_sizes) - 1):
        if left == 1:
            break
        if p != entered:
            values, spacing = a_sizes[p], 1
        take = values if values < left else left
        if left % take:
            raise _refusal(names, f"shape divisibility condition fails: {left} elements do not split "
                                  f"into whole runs of {take}")
        taken_sizes.append(take)
        taken_strides.append(spacing * a_strides[p])
        spans[p] = spans.get(p, 0) + (take - 1) * spacing
        left //= take
    if not taken_sizes:
        return left, a_strides[-1]
    if left != 1:
        taken_sizes.append(left)
        taken_strides.append(a_strides[-1])
    if len(taken_sizes) == 1:
        return taken_sizes[0], taken_strides[0]
    return tuple(taken_sizes), tuple(taken_strides)


def _stride_condition(step: int, mode_size: int, size: int) -> str:
    return (f"stride divisibility condition fails: stride {step} does not divide mode size "
            f"{mode_size} (nor the reverse) and {size} elements do not fit in it")


def _refusal(names: tuple, what: str) -> LayoutError:
    return LayoutError(f"composition of {names[0]} with {names[1]}: {what}")


def complement(layout: Any, cotarget: Any = None) -> Layout:
    """The layout of the offsets ``layout`` skips, up to ``cotarget`` (CuTe's ``complement``,
    ``02_layout_algebra.md``, "Complement"): ordered (its strides increase), disjoint from
    ``layout``'s image except at 0, and ``make_layout(A, complement(A, M))`` covers ``[0, M)``
    when the strides divide. The rest past ``layout``'s image is one mode, as CuTe returns it.

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
    gaps = _complement_gaps(layout)  # the layout's own refusals before the cotarget's
    if cotarget is not None:
        if isinstance(cotarget, Layout):
            cotarget = cotarget.shape
        cotarget = it.as_int_tuple(cotarget, "complement: cotarget", minimum=0)
        if it.is_tuple(cotarget):
            # the rest is one mode of size prod(ceil_div(cotarget, covered)): a size-0 leaf makes
            # it 0 wherever it sits, so the flat leaves give the same product as the nesting
            cotarget = tuple(it.flatten(cotarget))
    return _complement_from_gaps(gaps, cotarget)


def _complement_flat(layout: Layout, cotarget: Any) -> Layout:
    """``complement`` of a layout up to a cotarget that is None (the default), an int >= 0 or a
    flat tuple of them."""
    return _complement_from_gaps(_complement_gaps(layout), cotarget)


def _complement_gaps(layout: Layout) -> tuple[list, list, int, int]:
    """The gaps of ``layout``'s image below its end, in offset order: the modes that reach
    offsets (size != 1, stride != 0) sorted by stride tile ``[0, covered)`` in runs, and before
    a mode of stride ``d`` the complement repeats the covered block ``d // covered`` times at
    stride ``covered``. Returns the gap sizes, their strides, the covered extent and the
    default cotarget ``1 + sum((s - 1) * d)``."""
    shapes, strides = flat_tuples(layout)
    gap_sizes, gap_strides, covered, end = [], [], 1, 1
    for d, n in sorted(zip(strides, shapes)):  # equal strides overlap: refused whatever their order
        if n == 1 or d == 0:
            continue
        if d < 0:  # (sorted first)
            raise LayoutError(f"complement of {layout}: negative strides have no complement")
        if n == 0:
            raise LayoutError(f"complement of {layout}: a mode of size 0 has no offsets to complement")
        repeats = d // covered
        if repeats == 0:
            raise LayoutError(f"complement of {layout}: the layout is not injective (its modes overlap)")
        if repeats != 1:  # no gap: nothing to add
            gap_sizes.append(repeats)
            gap_strides.append(covered)
        end += (n - 1) * d
        covered = d * n
    return gap_sizes, gap_strides, covered, end


def _complement_from_gaps(gaps: tuple, cotarget: Any) -> Layout:
    """The complement: its gaps, then the covered block repeated up to the cotarget (an int, a
    flat shape divided leaf by leaf by ceiling division, or None for the layout's own end), as
    one mode, coalesced."""
    sizes, strides, covered, end = gaps
    sizes, strides = list(sizes), list(strides)
    if type(cotarget) is tuple:
        rest, divisor = 1, covered
        for e in cotarget:
            rest *= -(-e // divisor)
            if e:
                divisor = -(-divisor // e)
    else:
        rest = -(-(end if cotarget is None else cotarget) // covered)
    if rest != 1:
        sizes.append(rest)
        strides.append(covered)
    if not sizes:  # the layout covers the cotarget: nothing to add
        return _from_lists([1], [0])
    last = len(sizes) - 1
    return _from_lists(*bw_lists(sizes, strides, sizes[last], strides[last], last))


def right_inverse(layout: Any) -> Layout:
    """A layout ``R`` with ``layout(R(i)) == i`` for every ``i < size(R)`` (CuTe's
    ``right_inverse``; the layout inverses of the CuTe whitepaper, arXiv 2603.02298). For a layout
    that is one-to-one apart from its stride-0 modes, ``R`` is the inverse function on the longest
    run ``0, 1, ...`` of the image; for others it may be shorter than such a run
    (``right_inverse((2,4):(1,1))`` is ``2:1``, though ``4:2`` also inverts), as CuTe's is.
    It follows the modes of ``coalesce(layout)`` from the one of stride 1, each next one the mode
    whose stride is the extent covered so far, and sends each back to its index stride.

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
    sizes, strides = _coalesced_modes(layout)
    if len(sizes) == 1:  # one mode s:d: itself when d is 1, else nothing past index 0
        return Layout._raw(sizes[0], 1) if strides[0] == 1 and sizes[0] != 1 else Layout._raw(1, 0)
    index_strides = _column_major_strides(sizes)
    # the modes of a coalesced layout have size 0 or >= 2, so the covered extent grows (or ends
    # at 0) and each stride is met at most once along the chain
    mode_of_stride = {}
    for i in range(len(sizes) - 1, -1, -1):
        mode_of_stride[strides[i]] = i  # equal strides: the first mode, as a stable sort would take
    chain_sizes, chain_strides, covered = [], [], 1
    i = mode_of_stride.get(1)
    while i is not None:
        chain_sizes.append(sizes[i])
        chain_strides.append(index_strides[i])
        covered *= sizes[i]
        i = mode_of_stride.get(covered) if covered else None  # past a size-0 mode nothing is contiguous
    if not chain_sizes:
        return Layout._raw(1, 0)
    last = len(chain_sizes) - 1
    return _from_lists(*bw_lists(chain_sizes, chain_strides, chain_sizes[last], chain_strides[last], last))


def left_inverse(layout: Any) -> Layout:
    """A layout ``R`` with ``R(layout(i)) == i`` for every ``i`` when ``layout`` is injective
    (in general ``layout(R(layout(i))) == layout(i)``): the inverse function on the image, as a
    layout (CuTe's ``left_inverse``; the layout inverses of the CuTe whitepaper, arXiv
    2603.02298).

    With the modes of ``coalesce(layout)`` sorted by stride, ``d_0 <= d_1 <= ...``, an offset in
    the image reads as mixed-radix digits ``(d_0, d_1/d_0, ..., d_k/d_(k-1), size of the last)``:
    the lowest digit is 0 on the image, and digit ``j + 1`` is the coordinate of the ``j``-th
    mode, which ``R`` sends back to its index stride (the column-major prefix product of the
    sizes in the layout's own order). Stride-0 modes reach no offset and get no digit.

    Raises
    ------
    LayoutError
        When a stride is not a multiple of the next smaller one (the radix would not be whole:
        the left-inverse divisibility condition), or a stride is negative.

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
    sizes, strides = flat_tuples(coalesce(layout))
    if any(d < 0 for d in strides):
        raise LayoutError(f"left_inverse of {layout}: negative strides are not supported")
    index_strides = _column_major_strides(sizes)
    # (stride, index stride, size) of each mode that moves, by stride (ties: in mode order)
    moving = sorted(((d, index_strides[i], sizes[i]) for i, d in enumerate(strides) if d != 0),
                    key=lambda mode: mode[0])
    if not moving:  # every offset is 0: the codomain, and so the inverse's domain, is one element
        return Layout._raw(1, 0)
    radices = []
    below = 1
    for d, _, _ in moving:
        if d % below:
            raise LayoutError(f"left_inverse of {layout}: stride {d} is not a multiple of {below}, the span "
                              "of the modes with smaller strides (left inverse divisibility condition)")
        radices.append(d // below)
        below = d
    radices.append(moving[-1][2])
    digit_strides = [0] + [index_stride for _, index_stride, _ in moving]
    return coalesce(Layout._raw(tuple(radices), tuple(digit_strides)))


def _column_major_strides(sizes: tuple) -> list:
    """The index stride of each flat mode: the product of the sizes before it."""
    strides, product = [], 1
    for size in sizes:
        strides.append(product)
        product *= size
    return strides


def max_common_layout(a: Any, b: Any) -> Layout:
    """The largest layout ``R`` of indices that ``a`` and ``b`` both send to the offsets
    ``0, 1, ..., size(R) - 1`` in order: ``a(R(j)) == b(R(j)) == j`` (CuTe's
    ``max_common_layout``). ``R`` walks ``b``'s right inverse (the indices ``b`` sends to
    ``0, 1, ...``) for as long as ``a`` sends them to the same offsets: that is the first mode of
    ``coalesce(a o right_inverse(b))`` when its stride is 1, and ``1:0`` otherwise. The vector
    width two layouts share.

    >>> from layouts.cute import Layout
    >>> print(max_common_layout(Layout((4, 8), (1, 4)), Layout((4, 8), (1, 8))))
    4:1
    """
    a, b = _as_layout(a, "max_common_layout: a"), _as_layout(b, "max_common_layout: b")
    walk, length = _common_run(a, b)
    return Layout._raw(1, 0) if length is None else composition(walk, Layout._raw(length, 1))


def max_common_vector(a: Any, b: Any) -> int:
    """How many consecutive offsets ``0, 1, ...`` ``a`` and ``b`` both reach from the same
    indices: the size of :func:`max_common_layout` (CuTe's ``max_common_vector``), 1 when
    they share none but offset 0.

    >>> from layouts.cute import Layout
    >>> max_common_vector(Layout((4, 8), (1, 4)), Layout((4, 8), (1, 8))), max_common_vector(Layout(8), Layout(8, 2))
    (4, 1)
    """
    a, b = _as_layout(a, "max_common_vector: a"), _as_layout(b, "max_common_vector: b")
    length = _common_run(a, b)[1]
    return 1 if length is None else int(length)


def _common_run(a: Layout, b: Layout) -> tuple[Layout, Any]:
    """``b``'s right inverse, and how many of its first indices ``a`` sends to the offsets
    ``0, 1, ...`` (``a o right_inverse(b)`` is the identity there), or None when the first run
    of ``a o right_inverse(b)`` does not step by 1."""
    walk = right_inverse(b)
    sizes, strides = flat_tuples(coalesce(composition(a, walk)))
    return walk, (sizes[0] if strides[0] == 1 else None)


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
