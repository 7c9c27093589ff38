"""``convert_inplace``: change a tensor's layout inside its own memory.

A conversion between two layouts without padding is a permutation of the tensor's elements.
The plan here (pure Python, cached) turns it into a few *passes*, each a batched 2-D
transposition ``(B, M, N, I) -> (B, N, M, I)`` of the buffer (``I`` contiguous elements move
together), and picks for each pass how to do it in bounded memory:

- ``scratch``: the ``M x N`` blocks of a few batches fit the scratch budget: copy them out, and
  transpose them back into place with :func:`layouts.kernels.copy_into` (the same way a pass may
  reorder 3-5 trailing dims at once, e.g. ``(N, t, C) -> (C, t, N)``);
- ``chunks``: ``I`` is long (>= 16 bytes): follow the cycles of ``i -> i*M mod (MN-1)`` over
  whole chunks, with a bit per chunk to mark the visited ones;
- ``square``: ``M == N``: swap mirrored tiles, no scratch;
- ``split``: ``N = N1 * t`` (or ``M = M1 * s``): a chunk pass over ``M x N1`` chunks of ``t*I``
  elements, then a scratch pass over the ``M x t`` blocks (Gustavson-style);
- ``ckg``: when nothing above fits: Catanzaro-Keller-Garland (PPoPP 2014), a column rotation, a
  row shuffle and a column shuffle with ``max(M, N)`` elements of scratch.

The passes are chosen by a shortest-path search over the orders of the (merged) dims, each
move weighted by its method's measured cost, also with one merged dim cut in two (so that
NHWC -> CHWN becomes long-chunk, small-block, long-chunk passes). Extra memory is bounded by :func:`scratch_budget`:
``max(1% of x.nbytes, 64 KiB)`` in all, over all threads; the only exception is a ``ckg``
pass, used when neither side of an ``M x N`` transposition factors into pieces that fit: it
needs one row or column of ``max(M, N)`` elements (its indices are closed-form, nothing else is
stored, and its undo is the same size), so the bound is then
``max(1% of x.nbytes, 64 KiB) + max(M, N) * itemsize`` -- ``O(largest axis)`` when M and N are
single axes, but M or N may be merged axes (one RGB image NCHW -> NHWC is a ``3 x HW``
transposition: ``HW`` elements, a third of the tensor).

>>> import numpy as np, layouts as ly
>>> x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
>>> want = x.transpose(0, 2, 3, 1).copy()
>>> y = ly.convert_inplace(x, "NCHW", "NHWC")
>>> y.shape, np.shares_memory(y, x), np.array_equal(y, want)
((2, 4, 5, 3), True, True)
>>> [p.method for p in plan_inplace("NCHW", "CHWN", (128, 64, 56, 56), "float32", threads=1).passes]
['split']
"""

from __future__ import annotations

import warnings
from typing import Any, Mapping

import numpy as np

from .. import settings
from ..arrays.foreign import is_torch_tensor
from ..errors import LayoutError, LayoutTypeError, LayoutWarning
from ..named.layout import Layout
from .methods import scratch_budget
from .plan import InplacePlan, Pass, fine_dims, plan_passes
from .run import run_segments, segments
from ..named.torch_names import in_memory_order, read_as_named
from ..request import beyond_specs, layout_name, own_sizes, resolve, reworded
from .signals import SignalHold
from ..named.spec import parse

__all__ = ["convert_inplace", "plan_inplace", "scratch_budget", "InplacePlan", "Pass"]

# ---------------------------------------------------------------------------- layouts
def _layouts(shape: tuple[int, ...], src: Any, dst: Any, byte_sized: bool, dims: Mapping[str, int]) -> tuple[Layout, Layout]:
    """Both layouts (:func:`layouts.request.resolve`: convert's defaults, checks and messages),
    plus a flat ``x`` and the in-place limits (no pitch, no padding)."""
    return _request(shape, src, dst, byte_sized, dims)[0:2]


