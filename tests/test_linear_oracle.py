"""``layouts.linear`` against Triton itself: the triton 3.9.0 wheel's LinearLayout as the oracle.

Every function the wheel binds (``from_bases`` with inferred and given sizes, ``identity_1d``,
``strided_1d``, ``zeros_1d``, ``apply``, ``*``, ``compose``, ``invert_and_compose``, ``invert``,
``pseudoinvert``, ``==``, ``is_surjective/injective/invertible``, ``get_matrix_view``, the dim
names) is compared with ours over hundreds of random layouts from fixed seeds. The wheel aborts
the process on input it refuses, so each test sends its cases as JSON to ONE child process and
reads the answers back as JSON; only inputs the wheel accepts are generated (validity decided by
brute force enumeration, not by the code under test). Where Triton's C++ source and the wheel
differ, the wheel decides (issue 41).

Skips, with the way to install it, when triton is absent; CI installs it in a stage of its own,
where ``LAYOUTS_REQUIRE_ORACLES=1`` turns that skip into a failure (tests/oracle_procs.py).
"""

import json
import random
import subprocess
import sys

from oracle_procs import TRITON_MISSING, have_triton, require_oracle

require_oracle(have_triton(), TRITON_MISSING, module=True)     # CI's oracle stage fails instead of skipping

from layouts.linear import LinearLayout as LL  # noqa: E402

_WORKER = r"""
import json, os, sys
from triton._C.libtriton.linear_layout import LinearLayout as T

def build(d):
    return T.from_bases([(n, b) for n, b in d["bases"]], [n for n, _ in d["outs"]],
                        [s for _, s in d["outs"]], False)

def dump(L):
    return {"bases": [[n, b] for n, b in L.bases], "outs": [[n, s] for n, s in L.out_dims],
            "ins": L.get_in_dim_names(), "names": L.get_out_dim_names()}

def props(L):
    return {"surjective": L.is_surjective(), "injective": L.is_injective(),
            "invertible": L.is_invertible(), "matrix": L.get_matrix_view(),
            "num_in": L.num_in_dims, "num_out": L.num_out_dims, "str": str(L)}

OPS = {
    "infer": lambda c: dump(T.from_bases([(n, b) for n, b in c["bases"]], c["names"])),
    "sized": lambda c: dump(T.from_bases([(n, b) for n, b in c["bases"]], c["names"], c["sizes"],
                                         c["surjective"])),
    "props": lambda c: props(build(c["a"])),
    "apply": lambda c: [build(c["a"]).apply(p) for p in c["points"]],
    "mul": lambda c: dump(build(c["a"]) * build(c["b"])),
    "compose": lambda c: dump(build(c["a"]).compose(build(c["b"]))),
    "invert_and_compose": lambda c: dump(build(c["a"]).invert_and_compose(build(c["b"]))),
    "invert": lambda c: dump(build(c["a"]).invert()),
    "pseudoinvert": lambda c: dump(build(c["a"]).pseudoinvert()),
    "eq": lambda c: [build(c["a"]) == build(c["b"]), build(c["a"]) != build(c["b"])],
    "identity_1d": lambda c: dump(T.identity_1d(c["size"], "i", "o")),
    "strided_1d": lambda c: dump(T.strided_1d(c["size"], c["stride"], "i", "o")),
    "zeros_1d": lambda c: dump(T.zeros_1d(c["size"], "i", "o", c["out_size"])),
}
cases = json.load(sys.stdin)
out = [OPS[c["op"]](c) for c in cases]
sys.stdout.write(json.dumps(out))
sys.stdout.flush()
os._exit(0)
"""


