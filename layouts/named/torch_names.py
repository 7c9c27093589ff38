"""A torch tensor's ``src``: the axes of its shape, or the order of its memory, as torch users mean it.

A numpy array's axes are named by ``src`` in the order of its shape; a torch tensor's shape is
always in torch's logical order (``N, C, H, W``; ``N, C, D, H, W``; weights ``O, I, H, W``)
while its strides say what is in memory: a ``channels_last`` tensor of shape ``(8, 40, 28, 28)``
holds NHWC. Its users name that memory (``"NHWC"``), which read as numpy reads it (``N=8,
H=40, W=28, C=28``) would be a wrong tensor. So, for a torch tensor only:

* ``src`` in torch's logical order of its letters (``"NCHW"``) names the shape's axes, as for
  numpy: the memory order is read from the strides;
* ``src`` naming the order its memory is in (``"NHWC"`` for channels_last, ``"NDHWC"`` for
  channels_last_3d, ``"CHWN"`` for a tensor stored so) is read as that memory: the tensor's
  elements in memory order, then converted from ``src``;
* where size-1 axes make both true (a ``(8, 1, 28, 28)`` tensor is contiguous and channels_last
  at once) the two readings differ; the shape's axes are named in order, as for numpy, and a
  :class:`~layouts.LayoutWarning` says so and how to mean the other;
* any other ``src`` names the shape's axes in order, as for numpy.

>>> import numpy as np
>>> nhwc = np.arange(2 * 4 * 5 * 3).reshape(2, 4, 5, 3)      # what a channels_last tensor's .numpy() is:
>>> view = nhwc.transpose(0, 3, 1, 2)                        # shape (2, 3, 4, 5), NHWC strides
>>> read_as_named(view, "NHWC").shape, read_as_named(view, "NCHW").shape
((2, 4, 5, 3), (2, 3, 4, 5))
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..errors import LayoutError
from .naming import canonical_order

__all__ = ["read_as_named", "in_memory_order", "plain_spec", "both_orders"]


def plain_spec(layout: Any, ndim: int) -> str | None:
    """``layout``'s spec when it is a plain order of ``ndim`` distinct upper-case axis letters
    (a str or an unpadded, unblocked Layout), else None."""
    spec = layout if isinstance(layout, str) else None
    if spec is None and hasattr(layout, "parsed") and hasattr(layout, "spec"):
        if layout.pitch or layout.align or any(d.is_block for d in layout.parsed.dims):
            return None
        spec = layout.spec
    if spec is None or len(spec) != ndim or not (spec.isascii() and spec.isalpha() and spec.isupper()):
        return None
    return spec if len(set(spec)) == ndim else None


def read_as_named(arr: np.ndarray, layout: Any, what: str = "x",
                  warn: Callable[[str], None] | None = None) -> np.ndarray:
    """``arr`` -- a torch tensor's numpy view: its logical shape, its strides -- as the array
    ``layout`` names: a view in memory order when ``layout`` names the tensor's memory order
    (see the module notes), else ``arr`` itself. ``warn`` gets the message of an ambiguous case."""
    spec = plain_spec(layout, arr.ndim)
    if spec is None:
        return arr
    logical = canonical_order(spec)
    if logical == spec or sorted(logical) != sorted(spec):
        return arr
    from .infer import candidate_layouts

    try:
        memory = {L.spec for L in candidate_layouts(arr, logical) if not L.pitch}
    except LayoutError:  # too many size-1 axes to list: nothing to tell apart
        return arr
    if spec not in memory:
        return arr
    shape = tuple(arr.shape)
    if logical in memory:  # contiguous too: both readings hold, and give different tensors
        if warn is not None:
            warn(both_orders(what, shape, spec, logical))
        return arr
    return arr.transpose([logical.index(a) for a in spec])


def both_orders(what: str, shape: tuple, spec: str, logical: str) -> str:
    """The warning for a tensor whose memory is both ``logical`` and ``spec`` (size-1 axes): how
    ``spec`` is read, and what to pass to mean the other.

    >>> both_orders("x", (8, 1, 2, 2), "NHWC", "NCHW")[:60]
    'x is a torch tensor of shape (8, 1, 2, 2) whose memory is bo'
    """
    sizes = ", ".join(f"{a}={n}" for a, n in zip(spec, shape))
    return (f"{what} is a torch tensor of shape {shape} whose memory is both {logical} and {spec} (size-1 axes); "
            f"{spec!r} is read as naming its shape's axes in order ({sizes}), as for numpy. If you mean its "
            f"memory order (torch's logical {logical} shape), pass {logical!r} instead")


def in_memory_order(arr: np.ndarray, layout: Any) -> tuple[np.ndarray, Any]:
    """``(view, spec)``: a strided ``arr`` whose shape ``layout`` names (a plain order) as the
    C-contiguous view its memory is, and that memory's spec (a channels_last tensor named
    ``"NCHW"``: its NHWC memory and ``"NHWC"``); ``(arr, layout)`` when it is C-contiguous already
    or no order of its axes makes it so. In place, the memory itself is what moves.

    >>> view = np.zeros((2, 4, 5, 3)).transpose(0, 3, 1, 2)
    >>> mem, spec = in_memory_order(view, "NCHW")
    >>> spec, mem.shape, mem.flags.c_contiguous
    ('NHWC', (2, 4, 5, 3), True)
    """
    spec = plain_spec(layout, arr.ndim)
    if spec is None or arr.flags.c_contiguous:
        return arr, layout
    from .infer import candidate_layouts

    try:
        found = candidate_layouts(arr, spec)
    except LayoutError:
        return arr, layout
    for L in found:
        if L.pitch:
            continue
        view = arr.transpose([spec.index(a) for a in L.spec])
        if view.flags.c_contiguous:
            return view, L.spec
    return arr, layout
