"""layouts.viz.draw_banks (issue 42): the picture shows what the hardware does, cell by cell.

Every expected value is worked out here by hand from the tile's own definition -- the offset of
row r, column c of a pitched tile is ``r * pitch + c``, CuTe's ``Swizzle<B,M,S>`` XORs bits
``[M+S, M+S+B)`` of it into bits ``[M, M+B)`` -- and the hardware model of the contract (32 banks
of 4 bytes; a 4-byte request is one phase of 32 threads, ldmatrix one 8x8 matrix of 16-byte rows
per phase, thread t giving row t % 8 of matrix t // 8). The drawing is read back from its
artists: the cells' face colours, the outlines' rectangles, the labels' texts, the bars' heights.
"""

from __future__ import annotations

import numpy as np
import pytest

from layouts import cute, smem
from layouts.errors import LayoutError, LayoutTypeError
from layouts.viz import draw_banks
from layouts.viz.banks import bank_palette
from layouts.viz.limits import MAX_CELLS

ROWMAJOR_32 = cute.Layout((32, 32), (32, 1))
PADDED_33 = cute.Layout((32, 32), (33, 1))
COLUMNS = smem.Access(threads=cute.Layout((32, 32), (1, 32)), width_bytes=4)   # request k: column k


def offsets_by_hand(rows: int, cols: int, pitch: int, swizzle: tuple | None = None) -> np.ndarray:
    """rows x cols array of element offsets: row-major with ``pitch``, then Swizzle<B,M,S>."""
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    off = r * pitch + c
    if swizzle is not None:
        b, m, s = swizzle
        off = off ^ (((off >> (m + s)) & ((1 << b) - 1)) << m)
    return off


