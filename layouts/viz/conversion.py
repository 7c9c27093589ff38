"""A conversion drawn: where a few chosen elements sit in the source memory and in the destination."""

from __future__ import annotations

import numpy as np

from ..errors import LayoutError
from ..layout import Layout, canonical_order
from . import _model
from ._figure import pack
from .compose import describe, logical_panel, resolve_color_by, strip_panel

#: Colours of the links, one per chosen element (dark, distinct from the pale faded cells).
LINK_COLORS = ["#d62728", "#1f3fb4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]


def default_elements(layout: Layout) -> list:
    """The first element and its neighbour along each axis, innermost axis first: 0, 1, W, HW, CHW."""
    order = canonical_order(layout.axes)
    out, step = [0], 1
    for a in reversed(order):
        if layout.dims[a] > 1 and step not in out:
            out.append(step)
        step *= layout.dims[a]
    return out[:6]


def _element_numbers(layout: Layout, elements) -> np.ndarray:
    order = canonical_order(layout.axes)
    sizes = [layout.dims[a] for a in order]
    nums = []
    for e in elements:
        if isinstance(e, dict):
            coords = {k.lower(): v for k, v in e.items()}
            layout.offset(**coords)  # checks names and ranges
            nums.append(int(np.ravel_multi_index([coords[a.lower()] for a in order], sizes)))
        else:
            n = int(e)
            if not 0 <= n < layout.count:
                raise LayoutError(f"element {n} is not a logical number of {layout!r} (expected 0 <= element < {layout.count})")
            nums.append(n)
    return np.asarray(nums, dtype=np.int64)


def draw_conversion(src: Layout, dst: Layout, elements=None, *, label: str = "logical", color_by="auto",
                    wrap=None, logical: bool = False, cell: float | None = None):
    """Source memory above destination memory, with lines linking where chosen elements sit in each.

    ``elements`` are logical numbers (``341``) or coordinate dicts (``{"n": 1, "c": 1, "h": 0, "w": 1}``);
    by default the first element and its neighbour along each axis. Other cells are faded.
    Returns the Figure.
    """
    from matplotlib.patches import ConnectionPatch
    if src.dims != dst.dims:
        raise LayoutError(f"a conversion keeps the tensor: {src!r} has dims {src.dims}, {dst!r} has {dst.dims}")
    elements = default_elements(src) if elements is None else list(elements)
    nums = _element_numbers(src, elements)
    axis = resolve_color_by(src, color_by)
    extent = src.dims[axis] if axis else 1
    wraps = list(wrap) if isinstance(wrap, (list, tuple)) else [wrap, wrap]
    src_off = np.flatnonzero(np.isin(src.physical_order(), nums))
    dst_off = np.flatnonzero(np.isin(dst.physical_order(), nums))
    a = strip_panel(src, label=label, axis=axis, extent=extent, wrap=wraps[0], marker="a",
                    title=f"source: {describe(src)}", highlight=src_off, fade=True)
    b = strip_panel(dst, label=label, axis=axis, extent=extent, wrap=wraps[1], marker="b",
                    title=f"destination: {describe(dst)}", highlight=dst_off, fade=True)
    grid = [[a], [b]]
    if logical:
        grid.insert(0, [logical_panel(src, label="logical", axis=axis, extent=extent)])
    _model.check_cells(int(a.cols * a.rows + b.cols * b.rows), "this picture")
    b.margins = (b.margins[0], b.margins[1] + 0.45, b.margins[2], b.margins[3])  # room for the links to land
    fig = pack(grid, cell_in=cell)
    wa, wb = a.cols, b.cols
    po_a, po_b = a.model.number, b.model.number
    links = []
    for i, n in enumerate(nums.tolist()):
        ka = int(np.flatnonzero(po_a == n)[0])
        kb = int(np.flatnonzero(po_b == n)[0])
        color = LINK_COLORS[i % len(LINK_COLORS)]
        xa, ya = ka % wa + 0.5, ka // wa + 0.5
        xb, yb = kb % wb + 0.5, kb // wb + 0.5
        con = ConnectionPatch(xyA=(xa, ya), coordsA=a.axes.transData, xyB=(xb, yb), coordsB=b.axes.transData,
                              arrowstyle="-|>", color=color, lw=1.1, alpha=0.85, mutation_scale=9, shrinkA=2, shrinkB=2,
                              connectionstyle="arc3,rad=0.08", zorder=-1)
        # drawn beneath the panels: a link shows in the gap between the strips and ends under its
        # ringed cell, instead of crossing the labels of the rows between
        con.set_gid(f"link-{n}")
        fig.add_artist(con)
        links.append(con)
        for ax, (x, y), k in ((a.axes, (xa, ya), ka), (b.axes, (xb, yb), kb)):
            ax.add_patch(_ring(x, y, color))
    fig.links = links
    return fig


def _ring(x, y, color):
    from matplotlib.patches import Rectangle
    return Rectangle((x - 0.5, y - 0.5), 1, 1, fill=False, ec=color, lw=2.2, zorder=7, gid="chosen")
