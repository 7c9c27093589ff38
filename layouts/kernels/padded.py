"""A copy into padded rows: ``dst[..., :C] = src`` and ``dst[..., C:] = 0`` in one pass.

A blocked destination whose block does not divide its axis (``NCHW16c`` with ``C=3``) ends in
rows of ``P`` units of which the last ``P - C`` are padding. A copy of the ``C`` used units
and a zero fill of the rest would pass over every row twice, each time a few units a row;
:func:`copy_padded_into` writes each row once, data and zeros together (the kernels of
:mod:`.jit.padded`: whole 64-byte lines of each source plane transposed in registers).

>>> import numpy as np
>>> from layouts.kernels.padded import copy_padded_into
>>> x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)          # N, C=3, pixels
>>> out = np.full((2, 4, 8), 9, np.float32)                             # N, pixels, P=8
>>> copy_padded_into(out, x.transpose(0, 2, 1), threads=1)
>>> out[1, 2].tolist()
[14.0, 18.0, 22.0, 0.0, 0.0, 0.0, 0.0, 0.0]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..arrays.raw_bytes import whole_elements
from ..errors import LayoutError, LayoutTypeError
from .machine import profile as _profile
from .plan import _UNITS, coalesce
from .records import PADDED, batch_axes, record
from .runtime.pointers import address, flat_view
from .runtime.pool import run_items, thread_count

__all__ = ["copy_padded_into", "explain_padded", "padded_geometry"]

#: pixels a work item moves (a multiple of every line's row count, so a tile never straddles one)
CHUNK = 1 << 14


def _check(dst, src) -> None:
    if not isinstance(dst, np.ndarray) or not isinstance(src, np.ndarray):
        raise LayoutTypeError("copy_padded_into: dst and src must be numpy arrays, got "
                              f"{type(dst).__name__} and {type(src).__name__}")
    if dst.ndim == 0 or dst.ndim != src.ndim or dst.shape[:-1] != src.shape[:-1] or src.shape[-1] > dst.shape[-1]:
        raise LayoutError(f"copy_padded_into: dst shape {dst.shape} must be src's {src.shape} with a last "
                          f"dimension at least as long")
    if dst.dtype != src.dtype:
        raise LayoutError(f"copy_padded_into: dtypes differ: dst {dst.dtype} vs src {src.dtype}")
    if not dst.flags.writeable:
        raise LayoutError("copy_padded_into: dst is read-only")


def copy_padded_into(dst, src, threads=None) -> None:
    """``dst[..., :C] = src; dst[..., C:] = 0`` (every padding byte zero), ``C = src.shape[-1]``.

    Parameters
    ----------
    dst : ndarray, writable
        Rows of ``P`` units (its last dimension), with any strides.
    src : ndarray
        ``dst``'s shape but for the last dimension, ``C <= P``; any strides.
    threads : int or None
        As for :func:`layouts.kernels.copy_into`.

    >>> import numpy as np
    >>> a = np.arange(6, dtype=np.uint8).reshape(2, 3)
    >>> d = np.ones((2, 4), np.uint8); copy_padded_into(d, a); d.tolist()
    [[0, 1, 2, 0], [3, 4, 5, 0]]
    """
    _check(dst, src)
    how = _decide(dst, src, thread_count(threads), _profile.current())
    if how.geometry is None:
        _numpy_padded(dst, src)
        return
    args, batch, nwork, dext, sext, unit = how.geometry
    from .jit import padded
    kernel = padded.pad_nt_kernel if how.stream else padded.pad_kernel
    d, s = flat_view(dst, dext, unit), flat_view(src, sext, unit)
    run_items(kernel, (d, s, args, batch), (), nwork, how.threads)


@dataclass(frozen=True)
class _Decision:
    geometry: tuple | None      # padded_geometry's, or None: numpy copies
    why: str
    threads: int
    threads_why: str
    stream: bool = False


def _decide(dst, src, nth, prof, distinct: bool = False) -> _Decision:
    """How :func:`copy_padded_into` moves these views on up to ``nth`` threads under ``prof``
    (``distinct``: the two are known not to overlap)."""
    if dst.nbytes < prof.small_bytes:
        return _Decision(None, f"{dst.nbytes} bytes < small_bytes ({prof.small_bytes}): two numpy calls are "
                         "cheaper", 1, "numpy's own copy")
    geometry = padded_geometry(dst, src, distinct)
    if geometry is None:
        return _Decision(None, "views the kernels do not take (item size, negative or unaligned strides, "
                         "rows not unit-stride, overlap): np.copyto and a zero fill", 1, "numpy's own copy")
    stream = prof.nt_stores and dst.nbytes >= prof.nt_min_bytes
    why = "each row written once, data and zeros together" + ("; non-temporal stores" if stream else "")
    if nth == 1:
        return _Decision(geometry, why, 1, "asked for 1", stream)
    if dst.nbytes < prof.thread_min("padded"):
        return _Decision(geometry, why, 1, f"{dst.nbytes} bytes < {prof.thread_min('padded')}, where more "
                         "threads start to gain (profile thread_min_bytes)", stream)
    nwork = geometry[2]
    return _Decision(geometry, why, min(nth, nwork), f"{nth} asked, {nwork} work items", stream)


def explain_padded(dst, src, threads=None, label: str = "", distinct: bool = False):
    """What :func:`copy_padded_into` would do with these views: an
    :class:`~layouts.kernels.explain.Explanation` (print it). Nothing is copied or compiled.
    ``distinct``: the two are known not to overlap (their bounds are not checked).

    >>> import numpy as np
    >>> x = np.zeros((8, 3, 224, 224), np.float32)
    >>> out = np.empty((8, 224, 224, 16), np.float32)                   # NCHW16c's one block of C=3
    >>> e = explain_padded(out, x.transpose(0, 2, 3, 1), threads=1)
    >>> e.strategy, e.params["C"], e.params["P"], e.params["pixels"]
    ('padded', 3, 16, 50176)
    """
    from types import SimpleNamespace

    from .explain import Explanation
    _check(dst, src)
    prof = _profile.current()
    how = _decide(dst, src, thread_count(threads), prof, distinct)
    P, C = dst.shape[-1], src.shape[-1]
    plan = SimpleNamespace(kind=f"rows of {P} units, the first {C} from the source, the rest zero",
                           unit=_UNITS.get(dst.itemsize), nbytes=dst.nbytes, batch=())
    if how.geometry is None:
        return Explanation(plan, "numpy", how.why, {}, [], 1, how.threads_why, prof, 1, label)
    args, _, nwork, *_ = how.geometry
    a = args[0]
    params = {"C": C, "P": P, "pixels": int(a["n"]), "source pixel stride": int(a["sJ"]),
              "vector": int(a["sJ"]) == 1 and P in (4, 8, 16, 32), "chunk": CHUNK, "non-temporal stores": how.stream}
    return Explanation(plan, "padded", how.why, params, [], how.threads, how.threads_why, prof, nwork, label)


def _numpy_padded(dst, src) -> None:
    C = src.shape[-1]
    dst, src = whole_elements(dst), whole_elements(src)
    np.copyto(dst[..., :C], src, casting="no")       # first: src may overlap the padding
    dst[..., C:] = np.zeros((), dst.dtype)


def padded_geometry(dst, src, distinct: bool = False):
    """(PADDED record, batch axes, work items, dst span, src span, unit) for the kernels, or None
    when they cannot take these views: an item size other than 1, 2, 4 or 8 bytes, negative or
    unaligned strides, rows that are not unit-stride, overlap, or nothing to move."""
    isz = dst.itemsize
    unit = _UNITS.get(isz)
    if unit is None or dst.dtype.fields is not None or src.size == 0:
        return None
    if address(dst) % isz or address(src) % isz:
        return None
    if any(st < 0 or st % isz for st in dst.strides + src.strides):
        return None
    P, C = dst.shape[-1], src.shape[-1]
    if dst.strides[-1] != isz and P > 1:
        return None
    if not distinct and np.may_share_memory(dst, src):
        return None
    sC = src.strides[-1] // isz if C > 1 else 0
    axes = coalesce([(n, d // isz, s // isz) for n, d, s in zip(dst.shape[:-1], dst.strides[:-1], src.strides[:-1])])
    if axes and axes[-1][1] == P:       # the pixels: rows next to each other in dst
        n, _, sJ = axes.pop()
    else:
        n, sJ = 1, 0
    if any(d < P for _, d, _ in axes):  # rows of dst would overlap or interleave with the pixels'
        return None
    args = record(PADDED, C=C, P=P, n=n, sC=sC, sJ=sJ, dC=0, chunk=CHUNK)
    nbatch = int(np.prod([a[0] for a in axes], dtype=np.int64)) if axes else 1
    nwork = nbatch * -(-n // CHUNK)
    dext = (sum((k - 1) * st for k, st in zip(dst.shape, dst.strides)) + isz)
    sext = sum((k - 1) * st for k, st in zip(src.shape, src.strides)) + isz
    return args, batch_axes(axes), nwork, dext, sext, unit
