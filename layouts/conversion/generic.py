"""Moving data between CuTe layouts: ``ly.convert(x, src, dst)`` when either is a CuTe layout.

``x`` is the 1-D buffer holding the tensor in ``src``; the result is a 1-D buffer of
``cosize(dst)`` elements with ``result[dst(i)] == x[src(i)]`` for every index ``i`` (slots no
``dst(i)`` reaches are zero). Two plain layouts are a pair of strided views once their flat
modes are refined to a common shape, and go through the copy engine
(:func:`layouts.kernels.copy_into`); a swizzled side goes through a numba gather/scatter kernel
(the registry's ``swizzle`` strategy, :mod:`layouts.kernels.strategies.swizzle`); shapes without a common refinement fall back to numpy's
fancy indexing. A :class:`layouts.Layout` (or spec with ``**dims``) on either side is read
through :func:`layouts.cute.bridge.to_cute`.

>>> import numpy as np, layouts as ly
>>> from layouts import cute
>>> x = np.arange(6)
>>> ly.convert(x, cute.Layout((2, 3)), cute.Layout((2, 3), (3, 1))).tolist()
[0, 2, 4, 1, 3, 5]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..arguments import MAX_ELEMENTS
from ..errors import LayoutError, LayoutTypeError, type_name
from ..kinds import OffsetTable, memory_form
from ..cute import int_tuple as it
from ..cute.layout import Layout, cosize
from ..cute.swizzle import ComposedLayout, _compact

__all__ = ["is_cute", "convert_cute", "common_modes"]


def is_cute(obj: Any) -> bool:
    """True for a CuTe layout (plain or swizzled).

    >>> is_cute(Layout(4)), is_cute("NCHW")
    (True, False)
    """
    return isinstance(obj, (Layout, ComposedLayout))


def _as_cute(layout: Any, dims: dict, what: str) -> Any:
    from ..named.layout import Layout as NamedLayout
    form = memory_form(layout)      # a CuTe layout is its own form; a linear layout gives its CuTe form or a table
    if form is not None:
        return form
    if isinstance(layout, str):
        if not dims:
            raise LayoutError(f"{what} {layout!r} beside a CuTe layout needs its sizes: pass them as **dims "
                              "or give a layouts.Layout")
        layout = NamedLayout(layout, **dims)
    if isinstance(layout, NamedLayout):
        return layout.to_cute()
    raise LayoutTypeError(f"{what} must be a CuTe or linear layout, a layouts.Layout or a spec string, "
                          f"got {type_name(layout)}")


def _flat(layout: Layout) -> tuple[list[int], list[int]]:
    shapes, strides = it.flatten(layout.shape), it.flatten(layout.stride)
    if not it.is_tuple(shapes):
        shapes, strides = (shapes,), (strides,)
    return [s for s in shapes], [d for d in strides]


def common_modes(a: Layout, b: Layout) -> list[tuple[int, int, int]] | None:
    """Modes ``(size, stride in a, stride in b)``, fastest first, that enumerate the indices of
    both layouts alike; None when their flat shapes have no common refinement.

    >>> common_modes(Layout((4, 6)), Layout((8, 3), (3, 1)))
    [(8, 1, 3), (3, 8, 1)]
    """
    sa, da = _flat(a)
    sb, db = _flat(b)
    pa = [(s, d) for s, d in zip(sa, da) if s != 1]
    pb = [(s, d) for s, d in zip(sb, db) if s != 1]
    out: list[tuple[int, int, int]] = []
    i = j = 0
    ra = pa[0][0] if pa else 1
    rb = pb[0][0] if pb else 1
    ca = pa[0][1] if pa else 0
    cb = pb[0][1] if pb else 0
    while i < len(pa) and j < len(pb):
        if ra % rb == 0:
            m = rb
        elif rb % ra == 0:
            m = ra
        else:
            return None
        if out and out[-1][0] * out[-1][1] == ca and out[-1][0] * out[-1][2] == cb:
            out[-1] = (out[-1][0] * m, out[-1][1], out[-1][2])
        else:
            out.append((m, ca, cb))
        ra //= m
        rb //= m
        ca *= m
        cb *= m
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


def _check_range(layout: Any, what: str, n: int | None = None) -> None:
    inner = layout.inner if isinstance(layout, ComposedLayout) else layout
    shapes, strides = _flat(inner)
    low = sum((s - 1) * d for s, d in zip(shapes, strides) if d < 0 and s > 0)
    if isinstance(layout, ComposedLayout):
        low += layout.offset
    if low < 0:
        raise LayoutError(f"{what} {layout} reaches negative offsets; a buffer starts at offset 0")
    if n is not None and layout.size() and cosize_exact(layout) > n:
        raise LayoutError(f"x holds {n} elements, but src {layout} reaches offset {cosize_exact(layout) - 1}")


def cosize_exact(layout: Any) -> int:
    """One past the largest offset (any strides, swizzled or not).

    >>> cosize_exact(Layout((3, 2), (-1, 4)))
    5
    """
    if isinstance(layout, ComposedLayout):
        return layout.cosize()
    return cosize(layout) if all(d >= 0 for d in _flat(layout)[1]) else int(layout.offsets().max()) + 1


def _injective(layout: Any) -> bool:
    inner = layout.inner if isinstance(layout, ComposedLayout) else layout
    modes = sorted((abs(d), s) for s, d in zip(*_flat(inner)) if s != 1)
    span = 1
    ok = True
    for d, s in modes:
        if d < span:
            ok = False
            break
        span = d * s
    if ok:
        return True  # a swizzle is a bijection: it keeps an injective inner layout injective
    offs = layout.offsets()
    return np.unique(offs).size == offs.size


def convert_cute(x: Any, src: Any, dst: Any, out: Any = None, *, threads: int | None = None,
                 copy: bool | None = True, **dims: int) -> np.ndarray:
    """``result[dst(i)] = x[src(i)]`` for every index ``i`` (see the module docstring).

    Parameters
    ----------
    x : 1-D array_like
        The buffer holding the tensor in ``src`` (when ``src`` is a :class:`layouts.Layout`,
        also an array of its physical shape).
    src, dst : CuTe Layout, swizzled layout, layouts.Layout or spec string (with ``**dims``)
        Of equal size.
    out : 1-D ndarray, optional
        Where to write (at least ``cosize(dst)`` elements, x's dtype); the slots below ``cosize(dst)`` that
        ``dst`` does not reach are zeroed.
    threads : int, optional
        Threads for the copy engine.
    copy : bool or None
        ``True`` or ``None``: a new buffer (or ``out``); ``False`` is refused, since the result is
        always a buffer of its own (never a view of ``x``).

    Examples
    --------
    >>> import numpy as np
    >>> from layouts.cute import Layout, Swizzle, composition
    >>> convert_cute(np.arange(4), Layout(4), composition(Swizzle(1, 0, 1), Layout((2, 2), (2, 1)))).tolist()
    [0, 2, 3, 1]
    >>> convert_cute(np.arange(4), Layout(4), Layout(6))
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: src 4:1 has 4 elements but dst 6:1 has 6; the sizes must match
    """
    from ..named.layout import Layout as NamedLayout
    if copy is not None and not isinstance(copy, (bool, np.bool_)):
        raise LayoutTypeError(f"copy must be True, False or None, got {type_name(copy)}")
    if copy is False:
        raise LayoutError("copy=False never copies, but a conversion with a CuTe layout writes a buffer of its "
                          "own (a view of x cannot follow a CuTe layout); pass copy=True or None")
    xa = np.asarray(x)
    if isinstance(src, str) and xa.ndim > 1:  # an array of the spec's physical shape: its sizes come from it
        named_src = NamedLayout.from_shape(src, xa.shape, **dims)
    else:
        named_src = NamedLayout(src, **dims) if isinstance(src, str) and dims else src
    s = _as_cute(named_src, dims, "src")
    d = _as_cute(dst, dims, "dst")
    if isinstance(named_src, NamedLayout) and xa.ndim > 1:
        if xa.shape != named_src.shape:
            raise LayoutError(f"x has shape {xa.shape}, but src {named_src!r} has physical shape {named_src.shape}")
        buf = np.zeros(named_src.size, dtype=xa.dtype)
        named_src.view(buf)[...] = xa
        xa = buf
    if xa.ndim != 1:
        raise LayoutError(f"x must be the 1-D buffer holding the tensor in src, got an array of shape {xa.shape}")
    if s.size() != d.size():
        raise LayoutError(f"src {s} has {s.size()} elements but dst {d} has {d.size()}; the sizes must match")
    if isinstance(s, OffsetTable) or isinstance(d, OffsetTable):
        return _by_table(xa, s, d, out)
    _check_range(s, "src", xa.size)
    _check_range(d, "dst")
    if not _injective(d):
        raise LayoutError(f"dst {d} maps two indices to one offset; a destination must be injective")
    n_out = cosize_exact(d) if d.size() else 0
    if n_out > MAX_ELEMENTS:
        raise LayoutError(f"dst {d} spans {n_out} elements (its cosize), past what int64 offsets and an array can hold "
                          f"({MAX_ELEMENTS}); a destination must fit in memory")
    inner = d.inner if isinstance(d, ComposedLayout) else d
    full = d.size() == n_out and _compact(inner)  # every slot is written: no zero fill needed
    if out is None:
        result = np.empty(n_out, dtype=xa.dtype) if full else np.zeros(n_out, dtype=xa.dtype)
    else:
        result = _check_out(out, n_out, xa.dtype)
        if not full:
            result[:n_out] = 0
    if s.size() == 0:
        return result
    if isinstance(s, ComposedLayout) or isinstance(d, ComposedLayout):
        _swizzled(result, xa, s, d)
    else:
        _plain(result, xa, s, d, threads)
    return result


def _table(layout: Any) -> OffsetTable:
    return layout if isinstance(layout, OffsetTable) else OffsetTable(layout.offsets(), str(layout))


def _by_table(x: np.ndarray, s: Any, d: Any, out: Any) -> np.ndarray:
    """A side given by its offsets alone: numpy's gather and scatter (zeros where dst reaches nothing)."""
    s, d = _table(s), _table(d)
    if s.size() and s.cosize() > x.size:
        raise LayoutError(f"x holds {x.size} elements, but src {s} reaches offset {s.cosize() - 1}")
    if not d.is_injective():
        raise LayoutError(f"dst {d} maps two indices to one offset; a destination must be injective")
    n_out = d.cosize()
    if n_out > MAX_ELEMENTS:
        raise LayoutError(f"dst {d} spans {n_out} elements, past what an array can hold ({MAX_ELEMENTS})")
    result = np.zeros(n_out, dtype=x.dtype) if out is None else _check_out(out, n_out, x.dtype)
    if out is not None:
        result[:n_out] = 0
    result[d.offsets()] = x[s.offsets()]
    return result


def _check_out(out: Any, n: int, dtype: np.dtype) -> np.ndarray:
    if not isinstance(out, np.ndarray):
        raise LayoutTypeError(f"out must be a numpy array, got {type_name(out)}")
    if out.ndim != 1 or out.size < n:
        raise LayoutError(f"out must be 1-D with at least cosize(dst) = {n} elements, got shape {out.shape}")
    if out.dtype != dtype:
        raise LayoutError(f"out has dtype {out.dtype}, expected {dtype} (x's dtype; convert does not cast)")
    if not out.flags.writeable:
        raise LayoutError("out is read-only")
    return out


def _plain(result: np.ndarray, x: np.ndarray, s: Layout, d: Layout, threads: int | None) -> None:
    modes = common_modes(s, d)
    if modes is None:  # no common refinement: gather / scatter by offsets
        result[d.offsets()] = x[s.offsets()]
        return
    modes = view_modes(modes)
    shape = tuple(m[0] for m in modes)
    src_view = np.lib.stride_tricks.as_strided(x, shape=shape, strides=tuple(m[1] * x.strides[0] for m in modes),
                                               writeable=False)
    dst_view = np.lib.stride_tricks.as_strided(result, shape=shape,
                                               strides=tuple(m[2] * result.strides[0] for m in modes))
    if math.prod(shape) * x.itemsize < 1 << 16 or x.dtype.hasobject:
        np.copyto(dst_view, src_view)
        return
    from ..kernels import copy_into
    copy_into(dst_view, src_view, threads=threads)


def _swizzle_params(layout: Any) -> tuple[int, int, int]:
    if isinstance(layout, ComposedLayout):
        return layout.offset, layout.outer.yyy_mask, layout.outer.shift
    return 0, 0, 0


def _swizzled(result: np.ndarray, x: np.ndarray, s: Any, d: Any) -> None:
    """A swizzled side: the registry's ``swizzle`` strategy over the common modes of the two inner
    layouts (numpy's gather by offsets where they have none, or the strategy is disabled)."""
    si = s.inner if isinstance(s, ComposedLayout) else s
    di = d.inner if isinstance(d, ComposedLayout) else d
    modes = common_modes(si, di)
    if modes is None or x.dtype.hasobject or x.itemsize not in (1, 2, 4, 8) or not x.flags.c_contiguous:
        result[d.offsets()] = x[s.offsets()]
        return
    from ..kernels import current
    from ..kernels.plan import make_plan
    from ..kernels.registry import choose
    from ..kernels.strategy import Task
    modes = view_modes(modes)
    shape = tuple(m[0] for m in modes)
    src_view = np.lib.stride_tricks.as_strided(x, shape=shape, strides=tuple(m[1] * x.itemsize for m in modes),
                                               writeable=False)
    dst_view = np.lib.stride_tricks.as_strided(result, shape=shape, strides=tuple(m[2] * result.itemsize for m in modes))
    task = Task(make_plan(dst_view, src_view), result.ctypes.data, x.ctypes.data,
                swizzle=(_swizzle_params(s), _swizzle_params(d)), buffers=(result, x))
    c, _ = choose(task, current())
    if c.strategy != "swizzle":                 # turned off in the profile: numpy's gather
        result[d.offsets()] = x[s.offsets()]
        return
    c.run(dst_view, src_view, None, None, 1)
