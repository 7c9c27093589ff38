"""smem.layout_conversion: the path a ``convert_layout`` takes and what it costs.

Pure tests check the path rule on hand-made linear layouts whose answer is computed by hand. The
oracle tests compile seeded random Gluon ``convert_layout`` kernels with the triton 3.9.0 wheel
on the CPU (tests/triton_ptx.py: one child process for all of them) and run their PTX: the path
Triton's code takes is what it executes (no shared access and no ``shfl``: registers or nothing;
``shfl`` only: warp shuffles; shared accesses: shared memory), and through shared memory the plan
must take no more wavefronts than Triton's code (its worst warp, every shared instruction summed).

The run compiles the first 520 conversions of the seeded stream (``LAYOUTS_CONVERSION_CASES=N``
for another count); every one must take Triton's path.
"""

from __future__ import annotations

import collections
import json
import os
import random
import subprocess
import sys

import numpy as np
import pytest

import triton_ptx
from layouts import smem
from layouts.errors import LayoutError, LayoutTypeError
from layouts.linear import LinearLayout
from layouts.linear import triton as tt
from oracle_procs import TRITON_MISSING, have_triton, require_oracle
from random_encodings import ENCODING_KINDS


def _ll(regs, lanes, warps, dims):
    return LinearLayout.from_bases({"register": regs, "lane": lanes, "warp": warps},
                                   {f"dim{i}": s for i, s in enumerate(dims)})


# ---------------------------------------------------------------- the path rule, by hand
# 64 elements of dim0 over 2 registers x 32 lanes, one warp; each case's answer worked out by hand
_ROWS = _ll([[1]], [[2], [4], [8], [16], [32]], [], (64,))


@pytest.mark.parametrize("dst, path", [
    (_ROWS, "none"),
    # lane bit 0 and the register bit trade places: one lane bit leaves the lanes
    (_ll([[2]], [[1], [4], [8], [16], [32]], [], (64,)), "warp shuffle"),
    # lanes permuted among themselves (bit 0 <-> bit 4): no lane bit leaves the lanes
    (_ll([[1]], [[32], [4], [8], [16], [2]], [], (64,)), "warp shuffle"),
    # the register takes lane bit 1, lane 0 the register, lane 1 lane bit 0: one lane bit leaves
    (_ll([[4]], [[1], [2], [8], [16], [32]], [], (64,)), "warp shuffle"),
])
def test_path_of_one_warp_by_hand(dst, path):
    assert smem.layout_conversion(_ROWS, dst).path == path


def test_registers_only_is_a_permutation_within_each_thread():
    # two register bits swapped: each thread holds the same four elements in another order
    src = _ll([[1], [2]], [[4], [8], [16], [32], [64]], [], (128,))
    dst = _ll([[2], [1]], [[4], [8], [16], [32], [64]], [], (128,))
    plan = smem.layout_conversion(src, dst)
    assert plan.path == "registers" and list(plan.moved.in_dims) == ["register"]
    assert plan.scratch_bytes == 0 and plan.store is None


def test_two_lane_bits_traded_go_through_shared_memory():
    # lane bits 0 and 1 take registers' elements and both register bits lanes': Triton 3.9 uses shared memory
    src = _ll([[1], [2]], [[4], [8], [16], [32], [64]], [], (128,))
    dst = _ll([[4], [8]], [[1], [2], [16], [32], [64]], [], (128,))
    plan = smem.layout_conversion(src, dst)
    assert smem.conversion.lane_exchanges(plan.moved) == (2, 2)
    assert plan.path == "shared memory" and "2 lane bit(s)" in plan.explain()


def test_a_lane_bit_a_destination_broadcasts_is_no_trade():
    # dst copies along lane bit 4 and takes src's lane bit 4 into a register: one register bit from a lane
    src = _ll([[1]], [[2], [4], [8], [16], [32]], [], (64,))
    dst = _ll([[1], [32]], [[2], [4], [8], [16], [0]], [], (64,))
    plan = smem.layout_conversion(src, dst)
    assert smem.conversion.lane_exchanges(plan.moved) == (0, 1) and plan.path == "warp shuffle"


