"""cute_svg: the CuTe picture written straight to SVG, read back with xml.etree and checked
against pycute (NVIDIA's reference implementation of the layout algebra) and hand-computed values.
The pycute checks skip without it (fail in CI's oracle stage, LAYOUTS_REQUIRE_ORACLES=1); the
hand-computed ones always run."""

from __future__ import annotations

import base64
import math
import re
import xml.etree.ElementTree as ET
from collections import defaultdict

import numpy as np
import pytest

import importlib.util

from oracle import PYCUTE_MISSING
from oracle_procs import require_oracle

pytest.importorskip("matplotlib")

from layouts import LayoutError, LayoutTypeError, viz  # noqa: E402
from layouts.cute import Layout, Swizzle, composition  # noqa: E402
from layouts.cute.atoms import SM80_16x8x16_C  # noqa: E402
from layouts.viz._style import value_colors  # noqa: E402  (the palette; where each colour goes is checked)

pycute = importlib.import_module("pycute") if importlib.util.find_spec("pycute") else None

NS = {"s": "http://www.w3.org/2000/svg"}


def _panels(svg: str) -> list:
    """Per panel: rows, cols, title, {(row, col): fill class} and {(row, col): label lines top to bottom}."""
    root = ET.fromstring(svg.encode("utf-8"))
    href = "{http://www.w3.org/1999/xlink}href"
    defs = {r.get("id"): r for r in root.iterfind("s:defs/s:rect", NS)}
    out = []
    for g in root.iterfind(".//s:g[@class='panel']", NS):
        cells = []                                       # (x, y, fill, shape): rows are groups moved down
        for row in g.find("s:g[@class='cells']", NS).findall("s:g", NS):
            dy = float(re.fullmatch(r"translate\(0,([\d.]+)\)", row.get("transform")).group(1))
            cells += [(float(u.get("x")), dy + float(u.get("y", 0)), u.get("fill"), defs[u.get(href).lstrip("#")])
                      for u in row.findall("s:use", NS)]
        (shape,) = {c[3] for c in cells}
        cell = float(shape.get("width"))
        assert float(shape.get("height")) == cell
        x0, y0 = min(c[0] for c in cells), min(c[1] for c in cells)
        fills = {(round((y - y0) / cell), round((x - x0) / cell)): f for x, y, f, _ in cells}
        assert len(fills) == len(cells)
        lines = defaultdict(list)
        for t in g.iterfind(".//s:text[@fill]", NS):     # cell labels carry their colour
            x, y = float(t.get("x")), float(t.get("y"))
            row, col = math.floor((y - y0) / cell), math.floor((x - x0) / cell)
            # a run starts in the left half of its first cell: its text is centred there
            assert x0 + col * cell <= x <= x0 + (col + 0.5) * cell
            for k, word in enumerate(t.text.split("\xa0")):
                lines[(row, col + k)].append((y, word))
        labels = {rc: "\n".join(w for _, w in sorted(v)) for rc, v in lines.items()}
        title = [t.text for t in g.findall("s:text", NS)]
        out.append(dict(rows=int(g.get("data-rows")), cols=int(g.get("data-cols")), fills=fills, labels=labels,
                        title=title[-1], cell=cell, x0=x0, y0=y0, paths=g.findall("s:path", NS)))
    return out


def _hex(value: int, extent: int) -> str:
    r, g, b = (round(255 * float(x)) for x in value_colors(np.array([value]), extent)[0, :3])
    return f"#{r:02x}{g:02x}{b:02x}"


def _pycute(layout: Layout):
    return pycute.Layout(layout.shape, layout.stride)


@pytest.fixture
def with_pycute():
    """For a test judged by pycute: skipped without it, failed without it in CI's oracle stage."""
    require_oracle(pycute is not None, PYCUTE_MISSING)


