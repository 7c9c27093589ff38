"""Explorer latency in a real browser (voila + Debian's Chromium, as tests/test_explorer_browser.py
drives it): first render, slider steps, spec and size changes (until the new picture and the new
formula lines both show), clicks on a slot (until the info line, then the formulas, show); medians.

    python bench/explorer_browser.py
"""
import os, statistics, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_explorer_browser import voila, browser_page, write_notebook, slider_handle

PRE = ".layouts-explorer pre"
PICTURE_KEY = """() => { const gs = Array.from(document.querySelectorAll('.layouts-explorer-picture g.panel'));
  const s = document.querySelector('.layouts-explorer-picture svg');
  return (s ? s.getAttribute('height') : '') + '|' + gs.map(g => g.dataset.spec + ':' + g.querySelectorAll('rect.sl').length).join(','); }"""


def wait_text_change(page, before, timeout=60_000):
    page.wait_for_function("(b) => { const p = document.querySelector('.layouts-explorer pre'); return p && p.innerText !== b; }",
                           arg=before, timeout=timeout, polling="raf")


def wait_picture_change(page, before, timeout=60_000):
    page.wait_for_function(f"(b) => ({PICTURE_KEY})() !== b", arg=before, timeout=timeout, polling="raf")


def med(xs):
    return f"{[round(s * 1000) for s in xs]} median {statistics.median(xs) * 1000:.0f} ms"


def change(page, locator, value):
    """Type ``value`` into ``locator``; the seconds until the picture and the formula lines have both changed."""
    before, txt = page.evaluate(PICTURE_KEY), page.inner_text(PRE)
    locator.fill(value)
    t = time.perf_counter()
    locator.press("Enter")
    wait_picture_change(page, before)
    wait_text_change(page, txt)
    return time.perf_counter() - t


with tempfile.TemporaryDirectory() as d:
    d = Path(d)
    nb = write_notebook(d / "explore.ipynb")
    print("load", os.getloadavg())
    with voila(nb, d) as url, browser_page(d) as page:
        t = time.perf_counter()
        page.goto(url, timeout=120_000)
        page.wait_for_selector(PRE, timeout=120_000)
        page.wait_for_selector(".layouts-explorer-picture svg rect.sl", state="attached", timeout=120_000)
        print(f"first render {time.perf_counter() - t:.2f} s")
        steps = []
        h = slider_handle(page, "c")
        h.focus()
        for i in range(7):
            before = page.inner_text(PRE)
            t = time.perf_counter(); h.press("ArrowRight"); wait_text_change(page, before); steps.append(time.perf_counter() - t)
        print("slider steps", med(steps))
        box = page.locator(".layouts-explorer .widget-text input[type=text]").first
        specs = [change(page, box, s) for s in ["NCHW, NHWC", "NCHW, NHWC, CHWN", "NHWC, nChw8c", "NCHW, CHWN",
                                                 "NCHW, NHWC, CHWN"]]
        print("spec changes", med(specs), "(picture and formulas)")
        size_box = page.locator(".layouts-explorer .widget-inline-hbox.widget-text input[type=number]").nth(3)  # W
        sizes = [change(page, size_box, v) for v in ["5", "4", "3", "4", "2"]]
        print("size changes", med(sizes), "(picture and formulas)")
        infos, clicks = [], []
        if page.locator(".layouts-explorer-info").count():
            for k in [5, 17, 40, 63, 71]:
                txt = page.inner_text(PRE)
                slot = page.locator(".layouts-explorer-picture g.panel[data-spec='NHWC'] rect.sl").nth(k)
                slot.scroll_into_view_if_needed()
                bb = slot.bounding_box()
                t = time.perf_counter(); page.mouse.click(bb["x"] + bb["width"] / 2, bb["y"] + bb["height"] / 2)
                page.wait_for_function("(k) => document.querySelector('.layouts-explorer-info').innerText.includes('NHWC offset ' + k)",
                                       arg=k, polling="raf")
                infos.append(time.perf_counter() - t)
                wait_text_change(page, txt); clicks.append(time.perf_counter() - t)
            print("click -> info line", med(infos))
            print("click -> formulas", med(clicks))
    print("load", os.getloadavg())
