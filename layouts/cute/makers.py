"""CuTe's other constructor spellings: ``make_shape``, ``make_stride``, ``make_ordered_layout``,
and what ``make_identity_layout`` means here.

CuTe users write ``make_layout(make_shape(8, 8), make_stride(8, 1))`` every day; these take the
same arguments and give the IntTuples and layouts :class:`~layouts.cute.Layout` holds.
``make_identity_layout(shape)`` maps each coordinate to itself through strides that are basis
elements (``E<0>``, ``E<1>``: coordinates, not integers), which an integer stride cannot say; it
is refused, naming what gives the same answers here.

>>> from layouts import cute
>>> print(cute.make_layout(make_shape(8, (2, 2)), make_stride(4, (1, 32))))
(8,(2,2)):(4,(1,32))
>>> print(make_ordered_layout((2, 3, 4), (2, 0, 1)))    # mode 1 fastest, then mode 2, then mode 0
(2,3,4):(12,1,3)
"""

from __future__ import annotations

from typing import Any

from ..errors import LayoutError
from . import int_tuple as it
from .layout import Layout

__all__ = ["make_shape", "make_stride", "make_ordered_layout", "make_identity_layout"]


def make_shape(*modes: Any) -> Any:
    """A shape of these modes (ints or nested tuples): one mode is itself, several a tuple."""
    return _tuple_of(modes, "make_shape", minimum=0)


def make_stride(*modes: Any) -> Any:
    """A stride of these modes (ints or nested tuples, negative allowed)."""
    return _tuple_of(modes, "make_stride", minimum=None)


def _tuple_of(modes: tuple, what: str, minimum: int | None) -> Any:
    if not modes:
        raise LayoutError(f"{what} needs at least one mode, e.g. {what}(8, 8)")
    value = modes[0] if len(modes) == 1 else tuple(modes)
    return it.as_int_tuple(value, f"{what}: argument", minimum=minimum)


def make_ordered_layout(shape: Any, order: Any) -> Layout:
    """The compact layout of ``shape`` whose modes are laid out in ``order``: the mode with the
    smallest order value gets stride 1, the next the product of the sizes before it, and a
    size-1 mode stride 0 (CuTe's ``make_ordered_layout``, ``compact_order``, whose
    ``compact_col_major`` does the same). ``order`` is congruent with ``shape`` or flat with one
    value a leaf; its values are distinct.

    >>> print(make_ordered_layout((1, 2, 3), (0, 2, 1)))
    (1,2,3):(0,3,1)
    """
    shape = it.as_int_tuple(shape, "make_ordered_layout: shape", minimum=0)
    order = it.as_int_tuple(order, "make_ordered_layout: order")
    leaves, ranks = it.flatten(shape), it.flatten(order)
    leaves = leaves if it.is_tuple(leaves) else (leaves,)
    ranks = ranks if it.is_tuple(ranks) else (ranks,)
    if len(ranks) != len(leaves) or (it.is_tuple(order) and it.depth(order) > 1 and not it.congruent(shape, order)):
        raise LayoutError(f"make_ordered_layout: order {order} must give each mode of shape {shape} one value "
                          f"({len(leaves)} of them)")
    if len(set(ranks)) != len(ranks):
        raise LayoutError(f"make_ordered_layout: order {order} repeats a value; each mode needs its own place")
    strides = [0] * len(leaves)
    current = 1
    for i in sorted(range(len(leaves)), key=lambda j: ranks[j]):
        # C++'s compact_col_major gives a size-1 mode stride 0, as make_layout does here
        strides[i] = 0 if leaves[i] == 1 else current
        current *= leaves[i]
    return Layout(shape, _like(shape, iter(strides)))


def _like(shape: Any, values: Any) -> Any:
    if it.is_tuple(shape):
        return tuple(_like(s, values) for s in shape)
    return next(values)


def make_identity_layout(shape: Any) -> Layout:
    """Refused: its strides are CuTe's basis elements (``E<0>``, ``E<1>``), which map an index to
    a coordinate, not to an integer offset."""
    shape = it.as_int_tuple(shape, "make_identity_layout: shape", minimum=0)
    raise LayoutError(f"make_identity_layout({shape}) maps each index to its own coordinate through basis-element "
                      f"strides (E<0>, E<1>), which a layouts.cute.Layout's integer strides cannot hold; for the "
                      f"coordinate of index i use cute.idx2crd(i, {shape}), and for a layout of the same shape "
                      f"cute.make_layout({shape})")
