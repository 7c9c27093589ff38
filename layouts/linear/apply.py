"""Evaluating a linear layout: one point in Python ints, or numpy arrays of points at once.

For arrays, each in-dim's bases are folded into lookup tables (one entry per value of a chunk of
its bits, the out-dims packed into one int64), so a whole grid costs one gather per chunk, an XOR
and a shift-and-mask per out-dim -- no loop over bits.

>>> from layouts.linear import LinearLayout
>>> import numpy as np
>>> L = LinearLayout.from_bases({"lane": [[0, 1], [1, 0]]}, ["dim0", "dim1"])
>>> {k: v.tolist() for k, v in L.apply({"lane": np.arange(4)}).items()}
{'dim0': [0, 0, 1, 1], 'dim1': [0, 1, 0, 1]}
"""

from typing import Any, Dict, List, Mapping, Tuple

import numpy as np

from ..errors import LayoutError, LayoutTypeError, show, type_name

CHUNK_BITS = 12          # a table of 4096 int64 per chunk stays in L1/L2


def _scalar_apply(layout, coords: Dict[str, int]) -> Dict[str, int]:
    packed = 0
    columns = iter(layout._packed_bases())
    for name, rows in layout._bases:
        v = coords.get(name, 0)
        for i in range(len(rows)):
            col = next(columns)
            if (v >> i) & 1:
                packed ^= col
    return dict(zip(layout.out_dim_names, layout._unpack(packed)))


def _checked(layout, coords: Any) -> Tuple[Dict[str, Any], bool]:
    """The coordinates checked against the in-dims; whether any is an array."""
    import numbers
    if not isinstance(coords, Mapping):
        raise LayoutTypeError(f"apply takes a dict {{in_dim: value}}, got {type_name(coords)} {show(coords)}")
    sizes = layout.in_dims
    out: Dict[str, Any] = {}
    vector = False
    for name, value in coords.items():
        if name not in sizes:
            raise LayoutError(f"{name!r} is not an in-dim of the layout (in-dims: {list(sizes)})")
        if isinstance(value, bool):
            raise LayoutTypeError(f"{name} must be an integer or an integer array, got {value!r}")
        if isinstance(value, numbers.Integral):
            value = int(value)
            if not 0 <= value < sizes[name]:
                raise LayoutError(f"{name}={value} is outside 0..{sizes[name] - 1}")
            out[name] = value
            continue
        arr = np.asarray(value)
        if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
            raise LayoutTypeError(f"{name} must be an integer or an integer array, got {type_name(value)} "
                                  f"of dtype {arr.dtype}" if hasattr(arr, "dtype") else "")
        if arr.size and (arr.min() < 0 or arr.max() >= sizes[name]):
            raise LayoutError(f"{name} has values outside 0..{sizes[name] - 1} "
                              f"(from {int(arr.min())} to {int(arr.max())})")
        out[name] = arr.astype(np.int64, copy=False)
        vector = True
    return out, vector


def _tables(layout, name: str) -> List[Tuple[int, int, Any]]:
    """For in-dim ``name``: ``(shift, mask, table)`` per chunk of its bits, packed outputs as int64."""
    cached = layout._tables.get(name)
    if cached is not None:
        return cached
    start = 0
    for n, rows in layout._bases:
        if n == name:
            break
        start += len(rows)
    columns = layout._packed_bases()[start:start + len(layout._in_rows(name))]
    chunks = []
    for lo in range(0, len(columns), CHUNK_BITS):
        cols = columns[lo:lo + CHUNK_BITS]
        table = np.zeros(1 << len(cols), dtype=np.int64)
        for i, col in enumerate(cols):        # doubling: entries with bit i set = without, XOR col
            table[1 << i: 2 << i] = table[: 1 << i] ^ np.int64(col)
        chunks.append((lo, (1 << len(cols)) - 1, table))
    layout._tables[name] = chunks
    return chunks


_INT64 = np.dtype(np.int64)

#: Arrays of at least this many elements go through one numba pass (apply_kernel); smaller
#: ones through numpy, which needs no compiled kernel.
KERNEL_MIN = 512

