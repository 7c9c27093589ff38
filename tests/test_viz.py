"""The pictures say what the Layout says: labels, colours and padding are read back from the artists."""

from __future__ import annotations

import base64
import re
import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")

import layouts as ly  # noqa: E402
from layouts import viz  # noqa: E402
from layouts.viz import rich  # noqa: E402

from hostile import run_bounded  # noqa: E402

ARTICLE = dict(N=2, C=16, H=5, W=4)


# ---------------------------------------------------------------- reading a figure back
def texts_of(ax):
    """Every text of a panel: its Text artists, then one view per cell label (cell labels are drawn
    by one CellLabels artist per panel, not one Text each)."""
    from layouts.viz._cells import cell_labels
    return list(ax.texts) + [v for labels in cell_labels(ax) for v in labels.views()]


def titled(fig, gid="title"):
    """{title text: axes} for every panel of ``fig``."""
    out = {}
    for ax in fig.axes:
        for t in texts_of(ax):
            if t.get_gid() == gid:
                out[t.get_text()] = ax
    return out


def strip_axes(fig, spec):
    """The memory strip of the layout with this spec (each panel's Axes is labelled with its layout)."""
    hits = [ax for ax in fig.axes if ax.get_label().lower().startswith(f"memory: layout('{spec.lower()}'")]
    assert len(hits) == 1, (spec, [ax.get_label() for ax in fig.axes])
    return hits[0]


def labels_by_slot(ax):
    """Cell labels of a memory strip, keyed by the slot their position says they sit in."""
    wrap = int(round(ax.get_xlim()[1]))
    out = {}
    for t in texts_of(ax):
        if t.get_gid() == "cell-label":
            x, y = t.get_position()
            slot = int(np.floor(y)) * wrap + int(np.floor(x))
            assert slot not in out, f"two labels in slot {slot}"
            out[slot] = t.get_text()
    return out


def cell_slots(collection, wrap):
    """Slot of each square of a PolyCollection, from its vertices."""
    corners = np.array([p.vertices[:4].min(axis=0) for p in collection.get_paths()])
    return (np.round(corners[:, 1]).astype(int) * wrap + np.round(corners[:, 0]).astype(int))


def collection(ax, gid):
    found = [c for c in ax.collections if c.get_gid() == gid]
    return found[0] if found else None


def expected_labels(layout):
    order = layout.physical_order()
    width = len(str(layout.count - 1))
    return {k: f"{v:0{width}d}" for k, v in enumerate(order.tolist()) if v >= 0}


# ---------------------------------------------------------------- the article figure
@pytest.fixture(scope="module")
def article():
    return viz.draw_article_figure()


@pytest.mark.parametrize("spec", ["NCHW", "NHWC", "CHWN"])
def test_article_strip_labels_are_the_physical_order(article, spec):
    ax = strip_axes(article, spec)
    got = labels_by_slot(ax)
    assert got == expected_labels(ly.Layout(spec, **ARTICLE))


def test_article_sequences_match_the_text():
    # the article spells these orders out (its CHWN "032" is a typo for 320)
    first = {s: ly.Layout(s, **ARTICLE).physical_order()[:6].tolist() for s in ("NCHW", "NHWC", "CHWN")}
    assert first["NCHW"] == [0, 1, 2, 3, 4, 5]
    assert first["NHWC"] == [0, 20, 40, 60, 80, 100]
    assert first["CHWN"] == [0, 320, 1, 321, 2, 322]


def test_article_stride_tags(article):
    for spec, letter in (("NCHW", "a"), ("NHWC", "b"), ("CHWN", "c")):
        ax = strip_axes(article, spec)
        tags = sorted(t.get_text() for t in texts_of(ax) if t.get_gid() == "level-tag")
        assert tags == [f"[{letter}:{k}]" for k in range(4)]
    nchw = strip_axes(article, "NCHW")
    key = [t.get_text() for t in texts_of(nchw) if t.get_gid() == "key"][0]
    assert "[a:1] h+1 (stride 4)" in key and "[a:3] n+1 (stride 320)" in key


