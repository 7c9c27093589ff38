"""What a ``convert_layout`` costs: :func:`layout_conversion` and the :class:`ConversionPlan` it returns.

A conversion moves every element of a tensor from where a source distributed layout keeps it
(``register, lane, warp -> element``) to where a destination layout wants it. Composing the
destination with the inverse of the source says, for every destination slot, which source slot
holds its element (the Linear Layouts paper, arXiv 2505.23819, section 5.4). What that map keeps
fixed decides the path:

* the identity everywhere: nothing to do (``"none"``);
* lanes and warps fixed, registers permuted: each thread renames its registers (``"registers"``);
* warps fixed, lanes moved: values travel between the lanes of a warp (``"warp shuffle"``);
* a warp moved: the tile goes through shared memory (``"shared memory"``), stored in the
  source layout and loaded in the destination layout through the shared layout that
  :func:`~layouts.smem.best_swizzle` finds best for both.

Triton 3.9 refines the rule where its code generator has a choice (:func:`path_of`): it shuffles
only when at most one bit trades between registers and lanes each way, and lets a warp bit the
source broadcasts move to a lane; both were read off the PTX the triton wheel generates.

>>> from layouts import smem
>>> from layouts.linear import triton as tt
>>> rows = tt.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
>>> cols = tt.BlockedLayout([4, 1], [4, 8], [1, 4], [0, 1])
>>> smem.layout_conversion(rows, rows, (64, 64)).path
'none'
>>> plan = smem.layout_conversion(rows, cols, (64, 64), element_bytes=2)
>>> plan.path, plan.scratch_bytes, plan.load_instruction.startswith(("ld.shared", "ldmatrix"))
('shared memory', 8192, True)
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, List, Optional, Sequence, Tuple

from ..errors import LayoutError, LayoutTypeError, type_name
from ..hooks import service

__all__ = ["ConversionPlan", "layout_conversion", "conversion_map", "path_of", "lane_exchanges", "warps_stay",
           "stays_within", "instruction_name", "PATHS"]

#: The paths a conversion can take, cheapest first.
PATHS = ("none", "registers", "warp shuffle", "shared memory")

#: The hardware in-dims of a distributed layout, slowest last.
HARDWARE = ("register", "lane", "warp", "block")


class ConversionPlan:
    """How a conversion from ``src`` to ``dst`` runs and what it costs.

    Attributes
    ----------
    path : str
        ``"none"``, ``"registers"``, ``"warp shuffle"`` or ``"shared memory"``.
    src, dst : LinearLayout
        Both layouts as linear layouts (in-dims ``register, lane, warp, block``).
    moved : LinearLayout
        For each destination slot, the source slot that holds its element, with the hardware
        dims that stay fixed divided out (its in-dims say what moves).
    shared : LinearLayout or None
        Through shared memory: the shared layout chosen, offset -> element (in-dim ``offset``).
    store, load : Conflicts or None
        Through shared memory: the bank conflicts of writing the source and reading the
        destination (the worst warp of each), with ``instruction`` the name of each side's
        instruction.
    scratch_bytes : int
        The shared memory the plan's shared layout spans: the whole tile (0 off the shared path).
        Triton's code may store the tile in ``2**k`` rounds (over register bits both layouts hold)
        and reserve ``scratch_bytes / 2**k``; the wavefronts are the same elements either way.
    """

    def __init__(self, path: str, src: Any, dst: Any, shape: Tuple[int, ...], element_bytes: int, num_warps: int,
                 moved: Any) -> None:
        self.path, self.src, self.dst, self.shape = path, src, dst, shape
        self.element_bytes, self.num_warps, self.moved = element_bytes, num_warps, moved
        self.best: Any = None
        self.shared: Any = None
        self.store: Any = None
        self.load: Any = None
        self.scratch_bytes = 0

    @property
    def cute(self) -> Any:
        """The shared layout in CuTe's spelling (``Swizzle o Layout``), or None."""
        return None if self.best is None else self.best.cute

    @property
    def triton(self) -> Any:
        """The shared layout as a Triton shared encoding, or None where none spells it."""
        return None if self.best is None else self.best.triton

    @property
    def wavefronts(self) -> int:
        """Shared-memory wavefronts of one warp (the worst), store and load together; 0 off shared memory."""
        if self.store is None or self.load is None:
            return 0
        return int(self.store.wavefronts + self.load.wavefronts)

    def explain(self) -> str:
        """The plan in words: the path and why, and through shared memory what each side costs.

        >>> from layouts.linear import triton as tt
        >>> a = tt.BlockedLayout([1, 1], [32, 1], [1, 1], [1, 0])
        >>> b = tt.BlockedLayout([1, 1], [16, 2], [1, 1], [1, 0])
        >>> print(layout_conversion(a, b, (32, 32)).explain().splitlines()[0])
        convert_layout of a 32x32 tensor of 2-byte elements, 1 warp: by warp shuffles.
        """
        tile = "x".join(map(str, self.shape))
        head = (f"convert_layout of a {tile} tensor of {self.element_bytes}-byte elements, {self.num_warps} warp"
                f"{'s' if self.num_warps != 1 else ''}: ")
        moving = [d for d in HARDWARE if d in self.moved.in_dims]
        if self.path == "none":
            return head + "nothing to do.\nBoth layouts put every element in the same register of the same thread."
        if self.path == "registers":
            return head + ("in registers.\nEvery thread already holds the elements it needs; only their register "
                           "order changes, which costs no instruction at run time.")
        if self.path == "warp shuffle":
            return head + ("by warp shuffles.\nElements move between the lanes of a warp but never between warps, "
                           "so shfl.sync exchanges them without shared memory.")
        from_registers, from_lanes = lane_exchanges(self.moved)
        if "warp" in moving and not warps_stay(self.moved, self.src):
            why = "elements move between warps"
            if stays_within(self.src, self.dst, ["register", "lane"]):
                why += (": every warp holds copies of the elements it needs, but the map names another warp's copy, "
                        "and Triton 3.9 reads it there")
        else:
            why = (f"elements stay in their warp, but {from_registers} lane bit(s) take their element from a register "
                   f"and {from_lanes} register bit(s) from a lane; Triton 3.9 shuffles only when each is at most 1")
        lines = [head + f"through shared memory ({why}).",
                 f"Shared layout: {self._layout_text()}; {self.scratch_bytes} bytes of scratch for the whole tile "
                 f"(Triton's code may reserve a half, a quarter ... and store the tile in as many rounds).",
                 f"Store ({self.store_instruction}): {self._side(self.store)}",
                 f"Load ({self.load_instruction}): {self._side(self.load)}",
                 f"Together {self.wavefronts} wavefronts per warp, {self.store.ideal + self.load.ideal} at best."]
        return "\n".join(lines)

    def draw(self, side: str = "store", phase: Optional[int] = None) -> Any:
        """The shared tile coloured by bank with one phase of the store or the load marked
        (:func:`layouts.viz.draw_banks`; the worst phase unless ``phase`` is given).

        >>> from layouts.linear import triton as tt
        >>> plan = layout_conversion(tt.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]),
        ...                          tt.NVMMADistributedLayout([2, 0], [4, 1], [16, 8]), (64, 64))
        >>> figure = plan.draw("load")      # doctest: +SKIP
        """
        if side not in ("store", "load"):
            raise LayoutError(f"side must be 'store' or 'load', got {side!r}")
        if self.best is None:
            raise LayoutError(f"a conversion by {self.path} uses no shared memory: there is nothing to draw")
        draw_banks = service("draw_banks")       # layouts.viz.draw_banks: viz lies above smem
        result = self.store if side == "store" else self.load
        name = self.store_instruction if side == "store" else self.load_instruction
        return draw_banks(self.best.memory, result.access, element_bytes=self.element_bytes, phase=phase,
                          title=f"convert_layout, the {side} ({name})")

    @property
    def store_instruction(self) -> Optional[str]:
        """The store's instruction, e.g. ``st.shared.v4.b32`` or ``stmatrix.x4``."""
        return None if self.store is None else instruction_name(self.store, store=True)

    @property
    def load_instruction(self) -> Optional[str]:
        """The load's instruction, e.g. ``ld.shared.v2.b32`` or ``ldmatrix.x4.trans``."""
        return None if self.load is None else instruction_name(self.load, store=False)

    def _layout_text(self) -> str:
        if self.triton is not None:
            return repr(self.triton)
        if self.cute is not None:
            return str(self.cute)
        return "an XOR layout, offset bits -> elements " + str(list(self.shared.bases["offset"]))

    @staticmethod
    def _side(c: Any) -> str:
        state = "conflict-free" if c.conflict_free else f"{c.ways}-way bank conflicts"
        return (f"{c.width_bytes}-byte vectors, {c.wavefronts} wavefronts where {c.ideal} is ideal ({state}"
                f"{', warp ' + str(c.warp) + ' the worst' if len(c.warps) > 1 and not c.conflict_free else ''}).")

    def __repr__(self) -> str:
        extra = ""
        if self.path == "shared memory":
            extra = (f", {self.store_instruction} + {self.load_instruction}, {self.wavefronts} wavefronts, "
                     f"{self.scratch_bytes} B")
        return f"ConversionPlan({self.path}{extra})"


