"""Triton's encodings with Gluon's names (``triton.experimental.gluon.language``), and their
linear layouts, each derived from what the encoding means (Gluon's documentation, the Linear
Layouts paper, arXiv 2505.23819, and the PTX ISA for the shared-memory swizzles) with this
package's algebra; the oracle tests check them, bit for bit, against what Triton 3.9.0's Gluon
builder gives. Every bad argument is a :class:`~layouts.LayoutError` naming it.

Distributed encodings (``BlockedLayout``, ``SliceLayout``, ``NVMMADistributedLayout``,
``DotOperandLayout``, AMD's ``AMDMFMALayout`` and ``AMDWMMALayout``) map ``register, lane, warp,
block`` to ``dim0, dim1, ...``; shared ones (``SwizzledSharedLayout``, ``NVMMASharedLayout``) map
``offset, block`` to the same dims (Triton's orientation: memory offset -> element).
``DistributedLinearLayout`` and ``SharedLinearLayout`` give a layout by its bases, as Gluon's
``to_linear_layout`` returns it; Gluon's own layout objects are accepted as they are
(:func:`from_gluon`).

>>> from layouts.linear import triton as tt
>>> blocked = tt.BlockedLayout(size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0])
>>> L = tt.to_linear_layout(blocked, [32, 16])
>>> L.bases["register"], L.bases["lane"], L.bases["warp"]
(((0, 1), (0, 2)), ((0, 4), (0, 8), (1, 0), (2, 0), (4, 0)), ((8, 0), (16, 0)))
>>> L(register=3, lane=5, warp=1)
{'dim0': 9, 'dim1': 7}
>>> mma = tt.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[1, 1], instr_shape=[16, 8])
>>> tt.to_linear_layout(mma, [16, 8]).bases["lane"]
((0, 2), (0, 4), (1, 0), (2, 0), (4, 0))
"""

from functools import lru_cache
from typing import Any, Tuple

from ...errors import LayoutError
from ..layout import LinearLayout
from ._base import Encoding, _encoding, check_shape, from_gluon
from .amd import AMDMFMALayout, AMDWMMALayout
from .distributed import IN_DIMS, BlockedLayout, DistributedEncoding, DistributedLinearLayout, SliceLayout
from .mma import DotOperandLayout, NVMMADistributedLayout
from .shared import NVMMASharedLayout, SharedEncoding, SharedLinearLayout, SwizzledSharedLayout

__all__ = [
    "BlockedLayout", "SliceLayout", "NVMMADistributedLayout", "DotOperandLayout",
    "SwizzledSharedLayout", "NVMMASharedLayout", "AMDMFMALayout", "AMDWMMALayout",
    "DistributedLinearLayout", "SharedLinearLayout",
    "to_linear_layout", "from_gluon",
    "Encoding", "DistributedEncoding", "SharedEncoding",
]


def to_linear_layout(encoding: Any, shape: Any) -> LinearLayout:
    """The linear layout of ``encoding`` for a tensor of ``shape`` (a list of powers of two, one
    per dim of the encoding; a slice's shape is the sliced tensor's), as Gluon's
    ``to_linear_layout`` gives it. ``encoding`` is one of ours or Gluon's own object of the same
    name (read by :func:`from_gluon`, without calling Triton). Out-dims ``dim0, dim1, ...`` of
    exactly ``shape``; in-dims ``register, lane, warp, block`` (distributed) or ``offset, block``
    (shared).

    >>> from layouts.linear.triton import BlockedLayout
    >>> to_linear_layout(BlockedLayout([4], [4], [4], [0]), [8]).bases
    {'register': ((1,), (2,)), 'lane': ((4,), (0,)), 'warp': ((0,), (0,)), 'block': ()}
    >>> to_linear_layout(BlockedLayout([4], [4], [4], [0]), [8, 8])
    Traceback (most recent call last):
    layouts.errors.LayoutError: shape has 2 entries; expected 1 (the rank of BlockedLayout)
    """
    encoding = _encoding("encoding", encoding)
    return _converted(encoding, check_shape(encoding, shape))


@lru_cache(maxsize=512)     # encodings and layouts are immutable values: a repeated call is a lookup
def _converted(encoding: Encoding, shape: Tuple[int, ...]) -> LinearLayout:
    layout = encoding._linear(shape)
    in_dims = IN_DIMS if isinstance(encoding, DistributedEncoding) else ("offset", "block")
    bases = {d: [list(b) for b in layout.bases.get(d, ())] for d in in_dims}
    result = LinearLayout.from_bases(bases, layout.out_dims, require_surjective=False)
    if list(result.out_dims.values()) != list(shape) or not result.is_surjective():   # never a wrong answer
        raise LayoutError(f"internal: {encoding!r} on shape {list(shape)} gave a layout onto "
                          f"{list(result.out_dims.values())} that misses elements; please report it")
    return result
