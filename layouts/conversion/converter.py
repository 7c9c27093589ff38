"""A conversion planned once and run many times: :func:`converter` and :class:`Converter`.

A data loader converts batch after batch of one shape. ``ly.converter(src, dst, shape, dtype)``
resolves both layouts, plans the copies and loads the kernels once; each call then checks only
what can differ between calls (the array's kind, shape and dtype, ``out``'s shape, dtype,
writability and overlap) and makes the copies, as FFTW's plans and oneDNN's reorder primitives do.

>>> import numpy as np, layouts as ly
>>> to_nhwc = ly.converter("NCHW", "NHWC", (2, 3, 4, 4), "float32", threads=1)
>>> x = np.arange(96, dtype=np.float32).reshape(2, 3, 4, 4)
>>> out = np.empty((2, 4, 4, 3), np.float32)
>>> to_nhwc(x, out=out) is out, np.array_equal(out, x.transpose(0, 2, 3, 1))
(True, True)
>>> to_nhwc(x[:, :2])
Traceback (most recent call last):
...
layouts.errors.LayoutError: converter('NCHW' -> 'NHWC', shape (2, 3, 4, 4), float32): x has shape (2, 2, 4, 4), expected (2, 3, 4, 4)
"""

from __future__ import annotations

import operator
import sys
import warnings
from typing import Any

import numpy as np

from .. import settings
from ..arrays.devices import off_host
from ..arrays.foreign import as_numpy, from_capsule, is_torch_tensor, lazy_converter
from ..arrays.raw_bytes import whole_elements
from ..errors import LayoutError, LayoutTypeError, LayoutWarning, type_name
from ..named.layout import Layout
from ..named.torch_names import plain_spec, read_as_named
from ..request import beyond_specs, first_run, layout_name
from . import loading as kernel_loading, replays
from .execute import flat_source, prepare, target, write
from .plan import CopyStep

__all__ = ["Converter", "converter"]


def converter(src: Any, dst: Any, shape: Any, dtype: Any, *, threads: int | None = None,
              **dims: int) -> "Converter":
    """A reusable conversion of arrays of ``shape`` and ``dtype`` from layout ``src`` to ``dst``.

    Parameters
    ----------
    src, dst : str or Layout (or a CuTe or linear layout)
        As for :func:`layouts.convert`.
    shape : tuple of int
        The shape of every ``x`` the converter will take: ``src``'s physical shape (``(N, C, H,
        W)`` for ``"NCHW"``, ``(N, C1, H, W, 16)`` for ``"NCHW16c"``), or a flat buffer's
        ``(size,)`` when ``src`` is a :class:`Layout`.
    dtype : numpy dtype, its name, or a torch dtype
        The element type of every ``x`` (``"float32"`` or ``torch.float32`` for a float32
        tensor; ``torch.bfloat16`` for a bfloat16 one, whose raw bits move).
    threads : int, optional
        As for :func:`layouts.convert`, fixed for every call.
    **dims : int
        Sizes the shape cannot tell (``C=3`` for a blocked source), as for :func:`layouts.convert`.

    Returns
    -------
    Converter
        ``c(x)`` returns a new array, ``c(x, out=y)`` writes into ``y`` and returns it; both as
        ``convert`` would, for numpy arrays, torch tensors and DLPack / array-API arrays. It
        pickles (a data-loader worker rebuilds it, kernels included), may be called from many
        threads at once, and says what it does with ``c.explain()``.

    Every layout, the plan and the kernels are settled here (the first converter of a process
    loads numba, about half a second), so a bad ``src``, ``dst``, ``shape`` or ``dims`` raises
    now rather than at the first call.

    >>> import numpy as np, layouts as ly
    >>> c = ly.converter("NCHW", "NCHW16c", (8, 3, 32, 32), np.uint8)
    >>> c
    Converter('NCHW' -> 'NCHW16c', shape (8, 3, 32, 32), uint8 -> (8, 1, 32, 32, 16))
    >>> y = c(np.ones((8, 3, 32, 32), np.uint8))
    >>> y.shape, int(y[..., :3].min()), int(y[..., 3:].max())
    ((8, 1, 32, 32, 16), 1, 0)
    """
    return Converter(src, dst, shape, dtype, threads=threads, **dims)


