"""Arrays of a structured dtype seen as whole elements of raw bytes.

numpy copies and fills a structured array field by field, leaving the bytes between fields (the
padding of ``align=True``) as they were; the kernels move every byte of each element. Every path
that moves a conversion's bytes copies through :func:`whole_elements`, so that all paths write the
same bytes.

>>> import numpy as np
>>> dt = np.dtype([("a", "u1"), ("b", "<f4")], align=True)
>>> whole_elements(np.zeros(3, dt)).dtype
dtype('V8')
>>> whole_elements(np.zeros(3, np.float32)).dtype
dtype('float32')
"""

from __future__ import annotations

import numpy as np

__all__ = ["whole_elements"]


def whole_elements(a: np.ndarray) -> np.ndarray:
    """``a`` itself, or for a structured dtype a view of its elements as raw bytes (same shape
    and strides)."""
    return a if a.dtype.fields is None else a.view(np.dtype((np.void, a.itemsize)))
