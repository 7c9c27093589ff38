"""Package-wide settings: how many threads conversions use when a call does not say.

>>> import layouts as ly
>>> ly.set_threads(1); ly.get_threads()
1
>>> ly.set_threads(None)          # back to the default: every core numba sees
>>> ly.set_threads(0)
Traceback (most recent call last):
...
layouts.errors.LayoutError: threads must be None or an int >= 1, got 0
"""

from __future__ import annotations

import numbers

from .errors import LayoutError, LayoutTypeError, type_name

_threads: int | None = None
#: called with no argument after every change of the setting (see :func:`on_change`)
_listeners: list = []


def check_threads(threads: object) -> int | None:
    """``threads`` if it is None or an int >= 1; a LayoutError otherwise."""
    if threads is None:
        return None
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral):
        raise LayoutTypeError(f"threads must be None or an int >= 1, got {type_name(threads)}")
    if threads < 1:
        raise LayoutError(f"threads must be None or an int >= 1, got {threads!r}")
    return int(threads)


def set_threads(threads: int | None) -> None:
    """Threads for conversions that pass no ``threads=``; ``None``: all cores (numba's count).

    A count above the cores this process may use is accepted and clamped when a conversion runs
    (:func:`layouts.kernels.runtime.pool.max_threads`); the kernels share one bounded thread pool."""
    global _threads
    _threads = check_threads(threads)
    for listener in _listeners:
        listener()


def on_change(listener) -> None:
    """Call ``listener()`` after every :func:`set_threads`: what a layer above keeps for the
    setting it ran under (the kept calls of repeat conversions) is dropped by it, so that this
    module, the lowest of the package, imports nothing above it."""
    if listener not in _listeners:
        _listeners.append(listener)


def get_threads() -> int | None:
    """The setting made by :func:`set_threads` (``None``: all cores)."""
    return _threads
