"""Conversions between layouts of any kinds: ``ly.convert(x, src, dst)`` when either side is not a
framework layout (a CuTe layout, a linear layout, an offset table; a framework layout or a spec
on the other side).

Every element ``i`` of the common domain moves: ``result[dst(i)] = x[src(i)]``, where ``src(i)``
and ``dst(i)`` are the offsets the two layouts give element ``i`` (:mod:`layouts.kinds`: a
framework layout's elements are its logical ones, so padding stays padding); slots of the result
that no element reaches are zero. Only the protocol's questions are asked here:

- two strided forms become one pair of same-shape views once their modes are refined to a
  common shape, and the copy engine moves them (:func:`layouts.kernels.copy_into`);
- a swizzled form on either side goes through the registry's ``swizzle`` strategy, a numba
  gather/scatter over the common modes of the inner forms;
- anything else is moved by its offset tables (numpy's gather and scatter).

``x`` is the buffer of ``src`` (1-D), or the array a layout names (a framework layout's physical
array); the result is ``dst``'s array over a new buffer (1-D but for a framework layout).

>>> import numpy as np, layouts as ly
>>> from layouts import cute
>>> x = np.arange(6)
>>> ly.convert(x, cute.Layout((2, 3)), cute.Layout((2, 3), (3, 1))).tolist()
[0, 2, 4, 1, 3, 5]
>>> z = ly.convert(np.arange(20.0), cute.Layout(20), ly.Layout("NCHW16c", N=1, C=20, H=1, W=1))
>>> z.shape, z[0, 1, 0, 0, :5].tolist()            # C=20 in two blocks of 16: the last 12 slots zero
((1, 2, 1, 1, 16), [16.0, 17.0, 18.0, 19.0, 0.0])
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from .._args import MAX_ELEMENTS
from ..errors import LayoutError, LayoutTypeError, type_name
from ..kinds import Kind, Strided, require_kind
from ..request import bind

__all__ = ["convert_generic", "kinds", "gather_table", "common_modes", "view_modes"]


def convert_generic(x: np.ndarray, src: Any, dst: Any, out: np.ndarray | None = None, *,
                    threads: int | None = None, copy: bool | None = True,
                    dims: Mapping[str, int] | None = None) -> np.ndarray:
    """``result[dst(i)] = x[src(i)]`` for every element ``i`` (see the module), on numpy arrays.

    ``src`` and ``dst`` are layouts of any kind, or spec strings bound to sizes by ``dims`` (a
    source spec also by ``x``'s shape); ``out``, when given, is ``dst``'s array or a 1-D buffer
    holding at least as many elements; ``copy=False`` is refused (the result is always a buffer
    of its own).

    >>> from layouts import cute
    >>> convert_generic(np.arange(4), cute.Layout(4), cute.Layout(6)).tolist()
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: src 4:1 has 4 elements but dst 6:1 has 6; the sizes must match
    """
    dims = dict(dims or {})
    if copy is not None and not isinstance(copy, (bool, np.bool_)):
        raise LayoutTypeError(f"copy must be True, False or None, got {type_name(copy)}")
    if copy is False:
        raise LayoutError("copy=False never copies, but a conversion between these layouts writes a buffer of its "
                          "own (a view of x cannot follow them); pass copy=True or None")
    if x.dtype.hasobject:
        raise LayoutError(f"dtype {x.dtype} holds Python objects; convert moves numeric and bool data only")
    s, d = kinds(src, dst, dims, x.shape if x.ndim > 1 else None)
    buffer = _source_buffer(x, s)
    n_out = _checked(s, d, buffer.size)
    full = d.size == n_out          # injective and as many elements as slots: every slot is written
    if out is None:
        flat = (np.empty if full else np.zeros)(n_out, dtype=x.dtype)
        result = d.array(flat)
    else:
        result, flat = _checked_out(out, d, n_out, x)
        if not full:
            flat[:n_out] = 0
    if s.size:
        _move(flat, buffer, s, d, threads)
    return result


def kinds(src: Any, dst: Any, dims: Mapping[str, int], shape: tuple | None) -> tuple[Kind, Kind]:
    """The two sides' kinds, specs bound to their sizes (a source spec also to ``shape``, the
    physical shape of the array it names), of equal sizes."""
    s = require_kind(bind(src, dims, shape, "src"), "src")
    d = require_kind(bind(dst, dims, None, "dst"), "dst")
    if s.size != d.size:
        raise LayoutError(f"src {s.label} has {s.size} elements but dst {d.label} has {d.size}; the sizes must match")
    return s, d


def _checked(s: Kind, d: Kind, n_in: int) -> int:
    """The elements of ``d``'s buffer, once both sides are checked against a source buffer of
    ``n_in`` elements: offsets from 0, the source inside it, the destination injective."""
    low, top = _bounds(s)
    if low < 0:
        raise LayoutError(f"src {s.label} reaches negative offsets; a buffer starts at offset 0")
    if s.size and top > n_in:
        raise LayoutError(f"x holds {n_in} elements, but src {s.label} reaches offset {top - 1}")
    low, top = _bounds(d)
    if low < 0:
        raise LayoutError(f"dst {d.label} reaches negative offsets; a buffer starts at offset 0")
    if not d.injective:
        raise LayoutError(f"dst {d.label} maps two elements to one offset; a destination must be injective")
    n_out = d.buffer_size
    if n_out > MAX_ELEMENTS:
        raise LayoutError(f"dst {d.label} spans {n_out} elements, past what int64 offsets and an array can hold "
                          f"({MAX_ELEMENTS}); a destination must fit in memory")
    return n_out


def gather_table(s: Kind, d: Kind, n_in: int) -> np.ndarray:
    """For each slot of ``d``'s buffer, the offset in a source buffer of ``n_in`` elements of the
    element it receives, or -1 where none does (the conversion as one gather: what a lazy array
    such as dask's can run chunk by chunk).

    >>> from layouts import cute
    >>> from layouts.kinds import kind_of
    >>> gather_table(kind_of(cute.Layout(3)), kind_of(cute.Layout(3, 2)), 3).tolist()
    [0, -1, 1, -1, 2]
    """
    n_out = _checked(s, d, n_in)
    table = np.full(n_out, -1, dtype=np.int64)
    if s.size:
        table[d.offsets()] = s.offsets()
    return table


def _source_buffer(x: np.ndarray, kind: Kind) -> np.ndarray:
    """The 1-D buffer of ``src`` that ``x`` is or holds (the layout's array read into its buffer)."""
    if x.ndim == 1:
        return x if x.size <= 1 or x.strides[0] == x.itemsize else np.ascontiguousarray(x)
    if x.shape != kind.array_shape:
        raise LayoutError(f"x has shape {x.shape}, but src {kind.label} is held in an array of shape "
                          f"{kind.array_shape} (or a 1-D buffer)")
    if x.flags.c_contiguous and x.size == kind.buffer_size:      # the array is its buffer, row by row
        return x.reshape(-1)
    buffer = np.zeros(kind.buffer_size, dtype=x.dtype)
    kind.array(buffer)[...] = x
    return buffer


def check_out(out: Any, x: np.ndarray) -> None:
    """What every conversion asks of an ``out`` (named or not): a writable numpy array of ``x``'s
    dtype, apart from ``x``."""
    if not isinstance(out, np.ndarray):
        raise LayoutTypeError(f"out must be a numpy array or a torch tensor, got {type_name(out)}")
    if out.dtype != x.dtype:
        raise LayoutError(f"out has dtype {out.dtype}, expected {x.dtype} (x's dtype; convert does not cast)")
    if not out.flags.writeable:
        raise LayoutError("out is read-only; pass a writable array")
    if np.may_share_memory(out, x):
        raise LayoutError("out overlaps x; convert needs a separate output array")


def _checked_out(out: Any, d: Kind, n_out: int, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(what to return, the flat buffer to write) for a given ``out``."""
    check_out(out, x)
    if out.ndim == 1 and out.size >= n_out and (out.size <= 1 or out.strides[0] == out.itemsize):
        return out, out
    if out.shape == d.array_shape and out.size == n_out and out.flags.c_contiguous:
        return out, out.reshape(-1)
    raise LayoutError(f"out must be dst's array of shape {d.array_shape} or a contiguous 1-D buffer of at least "
                      f"{n_out} elements, got shape {out.shape}")


def _bounds(kind: Kind) -> tuple[int, int]:
    """(smallest offset, one past the largest), from the strided form when there is one."""
    if kind.size == 0:
        return 0, 0
    form = kind.strided()
    if form is not None:
        low = form.base + sum((n - 1) * min(d, 0) for n, d in zip(form.shape, form.strides))
        top = form.base + sum((n - 1) * max(d, 0) for n, d in zip(form.shape, form.strides)) + 1
        return low, top
    offsets = kind.offsets()
    return int(offsets.min()), int(offsets.max()) + 1


def _move(result: np.ndarray, x: np.ndarray, s: Kind, d: Kind, threads: int | None) -> None:
    sf, df = s.strided(), d.strided()
    if sf is not None and df is not None:
        modes = common_modes(sf, df)
        if modes is not None:
            _copy(result, x, view_modes(modes), sf.base, df.base, threads)
            return
    sw_s, sw_d = s.swizzled(), d.swizzled()
    if (sw_s is not None or sw_d is not None) and x.itemsize in (1, 2, 4, 8) and not x.dtype.hasobject:
        inner_s = sf if sw_s is None else sw_s.inner
        inner_d = df if sw_d is None else sw_d.inner
        if inner_s is not None and inner_d is not None and _swizzled(result, x, inner_s, inner_d, sw_s, sw_d):
            return
    result[d.offsets()] = x[s.offsets()]


def common_modes(a: Strided, b: Strided) -> list[tuple[int, int, int]] | None:
    """Modes ``(size, stride in a, stride in b)``, fastest first, that enumerate the elements of
    both strided forms alike; None when their modes have no common refinement.

    >>> common_modes(Strided((4, 6), (1, 4)), Strided((8, 3), (3, 1)))
    [(8, 1, 3), (3, 8, 1)]
    """
    pa = [(n, st) for n, st in zip(a.shape, a.strides) if n != 1]
    pb = [(n, st) for n, st in zip(b.shape, b.strides) if n != 1]
    out: list[tuple[int, int, int]] = []
    i = j = 0
    ra, ca = pa[0] if pa else (1, 0)
    rb, cb = pb[0] if pb else (1, 0)
    while i < len(pa) and j < len(pb):
        # the next common mode: the smaller of the two remaining sizes, if it divides the other
        if ra % rb == 0:
            m = rb
        elif rb % ra == 0:
            m = ra
        else:
            return None
        if out and out[-1][0] * out[-1][1] == ca and out[-1][0] * out[-1][2] == cb:
            out[-1] = (out[-1][0] * m, out[-1][1], out[-1][2])      # continues the last mode on both sides
        else:
            out.append((m, ca, cb))
        ra, rb, ca, cb = ra // m, rb // m, ca * m, cb * m
        if ra == 1:
            i += 1
            if i < len(pa):
                ra, ca = pa[i]
        if rb == 1:
            j += 1
            if j < len(pb):
                rb, cb = pb[j]
    return out


def view_modes(modes: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """The common modes ordered for a C-order pair of views: slowest first by the destination's
    stride (so the last dim writes contiguously), neighbours merged where both strides allow.

    >>> view_modes([(4, 1, 96), (8, 4, 1), (3, 32, 8)])
    [(4, 1, 96), (24, 4, 1)]
    """
    order = sorted(modes, key=lambda m: (abs(m[2]), abs(m[1])), reverse=True)
    out: list[tuple[int, int, int]] = []
    for m in order:
        if out and out[-1][1] == m[0] * m[1] and out[-1][2] == m[0] * m[2]:
            out[-1] = (out[-1][0] * m[0], m[1], m[2])
        else:
            out.append(m)
    return out or [(1, 0, 0)]


def _views(result: np.ndarray, x: np.ndarray, modes: list, s_base: int, d_base: int):
    shape = tuple(m[0] for m in modes)
    item = x.itemsize
    src = np.lib.stride_tricks.as_strided(x[s_base:], shape, tuple(m[1] * item for m in modes), writeable=False)
    dst = np.lib.stride_tricks.as_strided(result[d_base:], shape, tuple(m[2] * item for m in modes))
    return dst, src


def _copy(result: np.ndarray, x: np.ndarray, modes: list, s_base: int, d_base: int, threads: int | None) -> None:
    dst, src = _views(result, x, modes, s_base, d_base)
    if dst.size * x.itemsize < 1 << 16 or x.dtype.hasobject:
        np.copyto(dst, src)
        return
    from ..kernels import copy_into
    copy_into(dst, src, threads=threads)


def _swizzled(result: np.ndarray, x: np.ndarray, inner_s: Strided, inner_d: Strided, sw_s: Any, sw_d: Any) -> bool:
    """The registry's ``swizzle`` strategy over the common modes of the two inner forms; False
    when they have none, or the strategy is turned off in the profile."""
    modes = common_modes(inner_s, inner_d)
    if modes is None or not x.flags.c_contiguous:
        return False
    from ..kernels import current
    from ..kernels.plan import make_plan
    from ..kernels.registry import choose
    from ..kernels.strategy import Task
    # the views give the modes and strides; the kernel walks offsets from each base and swizzles them
    dst, src = _views(result, x, view_modes(modes), 0, 0)
    params = tuple((inner.base, 0, 0) if sw is None else (inner.base, sw.mask, sw.shift)
                   for inner, sw in ((inner_s, sw_s), (inner_d, sw_d)))
    task = Task(make_plan(dst, src), result.ctypes.data, x.ctypes.data, swizzle=params, buffers=(result, x))
    c, _ = choose(task, current())
    if c.strategy != "swizzle":
        return False
    c.run(dst, src, None, None, 1)
    return True
