"""The figures of ``python -m layouts tour``, written as PNG files."""

from __future__ import annotations

from pathlib import Path

from ._figure import save


def tour_descriptions() -> dict:
    """File name -> what the figure shows (the tensor it draws)."""
    from .gallery import FIGURES
    what = {name: text for name, text, _ in FIGURES}
    return {"edgeboard_figure.png": what["article"], "blocked_nChw8c_C17.png": what["blocked_padding"],
            "edgeboard_pitched_nhwc.png": what["pitched_rows"], "conversion_nchw_to_nhwc.png": what["conversion"]}


def tour_figures() -> list:
    """(file name, figure maker) pairs: the article figure, a blocked layout with padding, EdgeBoard's
    pitched rows, a conversion: the gallery's figures of the tensors the tour prints."""
    from .gallery import FIGURES
    makers = {name: make for name, _, make in FIGURES}
    return [
        ("edgeboard_figure.png", makers["article"]),
        ("blocked_nChw8c_C17.png", makers["blocked_padding"]),
        ("edgeboard_pitched_nhwc.png", makers["pitched_rows"]),
        ("conversion_nchw_to_nhwc.png", makers["conversion"]),
    ]


def save_tour_figures(directory) -> list:
    """Write the tour's figures as PNG files into ``directory`` (created if needed); return their paths."""
    from ..errors import LayoutError
    directory = Path(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as err:  # an unwritable or impossible folder is the caller's mistake, said in one line
        raise LayoutError(f"cannot create the folder {directory} for the tour's figures: {err.strerror or err}") from None
    paths = []
    for name, make in tour_figures():
        path = directory / name
        try:
            save(make(), path)
        except OSError as err:
            raise LayoutError(f"cannot write {path}: {err.strerror or err}") from None
        paths.append(path)
    return paths
