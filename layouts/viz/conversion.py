"""A conversion drawn: where a few chosen elements sit in the source memory and in the destination."""

from __future__ import annotations

import numpy as np

from ..errors import LayoutError, LayoutTypeError
from ..named.layout import Layout, canonical_order
from . import _model
from ._figure import pack
from . import _style
from .compose import choose_cell, color_key_panel, describe, logical_panel, resolve_color_by, strip_panel, text_width
from .strips import KEY_LINE, level_key

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


def element_name(layout: Layout, number: int) -> str:
    """'origin', 'w+1' (the neighbour of the origin along one axis) or the coordinates 'n,c,h,w = 1,2,1,0'."""
    order = canonical_order(layout.axes)
    coords = np.unravel_index(int(number), [layout.dims[a] for a in order])
    coords = [int(c) for c in coords]
    if not any(coords):
        return "origin"
    if sum(coords) == 1:
        return f"{order[coords.index(1)].lower()}+1"
    return f"{','.join(a.lower() for a in order)} = {','.join(map(str, coords))}"


#: Inches between the two strips, where the links run (nothing else is drawn there).
LINK_GAP = 0.7


def draw_conversion(src: Layout, dst: Layout, elements=None, *, label: str = "logical", color_by="auto",
                    wrap=None, logical: bool = False, cell: float | None = None):
    """Source memory above destination memory, with lines linking where chosen elements sit in each.

    ``elements`` are logical numbers (``341``) or coordinate dicts (``{"n": 1, "c": 1, "h": 0, "w": 1}``);
    by default the origin and its neighbour along each axis (named ``w+1``, ``h+1``...). The chosen
    cells are boxed in their link's colour, other cells are faded. Links run only through the gap
    between the strips, from the boxed cell's column in the source to its column in the destination,
    so they never cross text; the key under the figure names each boxed element. Returns the Figure.
    """
    from matplotlib.patches import ConnectionPatch
    from . import _checks
    src = _checks.check_layout(src, "src")
    dst = _checks.check_layout(dst, "dst")
    _model.check_label(label)
    cell = _checks.check_cell(cell)
    if src.dims != dst.dims:
        raise LayoutError(f"a conversion keeps the tensor: {src!r} has dims {src.dims}, {dst!r} has {dst.dims}")
    _checks.check_nonempty(src, "src")
    if isinstance(wrap, (list, tuple)):
        if len(wrap) != 2:
            raise LayoutError(f"wrap gives {len(wrap)} row lengths; give one int, or two (source, destination)")
        wraps = [_checks.check_wrap(w, f"wrap[{i}]") for i, w in enumerate(wrap)]
    else:
        wraps = [_checks.check_wrap(wrap)] * 2
    # every limit before any array: the two strips (and the logical panel)
    _model.check_cells(src.size + dst.size + (src.count if logical else 0), "this picture")
    if elements is None:
        elements = default_elements(src)
    elif isinstance(elements, (str, dict)) or not hasattr(elements, "__iter__"):
        raise LayoutTypeError(f"elements must be a list of logical numbers or coordinate dicts, got {type(elements).__name__} {elements!r}")
    elements = list(elements)
    if len(elements) > 64:
        raise LayoutError(f"elements: {len(elements)} chosen elements is more than a picture can link (64 at most)")
    nums = _model.element_numbers(src, elements)
    axis = resolve_color_by(src, color_by)
    extent = src.dims[axis] if axis else 1
    cell_in = choose_cell([src, dst], label, cell)
    src_off = np.flatnonzero(np.isin(src.physical_order(), nums))
    dst_off = np.flatnonzero(np.isin(dst.physical_order(), nums))
    a = strip_panel(src, label=label, axis=axis, extent=extent, wrap=wraps[0], marker="a", key=False,
                    title=f"source, {describe(src)}", highlight=src_off, fade=True, cell_in=cell_in)
    b = strip_panel(dst, label=label, axis=axis, extent=extent, wrap=wraps[1], marker="b", key=False, tags=False,
                    title="", highlight=dst_off, fade=True, cell_in=cell_in)
    names = [element_name(src, n) for n in nums.tolist()]
    key_lines = [f"destination (below the links), {describe(dst)}",
                 "source " + level_key(a.model, "a"), "destination " + level_key(b.model, "b"),
                 "numbers at the left: offset of the row's first slot;  boxed and linked:"]
    b.margins = (b.margins[0], LINK_GAP, b.margins[2], 0.16 + (len(key_lines) + -(-len(names) // 4)) * KEY_LINE + 0.1)
    a.margins = (a.margins[0], a.margins[1], a.margins[2], 0.05)
    widest = max(text_width(t, _style.TEXT_PT) for t in key_lines) + 0.6
    b.min_width = max(b.min_width, widest)
    grid = [[a], [b]]
    if logical:
        grid.insert(0, [logical_panel(src, label="logical", axis=axis, extent=extent, cell_in=cell_in)])
    if axis is not None:
        grid.append([color_key_panel(axis, extent, cell_in=cell_in, note="  (faded in the strips)")])
    fig = pack(grid, cell_in=cell_in)
    wa, wb = a.wrap, b.wrap
    rows_a = -(-src.size // wa)
    po_a, po_b = a.model.number, b.model.number
    links, cells = [], []
    slots = [(int(np.flatnonzero(po_a == n)[0]), int(np.flatnonzero(po_b == n)[0])) for n in nums.tolist()]
    spread_a = _spread([ka % wa for ka, _ in slots])
    spread_b = _spread([kb % wb for _, kb in slots])
    for i, n in enumerate(nums.tolist()):
        ka, kb = slots[i]
        color = LINK_COLORS[i % len(LINK_COLORS)]
        xa, ya = ka % wa + 0.5, ka // wa + 0.5
        xb, yb = kb % wb + 0.5, kb // wb + 0.5
        # from the bottom edge of the source strip (below the boxed cell's column) to the top edge of
        # the destination strip (above its column): only the gap between the strips is crossed
        con = ConnectionPatch(xyA=(xa + spread_a[i], rows_a), coordsA=a.axes.transData, xyB=(xb + spread_b[i], 0),
                              coordsB=b.axes.transData,
                              arrowstyle="-|>", color=color, lw=1.2, alpha=0.9, mutation_scale=9, shrinkA=1, shrinkB=1)
        con.set_gid(f"link-{n}")
        fig.add_artist(con)
        links.append(con)
        cells.append((ka, kb))
        for ax, (x, y) in ((a.axes, (xa, ya)), (b.axes, (xb, yb))):
            ax.add_patch(_ring(x, y, color))
    # the key under the destination: what is drawn, then one coloured entry per boxed element
    ax = b.axes
    key = ax.annotate("\n".join(key_lines), xy=(0, 0), xycoords="axes fraction", xytext=(-30, -5), textcoords="offset points",
                      fontsize=_style.TEXT_PT, va="top", ha="left", color="#333333", gid="key", annotation_clip=False,
                      linespacing=1.35)
    fig.element_names = names
    x = -30.0
    y = -5 - len(key_lines) * _style.TEXT_PT * 1.35 - 2
    room = b.width(cell_in) * 72 - 40
    for i, name in enumerate(names):
        entry = f"\u25a1 {name} ({nums[i]})"
        step = (len(entry) + 2) * _style.TEXT_PT * 0.62
        if x > -30 and x + step > room:
            x, y = -30.0, y - _style.TEXT_PT * 1.35
        ax.annotate(entry, xy=(0, 0), xycoords="axes fraction", xytext=(x, y), textcoords="offset points",
                    fontsize=_style.TEXT_PT, va="top", ha="left", color=LINK_COLORS[i % len(LINK_COLORS)],
                    fontweight="bold", gid="element-key", annotation_clip=False)
        x += (len(entry) + 2) * _style.TEXT_PT * 0.62
    fig.links = links
    fig.link_cells = cells
    fig.key = key
    return fig


def _spread(columns: list) -> list:
    """Offsets (in cells) that keep links leaving the same column apart."""
    out = [0.0] * len(columns)
    for col in set(columns):
        idx = [i for i, c in enumerate(columns) if c == col]
        m = len(idx)
        for j, i in enumerate(idx):
            out[i] = (j - (m - 1) / 2) * min(0.8 / m, 0.3)
    return out


def _ring(x, y, color):
    from matplotlib.patches import Rectangle
    return Rectangle((x - 0.5, y - 0.5), 1, 1, fill=False, ec=color, lw=2.2, zorder=7, gid="chosen")
