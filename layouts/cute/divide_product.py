"""Tiling with CuTe's divides and products, each defined from composition and complement
(CuTe's documentation, ``02_layout_algebra.md``, "Division (Tiling)" and "Product (Tiling)").

A tiler is a Layout, an int ``n`` (the layout ``n:1``), ``None`` (CuTe's ``_``: leave the mode
alone) or a tuple of tilers applied mode by mode. ``logical_divide(A, B)`` splits ``A`` into (tile, rest);
``logical_product(A, B)`` repeats ``A`` over ``B``. The zipped / tiled forms regroup the modes,
``blocked_product`` and ``raked_product`` keep ``A``'s rank.

>>> from layouts.cute import Layout
>>> print(logical_divide(Layout(16), Layout(4, 2)))
(4,(2,2)):(2,(1,8))
>>> print(zipped_divide(Layout((8, 8)), (4, 2)))
((4,2),(2,4)):((1,8),(4,16))
>>> print(blocked_product(Layout((2, 2)), Layout((2, 3))))
((2,2),(2,3)):((1,4),(2,8))
"""

from __future__ import annotations

from typing import Any

from ..errors import LayoutError, LayoutTypeError, type_name
from . import int_tuple as it
from .algebra import _complement_flat, _compose_layouts, complement, composition
from .flat import flat_tuples
from .layout import Layout, coalesce, make_layout, size

__all__ = ["logical_divide", "zipped_divide", "tiled_divide", "flat_divide", "logical_product", "zipped_product",
           "tiled_product", "flat_product", "blocked_product", "raked_product"]


def _check_layout(x: Any, where: str) -> Layout:
    if not isinstance(x, Layout):
        raise LayoutTypeError(f"{where}: the layout must be a layouts.cute.Layout, got {type_name(x)}")
    return x


def _by_mode(op, a: Layout, tiler: tuple, where: str) -> Layout:
    """Apply ``op`` to the modes the tuple tiler names and keep the others (a tuple tiler acts
    mode by mode)."""
    if len(tiler) > len(a):
        raise LayoutError(f"{where}: tiler has {len(tiler)} modes, more than layout {a} ({len(a)})")
    modes = [op(a[i], t) for i, t in enumerate(tiler)]
    modes += [a[i] for i in range(len(tiler), len(a))]
    return make_layout(*modes)


def _tiler_layout(t: Any, where: str) -> Layout:
    if isinstance(t, Layout):
        return t
    if it.is_int(t):
        if t < 0:
            raise LayoutError(f"{where}: an int tiler is a size >= 0, got {t}")
        return Layout(int(t))
    raise LayoutTypeError(f"{where}: a tiler is a Layout, an int, None or a tuple of them, got {type_name(t)}")


def logical_divide(a: Layout, tiler: Any) -> Layout:
    """``A`` split by ``tiler`` into (elements of one tile, tiles):
    ``composition(A, make_layout(B, complement(B, shape(coalesce(A)))))``, by mode for a tuple.

    Examples
    --------
    >>> from layouts.cute import Layout
    >>> A = Layout((4, 2, 3), (2, 1, 8))
    >>> print(logical_divide(A, Layout(4, 2)))
    ((2,2),(2,3)):((4,1),(2,8))
    >>> print(logical_divide(Layout((9, (4, 8)), (59, (13, 1))), (Layout(3, 3), Layout((2, 4), (1, 8)))))
    ((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))
    """
    if type(a) is Layout and type(tiler) is Layout:  # the hot path: no checks a Layout has passed
        c = _complement_flat(tiler, coalesce(a)._shape)
        return _compose_layouts(a, Layout._raw((tiler._shape, c._shape), (tiler._stride, c._stride)))
    a = _check_layout(a, "logical_divide")
    it.check_depth(tiler, "logical_divide: tiler")
    if tiler is None:
        return a
    if it.is_tuple(tiler):
        return _by_mode(logical_divide, a, tiler, "logical_divide")
    b = _tiler_layout(tiler, "logical_divide")
    return composition(a, make_layout(b, complement(b, coalesce(a).shape)))