def instruction_name(result: Any, store: bool) -> str:
    """The PTX instruction of one side: a matrix instruction's own name, else
    ``st.shared``/``ld.shared`` with Triton's vector spelling (4-byte words, ``.v2``/``.v4``).

    >>> class Side:
    ...     access, width_bytes = None, 16
    >>> instruction_name(Side(), store=True)
    'st.shared.v4.b32'
    """
    from .instructions import MatrixInstruction
    if isinstance(result.access, MatrixInstruction):
        return str(result.access.name)
    op = "st.shared" if store else "ld.shared"
    width = int(result.width_bytes)
    if width <= 4:
        return f"{op}.b{8 * width}"
    return f"{op}.v{width // 4}.b32"


# ------------------------------------------------------------------ reading the arguments
def _distributed(name: str, layout: Any, shape: Any) -> Tuple[Any, Tuple[int, ...]]:
    """``(linear layout with in-dims register, lane, warp, block; shape)`` of one argument."""
    from ..linear.layout import LinearLayout
    if isinstance(layout, tuple) and len(layout) == 2 and not isinstance(layout[0], (int, LinearLayout)):
        layout, shape = layout
    if isinstance(layout, LinearLayout):
        linear = layout
    else:
        try:
            from ..linear import triton as tt
        except ImportError:                      # pragma: no cover - the package ships it
            raise LayoutError(f"{name}: Triton encodings need layouts.linear.triton") from None
        if not isinstance(layout, tt.Encoding):
            raise LayoutTypeError(f"{name} must be a Triton distributed encoding (with its shape) or a LinearLayout "
                                  f"with in-dims register, lane, warp; got {type_name(layout)}")
        if not isinstance(layout, tt.DistributedEncoding):
            raise LayoutTypeError(f"{name}: {layout!r} is a shared encoding; a conversion is between distributed ones")
        if shape is None:
            raise LayoutError(f"{name}: a Triton encoding needs the tensor's shape (shape=...)")
        linear = tt.to_linear_layout(layout, list(shape))
    extra = [d for d in linear.in_dims if d not in HARDWARE]
    if extra or "lane" not in linear.in_dims:
        raise LayoutError(f"{name}: a distributed layout has in-dims register, lane, warp (block); this one has "
                          f"{list(linear.in_dims)}")
    dims = list(linear.out_dims)
    if dims != [f"dim{i}" for i in range(len(dims))]:
        raise LayoutError(f"{name}: the out-dims must be dim0, dim1, ...; got {dims}")
    return _hardware_order(linear), tuple(int(s) for s in linear.out_dims.values())


