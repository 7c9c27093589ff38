"""Distributed encodings: ``BlockedLayout`` and ``SliceLayout`` (Gluon's names), ported from
Triton 3.9.0's ``LinearLayoutConversions.cpp``, and ``DistributedLinearLayout`` (a register
layout given by its bases, as ``LinearEncodingAttr``).

>>> from layouts.linear.triton import BlockedLayout, SliceLayout, to_linear_layout
>>> blocked = BlockedLayout([1, 4], [8, 4], [2, 1], [1, 0])
>>> to_linear_layout(blocked, [16, 16]).bases["lane"]
((0, 4), (0, 8), (1, 0), (2, 0), (4, 0))
>>> to_linear_layout(SliceLayout(1, blocked), [16]).bases["lane"]
((0,), (0,), (1,), (2,), (4,))
"""

from typing import Any, Tuple

from ...errors import LayoutError, LayoutTypeError, type_name
from ..algebra import compose, multiply
from ..layout import LinearLayout
from ..reshape import transpose_outs
from ..utils import ensure_layout_not_larger_than, ensure_layout_not_smaller_than
from ._base import Encoding, _cga, _encoding, _int, _order, _pow2_list, combine_cta_cga, dim_names, identity_nd

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

    def _linear(self, shape: Tuple[int, ...]) -> LinearLayout:
        cta = multiply(multiply(identity_nd("register", self.size_per_thread, self.order),
                                identity_nd("lane", self.threads_per_warp, self.order)),
                       identity_nd("warp", self.warps_per_cta, self.order))
        # the 3.9.0 wheel drops a blocked layout's registers that fall outside the shape
        return combine_cta_cga(cta, self.cga_layout, shape, broadcast_registers=False)


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
        parent_shape = shape[:self.dim] + (1,) + shape[self.dim:]
        parent = self.parent._linear(parent_shape)
        names = dim_names(len(parent_shape))
        transform = LinearLayout.empty()
        for idx, out in enumerate(parent.out_dim_names):
            size = parent.out_dim_size(out)
            if idx == self.dim:     # all zeros: which slice out-dim it names does not matter
                transform = multiply(transform, LinearLayout.zeros_1d(size, out, names[0]))
            else:
                transform = multiply(transform, LinearLayout.identity_1d(
                    size, out, names[idx - (0 if idx < self.dim else 1)]))
        sliced = compose(parent, transform)
        bases = {d: [list(b) for b in rows] for d, rows in sliced.bases.items()}
        bases["register"] = [b for b in bases.get("register", []) if any(b)]
        return LinearLayout.from_bases(bases, sliced.out_dim_names)


def _bases(name: str, value: Any, rank: int) -> Tuple[Tuple[int, ...], ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise LayoutTypeError(f"{name} must be a list of bases (lists of {rank} ints), got {type_name(value)}")
    return tuple(_pow2_list(f"{name}[{i}]", b, rank, pow2=False, rank_from=", from shape")
                 for i, b in enumerate(value))


class DistributedLinearLayout(DistributedEncoding):
    """A register layout given by its bases (Gluon's spelling of a linear encoding; what Gluon's
    ``to_linear_layout`` returns): ``reg_bases``, ``lane_bases``, ``warp_bases`` and
    ``block_bases`` map onto a tensor of ``shape``. For another shape it is repeated in
    registers or cut (registers dropped, lanes and warps broadcast), as Triton does.

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
        """Triton's ``LinearEncodingAttr::getOrder``: the dims in the order the registers first
        move along them, then the others from the last dim down.

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
        names = dim_names(self.rank)
        want = dict(zip(names, shape))
        layout = transpose_outs(self._own(), [names[d] for d in self.order])    # grown in this order
        layout = ensure_layout_not_smaller_than(layout, want)
        layout = ensure_layout_not_larger_than(layout, want, broadcast_registers=False)
        return transpose_outs(layout, list(names))
