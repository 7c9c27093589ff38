"""``layouts.convert`` of a ``dask.array.Array``: a lazy array in the destination layout.

The output chunks are planned first, per logical axis: the input's chunking along the axis is
kept (in logical units, whatever block the source has), rounded to a multiple of both layouts'
blocks on that axis so every output chunk is whole blocks (:func:`plan_chunks`); a user may
give ``chunks={"N": 8}`` instead. Each output chunk is then one task of a hand-built graph
that takes exactly the input chunks overlapping its box and runs :func:`layouts.convert` (the
numba kernels, one thread: dask runs the tasks in parallel) between the box's two small
layouts: on a view of the input chunk when the box lies in one (keeping the input chunking
makes that the usual case), piece by piece into the output chunk when the pieces meet on whole
blocks, and only otherwise (input chunks cutting a block) after copying the pieces together. Padding slots
come out zero; no rechunk before or after moves the data a second time.

It works with any scheduler (threads, processes, ``dask.distributed``): the tasks are plain
functions of numpy arrays and picklable arguments. zarr: ``ly.convert(da.from_zarr(a), ...)
.to_zarr(b)``; regular input chunks give regular output chunks, as zarr needs.

>>> import numpy as np, layouts as ly
>>> import dask.array as da                      # the 'dask' extra
>>> x = np.arange(2 * 20 * 3 * 3, dtype=np.float32).reshape(2, 20, 3, 3)
>>> y = ly.convert(da.from_array(x, chunks=(1, 10, 3, 3)), "NCHW", "NCHW16c")
>>> y.chunks                                    # C chunks of 10 rounded to one block of 16
((1, 1), (1, 1), (3,), (3,), (16,))
>>> np.array_equal(y.compute(), ly.convert(x, "NCHW", "NCHW16c"))
True
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Mapping

import numpy as np

from ..errors import LayoutError, LayoutTypeError
from ..request import beyond_specs
from ..named.layout import Layout
from . import _boxes


def convert_dask(d: Any, src: str | Layout, dst: str | Layout, *, out: Any = None, threads: int | None = None,
                 copy: bool | None = True, chunks: Mapping[str, int] | None = None, **dims: int) -> Any:
    """Convert the dask array ``d`` (layout ``src``) to a lazy dask array in layout ``dst``.

    ``threads`` is the kernels' thread count inside each task (default 1); ``chunks`` maps axis
    letters to output chunk sizes in logical elements (rounded up to whole blocks); axes not
    named keep the input's chunking. ``copy`` is accepted as by :func:`layouts.convert`; the
    result is always a new lazy array. ``out=`` has no meaning for a lazy result.

    >>> import dask.array as da, layouts as ly
    >>> d = da.zeros((4, 3, 8, 8), chunks=(2, 3, 8, 8), dtype="uint8")
    >>> ly.convert(d, "NCHW", "NHWC").chunks
    ((2, 2), (8,), (8,), (3,))
    >>> ly.convert(d, "NCHW", "NHWC", chunks={"N": 4, "H": 4}).chunks
    ((4,), (4, 4), (8,), (3,))
    """
    try:
        if beyond_specs(src, dst):
            return _convert_dask_gather(d, src, dst, out, copy, chunks, dims)
        return _convert_dask(d, src, dst, out, threads, copy, chunks, dims)
    except LayoutError as err:
        raise LayoutError(_boxes.message(src, dst, "convert", f"dask input shape {getattr(d, 'shape', None)}: {err}")) from None


def _check_call(d: Any, out: Any, copy: Any) -> None:
    """What every dask conversion refuses: another input, an ``out``, ``copy=False``, chunks of
    unknown size, Python objects."""
    import dask.array as da
    if not isinstance(d, da.Array):
        raise LayoutTypeError(f"expected a dask.array.Array, got {type(d).__name__}")
    if out is not None:
        raise LayoutError("out= is for numpy arrays; a dask result is lazy: store it with .to_zarr(), .store() or .compute()")
    if copy not in (True, None):
        raise LayoutError(f"copy must be True or None, got {copy!r}")
    if any(math.isnan(c) for cs in d.chunks for c in cs):
        raise LayoutError("the dask array has unknown chunk sizes (nan); call .compute_chunk_sizes() first")
    if np.dtype(d.dtype).hasobject:
        raise LayoutError(f"dtype {d.dtype} holds Python objects; convert moves numeric and bool data only")


def _convert_dask_gather(d: Any, src: Any, dst: Any, out: Any, copy: Any, chunks: Any, dims: Mapping[str, int]) -> Any:
    """A conversion with a layout of another kind (CuTe, linear) as one lazy gather: each slot
    of the destination's buffer takes the source element its table names (zero where none does,
    :func:`layouts.conversion.generic.gather_table`), chunk by chunk of the source's buffer."""
    import dask.array as da

    from ..conversion.generic import gather_table, kinds
    _check_call(d, out, copy)
    if chunks is not None:
        raise LayoutError("chunks= names axes of framework layouts; a layout of another kind is converted as one "
                          "gather, in the chunks of its source")
    s, k = kinds(src, dst, dims, tuple(d.shape) if d.ndim > 1 else None)
    if d.ndim > 1:
        if tuple(d.shape) != s.array_shape or s.buffer_size != d.size:
            raise LayoutError(f"x has shape {tuple(d.shape)}, but src {s.label} is held in an array of shape "
                              f"{s.array_shape} (or a 1-D buffer)" if tuple(d.shape) != s.array_shape else
                              f"src {s.label} pads its rows: a dask array has no strides to pitch")
        d = d.reshape(-1)
    table = gather_table(s, k, int(d.shape[0]))
    if k.buffer_size != int(np.prod(k.array_shape)):
        raise LayoutError(f"dst {k.label} pads its rows: a dask array has no strides to pitch; store an unpitched layout")
    hit = table >= 0
    gathered = d[np.where(hit, table, 0)] if table.size else d[:0]
    result = da.where(da.from_array(hit, chunks=gathered.chunks), gathered, np.zeros((), d.dtype))
    return result.reshape(k.array_shape) if len(k.array_shape) > 1 else result


