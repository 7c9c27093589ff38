"""Distributed encodings, with Gluon's names: ``BlockedLayout`` (each thread a block of the
tensor), ``SliceLayout`` (a reduction's result) and ``DistributedLinearLayout`` (a register layout
given by its bases). Each layout is built from what Gluon's documentation says the encoding
means, with this package's algebra, and judged against the Triton 3.9.0 wheel by the oracle tests.

>>> from layouts.linear.triton import BlockedLayout, SliceLayout, to_linear_layout
>>> blocked = BlockedLayout([1, 4], [8, 4], [2, 1], [1, 0])
>>> to_linear_layout(blocked, [16, 16]).bases["lane"]
((0, 4), (0, 8), (1, 0), (2, 0), (4, 0))
>>> to_linear_layout(SliceLayout(1, blocked), [16]).bases["lane"]
((0,), (0,), (1,), (2,), (4,))
"""

from typing import Any, Dict, List, Tuple

from ..._args import log2
from ...errors import LayoutError, LayoutTypeError, type_name
from ..layout import LinearLayout
from ._base import (Encoding, _cga, _encoding, _int, _order, _pow2_list, _unit, combine_cta_cga, dim_names,
                    fit_to_shape)

IN_DIMS = ("register", "lane", "warp", "block")


class DistributedEncoding(Encoding):
    """A register layout: in-dims ``register, lane, warp, block`` -> ``dim0, dim1, ...``."""

    __slots__ = ()
    kind = "distributed"


class BlockedLayout(DistributedEncoding):
    """Each thread holds ``size_per_thread`` elements, a warp ``threads_per_warp`` threads, a CTA
    ``warps_per_cta`` warps, all filled along ``order`` (most minor dim first); ``cga_layout``
    lists block bases in CTA tiles (Gluon's spelling; None or [] for one CTA).

    >>> BlockedLayout([1, 2], [4, 8], [2, 2], [1, 0])
    BlockedLayout(size_per_thread=[1, 2], threads_per_warp=[4, 8], warps_per_cta=[2, 2], order=[1, 0], cga_layout=[])
    >>> BlockedLayout([1, 2], [4, 8], [2], [1, 0])
    Traceback (most recent call last):
    layouts.errors.LayoutError: warps_per_cta has 1 entries; expected 2 (the rank, from size_per_thread)
    """

    __slots__ = ("size_per_thread", "threads_per_warp", "warps_per_cta", "order", "cga_layout")
    _fields = __slots__

    def __init__(self, size_per_thread: Any, threads_per_warp: Any, warps_per_cta: Any, order: Any,
                 cga_layout: Any = None):
        spt = _pow2_list("size_per_thread", size_per_thread)
        rank = len(spt)
        if rank == 0:
            raise LayoutError("size_per_thread must have at least one entry (the rank)")
        why = ", from size_per_thread"
        self._init(size_per_thread=spt,
                   threads_per_warp=_pow2_list("threads_per_warp", threads_per_warp, rank, rank_from=why),
                   warps_per_cta=_pow2_list("warps_per_cta", warps_per_cta, rank, rank_from=why),
                   order=_order("order", order, rank, rank_from=why),
                   cga_layout=_cga(cga_layout, rank))

    @property
    def rank(self) -> int:
        return len(self.size_per_thread)

    def _cta_layout(self) -> LinearLayout:
        """One CTA's layout (Gluon: "partitioning a tensor across threads, warps, and CTAs"): in
        each dim a thread's ``size_per_thread`` elements are consecutive, the warp's threads
        follow one after another, then the CTA's warps; each of ``register``, ``lane``, ``warp``
        counts through its dims in ``order``, most minor first. Out-dims in ``order`` too, the
        order in which repeats are added (see :func:`fit_to_shape`).

        >>> BlockedLayout([2, 1], [2, 2], [1, 2], [0, 1])._cta_layout().bases
        {'register': ((1, 0),), 'lane': ((2, 0), (0, 1)), 'warp': ((0, 2),)}
        """
        spans = [1] * self.rank          # elements one CTA covers so far, per dim
        bases: Dict[str, List[List[int]]] = {}
        for level, counts in (("register", self.size_per_thread), ("lane", self.threads_per_warp),
                              ("warp", self.warps_per_cta)):
            bases[level] = [_unit(self.rank, k, spans[d] << bit)
                            for k, d in enumerate(self.order) for bit in range(log2(counts[d]))]
            spans = [s * c for s, c in zip(spans, counts)]
        names = dim_names(self.rank)
        return LinearLayout.from_bases(bases, {names[d]: spans[d] for d in self.order})

    def _linear(self, shape: Tuple[int, ...]) -> LinearLayout:
        """The CTA layout over the CGA, fitted to ``shape``: registers repeat along the dims in
        ``order`` where the tensor is larger; where it is smaller the registers that would hold
        copies are dropped (the Triton 3.9.0 wheel holds no duplicate registers for a blocked
        layout) and lanes and warps hold copies."""
        return combine_cta_cga(self._cta_layout(), self.cga_layout, shape, broadcast_registers=False)


