"""Sets of the bit vectors below ``2**bits`` held in one Python int (bit ``x`` set: vector ``x``
is in the set): one ``&`` or ``|`` handles 64 vectors a machine word, which is what makes
:func:`~layouts.smem.construct.greedy_columns` cheap on the small pools a search meets.

A span grows by translation: adding ``x`` to a span ``S`` gives ``S | (S ^ x)``, and ``S ^ x``
(every member XORed with ``x``) swaps, for each bit ``b`` of ``x``, the halves of every block of
``2**(b+1)`` positions.

>>> s = span_set((1, 6), 3)                 # the span {0, 1, 6, 7}
>>> sorted(members(s)), sorted(members(translate(s, 2, low_masks(3))))
([0, 1, 6, 7], [2, 3, 4, 5])
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterator, Sequence, Tuple

__all__ = ["everything", "low_masks", "lowest", "members", "popcount_masks", "span_set", "top_rank_masks",
           "translate"]


@lru_cache(maxsize=8)        # one per tile size, each mask an int of a bit per vector
def low_masks(bits: int) -> Tuple[int, ...]:
    """For each bit ``b`` below ``bits``: the set of vectors without bit ``b`` -- runs of
    ``2**b`` members and ``2**b`` others, repeated by doubling.

    >>> [bin(m) for m in low_masks(2)]
    ['0b101', '0b11']
    """
    size = 1 << bits
    out = []
    for b in range(bits):
        mask, period = (1 << (1 << b)) - 1, 2 << b
        while period < size:
            mask |= mask << period
            period *= 2
        out.append(mask)
    return tuple(out)


def everything(bits: int) -> int:
    """The set of all ``2**bits`` vectors.

    >>> bin(everything(2))
    '0b1111'
    """
    return (1 << (1 << bits)) - 1


@lru_cache(maxsize=8)        # one per tile size, each mask an int of a bit per vector
def popcount_masks(bits: int) -> Tuple[int, ...]:
    """For each ``p`` in ``0 .. bits``: the set of vectors with ``p`` bits set (a vector below
    ``2**(b+1)`` with bit ``b`` has one more than the vector ``2**b`` below it).

    >>> [bin(m) for m in popcount_masks(2)]
    ['0b1', '0b110', '0b1000']
    """
    levels = [1] + [0] * bits
    for b in range(bits):
        levels = [levels[0]] + [levels[p] | levels[p - 1] << (1 << b) for p in range(1, bits + 1)]
    return tuple(levels)


@lru_cache(maxsize=16)       # a few tile shapes and orders
def top_rank_masks(bits: int, order: Tuple[int, ...]) -> Tuple[int, ...]:
    """For each ``t`` below ``bits``: the set of vectors whose bit latest in ``order`` is ``order[t]``.

    >>> [bin(m) for m in top_rank_masks(2, (1, 0))]
    ['0b100', '0b1010']
    """
    lows, full = low_masks(bits), everything(bits)
    out = [0] * bits
    without_later = full
    for t in range(bits - 1, -1, -1):
        out[t] = full & ~lows[order[t]] & without_later
        without_later &= lows[order[t]]
    return tuple(out)


def translate(s: int, x: int, lows: Sequence[int]) -> int:
    """``{v ^ x : v in s}``: for each bit ``b`` of ``x``, the members with and without it trade places.

    >>> translate(0b0011, 0b10, low_masks(2))      # {0, 1} ^ 2 = {2, 3}
    12
    """
    while x:
        shift = x & -x
        low = lows[shift.bit_length() - 1]
        s = ((s & low) << shift) | ((s >> shift) & low)
        x ^= shift
    return s


@lru_cache(maxsize=256)      # the calls of one search meet the same spans again and again
def span_set(vectors: Tuple[int, ...], bits: int) -> int:
    """The span of ``vectors`` (below ``2**bits``) as a set.

    >>> sorted(members(span_set((3, 5), 3)))
    [0, 3, 5, 6]
    """
    lows = low_masks(bits)
    s = 1
    for v in vectors:
        if not s >> v & 1:
            s |= translate(s, v, lows)
    return s


def lowest(s: int) -> int:
    """The smallest member of a nonempty set.

    >>> lowest(0b10100)
    2
    """
    return (s & -s).bit_length() - 1


def members(s: int) -> Iterator[int]:
    """The members, smallest first.

    >>> list(members(0b10110))
    [1, 2, 4]
    """
    while s:
        low = s & -s
        yield low.bit_length() - 1
        s ^= low
