"""The common ground of the encodings: argument checks that name the argument, the immutable
value-object base class, and the pieces every encoding's layout is made of: a dim filled in an
order (:func:`identity_nd`), a layout fitted to a tensor's size (:func:`fit_to_shape`) and a
CTA's layout spread over a CGA (:func:`combine_cta_cga`).

>>> _pow2_list("order", [1, 0], rank=2, pow2=False)
(1, 0)
>>> _pow2_list("warps_per_cta", [4, 3])
Traceback (most recent call last):
layouts.errors.LayoutError: warps_per_cta[1] must be a power of two, got 3
"""

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..._args import int_arg, is_pow2, log2
from ...errors import LayoutError, LayoutTypeError, show, type_name
from ..layout import LinearLayout

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
    """The out-dims of a rank-``rank`` tensor, as Gluon names them (``dim0`` the first index).

    >>> dim_names(3)
    ('dim0', 'dim1', 'dim2')
    """
    return tuple(f"dim{i}" for i in range(rank))


def _unit(rank: int, position: int, value: int) -> List[int]:
    """A basis that moves ``value`` along the out-dim at ``position`` and nowhere else."""
    basis = [0] * rank
    basis[position] = value
    return basis


def identity_nd(in_dim: str, shape: Sequence[int], order: Sequence[int]) -> LinearLayout:
    """``in_dim`` counting through a tensor of ``shape`` with ``order[0]`` the fastest dim: its
    bases are the unit steps 1, 2, 4, ... of ``order[0]``, then of ``order[1]``, ...; the out-dims
    are listed in that same fill order (``fit_to_shape`` adds repeats in out-dim order, so the
    order is part of the result).

    >>> L = identity_nd("lane", [4, 8], [1, 0])
    >>> L.out_dims, L.bases["lane"]
    ({'dim1': 8, 'dim0': 4}, ((1, 0), (2, 0), (4, 0), (0, 1), (0, 2)))
    """
    names = dim_names(len(shape))
    steps = [_unit(len(order), k, 1 << bit) for k, d in enumerate(order) for bit in range(log2(shape[d]))]
    return LinearLayout.from_bases({in_dim: steps}, {names[d]: shape[d] for d in order})


def matrix_order(rank: int, row_major: bool) -> Tuple[int, ...]:
    """The dims of a (batched) matrix, fastest first: the columns (``rank-1``) then the rows
    when ``row_major``, the rows then the columns otherwise; the batch dims are always slowest,
    the last of them first.

    >>> matrix_order(3, True), matrix_order(3, False)
    ((2, 1, 0), (1, 2, 0))
    """
    rows, cols = rank - 2, rank - 1
    if rank < 2 and not row_major:
        raise IndexError(f"a column-major order needs rows and columns; rank is {rank}")
    matrix = (cols, rows) if row_major else (rows, cols)
    return tuple(d for d in matrix if d >= 0) + tuple(range(rank - 3, -1, -1))


def dot_operand_order(op: int, rank: int) -> Tuple[int, ...]:
    """The order of a dot operand with K fastest: A (``op`` 0) is ``[..., M, K]``, so
    row-major; B (``op`` 1) is ``[..., K, N]``, so column-major.

    >>> dot_operand_order(0, 2), dot_operand_order(1, 2)
    ((1, 0), (0, 1))
    """
    return matrix_order(rank, row_major=op == 0)


def cga_linear(bases: Sequence[Sequence[int]], rank: int) -> LinearLayout:
    """A ``cga_layout`` as a layout: ``block`` -> the CTA-tile coordinates it names, each dim
    as large as the bases reach (Gluon's ``cga_layout``: "bases describing how CTAs tile each
    dimension"). Refused when the bases do not reach every tile.

    >>> cga_linear([[0, 1], [1, 0], [0, 0]], 2).out_dims
    {'dim0': 2, 'dim1': 2}
    """
    return LinearLayout.from_bases({"block": [list(b) for b in bases]}, list(dim_names(rank)))


def _cga_tiles(bases: Sequence[Sequence[int]], rank: int) -> Tuple[int, ...]:
    """How many CTA tiles the blocks of ``bases`` span in each dim."""
    grid = cga_linear(bases, rank)
    return tuple(grid.out_dim_size(n) for n in dim_names(rank))


