"""``layouts.linear.triton`` against Triton itself: every encoding's linear layout compared, basis
for basis and size for size, with what the triton 3.9.0 wheel's Gluon builder gives
(``GluonOpBuilder.to_linear_layout``), over many parameter sets drawn from fixed seeds plus the
parameters of Triton's C++ tests.

The wheel aborts the process on an encoding it refuses, so each test sends all its cases as JSON
to ONE child process; the child names each case on stderr before building it, so a death says
which case killed it. Only valid cases are generated. Skips, with the way to install it, when
triton is absent (CI installs it in a stage of its own).
"""

import importlib.util
import json
import random
import subprocess
import sys

import pytest

from layouts.errors import LayoutError
from layouts.linear import triton as tt

pytestmark = pytest.mark.skipif(importlib.util.find_spec("triton") is None,
                                reason="the Triton oracle needs the wheel: pip install triton==3.9.0")

_WORKER = r"""
import json, os, sys
from triton._C.libtriton import ir
from triton._C.libtriton.gluon_ir import GluonOpBuilder
import triton.experimental.gluon.language as ttgl

ctx = ir.context(); ir.load_dialects(ctx); b = GluonOpBuilder(ctx)

def build(d):
    args = {k: (build(v) if isinstance(v, dict) else v) for k, v in d["args"].items()}
    cls = getattr(ttgl, d["cls"], None) or getattr(ttgl.amd, d["cls"])
    return cls(**args)

out = []
for i, case in enumerate(json.load(sys.stdin)):
    sys.stderr.write(f"CASE {i}\n"); sys.stderr.flush()
    r = b.to_linear_layout(build(case["enc"])._to_ir(b), case["shape"])
    if hasattr(r, "reg_bases"):
        out.append({"register": r.reg_bases, "lane": r.lane_bases, "warp": r.warp_bases,
                    "block": r.block_bases, "shape": list(r.shape)})
    else:
        out.append({"offset": r.offset_bases, "block": r.block_bases, "shape": list(r.shape)})
sys.stdout.write(json.dumps(out)); sys.stdout.flush()
os._exit(0)
"""


def _json(enc):
    args = {}
    for f in enc._fields:
        v = getattr(enc, f)
        args[f] = _json(v) if isinstance(v, tt.Encoding) else json.loads(json.dumps(v))
    return {"cls": type(enc).__name__, "args": args}


def _wheel(cases):
    """The wheel's layouts for ``cases`` [(encoding, shape)], from one child process."""
    payload = json.dumps([{"enc": _json(e), "shape": list(s)} for e, s in cases])
    run = subprocess.run([sys.executable, "-c", _WORKER], input=payload, capture_output=True, text=True,
                         timeout=300)
    if run.returncode != 0:
        done = [ln for ln in run.stderr.splitlines() if ln.startswith("CASE ")]
        which = int(done[-1].split()[1]) if done else None
        bad = cases[which] if which is not None else None
        pytest.fail(f"the wheel died (rc {run.returncode}) on case {which}: {bad!r}\n{run.stderr[-1500:]}")
    return json.loads(run.stdout)


def _compare(cases):
    answers = _wheel(cases)
    assert len(answers) == len(cases)
    mismatches = []
    for (enc, shape), want in zip(cases, answers):
        ours = tt.to_linear_layout(enc, shape)
        dims = ["offset", "block"] if "offset" in want else ["register", "lane", "warp", "block"]
        got = {d: [list(b) for b in ours.bases[d]] for d in dims}
        if got != {d: want[d] for d in dims} or list(ours.in_dims) != dims \
                or list(ours.out_dims.values()) != want["shape"] or want["shape"] != list(shape):
            mismatches.append((enc, shape, got, want))
    assert not mismatches, f"{len(mismatches)} of {len(cases)} differ; first: {mismatches[0]}"
    return len(cases)


# ----------------------------------------------------------------- generators
def _split(rng, total, rank):
    """``total`` (a power of two) split into ``rank`` powers of two."""
    parts = [1] * rank
    for _ in range(total.bit_length() - 1):
        parts[rng.randrange(rank)] *= 2
    return parts