def _wheel(cases):
    """The wheel's answers to ``cases``, from one child process (it aborts on bad input)."""
    run = subprocess.run([sys.executable, "-c", _WORKER], input=json.dumps(cases), capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, f"the wheel refused a case (rc {run.returncode}): {run.stderr[-2000:]}"
    return json.loads(run.stdout)


# ----------------------------------------------------------------- random layouts
IN_NAMES = ["register", "lane", "warp", "block", "offset"]
OUT_NAMES = ["dim0", "dim1", "dim2"]


def _spec(L):
    return {"bases": [[n, [list(b) for b in rows]] for n, rows in L.bases.items()],
            "outs": [[n, s] for n, s in L.out_dims.items()]}


def _ours(d):
    return LL.from_bases([(n, b) for n, b in d["bases"]], [(n, s) for n, s in d["outs"]], require_surjective=False)


def _image(bases, outs):
    """Brute force: the set of output tuples reached (every input enumerated, XOR of bases)."""
    cols = [tuple(b) for _, rows in bases for b in rows]
    reached = {tuple(0 for _ in outs)}
    for c in cols:
        reached |= {tuple(x ^ y for x, y in zip(r, c)) for r in reached}
    return reached


def _brute_surjective(bases, outs):
    total = 1
    for _, s in outs:
        total *= s
    return len(_image(bases, outs)) == total


def _random_bases(rng, ins, outs, max_bits, zero_rate=0.15, single_bit_rate=0.5):
    bases = []
    for name in ins:
        rows = []
        for _ in range(rng.randint(0, max_bits)):
            if rng.random() < zero_rate:
                rows.append([0] * len(outs))
            elif rng.random() < single_bit_rate and outs:
                k = rng.randrange(len(outs))
                size = outs[k][1]
                row = [0] * len(outs)
                row[k] = (1 << rng.randrange(size.bit_length() - 1)) if size > 1 else 0
                rows.append(row)
            else:
                rows.append([rng.randrange(s) for _, s in outs])
        bases.append([name, rows])
    return bases


def _surjective_bases(rng, ins, outs, extra):
    """Bases reaching every output: one column per output bit plus ``extra`` random ones, mixed by
    random column additions (which keep the span), shuffled and dealt to the in-dims."""
    widths = [s.bit_length() - 1 for _, s in outs]
    cols = []
    for k, w in enumerate(widths):
        for bit in range(w):
            cols.append([(1 << bit) if j == k else 0 for j in range(len(outs))])
    cols += [[rng.randrange(s) for _, s in outs] for _ in range(extra)]
    for _ in range(2 * len(cols)):
        if len(cols) > 1:
            i, j = rng.sample(range(len(cols)), 2)
            cols[i] = [x ^ y for x, y in zip(cols[i], cols[j])]
    rng.shuffle(cols)
    cuts = sorted(rng.randint(0, len(cols)) for _ in range(len(ins) - 1))
    return [[n, cols[a:b]] for n, a, b in zip(ins, [0] + cuts, cuts + [len(cols)])]


def random_layout(rng, ins=None, outs=None, max_bits=3, surjective=None):
    """A random layout spec: in-dims a subsequence of IN_NAMES (or ``ins``), out-dims of OUT_NAMES
    with power-of-two sizes (or ``outs``). ``surjective=True`` retries until brute force says so."""
    if surjective:
        i_names = ins if ins is not None else [n for n in IN_NAMES if rng.random() < 0.5] or ["register"]
        o = outs if outs is not None else [[n, 1 << rng.randint(0, 3)] for n in OUT_NAMES if rng.random() < 0.6]
        bases = _surjective_bases(rng, i_names, o, rng.randint(0, max_bits))
        assert _brute_surjective(bases, o)
        return {"bases": bases, "outs": [list(p) for p in o]}
    for _ in range(200):
        i_names = ins if ins is not None else [n for n in IN_NAMES if rng.random() < 0.5] or ["register"]
        o = outs if outs is not None else [[n, 1 << rng.randint(0, 3)] for n in OUT_NAMES if rng.random() < 0.6]
        bases = _random_bases(rng, i_names, o, max_bits)
        if surjective is None or _brute_surjective(bases, o) == surjective:
            return {"bases": bases, "outs": [list(p) for p in o]}
    raise RuntimeError("no layout found")


def _same(ours, theirs):
    """Our layout against the wheel's dump: bases, dim names and order, out sizes."""
    assert [[n, [list(b) for b in rows]] for n, rows in ours.bases.items()] == theirs["bases"]
    assert [[n, s] for n, s in ours.out_dims.items()] == theirs["outs"]
    assert ours.in_dim_names == theirs["ins"] and ours.out_dim_names == theirs["names"]


# ----------------------------------------------------------------- construction and queries
def test_from_bases_infers_sizes_as_the_wheel_does():
    rng = random.Random(41)
    cases = []
    while len(cases) < 300:
        d = random_layout(rng, surjective=None)
        names = [n for n, _ in d["outs"]]
        sizes = {n: 1 for n in names}
        for _, rows in d["bases"]:
            for b in rows:
                for n, v in zip(names, b):
                    sizes[n] = max(sizes[n], 1 << v.bit_length())
        if not _brute_surjective(d["bases"], list(sizes.items())):
            continue                                # the wheel aborts on these; see test_linear_hostile
        cases.append({"op": "infer", "bases": d["bases"], "names": names})
    for c, want in zip(cases, _wheel(cases)):
        _same(LL.from_bases([(n, b) for n, b in c["bases"]], c["names"]), want)


def test_from_bases_with_sizes_and_the_surjectivity_flag():
    rng = random.Random(42)
    cases = []
    for _ in range(300):
        d = random_layout(rng)
        surj = _brute_surjective(d["bases"], d["outs"])
        cases.append({"op": "sized", "bases": d["bases"], "names": [n for n, _ in d["outs"]],
                      "sizes": [s for _, s in d["outs"]], "surjective": surj and rng.random() < 0.5})
    for c, want in zip(cases, _wheel(cases)):
        ours = LL.from_bases([(n, b) for n, b in c["bases"]], dict(zip(c["names"], c["sizes"])),
                             require_surjective=c["surjective"])
        _same(ours, want)


def test_properties_matrix_and_text_match_the_wheel():
    rng = random.Random(43)
    specs = [random_layout(rng, max_bits=rng.choice([2, 3, 4])) for _ in range(400)]
    got = _wheel([{"op": "props", "a": d} for d in specs])
    n_surj = 0
    for d, want in zip(specs, got):
        L = _ours(d)
        assert L.is_surjective() == want["surjective"], d
        assert L.is_injective() == want["injective"], d
        assert L.is_invertible() == want["invertible"], d
        assert L.matrix().tolist() == (want["matrix"] if L.total_out_bits else []), d
        assert (L.num_in_dims, L.num_out_dims) == (want["num_in"], want["num_out"])
        assert "\n" + str(L) == want["str"]                 # toString, less its leading newline
        n_surj += want["surjective"]
    assert 40 < n_surj < 360                 # both kinds were drawn


def test_apply_matches_the_wheel_on_random_points():
    rng = random.Random(44)
    cases = []
    for _ in range(300):
        d = random_layout(rng, max_bits=4)
        sizes = {n: 1 << len(rows) for n, rows in d["bases"]}
        points = [{n: rng.randrange(s) for n, s in sizes.items()} for _ in range(8)]
        cases.append({"op": "apply", "a": d, "points": points})
    for c, want in zip(cases, _wheel(cases)):
        L = _ours(c["a"])
        for p, w in zip(c["points"], want):
            assert L.apply(p) == w
        import numpy as np
        arrays = {n: np.array([p[n] for p in c["points"]]) for n in c["points"][0]}
        vec = L.apply(arrays) if arrays else None
        if vec is not None:
            for k, w in enumerate(want):
                assert {n: int(v[k]) for n, v in vec.items()} == w


def test_identity_strided_zeros_match_the_wheel():
    cases = []
    for size in [0, 1, 2, 4, 32, 1024]:
        cases.append({"op": "identity_1d", "size": size})
        for stride in [1, 2, 8]:
            if size:
                cases.append({"op": "strided_1d", "size": size, "stride": stride})
        for out_size in [1, 4]:
            cases.append({"op": "zeros_1d", "size": size, "out_size": out_size})
    for c, want in zip(cases, _wheel(cases)):
        if c["op"] == "identity_1d":
            ours = LL.identity_1d(c["size"], "i", "o")
        elif c["op"] == "strided_1d":
            ours = LL.strided_1d(c["size"], c["stride"], "i", "o")
        else:
            ours = LL.zeros_1d(c["size"], "i", "o", out_size=c["out_size"])
        _same(ours, want)


# ----------------------------------------------------------------- the algebra
def _subsequence(rng, names, p=0.5):
    return [n for n in names if rng.random() < p]


def test_product_matches_the_wheel():
    """``*`` with dims drawn in a consistent global order (the wheel aborts on conflicting ones),
    and out orders where the supremum's tie-break shows (the wheel's order decides)."""
    rng = random.Random(45)
    cases = []
    for k in range(400):
        order_in = IN_NAMES[:] if k % 2 else rng.sample(IN_NAMES, len(IN_NAMES))
        order_out = OUT_NAMES[:] if k % 3 else rng.sample(OUT_NAMES, len(OUT_NAMES))
        specs = []
        for _ in range(2):
            ins = _subsequence(rng, order_in) or [order_in[0]]
            outs = [[n, 1 << rng.randint(0, 2)] for n in _subsequence(rng, order_out, 0.6)]
            specs.append(random_layout(rng, ins=ins, outs=outs, max_bits=2))
        cases.append({"op": "mul", "a": specs[0], "b": specs[1]})
    for c, want in zip(cases, _wheel(cases)):
        _same(_ours(c["a"]) * _ours(c["b"]), want)


def test_product_of_dims_in_conflicting_orders_matches_the_wheel():
    """Shared dims in different orders on the two sides (rank-3 MFMA/WMMA dot operands multiply such
    layouts): the wheel neither aborts nor refuses, and neither do we."""
    rng = random.Random(46)
    cases = []
    for k in range(120):
        outs_a = rng.sample(OUT_NAMES, rng.randint(1, len(OUT_NAMES)))
        outs_b = rng.sample(OUT_NAMES, rng.randint(1, len(OUT_NAMES)))
        ins_a = rng.sample(IN_NAMES, rng.randint(1, len(IN_NAMES)))
        ins_b = rng.sample(IN_NAMES, rng.randint(1, len(IN_NAMES)))
        specs = [random_layout(rng, ins=ins, outs=[[n, 1 << rng.randint(0, 2)] for n in outs], max_bits=2)
                 for ins, outs in ((ins_a, outs_a), (ins_b, outs_b))]
        cases.append({"op": "mul", "a": specs[0], "b": specs[1]})
    for c, want in zip(cases, _wheel(cases)):
        _same(_ours(c["a"]) * _ours(c["b"]), want)


def test_compose_matches_the_wheel():
    rng = random.Random(46)
    cases = []
    for _ in range(300):
        mids = [[n, 1 << rng.randint(0, 3)] for n in _subsequence(rng, OUT_NAMES, 0.7)] or [["dim0", 4]]
        outer = random_layout(rng, ins=[n for n, _ in mids], max_bits=3)
        outer_sizes = {n: 1 << len(rows) for n, rows in outer["bases"]}
        inner_outs = [[n, 1 << rng.randint(0, outer_sizes[n].bit_length() - 1)] for n, _ in mids]
        rng.shuffle(inner_outs)                 # compose matches dims by name, whatever the order
        inner = random_layout(rng, outs=inner_outs, max_bits=3)
        cases.append({"op": "compose", "a": inner, "b": outer})
    for c, want in zip(cases, _wheel(cases)):
        _same(_ours(c["a"]).compose(_ours(c["b"])), want)


def test_invert_and_compose_matches_the_wheel():
    """The smallest preimage, the broadcast in-dims shared by both (identity only when zero in
    both, as the wheel does), out-dims in either order."""
    rng = random.Random(47)
    cases = []
    while len(cases) < 400:
        outs = [[n, 1 << rng.randint(0, 3)] for n in _subsequence(rng, OUT_NAMES, 0.7)] or [["dim0", 8]]
        b_ins = _subsequence(rng, IN_NAMES, 0.6) or ["lane"]
        b_outs = outs[:]
        rng.shuffle(b_outs)
        outer = random_layout(rng, ins=b_ins, outs=b_outs, max_bits=4, surjective=True)
        a_outs = [[n, 1 << rng.randint(0, s.bit_length() - 1)] for n, s in outs]
        a_ins = _subsequence(rng, IN_NAMES, 0.6) or ["register"]
        inner = random_layout(rng, ins=a_ins, outs=a_outs, max_bits=3)
        if rng.random() < 0.3:                       # a shared in-dim that broadcasts in both
            shared = rng.choice(IN_NAMES)
            for spec in (inner, outer):
                width = len(spec["outs"])
                rows = [[0] * width for _ in range(rng.randint(1, 2))]
                spec["bases"] = [p for p in spec["bases"] if p[0] != shared] + [[shared, rows]]
            if not _brute_surjective(outer["bases"], outer["outs"]):
                continue
        in_bits = sum(len(r) for _, r in inner["bases"]) + sum(len(r) for _, r in outer["bases"])
        if in_bits > 60:
            continue
        cases.append({"op": "invert_and_compose", "a": inner, "b": outer})
    # where the C++ source and the wheel part ways: a shared in-dim equal and nonzero in both (the
    # source maps it to itself, the wheel solves for it), zero in both but of other sizes, zero in one
    d = lambda bases, outs: {"bases": bases, "outs": outs}                     # noqa: E731
    cases += [{"op": "invert_and_compose", "a": a, "b": b} for a, b in [
        (d([["lane", [[1], [2]]], ["warp", [[4]]]], [["dim0", 8]]),
         d([["warp", [[4]]], ["lane", [[1], [2]]]], [["dim0", 8]])),
        (d([["register", [[2]]], ["lane", [[1]]]], [["dim0", 4]]),
         d([["lane", [[1]]], ["offset", [[2]]]], [["dim0", 4]])),
        (d([["register", [[1], [2]]], ["block", [[0]]]], [["dim0", 4]]),
         d([["offset", [[2], [1]]], ["block", [[0], [0]]]], [["dim0", 4]])),
        (d([["register", [[1], [2]]], ["block", [[0]]]], [["dim0", 4]]),
         d([["offset", [[2], [1]]], ["block", [[2]]]], [["dim0", 4]])),
        (d([["register", [[1]]], ["block", [[2]]]], [["dim0", 4]]),
         d([["offset", [[2], [1]]], ["block", [[0]]]], [["dim0", 4]])),
    ]]
    for c, want in zip(cases, _wheel(cases)):
        A, B = _ours(c["a"]), _ours(c["b"])
        got = A.invert_and_compose(B)
        _same(got, want)
        # and the defining property, by brute force over a few points
        for _ in range(4):
            p = {n: rng.randrange(s) for n, s in A.in_dims.items()}
            assert B.apply(got.apply(p)) == A.apply(p)


def test_invert_and_pseudoinvert_match_the_wheel():
    rng = random.Random(48)
    cases = []
    while len(cases) < 300:
        outs = [[n, 1 << rng.randint(0, 3)] for n in _subsequence(rng, OUT_NAMES, 0.7)] or [["dim0", 4]]
        total = sum(s.bit_length() - 1 for _, s in outs)
        if rng.random() < 0.5:                            # invertible: as many in bits as out bits
            ins = _subsequence(rng, IN_NAMES, 0.6) or ["offset"]
            d = None
            for _ in range(50):
                cuts = sorted(rng.randint(0, total) for _ in range(len(ins) - 1))
                counts = [b - a for a, b in zip([0] + cuts, cuts + [total])]
                bases = [[n, [[rng.randrange(s) for _, s in outs] for _ in range(k)]] for n, k in zip(ins, counts)]
                if _brute_surjective(bases, outs):
                    d = {"bases": bases, "outs": outs}
                    break
            if d is None:
                continue
            cases.append({"op": "invert", "a": d})
            cases.append({"op": "pseudoinvert", "a": d})
        else:
            d = random_layout(rng, outs=outs, max_bits=4, surjective=True)
            cases.append({"op": "pseudoinvert", "a": d})
    n_inv = 0
    for c, want in zip(cases, _wheel(cases)):
        L = _ours(c["a"])
        got = L.invert() if c["op"] == "invert" else L.pseudoinvert()
        _same(got, want)
        n_inv += c["op"] == "invert"
    assert n_inv > 50


def test_equality_matches_the_wheel():
    rng = random.Random(49)
    cases = []
    for _ in range(300):
        a = random_layout(rng)
        b = json.loads(json.dumps(a))
        kind = rng.randrange(4)
        if kind == 1 and b["outs"]:                          # a larger out size: != for ==
            b["outs"][0][1] *= 2
        elif kind == 2:
            b = random_layout(rng)
        elif kind == 3 and len(b["bases"]) > 1:              # the same bases, in-dims reordered
            b["bases"] = b["bases"][::-1]
        cases.append({"op": "eq", "a": a, "b": b})
    for c, (eq, ne) in zip(cases, _wheel(cases)):
        A, B = _ours(c["a"]), _ours(c["b"])
        assert (A == B, A != B) == (eq, ne), c
        if eq:
            assert hash(A) == hash(B)


def test_larger_layouts_match_the_wheel():
    """Up to 60 input bits and 256-wide out-dims: invert_and_compose, pseudoinvert, the product,
    properties, matrix and text (the cases above are small; bit-packing slips show on wide ones)."""
    rng = random.Random(50)
    cases = []
    while len(cases) < 600:
        outs = [[n, 1 << rng.randint(0, 7)] for n in _subsequence(rng, OUT_NAMES, 0.8)] or [["dim0", 64]]
        b_outs = outs[:]
        rng.shuffle(b_outs)
        outer = random_layout(rng, ins=_subsequence(rng, IN_NAMES, 0.7) or ["lane"], outs=b_outs, max_bits=8,
                              surjective=True)
        a_outs = [[n, 1 << rng.randint(0, s.bit_length() - 1)] for n, s in outs]
        inner = random_layout(rng, ins=_subsequence(rng, IN_NAMES, 0.7) or ["register"], outs=a_outs, max_bits=6)
        if sum(len(r) for _, r in inner["bases"]) + sum(len(r) for _, r in outer["bases"]) > 60:
            continue
        cases += [{"op": "invert_and_compose", "a": inner, "b": outer}, {"op": "pseudoinvert", "a": outer},
                  {"op": "props", "a": inner},
                  {"op": "mul", "a": inner, "b": random_layout(rng, ins=IN_NAMES, max_bits=5)}]
    for c, want in zip(cases, _wheel(cases)):
        A = _ours(c["a"])
        if c["op"] == "invert_and_compose":
            _same(A.invert_and_compose(_ours(c["b"])), want)
        elif c["op"] == "pseudoinvert":
            _same(A.pseudoinvert(), want)
        elif c["op"] == "mul":
            _same(A * _ours(c["b"]), want)
        else:
            assert (A.is_surjective(), A.is_injective()) == (want["surjective"], want["injective"])
            assert A.matrix().tolist() == (want["matrix"] if A.total_out_bits else [])
            assert "\n" + str(A) == want["str"]


def test_degenerate_layouts_match_the_wheel():
    """No dims, dims of size 1, no out-dims, all-zero bases: every bound operation on them."""
    def d(bases, outs):
        return {"bases": bases, "outs": outs}
    none = d([], [])
    cases = [
        {"op": "mul", "a": none, "b": none}, {"op": "mul", "a": d([["a", []]], []), "b": d([], [["x", 4]])},
        {"op": "props", "a": d([["a", []]], [])}, {"op": "props", "a": d([], [["x", 1]])},
        {"op": "props", "a": d([["a", [[], []]]], [])}, {"op": "invert", "a": none},
        {"op": "pseudoinvert", "a": none}, {"op": "pseudoinvert", "a": d([["a", [[]]]], [])},
        {"op": "invert", "a": d([["a", []]], [["x", 1]])},
        {"op": "invert_and_compose", "a": none, "b": none},
        {"op": "invert_and_compose", "a": d([["a", [[], []]]], []), "b": d([["b", [[]]]], [])},
        {"op": "invert_and_compose", "a": d([["a", [[0], [0]]]], [["x", 1]]), "b": d([["b", [[0]]]], [["x", 1]])},
        {"op": "invert_and_compose", "a": d([["a", [[0], [0]]]], [["x", 1]]), "b": d([["a", [[0]]]], [["x", 1]])},
        {"op": "invert_and_compose", "a": d([["a", [[1], [0]]]], [["x", 2]]),
         "b": d([["a", [[1]]], ["b", [[0]]]], [["x", 2]])},
        {"op": "invert_and_compose", "a": d([["a", [[1]]], ["b", []]], [["x", 2]]),
         "b": d([["b", []], ["a", [[1]]]], [["x", 2]])},
        {"op": "invert_and_compose", "a": d([], [["x", 2]]), "b": d([["a", [[1]]]], [["x", 2]])},
        {"op": "invert_and_compose", "a": d([["a", [[0]]]], [["x", 2]]), "b": d([["a", [[1]]]], [["x", 2]])},
        {"op": "compose", "a": none, "b": none}, {"op": "compose", "a": d([["a", [[]]]], []), "b": d([], [["y", 2]])},
        {"op": "compose", "a": d([["a", [[1]]]], [["m", 2]]), "b": d([["m", [[]]]], [])},
        {"op": "eq", "a": none, "b": d([], [["x", 1]])}, {"op": "eq", "a": d([["a", []]], []), "b": none},
    ]
    for c, want in zip(cases, _wheel(cases)):
        A, op = _ours(c["a"]), c["op"]
        if op == "props":
            assert (A.is_surjective(), A.is_injective(), A.is_invertible()) == \
                (want["surjective"], want["injective"], want["invertible"])
            assert A.matrix().tolist() == (want["matrix"] if A.total_out_bits else [])
            assert "\n" + str(A) == want["str"]
        elif op == "eq":
            B = _ours(c["b"])
            assert [A == B, A != B] == want
        else:
            B = _ours(c["b"]) if "b" in c else None
            got = {"mul": lambda: A * B, "invert": A.invert, "pseudoinvert": A.pseudoinvert,
                   "invert_and_compose": lambda: A.invert_and_compose(B), "compose": lambda: A.compose(B)}[op]()
            _same(got, want)
