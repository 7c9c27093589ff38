"""Who touches which element of a tile: one warp's thread map and the width of each request.

A thread map is read into one array, ``values[thread, k]``: the flat (colexicographic) index of
the tile element that ``thread`` holds as its ``k``-th value, for the 32 threads of a warp. It
comes from a CuTe TV layout (domain ``(thread, value)``, value = the element's index in the tile),
a linear layout with ``lane`` and ``register`` in-dims (``warp`` and ``block`` fixed at one
index) and the tile's modes as out-dims, a Triton distributed encoding with its shape, or the
array itself.

>>> from layouts import cute
>>> acc = Access(threads=cute.Layout((32, 32), (32, 1)), width_bytes=4)   # thread t: column t of 32x32
>>> acc.values_of(1)[:3], acc.values_per_thread
((32, 33, 34), 32)
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ..cute.int_tuple import is_int
from ..errors import LayoutError, LayoutTypeError, type_name
from .instructions import VectorInstruction, check_width

__all__ = ["Access", "WARP"]

#: Threads in a warp: every thread map has this many.
WARP = 32


class Access:
    """One warp's access to a shared tile: its thread map and the width of each request.

    Each thread reads its values in the order the thread map lists them, ``width_bytes`` at a time:
    every group of ``width_bytes / element_bytes`` values that follow each other in that order is one
    request, and must lie at consecutive offsets aligned to the width (else a LayoutError names the
    thread that breaks it); without a width, the widest that every group allows is counted. Triton's
    code generator may instead reorder a thread's registers to vectorise, so a Triton layout read
    here can show conflicts Triton's own count (which reorders) does not.

    Parameters
    ----------
    threads
        Who holds what: a CuTe TV layout ``((32, ...), (values, ...))`` whose value is the
        element's flat index in the tile (colexicographic over the tile's shape); a
        :class:`layouts.linear.LinearLayout` with in-dims ``lane`` (32) and ``register`` (and
        ``warp``/``block``, fixed at ``warp``) and out-dims ``dim0, dim1, ...``; a Triton
        distributed encoding of :mod:`layouts.linear.triton` as ``(encoding, shape)``; or an int
        array of shape ``(32, values)``.
    width_bytes : int or instruction, optional
        The bytes one request moves per thread: 1, 2, 4, 8 or 16 (``smem.lds(16)`` and
        ``smem.sts(16)`` say it with a direction). ``None``: as wide as the shared layout allows.
    shape : tuple of ints, optional
        The tensor shape of a Triton encoding given alone.
    order : {"registers", "triton"}
        The order a thread's values are requested in. ``"registers"`` (default): register order,
        as the thread map lists them. ``"triton"``: as Triton's generated code takes them (linear
        thread maps and Triton encodings only): registers that hold a copy of another's element are
        dropped, and the registers whose elements the shared layout puts at offsets 1, 2, 4, ...
        from a thread's first come first, so they form one vector (at most 16 bytes).
    warp : int, optional
        Which warp of a thread map that holds several (a linear layout's ``warp`` in-dim, block 0;
        a CuTe TV layout's threads ``32 * warp .. 32 * warp + 31``). ``None``: every warp, and
        :func:`~layouts.smem.conflicts` reports the worst (``warps`` holds each one's thread map).

    Examples
    --------
    >>> import numpy as np
    >>> acc = Access(np.arange(64).reshape(32, 2), width_bytes=8)
    >>> acc.values_of(31), acc.width_bytes, acc.op
    ((62, 63), 8, 'access')
    >>> Access(np.arange(64).reshape(16, 4), 4)
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: threads: a thread map covers one warp of 32 threads; this array has 16 rows
    >>> from layouts.linear import triton as tt
    >>> four_warps = Access((tt.BlockedLayout([4, 1], [32, 1], [2, 2], [0, 1]), (16, 16)))
    >>> len(four_warps.warps), four_warps.warp, four_warps.values_of(0)[:4]
    (4, None, (0, 1, 2, 3))

    In Triton's order, a thread's registers are regrouped into the shared layout's vectors: here
    the two registers along ``dim1`` (elements 0 and 64 of a 64 x 64 tile) are 64 bytes apart in
    an unswizzled ``NVMMASharedLayout``, the two along ``dim0`` adjacent, so Triton stores pairs
    along ``dim0`` and only 8 threads share a bank instead of 32:

    >>> from layouts import smem
    >>> blocked = (tt.BlockedLayout([2, 2], [32, 1], [4, 1], [1, 0]), (64, 64))
    >>> shared = (tt.NVMMASharedLayout(0, 8), (64, 64))
    >>> [smem.conflicts(shared, Access(blocked, order=o)).ways for o in ("registers", "triton")]
    [32, 8]
    """

    __slots__ = ("values", "warps", "warp", "width_bytes", "op", "shape", "source", "order")

    def __init__(self, threads: Any, width_bytes: Any = None, *, shape: Any = None, warp: Any = None,
                 order: str = "registers") -> None:
        op = "access"
        if isinstance(width_bytes, VectorInstruction):
            op, width_bytes = width_bytes.op, width_bytes.width_bytes
        elif width_bytes is not None:
            width_bytes = check_width(width_bytes)
        if warp is not None and (not is_int(warp) or warp < 0):
            raise LayoutError(f"warp must be an int >= 0, got {type_name(warp)}")
        if order not in ("registers", "triton"):
            raise LayoutError(f"order must be 'registers' or 'triton', got {order!r}")
        if order == "triton" and not _is_linear_map(threads):
            raise LayoutTypeError(f"order='triton' reorders a thread's registers: give a linear layout or a Triton "
                                  f"encoding with its shape, not {type_name(threads)}")
        warps, tile = _thread_maps(threads, shape, None if warp is None else int(warp))
        if warps[0].shape[1] == 0:
            raise LayoutError("threads: this thread map gives the threads no values; each thread holds at least one")
        for values in warps:
            values.setflags(write=False)
        self.values: np.ndarray = warps[0]
        self.warps: Tuple[np.ndarray, ...] = tuple(warps)
        self.warp: Optional[int] = None if warp is None else int(warp)
        self.order = order
        self.width_bytes: Optional[int] = width_bytes
        self.op = op
        self.shape: Optional[Tuple[int, ...]] = tile
        self.source = threads

    @property
    def values_per_thread(self) -> int:
        return int(self.values.shape[1])

    def values_of(self, thread: int) -> Tuple[int, ...]:
        """The flat element indices that ``thread`` holds, in value order.

        >>> import numpy as np
        >>> Access(np.arange(64).reshape(32, 2), 8).values_of(3)
        (6, 7)
        """
        if not is_int(thread) or not 0 <= thread < WARP:
            raise LayoutError(f"thread must be an int in 0..{WARP - 1}, got {type_name(thread)}")
        return tuple(int(v) for v in self.values[int(thread)] if v >= 0)

    def with_width(self, width_bytes: Any) -> "Access":
        """The same thread map, requests of another width.

        >>> import numpy as np
        >>> Access(np.arange(32).reshape(32, 1), 4).with_width(2).width_bytes
        2
        """
        out = object.__new__(Access)
        out.values, out.shape, out.source, out.op = self.values, self.shape, self.source, self.op
        out.warps, out.warp, out.order = self.warps, self.warp, self.order
        out.width_bytes = None if width_bytes is None else check_width(width_bytes)
        return out

    def __repr__(self) -> str:
        width = "widest" if self.width_bytes is None else f"{self.width_bytes} B"
        return f"Access({self.op}, {self.values_per_thread} values per thread, {width} requests)"


def _thread_maps(threads: Any, shape: Any, warp: Optional[int]) -> Tuple[list, Optional[Tuple[int, ...]]]:
    """The thread map of each warp asked for (``warp``, or every warp the map holds) and the tile."""
    from ..cute.layout import Layout as CuteLayout
    from ..linear.layout import LinearLayout
    if isinstance(threads, tuple) and len(threads) == 2 and _is_triton(threads[0]):
        threads, shape = threads
    if _is_triton(threads):
        threads, shape = _triton_linear_map(threads, shape)
    elif isinstance(threads, CuteLayout):
        return _cute_maps(threads, warp), None
    if isinstance(threads, LinearLayout):
        maps, sizes = _linear_maps(threads, _linear_warps(threads, warp))
        return maps, (shape if shape is not None else sizes)
    return [_array_map(threads, warp)], None


def _is_linear_map(threads: Any) -> bool:
    from ..linear.layout import LinearLayout
    if isinstance(threads, tuple) and len(threads) == 2 and _is_triton(threads[0]):
        return True
    return _is_triton(threads) or isinstance(threads, LinearLayout)


def triton_order(values: np.ndarray, offsets: np.ndarray, element_bytes: int) -> np.ndarray:
    """``values`` (a linear thread map, one warp) with each thread's values in Triton's order on a
    shared layout with these ``offsets``: registers that repeat an element dropped, then the
    registers at offsets 1, 2, 4, ... elements from the thread's first value (as far as 16 bytes
    allow) first, the others after them in register order.

    >>> import numpy as np
    >>> values = np.array([[0, 64, 1, 65]] * 32)    # 64 x 2 tile: registers along dim1 first, then dim0
    >>> triton_order(values, np.arange(128), 1)[0].tolist()          # dim0 contiguous in memory
    [0, 1, 64, 65]
    """
    count = values.shape[1]
    bits = count.bit_length() - 1
    bases = [int(values[0, 1 << k] ^ values[0, 0]) for k in range(bits)]
    kept = [k for k in range(bits) if bases[k]]
    start = int(offsets[values[0, 0]])
    vector: list = []
    while (element_bytes << (len(vector) + 1)) <= 16:
        want = 1 << len(vector)
        step = next((k for k in kept if k not in vector and int(offsets[values[0, 0] ^ bases[k]]) ^ start == want), None)
        if step is None:
            break
        vector.append(step)
    order = vector + [k for k in kept if k not in vector]
    return values[:, register_columns(order)]


def register_columns(order: Sequence[int]) -> List[int]:
    """The value index of each register of a reordered thread: register ``r`` (bit ``i`` of ``r``
    standing for the register bit ``order[i]``) is value ``sum of 2**order[i]``, built by doubling.

    >>> register_columns([1, 0])
    [0, 2, 1, 3]
    """
    columns = [0]
    for bit in order:
        columns += [c | 1 << bit for c in columns]
    return columns


def _array_map(threads: Any, warp: Optional[int]) -> np.ndarray:
    if isinstance(threads, np.ndarray) or (isinstance(threads, (list, tuple)) and threads
                                           and isinstance(threads[0], (list, tuple, np.ndarray))):
        try:
            arr = np.asarray(threads)
        except ValueError:            # ragged rows
            raise LayoutTypeError("threads: an array thread map is a 2-D int array (thread, value); these rows "
                                  "differ in length") from None
        if arr.dtype.kind not in "iu" or arr.ndim != 2:
            raise LayoutTypeError(f"threads: an array thread map is a 2-D int array (thread, value), got "
                                  f"{arr.ndim}-D {arr.dtype}")
        if arr.shape[0] != WARP:
            raise LayoutError(f"threads: a thread map covers one warp of {WARP} threads; this array has {arr.shape[0]} rows")
        if arr.size and arr.min() < 0:
            raise LayoutError(f"threads: element indices must be >= 0, got {int(arr.min())}")
        if arr.size and int(arr.max()) > np.iinfo(np.int64).max:     # uint64 would wrap negative
            raise LayoutError(f"threads: element index {int(arr.max())} is past any tile")
        if warp:
            raise LayoutError(f"warp {warp} is past the one warp of an array thread map")
        return arr.astype(np.int64)
    raise LayoutTypeError(f"threads must be a CuTe TV layout, a linear layout (lane, register -> dim0, dim1...), "
                          f"a Triton distributed encoding with its shape, or a (32, values) int array; "
                          f"got {type_name(threads)}")


def _is_triton(obj: Any) -> bool:
    from ..linear.triton import Encoding
    return isinstance(obj, Encoding)


def _cute_maps(tv: Any, warp: Optional[int]) -> list:
    if len(tv) > 2:
        raise LayoutError(f"threads: a TV layout has two modes, (thread, value); {tv} has {len(tv)}")
    threads = tv[0].size() if len(tv) == 2 else tv.size()
    if threads % WARP or not threads:
        raise LayoutError(f"threads: a TV layout's thread mode is whole warps of {WARP} threads; {tv} has {threads}")
    if warp is not None and warp >= threads // WARP:
        raise LayoutError(f"warp {warp} is past the {threads // WARP} warp(s) of TV layout {tv}")
    offs = tv.offsets()
    if offs.size and offs.min() < 0:
        raise LayoutError(f"threads: TV layout {tv} gives the negative element index {int(offs.min())}")
    by_thread = offs.reshape(-1, threads).T                  # index t + threads * v: the thread mode is the fastest
    warps = range(threads // WARP) if warp is None else [warp]
    return [by_thread[WARP * w: WARP * (w + 1)].copy() for w in warps]


def _linear_warps(layout: Any, warp: Optional[int]) -> range:
    count = layout.in_dims.get("warp", 1)
    if warp is None:
        return range(count)
    if warp >= count:
        raise LayoutError(f"warp {warp} is past the layout's {count} warps")
    return range(warp, warp + 1)


def _linear_maps(layout: Any, warps: Sequence[int]) -> Tuple[List[np.ndarray], Tuple[int, ...]]:
    """The thread map of each of ``warps`` (block 0) and the tile's modes: one application of
    the layout to every (register, lane, warp) asked for."""
    ins = layout.in_dims
    extra = [d for d in ins if d not in ("register", "lane", "warp", "block")]
    if extra:
        raise LayoutError(f"threads: a linear thread map has in-dims register, lane (warp, block); this one also "
                          f"has {extra}")
    if ins.get("lane", 1) != WARP:
        raise LayoutError(f"threads: a linear thread map has a lane in-dim of {WARP} lanes; this one has "
                          f"{ins.get('lane', 'none')}")
    regs = ins.get("register", 1)
    count = len(warps)
    lane = np.tile(np.repeat(np.arange(WARP, dtype=np.int64), regs), count)
    reg = np.tile(np.arange(regs, dtype=np.int64), WARP * count)
    coords = {"lane": lane}
    if "register" in ins:
        coords["register"] = reg
    if "warp" in ins:
        coords["warp"] = np.repeat(np.asarray(list(warps), dtype=np.int64), WARP * regs)
    out = layout.apply(coords)
    from ..linear.kind import tile_dims
    flat = np.zeros(lane.shape, dtype=np.int64)
    scale = 1
    sizes = []
    for name in tile_dims(layout.out_dim_names):
        size = layout.out_dims[name]
        flat += np.asarray(out[name], dtype=np.int64) * scale
        scale *= int(size)
        sizes.append(int(size))
    return [np.array(part) for part in flat.reshape(count, WARP, regs)], tuple(sizes)


def _triton_linear_map(encoding: Any, shape: Any) -> Tuple[Any, Tuple[int, ...]]:
    if shape is None:
        raise LayoutError(f"threads: a Triton encoding {encoding!r} needs its tensor shape: (encoding, shape)")
    from .memory import _triton_linear
    linear, shape = _triton_linear(
        encoding, shape, kind="DistributedEncoding",
        lacks="threads: a Triton encoding needs layouts.linear.triton, which this installation lacks",
        wrong_kind="threads: {!r} is a shared encoding; a thread map is a distributed one "
                   "(BlockedLayout, NVMMADistributedLayout, DotOperandLayout, SliceLayout)",
        where="threads:")
    return linear, shape
