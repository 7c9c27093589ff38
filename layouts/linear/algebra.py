"""The algebra of linear layouts: product, composition, inverses, division, quotient.

A linear layout is a matrix over GF(2) from its input bits (in-dims concatenated, minor first) to
its output bits (out-dims concatenated, minor first); column ``i`` is the image of input bit ``i``
(the Linear Layouts paper, arXiv 2505.23819). Every operation here is that matrix's linear
algebra, done with :mod:`layouts.linear.gf2`:

- ``A * B`` is the direct sum, ``A`` on the low bits of every shared in- and out-dim;
- ``compose`` is the matrix product, ``invert_and_compose`` the minimal solution of a linear
  system, ``pseudoinvert`` a right inverse, ``free_variable_masks`` the free columns;
- ``divide_left(A, B)`` is the ``C`` with ``A == B * C``, if there is one.

Where Triton 3.9.0's wheel (the oracle of ``tests/test_linear_oracle.py``) fixes a choice the
definition leaves open, the docstring says so.

>>> from layouts.linear import LinearLayout, divide_left
>>> A = LinearLayout.identity_1d(4, "in", "out") * LinearLayout.identity_1d(8, "in", "out2")
>>> C = divide_left(A, LinearLayout.identity_1d(4, "in", "out"))
>>> C.bases, C.out_dims
({'in': ((0, 1), (0, 2), (0, 4))}, {'out': 1, 'out2': 8})
"""

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import LayoutError
from . import gf2
from .args import log2, names_arg
from .layout import LinearLayout
from .reshape import _layout, sublayout

Rows = Tuple[Tuple[int, ...], ...]


# ----------------------------------------------------------------- dim lists
def _next_dim(x: List[str], y: List[str], at_x: Dict[str, int], at_y: Dict[str, int]) -> str:
    """The head of ``x`` or ``y`` that the other list reaches first (a dim it lacks: at once),
    ``x``'s on a tie; popped from its list."""
    if not y:
        return x.pop(0)
    if not x:
        return y.pop(0)
    reach_x = at_y.get(x[0], -1)
    reach_y = at_x.get(y[0], -1)
    return x.pop(0) if reach_x <= reach_y else y.pop(0)


def supremum(x: Sequence[str], y: Sequence[str]) -> List[str]:
    """The shortest list holding both ``x`` and ``y`` as subsequences, ``x``'s dims first where
    both orders allow: each step emits the head of ``x`` or ``y`` (dims already emitted skipped)
    that the other list reaches first, a dim it lacks counting as reached at once, ``x`` on a tie.

    Where the two orders conflict no such list exists. Triton 3.9.0's wheel still multiplies
    such layouts, and the dim order of its ``*`` is this rule's (checked against the wheel in
    ``tests/test_linear_oracle.py``): of two different shared heads, the one the other list has at
    the smaller index goes first.

    >>> supremum(["a", "b"], ["b", "c"])
    ['a', 'b', 'c']
    >>> supremum(["register", "warp"], ["lane", "warp"])
    ['register', 'lane', 'warp']
    >>> supremum(["x", "y"], ["y", "x"])
    ['x', 'y']
    >>> supremum(["a", "b"], ["b", "z", "a"])
    ['b', 'z', 'a']
    """
    x, y = list(names_arg("x", x)), list(names_arg("y", y))
    at_x = {d: i for i, d in enumerate(x)}
    at_y = {d: i for i, d in enumerate(y)}
    merged: List[str] = []
    while True:
        while x and x[0] in merged:
            x.pop(0)
        while y and y[0] in merged:
            y.pop(0)
        if not x and not y:
            return merged
        merged.append(_next_dim(x, y, at_x, at_y))


# ----------------------------------------------------------------- product and composition
def _placed_rows(layout: LinearLayout, out_names: Sequence[str], shifts: Dict[str, int]) -> Dict[str, Rows]:
    """``layout``'s bases over ``out_names``, each value shifted up by its out-dim's
    ``shifts`` (0 for the inner factor), 0 on out-dims ``layout`` lacks."""
    own = {n: k for k, n in enumerate(layout.out_dim_names)}
    rows = {}
    for name, bases in layout._bases:
        rows[name] = tuple(tuple(b[own[o]] << shifts[o] if o in own else 0 for o in out_names) for b in bases)
    return rows