def _kernel_plan(layout, names: Tuple[str, ...]):
    """For inputs naming ``names`` (in that order): (kernel, tables, shifts, masks, out-dim names),
    or False when no kernel takes them (more than 4 inputs, an in-dim of several table chunks,
    outputs wider than int64, numba missing: numpy's path)."""
    if not 1 <= len(names) <= 4 or layout.total_out_bits > 63:
        return False
    sizes = layout.in_dims
    if any(n not in sizes for n in names):
        return False
    tables = []
    for name in names:
        chunks = _tables(layout, name)
        if len(chunks) != 1:
            return False
        tables.append(chunks[0][2])
    shifts, masks, bit = [], [], 0
    for _, size in layout._outs:
        shifts.append(bit)
        masks.append(size - 1)
        bit += size.bit_length() - 1
    from .. import kernels  # noqa: F401 - the copy engine clears stale cached kernels before any loads
    try:
        from ..kernels.machine import jit_cache  # noqa: F401 - the engine's check of numba's cache runs first
        from .apply_kernel import KERNELS
    except ImportError:          # numba missing: numpy's path
        return False
    return (KERNELS[len(names)], tables, np.array(shifts, dtype=np.int64), np.array(masks, dtype=np.int64),
            layout.out_dim_names)


def fast_arrays(layout, coords: Any):
    """One numba pass for large int64 arrays (any strides) of one shape (values checked in the
    kernel); None when the inputs are anything else (numpy's path takes them). Kept lean: this
    is the per-call cost of a whole-tile apply."""
    if type(coords) is not dict or not coords:
        return None
    key = tuple(coords)
    plan = layout._tables.get(key)
    if plan is None:
        plan = layout._tables[key] = _kernel_plan(layout, key)
    if not plan:
        return None
    values = tuple(coords.values())
    first = values[0]
    if type(first) is not np.ndarray or first.dtype is not _INT64 or first.size < KERNEL_MIN:
        return None
    shape = first.shape
    for v in values:             # any strides: numba compiles a strided variant once
        if type(v) is not np.ndarray or v.dtype is not _INT64 or v.shape != shape:
            return None
    if len(shape) != 1:
        values = tuple(v.reshape(-1) for v in values)
    kernel, tables, shifts, masks, names = plan
    out = np.empty((len(names), first.size), dtype=_INT64)
    bad = kernel(*[a for pair in zip(tables, values) for a in pair], shifts, masks, out)
    if bad >= 0:
        sizes = layout.in_dims
        for name, v in zip(key, values):
            x = int(v[bad])
            if not 0 <= x < sizes[name]:
                raise LayoutError(f"{name} has values outside 0..{sizes[name] - 1} (such as {x})")
    if len(shape) == 1:
        return {name: out[k] for k, name in enumerate(names)}
    return {name: out[k].reshape(shape) for k, name in enumerate(names)}


def apply(layout, coords: Any) -> Dict[str, Any]:
    """The layout at ``coords`` (in-dims left out are 0); see the module docstring."""
    fast = fast_arrays(layout, coords)           # large arrays: one compiled pass
    if fast is not None:
        return fast
    coords, vector = _checked(layout, coords)
    if not vector:
        return _scalar_apply(layout, coords)
    for name, size in layout._outs:
        if size > 1 << 62 or layout.total_out_bits > 63:
            raise LayoutError(f"the outputs of this layout ({layout.total_out_bits} bits; out-dim {name!r} "
                              f"of size {size}) do not fit int64 arrays; apply it to Python ints")
    shapes = {name: v.shape for name, v in coords.items() if isinstance(v, np.ndarray)}
    try:
        shape = np.broadcast_shapes(*shapes.values())
    except ValueError:
        raise LayoutError(f"the in-dims' arrays do not broadcast together: shapes "
                          f"{', '.join(f'{n} {s}' for n, s in shapes.items())}") from None
    packed = None
    scalar = 0
    for name, v in coords.items():
        if not isinstance(v, np.ndarray):
            scalar ^= _scalar_packed(layout, name, v)
            continue
        chunks = _tables(layout, name)
        for shift, mask, table in chunks:
            # values are checked in range, so a dim of one chunk indexes its table directly
            part = table[v] if len(chunks) == 1 else table[(v >> shift) & mask]
            packed = part if packed is None else packed ^ part
    if packed is None:
        packed = np.zeros(shape, dtype=np.int64)
    if scalar:
        packed = packed ^ np.int64(scalar)
    packed = np.broadcast_to(packed, shape)
    out = {}
    bit = 0
    for name, size in layout._outs:
        k = size.bit_length() - 1
        out[name] = (packed >> bit) & (size - 1) if bit else packed & (size - 1)
        bit += k
    return out


def _scalar_packed(layout, name: str, value: int) -> int:
    start = 0
    for n, rows in layout._bases:
        if n == name:
            break
        start += len(rows)
    packed = 0
    for i, col in enumerate(layout._packed_bases()[start:start + len(layout._in_rows(name))]):
        if (value >> i) & 1:
            packed ^= col
    return packed
