"""``smem.conflicts`` on random (shared layout, access) pairs: pairs a second, against the goal and a peer.

    flock /tmp/layouts-bench.lock python bench/smem_conflicts.py [--pairs 200] [--rounds 5]

The pairs (fixed seed): tiles of 8 x 8 to 64 x 64 elements of 1, 2, 4 or 8 bytes; shared layouts
row-major, column-major, padded (a pitch of cols + 1..8), ``Swizzle<B,M,S> o`` row-major, or a
random XOR layout given as a Triton-oriented linear layout; accesses cover the whole tile, as a warp that
loads or stores a tile does: its 16-byte row pieces dealt to the threads in a random order, a CuTe
TV layout one element per request (a column or a row per request), or ``ldmatrix`` (x4, or x2/x1
where the tile has fewer matrices). Each
timed call is the whole user path: the layout normalised (``memory_of``), the access resolved, the
phases counted. The peer is the same model written plainly in Python (per thread, a dict of sets
per bank), as a person would write it for one pair: the ratio peer / ours says what vectorising
bought. The goal of issue 42 is 100 pairs a second; "x goal" is pairs per second / 100. Figures are
medians of rounds (the machine is shared, so compare ratios, not seconds).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from layouts import cute, smem  # noqa: E402
from layouts.linear import LinearLayout  # noqa: E402


def random_pair(rng):
    rows, cols = (int(2 ** rng.integers(3, 7)) for _ in range(2))
    eb = int(rng.choice([1, 2, 4, 8]))
    kind = int(rng.integers(0, 5))
    if kind == 0:
        layout = cute.Layout((rows, cols), (cols, 1))
    elif kind == 1:
        layout = cute.Layout((rows, cols), (1, rows))
    elif kind == 2:
        layout = cute.Layout((rows, cols), (cols + int(rng.integers(1, 9)), 1))
    elif kind == 3:
        b = int(rng.integers(1, 4))
        layout = cute.composition(cute.Swizzle(b, int(rng.integers(0, 4)), b + int(rng.integers(0, 3))),
                                  cute.Layout((rows, cols), (cols, 1)))
    else:
        layout = random_xor(rng, rows, cols)
    per_row = 16 // eb
    which = int(rng.integers(0, 3))
    if which == 0 and eb == 2 and cols % 8 == 0 and rows % 8 == 0 and kind != 1 and kind != 4:
        matrices = (rows // 8) * (cols // 8)
        acc = smem.ldmatrix(x4=True) if matrices % 4 == 0 else smem.ldmatrix(x2=True) if matrices % 2 == 0 else \
            smem.ldmatrix(x1=True)
    elif which == 1 or cols % per_row or kind in (1, 4) or (rows * cols // per_row) % 32:
        down = rng.random() < 0.5           # the whole tile, one element per request: down a column or along a row
        tv = cute.Layout((32, rows * cols // 32), (1, 32)) if down else cute.Layout((32, rows * cols // 32),
                                                                                  (rows * cols // 32, 1))
        acc = smem.Access(tv, eb)
    else:                                    # the whole tile in 16-byte row pieces, in a random order
        pieces = rng.permutation(rows * cols // per_row).reshape(32, -1)
        values = [[(p % rows) + rows * ((p // rows) * per_row + j) for p in pieces[t] for j in range(per_row)]
                  for t in range(32)]
        acc = smem.Access(np.array(values), 16)
    return layout, acc, eb


def random_xor(rng, rows, cols):
    rb, n = rows.bit_length() - 1, (rows * cols).bit_length() - 1
    cols_ = list(range(n))
    rng.shuffle(cols_)
    bases = []
    for k in range(n):
        e = 1 << cols_[k]
        if k and rng.random() < 0.5:
            e ^= 1 << cols_[int(rng.integers(0, k))]
        bases.append([e & (rows - 1), e >> rb])
    return LinearLayout.from_bases({"offset": bases}, {"dim0": rows, "dim1": cols})


def plain_python(layout, acc, eb):
    """The model written plainly: per request and thread, words into a dict of sets per bank."""
    mem = smem.memory_of(layout)
    offsets = mem.offsets.tolist()
    if isinstance(acc, smem.instructions.MatrixInstruction):
        values, width, per_phase = acc.thread_map(mem.shape, eb)
    else:
        values, width = acc.values, acc.width_bytes
        per_phase = 32 if width <= 4 else 128 // width
    values = values.tolist()
    n = width // eb
    total = 0
    for q in range(len(values[0]) // n):
        phases = {}
        for t in range(32):
            first = values[t][q * n]
            if first < 0:
                continue
            byte = offsets[first] * eb
            banks = phases.setdefault(t // per_phase, {})
            for w in range(byte // 4, (byte + width - 1) // 4 + 1):
                banks.setdefault(w % 32, set()).add(w)
        total += sum(max(len(s) for s in b.values()) for b in phases.values())
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(42)
    pairs = []
    while len(pairs) < args.pairs:           # pairs whose width the layout allows (others are refused)
        layout, acc, eb = random_pair(rng)
        try:
            ours = smem.conflicts(layout, acc, element_bytes=eb).wavefronts
        except smem.LayoutError:
            continue
        assert ours == plain_python(layout, acc, eb)     # both agree; the first calls are out of the timing
        pairs.append((layout, acc, eb))
    ours, peer = [], []
    for _ in range(args.rounds):
        t = time.perf_counter()
        for layout, acc, eb in pairs:
            smem.conflicts(layout, acc, element_bytes=eb)
        ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        for layout, acc, eb in pairs:
            plain_python(layout, acc, eb)
        peer.append(time.perf_counter() - t)
    rate = args.pairs / statistics.median(ours)
    print(f"{args.pairs} random (layout, access) pairs, {args.rounds} rounds, medians")
    print(f"  smem.conflicts      {rate:10.0f} pairs/s   x goal (100/s) {rate / 100:6.1f}")
    print(f"  plain Python peer   {args.pairs / statistics.median(peer):10.0f} pairs/s   "
          f"peer / ours {statistics.median(peer) / statistics.median(ours):5.2f}")


if __name__ == "__main__":
    main()
