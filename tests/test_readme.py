"""Every ```python block of README.md runs as pasted, so the README cannot rot.

Each block runs in a fresh namespace (nothing carries over from the block before it) with a
temporary folder as the working directory, exactly as a reader would paste it into a new
interpreter. A block that imports an optional library (torch, cv2, protobuf, dask, ...) is
skipped where that library is missing, except in CI (``CI`` set), where the test extra installs
them all and a missing one fails. ``tests/test_docs.py`` runs the documentation's blocks the same way.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

_FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(first line number, source) of each ```python block of a markdown text."""
    return [(text.count("\n", 0, m.start(1)) + 1, m.group(1)) for m in _FENCE.finditer(text)]


def run_block(where: str, source: str, tmp_path: Path, monkeypatch) -> None:
    """Run one block as a reader would: fresh namespace, ``tmp_path`` as cwd and temp folder.

    ``where`` (``"README.md:12"``) names the block in a traceback or a skip.
    """
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # a block's tempfile.mkdtemp() lands here too
    monkeypatch.setenv("MPLBACKEND", "Agg")
    code = compile(source, where, "exec")  # a SyntaxError names the file and line
    try:
        exec(code, {"__name__": "__readme__"})
    except ImportError as exc:
        missing = _missing_optional(exc)
        if missing and not os.environ.get("CI"):
            pytest.skip(f"{where} needs {missing}, which is not installed")
        raise


BLOCKS = python_blocks(README.read_text(encoding="utf-8"))


def test_readme_has_python_blocks():
    # the extraction itself can fail: the README has blocks, and a block found here is whole
    assert len(BLOCKS) >= 3, f"found {len(BLOCKS)} ```python blocks in README.md"
    fences = len(re.findall(r"^```python", README.read_text(encoding="utf-8"), re.M))
    assert fences == len(BLOCKS), "a ```python fence is not closed"


def test_extraction_on_a_known_text():
    text = "intro\n```python\na = 1\n```\n```bash\nls\n```\n```python\nb = 2\nc = 3\n```\n"
    assert python_blocks(text) == [(3, "a = 1\n"), (9, "b = 2\nc = 3\n")]


def test_readme_is_a_landing_page():
    # issue 18: the README is a landing page (the measurements live on the docs' performance page)
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250, f"README.md has {len(text.splitlines())} lines, at most 250"
    for command in ("pip install -e .", "python -m layouts tour", 'pip install -e ".[test]"', "python -m pytest"):
        assert command in text, f"README.md lost the command {command!r}"
    for image in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
        assert (ROOT / image).is_file(), f"README.md shows {image}, which does not exist"


@pytest.mark.parametrize("line,source", BLOCKS, ids=[f"README.md:{n}" for n, _ in BLOCKS])
def test_readme_block_runs(line, source, tmp_path, monkeypatch):
    run_block(f"README.md:{line}", source, tmp_path, monkeypatch)


#: Libraries the README may use that ``pip install -e .`` alone does not bring.
OPTIONAL = {"torch", "cv2", "google", "dask", "distributed", "zarr", "tqdm", "ipywidgets"}


def _missing_optional(exc: BaseException) -> str | None:
    """The optional module whose absence caused ``exc`` (directly or as its cause), if any."""
    while exc is not None:
        if isinstance(exc, ModuleNotFoundError) and (exc.name or "").split(".")[0] in OPTIONAL:
            return exc.name
        exc = exc.__cause__ or exc.__context__
    return None


def test_the_speed_table_is_the_results_files():
    """The README's speed table is what bench/results/*.json hold: each row's geometric means and
    count recomputed here from the file of that CPU (a results file added or run again without
    the README following fails)."""
    import json
    import math
    text = README.read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| ") and " of 84 |" in line]
    files = sorted(p for p in (ROOT / "bench" / "results").glob("*.json") if p.name != "results.json")
    assert len(rows) == len(files) and files
    for row, path in zip(rows, files):
        data = json.loads(path.read_text(encoding="utf-8"))
        cases = data["cases"]
        ratios = [c["ratio"] for c in cases if c.get("ratio")]
        peers = [c["vs_best_peer"] for c in cases if c.get("vs_best_peer") is not None]
        geo = [math.exp(sum(math.log(r) for r in v) / len(v)) for v in (ratios, peers)]
        cpu = f"{data['machine']['cpu_model']} ({data['machine']['llvm_host_cpu']})"
        want = (f"| {cpu} | {data['when'][:10]} | {geo[0]:.2f} | {geo[1]:.2f} | "
                f"{sum(1 for v in peers if v >= 1)} of {len(peers)} |")
        assert row == want, path.name


def test_each_picture_is_drawn_by_the_code_above_it(tmp_path):
    """Each picture of the README is drawn by the last line of the block above it: the picture the
    block draws has the stored image's size (its content is the gallery's, checked in test_viz)."""
    import io
    from PIL import Image
    from layouts.viz import to_png
    text = README.read_text(encoding="utf-8")
    pictures = re.findall(r"```python\n(.*?)```\n\n!\[[^]]*\]\((docs/[^)]+\.png)\)", text, re.S)
    assert len(pictures) == 3
    for source, image in pictures:
        namespace: dict = {}
        exec(compile(source, "README.md", "exec"), namespace)
        drawn = Image.open(io.BytesIO(to_png(namespace["fig"], dpi=100))).size
        assert drawn == Image.open(ROOT / image).size, image
