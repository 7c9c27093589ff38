"""A data loader's loop: other work, then one batch converted into the same ``out``.

    python bench/converter.py                    # the 18 cells of 256x3x32x32 (~1 min)
    python bench/converter.py --pieces           # + convert with each repeat-call piece turned off
    python bench/converter.py --hot              # no other work between calls (a hot loop)

Each round does, for every method in a shuffled order, "other work" (``np.copyto`` of 64 MiB,
what a loader's decoding does to the caches between batches; untimed) and then one timed call.
Figures are medians over the rounds; ratios are ``t(fastest peer) / t(method)``, higher is better.

Methods: ``convert`` (``ly.convert(x, src, dst, out=out, threads=1)``), ``converter``
(``c(x, out=out)``, ``c = ly.converter(src, dst, shape, dtype, threads=1)``) and the peers
``np.copyto`` of the strided view, ``cv2.transposeND`` and torch's ``copy_`` (1 thread), where
installed. With ``--pieces``, ``convert`` again with pieces of the implicit repeat-call machinery
turned off (in the bench process only, by replacing module attributes before the call; see
:class:`_Pieces`): ``-replays`` (:mod:`layouts.conversion.replays` and convert's cache of
converters), ``-replays-repeats`` (and the copy engine's own kept kernel calls), ``-...-recency`` (and
non-temporal stores into outputs not written lately), and ``-recency`` alone.
"""

import argparse
import gc
import os
import random
import sys
import time
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

import _machine                  # noqa: E402

os.environ.setdefault("LAYOUTS_EAGER_KERNELS", "1")

PERM = {"NCHW": (0, 1, 2, 3), "NHWC": (0, 2, 3, 1), "CHWN": (1, 2, 3, 0)}
DIRS = ["NCHW-NHWC", "NHWC-NCHW", "NCHW-CHWN", "CHWN-NCHW", "NHWC-CHWN", "CHWN-NHWC"]
DTYPES = ["float32", "float16", "uint8"]
PEERS = ("numpy", "cv2nd", "torch1")
#: the pieces turned off in each ``--pieces`` variant of convert
VARIANTS = (("replays",), ("replays", "repeats"), ("replays", "repeats", "recency"), ("recency",))


def _aligned(shape, dtype):
    import layouts as ly
    return ly.aligned_empty(shape, dtype)


class _Forgetful(dict):
    """A dict that keeps nothing (convert's cache of converters, turned off)."""

    def __setitem__(self, key, value):
        pass


class _Pieces:
    """The repeat-call pieces, each turned off by replacing module attributes (``set`` restores
    the others): ``replays`` (convert's replays and its cache of converters), ``repeats`` (the copy
    engine's kept kernel calls; its stores still chosen by recency), ``recency`` (a profile whose
    ``cold_nt_min_bytes`` is ``nt_min_bytes``: below that no output is judged cold, so plain
    stores; set with ``set_profile``, so kept calls stay valid for each method's own ``out``)."""

    def __init__(self):
        from layouts.conversion import front, replays
        from layouts.kernels import copy
        from layouts.kernels.machine import profile
        from layouts.kernels.runtime import pointers, recency

        def copy_views(dst, src, nth, stream=False, prof=None, remember=False):
            addrs = pointers.address(dst), pointers.address(src)
            prof = prof or profile.current()
            if remember:
                stream = recency.cold(addrs[0], dst.nbytes, prof) or stream
            copy._plan_and_run(dst, src, nth, stream, prof, addrs, None)
            if remember:
                recency.wrote(addrs[0])
        self.pieces = {"replays": [(replays, "replayed", lambda *a: None), (front, "_converters", _Forgetful())],
                       "repeats": [(copy, "_copy_views", copy_views)]}
        self.orig = {(m, a): getattr(m, a) for group in self.pieces.values() for m, a, _ in group}
        self.profile = profile
        self.base = profile.current()
        self.no_recency = self.base.replace(cold_nt_min_bytes=self.base.nt_min_bytes)

    def set(self, off=()):
        for name, group in self.pieces.items():
            for m, a, replacement in group:
                setattr(m, a, replacement if name in off else self.orig[(m, a)])
        self.profile.set_profile(self.no_recency if "recency" in off else self.base)


