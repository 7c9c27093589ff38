"""Names of axes in the order elements are numbered (the logical order).

>>> canonical_order("CHWN")
'NCHW'
"""

from __future__ import annotations

__all__ = ["canonical_order"]


def canonical_order(axes: tuple[str, ...] | str) -> str:
    """The logical order used to number elements: NCDHW for images, OIDHW for weights, else as given.

    >>> canonical_order("NHWC"), canonical_order("HWIO"), canonical_order("XY")
    ('NCHW', 'OIHW', 'XY')
    """
    axes = "".join(axes)
    for reference in ("NCDHW", "OIDHW"):
        if set(axes) <= set(reference):
            return "".join(a for a in reference if a in axes)
    return axes
