"""Progress reporting for long conversions: a tqdm bar (terminal or Jupyter) or a callback.

``progress=None`` shows a bar when the work is long (at least :data:`AUTO_BYTES`: 256 MB of
output, the same decimal megabytes ``memory="256MB"`` means) and someone
can see it (stderr is a terminal, or the code runs in a Jupyter kernel) and tqdm is installed;
``True`` always shows one (tqdm required: ``pip install layouts-toolkit[progress]``); ``False`` never;
a callable is called as ``progress(done_bytes, total_bytes)`` after each piece of work.

>>> seen = []
>>> with reporter(lambda done, total: seen.append((done, total)), total=10, label="x") as step:
...     step(4); step(6)
>>> seen
[(4, 10), (10, 10)]
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Callable, Iterator

from ..errors import LayoutTypeError

#: bytes of output from which ``progress=None`` shows a bar (256 MB, decimal, as ``memory=`` reads "256MB")
AUTO_BYTES = 256_000_000


def _in_notebook() -> bool:
    shell = sys.modules.get("IPython")
    if shell is None or "ipykernel" not in sys.modules:
        return False
    try:
        ip = shell.get_ipython()
    except Exception:  # noqa: BLE001 - any failure means: not a notebook
        return False
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def _visible() -> bool:
    try:
        tty = sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):
        tty = False
    return tty or _in_notebook()


@contextlib.contextmanager
def reporter(progress: Any, total: int, label: str) -> Iterator[Callable[[int], None]]:
    """A context giving ``step(nbytes)``, to call after each piece of ``total`` bytes."""
    if progress is None:
        progress = total >= AUTO_BYTES and _visible() and _has_tqdm()
    if progress is False:
        yield lambda n: None
        return
    if progress is True:
        try:
            from tqdm.auto import tqdm
        except ImportError:
            raise ImportError("progress=True needs tqdm: pip install 'layouts-toolkit[progress]' (or progress=False)") from None
        # decimal units, as sizes are given (memory="256MB") and as ls -h --si and file managers show them
        bar = tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1000, desc=label, leave=True)
        try:
            yield bar.update
        finally:
            bar.close()
        return
    if callable(progress):
        done = 0

        def step(n: int) -> None:
            nonlocal done
            done += n
            progress(done, total)

        yield step
        return
    raise LayoutTypeError(f"progress must be None, True, False or a callable(done, total), got {type(progress).__name__} {progress!r}")


def _has_tqdm() -> bool:
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return False
    return True
