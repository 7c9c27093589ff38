"""The front end (layouts.request): one resolution of both layouts and one wording of errors for
every conversion entry; the in-place strategies and their explanation."""

from __future__ import annotations

import numpy as np
import pytest

import layouts as ly
from layouts import Layout
from layouts.inplace.methods import STRATEGIES, Transposition, choose_with_reasons
from layouts.inplace.explain import explain_inplace


def test_resolve_equals_what_each_entry_produces(tmp_path):
    x = np.arange(2 * 32 * 3 * 3, dtype=np.float32).reshape(2, 32, 3, 3)
    r = ly.resolve("NCHW", "NCHW16c", x.shape, x.dtype)
    assert r.src == Layout("NCHW", N=2, C=32, H=3, W=3) and r.dst == Layout("NCHW16c", N=2, C=32, H=3, W=3)
    assert ly.convert(x, "NCHW", "NCHW16c").shape == r.dst.shape
    assert ly.convert_inplace(x.copy(), "NCHW", "NCHW16c").shape == r.dst.shape
    np.save(tmp_path / "x.npy", x)
    ly.convert_file(tmp_path / "x.npy", "NCHW", tmp_path / "y.npy", "NCHW16c", progress=False)
    assert np.load(tmp_path / "y.npy").shape == r.dst.shape
    assert r.packed_refusal() is None


def test_named_block_defaults_follow_the_dtype():
    assert ly.resolve("NCHW", "NC1HWC0", (1, 64, 2, 2), np.uint8).dst.shape[-1] == 32
    assert ly.resolve("NCHW", "NC1HWC0", (1, 64, 2, 2), np.float16).dst.shape[-1] == 16
    assert ly.resolve("NCHW", "NC1HWC0", (1, 64, 2, 2), np.float16, C0=8).dst.shape[-1] == 8


ENTRIES = {
    "convert": lambda src, dst, x, d: ly.convert(x, src, dst),
    "convert_inplace": lambda src, dst, x, d: ly.convert_inplace(x, src, dst),
    "convert_file": lambda src, dst, x, d: ly.convert_file(d / "x.npy", src, d / "y.npy", dst),
    "convert_file_inplace": lambda src, dst, x, d: ly.convert_file(d / "x.npy", src, d / "x.npy", dst, inplace=True),
    "explain_conversion": lambda src, dst, x, d: __import__("layouts.conversion.explain").conversion.explain.explain_conversion(
        x.shape, x.dtype, src, dst),
}


@pytest.mark.parametrize("entry", sorted(ENTRIES))
@pytest.mark.parametrize("src, dst, kind, word", [
    (3, "NHWC", ly.LayoutTypeError, "src must be a spec string"),
    ("NCHW", None, ly.LayoutTypeError, "dst must be a spec string"),
    ("NCHW", "NCHA", ly.LayoutError, "source axes NCHW and destination axes NCHA differ"),
    ("NCHW", "NHWCC", ly.LayoutError, "NHWCC"),
])
def test_every_entry_resolves_and_words_errors_alike(tmp_path, entry, src, dst, kind, word):
    x = np.zeros((1, 4, 2, 2), np.float32)
    np.save(tmp_path / "x.npy", x)
    with pytest.raises(kind) as info:
        ENTRIES[entry](src, dst, x, tmp_path)
    text = str(info.value)
    assert word in text and isinstance(info.value, ly.LayoutError)
    if entry.startswith("convert"):  # every entry names itself and both layouts the same way
        name = "convert_file" if entry.startswith("convert_file") else entry
        assert text.startswith(f"{name}({ly.request.layout_name(src)} -> {ly.request.layout_name(dst)}")


def test_padding_warning_is_the_same_for_every_entry():
    x = np.zeros((1, 2, 2, 2, 8), np.float32)
    x[:, 0] = 1                                             # C=16 read from the shape, c=8..15 zeros
    r = ly.resolve("NCHW8c", "NCHW", x.shape, x.dtype)
    reason = r.padding_warning(x)
    assert reason and "C=<true size>" in reason
    with pytest.warns(ly.LayoutWarning) as w:
        ly.convert(x, "NCHW8c", "NCHW")
    assert str(w[0].message).endswith(reason)