def _cga(rng, rank, max_bits=2):
    """Valid block bases: each bit a broadcast (zeros) or the next power along a random dim."""
    bases, nxt = [], [1] * rank
    for _ in range(rng.randrange(max_bits + 1)):
        b = [0] * rank
        if rng.random() < 0.8:
            d = rng.randrange(rank)
            b[d] = nxt[d]
            nxt[d] *= 2
        bases.append(b)
    return bases


def _shape(rng, rank, lo=0, hi=8):
    while True:                       # the wheel's SharedLinearLayout cannot hold a one-element tensor
        shape = [1 << rng.randint(lo, hi) for _ in range(rank)]
        if max(shape) > 1:
            return shape


def _blocked(rng, rank=None, cga=True):
    rank = rank or rng.randint(1, 3)
    order = list(range(rank))
    rng.shuffle(order)
    return tt.BlockedLayout(_split(rng, 1 << rng.randint(0, 3), rank), _split(rng, 32, rank),
                            _split(rng, 1 << rng.randint(0, 3), rank), order,
                            _cga(rng, rank) if cga and rng.random() < 0.4 else None)


def _mma(rng, version=None, rank=None, cga=True):
    version = version or rng.choice([2, 3])
    if version == 3:
        warps = rng.choice([[4, 1], [4, 2], [8, 1], [4, 4], [8, 2]])
        return tt.NVMMADistributedLayout([3, 0], warps, [16, 8 << rng.randint(0, 5), 16],
                                         _cga(rng, 2) if cga and rng.random() < 0.3 else None)
    rank = rank or rng.choice([2, 2, 3])
    warps = _split(rng, 1 << rng.randint(0, 3), rank)
    instr = [16, 8] if rank == 2 else [1, 16, 8]
    return tt.NVMMADistributedLayout([2, 0], warps, instr, _cga(rng, rank) if cga and rng.random() < 0.3 else None)


def _dot(rng):
    if rng.random() < 0.2:
        return tt.DotOperandLayout(rng.randint(0, 1), _blocked(rng, rank=rng.randint(2, 3)), 0)
    parent = _mma(rng)
    op = 0 if parent.is_hopper else rng.randint(0, 1)
    return tt.DotOperandLayout(op, parent, 1 << rng.randint(0, 3))


def _cases(rng, make, n, lo=0, hi=8):
    out = []
    for _ in range(n):
        enc = make(rng)
        out.append((enc, _shape(rng, enc.rank, lo, hi)))
    return out


# ----------------------------------------------------------------- the C++ tests' parameters
def test_the_cpp_tests_encodings_match_the_wheel():
    B, M, D = tt.BlockedLayout, tt.NVMMADistributedLayout, tt.DotOperandLayout
    v2 = M([2, 0], [1, 1], [16, 8])
    cases = [
        (B([4], [4], [4], [0]), [8]), (B([1], [4], [4], [0]), [128]), (B([1], [4], [4], [0]), [16]),
        (B([2, 2], [4, 8], [2, 2], [1, 0], [[0, 1], [1, 0]]), [1024, 128]),
        (B([1, 8], [8, 4], [8, 1], [1, 0]), [1, 64]), (B([1, 1], [32, 1], [1, 8], [0, 1]), [1, 64]),
        (v2, [32, 32]), (v2, [16, 8]), (v2, [8, 4]), (M([2, 0], [2, 2], [16, 8]), [64, 64]),
        (M([3, 0], [4, 1], [16, 16, 16]), [64, 16]), (M([3, 0], [4, 2], [16, 32, 16]), [128, 128]),
        (tt.SliceLayout(0, M([2, 0], [2, 2], [16, 8])), [16]), (tt.SliceLayout(1, v2), [32]),
        (D(0, v2, 2), [32, 32]), (D(1, v2, 2), [32, 32]), (D(0, M([2, 0], [2, 2], [16, 8]), 4), [64, 64]),
        (D(1, M([2, 0], [2, 2], [16, 8]), 8), [64, 64]), (D(0, M([3, 0], [4, 1], [16, 64, 16]), 2), [64, 64]),
        (tt.SwizzledSharedLayout(1, 1, 4, [1, 0]), [32, 32]), (tt.SwizzledSharedLayout(2, 1, 4, [1, 0]), [4, 8]),
        (tt.SwizzledSharedLayout(1, 1, 8, [1, 0]), [8, 8]), (tt.SwizzledSharedLayout(4, 2, 4, [0, 1]), [32, 16]),
        (tt.NVMMASharedLayout(128, 16), [8, 64]), (tt.NVMMASharedLayout(128, 16, transposed=True), [64, 8]),
        (tt.NVMMASharedLayout(64, 16), [16, 32]), (tt.NVMMASharedLayout(32, 8), [32, 32]),
        (tt.NVMMASharedLayout(0, 16), [16, 16]),
        # not in the C++ tests: no swizzle, transposed, past the 256-element TMA box, and rank 3
        (tt.NVMMASharedLayout(0, 16, transposed=True), [512, 512]),
        (tt.NVMMASharedLayout(0, 16, 3, True), [2, 4, 8]), (tt.NVMMASharedLayout(0, 32, 3, True), [1, 512, 128]),
        (tt.NVMMASharedLayout(64, 16, 3, True), [64, 4, 8]), (tt.NVMMASharedLayout(128, 8, 3), [4, 8, 512]),
    ]
    _compare(cases)


