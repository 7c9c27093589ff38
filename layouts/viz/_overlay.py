"""An SVG picture that a browser can highlight without redrawing it: one invisible slot per cell.

:func:`interactive_svg` writes a figure as SVG once and lays over every cell of its panels a
transparent ``<rect>`` classed by the element it holds (``e341``; padding slots ``pad``) and
titled with what a hover should say (its coordinates and its offset in every layout). Moving the
highlight is then a few bytes of CSS (:func:`highlight_css`): the browser restyles the rects of
one class, nothing is drawn again.

>>> print(highlight_css("x1", 341))
<style>#x1 .sl.e341{stroke:#00a000;stroke-width:2.2px}</style>
"""

from __future__ import annotations

import numpy as np

from ..errors import LayoutError, LayoutTypeError

HIGHLIGHT = "#00a000"


def _check_uid(uid) -> str:
    if not isinstance(uid, str):
        raise LayoutTypeError(f"uid must be a str (an HTML id), got {type(uid).__name__}")
    if not uid or not uid.replace("-", "").replace("_", "").isalnum() or not uid[0].isalpha():
        raise LayoutError(f"uid must be an HTML id (a letter, then letters, digits, - or _), got {uid!r}")
    return uid


#: The check of an HTML id, for the explorer's other writers.
check_uid = _check_uid


def highlight_css(uid: str, number: int, color: str = HIGHLIGHT) -> str:
    """The ``<style>`` that rings element ``number`` in every panel of the picture ``uid``."""
    uid = _check_uid(uid)
    return f"<style>#{uid} .sl.e{int(number)}{{stroke:{color};stroke-width:2.2px}}</style>"


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def slot_rects(fig, ax, x, y, classes, titles) -> list:
    """``<rect>`` elements over the unit cells with top-left corners ``x``, ``y`` of ``ax``, in the
    SVG coordinates :func:`layouts.viz.to_svg` writes ``fig`` in (points, y down)."""
    scale = 72.0 / fig.dpi
    height = fig.get_size_inches()[1] * 72.0
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    p0 = ax.transData.transform(np.stack([x, y], -1)) * scale
    p1 = ax.transData.transform(np.stack([x + 1, y + 1], -1)) * scale
    left = np.minimum(p0[:, 0], p1[:, 0])
    top = height - np.maximum(p0[:, 1], p1[:, 1])
    w = np.abs(p1[:, 0] - p0[:, 0])
    h = np.abs(p1[:, 1] - p0[:, 1])
    return [f'<rect class="sl {c}" x="{a:.1f}" y="{b:.1f}" width="{cw:.1f}" height="{ch:.1f}"><title>{_esc(t)}</title></rect>'
            for a, b, cw, ch, c, t in zip(left.tolist(), top.tolist(), w.tolist(), h.tolist(), classes, titles)]


def _hex(rgba) -> str:
    r, g, b = (int(round(255 * float(v))) for v in rgba[:3])
    return f"#{r:02x}{g:02x}{b:02x}"


class _Classes:
    """CSS classes for repeated fills, so each cell or label names its colour in a few bytes."""

    def __init__(self, prefix: str):
        self.prefix, self.names = prefix, {}

    def name(self, color: str) -> str:
        """The class of ``color`` ('#1f77b4')."""
        return self.names.setdefault(color, f"{self.prefix}{len(self.names)}")

    def css(self, uid: str) -> str:
        return "".join(f"#{uid} .{name}{{fill:{color}}}" for color, name in self.names.items())


def _cells_svg(fig, coll, fills: _Classes) -> list:
    """The squares of a cells PolyCollection in to_svg's coordinates: one ``<path>`` per colour."""
    paths = coll.get_paths()
    if not paths:
        return []
    corners = np.array([p.vertices[:4] for p in paths])
    lo, hi = corners.min(axis=1), corners.max(axis=1)
    tr = coll.get_transform()
    scale = 72.0 / fig.dpi
    height = fig.get_size_inches()[1] * 72.0
    a = tr.transform(lo) * scale
    b = tr.transform(hi) * scale
    left, right = np.minimum(a[:, 0], b[:, 0]), np.maximum(a[:, 0], b[:, 0])
    top, bottom = height - np.maximum(a[:, 1], b[:, 1]), height - np.minimum(a[:, 1], b[:, 1])
    faces = coll.get_facecolors()
    if len(faces) == 1:
        faces = np.repeat(faces, len(paths), axis=0)
    lw = float(coll.get_linewidths()[0]) if len(coll.get_linewidths()) else 0.0
    edge = _hex(coll.get_edgecolors()[0]) if lw > 0 and len(coll.get_edgecolors()) else "none"
    by_fill: dict = {}
    for x, y, w, h, f in zip(left.tolist(), top.tolist(), (right - left).tolist(), (bottom - top).tolist(),
                             _hexes(faces)):
        by_fill.setdefault(f, []).append(f"M{x:.1f} {y:.1f}h{w:.1f}v{h:.1f}h{-w:.1f}z")
    return [f'<path class="{fills.name(f)}" style="stroke:{edge};stroke-width:{lw:.2f}" d="{"".join(d)}"/>'
            for f, d in by_fill.items()]