def _tiles_and_rests(t: Any, guide: Any, where: str, tiler: Any) -> tuple:
    """The shape (or stride) ``t`` of a divided or multiplied layout regrouped by the tiler's
    profile ``guide``: ``((tile of each tiled mode...), (rest of each tiled mode..., modes past
    the tiler...))``, nested as the tiler nests (the zipped divide and product of CuTe's
    documentation, ``02_layout_algebra.md``, "Division (Tiling)" and "Product (Tiling)").

    Every mode a leaf of the guide names must be a (tile, rest) pair. A mode that a ``None``
    leaf left alone is taken as that pair itself, so it needs exactly two sub-modes: that is
    what the CuTe DSL computes, and it refuses other modes (pycute pairs such a mode with a
    ``1:0`` tile instead); we refuse them with a LayoutError.
    """
    _check_pairs(t, guide, where, tiler)
    return _tile_part(t, guide), _rest_part(t, guide)


def _check_pairs(t: Any, guide: Any, where: str, tiler: Any) -> None:
    """Refuse ``t`` unless it has a mode for each branch of the guide and a pair at each leaf."""
    if not it.is_tuple(guide):
        if not it.is_tuple(t) or len(t) != 2:
            raise LayoutError(f"{where}: tiler {_show(tiler)} leaves a mode of shape {t} alone with None "
                              f"(CuTe's _), and zipping takes such a mode as its (tile, rest) pair, so it needs "
                              f"exactly 2 sub-modes; tile that mode with a layout or an int, or leave it out "
                              f"of the tiler")
        return
    if not it.is_tuple(t) or len(t) < len(guide):
        raise LayoutError(f"{where}: the tiler {_show(tiler)} does not match the modes of the result {t}")
    for mode, branch in zip(t, guide):
        _check_pairs(mode, branch, where, tiler)


def _tile_part(t: Any, guide: Any) -> Any:
    """The first element of each pair the guide reaches, nested as the guide."""
    if it.is_tuple(guide):
        return tuple(_tile_part(mode, branch) for mode, branch in zip(t, guide))
    return t[0]


def _rest_part(t: Any, guide: Any) -> Any:
    """The second element of each pair the guide reaches, then the modes the guide does not reach."""
    if it.is_tuple(guide):
        return tuple(_rest_part(mode, branch) for mode, branch in zip(t, guide)) + tuple(t[len(guide):])
    return t[1]


def _show(tiler: Any) -> str:
    if it.is_tuple(tiler):
        return "(" + ", ".join(_show(t) for t in tiler) + ("," if len(tiler) == 1 else "") + ")"
    return "None" if tiler is None else str(tiler)


def _unzip(result: Layout, tiler: Any, where: str) -> Layout:
    """The divided or multiplied layout regrouped by the tiler's profile (its shape and its
    congruent stride alike): see :func:`_tiles_and_rests`."""
    guide = _guide(tiler)
    shape = _tiles_and_rests(result.shape, guide, where, tiler)
    return Layout._raw(shape, (_tile_part(result.stride, guide), _rest_part(result.stride, guide)))


def _guide(tiler: Any) -> Any:
    """The tiler's tuple structure with a leaf for every Layout / int / None."""
    if it.is_tuple(tiler):
        return tuple(_guide(t) for t in tiler)
    return 0


