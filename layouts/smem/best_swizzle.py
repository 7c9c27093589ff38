"""The shared layout that serves given reads and writes best: :func:`best_swizzle`.

"Best" is the order Triton's generic swizzling uses (triton-lang/triton PRs 6982 and 7565): first
the vectors. An access given a width must get it; the accesses given none (``Access(tv)``) are read
at the widest the layout allows, and the narrowest of those widths -- the vectorisation all of them
get, as Triton's common vector basis -- is made as wide as possible. Then the fewest wavefronts
over all accesses, each at its width; then the widest vectors in total; then the simplest form (a
plain CuTe layout, then a ``Swizzle o layout``, then any XOR layout).

An access in Triton's order (``Access(..., order="triton")``, a linear thread map) takes the
instruction that order prefers on each candidate layout (:func:`instruction_conflicts`): vector
requests of the registers the layout puts at consecutive offsets, or, for 8- and 16-bit elements,
``ldmatrix`` (reads) / ``stmatrix`` (writes) where its lanes and registers are the instruction's
8 x 8 fragments (PTX ISA, "Matrix fragments for ldmatrix") and every matrix row lies at 16
consecutive, aligned bytes -- 16 bytes a lane, each matrix one phase.

The candidates are linear layouts of the tile's bits (``columns[k]``: the element at offset
``2**k``): the plain row- and column-major layouts, every ``Swizzle<B,M,S>`` of them (``S >= B >=
1``, all bits inside the tile), and layouts built around their low columns by
:func:`~layouts.smem.construct.greedy_columns`: each prefix of an access's vector in register
order; for the accesses in Triton's order, the registers they share (as many as 16 bytes hold),
widened by each one's own registers; and the row columns of each matrix fragment. The columns
above the low ones come from a complement of them that holds every other basis element of the
accesses that take a vector or a fragment there, so that their requests stay aligned (where none
can, the variants with accesses narrowed to one element), and are chosen to spread each phase's
differences over the banks. The best layout is then improved one column XOR at a time while that
helps. A linear thread map on a linear layout is counted in GF(2) terms -- each phase spans the
same differences, and a phase whose words span ``V`` takes ``2 ** (dim V - dim of V's banks)``
wavefronts -- which is the model of :func:`~layouts.smem.conflicts` (the results are counted by
it); other thread maps are counted by that model directly.

>>> from layouts import smem
>>> best = smem.best_swizzle(reads=[smem.ldmatrix(x4=True)], writes=[smem.Access(_row_chunks(), 16)],
...                          shape=(8, 64), element_bytes=2)
>>> [c.ways for c in best.conflicts], best.wavefronts, print(best.cute)
Sw<3,3,3> o 0 o (8,64):(64,1)
([1, 1], 16, None)
"""

from __future__ import annotations

import itertools
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from .._args import is_pow2
from ..errors import LayoutError, LayoutTypeError, type_name
from .access import Access, triton_order
from ..linear.gf2 import pivots, rank, xor_basis
from .conflicts import (Conflicts, _element_bytes, _positive_int, conflicts, resolve, stated_element_bytes,
                        warp_values)
from .construct import greedy_columns, offset_classes, offsets_of, phase_spaces, reference_order, vector_directions
from .instructions import MatrixAccess, MatrixInstruction, threads_per_phase, vector_name
from .memory import SharedMemory, _shape_arg, memory_of
from .model import count, widest

__all__ = ["best_swizzle", "instruction_conflicts", "BestSwizzle", "MAX_ELEMENTS"]

#: The largest tile best_swizzle searches (its candidate pool has one entry per bit vector of the tile).
MAX_ELEMENTS = 1 << 17


