"""The documentation under docs/ runs and renders what it claims.

- Every ```python block of every page (MyST markdown, ``docs/**/*.md``) runs as pasted, exactly
  as the README's do (``tests/test_readme.py``: fresh namespace, a temporary folder as the working
  directory, a missing optional library skips outside CI). Python code in any other syntax
  (``{code-block} python``, ``.. code-block:: python``, ```` ```py ````) is refused, so no block
  escapes this test.
- The benchmark results under ``bench/results/`` are well-formed, and the performance page's
  directive (``docs/_ext/bench_results.py``) puts each measured value in the table cell of its
  shape, dtype and direction.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from test_readme import python_blocks, run_block

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RESULTS = ROOT / "bench" / "results"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)
BLOCKS = [(page, line, src) for page in PAGES for line, src in python_blocks(page.read_text(encoding="utf-8"))]
RESULT_FILES = sorted(RESULTS.glob("*.json"))

#: Ways to write python code in a page that the extraction above would not see.
_OTHER_SYNTAX = re.compile(r"^\s*(```+\s*\{code-cell\}|```+\s*\{code(-block)?\}\s*(python|py|ipython)\w*"
                           r"|```+\s*(py|python3|ipython|pycon)\s*$"
                           r"|\.\.\s+code(-block)?::\s*(python|py)\b)", re.M)


def _rel(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def test_docs_have_pages_and_blocks():
    assert (DOCS / "index.md").is_file() and (DOCS / "conf.py").is_file()
    assert len(PAGES) >= 10, [_rel(p) for p in PAGES]
    assert len(BLOCKS) >= 10, f"found {len(BLOCKS)} ```python blocks in docs/"
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        opened = len(re.findall(r"^```python", text, re.M))
        assert opened == len(python_blocks(text)), f"{_rel(page)}: a ```python fence is not closed"


@pytest.mark.parametrize("page", PAGES, ids=[_rel(p) for p in PAGES])
def test_python_is_written_one_way(page):
    found = _OTHER_SYNTAX.findall(page.read_text(encoding="utf-8"))
    assert not found, f"{_rel(page)} has python code outside ```python fences (not run by the tests): {found}"


def test_other_syntax_is_recognised():
    # the guard above can fail: each form it refuses is caught on a known text
    for text in ("```{code-block} python\nx\n```", ".. code-block:: python\n", "```py\nx\n```",
                 "```{code-cell} ipython3\nx\n```"):
        assert _OTHER_SYNTAX.search(text), text
    assert not _OTHER_SYNTAX.search("```python\nx = 1\n```\n```bash\nls\n```")


@pytest.mark.parametrize("page,line,source", BLOCKS, ids=[f"{_rel(p)}:{n}" for p, n, _ in BLOCKS])
def test_docs_block_runs(page, line, source, tmp_path, monkeypatch):
    run_block(f"{_rel(page)}:{line}", source, tmp_path, monkeypatch)


def test_notebooks_are_all_in_the_docs():
    shown = {p.name for p in (DOCS / "notebooks").glob("*.ipynb")}
    stored = {p.name for p in (ROOT / "notebooks").glob("*.ipynb")}
    assert stored and shown == stored, f"docs/notebooks/ shows {sorted(shown)}, notebooks/ holds {sorted(stored)}"
    for p in (DOCS / "notebooks").glob("*.ipynb"):
        assert p.read_bytes() == (ROOT / "notebooks" / p.name).read_bytes(), f"docs/notebooks/{p.name} is stale"
    assert "notebooks/index" in (DOCS / "index.md").read_text(encoding="utf-8"), "the notebooks' section is not linked"
    section = (DOCS / "notebooks" / "index.md").read_text(encoding="utf-8")
    for name in stored:
        assert f"\n{name[:-6]}\n" in section, f"{name} is not in the notebooks' table of contents"


# ------------------------------------------------------------------ benchmark results

def test_results_exist_and_are_wellformed():
    assert RESULT_FILES, "bench/results/ holds no results file"
    for path in RESULT_FILES:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["machine"]["cpu_model"], path.name
        for c in data.get("cases") or []:
            assert len(c["shape"]) == 4 and all(isinstance(s, int) and s > 0 for s in c["shape"]), c
            assert c["dtype"] in ("float32", "float16", "uint8"), c
            src, _, dst = c["direction"].partition("-")
            assert src and dst and src != dst, c
            assert c["ratio"] > 0 and c["ratio_nt"] > 0, c
        for other in data.get("other_benchmarks") or []:
            assert other["rows"] and all(len(r) == len(other["columns"]) for r in other["rows"]), other["title"]


def _bench_results():
    pytest.importorskip("docutils")
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import bench_results
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    return bench_results


def _cells(table):
    """The text of a docutils table node, as rows of cell strings (header first)."""
    return [[entry.astext() for entry in row.children] for row in table.findall(lambda n: n.tagname == "row")]


@pytest.mark.parametrize("path", RESULT_FILES, ids=[p.name for p in RESULT_FILES])
def test_each_measured_value_lands_in_its_cell(path):
    br = _bench_results()
    data = json.loads(path.read_text(encoding="utf-8"))
    section = br.render_file(path, "performance")
    tables = list(section.findall(lambda n: n.tagname == "table"))
    cases = data.get("cases") or []
    shapes = list(dict.fromkeys(tuple(c["shape"]) for c in cases))
    assert len(tables) >= len(shapes) + len(data.get("other_benchmarks") or [])
    for shape, table in zip(shapes, tables):          # one matrix per shape, in the file's order
        rows = _cells(table)
        header = rows[0]
        for c in (c for c in cases if tuple(c["shape"]) == shape):
            row = next(r for r in rows[1:] if r[0] == c["dtype"])
            cell = row[header.index(c["direction"].replace("-", "->"))]
            assert cell.startswith(f"{c['ratio']:.2f} / {c['ratio_nt']:.2f}"), (c, cell)
            if c.get("vs_best_peer") is not None:
                assert f"({c['vs_best_peer']:.1f}x)" in cell, (c, cell)
    for other in data.get("other_benchmarks") or []:
        table = next(t for t in tables if _cells(t)[0] == [re.sub(r"`|\*\*", "", h) for h in other["columns"]])
        body = _cells(table)[1:]
        assert [[re.sub(r"`|\*\*", "", v) for v in r] for r in other["rows"]] == body


def test_a_full_run_file_renders(tmp_path):
    # the keys bench/run.py writes beyond the transcribed ones: 2-thread speedups, overhead, cold, targets
    br = _bench_results()
    case = dict(shape=[2, 16, 4, 4], dtype="uint8", direction="NCHW-NHWC", ratio=0.5, ratio_nt=0.25,
                vs_best_peer=3.0, speedup_2T=1.25, threads_used={"1": 1, "2": 1}, t_ours=1e-4)
    data = dict(machine=dict(cpu_model="Test CPU", cores=2, cache={"L1": "48K"}, cpuinfo_flags={"avx2": True},
                             llvm_host_cpu="testcpu", versions={"numpy": "2.0"}),
                settings=dict(threads=[1, 2], main_threads=1), argv=["--threads", "1,2"], when="2026-12-01",
                cases=[case],
                overhead={"convert(x, 'NCHW', 'NHWC', out=out)": dict(median_us=5.5, min_us=5.0, max_us=7.0)},
                cold={"uint8": dict(import_ms=10.0, numba_import_ms=150.0, first_call_compile_ms=700.0,
                                    first_call_warm_cache_ms=300.0, second_call_ms=0.01)},
                targets=[dict(target="per-call overhead <= 10 us", value=5.5, case=None, status="met")])
    path = tmp_path / "test-cpu.json"
    path.write_text(json.dumps(data))
    text = br.render_file(path, "performance").astext()
    assert "Test CPU (testcpu)" in text
    assert "0.50 / 0.25 (3.0x)" in text
    assert "1.25*" in text                   # threads=2 that ran on one thread is marked
    assert "5.50" in text and "700" in text and "met" in text


def test_the_cute_guides_pictures_are_what_the_code_draws_now():
    """docs/cute_*.svg, shown on the CuTe page, equal a fresh viz.cute_svg of their layouts."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_figures", DOCS / "make_figures.py")
    figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figures)
    for name in figures.CUTE_FIGURES:
        assert (DOCS / name).read_text(encoding="utf-8") == figures.cute_figure(name), (
            f"docs/{name} is stale: run python docs/make_figures.py")


