"""Jupyter's rich display of a Layout: SVG for small layouts, PNG for large ones, plain text always.

``Layout._repr_mimebundle_`` calls :func:`mimebundle`; drawing never touches pyplot, so the
picture appears once. A layout too large to draw (or any drawing failure) falls back to text.
"""

from __future__ import annotations

import base64

#: Layouts of at most this many slots display as SVG (crisp, text searchable); larger ones as PNG.
SVG_MAX_SLOTS = 1024
PNG_DPI = 100


def mimebundle(layout, include=None, exclude=None) -> dict:
    from . import MAX_CELLS
    from ._figure import to_png, to_svg
    from .compose import draw_layout

    def wanted(mime):
        return (include is None or mime in include) and (exclude is None or mime not in exclude)

    data = {}
    if wanted("text/plain"):
        data["text/plain"] = layout.explain()
    mime = "image/svg+xml" if layout.size <= SVG_MAX_SLOTS else "image/png"
    if wanted(mime) and 0 < layout.size <= MAX_CELLS:
        try:
            fig = draw_layout(layout)
        except Exception:  # a picture is a bonus: the text above always shows
            return data
        if mime == "image/svg+xml":
            data[mime] = to_svg(fig)
        else:
            data[mime] = base64.b64encode(to_png(fig, dpi=PNG_DPI)).decode("ascii")
    return data
