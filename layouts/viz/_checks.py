"""Argument checks shared by every drawing entry, so a nonsense value is refused alike everywhere.

Each check runs before any array is built: a wrong kind of argument is a ``TypeError`` naming it,
a wrong value a :class:`~layouts.errors.LayoutError` naming it and what was expected. The generic
pieces (an int with bounds, a str, describing any value however large) are
:mod:`layouts.errors`'; this module keeps what is specific to pictures.

>>> check_wrap(-5)
Traceback (most recent call last):
...
layouts.errors.LayoutError: wrap is -5; expected a positive number of slots per row (or None for the default)
>>> check_wrap(-10**5000)
Traceback (most recent call last):
...
layouts.errors.LayoutError: wrap is a negative integer of about 5001 digits; expected a positive number of slots per row (or None for the default)
>>> check_layout("NCHW")
Traceback (most recent call last):
...
layouts.errors.LayoutTypeError: layout must be a layouts.Layout, got str 'NCHW'; build one with layouts.Layout('NCHW', N=..., C=..., H=..., W=...)
"""

from __future__ import annotations

import math
import numbers

from .._args import int_arg, str_arg
from ..errors import LayoutError, LayoutTypeError, kind, show
from ..named.layout import MAX_ELEMENTS, Layout

#: The smallest and largest cell a picture may be drawn with (inches per cell).
CELL_RANGE = (0.02, 2.0)
#: The most pixels a rendered picture may have (refused before matplotlib allocates the canvas).
MAX_PIXELS = 60_000_000


def check_layout(layout, name: str = "layout") -> Layout:
    if not isinstance(layout, Layout):
        hint = ""
        if isinstance(layout, str):
            hint = f"; build one with layouts.Layout({layout!r}, N=..., C=..., H=..., W=...)"
        raise LayoutTypeError(f"{name} must be a layouts.Layout, got {kind(layout)}{hint}")
    return layout


def check_nonempty(layout: Layout, name: str = "layout") -> Layout:
    """Refuse a layout without elements: there is nothing to draw (its text twin, ascii(), still prints)."""
    if layout.count == 0 or layout.size == 0:
        zero = ", ".join(f"{a}=0" for a, n in layout.dims.items() if n == 0) or "no slots"
        raise LayoutError(f"{name} {layout!r} has no elements ({zero}); there is nothing to draw "
                          f"(layouts.viz.ascii prints an empty layout as text)")
    return layout


def check_int(value, name: str, minimum: int = 1, what: str = "a positive integer", allow_none: bool = True):
    """An int >= ``minimum`` (or None when ``allow_none``), described as ``what`` in the message.

    No count, size or coordinate of a picture exceeds a layout's largest size, 2**63 - 1, so a
    larger value is refused here too (the drawing code may then print every value it takes)."""
    if isinstance(value, numbers.Integral) and value > MAX_ELEMENTS:
        what = f"{what}, at most 2**63 - 1"
    return int_arg(name, value, lo=minimum, hi=MAX_ELEMENTS, expected=what, allow_none=allow_none)


def check_wrap(wrap, name: str = "wrap"):
    return check_int(wrap, name, 1, "a positive number of slots per row")


def check_cell(cell):
    """``cell`` is inches per cell: None (automatic) or a finite number in CELL_RANGE."""
    if cell is None:
        return None
    if isinstance(cell, bool) or not isinstance(cell, numbers.Real):
        raise LayoutTypeError(f"cell must be a number of inches per cell or None, got {kind(cell)}")
    given, cell = cell, _as_float(cell)
    lo, hi = CELL_RANGE
    if not (math.isfinite(cell) and lo <= cell <= hi):
        raise LayoutError(f"cell must be inches per cell between {lo} and {hi} (or None for automatic), got {show(given)}")
    return cell


def check_str(value, name: str, allow_none: bool = True):
    return str_arg(name, value, allow_none=allow_none)


def check_dpi(dpi, width_in: float, height_in: float):
    if isinstance(dpi, bool) or not isinstance(dpi, numbers.Real):
        raise LayoutTypeError(f"dpi must be a number of dots per inch, got {kind(dpi)}")
    given, dpi = dpi, _as_float(dpi)
    if not (math.isfinite(dpi) and dpi > 0):
        raise LayoutError(f"dpi must be a positive number of dots per inch, got {show(given)}")
    pixels = width_in * dpi * height_in * dpi
    if pixels > MAX_PIXELS:
        raise LayoutError(f"dpi={dpi:g} makes a {width_in * dpi:.0f} x {height_in * dpi:.0f} pixel image, more than "
                          f"{MAX_PIXELS} pixels; use a smaller dpi, or SVG")
    return dpi


def check_figure(fig, name: str = "fig"):
    from matplotlib.figure import Figure
    if not isinstance(fig, Figure):
        raise LayoutTypeError(f"{name} must be a matplotlib Figure (as the layouts.viz functions return), got {type(fig).__name__}")
    return fig


def check_axes(ax):
    if ax is None:
        return None
    from matplotlib.axes import Axes
    if not isinstance(ax, Axes):
        raise LayoutTypeError(f"ax must be a matplotlib Axes or None, got {kind(ax)}")
    return ax


def _as_float(value) -> float:
    """``float(value)``; an int too large for a float becomes an infinity (then refused as not finite)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf
