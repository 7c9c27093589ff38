"""Bridges between linear layouts, CuTe layouts and framework layouts.

A CuTe layout ``(s_i):(d_i)`` is linear over GF(2) exactly when every size is a power of two and
the columns ``d_i * 2**b`` (one per bit of each mode) have pairwise disjoint binary supports: an
integer sum equals the XOR of its terms only when no two share a bit. A ``Swizzle`` is an XOR of
bit fields, so ``Swizzle o L`` is linear whenever ``L`` is.

Orientation: CuTe layouts (and what :func:`from_cute` and :func:`from_layout` return) map
coordinates -> ``offset``; Triton's shared layouts map ``offset`` -> coordinates. :func:`memory_map`
brings either to the first form.

>>> from layouts import cute, linear
>>> sw = cute.composition(cute.Swizzle(3, 0, 3), cute.Layout((8, 8), (8, 1)))
>>> L = linear.from_cute(sw)
>>> L.bases
{'m0': ((9,), (18,), (36,)), 'm1': ((1,), (2,), (4,))}
>>> print(linear.to_cute(L))
Sw<3,0,3> o 0 o (8,8):(8,1)
"""

from typing import Any, List, Optional, Sequence, Tuple

from ..errors import LayoutError, LayoutTypeError, type_name
from .layout import LinearLayout
from .reshape import _layout


class NotLinear(LayoutError):
    """The layout is not linear over GF(2) (a non-power-of-two size, overlapping strides, a
    negative stride, an offset): it has no linear-layout form."""


class NotCuteRepresentable(LayoutError):
    """The linear layout mixes bits in a way no ``Swizzle<B,M,S> o Shape:Stride`` can say."""


def _columns(sizes: Sequence[int], strides: Sequence[int], what: str) -> List[int]:
    cols = []
    for k, (s, d) in enumerate(zip(sizes, strides)):
        if s < 1 or s & (s - 1):
            raise NotLinear(f"{what}: sub-mode {k} has size {s}; a linear layout needs power-of-two sizes")
        if d < 0:
            raise NotLinear(f"{what}: sub-mode {k} has stride {d}; a linear layout's offsets grow by XOR "
                            f"from 0, so negative strides have no linear form")
        cols.extend(d << b for b in range(s.bit_length() - 1))
    return cols


def _check_disjoint(columns: Sequence[Tuple[str, int, int]]) -> None:
    """(mode name, bit, column): a NotLinear naming the first two that share a bit."""
    seen = {}
    for name, bit, col in columns:
        c = col
        while c:
            low = c & -c
            if low in seen:
                other = seen[low]
                raise NotLinear(f"{name} bit {bit} (value {col}) and {other[0]} bit {other[1]} (value {other[2]}) "
                                f"share bit {low.bit_length() - 1}: the integer sum of strides is not their XOR")
            seen[low] = (name, bit, col)
            c ^= low


def from_cute(layout: Any) -> LinearLayout:
    """The linear layout of a CuTe layout (plain or ``Swizzle o Layout``): in-dims ``m0, m1, ...``
    (one per top-level mode, its sub-modes' bits in colexicographic order), out-dim ``offset``.

    >>> from layouts import cute
    >>> from_cute(cute.Layout((4, 2), (2, 1))).bases
    {'m0': ((2,), (4,)), 'm1': ((1,),)}
    >>> from_cute(cute.Layout(4, 3))
    Traceback (most recent call last):
    layouts.linear.bridges.NotLinear: m0 bit 1 (value 6) and m0 bit 0 (value 3) share bit 1: the integer sum of strides is not their XOR
    """
    from ..cute import int_tuple as it
    from ..cute.layout import Layout
    from ..cute.swizzle import ComposedLayout
    swizzle = None
    if isinstance(layout, ComposedLayout):
        if layout.offset:
            raise NotLinear(f"{layout} adds the offset {layout.offset}: an affine map, not a linear one "
                            f"(a linear layout sends 0 to 0)")
        swizzle, layout = layout.outer, layout.inner
    if not isinstance(layout, Layout):
        raise LayoutTypeError(f"from_cute takes a layouts.cute Layout or a swizzled one, got {type_name(layout)}")
    shape, stride = layout.shape, layout.stride
    modes = list(zip(shape, stride)) if it.is_tuple(shape) else [(shape, stride)]
    named, bases = [], []
    for k, (s, d) in enumerate(modes):
        sizes = it.flatten(s) if it.is_tuple(s) else (s,)
        strides = it.flatten(d) if it.is_tuple(d) else (d,)
        cols = _columns(list(sizes), list(strides), f"{layout} mode {k}")
        named.extend((f"m{k}", b, c) for b, c in enumerate(cols))
        bases.append((f"m{k}", cols))
    _check_disjoint(named)
    if swizzle is not None:
        bases = [(n, [swizzle(c) for c in cols]) for n, cols in bases]
    top = 0
    for _, cols in bases:
        for c in cols:
            top |= c
    size = 1 << top.bit_length()
    return LinearLayout.from_bases([(n, [[c] for c in cols]) for n, cols in bases], {"offset": size},
                                   require_surjective=False)


