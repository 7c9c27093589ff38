"""``linear.distributed_view``, ``shared_view`` and ``matrix_view`` (issue 41): text grids like
Triton's ``get_distributed_view`` / ``get_shared_view``.

Three oracles:
* the layout itself: each view is parsed back (independently of ``views.py``'s own code) and every
  cell is checked against ``LinearLayout.apply`` over all inputs, brute force;
* the pictures Triton's 3.9.0 wheel printed, quoted in the reference note
  (``/work/shared/reference/linear-layouts.md``, section 2), checked without the wheel;
* the wheel itself (``get_distributed_view``, ``get_shared_view``, ``get_matrix_view``) over random
  layouts from fixed seeds, all sent as JSON to ONE child process (the wheel aborts on input it
  refuses); skipped, saying how to install it, when triton is absent.
"""

import importlib.util
import json
import random
import re
import subprocess
import sys

import numpy as np
import pytest

from layouts import linear
from layouts.errors import LayoutError, LayoutTypeError
from layouts.linear import LinearLayout as LL

HAVE_TRITON = importlib.util.find_spec("triton") is not None
needs_triton = pytest.mark.skipif(not HAVE_TRITON, reason="the Triton oracle needs the wheel: pip install triton==3.9.0")

MMA_WARP = LL.from_bases({"register": [[0, 1]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
                          "warp": [], "block": []}, ["dim0", "dim1"])
SWIZZLED_VEC2 = LL.from_bases({"offset": [[0, 1], [0, 2], [0, 4], [1, 2], [2, 4]], "block": []}, ["dim0", "dim1"])


def random_distributed(rng: random.Random) -> LL:
    rank = rng.choice([1, 2, 3])
    sizes = [1 << rng.randint(0, 3) for _ in range(rank)]
    bases = {d: [[rng.randrange(s) if rng.random() < 0.8 else 0 for s in sizes] for _ in range(rng.randint(0, 3))]
             for d in ("register", "lane", "warp", "block")}
    return LL.from_bases(bases, {f"dim{i}": s for i, s in enumerate(sizes)}, require_surjective=False)


def random_shared(rng: random.Random) -> LL:
    """A random invertible (offset, block) -> (dim0, ...) layout: unit vectors, shuffled, XOR-mixed."""
    rank = rng.choice([1, 2, 3])
    bits = [rng.randint(0, 3) for _ in range(rank)]
    vecs = [[(1 << j) if i == k else 0 for k in range(rank)] for i, b in enumerate(bits) for j in range(b)]
    rng.shuffle(vecs)
    for k in range(1, len(vecs)):
        if rng.random() < 0.5:
            vecs[k] = [a ^ b for a, b in zip(vecs[k], vecs[rng.randrange(k)])]
    nb = rng.randint(0, min(2, len(vecs)))
    return LL.from_bases({"offset": vecs[:len(vecs) - nb], "block": vecs[len(vecs) - nb:]},
                         {f"dim{i}": 1 << b for i, b in enumerate(bits)})


# --------------------------------------------------------------------- parsing the views back
def dims_of(L):
    return {d: L.in_dims.get(d, 1) for d in ("register", "lane", "warp", "block")}


def check_distributed_grid(L: LL, text: str) -> None:
    sizes = dims_of(L)
    shape = list(L.out_dims.values())
    lines = [ln for ln in text.split("\n") if ln]
    # one text line per run of the last dim, each with that many cells
    assert len(lines) == L.total_out_size // shape[-1]
    assert all(ln.count(", ") == shape[-1] - 1 for ln in lines)
    cells = [c.strip() for ln in lines for c in re.sub(r"\]*$", "", re.sub(r"^\[*", "", ln)).split(", ")]
    assert len(cells) == L.total_out_size
    seen = set()
    for index, cell in enumerate(cells):
        coord = np.unravel_index(index, shape)        # row-major: the last out-dim fastest
        for holder in filter(None, cell.split("|")):
            m = re.fullmatch(r"\s*(?:B(\d+):)?T(\d+):(\d+)", holder)
            assert m, holder
            block = int(m.group(1) or 0)
            thread, reg = int(m.group(2)), int(m.group(3))
            assert (m.group(1) is not None) == (sizes["block"] > 1)
            lane, warp = thread % sizes["lane"], thread // sizes["lane"]
            got = L.apply({d: v for d, v in zip(("register", "lane", "warp", "block"), (reg, lane, warp, block))
                           if d in L.in_dims})
            assert [got[d] for d in L.out_dim_names] == [int(c) for c in coord]
            assert (block, warp, lane, reg) not in seen
            seen.add((block, warp, lane, reg))
    assert len(seen) == int(np.prod(list(sizes.values())))     # every hardware input appears once


def check_distributed_hw(L: LL, text: str) -> None:
    sizes = dims_of(L)
    lines = text.split("\n")
    assert lines[-1] == ""
    lines = lines[:-1]
    k = 0
    for block in range(sizes["block"]):
        if sizes["block"] > 1:
            assert lines[k] == f"Block{block}:"
            k += 1
        for warp in range(sizes["warp"]):
            assert lines[k] == f"Warp{warp}:"
            k += 1
            for reg in range(sizes["register"]):
                points = re.findall(r"\(([^)]*)\)", lines[k])
                assert len(points) == sizes["lane"]
                for lane, point in enumerate(points):
                    got = L.apply({d: v for d, v in zip(("register", "lane", "warp", "block"), (reg, lane, warp, block))
                                   if d in L.in_dims})
                    assert [int(v) for v in point.split(",")] == [got[d] for d in L.out_dim_names]
                k += 1
    assert k == len(lines)


def check_shared_grid(L: LL, text: str) -> None:
    cells = re.findall(r"\(([^()]*)\)", text)
    assert len(cells) == L.total_out_size
    per_block = L.total_out_size // L.in_dims.get("block", 1)
    for k, cell in enumerate(cells):
        block, offset = divmod(k, per_block)
        got = L.apply({"offset": offset, **({"block": block} if "block" in L.in_dims else {})})
        assert [int(v) for v in cell.split(":")] == [got[d] for d in L.out_dim_names]
    shape = list(L.out_dims.values())
    assert len([ln for ln in text.split("\n") if ln]) == L.total_out_size // shape[-1]


# --------------------------------------------------------------------- the layout as oracle
@pytest.mark.parametrize("seed", range(40))
def test_distributed_view_cells_are_apply(seed):
    L = random_distributed(random.Random(seed))
    check_distributed_grid(L, linear.distributed_view(L))
    check_distributed_hw(L, linear.distributed_view(L, hardware=True))


@pytest.mark.parametrize("seed", range(40))
def test_shared_view_cells_are_apply(seed):
    L = random_shared(random.Random(seed))
    check_shared_grid(L, linear.shared_view(L))
    lines = linear.shared_view(L, hardware=True).splitlines()
    per_block = L.total_out_size // L.in_dims.get("block", 1)
    body = [ln for ln in lines if ln.startswith("Offset")]
    assert len(body) == L.total_out_size
    for k, line in enumerate(body):
        block, offset = divmod(k, per_block)
        m = re.fullmatch(r"Offset: (\d+) -> \(([^)]*)\)", line)
        assert m and int(m.group(1)) == offset
        got = L.apply({"offset": offset, **({"block": block} if "block" in L.in_dims else {})})
        assert [int(v) for v in m.group(2).split(",")] == [got[d] for d in L.out_dim_names]


def test_unheld_and_broadcast_elements():
    # lane bit 1 is zero: lanes 0 and 2 hold the same elements; dim0 size 8 leaves half unheld
    L = LL.from_bases({"register": [[1]], "lane": [[2], [0]]}, {"dim0": 8}, require_surjective=False)
    cells = linear.distributed_view(L).strip("[]\n").split(", ")
    assert cells[:4] == ["T0:0|T2:0", "T0:1|T2:1", "T1:0|T3:0", "T1:1|T3:1"]
    assert cells[4:] == [""] * 4


def test_missing_hardware_dims_have_size_one():
    L = LL.from_bases({"lane": [[1], [2]]}, ["dim0"])
    assert linear.distributed_view(L) == "[T0:0, T1:0, T2:0, T3:0]\n"


# --------------------------------------------------------------------- the wheel's own pictures (reference note, section 2)
def test_mma_warp_picture_from_the_wheel():
    text = linear.distributed_view(MMA_WARP)
    lines = text.splitlines()
    assert lines[0] == "[[ T0:0,  T0:1,  T1:0,  T1:1,  T2:0,  T2:1,  T3:0,  T3:1]"
    assert lines[1] == "[  T4:0,  T4:1,  T5:0,  T5:1,  T6:0,  T6:1,  T7:0,  T7:1]"
    assert lines[-1] == "[ T28:0, T28:1, T29:0, T29:1, T30:0, T30:1, T31:0, T31:1]]"
    assert len(lines) == 8


def test_swizzled_shared_picture_from_the_wheel():
    assert linear.shared_view(SWIZZLED_VEC2) == (
        "[[(0:0),(0:1),(0:2),(0:3),(0:4),(0:5),(0:6),(0:7)]\n"
        "[ (1:2),(1:3),(1:0),(1:1),(1:6),(1:7),(1:4),(1:5)]\n"
        "[ (2:4),(2:5),(2:6),(2:7),(2:0),(2:1),(2:2),(2:3)]\n"
        "[ (3:6),(3:7),(3:4),(3:5),(3:2),(3:3),(3:0),(3:1)]]\n")


def test_mma_matrix_from_the_wheel():
    want = [[0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0],
            [0, 0, 1, 0, 0, 0]]
    text = linear.matrix_view(MMA_WARP)
    lines = text.splitlines()
    assert lines[0].split() == ["register", "lane"]
    assert lines[1].split() == ["0", "0", "1", "2", "3", "4"]
    rows = [ln.split() for ln in lines[2:]]
    assert [r[0] for r in rows] == ["dim0:0", "dim0:1", "dim0:2", "dim1:0", "dim1:1", "dim1:2"]
    assert [[1 if v == "1" else 0 for v in r[1:]] for r in rows] == want


@pytest.mark.parametrize("seed", range(20))
def test_matrix_view_is_each_input_bit_by_brute_force(seed):
    L = random_distributed(random.Random(seed))
    rows = [ln.split() for ln in linear.matrix_view(L).splitlines()[2:]]
    in_bits = [(d, i) for d, s in L.in_dims.items() for i in range(s.bit_length() - 1)]
    out_bits = [(d, i) for d, s in L.out_dims.items() for i in range(s.bit_length() - 1)]
    assert [r[0] for r in rows] == [f"{d}:{i}" for d, i in out_bits]
    for (od, oi), row in zip(out_bits, rows):
        for (idim, ii), v in zip(in_bits, row[1:]):
            assert (v == "1") == bool(L.apply({idim: 1 << ii})[od] >> oi & 1)


def test_matrix_view_wide_in_dims_number_every_bit():
    L = LL.identity_1d(1 << 12, "offset", "dim0")
    lines = linear.matrix_view(L).splitlines()
    assert lines[1].split() == [str(i) for i in range(12)]
    assert lines[2].split() == ["dim0:0", "1"] + ["."] * 11


# --------------------------------------------------------------------- bad input
@pytest.mark.parametrize("view", [linear.distributed_view, linear.shared_view, linear.matrix_view])
def test_not_a_layout(view):
    with pytest.raises(LayoutTypeError, match="LinearLayout"):
        view({"register": [[1]]})


def test_refusals_name_the_dims():
    with pytest.raises(LayoutError, match=r"in-dims \['offset'\]"):
        linear.distributed_view(SWIZZLED_VEC2)
    with pytest.raises(LayoutError, match=r"in-dims \['register', 'lane'"):
        linear.shared_view(MMA_WARP)
    with pytest.raises(LayoutError, match="in-dim 'offset'"):
        linear.shared_view(LL.from_bases({"block": [[1]]}, ["dim0"]))
    with pytest.raises(LayoutError, match="cannot hold"):
        linear.shared_view(LL.from_bases({"offset": [[1]]}, {"dim0": 4}, require_surjective=False))
    with pytest.raises(LayoutError, match="MAX_VIEW_ELEMENTS"):
        linear.distributed_view(LL.identity_1d(1 << 17, "register", "dim0"))
    with pytest.raises(LayoutError, match="MAX_VIEW_INPUTS"):          # 2**40 registers onto one element
        linear.distributed_view(LL.zeros_1d(1 << 40, "register", "dim0"))
    with pytest.raises(LayoutError, match="no out-dims"):
        linear.distributed_view(LL.empty())
    with pytest.raises(LayoutTypeError, match="hardware"):
        linear.distributed_view(MMA_WARP, hardware="yes")


# --------------------------------------------------------------------- the wheel, in one child process
_WORKER = r"""
import json, os, sys
from triton._C.libtriton.linear_layout import LinearLayout as T
out = []
for c in json.load(sys.stdin):
    L = T.from_bases([(n, b) for n, b in c["bases"]], [n for n, _ in c["outs"]], [s for _, s in c["outs"]], False)
    if c["kind"] == "distributed":
        out.append([L.get_distributed_view(False), L.get_distributed_view(True), L.get_matrix_view()])
    else:
        out.append([L.get_shared_view(False), L.get_shared_view(True), L.get_matrix_view()])
sys.stdout.write(json.dumps(out)); sys.stdout.flush(); os._exit(0)
"""


def _as_wheel_case(L: LL, kind: str) -> dict:
    # the wheel asks every hardware dim for its size, so each is present (empty where absent)
    dims = ("register", "lane", "warp", "block") if kind == "distributed" else ("offset", "block")
    bases = [[d, [list(b) for b in L.bases.get(d, ())]] for d in dims]
    return {"kind": kind, "bases": bases, "outs": [[n, s] for n, s in L.out_dims.items()]}


@needs_triton
def test_views_match_the_wheel():
    rng = random.Random(41)
    layouts = [("distributed", random_distributed(rng)) for _ in range(80)]
    layouts += [("shared", random_shared(rng)) for _ in range(80)]
    layouts += [("distributed", MMA_WARP), ("shared", SWIZZLED_VEC2),
                ("distributed", LL.from_bases({"register": [[0, 1], [8, 0], [0, 8], [0, 16], [16, 0]],
                                               "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
                                               "warp": [[0, 32], [32, 0]], "block": [[64, 0]]}, ["dim0", "dim1"]))]
    cases = [_as_wheel_case(L, kind) for kind, L in layouts]
    run = subprocess.run([sys.executable, "-c", _WORKER], input=json.dumps(cases), capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    answers = json.loads(run.stdout)
    assert len(answers) == len(layouts)
    for (kind, L), (grid, hw, matrix) in zip(layouts, answers):
        view = linear.distributed_view if kind == "distributed" else linear.shared_view
        assert view(L) == grid, (L, grid)
        assert view(L, hardware=True) == hw, L
        assert L.matrix().tolist() == matrix
        rows = [ln.split()[1:] for ln in linear.matrix_view(L).splitlines()[2:]]
        assert [[1 if v == "1" else 0 for v in r] for r in rows] == matrix, L


# --------------------------------------------------------------------- explain: the words
MMA_32x32 = LL.from_bases({"register": [[0, 1], [8, 0], [0, 8], [0, 16], [16, 0]],
                           "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "warp": [], "block": []},
                          ["dim0", "dim1"])


def test_explain_says_lane_bit_2_moves_one_row_down():
    lines = MMA_32x32.explain().splitlines()
    assert "  lane bit 2 (lane 4) -> (1, 0): one row down" in lines
    assert "  register bit 1 (register 2) -> (8, 0): 8 rows down" in lines
    assert "  lane bit 0 (lane 1) -> (0, 2): 2 columns right" in lines
    assert lines[0].endswith("(32 x 32): 1024 inputs onto 1024 elements, invertible")


@pytest.mark.parametrize("seed", range(20))
def test_explain_states_every_basis_as_apply_gives_it(seed):
    L = random_distributed(random.Random(seed))
    lines = L.explain().splitlines()
    for d, size in L.in_dims.items():
        for i in range(size.bit_length() - 1):
            got = L.apply({d: 1 << i})
            value = [got[o] for o in L.out_dim_names]
            shown = f"({', '.join(map(str, value))})" if len(value) != 1 else str(value[0])
            (line,) = [ln for ln in lines if ln.startswith(f"  {d} bit {i} ({d} {1 << i}) -> ")]
            assert line.startswith(f"  {d} bit {i} ({d} {1 << i}) -> {shown}: ")
            words = line.split(": ", 1)[1]
            if not any(value):
                assert words.startswith("nothing: a broadcast")
            if L.out_dim_names == ["dim0", "dim1"] and value[0] == 0 and value[1] and value[1] & (value[1] - 1) == 0:
                assert words == ("one column right" if value[1] == 1 else f"{value[1]} columns right")


def test_explain_cute_form_reads_as_it_says():
    # "(register, lane, warp, block) -> dim0 + 32 * dim1": check the CuTe form against apply
    line = MMA_32x32.explain().splitlines()[-1]
    form = linear.to_cute(MMA_32x32)
    assert line.startswith(f"CuTe form: {form} ((register, lane, warp, block) -> dim0 + 32 * dim1")
    k = np.arange(1024)
    got = MMA_32x32.apply({"register": k % 32, "lane": k // 32})
    assert [form(int(i)) for i in k] == (got["dim0"] + 32 * got["dim1"]).tolist()


def test_explain_swizzle_words_match_cutes_swizzle():
    from layouts import cute
    shared = LL.from_bases({"offset": [[0, 1], [0, 2], [0, 4], [1, 1], [2, 2], [4, 4]]}, ["dim0", "dim1"])
    lines = shared.explain().splitlines()
    assert lines[-2].startswith("CuTe form: Sw<3,0,3> o 0 o (8,8):(8,1) (read as memory")
    m = re.fullmatch(r"  Sw<(\d),(\d),(\d)>: offset bits (\d+)\.\.(\d+) are XOR-ed into bits (\d+)\.\.(\d+): .*", lines[-1])
    assert m
    b, base, shift, hi_lo, hi_hi, lo_lo, lo_hi = map(int, m.groups())
    sw = cute.Swizzle(b, base, shift)
    for x in range(64):                         # the words, executed, are CuTe's swizzle
        moved = (x >> hi_lo) & ((1 << (hi_hi - hi_lo + 1)) - 1)
        assert sw(x) == x ^ (moved << lo_lo) and lo_hi - lo_lo == hi_hi - hi_lo
    assert "  offset bit 3 (offset 8) -> (1, 1): one row down and one column right (a swizzle" in lines[4]
