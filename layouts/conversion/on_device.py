"""A named conversion in the array's own library, on the array's own device.

Every named layout is a logical tensor cut into parts and laid out: each axis split into its
outer part and its blocks (outside in), padded to whole blocks with zeros, the parts permuted into
the spec's order, and the rows spaced by a pitch. So a conversion is the source undone -- rows
unspaced, parts permuted back next to each other, merged, padding sliced off -- and the
destination built the same way: reshapes, one permutation, zero blocks joined on, a final copy.
Those are operations every array library has on every device (:mod:`layouts.arrays.devices`),
so an array that is not in host memory never leaves its device.

>>> import array_api_strict as xp                  # an array-API library with a second device
>>> from layouts.arrays.devices import NamespaceOps
>>> x = xp.reshape(xp.arange(2 * 3 * 2 * 2, device=xp.Device("device1")), (2, 3, 2, 2))
>>> y = convert_on_device(x, "NCHW", "NCHW4c", ops=NamespaceOps(xp, x))
>>> y.shape, y.device, [int(v) for v in y[0, 0, 0, 0, :]]
((2, 1, 2, 2, 4), array_api_strict.Device('device1'), [0, 4, 8, 0])
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from ..arrays.devices import check_out
from ..errors import LayoutError, LayoutTypeError, type_name
from ..named.layout import Layout
from ..named.torch_names import both_orders, plain_spec
from ..named.naming import canonical_order
from ..request import resolve

__all__ = ["convert_on_device", "logical_of", "physical_of"]


def convert_on_device(x: Any, src: Any, dst: Any, out: Any = None, *, ops: Any, copy: Any = True,
                      dims: Mapping[str, int] | None = None, warn: Any = None, where: str = "on a device") -> Any:
    """``x`` (in ``src``) in layout ``dst``, computed with ``ops`` on ``x``'s device: a new array of
    ``x``'s kind, or ``out`` (same kind and device) written and returned.

    ``x`` is the array of ``src``'s physical shape, or, for a pitched ``src`` :class:`Layout`,
    the flat buffer holding it. A pitched ``dst`` gives a strided view of its zero-padded buffer
    where the library has strided views (torch), else needs ``out=`` (a flat buffer of
    ``dst.size`` elements). ``copy=False`` returns ``x`` itself when nothing moves, else refuses.
    """
    if copy is not None and not isinstance(copy, bool):
        raise LayoutTypeError(f"copy must be True, False or None, got {type_name(copy)}")
    if not isinstance(src, (str, Layout)) or not isinstance(dst, (str, Layout)):
        if copy is False:
            raise LayoutError("copy=False never copies, but a conversion between these layouts writes a buffer of its "
                              "own; pass copy=True or None")
        from .device_gather import gather_on_device
        return gather_on_device(x, src, dst, out, ops=ops, dims=dims, where=where)
    shape = ops.shape(x)
    flat_pitched = False
    physical_shape = shape
    if isinstance(src, Layout) and len(shape) == 1 and shape != src.shape:
        flat_pitched, physical_shape = True, src.shape
    if ops.name == "torch" and not flat_pitched:
        x, physical_shape, src = _torch_memory_order(x, src, physical_shape, warn)
    byte_sized = "uint8" if ops.element_bytes(x) == 1 else None
    request = resolve(src, dst, physical_shape, byte_sized, **dict(dims or {}))
    source, target = request.src, request.dst
    if flat_pitched:
        if shape[0] < source.span:
            raise LayoutError(f"x holds {shape[0]} elements, but {source!r} needs at least {source.span}")
        x = _unpitch(x, source, ops)
    elif _pitched(source):
        raise LayoutError(f"x has the physical shape of {source!r}, whose rows are pitched: pass the flat buffer "
                          f"that holds it ({source.size} elements)")
    if copy is False:
        if out is None and _same_memory(source, target) and not _pitched(target):
            return x
        raise LayoutError("copy=False, but on a device this conversion moves data (or writes out=); pass copy=None")
    logical, order = logical_of(x, source, ops)
    result = physical_of(logical, order, target, ops)
    if out is not None:
        return _write_out(out, result, target, ops)
    if _pitched(target):
        flat = _pitch(result, target, ops)
        view = ops.strided(flat, target.shape, target.stride_tuple)
        if view is None:
            raise LayoutError(f"{target!r} spaces its rows by a pitch, and {ops.name} arrays have no strided views: "
                              f"pass out= a flat array of {target.size} elements on x's device")
        return view
    return ops.fresh(result)


def logical_of(x: Any, layout: Layout, ops: Any) -> tuple[Any, tuple[str, ...]]:
    """``(array, axes)``: ``x``, of ``layout``'s packed physical shape, as its logical tensor with
    one axis per letter of ``axes`` (the layout's axes in stored order), padding cut off."""
    parts = _parts(layout)
    order = layout.axes
    permutation = [p for axis in order for p in parts[axis]]
    a = ops.permute(x, permutation) if permutation != list(range(len(permutation))) else x
    padded = layout.padded_dims
    a = ops.reshape(a, [padded[axis] for axis in order])
    if any(layout.dims[axis] != padded[axis] for axis in order):
        a = a[tuple(slice(0, layout.dims[axis]) for axis in order)]
    return a, order


def physical_of(logical: Any, order: tuple[str, ...], layout: Layout, ops: Any) -> Any:
    """The logical tensor (axes ``order``) in ``layout``'s packed physical shape: each axis padded
    to whole blocks with zeros, split into its parts, the parts in the spec's order."""
    padded = layout.padded_dims
    a = logical
    for k, axis in enumerate(order):
        missing = padded[axis] - layout.dims[axis]
        if missing:
            shape = list(ops.shape(a))
            shape[k] = missing
            a = ops.concat([a, ops.zeros(shape)], axis=k)
    parts = _parts(layout)
    sizes = dict(zip(range(len(layout.shape)), layout.shape))
    split = [sizes[p] for axis in order for p in parts[axis]]
    a = ops.reshape(a, split)
    positions = [p for axis in order for p in parts[axis]]
    permutation = [positions.index(p) for p in range(len(layout.shape))]
    return ops.permute(a, permutation) if permutation != list(range(len(permutation))) else a


def _parts(layout: Layout) -> dict[str, list[int]]:
    """Each axis's physical dims, outer part first, then its blocks outside in (spec order)."""
    parts: dict[str, list[int]] = {axis: [] for axis in layout.axes}
    dims = layout.parsed.dims
    for p, d in enumerate(dims):
        if not d.is_block:
            parts[d.axis].insert(0, p)
    for p, d in enumerate(dims):
        if d.is_block:
            parts[d.axis].append(p)
    return parts


def _pitched(layout: Layout) -> bool:
    """Rows spaced by a pitch: the buffer holds more slots than the physical shape."""
    return layout.size != math.prod(layout.shape)


def _same_memory(a: Layout, b: Layout) -> bool:
    return a.spec == b.spec and a.shape == b.shape and a.stride_tuple == b.stride_tuple


def _unpitch(flat: Any, layout: Layout, ops: Any) -> Any:
    """The packed physical array of a pitched ``layout`` out of the flat buffer holding it: the
    buffer cut into rows of each dim's stride, the pitch's gap sliced off, level by level."""
    shape, strides = layout.shape, layout.stride_tuple
    rows = shape[0] * strides[0] if shape else 1
    a = flat[:min(rows, ops.shape(flat)[0])]
    if ops.shape(a)[0] < rows:                  # the last row's gap need not be in the buffer
        a = ops.concat([a, ops.zeros([rows - ops.shape(a)[0]])], axis=0)
    a = ops.reshape(a, [shape[0], strides[0]])
    for k in range(1, len(shape)):
        lead = [slice(None)] * k
        a = a[tuple(lead + [slice(0, shape[k] * strides[k])])]
        a = ops.reshape(a, list(shape[:k]) + [shape[k], strides[k]])
    return ops.reshape(a[tuple([slice(None)] * len(shape) + [slice(0, 1)])], list(shape))


def _pitch(packed: Any, layout: Layout, ops: Any) -> Any:
    """The flat buffer (``layout.size`` elements, gaps zero) holding the packed physical array."""
    shape, strides = layout.shape, layout.stride_tuple
    a = ops.reshape(packed, list(shape) + [1])
    for k in range(len(shape) - 1, 0, -1):      # dim k's rows joined and padded to dim k-1's stride
        a = ops.reshape(a, list(shape[:k]) + [shape[k] * strides[k]])
        a = _pad_last(a, strides[k - 1] - shape[k] * strides[k], ops)
    a = ops.reshape(a, [shape[0] * strides[0]] if shape else [1])
    size = layout.size
    if ops.shape(a)[0] > size:
        return a[:size]
    return _pad_last(a, size - ops.shape(a)[0], ops)


def _pad_last(a: Any, count: int, ops: Any) -> Any:
    if count <= 0:
        return a
    shape = list(ops.shape(a))
    shape[-1] = count
    return ops.concat([a, ops.zeros(shape)], axis=len(shape) - 1)


def _write_out(out: Any, result: Any, layout: Layout, ops: Any) -> Any:
    check_out(out, ops)
    shape = ops.shape(out)
    if shape == tuple(layout.shape) and not _pitched(layout):
        ops.assign(out, result)
    elif shape == (layout.size,):
        ops.assign(out, _pitch(result, layout, ops) if _pitched(layout) else ops.reshape(result, [layout.size]))
    else:
        raise LayoutError(f"out has shape {shape}; expected {layout.shape} or a flat buffer of {layout.size} elements")
    return out


def _torch_memory_order(x: Any, src: Any, shape: tuple, warn: Any) -> tuple[Any, tuple, Any]:
    """A torch tensor whose ``src`` names its memory order (a channels_last tensor as ``"NHWC"``)
    read in that order, as :mod:`layouts.named.torch_names` reads host tensors."""
    spec = plain_spec(src, len(shape))
    if spec is None:
        return x, shape, src
    logical = canonical_order(spec)
    if logical == spec or sorted(logical) != sorted(spec):
        return x, shape, src
    permutation = [logical.index(a) for a in spec]
    strides = tuple(int(s) for s in x.stride())
    in_memory = _contiguous([shape[p] for p in permutation], [strides[p] for p in permutation])
    if not in_memory:
        return x, shape, src
    if _contiguous(list(shape), list(strides)):
        if warn is not None:
            warn(both_orders("x", shape, spec, logical))
        return x, shape, src
    view = x.permute(*permutation)
    return view, tuple(int(n) for n in view.shape), src


def _contiguous(shape: list, strides: list) -> bool:
    step = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != step:
            return False
        step *= n
    return True