@pytest.mark.parametrize("layout", [
    Layout((8, 8), (8, 1)),                                   # plain row-major
    Layout((8, 8), (1, 8)),                                   # plain column-major
    Layout((4, (2, 3)), (6, (1, 2))),                         # hierarchical mode 1
    Layout(((2, 2), (2, 4)), ((1, 4), (2, 8))),               # hierarchical in both modes
    Layout(12, 3),                                            # rank 1: one row
])
def test_every_label_is_the_offset_at_its_coordinate(layout, with_pycute):
    (panel,) = _panels(viz.cute_svg(layout))
    ref = _pycute(layout)
    rows = ref.shape[0] if isinstance(ref.shape, tuple) else 1
    rows = pycute.product(rows)
    cols = pycute.size(ref) // rows
    assert (panel["rows"], panel["cols"]) == (rows, cols)
    assert len(panel["fills"]) == rows * cols
    # cell (r, c) is index r + rows * c (mode 0 down, the other modes across, colexicographic)
    expected = {(r, c): str(ref(r + rows * c)) for r in range(rows) for c in range(cols)}
    assert panel["labels"] == expected
    assert panel["title"] == str(layout)
    # offset colouring: each cell in the palette's colour of the offset it shows
    extent = max(int(v) for v in expected.values()) + 1
    assert panel["fills"] == {rc: _hex(int(v), extent) for rc, v in expected.items()}


def test_tile_boundaries_of_a_hierarchical_layout():
    (p,) = _panels(viz.cute_svg(Layout(((2, 2), (2, 4)), ((1, 4), (2, 8)))))
    cell, x0, y0 = p["cell"], p["x0"], p["y0"]
    across, down = set(), set()
    for path in p["paths"]:
        for xa, ya, xb, yb in re.findall(r"M([\d.]+) ([\d.]+)L([\d.]+) ([\d.]+)", path.get("d")):
            xa, ya, xb, yb = map(float, (xa, ya, xb, yb))
            if ya == yb:
                across.add(round((ya - y0) / cell, 1))
            else:
                down.add(round((xa - x0) / cell, 1))
    # rows (2,2): a boundary after 2 rows; columns (2,4): after every 2 columns
    assert across == {2.0} and down == {2.0, 4.0, 6.0}