def banks_by_hand(off: np.ndarray, element_bytes: int) -> np.ndarray:
    return (off * element_bytes // 4) % 32


def flagged_by_hand(off: np.ndarray, cells: list, element_bytes: int) -> set:
    """The cells of one phase in a bank from which the phase reads two or more distinct words."""
    words_of = {cell: {(int(off[cell]) * element_bytes + b) // 4 for b in range(element_bytes)} for cell in cells}
    per_bank: dict = {}
    for ws in words_of.values():
        for w in ws:
            per_bank.setdefault(w % 32, set()).add(w)
    return {cell for cell, ws in words_of.items() if any(len(per_bank[w % 32]) > 1 for w in ws)}


def words_per_bank_by_hand(off: np.ndarray, cells: list, element_bytes: int) -> list:
    per_bank = [set() for _ in range(32)]
    for cell in cells:
        for b in range(element_bytes):
            w = (int(off[cell]) * element_bytes + b) // 4
            per_bank[w % 32].add(w)
    return [len(s) for s in per_bank]


# -- reading the figure back ------------------------------------------------------------------

def _axes(fig, gid):
    found = [ax for ax in fig.axes if ax.get_gid() == gid]
    return found[0] if found else None


def _collection(ax, gid):
    found = [c for c in ax.collections if c.get_gid() == gid]
    return found[0] if found else None


def cell_faces(fig) -> dict:
    """(row, col) -> RGBA of the tile's cells."""
    cells = _collection(_axes(fig, "tile"), "cells")
    out = {}
    for path, face in zip(cells.get_paths(), cells.get_facecolors()):
        x, y = path.vertices[:, 0].min(), path.vertices[:, 1].min()
        out[(int(round(y)), int(round(x)))] = tuple(face)
    return out


def outlined(fig, gid) -> set:
    """The cells covered by the outlines of collection ``gid`` (each outline a run along a row)."""
    coll = _collection(_axes(fig, "tile"), gid)
    out: set = set()
    for path in (coll.get_paths() if coll is not None else []):
        xs, ys = path.vertices[:, 0], path.vertices[:, 1]
        row = int(np.floor(ys.min()))
        assert int(np.floor(ys.max() - 1e-9)) == row, "an outline spans one row"
        out |= {(row, c) for c in range(int(round(xs.min())), int(round(xs.max())))}
    return out


def labels(fig) -> dict:
    ax = _axes(fig, "tile")
    return {(int(np.floor(t.get_position()[1])), t.get_position()[0]): t.get_text()
            for t in ax.texts if t.get_gid() == "thread-label"}


def key_text(fig) -> str:
    return "\n".join(t.get_text() for t in [*fig.texts, *(t for ax in fig.axes for t in ax.texts)]
                     if t.get_gid() == "key")


# -- the colours ------------------------------------------------------------------------------

def test_palette_gives_each_of_32_banks_its_own_colour():
    p = bank_palette(32)
    assert p.shape == (32, 4) and len({tuple(np.round(c, 6)) for c in p}) == 32


@pytest.mark.parametrize("rows,cols,pitch,swizzle,eb", [
    (32, 32, 32, None, 4), (32, 32, 33, None, 4), (8, 64, 64, (3, 3, 3), 2), (16, 16, 16, (2, 0, 4), 8),
    (32, 32, 32, (5, 0, 5), 4), (8, 128, 136, None, 1)])
def test_each_cell_has_its_banks_colour(rows, cols, pitch, swizzle, eb):
    layout = cute.Layout((rows, cols), (pitch, 1))
    if swizzle is not None:
        layout = cute.composition(cute.Swizzle(*swizzle), layout)
    acc = smem.Access(threads=cute.Layout((32, rows * cols // 32), (1, 32)), width_bytes=eb)
    faces = cell_faces(draw_banks(layout, acc, element_bytes=eb))
    want = banks_by_hand(offsets_by_hand(rows, cols, pitch, swizzle), eb)
    assert len(faces) == rows * cols
    palette = bank_palette(32)
    for (r, c), face in faces.items():
        assert np.allclose(face, palette[want[r, c]]), (r, c, want[r, c])


# -- the known answers: marked phase, conflicts, labels, bars, key ---------------------------

def test_rowmajor_float32_read_by_columns_flags_the_whole_column():
    fig = draw_banks(ROWMAJOR_32, COLUMNS, element_bytes=4)
    column0 = {(t, 0) for t in range(32)}          # request 0: thread t reads row t, column 0
    off = offsets_by_hand(32, 32, 32)
    assert flagged_by_hand(off, sorted(column0), 4) == column0      # all in bank 0: 32 words
    assert outlined(fig, "conflicts") == column0
    assert outlined(fig, "phase") == set()
    assert labels(fig) == {(t, 0.5): f"T{t}" for t in range(32)}
    bars = [p.get_height() for p in _axes(fig, "bank-bars").patches]
    assert bars == words_per_bank_by_hand(off, sorted(column0), 4) == [32] + [0] * 31
    key = key_text(fig)
    assert "bank 0: threads 0-31 read 32 different words" in key and "1024 wavefronts where 32 is ideal" in key


def test_padding_to_33_marks_the_column_and_flags_nothing():
    fig = draw_banks(PADDED_33, COLUMNS, element_bytes=4)
    column0 = {(t, 0) for t in range(32)}
    assert outlined(fig, "phase") == column0 and outlined(fig, "conflicts") == set()
    bars = [p.get_height() for p in _axes(fig, "bank-bars").patches]
    assert bars == words_per_bank_by_hand(offsets_by_hand(32, 32, 33), sorted(column0), 4) == [1] * 32
    assert "no conflict in this phase" in key_text(fig)


def test_phase_chooses_the_marked_column():
    fig = draw_banks(ROWMAJOR_32, COLUMNS, element_bytes=4, phase=5)
    assert outlined(fig, "conflicts") == {(t, 5) for t in range(32)}
    assert "phase 5 of 32" in key_text(fig)


@pytest.mark.parametrize("swizzle,flagged", [(None, True), ((3, 3, 3), False)])
def test_ldmatrix_x4_on_cutlass_half_tile(swizzle, flagged):
    layout = cute.Layout((8, 64), (64, 1))
    if swizzle is not None:
        layout = cute.composition(cute.Swizzle(*swizzle), layout)
    fig = draw_banks(layout, smem.ldmatrix(x4=True), element_bytes=2)
    matrix0 = {(t, c) for t in range(8) for c in range(8)}   # phase 0: row t of matrix 0, 8 halves each
    off = offsets_by_hand(8, 64, 64, swizzle)
    by_hand = flagged_by_hand(off, sorted(matrix0), 2)
    assert by_hand == (matrix0 if flagged else set())
    assert outlined(fig, "conflicts") == by_hand
    assert outlined(fig, "conflicts") | outlined(fig, "phase") == matrix0
    bars = [p.get_height() for p in _axes(fig, "bank-bars").patches]
    assert bars == words_per_bank_by_hand(off, sorted(matrix0), 2)
    assert max(bars) == (8 if flagged else 1)
    # one outline (and label) per thread: its 16-byte row
    assert labels(fig) == {(t, 4.0): f"T{t}" for t in range(8)}


@pytest.mark.parametrize("seed", range(6))
def test_marks_follow_the_phases_of_random_tiles(seed):
    rng = np.random.default_rng(seed)
    eb = int(rng.choice([1, 2, 4, 8]))
    rows, cols = [(8, 64), (16, 32), (32, 32), (64, 16)][seed % 4]
    per = 1 + seed % 2                       # elements per request: pairs along a row on odd seeds
    pitch = cols + 2 * int(rng.integers(0, 5))
    b, m = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    swizzle = (b, m, int(rng.integers(b, 6))) if seed % 3 else None   # M >= 1 keeps each pair together
    layout = cute.Layout((rows, cols), (pitch, 1))
    if swizzle is not None:
        layout = cute.composition(cute.Swizzle(*swizzle), layout)
    # thread t, value (e, k): element e + per*t + 32*per*k in row-major order, as a column-order index
    along = cute.Layout((32, (per, rows * cols // (32 * per))), (per, (1, 32 * per)))
    tv = cute.composition(cute.Layout((cols, rows), (rows, 1)), along)
    acc = smem.Access(threads=tv, width_bytes=eb * per)
    off = offsets_by_hand(rows, cols, pitch, swizzle)
    result = smem.conflicts(layout, acc, element_bytes=eb)
    for phase in (0, len(result.phases) - 1, None):
        fig = draw_banks(layout, acc, element_bytes=eb, phase=phase)
        chosen = result.worst_phase if phase is None else result.phases[phase]
        cells = sorted({(e % rows, e // rows) for es in chosen.elements for e in es})
        assert len(cells) == min(32, 128 // (eb * per) if eb * per > 4 else 32) * per
        assert outlined(fig, "phase") | outlined(fig, "conflicts") == set(cells)
        assert outlined(fig, "conflicts") == flagged_by_hand(off, cells, eb)
        bars = [p.get_height() for p in _axes(fig, "bank-bars").patches]
        assert bars == words_per_bank_by_hand(off, cells, eb)


def test_padded_framework_layout_draws_like_its_cute_twin():
    import layouts as ly
    framework = ly.Layout("HW", H=32, W=32, pitch={"H": 33})
    assert cell_faces(draw_banks(framework, COLUMNS, element_bytes=4)) == cell_faces(
        draw_banks(PADDED_33, COLUMNS, element_bytes=4))


def test_triton_swizzled_operand_and_its_linear_layout():
    tt = pytest.importorskip("layouts.linear.triton", reason="Triton encodings need layouts.linear.triton")
    vec, per_phase, max_phase, rows, cols = 8, 2, 4, 32, 32
    enc = tt.SwizzledSharedLayout(vec, per_phase, max_phase, [1, 0])
    # Triton's formula for a swizzled shared layout: the row's phase XORs the vec-element group index
    off = np.array([[r * cols + ((c // vec) ^ ((r // per_phase) % max_phase)) * vec + c % vec for c in range(cols)]
                    for r in range(rows)])
    x4 = smem.ldmatrix(x4=True)
    fig = draw_banks((enc, (rows, cols)), x4)
    faces, palette, banks = cell_faces(fig), bank_palette(32), banks_by_hand(off, 2)
    assert all(np.allclose(faces[(r, c)], palette[banks[r, c]]) for r in range(rows) for c in range(cols))
    matrix0 = {(t, c) for t in range(8) for c in range(8)}       # phase 0: the first 8x8 matrix, row t by thread t
    assert outlined(fig, "phase") == matrix0 and flagged_by_hand(off, sorted(matrix0), 2) == set()
    assert outlined(fig, "conflicts") == set()
    linear = tt.to_linear_layout(enc, [rows, cols])                # offset -> (dim0, dim1): the same memory
    assert cell_faces(draw_banks(linear, x4)) == faces


# -- house conventions ------------------------------------------------------------------------

def test_legible_at_900_px_and_small_labels_left_out_and_said():
    fig = draw_banks(cute.Layout((64, 64), (64, 1)), smem.Access(threads=cute.Layout((32, 128), (1, 32)),
                                                                   width_bytes=2))
    assert fig.get_size_inches()[0] <= 9.0
    assert labels(fig) == {}                                    # a 0.12-inch cell cannot hold "T31" at 7 pt
    assert "thread labels left out on 32 of 32 outlines" in key_text(fig)
    for fig in (fig, draw_banks(ROWMAJOR_32, COLUMNS, element_bytes=4)):
        texts = [*fig.texts, *(t for ax in fig.axes for t in ax.texts + [ax.title, ax._left_title] +
                               ax.get_xticklabels() + ax.get_yticklabels())]
        small = [(t.get_text(), t.get_fontsize()) for t in texts if t.get_text() and t.get_fontsize() < 7]
        assert not small


def test_into_an_existing_axes():
    from layouts.viz._figure import new_figure
    fig = new_figure(6, 6)
    ax = fig.add_axes((0.1, 0.3, 0.8, 0.6))
    assert draw_banks(PADDED_33, COLUMNS, element_bytes=4, ax=ax) is fig
    assert len(fig.axes) == 1 and _collection(ax, "cells") is not None
    assert outlined(fig, "phase") == {(t, 0) for t in range(32)}
    assert "no conflict" in key_text(fig)
    assert fig.to_png(dpi=50)[:4] == b"\x89PNG"


@pytest.mark.parametrize("kwargs,error,words", [
    ({"phase": -1}, LayoutError, "phase"),
    ({"phase": 32}, LayoutError, "phase is 32; this access has 32 phases"),
    ({"phase": True}, LayoutTypeError, "phase"),
    ({"phase": "worst"}, LayoutTypeError, "phase"),
    ({"element_bytes": 0}, LayoutError, "element_bytes"),
    ({"element_bytes": 2.0}, LayoutTypeError, "element_bytes"),
    ({"ax": "axes"}, LayoutTypeError, "ax must be a matplotlib Axes"),
    ({"title": 3}, LayoutTypeError, "title"),
])
def test_bad_arguments_are_refused_by_name(kwargs, error, words):
    args = {"element_bytes": 4, **kwargs}
    with pytest.raises(error, match=words):
        draw_banks(ROWMAJOR_32, COLUMNS, **args)


def test_a_tile_past_max_cells_is_refused_before_counting():
    big = cute.Layout((256, 256), (256, 1))
    assert 256 * 256 > MAX_CELLS
    with pytest.raises(LayoutError, match="MAX_CELLS"):
        draw_banks(big, smem.Access(threads=cute.Layout((32, 2048), (1, 32)), width_bytes=2))


def test_not_a_layout_is_refused():
    with pytest.raises((LayoutError, LayoutTypeError)):
        draw_banks("NCHW", COLUMNS)
