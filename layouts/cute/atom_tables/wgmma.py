"""SM90's warpgroup MMA atoms (``wgmma.mma_async``): the values of CUTLASS's
``mma_traits_sm90_gmma.hpp`` and ``mma_traits_sm90_gmma_ext.hpp`` (CUTLASS commit 7107b05).

CUTLASS names every instance ``SM90_64xNxK_<types>_{SS,RS}[_TN][_SATURATE]``: M is 64, K is 256
bits of the A/B type, N runs over :data:`FAMILIES`' list. A and B come from shared memory (``SS``:
every one of the 128 threads names the whole tile through a descriptor, thread stride 0) or A
from registers (``RS``: :data:`REGISTER_A` by K); the accumulator is spread over the warpgroup,
warp ``w`` holding rows ``16w .. 16w + 15``. Layouts are ``(shape, stride)``.

>>> sorted(names_of("F32F16F16", 16, "", ALL_N))[:2]
['SM90_64x104x16_F32F16F16_RS', 'SM90_64x104x16_F32F16F16_SS']
>>> accumulator(16)
(((4, 8, 4), (2, 2, 2)), ((128, 1, 16), (64, 8, 512)))
"""

#: every N of the floating-point families: 8, 16, ..., 256
ALL_N = tuple(range(8, 257, 8))
#: the integer families' N: 8, 24 and the multiples of 16
INTEGER_N = (8, 16, 24) + tuple(range(32, 257, 16))

#: (types, K, name suffix, Ns); the integer families also come ``_SATURATE``
FAMILIES = (
    ("F16F16F16", 16, "", ALL_N),
    ("F32F16F16", 16, "", ALL_N),
    ("F32BF16BF16", 16, "", ALL_N),
    ("F32TF32TF32", 8, "_TN", ALL_N),
    *((f"{acc}{a}{b}", 32, "_TN", ALL_N)
      for acc in ("F16", "F32") for a in ("E4M3", "E5M2") for b in ("E4M3", "E5M2")),
    *((f"S32{a}{b}", 32, "_TN", INTEGER_N) for a in ("S8", "U8") for b in ("S8", "U8")),
)
SATURATING = ("S32S8S8", "S32S8U8", "S32U8S8", "S32U8U8")

#: the register-sourced A (``ALayout_64xK``) by K: (thread, value) -> m + 64 * k
REGISTER_A = {
    8: (((4, 8, 4), (2, 2)), ((64, 1, 16), (8, 256))),
    16: (((4, 8, 4), (2, 2, 2)), ((128, 1, 16), (64, 8, 512))),
    32: (((4, 8, 4), (4, 2, 2)), ((256, 1, 16), (64, 8, 1024))),
}


def accumulator(n: int) -> tuple:
    """``CLayout_64xN``: thread ``t = lane + 32 w``, value ``v`` -> element ``m + 64 n`` of the
    64 x N accumulator (the N/8 column blocks of 8 are the last value mode)."""
    return ((4, 8, 4), (2, 2, n // 8)), ((128, 1, 16), (64, 8, 512))


def from_shared(rows: int, k: int) -> tuple:
    """``ABLayout<rows, K>``: all 128 threads see the whole ``rows x K`` tile (a descriptor)."""
    return (128, (rows, k)), (0, (1, rows))


def names_of(types: str, k: int, suffix: str, ns: tuple) -> dict:
    """The family's CUTLASS names -> (N, K, operand source)."""
    tails = ("", "_SATURATE") if types in SATURATING else ("",)
    return {f"SM90_64x{n}x{k}_{types}_{src}{suffix}{tail}": (n, k, src)
            for n in ns for src in ("SS", "RS") for tail in tails}