class SliceLayout(DistributedEncoding):
    """The layout of ``parent`` with dim ``dim`` removed (a reduction's result): the tensor has one
    dim fewer; the threads that held the removed coordinates hold the same element.

    >>> parent = BlockedLayout([1, 1], [4, 8], [1, 1], [1, 0])
    >>> SliceLayout(2, parent)
    Traceback (most recent call last):
    layouts.errors.LayoutError: dim is 2; expected 0..1 (a dim of the parent, rank 2)
    """

    __slots__ = ("dim", "parent")
    _fields = __slots__

    def __init__(self, dim: Any, parent: Any):
        parent = _encoding("parent", parent, (DistributedEncoding,))
        dim = _int("dim", dim)
        if not 0 <= dim < parent.rank:
            raise LayoutError(f"dim is {dim}; expected 0..{parent.rank - 1} (a dim of the parent, rank {parent.rank})")
        if parent.rank < 2:
            raise LayoutError(f"parent has rank {parent.rank}; slicing needs rank >= 2 "
                              f"(a 1-D tensor reduces to a scalar)")
        self._init(dim=dim, parent=parent)

    @property
    def rank(self) -> int:
        return self.parent.rank - 1

    def _linear(self, shape: Tuple[int, ...]) -> LinearLayout:
        """The parent's layout on ``shape`` with a dim of size 1 put back at ``dim`` (each
        thread's values of the reduced dim collapse to one), that dim then removed from every
        basis. A register basis left all zero (it moved only along ``dim``, or was a copy
        already) is dropped: a thread keeps one register per distinct element, as the Triton
        3.9.0 wheel gives it; a lane, warp or block basis left zero stays, a broadcast.

        >>> parent = BlockedLayout([2, 2], [4, 8], [1, 1], [1, 0])
        >>> SliceLayout(1, parent)._linear((8,)).bases
        {'register': ((1,),), 'lane': ((0,), (0,), (0,), (2,), (4,)), 'warp': (), 'block': ()}
        """
        parent = self.parent._linear(shape[:self.dim] + (1,) + shape[self.dim:])
        kept = [parent.out_dim_index(n) for n in dim_names(self.parent.rank) if n != f"dim{self.dim}"]
        bases = {d: [[b[k] for k in kept] for b in rows] for d, rows in parent.bases.items()}
        if "register" in bases:
            bases["register"] = [b for b in bases["register"] if any(b)]
        return LinearLayout.from_bases(bases, dict(zip(dim_names(self.rank), shape)))


def _bases(name: str, value: Any, rank: int) -> Tuple[Tuple[int, ...], ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise LayoutTypeError(f"{name} must be a list of bases (lists of {rank} ints), got {type_name(value)}")
    return tuple(_pow2_list(f"{name}[{i}]", b, rank, pow2=False, rank_from=", from shape")
                 for i, b in enumerate(value))


class DistributedLinearLayout(DistributedEncoding):
    """A register layout given by its bases (Gluon's spelling of a linear encoding; what Gluon's
    ``to_linear_layout`` returns): ``reg_bases``, ``lane_bases``, ``warp_bases`` and
    ``block_bases`` map onto a tensor of ``shape``. For another shape it is repeated in
    registers or cut (registers dropped, lanes and warps broadcast), as the Triton 3.9.0 wheel
    gives it.

    >>> L = DistributedLinearLayout([[0, 1]], [[0, 2], [1, 0]], [], [], [2, 4])
    >>> L.to_linear_layout([4, 4]).bases["register"]
    ((0, 1), (2, 0))
    """

    __slots__ = ("reg_bases", "lane_bases", "warp_bases", "block_bases", "shape")
    _fields = __slots__

    def __init__(self, reg_bases: Any, lane_bases: Any, warp_bases: Any, block_bases: Any, shape: Any):
        shape = _pow2_list("shape", shape)
        if not shape:
            raise LayoutError("shape must have at least one entry (the rank)")
        rank = len(shape)
        parts = {n: _bases(n, v, rank) for n, v in (("reg_bases", reg_bases), ("lane_bases", lane_bases),
                                                     ("warp_bases", warp_bases), ("block_bases", block_bases))}
        self._init(shape=shape, **parts)
        seen = {}
        for field in ("reg_bases", "lane_bases", "warp_bases", "block_bases"):
            for i, b in enumerate(parts[field]):
                moved = [v for v in b if v]
                if len(moved) > 1 or (moved and moved[0] & (moved[0] - 1)):
                    raise LayoutError(f"{field}[{i}] = {list(b)}: each basis moves one power of two along one dim "
                                      f"(Triton wants a permutation matrix once zero bases are removed)")
                if moved and b in seen:
                    raise LayoutError(f"{field}[{i}] = {list(b)} repeats {seen[b]}; only zero bases may repeat")
                seen.setdefault(b, f"{field}[{i}]")
        try:
            self._own()
        except LayoutError as e:
            raise LayoutError(f"the bases do not make a layout onto shape {list(shape)}: {e}") from None

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def order(self) -> Tuple[int, ...]:
        """The dims, fastest first, as a thread's registers walk them: each dim in the order a
        register basis first moves along it, then the dims no register moves along, the last
        dim first (the order Triton 3.9.0 reports for a linear encoding).

        >>> DistributedLinearLayout([[0, 1, 0], [1, 0, 0]], [], [], [], [2, 2, 1]).order
        (1, 0, 2)
        """
        order = [b.index(next(v for v in b if v)) for b in self.reg_bases if any(b)]
        order += range(self.rank - 1, -1, -1)
        return tuple(dict.fromkeys(order))

    def _own(self) -> LinearLayout:
        bases = {d: [list(b) for b in getattr(self, f)] for d, f in zip(IN_DIMS, ("reg_bases", "lane_bases",
                                                                                  "warp_bases", "block_bases"))}
        return LinearLayout.from_bases(bases, dict(zip(dim_names(self.rank), self.shape)))

    def _linear(self, shape: Tuple[int, ...]) -> LinearLayout:
        """The bases as given, fitted to ``shape`` (:func:`fit_to_shape`, registers dropped rather
        than copied): repeats are added along the dims in :attr:`order`."""
        names = dim_names(self.rank)
        return fit_to_shape(self._own(), dict(zip(names, shape)), broadcast_registers=False,
                            repeat_order=[names[d] for d in self.order])
