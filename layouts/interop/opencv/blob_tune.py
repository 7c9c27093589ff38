"""Measuring :func:`~.blob.blob_from_images`' thread rule on this machine (part of
``python -m layouts tune``): the profile's ``blob_thread_min_bytes`` (the output size from which
every core beats one) and ``blob_chunk_bytes`` (the rows each thread takes at a time).

Both are timed on batches of 224 x 224 x 3 uint8 images into float32 NCHW blobs, the case the
defaults were set on, in interleaved rounds with medians (:func:`layouts.kernels.tune.medians`).
``blob_load_aware`` is a rule, not a number (give way to other running tasks), and stays as it is.

>>> from layouts import kernels
>>> prof, found = tune_blob(kernels.reference("epyc-avx512").replace(cpus=2), quick=True, rounds=1)
>>> [m.field for m in found]
['blob_thread_min_bytes', 'blob_chunk_bytes']
>>> prof.blob_chunk_bytes == found[1].chosen
True
"""

from __future__ import annotations

import numpy as np

from .blob import blob_from_images

__all__ = ["tune_blob"]

_SIDE = 224
_PER_IMAGE = 3 * _SIDE * _SIDE * 4  # output bytes of one image


def _runs(n: int, profiles, threads):
    from ...kernels.machine.profile import use_profile
    images = np.random.default_rng(0).integers(0, 256, (n, _SIDE, _SIDE, 3), dtype=np.uint8)
    out = np.empty((n, 3, _SIDE, _SIDE), np.float32)
    runs = []
    for prof, nth in zip(profiles, threads):
        def run(prof=prof, nth=nth):
            with use_profile(prof):
                blob_from_images(images, 1 / 255, mean=(104, 117, 123), out=out, threads=nth)
        runs.append(run)
    return runs, out.nbytes, images


def tune_blob(base, quick: bool = False, rounds: int = 5):
    """The profile ``base`` with ``blob_thread_min_bytes`` and ``blob_chunk_bytes`` measured, and
    the :class:`~layouts.kernels.tune.Measured` of each; on one core, the profile unchanged."""
    from ...kernels.tune import PAUSE_S, THREAD_MARGIN, Measured, first_winning, medians, producer
    if base.cpus < 2:
        return base, []
    M = 1 << 20
    sizes = [2 * M, 8 * M] if quick else [1 * M, 2 * M, 4 * M, 8 * M, 16 * M, 32 * M]
    one = base.replace(blob_thread_min_bytes=1 << 62)
    every = base.replace(blob_thread_min_bytes=0, blob_load_aware=False)   # the threads themselves, not the load
    rows, wins = [], {}
    for size in sizes:
        runs, nbytes, images = _runs(max(1, size // _PER_IMAGE), (one, every), (1, base.cpus))
        t1, tn = medians(runs, nbytes, rounds, PAUSE_S, producer(images))     # as the copy engine's
        rows.append((f"{nbytes // _PER_IMAGE} x 224x224x3 u8", nbytes, t1, tn))
        wins[size] = tn * THREAD_MARGIN <= t1
    chosen, note = first_winning(sizes, wins, f"{base.cpus} threads")
    found = [Measured("blob_thread_min_bytes", "one thread", f"{base.cpus} threads", sizes, rows, chosen, note)]
    chunks = [64 << 10, 256 << 10, 1 << 20]
    runs, nbytes, _ = _runs(max(1, sizes[-1] // _PER_IMAGE), [every.replace(blob_chunk_bytes=c) for c in chunks],
                            (base.cpus,) * len(chunks))
    ts = medians(runs, nbytes, rounds)
    best = chunks[int(np.argmin(ts))]
    found.append(Measured("blob_chunk_bytes", f"chunks of {chunks[0]} bytes", "the fastest chunk", chunks,
                          [(f"chunks of {c} bytes", nbytes, ts[0], t) for c, t in zip(chunks, ts)], best,
                          note=f"{base.cpus} threads on {nbytes} bytes of output"))
    return base.replace(blob_thread_min_bytes=chosen, blob_chunk_bytes=best), found