def multiply(inner: LinearLayout, outer: LinearLayout) -> LinearLayout:
    """``inner * outer``, the direct sum: an input of the product is an ``inner`` input on the low
    bits of each in-dim and an ``outer`` input on the high bits; its output is ``inner``'s on the low
    bits of each out-dim XOR ``outer``'s moved above them (dim lists merged by :func:`supremum`).

    >>> a = LinearLayout.identity_1d(4, "in", "out1")
    >>> (a * LinearLayout.identity_1d(8, "in", "out2")).bases["in"]
    ((1, 0), (2, 0), (0, 1), (0, 2), (0, 4))
    """
    outer = _layout("the right operand of *", outer)
    in_names = supremum(inner.in_dim_names, outer.in_dim_names)
    out_names = supremum(inner.out_dim_names, outer.out_dim_names)
    low, high = inner.out_dims, outer.out_dims
    low_rows = _placed_rows(inner, out_names, {o: 0 for o in out_names})
    high_rows = _placed_rows(outer, out_names, {o: log2(low.get(o, 1)) for o in out_names})
    bases = tuple((d, low_rows.get(d, ()) + high_rows.get(d, ())) for d in in_names)
    outs = tuple((o, low.get(o, 1) * high.get(o, 1)) for o in out_names)
    # block diagonal: surjective when both blocks are
    surjective = True if inner.is_surjective() and outer.is_surjective() else None
    result = LinearLayout._trusted(bases, outs, surjective)
    result._check_size()
    return result


def _dims_equal(what: str, a: Sequence[str], b: Sequence[str]) -> None:
    if set(a) != set(b):
        raise LayoutError(f"{what}: the dims must match, ignoring order; got {list(a)} and {list(b)}")


def _columns_by_in_dim(layout: LinearLayout) -> Dict[str, List[int]]:
    """``layout``'s matrix columns (packed bases) grouped by in-dim."""
    packed = iter(layout._packed_bases())
    return {name: [next(packed) for _ in rows] for name, rows in layout._bases}


def compose(inner: LinearLayout, outer: Any) -> LinearLayout:
    """``outer(inner(x))``, the matrix product: each basis of ``inner`` (a point of ``outer``'s
    inputs) is sent to the XOR of ``outer``'s columns for its set bits. ``inner``'s out-dims are
    ``outer``'s in-dims (any order), none larger.

    >>> a = LinearLayout.from_bases({"in": [[1], [2]]}, ["mid"])
    >>> compose(a, LinearLayout.from_bases({"mid": [[2], [1]]}, ["out"])).bases
    {'in': ((2,), (1,))}
    """
    outer = _layout("outer", outer)
    _dims_equal("compose", inner.out_dim_names, outer.in_dim_names)
    sizes = outer.in_dims
    for name, size in inner._outs:
        if size > sizes[name]:
            raise LayoutError(f"compose: out-dim {name!r} of the inner layout has size {size}, larger than "
                              f"the outer layout's in-dim {name!r} ({sizes[name]})")
    columns = _columns_by_in_dim(outer)
    mids = inner.out_dim_names

    def image(point: Tuple[int, ...]) -> Tuple[int, ...]:
        packed = 0
        for mid, value in zip(mids, point):
            for bit, column in enumerate(columns[mid]):
                if value >> bit & 1:
                    packed ^= column
        return outer._unpack(packed)

    bases = tuple((n, tuple(image(b) for b in rows)) for n, rows in inner._bases)
    # a surjection onto all of outer's inputs, then a surjection: surjective
    surjective = True if (inner.is_surjective() and outer.is_surjective()
                          and all(size == sizes[n] for n, size in inner._outs)) else None
    return LinearLayout._trusted(bases, outer._outs, surjective)


# ----------------------------------------------------------------- solving outer(C(x)) == layout(x)
def _broadcast_in_dims(layout: LinearLayout, outer: LinearLayout) -> List[str]:
    """The in-dims both layouts have with the same number of bases, all zero in both."""
    mine = dict(layout._bases)
    return [d for d, rows in outer._bases
            if d in mine and len(mine[d]) == len(rows) and not any(map(any, rows + mine[d]))]


def _packed_over(layout: LinearLayout, reference: LinearLayout) -> Dict[str, List[int]]:
    """``layout``'s bases packed with ``reference``'s output-bit numbering (same out-dim names)."""
    shift, start = {}, 0
    for name, size in reference._outs:
        shift[name] = start
        start += log2(size)
    names = layout.out_dim_names
    return {d: [sum(v << shift[n] for n, v in zip(names, b)) for b in rows] for d, rows in layout._bases}