class Converter:
    """A conversion decided once (see :func:`converter`); call it with ``x`` and, optionally, ``out``."""

    __slots__ = ("src", "dst", "shape", "dtype", "element", "threads", "dims", "_request", "_steps", "_pads", "_generic",
                 "_flat_src", "repeats", "_probes", "_small", "_perm", "__weakref__")
    _request: Any       # the checked pair of layouts (None for a layout of another kind)
    _steps: Any
    _pads: Any
    _probes: tuple      # a blocked source's suspect slots, probed per call (see again)
    _small: Any         # (the kernels' profile, whether numpy's copies make this conversion under it); None: not known
    _perm: Any          # for two unblocked specs of the same axes, x's axes in out's order (else None)

    def __init__(self, src: Any, dst: Any, shape: Any, dtype: Any, *, threads: int | None = None,
                 **dims: int) -> None:
        where = f"converter({layout_name(src)} -> {layout_name(dst)})"
        try:
            shape = tuple(operator.index(n) for n in shape)
        except TypeError:
            raise LayoutTypeError(f"{where}: shape must be a sequence of ints, got {shape!r:.80}") from None
        if any(n < 0 for n in shape):
            raise LayoutError(f"{where}: shape {shape} has a negative size")
        element = dtype
        try:
            dt = np.dtype(dtype)
        except (TypeError, ValueError, SyntaxError):
            torch_dtype = _torch_dtype(dtype)
            if torch_dtype is None:
                raise LayoutTypeError(f"{where}: dtype {dtype!r:.40} is not a numpy (or torch) dtype; expected e.g. "
                                      "'float32'") from None
            dt, element = torch_dtype
        else:
            element = dt
        if dt.hasobject or dt.itemsize == 0 or dt.shape != ():
            raise LayoutError(f"{where}: dtype {dt} has no fixed-size elements to move (objects, empty or subarray dtype)")
        if threads is not None:
            settings.check_threads(threads)
        self.src, self.dst, self.shape, self.dtype, self.threads, self.dims = src, dst, shape, dt, threads, dict(dims)
        self.element = element
        self._generic = beyond_specs(src, dst)
        self._request = self._steps = self._pads = None
        self._flat_src = self.repeats = False
        self._probes, self._small, self._perm = (), None, None
        try:
            if self._generic:       # a CuTe, linear or other kind: each call goes through convert's protocol path
                _check_generic(src, dst)
            else:
                if not isinstance(src, (str, Layout)) or not isinstance(dst, (str, Layout)):
                    raise LayoutTypeError(f"src and dst must be layout specs (str) or Layouts, got {type_name(src)} "
                                          f"and {type_name(dst)}")
                plan_shape = shape
                if isinstance(src, Layout) and len(shape) == 1 and shape != src.shape:
                    if shape[0] < src.span:
                        raise LayoutError(f"a flat source buffer for {src!r} needs at least {src.span} elements, "
                                          f"shape {shape} has {shape[0]}")
                    self._flat_src, plan_shape = True, src.shape
                self._request, self._steps, self._pads = prepare(src, dst, plan_shape, dt, dims)
                self._settle_repeats(not dims and not self._flat_src)
        except LayoutError as err:
            raise type(err)(f"{self._where()}: {err}") from None
        if kernel_loading.loaded() is None:       # the first converter of a process loads them
            kernel_loading.load_kernels()

    @classmethod
    def of_plan(cls, src: str, dst: str, shape: tuple, dtype: np.dtype, request: Any, steps: list,
                pads: list) -> "Converter":
        """A converter of two specs from a plan already made (:func:`layouts.convert`'s cache of
        the conversions it has checked), without loading the kernels: ``convert`` leaves that to
        :mod:`.loading`'s rule."""
        c = cls.__new__(cls)
        c.src, c.dst, c.shape, c.dtype, c.element, c.threads, c.dims = src, dst, shape, dtype, dtype, None, {}
        c._generic, c._flat_src = False, False
        c._request, c._steps, c._pads = request, steps, pads
        c._probes, c._small, c._perm = (), None, None
        c._settle_repeats(True)
        return c

    def _settle_repeats(self, eligible: bool) -> None:
        """Whether a call into an ``out`` can be made again without the checks a full call makes
        (:meth:`again`): two specs, no sizes given, plain region copies with no padding to fill,
        and, for a blocked source whose padding could be read as data, where to look for the
        nonzero that rules the warning out."""
        request = self._request
        self.repeats = bool(eligible and type(self.src) is str and type(self.dst) is str and not self._pads
                            and all(type(step) is CopyStep for step in self._steps)
                            and not (request.suspects and 0 in self.shape))
        self._probes = tuple(first_run(last) for _, last in request.suspects) if self.repeats else ()
        self._perm = _permutation(self.src, self.dst, self.shape) if self.repeats else None

    # ------------------------------------------------------------------ calls
    def __call__(self, x: Any, out: Any = None) -> Any:
        """``x`` converted: a new array of ``x``'s kind, or ``out`` written and returned."""
        if type(x) is not np.ndarray or (out is not None and type(out) is not np.ndarray) or self._generic:
            return self._foreign(x, out)
        if x.shape != self.shape or x.dtype != self.element:
            raise self._mismatch(x.shape, x.dtype)
        if out is not None and self.repeats:
            done = self.repeat(x, out, self.threads)
            if done is not None:
                return done
        return self._checked(x, out)

    def _checked(self, x: np.ndarray, out: np.ndarray | None) -> np.ndarray:
        """The full path: ``out`` checked (or a result allocated), the padding warning, the steps."""
        request = self._request
        if self._flat_src:
            x = flat_source(x, request.src)
        layout = request.dst
        try:
            result, shaped, flat = target(out, layout, x)
        except LayoutError as err:
            raise type(err)(f"{self._where()}: {err}") from None
        if request.suspects:
            warning = request.padding_warning(x)
            if warning:     # before the first write: an error raised by it leaves out untouched
                warnings.warn(f"{self._where()}: {warning}", LayoutWarning, stacklevel=3)
        write(x, shaped, flat, self._steps, self._pads, layout, self.threads)
        return result

    def repeat(self, x: np.ndarray, out: np.ndarray, threads: int | None) -> np.ndarray | None:
        """:meth:`again` by the shortest way known: one ``np.copyto`` a step for a conversion
        small enough for numpy's copies under the current profile, else the kernel calls kept
        for these two buffers (:mod:`.replays`), else :meth:`again`. As for :meth:`again`, the
        caller has checked that ``x`` has the converter's shape and dtype."""
        small = self._small
        if small is not None and small[1]:
            kernels = kernel_loading.loaded()
            if kernels is not None and small[0] is kernels.current():
                return self._numpy_copies(x, out) if self._fits(x, out) else None    # no kernel calls to keep
        done = replays.replayed(x, self.src, self.dst, out, threads)
        return self.again(x, out, threads) if done is None else done

    def again(self, x: np.ndarray, out: np.ndarray, threads: int | None) -> np.ndarray | None:
        """This conversion from ``x`` (of the converter's shape and dtype: the caller has checked)
        into ``out`` with the fewest per-call steps: each copy one ``np.copyto`` where the copy
        engine would hand the copies of the first call under the current profile to numpy
        (:func:`layouts.kernels.copied_by_numpy`; the answer is kept for the profile), else the
        copy engine's ``copy_into``, which plans on the strides it is given, its calls kept for
        :mod:`.replays`. ``out``, or None when the full path must run (see :meth:`_fits`). Only
        where :attr:`repeats`; ``threads`` None or a valid count."""
        if not self._fits(x, out):
            return None
        kernels = kernel_loading.loaded()
        if kernels is None:         # numpy's copies may do it: count its bytes only for a call that runs
            kernels = kernel_loading.movers(x.nbytes)
        if kernels is kernel_loading.NUMPY_MOVERS:
            return self._numpy_copies(x, out)
        prof = kernels.current()
        small = self._small
        if small is None or small[0] is not prof:
            small = self._small = (prof, x.nbytes < prof.small_bytes and all(
                kernels.copied_by_numpy(dv, sv) for sv, dv in (s.views(x, out) for s in self._steps)))
        if small[1]:
            return self._numpy_copies(x, out)
        pointers, pool, recency = _engine()
        steps, src, dst = self._steps, self.src, self.dst
        probes = self._probes
        cold = recency.cold(pointers.address(out), out.nbytes, prof)   # before the steps note their writes
        setting = settings.get_threads()
        def run_steps() -> None:
            for step in steps:
                step.run(x, out, kernels, threads)
        calls = pool.recorded(run_steps)
        if calls is not None and (threads is not None or settings.get_threads() == setting):   # no set_threads since
            replays.keep(x, src, dst, out, threads, prof, probes, cold, calls)
        return out

    def _fits(self, x: np.ndarray, out: np.ndarray) -> bool:
        """Whether a repeat may write ``out`` from ``x`` (of the converter's shape and dtype):
        ``out`` of the output's shape and ``x``'s dtype, writable, apart from ``x``, and each
        probed slot of a blocked source nonzero. Where not, the full path refuses or warns in
        its own words (it scans a blocked source's padding)."""
        return (out.shape == self._request.dst.shape and out.dtype == x.dtype and out.flags.writeable
                and not np.may_share_memory(out, x) and (not self._probes or replays.probed(x, self._probes)))

    def _numpy_copies(self, x: np.ndarray, out: np.ndarray) -> np.ndarray:
        """``out`` written by one ``np.copyto`` a step (a small conversion, or the kernels not
        loaded), or by one of ``x`` transposed whole between unblocked specs (:func:`_permutation`);
        a structured dtype's elements whole, the bytes between fields included, as the copy
        engine moves them."""
        whole = x.dtype.fields is not None
        perm = self._perm
        for sv, dv in ((x.transpose(perm), out),) if perm is not None else (s.views(x, out) for s in self._steps):
            if whole:
                sv, dv = whole_elements(sv), whole_elements(dv)
            np.copyto(dv, sv)   # one dtype on both sides (_fits): no cast to rule out, and the keyword costs
        pool = sys.modules.get(_POOL)       # a recording needs the pool: none is open before it is imported
        if pool is not None and pool.RECORDING:
            pool.made(None)     # a recording around this call cannot make these copies again
        return out

    def _foreign(self, x: Any, out: Any) -> Any:
        """A torch tensor, a DLPack / array-API array, a dask array (or a layout of another
        kind): checked against the converter's shape and dtype as ``convert`` reads them (a
        channels_last tensor as the layout ``src`` names), then converted as ``convert`` does."""
        from .front import convert
        x = from_capsule(x, "x")
        if lazy_converter(x) is not None:       # dask: its shape and dtype, nothing computed
            shape, dt = tuple(int(n) for n in x.shape), np.dtype(x.dtype)
        elif off_host(x) is not None:           # converted on its device: never read here
            shape, dt = tuple(int(n) for n in x.shape), x.dtype
            if shape != self.shape or _dtype_name(dt) != _dtype_name(self.element):
                raise self._mismatch(shape, dt)
            return convert(x, self.src, self.dst, out=out, threads=self.threads, **self.dims)  # type: ignore[arg-type]
        else:
            try:
                xa, _, dt = as_numpy(x, "x")
            except LayoutTypeError as err:
                raise LayoutTypeError(f"{self._where()}: {err}") from None
            if is_torch_tensor(x) and not self._generic:
                xa = read_as_named(xa, self.src, "x")
            shape = xa.shape
        if shape != self.shape or dt != self.element:
            raise self._mismatch(shape, dt)
        return convert(x, self.src, self.dst, out=out, threads=self.threads, **self.dims)  # type: ignore[arg-type]

    def _mismatch(self, shape: tuple, dtype: Any) -> LayoutError:
        what = (f"x has shape {shape}, expected {self.shape}" if shape != self.shape
                else f"x has dtype {dtype}, expected {self.element} (a converter does not cast)")
        return LayoutError(f"{self._where()}: {what}")

    # ------------------------------------------------------------------ description
    @property
    def out_shape(self) -> tuple[int, ...] | None:
        """The shape of the arrays this converter returns (None for a layout of another kind)."""
        return None if self._request is None else self._request.dst.shape

    def explain(self, threads: int | None = None) -> list:
        """The copies each call makes, and why each is done the way it is
        (:func:`layouts.conversion.explain.explain_conversion`; print each). For specs and
        :class:`Layout` s; a layout of another kind is refused with a LayoutTypeError."""
        if self._generic:
            raise LayoutTypeError(f"{self._where()}: explain covers conversions between specs and Layouts; one with a "
                                  "layout of another kind goes through the kinds protocol (layouts.kinds)")
        from .explain import explain_conversion
        return explain_conversion(self.shape, self.dtype, self.src, self.dst,
                                  threads=self.threads if threads is None else threads, **self.dims)

    def _where(self) -> str:
        return f"converter({layout_name(self.src)} -> {layout_name(self.dst)}, shape {self.shape}, {self.dtype})"

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v}" for k, v in self.dims.items())
        if self.threads is not None:
            extra += f", threads={self.threads}"
        out = f" -> {self.out_shape}" if self.out_shape is not None else ""
        return (f"Converter({layout_name(self.src)} -> {layout_name(self.dst)}, shape {self.shape}, "
                f"{self.dtype}{out}{extra})")

    def __reduce__(self):
        element = self.dtype.str if self.element is self.dtype else self.element
        return (_rebuild, (self.src, self.dst, self.shape, element, self.threads, self.dims))


