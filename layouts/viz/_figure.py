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
    """A Figure that Jupyter displays as a PNG (once), with helpers to get PNG/SVG bytes."""

    def _repr_png_(self) -> bytes:
        return to_png(self, dpi=100)

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
    buf = io.BytesIO()
    FigureCanvasAgg(fig)
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


def to_svg(fig: Figure) -> str:
    """SVG text of ``fig``; the same figure gives the same bytes every time (fixed hash salt, no date)."""
    import matplotlib
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "layouts", "svg.fonttype": "none", "svg.id": None}):
        FigureCanvasSVG(fig)
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    FigureCanvasAgg(fig)  # leave the figure with its Agg canvas
    return buf.getvalue()


def save(fig: Figure, path, dpi: int = DPI) -> None:
    """Write ``fig`` to ``path``; the suffix chooses PNG or SVG."""
    from pathlib import Path
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


def pack(grid: list, cell_in: float | None = None, **limits) -> LayoutFigure:
    """Lay out rows of panels at a common cell size, so a cell is the same size in every panel."""
    if cell_in is None:
        cell_in = cell_size(grid, **limits)
    row_h = [max(p.margins[1] + p.margins[3] + p.rows * cell_in for p in row) for row in grid]
    row_w = [sum(p.width(cell_in) for p in row) for row in grid]
    width, height = max(row_w), sum(row_h)
    fig = new_figure(width, height)
    top = height
    for row, h in zip(grid, row_h):
        x = 0.0
        for p in row:
            w_in, h_in = p.cols * cell_in, p.rows * cell_in
            left = x + p.margins[0]
            bottom = top - p.margins[1] - h_in
            ax = fig.add_axes((left / width, bottom / height, max(w_in, 1e-6) / width, max(h_in, 1e-6) / height))
            ax.set_axis_off()
            p.axes = ax
            p.draw(ax, cell_in)
            x += p.width(cell_in)
        top -= h
    return fig


def axes_cell_inches(ax, cols: float, rows: float) -> float:
    """Inches per cell when ``cols x rows`` cells fill ``ax`` with equal aspect."""
    fig = ax.get_figure()
    w, h = fig.get_size_inches()
    pos = ax.get_position()
    return min(pos.width * w / max(cols, 1e-9), pos.height * h / max(rows, 1e-9))
