"""Services that the core's value objects offer but outer layers provide.

``Layout.to_cute()`` needs :mod:`layouts.cute`, and a layout's picture (Jupyter's display,
:meth:`layouts.kinds.Kind.picture`) needs :mod:`layouts.viz` (matplotlib). Those layers import the core, so the core
must not import them: each service is a name here, bound by the package's front
(``layouts/__init__.py``) to a loader that imports the outer module on first use. The core calls
:func:`service` by name; ``import layouts`` stays light and no module imports one above it.

>>> from layouts import hooks
>>> sorted(hooks.provided())
['draw_banks', 'mimebundle', 'picture', 'to_cute']
>>> hooks.service("to_cute").__module__
'layouts.cute.bridge'
"""

from __future__ import annotations

from typing import Callable

from .errors import LayoutError

__all__ = ["provide", "service", "provided"]

_loaders: dict[str, Callable[[], Callable]] = {}


def provide(name: str, loader: Callable[[], Callable]) -> None:
    """Bind service ``name`` to ``loader``, a function returning the callable that does the work
    (it imports its module when called, so binding costs nothing)."""
    _loaders[name] = loader


def service(name: str) -> Callable:
    """The callable bound to ``name``; :class:`LayoutError` naming the known services if none is."""
    try:
        loader = _loaders[name]
    except KeyError:
        raise LayoutError(f"no service {name!r} is provided (known: {', '.join(sorted(_loaders)) or 'none'}); "
                          "import layouts, whose front binds them") from None
    return loader()


def provided() -> tuple[str, ...]:
    """The names bound so far."""
    return tuple(_loaders)
