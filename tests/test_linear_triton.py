"""``layouts.linear.triton`` without the wheel: the expected bases written in Triton's C++ tests
(``unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp``), the encodings as value objects,
and bad input for every encoding (a LayoutError / LayoutTypeError naming the argument, never an
abort or an AssertionError).

The C++ tests describe a CGA the old way (CTAsPerCGA, CTASplitNum, CTAOrder); :func:`cga` turns
that into Gluon's ``cga_layout`` bases as Triton's ``makeCgaLayout`` does (per dim in CTAOrder:
one unit basis per split bit, then one zero basis per duplicated bit). Where Triton 3.9.0 changed
a result since the test was written, the test says what changed and why the new value holds.
"""

import pytest

from layouts.errors import LayoutError, LayoutTypeError
from layouts.linear import LinearLayout
from layouts.linear import triton as tt


def cga(cpg, split, cta_order):
    """makeCgaLayout's block bases, in CTA tiles."""
    bases = []
    for dim in cta_order:
        for i in range(split[dim].bit_length() - 1):
            bases.append([1 << i if d == dim else 0 for d in range(len(cpg))])
        bases += [[0] * len(cpg) for _ in range((cpg[dim] // split[dim]).bit_length() - 1)]
    return bases


def blocked(spt, tpw, wpc, cpg, split, order, cta_order):
    return tt.BlockedLayout(spt, tpw, wpc, order, cga(cpg, split, cta_order))


def mma(major, minor, instr, warps, cpg=None, split=None, cta_order=None):
    bases = cga(cpg, split, cta_order) if cpg else None
    return tt.NVMMADistributedLayout([major, minor], warps, instr, bases)


def mfma(warps, m, n, transposed):
    """The C++ test's mfma(): version 2 (gfx90a); K does not change the layout."""
    return tt.AMDMFMALayout(2, [m, n, 8 if m == 32 else 16], transposed, warps)


def shared(vec, per_phase, max_phase, cpg, split, order, cta_order):
    return tt.SwizzledSharedLayout(vec, per_phase, max_phase, order, cga(cpg, split, cta_order))


def nvmma(swizzle, transposed, bits, fp4=False):
    return tt.NVMMASharedLayout(swizzle, bits, 2, transposed, fp4)


def R(register, lane, warp, block=()):
    return {"register": register, "lane": lane, "warp": warp, "block": list(block)}


def O(offset, block=()):
    return {"offset": offset, "block": list(block)}


M2 = mma(2, 0, [16, 8], [1, 1], [1, 1], [1, 1], [0, 1])
M3_4x2 = mma(3, 0, [16, 32, 16], [4, 2])
M3_4x4 = mma(3, 0, [16, 16, 8], [4, 4])
DOT_PARENT = blocked([2, 4], [8, 4], [2, 4], [1, 1], [1, 1], [1, 0], [1, 0])
DOT3_PARENT = blocked([2, 2, 4], [2, 4, 4], [2, 2, 2], [1, 1, 1], [1, 1, 1], [2, 1, 0], [2, 1, 0])
MMA_CGA = mma(2, 0, [1, 16, 8], [16, 1, 1], [4, 2, 2], [4, 2, 1], [2, 1, 0])
SLICE_PARENT = blocked([2, 4], [4, 2], [2, 2], [2, 2], [2, 2], [1, 0], [1, 0])
MMA_2x2 = mma(2, 0, [16, 8], [2, 2], [1, 1], [1, 1], [0, 1])
MFMA32 = tt.AMDMFMALayout(2, [32, 32, 8], False, [2, 4])
# the C++ test's wmma(warps, version=2): warpsPerCTA filled in the default MMA order (last dim fastest)
WMMA_2x4 = tt.AMDWMMALayout(2, False, [[0, 1], [0, 2], [1, 0]])
WMMA_2x4x1 = tt.AMDWMMALayout(2, False, [[0, 1, 0], [0, 2, 0], [1, 0, 0]], rank=3)
BLOCKED_4D = blocked([1, 1, 1, 4], [2, 1, 1, 16], [1, 2, 4, 1], [1] * 4, [1] * 4, [3, 0, 1, 2], [3, 2, 1, 0])

# (C++ test name, encoding, shape, expected bases)
CASES = [
    ("SimpleBlocked", blocked([1], [4], [4], [1], [1], [0], [0]), [16], R([], [[1], [2]], [[4], [8]])),
    ("CTADuplication", blocked([1], [4], [4], [4], [2], [0], [0]), [32],
     R([], [[1], [2]], [[4], [8]], [[16], [0]])),
    ("CTABroadcast", blocked([8, 1], [8, 4], [1, 4], [1, 2], [1, 2], [0, 1], [1, 0]), [64, 128],
     R([[1, 0], [2, 0], [4, 0], [0, 16], [0, 32]], [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]],
       [[0, 4], [0, 8]], [[0, 64]])),
    ("ShapeLargerThanLayout", blocked([1], [4], [4], [1], [1], [0], [0]), [128],
     R([[16], [32], [64]], [[1], [2]], [[4], [8]])),
    ("ShapeLargerThanLayout2DDegenerate", blocked([1, 1], [4, 1], [4, 1], [1, 1], [1, 1], [0, 1], [1, 0]),
     [128, 1], R([[16, 0], [32, 0], [64, 0]], [[1, 0], [2, 0]], [[4, 0], [8, 0]])),
    ("ShapeSmallerThanLayout", blocked([4], [4], [4], [1], [1], [0], [0]), [8],
     R([[1], [2]], [[4], [0]], [[0], [0]])),
    ("ReversedOrder", blocked([1, 1], [32, 1], [1, 8], [1, 1], [1, 1], [0, 1], [1, 0]), [1, 64],
     R([[0, 8], [0, 16], [0, 32]], [[0, 0]] * 5, [[0, 1], [0, 2], [0, 4]])),
    ("ReplicateInRegisterDim", blocked([2], [4], [1], [1], [1], [0], [0]), [32],
     R([[1], [8], [16]], [[2], [4]], [])),
    ("OneDimTooLargeAnotherTooSmall", blocked([1, 4], [8, 4], [4, 1], [2, 2], [2, 1], [1, 0], [1, 0]), [128, 16],
     R([[0, 1], [0, 2], [32, 0]], [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], [[8, 0], [16, 0]], [[0, 0], [64, 0]])),
    ("RepeatInCTGDimFirst", blocked([1], [1], [4], [2], [2], [0], [0]), [4], R([], [], [[1], [0]], [[2]])),
    ("SmallerThanCTALayout", blocked([1], [1], [1], [4], [4], [0], [0]), [2], R([], [], [], [[1], [0]])),
    ("Skinny", blocked([8, 1], [8, 4], [1, 4], [1, 2], [1, 2], [0, 1], [0, 1]), [64, 1],
     R([[1, 0], [2, 0], [4, 0]], [[8, 0], [16, 0], [32, 0], [0, 0], [0, 0]], [[0, 0], [0, 0]], [[0, 0]])),
    ("BlockedOrder", blocked([2, 2], [4, 8], [2, 2], [2, 2], [2, 2], [1, 0], [1, 0]), [1024, 128],
     R([[0, 1], [1, 0], [0, 32], [16, 0], [32, 0], [64, 0], [128, 0], [256, 0]],
       [[0, 2], [0, 4], [0, 8], [2, 0], [4, 0]], [[0, 16], [8, 0]], [[0, 64], [512, 0]])),
    # Blocked4D: the C++ test expects register [[0,0,0,0], [0,0,0,0]] (the 4 registers along dim3
    # broadcast onto a dim of size 1); Triton 3.9.0 drops a blocked layout's registers that fall
    # outside the shape instead of broadcasting them, so none are left. Lanes and warps unchanged.
    ("Blocked4D (3.9: outside registers dropped)", BLOCKED_4D, [2, 1, 1, 1],
     R([], [[0, 0, 0, 0]] * 4 + [[1, 0, 0, 0]], [[0, 0, 0, 0]] * 3)),
    ("BlockedDotOperandLhs", tt.DotOperandLayout(0, DOT_PARENT, 0), [32, 16],
     R([[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]], [[0, 0], [0, 0], [2, 0], [4, 0], [8, 0]],
       [[0, 0], [0, 0], [16, 0]])),
    ("BlockedDot3dOperandLhs", tt.DotOperandLayout(0, DOT3_PARENT, 0), [16, 32, 4],
     R([[0, 0, 1], [0, 0, 2], [0, 1, 0], [1, 0, 0], [0, 16, 0], [8, 0, 0]],
       [[0, 0, 0], [0, 0, 0], [0, 2, 0], [0, 4, 0], [2, 0, 0]], [[0, 0, 0], [0, 8, 0], [4, 0, 0]])),
    ("BlockedDotOperandRhs", tt.DotOperandLayout(1, DOT_PARENT, 0), [16, 64],
     R([[0, 1], [0, 2], [1, 0], [2, 0], [4, 0], [8, 0]], [[0, 4], [0, 8], [0, 0], [0, 0], [0, 0]],
       [[0, 16], [0, 32], [0, 0]])),
    ("BlockedDot3dOperandRhs", tt.DotOperandLayout(1, DOT3_PARENT, 0), [16, 4, 64],
     R([[0, 0, 1], [0, 0, 2], [0, 1, 0], [0, 2, 0], [1, 0, 0], [0, 0, 32], [8, 0, 0]],
       [[0, 0, 4], [0, 0, 8], [0, 0, 0], [0, 0, 0], [2, 0, 0]], [[0, 0, 16], [0, 0, 0], [4, 0, 0]])),
    ("MMAv2_16x16", M2, [16, 16], R([[0, 1], [8, 0], [0, 8]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [])),
    ("MMAv2_32x32", M2, [32, 32], R([[0, 1], [8, 0], [0, 8], [0, 16], [16, 0]],
                                     [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [])),
    ("MMAv2_ExtendDim2", M2, [16, 128], R([[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]],
                                           [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [])),
    ("MMAv2_Cga", MMA_CGA, [64, 128, 128],
     R([[0, 0, 1], [0, 8, 0], [0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 0, 64], [0, 16, 0], [0, 32, 0]],
       [[0, 0, 2], [0, 0, 4], [0, 1, 0], [0, 2, 0], [0, 4, 0]], [[1, 0, 0], [2, 0, 0], [4, 0, 0], [8, 0, 0]],
       [[0, 0, 0], [0, 64, 0], [16, 0, 0], [32, 0, 0]])),
    ("MMAv2_Small3D", MMA_CGA, [1, 128, 128],
     R([[0, 0, 1], [0, 8, 0], [0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 0, 64], [0, 16, 0], [0, 32, 0]],
       [[0, 0, 2], [0, 0, 4], [0, 1, 0], [0, 2, 0], [0, 4, 0]], [[0, 0, 0]] * 4,
       [[0, 0, 0], [0, 64, 0], [0, 0, 0], [0, 0, 0]])),
    ("MMAv3_64x16 [16,16,8]", mma(3, 0, [16, 16, 8], [4, 1]), [64, 16],
     R([[0, 1], [8, 0], [0, 8]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [[16, 0], [32, 0]])),
    ("MMAv3_64x16 [16,8,8]", mma(3, 0, [16, 8, 8], [4, 1]), [64, 16],
     R([[0, 1], [8, 0], [0, 8]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [[16, 0], [32, 0]])),
    ("MMAv3_128x16", mma(3, 0, [16, 16, 8], [4, 1]), [128, 16],
     R([[0, 1], [8, 0], [0, 8], [64, 0]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [[16, 0], [32, 0]])),
    ("MMAv3_1024x1024", mma(3, 0, [16, 16, 8], [4, 1]), [1024, 1024],
     R([[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [0, 256], [0, 512], [64, 0], [128, 0],
        [256, 0], [512, 0]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [[16, 0], [32, 0]])),
    ("MMAv3_4x2Warps 64x32", M3_4x2, [64, 32],
     R([[0, 1], [8, 0], [0, 8], [0, 16]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [[16, 0], [32, 0], [0, 0]])),
    ("MMAv3_4x2Warps 64x64", M3_4x2, [64, 64],
     R([[0, 1], [8, 0], [0, 8], [0, 16]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [[16, 0], [32, 0], [0, 32]])),
    ("MMAv3_4x2Warps 128x64", M3_4x2, [128, 64],
     R([[0, 1], [8, 0], [0, 8], [0, 16], [64, 0]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
       [[16, 0], [32, 0], [0, 32]])),
    ("MMAv3_4x2Warps 256x64", M3_4x2, [256, 64],
     R([[0, 1], [8, 0], [0, 8], [0, 16], [64, 0], [128, 0]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
       [[16, 0], [32, 0], [0, 32]])),
    ("MMAv3_4x4Warps 16x16", M3_4x4, [16, 16],
     R([[0, 1], [8, 0], [0, 8]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [[0, 0]] * 4)),
    ("MMAv3_4x4Warps 32x16", M3_4x4, [32, 16],
     R([[0, 1], [8, 0], [0, 8]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [[16, 0], [0, 0], [0, 0], [0, 0]])),
    ("MMAv3_4x4Warps 128x16", M3_4x4, [128, 16],
     R([[0, 1], [8, 0], [0, 8], [64, 0]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
       [[16, 0], [32, 0], [0, 0], [0, 0]])),
    ("MMAv3_4x4Warps 32x32", M3_4x4, [32, 32],
     R([[0, 1], [8, 0], [0, 8]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [[16, 0], [0, 0], [0, 16], [0, 0]])),
    ("MMAv3_4x4Warps 64x32", M3_4x4, [64, 32],
     R([[0, 1], [8, 0], [0, 8]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [[16, 0], [32, 0], [0, 16], [0, 0]])),
    ("DotMMAv2_tile_kwidth8 A", tt.DotOperandLayout(0, mma(2, 0, [16, 8], [1, 1]), 8), [16, 64],
     R([[0, 1], [0, 2], [0, 4], [8, 0], [0, 32]], [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]], [])),
    ("DotMMAv2_tile_kwidth8 B", tt.DotOperandLayout(1, mma(2, 0, [16, 8], [1, 1]), 8), [64, 8],
     R([[1, 0], [2, 0], [4, 0], [32, 0]], [[8, 0], [16, 0], [0, 1], [0, 2], [0, 4]], [])),
    ("DotMMAv2_large_warp4_kwidth8 A", tt.DotOperandLayout(0, mma(2, 0, [16, 8], [4, 1]), 8), [128, 128],
     R([[0, 1], [0, 2], [0, 4], [8, 0], [0, 32], [0, 64], [64, 0]], [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]],
       [[16, 0], [32, 0]])),
    ("DotMMAv2_large_warp4_kwidth8 B", tt.DotOperandLayout(1, mma(2, 0, [16, 8], [4, 1]), 8), [128, 64],
     R([[1, 0], [2, 0], [4, 0], [32, 0], [64, 0], [0, 8], [0, 16], [0, 32]],
       [[8, 0], [16, 0], [0, 1], [0, 2], [0, 4]], [[0, 0], [0, 0]])),
    ("DotMMAv2_3D A", tt.DotOperandLayout(0, mma(2, 0, [1, 16, 8], [2, 4, 2]), 8), [16, 128, 128],
     R([[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 8, 0], [0, 0, 32], [0, 0, 64], [0, 64, 0], [2, 0, 0], [4, 0, 0],
        [8, 0, 0]], [[0, 0, 8], [0, 0, 16], [0, 1, 0], [0, 2, 0], [0, 4, 0]],
       [[0, 0, 0], [0, 16, 0], [0, 32, 0], [1, 0, 0]])),
    ("DotMMAv2_3D B", tt.DotOperandLayout(1, mma(2, 0, [1, 16, 8], [2, 4, 2]), 8), [8, 128, 64],
     R([[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 32, 0], [0, 64, 0], [0, 0, 16], [0, 0, 32], [2, 0, 0], [4, 0, 0]],
       [[0, 8, 0], [0, 16, 0], [0, 0, 1], [0, 0, 2], [0, 0, 4]], [[0, 0, 8], [0, 0, 0], [0, 0, 0], [1, 0, 0]])),
    ("DotMMAv3_warp4_kwidth2 128x32", tt.DotOperandLayout(0, mma(3, 0, [16, 16, 8], [4, 1]), 2), [128, 32],
     R([[0, 1], [8, 0], [0, 8], [0, 16], [64, 0]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [[16, 0], [32, 0]])),
    ("DotMMAv3_mixed_warp_kwidth4", tt.DotOperandLayout(0, mma(3, 0, [16, 16, 8], [4, 2]), 4), [128, 64],
     R([[0, 1], [0, 2], [8, 0], [0, 16], [0, 32], [64, 0]], [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]],
       [[16, 0], [32, 0], [0, 0]])),
    ("DotMMAv2_split_warp_kwidth8 A", tt.DotOperandLayout(0, mma(2, 0, [16, 8], [2, 2]), 8), [64, 128],
     R([[0, 1], [0, 2], [0, 4], [8, 0], [0, 32], [0, 64], [32, 0]], [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]],
       [[0, 0], [16, 0]])),
    ("DotMMAv2_split_warp_kwidth8 B", tt.DotOperandLayout(1, mma(2, 0, [16, 8], [2, 2]), 8), [128, 32],
     R([[1, 0], [2, 0], [4, 0], [32, 0], [64, 0], [0, 16]], [[8, 0], [16, 0], [0, 1], [0, 2], [0, 4]],
       [[0, 8], [0, 0]])),
    ("SliceDot v2", tt.SliceLayout(1, tt.DotOperandLayout(0, mma(2, 0, [16, 8], [1, 1]), 8)), [16],
     R([[8]], [[0], [0], [1], [2], [4]], [])),
    ("SliceDot v3", tt.SliceLayout(0, tt.DotOperandLayout(0, mma(3, 0, [16, 16, 8], [4, 1]), 2)), [16],
     R([[1], [8]], [[2], [4], [0], [0], [0]], [[0], [0]])),
    ("SliceOfBlocked dim 0", tt.SliceLayout(0, SLICE_PARENT), [128],
     R([[1], [2], [16], [32]], [[4], [0], [0]], [[8], [0]], [[64], [0]])),
    ("SliceOfBlocked dim 1", tt.SliceLayout(1, SLICE_PARENT), [128],
     R([[1], [16], [32]], [[0], [2], [4]], [[0], [8]], [[0], [64]])),
    ("SliceWithShape1", tt.SliceLayout(0, blocked([1, 4], [8, 4], [2, 2], [1, 1], [1, 1], [0, 1], [1, 0])), [1],
     R([], [[0]] * 5, [[0], [0]])),
    ("Slice4D", tt.SliceLayout(3, BLOCKED_4D), [2, 1, 1],
     R([], [[0, 0, 0]] * 4 + [[1, 0, 0]], [[0, 0, 0]] * 3)),
    ("SliceOfMmaV2 dim0 16", tt.SliceLayout(0, MMA_2x2), [16], R([[1]], [[2], [4], [0], [0], [0]], [[8], [0]])),
    ("SliceOfMmaV2 dim0 128", tt.SliceLayout(0, MMA_2x2), [128],
     R([[1], [16], [32], [64]], [[2], [4], [0], [0], [0]], [[8], [0]])),
    # the C++ test expects register [[0]] here: the parent's [0, 1] register on a 1-wide column.
    # Slicing removes all-zero register bases (step 3 of SliceEncodingAttr::toLinearLayout).
    ("SliceOfMmaV2 dim1 8", tt.SliceLayout(1, MMA_2x2), [8], R([], [[0], [0], [1], [2], [4]], [[0], [0]])),
    ("SliceOfMmaV2 dim1 128", tt.SliceLayout(1, MMA_2x2), [128],
     R([[8], [32], [64]], [[0], [0], [1], [2], [4]], [[0], [16]])),
    ("MFMA32_2x4Warps 32x32", MFMA32, [32, 32],
     R([[1, 0], [2, 0], [8, 0], [16, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]], [[0, 0]] * 3)),
    ("MFMA32_2x4Warps 64x32", MFMA32, [64, 32],
     R([[1, 0], [2, 0], [8, 0], [16, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]],
       [[0, 0], [0, 0], [32, 0]])),
    ("MFMA32_2x4Warps 128x128", MFMA32, [128, 128],
     R([[1, 0], [2, 0], [8, 0], [16, 0], [64, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]],
       [[0, 32], [0, 64], [32, 0]])),
    ("MFMA32_2x4Warps transposed 32x32", mfma([2, 4], 32, 32, True), [32, 32],
     R([[0, 1], [0, 2], [0, 8], [0, 16]], [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]], [[0, 0]] * 3)),
    ("MFMA32_2x4Warps transposed 128x128", mfma([2, 4], 32, 32, True), [128, 128],
     R([[0, 1], [0, 2], [0, 8], [0, 16], [64, 0]], [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]],
       [[0, 32], [0, 64], [32, 0]])),
    ("MFMA16_2x4Warps", mfma([2, 4], 16, 16, False), [16, 16],
     R([[1, 0], [2, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]], [[0, 0]] * 3)),
    ("MFMA32_2x4x1Warps 1x128x128", mfma([2, 4, 1], 32, 32, False), [1, 128, 128],
     R([[0, 1, 0], [0, 2, 0], [0, 8, 0], [0, 16, 0], [0, 0, 32], [0, 0, 64]],
       [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 0, 16], [0, 4, 0]], [[0, 32, 0], [0, 64, 0], [0, 0, 0]])),
    ("MFMA32_2x4x1Warps 2x64x32", mfma([2, 4, 1], 32, 32, False), [2, 64, 32],
     R([[0, 1, 0], [0, 2, 0], [0, 8, 0], [0, 16, 0]],
       [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 0, 16], [0, 4, 0]], [[0, 32, 0], [0, 0, 0], [1, 0, 0]])),
    ("MFMA32_2x4x1Warps transposed 2x64x32", mfma([2, 4, 1], 32, 32, True), [2, 64, 32],
     R([[0, 0, 1], [0, 0, 2], [0, 0, 8], [0, 0, 16]],
       [[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 8, 0], [0, 16, 0], [0, 0, 4]], [[0, 32, 0], [0, 0, 0], [1, 0, 0]])),
    ("warp1onK_mfma32_lhs_kwidth8 128x128", tt.DotOperandLayout(0, mfma([1, 8], 32, 32, False), 8), [128, 128],
     R([[0, 1], [0, 2], [0, 4], [0, 16], [0, 32], [0, 64], [32, 0], [64, 0]],
       [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 8]], [[0, 0]] * 3)),
    ("warp1onK_mfma32_lhs_kwidth8 16x16", tt.DotOperandLayout(0, mfma([1, 8], 32, 32, False), 8), [16, 16],
     R([[0, 1], [0, 2], [0, 4]], [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0], [0, 8]], [[0, 0]] * 3)),
    ("warp1onK_mfma32_rhs_kwidth8 128x256", tt.DotOperandLayout(1, mfma([1, 8], 32, 32, False), 8), [128, 256],
     R([[1, 0], [2, 0], [4, 0], [16, 0], [32, 0], [64, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [8, 0]],
       [[0, 32], [0, 64], [0, 128]])),
    ("warp1onK_mfma32_rhs_kwidth8 1x4 256x256", tt.DotOperandLayout(1, mfma([1, 4], 32, 32, False), 8), [256, 256],
     R([[1, 0], [2, 0], [4, 0], [16, 0], [32, 0], [64, 0], [128, 0], [0, 128]],
       [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [8, 0]], [[0, 32], [0, 64]])),
    ("WMMA_v2_2x4Warps_rhs k8 16x16", tt.DotOperandLayout(1, WMMA_2x4, 8), [16, 16],
     R([[1, 0], [2, 0], [4, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0]], [[0, 0]] * 3)),
    ("WMMA_v2_2x4Warps_rhs k8 32x64", tt.DotOperandLayout(1, WMMA_2x4, 8), [32, 64],
     R([[1, 0], [2, 0], [4, 0], [16, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0]], [[0, 16], [0, 32], [0, 0]])),
    ("WMMA_v2_2x4Warps_rhs k8 64x128", tt.DotOperandLayout(1, WMMA_2x4, 8), [64, 128],
     R([[1, 0], [2, 0], [4, 0], [16, 0], [32, 0], [0, 64]], [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0]],
       [[0, 16], [0, 32], [0, 0]])),
    ("WMMA_v2_2x4Warps_rhs k16 128x128", tt.DotOperandLayout(1, WMMA_2x4, 16), [128, 128],
     R([[1, 0], [2, 0], [4, 0], [8, 0], [32, 0], [64, 0], [0, 64]], [[0, 1], [0, 2], [0, 4], [0, 8], [16, 0]],
       [[0, 16], [0, 32], [0, 0]])),
    ("WMMA_v2_2x4x1Warps_lhs k8 4x128x32", tt.DotOperandLayout(0, WMMA_2x4x1, 8), [4, 128, 32],
     R([[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 16], [0, 64, 0], [2, 0, 0]],
       [[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 8, 0], [0, 0, 8]], [[0, 16, 0], [0, 32, 0], [1, 0, 0]])),
    ("WMMA_v2_2x4x1Warps_rhs k8 4x128x32", tt.DotOperandLayout(1, WMMA_2x4x1, 8), [4, 128, 32],
     R([[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 16, 0], [0, 32, 0], [0, 64, 0], [0, 0, 16], [2, 0, 0]],
       [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 8, 0]], [[0, 0, 0], [0, 0, 0], [1, 0, 0]])),
    ("SharedSwizzled2D_MaxPhaseOnly", shared(1, 1, 4, [1, 1], [1, 1], [1, 0], [1, 0]), [32, 32],
     O([[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 1], [2, 2], [4, 0], [8, 0], [16, 0]])),
    ("SharedSwizzled2D_PerPhaseMaxPhase", shared(1, 2, 4, [1, 1], [1, 1], [1, 0], [1, 0]), [32, 32],
     O([[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 1], [4, 2], [8, 0], [16, 0]])),
    ("SharedSwizzled2D_Vec", shared(2, 1, 4, [1, 1], [1, 1], [1, 0], [1, 0]), [4, 8],
     O([[0, 1], [0, 2], [0, 4], [1, 2], [2, 4]])),
    ("SharedSwizzled2D_PerPhaseMaxPhaseVec", shared(2, 2, 4, [1, 1], [1, 1], [1, 0], [1, 0]), [32, 32],
     O([[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 2], [4, 4], [8, 0], [16, 0]])),
    ("SharedSwizzled4D", shared(2, 2, 4, [1] * 4, [1] * 4, [3, 2, 1, 0], [3, 2, 1, 0]), [2, 4, 32, 32],
     O([[0, 0, 0, 1], [0, 0, 0, 2], [0, 0, 0, 4], [0, 0, 0, 8], [0, 0, 0, 16], [0, 0, 1, 0], [0, 0, 2, 2],
        [0, 0, 4, 4], [0, 0, 8, 0], [0, 0, 16, 0], [0, 1, 0, 0], [0, 2, 0, 0], [1, 0, 0, 0]])),
    ("SharedSwizzled2D_Order01", shared(1, 1, 4, [1, 1], [1, 1], [0, 1], [0, 1]), [4, 8],
     O([[1, 0], [2, 0], [1, 1], [2, 2], [0, 4]])),
    ("LeadingOffset_8x16_4_2", nvmma(32, False, 16), [8, 16],
     O([[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 8]])),
    ("LeadingOffset_128x16_4_2", nvmma(32, False, 16), [128, 16],
     O([[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 8], [8, 0], [16, 0], [32, 0], [64, 0]])),
    ("LeadingOffset_8x32_2_4", nvmma(64, False, 16), [8, 32],
     O([[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 8], [4, 16]])),
    ("LeadingOffset_8x64_1_8", nvmma(128, False, 16), [8, 64],
     O([[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32]])),
    ("LeadingOffset_8x64_1_8_32b", nvmma(128, False, 32), [8, 64],
     O([[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [0, 32]])),
    ("MMAv5Fp4Padded", nvmma(128, False, 8, fp4=True), [32, 64],
     O([[0, 1], [0, 2], [0, 4], [0, 0], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0]])),
]


@pytest.mark.parametrize("name,encoding,shape,expected", CASES, ids=[c[0] for c in CASES])
def test_the_cpp_tests_expected_bases(name, encoding, shape, expected):
    L = tt.to_linear_layout(encoding, shape)
    assert list(L.in_dims) == list(expected)
    assert {d: [list(b) for b in L.bases[d]] for d in expected} == expected
    assert list(L.out_dims) == [f"dim{i}" for i in range(len(shape))]
    assert list(L.out_dims.values()) == shape


def test_the_cpp_tests_identity_shared_layouts():
    """SharedSimple1D / 2D / 2D_Order01 / Shared1DSwizzle: no swizzle is the identity, in order."""
    I = LinearLayout.identity_1d
    blk = I(1, "block", "dim0")
    assert tt.to_linear_layout(shared(1, 1, 1, [1], [1], [0], [0]), [1024]) == I(1024, "offset", "dim0") * blk
    row_major = (I(128, "offset", "dim1") * I(128, "offset", "dim0") * blk).transpose_outs(["dim0", "dim1"])
    assert tt.to_linear_layout(shared(1, 1, 1, [1, 1], [1, 1], [1, 0], [1, 0]), [128, 128]) == row_major
    col_major = I(128, "offset", "dim0") * I(128, "offset", "dim1") * blk
    assert tt.to_linear_layout(shared(1, 1, 1, [1, 1], [1, 1], [0, 1], [1, 0]), [128, 128]) == col_major
    one_d = I(64, "offset", "dim0") * I(1, "offset", "dim1") * blk
    assert tt.to_linear_layout(shared(2, 2, 4, [1, 1], [1, 1], [1, 0], [1, 0]), [64, 1]) == one_d


# ----------------------------------------------------------------- value objects
def _examples():
    m2 = tt.NVMMADistributedLayout([2, 0], [2, 2], [16, 8])
    return [
        tt.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0], [[0, 1]]),
        tt.SliceLayout(1, tt.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])),
        m2, tt.NVMMADistributedLayout([3, 0], [4, 1], [16, 64, 16]),
        tt.DotOperandLayout(0, m2, 2), tt.DotOperandLayout(1, tt.BlockedLayout([1, 1], [4, 8], [1, 1], [1, 0]), 0),
        tt.SwizzledSharedLayout(2, 1, 4, [1, 0]), tt.NVMMASharedLayout(128, 16, transposed=True),
        tt.AMDMFMALayout(3, [32, 32, 8], True, [2, 2], tiles_per_warp=[2, 1]),
        tt.DotOperandLayout(1, tt.AMDWMMALayout(2, False, [[0, 1]], [[1, 0]], rank=2), 8),
    ]


@pytest.mark.parametrize("enc", _examples(), ids=lambda e: type(e).__name__)
def test_encodings_are_immutable_values_with_a_readable_repr(enc):
    again = eval(repr(enc), dict(vars(tt)))            # the repr is Gluon's constructor call
    assert again == enc and hash(again) == hash(enc) and again is not enc
    assert repr(enc).startswith(type(enc).__name__ + "(")
    with pytest.raises(AttributeError):
        enc.rank_ = 3
    with pytest.raises(AttributeError):
        setattr(enc, enc._fields[0], None)
    assert enc != object() and len({enc, again}) == 1


def test_an_encoding_keeps_its_arguments_not_the_callers_lists():
    spt, cga_bases = [1, 4], [[0, 1]]
    enc = tt.BlockedLayout(spt, [8, 4], [4, 1], [1, 0], cga_bases)
    spt[0], cga_bases[0][1] = 8, 0
    assert enc.size_per_thread == (1, 4) and enc.cga_layout == ((0, 1),)
    assert spt == [8, 4]                                  # and the caller's list is not touched by us


def test_numpy_integers_and_arrays_are_accepted():
    import numpy as np
    enc = tt.BlockedLayout(np.array([1, 4]), [np.int64(8), 4], (4, 1), [1, 0])
    assert enc == tt.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
    assert tt.to_linear_layout(enc, np.array([32, 16])) == tt.to_linear_layout(enc, [32, 16])
    with pytest.raises(LayoutTypeError, match="shape must be a list of ints"):
        tt.to_linear_layout(enc, np.ones((2, 2), dtype=int))


def test_equal_arguments_give_equal_layouts_and_different_ones_differ():
    a = tt.SwizzledSharedLayout(1, 1, 8, [1, 0])
    assert a == tt.SwizzledSharedLayout(1, 1, 8, (1, 0)) and a != tt.SwizzledSharedLayout(1, 1, 8, [0, 1])
    assert a.to_linear_layout([8, 8]) == tt.to_linear_layout(a, (8, 8))


def test_the_8x8_swizzle_is_the_inverse_of_cutes_swizzle_303():
    """Issue 41's anchor: SwizzledSharedLayout(1, 1, 8, [1, 0]) on 8x8 inverts to
    Swizzle<3,0,3> o (8,8):(8,1) -- row r, column c at offset 8r + (c XOR r)."""
    L = tt.to_linear_layout(tt.SwizzledSharedLayout(1, 1, 8, [1, 0]), [8, 8])
    for offset in range(64):
        coord = L(offset=offset)
        r, c = coord["dim0"], coord["dim1"]
        assert 8 * r + (c ^ r) == offset


def test_the_mma_accumulator_is_the_ptx_fragment_layout():
    """PTX ISA, mma.m16n8k16 accumulator: lane l holds rows l//4 and l//4 + 8, columns
    2*(l%4) and 2*(l%4) + 1 (registers c0..c3 in that order)."""
    L = tt.to_linear_layout(tt.NVMMADistributedLayout([2, 0], [1, 1], [16, 8]), [16, 8])
    for lane in range(32):
        for reg in range(4):
            got = L(register=reg, lane=lane)
            assert (got["dim0"], got["dim1"]) == (lane // 4 + 8 * (reg // 2), 2 * (lane % 4) + reg % 2)


def test_the_ldmatrix_a_operand_is_the_ptx_fragment_layout():
    """PTX ISA, mma.m16n8k16 .f16 A fragment (k_width 2), g = lane // 4, t = lane % 4:
    a0,a1 at row g, cols 2t, 2t+1; a2,a3 at row g+8; a4..a7 as a0..a3 with cols + 8."""
    L = tt.to_linear_layout(tt.DotOperandLayout(0, tt.NVMMADistributedLayout([2, 0], [1, 1], [16, 8]), 2), [16, 16])
    for lane in range(32):
        g, t = lane // 4, lane % 4
        for reg in range(8):
            got = L(register=reg, lane=lane)
            row = g + 8 * ((reg // 2) % 2)
            col = 2 * t + reg % 2 + 8 * (reg // 4)
            assert (got["dim0"], got["dim1"]) == (row, col)


def test_a_blocked_layout_is_injective_and_covers_its_tile():
    L = tt.to_linear_layout(tt.BlockedLayout([2, 2], [4, 8], [2, 2], [1, 0]), [16, 32])
    assert L.is_injective() and L.is_surjective() and L.total_in_size == 16 * 32


# ----------------------------------------------------------------- bad input, every encoding
B = tt.BlockedLayout
_M2 = tt.NVMMADistributedLayout([2, 0], [1, 1], [16, 8])
_M3 = tt.NVMMADistributedLayout([3, 0], [4, 1], [16, 64, 16])

BAD = [
    # (call, error type, words the message must contain)
    (lambda: B(4, [32], [4], [0]), LayoutTypeError, "size_per_thread must be a list"),
    (lambda: B("14", [32], [4], [0]), LayoutTypeError, "size_per_thread"),
    (lambda: B([], [], [], []), LayoutError, "at least one entry"),
    (lambda: B([1.0], [32], [4], [0]), LayoutTypeError, "size_per_thread[0] must be an int"),
    (lambda: B([True], [32], [4], [0]), LayoutTypeError, "size_per_thread[0]"),
    (lambda: B([3], [32], [4], [0]), LayoutError, "size_per_thread[0] must be a power of two, got 3"),
    (lambda: B([0], [32], [4], [0]), LayoutError, "size_per_thread[0] must be a power of two"),
    (lambda: B([-4], [32], [4], [0]), LayoutError, "power of two"),
    (lambda: B([2 ** 100], [32], [4], [0]), LayoutError, "at most 2**30"),
    (lambda: B([1, 1], [32], [4, 1], [1, 0]), LayoutError, "threads_per_warp has 1 entries; expected 2"),
    (lambda: B([1, 1], [4, 8], [4, 1, 1], [1, 0]), LayoutError, "warps_per_cta has 3 entries"),
    (lambda: B([1, 1], [4, 8], [4, 1], [0]), LayoutError, "order has 1 entries"),
    (lambda: B([1, 1], [4, 8], [4, 1], [1, 1]), LayoutError, "order must be a permutation of 0..1"),
    (lambda: B([1, 1], [4, 8], [4, 1], [2, 0]), LayoutError, "permutation"),
    (lambda: B([1, 1], [4, 8], [4, 1], [-1, 0]), LayoutError, "order[0] must be >= 0"),
    (lambda: B([1], [32], [4], [0], [[3]]), LayoutError, "cga_layout[0] = [3]"),
    (lambda: B([1], [32], [4], [0], [[2]]), LayoutError, "cga_layout [[2]] is not a valid block layout"),
    (lambda: B([1], [32], [4], [0], [[1, 0]]), LayoutError, "cga_layout[0] has 2 entries; expected 1"),
    (lambda: B([1], [32], [4], [0], "x"), LayoutTypeError, "cga_layout must be a list of bases"),
    (lambda: B([1], [32], [4], [0], [3]), LayoutTypeError, "cga_layout[0] must be a list"),
    (lambda: tt.SliceLayout(2, B([1, 1], [4, 8], [4, 1], [1, 0])), LayoutError, "dim is 2; expected 0..1"),
    (lambda: tt.SliceLayout(-1, B([1, 1], [4, 8], [4, 1], [1, 0])), LayoutError, "dim is -1"),
    (lambda: tt.SliceLayout("0", B([1, 1], [4, 8], [4, 1], [1, 0])), LayoutTypeError, "dim must be an int"),
    (lambda: tt.SliceLayout(0, B([1], [32], [4], [0])), LayoutError, "slicing needs rank >= 2"),
    (lambda: tt.SliceLayout(0, tt.SwizzledSharedLayout(1, 1, 1, [1, 0])), LayoutTypeError, "parent must be"),
    (lambda: tt.SliceLayout(0, "blocked"), LayoutTypeError, "parent must be"),
    (lambda: tt.NVMMADistributedLayout([1, 0], [1, 1], [16, 8]), LayoutError, "version must be [2, minor]"),
    (lambda: tt.NVMMADistributedLayout([2], [1, 1], [16, 8]), LayoutError, "version must be"),
    (lambda: tt.NVMMADistributedLayout([2, 0], [4], [16, 8]), LayoutError, "warps_per_cta has 1 entries"),
    (lambda: tt.NVMMADistributedLayout([2, 0], [1, 1, 1, 1], [1, 1, 16, 8]), LayoutError, "rank 2 or 3"),
    (lambda: tt.NVMMADistributedLayout([3, 0], [4, 1, 1], [16, 8, 16]), LayoutError, "rank 2"),
    (lambda: tt.NVMMADistributedLayout([2, 0], [1, 1], [16, 8, 16]), LayoutError, "instr_shape has 3 entries"),
    (lambda: tt.NVMMADistributedLayout([3, 0], [4, 1], [16, 8]), LayoutError, "[M, N, K]"),
    (lambda: tt.NVMMADistributedLayout([2, 0], [1, 1], [4, 8]), LayoutError, "M is 4; expected a multiple of 8"),
    (lambda: tt.NVMMADistributedLayout([3, 0], [4, 1], [16, 24, 16]), LayoutError, "instr_shape[1] must be a power"),
    (lambda: tt.NVMMADistributedLayout([2, 0], [3, 1], [16, 8]), LayoutError, "warps_per_cta[0]"),
    (lambda: tt.DotOperandLayout(2, _M2, 2), LayoutError, "operand_index must be 0 (A) or 1 (B), got 2"),
    (lambda: tt.DotOperandLayout(None, _M2, 2), LayoutTypeError, "operand_index must be an int"),
    (lambda: tt.DotOperandLayout(0, _M2, 0), LayoutError, "k_width must be a power of two in 1..32"),
    (lambda: tt.DotOperandLayout(0, _M2, 3), LayoutError, "got 3"),
    (lambda: tt.DotOperandLayout(0, _M2, 64), LayoutError, "got 64"),
    (lambda: tt.DotOperandLayout(0, _M2, 2.0), LayoutTypeError, "k_width must be an int"),
    (lambda: tt.DotOperandLayout(1, _M3, 2), LayoutError, "wgmma reads B from shared memory"),
    (lambda: tt.DotOperandLayout(0, B([1, 1], [4, 8], [4, 1], [1, 0]), 2), LayoutError,
     "k_width must be 0 when the parent is a BlockedLayout"),
    (lambda: tt.DotOperandLayout(0, B([1], [32], [4], [0]), 0), LayoutError, "a dot operand has rank 2 or 3"),
    (lambda: tt.DotOperandLayout(0, tt.SliceLayout(0, _M2), 2), LayoutTypeError, "parent must be"),
    (lambda: tt.SwizzledSharedLayout(0, 1, 8, [1, 0]), LayoutError, "vec must be a power of two, got 0"),
    (lambda: tt.SwizzledSharedLayout(1, 3, 8, [1, 0]), LayoutError, "per_phase must be a power of two"),
    (lambda: tt.SwizzledSharedLayout(1, 1, -8, [1, 0]), LayoutError, "max_phase must be a power of two"),
    (lambda: tt.SwizzledSharedLayout(1, 1, 8, []), LayoutError, "order must have at least one entry"),
    (lambda: tt.SwizzledSharedLayout(1, 1, 8, [0, 0]), LayoutError, "permutation of 0..1"),
    (lambda: tt.SwizzledSharedLayout(1, 1, 8, "10"), LayoutTypeError, "order must be a list"),
    (lambda: tt.SwizzledSharedLayout("1", 1, 8, [1, 0]), LayoutTypeError, "vec must be an int"),
    (lambda: tt.NVMMASharedLayout(96, 16), LayoutError, "swizzle_byte_width must be 0, 32, 64 or 128, got 96"),
    (lambda: tt.NVMMASharedLayout(128, 4), LayoutError, "element_bitwidth must be 8, 16, 32 or 64, got 4"),
    (lambda: tt.NVMMASharedLayout(128, 16, 0), LayoutError, "rank must be 1..8"),
    (lambda: tt.NVMMASharedLayout(128, 16, 1), LayoutError, "rank must be >= 2 for a swizzled layout"),
    (lambda: tt.NVMMASharedLayout(128, 16, 2, "yes"), LayoutTypeError, "transposed must be True or False"),
    (lambda: tt.NVMMASharedLayout(64, 8, 2, False, True), LayoutError, "fp4_padded needs swizzle_byte_width=128"),
    (lambda: tt.NVMMASharedLayout(128, 16, 2, False, False, [[0, 1, 0]]), LayoutError, "cga_layout[0] has 3"),
    (lambda: tt.AMDMFMALayout(5, [32, 32, 8], False, [1, 1]), LayoutError, "version must be 1..4"),
    (lambda: tt.AMDMFMALayout(3, [32, 32], False, [1, 1]), LayoutError, "instr_shape has 2 entries"),
    (lambda: tt.AMDMFMALayout(3, [64, 4, 4], False, [1, 1]), LayoutError, "64x4 needs transposed=True"),
    (lambda: tt.AMDMFMALayout(3, [32, 32, 8], 0, [1, 1]), LayoutTypeError, "transposed must be True or False"),
    (lambda: tt.AMDMFMALayout(3, [32, 32, 8], False, [4]), LayoutError, "rank 2 or 3"),
    (lambda: tt.AMDMFMALayout(3, [32, 32, 8], False, [1, 1], 16), LayoutError, "element_bitwidth must be 32 or 64"),
    (lambda: tt.AMDMFMALayout(3, [32, 32, 8], False, [1, 1], None, [2]), LayoutError, "tiles_per_warp has 1"),
    (lambda: tt.DotOperandLayout(0, tt.AMDMFMALayout(3, [32, 32, 8], False, [1, 1]), 0), LayoutError,
     "k_width must be a power of two for an MFMA parent"),
    (lambda: tt.AMDWMMALayout(4, False, []), LayoutError, "version must be 1..3"),
    (lambda: tt.AMDWMMALayout(3, False, []), LayoutError, "instr_shape must be one of"),
    (lambda: tt.AMDWMMALayout(2, False, [[3, 0]]), LayoutError, "warp_bases[0] = [3, 0]"),
    (lambda: tt.AMDWMMALayout(2, False, [[2, 0]]), LayoutError, "do not make a layout of tiles"),
    (lambda: tt.AMDWMMALayout(2, False, [[1, 0, 0]]), LayoutError, "warp_bases[0] has 3 entries"),
    (lambda: tt.AMDWMMALayout(2, False, [[1, 0]], rank=4), LayoutError, "rank must be 2 or 3"),
    (lambda: tt.DotOperandLayout(0, tt.AMDWMMALayout(2, False, []), 2), LayoutError,
     "k_width must be one of [4, 8, 16] for a WMMA version 2 parent"),
    (lambda: tt.DistributedLinearLayout([], [[1]], [], [], []), LayoutError, "shape must have at least one entry"),
    (lambda: tt.DistributedLinearLayout([], [[1, 0]], [], [], [2]), LayoutError, "lane_bases[0] has 2 entries"),
    (lambda: tt.DistributedLinearLayout([], [[2]], [], [], [4]), LayoutError, "do not make a layout onto shape"),
    (lambda: tt.DistributedLinearLayout([], [[1]], [], [], [3]), LayoutError, "shape[0] must be a power of two"),
    (lambda: tt.DistributedLinearLayout(None, [[1]], [], [], [2]), LayoutTypeError, "reg_bases must be a list"),
    (lambda: tt.DistributedLinearLayout([], [[3, 0], [2, 0]], [], [], [4, 1]), LayoutError,
     "lane_bases[0] = [3, 0]: each basis moves one power of two along one dim"),
    (lambda: tt.DistributedLinearLayout([[0, 1]], [[1, 0]], [[1, 1]], [], [2, 2]), LayoutError,
     "warp_bases[0] = [1, 1]"),
    (lambda: tt.DistributedLinearLayout([[1]], [[1]], [], [], [2]), LayoutError, "lane_bases[0] = [1] repeats"),
    (lambda: tt.SharedLinearLayout([[0, 1], [1, 1]], [[1, 1]]), LayoutError, "must be independent"),
    (lambda: tt.SharedLinearLayout([]), LayoutTypeError, "offset_bases must be a non-empty list"),
    (lambda: tt.SharedLinearLayout([[]]), LayoutError, "offset_bases[0] must be a non-empty list"),
    (lambda: tt.SharedLinearLayout([[1], [1, 0]]), LayoutError, "offset_bases[1] has 2 entries"),
    (lambda: tt.SharedLinearLayout([[1], [4]]), LayoutError, "do not make a layout"),
    (lambda: tt.SharedLinearLayout([[1]], [[-1]]), LayoutError, "block_bases[0][0] must be >= 0"),
    (lambda: tt.SharedLinearLayout([[1]], None, 12), LayoutError, "alignment must be a power of two"),
]


@pytest.mark.parametrize("call,error,words", BAD, ids=[w for _, _, w in BAD])
def test_bad_arguments_are_named(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)


BAD_SHAPES = [
    (B([1, 1], [4, 8], [4, 1], [1, 0]), [16], LayoutError,
     "shape has 1 entries; expected 2 (the rank of BlockedLayout)"),
    (B([1], [32], [4], [0]), 16, LayoutTypeError, "shape must be a list of ints"),
    (B([1], [32], [4], [0]), [12], LayoutError, "shape[0] must be a power of two, got 12"),
    (B([1], [32], [4], [0]), [0], LayoutError, "shape[0] must be a power of two, got 0"),
    (B([1], [32], [4], [0]), [16.0], LayoutTypeError, "shape[0] must be an int"),
    (B([1], [32], [4], [0]), [2 ** 31], LayoutError, "at most 2**30"),
    (B([1, 1, 1], [1, 4, 8], [1, 1, 4], [2, 1, 0]), [2 ** 30, 2 ** 30, 2 ** 30], LayoutError, "at most 64"),
    (tt.SliceLayout(0, _M2), [16, 16], LayoutError, "expected 1 (the rank of SliceLayout)"),
    (tt.SwizzledSharedLayout(1, 1, 8, [1, 0]), [8], LayoutError, "expected 2"),
    (tt.NVMMASharedLayout(128, 16), [8, 32], LayoutError, "needs at least 64"),
    (tt.NVMMASharedLayout(128, 16), [4, 64], LayoutError, "the swizzle tile is 8 x 64"),
    (tt.NVMMASharedLayout(128, 16, transposed=True), [32, 64], LayoutError, "the contiguous dim 0 holds 32"),
    (tt.NVMMASharedLayout(128, 16, 3), [8, 64], LayoutError, "expected 3"),
    (tt.SharedLinearLayout([[0, 1], [1, 0]]), [4, 4], LayoutError, "is not the shape [2, 2]"),
]


@pytest.mark.parametrize("enc,shape,error,words", BAD_SHAPES, ids=[w for *_, w in BAD_SHAPES])
def test_bad_shapes_are_named(enc, shape, error, words):
    with pytest.raises(error) as info:
        tt.to_linear_layout(enc, shape)
    assert words in str(info.value)


@pytest.mark.parametrize("thing", [None, "BlockedLayout", {"size_per_thread": [1]}, LinearLayout.empty()])
def test_to_linear_layout_wants_an_encoding(thing):
    with pytest.raises(LayoutTypeError, match="encoding must be a layouts.linear.triton encoding"):
        tt.to_linear_layout(thing, [16])


# ----------------------------------------------------------------- hostile input, at random
from hypothesis import given, settings, strategies as st  # noqa: E402

_JUNK = st.one_of(st.none(), st.booleans(), st.floats(allow_nan=True), st.text(max_size=3),
                  st.integers(-3, 70), st.sampled_from([0, 3, 6, 2 ** 31, -2 ** 40, 10 ** 30]),
                  st.lists(st.integers(-2, 9), max_size=4))


def _or_junk(draw, good, p_junk=0.07):
    """``good`` mostly, some junk: a value of the wrong kind, size or sign."""
    return draw(_JUNK) if draw(st.integers(0, 99)) < 100 * p_junk else good


@st.composite
def _hostile_case(draw):
    rank = draw(st.integers(1, 3))
    p2 = st.sampled_from([1, 2, 4, 8])

    def pl(n=rank, strat=p2):
        return _or_junk(draw, draw(st.lists(strat, min_size=n, max_size=n)))

    def order(n=rank):
        return _or_junk(draw, list(draw(st.permutations(range(n)))))

    def cga(n=rank):
        bases = draw(st.lists(st.lists(st.sampled_from([0, 0, 1, 2]), min_size=n, max_size=n), max_size=2))
        return _or_junk(draw, draw(st.sampled_from([None, bases])))

    def mma():
        v3 = draw(st.booleans())
        warps = draw(st.lists(p2, min_size=2, max_size=2 if v3 else 3))
        instr = [16, draw(st.sampled_from([8, 16, 64])), 16] if v3 else [1] * (len(warps) - 2) + [16, 8]
        return tt.NVMMADistributedLayout([3 if v3 else 2, 0], warps, instr)

    def distributed():
        kind = draw(st.sampled_from(["blocked", "mma", "mfma", "wmma"]))
        if kind == "blocked":
            n = draw(st.integers(2, 3))
            return tt.BlockedLayout(draw(st.lists(p2, min_size=n, max_size=n)), [1] * (n - 1) + [32],
                                    [1] * n, list(range(n)))
        if kind == "mma":
            return mma()
        if kind == "mfma":
            return tt.AMDMFMALayout(3, draw(st.sampled_from([[32, 32, 8], [16, 16, 16], [4, 64, 4]])),
                                    draw(st.booleans()), draw(st.lists(p2, min_size=2, max_size=3)))
        return tt.AMDWMMALayout(draw(st.sampled_from([1, 2])), draw(st.booleans()), [[0, 1]], [[1, 0]])

    which = draw(st.sampled_from(["blocked", "slice", "mma", "dot", "swizzled", "nvmma", "mfma", "wmma",
                                  "linear", "shared_linear"]))
    if which == "blocked":
        call = (tt.BlockedLayout, (pl(), pl(), pl(), order(), cga()))
    elif which == "slice":
        parent = _or_junk(draw, distributed())
        call = (tt.SliceLayout, (_or_junk(draw, draw(st.integers(0, 2))), parent))
    elif which == "mma":
        v3 = draw(st.booleans())
        call = (tt.NVMMADistributedLayout, (_or_junk(draw, [3 if v3 else 2, 0]), pl(2 if v3 else rank),
                                            _or_junk(draw, [16, 8 * draw(p2), 16] if v3 else [16, 8][-rank:]
                                                     if rank <= 2 else [1, 16, 8])))
    elif which == "dot":
        call = (tt.DotOperandLayout, (_or_junk(draw, draw(st.integers(0, 1))), _or_junk(draw, distributed()),
                                      _or_junk(draw, draw(st.sampled_from([0, 1, 2, 4, 8, 16])))))
    elif which == "swizzled":
        call = (tt.SwizzledSharedLayout, (_or_junk(draw, draw(p2)), _or_junk(draw, draw(p2)),
                                          _or_junk(draw, draw(p2)), order(), cga()))
    elif which == "nvmma":
        call = (tt.NVMMASharedLayout, (_or_junk(draw, draw(st.sampled_from([0, 32, 64, 128]))),
                                       _or_junk(draw, draw(st.sampled_from([8, 16, 32, 64]))),
                                       _or_junk(draw, max(rank, 2)), _or_junk(draw, draw(st.booleans())),
                                       draw(st.booleans()), cga(max(rank, 2))))
    elif which == "mfma":
        call = (tt.AMDMFMALayout, (_or_junk(draw, 3), _or_junk(draw, [32, 32, 8]), draw(st.booleans()),
                                   pl(max(rank, 2)), _or_junk(draw, draw(st.sampled_from([None, 32, 64]))),
                                   _or_junk(draw, None), cga(max(rank, 2))))
    elif which in ("linear", "shared_linear"):
        basis = st.lists(st.sampled_from([0, 0, 1, 2, 3, 4, 8]), min_size=rank, max_size=rank)
        lists = [_or_junk(draw, draw(st.lists(basis, max_size=3))) for _ in range(4)]
        if which == "linear":
            call = (tt.DistributedLinearLayout, (*lists, pl()))
        else:
            call = (tt.SharedLinearLayout, (lists[0], lists[1], _or_junk(draw, 16)))
    else:
        n = max(rank, 2)
        unit = st.lists(st.sampled_from([0, 1, 2]), min_size=n, max_size=n)
        call = (tt.AMDWMMALayout, (_or_junk(draw, draw(st.integers(1, 3))), draw(st.booleans()),
                                   _or_junk(draw, draw(st.lists(unit, max_size=2))),
                                   _or_junk(draw, draw(st.lists(unit, max_size=2))), None, None, n))
    shape_rank = draw(st.sampled_from([rank, rank, rank, max(rank, 2), max(rank, 2) - 1, rank + 1]))
    shape = _or_junk(draw, draw(st.lists(st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128, 256]),
                                         min_size=shape_rank, max_size=shape_rank)))
    return call, shape


_SEEN = {"layouts": 0}


@settings(max_examples=500, deadline=None)
@given(case=_hostile_case())
def test_no_argument_breaks_an_encoding_or_its_layout(case):
    """Whatever the arguments, a LayoutError (or LayoutTypeError) or a layout of exactly the shape."""
    (cls, args), shape = case
    try:
        enc = cls(*args)
    except LayoutError:
        return
    try:
        L = tt.to_linear_layout(enc, shape)
    except LayoutError:
        return
    _SEEN["layouts"] += 1
    assert list(L.out_dims.values()) == list(shape)
    assert L.is_surjective()
    assert L.in_dim_names == (["offset", "block"] if enc.kind == "shared" else ["register", "lane", "warp", "block"])


def test_the_hostile_run_builds_layouts_too():
    """The random run above is not all refusals: with a fixed draw of the same cases, to_linear_layout
    gives a layout (checked as above) many times."""
    _SEEN["layouts"] = 0
    fixed = settings(max_examples=500, deadline=None, derandomize=True, database=None)
    fixed(given(case=_hostile_case())(test_no_argument_breaks_an_encoding_or_its_layout.hypothesis.inner_test))()
    assert _SEEN["layouts"] >= 40


@pytest.mark.parametrize("name,encoding,shape,expected", CASES[::3], ids=[c[0] for c in CASES[::3]])
def test_a_layout_given_by_its_bases_is_itself(name, encoding, shape, expected):
    """Gluon hands back an encoding's layout as DistributedLinearLayout / SharedLinearLayout:
    read back at the same shape it is the same layout."""
    L = tt.to_linear_layout(encoding, shape)
    if encoding.kind == "shared":
        again = tt.SharedLinearLayout([list(b) for b in L.bases["offset"]], [list(b) for b in L.bases["block"]])
    else:
        again = tt.DistributedLinearLayout(*[[list(b) for b in L.bases[d]] for d in ("register", "lane", "warp",
                                                                                    "block")], shape)
    if encoding.kind == "shared" and again.shape != shape:      # zero bases: the bases reach less
        return
    assert tt.to_linear_layout(again, shape) == L