def test_article_level_separators_sit_at_stride_jumps(article):
    ax = strip_axes(article, "NCHW")
    wrap = int(round(ax.get_xlim()[1]))
    # [a:2] (c steps) every 20 slots: vertical lines mid-row at x=20, row starts are drawn as horizontal lines
    segs = collection(ax, "level-2").get_segments()
    slots = sorted(int(round(s[0][1])) * wrap + (int(round(s[0][0])) if s[0][0] == s[1][0] else 0) for s in segs)
    expected = [k for k in range(20, 640, 20) if k % 320]
    assert slots == expected


def test_logical_panel_holds_every_number_once_in_row_major_planes(article):
    ax = [a for a in article.axes if a.get_label().startswith("logical: ")][0]
    texts = [t for t in texts_of(ax) if t.get_gid() == "cell-label"]
    assert sorted(t.get_text() for t in texts) == [f"{i:03d}" for i in range(640)]
    by_text = {t.get_text(): t.get_position() for t in texts}
    # within a plane, w runs right and h runs down; 341 = (n=1, c=1, h=0, w=1)
    x0, y0 = by_text["340"]
    assert by_text["341"] == (x0 + 1, y0)
    assert by_text["344"] == (x0, y0 + 1)
    arrows = sorted(t.get_text() for t in texts_of(ax) if t.get_gid() == "arrow-label")
    assert arrows == ["c", "h", "n", "w"]


def test_shared_colouring_separates_channels(article):
    """One colour per channel, the same in every panel, and different channels look different."""
    seen = {}
    for spec in ("NCHW", "NHWC", "CHWN"):
        L = ly.Layout(spec, **ARTICLE)
        ax = strip_axes(article, spec)
        cells = collection(ax, "cells")
        slots = cell_slots(cells, int(round(ax.get_xlim()[1])))
        c = L.index(slots).c
        for ch, face in zip(c.tolist(), map(tuple, np.round(cells.get_facecolors(), 4))):
            assert seen.setdefault(ch, face) == face
    faces = np.array([seen[c] for c in range(16)])[:, :3]
    gaps = np.linalg.norm(faces[:, None] - faces[None], axis=-1) + np.eye(16)
    assert gaps.min() > 0.1


# ---------------------------------------------------------------- padding, blocks, pitch
@pytest.mark.parametrize("layout", [
    ly.Layout("nChw8c", N=1, C=17, H=3, W=4),
    ly.Layout("NHWC", N=1, C=3, H=5, W=4, align={"H": 16}),
    ly.Layout("NC1HWC0", N=1, C=5, H=2, W=2, C0=4),
])
def test_padding_slots_are_hatched_and_unlabelled(layout):
    fig = viz.draw_layout(layout)
    ax = strip_axes(fig, layout.spec)
    wrap = int(round(ax.get_xlim()[1]))
    pad = collection(ax, "padding")
    assert pad is not None and pad.get_hatch()
    expected_pad = np.flatnonzero(layout.index(np.arange(layout.size), padding="mark").padding)
    assert sorted(cell_slots(pad, wrap).tolist()) == expected_pad.tolist()
    assert labels_by_slot(ax) == expected_labels(layout)
    key = [t.get_text() for t in texts_of(ax) if t.get_gid() == "key"][0]
    assert f"hatched: {expected_pad.size} padding slots" in key


def test_edgeboard_rows_are_padded_to_16():
    L = ly.Layout("NHWC", N=1, C=3, H=5, W=4, align={"H": 16})
    assert viz.default_wrap(L) == 16
    ax = strip_axes(viz.draw_layout(L), "NHWC")
    pad = sorted(cell_slots(collection(ax, "padding"), 16).tolist())
    assert pad == [r * 16 + k for r in range(5) for k in range(12, 16)]


def test_block_boundaries_are_drawn():
    L = ly.Layout("nChw8c", N=1, C=17, H=3, W=4)
    ax = strip_axes(viz.draw_layout(L), "NCHW8c")
    # level 1 is the jump out of the 8c block: a separator every 8 slots that is not a higher jump
    segs = collection(ax, "level-1").get_segments()
    assert len(segs) == sum(1 for k in range(8, L.size, 8) if k % 32)


