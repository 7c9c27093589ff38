"""Highlighting a picture in a browser without redrawing it.

The explorer's picture (:mod:`layouts.viz.explorer_svg`) writes every cell as a ``<rect>`` classed
by the element it holds (``e341``; padding slots ``pad``). Moving the highlight is then a few bytes
of CSS (:func:`highlight_css`): the browser restyles the rects of one class, nothing is drawn again.

>>> print(highlight_css("x1", 341))
<style>#x1 .sl.e341{stroke:#00a000;stroke-width:2.2px}</style>
"""

from __future__ import annotations

from ..errors import LayoutError, LayoutTypeError

HIGHLIGHT = "#00a000"


def _check_uid(uid) -> str:
    if not isinstance(uid, str):
        raise LayoutTypeError(f"uid must be a str (an HTML id), got {type(uid).__name__}")
    if not uid or not uid.replace("-", "").replace("_", "").isalnum() or not uid[0].isalpha():
        raise LayoutError(f"uid must be an HTML id (a letter, then letters, digits, - or _), got {uid!r}")
    return uid


#: The check of an HTML id, for the explorer's other writers.
check_uid = _check_uid


def highlight_css(uid: str, number: int, color: str = HIGHLIGHT) -> str:
    """The ``<style>`` that rings element ``number`` in every panel of the picture ``uid``."""
    uid = _check_uid(uid)
    return f"<style>#{uid} .sl.e{int(number)}{{stroke:{color};stroke-width:2.2px}}</style>"