def zipped_divide(a: Layout, tiler: Any) -> Layout:
    """``logical_divide`` with the tile modes gathered first and the rest second:
    ``((tile...), (rest...))``. A ``None`` (CuTe's ``_``) in the tiler leaves its mode alone,
    and the zipping takes that mode itself as the (tile, rest) pair, as the CuTe DSL does
    (pycute pairs it with a ``1:0`` tile instead); a mode without exactly two sub-modes there
    is refused, as CuTe refuses it.

    >>> from layouts.cute import Layout
    >>> print(zipped_divide(Layout((2, (3, 4)), (3, (1, 6))), (Layout(3, 2), None)))
    ((3,3),(2,4)):((6,1),(3,6))
    >>> print(zipped_divide(Layout((9, (4, 8)), (59, (13, 1))), (Layout(3, 3), Layout((2, 4), (1, 8)))))
    ((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))
    """
    a = _check_layout(a, "zipped_divide")
    it.check_depth(tiler, "zipped_divide: tiler")
    return _unzip(logical_divide(a, tiler), tiler, "zipped_divide")


def tiled_divide(a: Layout, tiler: Any) -> Layout:
    """``zipped_divide`` with the rest modes unpacked: ``((tile...), rest0, rest1, ...)``.

    >>> from layouts.cute import Layout
    >>> print(tiled_divide(Layout((8, 8)), (4, 2)))
    ((4,2),2,4):((1,8),4,16)
    """
    z = zipped_divide(a, tiler)
    return make_layout(z[0], *list(z[1]))


def _unpack_both(z: Layout) -> Layout:
    """``z``'s two modes unpacked one level: ``(t0, t1, ..., r0, r1, ...)``."""
    return make_layout(*list(z[0]), *list(z[1]))


def flat_divide(a: Layout, tiler: Any) -> Layout:
    """``zipped_divide`` with both modes unpacked: ``(tile0, tile1, ..., rest0, rest1, ...)``.

    >>> from layouts.cute import Layout
    >>> print(flat_divide(Layout((9, (4, 8)), (59, (13, 1))), (Layout(3, 3), Layout((2, 4), (1, 8)))))
    (3,(2,4),3,(2,2)):(177,(13,2),59,(26,1))
    """
    return _unpack_both(zipped_divide(a, tiler))


def logical_product(a: Layout, tiler: Any) -> Layout:
    """``A`` repeated over ``B``: ``(A, composition(complement(A, size(A) * cosize(B)), B))``,
    by mode for a tuple; an int ``n`` is the layout ``n:1`` (pycute divides there; CuTe does not).

    Examples
    --------
    >>> from layouts.cute import Layout
    >>> print(logical_product(Layout((2, 2), (4, 1)), Layout(6, 1)))
    ((2,2),(2,3)):((4,1),(2,8))
    >>> print(logical_product(Layout(4), 3))
    (4,3):(1,4)
    """
    if type(a) is Layout and type(tiler) is Layout:  # the hot path: no checks a Layout has passed
        shapes, strides = flat_tuples(tiler)
        n = 1
        for s in flat_tuples(a)[0]:
            n *= s
        m = 1
        for s, d in zip(shapes, strides):
            if s == 0:
                m = 0
                break
            m += (s - 1) * d
        c = _compose_layouts(_complement_flat(a, n * m), tiler)
        return Layout._raw((a._shape, c._shape), (a._stride, c._stride))
    a = _check_layout(a, "logical_product")
    it.check_depth(tiler, "logical_product: tiler")
    if tiler is None:
        return a
    if it.is_tuple(tiler):
        return _by_mode(logical_product, a, tiler, "logical_product")
    b = _tiler_layout(tiler, "logical_product")
    from .layout import cosize
    return make_layout(a, composition(complement(a, size(a) * cosize(b)), b))


def zipped_product(a: Layout, tiler: Any) -> Layout:
    """``logical_product`` with the block modes first and the repeat modes second.

    >>> from layouts.cute import Layout
    >>> print(zipped_product(Layout((2, 2)), (Layout(3), Layout(2))))
    ((2,2),(3,2)):((1,2),(2,1))
    """
    a = _check_layout(a, "zipped_product")
    it.check_depth(tiler, "zipped_product: tiler")
    return _unzip(logical_product(a, tiler), tiler, "zipped_product")