def fit_to_shape(layout: LinearLayout, sizes: Mapping[str, int], broadcast_registers: bool = True,
                 repeat_order: Optional[Sequence[str]] = None) -> LinearLayout:
    """``layout`` made to cover exactly ``sizes`` (one power of two per out-dim), as Triton lays
    an encoding over a tensor of another size (the rule the Triton 3.9.0 wheel follows, checked
    by the oracle tests; a broadcast is a non-injective layout, Linear Layouts paper, arXiv
    2505.23819):

    - an out-dim the layout does not fill is covered by repeats: one more basis of the first
      in-dim (a thread holds more registers; a buffer more offsets) per missing bit, the
      out-dims taken in ``repeat_order`` (default: ``layout``'s out-dim order);
    - an out-dim the layout overfills is cut: a basis entry at or past the size becomes 0, so
      those inputs hold copies (a broadcast); with ``broadcast_registers=False`` a register
      basis that the cut empties is dropped instead, as Triton 3.9.0 does for the layouts that
      pass it.

    The out-dims keep their order.

    >>> L = identity_nd("register", [2], [0]) * identity_nd("lane", [4], [0])
    >>> fit_to_shape(L, {"dim0": 16}).bases
    {'register': ((1,), (8,)), 'lane': ((2,), (4,))}
    >>> fit_to_shape(L, {"dim0": 4}).bases
    {'register': ((1,),), 'lane': ((2,), (0,))}
    >>> fit_to_shape(L, {"dim0": 1}, broadcast_registers=False).bases
    {'register': (), 'lane': ((0,), (0,))}
    """
    names = layout.out_dim_names
    want = [sizes[n] for n in names]
    rows = {d: [list(b) for b in bs] for d, bs in layout.bases.items()}
    repeats = []
    for name in names if repeat_order is None else repeat_order:
        have, size = layout.out_dim_size(name), sizes[name]
        position = names.index(name)
        repeats += [_unit(len(names), position, have << bit) for bit in range(log2(size // have) if size > have else 0)]
    if repeats:
        first = layout.in_dim_names[0] if layout.in_dim_names else None
        if first not in ("register", "offset"):
            raise LayoutError(f"a layout is repeated over a larger tensor by its first in-dim, which must be "
                              f"'register' or 'offset'; it is {first!r}")
        rows[first] += repeats
    for d, bs in rows.items():
        cut = [[v if v < s else 0 for v, s in zip(b, want)] for b in bs]
        if d == "register" and not broadcast_registers:
            cut = [c for c, b in zip(cut, bs) if any(c) or not any(b)]
        rows[d] = cut
    return LinearLayout.from_bases(rows, dict(zip(names, want)), require_surjective=False)


def combine_cta_cga(cta: LinearLayout, cga_bases: Sequence[Sequence[int]], shape: Sequence[int],
                    broadcast_registers: bool = True) -> LinearLayout:
    """The layout of a tensor of ``shape`` spread over a CGA: each CTA holds one tile of
    ``shape`` divided by the CTA grid, laid out by ``cta`` (repeated or cut to the tile by
    :func:`fit_to_shape`), and block ``b`` holds the tile at ``cga_bases``' coordinate for ``b``
    (Gluon's ``cga_layout``, in tile units, so a block basis is the grid basis times the tile).
    Grid splits past the tensor's extent become copies: such block bases are 0. Out-dims in
    standard order; in-dims those of ``cta``, then ``block``.

    >>> cta = identity_nd("register", [1], [0]) * identity_nd("lane", [4], [0])
    >>> combine_cta_cga(cta, [[1]], [16]).bases     # 2 CTAs of 8: each lane holds 2 registers
    {'register': ((4,),), 'lane': ((1,), (2,)), 'block': ((8,),)}
    """
    rank = len(shape)
    names = dim_names(rank)
    if sorted(cta.out_dim_names) != sorted(names):
        raise LayoutError(f"the CTA layout's out-dims {cta.out_dim_names} are not {list(names)}")
    grid = [[v if v < s else 0 for v, s in zip(b, shape)] for b in cga_bases]
    tiles = [min(t, s) for t, s in zip(_cga_tiles(cga_bases, rank), shape)]
    tile_shape = [s // t for s, t in zip(shape, tiles)]
    tile = fit_to_shape(cta, dict(zip(names, tile_shape)), broadcast_registers)
    where = [tile.out_dim_index(n) for n in names]
    rows = {d: [[b[k] for k in where] for b in bs] for d, bs in tile.bases.items()}
    rows["block"] = rows.get("block", []) + [[v * t for v, t in zip(b, tile_shape)] for b in grid]
    return LinearLayout.from_bases(rows, dict(zip(names, shape)), require_surjective=False)


def shape_per_cta(shape: Sequence[int], cga_bases: Sequence[Sequence[int]]) -> Tuple[int, ...]:
    """The tile of ``shape`` one CTA holds: each dim divided by the CTA grid's extent in it, at
    least 1 (Gluon's ``_get_shape_per_cta``, where the grid's extent is twice its largest basis).

    >>> shape_per_cta([64, 64], [[0, 1], [0, 0]])
    (64, 32)
    """
    if not cga_bases:
        return tuple(shape)
    return tuple(max(1, s // t) for s, t in zip(shape, _cga_tiles(cga_bases, len(shape))))


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