def _unreachable() -> LayoutError:
    return LayoutError("invert_and_compose: the layout reaches values the outer layout never does, so "
                       "no C with self(x) == outer(C(x)) exists")


def _check_invert_and_compose(layout: LinearLayout, outer: LinearLayout) -> None:
    _dims_equal("invert_and_compose", layout.out_dim_names, outer.out_dim_names)
    for name, size in layout._outs:
        if outer.out_dim_size(name) < size:
            raise LayoutError(f"invert_and_compose: out-dim {name!r} has size {size} here but only "
                              f"{outer.out_dim_size(name)} in the outer layout")
    if not outer.is_surjective():
        raise LayoutError("invert_and_compose: the outer layout must be surjective (every value reached), "
                          "or some values would have no preimage")


def invert_and_compose(layout: LinearLayout, outer: Any) -> LinearLayout:
    """The ``C`` with ``outer(C(x)) == layout(x)`` that uses only ``outer``'s pivot columns.

    As matrices, ``outer @ C == layout``: each column of ``C`` solves ``outer @ c == column of
    layout``, and of its solutions the one with every free variable 0 (only the columns of
    ``outer`` independent of those before it are used): the "smallest preimage" of the Linear
    Layouts paper (arXiv 2505.23819) when ``outer`` is not injective. C's in-dims are ``layout``'s,
    its out-dims ``outer``'s in-dims.

    ``outer`` must be surjective and have every out-dim of ``layout``, each at least as large.
    An in-dim both layouts have, with as many bases, all zero in both (a broadcast in both), maps
    to itself by the identity instead of to 0, as Triton 3.9.0's wheel gives (checked against the
    wheel in ``tests/test_linear_oracle.py``).

    >>> regs = LinearLayout.from_bases({"register": [[1], [2]]}, ["dim0"])
    >>> smem = LinearLayout.from_bases({"offset": [[2], [1]]}, ["dim0"])
    >>> invert_and_compose(regs, smem).bases
    {'register': ((2,), (1,))}
    """
    outer = _layout("outer", outer)
    _check_invert_and_compose(layout, outer)
    identity = set(_broadcast_in_dims(layout, outer))
    unknowns = [(d, cols) for d, cols in _columns_by_in_dim(outer).items() if d not in identity]
    system = gf2.eliminate(c for _, cols in unknowns for c in cols)
    targets = _packed_over(layout, outer)

    def solution(column: int) -> Tuple[int, ...]:
        mask = system.solve(column)
        if mask is None:
            raise _unreachable()
        values = {}
        for d, cols in unknowns:                      # the mask's bits, in-dim by in-dim of outer
            values[d] = mask & ((1 << len(cols)) - 1)
            mask >>= len(cols)
        return tuple(values.get(d, 0) for d in outer.in_dim_names)

    def identity_basis(d: str, i: int) -> Tuple[int, ...]:
        return tuple(1 << i if e == d else 0 for e in outer.in_dim_names)

    bases = tuple((d, tuple(identity_basis(d, i) for i in range(len(cols))) if d in identity
                   else tuple(solution(c) for c in cols)) for d, cols in targets.items())
    return LinearLayout._trusted(bases, tuple(outer.in_dims.items()))


def _identity_over_outs(layout: LinearLayout) -> LinearLayout:
    """The identity on ``layout``'s out-dims (each in-dim named as its out-dim)."""
    identity = LinearLayout.empty()
    for name, size in layout._outs:
        identity = multiply(identity, LinearLayout.identity_1d(size, name, name))
    return identity


def pseudoinvert(layout: LinearLayout) -> LinearLayout:
    """A right inverse ``R`` of a surjective layout, ``layout(R(y)) == y``: the minimal solution of
    ``layout @ R == identity`` (:func:`invert_and_compose` of the identity on the out-dims). Its
    in-dims are ``layout``'s out-dims.

    >>> L = LinearLayout.from_bases({"in": [[1], [1], [2]]}, ["out"])
    >>> L.pseudoinvert().bases
    {'out': ((1,), (4,))}
    """
    if not layout.is_surjective():
        raise LayoutError("pseudoinvert needs a surjective layout (every value reached): "
                          f"this one is not ({layout._unreached()} is missed)")
    return invert_and_compose(_identity_over_outs(layout), layout)


