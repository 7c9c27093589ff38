"""Triton's linear layouts in Python: named hardware bits -> tensor indices, linear over GF(2).

The algebra follows Triton 3.9.0 (``LinearLayout.h``), with a Python exception for every bad
input; :mod:`layouts.linear.triton` builds Triton's encodings (Gluon's names); the bridges read
CuTe and framework layouts as linear layouts and back.

>>> from layouts import linear
>>> mma = linear.LinearLayout.from_bases(
...     {"register": [[0, 1]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}, ["dim0", "dim1"])
>>> mma(register=1, lane=6)
{'dim0': 1, 'dim1': 5}
>>> print(linear.to_cute(mma))
(2,(4,8)):(8,(16,1))
"""

from .layout import LinearLayout
from .algebra import divide_left, divide_right, supremum
from .bridges import NotCuteRepresentable, NotLinear, from_cute, from_layout, memory_map, to_cute
from .utils import ensure_layout_not_larger_than, ensure_layout_not_smaller_than, identity_standard_nd

__all__ = [
    "LinearLayout", "divide_left", "divide_right", "supremum",
    "ensure_layout_not_larger_than", "ensure_layout_not_smaller_than", "identity_standard_nd",
    "from_cute", "to_cute", "from_layout", "memory_map", "NotLinear", "NotCuteRepresentable",
    "distributed_view", "shared_view", "matrix_view",
]


def __getattr__(name):        # the text views load when first asked for
    if name in ("distributed_view", "shared_view", "matrix_view"):
        from . import views
        return getattr(views, name)
    raise AttributeError(f"module 'layouts.linear' has no attribute {name!r}")