# ----------------------------------------------------------------- random, from fixed seeds
@pytest.mark.parametrize("seed", [0, 1])
def test_blocked_layouts_match_the_wheel(seed):
    _compare(_cases(random.Random(seed), _blocked, 150))


@pytest.mark.parametrize("seed", [0, 1])
def test_mma_accumulators_match_the_wheel(seed):
    _compare(_cases(random.Random(100 + seed), _mma, 120))


@pytest.mark.parametrize("seed", [0, 1])
def test_dot_operands_match_the_wheel(seed):
    _compare(_cases(random.Random(200 + seed), _dot, 120))


def test_slices_match_the_wheel():
    rng = random.Random(300)
    makers = [lambda r: _blocked(r, rank=r.randint(2, 3)), _mma, _dot, _mfma,
              lambda r: tt.DotOperandLayout(r.randint(0, 1), _mfma(r), 8)]
    cases = []
    for _ in range(150):
        parent = rng.choice(makers)(rng)
        enc = tt.SliceLayout(rng.randrange(parent.rank), parent)
        if rng.random() < 0.2 and enc.rank >= 2:
            enc = tt.SliceLayout(rng.randrange(enc.rank), enc)
        cases.append((enc, _shape(rng, enc.rank)))
    _compare(cases)


def test_swizzled_shared_layouts_match_the_wheel():
    rng = random.Random(400)
    cases = []
    for _ in range(200):
        rank = rng.randint(1, 3)
        order = list(range(rank))
        rng.shuffle(order)
        enc = tt.SwizzledSharedLayout(1 << rng.randint(0, 3), 1 << rng.randint(0, 3), 1 << rng.randint(0, 3),
                                      order, _cga(rng, rank) if rng.random() < 0.3 else None)
        shape = _shape(rng, rank, 0, 7)
        if tt.to_linear_layout(enc, shape).bases["offset"]:   # Gluon cannot hold an empty offset list
            cases.append((enc, shape))
    _compare(cases)


def test_nvmma_shared_layouts_match_the_wheel():
    rng = random.Random(500)
    cases = []
    while len(cases) < 300:
        swizzle, bits = rng.choice([0, 32, 64, 128]), rng.choice([8, 16, 32, 64])
        fp4 = swizzle == 128 and bits == 8 and rng.random() < 0.3
        rank = rng.choice([2, 2, 3]) if swizzle else rng.randint(1, 3)
        transposed = rng.random() < 0.4
        cga = _cga(rng, rank) if rng.random() < 0.3 else None
        enc = tt.NVMMASharedLayout(swizzle, bits, rank, transposed, fp4, cga)
        shape = _shape(rng, rank, 0, 10)
        try:                       # only shapes the encoding accepts (we refuse those the wheel aborts on)
            ours = tt.to_linear_layout(enc, shape)
        except LayoutError:
            continue
        if ours.bases["offset"]:   # Gluon cannot hold an empty offset list
            cases.append((enc, shape))
    _compare(cases)


