"""The algebra of linear layouts: product, composition, inverses, division, quotient.

Triton's definitions (``lib/Tools/LinearLayout.cpp``, 3.9.0): ``A * B`` is the direct sum with
``A`` on the low bits of every shared dim; ``A.invert_and_compose(B)`` is the smallest ``C`` with
``A(x) == B(C(x))``; ``divide_left(A, B)`` is the ``C`` with ``A == B * C``, if there is one.

>>> from layouts.linear import LinearLayout, divide_left
>>> A = LinearLayout.identity_1d(4, "in", "out") * LinearLayout.identity_1d(8, "in", "out2")
>>> C = divide_left(A, LinearLayout.identity_1d(4, "in", "out"))
>>> C.bases, C.out_dims
({'in': ((0, 1), (0, 2), (0, 4))}, {'out': 1, 'out2': 8})
"""

from typing import Any, Dict, List, Optional, Sequence

from ..errors import LayoutError
from . import gf2
from .args import log2, names_arg
from .layout import LinearLayout
from .reshape import _layout, reshape_ins, reshape_outs, sublayout, transpose_ins, transpose_outs


def supremum(x: Sequence[str], y: Sequence[str]) -> List[str]:
    """The dims of ``x`` and ``y`` merged as Triton 3.9.0's ``supremum`` merges them: the shortest
    list holding both as subsequences, ``x``'s dims first where both orders allow. Where the two
    orders conflict no such list exists; Triton's comment calls that an error, but its loop (and
    the wheel's ``*``) goes on, placing each shared dim where it first meets it, so ``x``'s order
    wins. We do the same: ``L * M`` on out-dims ordered differently is what the wheel gives.

    >>> supremum(["a", "b"], ["b", "c"])
    ['a', 'b', 'c']
    >>> supremum(["register", "warp"], ["lane", "warp"])
    ['register', 'lane', 'warp']
    >>> supremum(["x", "y"], ["y", "x"])
    ['x', 'y']
    """
    x, y = list(names_arg("x", x)), list(names_arg("y", y))
    pos_x = {d: i for i, d in enumerate(x)}
    pos_y = {d: i for i, d in enumerate(y)}
    never = len(x) + len(y) + 1
    result: List[str] = []
    placed = set()
    i = j = 0
    while i < len(x) or j < len(y):
        while i < len(x) and x[i] in placed:
            i += 1
        while j < len(y) and y[j] in placed:
            j += 1
        if i >= len(x) and j >= len(y):
            break
        if i < len(x) and j < len(y) and x[i] == y[j]:
            pick, i, j = x[i], i + 1, j + 1
        else:
            # a shared dim waits until the other list reaches it; the nearer one goes first
            cand_x = pos_y[x[i]] if i < len(x) and x[i] in pos_y and pos_y[x[i]] >= j else never
            cand_y = pos_x[y[j]] if j < len(y) and y[j] in pos_x and pos_x[y[j]] >= i else never
            if i < len(x) and cand_x == never:
                pick, i = x[i], i + 1
            elif j < len(y) and cand_y == never:
                pick, j = y[j], j + 1
            elif cand_x <= cand_y:
                pick, i = x[i], i + 1
            else:
                pick, j = y[j], j + 1
        result.append(pick)
        placed.add(pick)
    return result


def multiply(inner: LinearLayout, outer: LinearLayout) -> LinearLayout:
    """``inner * outer``: ``inner`` on the low bits of each shared in- and out-dim.

    >>> a = LinearLayout.identity_1d(4, "in", "out1")
    >>> (a * LinearLayout.identity_1d(8, "in", "out2")).bases["in"]
    ((1, 0), (2, 0), (0, 1), (0, 2), (0, 4))
    """
    outer = _layout("the right operand of *", outer)
    in_names = supremum(inner.in_dim_names, outer.in_dim_names)
    out_names = supremum(inner.out_dim_names, outer.out_dim_names)
    i_in, o_in = inner.in_dims, outer.in_dims
    i_out, o_out = inner.out_dims, outer.out_dims
    i_idx = {n: k for k, n in enumerate(inner.out_dim_names)}
    o_idx = {n: k for k, n in enumerate(outer.out_dim_names)}
    shift = {n: log2(i_out.get(n, 1)) for n in out_names}
    bases = []
    for name in in_names:
        rows = []
        for layout, idx, shifted in ((inner, i_idx, False), (outer, o_idx, True)):
            if name not in (i_in if layout is inner else o_in):
                continue
            for b in layout._in_rows(name):
                rows.append(tuple((b[idx[n]] << (shift[n] if shifted else 0)) if n in idx else 0
                                  for n in out_names))
        bases.append((name, tuple(rows)))
    outs = tuple((n, i_out.get(n, 1) * o_out.get(n, 1)) for n in out_names)
    surjective = True if inner.is_surjective() and outer.is_surjective() else None
    result = LinearLayout._trusted(tuple(bases), outs, surjective)
    result._check_size()
    return result


