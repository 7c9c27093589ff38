"""Layout builders the encodings are made of: cut a layout down to a shape, repeat it up to a
shape, and the identity over several dims in a fill order. In the Linear Layouts paper (arXiv
2505.23819) a tensor smaller than a layout's tile holds broadcast copies, and a larger one repeats
the tile.

>>> from layouts.linear import identity_standard_nd
>>> identity_standard_nd("lane", [4, 8], [1, 0]).bases["lane"]
((1, 0), (2, 0), (4, 0), (0, 1), (0, 2))
"""

from typing import Any, Iterable, Mapping, Sequence, Tuple

from ..errors import LayoutError, LayoutTypeError, show, type_name
from .algebra import multiply
from .args import dims_arg, index_arg, is_pow2, name_arg
from .layout import LinearLayout
from .reshape import _layout


def _shape_map(layout: LinearLayout, shape: Any) -> Mapping[str, int]:
    if not isinstance(shape, Mapping):
        raise LayoutTypeError(f"shape must be a dict {{out_dim: size}}, got {type_name(shape)}")
    sizes = dict(dims_arg("shape", shape))
    if set(sizes) != set(layout.out_dim_names):
        raise LayoutError(f"shape must give a size for each out-dim {layout.out_dim_names}; got {list(sizes)}")
    return sizes


def _cut(basis: Tuple[int, ...], sizes: Sequence[int]) -> Tuple[int, ...]:
    """``basis`` with each value that does not fit its new out size replaced by 0."""
    return tuple(v if v < size else 0 for v, size in zip(basis, sizes))


def ensure_layout_not_larger_than(layout: Any, shape: Any, broadcast_registers: bool = True) -> LinearLayout:
    """The layout cut to ``shape``: each out-dim becomes ``min(its size, shape[dim])`` and a basis
    value at or above the new size becomes 0, so the inputs that reached beyond the shape repeat
    data inside it (a broadcast).

    With ``broadcast_registers=False`` a register basis that the cut turns to all zeros is dropped
    instead (the register count shrinks rather than holding copies); one that was zero already stays.

    >>> L = LinearLayout.identity_1d(8, "register", "dim0")
    >>> ensure_layout_not_larger_than(L, {"dim0": 2}).bases
    {'register': ((1,), (0,), (0,))}
    >>> ensure_layout_not_larger_than(L, {"dim0": 2}, broadcast_registers=False).bases
    {'register': ((1,),)}
    """
    layout = _layout("layout", layout)
    sizes = _shape_map(layout, shape)
    if not isinstance(broadcast_registers, bool):
        raise LayoutTypeError("broadcast_registers must be True or False")
    outs = tuple((name, min(size, sizes[name])) for name, size in layout._outs)
    new_sizes = [size for _, size in outs]

    def dropped(in_dim: str, basis: Tuple[int, ...], cut: Tuple[int, ...]) -> bool:
        return not broadcast_registers and in_dim == "register" and any(basis) and not any(cut)

    bases = []
    for name, rows in layout._bases:
        cuts = [(b, _cut(b, new_sizes)) for b in rows]
        bases.append((name, tuple(cut for b, cut in cuts if not dropped(name, b, cut))))
    return LinearLayout._trusted(tuple(bases), outs)


def ensure_layout_not_smaller_than(layout: Any, shape: Any) -> LinearLayout:
    """The layout repeated up to ``shape``: each out-dim smaller than ``shape[dim]`` is multiplied
    by an identity from the first in-dim ("register" or "offset", so the data repeats in registers
    or in memory), out-dims in the layout's order.

    >>> L = LinearLayout.identity_1d(2, "register", "dim0")
    >>> ensure_layout_not_smaller_than(L, {"dim0": 8}).bases
    {'register': ((1,), (2,), (4,))}
    """
    layout = _layout("layout", layout)
    sizes = _shape_map(layout, shape)
    if not sizes:
        return layout
    first = layout.in_dim_names[0] if layout.in_dim_names else None
    if first not in ("register", "offset"):
        raise LayoutError(f"ensure_layout_not_smaller_than grows the first in-dim, which must be "
                          f"'register' or 'offset'; it is {first!r}")
    grown = layout
    for name, size in layout._outs:
        if sizes[name] > size:
            grown = multiply(grown, LinearLayout.identity_1d(sizes[name] // size, first, name))
    return grown


def _check_int_list(what: str, value: Any) -> None:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise LayoutTypeError(f"{what} must be a list of integers, got {type_name(value)} {show(value)}")


def identity_standard_nd(in_dim: str, shape: Sequence[int], order: Sequence[int]) -> LinearLayout:
    """``in_dim`` -> ``dim0, dim1, ...`` of ``shape``: the identity that fills the dims in ``order``
    (most minor first): the product of one identity per dim, taken in that order, so the out-dims
    come out in fill order, not by index.

    >>> L = identity_standard_nd("register", [2, 4], [1, 0])
    >>> L.out_dim_names, L.bases["register"]
    (['dim1', 'dim0'], ((1, 0), (2, 0), (0, 1)))
    """
    in_dim = name_arg("in_dim", in_dim)
    _check_int_list("shape", shape)
    _check_int_list("order", order)
    shape = [index_arg(f"shape[{i}]", s) for i, s in enumerate(shape)]
    order = [index_arg(f"order[{i}]", o) for i, o in enumerate(order)]
    if sorted(order) != list(range(len(shape))):
        raise LayoutError(f"order must be a permutation of 0..{len(shape) - 1}, got {order}")
    for i, s in enumerate(shape):
        if not is_pow2(s):
            raise LayoutError(f"shape[{i}] must be a power of two, got {s}")
    result = LinearLayout.empty()
    for d in order:
        result = multiply(result, LinearLayout.identity_1d(shape[d], in_dim, f"dim{d}"))
    return result
