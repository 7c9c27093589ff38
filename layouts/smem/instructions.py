"""The shared-memory instructions the model knows: ``lds``/``sts`` of a width, ``ldmatrix``/``stmatrix``.

``lds(w)`` and ``sts(w)`` are a width (and a direction) for a thread map given with
:class:`~layouts.smem.Access`. ``ldmatrix`` and ``stmatrix`` bring their own thread map
(PTX ISA, "Warp-level matrix load instruction: ldmatrix"): each 8 x 8 matrix is 8 rows of 16
bytes, thread ``t`` gives the address of row ``t % 8`` of matrix ``t // 8``, ``.x1/.x2/.x4``
move 1, 2 or 4 matrices (threads past ``8 * matrices`` give no address). On a tile of shape
``(rows, cols)`` the matrices lie along the row: a matrix row is ``16 // element_bytes``
consecutive elements of one tile row, the matrices of the tile taken row block by row block, each
row block left to right, ``x4`` four at a time. ``.trans`` only changes which register receives
which element, not the addresses, so it does not change bank conflicts (a B operand stored
``[K, N]`` with N contiguous is read by ``ldmatrix.trans`` along its rows). For a tile whose first
mode is the contiguous one, ``along="column"`` reads 16-byte pieces down the columns instead,
the matrices taken column block by column block.

>>> m = ldmatrix(x4=True)
>>> values, width, per_phase = m.thread_map((8, 64), element_bytes=2)
>>> values.shape, width, per_phase, values[1, :3].tolist()   # thread 1: row 1, columns 0, 1, 2
((32, 16), 16, 8, [1, 9, 17])
"""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np

from ..cute.int_tuple import is_int
from ..errors import LayoutError, LayoutTypeError, type_name

__all__ = ["VectorInstruction", "MatrixInstruction", "lds", "sts", "ldmatrix", "stmatrix", "check_width",
           "threads_per_phase", "WIDTHS"]

#: The request widths of shared-memory loads and stores, in bytes (ld.shared.{b8..v4.b32}).
WIDTHS = (1, 2, 4, 8, 16)


def check_width(width_bytes: Any, name: str = "width_bytes") -> int:
    """``width_bytes`` checked: one of 1, 2, 4, 8, 16.

    >>> check_width(12)
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: width_bytes=12 is not a shared-memory access width; expected one of 1, 2, 4, 8, 16 bytes
    """
    if not is_int(width_bytes):
        raise LayoutTypeError(f"{name} must be an int (bytes per thread and request), got {type_name(width_bytes)}")
    if int(width_bytes) not in WIDTHS:
        raise LayoutError(f"{name}={int(width_bytes)} is not a shared-memory access width; expected one of "
                          f"{', '.join(map(str, WIDTHS))} bytes")
    return int(width_bytes)


def threads_per_phase(width_bytes: int) -> int:
    """How many threads of a warp one phase serves: 32 up to 4 bytes, 16 for 8, 8 for 16 (a phase
    moves at most 128 bytes, one 4-byte word per bank).

    >>> [threads_per_phase(w) for w in (1, 2, 4, 8, 16)]
    [32, 32, 32, 16, 8]
    """
    return 32 if width_bytes <= 4 else 128 // width_bytes


class VectorInstruction:
    """``ld.shared``/``st.shared`` of ``width_bytes`` per thread: a width for a thread map.

    >>> sts(16)
    sts(16)
    """

    __slots__ = ("op", "width_bytes")

    def __init__(self, op: str, width_bytes: Any) -> None:
        self.op = op
        self.width_bytes = check_width(width_bytes)

    def __repr__(self) -> str:
        return f"{self.op}({self.width_bytes})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VectorInstruction) and (self.op, self.width_bytes) == (other.op, other.width_bytes)

    def __hash__(self) -> int:
        return hash((self.op, self.width_bytes))


def lds(width_bytes: int) -> VectorInstruction:
    """A shared-memory load of ``width_bytes`` per thread (``Access(threads, lds(16))``).

    >>> lds(8).width_bytes
    8
    """
    return VectorInstruction("lds", width_bytes)


def sts(width_bytes: int) -> VectorInstruction:
    """A shared-memory store of ``width_bytes`` per thread (``Access(threads, sts(16))``).

    >>> sts(4).op
    'sts'
    """
    return VectorInstruction("sts", width_bytes)


