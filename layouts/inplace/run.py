"""Running an in-place plan so that whatever stops it, the buffer is the source or the result.

A plan's passes are a list of *segments*: one op (:class:`layouts.inplace.front.Op`) over a range of
its batches. Every batch of an op moves on its own, and each op has an exact inverse
(:func:`inverse`: the transposition back), so the state after any batch is known exactly: the
segments before, and the batches of this one marked done. :func:`run_segments` runs them with
asynchronous signals held (:mod:`layouts.inplace.signals`) to the segment boundaries; on any
exception -- a handler that raises, ``SystemExit``, ``MemoryError``, a bug -- it runs the inverse
of what moved (:func:`undo_segments`), newest first, and lets the exception go on, noted. An
exception after the last segment (a signal that arrives while the handlers are put back) finds
the work done: the note says the buffer holds the destination.

>>> from layouts.inplace.methods import Op
>>> op = Op("scratch", 4, (3, 5), (1, 0), 2)
>>> inverse(op)
Op(method='scratch', B=4, dims=(5, 3), perm=(1, 0), e=2, workers=1, group=1, need=0)
>>> [(s.op.dims, s.lo, s.hi) for s in undo_segments([Segment(op, 0, 4)], 0, [(0, 2)])]
[((5, 3), 0, 2)]
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from .faultpoints import point
from .signals import SignalHold

__all__ = ["Segment", "segments", "inverse", "undo_segments", "run_segments", "run_ranges", "done_ranges"]


@dataclass(frozen=True)
class Segment:
    """``op`` over its batches ``[lo, hi)``."""

    op: Any
    lo: int
    hi: int

    @property
    def block_bytes(self) -> int:
        return math.prod(self.op.dims) * self.op.e


def segments(plan: Any) -> list[Segment]:
    """Every op of every pass of ``plan``, over all its batches, in order."""
    return [Segment(op, 0, op.B) for p in plan.passes for op in p.ops]


def inverse(op: Any) -> Any:
    """The op that moves ``op``'s result back: the dims in their new order, the inverse order.
    Same block size, so the same scratch and workers fit."""
    dims = tuple(op.dims[p] for p in op.perm)
    inv = tuple(op.perm.index(i) for i in range(len(op.perm)))
    return dataclasses.replace(op, dims=dims, perm=inv)


def undo_segments(segs: Sequence[Segment], i: int, moved: Sequence[tuple[int, int]]) -> list[Segment]:
    """The segments that undo ``segs[:i]`` whole and the batch ranges ``moved`` of ``segs[i]``
    (absolute batch numbers), newest first."""
    out = [Segment(inverse(segs[i].op), lo, hi) for lo, hi in reversed(moved)] if i < len(segs) else []
    out += [Segment(inverse(s.op), s.lo, s.hi) for s in reversed(segs[:i]) if s.hi > s.lo]
    return out


def done_ranges(done: np.ndarray, offset: int = 0) -> list[tuple[int, int]]:
    """The runs of True in ``done`` as ``(lo, hi)`` ranges, shifted by ``offset``."""
    if not done.any():
        return []
    d = np.concatenate(([False], done, [False])).astype(np.int8)
    edges = np.flatnonzero(np.diff(d))
    return [(int(a) + offset, int(b) + offset) for a, b in zip(edges[::2], edges[1::2])]


def run_ranges(buf: np.ndarray, seg: Segment, lo: int, hi: int, scratch: np.ndarray,
               done: np.ndarray | None = None) -> None:
    """``seg.op`` over batches ``[lo, hi)`` of the byte buffer ``buf``; ``done`` (``hi - lo``
    bools) marks the batches that moved (see :func:`layouts.kernels.jit.inplace.transpose_batched`)."""
    from .driver import transpose_batched
    blk = seg.block_bytes
    part = buf[lo * blk:hi * blk]
    transpose_batched(part, dataclasses.replace(seg.op, B=hi - lo), scratch, done)


def run_segments(buf: np.ndarray, segs: Sequence[Segment], scratch: np.ndarray, hold: SignalHold,
                 dst_shape: tuple | None = None, undo: Callable[..., None] | None = None) -> None:
    """Run ``segs`` on the byte buffer ``buf``, signals held to each segment's end; on any
    exception undo what moved and re-raise it (a KeyboardInterrupt says so in its message)."""
    finished = False
    try:
        with hold:
            for i, seg in enumerate(segs):
                done = np.zeros(seg.hi - seg.lo, bool)
                try:
                    run_ranges(buf, seg, seg.lo, seg.hi, scratch, done)
                    point("segment", index=i, count=len(segs))
                    hold.deliver()
                except BaseException as err:
                    moved = done_ranges(done, seg.lo)
                    try:
                        (undo or _undo)(buf, undo_segments(segs, i, moved), scratch)
                    except BaseException as failed:
                        _note(err, f"convert_inplace: undoing the moved steps failed too ({failed!r}): the buffer "
                                   f"holds a partly permuted tensor")
                        raise err from failed
                    _explain_undone(err, i, len(segs))
                    if isinstance(err, KeyboardInterrupt):
                        raise KeyboardInterrupt("convert_inplace was interrupted; the finished passes were undone and "
                                                "x holds its source layout again") from None
                    raise
            finished = True
            point("finished")
            hold.deliver()
    except BaseException as err:
        if not finished or getattr(err, "_layouts_undone", False):
            raise
        # every segment ran: the buffer holds the destination; nothing is undone (the handlers
        # may be back already, and a second signal must not stop an undo midway)
        view = f" (view it with x.reshape({dst_shape}))" if dst_shape is not None else ""
        if isinstance(err, KeyboardInterrupt):
            raise KeyboardInterrupt("convert_inplace was interrupted after its last pass: the conversion is complete, "
                                    f"x's buffer holds the destination layout{view}") from None
        _note(err, f"convert_inplace: this arrived after the last pass: the conversion is complete, x's buffer holds "
                   f"the destination layout{view}")
        raise


def _undo(buf: np.ndarray, segs: Sequence[Segment], scratch: np.ndarray) -> None:
    for seg in segs:
        run_ranges(buf, seg, seg.lo, seg.hi, scratch)


def _explain_undone(err: BaseException, i: int, n: int) -> None:
    try:
        err._layouts_undone = True
    except AttributeError:
        pass
    if not isinstance(err, KeyboardInterrupt):
        _note(err, f"convert_inplace: stopped in pass step {i + 1} of {n}; every step that had moved was undone, "
                   f"so x holds its source layout again")


def _note(err: BaseException, text: str) -> None:
    if hasattr(err, "add_note"):
        err.add_note(text)