def _request(shape: tuple[int, ...], src: Any, dst: Any, byte_sized: bool, dims: Mapping[str, int]):
    if not isinstance(src, (str, Layout)) or not isinstance(dst, (str, Layout)):
        resolve(src, dst, shape)  # the wrong kind, worded as every entry does
    flat = len(shape) == 1
    if flat and isinstance(src, Layout) and shape != src.shape:
        if shape[0] != src.size:
            raise LayoutError(f"a flat x for {src!r} must hold {src.size} elements, got {shape[0]}")
        shape = src.shape
    elif flat and isinstance(src, str) and len(parse(src).dims) != 1:  # a flat buffer: every size from dims
        spec = parse(src)
        s = Layout(spec, **own_sizes(spec, dims))
        if s.size != shape[0]:
            raise LayoutError(f"a flat x for {s!r} must hold {s.size} elements, got {shape[0]}")
        shape = s.shape
    request = resolve(src, dst, shape, "u1" if byte_sized else None, **dims)
    s, d = request.src, request.dst
    for name, L in (("source", s), ("destination", d)):
        if L.pitch or L.align:
            raise LayoutError(f"the {name} layout {L!r} has pitched rows (pitch/align): its gaps make it a different "
                              f"size than the packed tensor; pitched layouts convert out of place only (ly.convert)")
    if s.has_padding:
        raise LayoutError(f"the source layout {s!r} holds {s.size - s.count} padding slots; in place, both layouts "
                          f"must be padding-free (convert it out of place with ly.convert)")
    if d.has_padding:
        padded = ", ".join(f"{a} padded to {n}" for a, n in d.padded_dims.items() if n != d.dims[a])
        raise LayoutError(f"the destination {d!r} needs {d.size} elements ({padded}), but x's buffer holds "
                          f"{s.size}: it would need {d.size - s.size} more elements; in place, every block must "
                          f"divide its axis (ly.convert pads into a new array)")
    return s, d, request


def plan_inplace(src: str | Layout, dst: str | Layout, shape: tuple[int, ...], dtype: Any, *,
                 threads: int | None = None, budget: int | None = None, **dims: int) -> InplacePlan:
    """The plan :func:`convert_inplace` would run for an array of ``shape`` and ``dtype``; with
    ``budget``, the plan within that many bytes of scratch instead of :func:`scratch_budget`'s
    (more scratch can mean fewer passes: what a file converted in place wants).

    >>> p = plan_inplace("NCHW", "NHWC", (128, 64, 56, 56), "float32", threads=1)
    >>> [(q.B, q.dims, q.perm, q.method) for q in p.passes], p.scratch_bytes <= p.budget
    ([(128, (64, 3136, 1), (1, 0, 2), 'scratch')], True)
    """
    dt = np.dtype(dtype)
    shape = tuple(int(n) for n in shape)
    s, d = _layouts(shape, src, dst, dt.itemsize == 1, dims)
    return _plan_for(s, d, dt, threads, None if budget is None else int(budget))


def _plan_for(s: Layout, d: Layout, dt: np.dtype, threads: int | None, budget: int | None = None) -> InplacePlan:
    from ..kernels.runtime.pool import thread_count
    nth = thread_count(settings.check_threads(threads) if threads is not None else settings.get_threads())
    sizes, order = fine_dims(s, d)
    return plan_passes(sizes, order, dt.itemsize, s.size * dt.itemsize, nth, budget=budget)