def test_the_gpu_guides_pictures_are_drawn_by_the_code_beside_them():
    """Each picture of the linear-layout and shared-memory guides is drawn (docs/make_figures.py)
    by lines that stand, in that order, in one python block of the page that shows it, and the
    stored picture has the size those lines draw now."""
    import importlib.util
    import io

    from PIL import Image
    from layouts.viz import to_png

    spec = importlib.util.spec_from_file_location("make_figures", DOCS / "make_figures.py")
    figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figures)
    for name, (page, lines) in figures.GPU_FIGURES.items():
        text = (DOCS / page).read_text(encoding="utf-8")
        assert f"]({'../' * page.count('/')}{name})" in text, f"{page} does not show {name}"
        blocks = [b.splitlines() for b in re.findall(r"```python\n(.*?)```", text, re.S)]

        def in_order(block):
            at = 0
            for line in lines:
                if line not in block[at:]:
                    return False
                at = block.index(line, at) + 1
            return True
        assert any(in_order(b) for b in blocks), f"{page} shows {name} without the code that draws it: {lines}"
        drawn = Image.open(io.BytesIO(to_png(figures.gpu_figure(name), dpi=100))).size
        assert drawn == Image.open(DOCS / name).size, f"docs/{name} is stale: run python docs/make_figures.py"


