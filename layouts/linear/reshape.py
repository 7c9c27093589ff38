"""Reshaping a linear layout's dims: reshape, transpose, sublayout, concat, resize, rename.

None of these changes which input bit maps to which output bit; they regroup, reorder, cut or
rename the dims around the bits (Triton's ``reshapeIns`` ... ``renameInDim``).

>>> from layouts.linear import LinearLayout
>>> L = LinearLayout.identity_1d(4, "in", "out")
>>> L.reshape_outs([("lo", 2), ("hi", 2)]).bases
{'in': ((1, 0), (0, 1))}
"""

from typing import Any, List, Sequence

from ..errors import LayoutError, LayoutTypeError, type_name
from .args import dims_arg, log2, name_arg, names_arg
from .layout import LinearLayout


def _layout(what: str, value: Any) -> LinearLayout:
    if not isinstance(value, LinearLayout):
        raise LayoutTypeError(f"{what} must be a LinearLayout, got {type_name(value)}")
    return value


def _same_total(what: str, new, total: int, side: str) -> None:
    got = 1
    for _, size in new:
        got *= size
    if got != total:
        raise LayoutError(f"{what} has {got} {side} values in all ({dict(new)}); the layout has {total}")


def reshape_ins(layout: LinearLayout, new_in_dims: Any) -> LinearLayout:
    """The in bits, in dim order, re-split into ``new_in_dims`` (``[(name, size), ...]``).

    >>> reshape_ins(LinearLayout.identity_1d(4, "in", "out"), [("a", 2), ("b", 2)]).bases
    {'a': ((1,),), 'b': ((2,),)}
    """
    new = dims_arg("new_in_dims", new_in_dims)
    _same_total("new_in_dims", new, layout.total_in_size, "input")
    flat = [basis for _, rows in layout._bases for basis in rows]
    bases, i = [], 0
    for name, size in new:
        k = log2(size)
        bases.append((name, tuple(flat[i:i + k])))
        i += k
    return LinearLayout._trusted(tuple(bases), layout._outs, layout._surjective)


def reshape_outs(layout: LinearLayout, new_out_dims: Any) -> LinearLayout:
    """The out bits, in dim order, re-split into ``new_out_dims`` (``[(name, size), ...]``).

    >>> reshape_outs(LinearLayout.identity_1d(8, "in", "out"), [("a", 2), ("b", 4)]).bases
    {'in': ((1, 0), (0, 1), (0, 2))}
    """
    new = dims_arg("new_out_dims", new_out_dims)
    _same_total("new_out_dims", new, layout.total_out_size, "output")
    packed = iter(layout._packed_bases())
    bases = []
    for name, rows in layout._bases:
        out = []
        for _ in rows:
            b = next(packed)
            split = []
            for _, size in new:
                split.append(b & (size - 1))
                b >>= log2(size)
            out.append(tuple(split))
        bases.append((name, tuple(out)))
    return LinearLayout._trusted(tuple(bases), new, layout._surjective)


def _permutation(what: str, order: Any, names: List[str]) -> Sequence[str]:
    order = names_arg(what, order)
    if sorted(order) != sorted(names):
        raise LayoutError(f"{what} must name each dim once, {names} in some order; got {list(order)}")
    return order


def transpose_ins(layout: LinearLayout, order: Any) -> LinearLayout:
    """The in-dims in ``order`` (the map is unchanged).

    >>> L = LinearLayout.identity_1d(2, "a", "x") * LinearLayout.identity_1d(2, "b", "x")
    >>> transpose_ins(L, ["b", "a"]).in_dim_names
    ['b', 'a']
    """
    order = _permutation("order", order, layout.in_dim_names)
    bases = layout.bases
    return LinearLayout._trusted(tuple((n, bases[n]) for n in order), layout._outs, layout._surjective)


def transpose_outs(layout: LinearLayout, order: Any) -> LinearLayout:
    """The out-dims in ``order`` (each basis's values permuted to match).

    >>> L = LinearLayout.from_bases({"in": [[1, 0], [0, 1]]}, ["x", "y"])
    >>> transpose_outs(L, ["y", "x"]).bases
    {'in': ((0, 1), (1, 0))}
    """
    order = _permutation("order", order, layout.out_dim_names)
    index = [layout.out_dim_names.index(n) for n in order]
    sizes = layout.out_dims
    bases = tuple((n, tuple(tuple(b[i] for i in index) for b in rows)) for n, rows in layout._bases)
    return LinearLayout._trusted(bases, tuple((n, sizes[n]) for n in order), layout._surjective)


def _subset(what: str, dims: Any, names: List[str], side: str) -> Sequence[str]:
    dims = names_arg(what, dims)
    missing = [d for d in dims if d not in names]
    if missing:
        raise LayoutError(f"{what} names {missing}, which are not {side}-dims of the layout ({names})")
    return dims


def sublayout(layout: LinearLayout, in_dims: Any, out_dims: Any) -> LinearLayout:
    """Only ``in_dims`` (the others read as 0) and ``out_dims``, in the layout's order; out sizes kept.

    >>> L = LinearLayout.from_bases({"a": [[1, 0]], "b": [[0, 1], [1, 2]]}, ["x", "y"])
    >>> sublayout(L, ["a"], ["x"]).bases
    {'a': ((1,),)}
    """
    ins = set(_subset("in_dims", in_dims, layout.in_dim_names, "in"))
    outs = set(_subset("out_dims", out_dims, layout.out_dim_names, "out"))
    keep = [i for i, (n, _) in enumerate(layout._outs) if n in outs]
    bases = tuple((n, tuple(tuple(b[i] for i in keep) for b in rows)) for n, rows in layout._bases if n in ins)
    return LinearLayout._trusted(bases, tuple(d for d in layout._outs if d[0] in outs))


