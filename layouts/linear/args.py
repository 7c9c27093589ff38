"""The argument checks of :mod:`layouts.linear`: names, powers of two, dims and bases, each bad
value a :class:`~layouts.LayoutError` (or ``LayoutTypeError``) naming the argument.

Nothing here knows :class:`~layouts.linear.LinearLayout`, so every module of the package, the
class's own included, can check its arguments here without importing another.

>>> dims_arg("out_dims", {"dim0": 4, "dim1": 8})
(('dim0', 4), ('dim1', 8))
>>> dims_arg("out_dims", {"dim0": 3})
Traceback (most recent call last):
layouts.errors.LayoutError: out_dims['dim0'] must be a power of two, got 3
"""

from typing import Any, Iterable, List, Mapping, Optional, Tuple

from .._args import is_pow2, log2  # noqa: F401 - the package's modules import both from here
from ..errors import LayoutError, LayoutTypeError, show, type_name

MAX_BITS = 64   # Triton packs each matrix row and column into one uint64 (getMatrix)

Bases = Tuple[Tuple[str, Tuple[Tuple[int, ...], ...]], ...]
Dims = Tuple[Tuple[str, int], ...]


def check_bits(what: str, bits: int, side: str) -> None:
    """A LayoutError when ``what`` needs more than Triton's 64 bits on ``side``.

    >>> check_bits("size", 65, "input")
    Traceback (most recent call last):
    layouts.errors.LayoutError: size needs 65 input bits; a linear layout has at most 64 (Triton's matrix limit)
    """
    if bits > MAX_BITS:
        raise LayoutError(f"{what} needs {bits} {side} bits; a linear layout has at most {MAX_BITS} "
                          f"(Triton's matrix limit)")


def index_arg(what: str, value: Any) -> int:
    """``value`` as an int (numpy integers too), or a LayoutTypeError naming ``what``.

    >>> import numpy as np
    >>> index_arg("size", np.int32(4))
    4
    """
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise LayoutTypeError(f"{what} must be an integer, got {type_name(value)}")
    return int(value.__index__())


def name_arg(what: str, value: Any) -> str:
    """``value``, a non-empty str, or a LayoutTypeError naming ``what``.

    >>> name_arg("in_dim", "lane")
    'lane'
    """
    if not isinstance(value, str) or not value:
        raise LayoutTypeError(f"{what} must be a non-empty str, got {type_name(value)} {show(value)}")
    return value


def pairs_arg(what: str, value: Any) -> List[Tuple[Any, Any]]:
    """A mapping or a sequence of (name, value) pairs as a list of pairs.

    >>> pairs_arg("bases", {"lane": [[1]]})
    [('lane', [[1]])]
    """
    if isinstance(value, Mapping):
        return list(value.items())
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise LayoutTypeError(f"{what} must be a dict or a list of (name, value) pairs, "
                              f"got {type_name(value)} {show(value)}")
    out = []
    for item in value:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise LayoutTypeError(f"{what} must be a dict or a list of (name, value) pairs; "
                                  f"item {show(item)} is not a pair")
        out.append((item[0], item[1]))
    return out


def dims_arg(what: str, value: Any) -> Dims:
    """(name, size) pairs, each size a power of two, names distinct (see the module's example)."""
    dims = []
    seen = set()
    for name, size in pairs_arg(what, value):
        name = name_arg(f"a name in {what}", name)
        if name in seen:
            raise LayoutError(f"{what} names {name!r} twice")
        seen.add(name)
        size = index_arg(f"{what}[{name!r}]", size)
        if not is_pow2(size):
            raise LayoutError(f"{what}[{name!r}] must be a power of two, got {size}")
        dims.append((name, size))
    return tuple(dims)


