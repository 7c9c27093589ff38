"""An SVG picture that a browser can highlight without redrawing it: one invisible slot per cell.

:func:`interactive_svg` writes a figure as SVG once and lays over every cell of its panels a
transparent ``<rect>`` classed by the element it holds (``e341``; padding slots ``pad``) and
titled with what a hover should say (its coordinates and its offset in every layout). Moving the
highlight is then a few bytes of CSS (:func:`highlight_css`): the browser restyles the rects of
one class, nothing is drawn again.

>>> print(highlight_css("x1", 341))
<style>#x1 .sl.e341{stroke:#00a000;stroke-width:2.2px}</style>
"""

from __future__ import annotations

import numpy as np

from ..errors import LayoutError, LayoutTypeError

HIGHLIGHT = "#00a000"


def _check_uid(uid) -> str:
    if not isinstance(uid, str):
        raise LayoutTypeError(f"uid must be a str (an HTML id), got {type(uid).__name__}")
    if not uid or not uid.replace("-", "").replace("_", "").isalnum() or not uid[0].isalpha():
        raise LayoutError(f"uid must be an HTML id (a letter, then letters, digits, - or _), got {uid!r}")
    return uid


def highlight_css(uid: str, number: int, color: str = HIGHLIGHT) -> str:
    """The ``<style>`` that rings element ``number`` in every panel of the picture ``uid``."""
    uid = _check_uid(uid)
    return f"<style>#{uid} .sl.e{int(number)}{{stroke:{color};stroke-width:2.2px}}</style>"


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def slot_rects(fig, ax, x, y, classes, titles) -> list:
    """``<rect>`` elements over the unit cells with top-left corners ``x``, ``y`` of ``ax``, in the
    SVG coordinates :func:`layouts.viz.to_svg` writes ``fig`` in (points, y down)."""
    scale = 72.0 / fig.dpi
    height = fig.get_size_inches()[1] * 72.0
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    p0 = ax.transData.transform(np.stack([x, y], -1)) * scale
    p1 = ax.transData.transform(np.stack([x + 1, y + 1], -1)) * scale
    left = np.minimum(p0[:, 0], p1[:, 0])
    top = height - np.maximum(p0[:, 1], p1[:, 1])
    w = np.abs(p1[:, 0] - p0[:, 0])
    h = np.abs(p1[:, 1] - p0[:, 1])
    return [f'<rect class="sl {c}" x="{a:.1f}" y="{b:.1f}" width="{cw:.1f}" height="{ch:.1f}"><title>{_esc(t)}</title></rect>'
            for a, b, cw, ch, c, t in zip(left.tolist(), top.tolist(), w.tolist(), h.tolist(), classes, titles)]


def interactive_svg(fig, uid: str, layers: list) -> str:
    """SVG text of ``fig`` (the static rings left out) with ``layers`` of slot rects on top, in a
    ``<div id=uid>``.

    ``layers`` holds ``(ax, x, y, classes, titles)`` per panel: the cell corners in data
    coordinates, each slot's CSS class and its hover text.
    """
    from ._figure import to_svg
    uid = _check_uid(uid)
    rings = [c for ax in fig.axes for c in ax.collections if c.get_gid() == "highlight" and c.get_visible()]
    for r in rings:
        r.set_visible(False)
    try:
        svg = to_svg(fig)
    finally:
        for r in rings:
            r.set_visible(True)
    rects = []
    for ax, x, y, classes, titles in layers:
        rects.extend(slot_rects(fig, ax, x, y, classes, titles))
    style = ("<style>"
             f"#{uid} .sl{{fill:#fff;fill-opacity:0;stroke:none;pointer-events:all}}"
             f"#{uid} .sl:hover{{stroke:#000;stroke-width:1px}}"
             "</style>")
    overlay = '<g id="slots">\n' + "\n".join(rects) + "\n</g>\n</svg>"
    head, _, _ = svg.rpartition("</svg>")
    body = head[head.index("<svg"):] + overlay  # no XML prolog inside HTML
    return f'<div id="{uid}" class="layouts-explorer-picture">{style}{body}</div>'
