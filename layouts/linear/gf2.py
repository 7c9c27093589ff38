"""Linear algebra over GF(2) on rows stored as Python ints (bit ``c`` of a row is column ``c``).

The pivot of a row is its lowest set bit, as in Triton's f2reduce: the reduced row echelon form
below is the one whose pivot columns increase from the first row down, so the minimal solutions
read off it are the ones Triton computes.

>>> rref([0b011, 0b110, 0b101])
[5, 6]
>>> rank([0b011, 0b110, 0b101])
2
"""

from typing import List, Sequence


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
