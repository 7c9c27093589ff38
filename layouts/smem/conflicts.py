"""Bank conflicts of one access to one shared layout: :func:`conflicts` and what it returns.

>>> from layouts import cute
>>> tile = cute.Layout((8, 64), (64, 1))                       # 8 x 64 halves, rows 128 bytes apart
>>> conflicts(tile, ldmatrix(x4=True)).ways
8
>>> r = conflicts(cute.composition(cute.Swizzle(3, 3, 3), tile), ldmatrix(x4=True))
>>> r.ways, r.wavefronts, r.ideal, r.vector_bytes
(1, 8, 8, 16)
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ..cute.int_tuple import is_int
from .._args import is_pow2
from ..errors import LayoutError, LayoutTypeError, type_name
from .access import Access, triton_order
from .instructions import MatrixInstruction, VectorInstruction, ldmatrix, threads_per_phase  # noqa: F401 - ldmatrix: the examples
from .memory import SharedMemory, memory_of
from .model import Counts, check_requests, count, widest

__all__ = ["conflicts", "Conflicts", "Phase"]

ELEMENT_BYTES = (1, 2, 4, 8, 16)


class Phase:
    """One phase of a request: the threads it serves, what they touch, and the banks' load.

    Attributes: ``index`` (0.. over the whole access), ``request`` (which issue of the
    instruction), ``threads``, ``elements`` and ``words`` (per thread, the same order), ``banks``
    (bank -> its distinct words), ``wavefronts`` (the most distinct words of one bank).

    >>> from layouts import cute
    >>> p = conflicts(cute.Layout((8, 64), (64, 1)), ldmatrix(x1=True)).phases[0]
    >>> p.threads, p.wavefronts, p.banks[0]
    ((0, 1, 2, 3, 4, 5, 6, 7), 8, (0, 32, 64, 96, 128, 160, 192, 224))
    >>> p.colliding()[0]
    (0, (0, 1, 2, 3, 4, 5, 6, 7))
    """

    __slots__ = ("index", "request", "threads", "elements", "words", "banks", "wavefronts", "bank_count")

    def __init__(self, index: int, request: int, threads: Tuple[int, ...], elements: Tuple[Tuple[int, ...], ...],
                 words: Tuple[Tuple[int, ...], ...], bank_count: int) -> None:
        self.index, self.request, self.threads = index, request, threads
        self.elements, self.words, self.bank_count = elements, words, bank_count
        banks: Dict[int, set] = {}
        for ws in words:
            for w in ws:
                banks.setdefault(w % bank_count, set()).add(w)
        self.banks: Dict[int, Tuple[int, ...]] = {b: tuple(sorted(banks[b])) for b in sorted(banks)}
        self.wavefronts = max((len(ws) for ws in self.banks.values()), default=0)

    def colliding(self) -> List[Tuple[int, Tuple[int, ...]]]:
        """``(bank, threads)`` for each bank that holds more than one distinct word: the
        threads whose words fall in that bank."""
        return [(bank, tuple(t for t, ws in zip(self.threads, self.words)
                             if any(w % self.bank_count == bank for w in ws)))
                for bank, words in self.banks.items() if len(words) > 1]

    def __repr__(self) -> str:
        return f"Phase({self.index}: threads {_span(self.threads)}, {self.wavefronts} wavefront(s))"


def _span(items: Tuple[int, ...]) -> str:
    if len(items) > 1 and items == tuple(range(items[0], items[-1] + 1)):
        return f"{items[0]}-{items[-1]}"
    return ", ".join(map(str, items))


class Conflicts:
    """What :func:`conflicts` found: ``wavefronts`` (total), ``ideal`` (one per phase), ``ways``
    (the worst phase's wavefronts), ``per_phase``, ``vector_bytes`` (the widest request every
    thread of every warp allows, at most 16), ``width_bytes`` (the width counted), ``phases``,
    ``worst_phase``, ``memory`` and :meth:`explain`. For an access of several warps, these are the
    worst warp's (the most wavefronts): ``warp`` says which, ``warps`` holds every warp's result.
    ``instruction`` names the PTX instruction where one was chosen for the access
    (:func:`~layouts.smem.best_swizzle.instruction_conflicts`: ``"ldmatrix.x4.trans"``,
    ``"st.shared.v4.b32"``), else None.

    >>> from layouts import cute
    >>> r = conflicts(cute.Layout((16, 64), (64, 1)), ldmatrix(x2=True))
    >>> r.wavefronts, r.ideal, r.ways, r.per_phase[:4], r.worst_phase
    (128, 16, 8, [8, 8, 8, 8], Phase(0: threads 0-7, 8 wavefront(s)))
    """

    def __init__(self, memory: SharedMemory, access: Any, counts: Counts, width_bytes: int, vector_bytes: int,
                 element_bytes: int, banks: int, bank_bytes: int) -> None:
        self.memory, self.access, self._counts = memory, access, counts
        self.width_bytes, self.vector_bytes = width_bytes, vector_bytes
        self.element_bytes, self.banks, self.bank_bytes = element_bytes, banks, bank_bytes
        self.per_phase: List[int] = counts.per_phase.tolist()
        self.wavefronts = int(counts.per_phase.sum())
        self.ideal = len(self.per_phase)
        self.ways = int(counts.per_phase.max()) if self.ideal else 0
        self._phases: Optional[Tuple[Phase, ...]] = None
        self.warp = 0
        self.warps: Tuple["Conflicts", ...] = (self,)
        self.instruction: Optional[str] = None

    @property
    def phases(self) -> Tuple[Phase, ...]:
        """Every phase with its threads, elements, words and banks (built when first asked for)."""
        if self._phases is None:
            c = self._counts
            order = np.argsort(c.phase_of, kind="stable")
            bounds = np.searchsorted(c.phase_of[order], np.arange(self.ideal + 1))
            phases = []
            for p in range(self.ideal):
                rows = order[bounds[p]:bounds[p + 1]]
                phases.append(Phase(p, int(c.request[rows[0]]), tuple(int(t) for t in c.thread[rows]),
                                    tuple(tuple(int(e) for e in c.elements[i]) for i in rows),
                                    tuple(tuple(int(w) for w in c.words[i]) for i in rows), self.banks))
            self._phases = tuple(phases)
        return self._phases

    @property
    def worst_phase(self) -> Optional[Phase]:
        """The first phase with ``ways`` wavefronts (None for an access with no phase)."""
        if not self.per_phase:
            return None
        return self.phases[self.per_phase.index(self.ways)]

    @property
    def conflict_free(self) -> bool:
        """Every phase takes one wavefront."""
        return self.wavefronts == self.ideal

    def _name(self) -> str:
        a = self.access
        if isinstance(a, MatrixInstruction):
            return a.name
        op = "access" if a.op == "access" else a.op
        return f"{op} of {self.width_bytes} B per thread"

    def explain(self) -> str:
        """In words: the totals, and which threads of the worst phase collide in which bank and why.

        >>> from layouts import cute
        >>> print(conflicts(cute.Layout((8, 64), (64, 1)), ldmatrix(x4=True)).explain().splitlines()[0])
        ldmatrix.x4 on (8,64):(64,1), 2-byte elements: 8 phases, 64 wavefronts where 8 is ideal -- 8-way bank conflicts.
        """
        head = (f"{self._name()} on {self.memory.describe()}, {self.element_bytes}-byte elements: "
                f"{self.ideal} phase{'s' if self.ideal != 1 else ''}, {self.wavefronts} wavefront"
                f"{'s' if self.wavefronts != 1 else ''} where {self.ideal} is ideal")
        lines = []
        if self.conflict_free:
            lines.append(head + " -- conflict-free.")
        else:
            bad = sum(1 for w in self.per_phase if w > 1)
            lines.append(head + f" -- {self.ways}-way bank conflicts.")
            p = self.worst_phase
            lines.append(f"{bad} of {self.ideal} phases conflict. The worst, phase {p.index} (request {p.request}, "
                         f"threads {_span(p.threads)}), takes {p.wavefronts} wavefronts:")
            for bank, who in p.colliding()[:4]:
                words = p.banks[bank]
                byte = self.bank_bytes
                lines.append(f"  bank {bank}: threads {_span(who)} touch {len(words)} different {byte}-byte words "
                             f"(byte addresses {', '.join(str(w * byte) for w in words[:6])}"
                             f"{', ...' if len(words) > 6 else ''}), which the bank serves one per wavefront.")
            more = len(p.colliding()) - 4
            if more > 0:
                lines.append(f"  ... and {more} more banks of this phase.")
            lines.append(f"Why: addresses {self.banks * self.bank_bytes} bytes apart (or any multiple) fall in the same "
                         f"bank; a swizzle or padding that moves these threads' words to different banks removes it.")
        many = len(self.warps) > 1
        lines.append(f"Each thread's values{', in every warp,' if many else ''} allow requests of up to "
                     f"{self.vector_bytes} bytes; {self.width_bytes} were counted.")
        if many:
            each = ", ".join(str(w.wavefronts) for w in self.warps)
            lines.append(f"These are warp {self.warp}'s, the worst of {len(self.warps)} (wavefronts by warp: {each}).")
        return "\n".join(lines)

    def __repr__(self) -> str:
        warp = f", warp {self.warp} of {len(self.warps)}" if len(self.warps) > 1 else ""
        return (f"Conflicts({self._name()}: {self.wavefronts} wavefronts, ideal {self.ideal}, {self.ways}-way, "
                f"vector {self.vector_bytes} B{warp})")


def _element_bytes(value: Any) -> int:
    """``element_bytes`` checked: 1, 2, 4, 8 or 16.

    >>> _element_bytes(3)
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: element_bytes must be one of 1, 2, 4, 8, 16, got 3
    """
    if not is_int(value):
        raise LayoutTypeError(f"element_bytes must be an int (bytes per element), got {type_name(value)}")
    if int(value) not in ELEMENT_BYTES:
        raise LayoutError(f"element_bytes must be one of {', '.join(map(str, ELEMENT_BYTES))}, got {int(value)}")
    return int(value)


def _positive_int(name: str, value: Any, power_of_two: bool = False) -> int:
    if not is_int(value):
        raise LayoutTypeError(f"{name} must be an int, got {type_name(value)}")
    value = int(value)
    if value < 1 or (power_of_two and not is_pow2(value)):
        raise LayoutError(f"{name} must be a {'power of two' if power_of_two else 'positive int'}, got {value}")
    return value


def resolve(mem: SharedMemory, access: Any, element_bytes: int) -> Tuple[np.ndarray, Optional[int], int, str]:
    """``(values (32, V), width or None, threads per phase, name)`` of an access on ``mem`` (its
    first warp: :func:`warp_values` gives the others)."""
    if isinstance(access, MatrixInstruction):
        values, width, per_phase = access.thread_map(mem.shape, element_bytes)
        return values, width, per_phase, access.name
    if isinstance(access, VectorInstruction):
        raise LayoutTypeError(f"acc: {access!r} is a width; give it with a thread map: Access(threads, {access!r})")
    if not isinstance(access, Access):
        raise LayoutTypeError(f"acc must be a smem.Access or an instruction (smem.ldmatrix(...), smem.stmatrix(...)), "
                              f"got {type_name(access)}")
    if access.shape is not None and _squeezed(access.shape) != _squeezed(mem.shape):
        raise LayoutError(f"acc is over a tile of shape {access.shape}, the shared layout over {mem.shape}")
    top = max(int(v.max()) for v in access.warps) if access.values.size else -1
    if top >= mem.size:
        raise LayoutError(f"acc reaches element {top} but the shared layout {mem.describe()} has {mem.size} elements "
                          f"(shape {mem.shape})")
    width = access.width_bytes
    return access.values, width, threads_per_phase(width) if width else 0, "this access"


def warp_values(access: Any, values: np.ndarray) -> Tuple[np.ndarray, ...]:
    """The thread map of every warp of ``access`` (``values``, from :func:`resolve`, is the first)."""
    return access.warps if isinstance(access, Access) else (values,)


def stated_element_bytes(mem: SharedMemory, element_bytes: Any) -> int:
    """``element_bytes`` checked against the width the shared layout states; 2 where neither says.

    >>> from layouts.linear import triton as tt
    >>> from .memory import memory_of
    >>> stated_element_bytes(memory_of((tt.NVMMASharedLayout(128, 8), (64, 128))), None)
    1
    >>> stated_element_bytes(memory_of((tt.NVMMASharedLayout(128, 8), (64, 128))), 2)
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: element_bytes=2 contradicts the shared layout NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=8, rank=2, transposed=False, fp4_padded=False, cga_layout=[]) over (64, 128), whose elements are 1 byte(s) wide
    """
    if element_bytes is None:
        return mem.element_bytes or 2
    element_bytes = _element_bytes(element_bytes)
    if mem.element_bytes is not None and element_bytes != mem.element_bytes:
        raise LayoutError(f"element_bytes={element_bytes} contradicts the shared layout {mem.describe()}, whose "
                          f"elements are {mem.element_bytes} byte(s) wide")
    return element_bytes


def _squeezed(shape: Tuple[int, ...]) -> Tuple[int, ...]:
    return tuple(s for s in shape if s != 1)


def conflicts(shared_layout: Any, acc: Any, element_bytes: Optional[int] = None, banks: int = 32,
              bank_bytes: int = 4, shape: Optional[Tuple[int, ...]] = None) -> Conflicts:
    """Bank conflicts of a warp's access ``acc`` to ``shared_layout``, by the hardware's model
    (:mod:`layouts.smem.model`); of every warp where ``acc`` holds several, the worst reported.

    Parameters
    ----------
    shared_layout
        Anything :func:`memory_of` accepts.
    acc
        A :class:`Access` (a thread map and a width) or an instruction that brings its own
        (:func:`ldmatrix`, :func:`stmatrix`).
    element_bytes : int, optional
        Bytes of one element: 1, 2, 4, 8 or 16. Default: the width the shared layout states
        (``NVMMASharedLayout``'s ``element_bitwidth``), else 2; one that contradicts it is refused.
    banks, bank_bytes : int
        The banks (32) and their width (4 bytes).
    shape : tuple of ints, optional
        The tile's modes, passed to :func:`memory_of`.

    Examples
    --------
    >>> import layouts as ly
    >>> import numpy as np
    >>> by_columns = Access(np.arange(32 * 32).reshape(32, 32).T, width_bytes=4)  # thread t: row t, a column per request
    >>> conflicts(ly.Layout("HW", H=32, W=32), by_columns, element_bytes=4).ways
    32
    >>> conflicts(ly.Layout("HW", H=32, W=32, pitch={"H": 33}), by_columns, element_bytes=4).ways
    1
    >>> conflicts(ly.Layout("HW", H=32, W=32, pitch={"H": 33}), by_columns.with_width(8), element_bytes=4)
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: width_bytes=8 is not allowed by this shared layout: thread 1's values 0..1 (elements [1, 33]) are at offsets [33, 34], not 2 consecutive offsets aligned to 8 bytes; the widest this layout allows for this access is 4 bytes

    Every warp of a Triton encoding is read; warps 2 and 3 of this one allow only 4-byte requests:

    >>> from layouts.linear import triton as tt
    >>> four_warps = Access((tt.BlockedLayout([4, 1], [32, 1], [2, 2], [0, 1]), (16, 16)))
    >>> r = conflicts((tt.SwizzledSharedLayout(1, 1, 2, [0, 1]), (16, 16)), four_warps, element_bytes=4)
    >>> r.vector_bytes, [w.wavefronts for w in r.warps]
    (4, [32, 32, 32, 32])
    """
    banks = _positive_int("banks", banks)
    bank_bytes = _positive_int("bank_bytes", bank_bytes, power_of_two=True)
    mem = memory_of(shared_layout, shape)
    element_bytes = stated_element_bytes(mem, element_bytes)
    if mem.cosize * element_bytes >= 1 << 62:
        raise LayoutError(f"shared_layout {mem.describe()} reaches offset {mem.cosize - 1}: byte addresses past 2**62 "
                          f"are no shared memory")
    first, width, per_phase, what = resolve(mem, acc, element_bytes)
    offsets = mem.offsets
    # warps that hold the same thread map (a layout that broadcasts over warps) are counted once
    distinct: dict = {}
    which = [distinct.setdefault((values.shape, values.tobytes()), (len(distinct), values))[0]
             for values in warp_values(acc, first)]
    warps = tuple(values for _, values in distinct.values())
    if isinstance(acc, Access) and acc.order == "triton":
        warps = tuple(triton_order(values, offsets, element_bytes) for values in warps)
    vector = min(widest(offsets, values, element_bytes) for values in warps)
    checked = width is None              # the widest every warp allows: each warp's requests of it were checked
    if width is None:
        width = vector
        per_phase = threads_per_phase(width)
    if width < element_bytes:
        raise LayoutError(f"width_bytes={width} is narrower than one {element_bytes}-byte element")
    if not checked:
        for number, index in enumerate(which):
            check_requests(offsets, warps[index], width, element_bytes, vector,
                           what if len(which) == 1 else f"{what} (warp {number})")
    counted = [count(offsets, values, width, element_bytes, per_phase, banks, bank_bytes) for values in warps]
    results = [Conflicts(mem, acc, counted[index], width, vector, element_bytes, banks, bank_bytes) for index in which]
    first_warp = acc.warp if isinstance(acc, Access) and acc.warp is not None else 0
    for number, result in enumerate(results):
        result.warp, result.warps = first_warp + number, tuple(results)
    return max(results, key=lambda r: (r.wavefronts, r.ways, -r.warp))