def names_arg(what: str, value: Any) -> Tuple[str, ...]:
    """Distinct dim names (one str is one name).

    >>> names_arg("dims", ["dim0", "dim1"]), names_arg("dims", "dim0")
    (('dim0', 'dim1'), ('dim0',))
    """
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, Iterable):
        raise LayoutTypeError(f"{what} must be a list of dim names, got {type_name(value)} {show(value)}")
    names = tuple(name_arg(f"a name in {what}", v) for v in value)
    if len(set(names)) != len(names):
        raise LayoutError(f"{what} names a dim twice: {list(names)}")
    return names


def bases_arg(bases: Any, out_dims: Any) -> Tuple[Bases, Dims]:
    """The checked bases and out-dims of :meth:`LinearLayout.from_bases
    <layouts.linear.LinearLayout.from_bases>`: each basis one non-negative int per out-dim, below
    the out-dim's size when ``out_dims`` gives sizes, else each size inferred (the next power of two
    above the largest value). Surjectivity and the total size are the class's to check.

    >>> bases_arg({"lane": [[0, 1], [3, 0]]}, ["dim0", "dim1"])
    ((('lane', ((0, 1), (3, 0))),), (('dim0', 4), ('dim1', 2)))
    >>> bases_arg({"lane": [[0, 1, 2]]}, ["dim0", "dim1"])
    Traceback (most recent call last):
    layouts.errors.LayoutError: bases['lane'][0] = [0, 1, 2] has 3 values; each basis needs one per out-dim (2: ['dim0', 'dim1'])
    """
    in_pairs = pairs_arg("bases", bases)
    if isinstance(out_dims, Mapping) or (not isinstance(out_dims, str) and isinstance(out_dims, Iterable)
                                         and any(isinstance(d, (tuple, list)) for d in out_dims)):
        outs: Optional[Dims] = dims_arg("out_dims", out_dims)
        names = tuple(n for n, _ in outs)
    else:
        names = names_arg("out_dims", out_dims)
        outs = None
    checked = []
    seen = set()
    for in_dim, vectors in in_pairs:
        in_dim = name_arg("an in-dim name in bases", in_dim)
        if in_dim in seen:
            raise LayoutError(f"bases names in-dim {in_dim!r} twice")
        seen.add(in_dim)
        if isinstance(vectors, (str, bytes)) or not isinstance(vectors, Iterable):
            raise LayoutTypeError(f"bases[{in_dim!r}] must be a list of bases, got {type_name(vectors)}")
        rows = []
        for i, basis in enumerate(vectors):
            what = f"bases[{in_dim!r}][{i}]"
            if i + sum(len(r) for _, r in checked) >= MAX_BITS:      # stop before reading endless bases
                raise LayoutError(f"{what}: a linear layout has at most {MAX_BITS} input bits (Triton's "
                                  f"matrix limit); these bases have more")
            if isinstance(basis, (str, bytes)) or not isinstance(basis, Iterable):
                raise LayoutTypeError(f"{what} must be a list of {len(names)} integers, got {show(basis)}")
            basis = tuple(index_arg(what, v) for v in basis)
            if len(basis) != len(names):
                raise LayoutError(f"{what} = {list(basis)} has {len(basis)} values; each basis needs one "
                                  f"per out-dim ({len(names)}: {list(names)})")
            for v, out in zip(basis, names):
                if v < 0:
                    raise LayoutError(f"{what} = {list(basis)}: the value for out-dim {out!r} is negative")
            rows.append(basis)
        checked.append((in_dim, tuple(rows)))
    if outs is None:
        sizes = {n: 1 for n in names}
        for _, rows in checked:
            for basis in rows:
                for v, n in zip(basis, names):
                    sizes[n] = max(sizes[n], 1 << v.bit_length())
        outs = tuple((n, sizes[n]) for n in names)
    else:
        for in_dim, rows in checked:
            for i, basis in enumerate(rows):
                for v, (n, size) in zip(basis, outs):
                    if v >= size:
                        raise LayoutError(f"bases[{in_dim!r}][{i}] = {list(basis)}: the value {v} for "
                                          f"out-dim {n!r} is not below its size {size}")
    return tuple(checked), outs
