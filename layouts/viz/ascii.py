"""Layouts as plain text, for terminals and doctests: the memory strip, one wrapped row per line.

>>> from layouts import Layout
>>> print(ascii(Layout("NCHW8c", N=1, C=10, H=1, W=2), label="logical"))
Layout('NCHW8c', N=1, C=10, H=1, W=2)   offset = n*C1*H*W*8 + c1*H*W*8 + h*W*8 + w*8 + c0
  0: 00 02 04 06 08 10 12 14 | 01 03 05 07 09 11 13 15
 16: 16 18 -- -- -- -- -- -- | 17 19 -- -- -- -- -- --
[a:0] c0+1 (stride 1)   [a:1] w+1 (stride 8)   [a:2] c1+1 (stride 16)     --: 12 padding slots
"""

from __future__ import annotations

import numpy as np

from ..named.layout import Layout
from . import _checks, _model
from .strips import level_key, separator_slots


def ascii(layout: Layout, *, label: str = "logical", wrap: int | None = None, width: int = 100,
          marker: str | None = "a") -> str:
    """The memory of ``layout`` as text: each line is one row of slots; ``|`` marks a jump of stride
    level 1, ``||`` a higher one (the ``[a:k]`` key on the last line says which dim steps).

    ``label`` is ``"logical"`` (the element's logical number), ``"offset"`` or ``"coords"``
    (written ``n,c,h,w``); padding slots read ``--``. ``wrap`` slots per line (by default a stride
    that keeps runs whole and fits ``width`` characters).
    """
    layout = _checks.check_layout(layout)
    _model.check_label(label)
    wrap = _checks.check_wrap(wrap)
    width = _checks.check_int(width, "width", 16, "a line width of at least 16 characters", allow_none=False)
    marker = _checks.check_str(marker, "marker")
    _model.check_cells(layout.size, f"ascii({layout!r})")
    if layout.size == 0:
        zero = ", ".join(f"{a}=0" for a, n in layout.dims.items() if n == 0)
        head = repr(layout).replace(repr(layout.spec), repr(layout.parsed.text), 1)
        return f"{head}   offset = {layout.formula()}\n  (no slots: {zero or 'empty'})"
    model = _model.strip_model(layout, label=label)
    labels = [t.replace("\n", ",") for t in model.labels]
    cw = max((len(t) for t in labels), default=1) or 1
    if wrap is None:
        wrap = _model.default_wrap(layout, max_cols=max(2, (width - 8) // (cw + 1) - 2))
    jump = np.zeros(layout.size, dtype=np.int64)
    for lv in model.levels:
        if lv.number:
            jump[separator_slots(model, lv.number)] = lv.number  # none inside a padding run
    ow = len(str(max(layout.size - 1, 0)))
    head = repr(layout).replace(repr(layout.spec), repr(layout.parsed.text), 1)  # the spec as written
    lines = [f"{head}   offset = {layout.formula()}"]
    for start in range(0, layout.size, wrap):
        parts = []
        for k in range(start, min(start + wrap, layout.size)):
            if k > start and jump[k] >= 1:
                parts.append("|" if jump[k] == 1 else "||")
            parts.append("-" * cw if model.padding[k] else labels[k].rjust(cw))
        lines.append(f"{start:>{ow + 1}}: " + " ".join(parts))
    lines.append(level_key(model, marker, padding="-" * cw))
    return "\n".join(lines)