def invert(layout: LinearLayout) -> LinearLayout:
    """The inverse of an invertible layout (surjective, as many input bits as output bits): its
    one right inverse.

    >>> LinearLayout.from_bases({"in": [[1], [3]]}, ["out"]).invert().bases
    {'out': ((1,), (3,))}
    """
    if not layout.is_invertible():
        ins = ", ".join(f"{n!r} {log2(s)}" for n, s in layout.in_dims.items()) or "none"
        outs = ", ".join(f"{n!r} {log2(s)}" for n, s in layout.out_dims.items()) or "none"
        why = (f"it is not surjective: {layout._unreached()} is not reached" if not layout.is_surjective() else
               f"it has {layout.total_in_bits} input bits (in-dims {ins}) and {layout.total_out_bits} output "
               f"bits (out-dims {outs})")
        raise LayoutError(f"invert needs an invertible layout, and {why}; pseudoinvert gives a right "
                          f"inverse of a surjective layout")
    return pseudoinvert(layout)


def free_variable_masks(layout: LinearLayout) -> Dict[str, int]:
    """Per in-dim, the input bits whose column is in the span of the columns before it (the free
    columns of the matrix): the bits that can change without changing the output, given the others.

    >>> free_variable_masks(LinearLayout.from_bases({"a": [[1], [1]], "b": [[0]]}, ["x"]))
    {'a': 2, 'b': 1}
    """
    free = set(gf2.eliminate(layout._packed_bases()).dependent)
    masks, first = {}, 0
    for name, rows in layout._bases:
        masks[name] = sum(1 << i for i in range(len(rows)) if first + i in free)
        first += len(rows)
    return masks


# ----------------------------------------------------------------- vector width
# Triton's API reports the count as an int32: an undisturbed run stops at its largest power of two.
_INT32_POWER_BITS = int(np.iinfo(np.int32).max).bit_length()


def _identity_run(rows: Rows) -> int:
    """How many leading bases send bit ``i`` to ``2**i`` of the first out-dim and nowhere else."""
    run = 0
    for basis in rows:
        if basis[0] != 1 << run or any(basis[1:]):
            break
        run += 1
    return run


def num_consecutive_in_out(layout: LinearLayout) -> int:
    """The largest power of two ``n`` such that values ``0..n-1`` of the first in-dim (every other
    input 0) land on ``0..n-1`` of the first out-dim (every other output 0), and no other input
    bit touches the low ``log2(n)`` bits of the first out-dim: a vector width. 1 for a layout with
    no in- or no out-dims. When no other bit touches the first out-dim at all, the count stops at
    ``2**31``, as Triton's int32 count does (only a layout wider than Triton's reaches it).

    >>> num_consecutive_in_out(LinearLayout.identity_1d(8, "register", "dim0"))
    8
    >>> num_consecutive_in_out(LinearLayout.from_bases({"register": [[1], [2], [8]], "lane": [[4]]}, ["dim0"]))
    4
    """
    if not layout._bases or not layout._outs:
        return 1
    first, rows = layout._bases[0]
    run = _identity_run(rows)
    others = [b[0] for name, bases in layout._bases for i, b in enumerate(bases) if name != first or i >= run]
    touched = [gf2.lowest_bit(v) for v in others if v]
    return 1 << min(run, min(touched, default=_INT32_POWER_BITS))


# ----------------------------------------------------------------- quotient
def _bit_positions(layout: LinearLayout, dims: Sequence[str]) -> List[int]:
    """The output-bit positions of ``dims``' out-dims, in the layout's out-dim order."""
    positions: List[int] = []
    start = 0
    for name, size in layout._outs:
        if name in dims:
            positions.extend(range(start, start + log2(size)))
        start += log2(size)
    return positions


def is_trivial_over(layout: LinearLayout, dims: Any) -> bool:
    """Is ``layout == L' x I`` with ``I`` the identity on ``dims``? Each of ``dims`` is an in- and
    an out-dim of one size; the ``k``-th input bit of ``dims`` (in-dims in the layout's order) goes to
    exactly the ``k``-th output bit of ``dims`` (out-dims in the layout's order), and no other
    input bit reaches an output bit of ``dims``.

    >>> L = LinearLayout.identity_1d(4, "in", "out") * LinearLayout.identity_1d(2, "b", "b")
    >>> is_trivial_over(L, ["b"]), is_trivial_over(L, ["in"])
    (True, False)
    """
    dims = names_arg("dims", dims)
    if any(not layout.has_in_dim(d) or not layout.has_out_dim(d) for d in dims):
        return False
    if any(layout.in_dim_size(d) != layout.out_dim_size(d) for d in dims):
        return False
    targets = _bit_positions(layout, dims)
    dims_mask = sum(1 << p for p in targets)
    columns = _columns_by_in_dim(layout)
    on_dims = [c for d, cols in columns.items() if d in dims for c in cols]
    elsewhere = [c for d, cols in columns.items() if d not in dims for c in cols]
    return on_dims == [1 << p for p in targets] and not any(c & dims_mask for c in elsewhere)


