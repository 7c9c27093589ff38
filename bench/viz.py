"""Draw times of layouts.viz (issue 21's targets): medians of 5, build and PNG apart, SVG sizes; with
``--explorer`` also a slider step of the explorer in Python.

    python bench/viz.py [--explorer]
"""
import statistics, sys, time, os
import layouts as ly
from layouts import viz

def med(f, n=5):
    ts = []
    for _ in range(n):
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    return statistics.median(ts)

L640 = ly.Layout("NCHW", N=2, C=16, H=5, W=4)
cases = {
    "article build": lambda: viz.draw_article_figure(),
    "article build+png": lambda: viz.to_png(viz.draw_article_figure()),
    "article svg bytes": None,
    "draw_layout640 build+png": lambda: viz.to_png(viz.draw_layout(L640)),
    "compare3 build+png": lambda: viz.to_png(viz.compare([ly.Layout(s, N=2, C=16, H=5, W=4) for s in ("NCHW","NHWC","CHWN")])),
}
viz.to_png(viz.draw_article_figure())  # warm fonts
print("load", os.getloadavg())
for name, f in cases.items():
    if f is None:
        print(f"{name:28s} {len(viz.to_svg(viz.draw_article_figure()))} chars; draw_layout640 svg {len(viz.to_svg(viz.draw_layout(L640)))} chars")
        continue
    print(f"{name:28s} {med(f):.3f} s")
if "--explorer" in sys.argv:
    ex = viz.explore(["NCHW","NHWC","CHWN"], N=2, C=16, H=5, W=4)
    vals = iter(range(1, 100))
    print(f"{'explorer slider step':28s} {med(lambda: setattr(ex.sliders['w'], 'value', next(vals) % 4)):.3f} s")
print("load", os.getloadavg())
