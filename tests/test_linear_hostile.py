"""A hostile catalogue for ``layouts.linear``: every bad input is a LayoutError (a ValueError) or a
LayoutTypeError (a TypeError) whose message names the dim or the argument -- never an abort, a
hang, an AssertionError, a numpy error or a wrong number -- and no input is changed by a failing
call. (Triton's wheel aborts the process on most of these: see test_linear_oracle.)

Calls whose work could explode (2**60-element layouts, endless bases) run in a bounded child
process (:func:`hostile.run_bounded`), so a regression is a failed test, not a hung machine.
"""

import itertools

import numpy as np
import pytest
from hostile import check_refused, run_bounded

from layouts import linear
from layouts.errors import LayoutError, LayoutTypeError
from layouts.linear import LinearLayout as LL

MMA = LL.from_bases({"register": [[0, 1], [8, 0]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]},
                    ["dim0", "dim1"])
I4 = LL.identity_1d(4, "in", "out")
NOT_SURJ = LL.from_bases({"x": [[1]]}, {"out": 4}, require_surjective=False)

T, E = LayoutTypeError, LayoutError

CASES = [
    # ---- construction: sizes, bases, names, flags
    ("npot out size", lambda: LL.from_bases({"in": [[1]]}, {"out": 3}), E, ["out", "power of two"]),
    ("zero out size", lambda: LL.from_bases({"in": []}, {"out": 0}), E, ["out", "power of two"]),
    ("negative out size", lambda: LL.from_bases({"in": []}, {"out": -2}), E, ["out", "power of two"]),
    ("float out size", lambda: LL.from_bases({"in": []}, {"out": 2.0}), T, ["out", "integer"]),
    ("bool out size", lambda: LL.from_bases({"in": []}, {"out": True}), T, ["out", "integer"]),
    ("None out size", lambda: LL.from_bases({"in": []}, {"out": None}), T, ["out", "integer"]),
    ("string out size", lambda: LL.from_bases({"in": []}, {"out": "4"}), T, ["out", "integer"]),
    ("basis too short", lambda: LL.from_bases({"in": [[1]]}, ["a", "b"]), E, ["bases['in'][0]", "one per out-dim"]),
    ("basis too long", lambda: LL.from_bases({"in": [[1, 2]]}, ["o"]), E, ["bases['in'][0]", "2 values"]),
    ("basis out of range", lambda: LL.from_bases({"in": [[4]]}, {"o": 4}), E, ["bases['in'][0]", "'o'", "below"]),
    ("negative basis", lambda: LL.from_bases({"in": [[1], [-2]]}, ["o"]), E, ["bases['in'][1]", "negative"]),
    ("float basis", lambda: LL.from_bases({"in": [[1.0]]}, ["o"]), T, ["bases['in'][0]", "integer"]),
    ("bool basis", lambda: LL.from_bases({"in": [[True]]}, ["o"]), T, ["bases['in'][0]", "integer"]),
    ("None basis", lambda: LL.from_bases({"in": [[None]]}, ["o"]), T, ["bases['in'][0]", "integer"]),
    ("string basis", lambda: LL.from_bases({"in": ["1"]}, ["o"]), T, ["bases['in'][0]"]),
    ("int basis", lambda: LL.from_bases({"in": [1]}, ["o"]), T, ["bases['in'][0]"]),
    ("numpy float basis", lambda: LL.from_bases({"in": np.array([[1.0]])}, ["o"]), T, ["bases['in'][0]"]),
    ("bases None", lambda: LL.from_bases(None, ["o"]), T, ["bases"]),
    ("bases a string", lambda: LL.from_bases("in", ["o"]), T, ["bases"]),
    ("bases not pairs", lambda: LL.from_bases(["in"], ["o"]), T, ["bases", "pair"]),
    ("in-dim twice", lambda: LL.from_bases([("in", [[1]]), ("in", [[1]])], ["o"]), E, ["'in'", "twice"]),
    ("in-dim not a str", lambda: LL.from_bases({3: [[1]]}, ["o"]), T, ["in-dim", "str"]),
    ("empty in-dim name", lambda: LL.from_bases({"": [[1]]}, ["o"]), T, ["in-dim", "str"]),
    ("out-dim twice", lambda: LL.from_bases({"in": [[1, 0]]}, ["o", "o"]), E, ["'o'", "twice"]),
    ("out dims None", lambda: LL.from_bases({"in": [[1]]}, None), T, ["out_dims"]),
    ("out dims an int", lambda: LL.from_bases({"in": [[1]]}, 3), T, ["out_dims"]),
    ("not surjective", lambda: LL.from_bases({"in": [[1], [4]]}, ["o"]), E, ["surjective", "'o'"]),
    ("surjective flag a str", lambda: LL.from_bases({"in": [[1]]}, ["o"], require_surjective="no"), T,
     ["require_surjective"]),
    ("identity npot", lambda: LL.identity_1d(6, "i", "o"), E, ["size", "power of two"]),
    ("identity negative", lambda: LL.identity_1d(-4, "i", "o"), E, ["size", "power of two"]),
    ("identity float", lambda: LL.identity_1d(4.0, "i", "o"), T, ["size", "integer"]),
    ("identity None", lambda: LL.identity_1d(None, "i", "o"), T, ["size"]),
    ("identity in-dim an int", lambda: LL.identity_1d(4, 1, "o"), T, ["in_dim"]),
    ("strided stride 0", lambda: LL.strided_1d(4, 0, "i", "o"), E, ["stride"]),
    ("strided stride 3", lambda: LL.strided_1d(4, 3, "i", "o"), E, ["stride"]),
    ("zeros out size 3", lambda: LL.zeros_1d(4, "i", "o", out_size=3), E, ["'o'", "power of two"]),
    # ---- the 64-bit matrix limit and huge sizes (refused, not allocated)
    ("65 input bits", lambda: LL.identity_1d(2**65, "i", "o"), E, ["64", "input bits"]),
    ("70 output bits", lambda: LL.from_bases({"in": []}, {"o": 2**70}, require_surjective=False), E,
     ["64", "output bits"]),
    ("huge basis", lambda: LL.from_bases({"in": [[2**70]]}, ["o"]), E, ["64", "output bits"]),
    ("product over 64 bits", lambda: LL.identity_1d(2**40, "a", "x") * LL.identity_1d(2**40, "b", "y"), E,
     ["64", "input bits"]),
    ("identity_standard_nd over 64 bits", lambda: linear.identity_standard_nd("r", [2**40, 2**40], [0, 1]), E,
     ["64"]),
    ("grown over 64 bits", lambda: linear.ensure_layout_not_smaller_than(LL.identity_1d(4, "register", "d"),
                                                                        {"d": 2**70}), E, ["64"]),
    # ---- apply
    ("apply unknown in-dim", lambda: MMA.apply({"warp": 1}), E, ["'warp'", "in-dim"]),
    ("apply negative", lambda: MMA.apply({"register": -1}), E, ["register", "outside"]),
    ("apply too large", lambda: MMA.apply({"lane": 32}), E, ["lane", "outside"]),
    ("apply huge int", lambda: MMA.apply({"lane": 2**100}), E, ["lane", "outside"]),
    ("apply numpy uint64", lambda: MMA.apply({"lane": np.uint64(2**63)}), E, ["lane", "outside"]),
    ("apply float", lambda: MMA.apply({"register": 1.0}), T, ["register", "integer"]),
    ("apply bool", lambda: MMA.apply({"register": True}), T, ["register", "integer"]),
    ("apply numpy bool", lambda: MMA.apply({"register": np.bool_(True)}), T, ["register", "integer"]),
    ("apply None", lambda: MMA.apply({"register": None}), T, ["register", "integer"]),
    ("apply a string", lambda: MMA.apply({"register": "1"}), T, ["register", "integer"]),
    ("apply float array", lambda: MMA.apply({"lane": np.array([1.0, 2.0])}), T, ["lane", "float64"]),
    ("apply bool array", lambda: MMA.apply({"lane": np.array([True])}), T, ["lane", "bool"]),
    ("apply object array", lambda: MMA.apply({"lane": np.array([1, None], dtype=object)}), T, ["lane"]),
    ("apply negative array", lambda: MMA.apply({"lane": np.array([3, -1])}), E, ["lane", "outside"]),
    ("apply too large array", lambda: MMA.apply({"lane": np.array([3, 32])}), E, ["lane", "outside"]),
    ("apply uint64 array", lambda: MMA.apply({"lane": np.array([2**63], dtype=np.uint64)}), E, ["lane", "outside"]),
    ("apply large negative array", lambda: MMA.apply({"register": np.full(600, -1, np.int64),
                                                      "lane": np.zeros(600, np.int64)}), E, ["register", "outside"]),
    ("apply large too-large array", lambda: MMA.apply({"register": np.zeros(600, np.int64),
                                                       "lane": np.full(600, 40, np.int64)}), E, ["lane", "outside"]),
    ("apply a list of pairs", lambda: MMA.apply([("register", 1)]), T, ["dict"]),
    ("apply None dict", lambda: MMA.apply(None), T, ["dict"]),
    ("call with two dicts", lambda: MMA({"register": 1}, {"lane": 1}), T, ["dict"]),
    # ---- mismatched dims in every binary op
    ("compose dims differ", lambda: MMA.compose(LL.identity_1d(4, "dim0", "o")), E, ["dim0", "dim1"]),
    ("compose too small", lambda: LL.identity_1d(8, "i", "m").compose(LL.identity_1d(4, "m", "o")), E, ["'m'", "8"]),
    ("compose a non-layout", lambda: MMA.compose("x"), T, ["outer"]),
    ("invert_and_compose dims differ", lambda: MMA.invert_and_compose(LL.identity_1d(4, "x", "dim0")), E,
     ["dim0", "dim1"]),
    ("invert_and_compose larger", lambda: LL.identity_1d(8, "i", "o").invert_and_compose(LL.identity_1d(4, "x", "o")),
     E, ["'o'", "8"]),
    ("invert_and_compose not surjective", lambda: I4.invert_and_compose(NOT_SURJ), E, ["surjective"]),
    ("invert_and_compose a non-layout", lambda: I4.invert_and_compose(None), T, ["outer"]),
    ("concat_ins shared in-dims", lambda: MMA.concat_ins(MMA), E, ["lane", "register", "disjoint"]),
    ("concat_ins other out-dims", lambda: MMA.concat_ins(LL.identity_1d(4, "x", "dim0")), E, ["dim0", "out-dims"]),
    ("concat_outs shared out-dims", lambda: MMA.concat_outs(MMA), E, ["dim0", "disjoint"]),
    ("concat_outs other in-dims", lambda: MMA.concat_outs(LL.identity_1d(4, "x", "q")), E, ["'x'", "in-dims"]),
    ("concat a non-layout", lambda: MMA.concat_ins(None), T, ["other"]),
    ("divide_left a non-layout", lambda: linear.divide_left(MMA, 3), T, ["B"]),
    ("divide_right a non-layout", lambda: linear.divide_right(3, MMA), T, ["A"]),
    ("equal_ignoring a non-layout", lambda: MMA.equal_ignoring_out_dim_sizes(3), T, ["other"]),
    # ---- inverses
    ("invert a broadcast", lambda: LL.zeros_1d(4, "i", "o").invert(), E, ["invertible"]),
    ("invert not surjective", lambda: NOT_SURJ.invert(), E, ["surjective"]),
    ("invert not square", lambda: LL.from_bases({"i": [[1], [2], [0]]}, ["o"]).invert(), E,
     ["3 input bits (in-dims 'i' 3)", "2 output bits (out-dims 'o' 2)"]),
    ("identity_1d not a power of two", lambda: LL.identity_1d(6, "reg", "out"), E, ["in-dim 'reg'", "power of two"]),
    ("zeros_1d not a power of two", lambda: LL.zeros_1d(12, "reg", "out"), E, ["in-dim 'reg'", "power of two"]),
    ("identity_1d size a str", lambda: LL.identity_1d("8", "in", "o"), T, ["in-dim 'in'", "integer"]),
    ("strided_1d stride not a power of two", lambda: LL.strided_1d(4, 3, "lane", "dim0"), E,
     ["stride of in-dim 'lane'", "out-dim 'dim0'"]),
    ("a product past 64 bits", lambda: LL.identity_1d(2**40, "a", "x") * LL.identity_1d(2**40, "b", "x"), E,
     ["64 input bits", "'a' 40", "'b' 40"]),
    ("pseudoinvert not surjective", lambda: NOT_SURJ.pseudoinvert(), E, ["surjective", "'out'"]),
    # ---- reshaping
    ("reshape_ins wrong total", lambda: MMA.reshape_ins([("a", 4)]), E, ["new_in_dims", "128"]),
    ("reshape_ins npot", lambda: MMA.reshape_ins([("a", 3)]), E, ["'a'", "power of two"]),
    ("reshape_ins a name twice", lambda: MMA.reshape_ins([("a", 32), ("a", 4)]), E, ["'a'", "twice"]),
    ("reshape_ins not pairs", lambda: MMA.reshape_ins(["a"]), T, ["new_in_dims"]),
    ("reshape_outs wrong total", lambda: MMA.reshape_outs([("a", 4)]), E, ["new_out_dims", "128"]),
    ("transpose_ins missing", lambda: MMA.transpose_ins(["register"]), E, ["lane", "order"]),
    ("transpose_ins twice", lambda: MMA.transpose_ins(["register", "register"]), E, ["twice"]),
    ("transpose_outs extra", lambda: MMA.transpose_outs(["dim0", "dim1", "dim2"]), E, ["dim2"]),
    ("sublayout unknown in-dim", lambda: MMA.sublayout(["x"], ["dim0"]), E, ["'x'"]),
    ("sublayout unknown out-dim", lambda: MMA.sublayout(["lane"], ["x"]), E, ["'x'"]),
    ("sublayout None", lambda: MMA.sublayout(None, ["dim0"]), T, ["in_dims"]),
    ("remove_zero_bases unknown", lambda: MMA.remove_zero_bases_along_dim("x"), E, ["'x'"]),
    ("remove_zero_bases an int", lambda: MMA.remove_zero_bases_along_dim(3), T, ["dim"]),
    ("resize_in_dim larger", lambda: MMA.resize_in_dim("register", 8), E, ["'register'", "shrinks"]),
    ("resize_in_dim npot", lambda: MMA.resize_in_dim("register", 3), E, ["register", "power of two"]),
    ("resize_in_dim 0", lambda: MMA.resize_in_dim("register", 0), E, ["register", "power of two"]),
    ("resize_out_dim larger", lambda: MMA.resize_out_dim("dim0", 64), E, ["'dim0'", "shrinks"]),
    ("resize_out_dim unknown", lambda: MMA.resize_out_dim("x", 2), E, ["'x'"]),
    ("rename unknown", lambda: MMA.rename_in_dim("x", "y"), E, ["'x'"]),
    ("rename onto another", lambda: MMA.rename_in_dim("lane", "register"), E, ["'register'", "already"]),
    ("rename out onto another", lambda: MMA.rename_out_dim("dim0", "dim1"), E, ["'dim1'", "already"]),
    ("rename to None", lambda: MMA.rename_in_dim("lane", None), T, ["new"]),
    ("quotient None", lambda: MMA.quotient(None), T, ["dims"]),
    ("in_dim_size unknown", lambda: MMA.in_dim_size("x"), E, ["'x'"]),
    ("out_dim_size unknown", lambda: MMA.out_dim_size("x"), E, ["'x'"]),
    # ---- layout utilities
    ("ensure_not_larger a list", lambda: linear.ensure_layout_not_larger_than(MMA, [32, 32]), T, ["shape"]),
    ("ensure_not_larger missing dim", lambda: linear.ensure_layout_not_larger_than(MMA, {"dim0": 4}), E, ["dim1"]),
    ("ensure_not_larger npot", lambda: linear.ensure_layout_not_larger_than(MMA, {"dim0": 3, "dim1": 4}), E,
     ["dim0", "power of two"]),
    ("ensure_not_smaller lane first",
     lambda: linear.ensure_layout_not_smaller_than(LL.identity_1d(4, "lane", "d"), {"d": 8}), E, ["'lane'"]),
    ("identity_standard_nd bad order", lambda: linear.identity_standard_nd("r", [4, 4], [0, 0]), E, ["order"]),
    ("identity_standard_nd npot", lambda: linear.identity_standard_nd("r", [3, 4], [0, 1]), E, ["shape[0]"]),
    ("identity_standard_nd short order", lambda: linear.identity_standard_nd("r", [4, 4], [0]), E, ["order"]),
    # ---- bridges
    ("from_cute None", lambda: linear.from_cute(None), T, ["from_cute"]),
    ("to_cute None", lambda: linear.to_cute(None), T, ["layout"]),
    ("memory_map None", lambda: linear.memory_map(None), T, ["layout"]),
    ("memory_map no offset", lambda: linear.memory_map(MMA), E, ["register", "dim0"]),
    ("from_layout None", lambda: linear.from_layout(None), T, ["from_layout"]),
]


