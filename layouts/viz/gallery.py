"""Every kind of figure ``layouts.viz`` draws, written as PNG and SVG: ``python -m layouts gallery DIR``.

>>> [name for name, _, _ in FIGURES]
['article', 'blocked_padding', 'pitched_rows', 'conversion', 'comparison', 'weights_oihw_hwio']
"""

from __future__ import annotations

from pathlib import Path

from ..errors import LayoutError, LayoutTypeError
from ..named.layout import Layout


def _article():
    from .compose import draw_article_figure
    return draw_article_figure()


def _blocked():
    from .compose import draw_layout
    return draw_layout(Layout("nChw8c", N=1, C=17, H=5, W=4))


def _pitched():
    from .compose import draw_layout
    return draw_layout(Layout("NHWC", N=1, C=3, H=5, W=4, align={"H": 16}))


def _conversion():
    from .conversion import draw_conversion
    dims = dict(N=2, C=8, H=3, W=4)
    return draw_conversion(Layout("NCHW", **dims), Layout("NHWC", **dims))


def _comparison():
    from .compose import compare
    dims = dict(N=1, C=6, H=3, W=4)
    return compare([Layout("NCHW", **dims), Layout("NHWC", **dims), Layout("NC1HWC0", C0=4, **dims)])


def _weights():
    from .compose import compare
    dims = dict(O=4, I=3, H=3, W=3)
    return compare([Layout("OIHW", **dims), Layout("HWIO", **dims)])


#: (name, what it shows, maker) for each figure of the gallery.
FIGURES = [
    ("article", "the EdgeBoard article's N=2 C=16 H=5 W=4 tensor: logical numbering, NCHW, NHWC and CHWN", _article),
    ("blocked_padding", "oneDNN's nChw8c, N=1 C=17 H=5 W=4: blocks of 8 channels, the last padded to 24", _blocked),
    ("pitched_rows", "EdgeBoard's NHWC, N=1 C=3 H=5 W=4, rows of W*C padded to 16 elements (align={'H': 16})",
     _pitched),
    ("conversion", "NCHW -> NHWC of N=2 C=8 H=3 W=4: where the origin and its neighbours along w, h, c, n land",
     _conversion),
    ("comparison", "N=1 C=6 H=3 W=4 in NCHW, NHWC and the Ascend-style NC1HWC0 (C0=4)", _comparison),
    ("weights_oihw_hwio", "convolution weights O=4 I=3 H=3 W=3 in OIHW (Caffe, PyTorch) and HWIO (TensorFlow)",
     _weights),
]

FORMATS = ("png", "svg")


def write_gallery(directory, formats=FORMATS, dpi: int = 100) -> list:
    """Draw every figure of :data:`FIGURES` into ``directory`` (created if needed) as each of
    ``formats``; return the paths written, in order."""
    from ._figure import save
    if not isinstance(directory, (str, Path)) and not hasattr(directory, "__fspath__"):
        raise LayoutTypeError(f"directory must be a folder path, got {type(directory).__name__}")
    if isinstance(formats, str):
        formats = (formats,)
    formats = tuple(formats)
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        raise LayoutError(f"formats must be some of {', '.join(FORMATS)}, got {', '.join(map(repr, bad)) or 'none'}")
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise LayoutError(f"{directory} exists and is not a folder")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise LayoutError(f"cannot create the folder {directory}: {err.strerror or err}") from None
    paths = []
    for name, _, make in FIGURES:
        fig = make()
        for fmt in formats:
            path = directory / f"{name}.{fmt}"
            try:
                save(fig, path, dpi=dpi)
            except OSError as err:
                raise LayoutError(f"cannot write {path}: {err.strerror or err}") from None
            paths.append(path)
    return paths
