"""What other libraries do for ``out[...] = view``: the peers the benchmark compares against.

Every peer writes into the preallocated output it is given (the benchmark gives each its own)
and runs on one thread unless its name says otherwise.  A peer is ``(prep, run)``: ``prep`` is
called before the timed ``run`` (outside the timing: thread settings), so rounds can interleave
peers.

- ``numpy``   ``np.copyto(out, view)``
- ``torch1``, ``torch2``   ``out.copy_(view)`` with 1 / 2 torch threads
- ``cv2loop`` one ``cv2.transpose`` per 2-D block when the copy is a batch of several 2-D transposes
- ``cv2one``  one ``cv2.transpose`` call when the whole copy is a single 2-D transpose
  (NCHW->CHWN is the (N, C*H*W) -> (C*H*W, N) transpose; CHWN->NCHW likewise)
- ``cv2nd``   one ``cv2.transposeND`` call of the contiguous source (any permutation)
- ``tvm``, ``openvino``   compiled layout transforms, where installed (``bench/_compiler_peers.py``;
  not in the default ``--peers``: TVM's tile search takes seconds a case)
- ``hptt``    HPTT's plan (ESTIMATE) of the contiguous source, float32 only, where it is built
  (``bench/_hptt.py``; not in the default ``--peers``: building it takes minutes)

The 2-D decomposition is computed here from the strides (independently of the package's
planner): axes of size 1 dropped, axes contiguous in both arrays merged.

>>> import numpy as np
>>> x = np.zeros((8, 3, 4, 5), np.float32)                      # NCHW
>>> out = np.empty((3, 4, 5, 8), np.float32)                    # CHWN
>>> transpose_blocks(out, x.transpose(1, 2, 3, 0))              # (N, CHW) -> (CHW, N)
(8, 60, [])
>>> out = np.empty((8, 4, 5, 3), np.float32)                    # NHWC: one (C, HW) block per image
>>> transpose_blocks(out, x.transpose(0, 2, 3, 1))
(3, 20, [(8, 60, 60)])
"""

import numpy as np

__all__ = ["PEERS", "coalesce", "transpose_blocks", "make_peers"]

PEERS = ("numpy", "torch1", "torch2", "cv2loop", "cv2one", "cv2nd", "tvm", "openvino", "hptt")
_GROUPS = {"torch": ("torch1", "torch2"), "cv2": ("cv2loop", "cv2one", "cv2nd")}
_skipped: set = set()    # reasons a peer was skipped, each said once
_BITS = {1: np.uint8, 2: np.uint16, 4: np.int32, 8: np.float64}   # cv2 depths moving raw bits


def expand(names):
    """'numpy,torch,cv2' -> the peer names; unknown names raise ValueError."""
    out = []
    for n in names:
        for k in _GROUPS.get(n, (n,)):
            if k not in PEERS:
                raise ValueError(f"--peers: unknown peer {k!r}, expected some of {PEERS} or {tuple(_GROUPS)}")
            if k not in out:
                out.append(k)
    return out


def coalesce(axes):
    """``(n, dst_stride, src_stride)`` axes: drop n == 1, sort by dst stride, merge contiguous pairs."""
    ax = sorted(((n, d, s) for n, d, s in axes if n != 1), key=lambda a: (a[1], a[2]), reverse=True)
    out = []
    for n, d, s in ax:
        if out and out[-1][1] == d * n and out[-1][2] == s * n:
            out[-1] = (out[-1][0] * n, d, s)
        else:
            out.append((n, d, s))
    return out


