"""Who moves a conversion's bytes: numpy, until numba's kernels have paid for their load.

Loading numba and its first kernel costs a new process about half a second, far more than
numpy spends on a small conversion. So :func:`layouts.convert` copies with ``np.copyto`` (the
same strided views, bitwise the same result) until the process has copied :data:`RENT_BYTES`
that way, then loads the kernels and keeps them: the rule of renting skis until the rent
would have paid for a pair. A script that converts a few tensors never loads numba; a loop of
conversions pays at most about one load's worth of numpy's slower copies before it runs at
kernel speed.

The kernels are used from the first conversion when

- numba is already imported in this process (its start-up is mostly paid),
- :func:`load_kernels` has run (a server that wants even first requests at kernel speed calls
  it at start-up), or
- the environment sets ``LAYOUTS_EAGER_KERNELS=1``.

Only the time differs: every path writes the same bytes.

>>> import numpy as np, layouts as ly
>>> from layouts.conversion import loading as kernel_loading
>>> x = np.arange(2 * 3 * 4 * 5, dtype=np.uint8).reshape(2, 3, 4, 5)
>>> np.array_equal(ly.convert(x, "NCHW", "NHWC"), x.transpose(0, 2, 3, 1))
True
>>> kernel_loading.movers(x.nbytes).copy_into.__module__ in ("layouts.kernels.copy", "layouts.conversion.loading")
True
"""

from __future__ import annotations

import os
import sys
import threading
from types import ModuleType, SimpleNamespace

import numpy as np

from ..arrays.raw_bytes import whole_elements

__all__ = ["NUMPY_MOVERS", "RENT_BYTES", "load_kernels", "loaded", "kernels_loaded", "movers", "numpy_bytes"]

#: bytes a process copies with numpy before its conversions load the kernels; at numpy's
#: slowest transposes (short rows, about 0.7 GB/s) that is about what the load costs
RENT_BYTES = 256 << 20

_lock = threading.Lock()
_rented = 0                 # bytes copied by numpy so far
_kernels: ModuleType | None = None


def copy_into(dst: np.ndarray, src: np.ndarray, threads: object = None) -> None:
    """``np.copyto(dst, src)`` of whole elements: :func:`layouts.kernels.copy_into`'s result
    without its kernels (``threads`` is accepted and unused: numpy copies on the calling thread)."""
    np.copyto(whole_elements(dst), whole_elements(src), casting="no")


def fill_zero(dst: np.ndarray, threads: object = None) -> None:
    """Every byte of ``dst`` zero, as :func:`layouts.kernels.fill_zero` sets it."""
    dst = whole_elements(dst)
    dst[...] = np.zeros((), dst.dtype)


def copy_padded_into(dst: np.ndarray, src: np.ndarray, threads: object = None) -> None:
    """``dst[..., :C] = src`` and every byte of ``dst[..., C:]`` zero, as
    :func:`layouts.kernels.copy_padded_into` writes them."""
    C = src.shape[-1]
    copy_into(dst[..., :C], src)
    fill_zero(dst[..., C:])


#: numpy's movers, what :func:`movers` returns while the rent lasts
NUMPY_MOVERS = SimpleNamespace(copy_into=copy_into, fill_zero=fill_zero, copy_padded_into=copy_padded_into)


def kernels_loaded() -> bool:
    """Whether conversions now run on the kernels (after :func:`load_kernels`, the rent spent,
    ``LAYOUTS_EAGER_KERNELS=1``, or numba imported by anyone)."""
    return _kernels is not None or "numba" in sys.modules or os.environ.get("LAYOUTS_EAGER_KERNELS") == "1"


def numpy_bytes() -> int:
    """Bytes this process's conversions have copied with numpy while the kernels were not loaded."""
    return _rented


def loaded():
    """:mod:`layouts.kernels` once conversions run on it, else None (nothing counted)."""
    return _kernels


def movers(nbytes: int):
    """What moves a conversion of ``nbytes``: :mod:`layouts.kernels`, or numpy's functions
    of the same names (``copy_into``, ``fill_zero``, ``copy_padded_into``) while the rent lasts, counting the bytes."""
    global _rented, _kernels
    if _kernels is not None:
        return _kernels
    if not kernels_loaded():
        with _lock:
            if _rented + nbytes <= RENT_BYTES:
                _rented += nbytes
                return NUMPY_MOVERS
    from .. import kernels
    _kernels = kernels
    return kernels


def load_kernels() -> None:
    """Load numba and the kernels' shared start-up now, so that every later conversion runs on
    the kernels (a first kernel of a kind still loads from numba's cache, in milliseconds).

    >>> import layouts as ly
    >>> ly.load_kernels()
    >>> from layouts.conversion import loading as kernel_loading
    >>> kernel_loading.kernels_loaded()
    True
    """
    global _kernels
    from .. import kernels
    # one kernel call: numba's start-up (its registries) happens at the first kernel it loads
    x = np.zeros((4, 128, 256), np.uint8)          # above the size numpy copies by itself
    kernels.copy_into(np.empty((128, 256, 4), np.uint8), x.transpose(1, 2, 0), threads=1)
    _kernels = kernels