def test_moving_between_warps_goes_through_shared_memory():
    # a 32 x 2 tile: warp w holds column w in src, rows 16w.. in dst
    src = _ll([], [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], [[0, 1]], (32, 2))
    dst = _ll([[0, 1]], [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0]], [[16, 0]], (32, 2))
    plan = smem.layout_conversion(src, dst, element_bytes=4)
    assert plan.path == "shared memory" and "warp" in plan.moved.in_dims
    assert plan.scratch_bytes == 32 * 2 * 4
    assert plan.wavefronts == plan.store.wavefronts + plan.load.wavefronts
    assert plan.store_instruction.startswith("st.shared") and plan.load_instruction.startswith("ld.shared")
    text = plan.explain()
    assert "between warps" in text and "Store" in text and "Load" in text


def test_a_warp_bit_only_the_source_broadcasts_may_land_on_a_lane():
    # src: warp bit 0 a copy; dst: warp 1 takes rows 32.., which src keeps in lane bit 4 of every warp
    src = _ll([[0, 1], [16, 0]], [[1, 0], [2, 0], [4, 0], [8, 0], [32, 0]], [[0, 0]], (64, 2))
    dst = _ll([[0, 1]], [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], [[32, 0]], (64, 2))
    plan = smem.layout_conversion(src, dst)
    assert smem.conversion.warps_stay(plan.moved, plan.src)
    assert plan.path == "warp shuffle"
    # the same warp bit landing on a register instead: Triton goes through shared memory
    dst = _ll([[0, 1]], [[1, 0], [2, 0], [4, 0], [8, 0], [32, 0]], [[16, 0]], (64, 2))
    plan = smem.layout_conversion(src, dst)
    assert not smem.conversion.warps_stay(plan.moved, plan.src) and plan.path == "shared memory"


def test_a_warp_bit_both_layouts_broadcast_stays_put():
    # warp bit 1 is a copy in both layouts: nothing moves along it, so the register/lane swap is a
    # shuffle (the smallest preimage alone would send warp bit 1 to warp 0 and call it shared memory)
    src = _ll([[0, 1]], [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], [[32, 0], [0, 0]], (64, 2))
    dst = _ll([[1, 0]], [[0, 1], [2, 0], [4, 0], [8, 0], [16, 0]], [[32, 0], [0, 0]], (64, 2))
    assert smem.layout_conversion(src, dst).path == "warp shuffle"
    assert smem.layout_conversion(src, src).path == "none"


def test_triton_encodings_and_their_shape():
    blocked = tt.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    mma = tt.NVMMADistributedLayout([2, 0], [4, 1], [16, 8])
    plan = smem.layout_conversion(blocked, mma, (64, 64), element_bytes=1)
    assert plan.path == "shared memory" and plan.scratch_bytes == 64 * 64
    assert plan.shared.in_dims == {"offset": 64 * 64}
    assert plan.cute is not None or plan.triton is not None or plan.shared is not None
    same = smem.layout_conversion((blocked, (64, 64)), (blocked, (64, 64)))
    assert same.path == "none" and same.explain().endswith("same thread.")
    assert "shared memory" in repr(plan)


def test_the_picture_of_each_side():
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    plan = smem.layout_conversion(tt.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]),
                                  tt.NVMMADistributedLayout([2, 0], [4, 1], [16, 8]), (64, 64))
    for side in ("store", "load"):
        figure = plan.draw(side)
        assert any(side in ax.get_title(loc="left") for ax in figure.axes)
    with pytest.raises(LayoutError, match="side"):
        plan.draw("both")
    with pytest.raises(LayoutError, match="nothing to draw"):
        smem.layout_conversion(_ROWS, _ROWS).draw()