def quotient(layout: LinearLayout, dims: Any) -> Optional[LinearLayout]:
    """``L'`` when ``layout == L' x I`` with ``I`` the identity on ``dims`` (:func:`is_trivial_over`):
    the layout on the remaining dims; else ``None``.

    >>> L = LinearLayout.identity_1d(4, "in", "out") * LinearLayout.identity_1d(2, "b", "b")
    >>> quotient(L, ["b"]).in_dims
    {'in': 4}
    """
    dims = names_arg("dims", dims)
    if not is_trivial_over(layout, dims):
        return None
    return sublayout(layout, [d for d in layout.in_dim_names if d not in dims],
                     [d for d in layout.out_dim_names if d not in dims])


# ----------------------------------------------------------------- division
def _factor_fits(A: LinearLayout, B: LinearLayout) -> bool:
    """Can ``B`` be a factor of ``A``: its dims among ``A``'s, none larger?"""
    a_bits = {n: len(rows) for n, rows in A._bases}
    a_outs = A.out_dims
    return (all(len(rows) <= a_bits.get(n, -1) for n, rows in B._bases)
            and all(size <= a_outs.get(n, 0) for n, size in B._outs))


def _quotient_outs(A: LinearLayout, B: LinearLayout) -> Tuple[Tuple[str, int], ...]:
    """The out-dims of ``C`` in ``A == B * C`` or ``C * B``: ``A``'s, each over ``B``'s size."""
    b_outs = B.out_dims
    return tuple((n, size // b_outs.get(n, 1)) for n, size in A._outs)


def _divide(A: Any, B: Any, c_on_left: bool) -> Optional[LinearLayout]:
    """The ``C`` with ``A``'s dims and ``A == C * B`` (``c_on_left``) or ``A == B * C``, or None.

    In a product each shared in-dim's bases are the left factor's then the right factor's, and the
    right factor's values sit above the left factor's out sizes. So ``C``'s bases are read off
    ``A``: the first ones (``C`` on the left, each fitting ``C``'s out sizes) or the last ones
    shifted down (``C`` on the right); the product then says whether it is ``A``."""
    A, B = _layout("A", A), _layout("B", B)
    if not _factor_fits(A, B):
        return None
    outs = _quotient_outs(A, B)
    b_bits = {n: len(rows) for n, rows in B._bases}
    if c_on_left:
        bases = tuple((n, rows[:len(rows) - b_bits.get(n, 0)]) for n, rows in A._bases)
        if any(v >= size for _, rows in bases for b in rows for v, (_, size) in zip(b, outs)):
            return None
    else:
        shifts = [log2(B.out_dims.get(n, 1)) for n, _ in A._outs]
        bases = tuple((n, tuple(tuple(v >> s for v, s in zip(b, shifts)) for b in rows[b_bits.get(n, 0):]))
                      for n, rows in A._bases)
    C = LinearLayout._trusted(bases, outs)
    try:
        return C if (multiply(C, B) if c_on_left else multiply(B, C)) == A else None
    except LayoutError:
        return None


def divide_left(A: Any, B: Any) -> Optional[LinearLayout]:
    """The ``C`` with ``A == B * C`` (same dims as ``A``), or ``None`` when there is none.

    >>> A = LinearLayout.identity_1d(32, "in", "out")
    >>> divide_left(A, LinearLayout.identity_1d(4, "in", "out")).bases
    {'in': ((1,), (2,), (4,))}
    """
    return _divide(A, B, c_on_left=False)


def divide_right(A: Any, B: Any) -> Optional[LinearLayout]:
    """The ``C`` with ``A == C * B`` (same dims as ``A``), or ``None`` when there is none.

    >>> A = LinearLayout.identity_1d(32, "in", "out")
    >>> divide_right(A, LinearLayout.identity_1d(4, "in", "out")).bases
    {'in': ((1,), (2,), (4,))}
    """
    return _divide(A, B, c_on_left=True)