def test_the_literal_cpp_cases_are_what_the_wheel_gives():
    """The expected bases transcribed in test_linear_triton.py (two of them updated for 3.9.0,
    with the reason written there) are the wheel's, so that file holds without the wheel."""
    from test_linear_triton import CASES
    answers = _wheel([(enc, shape) for _, enc, shape, _ in CASES])
    for (name, _, _, expected), want in zip(CASES, answers):
        assert {d: want[d] for d in expected} == expected, name


@pytest.mark.parametrize("enc,shape", [
    (tt.NVMMASharedLayout(128, 16), [8, 32]),                  # contiguous dim shorter than the swizzle
    (tt.NVMMASharedLayout(128, 16), [4, 64]),                  # fewer than 8 rows
    (tt.NVMMASharedLayout(128, 16, transposed=True), [32, 64]),
])
def test_shapes_we_refuse_are_ones_the_wheel_aborts_on(enc, shape):
    """Our LayoutError stands where Triton reports a fatal error and kills the process."""
    with pytest.raises(LayoutError):
        tt.to_linear_layout(enc, shape)
    payload = json.dumps([{"enc": _json(enc), "shape": shape}])
    run = subprocess.run([sys.executable, "-c", _WORKER], input=payload, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode != 0, "the wheel accepted it"
    assert "LLVM ERROR" in run.stderr and ("Illegal shared layout" in run.stderr or "getTMABlockShape" in run.stderr), \
        run.stderr[-500:]


def _mfma(rng, rank=None):
    m, n = rng.choice([(32, 32), (16, 16), (64, 4), (4, 64)])
    k = {(32, 32): rng.choice([8, 16]), (16, 16): rng.choice([16, 32])}.get((m, n), 4)
    rank = rank or rng.choice([2, 2, 3])
    bits = 64 if (m, n) == (16, 16) and rng.random() < 0.2 else 32
    tiles = _split(rng, 1 << rng.randint(0, 2), rank) if rng.random() < 0.4 else None
    return tt.AMDMFMALayout(3, [m, n, k], (m, n) == (64, 4) or rng.random() < 0.5,
                            _split(rng, 1 << rng.randint(0, 3), rank), bits, tiles,
                            _cga(rng, rank) if rng.random() < 0.2 else None)


def test_amd_mfma_accumulators_and_operands_match_the_wheel():
    rng = random.Random(600)
    cases = _cases(rng, _mfma, 120, 2, 8)
    for _ in range(120):
        parent = _mfma(rng)
        enc = tt.DotOperandLayout(rng.randint(0, 1), parent, rng.choice([4, 8, 16]))
        cases.append((enc, _shape(rng, enc.rank, 2, 8)))
    _compare(cases)


def _wmma(rng, rank=None):
    rank = rank or rng.choice([2, 2, 3])
    version = rng.randint(1, 3)
    instr = rng.choice({1: [[16, 16, 16]], 2: [[16, 16, 16], [16, 16, 32]],
                        3: [[16, 16, 4], [16, 16, 32], [16, 16, 64], [16, 16, 128]]}[version])
    bases, nxt = [], [1] * rank
    for _ in range(rng.randint(0, 4)):
        d = rng.randrange(rank)
        bases.append([nxt[d] if i == d else 0 for i in range(rank)])
        nxt[d] *= 2
    k = rng.randint(0, len(bases))
    return tt.AMDWMMALayout(version, rng.random() < 0.5, bases[:k], bases[k:], instr,
                            _cga(rng, rank) if rng.random() < 0.3 else None, rank)


def _wmma_dot(rng):
    parent = _wmma(rng)
    k_width = rng.choice({1: [8, 16], 2: [4, 8, 16], 3: [1, 2, 4, 8, 16, 32]}[parent.version])
    return tt.DotOperandLayout(rng.randint(0, 1), parent, k_width)


def test_amd_wmma_accumulators_operands_and_slices_match_the_wheel():
    rng = random.Random(700)
    cases = _cases(rng, _wmma, 100, 3, 7) + _cases(rng, _wmma_dot, 150, 3, 7)
    for _ in range(60):
        parent = rng.choice([_wmma, _wmma_dot])(rng)
        enc = tt.SliceLayout(rng.randrange(parent.rank), parent)
        cases.append((enc, _shape(rng, enc.rank, 2, 7)))
    _compare(cases)


def test_gluons_own_layout_objects_are_read_as_ours():
    """A Triton user passes ttgl.BlockedLayout(...) etc. straight in (plain Python dataclasses;
    nothing of Triton's C++ runs here): the result is that of our encoding with the same arguments."""
    import triton.experimental.gluon.language as ttgl
    m2 = ttgl.NVMMADistributedLayout([2, 0], [2, 2], [16, 8])
    pairs = [
        (ttgl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0], [[0, 1]]),
         tt.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0], [[0, 1]]), [64, 64]),
        (ttgl.SliceLayout(1, ttgl.DotOperandLayout(0, m2, 2)),
         tt.SliceLayout(1, tt.DotOperandLayout(0, tt.NVMMADistributedLayout([2, 0], [2, 2], [16, 8]), 2)), [64]),
        (ttgl.NVMMASharedLayout(64, 16, transposed=True), tt.NVMMASharedLayout(64, 16, transposed=True), [64, 32]),
        (ttgl.SwizzledSharedLayout(2, 2, 4, [0, 1]), tt.SwizzledSharedLayout(2, 2, 4, [0, 1]), [32, 32]),
        (ttgl.amd.AMDMFMALayout(3, [16, 16, 16], True, [2, 1]), tt.AMDMFMALayout(3, [16, 16, 16], True, [2, 1]),
         [32, 32]),
        (ttgl.amd.AMDWMMALayout(2, False, [[0, 1]], [[1, 0]]), tt.AMDWMMALayout(2, False, [[0, 1]], [[1, 0]]),
         [32, 32]),
    ]
    for gluon, ours, shape in pairs:
        assert tt.from_gluon(gluon) == ours
        assert tt.to_linear_layout(gluon, shape) == tt.to_linear_layout(ours, shape)
    _compare([(ours, shape) for _, ours, shape in pairs])


