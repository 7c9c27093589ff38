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
    """Element strides and allocated size of a physical shape, as numpy lays it out.

    The rule (each dim's stride is the size of the block of the dims inside it, rounded up to a
    multiple of ``align_at[i]`` or set to ``pitch_at[i]``) is handed to numpy as a nested dtype:
    the block inside dim ``i`` becomes a record of that padded item size, dim ``i`` an array of
    such records. numpy then places every element itself; the strides are read back from the
    view of a real array of one-byte elements (so byte strides are element strides), and the
    size from the array's byte count. No stride is multiplied out here.
    """
    assert all(n >= 1 for n in shape), "the oracle lays out non-empty shapes only"
    pitch_at, align_at = pitch_at or {}, align_at or {}
    block = np.dtype(np.uint8)  # one element, one byte
    for i in reversed(range(len(shape))):
        width = block.itemsize
        if i in align_at:
            width = len(range(0, width, align_at[i])) * align_at[i]  # the next multiple, by counting
        if i in pitch_at:
            assert pitch_at[i] >= width, "the test asked for a pitch below the packed stride"
            width = pitch_at[i]
        if width != block.itemsize:
            block = np.dtype({"names": ["v"], "formats": [block], "itemsize": width})
        block = np.dtype((block, (shape[i],)))
    arr = np.zeros((), block)  # numpy expands the outermost subarray: shape (shape[0],)
    size = arr.nbytes if shape else 1
    while arr.dtype.names:  # step through the padding records down to the bytes
        arr = arr["v"]
    assert arr.shape == tuple(shape) and arr.dtype == np.uint8
    return tuple(arr.strides), size


def random_array(shape: tuple[int, ...], dtype, rng: np.random.Generator) -> np.ndarray:
    """Random values of ``dtype``: 0/1 for bool, normal floats (complex: both parts), ints in 0..99."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(0, 100, shape).astype(dtype)


def spec_dims(spec: str) -> list[tuple[str, int | None]]:
    """A spec's physical dims as :func:`blocked_physical` takes them: (axis, block or None)."""
    from layouts import parse  # the grammar only: no offsets, no plan

    return [(d.axis, d.block if d.is_block else None) for d in parse(spec).dims]


def physical(logical: np.ndarray, axes: str, spec: str) -> np.ndarray:
    """``spec``'s physical array of ``logical`` (dims in ``axes`` order), by numpy alone."""
    return blocked_physical(logical, axes, spec_dims(spec))


def blobproto(**fields):
    """A caffe.BlobProto message with ``fields``, built by protobuf itself from the schema (no
    layouts code reads or writes it): ``shape=[...]`` fills ``shape.dim``, lists extend, the rest set."""
    from layouts.interop.caffe_schema import messages

    m = messages()["BlobProto"]()
    for k, v in fields.items():
        if k == "shape":
            m.shape.dim.extend(v)
        elif isinstance(v, list):
            getattr(m, k).extend(v)
        else:
            setattr(m, k, v)
    return m


def opencv_scalar(value) -> np.ndarray:
    """OpenCV's ``Scalar`` as ``cv2`` builds it from Python: None is all zeros, one number fills
    channel 0 only (``Scalar(v)``), a sequence up to four channels, the rest 0."""
    out = np.zeros(4)
    if value is None:
        return out
    values = np.atleast_1d(np.asarray(value, dtype=float))
    out[:values.size] = values
    return out


#: why the CuTe cross-checks skip without pycute, and how to add it (the README's test section says it too)
PYCUTE_MISSING = ("pycute (the CuTe oracle) is not installed: it ships inside CUTLASS's wheel, whose declared dependencies pull CUDA packages, so the test extra cannot ask for it; add it with pip install --no-deps nvidia-cutlass==4.2.0.0 (never pip install pycute, another project)")
