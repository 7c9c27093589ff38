"""The explorer, driven through its widgets' callbacks: the state they set is what the picture shows."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("matplotlib")

import layouts as ly  # noqa: E402
from layouts import viz  # noqa: E402
from layouts.viz.explorer import ExplorerModel  # noqa: E402

ARTICLE = dict(N=2, C=16, H=5, W=4)


def boxed_slots(ax):
    """Slots boxed by the highlight ring of a memory strip (from the ring's vertices)."""
    wrap = int(round(ax.get_xlim()[1]))
    ring = [c for c in ax.collections if c.get_gid() == "highlight"]
    assert len(ring) == 1
    corners = [p.vertices[:4].min(axis=0) for p in ring[0].get_paths()]
    return sorted(int(np.floor(y)) * wrap + int(np.floor(x)) for x, y in corners)


def strip(fig, spec):
    hits = [ax for ax in fig.axes if ax.get_label().lower().startswith(f"memory: layout('{spec.lower()}'")]
    assert len(hits) == 1
    return hits[0]


def logical_boxed_label(fig):
    ax = [a for a in fig.axes if a.get_label().startswith("logical: ")][0]
    ring = [c for c in ax.collections if c.get_gid() == "highlight"][0]
    (centre,) = [p.vertices[:4].mean(axis=0) for p in ring.get_paths()]
    from layouts.viz._cells import cell_labels
    return [t.get_text() for labels in cell_labels(ax, "cell-label") for t in labels.views()
            if np.allclose(t.get_position(), centre, atol=0.01)]


def evaluate(formula_line):
    """'NCHW: offset = ... = 1*320 + 0*20 + 1 = 341' -> (sum of the evaluated terms, the stated result)."""
    parts = formula_line.split("   (")[0].split(" = ")
    terms, result = parts[-2], int(parts[-1])
    total = sum(int(a) * int(b) for a, b in re.findall(r"(\d+)\*(\d+)", terms))
    return total, result


def test_model_offsets_and_formulas_agree_with_the_layouts():
    m = ExplorerModel(["NCHW", "NHWC", "CHWN", "nChw8c"], ARTICLE)
    for coords in ({"n": 1, "c": 1, "h": 0, "w": 1}, {"n": 0, "c": 15, "h": 4, "w": 3}, {"n": 1, "c": 9, "h": 2, "w": 0}):
        m.set_element(**coords)
        expected = {s: ly.Layout(s, **ARTICLE).offset(**coords) for s in m.specs}
        assert m.offsets() == expected
        assert m.number == np.ravel_multi_index((coords["n"], coords["c"], coords["h"], coords["w"]), (2, 16, 5, 4))
        for line, spec in zip(m.formulas(), m.specs):
            total, result = evaluate(line)
            assert line.startswith(spec + ":")
            assert total == result == expected[spec]


def test_model_refuses_bad_moves_and_keeps_its_state():
    m = ExplorerModel(["NCHW"], dict(N=1, C=3, H=2, W=2))
    m.set_element(c=2)
    with pytest.raises(ly.LayoutError, match="c=3 is outside 0..2"):
        m.set_element(c=3)
    with pytest.raises(ly.LayoutError, match="no axis"):
        m.set_element(d=0)
    with pytest.raises(TypeError, match="c"):
        m.set_element(c=1.5)
    with pytest.raises(ly.LayoutError, match="OIHW"):
        m.set_specs("NCHW, OIHW")
    with pytest.raises(TypeError, match="specs"):
        m.set_specs(42)
    assert m.element == {"n": 0, "c": 2, "h": 0, "w": 0} and m.specs == ["NCHW"]


def test_sliders_move_the_boxed_element_in_every_panel():
    ipywidgets = pytest.importorskip("ipywidgets")  # noqa: F841
    ex = viz.explore(["NCHW", "NHWC", "CHWN"], **ARTICLE)
    picture = ex.picture.value
    ex.sliders["n"].value = 1
    ex.sliders["c"].value = 1
    ex.sliders["w"].value = 1
    assert ex.model.element == {"n": 1, "c": 1, "h": 0, "w": 1}
    fig = ex.last_figure
    for spec in ("NCHW", "NHWC", "CHWN"):
        off = ly.Layout(spec, **ARTICLE).offset(n=1, c=1, h=0, w=1)
        assert boxed_slots(strip(fig, spec)) == [off]
    assert logical_boxed_label(fig) == ["341"]
    assert "= 341" in ex.formula_box.value and "= 337" in ex.formula_box.value
    # the browser's picture is not drawn again: only the highlight style names the new element
    assert ex.picture.value == picture
    assert ".e341{" in ex.highlight.value
    assert len(re.findall(r'<rect class="sl e341 ', picture)) == 4  # the logical panel and three strips
    if ex.scripted:
        assert ex.picture.number == 341


def test_what_a_hover_says_comes_from_the_layouts(monkeypatch):
    """With anywidget, the browser describes an element from ``picture.data``; without it, each
    slot carries its text as a <title>. Both give the coordinates and every layout's offset."""
    pytest.importorskip("ipywidgets")
    from layouts.viz import explorer_widget
    specs = ("NCHW", "NHWC", "nChw8c")
    layouts = [ly.Layout(s, **ARTICLE) for s in specs]
    data = explorer_widget.tensor_data(specs, layouts)
    coords = np.unravel_index(np.arange(640), [2, 16, 5, 4])  # row-major over n, c, h, w
    assert data["names"] == ["n", "c", "h", "w"] and data["dims"] == [2, 16, 5, 4]
    for L, offs in zip(layouts, data["offsets"]):
        assert offs == [int(L.offset(n=n, c=c, h=h, w=w)) for n, c, h, w in zip(*(g.tolist() for g in coords))]
    monkeypatch.setattr(explorer_widget, "has_anywidget", lambda: False)
    ex = viz.explore(list(specs), **ARTICLE)
    assert not ex.scripted
    titles = re.findall(r'<rect class="sl e341 [^"]*" x="[\d.]+" y="[\d.]+"><title>([^<]*)</title>', ex.picture.value)
    assert len(titles) == 4
    assert "n=1, c=1, h=0, w=1" in titles[0]
    for spec, L in zip(specs, layouts):
        assert f"{spec} offset {L.offset(n=1, c=1, h=0, w=1)}" in titles[0]
    ex.sliders["h"].value = 2
    assert f".e{np.ravel_multi_index((0, 0, 2, 0), (2, 16, 5, 4))}{{" in ex.highlight.value


def test_a_click_on_a_slot_moves_the_sliders_and_the_formulas():
    pytest.importorskip("ipywidgets")
    ex = viz.explore(["NCHW", "CHWN"], N=2, C=3, H=4, W=5)
    if not ex.scripted:
        pytest.skip("anywidget is missing: the picture answers no clicks")
    L = ly.Layout("CHWN", N=2, C=3, H=4, W=5)
    k = 57  # a slot of the CHWN strip: the element stored at offset 57
    n = int(L.physical_order()[k])
    coords = dict(zip("nchw", (int(v) for v in np.unravel_index(n, (2, 3, 4, 5)))))
    assert L.offset(**coords) == k
    ex.picture.clicked = n  # what the browser's click sends
    assert ex.model.element == coords
    assert {a: s.value for a, s in ex.sliders.items()} == coords
    assert ex.picture.number == n and ex.picture.clicked == -1
    assert re.sub("<[^>]+>", "", ex.formula_box.value).split("\n")[1].endswith(f"= {k}")
    with pytest.raises(ly.LayoutError, match="not a logical number"):
        ex.select(2 * 3 * 4 * 5)


def test_dims_box_clamps_the_element_and_the_slider():
    pytest.importorskip("ipywidgets")
    ex = viz.explore("NCHW, NHWC", N=1, C=8, H=2, W=2)
    ex.sliders["c"].value = 7
    ex.dim_inputs["C"].value = 3
    assert ex.model.dims["C"] == 3 and ex.model.element["c"] == 2
    assert ex.sliders["c"].max == 2 and ex.sliders["c"].value == 2
    L = ly.Layout("NHWC", N=1, C=3, H=2, W=2)
    assert boxed_slots(strip(ex.last_figure, "NHWC")) == [L.offset(n=0, c=2, h=0, w=0)]


def test_spec_box_changes_the_strips_and_reports_bad_specs():
    pytest.importorskip("ipywidgets")
    ex = viz.explore("NCHW", N=1, C=10, H=2, W=2)
    ex.sliders["c"].value = 9
    ex.spec_text.value = "NCHW, nChw8c"
    assert ex.model.specs == ["NCHW", "nChw8c"]
    blocked = ly.Layout("nChw8c", N=1, C=10, H=2, W=2)
    assert boxed_slots(strip(ex.last_figure, "NCHW8c")) == [blocked.offset(n=0, c=9, h=0, w=0)]
    before = ex.picture.value
    ex.spec_text.value = "NCHW, XYZW"
    assert "XYZW" in ex.message.value or "no axis" in ex.message.value
    assert ex.model.specs == ["NCHW", "nChw8c"] and ex.picture.value == before
    ex.spec_text.value = "NCHW"
    assert ex.message.value == "" and ex.model.specs == ["NCHW"]


def test_explorer_refuses_tensors_too_big_to_redraw():
    with pytest.raises(ly.LayoutError, match="at most"):
        ExplorerModel(["NCHW", "NHWC"], dict(N=8, C=64, H=8, W=8))


def test_the_browser_slots_sit_on_the_cells_the_picture_labels():
    """Each slot of the browser's picture holds the label of the element it is classed with, and a
    strip's slots come in offset order: slot k of a strip holds the element stored at offset k."""
    pytest.importorskip("ipywidgets")
    specs = ["NCHW", "NHWC", "nChw2c"]
    ex = viz.explore(specs, N=1, C=3, H=2, W=2)
    svg = ex.picture.value
    cell = float(re.search(r"\.sl\{width:([\d.]+)px", svg).group(1))
    names = []
    for block in svg.split('<g transform="translate(0,')[1:2 + len(specs)]:  # the panels, each in its own coordinates
        chars = []  # each label's centre: the runs' words are a cell apart (DejaVu Sans: digits 0.636 em, space 0.318 em)
        for fs, group in re.findall(r'<g style="font-family:[^"]*font-size:([\d.]+)px;pointer-events:none">(.*?)</g>',
                                    block, re.S):
            fs = float(fs)
            for x, y, spacing, text in re.findall(r'<text class="f\d+" x="([\d.]+)" y="([\d.]+)" '
                                                  r'style="word-spacing:([-\d.]+)px">([^<]*)</text>', group):
                words = text.split("&#160;")
                width = len(words[0]) * 0.636 * fs
                assert width + 0.318 * fs + float(spacing) == pytest.approx(cell, abs=0.02)
                chars += [(float(x) + width / 2 + i * cell, float(y), w) for i, w in enumerate(words)]
        spec = re.search(r'<g class="panel [a-z]+" data-spec="([^"]+)"', block).group(1)
        names.append(spec)
        slots = re.findall(r'<rect class="sl (e(\d+)[^"]*|pad)" x="([\d.]+)" y="([\d.]+)"', block)
        expected = (np.arange(12) if spec == "logical" else ly.Layout(spec, N=1, C=3, H=2, W=2).physical_order())
        assert [int(n) if n else -1 for _, n, _, _ in slots] == expected.tolist()
        for _, n, x, y in slots:
            x, y = float(x), float(y)
            inside = "".join(ch for cx, cy, ch in sorted(chars) if x < cx < x + cell and y < cy < y + cell)
            assert inside == (f"{int(n):02d}" if n else ""), (spec, n, inside)
    assert names == ["logical"] + specs


def test_the_picture_writer_refuses_bad_arguments():
    from layouts.viz.explorer_svg import explorer_svg
    m = ExplorerModel(["NCHW"], dict(N=1, C=2, H=2, W=2))
    with pytest.raises(ly.LayoutError, match="uid"):
        explorer_svg(m, "1 bad id")
    with pytest.raises(ly.LayoutTypeError, match="model"):
        explorer_svg("NCHW", "x1")
    with pytest.raises(ly.LayoutTypeError, match="titles"):
        explorer_svg(m, "x1", titles=["only one"])


def test_bad_arguments_are_layout_errors():
    with pytest.raises(ly.LayoutTypeError, match="specs"):
        ExplorerModel(42)
    with pytest.raises(ly.LayoutTypeError, match="dims"):
        ExplorerModel(["NCHW"], [2, 3])
    with pytest.raises(ly.LayoutTypeError, match="layout must be a layouts.Layout"):
        viz.draw_layout("NCHW")
    with pytest.raises(ly.LayoutTypeError, match="path"):
        viz.save(viz.draw_layout(ly.Layout("NCHW", N=1, C=1, H=1, W=2)), 3)


def test_the_old_image_attribute_is_the_picture_with_a_warning():
    pytest.importorskip("ipywidgets")
    ex = viz.explore("NCHW", N=1, C=2, H=2, W=2)
    with pytest.warns(DeprecationWarning, match="picture"):
        assert ex.image is ex.picture
    assert "<svg" in ex.picture.value
