"""``layouts.viz.draw_linear`` and a LinearLayout's Jupyter display (issue 41).

The pictures are read back from the figure (the cell collection's colours, the cell texts, the
warp lines, the key strip) and checked against brute force over the layout's inputs
(``LinearLayout.apply`` for every register, lane, warp and block; for shared layouts every
offset), against layouts.cute for the CuTe bridge, and for legibility: a 9-inch (900 px) figure
whose every text is at least 7 pt, an SVG of the 32 x 32 MMA tile under 150 KB.
"""

import numpy as np
import pytest

from layouts import cute, linear, viz
from layouts.errors import LayoutError, LayoutTypeError
from layouts.linear import LinearLayout as LL
from layouts.viz import draw_linear
from layouts.viz.limits import MAX_SVG_BYTES
from layouts.viz.linear import mimebundle

# Triton's LinearLayoutConversionsTest.cpp: MMAv2_32x32 (mma v2, instrShape [16, 8], warps [1, 1])
MMA_32x32 = LL.from_bases({"register": [[0, 1], [8, 0], [0, 8], [0, 16], [16, 0]],
                           "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "warp": [], "block": []},
                          ["dim0", "dim1"])
# a blocked layout: 2 registers x 32 lanes (4 x 8) x 4 warps along dim0, on 32 x 8
BLOCKED = LL.from_bases({"register": [[0, 1]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
                         "warp": [[8, 0], [16, 0]]}, ["dim0", "dim1"])
# SwizzledSharedLayout(1, 1, 8, [1, 0]) on 8 x 8 (the reference note, section 4)
SWIZZLED = LL.from_bases({"offset": [[0, 1], [0, 2], [0, 4], [1, 1], [2, 2], [4, 4]], "block": []}, ["dim0", "dim1"])


def axes(fig, label):
    found = [ax for ax in fig.axes if ax.get_label() == label]
    assert len(found) == 1, [ax.get_label() for ax in fig.axes]
    return found[0]


def cell_faces(ax) -> np.ndarray:
    (cells,) = [c for c in ax.collections if c.get_gid() == "cells"]
    return np.round(cells.get_facecolors(), 6)


def cell_texts(ax, rows, cols) -> dict:
    """(row, col) -> text of every cell label (the indices outside the grid are annotations, placed in points)."""
    from matplotlib.text import Annotation
    out = {}
    for t in ax.texts:
        if isinstance(t, Annotation):
            continue
        x, y = t.get_position()
        if 0 < x < cols and 0 < y < rows:
            key = (int(y), int(x))
            assert key not in out
            out[key] = t.get_text()
    return out


def first_holders(L, rows, cols):
    """(row, col) -> (block, warp, lane, register) of the first holder in Triton's order, by brute force."""
    sizes = {d: L.in_dims.get(d, 1) for d in ("register", "lane", "warp", "block")}
    first = {}
    for b in range(sizes["block"]):
        for w in range(sizes["warp"]):
            for ln in range(sizes["lane"]):
                for r in range(sizes["register"]):
                    got = L.apply({d: v for d, v in zip(("register", "lane", "warp", "block"), (r, ln, w, b))
                                   if d in L.in_dims})
                    idx = 0
                    for d, s in L.out_dims.items():
                        idx = idx * s + got[d]
                    first.setdefault(divmod(idx, cols), (b, w, ln, r))
    return first


@pytest.mark.parametrize("L, rows, cols", [(MMA_32x32, 32, 32), (BLOCKED, 32, 8)])
def test_cells_show_lane_colour_and_register(L, rows, cols):
    fig = draw_linear(L)
    ax = axes(fig, "tensor")
    faces = cell_faces(ax)
    texts = cell_texts(ax, rows, cols)
    holders = first_holders(L, rows, cols)
    assert len(holders) == rows * cols == len(faces) == len(texts)
    lanes = L.in_dim_size("lane")
    key = np.round(axes(fig, "colour key").collections[0].get_facecolors(), 6)
    assert len(key) == lanes and len({tuple(c) for c in key}) == lanes       # one colour per lane
    for (r, c), (_, _, lane, reg) in holders.items():
        assert texts[(r, c)] == str(reg)
        assert tuple(faces[r * cols + c]) == tuple(key[lane])


def test_warp_lines_are_where_the_warp_changes():
    fig = draw_linear(BLOCKED)
    ax = axes(fig, "tensor")
    (lines,) = [c for c in ax.collections if c.get_gid() == "warp boundaries"]
    got = {tuple(map(tuple, np.round(seg, 6))) for seg in lines.get_segments()}
    warp = {rc: w for rc, (_, w, _, _) in first_holders(BLOCKED, 32, 8).items()}
    want = set()
    for (r, c), w in warp.items():
        if c + 1 < 8 and warp[(r, c + 1)] != w:
            want.add(((c + 1.0, float(r)), (c + 1.0, r + 1.0)))
        if r + 1 < 32 and warp[(r + 1, c)] != w:
            want.add(((float(c), r + 1.0), (c + 1.0, r + 1.0)))
    assert got == want and len(want) == 3 * 8            # four warps stacked down: three lines across


def test_shared_cells_show_each_elements_offset_and_bank():
    fig = draw_linear(SWIZZLED, elem_bytes=16)
    ax = axes(fig, "tensor")
    texts = cell_texts(ax, 8, 8)
    faces = cell_faces(ax)
    key = np.round(axes(fig, "colour key").collections[0].get_facecolors(), 6)
    for offset in range(64):
        got = SWIZZLED.apply({"offset": offset})
        r, c = got["dim0"], got["dim1"]
        assert texts[(r, c)] == str(offset)
        bank = offset * 16 // 4 % 32
        assert tuple(faces[r * 8 + c]) == tuple(key[bank])


def test_cute_swizzle_is_drawn_as_the_inverse_of_tritons():
    sw = cute.composition(cute.Swizzle(3, 0, 3), cute.Layout((8, 8), (8, 1)))
    fig = draw_linear(linear.from_cute(sw))
    texts = cell_texts(axes(fig, "tensor"), 8, 8)
    assert texts == {(r, c): str(sw(r, c)) for r in range(8) for c in range(8)}
    # the same numbers as Triton's SwizzledSharedLayout(1, 1, 8, [1, 0]): one is the other's inverse
    assert texts == cell_texts(axes(draw_linear(SWIZZLED), "tensor"), 8, 8)


def test_bit_matrix_beside_the_grid():
    fig = draw_linear(MMA_32x32)
    ax = axes(fig, "bit matrix")
    (bits,) = [c for c in ax.collections if c.get_gid() == "bits"]
    dark = (bits.get_facecolors()[:, 0] < 0.5).reshape(10, 10)
    in_bits = [(d, i) for d in ("register", "lane") for i in range(5)]
    for o, (od, oi) in enumerate([(d, i) for d in ("dim0", "dim1") for i in range(5)]):
        for k, (idim, ii) in enumerate(in_bits):
            assert dark[o, k] == bool(MMA_32x32.apply({idim: 1 << ii})[od] >> oi & 1)
    assert axes(fig, "tensor").get_position().x1 < ax.get_position().x0        # beside, to the right
    assert not any(a.get_label() == "bit matrix" for a in draw_linear(MMA_32x32, matrix=False).axes)


def test_legible_at_900_px_and_small_svg():
    fig = draw_linear(MMA_32x32)
    assert tuple(fig.get_size_inches())[0] == pytest.approx(9.0)
    texts = [t for ax in fig.axes for t in ax.texts] + list(fig.texts) + [ax.title for ax in fig.axes]
    sizes = [t.get_fontsize() for t in texts if t.get_text()]
    assert len(sizes) > 1024 and min(sizes) >= 7.0
    assert len(cell_texts(axes(fig, "tensor"), 32, 32)) == 1024          # every register number shown
    from matplotlib.text import Annotation
    indices = [t.get_text() for t in axes(fig, "tensor").texts if isinstance(t, Annotation)]
    assert {"dim0 \u2193", "dim1 \u2192", "0", "16", "30"} <= set(indices)
    svg = viz.to_svg(fig)
    assert len(svg.encode("utf-8")) <= MAX_SVG_BYTES
    png = viz.to_png(fig, dpi=100)
    assert int.from_bytes(png[16:20], "big") == 900                    # the PNG's width


def test_broadcast_and_unheld_elements_are_marked():
    # lane bit 2 is zero (lanes 0 and 4 share), dim0 is twice what the inputs reach
    L = LL.from_bases({"register": [[1, 0]], "lane": [[0, 1], [0, 2], [0, 0]]}, {"dim0": 4, "dim1": 4},
                      require_surjective=False)
    fig = draw_linear(L)
    ax = axes(fig, "tensor")
    gids = {c.get_gid() for c in ax.collections}
    assert "unheld" in gids
    texts = cell_texts(ax, 4, 4)
    assert all((r, c) not in texts for r in (2, 3) for c in range(4))      # nobody holds rows 2, 3
    notes = " ".join(t.get_text() for t in fig.texts)
    assert "8 elements no thread holds" in notes and "held by 2" in notes


def test_ax_draws_the_grid_into_it():
    from matplotlib.figure import Figure
    fig = Figure(figsize=(4, 4))
    ax = fig.add_subplot()
    assert draw_linear(BLOCKED, ax=ax) is fig
    assert len(cell_texts(ax, 32, 8)) in (0, 256) and len(cell_faces(ax)) == 256


def test_labels_and_colours_can_be_chosen():
    fig = draw_linear(BLOCKED, color="warp", label="thread")
    ax = axes(fig, "tensor")
    holders = first_holders(BLOCKED, 32, 8)
    texts = cell_texts(ax, 32, 8)
    faces = cell_faces(ax)
    for (r, c), (_, w, ln, _) in holders.items():
        assert texts[(r, c)] == f"T{w * 32 + ln}"
    by_warp = {}
    for (r, c), (_, w, _, _) in holders.items():
        by_warp.setdefault(w, set()).add(tuple(faces[r * 8 + c]))
    assert all(len(v) == 1 for v in by_warp.values()) and len(set().union(*by_warp.values())) == 4


# --------------------------------------------------------------------- Jupyter
def test_mimebundle_shows_explain_and_svg():
    data = MMA_32x32._repr_mimebundle_()
    assert data["text/plain"] == MMA_32x32.explain()
    assert data["image/svg+xml"].lstrip().startswith("<?xml") and len(data["image/svg+xml"]) <= MAX_SVG_BYTES
    png = mimebundle(MMA_32x32, exclude={"image/svg+xml"})
    assert set(png) == {"text/plain", "image/png"}
    assert set(mimebundle(MMA_32x32, include={"text/plain"})) == {"text/plain"}


def test_mimebundle_of_an_undrawable_layout_is_text():
    L = LL.from_bases({"in": [[1]]}, ["out"])
    assert set(mimebundle(L)) == {"text/plain"}


# --------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs, error, match", [
    (dict(layout="MMA"), LayoutTypeError, "LinearLayout"),
    (dict(color="rainbow"), LayoutError, "color must be one of"),
    (dict(color="bank"), LayoutError, "memory layouts"),
    (dict(label="offset"), LayoutError, "memory layouts"),
    (dict(label=3), LayoutTypeError, "label"),
    (dict(matrix="yes"), LayoutTypeError, "matrix"),
    (dict(ax="axes"), LayoutTypeError, "ax must be"),
    (dict(layout=SWIZZLED, color="lane"), LayoutError, "distributed layouts"),
    (dict(layout=SWIZZLED, elem_bytes=0), LayoutError, "elem_bytes"),
    (dict(layout=LL.from_bases({"x": [[1]]}, ["dim0"])), LayoutError, r"in-dims \['x'\]"),
    (dict(layout=LL.identity_1d(1 << 16, "register", "dim0")), LayoutError, "MAX_CELLS"),
    (dict(layout=LL.zeros_1d(1 << 21, "register", "dim0")), LayoutError, "hardware inputs"),
    (dict(layout=LL.empty()), LayoutError, "no out-dims"),
    (dict(layout=LL.from_bases({"offset": [[1], [1]]}, {"dim0": 4}, require_surjective=False)), LayoutError,
     "injective"),
])
def test_bad_input_is_refused(kwargs, error, match):
    layout = kwargs.pop("layout", BLOCKED)
    with pytest.raises(error, match=match):
        draw_linear(layout, **kwargs)


def test_mimebundle_of_a_large_tile_is_a_png():
    big = LL.from_bases({"register": [[0, 1], [0, 2], [16, 0], [32, 0]], "lane": [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]],
                         "warp": [[2, 0], [4, 0], [8, 0]]}, ["dim0", "dim1"])           # 64 x 64
    data = mimebundle(big)
    assert set(data) == {"text/plain", "image/png"}
    import base64
    assert base64.b64decode(data["image/png"])[:8] == b"\x89PNG\r\n\x1a\n"