def test_layouts_given_by_their_bases_match_the_wheel():
    """DistributedLinearLayout at other shapes (repeated or cut, as Triton does) and
    SharedLinearLayout at its own, from the bases of random encodings."""
    rng = random.Random(800)
    cases = []
    for _ in range(150):
        enc = rng.choice([_blocked, _mma, _dot, _mfma])(rng)
        own = _shape(rng, enc.rank, 1, 7)
        L = tt.to_linear_layout(enc, own)
        lin = tt.DistributedLinearLayout(*[[list(b) for b in L.bases[d]] for d in ("register", "lane", "warp", "block")],
                                         own)
        cases.append((lin, _shape(rng, enc.rank, 0, 8)))
    for _ in range(100):
        enc = tt.SwizzledSharedLayout(1 << rng.randint(0, 3), 1 << rng.randint(0, 2), 1 << rng.randint(0, 3),
                                      rng.choice([[1, 0], [0, 1]]), _cga(rng, 2) if rng.random() < 0.3 else None)
        shape = _shape(rng, 2, 1, 7)
        L = tt.to_linear_layout(enc, shape)
        lin = tt.SharedLinearLayout([list(b) for b in L.bases["offset"]], [list(b) for b in L.bases["block"]])
        if lin.shape == shape:
            cases.append((lin, shape))
    _compare(cases)