def test_swizzle_before_after_by_bank(with_pycute):
    base = Layout((8, 8), (8, 1))
    svg = viz.cute_svg(base, Swizzle(3, 0, 3), elem_bytes=16)
    before, after = _panels(svg)
    ref, sw = _pycute(base), pycute.Swizzle(3, 0, 3)
    for panel, offset, conflict in ((before, ref, True), (after, lambda i: sw(ref(i)), False)):
        offsets = {(r, c): offset(r + 8 * c) for r in range(8) for c in range(8)}
        assert panel["labels"] == {rc: str(o) for rc, o in offsets.items()}
        banks = {rc: (o * 16 // 4) % 32 for rc, o in offsets.items()}
        assert panel["fills"] == {rc: _hex(b, 32) for rc, b in banks.items()}   # each cell in its bank's colour
        column_conflicts = [len({banks[(r, c)] for r in range(8)}) == 1 for c in range(8)]
        assert all(column_conflicts) == conflict and any(column_conflicts) == conflict
    assert before["title"] == "(8,8):(8,1)" and after["title"] == "Sw<3,0,3> o 0 o (8,8):(8,1)"
    assert "bank conflict" in svg


def test_swizzled_layout_on_its_own(with_pycute):
    S = composition(Swizzle(2, 0, 2), Layout((4, 4), (4, 1)))
    (panel,) = _panels(viz.cute_svg(S))
    ref, sw = pycute.Layout((4, 4), (4, 1)), pycute.Swizzle(2, 0, 2)
    assert panel["labels"] == {(r, c): str(sw(ref(r + 4 * c))) for r in range(4) for c in range(4)}


def test_tv_layout_cells_show_thread_and_value(with_pycute):
    (panel,) = _panels(viz.cute_svg(SM80_16x8x16_C, tv_tile=(16, 8)))
    ref = _pycute(SM80_16x8x16_C)
    threads, values = pycute.size(ref.shape[0]), pycute.size(ref.shape[1])
    expected = {}
    for t in range(threads):
        for v in range(values):
            idx = ref(t, v)                       # (thread, value) -> m + 16 n
            expected[(idx % 16, idx // 16)] = f"T{t}\nV{v}"
    assert len(expected) == 16 * 8 and panel["labels"] == expected
    # PTX m16n8k16 accumulators: thread 0 holds rows 0 and 8, columns 0 and 1
    assert sorted(rc for rc, s in expected.items() if s.startswith("T0\n")) == [(0, 0), (0, 1), (8, 0), (8, 1)]


def test_higher_rank_strips(with_pycute):
    L = Layout((2, 3, 4), (1, 8, 2))
    logical, memory = _panels(viz.cute_svg(L))
    ref = _pycute(L)
    offsets = [ref(i) for i in range(24)]
    assert logical["labels"] == {(0, i): str(o) for i, o in enumerate(offsets)}
    owner = {o: i for i, o in enumerate(offsets)}
    assert memory["labels"] == {(0, k): str(owner[k]) for k in range(24) if k in owner}
    assert logical["title"] == "(2,3,4):(1,8,2): logical index i -> offset"


def test_same_picture_as_draw_cute():
    """The two writers share one plan: the same titles and the same cell labels in the same cells."""
    for layout, kw in ((Layout((4, (2, 3)), (6, (1, 2))), {}), (Layout((8, 8), (8, 1)), dict(swizzle=Swizzle(3, 0, 3))),
                       (SM80_16x8x16_C, dict(tv_tile=(16, 8))), (Layout((8, 8), (8, 1)), dict(color="row", title="T"))):
        kw = dict(kw)
        swizzle = kw.pop("swizzle", None)
        fig = viz.draw_cute(layout, swizzle, **kw)
        panels = _panels(viz.cute_svg(layout, swizzle, **kw))
        assert [p["title"] for p in panels] == [ax.get_title(loc="left") for ax in fig.axes]
        for p, ax in zip(panels, fig.axes):
            n = p["rows"] * p["cols"]
            drawn = {(int(t.get_position()[1]), int(t.get_position()[0])): t.get_text() for t in ax.texts[:n]}
            assert p["labels"] == drawn


def test_labels_left_out_when_too_small_in_both_writers():
    L = Layout((32, 32), (1, 32))
    (panel,) = _panels(viz.cute_svg(L))
    assert len(panel["fills"]) == 1024 and panel["labels"] == {}
    assert [t.get_text() for t in viz.draw_cute(L).axes[0].texts if t.get_color() != "#555555"] == []


def test_same_bytes_every_time_and_notebook_display():
    L = Layout((4, 4), (4, 1))
    svg = viz.cute_svg(L)
    assert viz.cute_svg(L) == svg
    assert L._repr_mimebundle_()["image/svg+xml"] == svg
    assert viz.cute_svg(Layout((4, 4), (1, 4))) != svg
    big = Layout((64, 32), (32, 1))                         # 2048 cells: a PNG, not a large SVG
    bundle = big._repr_mimebundle_()
    assert "image/svg+xml" not in bundle
    assert base64.b64decode(bundle["image/png"])[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("kwargs, error, word", [
    (dict(layout="NCHW"), LayoutTypeError, "layouts.cute.Layout"),
    (dict(swizzle="sw"), LayoutTypeError, "swizzle"),
    (dict(color="nope"), LayoutError, "color"),
    (dict(color=3), LayoutTypeError, "color"),
    (dict(elem_bytes=0), LayoutError, "elem_bytes"),
    (dict(elem_bytes="2"), LayoutTypeError, "elem_bytes"),
    (dict(bank_bytes=-4), LayoutError, "bank_bytes"),
    (dict(bank_bytes=True), LayoutTypeError, "bank_bytes"),
    (dict(title=5), LayoutTypeError, "title"),
    (dict(tv_tile=[16, 8]), LayoutTypeError, "tv_tile"),
    (dict(tv_tile=(0, 8)), LayoutError, "tv_tile"),
    (dict(tv_tile=(16.0, 8)), LayoutTypeError, "tv_tile"),
    (dict(layout=Layout((256, 256))), LayoutError, "MAX_CELLS"),
])
def test_bad_arguments_name_themselves(kwargs, error, word):
    kwargs = dict(kwargs)
    layout = kwargs.pop("layout", Layout((8, 8), (8, 1)))
    for writer in (viz.cute_svg, viz.draw_cute):
        with pytest.raises(error, match=word):
            writer(layout, **kwargs)
