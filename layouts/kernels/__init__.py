"""Fast strided copies between arbitrary views: the one primitive of the conversion engine.

``copy_into(dst, src)`` equals ``np.copyto(dst, src)`` bitwise for two same-shape, same-dtype
arrays with any strides; ``fill_zero(dst)`` sets a view to zero. A copy is

1. planned in pure Python (:mod:`.plan`: unit type, size-1 axes dropped, contiguous axes merged);
2. given to the first strategy of the registry (:mod:`.registry`, one module per strategy in
   :mod:`.strategies`) that accepts it under the machine profile (:mod:`.profile`: CPU features,
   caches, every tuning constant);
3. run by that strategy's numba kernel on flat unsigned buffers, split over threads
   (:mod:`.pool`) when the copy is at least ``thread_min_bytes``.

The choice is cached per (shape, strides, dtype, alignment, profile). :func:`explain_copy` (and
``python -m layouts explain-copy``) says which strategy runs, with which parameters, and why each
one before it declined.

>>> import numpy as np
>>> from layouts.kernels import copy_into, fill_zero
>>> x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)   # NCHW
>>> out = np.empty((2, 4, 5, 3), np.float32)                               # NHWC
>>> copy_into(out, x.transpose(0, 2, 3, 1), threads=1)
>>> bool((out == x.transpose(0, 2, 3, 1)).all())
True
>>> fill_zero(out[:, :, :, 1:]); out[0, 0, 0].tolist()
[0.0, 0.0, 0.0]
"""

from .copy import copied_by_numpy, copy_into, fill_zero, short_rows
from .explain import explain_copy
from .padded import copy_padded_into
from .machine.profile import MachineProfile, current, reference, set_profile, use_profile

__all__ = ["copy_into", "copied_by_numpy", "short_rows", "fill_zero", "copy_padded_into", "explain_copy", "MachineProfile", "current",
           "reference", "set_profile", "use_profile"]