_REFUSED = [   # (Gluon class, arguments, shape): each refused by us and by the wheel
    ("DistributedLinearLayout", {"reg_bases": [], "lane_bases": [[3, 0], [2, 0]], "warp_bases": [], "block_bases": [],
                                 "shape": [4, 1]}, [4, 1]),
    ("DistributedLinearLayout", {"reg_bases": [[0, 1]], "lane_bases": [[1, 0]], "warp_bases": [[1, 1]],
                                 "block_bases": [], "shape": [2, 2]}, [2, 2]),
    ("DistributedLinearLayout", {"reg_bases": [], "lane_bases": [[2]], "warp_bases": [], "block_bases": [],
                                 "shape": [4]}, [4]),
    ("SharedLinearLayout", {"offset_bases": [[0, 1], [1, 1]], "block_bases": [[1, 1]]}, [2, 2]),
    ("SharedLinearLayout", {"offset_bases": [[0, 1], [1, 0]]}, [4, 4]),
    ("SliceLayout", {"dim": 0, "parent": {"cls": "BlockedLayout", "args": {
        "size_per_thread": [1], "threads_per_warp": [32], "warps_per_cta": [4], "order": [0]}}}, []),
    ("DotOperandLayout", {"operand_index": 1, "k_width": 2, "parent": {"cls": "NVMMADistributedLayout", "args": {
        "version": [3, 0], "warps_per_cta": [4, 1], "instr_shape": [16, 64, 16]}}}, [64, 64]),
    ("DotOperandLayout", {"operand_index": 0, "k_width": 2, "parent": {"cls": "AMDWMMALayout", "args": {
        "version": 2, "transposed": False, "warp_bases": []}}}, [16, 16]),
]


def _ours(d):
    args = {k: (_ours(v) if isinstance(v, dict) else v) for k, v in d["args"].items()}
    return getattr(tt, d["cls"])(**args)


#: one case through the wheel, saying where it stopped: exit 0 accepted; 3 with a JSON verdict
#: for a Python exception (the stage, and whether the raising frame is the wheel's own code);
#: killed by a signal where the wheel's C++ aborts
_REFUSAL_WORKER = _WORKER.split("out = []")[0] + r"""
import traceback
case = json.load(sys.stdin)
stage = "build"
try:
    enc = build(case["enc"])
    stage = "convert"
    b.to_linear_layout(enc._to_ir(b), case["shape"])
except Exception as e:
    where = traceback.extract_tb(e.__traceback__)[-1].filename
    sys.stdout.write(json.dumps({"stage": stage, "type": type(e).__name__, "message": str(e)[:300],
                                 "wheel_frame": os.path.dirname(ttgl.__file__).split("experimental")[0] in where}))
    sys.stdout.flush()
    os._exit(3)
os._exit(0)
"""


def _wheel_refuses(cls, args, shape):
    """(refused, why): the wheel's verdict on one encoding, told apart from a failure of the child
    itself -- a Gluon class built with arguments it does not take, a missing module -- which
    would otherwise read as a refusal."""
    payload = json.dumps({"enc": {"cls": cls, "args": args}, "shape": shape})
    run = subprocess.run([sys.executable, "-c", _REFUSAL_WORKER], input=payload, capture_output=True, text=True,
                         timeout=120)
    if run.returncode == 0:
        return False, "accepted"
    if run.returncode < 0:
        return True, f"the wheel's C++ aborted (signal {-run.returncode})"
    if run.returncode != 3:
        return False, f"the child failed before the case ran (exit {run.returncode}): {run.stderr[-500:]}"
    v = json.loads(run.stdout)
    if v["stage"] == "convert" or v["wheel_frame"]:
        return True, f"{v['type']} from the wheel at {v['stage']}: {v['message']}"
    return False, f"the child's own {v['type']} at {v['stage']}, not the wheel's: {v['message']}"


@pytest.mark.parametrize("cls,args,shape", _REFUSED, ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(_REFUSED)])
def test_encodings_we_refuse_the_wheel_refuses_too(cls, args, shape):
    """Our LayoutError where the wheel aborts or raises: no valid Triton layout is refused."""
    with pytest.raises(LayoutError):
        tt.to_linear_layout(_ours({"cls": cls, "args": args}), shape)
    refused, why = _wheel_refuses(cls, args, shape)
    assert refused, why


def test_a_child_that_fails_is_not_read_as_the_wheel_refusing():
    """The judge of the test above: a valid encoding is accepted, and a Gluon class given an
    argument it does not take (the child's mistake) is not counted as the wheel's refusal."""
    blocked = {"size_per_thread": [1, 1], "threads_per_warp": [8, 4], "warps_per_cta": [4, 1], "order": [1, 0]}
    assert _wheel_refuses("BlockedLayout", blocked, [32, 32]) == (False, "accepted")
    refused, why = _wheel_refuses("BlockedLayout", dict(blocked, no_such_argument=1), [32, 32])
    assert not refused and "not the wheel's" in why, why