def _convert_dask(d: Any, src: Any, dst: Any, out: Any, threads: Any, copy: Any,
                  chunks: Mapping[str, int] | None, dims: Mapping[str, int]) -> Any:
    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    from .. import settings

    _check_call(d, out, copy)
    threads = 1 if threads is None else settings.check_threads(threads)
    dtype = np.dtype(d.dtype)
    src_L, dst_L = _boxes.resolve(src, dst, tuple(d.shape), dtype.itemsize, dims)
    _boxes.check_unpitched(src_L, "source", "a dask array has no strides to pitch; convert its chunks with numpy")
    _boxes.check_unpitched(dst_L, "destination", "a dask array has no strides to pitch; store an unpitched layout")

    bounds = plan_chunks(src_L, dst_L, d.chunks, chunks)
    out_chunks = _physical_chunks(dst_L, bounds)
    in_edges = [np.concatenate([[0], np.cumsum(c)]).astype(np.int64) for c in d.chunks]
    name = "layouts-convert-" + tokenize(d, src_L.spec, dst_L.spec, tuple(src_L.dims.items()),
                                         tuple(_boxes.params(dst_L).items()), bounds, threads)
    axes = dst_L.axes
    dsk = {}
    for idx in itertools.product(*[range(len(bounds[a]) - 1) for a in axes]):
        box = {a: (int(bounds[a][i]), int(bounds[a][i + 1])) for a, i in zip(axes, idx)}
        chunk_of = dict(zip(axes, idx))
        key = (name,) + tuple(0 if dd.is_block else chunk_of[dd.axis] for dd in dst_L.parsed.dims)
        dsk[key] = _task(d.name, src_L, dst_L, box, in_edges, threads)
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[d])
    meta = np.empty((0,) * dst_L.ndim, dtype=dtype)
    return da.Array(graph, name, out_chunks, meta=meta)


