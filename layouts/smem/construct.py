"""Building a linear shared layout for given accesses: the vector each access can take, the
element differences inside each phase, and a greedy choice of the bits that share a bank.

A linear shared layout is a list of columns: ``columns[k]`` is the tile element (a flat index,
as a bit vector) stored at offset ``2**k``; offset ``o`` holds the XOR of the columns of its set
bits. Offset bits fall in three classes by the byte address they give: inside one 4-byte word,
choosing the bank, and above the banks (the "segment": the same bank, another word). Two elements
of one phase collide when their offsets differ only in segment and in-word bits, and not only in
in-word bits; so a phase whose element differences span ``D`` takes
``2 ** (dim((D + W) & K) - dim W)`` wavefronts, with ``W`` the span of the in-word columns and
``K`` that of the in-word and segment columns (Triton's generic swizzling reasons the same way,
``lib/Tools/GenericSwizzling.cpp``). The bank columns only have to complete the basis.

>>> import numpy as np
>>> values = np.arange(256).reshape(32, 8)                # thread t: 8 consecutive elements
>>> vector_directions(values, element_bytes=2)             # 1, 2, 4: 16 bytes
[1, 2, 4]
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..linear.gf2 import in_span, xor_basis
from . import bitsets
from .model import groups_of
from .pools import (Span, bank_candidates, cheapest, first_in_pool, first_smallest, least_cost,
                    pivot_mask, pool_arrays, pool_set, table_of)


def vector_directions(values: np.ndarray, element_bytes: int, cap: int = 16) -> List[int]:
    """``[d1, d2, d4, ...]``: every thread's group of ``2**j`` consecutive values is
    ``{first ^ XOR of some d's}`` in value order, the same d's for every thread and group, up to
    ``cap`` bytes; the vector any linear layout can store contiguously (an empty list: none).

    >>> vector_directions(np.array([[0, 1, 8, 9]] * 32), 4)
    [1, 8]
    >>> vector_directions(np.array([[0, 1, 2, 3], [4, 5, 8, 9]] * 16), 4)   # pairs alike, fours not
    [1]
    """
    out: List[int] = []
    per = values.shape[1]
    n = 2
    while n * element_bytes <= cap and per % n == 0:
        g = groups_of(values, n)
        g = g[g[..., 0] >= 0]
        if not g.size:
            break
        diffs = g ^ g[:, :1]
        row = diffs[0]
        if not (diffs == row).all():
            break
        new = int(row[n // 2])
        if new == 0 or not np.array_equal(row[n // 2:], row[: n // 2] ^ new) or in_span(xor_basis(out), new):
            break
        out.append(new)
        n *= 2
    return out


def phase_spaces(values: np.ndarray, width_bytes: int, element_bytes: int, per_phase: int) -> Dict[Tuple[int, ...], int]:
    """The span of the element differences in each phase (as a sorted basis), with how many
    phases have it.

    >>> phase_spaces(np.arange(32).reshape(32, 1), 4, 4, 32)      # one phase: elements 0..31
    {(1, 2, 4, 8, 16): 1}
    """
    n = max(1, width_bytes // element_bytes)
    groups = groups_of(values, n)                                  # (R, 32, n)
    out: Dict[Tuple[int, ...], int] = {}
    known: Dict[bytes, Tuple[int, ...]] = {}                       # blocks that differ by a constant share a span
    requests, threads = groups.shape[:2]
    for r in range(requests):
        for p in range(threads // per_phase):
            block = groups[r, p * per_phase:(p + 1) * per_phase]
            block = block[block[:, 0] >= 0]
            if not block.size:
                continue
            differences = np.unique(block ^ block[0, 0])
            seen = differences.tobytes()
            if seen not in known:
                known[seen] = tuple(sorted(xor_basis(differences.tolist()).values()))
            key = known[seen]
            out[key] = out.get(key, 0) + 1
    return out


def offset_classes(bits: int, element_bytes: int, banks: int, bank_bytes: int) -> Tuple[int, int, int]:
    """``(in_word, bank, segment)``: how many offset bits of a ``2**bits``-element tile fall in each class.

    >>> offset_classes(9, 2, 32, 4)      # halves: 1 bit in the word, 5 choose the bank, 3 above
    (1, 5, 3)
    """
    eb_log, word_log, bank_log = (int(x).bit_length() - 1 for x in (element_bytes, bank_bytes, banks))
    in_word = min(bits, max(0, word_log - eb_log))
    bank = min(bits - in_word, max(0, word_log + bank_log - eb_log - in_word))
    return in_word, bank, bits - in_word - bank


def reference_order(bits_per_dim: Sequence[int], first_dim: int) -> List[int]:
    """The element bits of a plain layout whose contiguous dim is ``first_dim``, then the others
    in order: row-major for ``first_dim = 1`` of a 2-D tile.

    >>> reference_order([2, 3], 1)
    [2, 3, 4, 0, 1]
    """
    starts = np.concatenate([[0], np.cumsum(bits_per_dim)]).astype(int).tolist()
    order = list(range(starts[first_dim], starts[first_dim + 1]))
    for d in range(len(bits_per_dim)):
        if d != first_dim:
            order += list(range(starts[d], starts[d + 1]))
    return order


def greedy_columns(vector: List[int], spaces: Dict[Tuple[int, ...], int], bits: int,
                   classes: Tuple[int, int, int], order: List[int],
                   complement: Optional[Sequence[int]] = None) -> List[int]:
    """The columns of a linear layout: ``vector`` first, then in-word and bank columns, then the
    segment columns chosen one at a time to add the fewest wavefronts over ``spaces``; ties go to
    vectors of fewer bits, then to the plain layout of ``order``. The columns after the vector
    come from ``complement`` (the span of these vectors, a complement of the vector's span) or
    by default from the vectors without the vector's pivot bits: an element of the complement
    is stored at an offset whose low ``len(vector)`` bits are 0, so a thread whose other values
    are in it keeps its vector aligned.

    >>> # 32 x 32 floats read down the columns (thread t: row t): rows must land in distinct banks
    >>> spaces = {tuple(1 << b for b in range(5)): 32}
    >>> cols = greedy_columns([], spaces, 10, offset_classes(10, 4, 32, 4), reference_order([5, 5], 1))
    >>> cols[:5]                                            # offset bits 0..4 (the bank) hold the rows
    [1, 2, 4, 8, 16]
    """
    in_word, _, segment = classes
    pivots = pivot_mask(vector) if complement is None else None
    spanned = None if complement is None else tuple(int(c) for c in complement)
    arrays = (bits, tuple(order), pivots, spanned)              # pool_arrays' arguments: built only where needed
    chosen: List[int] = []                                       # columns besides the vector
    word_cols = list(vector[:in_word])
    weights = list(spaces.values())
    bases = [list(k) for k in spaces]

    # free in-word slots: the differences most phases share (they become broadcasts)
    if in_word > len(vector):
        pool, popcount, top_rank = pool_arrays(*arrays)
        span = Span.of(vector, bits)
        score = sum(w * Span.of(b, bits).table[pool] for w, b in zip(weights, bases)) if bases else np.zeros(pool.size)
        shared = -np.asarray(score, dtype=np.int64)
        for _ in range(in_word - len(vector)):
            x = int(pool[first_smallest((span.table[pool], shared, popcount, top_rank))])
            chosen.append(x)
            word_cols.append(x)
            span = span.grown(x)

    # segment slots: the fewest added wavefronts. A space of weight w and dimension d (over the
    # columns so far) costs w * 2**d, doubled by a column in it: the cost of a column is a constant
    # plus the weights of the spaces it lies in, each times 2**d -- exact integers, so the order
    # (and every tie) is that of the float sum of w * 2**(d + [x in span]).
    lows = bitsets.low_masks(bits)
    in_pool = pool_set(bits, pivots, spanned)
    taken = bitsets.span_set(tuple(int(v) for v in vector) + tuple(chosen), bits)     # the span of the columns so far
    spans = [bitsets.span_set(tuple(int(v) for v in b) + tuple(word_cols), bits) for b in bases]
    dims = [0] * len(bases)
    levels = bitsets.popcount_masks(bits)[1:]                   # the pool holds no 0
    latest_first = bitsets.top_rank_masks(bits, arrays[1])[::-1]
    for _ in range(segment):
        open_ = in_pool & ~taken or in_pool                       # untaken vectors first
        costs = [w << d for w, d in zip(weights, dims)]
        tied = least_cost(open_, spans, costs)
        if tied is None:                                         # too many cost classes: rank the whole pool
            pool, popcount, top_rank = pool_arrays(*arrays)
            cost = np.zeros(pool.size, dtype=np.int64)
            for c, span_ in zip(costs, spans):
                cost += c * table_of(span_, bits)[pool]
            x = int(pool[cheapest(table_of(taken, bits)[pool], cost, popcount, top_rank)])
        else:
            for level in levels:                                 # then the fewest bits
                tied_bits = tied & level
                if tied_bits:
                    break
            for rank in latest_first:                            # then the latest top rank
                if tied_bits & rank:
                    tied_bits &= rank
                    break
            x = bitsets.lowest(tied_bits) if spanned is None else first_in_pool(tied_bits, arrays)
        for i, span_ in enumerate(spans):
            if span_ >> x & 1:
                dims[i] += 1
            else:
                spans[i] = span_ | bitsets.translate(span_, x, lows)
        chosen.append(x)
        taken |= bitsets.translate(taken, x, lows)

    # bank slots: complete the basis, unit vectors of the plain layout first
    segment_cols = chosen[len(chosen) - segment:] if segment else []
    word_free = chosen[: len(chosen) - segment] if segment else chosen
    bank_cols: List[int] = []
    full = bitsets.everything(bits)
    for x in bank_candidates(order, arrays):
        if taken == full:
            break
        if not in_pool >> x & 1 or taken >> x & 1:
            continue
        taken |= bitsets.translate(taken, x, lows)
        bank_cols.append(x)
    return list(vector) + word_free + bank_cols + segment_cols


def offsets_of(columns: Sequence[int]) -> np.ndarray:
    """offsets[i] for the layout whose offset ``2**k`` holds element ``columns[k]``.

    >>> offsets_of([2, 1]).tolist()          # a 2 x 2 tile stored row-major
    [0, 2, 1, 3]
    """
    elements = np.zeros(1 << len(columns), dtype=np.int64)      # element of each offset, in offset order
    size = 1
    for c in columns:
        np.bitwise_xor(elements[:size], c, out=elements[size:2 * size])
        size *= 2
    offsets = np.empty(elements.size, dtype=np.int64)
    offsets[elements] = np.arange(elements.size)
    return offsets
