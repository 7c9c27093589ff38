"""What memory a linear layout stands for: each element's offset, and the fastest form to move it.

>>> from layouts.linear import LinearLayout
>>> S = LinearLayout.from_bases({"offset": [[0, 1], [1, 0]]}, ["dim0", "dim1"])
>>> print(memory_form(S))
(2,2):(2,1)
"""

from typing import Any

import numpy as np

from ..errors import LayoutError
from .bridges import cute_form, memory_map
from .layout import LinearLayout

MAX_TABLE = 1 << 32      # offsets built as one int64 array: 32 GiB at most


def offsets(layout: LinearLayout) -> np.ndarray:
    """The offset of each element, in index order: the coordinates flattened over the in-dims of
    :func:`memory_map` (the first the fastest, CuTe's colexicographic order)."""
    flat = memory_map(layout).flatten_ins()
    if flat.total_in_size > MAX_TABLE:
        raise LayoutError(f"the offset table of this layout would hold {flat.total_in_size} offsets "
                          f"(2**{flat.total_in_bits}); at most 2**{MAX_TABLE.bit_length() - 1} are built")
    if not flat.in_dim_names:
        return np.zeros(1, dtype=np.int64)
    name = flat.in_dim_names[0]
    return flat.apply({name: np.arange(flat.total_in_size, dtype=np.int64)})["offset"]


def memory_form(layout: LinearLayout) -> Any:
    """The CuTe layout (plain or one swizzle) of ``layout``'s memory, else an offset table."""
    cute = cute_form(memory_map(layout))
    if cute is not None:
        return cute
    from ..kinds import OffsetTable
    return OffsetTable(offsets(layout), f"linear layout {layout!r}")
