"""Write the README's and the guides' figures into docs/: python docs/make_figures.py (from the repository root).

The gallery's PNGs at 100 dpi (900 px wide at most, labels at 7 pt or more), reduced to a 256-colour
palette so the repository stays small (pillow comes with matplotlib).
"""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from layouts.viz import to_png
from layouts.viz.gallery import FIGURES

HERE = Path(__file__).resolve().parent
#: gallery figure -> file in docs/
README_FIGURES = {"article": "edgeboard_figure.png", "blocked_padding": "gallery_blocked_padding.png",
                  "pitched_rows": "gallery_pitched_rows.png", "conversion": "gallery_conversion.png"}


#: the CuTe guide's pictures: file in docs/ -> (layout, swizzle or None), drawn by viz.cute_svg
CUTE_FIGURES = {
    "cute_swizzle.svg": ("8x8 row-major tile of 16-byte elements, before and after Swizzle<3,0,3>", "swizzle"),
    "cute_blocked_product.svg": ("blocked_product of a 2x2 block over a 2x3 grid", "blocked"),
}


def cute_figure(name: str) -> str:
    """The SVG text of the CuTe guide's picture ``name`` (tests check the stored file against it)."""
    from layouts import cute
    from layouts.viz import cute_svg

    if CUTE_FIGURES[name][1] == "swizzle":
        return cute_svg(cute.Layout((8, 8), (8, 1)), cute.Swizzle(3, 0, 3), elem_bytes=16)
    return cute_svg(cute.blocked_product(cute.Layout((2, 2), (2, 1)), cute.Layout((2, 3))))


#: the linear-layout and shared-memory guides' pictures: file in docs/ -> (the page that shows it,
#: the lines of that page's code that draw it, ending with ``fig = ...``); the tests check that the
#: page holds these lines and that the stored picture has the size they draw
GPU_FIGURES = {
    "linear_mma_accumulator.png": ("guide/linear.md", [
        "mma = tt.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8])",
        "acc = tt.to_linear_layout(mma, [32, 32])",
        "fig = viz.draw_linear(acc)"]),
    "smem_ldmatrix_banks.png": ("guide/smem.md", [
        "tile = cute.Layout((8, 64), (64, 1))",
        "fig = viz.draw_banks(tile, smem.ldmatrix(x4=True), element_bytes=2)"]),
    "smem_ldmatrix_banks_swizzled.png": ("guide/smem.md", [
        "tile = cute.Layout((8, 64), (64, 1))",
        "swizzled = cute.composition(cute.Swizzle(3, 3, 3), tile)",
        "fig = viz.draw_banks(swizzled, smem.ldmatrix(x4=True), element_bytes=2)"]),
}


def gpu_figure(name: str):
    """The figure of the GPU guides' picture ``name``, drawn by the lines its page shows."""
    from layouts import cute, smem, viz
    from layouts.linear import triton as tt

    namespace = {"cute": cute, "smem": smem, "viz": viz, "tt": tt}
    exec("\n".join(GPU_FIGURES[name][1]), namespace)
    return namespace["fig"]


def _save_png(figure, path: Path) -> None:
    image = Image.open(io.BytesIO(to_png(figure, dpi=100))).convert("RGB")
    small = image.quantize(colors=256, method=Image.Quantize.MAXCOVERAGE, dither=Image.Dither.NONE)
    small.save(path, optimize=True)
    print(f"wrote {path} ({image.size[0]} x {image.size[1]} px, {path.stat().st_size // 1024} KB)")


def main() -> None:
    for name in GPU_FIGURES:
        _save_png(gpu_figure(name), HERE / name)
    for name in CUTE_FIGURES:
        (HERE / name).write_text(cute_figure(name))
        print(f"wrote {HERE / name}")
    for name, _, make in FIGURES:
        if name not in README_FIGURES:
            continue
        _save_png(make(), HERE / README_FIGURES[name])


if __name__ == "__main__":
    main()
