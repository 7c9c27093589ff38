"""``layouts.linear``'s algebra, without the wheel: the literal cases of Triton's C++ tests
(``unittest/Tools/LinearLayoutTest.cpp``, and the expected layouts of
``unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp``), and every function the 3.9.0
wheel does not bind checked exhaustively through ``apply`` on small random layouts: each result
compared, element by element, with its definition evaluated by brute force (the XOR of the bases
of the set bits, written out here, not taken from the library). The blocked and MMA v2 encodings
are judged at every (register, lane, warp) by plain index arithmetic from what they mean (Gluon's
documentation of BlockedLayout; the PTX ISA's mma.m16n8 fragment), never by composing layouts.
"""

import itertools
import random
from math import prod

import numpy as np
import pytest

from layouts.errors import LayoutError
from layouts.linear import (LinearLayout as LL, divide_left, divide_right, ensure_layout_not_larger_than,
                            ensure_layout_not_smaller_than, identity_standard_nd, supremum)
from layouts.linear.triton import BlockedLayout, NVMMADistributedLayout, to_linear_layout


def lay(bases, outs, surjective=True):
    """Triton's two constructors: out names (sizes inferred) or (name, size) pairs."""
    return LL.from_bases(list(bases.items()) if isinstance(bases, dict) else bases, outs,
                         require_surjective=surjective)


I1, Z1 = LL.identity_1d, LL.zeros_1d


# ================================================================= literal cases of LinearLayoutTest.cpp
def test_empty_identity_zeros():
    e = LL.empty()
    assert e.bases == {} and e.in_dim_names == [] and e.out_dim_names == []
    L = I1(32, "testIns", "testOuts")
    assert L == lay({"testIns": [[1], [2], [4], [8], [16]]}, ["testOuts"])
    assert L.in_dim_names == ["testIns"] and L.out_dim_names == ["testOuts"]
    assert L.in_dim_size("testIns") == 32 and L.out_dim_size("testOuts") == 32
    one = I1(1, "testIns", "testOuts")
    assert one == lay({"testIns": []}, ["testOuts"]) and one.in_dim_size("testIns") == 1
    assert one.out_dim_size("testOuts") == 1
    assert Z1(32, "ins", "outs") == lay({"ins": [[0]] * 5}, ["outs"])
    assert str(LL.empty()) == "(empty layout)"            # Triton's "\n(empty layout)", less the newline


def test_multiply_cases():
    assert I1(16, "in", "out") * I1(32, "in", "out") == lay({"in": [[1 << i] for i in range(9)]}, ["out"])
    p = I1(32, "in1", "out1") * I1(16, "in2", "out2")
    assert p == lay({"in1": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], "in2": [[0, 1], [0, 2], [0, 4], [0, 8]]},
                    ["out1", "out2"])
    assert p.in_dim_names == ["in1", "in2"] and p.out_dim_names == ["out1", "out2"]
    assert LL.empty() * I1(32, "in", "out") == I1(32, "in", "out")                     # MultiplyByEmpty
    assert I1(8, "in", "out") * Z1(16, "in", "out") == lay({"in": [[1], [2], [4], [0], [0], [0], [0]]}, ["out"])
    assert Z1(16, "in", "out1") * lay({"in": []}, ["out2"]) == lay({"in": [[0, 0]] * 4}, ["out1", "out2"])
    assert I1(0, "in", "out") * Z1(4, "in", "out") == lay({"in": [[0], [0]]}, ["out"])
    assert I1(4, "in", "out1") * I1(8, "in", "out2") == lay(
        {"in": [[1, 0], [2, 0], [0, 1], [0, 2], [0, 4]]}, ["out1", "out2"])                # MultiplyOverlapping
    prod = LL.empty()
    prod *= I1(32, "in", "out")                                                          # TimesEquals
    assert prod == I1(32, "in", "out")


def test_get_out_dim_size_and_transposes():
    assert lay({"in0": [[0], [0], [0]], "in1": [[1], [2]]}, ["dim0"]).out_dim_size("dim0") == 4
    base = I1(32, "in1", "out1") * I1(16, "in2", "out2")
    t = base.transpose_outs(["out2", "out1"])
    assert t.out_dim_names == ["out2", "out1"]
    assert t == lay({"in1": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], "in2": [[1, 0], [2, 0], [4, 0], [8, 0]]},
                    ["out2", "out1"])
    d = (I1(32, "in1", "out1") * I1(1, "in2", "out2")).transpose_outs(["out2", "out1"])
    assert d == lay({"in1": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], "in2": []}, ["out2", "out1"])
    ti = base.transpose_ins(["in2", "in1"])
    assert ti.in_dim_names == ["in2", "in1"]
    assert ti == lay([("in2", [[0, 1], [0, 2], [0, 4], [0, 8]]), ("in1", [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]])],
                     ["out1", "out2"])


def test_apply_case():
    L = lay({"in1": [[4, 2], [2, 1], [1, 0]], "in2": [[1, 2], [2, 1]]}, [("out1", 8), ("out2", 4)], False)
    assert L.apply({"in1": 0, "in2": 0}) == {"out1": 0, "out2": 0}
    assert L.apply({"in2": 0, "in1": 1}) == {"out1": 4, "out2": 2}
    assert L.apply({"in2": 1, "in1": 0}) == {"out1": 1, "out2": 2}
    assert list(L.apply({"in2": 1, "in1": 0})) == ["out1", "out2"]                    # out-dim order


def test_construct_large_layout():
    L = lay({"in": [[1 << i] for i in range(25)]}, ["out"])
    assert L.out_dim_size("out") == 1 << 25


def test_compose_cases():
    l1 = lay({"in1": [[1, 1], [0, 1]], "in2": [[1, 0], [1, 2]]}, ["out1", "out2"])
    l2 = lay({"out1": [[2, 2], [1, 0]], "out2": [[1, 1], [2, 1]]}, ["out3", "out4"])
    c = l1.compose(l2)
    assert c == lay({"in1": [[3, 3], [1, 1]], "in2": [[2, 2], [0, 3]]}, [("out3", 4), ("out4", 4)], False)
    assert not c.is_surjective()
    l1 = lay({"in0": [[1, 0, 0, 0], [2, 0, 0, 0]], "in1": [[4, 0, 0, 0], [8, 0, 0, 0], [16, 0, 0, 0], [32, 0, 0, 0]],
              "in2": [[0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 2]], "in3": []}, ["out3", "out0", "out1", "out2"])
    l2 = lay({"out3": [[1, 0, 0, 0], [2, 0, 0, 0]] + [[0, 0, 0, 0]] * 4, "out0": [[0, 1, 0, 0]],
              "out1": [[0, 0, 1, 0]], "out2": [[0, 0, 0, 1], [0, 0, 0, 2]]}, ["out3", "out2", "out1", "out0"])
    assert l1.compose(l2) == lay(
        {"in0": [[1, 0, 0, 0], [2, 0, 0, 0]], "in1": [[0, 0, 0, 0]] * 4,
         "in2": [[0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 2]], "in3": []},
        [("out3", 4), ("out2", 2), ("out1", 2), ("out0", 4)], False)


