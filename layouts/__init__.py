"""layouts: where every element of a tensor lives in memory, and moving it fast.

>>> import layouts as ly
>>> ly.Layout("NHWC", N=2, C=16, H=5, W=4).offset(n=1, c=1, h=0, w=1)
337

The core (this package's top level) imports only numpy; the numba kernels, the drawing code,
the interop modules and the out-of-core conversions (:func:`convert_file`, :func:`recover`) load
when first used. docs/architecture.md maps the packages.
"""

from . import hooks as _hooks
from ._version import __version__ as __version__
from .arrays.aligned import aligned_empty
from .arrays.foreign import register_lazy as _register_lazy
from .conversion.converter import Converter, converter
from .conversion.front import convert
from .conversion.loading import load_kernels
from .errors import LayoutError, LayoutTypeError, LayoutWarning
from .inplace.front import convert_inplace
from .named.formulas import offset_chwn, offset_nchw, offset_nhwc
from .named.index import Index
from .named.infer import candidate_layouts, layout_of
from .named.layout import Layout, canonical_order
from .named.spec import parse
from .request import Request, resolve
from .settings import get_threads, set_threads


# The core's objects offer these; the layers above provide them (see layouts.hooks).
def _mimebundle():
    from .viz.rich import mimebundle
    return mimebundle


def _picture():
    from .viz.draw_any import draw_kind
    return draw_kind


def _to_cute():
    from .cute.bridge import to_cute
    return to_cute


def _bank_picture():
    from .viz.banks import draw_banks
    return draw_banks


def _convert_dask():
    from .chunked.dask import convert_dask
    return convert_dask


_hooks.provide("mimebundle", _mimebundle)
_hooks.provide("picture", _picture)
_hooks.provide("to_cute", _to_cute)
_hooks.provide("draw_banks", _bank_picture)
_register_lazy("dask", _convert_dask)     # ly.convert of a dask array: a lazy result, chunk by chunk

__all__ = [
    "Layout", "LayoutError", "LayoutTypeError", "LayoutWarning", "Index", "parse", "canonical_order",
    "offset_nchw", "offset_nhwc", "offset_chwn",
    "layout_of", "candidate_layouts", "convert", "converter", "Converter", "convert_inplace", "convert_file",
    "set_threads", "get_threads", "resolve", "Request", "recover", "aligned_empty", "load_kernels",
]


def __getattr__(name):          # the out-of-core conversions load with their package, when first asked for
    if name in ("convert_file", "recover"):
        from . import chunked
        return getattr(chunked, name)
    raise AttributeError(f"module 'layouts' has no attribute {name!r}")

