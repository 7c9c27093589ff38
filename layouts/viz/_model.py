"""What each cell of a picture shows, computed from a Layout with numpy only.

The drawing modules (matplotlib) and :mod:`layouts.viz.ascii` (plain text) both read these
models, so a picture and its ASCII twin always agree. Nothing here derives an offset: labels,
coordinates and padding come from :meth:`Layout.physical_order`, :meth:`Layout.index` and
:meth:`Layout.offset`; stride levels come from :attr:`Layout.shape` and :attr:`Layout.stride_tuple`.

>>> from layouts import Layout
>>> m = strip_model(Layout("NHWC", N=1, C=3, H=2, W=2), label="logical")
>>> m.labels[:6]
['00', '04', '08', '01', '05', '09']
>>> [lv.name for lv in m.levels]
['c', 'w', 'h']
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import LayoutError, LayoutTypeError, kind, show
# the one private name viz borrows: how the formula names each physical dim's index (c, c1, c0)
from ..named.naming import coordinate_names
from ..named.layout import Layout, canonical_order

LABEL_MODES = ("logical", "offset", "coords", "none")


@dataclass(frozen=True)
class Level:
    """One stride level of a layout: the jump out of physical dim ``dim`` (``[a:k]`` in the article)."""

    number: int      # 0 for the innermost dim that has more than one entry
    dim: str         # physical dim name: 'W', '8c', 'C1'
    name: str        # coordinate that steps: 'w', 'c0', 'c1'
    stride: int      # element stride of that dim


@dataclass
class StripModel:
    """The physical memory of a layout, one slot per offset."""

    layout: Layout
    number: np.ndarray     # logical number stored at each offset, -1 for padding
    padding: np.ndarray    # bool per offset
    coords: dict           # axis letter -> int64 array per offset (-1 at padding)
    labels: list           # text per offset ('' at padding unless pad_label)
    level: np.ndarray      # per offset k>0: level of the jump from k-1 to k (-1: none/padding)
    levels: list           # the Level of each number


def check_label(label: str) -> str:
    if label not in LABEL_MODES:
        raise LayoutError(f"label must be one of {', '.join(map(repr, LABEL_MODES))}, got {label!r}")
    return label


def check_color_by(layout: Layout, color_by: str | None) -> str | None:
    if color_by is None:
        return None
    axis = str(color_by).upper()
    if axis not in layout.axes:
        raise LayoutError(f"color_by={color_by!r}: layout {layout.spec!r} has no axis {axis}; its axes are {', '.join(layout.axes)}")
    return axis


def check_cells(n: int, what: str) -> None:
    """Raise a LayoutError when a picture would need more than :data:`layouts.viz.limits.MAX_CELLS` cells."""
    from . import limits
    if n > limits.MAX_CELLS:
        raise LayoutError(
            f"{what} needs {n} cells, more than layouts.viz.limits.MAX_CELLS = {limits.MAX_CELLS}; "
            f"draw a smaller layout, or raise the limit (layouts.viz.limits.MAX_CELLS = {n})"
        )


def _digits(n: int) -> int:
    return len(str(max(n - 1, 0)))


def format_numbers(values: np.ndarray, total: int) -> list:
    """Zero-padded numbers as the article writes them (000..639); '' for -1."""
    width = _digits(total)
    return ["" if v < 0 else f"{v:0{width}d}" for v in values.tolist()]


def format_coords(coords: dict, axes: str, mask: np.ndarray) -> list:
    """'n,c\\nh,w': coordinates split over two lines so they fit a square cell."""
    cols = [coords[a].tolist() for a in axes]
    half = (len(axes) + 1) // 2
    out = []
    for i, pad in enumerate(mask.tolist()):
        if pad:
            out.append("")
            continue
        vals = [str(c[i]) for c in cols]
        out.append(",".join(vals[:half]) + ("\n" + ",".join(vals[half:]) if vals[half:] else ""))
    return out


def stride_levels(layout: Layout) -> tuple[np.ndarray, list]:
    """For each offset k > 0, the stride level of the jump from slot k-1 to slot k.

    The level is the outermost physical dim whose index changes there; dims with a single entry
    are skipped, so NCHW with N=2 has the article's four levels [a:0]..[a:3].
    """
    names = coordinate_names(layout)
    keep = [i for i, e in enumerate(layout.shape) if e > 1]
    levels = [Level(j, layout.dim_names[i], names[i], layout.stride_tuple[i]) for j, i in enumerate(reversed(keep))]
    size = layout.size
    digits = layout.dim_indices(np.arange(size, dtype=np.int64))
    level = np.full(size, -1, dtype=np.int64)
    for j, i in enumerate(reversed(keep)):
        changed = np.zeros(size, dtype=bool)
        changed[1:] = digits[i][1:] != digits[i][:-1]
        level[changed] = j  # outer dims come later in this loop and win
    return level, levels


def strip_model(layout: Layout, label: str = "logical") -> StripModel:
    """Labels, coordinates, padding and stride levels of every memory slot of ``layout``."""
    check_label(label)
    check_cells(layout.size, f"the memory of {layout!r}")
    order = canonical_order(layout.axes)
    number = layout.physical_order()
    idx = layout.index(np.arange(layout.size, dtype=np.int64), padding="mark")
    padding = np.asarray(idx.padding, dtype=bool)
    coords = {a: np.asarray(getattr(idx, a.lower())) for a in order}
    if label == "logical":
        labels = format_numbers(number, layout.count)
    elif label == "offset":
        labels = format_numbers(np.where(padding, -1, np.arange(layout.size)), layout.size)
    elif label == "coords":
        labels = format_coords(coords, order, padding)
    else:
        labels = [""] * layout.size
    level, levels = stride_levels(layout)
    return StripModel(layout, number, padding, coords, labels, level, levels)


@dataclass
class LogicalModel:
    """The logical tensor: one cell per element, in canonical (row-major) order."""

    layout: Layout
    order: str             # canonical axes, e.g. 'NCHW'
    coords: dict           # axis -> int64 array per logical number
    offsets: np.ndarray    # where each element lives in ``layout``
    labels: list


def logical_model(layout: Layout, label: str = "logical") -> LogicalModel:
    check_label(label)
    check_cells(layout.count, f"the logical tensor of {layout!r}")
    order = canonical_order(layout.axes)
    sizes = [layout.dims[a] for a in order]
    count = layout.count
    grids = np.unravel_index(np.arange(count, dtype=np.int64), sizes) if count else [np.zeros(0, np.int64)] * len(sizes)
    coords = {a: np.asarray(g, dtype=np.int64) for a, g in zip(order, grids)}
    offsets = layout.offset(**{a.lower(): coords[a] for a in order}) if count else np.zeros(0, np.int64)
    offsets = np.asarray(offsets, dtype=np.int64)
    if label == "logical":
        labels = format_numbers(np.arange(count), count)
    elif label == "offset":
        labels = format_numbers(offsets, layout.size)
    elif label == "coords":
        labels = format_coords(coords, order, np.zeros(count, dtype=bool))
    else:
        labels = [""] * count
    return LogicalModel(layout, order, coords, offsets, labels)


def default_wrap(layout: Layout, max_cols: int | None = None) -> int:
    """A row length for the physical strip that ends rows on a stride boundary.

    The largest ``k * stride`` (``k`` up to that dim's extent) that is at most ``max_cols``
    and divides the next outer stride, so every row starts a new run.

    >>> from layouts import Layout
    >>> [default_wrap(Layout(s, N=2, C=16, H=5, W=4)) for s in ("NCHW", "NHWC", "CHWN")]
    [40, 32, 40]
    >>> default_wrap(Layout("NHWC", N=1, C=3, H=5, W=4, align={"H": 16}))
    16
    >>> default_wrap(Layout("CHWN", N=2, C=16, H=5, W=4), max_cols=36)  # runs of 8, four to a row
    32
    """
    size = max(layout.size, 1)
    if max_cols is None:
        max_cols = max(40, int(2 * math.sqrt(size)))
    best = 1
    strides = layout.stride_tuple
    for i, (extent, stride) in enumerate(zip(layout.shape, strides)):
        outer = strides[i - 1] if i > 0 else size
        for k in range(1, extent + 1):
            cand = k * stride
            if cand > max_cols:
                break
            if cand > best and outer % cand == 0:
                best = cand
    if best < max_cols // 4:  # rows of whole runs are too short: several runs to a row
        best *= max_cols // best
    return max(1, min(best, size))


def element_numbers(layout: Layout, elements) -> np.ndarray:
    """The logical numbers of ``elements`` (each a logical number or a dict of coordinates), checked.

    >>> element_numbers(Layout("NCHW", N=1, C=2, H=2, W=2), [3, {"n": 0, "c": 1, "h": 0, "w": 1}]).tolist()
    [3, 5]
    """
    order = canonical_order(layout.axes)
    sizes = [layout.dims[a] for a in order]
    nums = []
    for i, e in enumerate(elements):
        if isinstance(e, dict):
            coords = {}
            for k, v in e.items():
                if not isinstance(k, str):
                    raise LayoutTypeError(f"elements[{i}]: coordinate names must be axis letters, got {k!r}")
                coords[k.lower()] = v
            missing = [a for a in order if a.lower() not in coords]
            if missing:
                raise LayoutError(f"elements[{i}] = {e!r} lacks the coordinate {', '.join(a.lower() for a in missing)}; "
                                  f"give all of {', '.join(a.lower() for a in order)}")
            for k, v in coords.items():
                if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                    raise LayoutTypeError(f"elements[{i}]: coordinate {k} must be an int, got {type(v).__name__} {v!r}")
            layout.offset(**coords)  # checks names and ranges
            nums.append(int(np.ravel_multi_index([int(coords[a.lower()]) for a in order], sizes)))
        elif isinstance(e, (int, np.integer)) and not isinstance(e, bool):
            n = int(e)
            if not 0 <= n < layout.count:
                raise LayoutError(f"element {show(n)} is not a logical number of {layout!r} (expected 0 <= element < {layout.count})")
            nums.append(n)
        else:
            raise LayoutTypeError(f"elements[{i}] must be a logical number (int) or a dict of coordinates, got {kind(e)}")
    return np.asarray(nums, dtype=np.int64)