@pytest.mark.parametrize("shape", [(), (7,), (1, 5), (6, 1), (9, 4, 3), (2, 3, 4, 5), (33, 2), (0, 3)])
def test_the_padding_scan_stops_early_but_answers_as_any_does(shape):
    from layouts.request import holds_nonzero
    rng = np.random.default_rng(len(shape))
    size = int(np.prod(shape))
    cases = [np.zeros(shape, np.float32), np.full(shape, np.nan, np.float32)]
    for k in range(min(size, 40)):          # one nonzero at each of many places, in strided views too
        v = np.zeros(size, np.int16)
        v[rng.integers(size) if k else size - 1] = -3
        cases += [v.reshape(shape), np.ascontiguousarray(v.reshape(shape).T).T]
    big = np.zeros((2,) + shape + (3,), np.uint8)
    if size:
        big[(1,) + tuple(n - 1 for n in shape) + (2,)] = 1
    cases += [big[1, ..., 2], big[0, ..., 2]]
    for v in cases:
        assert holds_nonzero(v) == bool(v.any()), (v.shape, v.strides)


def test_a_blocked_source_of_real_data_is_not_scanned_whole():
    x = np.ones((64, 2, 8, 8, 16), np.float32)
    r = ly.resolve("NCHW16c", "NCHW", x.shape, x.dtype)
    reads = []

    class Counted(np.ndarray):                              # how much of the last slot any() reads
        def any(self, *a, **k):
            reads.append(self.size)
            return np.ndarray.any(np.asarray(self), *a, **k)

    assert r.padding_warning(x.view(Counted)) is None
    assert sum(reads) <= 8                                 # one run of W, not the 64*8*8 of the slot
    x[..., -1, :, :, 15] = 0
    reads.clear()
    assert "C=<true size>" in r.padding_warning(x.view(Counted))
    assert sum(reads) >= 64 * 8 * 8                        # padding: every element read


# ------------------------------------------------------------------------- in-place strategies
@pytest.mark.parametrize("B, M, N, e, budget", [
    (128, 64, 3136, 4, 1 << 20), (1, 64, 64, 4, 4096), (1, 8, 64, 1024, 65536), (1, 32, 9216, 1, 65536),
    (1, 3, 100003, 4, 65536), (4, 7, 7, 2, 32)])
def test_the_first_accepting_strategy_runs_and_the_others_say_why(B, M, N, e, budget):
    choice, declined = choose_with_reasons(Transposition(B, M, N, e, budget, 1))
    names = [s.name for s in STRATEGIES]
    assert [n for n, _ in declined] == names[:names.index(choice.method)]
    assert all(why for _, why in declined)
    # the ops move exactly a transposition: checked on bytes against numpy
    from layouts.inplace.run import Segment, run_ranges
    rng = np.random.default_rng(0)
    a = rng.integers(0, 255, B * M * N * e, dtype=np.uint8)
    want = a.reshape(B, M, N, e).transpose(0, 2, 1, 3).reshape(-1).copy()
    scratch = np.empty(max([op.workers * op.need for op in choice.ops] + [0]), np.uint8)
    for op in choice.ops:
        run_ranges(a, Segment(op, 0, op.B), 0, op.B, scratch)
    assert a.tobytes() == want.tobytes()


def test_explain_inplace_names_each_pass_of_the_plan():
    from layouts.inplace import plan_inplace
    shape = (8, 16, 16, 64)
    plan = plan_inplace("NHWC", "CHWN", shape, "float32", threads=1)
    text = explain_inplace(shape, "float32", "NHWC", "CHWN", threads=1)
    assert text.count("\npass ") == len(plan.passes)
    for p in plan.passes:
        if p.perm == (1, 0, 2):
            assert f"  {p.method}: " in text


def test_a_pinned_profile_changes_the_in_place_plan():
    from layouts.inplace import plan_inplace
    from layouts.kernels.machine.profile import current, use_profile
    shape, dt = (1, 3, 2, 1001), "float32"
    default = [p.method for p in plan_inplace("NCHW", "NHWC", shape, dt, threads=1).passes]
    with use_profile(current().replace(inplace_min_budget=256)):
        tiny = [p.method for p in plan_inplace("NCHW", "NHWC", shape, dt, threads=1).passes]
    assert default == ["scratch"] and tiny != default
