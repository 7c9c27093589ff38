"""Explorer latency in a real browser (voila + Debian's Chromium, as tests/test_explorer_browser.py
drives it): first render, slider steps, spec and size changes, medians.

    python bench/explorer_browser.py
"""
import os, statistics, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_explorer_browser import voila, browser_page, write_notebook, slider_handle, formula_lines, ARTICLE

def wait_text_change(page, before, timeout=60_000):
    page.wait_for_function("(b) => { const p = document.querySelector('.layouts-explorer pre'); return p && p.innerText !== b; }",
                           arg=before, timeout=timeout, polling=5)

def wait_picture_change(page, before, timeout=60_000):
    page.wait_for_function("(b) => { const s = document.querySelector('.layouts-explorer-picture svg'); return s && s.getAttribute('width') + s.querySelectorAll('rect.sl').length !== b; }",
                           arg=before, timeout=timeout, polling=5)

def picture_key(page):
    return page.evaluate("() => { const s = document.querySelector('.layouts-explorer-picture svg'); return s.getAttribute('width') + s.querySelectorAll('rect.sl').length; }")

with tempfile.TemporaryDirectory() as d:
    d = Path(d)
    nb = write_notebook(d / "explore.ipynb")
    print("load", os.getloadavg())
    with voila(nb, d) as url, browser_page(d) as page:
        t = time.perf_counter()
        page.goto(url, timeout=120_000)
        page.wait_for_selector(".layouts-explorer pre", timeout=120_000)
        page.wait_for_selector(".layouts-explorer-picture svg rect.sl", state="attached", timeout=120_000)
        print(f"first render {time.perf_counter() - t:.2f} s")
        steps = []
        h = slider_handle(page, "c")
        h.focus()
        for i in range(7):
            before = page.inner_text(".layouts-explorer pre")
            t = time.perf_counter(); h.press("ArrowRight"); wait_text_change(page, before); steps.append(time.perf_counter() - t)
        print("slider steps", [f"{s*1000:.0f}" for s in steps], f"median {statistics.median(steps)*1000:.0f} ms")
        specs = []
        box = page.locator(".widget-text input").first
        for s in ["NCHW, NHWC", "NCHW, NHWC, CHWN", "NHWC, nChw8c", "NCHW, CHWN", "NCHW, NHWC, CHWN"]:
            before = picture_key(page); txt = page.inner_text(".layouts-explorer pre")
            box.fill(s)
            t = time.perf_counter(); box.press("Enter"); wait_text_change(page, txt); t1 = time.perf_counter() - t
            specs.append(t1)
        print("spec changes", [f"{s*1000:.0f}" for s in specs], f"median {statistics.median(specs)*1000:.0f} ms (formula lines)")
        sizes = []
        size_box = page.locator(".widget-inline-hbox.widget-text input[type=number]").nth(3)  # W
        for v in ["5", "4", "3", "4", "2"]:
            txt = page.inner_text(".layouts-explorer pre"); before = picture_key(page)
            size_box.fill(v)
            t = time.perf_counter(); size_box.press("Enter"); wait_picture_change(page, before); sizes.append(time.perf_counter() - t)
        print("size changes", [f"{s*1000:.0f}" for s in sizes], f"median {statistics.median(sizes)*1000:.0f} ms (picture)")
    print("load", os.getloadavg())