def _hardware_order(linear: Any) -> Any:
    """The layout with every hardware in-dim present, in the order register, lane, warp, block."""
    from ..linear.layout import LinearLayout
    bases = {d: [list(b) for b in linear.bases.get(d, ())] for d in HARDWARE}
    return LinearLayout.from_bases(bases, linear.out_dims, require_surjective=False)


def conversion_map(src: Any, dst: Any) -> Any:
    """For each destination slot, the source slot holding its element, with the hardware dims
    that stay fixed divided out; its in-dims say what moves (none, ``register``, ``register,
    lane``, or also ``warp``).

    The map is ``src^-1 o dst`` (``dst.invert_and_compose(src)``: the smallest preimage where
    ``src`` holds an element twice), except that a hardware bit both layouts broadcast (a zero
    basis at the same place in both) maps to itself: nothing moves along it. Then ``block``,
    ``warp`` and ``lane`` are divided out, slowest first, while the map is the identity on the
    dim and mixes it with nothing else (the Linear Layouts paper, section 5.4).

    >>> from layouts.linear import LinearLayout
    >>> a = LinearLayout.from_bases({"register": [[1]], "lane": [[2], [4], [8], [16], [32]]}, {"dim0": 64})
    >>> b = LinearLayout.from_bases({"register": [[32]], "lane": [[2], [4], [8], [16], [1]]}, {"dim0": 64})
    >>> list(conversion_map(_hardware_order(a), _hardware_order(b)).in_dims)
    ['register', 'lane']
    """
    moved = _keep_shared_broadcasts(dst.invert_and_compose(src), src, dst)
    for dim in reversed(HARDWARE):
        rest = moved.quotient([dim])
        if rest is None:
            break
        moved = rest
    return moved


