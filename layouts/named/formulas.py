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

from .._args import MAX_ELEMENTS, check_broadcast, check_size, coordinate
from ..errors import LayoutError, number


def _check(n: Any, c: Any, h: Any, w: Any, N: int, C: int, H: int, W: int) -> tuple:
    """Coordinates checked against the sizes (scalars stay Python ints, arrays become int64),
    and the sizes refused when an int64 array offset could wrap."""
    sizes = [check_size(k, v, "size of axis") for k, v in (("N", N), ("C", C), ("H", H), ("W", W))]
    coords = [coordinate(v, k, k.upper(), size) for (k, v), size in zip((("n", n), ("c", c), ("h", h), ("w", w)), sizes)]
    check_broadcast(dict(zip("nchw", coords)))
    N_, C_, H_, W_ = sizes
    # the total, and every stride the three formulas use (a product of three sizes): an empty axis
    # makes the total 0 while a stride such as C*H*W can still be past int64
    for name, value in (("N*C*H*W", N_ * C_ * H_ * W_), ("C*H*W", C_ * H_ * W_), ("N*H*W", N_ * H_ * W_),
                        ("H*W*C", H_ * W_ * C_)):
        if value > MAX_ELEMENTS:
            raise LayoutError(f"{name} = {number(value)} elements, more than int64 offsets can address")
    return (*coords, *sizes)


def offset_nchw(n: Any, c: Any, h: Any, w: Any, *, N: int, C: int, H: int, W: int) -> Any:
    """``n*CHW + c*HW + h*W + w``."""
    n, c, h, w, N, C, H, W = _check(n, c, h, w, N, C, H, W)
    return n * C * H * W + c * H * W + h * W + w


def offset_nhwc(n: Any, c: Any, h: Any, w: Any, *, N: int, C: int, H: int, W: int) -> Any:
    """``n*HWC + h*WC + w*C + c``."""
    n, c, h, w, N, C, H, W = _check(n, c, h, w, N, C, H, W)
    return n * H * W * C + h * W * C + w * C + c


def offset_chwn(n: Any, c: Any, h: Any, w: Any, *, N: int, C: int, H: int, W: int) -> Any:
    """``c*HWN + h*WN + w*N + n``."""
    n, c, h, w, N, C, H, W = _check(n, c, h, w, N, C, H, W)
    return c * H * W * N + h * W * N + w * N + n