class BestSwizzle:
    """What :func:`best_swizzle` chose: ``linear`` (offset -> element, Triton's orientation),
    ``cute`` (a CuTe layout or ``Swizzle o layout``, or None), ``triton`` (a
    ``SwizzledSharedLayout``/``NVMMASharedLayout`` of :mod:`layouts.linear.triton`, or None),
    ``conflicts`` (per access: the reads, then the writes, each naming its instruction in
    ``.instruction``), ``memory``, ``wavefronts`` and ``vector_bytes`` (per access).

    >>> from layouts import cute
    >>> best = best_swizzle(reads=[Access(cute.Layout((32, 32), (1, 32)), 4)], shape=(32, 32), element_bytes=4)
    >>> best.linear.bases["offset"][:2], best.vector_bytes, best.conflicts[0].conflict_free
    (((1, 0), (2, 0)), [4], True)
    """

    def __init__(self, shape: Tuple[int, ...], columns: List[int], cute_form: Any, conflicts_: List[Conflicts],
                 memory: SharedMemory, candidates: int) -> None:
        self.shape, self.columns, self.memory = shape, columns, memory
        self.conflicts = conflicts_
        self.wavefronts = sum(c.wavefronts for c in conflicts_)
        self.vector_bytes = [c.vector_bytes for c in conflicts_]
        self.candidates = candidates
        self._cute = cute_form
        self._linear = None
        self._triton: Any = False

    @property
    def linear(self) -> Any:
        """The layout as a :class:`layouts.linear.LinearLayout`: in-dim ``offset``, out-dims ``dim0, dim1...``."""
        if self._linear is None:
            from ..linear.layout import LinearLayout
            bases = [list(_coords(c, self.shape)) for c in self.columns]
            self._linear = LinearLayout.from_bases({"offset": bases}, {f"dim{d}": s for d, s in enumerate(self.shape)})
        return self._linear

    @property
    def cute(self) -> Any:
        """The layout as CuTe says it (``Swizzle<B,M,S> o Shape:Stride`` or plain), or None."""
        if self._cute is None:
            from ..linear.bridges import cute_form
            self._cute = cute_form(self.linear) or False
        return self._cute or None

    @property
    def triton(self) -> Any:
        """A Triton shared encoding with exactly these offsets, or None (also without
        :mod:`layouts.linear.triton`)."""
        if self._triton is False:
            self._triton = _triton_form(self.shape, self.columns, self.memory.offsets, self.conflicts[0].element_bytes)
        return self._triton

    def describe(self) -> str:
        form = self.cute
        text = str(form) if form is not None else f"XOR layout, offset bits -> elements {self.columns}"
        return (f"{text}: {self.wavefronts} wavefronts over {len(self.conflicts)} accesses "
                f"(vectors {', '.join(f'{v} B' for v in self.vector_bytes)})")

    def __repr__(self) -> str:
        return f"BestSwizzle({self.describe()})"


def _coords(element: int, shape: Tuple[int, ...]) -> Tuple[int, ...]:
    out = []
    for s in shape:
        out.append(element % s)
        element //= s
    return tuple(out)


def _row_chunks() -> np.ndarray:
    """The module example's writes: thread t0 + 8 t1 stores row t0's 16-byte chunk t1 of 8 x 64 halves."""
    t = np.arange(32)
    rows, chunk = t % 8, t // 8
    return np.array([[r + 8 * (8 * (c + 4 * q) + j) for q in range(2) for j in range(8)] for r, c in zip(rows, chunk)])


def _log2(n: int) -> int:
    return int(n).bit_length() - 1