def _keep_shared_broadcasts(moved: Any, src: Any, dst: Any) -> Any:
    """``moved`` with each hardware bit that both layouts broadcast mapped to itself."""
    from ..linear.layout import LinearLayout
    bases = {d: [list(b) for b in moved.bases.get(d, ())] for d in moved.in_dims}
    names = list(moved.out_dims)
    for dim in HARDWARE:
        src_rows = src.bases.get(dim, ())
        for i, row in enumerate(dst.bases.get(dim, ())):
            if i < len(src_rows) and not any(row) and not any(src_rows[i]):
                bases[dim][i] = [1 << i if name == dim else 0 for name in names]
    return LinearLayout.from_bases(bases, moved.out_dims, require_surjective=False)


def lane_exchanges(moved: Any) -> Tuple[int, int]:
    """``(lane bits that take their element from a register bit, register bits that take theirs
    from a lane bit)`` of a conversion map: how many bits a shuffle has to trade between the
    register and the lane index. Triton 3.9 shuffles when each is at most 1 (observed on its
    generated code); otherwise it goes through shared memory."""
    names = list(moved.out_dims)
    lane = names.index("lane") if "lane" in names else None
    register = names.index("register") if "register" in names else None
    from_registers = sum(1 for row in moved.bases.get("lane", ()) if register is not None and row[register])
    from_lanes = sum(1 for row in moved.bases.get("register", ()) if lane is not None and row[lane])
    return from_registers, from_lanes


def warps_stay(moved: Any, src: Any) -> bool:
    """Does every warp find its elements in its own warp's lanes? True when each warp bit of the
    map is the identity or, where the source broadcasts that warp bit (every warp along it
    holds the same elements), lands on a lane bit alone. (Where such a bit lands on a register,
    Triton 3.9 goes through shared memory, as its generated code shows.)"""
    names = list(moved.out_dims)
    if "warp" not in moved.in_dims:
        return True
    src_warps = src.bases.get("warp", ())
    for k, row in enumerate(moved.bases["warp"]):
        if list(row) == [1 << k if name == "warp" else 0 for name in names]:
            continue
        on_lane_only = "lane" in names and row[names.index("lane")] and not any(
            v for j, v in enumerate(row) if names[j] != "lane")
        if not (on_lane_only and k < len(src_warps) and not any(src_warps[k])):
            return False
    return True


