"""Named points where the in-place and file paths can be stopped on purpose (fault injection).

The code calls :func:`point` at each moment whose interruption matters -- a scratch group copied
out, a file step backed up, a header written -- and a test registers a callback with
:func:`injected` that raises, sends a signal or kills the process there. With no callback
registered a point costs one truth test.

>>> seen = []
>>> with injected(lambda name, **info: seen.append((name, info))):
...     point("group", batch=3)
>>> seen
[('group', {'batch': 3})]
>>> point("group", batch=4)            # nothing registered: nothing happens
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

__all__ = ["point", "injected"]

_hooks: list[Callable[..., Any]] = []


def point(name: str, **info: Any) -> None:
    """Call every registered callback with the point's ``name`` and ``info``."""
    if _hooks:
        for hook in list(_hooks):
            hook(name, **info)


@contextlib.contextmanager
def injected(hook: Callable[..., Any]) -> Iterator[None]:
    """Register ``hook(name, **info)`` for the duration of the block."""
    _hooks.append(hook)
    try:
        yield
    finally:
        _hooks.remove(hook)