def concat_ins(layout: LinearLayout, other: Any) -> LinearLayout:
    """``layout``'s in-dims, then ``other``'s (disjoint), over the same out-dims and sizes.

    >>> a, b = LinearLayout.identity_1d(2, "a", "x"), LinearLayout.from_bases({"b": [[1]]}, ["x"])
    >>> concat_ins(a, b).bases
    {'a': ((1,),), 'b': ((1,),)}
    """
    other = _layout("other", other)
    if layout._outs != other._outs:
        raise LayoutError(f"concat_ins needs the same out-dims and sizes; got {layout.out_dims} and {other.out_dims}")
    common = set(layout.in_dim_names) & set(other.in_dim_names)
    if common:
        raise LayoutError(f"concat_ins needs disjoint in-dims; both have {sorted(common)}")
    result = LinearLayout._trusted(layout._bases + other._bases, layout._outs)
    result._check_size()          # the input bits add up: Triton's 64-bit limit
    return result


def concat_outs(layout: LinearLayout, other: Any) -> LinearLayout:
    """``layout``'s out-dims, then ``other``'s (disjoint), from the same in-dims and sizes.

    >>> a, b = LinearLayout.identity_1d(2, "in", "x"), LinearLayout.identity_1d(2, "in", "y")
    >>> concat_outs(a, b).bases
    {'in': ((1, 1),)}
    """
    other = _layout("other", other)
    if layout.in_dims != other.in_dims or layout.in_dim_names != other.in_dim_names:
        raise LayoutError(f"concat_outs needs the same in-dims and sizes, in the same order; got "
                          f"{layout.in_dims} and {other.in_dims}")
    common = set(layout.out_dim_names) & set(other.out_dim_names)
    if common:
        raise LayoutError(f"concat_outs needs disjoint out-dims; both have {sorted(common)}")
    bases = tuple((n, tuple(a + b for a, b in zip(rows, orows)))
                  for (n, rows), (_, orows) in zip(layout._bases, other._bases))
    result = LinearLayout._trusted(bases, layout._outs + other._outs)
    result._check_size()
    return result


def remove_zero_bases_along_dim(layout: LinearLayout, dim: Any) -> LinearLayout:
    """In-dim ``dim`` without its zero bases.

    >>> L = LinearLayout.from_bases({"register": [[0], [1]]}, ["dim0"])
    >>> remove_zero_bases_along_dim(L, "register").bases
    {'register': ((1,),)}
    """
    dim = name_arg("dim", dim)
    layout._in_rows(dim)
    bases = tuple((n, tuple(b for b in rows if any(b)) if n == dim else rows) for n, rows in layout._bases)
    return LinearLayout._trusted(bases, layout._outs, layout._surjective)


def resize_in_dim(layout: LinearLayout, dim: Any, size: Any) -> LinearLayout:
    """In-dim ``dim`` cut to ``size`` (a power of two, at most its size): its first bases.

    >>> resize_in_dim(LinearLayout.identity_1d(8, "in", "out"), "in", 2).bases
    {'in': ((1,),)}
    """
    dim = name_arg("dim", dim)
    have = layout.in_dim_size(dim)
    (_, size), = dims_arg("size", [(dim, size)])
    if size > have:
        raise LayoutError(f"size {size} is larger than in-dim {dim!r} ({have}); resize_in_dim only shrinks")
    bases = tuple((n, rows[:log2(size)] if n == dim else rows) for n, rows in layout._bases)
    return LinearLayout._trusted(bases, layout._outs)


def resize_out_dim(layout: LinearLayout, dim: Any, size: Any) -> LinearLayout:
    """Out-dim ``dim`` cut to ``size``: basis values at or above it become 0.

    >>> resize_out_dim(LinearLayout.identity_1d(8, "in", "out"), "out", 4).bases
    {'in': ((1,), (2,), (0,))}
    """
    dim = name_arg("dim", dim)
    i = layout.out_dim_index(dim)
    have = layout.out_dim_size(dim)
    (_, size), = dims_arg("size", [(dim, size)])
    if size > have:
        raise LayoutError(f"size {size} is larger than out-dim {dim!r} ({have}); resize_out_dim only shrinks")
    bases = tuple((n, tuple(b[:i] + ((0 if b[i] >= size else b[i]),) + b[i + 1:] for b in rows))
                  for n, rows in layout._bases)
    outs = tuple((n, size if n == dim else s) for n, s in layout._outs)
    return LinearLayout._trusted(bases, outs)


def rename_dim(layout: LinearLayout, old: Any, new: Any, side: str) -> LinearLayout:
    """``old`` renamed ``new`` on the ``side`` ("in" or "out"), in place.

    >>> rename_dim(LinearLayout.identity_1d(2, "in", "out"), "out", "dim0", side="out").out_dims
    {'dim0': 2}
    """
    old, new = name_arg("old", old), name_arg("new", new)
    pairs = layout._bases if side == "in" else layout._outs
    names = [n for n, _ in pairs]
    if old not in names:
        raise LayoutError(f"{old!r} is not an {side}-dim of the layout ({names})")
    if new != old and new in names:
        raise LayoutError(f"{new!r} is already an {side}-dim of the layout ({names})")
    renamed = tuple((new if n == old else n, v) for n, v in pairs)
    if side == "in":
        return LinearLayout._trusted(renamed, layout._outs, layout._surjective)
    return LinearLayout._trusted(layout._bases, renamed, layout._surjective)
