"""The command line: the tour prints the article's numbers; explain describes a layout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), MPLBACKEND="Agg")
    return subprocess.run([sys.executable, "-m", "layouts", *args], capture_output=True, text=True, env=env, timeout=300)


def test_tour_prints_the_article_numbers():
    out = _run("tour", "--no-figures")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "offset_nhwc(n,c,h,w) = n*HWC + h*WC + w*C + c" in text
    assert "NCHW: offset 341" in text and "NHWC: offset 337" in text and "CHWN: offset  43" in text
    assert "NHWC: 000 020 040 060" in text and "CHWN: 000 320 001 321" in text
    assert "size 80 elements for 60 values" in text                # EdgeBoard's padded rows
    assert "equals numpy's transpose: True" in text


def test_tour_writes_figures(tmp_path):
    out = _run("tour", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    written = sorted(tmp_path.glob("*.png"))
    assert len(written) >= 3
    for png in written:
        assert str(png) in out.stdout
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_explain_and_its_errors():
    out = _run("explain", "NCHW16c", "N=1", "C=20", "H=5", "W=4")
    assert out.returncode == 0 and "C 20 -> 32" in out.stdout
    bad = _run("explain", "NCHW", "N=1")
    assert bad.returncode == 2 and "needs the size of axis C, H, W" in bad.stderr
