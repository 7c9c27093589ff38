"""Asynchronous signals held to the boundaries where a conversion in place can stop cleanly.

While a :class:`SignalHold` is active (main thread only: Python runs signal handlers there), every
signal of :data:`HELD` whose handler is a Python function -- Python's own Ctrl-C handler, a
program's ``signal.signal(SIGTERM, lambda *a: sys.exit(1))`` -- is only *recorded*; the engine
calls :meth:`SignalHold.deliver` where the buffer holds a whole number of steps, and the real
handler runs there: if it raises (``KeyboardInterrupt``, ``SystemExit``...), the engine undoes
what it did and lets the exception go on. ``hold_default`` names signals whose default action
(ending the process) is held too: the file path rolls back first, then the signal is sent again
with its default action (:meth:`SignalHold.__exit__`). Handlers ``SIG_IGN`` stay as they are.

>>> import os, signal
>>> def stop(signum, frame):
...     raise SystemExit("stopped")
>>> old = signal.signal(signal.SIGUSR1, stop)
>>> hold = SignalHold()
>>> with hold:
...     os.kill(os.getpid(), signal.SIGUSR1)   # recorded, not raised
...     print("still running")
...     try:
...         hold.deliver()                      # the program's handler runs here
...     except SystemExit:
...         print("raised at the boundary")
still running
raised at the boundary
>>> _ = signal.signal(signal.SIGUSR1, old)
"""

from __future__ import annotations

import signal
import threading
from typing import Any

__all__ = ["SignalHold", "HELD", "Terminated"]

#: the asynchronous signals a program typically handles in Python
HELD = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM")
             if hasattr(signal, n))


class Terminated(BaseException):
    """A held signal whose action is to end the process: raised at a boundary so the caller can
    restore its data; :class:`SignalHold` sends the signal again once its handlers are back."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"signal {signal.Signals(signum).name} (its default action ends the process)")
        self.signum = signum


class SignalHold:
    """Record the :data:`HELD` signals while active; run their handlers at :meth:`deliver`."""

    def __init__(self, hold_default: tuple[int, ...] = ()) -> None:
        self.hold_default = tuple(hold_default)
        self.pending: list[tuple[int, Any]] = []
        self._old: dict[int, Any] = {}
        self.active = False

    def _record(self, signum: int, frame: Any) -> None:
        self.pending.append((signum, frame))

    def __enter__(self) -> "SignalHold":
        self.pending = []
        if threading.current_thread() is threading.main_thread():
            for sig in HELD:
                try:
                    handler = signal.getsignal(sig)
                    if callable(handler) or (handler == signal.SIG_DFL and sig in self.hold_default):
                        self._old[sig] = signal.signal(sig, self._record)
                except (ValueError, OSError):  # not allowed here (an embedded interpreter)
                    continue
        self.active = bool(self._old)
        return self

    def deliver(self) -> None:
        """Run the real handler of each recorded signal, oldest first (it may raise); a held
        default action raises :class:`Terminated`."""
        while self.pending:
            signum, frame = self.pending.pop(0)
            handler = self._old.get(signum)
            if handler == signal.SIG_DFL:
                self.pending.clear()
                raise Terminated(signum)
            if callable(handler):
                handler(signum, frame)

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:
        old, self._old = self._old, {}
        for sig, handler in old.items():
            try:
                signal.signal(sig, handler)
            except (ValueError, OSError):
                pass
        self.active = False
        late, self.pending = self.pending, []
        if isinstance(exc, Terminated):
            signal.raise_signal(exc.signum)  # the default action, now that the data is safe
            return
        if kind is None:  # arrived after the last boundary: the handlers run now, as they would have
            for signum, frame in late:
                handler = old.get(signum)
                if handler == signal.SIG_DFL:
                    signal.raise_signal(signum)
                elif callable(handler):
                    handler(signum, frame)