def test_reshape_and_flatten_cases():
    ll = lay({"in1": [[1], [4], [8]], "in2": [[2]]}, ["out"])
    assert ll.reshape_ins([("in3", 2), ("in4", 8)]) == lay({"in3": [[1]], "in4": [[4], [8], [2]]}, ["out"])
    ll = lay({"in1": [[1], [4], [2]], "in2": []}, ["out"])
    assert ll.reshape_ins([("in3", 4), ("in4", 2)]) == lay({"in3": [[1], [4]], "in4": [[2]]}, ["out"])
    ll = lay({"in1": [[1], [4]], "in2": [[2]]}, ["out"])
    assert ll.reshape_ins([("in3", 8), ("in4", 1)]) == lay({"in3": [[1], [4], [2]], "in4": []}, ["out"])
    assert ll.reshape_ins([("in3", 1), ("in4", 8)]) == lay({"in3": [], "in4": [[1], [4], [2]]}, ["out"])
    assert lay({"in1": [[1], [4], [8]], "in2": [[2]]}, ["out"]).flatten_ins() == lay({"in1": [[1], [4], [8], [2]]},
                                                                                      ["out"])
    for edge in (lay({"in1": []}, ["out"]), lay({"in1": []}, []), lay({}, ["out"]), lay({}, [])):
        assert edge.flatten_ins() == edge and edge.flatten_outs() == edge
    ll = lay({"in1": [[1], [4], [8]], "in2": [[3]]}, ["out"])
    assert ll.total_out_size == 16
    assert ll.reshape_outs([("out2", 2), ("out3", 8)]) == lay({"in1": [[1, 0], [0, 2], [0, 4]], "in2": [[1, 1]]},
                                                              ["out2", "out3"])
    ll = lay({"in1": [[1], [4], [2]], "in2": []}, ["out"])
    assert ll.reshape_outs([("out1", 4), ("out2", 2)]) == lay({"in1": [[1, 0], [0, 1], [2, 0]], "in2": []},
                                                              ["out1", "out2"])
    ll = lay({"in1": [[1], [4]], "in2": [[2]]}, ["out"])
    assert ll.reshape_outs([("out1", 8), ("out2", 1)]) == lay({"in1": [[1, 0], [4, 0]], "in2": [[2, 0]]},
                                                              ["out1", "out2"])
    ll = lay({"in1": [[1, 0], [4, 1], [8, 4]], "in2": [[3, 2]]}, [("out1", 16), ("out2", 8)], False)
    assert ll.flatten_outs() == lay({"in1": [[1], [4 + 16], [8 + 4 * 16]], "in2": [[3 + 2 * 16]]},
                                    [("out1", 16 * 8)], False)


def test_invert_and_compose_cases():
    l1 = lay({"in1": [[2], [1], [4]]}, ["out"])
    l2 = lay({"in2": [[4], [1], [2]]}, ["out"])
    c = l1.invert_and_compose(l2)
    assert c == lay({"in1": [[4], [2], [1]]}, ["in2"]) and c.compose(l2) == l1            # _Simple
    l2 = lay({"in2": [[0], [2], [1], [4]]}, ["out"])
    c = l1.invert_and_compose(l2)                                                        # _NonInjective
    assert c == lay({"in1": [[2], [4], [8]]}, [("in2", 16)], False) and not c.is_surjective()
    assert c.compose(l2) == l1
    l1 = lay({"in1": [[2], [1], [4]], "in2": [[0]]}, ["out"])                            # _BroadcastedInDim
    l2 = lay({"in": [[4], [1], [2]]}, ["out"])
    c = l1.invert_and_compose(l2)
    assert c == lay({"in1": [[4], [2], [1]], "in2": [[0]]}, ["in"]) and c.compose(l2) == l1
    l1 = lay({"in": [[1], [2], [4]]}, ["out"])                                           # _BroadcastAtBeginningOfSecond
    l2 = lay({"in": [[0], [4], [1], [2]]}, ["out"])
    c = l1.invert_and_compose(l2)
    assert c == lay({"in": [[4], [8], [2]]}, [("in", 16)], False) and c.compose(l2) == l1
    l1 = lay({"in1": [[1], [2], [4]]}, ["out"])                                          # _BroadcastAtEndOfSecond
    l2 = lay({"in2": [[4], [1], [2], [0]]}, ["out"])
    c = l1.invert_and_compose(l2)
    assert c == lay({"in1": [[2], [4], [1]]}, [("in2", 16)], False)
    assert c.compose(l2).equal_ignoring_out_dim_sizes(l1)
    l1 = lay({"in": [[1], [2], [4]]}, ["out"])                                           # _BroadcastBeginningAndEnd
    l2 = lay({"in": [[0], [4], [1], [2], [0]]}, ["out"])
    c = l1.invert_and_compose(l2)
    assert c == lay({"in": [[4], [8], [2]]}, [("in", 32)], False) and c.compose(l2) == l1
    l1 = lay({"in1": [[1, 0], [0, 1], [2, 0], [3, 2]], "in2": [[2, 2]]}, ["out1", "out2"])   # _Multidim
    l2 = lay({"in3": [[0, 1], [1, 0], [0, 0], [0, 2], [2, 1]]}, ["out2", "out1"])
    assert l1.invert_and_compose(l2).compose(l2) == l1.transpose_outs(l2.out_dim_names)
    assert l2.invert_and_compose(l1).compose(l1) == l2.transpose_outs(l1.out_dim_names)
    l1 = lay({"in1": [[1], [2], [4]], "in2": [[0]]}, ["out"])                            # _BroadcastedDims
    l2 = lay({"in3": [[1], [2], [4]], "in4": [[0]]}, ["out"])
    c = l1.invert_and_compose(l2)
    assert c == lay({"in1": [[1, 0], [2, 0], [4, 0]], "in2": [[0, 0]]}, [("in3", 8), ("in4", 2)], False)
    assert c.compose(l2) == l1.transpose_outs(l2.out_dim_names)
    a = lay({"in1": [[1], [2]], "in2": [[0]]}, ["out"])                                  # _BroadcastedDims2
    b = lay({"in3": [[2], [1]], "in4": [[0]]}, ["out"])
    c = a.invert_and_compose(b)
    assert c == lay({"in1": [[2, 0], [1, 0]], "in2": [[0, 0]]}, [("in3", 4), ("in4", 2)], False)
    assert c.compose(b) == a.transpose_outs(b.out_dim_names)


def test_invert_and_compose_identity_in_dim_case():
    outs = [f"dim{i}" for i in range(9)]

    def unit(k):
        return [1 if j == k else 0 for j in range(9)]
    src = lay({"register": [unit(8), unit(7)], "lane": [unit(6), unit(5), unit(4), unit(3), unit(2)],
               "warp": [unit(1), unit(0)], "block": []}, outs)
    dst = lay({"register": [unit(8), unit(7)], "lane": [unit(0), unit(1), unit(2), unit(3), unit(4)],
               "warp": [unit(5), unit(6)], "block": []}, outs)
    cvt = dst.invert_and_compose(src)
    k = {"register": 3, "lane": 0, "warp": 2, "block": 0}
    assert dst.apply(k) == src.apply(cvt.apply(k))
    for reg, lane, warp in itertools.product(range(4), range(32), range(4)):            # and everywhere
        k = {"register": reg, "lane": lane, "warp": warp, "block": 0}
        assert dst.apply(k) == src.apply(cvt.apply(k))


def test_num_consecutive_in_out_cases():
    assert I1(1, "in", "out").num_consecutive_in_out() == 1
    assert I1(4, "in", "out").num_consecutive_in_out() == 4
    assert (I1(4, "in1", "out") * I1(8, "in2", "out")).num_consecutive_in_out() == 4
    assert (I1(4, "in", "out1") * I1(8, "in", "out2")).num_consecutive_in_out() == 4
    assert (Z1(4, "in", "out1") * I1(4, "in", "out2")).num_consecutive_in_out() == 1
    assert lay({"in": [[1], [2], [4], [9]]}, ["out"]).num_consecutive_in_out() == 1
    assert lay({"in": [[1], [2], [4], [10]]}, ["out"]).num_consecutive_in_out() == 2
    assert lay({"in": [[1], [4], [2]]}, ["out"]).num_consecutive_in_out() == 2
    assert lay({"in": [[1], [2], [4]], "in2": [[8], [18]]}, ["out"]).num_consecutive_in_out() == 2


