"""A linear layout as text: who holds each element, what each offset stores, and its bit matrix.

:func:`distributed_view` and :func:`shared_view` print what Triton's ``get_distributed_view`` and
``get_shared_view`` print (``getDistributedLayoutStr`` / ``getSharedLayoutStr`` in
``lib/Dialect/TritonGPU/IR/Dialect.cpp``), character for character, without the wheel and
without its aborts: a layout that is not of the kind is a :class:`~layouts.errors.LayoutError`
naming its dims. :func:`matrix_view` labels the rows and columns of :meth:`LinearLayout.matrix`.

The MMA v2 accumulator of one warp (Triton's test ``MMAv2_16x16``, one 8 x 8 quarter): each
cell is ``T<thread>:<register>``, row ``dim0``, column ``dim1``:

>>> from layouts.linear import LinearLayout
>>> mma = LinearLayout.from_bases(
...     {"register": [[0, 1]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}, ["dim0", "dim1"])
>>> print(distributed_view(mma).splitlines()[1])
[  T4:0,  T4:1,  T5:0,  T5:1,  T6:0,  T6:1,  T7:0,  T7:1]
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence

import numpy as np

from ..errors import LayoutError, LayoutTypeError, type_name
from .layout import LinearLayout

__all__ = ["distributed_view", "shared_view", "matrix_view", "MAX_VIEW_ELEMENTS", "MAX_VIEW_INPUTS"]

#: The most tensor elements a text view prints (about a megabyte of text); past it, a LayoutError.
MAX_VIEW_ELEMENTS = 1 << 16
#: The most hardware inputs (registers x lanes x warps x blocks) a distributed view lists.
MAX_VIEW_INPUTS = 1 << 18

DISTRIBUTED_DIMS = ("register", "lane", "warp", "block")
SHARED_DIMS = ("offset", "block")


def _layout(layout: Any, what: str) -> LinearLayout:
    if not isinstance(layout, LinearLayout):
        raise LayoutTypeError(f"{what}: layout must be a layouts.linear.LinearLayout, got {type_name(layout)}")
    if not layout.out_dim_names:
        raise LayoutError(f"{what}: the layout has no out-dims, so there is no tensor to print")
    if layout.total_out_size > MAX_VIEW_ELEMENTS:
        raise LayoutError(f"{what}: the tensor has {layout.total_out_size} elements ({dict(layout.out_dims)}), more "
                          f"than MAX_VIEW_ELEMENTS = {MAX_VIEW_ELEMENTS}; view a part of it "
                          f"(L.resize_out_dim(dim, size) or L.sublayout(...))")
    return layout


def _check_ins(layout: LinearLayout, allowed: Sequence[str], what: str) -> None:
    extra = [d for d in layout.in_dim_names if d not in allowed]
    if extra:
        raise LayoutError(f"{what}: in-dims {extra} are not among {list(allowed)} (the in-dims of Triton's "
                          f"{'distributed' if 'lane' in allowed else 'shared'} layouts); this layout has in-dims "
                          f"{layout.in_dim_names}")


def _check_flag(hardware: Any) -> bool:
    if not isinstance(hardware, (bool, np.bool_)):
        raise LayoutTypeError(f"hardware must be True (the hardware's point of view) or False (the tensor's), "
                              f"got {type_name(hardware)}")
    return bool(hardware)


def _pad(value: int, limit: int) -> str:
    """``value`` right-aligned to the width of ``limit`` (Triton's ``paddedString``)."""
    return " " * (len(str(limit)) - len(str(value))) + str(value)


def _grid_text(cells: List[str], shape: Sequence[int], sep: str) -> str:
    """Triton's bracketed grid: the last out-dim fastest, one line per run of it."""
    rank = len(shape)
    size = len(cells)
    strides = [int(np.prod(shape[i + 1:], dtype=np.int64)) for i in range(rank)]

    def indices(i: int) -> List[int]:
        return [(i // strides[j]) % shape[j] for j in range(rank)]
    out: List[str] = []
    new_line = True
    for i in range(size):
        idx = indices(i)
        opened = 0
        for j in range(rank - 1, -1, -1):
            if idx[j] != 0:
                break
            out.append("[")
            opened += 1
        if new_line:
            out.append(" " * max(rank - opened, 0))
            new_line = False
        out.append(cells[i])
        nxt = indices(i + 1)
        for j in range(rank - 1, -1, -1):
            if nxt[j] != 0:
                break
            out.append("]")
        if nxt[-1] == 0:
            out.append("\n")
            new_line = True
        else:
            out.append(sep)
    return "".join(out)


def _linear_index(outs: Dict[str, np.ndarray], shape: Sequence[int]) -> np.ndarray:
    """Row-major index of each output (the last out-dim fastest), as Triton linearises it."""
    index = np.zeros_like(next(iter(outs.values())))
    for value, size in zip(outs.values(), shape):
        index = index * size + value
    return index


def distributed_view(layout: LinearLayout, hardware: bool = False) -> str:
    """Which thread and register hold each tensor element: Triton's ``get_distributed_view``.

    ``hardware=False``: the tensor as a bracketed grid (the last out-dim across), each element
    ``T<thread>:<register>`` with ``thread = lane + warp * lanes``, ``B<block>:`` in front when
    there are several blocks, ``|`` between the holders of a broadcast element, nothing for an
    element no one holds. ``hardware=True``: per block and warp, one line per register listing
    the coordinates each lane holds.

    In-dims are ``register``, ``lane``, ``warp`` and ``block`` (one left out has size 1); any
    other is a LayoutError, as is a tensor of more than :data:`MAX_VIEW_ELEMENTS` elements.

    Examples
    --------
    >>> from layouts.linear import LinearLayout
    >>> L = LinearLayout.from_bases({"register": [[1]], "lane": [[2], [0]]}, ["dim0"])
    >>> print(distributed_view(L))
    [T0:0|T2:0, T0:1|T2:1, T1:0|T3:0, T1:1|T3:1]
    >>> print(distributed_view(L, hardware=True))
    Warp0:
    (0), (2), (0), (2)
    (1), (3), (1), (3)
    <BLANKLINE>
    """
    what = "distributed_view"
    layout = _layout(layout, what)
    hardware = _check_flag(hardware)
    _check_ins(layout, DISTRIBUTED_DIMS, what)
    sizes = {d: layout.in_dims.get(d, 1) for d in DISTRIBUTED_DIMS}
    regs, lanes, warps, blocks = (sizes[d] for d in DISTRIBUTED_DIMS)
    if layout.total_in_size > MAX_VIEW_INPUTS:
        raise LayoutError(f"{what}: the layout has {layout.total_in_size} hardware inputs ({dict(layout.in_dims)}), more "
                          f"than MAX_VIEW_INPUTS = {MAX_VIEW_INPUTS}; view fewer registers (L.resize_in_dim('register', n))")
    shape = list(layout.out_dims.values())
    # Triton's loop order: block, warp, lane, register (the last fastest)
    block, warp, lane, reg = (a.ravel() for a in np.meshgrid(np.arange(blocks), np.arange(warps), np.arange(lanes),
                                                            np.arange(regs), indexing="ij"))
    coords = {d: v for d, v in zip(DISTRIBUTED_DIMS, (reg, lane, warp, block)) if d in layout.in_dims}
    outs = layout.apply(coords) if coords else {d: np.zeros(1, dtype=np.int64) for d in layout.out_dim_names}
    outs = {d: np.broadcast_to(v, reg.shape) for d, v in outs.items()}
    if not hardware:
        cells = [""] * layout.total_out_size
        thread_limit = warps * lanes
        for k, index in enumerate(_linear_index(outs, shape).tolist()):
            b, t, r = int(block[k]), int(warp[k]) * lanes + int(lane[k]), int(reg[k])
            pad = (len(str(blocks)) - len(str(b))) + (len(str(thread_limit)) - len(str(t))) + (len(str(regs)) - len(str(r)))
            text = " " * pad + (f"B{b}:" if blocks > 1 else "") + f"T{t}:{r}"
            cells[index] = text if not cells[index] else cells[index] + "|" + text
        return _grid_text(cells, shape, ", ")
    points = ["(" + ",".join(_pad(int(v), s) for v, s in zip(vals, shape)) + ")"
              for vals in zip(*(outs[d].tolist() for d in layout.out_dim_names))]
    lines: List[str] = []
    per_warp = lanes * regs
    for b in range(blocks):
        if blocks > 1:
            lines.append(f"Block{b}:")
        for w in range(warps):
            lines.append(f"Warp{w}:")
            base = (b * warps + w) * per_warp
            for r in range(regs):
                lines.append(", ".join(points[base + t * regs + r] for t in range(lanes)))
    return "\n".join(lines) + "\n"


def shared_view(layout: LinearLayout, hardware: bool = False) -> str:
    """Which element each shared-memory offset stores: Triton's ``get_shared_view``.

    ``hardware=False``: the offsets of each block laid out in the tensor's shape (the last
    out-dim across), each showing the element stored there as ``(row:col)``, so a swizzle shows
    as rows whose columns are permuted. ``hardware=True``: one line per offset,
    ``Offset: k -> (row,col)``, under ``Block: b:``.

    In-dims are ``offset`` and ``block`` (Triton's orientation: offset -> element); the offsets
    and blocks must cover the tensor (as Triton, the view prints the first ``elements / blocks``
    offsets of each block). Anything else is a LayoutError naming the dims.

    Examples
    --------
    >>> from layouts.linear import LinearLayout
    >>> swizzled = LinearLayout.from_bases({"offset": [[0, 1], [1, 1]]}, ["dim0", "dim1"])
    >>> print(shared_view(swizzled))
    [[(0:0),(0:1)]
    [ (1:1),(1:0)]]
    <BLANKLINE>
    >>> print(shared_view(swizzled, hardware=True).splitlines()[3])
    Offset: 2 -> (1,1)
    """
    what = "shared_view"
    layout = _layout(layout, what)
    hardware = _check_flag(hardware)
    _check_ins(layout, SHARED_DIMS, what)
    if "offset" not in layout.in_dims:
        raise LayoutError(f"{what}: a shared layout has the in-dim 'offset' (offset -> element, Triton's "
                          f"orientation); this one has in-dims {layout.in_dim_names} -> out-dims {layout.out_dim_names}")
    shape = list(layout.out_dims.values())
    blocks = layout.in_dims.get("block", 1)
    per_block = layout.total_out_size // blocks
    if per_block == 0 or layout.in_dim_size("offset") < per_block:
        raise LayoutError(f"{what}: {blocks} block(s) of {layout.in_dim_size('offset')} offsets cannot hold the "
                          f"{layout.total_out_size} elements of {dict(layout.out_dims)}")
    block, offset = (a.ravel() for a in np.meshgrid(np.arange(blocks), np.arange(per_block), indexing="ij"))
    coords = {"offset": offset}
    if "block" in layout.in_dims:
        coords["block"] = block
    outs = layout.apply(coords)
    columns = [outs[d].tolist() for d in layout.out_dim_names]
    padded = [[_pad(v, s) for v in col] for col, s in zip(columns, shape)]
    if not hardware:
        cells = ["(" + ":".join(vals) + ")" for vals in zip(*padded)]
        return _grid_text(cells, shape, ",")
    lines: List[str] = []
    k = 0
    for b in range(blocks):
        lines.append(f"Block: {b}:")
        for off in range(per_block):
            lines.append(f"Offset: {off} -> (" + ",".join(col[k] for col in padded) + ")")
            k += 1
    return "\n".join(lines) + "\n"


def _bit_names(dims: Dict[str, int]) -> List[str]:
    return [f"{d}:{i}" for d, size in dims.items() for i in range(size.bit_length() - 1)]


def matrix_view(layout: LinearLayout) -> str:
    """The GF(2) matrix of ``layout`` (:meth:`LinearLayout.matrix`: Triton's ``getMatrix``) with
    its rows and columns named: one row per output bit ``dim:bit``, one column per input bit, in
    Triton's order (dims minor to major, low bit first); ``1`` where the input bit flips the
    output bit, ``.`` elsewhere. Column headings are the in-dims, then each column's bit number.

    Examples
    --------
    >>> from layouts.linear import LinearLayout
    >>> L = LinearLayout.from_bases({"register": [[0, 1]], "lane": [[1, 0], [1, 1]]}, ["dim0", "dim1"])
    >>> print(matrix_view(L))
             register lane
                    0    0 1
    dim0:0          .    1 1
    dim1:0          1    . 1
    """
    if not isinstance(layout, LinearLayout):
        raise LayoutTypeError(f"matrix_view: layout must be a layouts.linear.LinearLayout, got {type_name(layout)}")
    matrix = layout.matrix()
    rows = _bit_names(layout.out_dims)
    head = max((len(r) for r in rows), default=0) + 1
    groups = [(d, size.bit_length() - 1) for d, size in layout.in_dims.items() if size > 1]
    cw = len(str(max((n for _, n in groups), default=1) - 1))      # the widest bit number
    # each in-dim's block of columns is as wide as its name, columns cw + 1 characters apart
    widths = [max(len(d), (cw + 1) * n - 1) for d, n in groups]
    names = " " * head + " ".join(d.rjust(w) for (d, _), w in zip(groups, widths))
    bits = " " * head + " ".join(" ".join(str(i).rjust(cw) for i in range(n)).rjust(w) for (_, n), w in zip(groups, widths))
    lines = [names.rstrip(), bits.rstrip()]
    for r, name in enumerate(rows):
        cells, c = [], 0
        for (_, n), w in zip(groups, widths):
            cells.append(" ".join(("1" if matrix[r, c + i] else ".").rjust(cw) for i in range(n)).rjust(w))
            c += n
        lines.append((name.ljust(head) + " ".join(cells)).rstrip())
    return "\n".join(lines)
