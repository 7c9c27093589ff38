"""``python -m layouts tune``: every measured field of the machine profile, measured here.

Three measurers, each beside the code it tunes: the copy engine's size thresholds and its
wisdom (:func:`layouts.kernels.tune.tune`), the in-place planner's costs
(:func:`layouts.inplace.tune.tune_inplace`) and the OpenCV blob's thread rule
(:func:`layouts.interop.opencv.blob_tune.tune_blob`). This module, above all three, runs them in
turn, each on the profile the one before it returned.

>>> import inspect
>>> list(inspect.signature(tune_all).parameters)
['quick', 'rounds']
"""

from __future__ import annotations

__all__ = ["tune_all"]


def tune_all(quick: bool = False, rounds: int | None = None):
    """The tuned profile and what was measured (:class:`~layouts.kernels.tune.Measured`, in order);
    ``quick`` measures fewer, smaller cases (seconds, for a check; less trustworthy)."""
    from ..inplace.tune import tune_inplace
    from ..interop.opencv.blob_tune import tune_blob
    from ..kernels.tune import tune
    prof, found = tune(quick=quick, rounds=rounds)
    rounds = rounds or (3 if quick else 5)
    prof, more = tune_inplace(prof, nbytes=(4 << 20) if quick else (32 << 20), rounds=rounds)
    found += more
    prof, more = tune_blob(prof, quick=quick, rounds=rounds)
    found += more
    return prof.replace(source="tuned"), found