def test_equality_cases():
    bigger = lay({"in": [[1], [2]]}, [("out", 8)], False)
    assert not I1(4, "in", "out") == bigger and I1(4, "in", "out") != bigger
    assert I1(4, "in", "out").equal_ignoring_out_dim_sizes(bigger)


def test_sublayout_cases():
    l1 = lay({"in1": [[1, 0], [0, 1], [2, 0]], "in2": [[0, 1]]}, ["out1", "out2"])
    want = lay({"in1": [[1], [0], [2]], "in2": [[0]]}, ["out1"])
    assert l1.sublayout(["in1", "in2"], ["out1"]) == want
    assert l1.sublayout(["in2", "in1"], ["out1"]) == want
    assert l1.sublayout(["in2", "in1"], ["out2", "out1"]) == l1
    assert l1.sublayout(["in1"], ["out1"]) == lay({"in1": [[1], [0], [2]]}, ["out1"])
    assert l1.sublayout([], []) == LL.empty()
    assert l1.sublayout(["in1"], []) == lay({"in1": [[], [], []]}, [])
    assert l1.sublayout([], ["out1"]) == lay({}, [("out1", 4)], False)
    I4 = I1(4, "in", "out")
    assert not I4.sublayout_is_zero(["in"], ["out"])
    assert I4.sublayout_is_zero([], ["out"]) and I4.sublayout_is_zero(["in"], []) and I4.sublayout_is_zero([], [])
    l1 = lay({"in1": [[0, 1], [0, 2]], "in2": [[1, 1]]}, ["out1", "out2"])
    assert l1.sublayout_is_zero(["in1"], ["out1"])
    assert not l1.sublayout_is_zero(["in1"], ["out2"])
    assert not l1.sublayout_is_zero(["in2"], ["out1"]) and not l1.sublayout_is_zero(["in2"], ["out2"])


def test_free_variable_masks_cases():
    assert I1(4, "in", "out").free_variable_masks() == {"in": 0}
    assert Z1(16, "in", "out").free_variable_masks() == {"in": 0b1111}
    L = I1(2, "in", "out") * Z1(4, "in", "out") * I1(4, "in", "out") * Z1(2, "in", "out")
    assert L.free_variable_masks() == {"in": 0b100110}
    L = lay({"in1": [[1, 1], [2, 2], [0, 0]], "in2": [[1, 0], [0, 1], [2, 0]]}, ["out1", "out2"])
    assert L.free_variable_masks() == {"in1": 0b100, "in2": 0b10}
    assert list(L.free_variable_masks()) == ["in1", "in2"]


def test_quotient_cases():
    L = lay({"dim1": [[1, 0]], "dim2": [[0, 0]]}, [("dim1", 2), ("dim2", 1)], False)
    q = L.quotient(["dim1"])
    assert q == Z1(2, "dim2", "dim2")
    assert q.quotient(["dim2"]) is None                           # dim2 is zero, not the identity
    L = lay({"dim1": [[1, 0], [2, 0], [4, 0]], "dim2": [[0, 1], [0, 2]]}, ["dim1", "dim2"])
    assert L.quotient(["dim1", "dim2"]) is not None
    L = lay({"dim1": [[1, 0, 2], [2, 0, 1]], "dim2": [[0, 1, 0], [0, 2, 0], [0, 4, 0]],
             "dim3": [[0, 0, 1], [0, 0, 2]]}, ["dim1", "dim2", "dim3"])
    assert L.quotient(["dim2"]) is not None
    L = lay({"dim1": [[1, 0, 2], [2, 0, 1]], "dim2": [[0, 1, 0], [0, 2, 0], [0, 4, 0]],
             "dim3": [[0, 1, 1], [0, 0, 2]]}, ["dim1", "dim2", "dim3"])
    assert L.quotient(["dim2"]) is None                           # dim3 reaches into dim2
    assert LL.empty().quotient(["dim1"]) is None
    L = I1(8, "dim1", "dim1") * I1(2, "dim2", "dim2") * I1(4, "dim3", "dim3")
    q = L.quotient(["dim1", "dim3"])
    assert q is not None and q.quotient(["dim2"]) is not None


def layout_from_function(in_dim, size, element, outs):
    """The linear layout whose value at ``x`` is ``element(x)``, given that ``element`` is
    GF(2)-linear: a linear map is fixed by its values at the powers of two (the definition,
    Linear Layouts paper, arXiv 2505.23819); the caller checks linearity at every input."""
    bases = [list(element(1 << i)) for i in range(size.bit_length() - 1)]
    return lay({in_dim: bases}, outs)


