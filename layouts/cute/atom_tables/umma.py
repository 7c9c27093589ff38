"""SM100's tensor-core MMA atoms (``tcgen05.mma``): the values of CUTLASS's
``mma_traits_sm100.hpp`` and the shape limits of ``arch/mma_sm100_umma.hpp`` (commit 7107b05).

One thread issues a UMMA for its CTA, so CUTLASS's TV layouts are trivial: one "thread" that
holds the whole ``M x K`` / ``N x K`` / ``M x N`` tile, column-major; the ``2x1SM`` atoms run on
a CTA pair, thread ``i`` (the CTA) holding rows ``i*M/2 ..`` of A and C and columns ``i*N/2 ..``
of B. The atoms are templates over ``M`` and ``N`` (and the operand types, which fix K: 256 bits
of A, twice that for the sparse ones); :data:`OPS` lists them with the shapes their ``static_assert``
allows, and the names here are ``SM100_MMA_<op><M,N>``.

>>> OPS["F16BF16_SS"]
(16, 1, 'SS1')
>>> shapes("MXF4_SS")[:2]
((128, 8), (128, 16))
"""

from __future__ import annotations

#: rule -> {M: (N step, smallest N, extra Ns)}: N runs from the smallest by the step to 256
SHAPE_RULES: dict[str, dict[int, tuple]] = {
    "SS1": {64: (8, 8, ()), 128: (8, 8, ())},
    "TS1": {64: (8, 8, ()), 128: (16, 16, ())},
    "S81": {64: (16, 16, (8,)), 128: (16, 16, (8,))},
    "MX1": {128: (8, 8, ())},
    "SS2": {128: (16, 16, ()), 256: (16, 16, ())},
    "TS2": {128: (32, 32, ()), 256: (32, 32, ())},
    "MX2": {256: (16, 16, ())},
}

#: op -> (K, CTAs, shape rule)
OPS = {
    "TF32_SS": (8, 1, "SS1"), "F16BF16_SS": (16, 1, "SS1"),
    "TF32_TS": (8, 1, "TS1"), "F16BF16_TS": (16, 1, "TS1"),
    "F16BF16_SS_SCALED": (16, 1, "SS1"), "TF32_TS_SCALED": (8, 1, "TS1"), "F16BF16_TS_SCALED": (16, 1, "TS1"),
    "TF32_SS_SPARSE": (16, 1, "SS1"), "F16BF16_SS_SPARSE": (32, 1, "SS1"),
    "S8_SS": (32, 1, "S81"), "S8_TS": (32, 1, "S81"), "S8_SS_SPARSE": (64, 1, "S81"),
    "F8F6F4_SS": (32, 1, "SS1"), "F8F6F4_TS": (32, 1, "TS1"), "F8F6F4_SS_SPARSE": (64, 1, "TS1"),
    "MXF8F6F4_SS": (32, 1, "MX1"), "MXF8F6F4_SS_SPARSE": (64, 1, "MX1"),
    "MXF4_SS": (64, 1, "MX1"), "MXF4NVF4_SS_SPARSE": (128, 1, "MX1"),
    "TF32_2x1SM_SS": (8, 2, "SS2"), "F16BF16_2x1SM_SS": (16, 2, "SS2"),
    "TF32_2x1SM_TS": (8, 2, "TS2"), "F16BF16_2x1SM_TS": (16, 2, "TS2"),
    "F16BF16_2x1SM_SS_SCALED": (16, 2, "SS2"), "TF32_2x1SM_TS_SCALED": (8, 2, "TS2"),
    "F16BF16_2x1SM_TS_SCALED": (16, 2, "TS2"),
    "TF32_2x1SM_SS_SPARSE": (16, 2, "SS2"), "F16BF16_2x1SM_SS_SPARSE": (32, 2, "SS2"),
    "S8_2x1SM_SS": (32, 2, "TS2"), "S8_2x1SM_TS": (32, 2, "TS2"), "S8_2x1SM_SS_SPARSE": (64, 2, "TS2"),
    "F8F6F4_2x1SM_SS": (32, 2, "SS2"), "F8F6F4_2x1SM_TS": (32, 2, "TS2"), "F8F6F4_2x1SM_SS_SPARSE": (64, 2, "TS2"),
    "MXF8F6F4_2x1SM_SS": (32, 2, "MX2"), "MXF8F6F4_2x1SM_SS_SPARSE": (64, 2, "MX2"),
    "MXF4_2x1SM_SS": (64, 2, "SS2"), "MXF4NVF4_2x1SM_SS_SPARSE": (128, 2, "SS2"),
}


def shapes(op: str) -> tuple:
    """The ``(M, N)`` the op's template accepts, M then N ascending."""
    out = []
    for m, (step, first, extra) in SHAPE_RULES[OPS[op][2]].items():
        out += [(m, n) for n in sorted(set(extra) | set(range(first, 257, step)))]
    return tuple(out)


def operand(ctas: int, rows: int, k: int) -> tuple:
    """A ``rows x k`` operand tile over ``ctas`` CTAs: CTA ``i`` holds rows ``i*rows/ctas ..``."""
    if ctas == 1:
        return (1, (rows, k)), (0, (1, rows))
    return (2, (rows // 2, k)), (rows // 2, (1, rows))