def _packed(layout: Any, dim: str) -> List[int]:
    """The bases of ``dim`` as element indices (dim0 fastest), so XOR of bases is XOR of indices."""
    shifts, shift = [], 0
    for size in layout.out_dims.values():
        shifts.append(shift)
        shift += int(size).bit_length() - 1
    return [sum(int(c) << s for c, s in zip(row, shifts)) for row in layout.bases.get(dim, ())]


def stays_within(src: Any, dst: Any, dims: Sequence[str]) -> bool:
    """Does every hardware unit named by the dims *not* in ``dims`` (e.g. each warp, for ``dims =
    (register, lane)``) find every element ``dst`` gives it among those ``src`` gives it?

    Over GF(2) a unit's elements are a coset ``u + span(inner)``, with ``inner`` the bases of
    ``dims``: the conversion stays inside every unit iff ``dst``'s inner span lies in ``src``'s
    and, for each outer basis, ``dst``'s and ``src``'s differ by an element of ``src``'s inner span.

    >>> from layouts.linear import LinearLayout
    >>> a = LinearLayout.from_bases({"register": [[1]], "lane": [[2], [4], [8], [16], [32]]}, {"dim0": 64})
    >>> b = LinearLayout.from_bases({"register": [[32]], "lane": [[2], [4], [8], [16], [1]]}, {"dim0": 64})
    >>> stays_within(a, b, ["register"]), stays_within(a, b, ["register", "lane"])
    (False, True)
    """
    from ..linear import gf2
    inner = gf2.eliminate(v for d in dims for v in _packed(src, d))
    if any(inner.solve(v) is None for d in dims for v in _packed(dst, d)):
        return False
    outer = [d for d in HARDWARE if d not in dims]
    return all(inner.solve(a ^ b) is not None for d in outer for a, b in zip(_packed(src, d), _packed(dst, d)))


def path_of(src: Any, dst: Any) -> str:
    """The path Triton 3.9 takes for a conversion, from :func:`conversion_map`: ``"none"`` when
    nothing moves, ``"registers"`` when only registers do, ``"warp shuffle"`` when every warp
    finds its elements in its own lanes (:func:`warps_stay`) and at most one bit each way trades
    between registers and lanes (:func:`lane_exchanges`), else ``"shared memory"``.

    >>> from layouts.linear import LinearLayout
    >>> a = _hardware_order(LinearLayout.from_bases({"register": [[1]], "lane": [[2], [4], [8], [16], [32]]}, {"dim0": 64}))
    >>> b = _hardware_order(LinearLayout.from_bases({"register": [[32]], "lane": [[2], [4], [8], [16], [1]]}, {"dim0": 64}))
    >>> path_of(a, a), path_of(a, b)
    ('none', 'warp shuffle')
    """
    return _path(conversion_map(src, dst), src)


def _path(moved: Any, src: Any) -> str:
    dims = set(moved.in_dims)
    if "block" in dims or not warps_stay(moved, src):
        return "shared memory"
    if "lane" in dims or "warp" in dims:
        return "warp shuffle" if max(lane_exchanges(moved)) <= 1 else "shared memory"
    return "registers" if "register" in dims else "none"


def _element_bytes_arg(element_bytes: Any) -> int:
    from .conflicts import _element_bytes
    return 2 if element_bytes is None else _element_bytes(element_bytes)


