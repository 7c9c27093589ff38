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

from typing import Any, List, Sequence, Tuple

import numpy as np

from .._args import is_pow2
from ..errors import LayoutError, LayoutTypeError, type_name
from .access import Access
from .candidates import SwizzledForm, _builds, _first_dim, _plain_and_swizzled, _polish
from .conflicts import Conflicts, _element_bytes, _positive_int, resolve, warp_values
from .construct import greedy_columns, offset_classes, offsets_of, reference_order
from .instructions import MatrixInstruction
from .memory import SharedMemory, _shape_arg, memory_of
from .scoring import (_Banks, _counted, _distinct, _least_possible, _log2, _matrix_arg, _op_for, _score, _Side,
                      _WidthBounds, instruction_conflicts)

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
    orders: dict = {}                         # the plain layout of each first dim, the tie-break of the builds
    for vector, roles, complement in _builds(sides, element_bytes, bits):
        spaces: dict = {}
        for side, role in zip(sides, roles):
            for key, n in side.spaces(vector, role).items():
                spaces[key] = spaces.get(key, 0) + n
        first = _first_dim(vector, shape)
        if first not in orders:
            orders[first] = reference_order([_log2(s) for s in shape], first)
        candidates.append((2, greedy_columns(list(vector), spaces, bits, classes, orders[first], complement),
                           None))
    candidates += _plain_and_swizzled(shape, bits)

    best_key, best = None, None
    seen = set()
    bounds = _WidthBounds(sides)
    for form_rank, cols, cute_form in candidates:
        named = tuple(cols)
        if named in seen:
            continue
        seen.add(named)
        if best_key is not None and bounds(cols) > best_key[0]:
            continue                          # its widths alone lose: not worth its offsets
        offsets = cute_form.offsets() if isinstance(cute_form, SwizzledForm) else offsets_of(cols)
        key = _score(cols, offsets, sides, geometry, best_key)
        if key is None:
            continue
        key = key + (form_rank,)
        if best_key is None or key < best_key:
            best_key, best = key, (cols, cute_form)
    if best is None:
        raise LayoutError("best_swizzle: no XOR layout of this tile gives every access the width it asks for; "
                          "give the accesses fewer bytes (width_bytes) or none")
    polished = None
    if best_key[:3] != _least_possible(sides):       # at the bound, no step can lower the score
        polished = _polish(list(best[0]), best_key, sides, geometry, bounds)
    if polished is not None:
        best = (polished, None)
    cols, cute_form = best
    if isinstance(cute_form, SwizzledForm):
        cute_form = cute_form.made()
    memory = SharedMemory(shape, offsets_of(cols), str(cute_form) if cute_form is not None else "best XOR layout")
    results = [_counted(memory, side, element_bytes, banks, bank_bytes) for side in sides]
    return BestSwizzle(shape, cols, cute_form, results, memory, len(seen))


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
