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


def _run_as_script(tmp_path, *args: str) -> subprocess.CompletedProcess:
    """Run the CLI the way the ``layouts`` console script does: a launcher file named
    ``layouts`` that calls ``layouts.cli:main`` (what pip writes for [project.scripts])."""
    launcher = tmp_path / "layouts"
    launcher.write_text("import sys\nfrom layouts.cli import main\nsys.exit(main())\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, str(launcher), *args], capture_output=True, text=True,
                          env=env, timeout=300)


def test_usage_names_the_program_as_it_was_run(tmp_path):
    as_module = _run("--help")
    assert as_module.returncode == 0 and as_module.stdout.startswith("usage: python -m layouts ")
    as_script = _run_as_script(tmp_path, "--help")
    assert as_script.returncode == 0 and as_script.stdout.startswith("usage: layouts "), as_script.stdout
    assert "python -m" not in as_script.stdout
    bad = _run_as_script(tmp_path, "explain", "NCHW", "N=x")
    assert bad.returncode == 2 and bad.stderr.startswith("layouts: error: ")


def test_every_subcommand_has_help():
    for sub, words in (("tour", ["--out", "--no-figures"]), ("explain", ["AXIS=SIZE", "--ascii", "examples:"])):
        out = _run(sub, "--help")
        assert out.returncode == 0 and out.stdout.startswith(f"usage: python -m layouts {sub}")
        for w in words:
            assert w in out.stdout
        assert out.stderr == ""


def test_tour_to_an_unwritable_folder_is_an_error_line_not_a_traceback(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    out = _run("tour", "--out", str(blocker / "figures"))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.startswith("python -m layouts: error: cannot write ")
    assert out.stdout == ""                       # refused before the tour starts printing


def test_main_returns_the_status_in_process(capsys):
    from layouts.__main__ import main
    assert main(["explain", "NCHW", "N=1", "C=2", "H=1", "W=1"], prog="layouts") == 0
    assert "n*CHW" in capsys.readouterr().out
    assert main(["explain", "NCHW", "N=1"], prog="layouts") == 2
    assert capsys.readouterr().err.startswith("layouts: error: layout 'NCHW' needs")
    assert main(["nonsense"], prog="layouts") == 2
    assert main(["--help"], prog="layouts") == 0


def test_version():
    import layouts
    out = _run("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"layouts {layouts.__version__}", out.stdout + out.stderr
