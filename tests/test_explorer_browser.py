"""The explorer in a real browser: voila serves a notebook, the system Chromium (driven by playwright)
moves a slider with the keyboard, and the page shows the new offset lines and the ringed slots.

Skipped where Chromium (Debian's ``chromium``), playwright or voila is missing. Everything is
served on 127.0.0.1 on a free port; every wait is bounded.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[1]
ARTICLE = dict(N=2, C=16, H=5, W=4)
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
GREEN = "rgb(0, 160, 0)"


def _needs_browser():
    """Skip where the browser or its drivers are missing; under CI (``CI`` set), which installs
    them all (.ci/run, the test extra), a missing one fails instead."""
    if not os.path.exists(CHROMIUM):
        (pytest.fail if os.environ.get("CI") else pytest.skip)(f"{CHROMIUM} is missing (apt-get install chromium)")
    if os.environ.get("CI"):
        import anywidget, playwright.sync_api, voila  # noqa: F401, E401 - CI's test extra has them
    pytest.importorskip("playwright.sync_api")
    pytest.importorskip("voila")
    pytest.importorskip("ipywidgets")
    pytest.importorskip("nbformat")
    pytest.importorskip("matplotlib")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_notebook(path: Path, specs=("NCHW", "NHWC", "CHWN"), dims=ARTICLE) -> Path:
    import nbformat
    nb = nbformat.v4.new_notebook()
    args = ", ".join(f"{k}={v}" for k, v in dims.items())
    nb.cells = [nbformat.v4.new_code_cell(f"from layouts import viz\nviz.explore({list(specs)!r}, {args})")]
    nbformat.write(nb, str(path))
    return path


@contextmanager
def voila(notebook: Path, workdir: Path, timeout: float = 90.0):
    """``voila notebook`` on 127.0.0.1:<free port>, its kernel importing this checkout; yields the URL."""
    port = free_port()
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["MPLBACKEND"] = "Agg"
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_RUNTIME_DIR"):
        env[name] = str(workdir / name.lower())
    log = open(workdir / "voila.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "voila", str(notebook), "--no-browser", f"--port={port}",
                             "--Voila.ip=127.0.0.1"],
                            cwd=str(workdir), env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"voila exited with {proc.returncode}: {(workdir / 'voila.log').read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(url + "api", timeout=2):  # not the page: that would start a kernel
                    break
            except urllib.error.HTTPError:
                break  # it answers
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"voila did not answer within {timeout} s") from None
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)
        log.close()


@contextmanager
def browser_page(workdir: Path):
    """A page of the system Chromium with a fresh profile."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(str(workdir / "chromium-profile"), executable_path=CHROMIUM,
                                                       headless=True, args=CHROMIUM_ARGS, timeout=60_000)
        try:
            page = context.pages[0] if context.pages else context.new_page()
            page.set_default_timeout(60_000)
            yield page
        finally:
            context.close()


def open_explorer(page, url: str):
    page.goto(url, timeout=120_000)
    page.wait_for_selector(".layouts-explorer-picture svg rect.sl", state="attached", timeout=120_000)
    page.wait_for_function("() => document.querySelector('.layouts-explorer pre') !== null", timeout=60_000)


def formula_lines(page) -> list:
    return page.inner_text(".layouts-explorer pre").strip().splitlines()


def slider_handle(page, axis: str):
    return page.locator(".widget-slider", has=page.locator("label", has_text=axis)).locator(".noUi-handle").first


def ringed(page, number: int) -> list:
    """The stroke colour of every slot that holds element ``number`` (the logical panel, then each strip)."""
    return page.evaluate("""(n) => Array.from(document.querySelectorAll('.layouts-explorer-picture rect.sl.e' + n))
                                  .map(r => getComputedStyle(r).stroke)""", number)


def test_a_slider_step_shows_the_new_offsets_and_rings_the_slot(tmp_path):
    _needs_browser()
    import layouts as ly
    from layouts.viz.explorer import ExplorerModel
    specs = ("NCHW", "NHWC", "CHWN")
    nb = write_notebook(tmp_path / "explore.ipynb", specs)
    with voila(nb, tmp_path) as url, browser_page(tmp_path) as page:
        open_explorer(page, url)
        assert formula_lines(page) == ExplorerModel(list(specs), ARTICLE).formulas()
        assert ringed(page, 0) == [GREEN] * 4
        handle = slider_handle(page, "w")
        handle.focus()
        handle.press("ArrowRight")
        expected = ExplorerModel(list(specs), ARTICLE)
        expected.set_element(w=1)
        page.wait_for_function("(t) => document.querySelector('.layouts-explorer pre').innerText.includes(t)",
                               arg=expected.formulas()[1], timeout=30_000)
        lines = formula_lines(page)
        assert lines == expected.formulas()
        # the numbers are the layouts' own: w=1 sits at offset 1 in NCHW, 16 in NHWC (C=16), 2 in CHWN (N=2)
        for line, spec in zip(lines, specs):
            assert line.endswith(f"= {ly.Layout(spec, **ARTICLE).offset(n=0, c=0, h=0, w=1)}")
        assert lines[1] == "NHWC: offset = n*HWC + h*WC + w*C + c = 0*320 + 0*64 + 1*16 + 0*1 = 16"
        page.wait_for_function("() => getComputedStyle(document.querySelector("
                               "'.layouts-explorer-picture rect.sl.e1')).stroke === 'rgb(0, 160, 0)'", timeout=10_000)
        assert ringed(page, 1) == [GREEN] * 4
        assert GREEN not in ringed(page, 0)
        # hovering a slot of any strip names its element's coordinates and its offset in every layout
        nhwc_slot = page.locator(".layouts-explorer-picture rect.sl.e341").nth(2)
        nhwc_slot.hover()
        hover = nhwc_slot.locator("title").text_content()
        assert "n=1, c=1, h=0, w=1" in hover
        for spec in specs:
            assert f"{spec} offset {ly.Layout(spec, **ARTICLE).offset(n=1, c=1, h=0, w=1)}" in hover
        assert page.evaluate("() => getComputedStyle(document.querySelector("
                             "'.layouts-explorer-picture rect.sl:hover')).stroke") == "rgb(0, 0, 0)"