def transpose_blocks(out, view):
    """``(ni, nj, batch)`` when ``out[...] = view`` is a batch of dense 2-D transposes, else None.

    Strides in elements: each batch index ``b`` copies the ``(ni, nj)`` C-contiguous block of the
    source at ``sum(b*s)`` to the ``(nj, ni)`` C-contiguous block of ``out`` at ``sum(b*d)``.
    """
    isz = out.itemsize
    st = list(out.strides) + list(view.strides)
    if any(s <= 0 or s % isz for s, n in zip(st, list(out.shape) * 2) if n > 1):
        return None
    ax = coalesce([(n, d // isz, s // isz) for n, d, s in zip(out.shape, out.strides, view.strides)])
    if len(ax) < 2 or ax[-1][1] != 1:
        return None
    i = len(ax) - 1                                  # contiguous in out
    js = [k for k, a in enumerate(ax) if a[2] == 1]  # contiguous in the source
    if len(js) != 1 or js[0] == i:
        return None
    j = js[0]
    ni, nj = ax[i][0], ax[j][0]
    if ax[i][2] != nj or ax[j][1] != ni:
        return None
    return ni, nj, [a for k, a in enumerate(ax) if k not in (i, j)]


def _flat(a, nelem):
    return np.lib.stride_tricks.as_strided(a, (nelem,), (a.itemsize,))


def _cv2_blocks(out, view):
    tb = transpose_blocks(out, view)
    dt = _BITS.get(out.itemsize)
    if tb is None or dt is None:
        return None
    ni, nj, batch = tb
    ext = lambda a: sum((n - 1) * s for n, s in zip(a.shape, a.strides)) // a.itemsize + 1
    s_flat = _flat(view, ext(view)).view(dt)
    d_flat = _flat(out, ext(out)).view(dt)
    pairs = []
    for idx in np.ndindex(*[n for n, _, _ in batch]):
        do = sum(k * d for k, (_, d, _) in zip(idx, batch))
        so = sum(k * s for k, (_, _, s) in zip(idx, batch))
        pairs.append((s_flat[so:so + ni * nj].reshape(ni, nj), d_flat[do:do + ni * nj].reshape(nj, ni)))
    return pairs


def make_peers(names, out, view, src_nd, perm, specs=None, src=None):
    """``{name: (prep, run)}`` for the peers of ``names`` that apply to this copy.

    ``out``: the preallocated destination (C-contiguous); ``view``: the strided source with
    ``out``'s shape; ``src_nd``: the contiguous source array with ``view == src_nd.transpose(perm)``;
    ``specs``: (source, destination) layout specs and ``src`` the source in its own layout (for
    the compiled peers).
    """
    nothing = lambda: None
    peers = {}
    if specs is not None and src is not None:
        import _compiler_peers
        for name, make in (("tvm", _compiler_peers.tvm_peer), ("openvino", _compiler_peers.openvino_peer)):
            if name in names:
                made = make(*specs, src, out)
                if made is not None:
                    peers[name] = (nothing, made[0])
    if "numpy" in names:
        peers["numpy"] = (nothing, lambda: np.copyto(out, view))
    if "hptt" in names and out.dtype == np.float32 and src_nd.flags.c_contiguous:
        import _hptt
        ok, why = _hptt.available()
        if ok:
            peers["hptt"] = (nothing, _hptt.transpose_fn(src_nd, perm, out, threads=1))
        elif why not in _skipped:
            _skipped.add(why)
            print(f"hptt skipped: {why}")
    if "torch1" in names or "torch2" in names:
        try:
            import torch
        except ImportError:
            torch = None
        if torch is not None:
            tv, to = torch.from_numpy(view), torch.from_numpy(out)
            for k in (1, 2):
                if f"torch{k}" in names:
                    peers[f"torch{k}"] = ((lambda k=k: torch.set_num_threads(k)), (lambda: to.copy_(tv)))
    cv2 = None
    if any(n.startswith("cv2") for n in names):
        try:
            import cv2
            cv2.setNumThreads(1)
        except ImportError:
            cv2 = None
    if cv2 is not None:
        pairs = _cv2_blocks(out, view) if ("cv2loop" in names or "cv2one" in names) else None
        if pairs and len(pairs) > 1 and "cv2loop" in names:     # one pair: that is cv2one
            def loop():
                for a, b in pairs:
                    cv2.transpose(a, b)
            peers["cv2loop"] = (nothing, loop)
        if pairs and len(pairs) == 1 and "cv2one" in names:
            (a1, b1), = pairs
            peers["cv2one"] = (nothing, lambda: cv2.transpose(a1, b1))
        dt = _BITS.get(out.itemsize)
        if "cv2nd" in names and dt is not None and hasattr(cv2, "transposeND") and src_nd.flags.c_contiguous:
            s, d, p = src_nd.view(dt), out.view(dt), list(perm)
            peers["cv2nd"] = (nothing, lambda: cv2.transposeND(s, p, d))
    return peers
