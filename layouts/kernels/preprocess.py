"""Moved to :mod:`layouts.interop.opencv.blob_kernel`: the fused pass of ``blob_from_images`` is
OpenCV's ``blobFromImages``, not a copy strategy of this package. This alias keeps the old import
working (with a :class:`DeprecationWarning`); its thread rule is now the machine profile's
``blob_thread_min_bytes``, ``blob_chunk_bytes`` and ``blob_load_aware``.
"""

import warnings

from ..interop.opencv.blob_kernel import FAST, HALF_NATIVE, PROTO, idle_cores, normalize_into  # noqa: F401

warnings.warn("layouts.kernels.preprocess moved to layouts.interop.opencv.blob_kernel", DeprecationWarning,
              stacklevel=2)