# ---------------------------------------------------------------- label modes
def test_offset_and_coordinate_labels():
    L = ly.Layout("CHWN", N=2, C=3, H=2, W=2)
    ax = strip_axes(viz.draw_layout(L, label="offset", logical=False), "CHWN")
    assert labels_by_slot(ax) == {k: f"{k:02d}" for k in range(L.size)}
    ax = strip_axes(viz.draw_layout(L, label="coords", logical=False), "CHWN")
    got = labels_by_slot(ax)
    idx = L.index(np.arange(L.size))
    for k, text in got.items():
        assert text == f"{idx.n[k]},{idx.c[k]}\n{idx.h[k]},{idx.w[k]}"


def test_bad_arguments_raise_layout_errors():
    L = ly.Layout("NHWC", **ARTICLE)
    with pytest.raises(ly.LayoutError, match="label must be one of"):
        viz.draw_layout(L, label="value")
    with pytest.raises(ly.LayoutError, match="no axis D"):
        viz.draw_layout(L, color_by="d")
    with pytest.raises(ly.LayoutError, match="logical=False"):
        viz.compare([L, ly.Layout("NCHW", N=1, C=16, H=5, W=4)])


# ---------------------------------------------------------------- ax=, SVG, scale, rich display
def test_draws_into_a_given_axes_and_returns_its_figure():
    from matplotlib.figure import Figure
    fig = Figure(figsize=(6, 3))
    ax = fig.add_subplot()
    L = ly.Layout("NHWC", N=1, C=3, H=2, W=2)
    assert viz.draw_layout(L, ax=ax) is fig
    assert labels_by_slot(ax) == expected_labels(L)


def test_svg_is_deterministic():
    L = ly.Layout("nChw8c", N=1, C=10, H=2, W=2)
    a = viz.to_svg(viz.draw_layout(L))
    b = viz.to_svg(viz.draw_layout(L))
    assert a == b
    assert "<svg" in a and "Date" not in a


def test_ten_thousand_cells_draw_without_text_and_say_so():
    L = ly.Layout("NCHW", N=1, C=100, H=10, W=10)
    fig = viz.draw_layout(L, logical=False)
    ax = strip_axes(fig, "NCHW")
    assert not [t for t in texts_of(ax) if t.get_gid() == "cell-label"]
    assert len(collection(ax, "cells").get_paths()) == 10_000
    key = [t.get_text() for t in texts_of(ax) if t.get_gid() == "key"][0]
    assert "cell labels left out" in key and "ascii" in key


def test_ten_thousand_cells_render_within_a_bound():
    # "does not explode": a child process with a generous wall-clock and memory bound (speed is bench/'s job)
    out = run_bounded("""
        import layouts as ly
        from layouts import viz
        fig = viz.draw_layout(ly.Layout("NCHW", N=1, C=100, H=10, W=10))
        png = viz.to_png(fig, dpi=60)
        svg = viz.to_svg(fig)
        print(len(png) > 1000, len(svg) > 1000)
    """, timeout=120, memory_mb=2048)
    assert out.stdout.split() == ["True", "True"]


def test_too_many_cells_is_an_error_not_a_hang(monkeypatch):
    monkeypatch.setattr(viz.limits, "MAX_CELLS", 100)
    with pytest.raises(ly.LayoutError, match="MAX_CELLS = 100"):
        viz.draw_layout(ly.Layout("NCHW", N=1, C=3, H=6, W=6))
    with pytest.raises(ly.LayoutError, match="MAX_CELLS"):
        viz.ascii(ly.Layout("NCHW", N=1, C=3, H=6, W=6))


def test_giant_layouts_are_refused_before_any_allocation():
    # 3.2 billion slots: refused from the sizes alone, in a child bounded to 1 GiB of address space
    run_bounded("""
        import layouts as ly
        from layouts import viz
        big = ly.Layout("NCHW", N=64, C=256, H=224, W=224)
        for call in (lambda: viz.draw_layout(big), lambda: viz.ascii(big), lambda: viz.compare([big]),
                     lambda: viz.draw_conversion(big, ly.Layout("NHWC", N=64, C=256, H=224, W=224))):
            try:
                call()
            except ly.LayoutError as err:
                assert "MAX_CELLS" in str(err), err
            else:
                raise AssertionError("drawn")
    """, timeout=120, memory_mb=1024)


