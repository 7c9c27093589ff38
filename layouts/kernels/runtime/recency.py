"""Whether an output is still in the cache, judged by when this process last wrote it.

A plain store to a line that is not in the cache first reads the line from memory (a read for
ownership); a non-temporal store does not, but leaves the line out of the cache, so a next step
that reads the output reads it from memory. Which costs less depends on where the output's lines
are when the copy starts, which no portable call can ask. What the copy engine does know is when
it last wrote the same buffer: an output written moments ago is still cached (a loop that
converts and reads the result back, where plain stores win), while one not written for a while
has, in a pipeline, been pushed out by other work (a data loader between its batches, where the
stores' reads are the call's largest cost).

So an output of at least the profile's ``cold_nt_min_bytes`` (and below ``nt_min_bytes``, from
which every output streams) is written with non-temporal stores unless this process wrote the
same first byte within the last ``recent_write_us`` microseconds with plain stores. A write with
non-temporal stores leaves the output's lines out of the cache, so it never makes the output
recent: the next call streams as well, whatever came between (otherwise a call right after a
streamed one would read every line from memory for its plain stores, and the kind of stores,
and the time, would depend on the previous call). The bytes written are the same either way;
only the time differs.

>>> from layouts.kernels.machine.profile import reference
>>> p = reference("xeon-avx512")
>>> addr = 1 << 40                                    # an address no array of this process has
>>> cold(addr, p.cold_nt_min_bytes, p), cold(addr, p.cold_nt_min_bytes - 1, p)
(True, False)
>>> wrote(addr); cold(addr, p.cold_nt_min_bytes, p)
False
>>> wrote(addr, streamed=True); cold(addr, p.cold_nt_min_bytes, p)     # its lines are not cached
True
>>> forget()
"""

from __future__ import annotations

from time import perf_counter_ns

__all__ = ["WRITTEN", "window_ns", "cold", "wrote", "forget"]

_MAX = 256                   # buffers remembered; more are forgotten at once (then judged cold)
#: first-byte address of an output -> ``perf_counter_ns()`` when this process last finished
#: writing it (:mod:`layouts.conversion.replays` reads and sets it inline, its calls being the hottest)
WRITTEN: dict[int, int] = {}


def window_ns(nbytes: int, profile) -> int | None:
    """How recently an output of ``nbytes`` must have been written to be judged cached, in
    nanoseconds; None where recency decides nothing (outside the sizes, or no non-temporal
    stores)."""
    if not profile.nt_stores or not profile.cold_nt_min_bytes <= nbytes < profile.nt_min_bytes:
        return None
    return profile.recent_write_us * 1000


def cold(addr: int, nbytes: int, profile) -> bool:
    """Whether an output of ``nbytes`` at ``addr`` is to be written past the cache: it is at least
    ``profile.cold_nt_min_bytes``, below ``nt_min_bytes`` (larger ones stream anyway), the CPU has
    non-temporal stores, and this process has not written ``addr`` in ``recent_write_us``."""
    window = window_ns(nbytes, profile)
    if window is None:
        return False
    t = WRITTEN.get(addr)
    return t is None or perf_counter_ns() - t > window


def wrote(addr: int, streamed: bool = False) -> None:
    """Note that an output starting at ``addr`` was written just now: with plain stores (it is in
    the cache) or, ``streamed``, with non-temporal ones (it is not: no longer recent)."""
    if streamed:
        WRITTEN.pop(addr, None)
        return
    if len(WRITTEN) >= _MAX and addr not in WRITTEN:
        WRITTEN.clear()
    WRITTEN[addr] = perf_counter_ns()


def forget() -> None:
    """Judge every output cold again (tests start from this)."""
    WRITTEN.clear()
