"""Names of axes in the order elements are numbered (the logical order).

>>> canonical_order("CHWN")
'NCHW'
>>> from layouts import Layout
>>> coordinate_names(Layout("NCHW16c", N=1, C=32, H=2, W=2))
['n', 'c1', 'h', 'w', 'c0']
"""

from __future__ import annotations

__all__ = ["canonical_order", "coordinate_names"]


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


def coordinate_names(layout) -> list[str]:
    """How formulas and pictures name the index along each physical dim (``c``, or ``c1``/``c0`` when blocked)."""
    dims = layout.parsed.dims
    names = []
    for d in dims:
        blocks = layout.parsed.blocks_of(d.axis)
        a = d.axis.lower()
        if not blocks:
            names.append(a)
        elif not d.is_block:
            names.append(f"{a}{len(blocks)}")
        else:
            names.append(f"{a}{len(blocks) - 1 - blocks.index(d)}")
    return names
