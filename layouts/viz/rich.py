"""Jupyter's rich display of a layout of any kind: its words as text always, its picture as SVG
when it is small, PNG otherwise (:mod:`.limits`); each kind's own picture where viz has one
(:func:`~layouts.viz.draw_layout`, :func:`~layouts.viz.draw_cute`, :func:`~layouts.viz.draw_linear`),
else the grid of its offsets (:func:`~layouts.viz.draw_offsets`).

Every layout's ``_repr_mimebundle_`` calls :func:`mimebundle` (through :mod:`layouts.hooks`);
drawing never touches pyplot, so the picture appears once. A layout too large to draw (or any
drawing failure) falls back to text.

>>> import layouts as ly
>>> sorted(mimebundle(ly.Layout("NHWC", N=1, C=3, H=2, W=2)))
['image/svg+xml', 'text/plain']
"""

from __future__ import annotations

import base64
from typing import Any

from ..kinds import require_kind
from . import limits

__all__ = ["mimebundle"]

#: Layouts of at most this many slots are tried as SVG (crisp, text searchable); larger ones are PNG.
SVG_MAX_SLOTS = limits.MAX_LABELS
PNG_DPI = 100


def mimebundle(layout: Any, include: Any = None, exclude: Any = None) -> dict:
    """What Jupyter shows of ``layout``: a dict of mime type -> data (see the module)."""
    kind = require_kind(layout, "layout")
    if kind.name == "cute":
        from .cute import mimebundle as cute_bundle
        return cute_bundle(layout, include, exclude)
    if kind.name == "linear":
        from .linear import mimebundle as linear_bundle
        return linear_bundle(layout, include, exclude)
    if kind.name == "framework":
        return _framework_bundle(layout, include, exclude)
    from ._figure import to_png, to_svg
    from .cute import _picture_bundle
    from .draw_any import draw_offsets
    drawn: list = []

    def figure():
        if not drawn:
            drawn.append(draw_offsets(kind))
        return drawn[0]
    return _picture_bundle(kind.words, lambda: to_svg(figure()) if kind.size <= limits.MAX_SVG_CELLS else None,
                           lambda: to_png(figure(), dpi=PNG_DPI), include, exclude, limits.MAX_SVG_BYTES)


def _framework_bundle(layout: Any, include: Any, exclude: Any) -> dict:
    from ._figure import to_png, to_svg
    from .compose import draw_layout

    def wanted(mime):
        return (include is None or mime in include) and (exclude is None or mime not in exclude)

    data = {}
    if wanted("text/plain"):
        data["text/plain"] = layout.explain()
    svg_ok = wanted("image/svg+xml") and layout.size <= SVG_MAX_SLOTS
    if (svg_ok or wanted("image/png")) and 0 < layout.count and layout.size + layout.count <= limits.MAX_CELLS:
        try:
            fig = draw_layout(layout)
            svg = to_svg(fig) if svg_ok else None
            if svg is not None and len(svg.encode("utf-8")) <= limits.MAX_SVG_BYTES:
                data["image/svg+xml"] = svg
            elif wanted("image/png"):
                data["image/png"] = base64.b64encode(to_png(fig, dpi=PNG_DPI)).decode("ascii")
        except Exception:  # noqa: BLE001 - a picture is a bonus: the text above always shows
            return data
    return data
