"""Figures without pyplot: a Figure subclass that Jupyter shows once, a panel packer, PNG/SVG bytes.

No pyplot state is touched: figures are ``matplotlib.figure.Figure`` objects with an Agg canvas,
so a notebook never shows them twice and nothing leaks between calls.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Callable

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

#: Default resolution of PNG output.
DPI = 150


class LayoutFigure(Figure):
    """A Figure that Jupyter displays as a PNG (once), with helpers to get PNG/SVG bytes.

    It is not a pyplot figure, so ``show()`` displays it in Jupyter/IPython and elsewhere raises
    a RuntimeError that says how to look at it (``layouts.viz.save(fig, "fig.png")``).
    """

    def _repr_png_(self) -> bytes:
        return to_png(self, dpi=100)

    def show(self, warn: bool = True) -> None:
        """Display the figure in Jupyter (the notebook shows it inline); outside a notebook, say how to save it."""
        import sys
        ipython = sys.modules.get("IPython")
        shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
        if shell is not None and getattr(shell, "kernel", None) is not None:
            from IPython.display import display
            display(self)
            return
        raise RuntimeError(
            "this figure is drawn without pyplot, so there is no window to show it in: "
            "write it with layouts.viz.save(fig, 'figure.png') (or .svg) or fig.savefig('figure.png'), "
            "or make it the last expression of a Jupyter cell to display it")

    def to_png(self, dpi: int = DPI) -> bytes:
        return to_png(self, dpi=dpi)

    def to_svg(self) -> str:
        return to_svg(self)


def new_figure(width_in: float, height_in: float) -> LayoutFigure:
    fig = LayoutFigure(figsize=(width_in, height_in))
    FigureCanvasAgg(fig)
    fig.patch.set_facecolor("white")
    return fig


def to_png(fig: Figure, dpi: int = DPI) -> bytes:
    """PNG bytes of ``fig`` (Agg, no pyplot)."""
    from ._checks import check_dpi, check_figure
    check_figure(fig)
    check_dpi(dpi, *fig.get_size_inches())
    import numpy as np
    from ._png import encode_png
    buf = io.BytesIO()
    FigureCanvasAgg(fig)
    # matplotlib renders the pixels; our encoder deflates them on every core (Pillow's takes longer
    # than the drawing): the same pixels, in a file no larger
    if isinstance(fig, LayoutFigure):
        from ._text import outline_texts
        outline_texts(fig)                    # its texts filled as outlines: faster than glyph by glyph
    fig.savefig(buf, format="rgba", dpi=dpi)
    width, height = fig.get_size_inches() * dpi
    raw = buf.getvalue()
    shape = (int(height), int(width), 4)
    if len(raw) != shape[0] * shape[1] * 4:   # a figure laid out at save time (bbox_inches): Pillow's way
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None}, pil_kwargs={"compress_level": 3})
        return buf.getvalue()
    return encode_png(np.frombuffer(raw, dtype=np.uint8).reshape(shape), dpi=dpi)


def to_svg(fig: Figure, compact: bool = True) -> str:
    """SVG text of ``fig``; the same figure gives the same bytes every time (fixed hash salt, no date).

    ``compact`` shares repeated styles as CSS classes, writes square cells as ``<rect>`` and rounds
    coordinates to 0.01 pt: the same picture in about a fifth of the bytes.
    """
    import matplotlib
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from ._checks import check_figure
    check_figure(fig)
    buf = io.StringIO()
    rc = {"svg.hashsalt": "layouts", "svg.fonttype": "none"}
    if "svg.id" in matplotlib.rcParams:
        rc["svg.id"] = None
    with matplotlib.rc_context(rc):
        FigureCanvasSVG(fig)
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    FigureCanvasAgg(fig)  # leave the figure with its Agg canvas
    text = buf.getvalue()
    return compact_svg(text) if compact else text


def compact_svg(text: str) -> str:
    """Shrink matplotlib's SVG without changing what it draws.

    * a path that is an axis-aligned rectangle (a cell) becomes a ``<use>`` of one ``<rect>`` per size;
    * ``style="..."`` values used more than once become CSS classes in one ``<style>`` block;
    * a ``<g id=...>`` wrapping a single element (matplotlib writes one per artist) is dropped;
    * ``transform="rotate(-0 ...)"`` is dropped and numbers are rounded to 0.1 pt.
    """
    import re
    from collections import Counter

    def r1(v: float) -> str:
        out = f"{v:.1f}".rstrip("0").rstrip(".")
        return "0" if out in ("-0", "") else out
    num = re.compile(r"-?\d+\.\d{2,}")
    rect = re.compile(r'<path d="M ([-\d.]+) ([-\d.]+) \s*L ([-\d.]+) ([-\d.]+) \s*L ([-\d.]+) ([-\d.]+) \s*'
                      r'L ([-\d.]+) ([-\d.]+) \s*z\s*"((?: [a-z-]+="[^"]*")*)\s*/>')
    sizes: dict = {}

    def to_use(m):
        x0, y0, x1, y1, x2, y2, x3, y3 = (float(v) for v in m.groups()[:8])
        if not (y0 == y1 and x1 == x2 and y2 == y3 and x3 == x0):
            return m.group(0)
        key = (r1(abs(x1 - x0)), r1(abs(y2 - y0)))
        ref = sizes.setdefault(key, f"q{len(sizes)}")
        attrs = re.sub(r' clip-path="[^"]*"', "", m.group(9))  # cells lie inside their axes
        return f'<use xlink:href="#{ref}" x="{r1(min(x0, x1))}" y="{r1(min(y0, y2))}"{attrs}/>'
    text = rect.sub(to_use, text)
    text = re.sub(r' transform="rotate\(-?0 [-\d.]+ [-\d.]+\)"', "", text)
    text = re.sub(r'<g id="[^"]*">\s*(<(?:path|use)\b[^>]*/>|<text\b[^>]*>[^<]*</text>)\s*</g>', r"\1", text)
    text = num.sub(lambda m: r1(float(m.group(0))), text)
    styles = Counter(re.findall(r' style="([^"]*)"', text))
    shared = {st: f"s{i}" for i, (st, n) in enumerate(sorted(styles.items(), key=lambda kv: -kv[1])) if n > 1}
    head = []
    if shared:
        text = re.sub(r' style="([^"]*)"', lambda m: f' class="{shared[m.group(1)]}"' if m.group(1) in shared else m.group(0), text)
        head.append("<style>\n" + "\n".join(f".{name}{{{st}}}" for st, name in shared.items()) + "\n</style>")
    if sizes:
        head.append("<defs>\n" + "\n".join(f'<rect id="{ref}" width="{w}" height="{h}"/>' for (w, h), ref in sizes.items())
                    + "\n</defs>")
    if head:
        text = re.sub(r"(<svg\b[^>]*>)", lambda m: m.group(1) + "\n" + "\n".join(head), text, count=1)
    return _group_runs(re.sub(r"\n\s+", "\n", text))


def _group_runs(text: str) -> str:
    """Consecutive one-line ``<use>``/``<text>`` elements (cells of one collection, labels of one
    panel: they never overlap, so their order does not show) are grouped by class: one
    ``<g class=...>`` per class instead of the class on every element."""
    import re
    pat = re.compile(r'^<(use|text) (.*?) ?class="(s\d+)"(.*)$')
    lines = text.split("\n")
    out, run = [], []

    def flush():
        if len(run) < 2:
            out.extend(line for line, _ in run)
        else:
            groups: dict = {}
            for line, m in run:
                groups.setdefault(m.group(3), []).append(f"<{m.group(1)} {m.group(2)}{m.group(4)}")
            for cls, items in groups.items():
                out.append(f'<g class="{cls}">')
                out.extend(items)
                out.append("</g>")
        run.clear()
    kind = None
    for line in lines:
        m = pat.match(line)
        if m and (not run or m.group(1) == kind):
            kind = m.group(1)
            run.append((line, m))
            continue
        flush()
        if m:
            kind = m.group(1)
            run.append((line, m))
        else:
            out.append(line)
    flush()
    return "\n".join(out)


def save(fig: Figure, path, dpi: int = DPI) -> None:
    """Write ``fig`` to ``path``; the suffix chooses PNG or SVG."""
    from pathlib import Path
    from ..errors import LayoutTypeError
    from ._checks import check_figure
    check_figure(fig)
    if not isinstance(path, (str, Path)) and not hasattr(path, "__fspath__"):
        raise LayoutTypeError(f"path must be a file path (str or pathlib.Path), got {type(path).__name__}")
    path = Path(path)
    if path.suffix.lower() == ".svg":
        path.write_text(to_svg(fig), encoding="utf-8")
    else:
        path.write_bytes(to_png(fig, dpi=dpi))


@dataclass
class Panel:
    """A block of ``cols x rows`` cells plus margins in inches, filled by ``draw(ax, cell_in)``."""

    cols: float
    rows: float
    draw: Callable
    margins: tuple = (0.5, 0.6, 0.2, 0.2)   # left, top, right, bottom (inches)
    min_width: float = 0.0                    # inches the panel needs whatever the cell size (its title)
    axes: object = field(default=None, repr=False)
    model: object = field(default=None, repr=False)
    artists: object = field(default=None, repr=False)       # what ``draw`` returned (rings, labels...)

    def width(self, cell_in: float) -> float:
        return max(self.margins[0] + self.cols * cell_in + self.margins[2], self.min_width)


def cell_size(grid: list, default: float = 0.24, max_width: float = 18.0, max_height: float = 22.0) -> float:
    """Inches per cell so that the packed ``grid`` (rows of panels) fits ``max_width x max_height``."""
    cell = default
    for _ in range(2):
        width = max(sum(p.width(cell) for p in row) for row in grid)
        height = sum(max(p.margins[1] + p.margins[3] + p.rows * cell for p in row) for row in grid)
        fixed_w = max(sum(p.margins[0] + p.margins[2] for p in row) for row in grid)
        fixed_h = sum(max(p.margins[1] + p.margins[3] for p in row) for row in grid)
        cols = max(sum(p.cols for p in row) for row in grid)
        rows = sum(max(p.rows for p in row) for row in grid)
        if width > max_width:
            cell = min(cell, (max_width - fixed_w) / max(cols, 1))
        if height > max_height:
            cell = min(cell, (max_height - fixed_h) / max(rows, 1))
    return max(cell, 0.004)


def pack(grid: list, cell_in: float | None = None, header: str | None = None, **limits) -> LayoutFigure:
    """Lay out rows of panels at a common cell size, so a cell is the same size in every panel."""
    if cell_in is None:
        cell_in = cell_size(grid, **limits)
    row_h = [max(p.margins[1] + p.margins[3] + p.rows * cell_in for p in row) for row in grid]
    row_w = [sum(p.width(cell_in) for p in row) for row in grid]
    head = 0.3 if header else 0.0
    width, height = max(row_w), sum(row_h) + head
    fig = new_figure(width, height)
    if header:
        fig.text(0.1 / width, 1 - 0.08 / height, header, ha="left", va="top", fontsize=8, color="#333333", gid="header")
    top = height - head
    for row, h in zip(grid, row_h):
        x = 0.0
        for p in row:
            w_in, h_in = p.cols * cell_in, p.rows * cell_in
            left = x + p.margins[0]
            bottom = top - p.margins[1] - h_in
            ax = fig.add_axes((left / width, bottom / height, max(w_in, 1e-6) / width, max(h_in, 1e-6) / height))
            ax.set_axis_off()
            p.axes = ax
            p.artists = p.draw(ax, cell_in)
            x += p.width(cell_in)
        top -= h
    return fig


def axes_cell_inches(ax, cols: float, rows: float) -> float:
    """Inches per cell when ``cols x rows`` cells fill ``ax`` with equal aspect."""
    fig = ax.get_figure()
    w, h = fig.get_size_inches()
    pos = ax.get_position()
    return min(pos.width * w / max(cols, 1e-9), pos.height * h / max(rows, 1e-9))