def test_rich_display_svg_small_png_large_text_always(monkeypatch):
    small = ly.Layout("NHWC", N=1, C=3, H=2, W=2)
    bundle = small._repr_mimebundle_(None, None)
    assert set(bundle) == {"text/plain", "image/svg+xml"}
    assert bundle["text/plain"].startswith("Layout('NHWC'")
    assert set(small._repr_mimebundle_(include=["text/plain"])) == {"text/plain"}
    assert set(small._repr_mimebundle_(exclude=["image/svg+xml"])) == {"text/plain", "image/png"}
    assert set(small._repr_mimebundle_(exclude=["image/svg+xml", "image/png"])) == {"text/plain"}
    # the SVG is chosen by its size in bytes: past SVG_MAX_BYTES the same figure comes as PNG
    monkeypatch.setattr(viz.limits, "MAX_SVG_BYTES", 1000)
    assert set(small._repr_mimebundle_()) == {"text/plain", "image/png"}
    monkeypatch.setattr(viz.limits, "MAX_SVG_BYTES", 150_000)
    monkeypatch.setattr(rich, "SVG_MAX_SLOTS", 4)
    png = small._repr_mimebundle_()["image/png"]
    assert base64.b64decode(png)[:8] == b"\x89PNG\r\n\x1a\n"
    monkeypatch.setattr(viz.limits, "MAX_CELLS", 4)
    assert set(small._repr_mimebundle_()) == {"text/plain"}


def test_figure_shows_itself_once_as_png():
    fig = viz.draw_layout(ly.Layout("NHWC", N=1, C=3, H=2, W=2))
    assert fig._repr_png_()[:4] == b"\x89PNG"


