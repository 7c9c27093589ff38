"""Read a layout back from an array: which memory order do its strides describe?

Size-1 axes can sit anywhere in memory without changing a single offset, so an array with
``C == 1`` or ``H == W == 1`` is stored identically by several layouts. PyTorch picks one
of them silently; here every candidate is listed, and :func:`layout_of` refuses to guess.

>>> import numpy as np
>>> x = np.zeros((2, 3, 4, 5)).transpose(0, 3, 1, 2)     # logical NCHW, stored NHWC
>>> layout_of(x, "NCHW")
Layout('NHWC', N=2, C=5, H=3, W=4)
>>> [L.spec for L in candidate_layouts(np.zeros((2, 1, 4, 5)), "NCHW")]
['NCHW', 'NHCW', 'CNHW', 'NHWC']
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Iterator

import numpy as np  # noqa: F401 - the examples use np

from ..errors import LayoutError, LayoutTypeError, type_name
from .layout import Layout

#: :func:`candidate_layouts` lists at most this many layouts; more is refused with their count.
MAX_CANDIDATES = 5040
#: How many candidates an ambiguity message names.
SHOWN = 6


def _shape_and_strides(array: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Shape and element strides of a numpy array, a torch tensor, or anything alike."""
    if array is None or isinstance(array, (list, tuple, str, bytes, numbers.Number)):
        hint = f"; a Python {type(array).__name__} has no memory layout (np.asarray it first)" if isinstance(array, (list, tuple)) else ""
        raise LayoutTypeError(f"array must be an array with strides (a numpy array or a torch tensor), got {type_name(array)}{hint}")
    shape = getattr(array, "shape", None)
    try:
        shape = tuple(int(s) for s in shape)
    except (TypeError, ValueError) as err:
        raise LayoutTypeError(f"array must be a numpy array or a torch tensor, got {type_name(array)} (no integer shape)") from err
    stride = getattr(array, "stride", None)
    if callable(stride):  # torch: strides in elements
        return shape, tuple(int(s) for s in stride())
    byte_strides = getattr(array, "strides", None)
    item = getattr(getattr(array, "dtype", None), "itemsize", None)
    if isinstance(item, numbers.Integral) and item == 0 and byte_strides is not None:
        raise LayoutError(f"the array's dtype {array.dtype} has item size 0: it has no element strides to read")
    if byte_strides is None or not isinstance(item, numbers.Integral) or not item:
        raise LayoutTypeError(f"cannot read strides from {type(array).__name__}: expected a numpy array or a torch tensor")
    bad = [(i, s) for i, s in enumerate(byte_strides) if s % item]
    if bad:
        i, s = bad[0]
        raise LayoutError(f"axis {i} has a byte stride of {s}, not a multiple of the item size {item}; no element layout describes it")
    return shape, tuple(int(s) // item for s in byte_strides)


def _check_axes(axes: Any, shape: tuple[int, ...]) -> str:
    """``axes`` upper-cased, after checking it names each dim of ``shape`` once with an ASCII letter."""
    if not isinstance(axes, str):
        raise LayoutTypeError(f"axes must be a string naming each dim of the array such as 'NCHW', got {type_name(axes)}")
    upper = axes.upper()
    if not (axes.isascii() and axes.isalpha()):
        bad = next((ch for ch in axes if not (ch.isascii() and ch.isalpha())), "")
        raise LayoutError(f"axes {axes!r} must be ASCII letters, one per dim of shape {shape}; {bad!r} is not one")
    twice = [a for i, a in enumerate(upper) if a in upper[:i]]
    if twice:
        raise LayoutError(f"axes {axes!r} names axis {twice[0]} twice (case does not count); "
                          f"expected {len(shape)} different letters for shape {shape}")
    if len(axes) != len(shape):
        raise LayoutError(f"axes {axes!r} must name each of the array's {len(shape)} dims once, with letters (shape {shape})")
    return upper


class _Candidates:
    """What is fixed about an array's candidate layouts: the order of the axes that move (extent
    > 1, sorted by stride), their pitch, and the free axes (size 1, or all of them when the array
    is empty) that may stand anywhere. Built in O(n log n); counting the candidates is
    n! / m! (m moving axes); listing them is lazy."""

    def __init__(self, array: Any, axes: Any) -> None:
        shape, strides = _shape_and_strides(array)
        axes = _check_axes(axes, shape)
        self.axes, self.shape = axes, shape
        neg = [a for a, s, n in zip(axes, strides, shape) if s < 0 and n > 1]  # a size-1 axis's stride never counts
        if neg:
            raise LayoutError(f"axis {neg[0]} has a negative stride; a layout stores each axis forwards (copy the array first)")
        empty = 0 in shape
        stride_of = dict(zip(axes, strides))
        extent_of = dict(zip(axes, shape))
        moving = [a for a, n in zip(axes, shape) if n > 1 and not empty]
        moving.sort(key=lambda a: -stride_of[a])
        broadcast = [a for a in moving if stride_of[a] == 0]
        if broadcast:
            raise LayoutError(f"axis {broadcast[0]} has stride 0: the array is broadcast (one element stands for many); copy it first")
        for outer, inner in zip(moving, moving[1:]):
            if stride_of[outer] == stride_of[inner]:
                raise LayoutError(f"axes {outer} and {inner} share the stride {stride_of[inner]}: the array overlaps itself, no layout stores it")
        pitch = {}
        packed = 1
        for a in reversed(moving):  # size-1 axes multiply the packed extent by 1: they never matter here
            if stride_of[a] < packed:
                raise LayoutError(
                    f"axis {a} has stride {stride_of[a]}, but the axes stored inside it span {packed} elements: "
                    f"the array interleaves its axes, no layout stores it"
                )
            if stride_of[a] > packed:
                pitch[a] = stride_of[a]
            packed = stride_of[a] * extent_of[a]
        self.moving, self.pitch = moving, pitch
        self.free = [a for a in axes if a not in moving]
        self.dims = dict(zip(axes, shape))

    @property
    def count(self) -> int:
        """How many layouts store the array: the ways to place the free axes among the moving ones."""
        return math.factorial(len(self.axes)) // math.factorial(len(self.moving))

    def orders(self) -> Iterator[str]:
        """Every candidate order, lazily, the given order's neighbours first (each position takes
        the axis that comes earliest in ``axes`` among those allowed there)."""
        rank = {a: i for i, a in enumerate(self.axes)}
        n = len(self.axes)

        def walk(prefix: list[str], next_moving: int, free: list[str]) -> Iterator[str]:
            if len(prefix) == n:
                yield "".join(prefix)
                return
            options = list(free)
            if next_moving < len(self.moving):
                options.append(self.moving[next_moving])
            for a in sorted(options, key=rank.__getitem__):
                if next_moving < len(self.moving) and a == self.moving[next_moving]:
                    yield from walk(prefix + [a], next_moving + 1, free)
                else:
                    yield from walk(prefix + [a], next_moving, [f for f in free if f != a])

        return walk([], 0, list(self.free))

    def layout(self, order: str) -> Layout:
        return Layout(order, pitch=self.pitch or None, **self.dims)

    def why(self) -> str:
        """The rule that makes several layouts store the array alike."""
        if 0 in self.shape:
            return f"the array is empty (axis {self.axes[self.shape.index(0)]} has size 0), so every order stores it"
        ones = self.free
        return (f"size-1 {'axes' if len(ones) > 1 else 'axis'} {', '.join(ones)} {'let' if len(ones) > 1 else 'lets'} "
                f"{self.count} layouts store this array")


def candidate_layouts(array: Any, axes: str) -> list[Layout]:
    """Every layout that stores ``array`` exactly as its strides do.

    ``axes`` names the array's dims in the order of its shape (``"NCHW"`` for a torch
    tensor, whatever its memory format). Rows padded wider than packed (an OpenCV ROI,
    a slice) come back as a ``pitch``. Candidates are ordered from the one closest to
    ``axes`` (fewest axes out of the given order).

    The work is polynomial in the rank: the axes of extent > 1 are sorted by stride once, and
    only the size-1 axes (every axis of an empty array) may stand anywhere. Their places number
    n! / m! (n axes, m of extent > 1); more than :data:`MAX_CANDIDATES` of them is refused with
    the count, the rule and the first few, instead of building millions of layouts.

    >>> import numpy as np
    >>> candidate_layouts(np.zeros((4, 6, 3))[:, :4], "HWC")
    [Layout('HWC', C=3, H=4, W=4, pitch={'H': 18})]
    """
    found = _Candidates(array, axes)
    if found.count > MAX_CANDIDATES:
        raise LayoutError(_too_many(found))
    ranked = sorted(found.orders(), key=lambda order: _inversions(order, found.axes))
    return [found.layout(order) for order in ranked]


def _too_many(found: _Candidates) -> str:
    first = [order for _, order in zip(range(SHOWN), found.orders())]
    return (f"ambiguous: {found.why()} identically, more than candidate_layouts lists "
            f"(layouts.named.infer.MAX_CANDIDATES = {MAX_CANDIDATES}); the first few: {', '.join(map(repr, first))} ...; "
            f"pass prefer=... to layout_of to choose one")


def _inversions(order: str, reference: str) -> int:
    pos = [reference.index(a) for a in order]
    return sum(1 for i in range(len(pos)) for j in range(i + 1, len(pos)) if pos[i] > pos[j])


def layout_of(array: Any, axes: str, prefer: str | list[str] | None = None) -> Layout:
    """The one layout that stores ``array``; a :class:`LayoutError` listing all if several do.

    ``prefer`` (a spec or a list of specs) picks among equally valid candidates, the way a
    caller who knows the array came from, say, a channels-last tensor would. The first
    preferred spec that stores the array wins; each is checked directly, so this stays fast
    however many candidates there are. An ambiguity lists every candidate when there are few,
    else their count, the rule and the first few.

    >>> import numpy as np
    >>> layout_of(np.zeros((1, 3, 2, 2)), "NCHW", prefer="NCHW").spec
    'NCHW'
    >>> layout_of(np.zeros((1, 3, 2, 2)), "NCHW")
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: ambiguous: size-1 axis N lets 4 layouts store this array identically: 'NCHW', 'CNHW', 'CHNW', 'CHWN'; pass prefer=... to choose
    """
    found = _Candidates(array, axes)
    wanted = _preferred(prefer)
    if found.count == 1:
        return found.layout(next(iter(found.orders())))
    for spec in wanted:
        if _stores(found, spec):
            return found.layout(spec)
    if found.count > MAX_CANDIDATES:
        raise LayoutError(_too_many(found))
    ranked = sorted(found.orders(), key=lambda order: _inversions(order, found.axes))
    shown = ", ".join(map(repr, ranked[:24]))
    raise LayoutError(f"ambiguous: {found.why()} identically: {shown}{' ...' if len(ranked) > 24 else ''}; pass prefer=... to choose")


def _preferred(prefer: Any) -> list[str]:
    if prefer is None:
        return []
    wanted = [prefer] if isinstance(prefer, str) else prefer
    if not isinstance(wanted, (list, tuple)) or not all(isinstance(p, str) for p in wanted):
        raise LayoutTypeError(f"prefer must be a spec string such as 'NHWC' or a list of them, got {type_name(prefer)}")
    return [p.upper() for p in wanted]


def _stores(found: _Candidates, spec: str) -> bool:
    """Whether the order ``spec`` is one of the candidates: each axis once, moving ones in stride order."""
    if sorted(spec) != sorted(found.axes):
        return False
    return [a for a in spec if a in found.moving] == found.moving