def from_layout(layout: Any) -> LinearLayout:
    """The linear layout of a framework :class:`layouts.Layout`: in-dims named after its axes
    (canonical order: N, C, H, W...), out-dim ``offset``; ``L(n=.., c=..)`` is ``layout.offset``.
    Every axis extent must be a power of two (a padded block's padding would otherwise be read as
    data); pitch padding stays padding (offsets the layout never reaches).

    >>> import layouts as ly
    >>> L = from_layout(ly.Layout("NCHW16c", N=2, C=32, H=4, W=8))
    >>> L(N=1, C=17, H=2, W=3)["offset"] == ly.Layout("NCHW16c", N=2, C=32, H=4, W=8).offset(n=1, c=17, h=2, w=3)
    True
    """
    from ..named.kind import axis_modes
    from ..named.layout import Layout as NamedLayout
    if not isinstance(layout, NamedLayout):
        raise LayoutTypeError(f"from_layout takes a layouts.Layout, got {type_name(layout)}")
    extents = layout.dims
    named, bases = [], []
    for axis, sizes, strides in axis_modes(layout):
        extent = extents.get(axis, None)
        total = 1
        for s in sizes:
            total *= s
        if extent is not None and extent != total:
            raise NotLinear(f"axis {axis} has {extent} elements padded to {total} by its blocks; a linear layout "
                            f"would read the padding as data")
        cols = _columns(list(sizes), list(strides), f"axis {axis}")
        named.extend((axis, b, c) for b, c in enumerate(cols))
        bases.append((axis, cols))
    _check_disjoint(named)
    top = 0
    for _, cols in bases:
        for c in cols:
            top |= c
    return LinearLayout.from_bases([(n, [[c] for c in cols]) for n, cols in bases], {"offset": 1 << top.bit_length()},
                                   require_surjective=False)


def memory_map(layout: Any) -> LinearLayout:
    """``layout`` as coordinates -> one out-dim ``offset`` (CuTe's orientation), by the rule:
    an in-dim ``offset`` means Triton's orientation (offset -> coordinates; it must be
    injective and reach every coordinate, and its inverse is taken, in-dims after ``offset``
    read as higher offset bits); an out-dim ``offset`` means CuTe's. Anything else is a
    LayoutError naming the dims.

    >>> S = LinearLayout.from_bases({"offset": [[0, 1], [0, 2], [1, 1]]}, ["dim0", "dim1"])
    >>> memory_map(S).bases
    {'dim0': ((5,),), 'dim1': ((1,), (2,))}
    """
    layout = _layout("layout", layout)
    ins, outs = layout.in_dim_names, layout.out_dim_names
    if "offset" in outs and "offset" in ins:
        raise LayoutError(f"a layout with 'offset' both as an in-dim and an out-dim has no memory reading "
                          f"(in-dims {ins}, out-dims {outs})")
    if "offset" in outs:
        if outs != ["offset"]:
            raise LayoutError(f"a memory layout in CuTe's orientation has the single out-dim 'offset'; "
                              f"this one has out-dims {outs}")
        return layout
    if "offset" in ins:
        if ins[0] != "offset":
            layout = layout.transpose_ins(["offset"] + [d for d in ins if d != "offset"])
        if not layout.is_injective():
            raise LayoutError(f"this shared layout (in-dims {ins}) puts two offsets on one element; a memory "
                              f"layout read offset -> element must be injective")
        if not layout.is_surjective():
            raise LayoutError(f"this shared layout (in-dims {ins}) leaves some elements of {layout.out_dims} "
                              f"without an offset")
        flat = layout.flatten_ins().rename_in_dim("offset", "offset")
        return flat.invert()
    raise LayoutError(f"a linear layout stands for memory with an in-dim 'offset' (Triton's shared layouts) "
                      f"or an out-dim 'offset' (CuTe's orientation); this one has in-dims {ins} and out-dims {outs}")