@pytest.mark.parametrize("args, kwargs, error", [
    ((tt.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]), tt.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])), {},
     LayoutError),
    ((tt.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]), tt.BlockedLayout([1, 8], [4, 8], [2, 1], [1, 0]), (64, 64)),
     {}, LayoutError),
    ((tt.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]), tt.NVMMASharedLayout(128, 16), (64, 64)), {},
     LayoutTypeError),
    (("BlockedLayout", _ROWS), {}, LayoutTypeError),
    ((_ROWS, _ROWS), {"num_warps": 4}, LayoutError),
    ((_ROWS, _ROWS), {"element_bytes": 3}, LayoutError),
    ((_ROWS, _ll([[0, 1]], [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], [], (32, 2))), {}, LayoutError),
])
def test_bad_arguments_are_named(args, kwargs, error):
    with pytest.raises(error):
        smem.layout_conversion(*args, **kwargs)


# ---------------------------------------------------------------- NVMMASharedLayout.get_default_for
def _default_cases():
    rng = random.Random(55)
    cases = []
    for _ in range(400):
        rank = rng.choice([1, 2, 2, 2, 3])
        shape = [1 << rng.randint(0, 8) for _ in range(rank)]
        if rng.random() < 0.15:
            shape[-1] = rng.choice([3, 6, 12, 24, 48, 96, 160])
        cases.append((shape, rng.choice([8, 16, 32, 64]), rng.random() < 0.3, rng.random() < 0.1))
    return cases


_GLUON_DEFAULTS = r"""
import json, sys
from triton.experimental.gluon import language as gl
types = {8: gl.int8, 16: gl.float16, 32: gl.float32, 64: gl.float64}
out = []
for shape, bits, transposed, fp4 in json.load(sys.stdin):
    try:
        lay = gl.NVMMASharedLayout.get_default_for(shape, types[bits], transposed=transposed, fp4_padded=fp4)
        out.append([lay.swizzle_byte_width, lay.element_bitwidth, lay.rank, lay.transposed, lay.fp4_padded])
    except Exception as e:
        out.append(type(e).__name__)
print(json.dumps(out))
"""