def _hexes(rgba) -> list:
    """``_hex`` of every row of an (n, 4) array, computed once per distinct colour."""
    rgba = np.asarray(rgba, dtype=float)
    uniq, inverse = np.unique(np.round(rgba[:, :3] * 255).astype(np.int64), axis=0, return_inverse=True)
    names = [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in uniq.tolist()]
    return [names[i] for i in np.asarray(inverse).reshape(-1).tolist()]


def _lines_svg(fig, coll) -> list:
    """One ``<path>`` for all the segments of a LineCollection (the separators of one stride level)."""
    segs = coll.get_segments()
    if not segs:
        return []
    scale = 72.0 / fig.dpi
    height = fig.get_size_inches()[1] * 72.0
    pts = coll.get_transform().transform(np.concatenate(segs)) * scale
    pts[:, 1] = height - pts[:, 1]
    d, i = [], 0
    for seg in segs:
        n = len(seg)
        d.append("M" + "L".join(f"{x:.1f} {y:.1f}" for x, y in pts[i:i + n].tolist()))
        i += n
    color = _hex(coll.get_colors()[0])
    lw = float(coll.get_linewidths()[0])
    return [f'<path d="{"".join(d)}" style="fill:none;stroke:{color};stroke-width:{lw:.2f};stroke-linecap:butt"/>']


def _labels_svg(fig, labels, fills: _Classes) -> list:
    """Cell labels as one ``<text>`` per baseline and colour, each character placed by its own x
    (an SVG text chunk per character: a row of forty labels is one element, not forty)."""
    lines = labels.svg_lines(fig)
    if not lines:
        return []
    colors = _hexes(np.array([c for _, _, _, c in lines]))
    rows: dict = {}
    for (xs, y, line, _), color in zip(lines, colors):
        xs_row, chars = rows.setdefault((round(y, 1), color), ([], []))
        for x, ch in zip(xs, line):
            if not ch.isspace():
                xs_row.append(f"{x:.1f}")
                chars.append(ch)
    family = labels.prop.get_name()
    out = [f"<g style=\"font-family:'{family}',sans-serif;font-size:{labels.fontsize:.2f}px;pointer-events:none\">"]
    for (y, color), (xs, chars) in rows.items():
        out.append(f'<text class="{fills.name(color)}" x="{" ".join(xs)}" y="{y:.1f}">{_esc("".join(chars))}</text>')
    out.append("</g>")
    return out


def interactive_svg(fig, uid: str, layers: list) -> str:
    """SVG of ``fig`` for a browser, in a ``<div id=uid>``: its cells and cell labels written
    directly (a rect and a text each, colours as CSS classes), the rest by matplotlib, the static
    rings left out, and ``layers`` of transparent slots on top.

    ``layers`` holds ``(ax, x, y, classes, titles)`` per panel: the cell corners in data
    coordinates, each slot's CSS class and its hover text.
    """
    from ._cells import CellLabels
    from ._figure import to_svg
    uid = _check_uid(uid)
    cells = [c for ax in fig.axes for c in ax.collections
             if c.get_gid() == "cells" and not c.get_hatch() and c.get_visible()]
    labels = [a for ax in fig.axes for a in ax.get_children() if isinstance(a, CellLabels) and a.get_visible()]
    rings = [c for ax in fig.axes for c in ax.collections if c.get_gid() == "highlight" and c.get_visible()]
    levels = [c for ax in fig.axes for c in ax.collections
              if (c.get_gid() or "").startswith("level-") and c.get_visible() and c.get_transform() is ax.transData]
    hidden = cells + labels + rings + levels
    for a in hidden:
        a.set_visible(False)
    try:
        svg = to_svg(fig, compact=False)  # what is left is small; compacting it would cost more than it saves
    finally:
        for a in hidden:
            a.set_visible(True)
    fills = _Classes("f")
    drawn = []
    for c in cells:
        drawn.extend(_cells_svg(fig, c, fills))
    for lab in labels:
        drawn.extend(_labels_svg(fig, lab, fills))
    for c in levels:
        drawn.extend(_lines_svg(fig, c))
    rects = []
    for ax, x, y, classes, titles in layers:
        rects.extend(slot_rects(fig, ax, x, y, classes, titles))
    style = ("<style>" + fills.css(uid) +
             f"#{uid} .sl{{fill:#fff;fill-opacity:0;stroke:none;pointer-events:all}}"
             f"#{uid} .sl:hover{{stroke:#000;stroke-width:1px}}"
             "</style>")
    cut = svg.find('<g id="axes_')
    if cut < 0:
        cut = svg.rindex("</svg>")
    body = svg[svg.index("<svg"):cut] + '<g id="cells">\n' + "\n".join(drawn) + "\n</g>\n" + svg[cut:]
    head, _, _ = body.rpartition("</svg>")
    body = head + '<g id="slots">\n' + "\n".join(rects) + "\n</g>\n</svg>"
    return f'<div id="{uid}" class="layouts-explorer-picture">{style}{body}</div>'
