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

import itertools
from typing import Any

from .errors import LayoutError
from .layout import Layout


def _shape_and_strides(array: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Shape and element strides of a numpy array, a torch tensor, or anything alike."""
    shape = tuple(int(s) for s in array.shape)
    stride = getattr(array, "stride", None)
    if callable(stride):  # torch: strides in elements
        return shape, tuple(int(s) for s in stride())
    byte_strides = getattr(array, "strides", None)
    item = getattr(getattr(array, "dtype", None), "itemsize", None)
    if byte_strides is None or not item:
        raise LayoutError(f"cannot read strides from {type(array).__name__}: expected a numpy array or a torch tensor")
    bad = [(i, s) for i, s in enumerate(byte_strides) if s % item]
    if bad:
        i, s = bad[0]
        raise LayoutError(f"axis {i} has a byte stride of {s}, not a multiple of the item size {item}; no element layout describes it")
    return shape, tuple(int(s) // item for s in byte_strides)


def candidate_layouts(array: Any, axes: str) -> list[Layout]:
    """Every layout that stores ``array`` exactly as its strides do.

    ``axes`` names the array's dims in the order of its shape (``"NCHW"`` for a torch
    tensor, whatever its memory format). Rows padded wider than packed (an OpenCV ROI,
    a slice) come back as a ``pitch``. Candidates are ordered from the one closest to
    ``axes``.

    >>> import numpy as np
    >>> candidate_layouts(np.zeros((4, 6, 3))[:, :4], "HWC")
    [Layout('HWC', C=3, H=4, W=4, pitch={'H': 18})]
    """
    shape, strides = _shape_and_strides(array)
    axes = str(axes)
    if len(axes) != len(shape) or len(set(axes)) != len(axes) or not axes.isalpha():
        raise LayoutError(f"axes {axes!r} must name each of the array's {len(shape)} dims once, with letters (shape {shape})")
    axes = axes.upper()
    neg = [a for a, s, n in zip(axes, strides, shape) if s < 0 and n > 1]  # a size-1 axis's stride never counts
    if neg:
        raise LayoutError(f"axis {neg[0]} has a negative stride; a layout stores each axis forwards (copy the array first)")
    empty = 0 in shape
    moving = [a for a, n in zip(axes, shape) if n > 1 and not empty]
    stride_of = dict(zip(axes, strides))
    extent_of = dict(zip(axes, shape))
    moving.sort(key=lambda a: -stride_of[a])
    broadcast = [a for a in moving if stride_of[a] == 0]
    if broadcast:
        raise LayoutError(f"axis {broadcast[0]} has stride 0: the array is broadcast (one element stands for many); copy it first")
    for outer, inner in zip(moving, moving[1:]):
        if stride_of[outer] == stride_of[inner]:
            raise LayoutError(f"axes {outer} and {inner} share the stride {stride_of[inner]}: the array overlaps itself, no layout stores it")
    dims = dict(zip(axes, shape))
    found = []
    for order in itertools.permutations(axes):
        if [a for a in order if a in moving] != moving:
            continue
        pitch = {}
        packed = 1
        for a in reversed(order):
            if a in moving:
                if stride_of[a] < packed:
                    raise LayoutError(
                        f"axis {a} has stride {stride_of[a]}, but the axes stored inside it span {packed} elements: "
                        f"the array interleaves its axes, no layout stores it"
                    )
                if stride_of[a] > packed:
                    pitch[a] = stride_of[a]
                packed = stride_of[a]
            packed *= extent_of[a]
        found.append((_inversions(order, axes), Layout("".join(order), pitch=pitch or None, **dims)))
    found.sort(key=lambda t: t[0])
    return [layout for _, layout in found]


def _inversions(order: tuple[str, ...], reference: str) -> int:
    pos = [reference.index(a) for a in order]
    return sum(1 for i in range(len(pos)) for j in range(i + 1, len(pos)) if pos[i] > pos[j])


def layout_of(array: Any, axes: str, prefer: str | list[str] | None = None) -> Layout:
    """The one layout that stores ``array``; a :class:`LayoutError` listing all if several do.

    ``prefer`` (a spec or a list of specs) picks among equally valid candidates, the way a
    caller who knows the array came from, say, a channels-last tensor would.

    >>> import numpy as np
    >>> layout_of(np.zeros((1, 3, 2, 2)), "NCHW", prefer="NCHW").spec
    'NCHW'
    >>> layout_of(np.zeros((1, 3, 2, 2)), "NCHW")
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: ambiguous: size-1 axis N lets 4 layouts store this array identically: NCHW, CNHW, CHNW, CHWN; pass prefer=... to choose
    """
    found = candidate_layouts(array, axes)
    if len(found) == 1:
        return found[0]
    if prefer is not None:
        wanted = [prefer] if isinstance(prefer, str) else list(prefer)
        for spec in wanted:
            for layout in found:
                if layout.spec == spec.upper():
                    return layout
    shape = tuple(int(n) for n in array.shape)
    if 0 in shape:
        why = f"the array is empty (axis {axes.upper()[shape.index(0)]} has size 0), so every order stores it"
    else:
        ones = [a for a, n in zip(axes.upper(), shape) if n == 1]
        why = f"size-1 {'axes' if len(ones) > 1 else 'axis'} {', '.join(ones)} {'let' if len(ones) > 1 else 'lets'} {len(found)} layouts store this array"
    raise LayoutError(
        f"ambiguous: {why} identically: {', '.join(L.spec for L in found[:24])}"
        f"{' ...' if len(found) > 24 else ''}; pass prefer=... to choose"
    )