def layout_conversion(src: Any, dst: Any, shape: Any = None, *, element_bytes: Optional[int] = None,
                      num_warps: Optional[int] = None, capability: Optional[int] = None) -> ConversionPlan:
    """The plan a ``convert_layout`` from ``src`` to ``dst`` takes, and its cost.

    The path follows from :func:`conversion_map` (what the conversion moves: registers, lanes,
    warps), as Triton 3.9 decides it (checked against the code the triton wheel generates). Through
    shared memory, the plan stores the source and loads the destination through the shared layout
    :func:`~layouts.smem.best_swizzle` finds for both sides, each side read in Triton's register
    order (``Access(..., order="triton")``: repeated registers dropped, vectors gathered).

    Parameters
    ----------
    src, dst
        Distributed layouts: Triton encodings of :mod:`layouts.linear.triton` (with ``shape``,
        or each as ``(encoding, shape)``), or linear layouts with in-dims ``register, lane, warp``
        (and ``block``) and out-dims ``dim0, dim1, ...``.
    shape : tuple of ints, optional
        The tensor's shape (for Triton encodings).
    element_bytes : int, optional
        Bytes per element: 1, 2, 4, 8 or 16 (default 2). Only the shared path's cost depends on it.
    num_warps : int, optional
        A check: the warps both layouts must have.
    capability : int, optional
        The GPU's compute capability (80 for sm_80, 90 for sm_90): ``stmatrix`` needs 90 or more,
        ``ldmatrix`` 75. Default: any instruction (sm_90).

    Examples
    --------
    >>> from layouts.linear import triton as tt
    >>> mma = tt.NVMMADistributedLayout([2, 0], [4, 1], [16, 8])
    >>> layout_conversion(mma, tt.DotOperandLayout(0, mma, 2), (64, 64)).path   # the same layout
    'none'
    >>> plan = layout_conversion(tt.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]), mma, (64, 64), element_bytes=1)
    >>> plan.path, plan.scratch_bytes, plan.wavefronts >= plan.store.ideal + plan.load.ideal
    ('shared memory', 4096, True)
    """
    src_linear, src_shape = _distributed("src", src, shape)
    dst_linear, dst_shape = _distributed("dst", dst, shape)
    if src_shape != dst_shape:
        raise LayoutError(f"src covers a tensor of shape {src_shape}, dst one of shape {dst_shape}")
    for dim in ("lane", "warp", "block"):
        if src_linear.in_dim_size(dim) != dst_linear.in_dim_size(dim):
            raise LayoutError(f"src has {src_linear.in_dim_size(dim)} {dim}s, dst {dst_linear.in_dim_size(dim)}: "
                              f"a conversion keeps the same threads")
    warps = src_linear.in_dim_size("warp")
    if num_warps is not None and num_warps != warps:
        raise LayoutError(f"num_warps={num_warps}, but the layouts have {warps} warps")
    eb = _element_bytes_arg(element_bytes)
    moved = conversion_map(src_linear, dst_linear)
    plan = ConversionPlan(_path(moved, src_linear), src_linear, dst_linear, src_shape, eb, warps, moved)
    if plan.path == "shared memory":
        _through_shared_memory(plan, capability)
    return plan


def _through_shared_memory(plan: ConversionPlan, capability: Optional[int]) -> None:
    matrix = None
    if capability is not None and capability < 90:      # stmatrix arrived with sm_90, ldmatrix with sm_75
        matrix = ("ldmatrix",) if capability >= 75 else ()
    best = _best_shared_layout(plan.src, plan.dst, plan.shape, plan.element_bytes, matrix)
    plan.best = best
    plan.shared = best.linear
    plan.load, plan.store = best.conflicts[0], best.conflicts[1]
    total = 1
    for s in plan.shape:
        total *= s
    plan.scratch_bytes = total * plan.element_bytes


@lru_cache(maxsize=256)     # layouts are immutable values: an autotuner asking again gets the same search
def _best_shared_layout(src: Any, dst: Any, shape: Tuple[int, ...], element_bytes: int,
                        matrix: Optional[Tuple[str, ...]]) -> Any:
    """best_swizzle's layout for storing ``src`` and loading ``dst``, both in Triton's order."""
    from .access import Access
    from .best_swizzle import best_swizzle
    options: dict[str, Any] = {} if matrix is None else {"matrix": matrix}
    return best_swizzle(reads=[Access(dst, order="triton")], writes=[Access(src, order="triton")], shape=shape,
                        element_bytes=element_bytes, **options)
