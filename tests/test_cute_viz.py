"""Pictures and text of CuTe layouts: draw_cute's cells, colours and labels, SVG size, print_layout, explain."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.collections import PolyCollection  # noqa: E402

from layouts import LayoutError, LayoutTypeError, cute, viz  # noqa: E402
from layouts.cute import Layout, Swizzle, composition  # noqa: E402
from layouts.cute.atoms import SM80_16x8x16_C, tv_coords  # noqa: E402


def _cells(ax):
    (cells,) = [c for c in ax.collections if isinstance(c, PolyCollection)]
    return cells


def _labels(ax):
    return [t.get_text() for t in ax.texts]


def test_grid_cells_are_the_offsets():
    L = Layout((4, (2, 3)), (6, (1, 2)))
    fig = viz.draw_cute(L)
    (ax,) = fig.axes
    cells = _cells(ax)
    assert len(cells.get_paths()) == 24
    labels = _labels(ax)
    # row-major over the 4 x 6 grid: cell (r, c) shows L(r, c)
    expected = [str(L(r, c)) for r in range(4) for c in range(6)]
    assert labels[:24] == expected
    assert ax.get_title(loc="left") == str(L)


def test_swizzle_before_after_removes_bank_conflicts():
    base = Layout((8, 8), (8, 1))  # 8 rows of 8 16-byte vectors: a 128-byte row per row
    fig = viz.draw_cute(base, Swizzle(3, 0, 3), elem_bytes=16)
    before, after = fig.axes[:2]
    for ax, layout, conflict in ((before, base, True), (after, composition(Swizzle(3, 0, 3), base), False)):
        faces = _cells(ax).get_facecolors().reshape(8, 8, 4)
        banks = (np.array([[layout(r, c) for c in range(8)] for r in range(8)]) * 16 // 4) % 32
        for c in range(8):
            distinct_colours = len({tuple(f) for f in faces[:, c]})
            assert distinct_colours == len(set(banks[:, c].tolist()))
            assert (distinct_colours == 1) == conflict
    svg = viz.to_svg(fig)
    assert len(svg.encode()) <= 150_000


def test_tv_layout_of_the_sm80_c_fragment():
    t, v = tv_coords(SM80_16x8x16_C, 16, 8)
    # PTX m16n8k16 accumulators: thread t holds rows t//4 and t//4 + 8, columns 2*(t%4) and 2*(t%4) + 1
    for thread in range(32):
        rows, cols = np.nonzero(t == thread)
        assert sorted(set(rows.tolist())) == [thread // 4, thread // 4 + 8]
        assert sorted(set(cols.tolist())) == [2 * (thread % 4), 2 * (thread % 4) + 1]
    assert v[0, 0] == 0 and v[0, 1] == 1 and v[8, 0] == 2 and v[8, 1] == 3
    fig = viz.draw_cute(SM80_16x8x16_C, tv_tile=(16, 8))
    labels = _labels(fig.axes[0])
    assert labels[0] == "T0\nV0" and labels[1] == "T0\nV1" and labels[8 * 8] == "T0\nV2"
    with pytest.raises(LayoutError, match="exactly once"):
        tv_coords(SM80_16x8x16_C, 8, 8)


def test_higher_rank_draws_strips():
    L = Layout((2, 3, 4), (1, 8, 2))
    fig = viz.draw_cute(L)
    logical, memory = fig.axes
    assert _labels(logical)[:24] == [str(o) for o in L.offsets()]
    owner = {o: i for i, o in enumerate(L.offsets())}
    assert _labels(memory)[:24] == [str(owner[k]) if k in owner else "" for k in range(24)]


def test_draw_errors():
    with pytest.raises(LayoutTypeError):
        viz.draw_cute("NCHW")
    with pytest.raises(LayoutError, match="MAX_CELLS"):
        viz.draw_cute(Layout((256, 256)))
    with pytest.raises(LayoutError, match="color"):
        viz.draw_cute(Layout(4), color="nope")


def test_jupyter_display():
    bundle = Layout((4, 4), (4, 1))._repr_mimebundle_()
    assert bundle["text/plain"].startswith("cute.Layout (4,4):(4,1)")
    assert bundle["image/svg+xml"].lstrip().startswith("<?xml")
    sw = composition(Swizzle(2, 0, 2), Layout((4, 4), (4, 1)))._repr_mimebundle_()
    assert "image/svg+xml" in sw


def test_print_layout_like_cute(capsys):
    cute.print_layout(Layout((2, 3), (3, 1)))
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "(2,3):(3,1)"
    assert out[2] == "    +---+---+---+"
    assert out[3] == " 0  | 0 | 1 | 2 |"
    assert out[5] == " 1  | 3 | 4 | 5 |"
    with pytest.raises(LayoutError, match="rank"):
        cute.print_layout(Layout((2, 2, 2)))


def test_explain_and_formula():
    L = Layout((4, (2, 3)), (2, (1, 8)))
    assert cute.formula(L) == "i0*2 + i1_0 + i1_1*8"
    text = cute.explain(L)
    assert "size 24, cosize 24" in text and "offset(i0,(i1_0,i1_1)) = i0*2 + i1_0 + i1_1*8" in text
    # the formula evaluates to the layout at every coordinate
    for i in range(cute.size(L)):
        c = cute.idx2crd(i, L.shape)
        env = {"i0": c[0], "i1_0": c[1][0], "i1_1": c[1][1]}
        assert eval(cute.formula(L), {}, env) == L(i)  # noqa: S307 - our own formula
    S = composition(Swizzle(3, 3, 3), Layout((8, 64), (64, 1)))
    assert cute.formula(S) == "x ^ ((x >> 3) & 0b111000) with x = i0*64 + i1"