def _engine() -> tuple:
    """(pointers, pool, recency) of :mod:`layouts.kernels.runtime`, imported at the first call
    that runs on the kernels (an import statement in every call costs more than a small copy)."""
    global _engine_modules
    if _engine_modules is None:
        from ..kernels.runtime import pointers, pool, recency
        _engine_modules = (pointers, pool, recency)
    return _engine_modules


#: :func:`_engine`'s modules, once imported
_engine_modules: tuple | None = None
#: the module of :func:`layouts.kernels.runtime.pool.recorded`
_POOL = "layouts.kernels.runtime.pool"


def _permutation(src: str, dst: str, shape: tuple) -> tuple[int, ...] | None:
    """For two plain orders of the same axes (:func:`~layouts.named.torch_names.plain_spec`: NCHW
    -> NHWC), the order of ``src``'s dims in ``dst``'s: ``x.transpose(perm)`` is then ``out``'s
    whole view, which numpy copies as well as the plan's views of split and dropped dims, and is
    made in a third of the time."""
    s, d = plain_spec(src, len(shape)), plain_spec(dst, len(shape))
    if s is None or d is None or sorted(s) != sorted(d):
        return None
    return tuple(s.index(a) for a in d)


def _dtype_name(dtype: Any) -> str:
    """``float32`` for numpy's, torch's (``torch.float32``) and array-API libraries' float32 alike."""
    return str(dtype).rsplit(".", 1)[-1]


