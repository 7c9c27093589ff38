"""Shared memory without guesswork: bank conflicts, vector width and the best swizzle.

Any layout kind is a shared layout (:func:`memory_of`); an :class:`Access` says which thread
holds which element and how wide each request is (or :func:`ldmatrix`/:func:`stmatrix` bring
their own thread map); :func:`conflicts` counts the wavefronts by the hardware's model
(:mod:`layouts.smem.model`); :func:`best_swizzle` searches the shared layout that serves given
reads and writes best.

>>> from layouts import cute, smem
>>> tile = cute.Layout((8, 64), (64, 1))
>>> smem.conflicts(tile, smem.ldmatrix(x4=True)).ways
8
>>> smem.conflicts(cute.composition(cute.Swizzle(3, 3, 3), tile), smem.ldmatrix(x4=True)).ways
1
>>> smem.best_swizzle(reads=[smem.ldmatrix(x4=True)], shape=(8, 64)).conflicts[0].ways
1
"""

from .access import Access
from .best_swizzle import BestSwizzle, best_swizzle, instruction_conflicts
from .conflicts import Conflicts, Phase, conflicts
from .conversion import ConversionPlan, layout_conversion
from .instructions import ldmatrix, lds, stmatrix, sts
from .memory import SharedMemory, memory_of
from ..errors import LayoutError, LayoutTypeError

__all__ = ["Access", "BestSwizzle", "Conflicts", "ConversionPlan", "LayoutError", "LayoutTypeError", "Phase", "SharedMemory",
           "best_swizzle", "instruction_conflicts", "conflicts", "layout_conversion", "ldmatrix", "lds", "memory_of", "stmatrix", "sts"]
