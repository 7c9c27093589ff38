"""The shared layout that serves given reads and writes best: :func:`best_swizzle`.

"Best" is the order Triton's generic swizzling uses (triton-lang/triton PRs 6982 and 7565): first
the vectors. An access given a width must get it; the accesses given none (``Access(tv)``) are read
at the widest the layout allows, and the narrowest of those widths -- the vectorisation all of them
get, as Triton's common vector basis -- is made as wide as possible. Then the fewest wavefronts
over all accesses, each at its width; then the widest vectors in total; then the simplest form (a
plain CuTe layout, then a ``Swizzle o layout``, then any XOR layout).

The candidates are linear layouts of the tile's bits: the plain row- and column-major layouts,
every ``Swizzle<B,M,S>`` of them (``S >= B >= 1``, all bits inside the tile), and for each vector
the accesses allow, the layout :func:`~layouts.smem.construct.greedy_columns` builds. Each is
counted by the same model as :func:`~layouts.smem.conflicts`.

>>> from layouts import smem
>>> best = smem.best_swizzle(reads=[smem.ldmatrix(x4=True)], writes=[smem.Access(_row_chunks(), 16)],
...                          shape=(8, 64), element_bytes=2)
>>> [c.ways for c in best.conflicts], best.wavefronts, print(best.cute)
Sw<3,3,3> o 0 o (8,64):(64,1)
([1, 1], 16, None)
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from .._args import is_pow2
from ..errors import LayoutError, LayoutTypeError, type_name
from .access import Access
from .conflicts import Conflicts, _element_bytes, _positive_int, conflicts, resolve, warp_values
from .construct import greedy_columns, offset_classes, offsets_of, phase_spaces, reference_order, vector_directions
from .instructions import MatrixInstruction, threads_per_phase
from .memory import SharedMemory, _shape_arg
from .model import count, widest

__all__ = ["best_swizzle", "BestSwizzle", "MAX_ELEMENTS"]

#: The largest tile best_swizzle searches (its candidate pool has one entry per bit vector of the tile).
MAX_ELEMENTS = 1 << 17


class BestSwizzle:
    """What :func:`best_swizzle` chose: ``linear`` (offset -> element, Triton's orientation),
    ``cute`` (a CuTe layout or ``Swizzle o layout``, or None), ``triton`` (a
    ``SwizzledSharedLayout``/``NVMMASharedLayout`` of :mod:`layouts.linear.triton`, or None),
    ``conflicts`` (per access: the reads, then the writes), ``memory``, ``wavefronts`` and
    ``vector_bytes`` (per access).

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
                 banks: int = 32, bank_bytes: int = 4) -> BestSwizzle:
    """The shared layout of a ``shape`` tile that gives ``reads`` and ``writes`` the widest
    vectors and then the fewest wavefronts (see the module's text for the order and the search).

    Parameters
    ----------
    reads, writes : sequences of :class:`Access` or instructions (``ldmatrix``, ``stmatrix``)
        The accesses; an Access without a width is counted at the widest it gets, and an Access of
        several warps must get its width in every warp.
    shape : tuple of ints
        The tile's modes, each a power of two (a linear layout permutes the tile's bits).
    element_bytes, banks, bank_bytes : int
        As for :func:`conflicts` (``banks`` a power of two here).

    Examples
    --------
    >>> from layouts import smem, cute
    >>> by_columns = smem.Access(cute.Layout((32, 32), (1, 32)), 4)   # thread t: row t, one column per request
    >>> best = smem.best_swizzle(reads=[by_columns], shape=(32, 32), element_bytes=4)
    >>> best.wavefronts, best.conflicts[0].ways
    (32, 1)
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
    named = []
    for what, items in (("reads", reads), ("writes", writes)):
        if isinstance(items, (Access, MatrixInstruction)) or not isinstance(items, (list, tuple)):
            raise LayoutTypeError(f"{what} must be a list of accesses (smem.Access, smem.ldmatrix(...)), got "
                                  f"{type_name(items)}")
        named += [(f"{what}[{i}]", a) for i, a in enumerate(items)]
    if not named:
        raise LayoutError("best_swizzle: give at least one access in reads= or writes=")
    size = int(np.prod(shape))
    bits = _log2(size)
    plain = SharedMemory(shape, np.arange(size), "the tile")
    resolved = []
    for name, acc in named:
        try:
            values, width, per_phase, _ = resolve(plain, acc, element_bytes)
        except LayoutError as e:
            raise type(e)(f"{name}: {e}") from None
        if width is not None:
            if width < element_bytes or (values.shape[1] % (width // element_bytes)):
                raise LayoutError(f"{name}: width_bytes={width} does not fit: {values.shape[1]} values per thread "
                                  f"of {element_bytes} bytes")
        seen_maps = set()
        for warp in warp_values(acc, values):     # every warp must get the width; equal maps count once
            if warp.tobytes() not in seen_maps:
                seen_maps.add(warp.tobytes())
                resolved.append((name, warp, width, per_phase))
    directions = [vector_directions(v, element_bytes) for _, v, _, _ in resolved]
    for (name, _, width, _), d in zip(resolved, directions):
        if width is not None and (1 << len(d)) * element_bytes < width:
            raise LayoutError(f"{name} asks for width_bytes={width}, but its threads' consecutive values are no block "
                              f"that one XOR layout can store contiguously for all threads; the widest possible is "
                              f"{(1 << len(d)) * element_bytes} bytes")

    candidates = []                           # the built ones first: their keys prune the rest early
    for vector in _vectors(directions, resolved, element_bytes):
        spaces = {}
        for (name, values, width, per_phase), d in zip(resolved, directions):
            w = width if width is not None else element_bytes << _common(vector, d)
            for key, n in phase_spaces(values, w, element_bytes, per_phase or threads_per_phase(w)).items():
                spaces[key] = spaces.get(key, 0) + n
        first = _first_dim(vector, shape)
        order = reference_order([_log2(s) for s in shape], first)
        cols = greedy_columns(list(vector), spaces, bits, offset_classes(bits, element_bytes, banks, bank_bytes), order)
        candidates.append((2, cols, None))
    candidates += _plain_and_swizzled(shape, bits)

    best_key, best = None, None
    seen = set()
    for rank, cols, cute_form in candidates:
        if tuple(cols) in seen:
            continue
        seen.add(tuple(cols))
        offsets = offsets_of(cols)
        key = _score(offsets, resolved, element_bytes, banks, bank_bytes, best_key)
        if key is None:
            continue
        key = key + (rank,)
        if best_key is None or key < best_key:
            best_key, best = key, (cols, cute_form)
    if best is None:
        raise LayoutError("best_swizzle: no XOR layout of this tile gives every access the width it asks for; "
                          "give the accesses fewer bytes (width_bytes) or none")
    cols, cute_form = best
    memory = SharedMemory(shape, offsets_of(cols), str(cute_form) if cute_form is not None else "best XOR layout")
    results = [conflicts(memory, acc, element_bytes, banks, bank_bytes) for _, acc in named]
    return BestSwizzle(shape, cols, cute_form, results, memory, len(seen))


def _common(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    return n


def _vectors(directions: List[List[int]], resolved: list, element_bytes: int) -> List[Tuple[int, ...]]:
    """Every vector (prefix of some access's directions) that still gives each access its width."""
    out = []
    for d in directions:
        for k in range(len(d) + 1):
            v = tuple(d[:k])
            if v in out:
                continue
            if all(width is None or (element_bytes << _common(v, dd)) >= width
                   for (_, _, width, _), dd in zip(resolved, directions)):
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


def _score(offsets: np.ndarray, resolved: list, element_bytes: int, banks: int, bank_bytes: int,
           bound: Optional[tuple] = None) -> Optional[tuple]:
    """``(-log2 of the narrowest free access's bytes, total wavefronts, -sum of log2 of the free
    accesses' bytes)``, or None when an access cannot get its width or the layout cannot beat
    ``bound`` (the best key so far)."""
    free, widths = [], []
    for _, values, width, per_phase in resolved:
        vec = widest(offsets, values, element_bytes)
        w = width if width is not None else vec
        if vec < w:
            return None
        if width is None:
            free.append(_log2(w))
        widths.append(w)
    common = -min(free) if free else 0
    if bound is not None and common > bound[0]:
        return None
    waves = 0
    for (_, values, _, per_phase), w in zip(resolved, widths):
        counts = count(offsets, values, w, element_bytes, per_phase or threads_per_phase(w), banks, bank_bytes)
        waves += int(counts.per_phase.sum())
        if bound is not None and (common, waves) > bound[:2]:
            return None
    return (common, waves, -sum(free))


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
