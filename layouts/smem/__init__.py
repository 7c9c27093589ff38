"""Shared memory without guesswork: bank conflicts, vector width and the best swizzle (issue 42).

Any layout kind is a shared layout (:func:`memory_of`); an :class:`Access` says which thread
holds which element and how wide each request is (or :func:`ldmatrix`/:func:`stmatrix` bring
their own thread map); :func:`conflicts` counts the wavefronts by the hardware's model
(:mod:`layouts.smem.model`).

>>> from layouts import cute, smem
>>> tile = cute.Layout((8, 64), (64, 1))
>>> smem.conflicts(tile, smem.ldmatrix(x4=True)).ways
8
>>> smem.conflicts(cute.composition(cute.Swizzle(3, 3, 3), tile), smem.ldmatrix(x4=True)).ways
1
"""

from .access import Access
from .best_swizzle import BestSwizzle, best_swizzle
from .conflicts import Conflicts, Phase, conflicts
from .instructions import ldmatrix, lds, stmatrix, sts
from .memory import SharedMemory, memory_of
from ..errors import LayoutError, LayoutTypeError

__all__ = ["LayoutError", "LayoutTypeError", "Access", "BestSwizzle", "Conflicts", "Phase", "SharedMemory", "best_swizzle", "conflicts", "ldmatrix", "lds", "memory_of",
           "stmatrix", "sts"]
