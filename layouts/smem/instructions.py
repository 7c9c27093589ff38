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

A distributed thread map (lane ``l`` and its registers) can itself be the registers of these
instructions: :class:`MatrixAccess` is ``ldmatrix``/``stmatrix`` of a thread map's values, where
lane ``l`` holds row ``l // 4``, columns ``2 * (l % 4)`` and ``2 * (l % 4) + 1`` of each 8 x 8 matrix
(PTX ISA, "Matrix fragments for ldmatrix"; rows and columns swapped with ``.trans``).
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from ..cute.int_tuple import is_int
from ..errors import LayoutError, LayoutTypeError, type_name

__all__ = ["VectorInstruction", "MatrixInstruction", "MatrixAccess", "lds", "sts", "ldmatrix", "stmatrix",
           "check_width", "threads_per_phase", "vector_name", "fragment_rows", "WIDTHS"]

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


def vector_name(store: bool, width_bytes: int) -> str:
    """The PTX spelling of a vector request of ``width_bytes`` per thread: 32-bit words, several as
    a vector (``.v2``, ``.v4``), below 4 bytes one element of that width.

    >>> vector_name(True, 16), vector_name(False, 4), vector_name(False, 2)
    ('st.shared.v4.b32', 'ld.shared.b32', 'ld.shared.b16')
    """
    head = "st.shared" if store else "ld.shared"
    if width_bytes <= 4:
        return f"{head}.b{8 * width_bytes}"
    return f"{head}.v{width_bytes // 4}.b32"


def fragment_rows(values: np.ndarray, half: int, trans: bool, unit: Optional[int] = None) -> np.ndarray:
    """The matrix rows of a thread map ``values`` (32 lanes, ``2**n`` registers) read off the
    fragment of ``ldmatrix``/``stmatrix`` (PTX ISA, "Matrix fragments for ldmatrix"): in each 8 x 8
    matrix of 16-bit units, lane ``l`` holds row ``l // 4``, column ``2 * (l % 4) + h`` in the
    16-bit half ``h`` of its 32-bit register; with ``.trans``, row ``2 * (l % 4) + h``, column
    ``l // 4``. Register index bit ``half`` selects ``h``; for 8-bit elements, bit ``unit`` selects
    the byte of a 16-bit unit (the two bytes stay together). Returns ``(matrices, 8, 16 // e)``
    for ``e``-byte elements: ``[m, r, k]`` is element ``k`` of row ``r`` of matrix ``m`` -- a row
    is the 16 bytes one address names, so it must lie at consecutive offsets. The matrices run
    over the other register bits in order.

    >>> values = np.arange(64).reshape(32, 2)            # lane l holds elements 2l and 2l + 1
    >>> fragment_rows(values, 0, False)[0, 1].tolist()   # row 1: lanes 4..7, both halves
    [8, 9, 10, 11, 12, 13, 14, 15]
    >>> fragment_rows(values, 0, True)[0, 1].tolist()    # .trans: row 1 is half 1 of lanes 0, 4, ..., 28
    [1, 9, 17, 25, 33, 41, 49, 57]
    >>> fragment_rows(np.arange(128).reshape(32, 4), 1, False, unit=0)[0, 0].tolist()[:6]   # bytes in pairs
    [0, 1, 2, 3, 4, 5]
    """
    registers = values.shape[1]
    fixed = (1 << half) | (0 if unit is None else 1 << unit)
    others = [r for r in range(registers) if not r & fixed]          # one register group per matrix
    r, c = np.meshgrid(np.arange(8), np.arange(8), indexing="ij")   # (row, column) of 16-bit units
    lane, h = (4 * c + r // 2, r % 2) if trans else (4 * r + c // 2, c % 2)
    if unit is None:
        return np.stack([values[lane, base | (h << half)] for base in others])
    index = (h << half)[..., None] | (np.arange(2) << unit)        # (8, 8, 2): the unit's two bytes
    return np.stack([values[lane[..., None], base | index].reshape(8, 16) for base in others])


class MatrixAccess(MatrixInstruction):
    """``ldmatrix``/``stmatrix`` whose registers are a thread map's: the rows of
    :func:`fragment_rows`, ``.x4`` (else ``.x2``, ``.x1``) of them per issue, lane ``8 i + r``
    giving the address of row ``r`` of the issue's matrix ``i``. ``thread_map`` gives what
    :func:`~layouts.smem.conflicts` counts: every row a 16-byte request, each matrix one phase
    (the rows are elements of the thread map's tile already, so ``shape`` only names it). The
    registers are one warp's; a linear thread map's other warps hold these rows moved by a constant.

    >>> values = np.arange(256).reshape(32, 8)
    >>> m = MatrixAccess("ldmatrix", values, half=0, trans=False)
    >>> m, m.thread_map((16, 16), 2)[0][9].tolist()     # lane 9: row 1 of matrix 1 (registers 2, 3)
    (ldmatrix.x4, [34, 35, 42, 43, 50, 51, 58, 59])
    """

    __slots__ = ("rows",)

    def __init__(self, op: str, values: np.ndarray, half: int, trans: bool, unit: Optional[int] = None) -> None:
        rows = fragment_rows(values, half, trans, unit)
        super().__init__(op, min(4, rows.shape[0]), trans)
        self.rows = rows

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MatrixAccess) and self.name == other.name and np.array_equal(self.rows, other.rows)

    def __hash__(self) -> int:
        return hash((self.name, self.rows.tobytes()))

    def thread_map(self, shape: Tuple[int, ...], element_bytes: int) -> Tuple[np.ndarray, int, int]:
        """``(values, 16, 8)``: lane ``8 i + r`` of issue ``q`` gives row ``r`` of matrix ``x q + i``
        (``values[lane, per_row * q + k]``, -1 for the lanes an ``.x1``/``.x2`` leaves out)."""
        per_row = self.rows.shape[2]
        if element_bytes * per_row != 16:
            raise LayoutError(f"{self.name} of these registers moves rows of {per_row} elements; "
                              f"element_bytes={element_bytes} does not make them 16 bytes")
        issues = self.rows.shape[0] // self.matrices
        by_issue = self.rows.reshape(issues, self.matrices * 8, per_row)    # lane 8 i + r: row r of matrix i
        values = np.full((issues, 32, per_row), -1, dtype=np.int64)
        values[:, : 8 * self.matrices] = by_issue
        return values.transpose(1, 0, 2).reshape(32, issues * per_row), 16, 8
