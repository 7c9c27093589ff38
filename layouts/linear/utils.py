"""Layout builders Triton's encodings are made of (``include/triton/Tools/LayoutUtils.h``).

>>> from layouts.linear import identity_standard_nd
>>> identity_standard_nd("lane", [4, 8], [1, 0]).bases["lane"]
((1, 0), (2, 0), (4, 0), (0, 1), (0, 2))
"""

from typing import Any, Iterable, Mapping, Sequence

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


def ensure_layout_not_larger_than(layout: Any, shape: Any, broadcast_registers: bool = True) -> LinearLayout:
    """Each out-dim cut to ``min(its size, shape[dim])``: a basis value at or above the new size
    becomes 0, so those inputs repeat data (a broadcast). Triton 3.9.0's ``ensureLayoutNotLargerThan``.

    With ``broadcast_registers=False`` a register basis that this turns to all zeros is dropped
    instead (the register count shrinks rather than holding copies).

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
    new_sizes = [min(size, sizes[name]) for name, size in layout._outs]
    bases = []
    for name, rows in layout._bases:
        kept = []
        for b in rows:
            cut = tuple(0 if v >= s else v for v, s in zip(b, new_sizes))
            if broadcast_registers or name != "register" or any(cut) or not any(b):
                kept.append(cut)
        bases.append((name, tuple(kept)))
    outs = tuple((name, s) for (name, _), s in zip(layout._outs, new_sizes))
    return LinearLayout._trusted(tuple(bases), outs)


def ensure_layout_not_smaller_than(layout: Any, shape: Any) -> LinearLayout:
    """Each out-dim grown to at least ``shape[dim]`` by more bases along the first in-dim
    ("register" or "offset": the data repeats in registers or memory).

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
    result = layout
    for out, actual in layout._outs:
        want = sizes[out]
        if want > actual:
            result = multiply(result, LinearLayout.identity_1d(want // actual, first, out))
    return result


def identity_standard_nd(in_dim: str, shape: Sequence[int], order: Sequence[int]) -> LinearLayout:
    """``in_dim`` -> ``dim0, dim1, ...`` of ``shape``, filled in ``order`` (most minor first), the
    out-dims left in that fill order as Triton's ``identityStandardND`` leaves them.

    >>> L = identity_standard_nd("register", [2, 4], [1, 0])
    >>> L.out_dim_names, L.bases["register"]
    (['dim1', 'dim0'], ((1, 0), (2, 0), (0, 1)))
    """
    in_dim = name_arg("in_dim", in_dim)
    for what, value in (("shape", shape), ("order", order)):
        if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
            raise LayoutTypeError(f"{what} must be a list of integers, got {type_name(value)} {show(value)}")
    shape = [index_arg(f"shape[{i}]", s) for i, s in enumerate(shape)]
    order = [index_arg(f"order[{i}]", o) for i, o in enumerate(order)]
    if sorted(order) != list(range(len(shape))):
        raise LayoutError(f"order must be a permutation of 0..{len(shape) - 1}, got {order}")
    for i, s in enumerate(shape):
        if not is_pow2(s):
            raise LayoutError(f"shape[{i}] must be a power of two, got {s}")
    names = [f"dim{i}" for i in range(len(shape))]
    result = LinearLayout.empty()
    for d in order:
        result = multiply(result, LinearLayout.identity_1d(shape[d], in_dim, names[d]))
    return result