def _flat_columns(layout: LinearLayout) -> Tuple[List[Tuple[str, List[int]]], int]:
    """Per in-dim, its bases as single ints (the out-dims flattened, the first minor)."""
    flat = layout.flatten_outs() if layout.num_out_dims > 1 else layout
    return [(n, [b[0] if b else 0 for b in rows]) for n, rows in flat._bases], flat.total_out_size


def _affine(dims: List[Tuple[str, List[int]]]):
    """A CuTe layout with these per-dim columns, or None when two columns share a bit."""
    from ..cute.layout import Layout, coalesce
    seen = 0
    for _, cols in dims:
        for c in cols:
            if c & seen:
                return None
            seen |= c
    modes = []
    for _, cols in dims:
        if not cols:
            modes.append(Layout(1, 0))
            continue
        sub = Layout(tuple(2 for _ in cols), tuple(cols)) if len(cols) > 1 else Layout(2, cols[0])
        modes.append(coalesce(sub))
    if len(modes) == 1:
        return modes[0]
    return Layout(tuple(m.shape for m in modes), tuple(m.stride for m in modes))


def _swizzles(top_bits: int):
    from ..cute.swizzle import Swizzle
    for b in range(1, top_bits + 1):
        for m in range(0, top_bits - b + 1):
            for s in range(b, top_bits - b - m + 1):     # XOR high bits into low ones, CuTe's usual kind
                yield Swizzle(b, m, s)
            for s in range(b, top_bits - b - m + 1):     # and low bits into high ones
                yield Swizzle(b, m, -s)


def to_cute(layout: Any) -> Any:
    """The CuTe form of a linear layout: an affine ``Shape:Stride`` (one mode per in-dim), or one
    ``Swizzle<B,M,S> o Shape:Stride`` (the smallest ``B`` that works), or NotCuteRepresentable.

    A layout with an in-dim ``offset`` (Triton's shared layouts) is read through its inverse
    (:func:`memory_map`); otherwise the out-dims are flattened, the first the fastest (CuTe's
    colexicographic index of a tile), so a distributed layout becomes a layout of its
    ``(register, lane, warp, block)`` coordinates.

    >>> L = LinearLayout.from_bases({"register": [[0, 1]], "lane": [[0, 2], [1, 0]]}, ["dim0", "dim1"])
    >>> print(to_cute(L))
    (2,(2,2)):(2,(4,1))
    """
    layout = _layout("layout", layout)
    if "offset" in layout.in_dim_names:
        layout = memory_map(layout)
    dims, total = _flat_columns(layout)
    plain = _affine(dims)
    if plain is not None:
        return plain
    from ..cute.swizzle import ComposedLayout
    for sw in _swizzles((total - 1).bit_length()):
        inner = _affine([(n, [sw(c) for c in cols]) for n, cols in dims])
        if inner is not None:
            return ComposedLayout(sw, 0, inner)
    raise NotCuteRepresentable(f"no Swizzle<B,M,S> o Shape:Stride equals this layout: its bases XOR bits in a way "
                               f"one swizzle cannot undo ({_describe(dims)})")


def _describe(dims: List[Tuple[str, List[int]]]) -> str:
    return "; ".join(f"{n}: {cols}" for n, cols in dims)


def cute_form(layout: LinearLayout) -> Optional[Any]:
    """:func:`to_cute`, or None when there is no CuTe form."""
    try:
        return to_cute(layout)
    except LayoutError:
        return None
