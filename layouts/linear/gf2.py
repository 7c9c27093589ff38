"""Linear algebra over GF(2), the one module of it: every vector is a Python int, bit ``c`` its
coordinate ``c`` (a row of a bit matrix, a column of one, a tile's flat index).

Two forms of a basis, for two uses:

- :func:`rref`, the reduced row echelon form: the pivot of a row is its lowest set bit, no row has
  another row's pivot set, rows sorted by pivot. It is canonical (one per span), and the minimal
  solutions read off it are the ones Triton computes (its f2reduce has the same pivots);
- :func:`xor_basis`, an echelon basis keyed by each vector's leading bit, grown one vector at a
  time, for the span tests of the swizzle search (:mod:`layouts.smem.construct`).

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

from typing import Dict, Iterable, List, Sequence

import numpy as np


def rref(rows: Sequence[int]) -> List[int]:
    """The nonzero rows of the reduced row echelon form of ``rows``, sorted by pivot column.

    >>> rref([0b110, 0b011])
    [5, 6]
    """
    basis: List[int] = []          # kept reduced: no row has another row's pivot set
    for row in rows:
        for b in basis:
            if row & (b & -b):
                row ^= b
        if row:
            pivot = row & -row
            basis = [b ^ row if b & pivot else b for b in basis]
            basis.append(row)
    basis.sort(key=lambda b: b & -b)
    return basis


def rank(rows: Sequence[int]) -> int:
    """The number of linearly independent rows.

    >>> rank([1, 2, 3])
    2
    """
    return len(rref(rows))


def pivot_columns(rows: Sequence[int]) -> List[int]:
    """The pivot column of each row of ``rref(rows)``, increasing.

    >>> pivot_columns([0b110, 0b011])
    [0, 1]
    """
    return [(r & -r).bit_length() - 1 for r in rref(rows)]


def columns_to_rows(columns: Sequence[int], num_rows: int) -> List[int]:
    """Transpose a bit matrix given column by column (column ``c`` an int over rows).

    >>> columns_to_rows([0b01, 0b11], 2)
    [3, 2]
    """
    out = [0] * num_rows
    for c, col in enumerate(columns):
        r = 0
        while col:
            if col & 1:
                out[r] |= 1 << c
            col >>= 1
            r += 1
    return out


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
    """Every element of the span of ``vectors`` (which need not be independent), as int64."""
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


def pivots(vectors: List[int]) -> int:
    """A mask of pivot bits: the vectors with none of these bits form a complement of the span.

    >>> bin(pivots([0b110, 0b011]))        # vectors without bits 0, 1 (0b000, 0b100) complement the span
    '0b11'
    """
    mask = 0
    for r in rref(vectors):
        mask |= r & -r
    return mask