def best_swizzle(reads: Sequence[Any] = (), writes: Sequence[Any] = (), shape: Any = None, element_bytes: int = 2,
                 banks: int = 32, bank_bytes: int = 4, *,
                 matrix: Sequence[str] = ("ldmatrix", "stmatrix")) -> BestSwizzle:
    """The shared layout of a ``shape`` tile that gives ``reads`` and ``writes`` the widest
    vectors and then the fewest wavefronts (see the module's text for the order and the search).

    Parameters
    ----------
    reads, writes : sequences of :class:`Access` or instructions (``ldmatrix``, ``stmatrix``)
        The accesses; an Access without a width is counted at the widest it gets, an Access of
        several warps must get its width in every warp, and one in Triton's order
        (``order="triton"``) is counted in the order each candidate layout gives its values, with
        the instruction Triton's ranking prefers on that layout (see :func:`instruction_conflicts`).
    shape : tuple of ints
        The tile's modes, each a power of two (a linear layout permutes the tile's bits).
    element_bytes, banks, bank_bytes : int
        As for :func:`conflicts` (``banks`` a power of two here).
    matrix : sequence of ``"ldmatrix"``, ``"stmatrix"``
        The matrix instructions an access in Triton's order may use, for 8- and 16-bit elements
        (8-bit ones in pairs, as 16-bit units): ``ldmatrix`` for reads (sm_75 and later),
        ``stmatrix`` for writes (sm_90 and later); ``()`` for vector requests only.

    Examples
    --------
    >>> from layouts import smem, cute
    >>> by_columns = smem.Access(cute.Layout((32, 32), (1, 32)), 4)   # thread t: row t, one column per request
    >>> best = smem.best_swizzle(reads=[by_columns], shape=(32, 32), element_bytes=4)
    >>> best.wavefronts, best.conflicts[0].ways
    (32, 1)

    An MMA accumulator read back as a dot operand: ``ldmatrix`` reads 8 x 8 matrices of the
    operand's fragment, 16 bytes a row, and the stores are 16-byte vectors:

    >>> from layouts.linear import triton as tt
    >>> blocked = smem.Access((tt.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]), (64, 64)), order="triton")
    >>> operand = smem.Access((tt.DotOperandLayout(0, tt.NVMMADistributedLayout([2, 0], [4, 1], [16, 8]), 2),
    ...                        (64, 64)), order="triton")
    >>> best = smem.best_swizzle(reads=[operand], writes=[blocked], shape=(64, 64))
    >>> [c.instruction for c in best.conflicts], best.wavefronts
    (['ldmatrix.x4', 'st.shared.v4.b32'], 32)
    """
    shape = _shape_arg("shape", shape) if shape is not None else None
    if shape is None:
        raise LayoutError("best_swizzle: give shape=(rows, cols), the tile's modes")
    if int(np.prod(shape)) > MAX_ELEMENTS:
        raise LayoutError(f"shape {shape} has {int(np.prod(shape))} elements; best_swizzle searches tiles of at most "
                          f"{MAX_ELEMENTS} (256 KiB of 2-byte elements, more than any GPU's shared memory)")
    if not all(is_pow2(s) for s in shape):
        raise LayoutError(f"shape {shape}: best_swizzle searches XOR layouts of the tile's bits, so every mode must be "
                          f"a power of two")
    element_bytes = _element_bytes(element_bytes)
    banks = _positive_int("banks", banks, power_of_two=True)
    bank_bytes = _positive_int("bank_bytes", bank_bytes, power_of_two=True)
    allowed = _matrix_arg(matrix)
    named = []
    for what, items in (("reads", reads), ("writes", writes)):
        if isinstance(items, (Access, MatrixInstruction)) or not isinstance(items, (list, tuple)):
            raise LayoutTypeError(f"{what} must be a list of accesses (smem.Access, smem.ldmatrix(...)), got "
                                  f"{type_name(items)}")
        named += [(f"{what}[{i}]", a, what == "writes") for i, a in enumerate(items)]
    if not named:
        raise LayoutError("best_swizzle: give at least one access in reads= or writes=")
    size = int(np.prod(shape))
    bits = _log2(size)
    plain = SharedMemory(shape, np.arange(size), "the tile")
    sides = []
    for name, acc, store in named:
        try:
            values, width, per_phase, _ = resolve(plain, acc, element_bytes)
        except LayoutError as e:
            raise type(e)(f"{name}: {e}") from None
        if width is not None:
            if width < element_bytes or (values.shape[1] % (width // element_bytes)):
                raise LayoutError(f"{name}: width_bytes={width} does not fit: {values.shape[1]} values per thread "
                                  f"of {element_bytes} bytes")
        sides.append(_Side(name, acc, _distinct(warp_values(acc, values)), width, per_phase, store,
                           _op_for(store) in allowed and element_bytes <= 2, element_bytes))
    for side in sides:
        if side.width is not None and (1 << len(side.directions)) * element_bytes < side.width:
            raise LayoutError(f"{side.name} asks for width_bytes={side.width}, but its threads' consecutive values are "
                              f"no block that one XOR layout can store contiguously for all threads; the widest "
                              f"possible is {(1 << len(side.directions)) * element_bytes} bytes")

    classes = offset_classes(bits, element_bytes, banks, bank_bytes)
    geometry = _Banks(element_bytes, banks, bank_bytes)
    candidates = []                           # the built ones first: their keys prune the rest early
    for vector, roles, complement in _builds(sides, element_bytes, bits):
        spaces: dict = {}
        for side, role in zip(sides, roles):
            for key, n in side.spaces(vector, role).items():
                spaces[key] = spaces.get(key, 0) + n
        order = reference_order([_log2(s) for s in shape], _first_dim(vector, shape))
        candidates.append((2, greedy_columns(list(vector), spaces, bits, classes, order, complement), None))
    candidates += _plain_and_swizzled(shape, bits)

    best_key, best = None, None
    seen = set()
    for form_rank, cols, cute_form in candidates:
        if tuple(cols) in seen:
            continue
        seen.add(tuple(cols))
        offsets = offsets_of(cols)
        key = _score(cols, offsets, sides, geometry, best_key)
        if key is None:
            continue
        key = key + (form_rank,)
        if best_key is None or key < best_key:
            best_key, best = key, (cols, cute_form)
    if best is None:
        raise LayoutError("best_swizzle: no XOR layout of this tile gives every access the width it asks for; "
                          "give the accesses fewer bytes (width_bytes) or none")
    polished = _polish(list(best[0]), best_key, sides, geometry)
    if polished is not None:
        best = (polished, None)
    cols, cute_form = best
    memory = SharedMemory(shape, offsets_of(cols), str(cute_form) if cute_form is not None else "best XOR layout")
    results = [_counted(memory, side, element_bytes, banks, bank_bytes) for side in sides]
    return BestSwizzle(shape, cols, cute_form, results, memory, len(seen))


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
        columns = [sum(1 << kept[i] for i in range(len(kept)) if r >> i & 1) for r in range(1 << len(kept))]
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
        columns = [sum(1 << order[i] for i in range(len(order)) if r >> i & 1) for r in range(1 << len(order))]
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
        # a request of 2**k values needs every thread's first value at a multiple of 2**k
        aligned = min((_trailing_zeros(int(offsets[e])) for e in self.others(sorted(vector))), default=len(vector))
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
            self._known[moved] = 1 << (_rank(words) - _rank([w & (self.banks - 1) for w in words]))
        return self._known[moved]


def _rank(vectors: Sequence[int]) -> int:
    """The dimension of the span of a few bit vectors: each kept vector is reduced by the ones
    before it, so no kept vector holds an earlier one's top bit and they are independent."""
    kept: List[int] = []
    for v in vectors:
        for b in kept:
            v = min(v, v ^ b)
        if v:
            kept.append(v)
    return len(kept)


def _span_key(vectors: Sequence[int]) -> Tuple[int, ...]:
    """A phase space as :func:`~layouts.smem.construct.phase_spaces` names it: its reduced basis, sorted."""
    return tuple(sorted(xor_basis(vectors).values()))


def _trailing_zeros(n: int) -> int:
    return (n & -n).bit_length() - 1


def _chosen_fragment(memory: SharedMemory, side: _Side, element_bytes: int, banks: int,
                     bank_bytes: int) -> Optional[_Fragment]:
    """The fragment ``side`` takes on ``memory`` (any shared layout, counted by the model warp by
    warp), or None where vector requests are as wide and take no more wavefronts."""
    if not side.fragments:
        return None
    try:
        vector = conflicts(memory, side.access, element_bytes, banks, bank_bytes)
        best: tuple = ((-vector.width_bytes, vector.wavefronts), None)
    except LayoutError:
        best = ((1, 0), None)                    # no vector width this layout allows
    offsets = memory.offsets
    moves = [shift ^ side.shifts[0] for shift in side.shifts]          # warp w's elements: warp 0's XOR this
    for fragment in side.fragments:
        values, _, per_phase = fragment.instruction.thread_map(memory.shape, element_bytes)
        warps = [np.where(values >= 0, values ^ move, -1) for move in moves]
        if not all(_rows_fit(offsets, fragment.instruction.rows ^ move) for move in moves):
            continue
        waves = max(int(count(offsets, w, 16, element_bytes, per_phase, banks, bank_bytes).per_phase.sum())
                    for w in warps)
        if (-16, waves) < best[0]:
            best = ((-16, waves), fragment)
    return best[1]


def _rows_fit(offsets: np.ndarray, rows: np.ndarray) -> bool:
    """Every matrix row (the last axis, ``n`` elements of 16 bytes) at ``n`` consecutive offsets, aligned."""
    n = rows.shape[-1]
    offs = offsets[rows]
    return bool(np.all(offs == offs[..., :1] + np.arange(n)) and np.all(offs[..., 0] % n == 0))


def _counted(memory: SharedMemory, side: _Side, element_bytes: int, banks: int, bank_bytes: int) -> Conflicts:
    """The Conflicts of ``side`` on ``memory`` with the instruction it takes there, named in ``.instruction``."""
    fragment = _chosen_fragment(memory, side, element_bytes, banks, bank_bytes)
    if fragment is not None:
        result = conflicts(memory, fragment.instruction, element_bytes, banks, bank_bytes)
        result.instruction = fragment.instruction.name
        return result
    result = conflicts(memory, side.access, element_bytes, banks, bank_bytes)
    access = side.access
    result.instruction = access.name if isinstance(access, MatrixInstruction) else vector_name(
        side.store, result.width_bytes)
    return result


def _common(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    return n


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
    for low, roles in out:
        unique.setdefault((low, roles), None)
    return list(unique)


#: The role of an access built for requests of one element (its vector left unaligned).
NARROW = "narrow"


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
    common = -min(free) if free else 0
    if bound is not None and common > bound[0]:
        return None
    waves = sum(option[1] for option in chosen)
    if bound is not None and (common, waves) > bound[:2]:
        return None
    return (common, waves, -sum(free))


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


def _distinct(warps: Sequence[np.ndarray]) -> Tuple[np.ndarray, ...]:
    """The warps' thread maps without repeats (warps that broadcast hold the same elements)."""
    seen: dict = {}
    for values in warps:
        seen.setdefault(values.tobytes(), values)
    return tuple(seen.values())


def _plain_and_swizzled(shape: Tuple[int, ...], bits: int) -> list:
    """(rank, columns, cute layout) of the plain row/column-major layouts and their swizzles."""
    from ..cute.layout import Layout
    from ..cute.swizzle import ComposedLayout, Swizzle
    out = []
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


def _triton_form(shape: Tuple[int, ...], columns: List[int], offsets: np.ndarray, element_bytes: int) -> Any:
    """A Triton shared encoding whose offsets over ``shape`` are ``offsets``, or None: the
    ``SwizzledSharedLayout`` read off the columns (contiguous dim first, then each row bit with the
    vec-group phase it XORs in), else one of the ``NVMMASharedLayout`` swizzles; each checked."""
    if len(shape) != 2:
        return None
    try:
        from ..linear import triton as tt
    except ImportError:
        return None
    from .memory import memory_of
    options = []
    bits = [_log2(s) for s in shape]
    for order in ([1, 0], [0, 1]):
        fast, slow = order
        fast_shift = 0 if fast == 0 else bits[0]
        slow_shift = 0 if slow == 0 else bits[0]
        head = [1 << (fast_shift + i) for i in range(bits[fast])]
        if columns[: bits[fast]] != head:
            continue
        parts = []
        for i, c in enumerate(columns[bits[fast]:]):
            if c & ~(((1 << bits[fast]) - 1) << fast_shift) != 1 << (slow_shift + i):
                parts = None
                break
            parts.append((c >> fast_shift) & ((1 << bits[fast]) - 1))
        if parts is None:
            continue
        nonzero = [i for i, p in enumerate(parts) if p]
        vec = min((p & -p for p in parts if p), default=1)
        per_phase = 1 << nonzero[0] if nonzero else 1
        max_phase = 1 << len(nonzero) if nonzero else 1
        options.append(lambda o=order, v=vec, p=per_phase, m=max_phase: tt.SwizzledSharedLayout(v, p, m, o))
    bitwidth = 8 * element_bytes
    if bitwidth in (8, 16, 32, 64):
        for swizzle in (0, 32, 64, 128):
            for transposed in (False, True):
                options.append(lambda s=swizzle, t=transposed: tt.NVMMASharedLayout(s, bitwidth, 2, t))
    for make in options:
        try:
            enc = make()
            mem = memory_of((enc, shape))
        except LayoutError:
            continue
        if np.array_equal(mem.offsets, offsets):
            return enc
    return None