def _dims_equal(what: str, a: Sequence[str], b: Sequence[str]) -> None:
    if set(a) != set(b):
        raise LayoutError(f"{what}: the dims must match, ignoring order; got {list(a)} and {list(b)}")


def compose(inner: LinearLayout, outer: Any) -> LinearLayout:
    """``outer(inner(x))``: ``inner``'s out-dims are ``outer``'s in-dims, no larger.

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
    names = inner.out_dim_names
    bases = tuple((n, tuple(tuple(outer.apply(dict(zip(names, b))).values()) for b in rows))
                  for n, rows in inner._bases)
    surjective = True if (inner.is_surjective() and outer.is_surjective()
                          and all(size == sizes[n] for n, size in inner._outs)) else None
    return LinearLayout._trusted(bases, outer._outs, surjective)


def _aligned_columns(layout: LinearLayout, rows_of: Dict[str, int], order: Sequence[str]) -> List[int]:
    """``layout``'s packed bases with each out-dim's bits placed at ``rows_of[dim]`` (out-dims in
    ``order``), so two layouts over the same out-dims share one row numbering."""
    index = {n: k for k, n in enumerate(layout.out_dim_names)}
    cols = []
    for _, rows in layout._bases:
        for b in rows:
            cols.append(sum(b[index[n]] << rows_of[n] for n in order))
    return cols


def _lstsq(A: LinearLayout, B: LinearLayout) -> LinearLayout:
    """The minimal ``X`` with ``A(X(x)) == B(x)`` over the same out-dims (``A``'s image covering
    ``B``'s): rref of ``[A | B]``, ``X``'s row for each pivot column of ``A`` read off, 0 elsewhere."""
    order = A.out_dim_names
    rows_of, r = {}, 0
    for n in order:
        rows_of[n] = r
        r += log2(A.out_dim_size(n))
    num_rows = r
    a_cols = _aligned_columns(A, rows_of, order)
    b_cols = _aligned_columns(B, rows_of, order)
    na = len(a_cols)
    matrix = gf2.columns_to_rows(a_cols + b_cols, num_rows)
    reduced = gf2.rref(matrix)
    x_rows = [0] * na                                 # X as rows: one per input bit of A
    for row in reduced:
        pivot = (row & -row).bit_length() - 1
        if pivot >= na:
            raise LayoutError("invert_and_compose: the layout reaches values the outer layout never "
                              "does, so no C with self(x) == outer(C(x)) exists")
        x_rows[pivot] = row >> na
    cols = []
    for c in range(len(b_cols)):                      # X's column for each input bit of B
        cols.append(sum(((x_rows[r] >> c) & 1) << r for r in range(na)))
    flat_in = ((B.in_dim_names[0] if B.in_dim_names else "in"),)
    flat_out = ((A.in_dim_names[0] if A.in_dim_names else "out"), A.total_in_size)
    flat = LinearLayout._trusted(((flat_in[0], tuple((c,) for c in cols)),), (flat_out,))
    return reshape_outs(reshape_ins(flat, list(B.in_dims.items())), list(A.in_dims.items()))


def invert_and_compose(layout: LinearLayout, outer: Any) -> LinearLayout:
    """The smallest ``C`` with ``layout(x) == outer(C(x))`` (Triton's invertAndCompose).

    ``outer`` must be surjective and have every out-dim of ``layout``, each at least as large.
    An in-dim along which both layouts broadcast (all bases zero) maps to itself.

    >>> regs = LinearLayout.from_bases({"register": [[1], [2]]}, ["dim0"])
    >>> smem = LinearLayout.from_bases({"offset": [[2], [1]]}, ["dim0"])
    >>> invert_and_compose(regs, smem).bases
    {'register': ((2,), (1,))}
    """
    outer = _layout("outer", outer)
    out_names = layout.out_dim_names
    _dims_equal("invert_and_compose", out_names, outer.out_dim_names)
    A = transpose_outs(outer, out_names)
    for name, size in layout._outs:
        if A.out_dim_size(name) < size:
            raise LayoutError(f"invert_and_compose: out-dim {name!r} has size {size} here but only "
                              f"{A.out_dim_size(name)} in the outer layout")
    if not A.is_surjective():
        raise LayoutError("invert_and_compose: the outer layout must be surjective (every value reached), "
                          "or some values would have no preimage")
    B = LinearLayout._trusted(layout._bases, A._outs)     # the same bits, over the outer's sizes
    # Triton 3.9.0 maps a shared in-dim to itself only when both layouts broadcast along it
    # (all its bases zero, as many in each); any other in-dim goes through the least-squares solve.
    identity = [d for d in A.in_dim_names
                if B.has_in_dim(d) and sublayout(A, [d], out_names) == sublayout(B, [d], out_names)
                and A.sublayout_is_zero([d], out_names)]
    a_rest = [d for d in A.in_dim_names if d not in identity]
    b_rest = [d for d in B.in_dim_names if d not in identity]
    if not a_rest and not b_rest:
        result = LinearLayout.empty()
    elif not a_rest:
        if any(any(b) for d in b_rest for b in B._in_rows(d)):
            raise LayoutError("invert_and_compose: the layout reaches values the outer layout never does")
        result = LinearLayout._trusted(tuple((d, tuple(() for _ in B._in_rows(d))) for d in b_rest), ())
    else:
        result = _lstsq(sublayout(A, a_rest, out_names), sublayout(B, b_rest, out_names))
    for d in identity:
        result = multiply(result, LinearLayout.identity_1d(A.in_dim_size(d), d, d))
    return transpose_outs(transpose_ins(result, B.in_dim_names), A.in_dim_names)


def _identity_over_outs(layout: LinearLayout) -> LinearLayout:
    identity = LinearLayout.empty()
    for name, size in layout._outs:
        identity = multiply(identity, LinearLayout.identity_1d(size, name, name))
    return identity


def pseudoinvert(layout: LinearLayout) -> LinearLayout:
    """A right inverse of a surjective layout: its out-dims become the in-dims.

    >>> L = LinearLayout.from_bases({"in": [[1], [1], [2]]}, ["out"])
    >>> L.pseudoinvert().bases
    {'out': ((1,), (4,))}
    """
    if not layout.is_surjective():
        raise LayoutError("pseudoinvert needs a surjective layout (every value reached): "
                          f"this one is not ({layout._unreached()} is missed)")
    return invert_and_compose(_identity_over_outs(layout), layout)


def invert(layout: LinearLayout) -> LinearLayout:
    """The inverse of an invertible layout (surjective, as many input bits as output bits).

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
    """Per in-dim, the input bits that are not pivots of the matrix's row echelon form.

    >>> free_variable_masks(LinearLayout.from_bases({"a": [[1], [1]], "b": [[0]]}, ["x"]))
    {'a': 2, 'b': 1}
    """
    rows = gf2.columns_to_rows(layout._packed_bases(), layout.total_out_bits)
    basic = set(gf2.pivot_columns(rows))
    masks, c = {}, 0
    for name, rows_ in layout._bases:
        mask = 0
        for i in range(len(rows_)):
            if c not in basic:
                mask |= 1 << i
            c += 1
        masks[name] = mask
    return masks


def num_consecutive_in_out(layout: LinearLayout) -> int:
    """How many consecutive values of the first in-dim land on consecutive values of the first out-dim.

    >>> num_consecutive_in_out(LinearLayout.identity_1d(8, "register", "dim0"))
    8
    """
    if not layout._bases or not layout._outs:
        return 1
    first, rows = layout._bases[0]
    consec = 0
    while consec < len(rows) and rows[consec][0] == 1 << consec and not any(rows[consec][1:]):
        consec += 1
    other = 0
    for name, rows_ in layout._bases:
        for i, b in enumerate(rows_):
            if name != first or i >= consec:
                other |= b[0]
    trailing = (other & -other).bit_length() - 1 if other else 31
    return 1 << min(consec, trailing)


def _square_is_identity(layout: LinearLayout, dims: Sequence[str]) -> bool:
    if not dims:
        return True
    if any(layout.in_dim_size(d) != layout.out_dim_size(d) for d in dims):
        return False
    square = sublayout(layout, dims, dims)
    flat = square.flatten_outs()._packed_bases()
    return all(b == 1 << i for i, b in enumerate(flat))


def is_trivial_over(layout: LinearLayout, dims: Any) -> bool:
    """Is ``layout`` the identity on ``dims`` (each an in- and an out-dim), mixing them with no other dim?

    >>> L = LinearLayout.identity_1d(4, "in", "out") * LinearLayout.identity_1d(2, "b", "b")
    >>> is_trivial_over(L, ["b"]), is_trivial_over(L, ["in"])
    (True, False)
    """
    dims = names_arg("dims", dims)
    ins, outs = layout.in_dim_names, layout.out_dim_names
    if any(d not in ins or d not in outs for d in dims):
        return False
    rest_in = [d for d in ins if d not in dims]
    rest_out = [d for d in outs if d not in dims]
    return (_square_is_identity(layout, [d for d in ins if d in dims])
            and layout.sublayout_is_zero(rest_in, list(dims))
            and layout.sublayout_is_zero(list(dims), rest_out))


def quotient(layout: LinearLayout, dims: Any) -> Optional[LinearLayout]:
    """The layout on the remaining dims if it is trivial over ``dims``, else ``None``.

    >>> L = LinearLayout.identity_1d(4, "in", "out") * LinearLayout.identity_1d(2, "b", "b")
    >>> quotient(L, ["b"]).in_dims
    {'in': 4}
    """
    dims = names_arg("dims", dims)
    if not is_trivial_over(layout, dims):
        return None
    return sublayout(layout, [d for d in layout.in_dim_names if d not in dims],
                     [d for d in layout.out_dim_names if d not in dims])


def _divide_parts(A: LinearLayout, B: LinearLayout):
    """C's out sizes (A's over B's) and each in-dim's bit counts, or None when B does not fit in A."""
    if any(not A.has_in_dim(d) for d in B.in_dim_names) or any(not A.has_out_dim(d) for d in B.out_dim_names):
        return None
    b_out = B.out_dims
    c_out = {}
    for name, size in A._outs:
        if size % b_out.get(name, 1):
            return None
        c_out[name] = size // b_out.get(name, 1)
    b_in = {n: len(rows) for n, rows in B._bases}
    for name, rows in A._bases:
        if len(rows) < b_in.get(name, 0):
            return None
    return c_out, b_in


def _left_quotient_rows(A: LinearLayout, B: LinearLayout, name: str, rows, b_bits: int,
                        c_out: Dict[str, int]) -> Optional[tuple]:
    """C's rows of in-dim ``name`` for ``A == B * C``: A's first ``b_bits`` rows are B's, the rest
    are C's scaled by B's out sizes; None when they are not."""
    b_out = B.out_dims
    for i in range(b_bits):
        want = tuple(B.basis(name, i, o) if o in b_out else 0 for o in A.out_dim_names)
        if rows[i] != want:
            return None
    crows = []
    for b in rows[b_bits:]:
        if any(v % b_out.get(o, 1) for v, o in zip(b, A.out_dim_names)):
            return None
        crows.append(tuple(v // b_out.get(o, 1) for v, o in zip(b, A.out_dim_names)))
    return tuple(crows)


def _right_quotient_rows(A: LinearLayout, B: LinearLayout, name: str, rows, b_bits: int,
                         c_out: Dict[str, int]) -> Optional[tuple]:
    """C's rows of in-dim ``name`` for ``A == C * B``: A's last ``b_bits`` rows are B's scaled by
    C's out sizes, the rest are C's and fit in C's out dims; None when they are not."""
    b_out = B.out_dims
    keep = len(rows) - b_bits
    for j, b in enumerate(rows[keep:]):
        for v, o in zip(b, A.out_dim_names):
            if o in b_out:
                if v % c_out[o] or v // c_out[o] != B.basis(name, j, o):
                    return None
    crows = tuple(tuple(v for v in b) for b in rows[:keep])
    for b in crows:
        if any(v >= c_out[o] for v, o in zip(b, A.out_dim_names)):
            return None
    return crows


def _divide(A: Any, B: Any, c_on_left: bool) -> Optional[LinearLayout]:
    """divide_left's and divide_right's shared steps: C's dims, C's rows in-dim by in-dim, and a
    check that the product really gives A back."""
    A, B = _layout("A", A), _layout("B", B)
    parts = _divide_parts(A, B)
    if parts is None:
        return None
    c_out, b_in = parts
    quotient_rows = _right_quotient_rows if c_on_left else _left_quotient_rows
    bases = []
    for name, rows in A._bases:
        crows = quotient_rows(A, B, name, rows, b_in.get(name, 0), c_out)
        if crows is None:
            return None
        bases.append((name, crows))
    C = LinearLayout._trusted(tuple(bases), tuple(c_out.items()))
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
