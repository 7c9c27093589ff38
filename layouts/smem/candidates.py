"""The candidate shared layouts :func:`~layouts.smem.best_swizzle.best_swizzle` ranks: the plain
layouts and their CuTe swizzles, layouts built around the accesses' low columns, and one-column
XOR improvements of the best.
"""

from __future__ import annotations

import itertools
from typing import Any, List, Optional, Sequence, Tuple

from ..linear.gf2 import pivots, rank, xor_basis
from .construct import offsets_of, reference_order
from .scoring import NARROW, _Banks, _Side, _common, _log2, _score


def _low_columns(sides: List[_Side], element_bytes: int) -> List[Tuple[Tuple[int, ...], Tuple[Any, ...]]]:
    """``(low columns, roles)`` to build layouts from: the elements at offsets 1, 2, 4, ... and,
    per access, the matrix fragment it is built for (None: vector requests). They are every
    prefix of an access's directions in register order that gives each access its width; for the
    accesses in Triton's order, the registers all of them share (as many as 16 bytes hold), each
    widened by one access's own registers; and each matrix fragment's row columns."""
    out: List[Tuple[Tuple[int, ...], Tuple[Any, ...]]] = []
    none = tuple(None for _ in sides)
    for vector in _vectors(sides, element_bytes):
        out.append((vector, none))
    reordered = [s for s in sides if s.reorder]
    limit = _log2(16 // element_bytes)
    if reordered:
        common = [r for r in reordered[0].registers if all(r in s.registers for s in reordered)]
        for shared in itertools.combinations(common, min(limit, len(common))):
            out.append((shared, none))
            for side in reordered:
                own = [r for r in side.registers if r not in shared]
                for extra in range(1, limit - len(shared) + 1):
                    for more in itertools.combinations(own, extra):
                        out.append((shared + more, none))
    for i, side in enumerate(sides):
        for role, fragment in enumerate(side.fragments):
            low = fragment.low
            roles = tuple(role if j == i else _fitting(other, low) for j, other in enumerate(sides))
            out.append((low, roles))
    unique: dict = {}
    for pair in out:
        unique.setdefault(pair, None)
    return list(unique)


def _builds(sides: List[_Side], element_bytes: int, bits: int) -> List[Tuple[Tuple[int, ...], Tuple[Any, ...], Any]]:
    """``(low columns, roles, complement)`` for :func:`greedy_columns`: each of :func:`_low_columns`
    with the columns after the low ones taken from a complement that holds every other basis
    element of the accesses that take a vector or a fragment there (so their requests stay
    aligned); where no complement holds them all, the default complement (the layout may still
    keep part of the vectors) and the variants with the fewest accesses narrowed to one element
    (``NARROW``) that one can. None: the default complement."""
    out = []
    for low, roles in _low_columns(sides, element_bytes):
        complement = _complement(sides, low, roles, bits)
        out.append((low, roles, None if complement is False else complement))
        if complement is not False:
            continue
        free = [i for i, (side, role) in enumerate(zip(sides, roles))
                if role is None and side.linear and side.width is None and side.vector_of(low)]
        for narrowed in range(1, len(free) + 1):
            found = False
            for chosen in itertools.combinations(free, narrowed):
                variant = tuple(NARROW if i in chosen else role for i, role in enumerate(roles))
                complement = _complement(sides, low, variant, bits)
                if complement is not False:
                    out.append((low, variant, complement))
                    found = True
            if found:
                break
    return out


def _complement(sides: List[_Side], low: Tuple[int, ...], roles: Tuple[Any, ...], bits: int) -> Any:
    """A basis of a complement of ``low``'s span that holds every element the accesses must keep
    off the low offset bits, None where the default complement (no pivot bit of ``low``) holds
    them, False where no complement does."""
    keep: List[int] = []
    for side, role in zip(sides, roles):
        if role is NARROW or not side.linear:
            continue
        if role is not None:
            keep += side.fragments[role].aligned
            continue
        vector = side.vector_of(low)
        if vector:
            keep += side.others(sorted(vector))
    if rank(keep + list(low)) != rank(keep) + rank(list(low)):
        return False
    if not any(e & pivots(list(low)) for e in keep):
        return None
    basis = list(xor_basis(keep).values())
    for b in range(bits):
        if rank(basis + list(low) + [1 << b]) > len(basis) + len(low):
            basis.append(1 << b)
    return basis


def _fitting(side: _Side, low: Tuple[int, ...]) -> Any:
    """The first fragment of ``side`` whose row columns are ``low`` (None: vector requests)."""
    for role, fragment in enumerate(side.fragments):
        if fragment.low == low:
            return role
    return None


def _vectors(sides: List[_Side], element_bytes: int) -> List[Tuple[int, ...]]:
    """Every vector (prefix of some access's directions) that still gives each access its width."""
    out: List[Tuple[int, ...]] = []
    for side in sides:
        d = side.directions
        for k in range(len(d) + 1):
            v = tuple(d[:k])
            if v in out:
                continue
            if all(s.width is None or (element_bytes << _common(v, s.directions)) >= s.width for s in sides):
                out.append(v)
    return out


def _first_dim(vector: Sequence[int], shape: Tuple[int, ...]) -> int:
    """The dim the vector runs along (its first direction's lowest bit), else the last dim."""
    if not vector:
        return len(shape) - 1
    low = _log2(vector[0] & -vector[0])
    start = 0
    for d, s in enumerate(shape):
        if low < start + _log2(s):
            return d
        start += _log2(s)
    return len(shape) - 1


def _polish(columns: List[int], key: tuple, sides: List[_Side], geometry: _Banks) -> Optional[List[int]]:
    """A better layout near ``columns`` (score ``key``), or None: one column at a time XORed with
    another (every invertible layout is a product of such steps), each step taken that lowers the
    score, until none does or ``_POLISH_STEPS`` layouts were scored."""
    best, found = key[:3], None
    scored = 0
    improved = True
    while improved and scored < _POLISH_STEPS:
        improved = False
        for j, i in itertools.permutations(range(len(columns)), 2):
            trial = list(columns)
            trial[j] ^= columns[i]
            scored += 1
            score = _score(trial, offsets_of(trial), sides, geometry, best)
            if score is not None and score < best:
                best, columns, found, improved = score, trial, trial, True
                break
            if scored >= _POLISH_STEPS:
                break
    return found


#: How many neighbouring layouts :func:`_polish` scores at most.
_POLISH_STEPS = 600


def _plain_and_swizzled(shape: Tuple[int, ...], bits: int) -> list:
    """(rank, columns, cute layout) of the plain row/column-major layouts and their swizzles."""
    from ..cute.layout import Layout
    from ..cute.swizzle import ComposedLayout, Swizzle
    out: list = []
    dims = [_log2(s) for s in shape]
    plains = []
    for first in range(len(shape)) if len(shape) > 1 else [0]:
        order = reference_order(dims, first)
        cols = [1 << b for b in order]
        stride, strides = 1, [0] * len(shape)
        for d in ([first] + [d for d in range(len(shape)) if d != first]):
            strides[d] = stride
            stride *= shape[d]
        inner = Layout(tuple(shape), tuple(strides)) if len(shape) > 1 else Layout(shape[0], 1)
        plains.append((cols, inner))
        out.append((0, cols, inner))
    for cols, inner in plains:
        for b in range(1, bits):
            for m in range(0, bits - 2 * b + 1):
                for s in range(b, bits - m - b + 1):
                    sw = Swizzle(b, m, s)
                    # the swizzle permutes offsets: column k becomes the element at offset sw^-1(2^k) = sw(2^k)
                    swizzled = [0] * bits
                    for k in range(bits):
                        target = sw(1 << k)          # a swizzle is an involution on offsets
                        e = 0
                        for j in range(bits):
                            if target >> j & 1:
                                e ^= cols[j]
                        swizzled[k] = e
                    out.append((1, swizzled, ComposedLayout(sw, 0, inner)))
    return out

