"""tests/triton_ptx.py's emulator as a judge: does it read Triton's generated code right?

test_smem_best.py takes "Triton's choice" of shared layout from the PTX the triton wheel emits for
a ``gl.convert_layout``, run by triton_ptx's emulator. Here the emulator is checked on conversions
chosen to reach every kind of instruction those kernels contain (stmatrix and ldmatrix, .trans,
x2 and x4, plain vector loads and stores, 8/16/32-bit elements, bar.warp.sync, warp shuffles):
the kernel's output must be its input, and the layout read must be a bijection of the tile onto
the scratch the compiler reserved. Then defects planted in the emulator (each one a plausible
misreading of the PTX ISA) must be caught by those checks on the same kernels.
"""

from __future__ import annotations

import numpy as np
import pytest

import triton_ptx
from layouts.linear import LinearLayout
from layouts.linear import triton as tt
from oracle_procs import TRITON_MISSING, have_triton, require_oracle


def _v2(warps, minor=0):
    return tt.NVMMADistributedLayout([2, minor], warps, [16, 8])


def _ll(regs, lanes, warps, dims):
    return LinearLayout.from_bases({"register": regs, "lane": lanes, "warp": warps}, {"dim0": dims[0], "dim1": dims[1]})


_F8 = _ll([[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], [[0, 16], [0, 32], [0, 64], [4, 0], [8, 0]],
          [[16, 0], [32, 0], [64, 0]], (128, 128))
_F8_T = _ll([[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], [[16, 0], [32, 0], [64, 0], [0, 4], [0, 8]],
            [[0, 16], [0, 32], [0, 64]], (128, 128))

# name: (src, dst, shape, element bytes, capability, the instructions it is chosen for)
CASES = {
    "stmatrix.x2 to ldmatrix.x4": (_v2([1, 4]), _v2([4, 1]), (16, 16), 2, 90, {"stmatrix", "ldmatrix"}),
    "stmatrix.x4 to ldmatrix.x4.trans": (_v2([4, 1]), tt.DotOperandLayout(1, _v2([4, 1]), 2), (64, 64), 2, 90,
                                         {"stmatrix", "ldmatrix"}),
    "stmatrix.x4 to ld.shared.v4": (tt.DotOperandLayout(0, _v2([4, 1]), 8),
                                    tt.BlockedLayout([1, 1], [32, 1], [2, 2], [0, 1]), (64, 64), 2, 90,
                                    {"stmatrix", "ld"}),
    "st.shared.v4 to ldmatrix.x2": (tt.BlockedLayout([1, 16], [8, 4], [4, 1], [1, 0]),
                                    tt.NVMMADistributedLayout([3, 0], [4, 1], [16, 32, 16]), (16, 16), 2, 90,
                                    {"st", "ldmatrix"}),
    "32-bit transpose, bfe.s32 and xor": (
        _ll([[4, 0], [8, 0], [16, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]], [[2, 0]], (32, 16)),
        _ll([[0, 2], [0, 4], [0, 8]], [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], [[0, 1]], (32, 16)), (32, 16), 4, 90,
        {"st", "ld"}),
    "8-bit transpose, prmt, two runs": (_F8, _F8_T, (128, 128), 1, 80, {"st", "ld"}),
    "warp-local, bar.warp.sync": (tt.BlockedLayout([1, 1], [8, 4], [1, 1], [1, 0]),
                                  tt.BlockedLayout([1, 4], [32, 1], [1, 1], [1, 0]), (32, 32), 2, 90,
                                  {"stmatrix", "ld"}),
    "warp shuffles, no shared memory": (tt.BlockedLayout([1, 1], [32, 1], [1, 1], [1, 0]),
                                        tt.BlockedLayout([1, 1], [16, 2], [1, 1], [1, 0]), (32, 32), 2, 90, set()),
}


@pytest.fixture(scope="session")
def compiled():
    """{name: triton_ptx.Compiled}, all compiled in one child process."""
    require_oracle(have_triton(), TRITON_MISSING)
    jobs = [{"src": triton_ptx.encoding_spec(src), "dst": triton_ptx.encoding_spec(dst), "shape": list(shape),
             "element_bytes": eb, "capability": cap} for src, dst, shape, eb, cap, _ in CASES.values()]
    return dict(zip(CASES, triton_ptx.compile_conversions(jobs)))


def verdict(name, code):
    """"ok", or what the checks found wrong with the emulator's reading of ``code``."""
    _, _, shape, eb, _, _ = CASES[name]
    try:
        run = triton_ptx.emulate(code.ptx, shape, eb, code.num_warps)
    except AssertionError as e:           # the emulator's own consistency checks
        return f"inconsistent: {e}"
    if not np.array_equal(run.output, np.arange(shape[0] * shape[1]).reshape(shape)):
        return "output is not the input"
    if run.through_shared_memory:
        offsets = run.element_offsets(eb).ravel()
        passes = int(run.round.max()) + 1
        if run.scratch_bytes != code.shared_bytes:
            return f"scratch of {run.scratch_bytes} bytes read, {code.shared_bytes} reserved"
        if not np.array_equal(np.sort(offsets), np.arange(passes * run.scratch_bytes // eb)):
            return "the layout read is not a bijection onto the scratch"
    elif code.shared_bytes:
        return "no shared memory read, yet the kernel reserves some"
    return "ok"


@pytest.mark.parametrize("name", CASES)
def test_the_emulator_reads_tritons_code_consistently(compiled, name):
    _, _, shape, eb, _, instructions = CASES[name]
    code = compiled[name]
    assert verdict(name, code) == "ok"
    run = triton_ptx.emulate(code.ptx, shape, eb, code.num_warps)
    assert {a.instruction.split(".")[0] for a in run.accesses} == instructions
    assert run.through_shared_memory == bool(instructions)
    for access in run.accesses:       # every lane's address lies in the scratch, aligned to its width
        lanes = access.addresses[access.addresses >= 0]
        assert lanes.size and np.all(lanes + access.bytes_per_lane <= code.shared_bytes)
        assert np.all(lanes % access.bytes_per_lane == 0)
        assert 1 <= triton_ptx.wavefronts(access) <= 32


def _flip_trans(real):
    return lambda lane, half, trans: real(lane, half, not trans)


def _bfe_unsigned(real):
    def handler(m, ins, guard):
        real(m, ins.__class__(ins.text, ins.guard, ins.opcode, ["u" + t[1:] for t in ins.modifiers], ins.operands),
             guard)
    return handler


def _prmt_reversed(m, ins, guard):
    d, a, b, c = ins.operands
    value = m.read(a, 32)
    swapped = sum(((value >> np.uint64(8 * k)) & np.uint64(0xFF)) << np.uint64(8 * (3 - k)) for k in range(4))
    triton_ptx._prmt(m, ins, guard)
    m.write(d, swapped ^ m.read(d, 32), 32, guard)


def _shfl_own_lane(m, ins, guard):
    m.write(ins.operands[0], m.read(ins.operands[1], 32), 32, guard)


# defect: (how to plant it, the cases it must be caught on). A defect of the matrix instructions
# is caught where a plain ld/st.shared, whose meaning is simple address arithmetic, pins the layout
# down on the other side; where both sides are matrix instructions the same misreading on both
# undoes itself (the output stays right, the layout read is wrong yet still a bijection), which
# is why the cases mix the two.
DEFECTS = {
    "ldmatrix/stmatrix with .trans ignored": (
        lambda mp: mp.setattr(triton_ptx, "matrix_position", _flip_trans(triton_ptx.matrix_position)),
        ["stmatrix.x4 to ld.shared.v4", "st.shared.v4 to ldmatrix.x2", "warp-local, bar.warp.sync"]),
    "matrix rows taken from the wrong lanes": (
        lambda mp: mp.setattr(triton_ptx, "row_lane", lambda matrix, row: 8 * matrix + (row ^ 1)),
        ["stmatrix.x4 to ld.shared.v4", "st.shared.v4 to ldmatrix.x2", "warp-local, bar.warp.sync"]),
    "xor dropped (computes or)": (
        lambda mp: mp.setitem(triton_ptx.ALU, "xor", lambda a, b: a | b),
        ["32-bit transpose, bfe.s32 and xor", "8-bit transpose, prmt, two runs", "warp shuffles, no shared memory"]),
    "bfe.s32 without sign extension": (
        lambda mp: mp.setitem(triton_ptx._HANDLERS, "bfe", _bfe_unsigned(triton_ptx._bfe)),
        ["32-bit transpose, bfe.s32 and xor"]),
    "prmt bytes reversed": (
        lambda mp: mp.setitem(triton_ptx._HANDLERS, "prmt", _prmt_reversed),
        ["8-bit transpose, prmt, two runs", "warp shuffles, no shared memory"]),
    "shfl returning the lane's own value": (
        lambda mp: mp.setitem(triton_ptx._HANDLERS, "shfl", _shfl_own_lane),
        ["warp shuffles, no shared memory"]),
}


@pytest.mark.parametrize("defect", DEFECTS)
def test_a_planted_defect_is_caught(compiled, monkeypatch, defect):
    plant, cases = DEFECTS[defect]
    plant(monkeypatch)
    caught = {name: verdict(name, compiled[name]) for name in cases}
    print(defect, caught)
    assert all(v != "ok" for v in caught.values()), caught


def _kernel(body, regs=".reg .b32 %r<4>;"):
    return f".version 8.0\n.target sm_90a\n.visible .entry k(\n.param .u64 k_param_0\n)\n{{\n{regs}\n{body}\nret;\n}}\n"


@pytest.mark.parametrize("body, named", [
    ("mov.u32 %r1, %tid.x;\npopc.b32 %r2, %r1;", "popc"),
    ("mov.u32 %r1, %tid.x;\nmul.hi.u32 %r2, %r1, %r1;", "mul.hi.u32"),
    ("bra $L__BB0_1;", "straight-line"),
    ("prmt.b32.f4e %r1, %r1, %r1, %r1;", "prmt"),
    ("mov.u32 %r1, %clock;", "%clock"),
])
def test_the_emulator_refuses_what_it_does_not_know(body, named):
    with pytest.raises(triton_ptx.UnknownInstruction, match=named.replace(".", r"\.")):
        triton_ptx.emulate(_kernel(body), (4, 8), 4, 1)