def test_get_default_for_is_gluons_choice():
    require_oracle(have_triton(), TRITON_MISSING)
    cases = _default_cases()
    run = subprocess.run([sys.executable, "-c", _GLUON_DEFAULTS], input=json.dumps(cases), capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    theirs = json.loads(run.stdout)
    compared = 0
    for (shape, bits, transposed, fp4), want in zip(cases, theirs):
        try:
            mine = tt.NVMMASharedLayout.get_default_for(shape, bits, transposed, fp4)
            got = [mine.swizzle_byte_width, mine.element_bitwidth, mine.rank, mine.transposed, mine.fp4_padded]
        except LayoutError:
            got = "error"
        if isinstance(want, str):          # Gluon refuses (e.g. fp4 padding without a 128-byte swizzle)
            assert got == "error", (shape, bits, transposed, fp4, want, got)
            continue
        assert got == want, (shape, bits, transposed, fp4)
        compared += 1
    assert compared >= 300


# ---------------------------------------------------------------- against Triton's generated code
def random_conversion(rng):
    """(src, dst, shape, element bytes, capability): two valid encodings of the same warps over a
    2-D shape of 16..256 per dim (at most 16K elements, which keeps the emulator quick)."""
    warps, element_bytes, capability = rng.choice([4, 8]), rng.choice([1, 2, 4]), rng.choice([80, 90])
    while True:
        shape = (1 << rng.randint(4, 8), 1 << rng.randint(4, 8))
        if shape[0] * shape[1] <= 1 << 14:
            break
    return rng.choice(ENCODING_KINDS)(rng, warps), rng.choice(ENCODING_KINDS)(rng, warps), shape, element_bytes, capability


#: conversions compiled; 520 take about 3 minutes on 2 busy cores (compiling and emulating about 2)
CASE_COUNT = int(os.environ.get("LAYOUTS_CONVERSION_CASES", 520))
_RNG = random.Random(2)
CASES = [random_conversion(_RNG) for _ in range(max(CASE_COUNT, 0))]

def _triton_path(run, ptx):
    if run.through_shared_memory:
        return "shared memory"
    return "warp shuffle" if "shfl.sync" in ptx else "registers"


@pytest.fixture(scope="session")
def conversions():
    """[(compiled, run)] for CASES: compiled in ONE child process, each run by the emulator."""
    require_oracle(have_triton(), TRITON_MISSING)
    jobs = [{"src": triton_ptx.encoding_spec(src), "dst": triton_ptx.encoding_spec(dst), "shape": list(shape),
             "element_bytes": eb, "capability": cap} for src, dst, shape, eb, cap in CASES]
    compiled = triton_ptx.compile_conversions(jobs, timeout=1800)
    out = []
    for (_, _, shape, eb, _), code in zip(CASES, compiled):
        run = triton_ptx.emulate(code.ptx, shape, eb, code.num_warps)
        assert np.array_equal(run.output, np.arange(shape[0] * shape[1]).reshape(shape))
        out.append((code, run))
    return out


_PLANS: dict = {}


def _plan(index):
    """The plan of CASES[index], made once per session (the summary reads it again)."""
    if index not in _PLANS:
        src, dst, shape, eb, cap = CASES[index]
        _PLANS[index] = smem.layout_conversion(src, dst, shape, element_bytes=eb, capability=cap)
    return _PLANS[index]


def _tritons_wavefronts(run):
    per_warp = collections.Counter()
    for access in run.accesses:
        per_warp[access.warp] += triton_ptx.wavefronts(access)
    return max(per_warp.values())


def _params():
    for i, (_, _, _, eb, cap) in enumerate(CASES):
        yield pytest.param(i, id=f"{i}-{eb}B-sm{cap}")


@pytest.mark.parametrize("index", list(_params()))
def test_plan_follows_tritons_generated_code(conversions, index):
    shape, eb = CASES[index][2:4]
    code, run = conversions[index]
    plan = _plan(index)
    theirs = _triton_path(run, code.ptx)
    assert (plan.path if plan.path != "none" else "registers") == theirs
    if theirs == "shared memory":
        assert plan.wavefronts <= _tritons_wavefronts(run)
        # Triton stores the tile in 2**k rounds over register bits both layouts hold (a smaller
        # scratch, used k times); the plan stores it whole
        assert plan.scratch_bytes == shape[0] * shape[1] * eb
        ratio = plan.scratch_bytes // code.shared_bytes
        assert ratio * code.shared_bytes == plan.scratch_bytes and ratio & (ratio - 1) == 0
        assert int(run.round.max()) + 1 == ratio
    else:
        assert code.shared_bytes == 0 and plan.scratch_bytes == 0


def test_summary_against_tritons_code(conversions):
    """Prints how the plans compare with Triton's code (run with -s to see it)."""
    tally: collections.Counter = collections.Counter()
    better = []
    for i, (code, run) in enumerate(conversions):
        plan = _plan(i)
        theirs = _triton_path(run, code.ptx)
        tally["paths equal" if (plan.path if plan.path != "none" else "registers") == theirs else "paths differ"] += 1
        if theirs != "shared memory" or plan.path != "shared memory":
            continue
        t, m = _tritons_wavefronts(run), plan.wavefronts
        tally["better" if m < t else "equal" if m == t else "worse"] += 1
        tally["same scratch" if plan.scratch_bytes == code.shared_bytes else "Triton in rounds"] += 1
        if m < t:
            better.append((m, t))
    print(f"\n{len(CASES)} conversions: {dict(tally)}; better (plan, Triton): {better[:10]}")
    assert tally["worse"] == 0
    assert tally["paths differ"] == 0
