"""The built documentation as a reader sees it, in headless Chromium (issue 39, item 2).

Runs on a built site: ``LAYOUTS_DOCS_HTML=docs/_build/html python -m pytest tests/test_docs_site.py``
after ``python -m sphinx -b html docs docs/_build/html`` (CI does both, in its docs stage); skipped
without it. Each page shows, loaded, at least the pictures its source promises (an image reference
in a markdown page; a drawing call in a notebook, whose page shows the executed outputs); the
landing page's first example is above the fold at 1280 x 800; the navbar keeps to one line; a guide
page's section navigation lists the guide.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from test_explorer_browser import CHROMIUM, browser_page

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SITE = os.environ.get("LAYOUTS_DOCS_HTML")


def site_dir(value: str) -> Path:
    """The built site named by ``LAYOUTS_DOCS_HTML``: an absolute path, or a relative one read from
    the current folder (or, where it is not there, from the repository root, as the README
    builds it: ``docs/_build/html``)."""
    path = Path(value)
    if path.is_absolute():
        return path
    here = Path.cwd() / path
    return (here if here.exists() else ROOT / path).resolve()


pytestmark = pytest.mark.skipif(not SITE, reason="set LAYOUTS_DOCS_HTML to a built site (CI's docs stage does)")

#: an image in a markdown page: ![alt](file) or a {image} / {figure} directive
_MD_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]+\.(?:png|svg|jpg)\)|^```\{(?:image|figure)\}", re.M)
#: a notebook cell that draws: a viz.draw_* call, or a bare layout or picture left for Jupyter to show
_DRAWS = re.compile(r"\bviz\.(?:draw_\w+|compare|cute_svg)\(")

_PAGE_JS = """() => {
  const art = document.querySelector('article') || document.body;
  const imgs = [...art.querySelectorAll('img')];
  return {
    loaded: imgs.filter(i => i.complete && i.naturalWidth > 0).length,
    broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src')),
    svgs: art.querySelectorAll('svg.cute, div.cell_output svg, .output svg').length,
    outputs: art.querySelectorAll('div.cell_output').length,
    code: [...art.querySelectorAll('div.highlight')].map(e => e.getBoundingClientRect().top + window.scrollY),
    nav: (() => { const n = document.querySelector('.bd-navbar-elements'); if (!n) return null;
                  const tops = [...n.querySelectorAll(':scope > li')].map(li => Math.round(li.getBoundingClientRect().top));
                  return [...new Set(tops)].length; })(),
    sidebar: (() => { const s = document.querySelector('.bd-sidebar-primary nav.bd-links');
                      return s ? s.querySelectorAll('a').length : 0; })(),
  };
}"""


def _promises() -> dict[str, int]:
    """Built page (relative .html) -> pictures its source promises."""
    out = {}
    for md in DOCS.rglob("*.md"):
        if "_build" in md.parts:
            continue
        n = len(_MD_IMAGE.findall(md.read_text(encoding="utf-8")))
        if n:
            out[md.relative_to(DOCS).with_suffix(".html").as_posix()] = n
    for nb in (DOCS / "notebooks").glob("*.ipynb"):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        n = sum(1 for c in cells if c["cell_type"] == "code" and _DRAWS.search("".join(c["source"])))
        if n:
            out[f"notebooks/{nb.stem}.html"] = n
    return out


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        (pytest.fail if os.environ.get("CI") else pytest.skip)(f"{CHROMIUM} is missing (apt-get install chromium)")
    pytest.importorskip("playwright")
    with browser_page(tmp_path_factory.mktemp("site")) as p:
        p.set_viewport_size({"width": 1280, "height": 800})
        yield p


def _look(page, rel: str) -> dict:
    path = site_dir(SITE) / rel
    assert path.is_file(), f"{rel} was not built"
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page.evaluate(_PAGE_JS)


def test_every_page_shows_the_pictures_it_promises(page):
    promised = _promises()
    assert {"index.html", "guide/cute.html", "guide/pictures.html", "notebooks/05_cute_layouts.html",
            "guide/linear.html", "guide/smem.html", "notebooks/06_linear_layouts.html",
            "notebooks/07_shared_memory.html"} <= set(promised)
    short = {}
    for rel, n in sorted(promised.items()):
        seen = _look(page, rel)
        assert not seen["broken"], f"{rel}: pictures that do not load: {seen['broken']}"
        if seen["loaded"] + seen["svgs"] < n:
            short[rel] = (seen["loaded"] + seen["svgs"], n)
    assert not short, f"pages showing fewer pictures than their sources promise (shown, promised): {short}"


def test_notebook_pages_show_their_outputs(page):
    for nb in sorted((DOCS / "notebooks").glob("*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        code = sum(1 for c in cells if c["cell_type"] == "code")
        seen = _look(page, f"notebooks/{nb.stem}.html")
        assert seen["outputs"] >= code // 2, f"{nb.name}: {seen['outputs']} outputs shown for {code} code cells"


def test_the_landing_page_a_newcomer_sees(page):
    seen = _look(page, "index.html")
    assert seen["code"] and seen["code"][0] < 800, f"the first example starts at {seen['code'][:1]} px"
    assert seen["nav"] == 1, f"the navbar wraps onto {seen['nav']} lines at 1280 px"


def test_a_guide_page_lists_the_guide(page):
    seen = _look(page, "guide/cute.html")
    assert seen["sidebar"] >= 8, f"the guide's section navigation lists {seen['sidebar']} pages"


def test_every_code_line_fits_the_content_column(page):
    """A newcomer reads the guides' code at 100% zoom in a 1280-pixel window: no code block of the
    guide, the install page or the landing page is cut at the column's edge (scrolls sideways)."""
    pages = ["index.html", "install.html", "architecture.html"] + sorted(
        f"guide/{p.stem}.html" for p in (DOCS / "guide").glob("*.md") if p.stem != "index")
    cut = {}
    for rel in pages:
        _look(page, rel)
        wide = page.evaluate("""() => [...(document.querySelector('article') || document.body)
            .querySelectorAll('div.highlight pre')]
            .filter(p => p.scrollWidth > p.clientWidth + 1)
            .map(p => p.innerText.split('\\n').reduce((a, b) => a.length >= b.length ? a : b))""")
        if wide:
            cut[rel] = wide
    assert not cut, cut
