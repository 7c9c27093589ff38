"""The front end every conversion entry shares: two checked layouts from what the caller gave.

:func:`resolve` turns ``(src, dst, shape, dtype, **sizes)`` -- spec strings or
:class:`~layouts.Layout` s, the source's physical shape, its dtype and the sizes the shape cannot
tell -- into a :class:`Request`: both layouts, checked against each other with the same defaults
and messages whichever entry asks (:func:`layouts.convert`, :func:`layouts.convert_inplace`,
:func:`layouts.convert_file`, the dask path, ``explain_conversion``), and the blocked source axes
whose padding would be read as data (:meth:`Request.padding_warning` words it). :func:`wording`
is the one way an entry puts its name and the two layouts in front of an error.

>>> import numpy as np, layouts as ly
>>> r = ly.resolve("NCHW", "NCHW16c", (2, 20, 3, 3), np.float32)
>>> r.dst
Layout('NCHW16c', N=2, C=20, H=3, W=3)
>>> r.packed_refusal() is not None          # 20 channels padded to 32: not in place
True
>>> with wording("convert_inplace", "NCHW", "NCHA", shape=(2, 20, 3, 3), label="x shape"):
...     ly.resolve("NCHW", "NCHA", (2, 20, 3, 3), np.float32)
Traceback (most recent call last):
...
layouts.errors.LayoutError: convert_inplace('NCHW' -> 'NCHA', x shape (2, 20, 3, 3)): source axes NCHW and destination axes NCHA differ; a conversion reorders the same axes
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

import numpy as np

from .kinds import kind_of
from .errors import LayoutError, LayoutTypeError, type_name
from .named.layout import Layout
from .named.spec import parse

__all__ = ["Request", "first_run", "holds_nonzero", "resolve", "wording", "reworded", "layout_name"]


@dataclass(frozen=True)
class Request:
    """Both layouts of one conversion, checked; ``suspects``: (axis, index of its last slot) for
    each blocked source axis whose size was read from the shape and whose block ``dst`` drops."""

    src: Layout
    dst: Layout
    suspects: tuple = ()

    def padding_warning(self, x: np.ndarray) -> str | None:
        """The warning for a suspect axis whose last index in ``x`` (the source's physical array)
        holds only zeros, as padding does; None otherwise."""
        if not self.suspects or not x.size:
            return None
        for axis, last in self.suspects:
            if holds_nonzero(x[last]):
                continue
            size = self.src.dims[axis]
            return (f"{axis} was not given, so it is read from the shape as the padded size {size}, and its last "
                    f"index {axis.lower()}={size - 1} holds only zeros, as padding does: the result keeps the padding as "
                    f"data. Pass {axis}=<true size> to drop it (or {axis}={size} to keep it and silence this warning)")
        return None

    def check_allocatable(self, dtype: Any) -> None:
        """LayoutError unless numpy can hold the destination as an array of ``dtype``."""
        from ._args import numpy_max_dims
        if self.dst.ndim > numpy_max_dims():
            raise LayoutError(f"the destination {layout_name(self.dst)} has {self.dst.ndim} physical dims, but numpy "
                              f"{np.__version__} holds at most {numpy_max_dims()}")
        try:
            self.dst.check_numpy(dtype)
        except LayoutError as err:
            raise LayoutError(f"the result cannot be allocated: {err}") from None

    def packed_refusal(self) -> str | None:
        """Why the two layouts cannot share one buffer (a pitch, padding), or None when they can."""
        for side, L in (("source", self.src), ("destination", self.dst)):
            if L.pitch or L.align:
                return f"the {side} layout {L!r} has pitched rows (pitch/align)"
            if L.has_padding:
                padded = ", ".join(f"{a} padded to {n}" for a, n in L.padded_dims.items() if n != L.dims[a])
                return f"the {side} layout {L!r} holds {L.size - L.count} padding slots ({padded})"
        return None


def holds_nonzero(v: np.ndarray) -> bool:
    """``v.any()``, reading only as much of ``v`` as it takes to find a nonzero: its first run
    along the last axis, then parts of its first axis of doubling length. A blocked source's last
    slot holds real data far more often than padding, and then a few elements settle it, where a
    whole scan touches every cache line of the last channel block (1/C1 of a float32 NCHW16c
    tensor's bytes).

    >>> import numpy as np
    >>> holds_nonzero(np.zeros((3, 4))), holds_nonzero(np.eye(3)[::-1]), holds_nonzero(np.zeros(()))
    (False, True, False)
    >>> rgb = np.zeros(4, [("r", "u1"), ("g", "u1"), ("b", "u1")]); rgb[2]["g"] = 7
    >>> holds_nonzero(rgb), holds_nonzero(rgb[:2])
    (True, False)
    """
    if v.dtype.kind == "V":              # structured or raw bytes: no truth value, so their bytes
        v = v[..., np.newaxis].view(np.uint8)
    with np.errstate(invalid="ignore"):  # any() of NaN bit patterns (complex, longdouble)
        if v.ndim < 2 or not v.size:
            return bool(v.any())
        if v[(0,) * (v.ndim - 1)].any():
            return True
        start, step = 0, 1
        while start < v.shape[0]:
            if v[start:start + step].any():
                return True
            start, step = start + step, 2 * step
        return False


def first_run(index: tuple) -> tuple:
    """``index`` (ints and whole-axis slices) narrowed to its first run: every slice but the
    last taken at 0, for a look at a few elements of what ``index`` selects (of a nonempty array).

    >>> first_run((slice(None), -1, slice(None), slice(None), -1))
    (0, -1, 0, slice(None, None, None), -1)
    """
    sliced = [k for k, part in enumerate(index) if isinstance(part, slice)]
    return tuple(0 if k in sliced[:-1] else part for k, part in enumerate(index))


def resolve(src: str | Layout, dst: str | Layout, shape: tuple[int, ...], dtype: Any = None, /,
            **sizes: int) -> Request:
    """Both layouts of a conversion of a source of physical ``shape`` and ``dtype``.

    ``src`` and ``dst`` are spec strings or :class:`~layouts.Layout` s; ``sizes`` are the
    logical sizes the shape cannot tell (``C=20`` for a blocked source, Ascend's ``C0=``). A
    destination spec takes the source's sizes; a named block (``C0``) takes the given size, else
    the source's, else 16 (32 for a 1-byte ``dtype``). Every mismatch is a
    :class:`~layouts.LayoutError` saying what differs, a wrong kind a :class:`~layouts.LayoutTypeError`.

    >>> import layouts as ly
    >>> r = ly.resolve("NCHW16c", "NHWC", (1, 2, 3, 3, 16), "float32", C=20)
    >>> r.src.dims["C"], r.dst.shape
    (20, (1, 3, 3, 20))
    >>> ly.resolve(3, "NHWC", (1, 2, 3, 4))
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutTypeError: src must be a spec string such as 'NCHW' or a Layout, got 3 (an int)
    """
    if not isinstance(src, (str, Layout)):
        raise LayoutTypeError(f"src must be a spec string such as 'NCHW' or a Layout, got {type_name(src)}")
    if not isinstance(dst, (str, Layout)):
        raise LayoutTypeError(f"dst must be a spec string such as 'NHWC' or a Layout, got {type_name(dst)}")
    byte_sized = dtype is not None and np.dtype(dtype).itemsize == 1
    src_layout = _source(src, tuple(shape), sizes)
    dst_layout = _destination(dst, src_layout, byte_sized, sizes)
    return Request(src_layout, dst_layout, _suspects(src, src_layout, dst_layout, sizes))


def bind(layout: Any, sizes: Mapping[str, int], shape: tuple[int, ...] | None = None, what: str = "layout") -> Any:
    """A spec string as the :class:`~layouts.Layout` it names, its sizes read from ``shape`` (an
    array's physical shape) or given in ``sizes``; any other value as it is. For a conversion
    whose other side is a layout of another kind, which cannot lend a spec its sizes.

    >>> bind("NHWC", {}, (1, 2, 2, 3))
    Layout('NHWC', N=1, C=3, H=2, W=2)
    >>> bind("NHWC", {}, None, "dst")
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: dst 'NHWC' beside a layout of another kind needs its sizes: pass them as keywords (N=..., C=...) or give a layouts.Layout
    """
    if not isinstance(layout, str):
        return layout
    if shape is not None:
        spec = parse(layout)
        return Layout.from_shape(spec, tuple(shape), **own_sizes(spec, sizes))
    if not sizes:
        raise LayoutError(f"{what} {layout!r} beside a layout of another kind needs its sizes: pass them as keywords "
                          f"(N=..., C=...) or give a layouts.Layout")
    return Layout(layout, **sizes)


@contextlib.contextmanager
def wording(entry: str, src: Any, dst: Any, *, shape: Any = None, label: str = "input shape") -> Iterator[None]:
    """Every :class:`~layouts.LayoutError` raised inside, reworded as
    ``entry('SRC' -> 'DST'[, label SHAPE]): message`` (same type, the chain dropped: the message
    is the whole story). ``shape=None`` leaves the shape out."""
    try:
        yield
    except LayoutError as err:
        raise reworded(err, entry, src, dst, shape=shape, label=label) from None


def reworded(err: LayoutError, entry: str, src: Any, dst: Any, *, shape: Any = None,
             label: str = "input shape") -> LayoutError:
    """``err`` as :func:`wording` words it (for an entry that learns the shape only on failure)."""
    where = f"{entry}({layout_name(src)} -> {layout_name(dst)}"
    if shape is not None:
        where += f", {label} {shape}"
    return type(err)(f"{where}): {err}")


def beyond_specs(src: Any, dst: Any) -> bool:
    """Whether a conversion between ``src`` and ``dst`` has a layout of a kind other than the
    framework's on a side (a CuTe, a linear layout...): it then goes through the kinds protocol
    (:mod:`layouts.kinds`), not the planner of framework layouts, which takes specs and
    :class:`~layouts.Layout` s.

    >>> from layouts import cute
    >>> beyond_specs("NCHW", Layout("NHWC", N=1, C=2, H=3, W=4)), beyond_specs("NCHW", cute.Layout(4))
    (False, True)
    """
    for layout in (src, dst):
        kind = kind_of(layout)
        if kind is not None and kind.name != "framework":
            return True
    return False


def layout_name(layout: Any) -> str:
    """A layout as messages name it: a spec (or a framework layout's spec) in single quotes,
    another kind by its label (:mod:`layouts.kinds`).

    >>> from layouts import cute
    >>> layout_name("NCHW"), layout_name(Layout("NHWC", N=1, C=2, H=3, W=4)), layout_name(cute.Layout(4, 2))
    ("'NCHW'", "'NHWC'", '4:2')
    >>> layout_name(3)
    '<int>'
    """
    if isinstance(layout, Layout):
        return repr(layout.spec)
    if isinstance(layout, str):
        return repr(layout) if len(layout) <= 40 else repr(layout[:37] + "...")
    kind = kind_of(layout)
    if kind is not None:
        label = kind.label
        return label if len(label) <= 80 else label[:77] + "..."
    return f"<{type(layout).__name__}>"


def block_params(spec: Any) -> set[str]:
    """The named block sizes of a parsed spec (Ascend's ``C0``)."""
    return {d.block for d in spec.dims if isinstance(d.block, str)}


def own_sizes(spec: Any, sizes: Mapping[str, int]) -> dict[str, int]:
    """The sizes that belong to a parsed spec: its axes and its named blocks."""
    params = block_params(spec)
    return {k: v for k, v in sizes.items() if k in spec.axes or k in params}


def _source(src: str | Layout, shape: tuple[int, ...], sizes: Mapping[str, int]) -> Layout:
    if isinstance(src, Layout):
        if shape != src.shape:
            raise LayoutError(f"x has shape {shape}, but layout {src!r} has physical shape {src.shape}")
        for axis, n in sizes.items():
            if axis in src.dims and src.dims[axis] != n:
                raise LayoutError(f"{axis}={n} was given, but the source layout has {axis}={src.dims[axis]}")
        return src
    spec = parse(src)
    return Layout.from_shape(spec, shape, **own_sizes(spec, sizes))


def _destination(dst: str | Layout, src: Layout, byte_sized: bool, sizes: Mapping[str, int]) -> Layout:
    if isinstance(dst, Layout):
        layout = dst
    else:
        spec = parse(dst)
        params = {}
        src_blocks = dict(zip(src.dim_names, src.shape))
        for p in block_params(spec):  # Ascend's C0: as given, else the source's, else 16 (32 for 8-bit types)
            params[p] = sizes.get(p, src_blocks.get(p, 32 if byte_sized else 16))
        if set(spec.axes) != set(src.axes):
            raise LayoutError(_axes_message(src, spec.axes))
        layout = Layout(spec, **src.dims, **params)
    if set(layout.axes) != set(src.axes):
        raise LayoutError(_axes_message(src, layout.axes))
    for axis in src.axes:
        if layout.dims[axis] != src.dims[axis]:
            raise LayoutError(f"axis {axis} has size {src.dims[axis]} in the source but {layout.dims[axis]} in the destination layout")
    known = set(src.axes) | block_params(src.parsed) | block_params(layout.parsed)
    unknown = [k for k in sizes if k not in known]
    if unknown:
        raise LayoutError(f"unknown size {', '.join(unknown)}: the layouts have axes {', '.join(src.axes)}")
    return layout


def _axes_message(src: Layout, dst_axes: tuple[str, ...]) -> str:
    return (f"source axes {''.join(src.axes)} and destination axes {''.join(dst_axes)} differ; "
            f"a conversion reorders the same axes")


def _suspects(src: str | Layout, src_layout: Layout, dst_layout: Layout, sizes: Mapping[str, int]) -> tuple:
    if isinstance(src, Layout):
        return ()
    found = []
    for axis in src_layout.axes:
        blocks = [n for d, n in zip(src_layout.parsed.dims, src_layout.shape) if d.is_block and d.axis == axis]
        if not blocks or axis in sizes:
            continue
        if blocks == [n for d, n in zip(dst_layout.parsed.dims, dst_layout.shape) if d.is_block and d.axis == axis]:
            continue  # the padding stays padding
        found.append((axis, tuple(-1 if d.axis == axis else slice(None) for d in src_layout.parsed.dims)))
    return tuple(found)