def _rebuild(src: Any, dst: Any, shape: tuple, dtype: Any, threads: int | None, dims: dict) -> Converter:
    """A converter again from what it was made of (unpickling: the plan and kernels are redone)."""
    return Converter(src, dst, shape, dtype, threads=threads, **dims)


def _torch_dtype(dtype: Any) -> tuple[np.dtype, Any] | None:
    """For a torch dtype, (the numpy dtype that holds it, the element type tensors are checked
    against): ``torch.float32`` -> (float32, float32); one numpy lacks, ``torch.bfloat16`` ->
    (int16, torch.bfloat16), its raw bits moving as :func:`layouts.convert` moves them. None
    for anything else."""
    if type(dtype).__module__ != "torch":
        return None
    import torch
    from ..arrays.foreign import bits_dtype, numpy_dtype
    known = numpy_dtype(dtype)
    if known is not None:
        return known, known
    return np.dtype(str(bits_dtype(torch, dtype)).replace("torch.", "")), dtype


def _check_generic(src: Any, dst: Any) -> None:
    """A layout of another kind on a side: each is a layout the kinds protocol knows (the
    conversion itself is checked per call, by :func:`layouts.convert`'s protocol path)."""
    from ..kinds import kind_of
    for side, layout in (("src", src), ("dst", dst)):
        if kind_of(layout) is None and not isinstance(layout, (str, Layout)):
            raise LayoutTypeError(f"{side} must be a layout (a spec, a Layout, a CuTe or linear layout), got "
                                  f"{type_name(layout)}")
