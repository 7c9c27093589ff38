"""The common ground of the encodings: argument checks that name the argument, the immutable
value-object base class, and the builders Triton's conversions share (``LayoutUtils.h``).

>>> _pow2_list("order", [1, 0], rank=2, pow2=False)
(1, 0)
>>> _pow2_list("warps_per_cta", [4, 3])
Traceback (most recent call last):
layouts.errors.LayoutError: warps_per_cta[1] must be a power of two, got 3
"""

from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np

from ..._args import int_arg, is_pow2
from ...errors import LayoutError, LayoutTypeError, show, type_name
from ..algebra import multiply
from ..layout import LinearLayout
from ..reshape import transpose_outs
from ..utils import ensure_layout_not_larger_than, ensure_layout_not_smaller_than

MAX_DIM = 1 << 30       # Triton keeps sizes in int32; a dim of 2**31 overflows its arithmetic


def _int(name: str, value: Any) -> int:
    return int_arg(name, value)


def _seq(name: str, value: Any) -> Sequence[Any]:
    if isinstance(value, np.ndarray) and value.ndim == 1:
        return value.tolist()
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise LayoutTypeError(f"{name} must be a list of ints, got {type_name(value)}")
    return value


def _pow2_list(name: str, value: Any, rank: Optional[int] = None, pow2: bool = True,
               rank_from: str = "") -> Tuple[int, ...]:
    """``value`` as a tuple of ints, each a power of two (``pow2``) or >= 0, of length ``rank``."""
    items = _seq(name, value)
    if rank is not None and len(items) != rank:
        raise LayoutError(f"{name} has {len(items)} entries; expected {rank} (the rank{rank_from})")
    out = []
    for i, v in enumerate(items):
        v = _int(f"{name}[{i}]", v)
        if pow2 and not is_pow2(v):
            raise LayoutError(f"{name}[{i}] must be a power of two, got {show(v)}")
        if pow2 and v > MAX_DIM:
            raise LayoutError(f"{name}[{i}] is {show(v)}; at most 2**30 (Triton keeps sizes in int32)")
        if not pow2 and v < 0:
            raise LayoutError(f"{name}[{i}] must be >= 0, got {show(v)}")
        out.append(v)
    return tuple(out)


def _order(name: str, value: Any, rank: int, rank_from: str = "") -> Tuple[int, ...]:
    order = _pow2_list(name, value, rank, pow2=False, rank_from=rank_from)
    if sorted(order) != list(range(rank)):
        raise LayoutError(f"{name} must be a permutation of 0..{rank - 1}, got {list(order)}")
    return order


def _cga(value: Any, rank: int) -> Tuple[Tuple[int, ...], ...]:
    """``cga_layout``: block bases (one int per dim, each 0 or a power of two), in CTA tiles."""
    if value is None:
        return ()
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise LayoutTypeError(f"cga_layout must be a list of bases (lists of {rank} ints) or None, "
                              f"got {type_name(value)}")
    bases = []
    for i, basis in enumerate(value):
        b = _pow2_list(f"cga_layout[{i}]", basis, rank, pow2=False)
        for v in b:
            if v and not (is_pow2(v) and v <= MAX_DIM):
                raise LayoutError(f"cga_layout[{i}] = {list(b)}: each entry must be 0 or a power of two")
        bases.append(b)
    bases = tuple(bases)
    try:
        cga_linear(bases, rank)
    except LayoutError as e:
        raise LayoutError(f"cga_layout {[list(b) for b in bases]} is not a valid block layout: {e}") from None
    return bases


def dim_names(rank: int) -> Tuple[str, ...]:
    """Triton's ``standardOutDimNames``.

    >>> dim_names(3)
    ('dim0', 'dim1', 'dim2')
    """
    return tuple(f"dim{i}" for i in range(rank))


def identity_nd(in_dim: str, shape: Sequence[int], order: Sequence[int]) -> LinearLayout:
    """Triton's ``identityStandardND``: ``in_dim`` fills ``shape`` along ``order`` (most minor
    first); the out-dims stay in fill order, as in Triton (``ensure_layout_not_smaller_than``
    then grows them in that order).

    >>> L = identity_nd("lane", [4, 8], [1, 0])
    >>> L.out_dims, L.bases["lane"]
    ({'dim1': 8, 'dim0': 4}, ((1, 0), (2, 0), (4, 0), (0, 1), (0, 2)))
    """
    names = dim_names(len(shape))
    result = LinearLayout.empty()
    for d in order:
        result = multiply(result, LinearLayout.identity_1d(shape[d], in_dim, names[d]))
    return result


def matrix_order(rank: int, row_major: bool) -> Tuple[int, ...]:
    """Triton's ``getMatrixOrder``: ``[rank-1, ..., 0]``, the last two swapped unless row-major.

    >>> matrix_order(3, True), matrix_order(3, False)
    ((2, 1, 0), (1, 2, 0))
    """
    order = list(range(rank - 1, -1, -1))
    if not row_major:
        order[0], order[1] = order[1], order[0]
    return tuple(order)


def dot_operand_order(op: int, rank: int) -> Tuple[int, ...]:
    """``getOrderForDotOperand(op, rank, kContig=True)``: K fastest (A is [M, K], B is [K, N]).

    >>> dot_operand_order(0, 2), dot_operand_order(1, 2)
    ((1, 0), (0, 1))
    """
    return matrix_order(rank, row_major=op == 0)