def panel_slots(page) -> dict:
    """Each panel's slots in document order: {'logical' or spec: [element number, -1 for padding]}."""
    return page.evaluate("""() => {
        const out = {};
        for (const g of document.querySelectorAll('.layouts-explorer-picture g.panel')) {
            out[g.dataset.spec] = Array.from(g.querySelectorAll('rect.sl')).map(r => {
                const m = /(?:^| )e(\\d+)(?: |$)/.exec(r.getAttribute('class'));
                return m ? Number(m[1]) : -1;
            });
        }
        return out;
    }""")


def wait_for_panels(page, names, count):
    page.wait_for_function("""([names, count]) => {
        const gs = Array.from(document.querySelectorAll('.layouts-explorer-picture g.panel'));
        return gs.map(g => g.dataset.spec).join(',') === names.join(',')
            && gs[0].querySelectorAll('rect.sl').length === count;
    }""", arg=[list(names), count], timeout=30_000)


def slider_values(page) -> dict:
    return page.evaluate("""() => Object.fromEntries(Array.from(document.querySelectorAll('.layouts-explorer .widget-slider'))
        .map(s => [s.querySelector('label').innerText.trim(), Number(s.querySelector('.widget-readout').innerText)]))""")


def test_spec_and_size_changes_redraw_and_a_click_chooses_the_element(tmp_path):
    _needs_browser()
    pytest.importorskip("anywidget")  # clicks are answered by the anywidget picture
    import numpy as np
    import layouts as ly
    nb = write_notebook(tmp_path / "explore.ipynb", ("NCHW", "NHWC"))
    with voila(nb, tmp_path) as url, browser_page(tmp_path) as page:
        open_explorer(page, url)
        # a new spec: the strips are the new layouts' memories, slot k holding the element stored at offset k
        specs = ["NCHW", "nChw8c", "CHWN"]
        box = page.locator(".layouts-explorer .widget-text input[type=text]").first
        box.fill(", ".join(specs))
        box.press("Enter")
        wait_for_panels(page, ["logical"] + specs, 640)
        slots = panel_slots(page)
        assert slots["logical"] == list(range(640))
        for s in specs:
            assert slots[s] == ly.Layout(s, **ARTICLE).physical_order().tolist()
        # a new size: W=3
        size = page.locator(".layouts-explorer .widget-inline-hbox.widget-text input[type=number]").nth(3)
        size.fill("3")
        size.press("Enter")
        dims = dict(ARTICLE, W=3)
        wait_for_panels(page, ["logical"] + specs, 2 * 16 * 5 * 3)
        slots = panel_slots(page)
        layouts = [ly.Layout(s, **dims) for s in specs]
        for s, L in zip(specs, layouts):
            assert slots[s] == L.physical_order().tolist()
        # a click on the slot at offset k of the blocked strip chooses the element stored there
        k = 123
        n = int(layouts[1].physical_order()[k])
        coords = dict(zip("nchw", (int(v) for v in np.unravel_index(n, (2, 16, 5, 3)))))
        page.locator(".layouts-explorer-picture g.panel[data-spec='nChw8c'] rect.sl").nth(k).click()
        info = page.locator(".layouts-explorer-info")
        page.wait_for_function("() => document.querySelector('.layouts-explorer-info').innerText.startsWith('clicked')",
                               timeout=10_000)
        text = info.inner_text()
        assert ", ".join(f"{a}={v}" for a, v in coords.items()) in text
        for s, L in zip(specs, layouts):
            assert f"{s} offset {int(L.offset(**coords))}" in text
        assert f"nChw8c offset {k}" in text
        # ... and moves the sliders there, so the formulas follow
        page.wait_for_function("(t) => document.querySelector('.layouts-explorer pre').innerText.includes(t)",
                               arg=f"= {k}   (", timeout=30_000)
        lines = formula_lines(page)
        assert [line.split(":")[0] for line in lines] == specs
        for line, L in zip(lines, layouts):
            assert line.split("   (")[0].endswith(f"= {int(L.offset(**coords))}")
        assert slider_values(page) == coords
        page.wait_for_function("(n) => Array.from(document.querySelectorAll('.layouts-explorer-picture rect.sl.e' + n))"
                               ".every(r => getComputedStyle(r).stroke === 'rgb(0, 160, 0)')", arg=n, timeout=10_000)
        assert ringed(page, n) == [GREEN] * 4
        # hovering another slot describes that element
        other = int(layouts[2].physical_order()[7])
        page.locator(".layouts-explorer-picture g.panel[data-spec='CHWN'] rect.sl").nth(7).hover()
        other_coords = dict(zip("nchw", (int(v) for v in np.unravel_index(other, (2, 16, 5, 3)))))
        text = info.inner_text()
        assert text.startswith(f"element {other} = (")
        for s, L in zip(specs, layouts):
            assert f"{s} offset {int(L.offset(**other_coords))}" in text
