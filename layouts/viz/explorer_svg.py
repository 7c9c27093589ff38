"""The explorer's picture written straight to SVG from the numpy models: no matplotlib figure.

The explorer draws its picture again on every spec or size change, so it has its own writer:
the same panels as :meth:`ExplorerModel.figure` (the logical tensor, one memory strip per layout,
the colour key), the same colours, labels, stride separators, tags, keys and hatched padding, laid
out in points by the same rules (:func:`layouts.viz.compose.choose_cell`, the models' wraps and
geometry), but every cell is one ``<rect class="sl eN">`` (``pad`` for padding) that a browser can
restyle, and every text is an SVG ``<text>``. A row of cell labels is one ``<text>`` whose
characters each have their own x.

Each panel is a ``<g class="panel" data-spec=...>`` ("logical" for the logical tensor) whose slots
come in order: logical number in the logical panel, offset in a strip.

>>> from layouts.viz.explorer import ExplorerModel
>>> svg = explorer_svg(ExplorerModel(["NCHW", "NHWC"], dict(N=1, C=2, H=2, W=2)), "x1")
>>> svg.count('<rect class="sl e'), svg.count('data-spec="NHWC"')
(24, 1)
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ..named.layout import canonical_order
from . import _model, _style, _svg
from ..errors import LayoutTypeError
from ._overlay import HIGHLIGHT, check_uid

#: Points between the panels stacked in the picture.
PANEL_GAP = 6.0

FONT, NBSP, RUN = _svg.FONT, _svg.NBSP, _svg.RUN
_esc, _hexes, _Fills, _text = _svg.esc, _svg.hex_colors, _svg.Fills, _svg.text


#: Panels written lately, by what they show: a spec change redraws only the strips that changed.
_PANELS: OrderedDict = OrderedDict()
CACHED_PANELS = 32


def _panel(key, draw) -> tuple:
    """``draw(fills)`` -> (parts, height, width) at y = 0, remembered under ``key`` (None: not at all)."""
    if key is not None and key in _PANELS:
        _PANELS.move_to_end(key)
        return _PANELS[key]
    fills = _Fills()
    part, h, w = draw(fills)
    out = ("\n".join(part), h, w, frozenset(fills.used))
    if key is not None:
        _PANELS[key] = out
        while len(_PANELS) > CACHED_PANELS:
            _PANELS.popitem(last=False)
    return out


def _lines(x, y, lines, size, spacing=1.35, color="#333333") -> list:
    return [_text(x, y + (i + 0.8) * size * spacing, t, size, extra=f";fill:{color}") for i, t in enumerate(lines)]


def _cells(x0, y0, cell, cx, cy, numbers, faces, fills: _Fills, titles, edge_lw) -> list:
    """A rect per cell at cell coordinates ``cx``, ``cy`` (the slot the browser restyles)."""
    out = []
    xs = (x0 + cx * cell).tolist()
    ys = (y0 + cy * cell).tolist()
    colors = _hexes(faces)
    for i, (x, y, n, c) in enumerate(zip(xs, ys, numbers.tolist(), colors)):
        cls = f"sl e{n} {fills(c)}" if n >= 0 else "sl pad"
        title = f"<title>{_esc(titles[n] if n >= 0 else 'padding')}</title>" if titles is not None else ""
        out.append(f'<rect class="{cls}" x="{x:.1f}" y="{y:.1f}">{title}</rect>' if title else
                   f'<rect class="{cls}" x="{x:.1f}" y="{y:.1f}"/>')
    return out


_labels = _svg.cell_labels


def _strip(model, layout, *, marker, title, cell, x0, y0, axis, extent, fills, titles, uid, width) -> tuple:
    from .compose import _avail_cols, strip_colors
    from .strips import MARGINS, level_width, separator_slots, strip_key
    wrap = _model.default_wrap(layout, max_cols=_avail_cols(MARGINS, cell / 72, width / 72))
    size = layout.size
    k = np.arange(size, dtype=np.int64)
    cols, rows = k % wrap, k // wrap
    nrows = -(-size // wrap)
    left, top = x0 + MARGINS[0] * 72, y0 + MARGINS[1] * 72
    faces = strip_colors(model, axis, extent)
    edge_lw = min(0.9, 0.055 * cell) if cell >= 6 else 0.0
    spec = _esc(layout.parsed.text)
    out = [f'<g class="panel strip" data-spec="{spec}" style="stroke:#fff;stroke-width:{edge_lw:.2f}px">']
    out += _cells(left, top, cell, cols, rows, np.asarray(model.number), faces, fills, titles, edge_lw)
    out.append("</g>")
    pad = np.asarray(model.padding)
    real = np.flatnonzero(~pad)
    out += _labels(left, top, cell, cols[real], rows[real], [model.labels[i] for i in real.tolist()], faces[real], fills)
    for lv in model.levels:
        if lv.number == 0:
            continue
        ks = separator_slots(model, lv.number)
        d = []
        for kk in ks.tolist():
            c, r = kk % wrap, kk // wrap
            if c:
                d.append(f"M{left + c * cell:.1f} {top + r * cell:.1f}v{cell:.1f}")
            else:
                d.append(f"M{left:.1f} {top + r * cell:.1f}h{wrap * cell:.1f}")
        if d:
            out.append(f'<path d="{"".join(d)}" style="fill:none;stroke:{_style.LEVEL_COLOR};'
                       f'stroke-width:{level_width(lv.number, cell):.2f}px;pointer-events:none"/>')
    # the first jump of each level, tagged above the strip or beside its row (as draw_strip does)
    above, beside = 0, {}
    for lv in model.levels:
        ks = separator_slots(model, lv.number) if lv.number else np.flatnonzero(model.level == 0)
        if not ks.size:
            continue
        c, r = int(ks[0]) % wrap, int(ks[0]) // wrap
        if r == 0 and c > 0:
            dy = 5 + 10 * (above % 2)
            above += 1
            out.append(f'<path d="M{left + c * cell:.1f} {top:.1f}v{-(dy - 2):.1f}" style="stroke:#444;stroke-width:0.6px"/>')
            out.append(_text(left + c * cell, top - dy - 1, f"[{marker}:{lv.number}]", _style.TEXT_PT, "middle"))
        else:
            n = beside.get(r, 0)
            beside[r] = n + 1
            y = top + (r + (0 if c == 0 else 0.5)) * cell
            out.append(_text(left + wrap * cell + 4 + 26 * n, y + 2.7, f"[{marker}:{lv.number}]", _style.TEXT_PT))
    step = max(1, int(np.ceil(_style.TEXT_PT * 1.15 / max(cell, 1e-9))))
    for r in range(0, nrows, step):
        out.append(_text(left - 3, top + (r + 0.5) * cell + 2.7, str(r * wrap), _style.TEXT_PT, "end", ";fill:#555555"))
    out.append(_text(left - 30, top - 30, title, _style.TITLE_PT))
    dropped = _style.label_fontsize(cell, model.labels) < _style.MIN_FONTSIZE and any(model.labels)
    key = strip_key(model, marker, wrap=wrap, step=step, dropped=dropped).split("\n")
    out += _lines(left - 30, top + nrows * cell + 5, key, _style.TEXT_PT)
    height = MARGINS[1] * 72 + nrows * cell + MARGINS[3] * 72 + 5 + len(key) * _style.TEXT_PT * 1.35
    return out, height, left + wrap * cell + MARGINS[2] * 72 + 26 * max(beside.values(), default=0)


def _arrow(x0, y0, x1, y1, label, uid) -> list:
    lx, ly, anchor = (x1 + 4, y1 + 3, "start") if y0 == y1 else (x1, y1 + 11, "middle")
    return [f'<path d="M{x0:.1f} {y0:.1f}L{x1:.1f} {y1:.1f}" marker-end="url(#{uid}-arrow)" '
            f'style="stroke:#222;stroke-width:0.9px"/>',
            _text(lx, ly, label, _style.TITLE_PT, anchor, ";font-style:italic")]


def _logical(model, *, title, cell, x0, y0, axis, extent, fills, titles, uid, width) -> tuple:
    from .compose import logical_colors
    from .logical import MARGINS, PLANE_GAP_X, PLANE_GAP_Y, GROUP_GAP, geometry
    geom = geometry(model, max_cols=(width / 72 - MARGINS[0] - MARGINS[2]) / (cell / 72))
    left, top = x0 + MARGINS[0] * 72, y0 + MARGINS[1] * 72
    faces = logical_colors(model, axis, extent)
    edge_lw = min(0.9, 0.055 * cell) if cell >= 6 else 0.0
    out = [f'<g class="panel logical" data-spec="logical" style="stroke:#fff;stroke-width:{edge_lw:.2f}px">']
    out += _cells(left, top, cell, geom.x, geom.y, np.arange(model.layout.count), faces, fills, titles, edge_lw)
    out.append("</g>")
    out += _labels(left, top, cell, geom.x, geom.y, model.labels, faces, fills)
    r, ext = geom.roles, geom.extents
    W, H, P, G = ext["col"], ext["row"], ext["plane"], ext["group"]
    plane, group = r["plane"], r["group"]
    longest = len(f"{plane}={P - 1}") if plane else 0
    if plane and 0.9 * PLANE_GAP_Y * cell >= _style.TEXT_PT and (W + PLANE_GAP_X) * cell >= longest * _style.CHAR_EM * _style.TEXT_PT:
        group_h = -(-P // geom.per_row) * (H + PLANE_GAP_Y)
        for p in range(P):
            x = left + ((p % geom.per_row) * (W + PLANE_GAP_X) + W / 2) * cell
            for g in range(G):
                y = top + (g * (group_h + GROUP_GAP) + (p // geom.per_row) * (H + PLANE_GAP_Y) + PLANE_GAP_Y * 0.55) * cell
                out.append(_text(x, y + 2.7, f"{plane.lower()}={p}", _style.TEXT_PT, "middle", ";fill:#333333"))
    if group:
        group_h = -(-P // geom.per_row) * (H + PLANE_GAP_Y)
        sizes = [model.layout.dims[a] for a in group]
        for g in range(G):
            idx = np.unravel_index(g, sizes)
            label = ",".join(f"{a.lower()}={int(i)}" for a, i in zip(group, idx))
            x, y = left - 18, top + (g * (group_h + GROUP_GAP) + group_h / 2) * cell
            out.append(f'<text transform="translate({x:.1f},{y:.1f}) rotate(-90)" '
                       f'style="font-size:{_style.TEXT_PT}px;text-anchor:middle;fill:#333333">{_esc(label)}</text>')
    if r["col"] and W > 1:
        out += _arrow(left, top - 6, left + W * cell, top - 6, r["col"].lower(), uid)
    if plane and P > 1 and geom.per_row > 1:
        x1 = (min(P, geom.per_row) - 1) * (W + PLANE_GAP_X) + W / 2
        out += _arrow(left + W / 2 * cell, top - 20, left + x1 * cell, top - 20, plane.lower(), uid)
    if r["row"] and H > 1:
        out += _arrow(left - 6, top + PLANE_GAP_Y * cell, left - 6, top + (PLANE_GAP_Y + H) * cell, r["row"].lower(), uid)
    if group and G > 1:
        out += _arrow(left - 32, top + PLANE_GAP_Y * cell, left - 32, top + geom.rows * cell, group.lower(), uid)
    out.append(_text(left - 40, top - 34, title, _style.TITLE_PT))
    height = (MARGINS[1] + MARGINS[3]) * 72 + geom.rows * cell
    return out, height, left + geom.cols * cell + MARGINS[2] * 72


def _color_key(axis, extent, cell, x0, y0, fills) -> tuple:
    from .compose import AXIS_WORDS
    swatches = extent <= 40
    cols = extent if swatches else 40
    key_cell = max(cell, _style.label_cell_inches([str(extent - 1)]) * 72)
    left, top = x0 + 36, y0 + 22
    word = AXIS_WORDS.get(axis, "axis")
    title = (f"colour = {word} {axis.lower()}: {axis.lower()} = 0..{extent - 1}  (the same colour in every panel)")
    values = np.arange(extent) if swatches else np.round(np.linspace(0, extent - 1, cols)).astype(np.int64)
    faces = _style.value_colors(values, extent)
    out = [_text(left, top - 4, title, _style.TEXT_PT), '<g style="stroke:#fff;stroke-width:0.6px">']
    for i, c in enumerate(_hexes(faces)):
        out.append(f'<rect class="{fills(c)}" x="{left + i * key_cell:.1f}" y="{top:.1f}" '
                   f'width="{key_cell:.2f}" height="{key_cell:.2f}"/>')
    out.append("</g>")
    if swatches:
        out += _labels(left, top, key_cell, np.arange(cols), np.zeros(cols), [str(int(v)) for v in values], faces, fills)
    else:
        for i in sorted({0, cols // 2, cols - 1}):
            out.append(_text(left + (i + 0.5) * key_cell, top + key_cell + 9, str(int(values[i])), _style.TEXT_PT, "middle"))
    return out, 22 + key_cell + 22, left + cols * key_cell + 20


def explorer_svg(model, uid: str, titles: list | None = None) -> str:
    """The picture of an :class:`~layouts.viz.explorer.ExplorerModel` as SVG, in points (its
    ``<style>``, then the ``<svg>``): :func:`explorer_parts` joined.

    ``uid`` is the id of the element the SVG is shown in (its CSS is scoped to it); ``titles``,
    when given, holds the hover text of every logical number (a ``<title>`` in each slot, for a
    page without JavaScript); the padding slots then say "padding".
    """
    head, panels, tail = explorer_parts(model, uid, titles)
    return head + "\n".join(f'<g transform="translate(0,{y:.1f})">{part}</g>' for y, part in panels) + tail


def explorer_parts(model, uid: str, titles: list | None = None) -> tuple:
    """(head, panels, tail) of :func:`explorer_svg`: each panel is ``(y, svg)``, drawn at its own
    origin and shown ``y`` points down, so a browser can keep a panel it already shows.
    """
    uid = check_uid(uid)
    if not hasattr(model, "layouts") or not hasattr(model, "specs"):
        raise LayoutTypeError(f"model must be a layouts.viz.ExplorerModel, got {type(model).__name__}")
    if titles is not None and (not isinstance(titles, (list, tuple)) or len(titles) != model.layouts[0].count):
        raise LayoutTypeError(f"titles must be a list of {model.layouts[0].count} hover texts (one per element) or None")
    from .compose import LETTERS, choose_cell, describe, resolve_color_by
    first = model.layouts[0]
    axis = resolve_color_by(first, "auto")
    extent = first.dims[axis] if axis else 1
    cell = choose_cell(model.layouts, "logical", None) * 72
    width = _style.FIGURE_WIDTH * 72
    body, used, y, right = [], set(), 0.0, 0.0
    order = "".join(canonical_order(first.axes))
    dims = tuple(first.dims.items())
    common = (cell, axis, extent, uid, width)

    def add(key, draw):
        nonlocal y, right
        part, h, w, colors = _panel(None if titles is not None else key, draw)
        body.append((round(y, 1), part))
        used.update(colors)
        y, right = y + h + PANEL_GAP, max(right, w)

    add(("logical", order, dims) + common, lambda fills: _logical(
        _model.logical_model(first, label="logical"), title=f"logical tensor {order}: the chosen element is ringed in green",
        cell=cell, x0=0, y0=0, axis=axis, extent=extent, fills=fills, titles=titles, uid=uid, width=width))
    for i, L in enumerate(model.layouts):
        m = LETTERS[i % len(LETTERS)]
        add(("strip", L.parsed.text, dims, m) + common, lambda fills, L=L, m=m: _strip(
            _model.strip_model(L, label="logical"), L, marker=m, title=f"({m}) {describe(L)}", cell=cell,
            x0=0, y0=0, axis=axis, extent=extent, fills=fills, titles=titles, uid=uid, width=width))
    if axis is not None:
        add(("key", axis) + common, lambda fills: _color_key(axis, extent, cell, 0, 0, fills))
    y -= PANEL_GAP
    width_pt = max(width, right)
    hatch = (f'<defs><pattern id="{uid}-hatch" patternUnits="userSpaceOnUse" width="4" height="4">'
             f'<rect width="4" height="4" fill="{_style.PAD_FACE}"/>'
             f'<path d="M-1 1L1 -1M0 4L4 0M3 5L5 3" style="stroke:{_style.PAD_EDGE};stroke-width:0.5px"/></pattern>'
             f'<marker id="{uid}-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" '
             f'orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="#222"/></marker></defs>')
    style = (f"<style>{_Fills.css(uid, used)}#{uid} svg text{{{FONT}}}"
             f"#{uid} .sl{{width:{cell:.2f}px;height:{cell:.2f}px;pointer-events:all;cursor:pointer}}"
             f"#{uid} .sl.pad{{fill:url(#{uid}-hatch);stroke:{_style.PAD_EDGE};stroke-width:0.4px}}"
             f"#{uid} .sl:hover{{stroke:#000;stroke-width:1px}}"
             f"#{uid} .sl.hi{{stroke:{HIGHLIGHT};stroke-width:2.2px}}"
             f"#{uid} .ring{{width:{cell:.2f}px;height:{cell:.2f}px;fill:none;stroke:{HIGHLIGHT};stroke-width:2.2px;"
             f"pointer-events:none}}</style>")
    return (f'{style}<svg xmlns="http://www.w3.org/2000/svg" width="{width_pt:.0f}pt" height="{y:.0f}pt" '
            f'viewBox="0 0 {width_pt:.1f} {y:.1f}">{hatch}', body, "</svg>")
