"""The planner that measures (FFTW's "wisdom"): for a large copy of a shape it has not seen, time
the few ways the registry could copy it on this machine, and keep the fastest.

The registry's rules (:mod:`.registry`, thresholds from :class:`~.profile.MachineProfile`) predict
a choice, and a copy whose *signature* (unit, merged axes and strides, alignments, threads) has
wisdom takes the way the wisdom holds. For a copy of at least ``measure_min_bytes`` whose
signature has no wisdom yet, :func:`decide` also builds the alternatives that
the rules would take under a small change of the profile (:data:`VARIANTS`: the next strategy in
the registry, narrow tiles toggled, short rows in blocks or not), times each on a slice of the user's
own arrays (a warm-up run, then the best of two, each on a part of the arrays no run touched before),
and keeps the fastest unless the predicted choice is within :data:`MARGIN` of it. The slice is about
1/64 of the copy and at least two L2 caches, so
the whole measurement costs a fraction of one copy, once per signature and machine: the result is
saved beside the profile (:func:`path`), keyed by CPU and library version, and later processes
read it. ``python -m layouts tune`` fills it for the common cases ahead of time, smaller ones too
(down to four L2 caches: two parts of the slice size), whose first copy would not measure them.

A profile with ``measure_min_bytes = 0`` measures nothing: the reference machines the tests pin
(:func:`~.profile.reference`) are such, so every choice there is the rules' and deterministic.

>>> from layouts.kernels.machine.profile import reference
>>> reference("epyc-avx512").measure_min_bytes
0
>>> sorted(VARIANTS)
['narrow tiles toggled', 'next strategy', 'short-row blocks toggled']
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from pathlib import Path

import numpy as np

from ..runtime.pool import unrecorded
from ..registry import choose
from ..strategy import Choice, Task

__all__ = ["decide", "signature", "path", "VARIANTS", "MARGIN", "forget"]

#: the predicted choice stays unless another is faster by more than this fraction (timing noise)
MARGIN = 0.1
_FORMAT = 1


def _next_strategy(profile, first: Choice):
    return profile.replace(disabled=tuple(profile.disabled) + (first.strategy,))


def _narrow_toggled(profile, first: Choice):
    return profile.replace(narrow_when_aliased=not profile.narrow_when_aliased)


def _blocks_toggled(profile, first: Choice):
    """Short rows in blocks that hold a third of L1, or one tile at a time when they were in blocks."""
    return profile.replace(short_rows_block_bytes=0 if profile.short_rows_block_bytes else profile.l1d_bytes // 3)


#: name -> the profile under which the rules give an alternative to the predicted choice. Ways
#: that differ in how they meet memory (non-temporal stores, batch groups) are not among them: a
#: slice that runs again and again stays in the last-level cache, where streaming stores always
#: lose, while the whole copy goes to memory (plain stores measured faster on a slice ran 3.6x
#: slower on the whole NHWC->CHWN copy); ``nt_min_bytes`` is measured on whole copies by ``tune``
VARIANTS = {"next strategy": _next_strategy, "narrow tiles toggled": _narrow_toggled,
            "short-row blocks toggled": _blocks_toggled}
#: which profile fields each variant changes (what the wisdom file records)
_CHANGES = {"next strategy": ("disabled",), "narrow tiles toggled": ("narrow_when_aliased",),
            "short-row blocks toggled": ("short_rows_block_bytes",)}


def signature(task: Task, nthreads: int) -> str:
    """What two copies must share for one measurement to serve both: the unit, the merged axes
    and strides, the two alignments to a cache line, the stream flag and the threads."""
    p = task.plan
    return (f"{p.kind}|{p.unit}|{p.n},{p.ni},{p.nj}|{p.dI},{p.dJ},{p.sI},{p.sJ}|{p.batch}|"
            f"{task.dst_addr % 64},{task.src_addr % 64}|{int(task.stream)}|{nthreads}")


def path() -> Path:
    """Where the wisdom is saved: beside the profile ``python -m layouts tune`` saves."""
    from .profile import default_path
    return default_path().with_name("wisdom.json")


_lock = threading.Lock()
_store: dict | None = None


def _key(profile) -> str:
    from ..._version import __version__
    return f"{profile.machine_key}|layouts {__version__}"


def _load(profile) -> dict:
    """The entries measured on this machine with this version (read once per process)."""
    global _store
    with _lock:
        if _store is None:
            try:
                doc = json.loads(path().read_text())
                ok = isinstance(doc, dict) and doc.get("format") == _FORMAT and isinstance(doc.get("machines"), dict)
                _store = doc["machines"] if ok else {}
            except (OSError, ValueError, RecursionError):
                _store = {}
        return _store.setdefault(_key(profile), {})


def _save() -> None:
    """Write the wisdom atomically; a folder that cannot be written keeps it in this process only."""
    target = path()
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with _lock:
            text = json.dumps({"format": _FORMAT, "machines": _store}, indent=1)
        tmp.write_text(text)
        tmp.replace(target)
    except OSError:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:             # a folder this account cannot even look into: nothing was made there
            pass


def forget() -> None:
    """Drop the wisdom of this process (the file stays; it is read again on the next measurement)."""
    global _store
    with _lock:
        _store = None


def _applied(profile, changes: dict):
    """``profile`` with the recorded field values of a variant."""
    return profile.replace(**{k: tuple(v) if isinstance(v, list) else v for k, v in changes.items()})


def decide(task: Task, profile, nthreads: int, dst=None, src=None) -> tuple[Choice, list, str]:
    """The choice for ``task`` and the strategies declined before it, and how it was decided:
    ``"predicted"`` (the rules), ``"measured ..."`` (wisdom, now or earlier). ``dst``/``src``:
    the arrays, when the copy is about to run (without them nothing is measured)."""
    c, declined = choose(task, profile)
    if not profile.measure_min_bytes or not c.flat:
        return c, declined, "predicted"
    entries = _load(profile)
    sig = signature(task, nthreads)
    known = entries.get(sig)
    large = task.plan.nbytes >= profile.measure_min_bytes     # smaller copies only follow wisdom that tune measured
    if known is None and not large:
        return c, declined, "predicted"
    if known is None and dst is not None:
        # inside a recording of this copy's calls (convert's repeats) the timed runs stay out of it
        known = unrecorded(lambda: _measure(task, profile, nthreads, dst, src, c))
        with _lock:
            entries[sig] = known
        _save()
    if known is None:
        return c, declined, "predicted (not measured yet: the first copy of this shape measures)"
    if known["chosen"] == "predicted":
        return c, declined, f"measured: the prediction was fastest ({_times(known)})"
    c2, declined2 = choose(task, _applied(profile, known["changes"]))
    return c2, declined2, f"measured: {known['chosen']} was fastest ({_times(known)})"


def _times(entry: dict) -> str:
    return ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in entry["seconds"].items()) if entry["seconds"] else "one way only"


def _ways(task: Task, profile, first: Choice) -> dict:
    """name -> (profile, choice) of every distinct way: the prediction first."""
    ways = {"predicted": (profile, first)}
    seen = {(first.strategy, repr(first.params))}
    for name, make in VARIANTS.items():
        p = make(profile, first)
        c, _ = choose(task, p)
        if c.flat and (c.strategy, repr(c.params)) not in seen:
            seen.add((c.strategy, repr(c.params)))
            ways[name] = (p, c)
    return ways


def _slices(dst, src, nbytes: int, profile, count: int) -> list:
    """``count`` views ``(dst, src)`` over distinct parts of about 1/64 of the copy (at least two L2
    caches) along the axis outermost on both sides, so that no timed run finds its data in a cache that
    an earlier run filled (the whole copy goes to memory); the same part repeated where the axis
    cannot be cut that often, the whole arrays where it cannot be cut at all. Every part's dst starts
    as far from a cache line as the first's: the way is planned on the first part, and its
    non-temporal stores on another part must meet lines where they met them there."""
    want = max(nbytes // 64, 2 * profile.l2_bytes)
    # the axis outermost on both sides: a part of it is a few long runs of each array (an axis
    # outer in dst but inner in src would make a part touch every cache line of src)
    axis = max(range(dst.ndim), key=lambda a: (dst.shape[a] > 1, min(abs(dst.strides[a]), abs(src.strides[a])))) \
        if dst.ndim else 0
    n = dst.shape[axis] if dst.ndim else 1
    k = max(1, min(n, -(-want * n // max(1, nbytes))))
    step = 64 // math.gcd(64, abs(dst.strides[axis])) if dst.ndim else 1     # parts a line apart
    k = -(-k // step) * step
    if k >= n:
        return [(dst, src)] * count
    parts = max(1, n // k)
    out = []
    for m in range(count):
        lo = (m % parts) * k
        index = (slice(None),) * axis + (slice(lo, lo + k),)
        out.append((dst[index], src[index]))
    return out


def _same_way(profile, whole: Choice, alone: bool):
    """``profile`` made to take ``whole``'s strategy on a slice whatever the slice's size: the size
    thresholds at zero (the whole copy's size decided them) and, with ``alone``, every other
    strategy off (which a strategy that plans sub-copies, such as ``staged``, must not be given:
    its sub-copies would find no strategy but the slow fallback)."""
    from ..registry import STRATEGIES
    sized = profile.replace(small_bytes=0, group_min_bytes=0, group_aliased_min_bytes=0)
    return sized.replace(disabled=tuple(s.name for s in STRATEGIES if s.name != whole.strategy)) if alone else sized


def _slice_choice(sub: Task, p, whole: Choice):
    """The choice on a slice that runs ``whole``'s strategy and variant, or None."""
    for alone in (False, True):
        c, _ = choose(sub, _same_way(p, whole, alone))
        if c.strategy == whole.strategy and c.params.get("variant") == whole.params.get("variant"):
            return c
    return None


def _measure(task: Task, profile, nthreads: int, dst, src, first: Choice) -> dict:
    from ..runtime.pointers import flat_view

    ways = _ways(task, profile, first)
    if len(ways) == 1:
        return {"chosen": "predicted", "changes": {}, "seconds": {}}
    names = list(ways)
    parts = _slices(dst, src, task.plan.nbytes, profile, 1 + 2 * len(names))
    runs = {}
    for name in names:
        p, whole = ways[name]
        stream = bool(whole.params.get("stream", task.stream))
        sd, ss = parts[0]
        sub = Task.of(sd, ss, stream)
        c = _slice_choice(sub, p, whole)
        if c is None:
            continue                         # the slice would not run this way: not measured
        nth = 1 if task.plan.nbytes < p.thread_min(c.strategy) else nthreads
        c.run(sd, ss, flat_view(sd, sub.plan.dext, sub.plan.unit), flat_view(ss, sub.plan.sext, sub.plan.unit), nth)  # compiles
        runs[name] = (c, sub, nth)
    for sd, _ in parts[1:]:                  # fault the parts' pages in (a byte a page) outside the timing
        if sd.flags.c_contiguous and sd.size:
            sd.reshape(-1).view(np.uint8)[::4096] = 0
    seconds = {name: float("inf") for name in runs}
    for r in range(2):                       # each timed run on a part no run touched before it
        for k, name in enumerate(runs):
            c, sub, nth = runs[name]
            sd, ss = parts[1 + r * len(names) + k]
            d, s = flat_view(sd, sub.plan.dext, sub.plan.unit), flat_view(ss, sub.plan.sext, sub.plan.unit)
            t0 = time.perf_counter()
            c.run(sd, ss, d, s, nth)
            seconds[name] = min(seconds[name], time.perf_counter() - t0)
    if "predicted" not in seconds or len(seconds) == 1:
        return {"chosen": "predicted", "changes": {}, "seconds": seconds}
    winner = min(seconds, key=seconds.get)
    if seconds[winner] >= seconds["predicted"] * (1 - MARGIN):
        winner = "predicted"
    changes = {} if winner == "predicted" else {
        f: (list(v) if isinstance(v, tuple) else v)
        for f in _CHANGES[winner] for v in [getattr(ways[winner][0], f)]}
    return {"chosen": winner, "changes": changes, "seconds": seconds}
