"""Jupyter's rich display of a Layout: SVG when it is small, PNG otherwise, plain text always.

``Layout._repr_mimebundle_`` calls :func:`mimebundle`; drawing never touches pyplot, so the
picture appears once. A layout too large to draw (or any drawing failure) falls back to text.
"""

from __future__ import annotations

import base64

#: Layouts of at most this many slots are tried as SVG (crisp, text searchable); larger ones are PNG.
SVG_MAX_SLOTS = 1024
#: An SVG larger than this many bytes is replaced by the PNG of the same figure.
SVG_MAX_BYTES = 150_000
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
    svg_ok = wanted("image/svg+xml") and layout.size <= SVG_MAX_SLOTS
    if (svg_ok or wanted("image/png")) and 0 < layout.count and layout.size + layout.count <= MAX_CELLS:
        try:
            fig = draw_layout(layout)
            svg = to_svg(fig) if svg_ok else None
            if svg is not None and len(svg.encode("utf-8")) <= SVG_MAX_BYTES:
                data["image/svg+xml"] = svg
            elif wanted("image/png"):
                data["image/png"] = base64.b64encode(to_png(fig, dpi=PNG_DPI)).decode("ascii")
        except Exception:  # a picture is a bonus: the text above always shows
            return data
    return data