# ---------------------------------------------------------------------------- the public entry
def convert_inplace(x: np.ndarray, src: str | Layout, dst: str | Layout, *, threads: int | None = None,
                    **dims: int) -> np.ndarray:
    """Convert ``x`` from layout ``src`` to ``dst`` in its own memory; return the ``dst``-shaped view.

    Parameters
    ----------
    x : ndarray or torch.Tensor
        A writable, C-contiguous array in ``src``'s physical shape, or a flat (1-D, contiguous)
        buffer of the tensor's size (then every size comes from ``dims`` or a ``src`` Layout).
        A CPU torch tensor (or a DLPack capsule of one) is converted in its own memory and a
        tensor over it comes back; ``src`` may name its shape's axes (``"NCHW"``: a strided
        tensor moves its memory as it lies, a channels_last one from NHWC) or its memory order
        (``"NHWC"`` for channels_last), see :mod:`layouts.named.torch_names`.
    src, dst : str or Layout
        Padding-free layouts of the same axes: any permutation, blocks that divide their axis
        (``NCHW`` <-> ``NCHW16c`` with ``C % 16 == 0``, ``NC1HWC0``). Pitched/aligned layouts
        and destinations that would need padding are refused (a ``LayoutError`` that says how
        many more elements the destination needs).
    threads : int, optional
        As in :func:`layouts.convert`; the result does not depend on it.
    **dims : int
        Sizes the shape cannot tell (``C0=``, or every axis for a flat ``x``).

    Returns
    -------
    ndarray
        A view of ``x``'s buffer with ``dst``'s physical shape (``np.shares_memory(result, x)``).
        ``x`` itself keeps its shape and now holds the bytes of the destination layout.

    Notes
    -----
    Extra memory: at most :func:`scratch_budget` (``max(1% of x.nbytes, 64 KiB)``), over all
    threads, allocated before the first write; :func:`plan_inplace` tells the passes and the
    exact scratch. The only exception is a ``ckg`` pass (an ``M x N`` transposition where
    neither side factors into pieces that fit; ``plan_inplace(...).passes`` shows its ``dims``),
    which needs one line of ``max(M, N)`` elements: then the bound is ``max(1% of x.nbytes,
    64 KiB) + max(M, N) * x.itemsize`` (``O(largest axis)`` for single axes; merged axes such as
    ``HW`` count as one, up to half the tensor for a ``2 x n`` transposition).

    Every argument is checked and all scratch allocated and kernels compiled before the first
    byte moves. Whatever stops the passes -- Ctrl-C, a signal handler that raises (``SystemExit``
    from a SIGTERM handler), ``MemoryError``, any exception -- ``x`` holds its source layout when
    the exception propagates: signals handled in Python are held to the end of a step
    (:mod:`layouts.inplace.signals`) and what had moved is undone (:mod:`layouts.inplace.run`). One
    that arrives after the last pass finds the work done: ``x`` holds ``dst`` and the message
    says so.

    Examples
    --------
    >>> import numpy as np, layouts as ly
    >>> x = np.arange(2 * 32 * 3 * 3, dtype=np.int16).reshape(2, 32, 3, 3)
    >>> want = ly.convert(x, "NCHW", "NCHW16c")
    >>> y = ly.convert_inplace(x, "NCHW", "NCHW16c")
    >>> y.shape, np.array_equal(y, want), np.shares_memory(x, y)
    ((2, 2, 3, 3, 16), True, True)
    >>> ly.convert_inplace(np.zeros((1, 20, 2, 2)), "NCHW", "NCHW16c")
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: convert_inplace('NCHW' -> 'NCHW16c', x shape (1, 20, 2, 2)): the destination Layout('NCHW16c', N=1, C=20, H=2, W=2) needs 128 elements (C padded to 32), but x's buffer holds 80: it would need 48 more elements; in place, every block must divide its axis (ly.convert pads into a new array)
    """
    try:
        if beyond_specs(src, dst):
            return _any_kinds_inplace(x, src, dst, threads, dims)
        if is_torch_tensor(x) or type(x).__name__ == "PyCapsule":
            return _torch_inplace(x, src, dst, threads, dims)
        return _convert_inplace(x, src, dst, threads, dims)
    except LayoutError as err:
        shape = getattr(x, "shape", None)
        shape = tuple(shape) if shape is not None and not isinstance(shape, tuple) else shape  # torch.Size
        raise reworded(err, "convert_inplace", src, dst, shape=shape, label="x shape") from None


def _torch_inplace(x: Any, src: Any, dst: Any, threads: Any, dims: Mapping[str, int]) -> Any:
    """A torch tensor (or a DLPack capsule of one) converted in its own memory; a tensor over that
    memory in ``dst``'s physical shape comes back. ``src`` names the shape's axes or the memory's
    order (:mod:`layouts.named.torch_names`); a strided tensor moves its memory as it lies."""
    from ..arrays.foreign import as_numpy, bump_version, from_capsule

    def warn(message: str) -> None:
        warnings.warn(f"convert_inplace({layout_name(src)} -> {layout_name(dst)}): {message}", LayoutWarning,
                      stacklevel=4)

    t = from_capsule(x, "x")
    arr, back, _ = as_numpy(t, "x", writable=True, copy=False)
    named = read_as_named(arr, src, "x", warn)
    arr, spec = in_memory_order(arr, src) if named is arr else (named, src)
    result = _convert_inplace(arr, spec, dst, threads, dims)
    bump_version(t)
    return back(result)


