"""The candidate shared layouts :func:`~layouts.smem.best_swizzle.best_swizzle` ranks: the plain
layouts and their CuTe swizzles, layouts built around the accesses' low columns, and one-column
XOR improvements of the best.
"""

from __future__ import annotations

import itertools
from typing import Any, List, Optional, Sequence, Tuple

from ..linear.gf2 import rank, xor_basis
from .construct import offsets_of, reference_order
from .pools import pivot_mask
from .scoring import NARROW, _Banks, _Side, _WidthBounds, _common, _log2, _score


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
    kept, together = _ranks(tuple(keep), tuple(low))
    if together != kept + rank(list(low)):
        return False
    low_pivots = pivot_mask(low)
    if not any(e & low_pivots for e in keep):
        return None
    basis = list(xor_basis(keep).values())
    rows: dict = {}                               # the span of basis + low (leading bit -> row), grown with the basis
    for v in basis + list(low):
        _reduced_into(rows, v)
    for b in range(bits):
        if len(rows) + (_reduced(rows, 1 << b) != 0) > len(basis) + len(low):
            basis.append(1 << b)
            _reduced_into(rows, 1 << b)
    return basis


def _reduced(rows: dict, v: int) -> int:
    """``v`` reduced by ``rows`` (leading bit -> a row with it): 0 where ``v`` is in their span."""
    while v:
        row = rows.get(v.bit_length() - 1)
        if row is None:
            return v
        v ^= row
    return 0


def _reduced_into(rows: dict, v: int) -> None:
    """Add ``v`` to the span of ``rows`` (nothing where it is in it already)."""
    v = _reduced(rows, v)
    if v:
        rows[v.bit_length() - 1] = v


def _ranks(keep: Tuple[int, ...], low: Tuple[int, ...]) -> Tuple[int, int]:
    """``(rank of keep, rank of keep and low together)``, one basis grown through both (the
    reduction of :func:`_reduced` written out: this runs for every build)."""
    rows: dict = {}
    kept = len(keep)
    for count, v in enumerate(keep + low):
        if count == len(keep):
            kept = len(rows)
        while v:
            top = v.bit_length() - 1
            row = rows.get(top)
            if row is None:
                rows[top] = v
                break
            v ^= row
    return (len(rows) if not low else kept), len(rows)


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


def _polish(columns: List[int], key: tuple, sides: List[_Side], geometry: _Banks,
            bounds: Optional[_WidthBounds] = None) -> Optional[List[int]]:
    """A better layout near ``columns`` (score ``key``), or None: one column at a time XORed with
    another (every invertible layout is a product of such steps), each step taken that lowers the
    score, until none does or ``_POLISH_STEPS`` layouts were scored. ``bounds`` skips the steps
    whose widths alone lose.

    Column ``j`` XORed with column ``i`` composes the layout with the step that adds offset bit
    ``j`` into bit ``i`` (its own inverse), so each step's offsets are the layout's with bit ``j``
    of every offset XORed into bit ``i``.
    """
    bounds = bounds if bounds is not None else _WidthBounds(sides)
    best, found = key[:3], None
    scored = 0
    improved = True
    while improved and scored < _POLISH_STEPS:
        improved = False
        offsets = offsets_of(columns)
        for j, i in itertools.permutations(range(len(columns)), 2):
            trial = list(columns)
            trial[j] ^= columns[i]
            scored += 1
            score = None
            if bounds(trial) <= best[0]:
                score = _score(trial, offsets ^ ((offsets >> j & 1) << i), sides, geometry, best)
            if score is not None and score < best:
                best, columns, found, improved = score, trial, trial, True
                break
            if scored >= _POLISH_STEPS:
                break
    return found


#: How many neighbouring layouts :func:`_polish` scores at most.
_POLISH_STEPS = 600


def _plain_and_swizzled(shape: Tuple[int, ...], bits: int) -> list:
    """(rank, columns, cute layout) of the plain row/column-major layouts and their swizzles (the
    swizzles' cute layouts as :class:`SwizzledForm`, made only for the one chosen)."""
    from ..cute.layout import Layout
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
        plain = _Plain(cols)
        for b in range(1, bits):
            for m in range(0, bits - 2 * b + 1):
                for s in range(b, bits - m - b + 1):
                    # Swizzle<b,m,s> XORs offset bit k - s into bit k for m + s <= k < m + s + b; it is an
                    # involution, so column k (the element at offset sw(2^k)) is cols[k] ^ cols[k - s] there
                    top = m + s
                    swizzled = cols[:top] + [cols[k] ^ cols[k - s] for k in range(top, top + b)] + cols[top + b:]
                    out.append((1, swizzled, SwizzledForm(b, m, s, inner, plain)))
    return out


class _Plain:
    """A plain layout's columns and, once asked for, its offsets (shared by all its swizzles)."""

    __slots__ = ("columns", "_offsets")

    def __init__(self, columns: List[int]) -> None:
        self.columns = columns
        self._offsets: Any = None

    @property
    def offsets(self) -> Any:
        if self._offsets is None:
            self._offsets = offsets_of(self.columns)
        return self._offsets


class SwizzledForm:
    """``Swizzle<bits, base, shift> o 0 o inner`` not yet made (most candidates never need it),
    with the offsets of its columns read off the plain layout's.

    >>> from layouts.cute.layout import Layout
    >>> form = SwizzledForm(3, 3, 3, Layout((8, 64), (64, 1)), _Plain([8, 16, 32, 64, 128, 256, 1, 2, 4]))
    >>> print(form.made())
    Sw<3,3,3> o 0 o (8,64):(64,1)
    >>> form.offsets()[:4].tolist()           # column 0 of rows 0..3: row r's first 16 bytes go to chunk r
    [0, 72, 144, 216]
    """

    __slots__ = ("bits", "base", "shift", "inner", "plain")

    def __init__(self, bits: int, base: int, shift: int, inner: Any, plain: _Plain) -> None:
        self.bits, self.base, self.shift, self.inner, self.plain = bits, base, shift, inner, plain

    def made(self) -> Any:
        from ..cute.swizzle import ComposedLayout, Swizzle
        return ComposedLayout(Swizzle(self.bits, self.base, self.shift), 0, self.inner)

    def offsets(self) -> Any:
        """The swizzle applied to the plain layout's offsets: the element at plain offset ``o``
        sits at ``sw(o)`` (a swizzle is its own inverse)."""
        o = self.plain.offsets
        return o ^ ((o & (((1 << self.bits) - 1) << (self.base + self.shift))) >> self.shift)
