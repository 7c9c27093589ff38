"""One access on a candidate shared layout: the instruction it takes there (a vector request of the
registers the layout makes consecutive, or ``ldmatrix``/``stmatrix`` where its lanes hold the
instruction's fragments) and its count, exact in GF(2) terms for a linear thread map; what
:func:`~layouts.smem.best_swizzle.best_swizzle` ranks its candidates by.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import LayoutError, LayoutTypeError, type_name
from ..linear.gf2 import rank, xor_basis
from .access import Access, register_columns, triton_order
from .conflicts import Conflicts, conflicts, resolve, stated_element_bytes, warp_values
from .construct import phase_spaces, vector_directions
from .instructions import MatrixAccess, MatrixInstruction, threads_per_phase, vector_name
from .memory import SharedMemory, memory_of
from .model import count, widest


def _log2(n: int) -> int:
    return int(n).bit_length() - 1


def instruction_conflicts(shared_layout: Any, acc: Any, *, store: bool, element_bytes: Optional[int] = None,
                          matrix: Sequence[str] = ("ldmatrix", "stmatrix"), banks: int = 32,
                          bank_bytes: int = 4, shape: Optional[Tuple[int, ...]] = None) -> Conflicts:
    """:func:`conflicts` of ``acc`` with the instruction it takes: an Access in Triton's order
    (``order="triton"``) of 8- or 16-bit elements may be ``ldmatrix`` (a read) or ``stmatrix`` (a
    store, ``store=True``) where its lanes and registers form the instruction's 8 x 8 fragments
    of 16-bit units and every matrix row lies at 16 consecutive, aligned bytes
    (:class:`~layouts.smem.instructions.MatrixAccess`); of the instructions that apply, the one
    with the widest requests, then the fewest wavefronts (Triton's ranking; on the layouts
    Triton 3.9's own code uses, it takes the instruction that code takes). The result names it
    in ``.instruction`` (``"ldmatrix.x4.trans"``, ``"st.shared.v4.b32"``, ...); ``matrix``,
    ``banks``, ``bank_bytes`` as for :func:`best_swizzle`, the rest as for :func:`conflicts`.

    >>> from layouts import smem
    >>> from layouts.linear import triton as tt
    >>> operand = smem.Access((tt.DotOperandLayout(0, tt.NVMMADistributedLayout([2, 0], [4, 1], [16, 8]), 2),
    ...                        (64, 64)), order="triton")
    >>> shared = (tt.SwizzledSharedLayout(8, 1, 8, [1, 0]), (64, 64))
    >>> r = instruction_conflicts(shared, operand, store=False)
    >>> r.instruction, r.wavefronts, instruction_conflicts(shared, operand, store=False, matrix=()).instruction
    ('ldmatrix.x4', 16, 'ld.shared.b32')
    """
    mem = memory_of(shared_layout, shape)
    element_bytes = stated_element_bytes(mem, element_bytes)
    first, width, per_phase, _ = resolve(mem, acc, element_bytes)
    side = _Side("acc", acc, _distinct(warp_values(acc, first)), width, per_phase, store,
                 _op_for(store) in _matrix_arg(matrix) and element_bytes <= 2, element_bytes)
    return _counted(mem, side, element_bytes, banks, bank_bytes)


def _op_for(store: bool) -> str:
    return "stmatrix" if store else "ldmatrix"


def _matrix_arg(matrix: Any) -> frozenset:
    if isinstance(matrix, str) or not isinstance(matrix, (list, tuple, set, frozenset)):
        raise LayoutTypeError(f"matrix must be a sequence of 'ldmatrix', 'stmatrix', got {type_name(matrix)}")
    unknown = [m for m in matrix if m not in ("ldmatrix", "stmatrix")]
    if unknown:
        raise LayoutError(f"matrix: {unknown[0]!r} is no matrix instruction; expected 'ldmatrix' or 'stmatrix'")
    return frozenset(matrix)


class _Side:
    """One access as the search sees it: its distinct warps and its width; where its thread map is
    linear (every value the XOR of a register, a lane and a warp basis element, as for linear
    layouts and Triton encodings), those bases, the phase spaces of each vector it can take and, in
    Triton's order, its matrix fragments."""

    def __init__(self, name: str, access: Any, warps: Tuple[np.ndarray, ...], width: Optional[int], per_phase: int,
                 store: bool, matrix_allowed: bool, element_bytes: int) -> None:
        self.name, self.access, self.warps = name, access, warps
        self.width, self.per_phase, self.store, self.element_bytes = width, per_phase, store, element_bytes
        self.reorder = isinstance(access, Access) and access.order == "triton"
        self.directions = vector_directions(warps[0], element_bytes)   # in register order
        self.registers: List[int] = []
        self.index: dict = {}
        self.lanes: List[int] = []
        self.shifts: List[int] = []
        self.fragments: List[_Fragment] = []
        self.by_low: dict = {}                                         # a fragment's row columns -> it
        self._others: dict = {}
        self._others_arrays: dict = {}
        self._spaces: dict = {}
        self.linear = self._read_bases()
        if self.linear and self.reorder:
            self._read_fragments(matrix_allowed and width in (None, 16))

    def _read_bases(self) -> bool:
        """Read the bases off warp 0 and check that every warp is their XOR span moved by a constant."""
        values = self.warps[0]
        count = values.shape[1]
        if count & (count - 1):
            return False
        origin = int(values[0, 0])
        bases = [int(values[0, 1 << k]) ^ origin for k in range(count.bit_length() - 1)]
        lanes = [int(values[1 << j, 0]) ^ origin for j in range(5)]
        span = np.zeros((32, count), dtype=np.int64)
        for j, lane in enumerate(lanes):
            span[(np.arange(32) >> j & 1).astype(bool)] ^= lane
        for k, b in enumerate(bases):
            span[:, (np.arange(count) >> k & 1).astype(bool)] ^= b
        if not all(np.array_equal(w, span ^ int(w[0, 0])) for w in self.warps):
            return False
        # Triton's order drops the registers that repeat others; register order keeps every one
        kept = [k for k, b in enumerate(bases) if b] if self.reorder else list(range(len(bases)))
        self.registers = [bases[k] for k in kept]
        self.index = {b: i for i, b in enumerate(self.registers)}
        self.lanes = lanes
        self.shifts = [int(w[0, 0]) for w in self.warps]               # each warp moves every offset by its own
        columns = register_columns(kept)
        self.compact = values[:, columns]
        return True

    def _read_fragments(self, matrix_allowed: bool) -> None:
        units = 2 // self.element_bytes                               # elements per 16-bit unit
        n = len(self.registers)
        if not matrix_allowed or n < units or rank(self.registers + self.lanes) != n + 5:
            return
        for unit in range(n) if units == 2 else [None]:
            for trans in (False, True):
                for half in range(n):
                    if half != unit:
                        self.fragments.append(_Fragment(self, half, trans, unit))
        for fragment in self.fragments:
            self.by_low.setdefault(fragment.low, []).append(fragment)

    def others(self, registers: Sequence[int] = (), lanes: Sequence[int] = ()) -> List[int]:
        """The nonzero basis elements besides the registers and lanes named (by index): each moves
        a request or a matrix row, so its offset must keep the request's alignment."""
        key = (tuple(registers), tuple(lanes))
        if key not in self._others:
            self._others[key] = [e for e in [b for k, b in enumerate(self.registers) if k not in registers]
                                 + [b for j, b in enumerate(self.lanes) if j not in lanes] + self.shifts if e]
        return self._others[key]

    def others_array(self, registers: Sequence[int] = ()) -> np.ndarray:
        """:meth:`others` of these registers (and every lane) as an index array."""
        key = tuple(registers)
        found = self._others_arrays.get(key)
        if found is None:
            found = self._others_arrays[key] = np.array(self.others(registers), dtype=np.int64)
        return found

    def vector_of(self, low: Sequence[int]) -> List[int]:
        """The registers (indices into ``registers``) whose elements open ``low``, in order, up to
        16 bytes: in Triton's order any of them, in register order the first ones in turn."""
        out: List[int] = []
        for element in low:
            if (self.element_bytes << (len(out) + 1)) > 16 or element not in self.index:
                break
            if not self.reorder and self.index[element] != len(out):
                break
            out.append(self.index[element])
        return out

    def reordered(self, vector: Sequence[int]) -> np.ndarray:
        """Warp 0's values with the ``vector`` registers first, the others after in register order."""
        order = list(vector) + [k for k in range(len(self.registers)) if k not in vector]
        columns = register_columns(order)
        return self.compact[:, columns]

    def vector_spaces(self, vector: Sequence[int], width: int) -> dict:
        """The phase spaces of requests of ``width`` bytes whose values open with ``vector``'s
        registers: a phase of a linear map is its phase's lanes times the vector, moved by a
        constant, so every phase spans the same differences."""
        key = (frozenset(vector), width)
        if key not in self._spaces:
            per_phase = self.per_phase or threads_per_phase(width)
            spanning = self.lanes[: _log2(per_phase)] + [self.registers[k] for k in vector]
            phases = (32 // per_phase) << (len(self.registers) - len(vector))
            self._spaces[key] = {_span_key(spanning): phases}
        return self._spaces[key]

    def spaces(self, low: Sequence[int], role: Any) -> dict:
        """The phase spaces of this access on a layout whose first columns are ``low``: through
        the fragment ``role`` (an index into ``fragments``), else as vectors."""
        eb = self.element_bytes
        if role is NARROW:
            return self.vector_spaces([], eb)
        if role is not None:
            return self.fragments[role].spaces
        if self.linear and self.reorder:
            vector = self.vector_of(low)
            return self.vector_spaces(vector, self.width if self.width is not None else eb << len(vector))
        w = self.width if self.width is not None else eb << _common(low, self.directions)
        return phase_spaces(self.warps[0], w, eb, self.per_phase or threads_per_phase(w))

    def vector_option(self, columns: Sequence[int], offsets: np.ndarray, geometry: "_Banks") -> Optional[Tuple[int, int]]:
        """``(width, wavefronts)`` of vector requests on a linear layout (``columns``, ``offsets``), or None."""
        eb = self.element_bytes
        if not self.linear:
            warps = tuple(triton_order(v, offsets, eb) for v in self.warps) if self.reorder else self.warps
            vec = min(widest(offsets, values, eb) for values in warps)
            w = self.width if self.width is not None else vec
            if vec < w:
                return None
            per_phase = self.per_phase or threads_per_phase(w)
            return w, max(int(count(offsets, values, w, eb, per_phase, geometry.banks,
                                    geometry.bank_bytes).per_phase.sum()) for values in warps)
        vector = self.vector_of(columns)
        # a request of 2**k values needs every thread's first value at a multiple of 2**k: the
        # fewest trailing zeros of their offsets are those of the offsets ORed (none is 0)
        others = self.others_array(sorted(vector))
        aligned = _trailing_zeros(int(np.bitwise_or.reduce(offsets[others]))) if others.size else len(vector)
        k = min(len(vector), aligned)
        w = self.width if self.width is not None else eb << k
        if w > eb << k:
            return None
        spaces = self.vector_spaces(vector[: _log2(w // eb)], w)
        return w, sum(n * geometry.wavefronts(d, offsets) for d, n in spaces.items())

    def choose(self, columns: Sequence[int], offsets: np.ndarray, geometry: "_Banks") -> Optional[Tuple[int, int, Any]]:
        """``(width, wavefronts, fragment)``: the widest requests, then the fewest wavefronts
        (the fragment None for vector requests), or None when the access cannot get its width."""
        best = None
        vector = self.vector_option(columns, offsets, geometry)
        if vector is not None:
            best = (vector[0], vector[1], None)
        if self.fragments:
            row = 2 + 2 // self.element_bytes                          # the columns a matrix row spans
            for fragment in self.by_low.get(tuple(columns[:row]), ()):
                waves = fragment.wavefronts(offsets, geometry)
                if waves is not None and (best is None or (-16, waves) < (-best[0], best[1])):
                    best = (16, waves, fragment)
        return best


class _Fragment:
    """One way an access's registers can be ``ldmatrix``/``stmatrix`` registers: which register
    is the 16-bit half (and for 8-bit elements, the byte of a unit), ``.trans`` or not."""

    def __init__(self, side: _Side, half: int, trans: bool, unit: Optional[int]) -> None:
        self.side, self.half, self.trans, self.unit = side, half, trans, unit
        lanes = side.lanes
        # the elements at offsets 1, 2, 4 (, 8) of every matrix row: the row's 16-bit units, or with .trans the rows
        units = (lanes[2], lanes[3], lanes[4]) if trans else (side.registers[half], lanes[0], lanes[1])
        self.low = units if unit is None else (side.registers[unit],) + units
        in_row = ([] if trans else [half]) + ([] if unit is None else [unit])
        self.aligned = side.others(in_row, [2, 3, 4] if trans else [0, 1])   # each moves a row by whole rows
        self.row_mask = (1 << len(self.low)) - 1
        self._instruction: Optional[MatrixAccess] = None
        self._spaces: Optional[dict] = None

    def first_row_fits(self, offsets: np.ndarray) -> bool:
        """Does warp 0's first matrix row lie at consecutive offsets, aligned to its 16 bytes?
        Element ``k`` of that row is the thread map's first element XOR the ``low`` elements of
        ``k``'s bits, so this reads a row's offsets without building the fragment; the
        instruction needs every row to, so a layout failing it takes no matrix instruction."""
        origin = self.side.shifts[0]
        start = int(offsets[origin])
        if start & self.row_mask:
            return False
        element = origin
        for k in range(1, self.row_mask + 1):
            element ^= self.low[(k & -k).bit_length() - 1]            # Gray order: one element changes each step
            if int(offsets[element]) != start + (k ^ (k >> 1)):
                return False
        return True

    @property
    def instruction(self) -> MatrixAccess:
        if self._instruction is None:
            self._instruction = MatrixAccess(_op_for(self.side.store), self.side.compact, self.half, self.trans,
                                             self.unit)
        return self._instruction

    @property
    def spaces(self) -> dict:
        """Each matrix is one phase, spanned by its row's columns and the rows' starts."""
        if self._spaces is None:
            lanes, registers = self.side.lanes, self.side.registers
            starts = [registers[self.half], lanes[0], lanes[1]] if self.trans else lanes[2:5]
            used = 1 if self.unit is None else 2
            self._spaces = {_span_key(list(self.low) + starts): 1 << (len(registers) - used)}
        return self._spaces

    def wavefronts(self, offsets: np.ndarray, geometry: "_Banks") -> Optional[int]:
        """The wavefronts on a linear layout, or None where a row is not consecutive aligned offsets."""
        if any(int(offsets[e]) != 1 << k for k, e in enumerate(self.low)):
            return None
        if any(int(offsets[e]) & self.row_mask for e in self.aligned):
            return None
        return sum(n * geometry.wavefronts(d, offsets) for d, n in self.spaces.items())


class _Banks:
    """The bank model on a linear layout: a phase whose element differences span ``D`` touches
    an affine space of words, so each bank it reaches holds ``2 ** (dim words - dim banks)`` of
    them -- the wavefronts (the model of :mod:`~layouts.smem.model`, in GF(2) terms)."""

    def __init__(self, element_bytes: int, banks: int, bank_bytes: int) -> None:
        self.banks, self.bank_bytes = banks, bank_bytes
        self.shift = _log2(bank_bytes) - _log2(element_bytes)       # > 0: elements per word; < 0: words per element
        self.inner = [1 << i for i in range(max(0, -self.shift))]    # the words inside one element
        self._known: dict = {}                                       # offsets of a phase's span -> wavefronts

    def wavefronts(self, differences: Sequence[int], offsets: np.ndarray) -> int:
        moved = tuple(int(offsets[e]) for e in differences)
        if moved not in self._known:
            if self.shift >= 0:
                words = [o >> self.shift for o in moved]
            else:
                words = [o << -self.shift for o in moved] + self.inner
            self._known[moved] = 1 << (len(xor_basis(words)) - len(xor_basis([w & (self.banks - 1) for w in words])))
        return self._known[moved]


def _span_key(vectors: Sequence[int]) -> Tuple[int, ...]:
    """A phase space as :func:`~layouts.smem.construct.phase_spaces` names it: its reduced basis, sorted."""
    return tuple(sorted(xor_basis(vectors).values()))


def _trailing_zeros(n: int) -> int:
    return (n & -n).bit_length() - 1


def _chosen_fragment(memory: SharedMemory, side: _Side, element_bytes: int, banks: int,
                     bank_bytes: int) -> Tuple[Optional[_Fragment], Optional[Conflicts]]:
    """The fragment ``side`` takes on ``memory`` (any shared layout, counted by the model warp by
    warp), or None where vector requests are as wide and take no more wavefronts; with the
    vector requests' Conflicts where they were counted (None: refused, or no fragment to weigh)."""
    if not side.fragments:
        return None, None
    vector: Optional[Conflicts] = None
    try:
        vector = conflicts(memory, side.access, element_bytes, banks, bank_bytes)
        best: tuple = ((-vector.width_bytes, vector.wavefronts), None)
    except LayoutError:
        best = ((1, 0), None)                    # no vector width this layout allows
    offsets = memory.offsets
    moves = [shift ^ side.shifts[0] for shift in side.shifts]          # warp w's elements: warp 0's XOR this
    for fragment in side.fragments:
        if not fragment.first_row_fits(offsets):
            continue
        if not all(_rows_fit(offsets, fragment.instruction.rows ^ move) for move in moves):
            continue
        values, _, per_phase = fragment.instruction.thread_map(memory.shape, element_bytes)
        warps = [np.where(values >= 0, values ^ move, -1) for move in moves]
        waves = max(int(count(offsets, w, 16, element_bytes, per_phase, banks, bank_bytes).per_phase.sum())
                    for w in warps)
        if (-16, waves) < best[0]:
            best = ((-16, waves), fragment)
    return best[1], vector


def _rows_fit(offsets: np.ndarray, rows: np.ndarray) -> bool:
    """Every matrix row (the last axis, ``n`` elements of 16 bytes) at ``n`` consecutive offsets, aligned."""
    n = rows.shape[-1]
    offs = offsets[rows]
    return bool(np.all(offs == offs[..., :1] + np.arange(n)) and np.all(offs[..., 0] % n == 0))


def _counted(memory: SharedMemory, side: _Side, element_bytes: int, banks: int, bank_bytes: int) -> Conflicts:
    """The Conflicts of ``side`` on ``memory`` with the instruction it takes there, named in ``.instruction``."""
    fragment, vector = _chosen_fragment(memory, side, element_bytes, banks, bank_bytes)
    if fragment is not None:
        result = conflicts(memory, fragment.instruction, element_bytes, banks, bank_bytes)
        result.instruction = fragment.instruction.name
        return result
    result = vector if vector is not None else conflicts(memory, side.access, element_bytes, banks, bank_bytes)
    access = side.access
    result.instruction = access.name if isinstance(access, MatrixInstruction) else vector_name(
        side.store, result.width_bytes)
    return result


def _common(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    return n


#: The role of an access built for requests of one element (its vector left unaligned).
NARROW = "narrow"


def _score(columns: Sequence[int], offsets: np.ndarray, sides: List[_Side], geometry: _Banks,
           bound: Optional[tuple] = None) -> Optional[tuple]:
    """``(-log2 of the narrowest free access's bytes, total wavefronts, -sum of log2 of the free
    accesses' bytes)`` on the linear layout ``columns`` (``offsets``), or None when an access
    cannot get its width or the layout cannot beat ``bound`` (the best key so far). Each access
    is counted as :func:`instruction_conflicts` counts it: at the width all its warps allow, its
    worst warp's wavefronts; one in Triton's order takes its values in the order this layout
    gives them, or a matrix instruction."""
    free, chosen = [], []
    for side in sides:
        option = side.choose(columns, offsets, geometry)
        if option is None:
            return None
        chosen.append(option)
        if side.width is None:
            free.append(_log2(option[0]))
        # the accesses so far bound the key from below (the narrowest only narrows, wavefronts only
        # add up): once that loses, the rest need not be counted
        if bound is not None and free and (-min(free), sum(option[1] for option in chosen)) > bound[:2]:
            return None
    common = -min(free) if free else 0
    if bound is not None and common > bound[0]:
        return None
    waves = sum(option[1] for option in chosen)
    if bound is not None and (common, waves) > bound[:2]:
        return None
    return (common, waves, -sum(free))


def _narrowest_bound(columns: Sequence[int], sides: List[_Side]) -> int:
    """A lower bound of the first entry of :func:`_score`'s key on the layout ``columns``, read
    off the columns alone (no offsets): so a layout whose bound already exceeds the best key's
    first entry cannot beat it, and is not scored.

    It is a bound because no free access gets wider requests than it allows here: vector requests
    (:meth:`_Side.vector_option`) take at most the registers :meth:`_Side.vector_of` finds at the
    first columns (alignment may take fewer), other thread maps at most 16 bytes, and a matrix
    instruction (16 bytes) only where a fragment's row columns open the layout. A narrower
    widest request gives a larger ``-log2``, so the true first entry is at least this one.

    >>> from layouts.linear import triton as tt
    >>> from .access import Access
    >>> from .memory import SharedMemory
    >>> acc = Access((tt.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]), (64, 64)), order="triton")
    >>> values, _, _, _ = resolve(SharedMemory((64, 64), np.arange(4096), "tile"), acc, 2)
    >>> side = _Side("s", acc, _distinct(warp_values(acc, values)), None, 0, True, True, 2)
    >>> _narrowest_bound([64, 128, 256] + [1 << b for b in range(12) if b not in (6, 7, 8)], [side])
    -4
    >>> _narrowest_bound([1 << b for b in range(12)], [side])       # column-major: 2-byte requests at most
    -1
    """
    free = []
    for side in sides:
        if side.width is not None:
            continue
        widest = side.element_bytes << len(side.vector_of(columns)) if side.linear else 16
        if side.fragments and side.by_low.get(tuple(columns[:2 + 2 // side.element_bytes])):
            widest = 16
        free.append(_log2(widest))
    return -min(free) if free else 0


def _least_possible(sides: List[_Side]) -> Optional[tuple]:
    """A lower bound of :func:`_score`'s key on every layout, or None (a thread map that is not
    linear): each free access at the widest it could ever take, and each access at the fewest
    phases any of its instructions has, one wavefront each. A layout whose key is this bound is
    the best there is: nothing near it can score lower.

    The widest vector is 16 bytes or all of a thread's registers, a matrix instruction's 16 bytes;
    vector requests of ``2**k`` elements take ``(32 / threads per phase) * 2**(registers - k)``
    phases, which only shrinks as ``k`` grows, and a matrix instruction one phase per 8 x 8 matrix.

    >>> from layouts.linear import triton as tt
    >>> from .access import Access
    >>> from .memory import SharedMemory
    >>> acc = Access((tt.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]), (64, 64)), order="triton")
    >>> values, _, _, _ = resolve(SharedMemory((64, 64), np.arange(4096), "tile"), acc, 2)
    >>> _least_possible([_Side("s", acc, _distinct(warp_values(acc, values)), None, 0, True, True, 2)])
    (-4, 16, -4)
    """
    free, waves = [], 0
    for side in sides:
        if not side.linear:
            return None
        n, eb = len(side.registers), side.element_bytes
        widest = side.width if side.width is not None else min(16, eb << n)
        k = _log2(widest // eb)
        if k > n:
            return None
        fewest = (32 // (side.per_phase or threads_per_phase(widest))) << (n - k)
        if side.fragments:                       # read only where the width is free or 16 bytes
            widest = 16
            fewest = min(fewest, 1 << (n - (1 if eb == 2 else 2)))
        waves += fewest
        if side.width is None:
            free.append(_log2(widest))
    return (-min(free) if free else 0, waves, -sum(free))


#: The columns :func:`_narrowest_bound` reads: a vector of at most 16 bytes spans at most 4
#: columns (1-byte elements), and so do a matrix row's columns.
_BOUND_COLUMNS = 4


class _WidthBounds:
    """:func:`_narrowest_bound` of ``sides``, remembered by the first columns (all it reads):
    the swizzles of one plain layout, and a layout's one-column changes, share most of them.

    >>> from layouts.linear import triton as tt
    >>> from .access import Access
    >>> from .memory import SharedMemory
    >>> acc = Access((tt.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]), (64, 64)), order="triton")
    >>> values, _, _, _ = resolve(SharedMemory((64, 64), np.arange(4096), "tile"), acc, 2)
    >>> bounds = _WidthBounds([_Side("s", acc, _distinct(warp_values(acc, values)), None, 0, True, True, 2)])
    >>> bounds([1 << b for b in range(12)]), len(bounds.known)
    (-1, 1)
    """

    def __init__(self, sides: List[_Side]) -> None:
        self.sides = sides
        self.known: dict = {}

    def __call__(self, columns: Sequence[int]) -> int:
        head = tuple(columns[:_BOUND_COLUMNS])
        found = self.known.get(head)
        if found is None:
            found = self.known[head] = _narrowest_bound(head, self.sides)
        return found


def _distinct(warps: Sequence[np.ndarray]) -> Tuple[np.ndarray, ...]:
    """The warps' thread maps without repeats (warps that broadcast hold the same elements)."""
    seen: dict = {}
    for values in warps:
        seen.setdefault(values.tobytes(), values)
    return tuple(seen.values())