def test_the_site_tests_read_a_relative_site_path(monkeypatch, tmp_path):
    """LAYOUTS_DOCS_HTML=docs/_build/html, as the README builds the site, names a folder the
    browser can open (an absolute file URI), from the repository root or from another folder."""
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from test_docs_site import site_dir
    finally:
        sys.path.pop(0)
    monkeypatch.chdir(ROOT)
    assert site_dir("docs/_build/html") == (ROOT / "docs" / "_build" / "html").resolve()
    assert site_dir("docs/_build/html").as_uri().startswith("file:///")
    monkeypatch.chdir(tmp_path)
    assert site_dir("docs/_build/html") == (ROOT / "docs" / "_build" / "html").resolve()
    assert site_dir(str(tmp_path)) == tmp_path


def test_the_package_speaks_to_its_users_not_to_the_tracker():
    """No docstring or comment of the package names a tracker issue ('the contract of issue 42'):
    it says what the contract is."""
    found = []
    for path in (ROOT / "layouts").rglob("*.py"):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\bissues? #?\d+", line, re.I):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "\n".join(found)


def test_the_pictures_guide_shows_the_call_that_draws_each_picture():
    """Under each gallery picture of the pictures guide, the call that draws it: it draws a
    picture of the stored one's size now."""
    import io

    from PIL import Image

    import layouts as ly
    from layouts import viz
    text = (DOCS / "guide" / "pictures.md").read_text(encoding="utf-8")
    shown = re.findall(r"!\[[^]]*\]\(\.\./(gallery_\w+\.png)\)\n\n\*`([^`]+)`\*", text)
    assert len(shown) == 3
    for name, call in shown:
        fig = eval(call, {"ly": ly, "viz": viz})
        assert Image.open(io.BytesIO(viz.to_png(fig, dpi=100))).size == Image.open(DOCS / name).size, name