def tiled_product(a: Layout, tiler: Any) -> Layout:
    """``zipped_product`` with the repeat modes unpacked: ``((block...), r0, r1, ...)``.

    >>> from layouts.cute import Layout
    >>> print(tiled_product(Layout((2, 2)), (Layout(3), Layout(2))))
    ((2,2),3,2):((1,2),2,1)
    """
    z = zipped_product(a, tiler)
    return make_layout(z[0], *list(z[1]))


def flat_product(a: Layout, tiler: Any) -> Layout:
    """``zipped_product`` with both modes unpacked: ``(block0, block1, ..., rep0, rep1, ...)``.

    >>> from layouts.cute import Layout
    >>> print(flat_product(Layout((2, 5), (5, 1)), (Layout(3, 5), Layout(4, 6))))
    (2,5,3,4):(5,1,10,30)
    """
    return _unpack_both(zipped_product(a, tiler))


def _append_to(layout: Layout, r: int) -> Layout:
    """``layout`` padded with ``1:0`` modes (which change no offset) to rank ``r``."""
    if len(layout) >= r:
        return layout
    modes = list(layout) + [Layout._raw(1, 0)] * (r - len(layout))
    return make_layout(*modes)


def _rank_sensitive(a: Layout, b: Any, where: str, block_first: bool) -> Layout:
    a = _check_layout(a, where)
    it.check_depth(b, f"{where}: b")
    if it.is_tuple(b):  # a shape (4, 3), or layouts / sizes, one per mode
        b = Layout(b) if all(it.is_int(t) for t in b) else make_layout(*[_tiler_layout(t, where) for t in b])
    b = _tiler_layout(b, where)
    r = max(len(a), len(b))
    result = logical_product(_append_to(a, r), _append_to(b, r))
    first, second = (result[0], result[1]) if block_first else (result[1], result[0])
    if r == 1:  # one mode (A, B): each half whole -- a rank-1 half's own sub-modes are all its elements
        f, g = _whole_mode(first), _whole_mode(second)
        return Layout._raw(((f.shape, g.shape),), ((f.stride, g.stride),))
    if len(first) != r or len(second) != r:  # zip would drop modes: refuse, as the CuTe DSL does
        raise LayoutError(f"{where}: unable to compute the product of {a} and {b}: its halves {first} and {second} "
                          f"do not both have {r} modes to pair")
    return make_layout(*[make_layout(first[i], second[i]) for i in range(r)])


def _whole_mode(x: Layout) -> Layout:
    """``x`` as one mode: its only mode when it is a 1-tuple, else ``x`` itself (all of it)."""
    return x[0] if it.is_tuple(x.shape) and len(x.shape) == 1 else x


def blocked_product(a: Layout, b: Any) -> Layout:
    """``A`` repeated over ``B`` with each mode ``(A_i, B_i)``: blocks of ``A`` laid out by ``B``
    (a tuple of ints is the column-major layout of that shape). Rank: the larger of the two.

    >>> from layouts.cute import Layout
    >>> print(blocked_product(Layout((2, 5), (5, 1)), Layout((3, 4), (1, 3))))
    ((2,3),(5,4)):((5,10),(1,30))
    >>> blocked_product(Layout((2, 5), (5, 1)), (3, 4)) == blocked_product(Layout((2, 5), (5, 1)), Layout((3, 4)))
    True
    """
    return _rank_sensitive(a, b, "blocked_product", True)


def raked_product(a: Layout, b: Any) -> Layout:
    """``A`` repeated over ``B`` with each mode ``(B_i, A_i)``: ``A``'s elements interleaved
    ("raked") across the repeats.

    >>> from layouts.cute import Layout
    >>> print(raked_product(Layout((2, 5), (5, 1)), Layout((3, 4), (1, 3))))
    ((3,2),(4,5)):((10,5),(30,1))
    """
    return _rank_sensitive(a, b, "raked_product", False)
