"""CuTe's layout algebra (NVIDIA CUTLASS 3/4) in pure Python, bridged to :class:`layouts.Layout`.

A layout is a hierarchical ``Shape:Stride``; tiling, partitioning and swizzling are
``composition``, ``complement``, the divides and products and ``Swizzle<B, M, S>``. Results
follow CuTe C++ with static integers (where pycute and tensor-layouts differ from it, CuTe wins).

>>> from layouts import cute
>>> L = cute.Layout((2, (2, 2)), (4, (1, 2)))
>>> print(L)
(2,(2,2)):(4,(1,2))
>>> cute.size(L), cute.cosize(L), cute.rank(L), cute.depth(L), L(1, (0, 1)), L(5)
(8, 8, 2, 2, 6, 6)
>>> print(cute.composition(L, cute.Layout(4, 2)))
4:1
>>> import layouts as ly
>>> print(ly.Layout("nChw8c", N=1, C=16, H=2, W=2).to_cute())
(1,(8,2),2,2):(64,(1,32),16,8)
"""

from .algebra import (complement, composition, left_inverse, max_common_layout, max_common_vector, nullspace,
                      right_inverse)
from .divide_product import (blocked_product, flat_divide, flat_product, logical_divide, logical_product,
                             raked_product, tiled_divide, tiled_product, zipped_divide, zipped_product)
from .slicing import _, Underscore
from .explain import explain, formula, print_layout
from .int_tuple import crd2idx, idx2crd, is_int, is_tuple, product
from .tuple_algebra import (Integer, crd2crd, elem_scale, inner_product, prefix_product, shape_div, shiftl, shiftr,
                            signum, tuple_max)
from .layout import (Layout, coalesce, cosize, depth, filter, flatten, make_layout, rank, size, slice_,
                     slice_and_offset)
from .makers import make_identity_layout, make_ordered_layout, make_shape, make_stride
from .swizzle import ComposedLayout, Swizzle, is_layout
from . import atoms

__all__ = [
    "Layout", "ComposedLayout", "Swizzle", "make_layout", "make_shape", "make_stride", "make_ordered_layout",
    "make_identity_layout",
    "size", "cosize", "rank", "depth", "coalesce", "filter", "flatten",
    "composition", "complement", "right_inverse", "left_inverse", "max_common_layout", "max_common_vector",
    "nullspace", "logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
    "logical_product", "zipped_product", "tiled_product", "flat_product", "blocked_product", "raked_product",
    "_", "Underscore", "slice_", "slice_and_offset",
    "crd2idx", "idx2crd", "formula", "explain", "print_layout", "atoms",
    # the integer-tuple arithmetic under CuTe's (and pycute's) names
    "is_int", "is_tuple", "is_layout", "product", "inner_product", "shape_div", "prefix_product", "elem_scale",
    "crd2crd", "signum", "tuple_max", "shiftl", "shiftr", "Integer",
]
