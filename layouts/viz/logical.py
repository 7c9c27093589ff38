"""The logical tensor: a grid of planes (rows x cols of the two innermost axes), as the article draws it.

For the image axes NCHW: each plane is H rows by W columns; the C planes of one image sit side
by side (wrapped into rows of planes); the N images are stacked. Arrows show the W, H, C and N
directions. Other axis sets map the same way: the last two canonical axes form the plane, the one
before them runs across planes, and any further outer axes are flattened into the stacking.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from matplotlib.collections import PolyCollection

from . import _style
from ._model import LogicalModel
from ._cells import add_cell_labels
from .strips import add_highlight, squares

PLANE_GAP_X = 0.5
PLANE_GAP_Y = 1.0   # room for the "c=3" title of each plane
GROUP_GAP = 0.8

#: Margins (inches): left holds the h/n arrows and image titles, top the w/c arrows.
MARGINS = (0.62, 0.62, 0.15, 0.2)


@dataclass
class Geometry:
    x: np.ndarray
    y: np.ndarray
    cols: float
    rows: float
    per_row: int
    roles: dict          # 'col', 'row', 'plane', 'group' -> axis letter(s) or None
    extents: dict        # same keys -> sizes


def _roles(order: str, dims: dict) -> tuple[dict, dict]:
    axes = list(order)
    roles = {"col": axes[-1] if axes else None,
             "row": axes[-2] if len(axes) >= 2 else None,
             "plane": axes[-3] if len(axes) >= 3 else None,
             "group": "".join(axes[:-3]) if len(axes) >= 4 else None}
    extents = {k: (math.prod(dims[a] for a in v) if v else 1) for k, v in roles.items()}
    return roles, extents


def geometry(model: LogicalModel, per_row: int | None = None, max_cols: float | None = None) -> Geometry:
    """Cell positions of the logical panel; ``max_cols`` (cells) bounds its width when ``per_row`` is chosen."""
    dims = model.layout.dims
    roles, ext = _roles(model.order, dims)
    W, H, P, G = ext["col"], ext["row"], ext["plane"], ext["group"]
    if per_row is None:
        per_row = _planes_per_row(W, H, P, G, max_cols=max_cols)
    per_row = max(1, min(per_row, max(P, 1)))
    prow = -(-P // per_row)
    group_h = prow * (H + PLANE_GAP_Y)
    n = np.arange(model.layout.count, dtype=np.int64)
    w = n % W
    h = (n // W) % H
    p = (n // (W * H)) % P
    g = n // (W * H * P)
    x = (p % per_row) * (W + PLANE_GAP_X) + w
    y = g * (group_h + GROUP_GAP) + (p // per_row) * (H + PLANE_GAP_Y) + PLANE_GAP_Y + h
    cols = per_row * W + (per_row - 1) * PLANE_GAP_X
    rows = G * group_h + (G - 1) * GROUP_GAP
    return Geometry(x, y, cols, rows, per_row, roles, ext)


def _planes_per_row(W: int, H: int, P: int, G: int, aspect: float = 1.5, max_cols: float | None = None) -> int:
    best, score = 1, float("inf")
    for k in range(1, max(P, 1) + 1):
        cols = k * W + (k - 1) * PLANE_GAP_X
        if max_cols is not None and k > 1 and cols > max_cols:
            break
        rows = G * (-(-P // k)) * (H + PLANE_GAP_Y)
        s = abs(math.log(cols / rows / aspect)) + (0.15 if P % k else 0.0)
        if s < score:
            best, score = k, s
    return best


def draw_logical(ax, model: LogicalModel, *, colors: np.ndarray, cell_in: float, geom: Geometry | None = None,
                 title: str | None = None, show_text: bool | None = None, highlight=None, fade: bool = False,
                 highlight_color: str = "black") -> dict:
    geom = geom or geometry(model)
    ax.set_xlim(0, geom.cols)
    ax.set_ylim(geom.rows, 0)
    ax.set_aspect("equal", adjustable="box")
    ax.set_axis_off()
    cell_pt = cell_in * 72
    faces = colors.copy()
    if fade:
        faces[:, :3] = 1 - 0.35 * (1 - faces[:, :3])
    cells = PolyCollection(squares(geom.x, geom.y), facecolors=faces, edgecolors=_style.CELL_EDGE,
                           linewidths=min(0.9, 0.055 * cell_pt) if cell_pt >= 6 else 0.0, gid="cells")
    ax.add_collection(cells)
    out = {"cells": cells, "labels": [], "arrows": []}
    from .strips import TEXT_LIMIT
    if show_text is None:
        show_text = model.layout.count <= TEXT_LIMIT
    fs = _style.label_fontsize(cell_pt, model.labels) if show_text else 0.0
    if fs >= _style.MIN_FONTSIZE:
        tc = _style.text_colors(faces)
        if fade:
            tc[:] = (0.35, 0.35, 0.35, 1.0)
        out["labels"] = add_cell_labels(ax, geom.x + 0.5, geom.y + 0.5, model.labels, fontsize=fs, colors=tc)
    out["labels_dropped"] = fs < _style.MIN_FONTSIZE and any(model.labels)
    _plane_titles(ax, model, geom, cell_pt)
    out["arrows"] = _arrows(ax, geom)
    if highlight is not None:
        out["highlight"] = add_highlight(ax, geom.x, geom.y, highlight, highlight_color)
    if title is not None:
        out["title"] = ax.annotate(title, xy=(0, 1), xycoords="axes fraction", xytext=(-40, 32), textcoords="offset points",
                                   fontsize=_style.TITLE_PT, va="bottom", ha="left", gid="title", annotation_clip=False)
    return out


def _plane_titles(ax, model: LogicalModel, geom: Geometry, cell_pt: float) -> None:
    plane, group = geom.roles["plane"], geom.roles["group"]
    W, H, P, G = (geom.extents[k] for k in ("col", "row", "plane", "group"))
    longest = len(f"{plane}={P - 1}") if plane else 0
    fits = 0.9 * PLANE_GAP_Y * cell_pt >= _style.TEXT_PT and (W + PLANE_GAP_X) * cell_pt >= longest * _style.CHAR_EM * _style.TEXT_PT
    fs = _style.TEXT_PT
    if plane and fits:
        xs, ys, texts = [], [], []
        for p in range(P):
            x = (p % geom.per_row) * (W + PLANE_GAP_X) + W / 2
            for g in range(G):
                y = g * (-(-P // geom.per_row) * (H + PLANE_GAP_Y) + GROUP_GAP) + (p // geom.per_row) * (H + PLANE_GAP_Y)
                xs.append(x)
                ys.append(y + PLANE_GAP_Y * 0.55)
                texts.append(f"{plane.lower()}={p}")
        add_cell_labels(ax, xs, ys, texts, fontsize=fs, colors="#333333", gid="plane-title", zorder=3)
    if group:
        group_h = -(-P // geom.per_row) * (H + PLANE_GAP_Y)
        names = ",".join(a.lower() for a in group)
        sizes = [model.layout.dims[a] for a in group]
        for g in range(G):
            idx = np.unravel_index(g, sizes)
            label = ",".join(f"{a.lower()}={int(i)}" for a, i in zip(group, idx)) if len(group) > 1 else f"{names}={g}"
            ax.annotate(label, (0, g * (group_h + GROUP_GAP) + group_h / 2), xytext=(-18, 0), textcoords="offset points",
                        rotation=90, ha="center", va="center", fontsize=_style.TEXT_PT, color="#333333", gid="group-title",
                        annotation_clip=False)


def _arrow(ax, start, end, offset, label, label_at="end"):
    from matplotlib.transforms import offset_copy
    (x0, y0), (x1, y1) = start, end
    # the whole arrow sits in the margin, a fixed number of points away from the cells
    tr = offset_copy(ax.transData, fig=ax.get_figure(), x=offset[0], y=offset[1], units="points")
    ann = ax.annotate("", xy=(x1, y1), xycoords=tr, xytext=(x0, y0), textcoords=tr,
                      arrowprops=dict(arrowstyle="-|>", color="#222222", lw=0.9, mutation_scale=7,
                                      shrinkA=0, shrinkB=0), annotation_clip=False, gid="arrow")
    dx = 4 if offset[0] == 0 else 0
    dy = -4 if offset[1] == 0 else 0
    ax.annotate(label, (x1, y1), xycoords=tr, xytext=(dx, dy), textcoords="offset points", fontsize=_style.TITLE_PT,
                fontstyle="italic", ha="left" if dx else "center", va="center" if dx else "top",
                gid="arrow-label", annotation_clip=False)
    return ann


def _arrows(ax, geom: Geometry) -> list:
    """Direction arrows: w and the plane axis along the top, h and the group axis down the left."""
    r = geom.roles
    W, H, P = geom.extents["col"], geom.extents["row"], geom.extents["plane"]
    out = []
    if r["col"] and W > 1:
        out.append(_arrow(ax, (0, 0), (W, 0), (0, 6), r["col"].lower()))
    if r["plane"] and P > 1 and geom.per_row > 1:
        x1 = (min(P, geom.per_row) - 1) * (W + PLANE_GAP_X) + W / 2
        out.append(_arrow(ax, (W / 2, 0), (x1, 0), (0, 20), r["plane"].lower()))
    if r["row"] and H > 1:
        out.append(_arrow(ax, (0, PLANE_GAP_Y), (0, PLANE_GAP_Y + H), (-6, 0), r["row"].lower()))
    if r["group"] and geom.extents["group"] > 1:
        out.append(_arrow(ax, (0, PLANE_GAP_Y), (0, geom.rows), (-32, 0), r["group"].lower()))
    return out
