"""The flat modes of a CuTe layout, and the coalescing of a run of flat modes, on plain tuples and
lists: the inner loops of :mod:`layouts.cute.layout` and :mod:`layouts.cute.algebra`.

>>> flat_tuples(type("L", (), {"_flat": None, "_shape": (2, (3, 4)), "_stride": (12, (1, 3))})())
((2, 3, 4), (12, 1, 3))
>>> bw_lists((2, 3, 4), (12, 1, 3), 4, 3, 2)   # coalesce (2,3,4):(12,1,3): 3 and 4 merge
([2, 12], [12, 1])
"""

from __future__ import annotations

from typing import Any

from . import int_tuple as it

__all__ = ["flat_tuples", "leaf_tuple", "bw_lists"]


def flat_tuples(layout: Any) -> tuple[tuple, tuple]:
    """The leaves of a layout's shape and stride as tuples, computed once per layout and kept in
    its ``_flat`` slot (a layout never changes; the tuples are shared, so callers must not change
    them)."""
    flat = layout._flat
    if flat is None:
        shape = layout._shape
        if type(shape) is not tuple:
            flat = ((shape,), (layout._stride,))
        elif not shape:  # ():() maps its one coordinate to 0, as 1:0 does
            flat = ((1,), (0,))
        else:
            for e in shape:
                if type(e) is tuple:
                    flat = (leaf_tuple(shape), leaf_tuple(layout._stride))
                    break
            else:  # already flat, and so is the congruent stride: shared, not copied
                flat = (shape, layout._stride)
        layout._flat = flat
    return flat


def leaf_tuple(t: tuple) -> tuple:
    # two levels inline (layouts rarely nest deeper), the rest by the general flatten
    out: list = []
    for e in t:
        if type(e) is tuple:
            for f in e:
                if type(f) is tuple:
                    out.extend(it.flatten(f))
                else:
                    out.append(f)
        else:
            out.append(e)
    return tuple(out)


def bw_lists(shapes: Any, strides: Any, new_shape: int, new_stride: int, n: int = -1) -> tuple[list, list]:
    """The coalesced flat modes of ``shapes[:n] : strides[:n]`` followed by the mode
    ``new_shape : new_stride`` (``n`` = -1: all of ``shapes``), as two lists.

    Coalescing keeps the function ``i -> offset`` on ``[0, size)`` with the fewest modes (CuTe's
    layout algebra documentation, ``02_layout_algebra.md``, "Coalesce"): a size-1 mode adds
    nothing, so it goes; two neighbours ``s0:d0, s1:d1`` with ``d1 == s0 * d0`` step like one
    mode ``s0*s1 : d0``. Merging is decided pairwise between neighbouring kept modes, so one
    left-to-right pass that grows the last run while the next stride continues it gives the
    same runs as any other order (a run ``s:d`` ends at offset step ``s * d``, the product of
    its sizes times its first stride, which is its last mode's size times its last stride).
    When every mode has size 1 the trailing mode stands alone, its stride as given: callers
    decide what a size-1 layout's stride is.
    """
    count = len(shapes) if n < 0 else n
    run_sizes: list = []
    run_strides: list = []
    run_end = None  # the last run's size times its first stride: the stride that continues it
    for i in range(count):
        size = shapes[i]
        if size != 1:
            stride = strides[i]
            if stride == run_end:
                run_sizes[-1] *= size
            else:
                run_sizes.append(size)
                run_strides.append(stride)
            run_end = size * stride  # = (run size) * (first stride) once stride == run_end
    if new_shape != 1 or not run_sizes:
        if new_stride == run_end:
            run_sizes[-1] *= new_shape
        else:
            run_sizes.append(new_shape)
            run_strides.append(new_stride)
    return run_sizes, run_strides
