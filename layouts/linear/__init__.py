"""Triton's linear layouts in Python: named hardware bits -> tensor indices, linear over GF(2).

>>> from layouts import linear
>>> mma = linear.LinearLayout.from_bases(
...     {"register": [[0, 1]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}, ["dim0", "dim1"])
>>> mma(register=1, lane=6)
{'dim0': 1, 'dim1': 5}
"""

from .layout import LinearLayout
from .algebra import divide_left, divide_right, supremum
from .utils import ensure_layout_not_larger_than, ensure_layout_not_smaller_than, identity_standard_nd

__all__ = [
    "LinearLayout", "divide_left", "divide_right", "supremum",
    "ensure_layout_not_larger_than", "ensure_layout_not_smaller_than", "identity_standard_nd",
]