def cga_linear(bases: Sequence[Sequence[int]], rank: int) -> LinearLayout:
    """The block -> CTA-tile layout of a ``cga_layout`` (sizes inferred, surjective).

    >>> cga_linear([[0, 1], [1, 0], [0, 0]], 2).out_dims
    {'dim0': 2, 'dim1': 2}
    """
    return LinearLayout.from_bases({"block": [list(b) for b in bases]}, list(dim_names(rank)))


def combine_cta_cga(cta: LinearLayout, cga_bases: Sequence[Sequence[int]], shape: Sequence[int],
                    broadcast_registers: bool = True) -> LinearLayout:
    """Triton's ``combineCtaCgaWithShape``: the CTA layout repeated or cut to ``shape`` divided by
    the CGA's tiles, then the blocks on top; out-dims in standard order. A register basis that
    falls outside the shape stays as a zero (a broadcast) or, with ``broadcast_registers=False``,
    is dropped.

    >>> cta = identity_nd("register", [1], [0]) * identity_nd("lane", [4], [0])
    >>> combine_cta_cga(cta, [[1]], [16]).bases     # 2 CTAs of 8: each lane holds 2 registers
    {'register': ((4,),), 'lane': ((1,), (2,)), 'block': ((8,),)}
    """
    names = dim_names(len(shape))
    labeled = dict(zip(names, shape))
    cga = ensure_layout_not_larger_than(cga_linear(cga_bases, len(shape)), labeled)
    cga = transpose_outs(cga, cta.out_dim_names)
    cta_shape = {d: max(1, labeled[d] // cga.out_dim_size(d)) for d in cta.out_dim_names}
    cta = ensure_layout_not_smaller_than(cta, cta_shape)
    cta = ensure_layout_not_larger_than(cta, cta_shape, broadcast_registers=broadcast_registers)
    return transpose_outs(multiply(cta, cga), list(names))


def shape_per_cta(shape: Sequence[int], cga_bases: Sequence[Sequence[int]]) -> Tuple[int, ...]:
    """``shape`` divided by the CGA's split in each dim (at least 1), as Triton's getShapePerCTA.

    >>> shape_per_cta([64, 64], [[0, 1], [0, 0]])
    (64, 32)
    """
    if not cga_bases:
        return tuple(shape)
    cga = cga_linear(cga_bases, len(shape))
    return tuple(max(1, s // cga.out_dim_size(n)) for s, n in zip(shape, dim_names(len(shape))))


def _listed(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_listed(v) for v in value]
    return value


class Encoding:
    """A Triton encoding: an immutable value object (equal and hashable by its arguments) with
    Gluon's class and argument names; :func:`to_linear_layout` gives its linear layout.

    >>> from layouts.linear.triton import BlockedLayout
    >>> BlockedLayout([1], [32], [4], [0]) == BlockedLayout((1,), (32,), (4,), (0,))
    True
    """

    __slots__ = ()
    _fields: Tuple[str, ...] = ()
    kind = "distributed"          # or "shared": in-dims (register, lane, warp, block) or (offset, block)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls._fields:
            _BY_NAME[cls.__name__] = cls

    def _init(self, **values: Any) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _key(self) -> Tuple[Any, ...]:
        return tuple(getattr(self, f) for f in self._fields)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._key() == other._key()   # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__,) + self._key())

    def __repr__(self) -> str:
        args = ", ".join(f"{f}={_listed(getattr(self, f))!r}" for f in self._fields)
        return f"{type(self).__name__}({args})"

    @property
    def rank(self) -> int:
        raise NotImplementedError

    def _linear(self, shape: Tuple[int, ...]) -> LinearLayout:
        raise NotImplementedError

    def to_linear_layout(self, shape: Any) -> LinearLayout:
        """The linear layout of this encoding for a tensor of ``shape`` (see :func:`to_linear_layout`).

        >>> from layouts.linear.triton import SwizzledSharedLayout
        >>> SwizzledSharedLayout(1, 1, 4, [1, 0]).to_linear_layout([4, 4]).bases["offset"]
        ((0, 1), (0, 2), (1, 1), (2, 2))
        """
        from . import to_linear_layout
        return to_linear_layout(self, shape)


_BY_NAME: Dict[str, type] = {}          # our encodings by class name: Gluon's names


def from_gluon(value: Any) -> Any:
    """Gluon's layout object (``triton.experimental.gluon.language``) as ours, by its class name
    and fields, parents included; anything else unchanged. Triton itself is not imported.

    >>> from_gluon(3)
    3
    """
    ours = _BY_NAME.get(type(value).__name__)
    if ours is None or isinstance(value, Encoding) or not type(value).__module__.startswith("triton."):
        return value
    args = {}
    for field in ours._fields:
        if hasattr(value, field):
            item = getattr(value, field)
            item = getattr(item, "value", item) if type(item).__name__ == "constexpr" else item
            args[field] = from_gluon(item)
    try:
        return ours(**args)
    except TypeError as e:      # a Gluon class of the same name whose fields we do not know
        raise LayoutTypeError(f"cannot read {type(value).__name__} from {type(value).__module__}: {e}") from None


def _encoding(name: str, value: Any, kinds: Tuple[type, ...] = ()) -> Encoding:
    value = from_gluon(value)
    if not isinstance(value, kinds or Encoding):
        wanted = " or ".join(k.__name__ for k in kinds) if kinds else "a layouts.linear.triton encoding"
        raise LayoutTypeError(f"{name} must be {wanted}, got {type_name(value)}")
    return value


def check_shape(encoding: Encoding, shape: Any) -> Tuple[int, ...]:
    """``shape`` checked against ``encoding``: one power of two per dim of its tensor."""
    rank = encoding.rank
    return _pow2_list("shape", shape, rank, rank_from=f" of {type(encoding).__name__}")