def test_no_pyplot_and_no_matplotlib_at_import():
    code = (
        "import sys, layouts as ly\n"
        "assert 'matplotlib' not in sys.modules\n"
        "from layouts import viz\n"
        "viz.to_png(viz.draw_layout(ly.Layout('NHWC', N=1, C=3, H=2, W=2)))\n"
        "ly.Layout('NCHW', N=1, C=2, H=2, W=2)._repr_mimebundle_()\n"
        "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(__import__("pathlib").Path(ly.__file__).parents[1]))


# ---------------------------------------------------------------- conversion, compare, ascii, tour
def test_conversion_links_join_the_same_element():
    src, dst = ly.Layout("NCHW", N=2, C=4, H=2, W=3), ly.Layout("NHWC", N=2, C=4, H=2, W=3)
    fig = viz.draw_conversion(src, dst, elements=[0, 1, {"n": 1, "c": 2, "h": 1, "w": 0}])
    a, b = strip_axes(fig, "NCHW"), strip_axes(fig, "NHWC")
    wa, wb = int(round(a.get_xlim()[1])), int(round(b.get_xlim()[1]))
    assert len(fig.links) == 3
    rings_a = {(int(p.get_x() + 0.5), int(p.get_y() + 0.5)) for p in a.patches if p.get_gid() == "chosen"}
    rings_b = {(int(p.get_x() + 0.5), int(p.get_y() + 0.5)) for p in b.patches if p.get_gid() == "chosen"}
    rows_a = -(-src.size // wa)
    for link, (ka, kb), number in zip(fig.links, fig.link_cells, [0, 1, src.offset(n=1, c=2, h=1, w=0)]):
        assert src.physical_order()[ka] == number
        assert dst.physical_order()[kb] == number
        assert labels_by_slot(a)[ka] == labels_by_slot(b)[kb]
        assert (ka % wa, ka // wa) in rings_a and (kb % wb, kb // wb) in rings_b
        # the link leaves the source strip's bottom edge in the boxed cell's column and lands on
        # the destination strip's top edge in its column
        (xa, ya), (xb, yb) = link.xy1, link.xy2
        assert (int(xa), ya) == (ka % wa, rows_a)
        assert (int(xb), yb) == (kb % wb, 0)
    assert fig.element_names == ["origin", "w+1", "n,c,h,w = 1,2,1,0"]
    with pytest.raises(ly.LayoutError, match="keeps the tensor"):
        viz.draw_conversion(src, ly.Layout("NHWC", N=2, C=4, H=2, W=2))


def test_ascii_rows_are_the_physical_order():
    L = ly.Layout("nChw8c", N=1, C=10, H=1, W=2)
    text = viz.ascii(L, wrap=8)
    rows = [line.split(":", 1)[1].replace("|", " ").split() for line in text.splitlines()[1:-1]]
    flat = [tok for row in rows for tok in row]
    assert flat == ["--" if v < 0 else f"{v:02d}" for v in L.physical_order().tolist()]


def test_tour_writes_pngs(tmp_path, monkeypatch):
    from layouts.viz import tour_figures as tour
    small = [(name, make) for name, make in tour.tour_figures() if "article" not in name and "edgeboard_figure" not in name]
    monkeypatch.setattr(tour, "tour_figures", lambda: small)
    paths = viz.save_tour_figures(tmp_path / "figs")
    assert [p.name for p in paths] == [name for name, _ in small]
    for p in paths:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------- legibility at 900 px, keys, links, padding
def gallery_figures():
    from layouts.viz.gallery import FIGURES
    return [(name, make) for name, _, make in FIGURES]


def visible_texts(fig):
    out = [t for t in fig.texts if t.get_text().strip()]
    for ax in fig.axes:
        out += [t for t in texts_of(ax) if t.get_text().strip() and t.get_visible()]
    return out


@pytest.fixture(scope="module")
def gallery():
    return {name: make() for name, make in gallery_figures()}


@pytest.mark.parametrize("name", [n for n, _ in gallery_figures()])
def test_every_text_is_at_least_7pt_at_900px(gallery, name):
    fig = gallery[name]
    width = fig.get_size_inches()[0]
    scale = min(1.0, 9.0 / width)  # a 900 px column shows the figure at this scale
    assert width <= 9.0
    small = [(t.get_text(), t.get_fontsize()) for t in visible_texts(fig) if t.get_fontsize() * scale < 7.0]
    assert not small, small[:5]


@pytest.mark.parametrize("name", [n for n, _ in gallery_figures()])
def test_no_text_leaves_the_figure(gallery, name):
    fig = gallery[name]
    renderer = fig.canvas.get_renderer()
    W, H = fig.bbox.width, fig.bbox.height
    for t in visible_texts(fig):
        bb = t.get_window_extent(renderer)
        assert bb.x0 >= -1 and bb.y0 >= -1 and bb.x1 <= W + 1 and bb.y1 <= H + 1, (t.get_text(), bb, (W, H))


def test_article_figure_shows_all_numbers_in_every_strip_at_7pt(article):
    for spec in ("NCHW", "NHWC", "CHWN"):
        ax = strip_axes(article, spec)
        texts = [t for t in texts_of(ax) if t.get_gid() == "cell-label"]
        assert sorted(t.get_text() for t in texts) == [f"{i:03d}" for i in range(640)]
        assert min(t.get_fontsize() for t in texts) >= 7.0
    assert article.get_size_inches()[0] <= 9.0


def color_key(fig):
    ax = [a for a in fig.axes if a.get_label().startswith("colour key: ")]
    assert len(ax) == 1
    ax = ax[0]
    labels = [t.get_text() for t in texts_of(ax) if t.get_gid() == "color-key-label"]
    faces = collection(ax, "color-key").get_facecolors()
    title = [t.get_text() for t in texts_of(ax) if t.get_gid() == "color-key-title"][0]
    return labels, faces, title


def test_colour_key_lists_the_axis_values_in_the_cells_colours(article):
    labels, faces, title = color_key(article)
    assert labels == [str(c) for c in range(16)]
    assert "channel c" in title
    ax = strip_axes(article, "NHWC")
    cells = collection(ax, "cells")
    c = ly.Layout("NHWC", **ARTICLE).index(cell_slots(cells, int(round(ax.get_xlim()[1])))).c
    for ch, face in zip(c.tolist(), cells.get_facecolors()):
        assert np.allclose(face, faces[ch])


def test_weights_are_coloured_by_output_channel_and_the_key_says_so(gallery):
    labels, _, title = color_key(gallery["weights_oihw_hwio"])
    assert labels == ["0", "1", "2", "3"] and "output channel o" in title


def test_strip_key_explains_the_row_numbers():
    L = ly.Layout("NCHW", N=1, C=3, H=2, W=4)
    fig = viz.draw_layout(L)
    ax = strip_axes(fig, "NCHW")
    wrap = int(round(ax.get_xlim()[1]))
    key = [t.get_text() for t in texts_of(ax) if t.get_gid() == "key"][0]
    assert "offset of the row's first slot" in key and f"a row holds {wrap} slots" in key
    starts = [int(t.get_text()) for t in texts_of(ax) if t.get_gid() == "row-offset"]
    assert starts == list(range(0, L.size, wrap))


def test_titles_print_the_spec_as_written():
    fig = viz.draw_layout(ly.Layout("nChw8c", N=1, C=17, H=2, W=2))
    assert any(t.startswith("memory of nChw8c:") for t in titled(fig))


def segment_hits_box(p, q, box):
    """Does the segment p-q meet the rectangle box (x0, y0, x1, y1)? (Liang-Barsky clipping)"""
    (x0, y0), (x1, y1) = p, q
    dx, dy = x1 - x0, y1 - y0
    t0, t1 = 0.0, 1.0
    for pk, qk in ((-dx, x0 - box[0]), (dx, box[2] - x0), (-dy, y0 - box[1]), (dy, box[3] - y0)):
        if pk == 0:
            if qk < 0:
                return False
            continue
        t = qk / pk
        if pk < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


@pytest.mark.parametrize("specs, elements", [
    (("NCHW", "NHWC"), None),
    (("NHWC", "CHWN"), [0, 7, 30, {"n": 1, "c": 2, "h": 2, "w": 3}]),
    (("NCHW", "nChw8c"), None),
])
def test_conversion_links_never_cross_text(specs, elements):
    dims = dict(N=2, C=5 if "nChw8c" in specs else 8, H=3, W=4)
    fig = viz.draw_conversion(ly.Layout(specs[0], **dims), ly.Layout(specs[1], **dims), elements)
    renderer = fig.canvas.get_renderer()
    fig.draw(renderer)
    boxes = [t.get_window_extent(renderer) for t in visible_texts(fig)]
    assert fig.links
    for link in fig.links:
        a = link.coords1.transform(link.xy1)  # the link runs from the source strip's bottom edge
        b = link.coords2.transform(link.xy2)  # to the destination strip's top edge
        path = link.get_path()
        keep = np.ones(len(path.vertices), bool) if path.codes is None else ~np.isin(path.codes, [0, 79])
        drawn = link.get_transform().transform(path.vertices[keep])
        assert (drawn[:, 1] <= a[1] + 1).all() and (drawn[:, 1] >= b[1] - 12).all()  # (the arrow head's width)
        for bb in boxes:
            assert not segment_hits_box(a, b, (bb.x0, bb.y0, bb.x1, bb.y1)), (link.get_gid(), bb)


def test_conversion_names_the_boxed_elements():
    dims = dict(N=2, C=8, H=3, W=4)
    fig = viz.draw_conversion(ly.Layout("NCHW", **dims), ly.Layout("NHWC", **dims))
    assert fig.element_names == ["origin", "w+1", "h+1", "c+1", "n+1"]
    entries = [t.get_text() for ax in fig.axes for t in texts_of(ax) if t.get_gid() == "element-key"]
    assert entries == [f"\u25a1 {n} ({v})" for n, v in zip(fig.element_names, [0, 1, 4, 12, 96])]


@pytest.mark.parametrize("layout", [
    ly.Layout("NHWC", N=1, C=3, H=5, W=4, align={"H": 16}),
    ly.Layout("NHWC", N=2, C=5, H=3, W=2, align={"W": 8}),
    ly.Layout("nChw8c", N=2, C=17, H=3, W=2),
    ly.Layout("NC1HWC0", N=1, C=5, H=2, W=2, C0=4),
])
def test_no_separator_inside_a_padding_run(layout):
    ax = strip_axes(viz.draw_layout(layout, logical=False), layout.spec)
    wrap = int(round(ax.get_xlim()[1]))
    pad = np.asarray(layout.index(np.arange(layout.size), padding="mark").padding, dtype=bool)
    seen = 0
    for c in ax.collections:
        if (c.get_gid() or "").startswith("level-"):
            for (x0, y0), (x1, y1) in c.get_segments():
                k = int(round(y0)) * wrap + (int(round(x0)) if x0 == x1 else 0)
                assert not (pad[k] and pad[k - 1]), k
                seen += 1
    assert seen
    # ASCII: no '|' between two padding slots
    for line in viz.ascii(layout, wrap=wrap).splitlines()[1:-1]:
        assert "-- |" not in line.replace("||", "|") or "| --" not in line.replace("||", "|"), line
        toks = line.split(":", 1)[1].split()
        for i, tok in enumerate(toks):
            if tok in ("|", "||"):
                assert not (toks[i - 1].startswith("--") and toks[i + 1].startswith("--")), line


def test_svg_of_the_640_slot_layout_is_compact_and_draws_the_same():
    L = ly.Layout("NCHW", **ARTICLE)
    fig = viz.draw_layout(L)
    svg = viz.to_svg(fig)
    full = viz.to_svg(fig, compact=False)
    assert len(svg.encode()) <= 150_000 < len(full.encode())
    # every cell and every label is still there
    assert svg.count("<use ") >= 2 * 640  # one per cell of the logical panel and of the strip
    from collections import Counter
    texts = Counter(re.findall(r"<text\b[^>]*>([^<]*)</text>", svg))
    assert texts == Counter(re.findall(r"<text\b[^>]*>([^<]*)</text>", full))
    assert all(texts[f"{i:03d}"] >= 2 for i in range(640))
    assert L._repr_mimebundle_().get("image/svg+xml") == svg


def test_show_says_how_to_see_a_figure_outside_jupyter():
    fig = viz.draw_layout(ly.Layout("NHWC", N=1, C=3, H=2, W=2))
    with pytest.raises(RuntimeError, match=r"layouts\.viz\.save\(fig"):
        fig.show()


def test_article_figure_rings_element_341_in_every_panel(article):
    for spec, offset in (("NCHW", 341), ("NHWC", 337), ("CHWN", 43)):
        ax = strip_axes(article, spec)
        wrap = int(round(ax.get_xlim()[1]))
        ring = collection(ax, "highlight")
        assert cell_slots(ring, wrap).tolist() == [offset] == [ly.Layout(spec, **ARTICLE).offset(n=1, c=1, h=0, w=1)]
        assert labels_by_slot(ax)[offset] == "341"
    _, _, title = color_key(article)
    assert "green ring: element 341 = (n=1, c=1, h=0, w=1)" in title


def test_gallery_subcommand_writes_png_and_svg(tmp_path, monkeypatch, capsys):
    from layouts.__main__ import main
    from layouts.viz import gallery
    small = [f for f in gallery.FIGURES if f[0] in ("pitched_rows", "weights_oihw_hwio")]
    monkeypatch.setattr(gallery, "FIGURES", small)
    assert main(["gallery", str(tmp_path / "g")]) == 0
    names = sorted(p.name for p in (tmp_path / "g").iterdir())
    assert names == ["pitched_rows.png", "pitched_rows.svg", "weights_oihw_hwio.png", "weights_oihw_hwio.svg"]
    assert (tmp_path / "g" / "pitched_rows.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in (tmp_path / "g" / "weights_oihw_hwio.svg").read_text()
    assert capsys.readouterr().out.count("wrote ") == 4
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["gallery", str(blocker)]) == 2
    assert "error:" in capsys.readouterr().err


def test_gallery_lists_every_kind_of_figure():
    from layouts.viz.gallery import FIGURES
    assert [n for n, _, _ in FIGURES] == ["article", "blocked_padding", "pitched_rows", "conversion", "comparison",
                                         "weights_oihw_hwio"]


def test_tour_figures_to_an_impossible_folder_is_a_layout_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ly.LayoutError, match="cannot create the folder"):
        viz.save_tour_figures(blocker / "figs")