@pytest.mark.parametrize("call, exc, words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_refused_with_a_named_error(call, exc, words):
    check_refused(call, exc, words)


def test_a_type_error_is_both_a_layout_error_and_a_type_error():
    err = check_refused(lambda: MMA.apply({"register": 1.5}), LayoutTypeError, "register")
    assert isinstance(err, TypeError) and isinstance(err, LayoutError)


def test_failing_calls_change_no_input():
    bases = {"in": [[1], [4]]}
    frozen = {"in": [[1], [4]]}
    check_refused(lambda: LL.from_bases(bases, ["o"]), E, "surjective")
    assert bases == frozen
    lane = np.array([3, 40, 1], dtype=np.int64)
    reg = np.array([1, 0, 2], dtype=np.int64)
    check_refused(lambda: MMA.apply({"register": reg, "lane": lane}), E, "lane", keep=[lane, reg])
    big = np.arange(1000, dtype=np.int64) % 40
    check_refused(lambda: MMA.apply({"register": np.zeros(1000, np.int64), "lane": big}), E, "lane", keep=[big])
    shape = {"dim0": 3, "dim1": 4}
    check_refused(lambda: linear.ensure_layout_not_larger_than(MMA, shape), E, "dim0")
    assert shape == {"dim0": 3, "dim1": 4}


def test_successful_calls_change_no_input_either():
    bases = {"register": [[0, 1], [2, 0]], "lane": [[0, 2], [1, 0]]}
    L = LL.from_bases(bases, ["dim0", "dim1"])
    assert bases == {"register": [[0, 1], [2, 0]], "lane": [[0, 2], [1, 0]]}
    lane = np.arange(4, dtype=np.int64)
    before = lane.copy()
    out = L.apply({"lane": lane, "register": np.int64(3)})
    out["dim0"][:] = 99                                     # the result is not a view of the input
    assert np.array_equal(lane, before)
    shape = {"dim0": 4, "dim1": 8}
    linear.ensure_layout_not_larger_than(L, shape)
    linear.ensure_layout_not_smaller_than(L, shape)
    assert shape == {"dim0": 4, "dim1": 8}


def test_numpy_scalars_and_int_arrays_of_any_width_are_integers():
    """Not hostile, but near it: numpy integers are ints, every integer dtype is an integer array."""
    assert MMA.apply({"register": np.int8(3), "lane": np.uint16(5)}) == MMA.apply({"register": 3, "lane": 5})
    for dtype in (np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64):
        lanes = np.arange(32).astype(dtype)
        got = MMA.apply({"lane": lanes})
        assert [int(v) for v in got["dim1"]] == [MMA.apply({"lane": k})["dim1"] for k in range(32)]
    L = LL.from_bases({"in": [[np.int64(1)], [np.uint8(2)]]}, {"out": np.int32(4)})
    assert L == LL.identity_1d(4, "in", "out")


def test_the_64_bit_limit_is_reached_not_exceeded():
    """64 bits each way is Triton's matrix limit and is allowed; apply stays exact in Python ints."""
    L = LL.identity_1d(2**64, "i", "o")
    assert L.total_in_bits == 64 and L.matrix().shape == (64, 64)
    assert L.apply({"i": 2**64 - 1}) == {"o": 2**64 - 1}
    check_refused(lambda: L.apply({"i": np.arange(4)}), E, ["int64"])    # an array cannot hold its outputs


@pytest.mark.parametrize("n", [3, 700])
def test_arrays_that_do_not_broadcast_are_named(n):
    """Was numpy's ValueError ("shape mismatch: objects cannot be broadcast"), naming no dim."""
    reg, lane = np.zeros(n - 1, np.int64), np.zeros(n, np.int64)
    check_refused(lambda: MMA.apply({"register": reg, "lane": lane}), E,
                  ["broadcast", f"register ({n - 1},)", f"lane ({n},)"], keep=[reg, lane])
    check_refused(lambda: MMA.apply({"register": np.zeros((2, 3), np.int64), "lane": np.zeros((3, 2), np.int64)}),
                  E, ["register (2, 3)", "lane (3, 2)"])


def test_basis_index_out_of_range_is_named_not_wrapped():
    """Was an IndexError for i = 7, and for i = -1 the LAST basis (8), a wrong number."""
    assert MMA.basis("register", 1, "dim0") == 8
    check_refused(lambda: MMA.basis("register", 7, "dim0"), E, ["'register'", "2 bases", "7"])
    check_refused(lambda: MMA.basis("register", -1, "dim0"), E, ["'register'", "-1"])
    check_refused(lambda: MMA.basis("register", 1.0, "dim0"), T, ["i"])
    check_refused(lambda: MMA.basis("register", 0, "x"), E, ["'x'"])


def test_concat_ins_keeps_the_64_bit_limit():
    """Was an 80-input-bit layout, past Triton's matrix limit that every other constructor keeps."""
    a = LL.identity_1d(2**40, "a", "o")
    b = LL.identity_1d(2**40, "b", "o").resize_out_dim("o", 2**40)
    check_refused(lambda: a.concat_ins(b), E, ["64", "input bits", "80"])
    c = LL.from_bases({"c": [[1 << i] for i in range(24)]}, {"o": 2**40}, require_surjective=False)
    assert a.concat_ins(c).total_in_bits == 64                 # the limit itself is allowed


@pytest.mark.parametrize("shape, order, what", [(None, [0], "shape"), ([4], None, "order"), (4, [0], "shape"),
                                                ("44", [0, 1], "shape"), ([4, 4], {0: 1}, "order")])
def test_identity_standard_nd_names_a_shape_or_order_that_is_no_list(shape, order, what):
    """None was Python's "'NoneType' object is not iterable"; a str was read as its characters."""
    check_refused(lambda: linear.identity_standard_nd("register", shape, order), T, [what, "list"])


def test_supremum_checks_its_lists():
    """None was Python's "'NoneType' object is not iterable"; a repeated name gave a list with it twice."""
    check_refused(lambda: linear.supremum(None, ["a"]), T, ["x", "dim names"])
    check_refused(lambda: linear.supremum(["a"], [1]), T, ["y"])
    check_refused(lambda: linear.supremum(["a", "a"], ["b"]), E, ["x", "twice"])
    assert linear.supremum("lane", ["register", "lane"]) == ["register", "lane"]     # a str is one name


def test_huge_sizes_are_refused_before_anything_is_built():
    """identity_1d(2**(10**6)) built a million ever-larger ints (killed for memory); endless bases
    were read forever."""
    run_bounded("""
        import itertools
        from hostile import check_refused
        from layouts.errors import LayoutError
        from layouts.linear import LinearLayout as LL
        check_refused(lambda: LL.identity_1d(2**(10**6), "i", "o"), LayoutError, ["size", "64"])
        check_refused(lambda: LL.strided_1d(2**40, 2**40, "i", "o"), LayoutError, ["stride * size", "80"])
        check_refused(lambda: LL.zeros_1d(2**(10**6), "i", "o"), LayoutError, ["size", "64"])
        check_refused(lambda: LL.from_bases({"in": itertools.repeat([0])}, ["o"]), LayoutError,
                      ["bases['in'][64]", "64"])
        check_refused(lambda: LL.from_bases({"a": [[0]] * 40, "b": [[0]] * 10**7}, ["o"]), LayoutError,
                      ["bases['b'][24]"])
    """, timeout=20, memory_mb=1024)


def test_an_offset_table_too_large_to_build_is_refused():
    """Was numpy's MemoryError ("Unable to allocate 8.00 TiB") for 2**40 offsets."""
    big = LL.identity_1d(2**40, "offset", "dim0")
    check_refused(big.offsets, E, ["offset table", "2**40"])
    from layouts.kinds import Strided, kind_of
    assert kind_of(big).strided() == Strided((2**40,), (1,))            # its strided form needs no table
    assert LL.identity_1d(8, "offset", "dim0").offsets().tolist() == list(range(8))


@pytest.mark.parametrize("other", [3, 2.0, None, "lane", np.int64(2)])
def test_a_product_with_a_non_layout_is_named(other):
    """Was Python's bare "unsupported operand type(s) for *", naming neither side's role."""
    check_refused(lambda: MMA * other, T, ["LinearLayout", "right"])
    check_refused(lambda: other * MMA, T, ["LinearLayout", "left"])


INT_ARGS = [
    ("identity_1d size", lambda v: LL.identity_1d(v, "i", "o"), "size"),
    ("strided_1d size", lambda v: LL.strided_1d(v, 2, "i", "o"), "size"),
    ("strided_1d stride", lambda v: LL.strided_1d(4, v, "i", "o"), "stride"),
    ("zeros_1d size", lambda v: LL.zeros_1d(v, "i", "o"), "size"),
    ("zeros_1d out_size", lambda v: LL.zeros_1d(4, "i", "o", out_size=v), "'o'"),
    ("from_bases basis value", lambda v: LL.from_bases({"in": [[v]]}, {"out": 4}, require_surjective=False),
     "bases['in'][0]"),
    ("from_bases out size", lambda v: LL.from_bases({"in": []}, {"out": v}, require_surjective=False), "'out'"),
    ("apply value", lambda v: MMA.apply({"lane": v}), "lane"),
    ("reshape_ins size", lambda v: MMA.reshape_ins([("a", v), ("b", 64)]), "'a'"),
    ("reshape_outs size", lambda v: MMA.reshape_outs([("a", v), ("b", 64)]), "'a'"),
    ("resize_in_dim size", lambda v: MMA.resize_in_dim("lane", v), "lane"),
    ("resize_out_dim size", lambda v: MMA.resize_out_dim("dim0", v), "dim0"),
    ("basis index", lambda v: MMA.basis("lane", v, "dim0"), "i"),
    ("identity_standard_nd shape", lambda v: linear.identity_standard_nd("r", [v, 4], [0, 1]), "shape[0]"),
    ("identity_standard_nd order", lambda v: linear.identity_standard_nd("r", [4, 4], [v, 1]), "order[0]"),
    ("ensure_not_larger shape", lambda v: linear.ensure_layout_not_larger_than(MMA, {"dim0": v, "dim1": 8}), "dim0"),
    ("ensure_not_smaller shape", lambda v: linear.ensure_layout_not_smaller_than(
        LL.identity_1d(4, "register", "dim0"), {"dim0": v}), "dim0"),
]


NON_INTEGERS = [True, 2.0, None, "2", [2], np.float32(2)]


@pytest.mark.parametrize("call, what, bad", [(c[1], c[2], b) for c in INT_ARGS for b in NON_INTEGERS
                                             if not (c[0] == "apply value" and b == [2])],   # a list is an array there
                         ids=[f"{c[0]}-{b!r}" for c in INT_ARGS for b in NON_INTEGERS
                              if not (c[0] == "apply value" and b == [2])])
def test_every_integer_argument_refuses_a_non_integer(call, what, bad):
    check_refused(lambda: call(bad), T, [what])


NAME_ARGS = [
    ("identity_1d in_dim", lambda v: LL.identity_1d(4, v, "o")),
    ("identity_1d out_dim", lambda v: LL.identity_1d(4, "i", v)),
    ("from_bases in-dim", lambda v: LL.from_bases({v: [[1]]}, ["o"])),
    ("from_bases out-dim", lambda v: LL.from_bases({"i": [[1]]}, [v])),
    ("in_dim_size", lambda v: MMA.in_dim_size(v)),
    ("out_dim_size", lambda v: MMA.out_dim_size(v)),
    ("rename_in_dim new", lambda v: MMA.rename_in_dim("lane", v)),
    ("transpose_ins", lambda v: MMA.transpose_ins([v, "lane"])),
    ("sublayout", lambda v: MMA.sublayout([v], [])),
    ("remove_zero_bases", lambda v: MMA.remove_zero_bases_along_dim(v)),
    ("identity_standard_nd in_dim", lambda v: linear.identity_standard_nd(v, [4], [0])),
]


@pytest.mark.parametrize("bad", [None, 3, b"lane", ""], ids=repr)
@pytest.mark.parametrize("call", [c[1] for c in NAME_ARGS], ids=[c[0] for c in NAME_ARGS])
def test_every_name_argument_refuses_a_non_name(call, bad):
    check_refused(lambda: call(bad), T, ["str"])
