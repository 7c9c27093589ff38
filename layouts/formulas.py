"""The EdgeBoard article's three offset formulas, written out exactly as the article does.

They stand apart from :class:`~layouts.Layout` on purpose: a second, hand-written statement
of the same arithmetic that the tests hold the general machinery against.

>>> offset_nchw(1, 1, 0, 1, N=2, C=16, H=5, W=4)
341
>>> offset_nhwc(1, 1, 0, 1, N=2, C=16, H=5, W=4)
337
>>> offset_chwn(1, 1, 0, 1, N=2, C=16, H=5, W=4)
43
"""

from __future__ import annotations

from typing import Any

from .errors import LayoutError


def _check(n: Any, c: Any, h: Any, w: Any, N: int, C: int, H: int, W: int) -> None:
    import numpy as np

    for name, value, size in (("n", n, N), ("c", c, C), ("h", h, H), ("w", w, W)):
        arr = np.asarray(value)
        if arr.size and (arr.min() < 0 or arr.max() >= size):
            raise LayoutError(f"coordinate {name} out of range for axis {name.upper()} of size {size}: got {value!r}")


def offset_nchw(n: Any, c: Any, h: Any, w: Any, *, N: int, C: int, H: int, W: int) -> Any:
    """``n*CHW + c*HW + h*W + w``."""
    _check(n, c, h, w, N, C, H, W)
    return n * C * H * W + c * H * W + h * W + w


def offset_nhwc(n: Any, c: Any, h: Any, w: Any, *, N: int, C: int, H: int, W: int) -> Any:
    """``n*HWC + h*WC + w*C + c``."""
    _check(n, c, h, w, N, C, H, W)
    return n * H * W * C + h * W * C + w * C + c


def offset_chwn(n: Any, c: Any, h: Any, w: Any, *, N: int, C: int, H: int, W: int) -> Any:
    """``c*HWN + h*WN + w*N + n``."""
    _check(n, c, h, w, N, C, H, W)
    return c * H * W * N + h * W * N + w * N + n
