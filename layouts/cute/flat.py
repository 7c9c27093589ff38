"""The flat modes of a CuTe layout, and CuTe's right-to-left coalescing of them, on plain tuples
and lists: the inner loops of :mod:`layouts.cute.layout` and :mod:`layouts.cute.algebra`.

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
    # two levels inline (CuTe's layouts rarely nest deeper), the rest by the general flatten
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
    """CuTe's ``bw_coalesce`` as lists: walk the first ``n`` flat modes (all when -1) right to left
    from (new_shape, new_stride), dropping size-1 modes and merging a mode into the next when
    ``s * d`` is the next stride."""
    out_s, out_d = [], []
    cs, cd = new_shape, new_stride
    i = len(shapes) if n < 0 else n
    while i:
        i -= 1
        s = shapes[i]
        if s == 1:
            continue
        d = strides[i]
        if cs == 1:
            cs, cd = s, d
        elif s * d == cd:
            cs *= s
            cd = d
        else:
            out_s.append(cs)
            out_d.append(cd)
            cs, cd = s, d
    out_s.append(cs)
    out_d.append(cd)
    out_s.reverse()
    out_d.reverse()
    return out_s, out_d
