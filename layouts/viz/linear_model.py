"""What a picture of a linear layout holds, worked out without matplotlib: the tensor grid (who
holds each element, or where it is stored), its colours and labels, the warp boundaries and the
bit matrix (:func:`linear_picture`); :func:`layouts.viz.draw_linear` draws it.

A distributed layout (in-dims among ``register``, ``lane``, ``warp``, ``block``) gives each
element its first holder in Triton's order (block, warp, lane, register): the cell is coloured
by that holder's lane (or warp, ...) and labelled with its register. A memory layout (in-dim
``offset``, Triton's shared layouts, or out-dim ``offset``, CuTe's orientation) gives each
element its offset, coloured by shared-memory bank.

>>> from layouts.linear import LinearLayout
>>> L = LinearLayout.from_bases({"register": [[0, 1]], "lane": [[1, 0], [0, 2]]}, ["dim0", "dim1"])
>>> p = linear_picture(L)
>>> p.rows, p.cols, p.labels, p.key_values.tolist()
(2, 4, ['0', '1', '0', '1', '0', '1', '0', '1'], [0, 0, 2, 2, 1, 1, 3, 3])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from .._args import int_arg, str_arg
from ..errors import LayoutError, LayoutTypeError, type_name
from . import limits

__all__ = ["linear_picture", "LinearPicture", "DISTRIBUTED_DIMS", "COLORS", "LABELS",
           "key_colors", "WRAP_1D"]

#: The most hardware inputs (registers x lanes x warps x blocks) a picture enumerates.
MAX_INPUTS = 1 << 20
DISTRIBUTED_DIMS = ("register", "lane", "warp", "block")
#: What the cell colour may show: a hardware index of the first holder (distributed), or the
#: bank / offset (memory).
COLORS = ("lane", "warp", "block", "register", "thread", "bank", "offset")
LABELS = ("register", "lane", "warp", "block", "thread", "offset", "none")
#: A 1-D tensor is drawn in rows of this many elements.
WRAP_1D = 32


@dataclass
class LinearPicture:
    """The grid of one linear layout and its bit matrix."""

    kind: str                      # "distributed" or "memory"
    rows: int
    cols: int
    row_name: str                  # what a row index is ("dim0", "dim0, dim1", ...)
    col_name: str
    color: str                     # what the colour shows
    key_values: np.ndarray         # per cell, the value the colour shows (-1: no holder)
    key_extent: int                # how many values the colour takes
    labels: List[str]              # per cell ("" for none)
    holders: np.ndarray            # per cell, how many inputs reach it (distributed; 1 for memory)
    hardware: Dict[str, np.ndarray] = field(default_factory=dict)   # per cell, the first holder's indices
    offsets: Optional[np.ndarray] = None                              # per cell, the offset (memory)
    warp_edges: List[Tuple[Tuple[float, float], Tuple[float, float], float]] = field(default_factory=list)
    matrix: Optional[np.ndarray] = None
    matrix_rows: List[str] = field(default_factory=list)
    matrix_groups: List[Tuple[str, int]] = field(default_factory=list)
    title: str = ""
    key_title: str = ""            # what the colour key says
    notes: List[str] = field(default_factory=list)


def _check_layout(layout: Any):
    from ..linear import LinearLayout
    if not isinstance(layout, LinearLayout):
        raise LayoutTypeError(f"draw_linear: layout must be a layouts.linear.LinearLayout, got {type_name(layout)}")
    if not layout.out_dim_names:
        raise LayoutError("draw_linear: the layout has no out-dims, so there is no tensor to draw")
    if layout.total_out_size > limits.MAX_CELLS:
        raise LayoutError(f"draw_linear: the tensor has {layout.total_out_size} elements ({dict(layout.out_dims)}), "
                          f"more than layouts.viz.limits.MAX_CELLS = {limits.MAX_CELLS}; draw a part of it (L.resize_out_dim(dim, size))")
    return layout


def _grid_shape(sizes: List[int]) -> Tuple[int, int]:
    """Rows x columns of a tensor drawn row-major (the last dim across; a 1-D one wrapped)."""
    total = int(np.prod(sizes, dtype=np.int64))
    if len(sizes) == 1:
        cols = min(total, WRAP_1D)
        return total // cols, cols
    return total // sizes[-1], sizes[-1]


def key_colors(values: np.ndarray, extent: int) -> np.ndarray:
    """RGBA per value (-1: the face of an element nobody holds). Up to 10 values get tab10's hues;
    more cycle through 8 hues, each round lighter, so lane ``l`` is hue ``l % 8``, shade ``l // 8``."""
    from matplotlib import colormaps
    from matplotlib.colors import to_rgba
    from ._style import PAD_FACE
    values = np.asarray(values)
    base = np.array([to_rgba(c) for c in colormaps["tab10"].colors])
    if extent <= 10:
        table = base[:max(extent, 1)]
    else:
        rounds = -(-extent // 8)
        hues = base[[0, 1, 2, 3, 4, 5, 6, 8]]
        mix = np.repeat(np.linspace(0.0, 0.62, rounds), 8)[:, None]
        table = np.tile(hues, (rounds, 1)) * (1 - mix) + mix
        table[:, 3] = 1.0
    out = np.empty((values.size, 4))
    ok = values >= 0
    out[ok] = table[values[ok] % len(table)]
    out[~ok] = to_rgba(PAD_FACE)
    return out


def _edges(owner: np.ndarray, rows: int, cols: int, width: float) -> list:
    """Line segments between neighbouring cells whose ``owner`` differs (-1 never draws a line)."""
    grid = owner.reshape(rows, cols)
    out = []
    diff = (grid[:, 1:] != grid[:, :-1]) & (grid[:, 1:] >= 0) & (grid[:, :-1] >= 0)
    for r, c in zip(*np.nonzero(diff)):
        out.append(((c + 1.0, float(r)), (c + 1.0, r + 1.0), width))
    diff = (grid[1:, :] != grid[:-1, :]) & (grid[1:, :] >= 0) & (grid[:-1, :] >= 0)
    for r, c in zip(*np.nonzero(diff)):
        out.append(((float(c), r + 1.0), (c + 1.0, r + 1.0), width))
    return out


def _matrix(layout) -> Tuple[np.ndarray, List[str], List[Tuple[str, int]]]:
    rows = [f"{d}:{i}" for d, s in layout.out_dims.items() for i in range(s.bit_length() - 1)]
    groups = [(d, s.bit_length() - 1) for d, s in layout.in_dims.items() if s > 1]
    return layout.matrix(), rows, groups


def _distributed(layout, color: Optional[str], label: str) -> LinearPicture:
    if layout.total_in_size > MAX_INPUTS:
        raise LayoutError(f"draw_linear: the layout has {layout.total_in_size} hardware inputs ({dict(layout.in_dims)}), "
                          f"more than {MAX_INPUTS}; draw fewer registers (L.resize_in_dim('register', n))")
    sizes = {d: layout.in_dims.get(d, 1) for d in DISTRIBUTED_DIMS}
    regs, lanes, warps, blocks = (sizes[d] for d in DISTRIBUTED_DIMS)
    grids = np.meshgrid(np.arange(blocks), np.arange(warps), np.arange(lanes), np.arange(regs), indexing="ij")
    block, warp, lane, reg = (g.ravel() for g in grids)
    coords = {d: v for d, v in zip(DISTRIBUTED_DIMS, (reg, lane, warp, block)) if d in layout.in_dims}
    outs = layout.apply(coords) if coords else {d: np.zeros(1, dtype=np.int64) for d in layout.out_dim_names}
    shape = list(layout.out_dims.values())
    index = np.zeros(reg.shape, dtype=np.int64)
    for d, s in zip(layout.out_dim_names, shape):
        index = index * s + np.broadcast_to(outs[d], reg.shape)
    total = layout.total_out_size
    holders = np.bincount(index, minlength=total)
    first = np.full(total, index.size, dtype=np.int64)
    np.minimum.at(first, index, np.arange(index.size))      # the first holder in Triton's order
    held = first < index.size
    thread = warp * lanes + lane
    hw = {}
    for name, arr in (("register", reg), ("lane", lane), ("warp", warp), ("block", block), ("thread", thread)):
        cell = np.full(total, -1, dtype=np.int64)
        cell[held] = arr[first[held]]
        hw[name] = cell
    if color is None:
        color = next((d for d in ("lane", "warp", "block") if sizes[d] > 1), "register")
    if color not in ("lane", "warp", "block", "register", "thread"):
        raise LayoutError(f"draw_linear: color={color!r} is for memory layouts; a distributed layout is coloured "
                          f"by one of lane, warp, block, register, thread")
    if label == "offset":
        raise LayoutError("draw_linear: label='offset' is for memory layouts (in-dim or out-dim 'offset'); a "
                          "distributed layout is labelled by register, lane, warp, block or thread")
    extent = {"thread": lanes * warps}.get(color, sizes.get(color, 1))
    labels = [""] * total if label == "none" else [str(v) if v >= 0 else "" for v in hw[label].tolist()]
    if label == "thread":
        labels = [f"T{t}" if t else t for t in labels]
    rows, cols = _grid_shape(shape)
    edges = []
    if warps > 1 and color != "warp":
        edges += _edges(hw["warp"] + warps * hw["block"] * (hw["block"] >= 0), rows, cols, 1.6)
    if blocks > 1:
        edges += _edges(hw["block"], rows, cols, 2.6)
    notes = []
    counts = set(holders[held].tolist())
    if (~held).any():
        notes.append(f"hatched grey: {int((~held).sum())} elements no thread holds")
    if counts - {1}:
        most = max(counts)
        notes.append(f"each element is held by {most} threads/registers (a broadcast); the cell shows the first"
                     if counts == {most} else
                     f"dotted: elements held by several threads/registers (up to {most}; a broadcast), the first shown")
    picture = LinearPicture("distributed", rows, cols, "", "", color, hw[color], extent, labels, holders, hw,
                            warp_edges=edges, notes=notes)
    lines = ("; thick lines: warp boundaries" if warps > 1 and color != "warp" else "") + (
        "; thicker: blocks" if blocks > 1 else "")
    picture.key_title = f"colour: {color} of the thread holding the element; cell: its {label}{lines}"
    return picture


def _memory(layout, color: Optional[str], label: str, elem_bytes: int, bank_bytes: int) -> LinearPicture:
    from ..linear import memory_map
    cute_side = "offset" in layout.out_dim_names
    mm = memory_map(layout)                       # coordinates -> offset; LayoutError when not a memory
    names = mm.in_dim_names
    sizes = [mm.in_dim_size(d) for d in names]
    total = int(np.prod(sizes, dtype=np.int64)) if sizes else 1
    k = np.arange(total, dtype=np.int64)
    coords = {}
    if cute_side:                                 # CuTe: mode 0 down, the others across (colexicographic)
        rows, cols = (sizes[0], total // sizes[0]) if len(sizes) > 1 else _grid_shape([total])
        r, c = np.divmod(k, cols)
        rest = r + rows * c if len(sizes) > 1 else k
        for d, s in zip(names, sizes):
            coords[d] = rest % s
            rest = rest // s
    else:                                         # Triton: the last dim across, row-major
        rest = k
        for d, s in reversed(list(zip(names, sizes))):
            coords[d] = rest % s
            rest = rest // s
        rows, cols = _grid_shape(sizes)
    offsets = mm.apply(coords)["offset"] if coords else np.zeros(total, dtype=np.int64)
    offsets = np.broadcast_to(offsets, (total,)).astype(np.int64)
    color = color or "bank"
    if color not in ("bank", "offset"):
        raise LayoutError(f"draw_linear: color={color!r} is for distributed layouts; a memory layout is coloured by "
                          f"bank or offset")
    if label not in ("offset", "none"):
        raise LayoutError(f"draw_linear: label={label!r} is for distributed layouts; a memory layout is labelled by "
                          f"offset (or none)")
    if color == "bank":
        values, extent = (offsets * elem_bytes // bank_bytes) % 32, 32
    else:
        values, extent = offsets, int(offsets.max()) + 1
    labels = [""] * total if label == "none" else [str(v) for v in offsets.tolist()]
    picture = LinearPicture("memory", rows, cols, "", "", color, values, extent, labels,
                            np.ones(total, dtype=np.int64), offsets=offsets)
    picture.key_title = (f"colour: the {bank_bytes}-byte bank (of 32) of the element's offset, {elem_bytes}-byte "
                         f"elements; cell: its offset" if color == "bank" else "colour and cell: the element's offset")
    return picture


def linear_picture(layout: Any, *, color: Optional[str] = None, label: Optional[str] = None,
                   elem_bytes: int = 2, bank_bytes: int = 4, title: Optional[str] = None) -> LinearPicture:
    """The picture of ``layout`` (see :func:`layouts.viz.draw_linear` for the arguments)."""
    layout = _check_layout(layout)
    color = str_arg("color", color, allow_none=True)
    label = str_arg("label", label, allow_none=True)
    if color is not None and color not in COLORS:
        raise LayoutError(f"draw_linear: color must be one of {', '.join(COLORS)} (or None), got {color!r}")
    if label is not None and label not in LABELS:
        raise LayoutError(f"draw_linear: label must be one of {', '.join(LABELS)} (or None), got {label!r}")
    elem_bytes = int_arg("elem_bytes", elem_bytes, lo=1, hi=1 << 20, expected="a positive number of bytes")
    bank_bytes = int_arg("bank_bytes", bank_bytes, lo=1, hi=1 << 20, expected="a positive number of bytes")
    title = str_arg("title", title, allow_none=True)
    ins, outs = layout.in_dim_names, layout.out_dim_names
    memory = "offset" in ins or "offset" in outs
    if not memory:
        extra = [d for d in ins if d not in DISTRIBUTED_DIMS]
        if extra:
            raise LayoutError(f"draw_linear: in-dims {extra} are neither hardware dims ({', '.join(DISTRIBUTED_DIMS)}: "
                              f"a distributed layout) nor 'offset' (a memory layout); this layout has in-dims {ins}")
        picture = _distributed(layout, color, label or "register")
        dims = outs
    else:
        picture = _memory(layout, color, label or "offset", elem_bytes, bank_bytes)
        dims = ins if "offset" in outs else outs
    shape = " x ".join(str(layout.in_dim_size(d) if "offset" in outs else layout.out_dim_size(d)) for d in dims)
    if len(dims) == 1:
        picture.row_name, picture.col_name = "", dims[0]
        if picture.rows > 1:
            picture.notes.append(f"{dims[0]} in rows of {picture.cols}")
    elif "offset" in outs:
        picture.row_name, picture.col_name = dims[0], ", ".join(dims[1:])
    else:
        picture.row_name, picture.col_name = (dims[0] if len(dims) == 2 else "rows"), dims[-1]
        if len(dims) > 2:
            picture.notes.append(f"rows: {' x '.join(dims[:-1])}, row-major ({dims[-2]} fastest, {dims[0]} slowest)")
    picture.matrix, picture.matrix_rows, picture.matrix_groups = _matrix(layout)
    if title is None:
        if picture.kind == "distributed":
            hw = " x ".join(f"{layout.in_dims[d]} {d}s" for d in DISTRIBUTED_DIMS if layout.in_dims.get(d, 1) > 1)
            title = f"{shape} tensor: {hw or 'one register'}"
        else:
            title = f"{shape} tensor in memory: " + ("offset -> element" if "offset" in ins else "element -> offset")
    picture.title = title
    return picture
