"""The vectors :func:`~layouts.smem.construct.greedy_columns` picks its columns from, and how it
ranks them: the pool (a complement of the vector's span), each vector's bits and top rank in the
plain layout's order, and the least-cost choice, on sets held as ints
(:mod:`~layouts.smem.bitsets`) or, where that does not pay, as numpy tables.

>>> pool, popcount, top_rank = pool_arrays(3, (0, 1, 2), 0b001, None)     # vectors without bit 0
>>> pool.tolist(), popcount.tolist(), top_rank.tolist()
([2, 4, 6], [1, 1, 2], [1, 2, 2])
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterator, List, Optional, Sequence, Tuple

import numpy as np

from ..linear.gf2 import span_elements
from . import bitsets

__all__ = ["Span", "bank_candidates", "bit_tables", "cheapest", "first_in_pool", "first_smallest", "least_cost",
           "pivot_mask", "pool_arrays", "pool_set", "span_of", "table_of"]


def pivot_mask(vectors: Sequence[int]) -> int:
    """:func:`layouts.linear.gf2.pivots` of ``vectors``: the lowest bits of the span's nonzero
    elements, which any echelon form by lowest bit lists once each (so a plain one will do).

    >>> bin(pivot_mask([0b110, 0b011]))
    '0b11'
    """
    rows: dict = {}                                              # lowest bit -> a row with it
    for v in vectors:
        v = int(v)
        while v:
            low = v & -v
            row = rows.get(low)
            if row is None:
                rows[low] = v
                break
            v ^= row
    return sum(rows)


#: The most cost classes :func:`least_cost` splits a pool into before the pool is ranked whole.
_CLASSES = 64


def least_cost(candidates: int, spans: Sequence[int], costs: Sequence[int]) -> Optional[int]:
    """The candidates of the least cost, a vector costing the sum of ``costs[i]`` over the
    ``spans[i]`` it lies in: the candidates split by membership of each span in turn (None
    where that makes more than ``_CLASSES`` classes)."""
    parts = [(0, candidates)]
    for span, cost in zip(spans, costs):
        split = []
        for total, part in parts:
            inside = part & span
            if inside:
                split.append((total + cost, inside))
            if part ^ inside:
                split.append((total, part ^ inside))
        parts = split
        if len(parts) > _CLASSES:
            return None
    least = min(total for total, _ in parts)
    tied = 0
    for total, part in parts:
        if total == least:
            tied |= part
    return tied


def first_in_pool(tied: int, arrays: tuple) -> int:
    """The member of ``tied`` that comes first in :func:`pool_arrays` of ``arrays`` (increasing, unless
    the pool is a span's elements)."""
    if arrays[3] is None:
        return bitsets.lowest(tied)
    found = list(bitsets.members(tied))
    if len(found) == 1:
        return found[0]
    pool = pool_arrays(*arrays)[0]
    where = np.flatnonzero(np.isin(pool, found))
    return int(pool[where[0]])


def table_of(s: int, bits: int) -> np.ndarray:
    """A set as a boolean table over the ``2**bits`` vectors."""
    raw = np.frombuffer(s.to_bytes(max(1, (1 << bits) // 8), "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[: 1 << bits].astype(bool)


@lru_cache(maxsize=64)      # the calls of one search share a few pools
def pool_set(bits: int, without: Optional[int], complement: Optional[Tuple[int, ...]]) -> int:
    """:func:`pool_arrays`'s vectors as a set."""
    if complement is None:
        pool = bitsets.everything(bits)
        for bit, low in enumerate(bitsets.low_masks(bits)):
            if (without or 0) >> bit & 1:
                pool &= low
        return pool & ~1
    return bitsets.span_set(complement, bits) & ~1


def cheapest(taken: np.ndarray, cost: np.ndarray, popcount: np.ndarray, top_rank: np.ndarray) -> int:
    """The position ``np.lexsort((-top_rank, popcount, cost, taken))[0]`` names: the first
    untaken vector of the least cost, then of the fewest bits, then of the latest top rank."""
    if taken.all():
        return first_smallest((taken, cost, popcount, -top_rank))
    masked = np.where(taken, np.iinfo(np.int64).max, cost)
    where = np.flatnonzero(masked == masked.min())
    if where.size > 1:
        where = where[popcount[where] == popcount[where].min()]
    if where.size > 1:
        where = where[top_rank[where] == top_rank[where].max()]
    return int(where[0])


@lru_cache(maxsize=8)       # few calls need them; each holds three arrays of up to a tile's size
def pool_arrays(bits: int, order: Tuple[int, ...], without: Optional[int],
                complement: Optional[Tuple[int, ...]]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(pool, popcount, top rank)``: the vectors the columns after the vector come from --
    those without a bit of ``without``, or the span of ``complement`` -- in increasing order
    (the span in the order of its elements), and each one's bits and top rank."""
    if complement is None:
        pool = np.arange(1, 1 << bits, dtype=np.int64)
        pool = pool[(pool & (without or 0)) == 0]                # a complement of the vector's span
    else:
        pool = span_elements(complement)[1:].astype(np.int64)
    popcount_of, top_rank_of = bit_tables(bits, order)
    out = (pool, popcount_of[pool], top_rank_of[pool])
    for array in out:
        array.flags.writeable = False
    return out


def bank_candidates(order: List[int], arrays: tuple) -> Iterator[int]:
    """The unit vectors of ``order``, then :func:`pool_arrays` of ``arrays`` by fewest bits, then lowest
    top rank (the pool sorted only when the unit vectors did not complete the basis)."""
    for b in order:
        yield 1 << b
    pool, popcount, top_rank = pool_arrays(*arrays)
    for x in pool[np.lexsort((top_rank, popcount))].tolist():
        yield x


def first_smallest(keys: Sequence[np.ndarray]) -> int:
    """The index ``np.lexsort(keys[::-1])[0]`` names -- the first position of the smallest
    ``(keys[0], keys[1], ...)`` -- without sorting: each key narrows the positions tied so far."""
    where = np.flatnonzero(keys[0] == keys[0].min())
    for key in keys[1:]:
        if where.size == 1:
            break
        values = key[where]
        where = where[values == values.min()]
    return int(where[0])


class Span:
    """The span of some vectors below ``2**bits``: ``table`` (True for each member) and
    ``elements`` (every member once), grown one vector at a time -- ``2**rank`` steps, not one
    pass over the whole table per vector."""

    __slots__ = ("table", "elements")

    def __init__(self, table: np.ndarray, elements: np.ndarray) -> None:
        self.table, self.elements = table, elements

    @classmethod
    def of(cls, vectors: Sequence[int], bits: int) -> "Span":
        return span_of(tuple(int(v) for v in vectors), bits)

    def grown(self, x: int) -> "Span":
        """The span with ``x`` added (itself where ``x`` is a member already)."""
        if self.table[x]:
            return self
        more = self.elements ^ x
        table = self.table.copy()
        table[more] = True
        return Span(table, np.concatenate([self.elements, more]))


@lru_cache(maxsize=32)      # the calls of one search meet the same spans again (each a tile-sized table)
def span_of(vectors: Tuple[int, ...], bits: int) -> Span:
    """The span of ``vectors`` below ``2**bits`` (its table read-only: :meth:`Span.grown` copies it)."""
    table = np.zeros(1 << bits, dtype=bool)
    table[0] = True
    elements = np.zeros(1, dtype=np.int64)
    for v in vectors:
        if not table[v]:
            more = elements ^ v
            table[more] = True
            elements = np.concatenate([elements, more])
    table.flags.writeable = False
    elements.flags.writeable = False
    return Span(table, elements)


@lru_cache(maxsize=4)       # a tile's two orders; the tables depend on nothing else
def bit_tables(bits: int, order: Tuple[int, ...]) -> Tuple[np.ndarray, np.ndarray]:
    """``(popcount, top rank)`` of every vector below ``2**bits``: how many bits it has, and the
    latest position in ``order`` of any of them (-1 for 0). Built by doubling: ``x | 1 << b``
    for ``x < 2**b`` adds bit ``b`` to ``x``."""
    rank = {b: i for i, b in enumerate(order)}
    popcount = np.zeros(1, dtype=np.int64)
    top_rank = np.full(1, -1, dtype=np.int64)
    for b in range(bits):
        popcount = np.concatenate([popcount, popcount + 1])
        top_rank = np.concatenate([top_rank, np.maximum(top_rank, rank[b])])
    popcount.flags.writeable = False
    top_rank.flags.writeable = False
    return popcount, top_rank
