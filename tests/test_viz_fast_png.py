"""The fast PNG path: our encoder's bytes decode (Pillow, zlib) to the exact pixels, to_png gives
matplotlib's pixels, and a picture's texts filled as outlines sit where matplotlib draws them
(their SVG unchanged)."""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np
import pytest

pytest.importorskip("matplotlib")
Image = pytest.importorskip("PIL.Image")

from matplotlib.figure import Figure  # noqa: E402

import layouts as ly  # noqa: E402
from layouts import LayoutError, viz  # noqa: E402
from layouts.viz import _png  # noqa: E402
from layouts.viz._figure import new_figure  # noqa: E402
from layouts.viz._text import OutlineAnnotation, OutlineText, outline_texts  # noqa: E402


def _decode(png: bytes) -> np.ndarray:
    im = Image.open(io.BytesIO(png))
    im.load()
    assert im.mode == "RGBA"
    return np.asarray(im)


def _chunks(png: bytes) -> dict:
    out, pos = {}, 8
    while pos < len(png):
        (n,) = struct.unpack(">I", png[pos:pos + 4])
        kind, data = png[pos + 4:pos + 8], png[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", png[pos + 8 + n:pos + 12 + n])
        assert crc == zlib.crc32(kind + data) & 0xFFFFFFFF
        out.setdefault(kind, []).append(data)
        pos += 12 + n
    return out


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (17, 9), (700, 800)])
@pytest.mark.parametrize("cores", [1, 4])
def test_encoder_round_trips_exactly(shape, cores, monkeypatch):
    monkeypatch.setattr(_png.os, "cpu_count", lambda: cores)   # 4: the 2.2 MB image goes in bands
    rng = np.random.default_rng(sum(shape) + cores)
    img = rng.integers(0, 256, size=shape + (4,), dtype=np.uint8)
    img[: shape[0] // 2] = img[0, 0]                            # flat half, noisy half
    png = _png.encode_png(img, dpi=150)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert np.array_equal(_decode(png), img)
    chunks = _chunks(png)
    raw = zlib.decompress(b"".join(chunks[b"IDAT"]))            # checks the adler32 of the joined bands
    assert len(raw) == shape[0] * (shape[1] * 4 + 1)
    ppm = struct.unpack(">IIB", chunks[b"pHYs"][0])
    assert ppm == (round(150 / 0.0254), round(150 / 0.0254), 1)


def test_encoder_refuses_other_shapes():
    with pytest.raises(LayoutError, match="rgba"):
        _png.encode_png(np.zeros((4, 4, 3), dtype=np.uint8))


def test_to_png_gives_matplotlibs_pixels_for_a_plain_figure():
    fig = Figure(figsize=(3, 2))
    ax = fig.add_subplot()
    ax.plot([0, 1, 2], [2, 0, 1])
    ax.set_title("a plain figure")
    ours = _decode(viz.to_png(fig, dpi=80))
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80)
    assert np.array_equal(ours, _decode(buf.getvalue()))


def _ink_box(img: np.ndarray) -> tuple:
    dark = np.flatnonzero(img[..., :3].min(axis=(0, 2)) < 128)
    rows = np.flatnonzero(img[..., :3].min(axis=(1, 2)) < 128)
    return dark.min(), dark.max(), rows.min(), rows.max()


@pytest.mark.parametrize("va", ["top", "bottom", "baseline"])
def test_outlined_text_sits_where_matplotlib_draws_it(va):
    def picture():
        fig = new_figure(6, 1.2)
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_axis_off()
        ax.annotate("[a:0] w+1 (stride 1)   [a:1] h+1 (stride 4)   hatched: 42 padding slots\nsecond line, Tgj",
                    xy=(0.05, 0.5), xycoords="axes fraction", fontsize=9, va=va, linespacing=1.35)
        return fig
    plain = io.BytesIO()
    picture().savefig(plain, format="png", dpi=150)            # matplotlib's own glyph-by-glyph text
    fig = picture()
    ours = viz.to_png(fig, dpi=150)
    assert isinstance(fig.axes[0].texts[0], OutlineAnnotation)
    a, b = _ink_box(_decode(plain.getvalue())), _ink_box(_decode(ours))
    assert all(abs(int(p) - int(q)) <= 2 for p, q in zip(a, b)), (a, b)


def test_outlining_keeps_the_svg_and_the_texts():
    L = ly.Layout("nChw8c", N=1, C=17, H=2, W=3)
    before = viz.to_svg(viz.draw_layout(L))
    fig = viz.draw_layout(L)
    texts = [(t.get_text(), t.get_position(), t.get_gid()) for ax in fig.axes for t in ax.texts]
    switched = outline_texts(fig)
    assert switched > 0 and switched == len(fig.findobj(lambda a: isinstance(a, (OutlineText, OutlineAnnotation))))
    viz.to_png(fig, dpi=60)
    assert [(t.get_text(), t.get_position(), t.get_gid()) for ax in fig.axes for t in ax.texts] == texts
    assert viz.to_svg(fig) == before
