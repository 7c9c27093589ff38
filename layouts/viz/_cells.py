"""Fast drawing primitives for pictures made of many small cells: squares, rings and cell labels.

Matplotlib draws a ``Text`` artist by laying it out and rasterising it glyph by glyph; a picture
with thousands of cell labels spends seconds there. :class:`CellLabels` draws every label of a
panel as one artist: each glyph outline is made once per font size, a label is its glyphs placed
side by side, and the whole set is filled by one ``PathCollection`` on raster canvases (PNG). On
SVG canvases it writes one ``<text>`` element per label line, so SVG files stay small and keep
searchable text. The look is a Text's: centred on the cell (ink centred in each line), the same
font, size and colour.

The API, shared by every module that draws cells (``strips``, ``logical``, ``compose``, ``cute``):

* :func:`squares` -- unit squares as polygons (for a ``PolyCollection`` of cells, one artist);
* :func:`add_cells` -- such a collection, added to an Axes;
* :func:`add_ring` -- outlines around chosen cells (a highlight), one artist;
* :func:`add_cell_labels` -- a :class:`CellLabels` of centred labels, one artist;
* :func:`cell_labels` -- the :class:`CellLabels` of an Axes (to read a figure back), and
  :meth:`CellLabels.views`, one Text-like view per label (``get_text``, ``get_position``,
  ``get_fontsize``, ``get_window_extent``) for tests and tools that read labels back.

>>> from matplotlib.figure import Figure
>>> fig = Figure(figsize=(2, 1)); ax = fig.add_axes((0, 0, 1, 1)); _ = ax.set_xlim(0, 4), ax.set_ylim(1, 0)
>>> cells = add_cells(ax, [0, 1, 2, 3], [0, 0, 0, 0], faces="#c9d7ea", gid="cells")
>>> labels = add_cell_labels(ax, [0.5, 1.5, 2.5, 3.5], [0.5] * 4, ["0", "1", "", "3"], fontsize=8)
>>> [v.get_text() for v in labels.views()], len(cells.get_paths())
(['0', '1', '3'], 4)
"""

from __future__ import annotations

import numpy as np
from matplotlib.artist import Artist
from matplotlib.collections import PathCollection, PolyCollection
from matplotlib.path import Path
from matplotlib.transforms import Affine2D, Bbox, IdentityTransform

from ..errors import LayoutError, LayoutTypeError