class MatrixInstruction:
    """``ldmatrix``/``stmatrix`` over a whole tile: 8 x 8 matrices of 16-byte rows.

    >>> ldmatrix(x2=True, trans=True)
    ldmatrix.x2.trans
    >>> ldmatrix(x4=True, along="column")
    ldmatrix.x4 (down the columns)
    """

    __slots__ = ("op", "matrices", "trans", "along")
    width_bytes = 16

    def __init__(self, op: str, matrices: int, trans: Any, along: Any = "row") -> None:
        if not isinstance(trans, bool):
            raise LayoutTypeError(f"{op}: trans must be True or False, got {type_name(trans)}")
        if along not in ("row", "column"):
            raise LayoutError(f"{op}: along must be 'row' (16-byte pieces of the tile's rows) or 'column', "
                              f"got {type_name(along)}")
        self.op, self.matrices, self.trans, self.along = op, matrices, trans, along

    @property
    def name(self) -> str:
        return (f"{self.op}.x{self.matrices}{'.trans' if self.trans else ''}"
                f"{' (down the columns)' if self.along == 'column' else ''}")

    def __repr__(self) -> str:
        return self.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MatrixInstruction) and (self.op, self.matrices, self.trans, self.along) == (
            other.op, other.matrices, other.trans, other.along)

    def __hash__(self) -> int:
        return hash((self.op, self.matrices, self.trans, self.along))

    def thread_map(self, shape: Tuple[int, ...], element_bytes: int) -> Tuple[np.ndarray, int, int]:
        """``(values, 16, 8)``: the rows each thread gives, one per issue of the instruction
        (``values[t, 16 // element_bytes * q + j]`` = element ``j`` of the row thread ``t``
        gives in issue ``q``, -1 where it gives none), the request width and threads per phase.

        >>> v, _, _ = ldmatrix(x1=True).thread_map((8, 8), 2)
        >>> v[7].tolist(), v[8].tolist()
        ([7, 15, 23, 31, 39, 47, 55, 63], [-1, -1, -1, -1, -1, -1, -1, -1])
        """
        if len(shape) != 2:
            raise LayoutError(f"{self.name} reads a 2-D (rows, cols) tile; this shared layout's shape is {shape} "
                              f"(give shape=(rows, cols))")
        if element_bytes > 16:
            raise LayoutError(f"{self.name} moves 16-byte rows; element_bytes={element_bytes} does not fit one")
        rows, cols = shape
        per_row = 16 // element_bytes
        down = self.along == "column"
        along, across = (rows, cols) if down else (cols, rows)   # the row's direction, the other one
        if along % per_row or across % 8:
            what = "rows" if down else "cols"
            other = "cols" if down else "rows"
            raise LayoutError(f"{self.name} on a {rows} x {cols} tile of {element_bytes}-byte elements: its {what} "
                              f"must be a multiple of {per_row} (16-byte matrix rows) and its {other} a multiple "
                              f"of 8 (8 rows per matrix)")
        blocks_along, blocks_across = along // per_row, across // 8
        total = blocks_along * blocks_across
        if total % self.matrices:
            raise LayoutError(f"{self.name} on a {rows} x {cols} tile: the tile has {total} 8x8 matrices, not a "
                              f"multiple of the {self.matrices} one instruction moves")
        issues = total // self.matrices
        m = np.arange(total).reshape(issues, self.matrices)           # matrix index, by issue and slot
        a, b = m % blocks_along, m // blocks_along                     # block along the row, across it
        t = np.arange(8 * self.matrices)
        slot, r = t // 8, t % 8
        first_along = a[:, slot] * per_row                             # (issues, threads)
        line = b[:, slot] * 8 + r
        j = np.arange(per_row)
        pos_along = first_along[..., None] + j                         # (issues, threads, per_row)
        pos_across = np.broadcast_to(line[..., None], pos_along.shape)
        row, col = (pos_along, pos_across) if down else (pos_across, pos_along)
        flat = row + rows * col                                        # colexicographic index
        values = np.full((32, issues, per_row), -1, dtype=np.int64)
        values[: 8 * self.matrices] = flat.transpose(1, 0, 2)
        return values.reshape(32, issues * per_row), 16, 8


def _matrices(what: str, x1: bool, x2: bool, x4: bool) -> int:
    chosen = [n for n, flag in ((1, x1), (2, x2), (4, x4)) if flag]
    if len(chosen) != 1:
        raise LayoutError(f"{what}: choose exactly one of x1=True, x2=True, x4=True (got {len(chosen)})")
    return chosen[0]


def ldmatrix(x1: bool = False, x2: bool = False, x4: bool = False, trans: bool = False,
             along: str = "row") -> MatrixInstruction:
    """``ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].b16`` over a tile (see the module's text):
    ``along="row"`` reads 16-byte pieces of the tile's rows, ``"column"`` of its columns.

    >>> ldmatrix(x4=True).matrices
    4
    >>> ldmatrix()
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: ldmatrix: choose exactly one of x1=True, x2=True, x4=True (got 0)
    """
    return MatrixInstruction("ldmatrix", _matrices("ldmatrix", x1, x2, x4), trans, along)


def stmatrix(x1: bool = False, x2: bool = False, x4: bool = False, trans: bool = False,
             along: str = "row") -> MatrixInstruction:
    """``stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].b16`` (SM90): the same rows as ldmatrix, stored.

    >>> stmatrix(x2=True)
    stmatrix.x2
    """
    return MatrixInstruction("stmatrix", _matrices("stmatrix", x1, x2, x4), trans, along)
