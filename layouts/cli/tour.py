"""``python -m layouts tour``: the EdgeBoard article's example, walked through in a terminal.

Every number printed is computed by the library as it runs; nothing is typed in.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import numpy as np

from ..conversion.front import convert
from ..named.formulas import offset_chwn, offset_nchw, offset_nhwc
from ..conversion.loading import load_kernels
from ..named.layout import Layout

#: The article the tour follows (Baidu's EdgeBoard team).
ARTICLE_TITLE = "EdgeBoard嵌入式AI解决方案中NHWC数据格式的性能分析"

ARTICLE = dict(N=2, C=16, H=5, W=4)


def _labels(values: np.ndarray) -> str:
    return " ".join("pad" if v < 0 else f"{v:03d}" for v in values)


def _section(say: Callable[[str], None], title: str) -> None:
    say("")
    say(title)
    say("-" * len(title))


def run(out_dir: str | Path | None = "layouts-tour", figures: bool = True, say: Callable[[str], None] = print) -> list[Path]:
    """Print the tour; write its figures under ``out_dir`` and return their paths."""
    say("layouts tour: one tensor N=2, C=16, H=5, W=4, the example of Baidu's EdgeBoard article")
    say(f"  \"{ARTICLE_TITLE}\"")
    say("  (a performance analysis of the NHWC format on the EdgeBoard FPGA board), whose example and figure")
    say("  follow oneDNN's \"Understanding Memory Formats\" page. Each element is labelled by its logical number")
    say("  n*CHW + c*HW + h*W + w = 000..639.")

    _section(say, "1. Three layouts, three formulas")
    for spec, article in (("NCHW", offset_nchw), ("NHWC", offset_nhwc), ("CHWN", offset_chwn)):
        L = Layout(spec, **ARTICLE)
        say(f"  offset_{spec.lower()}(n,c,h,w) = {L.formula():<26} = {L.formula(numeric=True)}")
    say("  The element the article circles in green, 341 = (n=1, c=1, h=0, w=1), lives at:")
    for spec, article in (("NCHW", offset_nchw), ("NHWC", offset_nhwc), ("CHWN", offset_chwn)):
        L = Layout(spec, **ARTICLE)
        got = L.offset(n=1, c=1, h=0, w=1)
        assert got == article(1, 1, 0, 1, **ARTICLE)
        say(f"    {spec}: offset {got:3d}   index({got}) -> {L.index(got)}")

    _section(say, "2. Physical order: which element sits at offsets 0, 1, 2, ...")
    for spec in ("NCHW", "NHWC", "CHWN"):
        say(f"  {spec}: {_labels(Layout(spec, **ARTICLE).physical_order()[:18])} ...")
    from ..viz import ascii
    say("  The same as text for a small NHWC tensor ('|' a jump of one stride level, '||' of a higher one):")
    say("  " + ascii(Layout("NHWC", N=1, C=3, H=2, W=4)).replace("\n", "\n  "))
    say("  NHWC keeps the 16 channels of one pixel side by side: a convolution reading all")
    say("  channels of a pixel walks memory in order instead of jumping H*W elements each time.")

    _section(say, "3. A blocked layout: oneDNN's nChw8c with C=17, H=5, W=4 (channels zero-padded to 24)")
    B = Layout("nChw8c", N=1, C=17, H=5, W=4)
    say("  nChw8c (printed below in its normal form NCHW8c): the outer channel block c1 = c // 8 is the")
    say("  physical dim C of the shape, the inner c0 = c % 8 is the dim 8c.")
    say("  " + B.explain().replace("\n", "\n  "))
    say(f"  last block, first pixel: {_labels(B.physical_order()[B.offset(n=0, c=16, h=0, w=0):][:8])}")

    _section(say, "4. A pitched layout: EdgeBoard's FPGA rows of W*C padded to 16")
    E = Layout("NHWC", N=1, H=5, W=4, C=3, align={"H": 16})
    say("  " + E.explain().replace("\n", "\n  "))
    say(f"  {E.size} elements, {E.nbytes(np.float16)} bytes as FP16; row 0: {_labels(E.physical_order()[:16])}")

    _section(say, "5. Converting")
    x = np.arange(640, dtype=np.float32).reshape(2, 16, 5, 4)
    t0 = time.perf_counter()
    y = convert(x, "NCHW", "NHWC")
    first = time.perf_counter() - t0
    say(f"  convert(x, 'NCHW', 'NHWC') equals numpy's transpose: {np.array_equal(y, x.transpose(0, 2, 3, 1))}")
    z = convert(x[:, :12], "NCHW", "NCHW8c")
    say(f"  convert(x[:, :12], 'NCHW', 'NCHW8c').shape = {z.shape}; padding zero: {bool(np.all(z[:, 1, ..., 4:] == 0))}")
    big = np.random.default_rng(0).standard_normal((16, 64, 56, 56)).astype(np.float32)
    out = np.empty((16, 56, 56, 64), np.float32)
    say(f"  the first conversion in this process took {first * 1e3:.1f} ms: numpy copies a process's first")
    say("  conversions, until the kernels would pay for loading numba (layouts.conversion.loading)")
    t0 = time.perf_counter()
    load_kernels()
    say(f"  load_kernels() took {(time.perf_counter() - t0) * 1e3:.0f} ms: numba's start-up (and, the first time ever, compiling)")
    say(f"  {big.nbytes / 2**20:.0f} MiB NCHW -> NHWC: {_median_ms(lambda: convert(big, 'NCHW', 'NHWC', out=out)):.1f} ms;"
        f" memcpy of the same bytes {_median_ms(lambda: np.copyto(out.reshape(-1), big.reshape(-1))):.1f} ms;"
        f" numpy transpose copy {_median_ms(lambda: np.copyto(out, big.transpose(0, 2, 3, 1))):.1f} ms")

    paths: list[Path] = []
    if figures and out_dir is not None:
        _section(say, "6. Pictures")
        from ..viz import save_tour_figures
        from ..viz.tour_figures import tour_descriptions
        paths = list(save_tour_figures(Path(out_dir)))
        what = tour_descriptions()
        for p in paths:
            say(f"  wrote {p}: {what.get(p.name, '')}")
    say("")
    say("More: python -m layouts gallery DIR writes every kind of figure; help(layouts.viz) and help(layouts.Layout).")
    say("The source repository also has notebooks/ (the article, conversions, Caffe/OpenCV/EdgeBoard) and bench/run.py.")
    return paths


def _median_ms(fn: Callable[[], object], repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times) * 1e3)