def _any_kinds_inplace(x: Any, src: Any, dst: Any, threads: Any, dims: Mapping[str, int]) -> Any:
    """An in-place conversion with a layout of another kind (CuTe, linear) on either side: both
    strided and filling the same buffer exactly, so that the conversion permutes its modes. The
    common modes of the two strided forms become the axes of two framework specs, one per side,
    each listing them in that side's memory order, and the framework path converts between them."""
    from ..arrays.foreign import as_numpy, bump_version, from_capsule
    from ..conversion.generic import common_modes, kinds
    t = from_capsule(x, "x")
    arr, back, _ = as_numpy(t, "x", writable=True, copy=False) if is_torch_tensor(t) else (t, None, None)
    _check_array(arr)
    s, d = kinds(src, dst, dims, arr.shape if arr.ndim > 1 else None)
    if s.buffer_size != arr.size:
        raise LayoutError(f"x holds {arr.size} elements, but src {s.label} fills a buffer of {s.buffer_size}")
    sf, df = s.strided(), d.strided()
    for side, kind, form in (("src", s, sf), ("dst", d, df)):
        if form is None or not kind.compact or kind.buffer_size != s.buffer_size:
            raise LayoutError(f"in place, both layouts must be strided and fill the same buffer exactly (a permutation "
                              f"of its elements); {side} {kind.label} does not (ly.convert converts it out of place)")
    modes = common_modes(sf, df)
    if modes is None or len(modes) > 26:
        raise LayoutError(f"src {s.label} and dst {d.label} share no common modes to transpose in place "
                          f"(ly.convert converts them out of place)")
    names = [chr(ord("A") + k) for k in range(len(modes))]
    sizes = {n: m[0] for n, m in zip(names, modes)}
    in_src = "".join(n for n, _ in sorted(zip(names, modes), key=lambda e: -e[1][1])) or "A"
    in_dst = "".join(n for n, _ in sorted(zip(names, modes), key=lambda e: -e[1][2])) or "A"
    sizes = sizes or {"A": arr.size}
    _convert_inplace(arr.reshape(-1), in_src, in_dst, threads, sizes)
    result = d.array(arr.reshape(-1))
    if back is None:
        return result
    bump_version(t)
    return back(result)


def _check_array(x: Any) -> None:
    if not isinstance(x, np.ndarray):
        raise LayoutTypeError(f"convert_inplace needs a numpy array to convert in its own memory, got {type(x).__name__} "
                        f"(use ly.convert for other inputs)")
    if x.dtype.hasobject:
        raise LayoutError(f"dtype {x.dtype} holds Python objects; in-place conversion moves numeric and bool data only")
    if x.dtype.itemsize == 0:
        raise LayoutError(f"x has dtype {x.dtype} of item size 0: there are no bytes to move")
    if not x.flags.writeable:
        raise LayoutError("x is read-only; convert_inplace writes into x's buffer (pass a writable array or use ly.convert)")
    if not x.flags.c_contiguous:
        raise LayoutError(f"x is not C-contiguous (strides {x.strides}); convert_inplace needs one packed buffer "
                          f"(np.ascontiguousarray(x) first, or ly.convert)")


def _convert_inplace(x: Any, src: Any, dst: Any, threads: Any, dims: Mapping[str, int]) -> np.ndarray:
    _check_array(x)
    if threads is not None:
        settings.check_threads(threads)
    s, d, request = _request(x.shape, src, dst, x.dtype.itemsize == 1, dims)
    if x.size == 0 or x.ndim == 0:
        return x.reshape(d.shape)
    plan = _plan_for(s, d, x.dtype, threads)
    warning = request.padding_warning(x.reshape(s.shape))  # convert's warning: a blocked source's padding read as data
    if warning:  # after every check, before the first write: a warning made an error leaves x untouched
        warnings.warn(f"convert_inplace({layout_name(src)} -> {layout_name(dst)}): {warning}", LayoutWarning,
                      stacklevel=3)
    if plan.passes:
        run_plan(x.reshape(-1).view(np.uint8), plan, SignalHold(), d.shape)
    return x.reshape(d.shape)


def run_plan(buf: np.ndarray, plan: InplacePlan, hold: SignalHold, dst_shape: tuple | None = None) -> None:
    """Run ``plan`` on the byte buffer ``buf`` (:func:`layouts.inplace.run.run_segments`): scratch
    allocated and kernels compiled first, signals held to step boundaries, what moved undone on
    any exception."""
    from .driver import warm  # numba loads here
    scratch = np.empty(plan.scratch_bytes, np.uint8)
    warm(buf, plan)
    run_segments(buf, segments(plan), scratch, hold, dst_shape)
