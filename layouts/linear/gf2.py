"""Linear algebra over GF(2), the one module of it: every vector is a Python int, bit ``c`` its
coordinate ``c`` (a row of a bit matrix, a column of one, a tile's flat index).

One elimination routine, :func:`eliminate`, does the work: it takes vectors one at a time and
keeps their span as reduced rows (the pivot of a row is its lowest set bit and no other row has
that bit set), each row with the set of input vectors whose XOR it is. From it:

- the image: :func:`rref` (canonical, one per span), :func:`rank`, :func:`pivots`;
- the kernel: :attr:`Elimination.dependent`, the vectors already in the span of earlier ones (the
  free columns of the matrix whose columns they are);
- solutions: :meth:`Elimination.solve` writes a vector as an XOR of the input vectors, using only
  the independent ones (free variables 0), so it is the unique such solution; a right inverse is
  that solve done for each unit vector.

:func:`xor_basis` is a second, lighter form for the span tests of the swizzle search
(:mod:`layouts.smem.construct`): an echelon basis keyed by each vector's leading (highest) bit,
grown one vector at a time, with no record kept.

>>> rref([0b011, 0b110, 0b101])
[5, 6]
>>> rank([0b011, 0b110, 0b101])
2
>>> basis = xor_basis([3, 5, 6, 1])
>>> len(basis), in_span(basis, 6), in_span(basis, 8)
(3, True, False)
>>> span_elements([1, 4]).tolist()
[0, 1, 4, 5]
"""

from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np


def lowest_bit(v: int) -> int:
    """The index of the lowest set bit of ``v`` (a nonzero int).

    >>> lowest_bit(0b1100)
    2
    """
    return (v & -v).bit_length() - 1


class Elimination:
    """Vectors ``0, 1, ...`` row-reduced in that order (see the module docstring).

    ``rows[p]`` is the reduced row with pivot bit ``p``; ``combos[p]`` a mask over input indices,
    the vectors whose XOR is ``rows[p]``; ``independent`` the indices that raised the rank,
    ``dependent`` the others.

    >>> e = eliminate([0b01, 0b11, 0b10])
    >>> e.independent, e.dependent, e.solve(0b10)
    ([0, 1], [2], 3)
    """

    def __init__(self) -> None:
        self.rows: Dict[int, int] = {}
        self.combos: Dict[int, int] = {}
        self.independent: List[int] = []
        self.dependent: List[int] = []
        self._count = 0

    def _reduce(self, v: int) -> Tuple[int, int]:
        """``v`` with every pivot bit cleared, and the mask of input vectors XORed in to do it."""
        combo = 0
        for pivot, row in self.rows.items():
            if v >> pivot & 1:          # rows carry no other row's pivot: one pass in any order
                v ^= row
                combo ^= self.combos[pivot]
        return v, combo

    def add(self, v: int) -> None:
        """Take the next input vector into the span."""
        index = self._count
        self._count += 1
        rest, combo = self._reduce(v)
        if not rest:
            self.dependent.append(index)
            return
        combo ^= 1 << index
        pivot = lowest_bit(rest)
        for p, row in self.rows.items():            # keep every row free of the new pivot
            if row >> pivot & 1:
                self.rows[p] = row ^ rest
                self.combos[p] ^= combo
        self.rows[pivot] = rest
        self.combos[pivot] = combo
        self.independent.append(index)

    def solve(self, target: int) -> Optional[int]:
        """The mask of independent input vectors whose XOR is ``target``, or None when none is."""
        rest, combo = self._reduce(target)
        return None if rest else combo

    def reduced_rows(self) -> List[int]:
        """The rows sorted by pivot: the reduced row echelon form of the span."""
        return [self.rows[p] for p in sorted(self.rows)]


def eliminate(vectors: Iterable[int]) -> Elimination:
    """The elimination of ``vectors``, in order.

    >>> eliminate([0b110, 0b011]).reduced_rows()
    [5, 6]
    """
    e = Elimination()
    for v in vectors:
        e.add(v)
    return e


def rref(rows: Sequence[int]) -> List[int]:
    """The nonzero rows of the reduced row echelon form of ``rows``, sorted by pivot column (the
    pivot of a row is its lowest set bit).

    >>> rref([0b110, 0b011])
    [5, 6]
    """
    return eliminate(rows).reduced_rows()


def rank(rows: Sequence[int]) -> int:
    """The number of linearly independent rows.

    >>> rank([1, 2, 3])
    2
    """
    return len(eliminate(rows).independent)


def pivot_columns(rows: Sequence[int]) -> List[int]:
    """The pivot column of each row of ``rref(rows)``, increasing.

    >>> pivot_columns([0b110, 0b011])
    [0, 1]
    """
    return sorted(eliminate(rows).rows)


def pivots(vectors: List[int]) -> int:
    """A mask of pivot bits: the vectors with none of these bits form a complement of the span.

    >>> bin(pivots([0b110, 0b011]))        # vectors without bits 0, 1 (0b000, 0b100) complement the span
    '0b11'
    """
    return sum(1 << p for p in eliminate(vectors).rows)


def columns_to_rows(columns: Sequence[int], num_rows: int) -> List[int]:
    """Transpose a bit matrix given column by column (column ``c`` an int over rows).

    >>> columns_to_rows([0b01, 0b11], 2)
    [3, 2]
    """
    return [sum((col >> r & 1) << c for c, col in enumerate(columns)) for r in range(num_rows)]


def xor_basis(vectors: Iterable[int]) -> Dict[int, int]:
    """A basis of the span of ``vectors``: leading bit -> vector.

    >>> xor_basis([3, 1, 2])
    {1: 3, 0: 1}
    """
    basis: Dict[int, int] = {}
    for v in vectors:
        v = reduce(basis, int(v))
        if v:
            basis[v.bit_length() - 1] = v
    return basis


def reduce(basis: Dict[int, int], v: int) -> int:
    """``v`` with every leading bit of ``basis`` cleared, high to low (0 when ``v`` is in the span).

    >>> reduce({1: 3, 0: 1}, 2), reduce({1: 3}, 4)
    (0, 4)
    """
    for top in sorted(basis, reverse=True):
        if v >> top & 1:
            v ^= basis[top]
    return v


def in_span(basis: Dict[int, int], v: int) -> bool:
    """Is ``v`` in the span of ``basis``?

    >>> in_span({1: 3}, 3), in_span({1: 3}, 1)
    (True, False)
    """
    return reduce(basis, v) == 0


def span_elements(vectors: Iterable[int]) -> np.ndarray:
    """Every element of the span of ``vectors`` (which need not be independent), as int64.

    >>> span_elements([3, 1, 2]).tolist()
    [0, 3, 1, 2]
    """
    out = np.zeros(1, dtype=np.int64)
    for v in xor_basis(vectors).values():
        out = np.concatenate([out, out ^ v])
    return out


def span_table(vectors: Iterable[int], bits: int) -> np.ndarray:
    """A boolean table over all ``2**bits`` vectors: True for those in the span.

    >>> span_table([3], 2).tolist()
    [True, False, False, True]
    """
    table = np.zeros(1 << bits, dtype=bool)
    table[span_elements(vectors)] = True
    return table