def plan_chunks(src: Layout, dst: Layout, in_chunks: tuple[tuple[int, ...], ...],
                wanted: Mapping[str, int] | None = None) -> dict[str, tuple[int, ...]]:
    """Output chunk boundaries per logical axis, every inner one a multiple of the axis's step.

    The input's chunk boundaries along the axis (its outer dim's, times the source block);
    regular input chunks of ``c`` become regular chunks of ``c`` rounded to the nearest
    multiple of the step (at least one step), irregular ones have each boundary rounded.

    >>> from layouts import Layout
    >>> s, t = Layout("NCHW", N=4, C=40, H=2, W=2), Layout("NCHW16c", N=4, C=40, H=2, W=2)
    >>> plan_chunks(s, t, ((2, 2), (24, 16), (2,), (2,)))["C"]
    (0, 32, 40)
    """
    step = _boxes.steps(src, dst)
    blocks = _boxes.axis_blocks(src)
    size = src.dims
    outer = {dd.axis: i for i, dd in enumerate(src.parsed.dims) if not dd.is_block}
    wanted = dict(wanted or {})
    unknown = [a for a in wanted if a not in size]
    if unknown:
        raise LayoutError(f"chunks names axis {', '.join(unknown)}; the layouts have axes {', '.join(dst.axes)}")
    out = {}
    for a in dst.axes:
        n, s = size[a], step[a]
        if a in wanted:
            c = wanted[a]
            if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or c < 1:
                raise LayoutError(f"chunks[{a!r}] must be a positive int, got {c!r}")
            c = -(-int(c) // s) * s
            out[a] = _regular(n, c)
            continue
        cs = [c * blocks[a] for c in in_chunks[outer[a]]]
        if len(set(cs[:-1])) <= 1 and (len(cs) < 2 or cs[-1] <= cs[0]):
            c = max(s, round(cs[0] / s) * s) if cs and cs[0] else s
            out[a] = _regular(n, c)
        else:
            edges = np.minimum(np.cumsum([0] + cs), n)
            rounded = sorted({min(n, int(round(e / s)) * s) for e in edges[1:-1]} - {0, n})
            out[a] = tuple([0] + rounded + [n]) if n else (0,)
    return out


def _regular(n: int, c: int) -> tuple[int, ...]:
    return tuple(list(range(0, n, c)) + [n]) if n else (0,)


def _physical_chunks(dst: Layout, bounds: Mapping[str, tuple[int, ...]]) -> tuple[tuple[int, ...], ...]:
    blocks = _boxes.axis_blocks(dst)
    out = []
    for dd, n in zip(dst.parsed.dims, dst.shape):
        if dd.is_block:
            out.append((n,))
        else:
            b = blocks[dd.axis]
            edges = [-(-e // b) for e in bounds[dd.axis]]
            sizes = tuple(int(y - x) for x, y in zip(edges[:-1], edges[1:]))
            out.append(sizes if sizes else (0,))
    return tuple(out)


def _task(in_name: str, src: Layout, dst: Layout, box: Mapping[str, tuple[int, int]],
          in_edges: list[np.ndarray], threads: int) -> tuple:
    """The task of one output chunk: the input chunks its box overlaps (nested keys) and how to
    cut them. When the pieces meet on whole blocks of both layouts, each piece is converted
    straight into its part of the output (:func:`convert_pieces`, one move); otherwise the
    pieces are first copied into one source box (:func:`convert_chunk`)."""
    pbox = _boxes.physical_box(src, box)
    per_dim = []  # for each physical dim of the source: [(input chunk index, slice in it)]
    for (lo, hi), edges in zip(pbox, in_edges):
        if hi <= lo:
            per_dim.append([(0, slice(0, 0))])
            continue
        first = int(np.searchsorted(edges, lo, side="right")) - 1
        last = int(np.searchsorted(edges, hi, side="left"))
        per_dim.append([(i, slice(max(lo, int(edges[i])) - int(edges[i]), min(hi, int(edges[i + 1])) - int(edges[i])))
                        for i in range(first, last)])
    keys = _nested(in_name, per_dim, ())
    cuts = tuple(tuple(s for _, s in dim) for dim in per_dim)
    src_tile, dst_tile = _boxes.tile_layout(src, box), _boxes.tile_layout(dst, box)
    if all(len(c) == 1 for c in cuts):
        return (convert_chunk, keys, cuts, _recipe(src_tile), _recipe(dst_tile), threads)
    pieces = _pieces(src_tile, dst_tile, cuts, _boxes.steps(src, dst))
    if pieces is None:
        return (convert_chunk, keys, cuts, _recipe(src_tile), _recipe(dst_tile), threads)
    return (convert_pieces, keys, pieces, _recipe(dst_tile), threads)


def _pieces(src_tile: Layout, dst_tile: Layout, cuts: tuple, step: Mapping[str, int]) -> list | None:
    """Per piece (an input chunk's part of the box): (its index in the nested keys, its slices,
    its source and destination layouts, its slices of the output chunk); None when some piece
    does not start on whole blocks of both layouts."""
    blocks = _boxes.axis_blocks(src_tile)
    starts = []  # per source dim: where each piece starts inside the box (physical index)
    for dd, cut in zip(src_tile.parsed.dims, cuts):
        if dd.is_block and len(cut) > 1:
            return None  # a block cut in pieces: no piece is whole blocks
        pos, at = 0, []
        for c in cut:
            at.append(pos)
            pos += c.stop - c.start
        if not dd.is_block and any((p * blocks[dd.axis]) % step[dd.axis] for p in at):
            return None
        starts.append(at)
    size = src_tile.dims
    out = []
    for idx in itertools.product(*[range(len(c)) for c in cuts]):
        sub = {}
        for dim, (dd, i) in enumerate(zip(src_tile.parsed.dims, idx)):
            if not dd.is_block:
                b = blocks[dd.axis]
                lo = starts[dim][i] * b
                hi = min(size[dd.axis], (starts[dim][i] + cuts[dim][i].stop - cuts[dim][i].start) * b)
                sub[dd.axis] = (lo, hi)
        dst_slices = tuple(slice(a, b) for a, b in _boxes.physical_box(dst_tile, sub))
        out.append((idx, tuple(c[i] for c, i in zip(cuts, idx)), _recipe(_boxes.tile_layout(src_tile, sub)),
                    _recipe(_boxes.tile_layout(dst_tile, sub)), dst_slices))
    return out


def convert_pieces(blocks: Any, pieces: list, dst: tuple, threads: int) -> np.ndarray:
    """One output chunk made of several input chunks, each converted into its part of it."""
    from ..conversion.front import convert

    dst_L = _boxes._tile_layout(*dst)
    out = None
    for idx, slices, piece_src, piece_dst, dst_slices in pieces:
        piece = blocks
        for i in idx:
            piece = piece[i]
        piece = np.asarray(piece)
        if out is None:
            out = np.empty(dst_L.shape, dtype=piece.dtype)
        convert(piece[slices], _boxes._tile_layout(*piece_src), _boxes._tile_layout(*piece_dst),
                out=out[dst_slices], threads=threads)
    return out


def _nested(name: str, per_dim: list, prefix: tuple) -> Any:
    if len(prefix) == len(per_dim):
        return (name,) + prefix
    return [_nested(name, per_dim, prefix + (i,)) for i, _ in per_dim[len(prefix)]]


def _recipe(layout: Layout) -> tuple:
    """A layout as plain data for a task (Layouts cache a hash, which differs between processes)."""
    return (layout.spec, tuple(layout.dims.items()), tuple(sorted(_boxes.params(layout).items())))


def convert_chunk(blocks: Any, cuts: tuple, src: tuple, dst: tuple, threads: int) -> np.ndarray:
    """One output chunk: the source box cut from ``blocks`` (nested lists of input chunks), converted."""
    from ..conversion.front import convert

    src_L, dst_L = _boxes._tile_layout(*src), _boxes._tile_layout(*dst)
    ndim = len(cuts)
    if all(len(c) == 1 for c in cuts):
        piece = blocks
        for _ in range(ndim):
            piece = piece[0]
        box = np.asarray(piece)[tuple(c[0] for c in cuts)]
    else:
        first = blocks
        for _ in range(ndim):
            first = first[0]
        box = np.empty(src_L.shape, dtype=np.asarray(first).dtype)
        for idx in itertools.product(*[range(len(c)) for c in cuts]):
            piece = blocks
            for i in idx:
                piece = piece[i]
            target = []
            for dim, i in enumerate(idx):
                start = sum(s.stop - s.start for s in cuts[dim][:i])
                target.append(slice(start, start + cuts[dim][i].stop - cuts[dim][i].start))
            box[tuple(target)] = np.asarray(piece)[tuple(c[i] for c, i in zip(cuts, idx))]
    return convert(box, src_L, dst_L, threads=threads)