def squares(x, y, inset: float = 0.0) -> np.ndarray:
    """Unit squares (as polygons) with top-left corners at x, y (y grows downwards)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    a, b = inset, 1.0 - inset
    return np.stack([
        np.stack([x + a, y + a], -1), np.stack([x + b, y + a], -1),
        np.stack([x + b, y + b], -1), np.stack([x + a, y + b], -1),
    ], 1)


def add_cells(ax, x, y, *, faces, edges="white", linewidth: float = 0.0, gid: str = "cells",
              hatch: str | None = None, zorder: float = 1) -> PolyCollection:
    """One ``PolyCollection`` of unit cells with top-left corners ``x``, ``y``, added to ``ax``."""
    cells = PolyCollection(squares(x, y), facecolors=faces, edgecolors=edges, linewidths=linewidth, hatch=hatch,
                           gid=gid, zorder=zorder)
    ax.add_collection(cells)
    return cells


def add_ring(ax, x, y, cells, color: str = "black", linewidth: float | None = None,
             gid: str = "highlight") -> PolyCollection:
    """Outline the cells ``cells`` (indices into the cell corners ``x``, ``y``); move it with :func:`move_ring`."""
    ring = PolyCollection([], facecolors="none", edgecolors=color,
                          linewidths=linewidth or (1.6 if color == "black" else 2.2), gid=gid, zorder=5)
    move_ring(ring, x, y, cells)
    ax.add_collection(ring)
    return ring


def move_ring(ring: PolyCollection, x, y, cells) -> None:
    """Put ``ring`` around other cells: no new artist, only its squares change."""
    ks = np.asarray(cells, dtype=np.int64).reshape(-1)
    ring.set_verts(list(squares(np.asarray(x)[ks], np.asarray(y)[ks], inset=0.04)))
    ring.stale = True


# ---------------------------------------------------------------- glyph outlines, made once per size
_GLYPHS: dict = {}
_LABELS: dict = {}
_CACHE_LIMIT = 50_000


def _font(prop):
    from matplotlib.font_manager import findfont, get_font
    return get_font(findfont(prop))


def _no_hinting():
    from matplotlib import ft2font
    flags = getattr(ft2font, "LoadFlags", None)
    return flags.NO_HINTING if flags is not None else ft2font.LOAD_NO_HINTING


def _glyph(prop, size: float, char: str):
    """(vertices, codes, advance) of one character at ``size`` points, pen at 0, baseline at 0."""
    from matplotlib.textpath import text_to_path
    key = (prop.get_family()[0], prop.get_style(), prop.get_weight(), size, char)
    hit = _GLYPHS.get(key)
    if hit is None:
        if len(_GLYPHS) > _CACHE_LIMIT:
            _GLYPHS.clear()
        p = prop.copy()
        p.set_size(size)
        verts, codes = text_to_path.get_text_path(p, char)  # drawn at FONT_SCALE points, whatever p's size
        font = _font(p)
        font.set_size(size, 72)
        advance = font.load_char(ord(char), flags=_no_hinting()).linearHoriAdvance / 65536
        verts = np.asarray(verts, dtype=float).reshape(-1, 2) * (size / text_to_path.FONT_SCALE)
        hit = (verts, np.asarray(codes, dtype=np.uint8), advance)
        _GLYPHS[key] = hit
    return hit


def _line_height(prop, size: float, linespacing: float) -> float:
    """Points between baselines of a multi-line label (the font's ascent + descent times ``linespacing``)."""
    font = _font(prop)
    for table, asc, desc in (("OS/2", "sTypoAscender", "sTypoDescender"), ("hhea", "ascent", "descent")):
        t = font.get_sfnt_table(table)
        if t and asc in t and desc in t:             # matplotlib 3.10's OS/2 table lacks the sTypo metrics
            em = font.get_sfnt_table("head")["unitsPerEm"]
            return linespacing * (t[asc] - t[desc]) * size / em
    return linespacing * 1.17 * size


def _label(prop, size: float, linespacing: float, text: str, ha: str = "center", va: str = "center"):
    """The outline of ``text`` in points, y up, centred on (0, 0) vertically and, by ``ha``, horizontally
    (``"right"``: its ink ends at 0, ``"left"``: starts at 0); and each line's (text, pen x, baseline).
    ``va="baseline"``: one line as a Text draws it, the pen starting at 0 on the baseline y = 0."""
    key = (prop.get_family()[0], prop.get_style(), prop.get_weight(), size, linespacing, text, ha, va)
    hit = _LABELS.get(key)
    if hit is not None:
        return hit
    if len(_LABELS) > _CACHE_LIMIT:
        _LABELS.clear()
    lines = text.split("\n")
    step = _line_height(prop, size, linespacing)
    verts, codes, anchors = [], [], []
    for i, line in enumerate(lines):
        pen, lv, lc, advances = 0.0, [], [], []
        for ch in line:
            v, c, adv = _glyph(prop, size, ch)
            if len(v):
                lv.append(v + (pen, 0.0))
                lc.append(c)
            pen += adv
            advances.append(adv)
        box_mid = (len(lines) - 1) / 2 * step - i * step   # this line's centre, the label centred on 0
        if lv:
            v = np.concatenate(lv)
            x0, x1 = v[:, 0].min(), v[:, 0].max()
            y0, y1 = v[:, 1].min(), v[:, 1].max()
            if va == "baseline":
                shift = np.zeros(2)
            else:
                dx = {"center": -(x0 + x1) / 2, "right": -x1, "left": -x0}[ha]
                shift = np.array([dx, box_mid - (y0 + y1) / 2])
            verts.append(v + shift)
            codes.append(np.concatenate(lc))
            starts = np.cumsum([0.0] + advances[:-1])   # where each character's pen starts, for SVG text
            anchors.append((line, shift[0] + {"center": pen / 2, "right": pen, "left": 0.0}[ha], shift[1],
                            (shift[0] + starts).tolist()))
    if verts:
        path = Path(np.concatenate(verts), np.concatenate(codes))
    else:
        path = Path(np.zeros((1, 2)), [Path.MOVETO])
    hit = (path, anchors)
    _LABELS[key] = hit
    return hit


class CellLabels(Artist):
    """Centred labels at data points of an Axes (one per cell), drawn as one artist.

    ``texts[i]`` is drawn centred on ``(x[i], y[i])`` in ``colors[i]`` at ``fontsize`` points;
    lines (``"1,0\\n2,3"``) are ``linespacing`` apart. Raster canvases fill the glyph outlines
    in one path collection; SVG canvases get one ``<text>`` per line.
    """

    zorder = 4

    def __init__(self, x, y, texts, *, fontsize: float, colors=None, linespacing: float = 0.95,
                 gid: str = "cell-label", zorder: float = 4, fontproperties=None, ha: str = "center",
                 offset: tuple = (0.0, 0.0)):
        from matplotlib.colors import to_rgba_array
        from matplotlib.font_manager import FontProperties
        super().__init__()
        x = np.asarray(x, dtype=float).reshape(-1)
        y = np.asarray(y, dtype=float).reshape(-1)
        texts = list(texts)
        if not (len(x) == len(y) == len(texts)):
            raise LayoutError(f"CellLabels: x, y and texts must be as long as each other, got {len(x)}, {len(y)}, {len(texts)}")
        if not all(isinstance(t, str) for t in texts):
            raise LayoutTypeError("CellLabels: texts must be str")
        if ha not in ("center", "left", "right"):
            raise LayoutError(f"CellLabels: ha must be 'center', 'left' or 'right', got {ha!r}")
        self.ha = ha
        self.offset = (float(offset[0]), float(offset[1]))   # points, added to every position
        if colors is None:
            colors = "black"
        rgba = to_rgba_array(colors)
        if len(rgba) == 1:
            rgba = np.repeat(rgba, len(texts), axis=0)
        keep = np.array([bool(t) for t in texts], dtype=bool)
        self.texts = [t for t, k in zip(texts, keep) if k]
        self.positions = np.stack([x[keep], y[keep]], -1) if keep.any() else np.zeros((0, 2))
        self.colors = rgba[keep]
        self.fontsize = float(fontsize)
        self.linespacing = float(linespacing)
        self.prop = (fontproperties or FontProperties()).copy()
        self.prop.set_size(self.fontsize)
        self.set_gid(gid)
        self.set_zorder(zorder)
        self._paths = None

    def _outlines(self):
        if self._paths is None:
            self._paths = [_label(self.prop, self.fontsize, self.linespacing, t, self.ha) for t in self.texts]
        return self._paths

    def draw(self, renderer):
        if not self.get_visible() or not self.texts:
            return
        renderer.open_group("cell-labels", gid=None)
        if _writes_svg_text(renderer):
            self._draw_as_text(renderer)
        else:
            self._draw_as_paths(renderer)
        renderer.close_group("cell-labels")
        self.stale = False

    def _draw_as_paths(self, renderer):
        outlines = self._outlines()
        coll = PathCollection([p for p, _ in outlines], offsets=self.positions,
                              offset_transform=self._offset_transform(), facecolors=self.colors,
                              edgecolors="none", linewidths=0.0, antialiaseds=True)
        coll.set_transform(Affine2D().scale(renderer.points_to_pixels(1.0)))
        coll.set_figure(self.axes.figure)
        coll.draw(renderer)

    def _offset_transform(self):
        """Data to display, shifted by ``offset`` points."""
        from matplotlib.transforms import ScaledTranslation
        if self.offset == (0.0, 0.0):
            return self.axes.transData
        fig = self.axes.get_figure()
        return self.axes.transData + ScaledTranslation(self.offset[0] / 72, self.offset[1] / 72, fig.dpi_scale_trans)

    def _draw_as_text(self, renderer):
        points = self._offset_transform().transform(self.positions)
        scale = renderer.points_to_pixels(1.0)
        gc = renderer.new_gc()
        height = renderer.height
        last = None
        for (px, py), (_, anchors), color in zip(points, self._outlines(), self.colors):
            key = tuple(color)
            if key != last:
                gc.set_foreground(color, isRGBA=True)
                last = key
            for line, dx, base, _ in anchors:
                anchor = _Anchor(px + dx * scale, py + base * scale)
                anchor.ha = self.ha
                renderer.draw_text(gc, anchor.x, height - anchor.y, line, self.prop, 0.0, mtext=anchor)
        gc.restore()

    def svg_lines(self, fig) -> list:
        """(xs, y, line, rgba) of every label line in the SVG coordinates :func:`layouts.viz.to_svg` writes
        ``fig`` in (points, y down): xs is where each character starts, y the baseline."""
        scale = 72.0 / fig.dpi
        height = fig.get_size_inches()[1] * 72.0
        points = self._offset_transform().transform(self.positions) * scale
        out = []
        for (px, py), (_, anchors), color in zip(points.tolist(), self._outlines(), self.colors):
            for line, _, base, starts in anchors:
                out.append(([px + x for x in starts], height - (py + base), line, color))
        return out

    def views(self) -> list:
        """One Text-like view per label: ``get_text``, ``get_position``, ``get_fontsize``, ``get_window_extent``."""
        return [LabelView(self, i) for i in range(len(self.texts))]

    def get_window_extent(self, renderer=None):
        boxes = [v.get_window_extent(renderer) for v in self.views()]
        return Bbox.union(boxes) if boxes else Bbox.null()


def _writes_svg_text(renderer) -> bool:
    """True on an SVG canvas that keeps text as text (``svg.fonttype`` 'none', as :func:`to_svg` sets)."""
    import matplotlib
    from matplotlib.backends.backend_mixed import MixedModeRenderer
    from matplotlib.backends.backend_svg import RendererSVG
    inner = renderer._renderer if isinstance(renderer, MixedModeRenderer) else renderer
    return isinstance(inner, RendererSVG) and matplotlib.rcParams["svg.fonttype"] == "none"


class _Anchor:
    """What an SVG renderer reads from a Text to write ``text-anchor: middle`` at a point."""

    def __init__(self, x: float, y: float):
        self.x, self.y = x, y

    def get_transform(self):
        return IdentityTransform()

    def get_unitless_position(self):
        return (self.x, self.y)

    def get_rotation_mode(self):
        return "default"

    ha = "center"

    def get_ha(self):
        return self.ha

    def get_fontfeatures(self):
        return None

    def get_language(self):
        return None


class LabelView:
    """A read-only, Text-like view of one label of a :class:`CellLabels`."""

    def __init__(self, labels: CellLabels, i: int):
        self._labels, self._i = labels, i

    def get_text(self) -> str:
        return self._labels.texts[self._i]

    def get_position(self) -> tuple:
        x, y = self._labels.positions[self._i]
        return (float(x), float(y))

    def get_fontsize(self) -> float:
        return self._labels.fontsize

    def get_color(self):
        return tuple(self._labels.colors[self._i])

    def get_gid(self) -> str:
        return self._labels.get_gid()

    def get_visible(self) -> bool:
        return self._labels.get_visible()

    def get_window_extent(self, renderer=None):
        labels = self._labels
        path, _ = labels._outlines()[self._i]
        dpi = labels.axes.get_figure().dpi
        ext = path.get_extents()
        cx, cy = labels._offset_transform().transform(labels.positions[self._i])
        s = dpi / 72
        return Bbox.from_extents(cx + ext.x0 * s, cy + ext.y0 * s, cx + ext.x1 * s, cy + ext.y1 * s)


def add_cell_labels(ax, x, y, texts, *, fontsize: float, colors=None, linespacing: float = 0.95,
                    gid: str = "cell-label", zorder: float = 4, ha: str = "center", offset=(0.0, 0.0)) -> CellLabels:
    """A :class:`CellLabels` (empty texts left out), added to ``ax``; ``offset`` in points moves them all."""
    labels = CellLabels(x, y, texts, fontsize=fontsize, colors=colors, linespacing=linespacing, gid=gid, zorder=zorder,
                        ha=ha, offset=offset)
    ax.add_artist(labels)
    labels.set_clip_on(False)
    return labels


def cell_labels(ax, gid: str | None = None) -> list:
    """The :class:`CellLabels` artists of ``ax`` (with this gid, when given)."""
    return [a for a in ax.get_children() if isinstance(a, CellLabels) and (gid is None or a.get_gid() == gid)]
