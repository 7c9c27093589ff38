"""Convolution weights between layouts (Caffe/PyTorch OIHW, TensorFlow HWIO, TFLite OHWI, ...),
done by the copy engine.
"""

from __future__ import annotations


import numpy as np

from ...errors import LayoutError
from ..._args import numeric_array, str_arg
from .binaryproto import _is_plain

__all__ = ["convert_weights"]

_WEIGHT_LETTERS = set("OIHWD")


def convert_weights(w, src: str = "OIHW", dst: str = "HWIO", out=None) -> np.ndarray:
    """Convolution weights between layouts: Caffe/PyTorch ``OIHW`` <-> TensorFlow ``HWIO``,
    TFLite ``OHWI``, ``IHWO`` (TFLite depthwise-style), or any other order of the same letters
    (``OIDHW`` <-> ``DHWIO`` for 3-D). Done by :func:`layouts.convert`.

    >>> w = np.arange(2 * 3 * 1 * 2).reshape(2, 3, 1, 2)      # O=2 I=3 H=1 W=2
    >>> bool(convert_weights(w, "OIHW", "HWIO")[0, 1, 2, 0] == w[0, 2, 0, 1])
    True
    """
    from ...conversion.front import convert

    x = numeric_array("w", w)
    for name, spec in (("src", src), ("dst", dst)):
        str_arg(name, spec)
        if not _is_plain(spec) or not set(spec) <= _WEIGHT_LETTERS:
            raise LayoutError(f"{name}={spec[:40]!r}: expected a weight layout over the letters "
                              "O, I, H, W (and D), e.g. 'OIHW', 'HWIO', 'OHWI', 'IHWO'")
    if set(src) != set(dst):
        raise LayoutError(f"src={src!r} and dst={dst!r} name different axes")
    if x.ndim != len(src):
        raise LayoutError(f"weights have shape {x.shape} ({x.ndim} axes) but src={src!r} "
                          f"names {len(src)}")
    return convert(x, src, dst, out=out)