def methods_for(shape, dtype, direction, pieces):
    import layouts as ly
    s, d = direction.split("-")
    rng = np.random.default_rng(0)
    x = rng.integers(0, 255, size=shape, dtype=np.uint8).astype(dtype)
    src = np.ascontiguousarray(x.transpose(PERM[s]))
    inv = np.argsort(PERM[s])
    perm = tuple(int(inv[p]) for p in PERM[d])
    view = src.transpose(perm)
    out_shape = view.shape
    m = {}

    def own():
        return _aligned(out_shape, dtype)
    o = own()
    m["convert"] = (lambda: pieces and pieces.set(), lambda o=o: ly.convert(src, s, d, out=o, threads=1), o)
    o = own()
    c = ly.converter(s, d, src.shape, src.dtype, threads=1)
    m["converter"] = (lambda: pieces and pieces.set(), lambda o=o: c(src, out=o), o)
    if pieces:
        for off in VARIANTS:
            o = own()
            m["convert-" + "-".join(off)] = ((lambda off=off: pieces.set(off)),
                                             (lambda o=o: ly.convert(src, s, d, out=o, threads=1)), o)
    o = own()
    m["numpy"] = (lambda: None, lambda o=o: np.copyto(o, view), o)
    try:
        import cv2
        cv2.setNumThreads(1)
        o = own()
        m["cv2nd"] = (lambda: None, lambda o=o: cv2.transposeND(src, list(perm), o), o)
    except (ImportError, AttributeError):
        pass
    try:
        import torch
        o = own()
        tv, to = torch.from_numpy(view), torch.from_numpy(o)
        m["torch1"] = (lambda: torch.set_num_threads(1), lambda: to.copy_(tv), o)
    except ImportError:
        pass
    for name, (prep, run, o) in list(m.items()):
        prep()
        o.view(np.uint8).fill(0xA5)
        try:
            run()
            ok = np.array_equal(o, view)
        except Exception:        # noqa: BLE001 - a peer that cannot do this case is dropped
            ok = False
        if not ok:
            print(f"  note: {name} dropped for {direction} {dtype}", file=sys.stderr)
            del m[name]
    if pieces:
        pieces.set()
    return {k: (v[0], v[1]) for k, v in m.items()}


def bench(shape, dtype, direction, rounds, hot, pieces):
    methods = methods_for(shape, dtype, direction, pieces)
    big = np.ones(64 << 20, np.uint8)
    big2 = np.empty_like(big)
    times = {k: [] for k in methods}
    order = list(methods)
    shuffle = random.Random(zlib.crc32(f"{dtype} {direction}".encode())).shuffle
    gc.collect()
    gc.disable()
    try:
        for _ in range(rounds):
            shuffle(order)
            for k in order:
                prep, run = methods[k]
                prep()
                if not hot:
                    np.copyto(big2, big)
                t0 = time.perf_counter()
                run()
                times[k].append(time.perf_counter() - t0)
    finally:
        gc.enable()
        if pieces:
            pieces.set()
    return {k: float(np.median(v)) for k, v in times.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=25)
    ap.add_argument("--hot", action="store_true", help="no other work between calls")
    ap.add_argument("--pieces", action="store_true", help="also convert with each repeat-call piece turned off")
    ap.add_argument("--dtypes", default=",".join(DTYPES))
    ap.add_argument("--dirs", default=",".join(DIRS))
    ap.add_argument("--set", default="", help="profile fields for the whole run, e.g. recent_write_us=0")
    a = ap.parse_args(argv)
    _machine.set_profile_fields(a.set)
    shape = (256, 3, 32, 32)
    info = _machine.machine_info()
    pieces = _Pieces() if a.pieces else None
    print(f"CPU: {info['cpu_model']} ({info.get('llvm_host_cpu', '?')}), {info['cores']} cores; {a.rounds} rounds, "
          f"{'hot loop' if a.hot else 'after 64 MiB of other work'}; us per call, and t(fastest peer) / t(method)"
          f"{'; profile ' + a.set if a.set else ''}\n")
    rows, header = [], None
    for dt in a.dtypes.split(","):
        for dr in a.dirs.split(","):
            med = bench(shape, dt, dr, a.rounds, a.hot, pieces)
            peers = {k: v for k, v in med.items() if k in PEERS}
            best = min(peers, key=peers.get) if peers else None
            ours = [k for k in med if k not in PEERS]
            if header is None:
                header = ours
                print("| cell | best peer us | " + " | ".join(f"{k} us | {k}/best" for k in ours) + " |")
                print("|---" * (2 + 2 * len(ours)) + "|")
            cells = []
            for k in header:
                v = med.get(k)
                r = (peers[best] / v) if (v and best) else None
                cells.append(f"{v * 1e6:.1f} | {r:.2f}" if v else "- | -")
            bp = f"{best} {peers[best] * 1e6:.1f}" if best else "-"
            print(f"| {dt} {dr.replace('-', '->')} | {bp} | " + " | ".join(cells) + " |", flush=True)
            rows.append((med, best and peers[best]))
    if rows and header:
        print()
        for k in header:
            rs = [b / m[k] for m, b in rows if b and m.get(k)]
            if rs:
                g = float(np.exp(np.mean(np.log(rs))))
                print(f"{k}: geometric mean over the fastest peer {g:.2f}, worst {min(rs):.2f}, "
                      f"cells at 1x or more {sum(r >= 1 for r in rs)} of {len(rs)}")
        if "convert" in header:
            for k in header:
                if k != "convert":
                    rs = [m["convert"] / m[k] for m, _ in rows if m.get(k)]
                    print(f"t(convert) / t({k}): geometric mean {float(np.exp(np.mean(np.log(rs)))):.2f}, "
                          f"range {min(rs):.2f}-{max(rs):.2f}")


if __name__ == "__main__":
    main()
