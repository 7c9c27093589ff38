"""Small GF(2) tools for the swizzle search: vectors are ints (bit j = bit j of a tile's flat index).

>>> basis = xor_basis([3, 5, 6, 1])
>>> len(basis), in_span(basis, 6), in_span(basis, 8)
(3, True, False)
>>> span_elements([1, 4]).tolist()
[0, 1, 4, 5]
"""

from __future__ import annotations

from typing import Dict, Iterable, List

import numpy as np

from ..linear.gf2 import rref


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
