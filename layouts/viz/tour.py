"""The figures of ``python -m layouts tour``, written as PNG files."""

from __future__ import annotations

from pathlib import Path

from ..layout import Layout
from ._figure import save


def tour_figures() -> list:
    """(file name, figure) pairs: the article figure, a blocked layout with padding, EdgeBoard's pitched rows, a conversion."""
    from .compose import draw_article_figure, draw_layout
    from .conversion import draw_conversion
    nchw = Layout("NCHW", N=2, C=8, H=3, W=4)
    nhwc = Layout("NHWC", N=2, C=8, H=3, W=4)
    return [
        ("edgeboard_figure.png", lambda: draw_article_figure()),
        ("blocked_nChw8c_C17.png", lambda: draw_layout(Layout("nChw8c", N=1, C=17, H=3, W=4))),
        ("edgeboard_pitched_nhwc.png", lambda: draw_layout(Layout("NHWC", N=1, C=3, H=5, W=4, align={"H": 16}))),
        ("conversion_nchw_to_nhwc.png", lambda: draw_conversion(nchw, nhwc)),
    ]


def save_tour_figures(directory) -> list:
    """Write the tour's figures as PNG files into ``directory`` (created if needed); return their paths."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, make in tour_figures():
        path = directory / name
        save(make(), path)
        paths.append(path)
    return paths
