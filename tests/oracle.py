"""Independent numpy oracles: physical arrays built with pad/reshape/transpose only.

Nothing here calls Layout.offset or the plan: the tests hold the library against these.
"""

from __future__ import annotations

import math

import numpy as np


def blocked_physical(logical: np.ndarray, axes: str, spec_dims: list[tuple[str, int | None]]) -> np.ndarray:
    """The physical array of a (singly or multiply) blocked layout, by numpy alone.

    ``logical`` has one dim per letter of ``axes``. ``spec_dims`` lists the physical dims
    outermost first as (axis, block) with block None for the outer part. Padding is zero.
    """
    blocks = {a: [b for ax, b in spec_dims if ax == a and b is not None] for a in axes}
    # pad each axis up to a multiple of the product of its blocks
    pad = []
    for a, n in zip(axes, logical.shape):
        p = math.prod(blocks[a]) if blocks[a] else 1
        pad.append((0, -(-n // p) * p - n))
    x = np.pad(logical, pad)
    # split each axis into (outer, b1, b2, ...) in that order: numpy reshape does exactly the digit split
    shape, names = [], []
    for a, n in zip(axes, x.shape):
        p = math.prod(blocks[a]) if blocks[a] else 1
        shape.append(n // p)
        names.append((a, None))
        for k, b in enumerate(blocks[a]):
            shape.append(b)
            names.append((a, k))
    x = x.reshape(shape)
    # order of the physical dims: outer parts where the axis letter stands, blocks in spec order
    seen: dict[str, int] = {}
    order = []
    for a, b in spec_dims:
        if b is None:
            order.append(names.index((a, None)))
        else:
            k = seen.get(a, 0)
            seen[a] = k + 1
            order.append(names.index((a, k)))
    return x.transpose(order)


def pitched_buffer(physical: np.ndarray, strides: tuple[int, ...], size: int) -> np.ndarray:
    """A flat zero buffer of ``size`` holding ``physical`` at the given element strides."""
    buf = np.zeros(size, dtype=physical.dtype)
    idx = np.indices(physical.shape).reshape(physical.ndim, -1)
    off = sum(i * s for i, s in zip(idx, strides))
    buf[off] = physical.reshape(-1)
    return buf


def expected_strides(shape: tuple[int, ...], pitch_at: dict[int, int] | None = None,
                     align_at: dict[int, int] | None = None) -> tuple[tuple[int, ...], int]:
    """Element strides and allocated size of a physical shape, worked out here from the rule:
    each dim packs the ones inside it, rounded up to ``align_at[i]`` or set to ``pitch_at[i]``."""
    strides = [0] * len(shape)
    packed = 1
    for i in reversed(range(len(shape))):
        stride = packed
        if align_at and i in align_at:
            stride = -(-stride // align_at[i]) * align_at[i]
        if pitch_at and i in pitch_at:
            assert pitch_at[i] >= stride, "the test asked for a pitch below the packed stride"
            stride = pitch_at[i]
        strides[i] = stride
        packed = stride * shape[i]
    return tuple(strides), (shape[0] * strides[0] if shape else 1)
