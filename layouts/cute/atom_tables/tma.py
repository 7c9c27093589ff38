"""The shared-memory swizzle modes of TMA (``CUtensorMapSwizzle``) and of the GMMA/UMMA matrix
descriptors, as CuTe's ``Swizzle<B, M, S>`` of the byte address: the values of CUTLASS's
``copy_traits_sm90_tma_swizzle.hpp``, ``mma_traits_sm90_gmma.hpp`` and ``mma_traits_sm100.hpp``.

A swizzle mode is not a thread-value layout: it permutes the *addresses* a TMA box or a GMMA
operand occupies in shared memory. Within a 16-byte unit (``M = 4`` bits of a byte address) the
data is untouched; ``B`` bits of the 16-byte unit index are XORed with the ``B`` bits ``S``
places above them, so an ``8 x 2^B`` block of 16-byte units is permuted row by row: 32, 64 or
128 bytes per row for ``B = 1, 2, 3``. SM100 adds 128-byte rows of 32-byte atoms
(``Swizzle<2,5,2>``).

:data:`SMEM_ATOMS` gives, per operand major-ness and mode, the canonical layout atom in *bits*
(``Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom_Bits``): ``((B, M, S), shape, stride)``, the
swizzle of the byte address and the (MN, K) tile's layout in bits (8 rows of 16 to 128 bytes);
for elements of ``b`` bits the contiguous mode holds ``1/b`` as many.

>>> TMA_SWIZZLE["B128"]
(3, 4, 3)
>>> SMEM_ATOMS["K_SW128"]
((3, 4, 3), (8, 1024), (1024, 1))
"""

#: TMA swizzle mode -> (B, M, S) of the byte address
TMA_SWIZZLE = {
    "DISABLE": (0, 4, 3),
    "B32": (1, 4, 3),
    "B64": (2, 4, 3),
    "B128": (3, 4, 3),
    "B128_BASE32B": (2, 5, 2),
}

#: GMMA/UMMA canonical shared-memory atoms, in bits: name -> ((B, M, S), shape, stride)
SMEM_ATOMS = {
    "MN_INTER": ((0, 4, 3), (128, 8), (1, 128)),
    "MN_SW32": ((1, 4, 3), (256, 8), (1, 256)),
    "MN_SW64": ((2, 4, 3), (512, 8), (1, 512)),
    "MN_SW128": ((3, 4, 3), (1024, 8), (1, 1024)),
    "MN_SW128_32B": ((2, 5, 2), (1024, 4), (1, 1024)),
    "K_INTER": ((0, 4, 3), (8, 128), (128, 1)),
    "K_SW32": ((1, 4, 3), (8, 256), (256, 1)),
    "K_SW64": ((2, 4, 3), (8, 512), (512, 1)),
    "K_SW128": ((3, 4, 3), (8, 1024), (1024, 1)),
}
