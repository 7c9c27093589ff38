"""Conversions with CuTe, linear and other layouts on an array's own device: offsets computed
there, the data moved by one gather.

The host moves ``result[dst(i)] = x[src(i)]`` (:mod:`layouts.conversion.generic`). On a device
both offset maps are computed with the array library's own arithmetic -- a strided form is a sum
of ``arange * stride``, a swizzle XORs shifted bits, a linear layout XORs the bases of the set
bits -- so no index leaves the host. The array API has a gather (``take``) but no scatter, so
the move is one gather over the destination's slots: the destination's offsets sorted, each slot
looked up (``searchsorted``), the element that lands there taken from ``x``, zero where none does.

>>> import array_api_strict as xp
>>> from layouts import cute
>>> from layouts.arrays.devices import NamespaceOps
>>> x = xp.arange(6, device=xp.Device("device1"))
>>> y = gather_on_device(x, cute.Layout((2, 3)), cute.Layout((2, 3), (4, 1)), ops=NamespaceOps(xp, x))
>>> [int(v) for v in y], y.device                    # slot 3 is a gap of the destination: zero
([0, 2, 4, 0, 1, 3, 5], array_api_strict.Device('device1'))
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from ..arrays.devices import check_out
from ..errors import LayoutError
from ..kinds import Kind
from .generic import _checked, kinds

__all__ = ["gather_on_device", "device_offsets"]


def gather_on_device(x: Any, src: Any, dst: Any, out: Any = None, *, ops: Any,
                     dims: Mapping[str, int] | None = None, where: str = "on a device") -> Any:
    """``result[dst(i)] = x[src(i)]`` computed with ``ops`` on ``x``'s device: ``dst``'s array over
    a new buffer (its gaps zero), or ``out`` written and returned."""
    shape = ops.shape(x)
    s, d = kinds(src, dst, dict(dims or {}), shape if len(shape) > 1 else None)
    source = _source_buffer(x, s, ops)
    n_out = _checked(s, d, ops.shape(source)[0])
    if s.size == 0:
        flat = ops.zeros([n_out])
    else:
        flat = _gathered(source, device_offsets(s, ops, where), device_offsets(d, ops, where), n_out, ops)
    if out is not None:
        return _into(out, flat, d, ops)
    if tuple(d.array_shape) == (n_out,):
        return flat
    if math.prod(d.array_shape) == n_out:
        return ops.fresh(ops.reshape(flat, list(d.array_shape)))
    raise LayoutError(f"dst {d.label} is held in an array of shape {d.array_shape} over a buffer of {n_out} elements "
                      f"(a strided view), which {ops.name} arrays cannot be; pass out= a flat array of {n_out} elements")


def device_offsets(kind: Kind, ops: Any, where: str = "on a device") -> Any:
    """Every offset of ``kind``'s elements (the domain's order), computed on ``ops``'s device
    (:meth:`~layouts.kinds.Kind.offsets_with`)."""
    offsets = kind.offsets_with(ops)
    if offsets is None:
        raise LayoutError(f"the {kind.name} layout {kind.label} has no offset rule to compute {where} (only a table "
                          f"of offsets in host memory): move x to the host yourself to convert with it")
    return offsets


def _gathered(source: Any, src_offsets: Any, dst_offsets: Any, n_out: int, ops: Any) -> Any:
    """The destination buffer as one gather: slot ``p`` takes ``x[src(i)]`` for the ``i`` with
    ``dst(i) == p``, zero where there is none."""
    order = ops.argsort(dst_offsets)
    landing = ops.take(dst_offsets, order)
    taken_from = ops.take(src_offsets, order)
    slots = ops.arange(n_out)
    found = ops.minimum(ops.searchsorted(landing, slots), ops.shape(landing)[0] - 1)
    hit = ops.take(landing, found) == slots
    values = ops.take(source, ops.take(taken_from, found))
    return ops.where(hit, values, ops.zeros([n_out]))


def _source_buffer(x: Any, kind: Kind, ops: Any) -> Any:
    shape = ops.shape(x)
    if len(shape) == 1:
        return x
    if tuple(shape) != tuple(kind.array_shape):
        raise LayoutError(f"x has shape {tuple(shape)}, but src {kind.label} is held in an array of shape "
                          f"{kind.array_shape} (or a 1-D buffer)")
    if math.prod(shape) != kind.buffer_size:
        raise LayoutError(f"x is src {kind.label}'s array, a strided view of {kind.buffer_size} elements; on a device "
                          f"pass the 1-D buffer that holds it")
    return ops.reshape(x, [-1])


def _into(out: Any, flat: Any, d: Kind, ops: Any) -> Any:
    check_out(out, ops)
    shape, n_out = ops.shape(out), ops.shape(flat)[0]
    if shape == (n_out,):
        ops.assign(out, flat)
    elif tuple(shape) == tuple(d.array_shape) and math.prod(shape) == n_out:
        ops.assign(out, ops.reshape(flat, list(shape)))
    else:
        raise LayoutError(f"out must be dst's array of shape {d.array_shape} or a 1-D buffer of {n_out} elements, "
                          f"got shape {shape}")
    return out


