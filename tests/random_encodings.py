"""Random Triton distributed encodings of a given warp count, drawn from a ``random.Random``:
what the oracle test against Triton's generated code (``test_smem_conversion.py``) and
``bench/smem_plans.py`` convert between.

>>> import random
>>> enc = random.Random(0).choice(ENCODING_KINDS)(random.Random(1), 4)
>>> type(enc).__name__ in {"BlockedLayout", "NVMMADistributedLayout", "DotOperandLayout", "SliceLayout"}
True
"""

from __future__ import annotations

from layouts.linear import triton as tt

__all__ = ["ENCODING_KINDS"]


def _split(rng, total, rank=2):
    parts = [1] * rank
    for _ in range(total.bit_length() - 1):
        parts[rng.randrange(rank)] *= 2
    return parts


def _blocked(rng, warps, rank=2):
    order = list(range(rank))
    rng.shuffle(order)
    return tt.BlockedLayout(_split(rng, 1 << rng.randint(0, 3), rank), _split(rng, 32, rank), _split(rng, warps, rank),
                            order)


def _mma2(rng, warps):
    return tt.NVMMADistributedLayout([2, 0], _split(rng, warps), [16, 8])


def _mma3(rng, warps):
    per_cta = [warps, 1] if warps == 4 or rng.random() < 0.5 else [4, 2]
    return tt.NVMMADistributedLayout([3, 0], per_cta, [16, 8 << rng.randint(0, 4), 16])


def _dot(rng, warps):
    if rng.random() < 0.5:
        return tt.DotOperandLayout(rng.randint(0, 1), _mma2(rng, warps), 1 << rng.randint(0, 3))
    return tt.DotOperandLayout(0, _mma3(rng, warps), 1 << rng.randint(0, 3))


def _sliced(rng, warps):
    return tt.SliceLayout(rng.randrange(3), _blocked(rng, warps, 3))


ENCODING_KINDS = [_blocked, _blocked, _mma2, _mma3, _dot, _sliced]