def test_pseudoinvert_of_the_blackwell_mixed_precision_case():
    """BlackwellMixedPrecisionDotScaledSMEM: a 16 x 4 packed fp4 tensor stored padded, each 16
    offsets holding 8 elements then 8 of padding. The pseudoinverse is a right inverse on every
    element, and lands where LinearLayoutTest.cpp expects (its formula, a fact of the test)."""
    m, k_packed = 16, 4

    def element(offset):                       # the padded offset -> (row, col) of the packed tensor
        packed = (offset >> 4) * 8 + (offset & 7)
        return divmod(packed, k_packed)
    L = layout_from_function("offset", 2 * m * k_packed, element, ["row", "col"])
    for offset in range(2 * m * k_packed):
        assert tuple(L.apply({"offset": offset}).values()) == element(offset)
    inv = L.pseudoinvert()
    for i, j in itertools.product(range(m), range(k_packed)):
        at = inv.apply({"row": i, "col": j})
        assert L.apply(at) == {"row": i, "col": j}
        linear_coord = i * k_packed + j
        assert at["offset"] == (linear_coord // 8) * 16 + linear_coord % 8


def test_pseudoinvert_of_the_blackwell_swizzled_case():
    """BlackwellMixedPrecisionDotScaledSMEMSwizzled: the same padding over rows of 128 offsets,
    each row's 16-offset chunks XOR-swizzled by the row mod 8; an 8-row tile grown to 16 rows
    by ensure_layout_not_smaller_than. Judged at every offset and by the right inverse, and
    against the test's expected offsets."""
    m, k_packed, k_padded = 16, 64, 128

    def element(offset):                       # the swizzled padded offset -> (row, col) of the packed tensor
        row, chunk, within = offset // k_padded, offset % k_padded // 16, offset % 16
        plain = row * k_padded + (chunk ^ (row % 8)) * 16 + within
        packed = (plain >> 4) * 8 + (plain & 7)
        return divmod(packed, k_packed)
    tile = layout_from_function("offset", 8 * k_padded, element, ["row", "col"])
    L = ensure_layout_not_smaller_than(tile, {"row": m, "col": k_packed})
    assert L.in_dims == {"offset": m * k_padded}
    for offset in range(m * k_padded):
        assert tuple(L.apply({"offset": offset}).values()) == element(offset)
    inv = L.pseudoinvert()
    for i, j in itertools.product(range(m), range(k_packed)):
        at = inv.apply({"row": i, "col": j})
        assert L.apply(at) == {"row": i, "col": j}
        lin = i * k_packed + j
        plain = (lin // 8) * 16 + lin % 8
        row, col = plain // k_padded, plain % k_padded
        assert at["offset"] == row * k_padded + ((col // 16) ^ (row % 8)) * 16 + col % 16


def test_supremum_cases():
    assert supremum(["a", "b", "c"], ["a", "b", "c"]) == ["a", "b", "c"]
    assert supremum(["a", "b"], ["a", "c"]) == ["a", "b", "c"]
    assert supremum(["a", "b"], ["b", "c"]) == ["a", "b", "c"]
    assert supremum(["a", "b", "c"], ["a", "d"]) == ["a", "b", "c", "d"]
    assert supremum([], []) == []
    assert supremum(["a", "b"], []) == ["a", "b"]
    # conflicting orders: no error; each shared dim placed where it is first met, as the 3.9.0
    # wheel's * places them (test_linear_oracle)
    assert supremum(["a", "b"], ["b", "a"]) == ["a", "b"]
    assert supremum(["x", "y"], ["y", "z", "x"]) == ["y", "z", "x"]
    assert supremum(["a", "b"], ["c", "b", "a"]) == ["c", "b", "a"]


def test_divide_left_cases():
    B, C = I1(8, "in", "out"), Z1(16, "in", "out")
    assert divide_left(B * C, B) == C
    assert divide_left(C * B, C) == B
    A = I1(32, "in", "out")
    assert divide_left(A, lay({"in": [[1], [2], [4], [8]], "extra": [[0]]}, ["out"])) is None
    assert divide_left(I1(8, "in", "out"), I1(4, "in", "out")) == I1(2, "in", "out")
    assert divide_left(I1(8, "in", "out"), I1(8, "in", "out")) == I1(1, "in", "out")
    l1 = lay({"in1": [[1, 1], [2, 2], [0, 8], [0, 4]], "in2": [[0, 2], [0, 1]]}, ["out1", "out2"])
    l2 = lay({"in1": [[1, 1], [2, 2]], "in2": [[0, 2], [0, 1]]}, ["out1", "out2"])
    l3 = lay({"in1": [[0, 2], [0, 1]], "in2": []}, ["out1", "out2"])
    assert l2 * l3 == l1 and divide_left(l1, l2) == l3
    l1 = lay([("in2", [[0, 1], [1, 0]]), ("in1", [[2, 0], [0, 2]])], ["out1", "out2"])   # _EliminateInDim
    l2 = lay({"in2": [[0, 1], [1, 0]]}, ["out1", "out2"])
    l3 = lay([("in2", []), ("in1", [[1, 0], [0, 1]])], ["out1", "out2"])
    assert l2 * l3 == l1 and divide_left(l1, l2) == l3
    l4 = lay({"in1": [[0, 1], [0, 2]], "in2": []}, ["out1", "out2"])
    l5 = lay({"in1": [[0, 1], [0, 2]]}, ["out1", "out2"])
    l6 = lay({"in1": [], "in2": []}, ["out1", "out2"])
    assert l5 * l6 == l4 and divide_left(l4, l5) == l6
    l7 = lay({"in1": [], "in2": [[0, 1]], "in3": []}, ["out1", "out2"])
    l8 = lay({"in2": [[0, 1]]}, ["out1", "out2"])
    l9 = lay({"in1": [], "in2": [], "in3": []}, ["out1", "out2"])
    assert l8 * l9 == l7 and divide_left(l7, l8) == l9
    l1 = lay([("in2", [[1, 0], [1, 0]]), ("in1", [[2, 0], [0, 1]])], ["out1", "out2"])   # _EliminateOutDim
    l2 = lay({"in2": [[1, 0], [1, 0]]}, ["out1", "out2"])
    l3 = lay([("in2", []), ("in1", [[1, 0], [0, 1]])], ["out1", "out2"])
    assert l2 * l3 == l1 and divide_left(l1, l2) == l3
    l4 = lay({"in1": [[0, 1], [0, 2]]}, ["out1", "out2"])
    l5 = lay({}, ["out1"])
    l6 = lay({"in1": [[0, 1], [0, 2]]}, ["out1", "out2"])
    assert l5 * l6 == l4 and divide_left(l4, l5) == l6


def test_identity_standard_nd_cases():
    """The out-dims come in fill order, most minor first (Triton's LayoutUtils.h documents them
    as "sorted according to order"); each level an identity of the dims in ``order``."""
    assert identity_standard_nd("lane", [4, 8], [1, 0]) == I1(8, "lane", "dim1") * I1(4, "lane", "dim0")
    assert identity_standard_nd("lane", [4, 8], [1, 0]).out_dim_names == ["dim1", "dim0"]
    assert identity_standard_nd("lane", [4, 8], [1, 0]).bases["lane"] == ((1, 0), (2, 0), (4, 0), (0, 1), (0, 2))
    assert identity_standard_nd("lane", [4, 8], [0, 1]) == I1(4, "lane", "dim0") * I1(8, "lane", "dim1")
    assert identity_standard_nd("w", [2, 4, 8], [2, 0, 1]).out_dim_names == ["dim2", "dim0", "dim1"]


# ================================================================= Triton's encodings judged by their meaning
def unravel(index, extents, order):
    """``index`` split into one coordinate per dim, ``order[0]`` the fastest-varying dim."""
    coords = [0] * len(extents)
    for d in order:
        index, coords[d] = divmod(index, extents[d])
    return coords


def blocked_counts(spt, tpw, wpc, shape):
    """Per dim: the CTA tile's extent, the registers a thread keeps of its own block (no more
    than the tensor has), and how many times the tile repeats to cover the tensor."""
    tile = [s * t * w for s, t, w in zip(spt, tpw, wpc)]
    own = [min(s, n) for s, n in zip(spt, shape)]
    repeats = [max(1, n // t) for n, t in zip(shape, tile)]
    return tile, own, repeats


def blocked_element(spt, tpw, wpc, order, shape, register, lane, warp):
    """The element BlockedLayout gives ``(register, lane, warp)``, from what the encoding means
    (Gluon's documentation): in each dim a thread holds ``spt`` consecutive elements, the warp's
    ``tpw`` threads follow one another, then the CTA's ``wpc`` warps; lane and warp ids count
    through the dims in ``order``. A larger tensor is covered by repeating the tile in more
    registers (again in ``order``); a smaller one wraps around, so threads hold copies, and a
    thread keeps only the registers that land on distinct elements (the Triton 3.9.0 wheel's
    blocked layouts hold no duplicate registers)."""
    tile, own, repeats = blocked_counts(spt, tpw, wpc, shape)
    in_thread = unravel(register % prod(own), own, order)
    repeat = unravel(register // prod(own), repeats, order)
    lanes, warps = unravel(lane, tpw, order), unravel(warp, wpc, order)
    return [(repeat[d] * tile[d] + (warps[d] * tpw[d] + lanes[d]) * spt[d] + in_thread[d]) % shape[d]
            for d in range(len(shape))]


def blocked_judged(spt, tpw, wpc, order, shape):
    """The library's BlockedLayout over ``shape``, every input checked against :func:`blocked_element`."""
    L = to_linear_layout(BlockedLayout(spt, tpw, wpc, order), shape)
    _, own, repeats = blocked_counts(spt, tpw, wpc, shape)
    registers = prod(own) * prod(repeats)
    assert L.in_dims == {"register": registers, "lane": prod(tpw), "warp": prod(wpc), "block": 1}
    assert L.out_dims == {f"dim{d}": n for d, n in enumerate(shape)}
    for register, lane, warp in itertools.product(range(registers), range(prod(tpw)), range(prod(wpc))):
        got = L.apply({"register": register, "lane": lane, "warp": warp, "block": 0})
        assert list(got.values()) == blocked_element(spt, tpw, wpc, order, shape, register, lane, warp), \
            (register, lane, warp)
    return L


def test_blocked_cases_of_linear_layout_conversions_test():
    """LinearLayoutConversionsTest's blocked cases: its expected layouts, and every input."""
    got = blocked_judged([4], [4], [4], [0], [8])                                        # ShapeSmallerThanLayout
    assert got == lay({"register": [[1], [2]], "lane": [[4], [0]], "warp": [[0], [0]], "block": []}, ["dim0"])
    got = blocked_judged([1], [4], [4], [0], [128])                                      # ShapeLargerThanLayout
    assert got == lay({"register": [[16], [32], [64]], "lane": [[1], [2]], "warp": [[4], [8]], "block": []},
                      ["dim0"])
    got = blocked_judged([1, 1], [1, 32], [8, 1], [1, 0], [1, 64])                       # ReversedOrder's CTA part
    assert got.bases["register"] == ((0, 32),)


def spread_bits(rng, rank, bits):
    """A power of two per dim, ``2**bits`` in all, the bits given to random dims."""
    counts = [1] * rank
    for _ in range(bits):
        counts[rng.randrange(rank)] *= 2
    return counts


@pytest.mark.parametrize("seed", range(24))
def test_blocked_layout_by_its_meaning(seed):
    """Random blocked layouts, rank 1 to 3, any order, tensors smaller and larger than the tile."""
    rng = random.Random(1200 + seed)
    rank = rng.randint(1, 3)
    spt = [1 << rng.randint(0, 2) for _ in range(rank)]
    tpw, wpc = spread_bits(rng, rank, 5), spread_bits(rng, rank, rng.randint(0, 2))
    tile, _, _ = blocked_counts(spt, tpw, wpc, [1] * rank)
    shape = [max(1, t * 4 >> rng.randint(0, 5)) for t in tile]       # from an eighth of the tile to 4 tiles
    while prod(shape) > 2048:
        shape[shape.index(max(shape))] //= 2
    blocked_judged(spt, tpw, wpc, rng.sample(range(rank), rank), shape)


def mma_v2_element(warps_per_cta, shape, register, lane, warp):
    """The element of an ``mma.sync`` m16n8 accumulator (NVMMADistributedLayout version 2) at
    ``(register, lane, warp)``. PTX ISA, "Matrix Fragments for mma.m16n8k*": lane ``l`` holds
    ``c0, c1`` at row ``l // 4``, columns ``2 * (l % 4) + {0, 1}``, and ``c2, c3`` 8 rows below.
    The CTA's warps tile along N first (Triton's ``warpsPerCTA`` with row-major order), and the
    CTA tile repeats in more registers over a larger tensor, along N first."""
    fragment = register % 4
    row = lane // 4 + 8 * (fragment // 2)
    col = 2 * (lane % 4) + fragment % 2
    tile = [16 * warps_per_cta[0], 8 * warps_per_cta[1]]
    repeat = unravel(register // 4, [max(1, n // t) for n, t in zip(shape, tile)], [1, 0])
    at_warp = unravel(warp, warps_per_cta, [1, 0])
    return [(repeat[0] * tile[0] + at_warp[0] * 16 + row) % shape[0],
            (repeat[1] * tile[1] + at_warp[1] * 8 + col) % shape[1]]


@pytest.mark.parametrize("warps, shape", [([1, 1], [32, 32]), ([1, 1], [16, 8]), ([2, 2], [64, 32]),
                                          ([4, 1], [32, 16]), ([1, 4], [16, 64]), ([2, 1], [64, 8])])
def test_mma_v2_accumulator_by_the_ptx_fragment(warps, shape):
    """The library's MMA v2 layout, every (register, lane, warp) against the PTX formula; the
    32 x 32 case is also LinearLayoutConversionsTest's MMAv2_32x32 (its expected layout)."""
    L = to_linear_layout(NVMMADistributedLayout([2, 0], warps, [16, 8]), shape)
    registers = 4 * prod(max(1, n // t) for n, t in zip(shape, [16 * warps[0], 8 * warps[1]]))
    assert L.in_dims == {"register": registers, "lane": 32, "warp": prod(warps), "block": 1}
    for register, lane, warp in itertools.product(range(registers), range(32), range(prod(warps))):
        got = L.apply({"register": register, "lane": lane, "warp": warp, "block": 0})
        assert list(got.values()) == mma_v2_element(warps, shape, register, lane, warp), (register, lane, warp)
    if shape == [32, 32] and warps == [1, 1]:
        assert L == lay({"register": [[0, 1], [8, 0], [0, 8], [0, 16], [16, 0]],
                         "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "warp": [], "block": []},
                        ["dim0", "dim1"])


# ================================================================= brute force: the definitions
def xor_apply(bases, outs, point):
    """The definition: the XOR of the bases of the set bits of each in-dim's value."""
    out = [0] * len(outs)
    for name, rows in bases.items():
        v = point.get(name, 0)
        for i, b in enumerate(rows):
            if v >> i & 1:
                out = [o ^ x for o, x in zip(out, b)]
    return dict(zip(outs, out))


def points(in_dims):
    """Every input of a layout with these in-dim sizes."""
    names = list(in_dims)
    for values in itertools.product(*(range(in_dims[n]) for n in names)):
        yield dict(zip(names, values))


def flat(values, dims):
    """Colexicographic flat index (first dim fastest): Triton's flattening, minor to major."""
    x, scale = 0, 1
    for name, size in dims.items():
        x += values.get(name, 0) * scale
        scale *= size
    return x


def split(x, dims):
    out = {}
    for name, size in dims.items():
        out[name] = x % size
        x //= size
    return out


IN_NAMES = ["register", "lane", "warp", "block"]
OUT_NAMES = ["dim0", "dim1", "dim2"]


def random_layout(rng, ins=None, outs=None, max_bits=3, surjective=False):
    ins = ins if ins is not None else [n for n in IN_NAMES if rng.random() < 0.6] or ["register"]
    outs = outs if outs is not None else {n: 1 << rng.randint(0, 3) for n in OUT_NAMES if rng.random() < 0.6}
    while True:
        bases = {}
        for n in ins:
            rows = []
            for _ in range(rng.randint(0, max_bits)):
                r = rng.random()
                if r < 0.15:
                    rows.append([0] * len(outs))
                elif r < 0.6 and outs:
                    k = rng.randrange(len(outs))
                    size = list(outs.values())[k]
                    rows.append([(1 << rng.randrange(size.bit_length() - 1)) if j == k and size > 1 else 0
                                 for j in range(len(outs))])
                else:
                    rows.append([rng.randrange(s) for s in outs.values()])
            bases[n] = rows
        L = LL.from_bases(bases, dict(outs), require_surjective=False)
        if not surjective or len({tuple(xor_apply(bases, list(outs), p).values()) for p in points(L.in_dims)}) \
                == L.total_out_size:
            return L


def table(L):
    """Every input -> output, by the definition."""
    return {tuple(p.items()): xor_apply(L.bases, L.out_dim_names, p) for p in points(L.in_dims)}


SEEDS = range(60)


@pytest.mark.parametrize("seed", SEEDS)
def test_apply_and_matrix_by_brute_force(seed):
    rng = random.Random(seed)
    L = random_layout(rng)
    for p in points(L.in_dims):
        assert L.apply(p) == xor_apply(L.bases, L.out_dim_names, p)
    if L.in_dims:
        grid = list(points(L.in_dims))
        arrays = {n: np.array([p[n] for p in grid], dtype=np.int64) for n in L.in_dims}
        got = L.apply(arrays)
        for k, p in enumerate(grid):
            assert {n: int(v[k]) for n, v in got.items()} == xor_apply(L.bases, L.out_dim_names, p)
    # the matrix: column c = the out bits of the c-th basis, rows out-dims minor to major, low bit first
    m = L.matrix()
    c = 0
    for name, rows in L.bases.items():
        for b in rows:
            bits = [v >> j & 1 for v, s in zip(b, L.out_dims.values()) for j in range(s.bit_length() - 1)]
            assert m[:, c].tolist() == bits
            c += 1
    # surjective / injective by counting the image
    image = {tuple(v.values()) for v in table(L).values()}
    assert L.is_surjective() == (len(image) == L.total_out_size)
    assert L.is_injective() == (len(image) == L.total_in_size)
    assert L.is_invertible() == (len(image) == L.total_out_size == L.total_in_size)


@pytest.mark.parametrize("seed", SEEDS)
def test_reshape_flatten_transpose_by_brute_force(seed):
    rng = random.Random(100 + seed)
    L = random_layout(rng)
    T = table(L)
    ins, outs = L.in_dims, L.out_dims
    bits_in = L.total_in_bits
    cuts = sorted(rng.randint(0, bits_in) for _ in range(2))
    new_ins = [("a", 1 << cuts[0]), ("b", 1 << (cuts[1] - cuts[0])), ("c", 1 << (bits_in - cuts[1]))]
    R = L.reshape_ins(new_ins)
    for p in points(R.in_dims):
        assert R.apply(p) == T[tuple(split(flat(p, dict(new_ins)), ins).items())]
    bits_out = L.total_out_bits
    cut = rng.randint(0, bits_out)
    new_outs = [("x", 1 << cut), ("y", 1 << (bits_out - cut))]
    R = L.reshape_outs(new_outs)
    assert R.out_dims == dict(new_outs)
    for p in points(ins):
        assert R.apply(p) == split(flat(T[tuple(p.items())], outs), dict(new_outs))
    F = L.flatten_ins()
    if ins:
        first = next(iter(ins))
        assert F.in_dims == {first: L.total_in_size}
        for p in points(F.in_dims):
            assert F.apply(p) == T[tuple(split(p[first], ins).items())]
    G = L.flatten_outs()
    if outs:
        first = next(iter(outs))
        for p in points(ins):
            assert G.apply(p) == {first: flat(T[tuple(p.items())], outs)}
    perm_in = rng.sample(list(ins), len(ins))
    perm_out = rng.sample(list(outs), len(outs))
    Ti, To = L.transpose_ins(perm_in), L.transpose_outs(perm_out)
    assert Ti.in_dim_names == perm_in and To.out_dim_names == perm_out
    assert To.out_dims == {n: outs[n] for n in perm_out}
    for p in points(ins):
        assert Ti.apply(p) == T[tuple(p.items())]
        assert To.apply(p) == T[tuple(p.items())] and list(To.apply(p)) == perm_out


@pytest.mark.parametrize("seed", SEEDS)
def test_sublayout_concat_resize_rename_by_brute_force(seed):
    rng = random.Random(200 + seed)
    L = random_layout(rng)
    T = table(L)
    ins, outs = L.in_dims, L.out_dims
    keep_in = [n for n in ins if rng.random() < 0.6]
    keep_out = [n for n in outs if rng.random() < 0.6]
    S = L.sublayout(keep_in[::-1], keep_out[::-1])              # the layout's order, whatever the argument's
    assert S.in_dim_names == keep_in and S.out_dims == {n: outs[n] for n in keep_out}
    for p in points(S.in_dims):
        full = T[tuple({n: p.get(n, 0) for n in ins}.items())]
        assert S.apply(p) == {n: full[n] for n in keep_out}
    assert L.sublayout_is_zero(keep_in, keep_out) == all(not any(v.values()) for v in
                                                          [S.apply(p) for p in points(S.in_dims)])
    # concat_ins: two layouts on the same out-dims, disjoint in-dims; XOR of both images
    other = random_layout(rng, ins=["offset", "extra"][: rng.randint(1, 2)], outs=dict(outs))
    C = L.concat_ins(other)
    assert C.in_dim_names == L.in_dim_names + other.in_dim_names
    To = table(other)
    for p in points(C.in_dims):
        a = T[tuple({n: p[n] for n in ins}.items())]
        b = To[tuple({n: p[n] for n in other.in_dims}.items())]
        assert C.apply(p) == {n: a[n] ^ b[n] for n in outs}
    # concat_outs: the same in-dims, disjoint out-dims; both images side by side
    other = random_layout(rng, ins=list(ins), outs={"p": 4, "q": 2})
    other = LL.from_bases([(n, [list(b) for b in other.bases[n]][: len(L.bases[n])]
                           + [[0, 0]] * (len(L.bases[n]) - len(other.bases[n]))) for n in ins],
                          {"p": 4, "q": 2}, require_surjective=False)
    C = L.concat_outs(other)
    To = table(other)
    for p in points(ins):
        assert C.apply(p) == {**T[tuple(p.items())], **To[tuple(p.items())]}
    # resize_in_dim: the first values of the dim only
    if ins:
        d = rng.choice(list(ins))
        n = 1 << rng.randint(0, ins[d].bit_length() - 1)
        R = L.resize_in_dim(d, n)
        assert R.in_dims == {**ins, d: n}
        for p in points(R.in_dims):
            assert R.apply(p) == T[tuple(p.items())]
    # resize_out_dim (Triton's resizeOutDim): basis values at or above the new size become 0
    if outs:
        d = rng.choice(list(outs))
        n = 1 << rng.randint(0, outs[d].bit_length() - 1)
        R = L.resize_out_dim(d, n)
        cut = {k: [[(0 if (o == d and v >= n) else v) for o, v in zip(outs, b)] for b in rows]
               for k, rows in L.bases.items()}
        for p in points(ins):
            assert R.apply(p) == xor_apply(cut, list(outs), p)
        assert R.out_dims == {**outs, d: n}
    # rename keeps the place and the map
    if ins:
        d = rng.choice(list(ins))
        R = L.rename_in_dim(d, "renamed")
        assert R.in_dim_names == ["renamed" if n == d else n for n in ins]
        for p in points(ins):
            q = {("renamed" if n == d else n): v for n, v in p.items()}
            assert R.apply(q) == T[tuple(p.items())]
    if outs:
        d = rng.choice(list(outs))
        R = L.rename_out_dim(d, "renamed")
        for p in points(ins):
            assert R.apply(p) == {("renamed" if n == d else n): v for n, v in T[tuple(p.items())].items()}


@pytest.mark.parametrize("seed", SEEDS)
def test_remove_zero_bases_and_free_variables_by_brute_force(seed):
    rng = random.Random(300 + seed)
    L = random_layout(rng, max_bits=4)
    ins = L.in_dims
    if ins:
        d = rng.choice(list(ins))
        R = L.remove_zero_bases_along_dim(d)
        nonzero = [i for i, b in enumerate(L.bases[d]) if any(b)]
        assert R.in_dims[d] == 1 << len(nonzero)
        for p in points(R.in_dims):                       # bit j of the new dim = the j-th nonzero basis
            old = dict(p)
            old[d] = sum(((p[d] >> j) & 1) << i for j, i in enumerate(nonzero))
            assert R.apply(p) == L.apply(old)
    # a free bit: its basis is in the span of the bases before it (in-dims in order, low bit first)
    masks = L.free_variable_masks()
    assert list(masks) == L.in_dim_names
    span = {tuple(0 for _ in L.out_dims)}
    for name, rows in L.bases.items():
        for i, b in enumerate(rows):
            assert bool(masks[name] >> i & 1) == (tuple(b) in span), (name, i)
            span |= {tuple(x ^ y for x, y in zip(s, b)) for s in span}
        assert masks[name] < (1 << len(rows)) or not rows


@pytest.mark.parametrize("seed", SEEDS)
def test_num_consecutive_in_out_by_brute_force(seed):
    rng = random.Random(400 + seed)
    L = random_layout(rng, max_bits=4)
    if rng.random() < 0.5 and L.in_dims and L.out_dims:    # often vectorised: the first bases the identity
        first, out0 = L.in_dim_names[0], L.out_dim_names[0]
        k = rng.randint(0, 3)
        head = LL.identity_1d(1 << k, first, out0)
        L = head * L if head.in_dims else L
    if not L.in_dims or not L.out_dims:
        assert L.num_consecutive_in_out() == 1
        return
    first, out0 = L.in_dim_names[0], L.out_dim_names[0]
    T = table(L)
    best = 1
    for k in range(0, L.in_dims[first].bit_length()):
        v = 1 << k
        # x < v along the first in-dim lands on (x, 0, ...), and every input whose low k bits of
        # the first in-dim are zero lands on a multiple of v along the first out-dim
        ok = all(T[tuple({**{n: 0 for n in L.in_dims}, first: x}.items())] ==
                 {o: (x if o == out0 else 0) for o in L.out_dims} for x in range(v))
        ok = ok and all(out[out0] % v == 0 for key, out in T.items() if dict(key)[first] % v == 0)
        if ok:
            best = v
    assert L.num_consecutive_in_out() == best


def brute_product(A, B, p):
    """(A * B)(p) by the definition: A reads the low bits of each shared in-dim, B the rest; B's
    value lands above A's along each shared out-dim."""
    pa = {n: p.get(n, 0) % A.in_dims[n] for n in A.in_dims}
    pb = {n: p.get(n, 0) // A.in_dims.get(n, 1) for n in B.in_dims}
    a, b = A.apply(pa), B.apply(pb)
    names = set(A.out_dims) | set(B.out_dims)
    return {n: a.get(n, 0) + A.out_dims.get(n, 1) * b.get(n, 0) for n in names}


@pytest.mark.parametrize("seed", SEEDS)
def test_product_and_division_by_brute_force(seed):
    rng = random.Random(500 + seed)
    ins = [n for n in IN_NAMES if rng.random() < 0.7] or ["lane"]
    outs = [n for n in OUT_NAMES if rng.random() < 0.7] or ["dim0"]
    B = random_layout(rng, ins=[n for n in ins if rng.random() < 0.7],
                      outs={n: 1 << rng.randint(0, 2) for n in outs if rng.random() < 0.7}, max_bits=2)
    C = random_layout(rng, ins=ins, outs={n: 1 << rng.randint(0, 2) for n in outs}, max_bits=2)
    A = B * C
    assert A.in_dim_names == ins and A.out_dim_names == outs
    for p in points(A.in_dims):
        assert dict(A.apply(p)) == brute_product(B, C, p)
    assert divide_left(A, B) == C
    # divide_right: A2 = C2 * B2, with C2 on all the dims
    C2 = random_layout(rng, ins=ins, outs={n: 1 << rng.randint(0, 2) for n in outs}, max_bits=2)
    B2 = random_layout(rng, ins=[n for n in ins if rng.random() < 0.7],
                       outs={n: 1 << rng.randint(0, 2) for n in outs if rng.random() < 0.7}, max_bits=2)
    A2 = C2 * B2
    for p in points(A2.in_dims):
        assert dict(A2.apply(p)) == brute_product(C2, B2, p)
    assert divide_right(A2, B2) == C2
    # a perturbed A: any answer must multiply back to A (checked by the definition), and None
    # only when no C fits: C's dims are A's, so each of its bases is searched for exhaustively
    if A.total_in_bits:
        names = [n for n in A.in_dim_names if A.bases[n]]
        d = rng.choice(names)
        i = rng.randrange(len(A.bases[d]))
        rows = [list(b) for b in A.bases[d]]
        k = rng.randrange(len(outs))
        rows[i][k] ^= 1 << rng.randrange(A.out_dims[outs[k]].bit_length() - 1) if A.out_dims[outs[k]] > 1 else 0
        P = LL.from_bases({**{n: [list(b) for b in A.bases[n]] for n in A.in_dim_names}, d: rows}, A.out_dims,
                          require_surjective=False)
        got = divide_left(P, B)
        if got is not None:
            for p in points(P.in_dims):
                assert dict(P.apply(p)) == brute_product(B, got, p)
        else:
            assert not _some_quotient_exists(P, B)


def _some_quotient_exists(A, B):
    """Is there any C over A's dims with B * C == A? C's sizes are forced (A's over B's); search
    each of C's bases among every value (the product is basis by basis)."""
    for o in B.out_dims:
        if o not in A.out_dims or A.out_dims[o] % B.out_dims[o]:
            return False
    if any(n not in A.in_dims or A.in_dims[n] < B.in_dims[n] for n in B.in_dims):
        return False
    c_outs = {o: A.out_dims[o] // B.out_dims.get(o, 1) for o in A.out_dims}
    choices = list(itertools.product(*(range(s) for s in c_outs.values())))
    for name, rows in A.bases.items():
        kb = len(B.bases.get(name, ()))
        for i, b in enumerate(rows):
            want = dict(zip(A.out_dim_names, b))
            if i < kb:
                have = {o: (B.bases[name][i][B.out_dim_names.index(o)] if o in B.out_dims else 0) for o in A.out_dims}
                if have != want:
                    return False
                continue
            if not any(all(want[o] == B.out_dims.get(o, 1) * c for o, c in zip(c_outs, vals)) for vals in choices):
                return False
    return True


@pytest.mark.parametrize("seed", SEEDS)
def test_quotient_by_brute_force(seed):
    rng = random.Random(600 + seed)
    ins = ["d0", "d1", "d2"]
    sizes = {n: 1 << rng.randint(0, 2) for n in ins}
    if rng.random() < 0.5:          # often trivial over some dims: identity blocks times a random rest
        L = random_layout(rng, ins=["d0"], outs={"d0": sizes["d0"]}, max_bits=2)
        L = L * LL.identity_1d(sizes["d1"], "d1", "d1") * LL.identity_1d(sizes["d2"], "d2", "d2")
    else:
        L = random_layout(rng, ins=ins, outs=sizes, max_bits=2)
    for r in range(1, 3):
        for dims in itertools.combinations(ins, r):
            q = L.quotient(list(dims))
            trivial = all(L.in_dims[d] == L.out_dims[d] for d in dims)
            if trivial:
                for p in points(L.in_dims):
                    out = L.apply(p)
                    rest_only = L.apply({n: (0 if n in dims else v) for n, v in p.items()})
                    if any(out[d] != p[d] for d in dims) or any(out[o] != rest_only[o] for o in out if o not in dims):
                        trivial = False
                        break
            assert (q is not None) == trivial, dims
            if q is not None:
                assert q.in_dim_names == [n for n in ins if n not in dims]
                for p in points(q.in_dims):
                    out = L.apply(p)
                    assert q.apply(p) == {o: v for o, v in out.items() if o not in dims}


@pytest.mark.parametrize("seed", SEEDS)
def test_compose_invert_pseudoinvert_by_brute_force(seed):
    rng = random.Random(700 + seed)
    outer = random_layout(rng, ins=["m0", "m1"], outs={"dim0": 1 << rng.randint(0, 3), "dim1": 2}, max_bits=3)
    inner = random_layout(rng, outs={"m0": outer.in_dims["m0"], "m1": outer.in_dims["m1"]}, max_bits=3)
    C = inner.compose(outer)
    assert C.out_dims == outer.out_dims
    for p in points(inner.in_dims):
        assert C.apply(p) == outer.apply(inner.apply(p))
    S = random_layout(rng, outs={"dim0": 1 << rng.randint(0, 3), "dim1": 1 << rng.randint(0, 2)}, max_bits=4,
                      surjective=True)
    P = S.pseudoinvert()
    for y in points(S.out_dims):
        assert S.apply(P.apply(y)) == y
    if S.is_invertible():
        V = S.invert()
        for p in points(S.in_dims):
            assert V.apply(S.apply(p)) == p
    else:
        with pytest.raises(LayoutError):
            S.invert()
    # invert_and_compose: A(x) == B(C(x)) everywhere, B any surjective layout over A's out-dims
    B = random_layout(rng, ins=["offset", "block"], outs=dict(S.out_dims), max_bits=3, surjective=True)
    A = random_layout(rng, outs={o: 1 << rng.randint(0, s.bit_length() - 1) for o, s in S.out_dims.items()})
    X = A.invert_and_compose(B)
    assert X.in_dims == A.in_dims and X.out_dims == B.in_dims
    for p in points(A.in_dims):
        assert B.apply(X.apply(p)) == A.apply(p)


@pytest.mark.parametrize("seed", range(30))
def test_ensure_layout_not_larger_and_smaller_by_brute_force(seed):
    """On layouts built as Triton builds its encodings (products of 1-D identities and broadcasts,
    so each out-dim's nonzero bases are distinct powers of two): the result fits the shape, each
    basis kept or zeroed, the largest zeroed first; grown layouts repeat along the first in-dim."""
    rng = random.Random(800 + seed)
    L = LL.identity_1d(1 << rng.randint(0, 2), "register", "dim0")
    for _ in range(rng.randint(1, 5)):
        piece = rng.choice([LL.identity_1d, LL.zeros_1d])
        L = L * piece(1 << rng.randint(1, 2), rng.choice(["register", "lane", "warp"]), rng.choice(OUT_NAMES[:2]))
    shape = {o: 1 << rng.randint(0, 4) for o in L.out_dims}
    small = ensure_layout_not_larger_than(L, shape)
    assert small.in_dims == L.in_dims
    for o, s in small.out_dims.items():
        assert s == min(L.out_dims[o], shape[o])
        k = L.out_dim_names.index(o)
        kept = sorted(b[k] for rows in small.bases.values() for b in rows if b[k])
        before = sorted(b[k] for rows in L.bases.values() for b in rows if b[k])
        assert kept == [v for v in before if v < s]               # the largest values zeroed
    for name, rows in small.bases.items():                        # each basis kept or zeroed per out-dim
        for b, old in zip(rows, L.bases[name]):
            assert all(v in (0, w) for v, w in zip(b, old))
    T = table(L)
    for p in points(L.in_dims):                                   # so the data wraps: L(p) mod the size
        assert small.apply(p) == {o: v % small.out_dims[o] for o, v in T[tuple(p.items())].items()}
    big = ensure_layout_not_smaller_than(L, shape)
    for o, s in big.out_dims.items():
        assert s == max(L.out_dims[o], shape[o])
    assert [n for n in big.in_dims if big.in_dims[n] != L.in_dims[n]] in ([], ["register"])
    for p in points(big.in_dims):          # the register's new high bits step through the new blocks
        reg = p["register"] % L.in_dims["register"]
        high = p["register"] // L.in_dims["register"]
        base = T[tuple({**p, "register": reg}.items())]
        grown = {o: base[o] for o in L.out_dims}
        for o in L.out_dims:
            reps = big.out_dims[o] // L.out_dims[o]
            grown[o] += L.out_dims[o] * (high % reps)
            high //= reps
        assert big.apply(p) == grown


@pytest.mark.parametrize("seed", range(24))
def test_apply_on_whole_tiles_by_brute_force(seed):
    """The compiled whole-array path (>= 512 int64 elements: one table for inputs of <= 12 bits in
    all, per-dim tables beyond), 1 to 4 array inputs in any order, 1-D, 2-D and strided, against
    the definition at every element; a bad value anywhere is named."""
    rng = random.Random(900 + seed)
    np_rng = np.random.default_rng(seed)
    ins = ["register", "lane", "warp", "block"]
    max_bits = 3 if seed % 2 else 6                        # 12 bits in all, or more (per-dim tables)
    L = random_layout(rng, ins=ins, outs={n: 1 << rng.randint(0, 5) for n in OUT_NAMES[: rng.randint(1, 3)]},
                      max_bits=max_bits)
    given = rng.sample(ins, rng.randint(1, 4))
    shape = [(1024,), (32, 40), (2048,)][seed % 3]
    arrays = {n: np_rng.integers(0, L.in_dims[n], size=shape, dtype=np.int64) for n in given}
    if seed % 4 == 3:                                      # strided views
        arrays = {n: np.repeat(a, 2, axis=-1)[..., ::2] for n, a in arrays.items()}
    got = L.apply(arrays)
    assert list(got) == L.out_dim_names
    flat = {n: a.reshape(-1) for n, a in arrays.items()}
    for i in range(0, flat[given[0]].size, 7):
        want = xor_apply(L.bases, L.out_dim_names, {n: int(v[i]) for n, v in flat.items()})
        assert {o: int(v.reshape(-1)[i]) for o, v in got.items()} == want
        assert all(v.shape == shape for v in got.values())
    bad = {n: a.copy() for n, a in arrays.items()}
    victim = rng.choice(given)
    bad[victim].reshape(-1)[rng.randrange(bad[victim].size)] = L.in_dims[victim] if rng.random() < 0.5 else -1
    with pytest.raises(LayoutError, match=victim):
        L.apply(bad)


def test_ensure_layout_not_larger_than_is_triton_3_9s():
    """Triton 3.9.0's ensureLayoutNotLargerThan (its assert "isPowerOf2_32(newOutDim) && newOutDim
    != 0" is in the wheel's libtriton.so; the older largest-first version's asserts are not): each
    out-dim becomes min(size, shape), every basis value at or above it 0, no surjectivity asked."""
    L = lay({"register": [[3], [1]]}, ["dim0"])                       # a multi-bit basis
    assert ensure_layout_not_larger_than(L, {"dim0": 2}) == lay({"register": [[0], [1]]}, ["dim0"])
    L = lay({"register": [[1], [4]], "lane": [[2], [4]]}, ["dim0"])   # two bases on one bit
    assert ensure_layout_not_larger_than(L, {"dim0": 4}) == lay({"register": [[1], [0]], "lane": [[2], [0]]},
                                                               ["dim0"])
    L = lay({"register": [[2]]}, [("dim0", 8)], False)                 # not surjective
    assert ensure_layout_not_larger_than(L, {"dim0": 4}) == lay({"register": [[2]]}, [("dim0", 4)], False)
    assert ensure_layout_not_larger_than(L, {"dim0": 16}) == L         # never grows
    L = lay({"register": [[1, 0], [0, 0], [4, 0], [0, 2]], "lane": [[8, 0], [2, 1]]}, [("dim0", 16), ("dim1", 4)],
            False)
    got = ensure_layout_not_larger_than(L, {"dim0": 4, "dim1": 2}, broadcast_registers=False)
    # register [4, 0] becomes all zero: dropped; [0, 2] keeps nothing either: dropped; [0, 0] was
    # zero already: kept; lane's bases are zeroed, never dropped
    assert got == lay({"register": [[1, 0], [0, 0]], "lane": [[0, 0], [2, 1]]}, [("dim0", 4), ("dim1", 2)], False)


def test_a_layout_pickles_and_copies_as_a_value():
    """Was AttributeError ("LinearLayout is immutable") from pickle, copy.copy and copy.deepcopy:
    the default slot-state restore sets attributes one by one."""
    import copy
    import pickle
    for L in (I1(4, "in", "out"), lay({"offset": [[0, 1], [1, 1]]}, ["dim0", "dim1"]), LL.empty(),
              lay({"in": [[1, 0]], "x": []}, [("a", 4), ("b", 1)], False)):
        back = pickle.loads(pickle.dumps(L))
        assert back == L and hash(back) == hash(L) and back.is_surjective() == L.is_surjective()
        assert copy.copy(L) == L and copy.deepcopy(L) == L


@pytest.mark.parametrize("seed", range(20))
def test_repr_rebuilds_the_layout(seed):
    """A non-surjective layout's repr did not eval back (the constructor asks for surjectivity)."""
    L = random_layout(random.Random(1000 + seed))
    assert eval(repr(L), {"LinearLayout": LL}) == L


@pytest.mark.parametrize("seed", range(20))
def test_identity_standard_nd_by_brute_force(seed):
    """in_dim = x lands on x unravelled over ``shape`` with ``order[0]`` the fastest dim."""
    rng = random.Random(1100 + seed)
    rank = rng.randint(1, 3)
    shape = [1 << rng.randint(0, 3) for _ in range(rank)]
    order = rng.sample(range(rank), rank)
    L = identity_standard_nd("register", shape, order)
    assert L.out_dim_names == [f"dim{d}" for d in order]
    total = 1
    for s in shape:
        total *= s
    for x in range(total):
        want, rest = {}, x
        for d in order:
            want[f"dim{d}"] = rest % shape[d]
            rest //= shape[d]
        assert L.apply({"register": x}) == want
