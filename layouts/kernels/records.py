"""Named argument records for the numba kernels.

Every kernel takes its geometry and tuning as one numpy structured record (a 1-element array of
a dtype declared here) and its batch axes as an array of ``(n, d, s)`` records, and reads them by
field name: ``a = args[0]; a.ni``. A misspelt field is a numba typing error at compile time, and
:func:`record` refuses a missing or unknown field in Python, so no value is ever read by its
slot number. Every field is a uint64 (numba's unsigned index arithmetic vectorises; signed
indices bring wrap-around checks that block it).

>>> r = record(ROWS, n=3, dI=1, sI=2)
>>> int(r[0]["sI"]), r.dtype.names
(2, ('n', 'dI', 'sI'))
>>> record(ROWS, n=3, dI=1)
Traceback (most recent call last):
...
layouts.errors.LayoutError: ROWS record: missing field sI
>>> int(batch_axes([(2, 60, 60)])[0]["d"])
60
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from ..errors import LayoutError

__all__ = ["record", "batch_axes", "BATCH", "ROWS", "TILES", "GROUPED_TILES", "SMALL", "PADDED", "GROUP", "RECTS"]


def _fields(*names: str) -> np.dtype:
    return np.dtype([(n, np.uint64) for n in names])


#: one batch axis: n indices, dst stride d and src stride s (units)
BATCH = _fields("n", "d", "s")
#: rows: ``dst[db + k*dI] = src[sb + k*sI]`` for k < n, per batch index
ROWS = _fields("n", "dI", "sI")
#: a transpose ``dst[db + j*dJ + i*dI] = src[sb + i*sI + j*sJ]``, done by tiles of TI x TL over
#: i in [ia, ie), j in [ja, je), in cache blocks of Bi x Bj; a work item is one of the ``nbi``
#: blocks of i by one of the ``njc`` runs of Jc columns (a multiple of Bj); ``js``: where the
#: straddling tiles stop. The counts come from :mod:`.geometry` (the kernels never re-derive them)
TILES = _fields("ni", "nj", "dI", "dJ", "sI", "sJ", "ia", "ie", "ja", "je", "js", "Bi", "Bj", "Jc", "TI", "TL",
                "nbi", "njc")
#: TILES walked over groups of PB consecutive batch indices (of nb) a work item
GROUPED_TILES = _fields(*TILES.names, "PB", "nb")
#: (de)interleave of C (2..4) units: the long axis has n elements at ``stride`` on the far side,
#: cut in chunks of ``chunk``; the non-temporal kernels stage ``block`` elements of it at a time
SMALL = _fields("C", "n", "stride", "chunk")
#: rows of P units of a padded block <-> C planes: n pixels (cut in chunks of ``chunk``), the
#: planes sC (source) or dC (destination) apart, the source pixels sJ apart
PADDED = _fields("C", "P", "n", "sC", "sJ", "dC", "chunk")
#: word-grouped transposes: stage A zips 4 / itemsize source rows per word row of a chunk of Q columns
GROUP = _fields("ni", "nj", "dJ", "sI", "Q")
#: one rectangle of a transpose's edges: i in [i0, i1), j in [j0, j1); ``narrow``: by narrow tiles
RECTS = _fields("i0", "i1", "j0", "j1", "narrow")

_NAMES = {BATCH: "BATCH", ROWS: "ROWS", TILES: "TILES", GROUPED_TILES: "GROUPED_TILES", SMALL: "SMALL", PADDED: "PADDED", GROUP: "GROUP", RECTS: "RECTS"}


def record(dtype: np.dtype, **fields: int) -> np.ndarray:
    """A 1-element array of ``dtype`` with every field given by name (none missing, none extra)."""
    names = dtype.names
    missing = [n for n in names if n not in fields]
    extra = [n for n in fields if n not in names]
    if missing or extra:
        what = f"missing field {', '.join(missing)}" if missing else f"no field {', '.join(extra)}"
        raise LayoutError(f"{_NAMES.get(dtype, 'record')} record: {what}")
    out = np.zeros(1, dtype)
    for n in names:
        out[0][n] = int(fields[n])
    return out


def records(dtype: np.dtype, rows: Iterable[tuple[int, ...]]) -> np.ndarray:
    """An array of ``dtype`` records, one per tuple (fields in the dtype's order)."""
    return np.array([tuple(int(v) for v in r) for r in rows], dtype)


def batch_axes(batch: Iterable[tuple[int, int, int]]) -> np.ndarray:
    """The batch axes ``((n, dst stride, src stride), ...)`` outer to inner as BATCH records."""
    return records(BATCH, batch)
