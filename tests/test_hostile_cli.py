"""Hostile-input catalogue for the command line, each case in a subprocess as a user runs it.

Key words for the core's own refusals are the offending values (stable while the core's
wording improves). Every user mistake must end with exit status 2 and one ``python -m layouts: error: ...`` line on
stderr that holds the case's key word -- never a traceback, never a hang (a wall-clock timeout
per case), and nothing written where it should not be.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HUGE = "9" * 5000
PREFIX = "python -m layouts: error: "
ERROR_LINE = re.compile(r"^python -m layouts( tour| explain)?: error: ")   # argparse names the subcommand


def _run(args, cwd=None, timeout=120) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               MPLBACKEND="Agg")
    return subprocess.run([sys.executable, "-m", "layouts", *args], capture_output=True, text=True,
                          env=env, timeout=timeout, cwd=cwd)


DIMS = ["N=1", "C=2", "H=3", "W=4"]
CASES = [
    ("no-command", [], "required"),
    ("unknown-command", ["bogus"], "invalid choice"),
    ("unknown-option", ["--bogus", "explain", "NCHW", "N=1", "C=2", "H=3", "W=4"], "unrecognized"),
    ("explain-no-spec", ["explain"], "required"),
    ("explain-no-dims", ["explain", "NCHW"], "needs the size of axis"),
    ("explain-missing-w", ["explain", "NCHW", "N=1", "C=2", "H=3"], "W"),
    ("explain-unknown-axis", ["explain", "NCHW", *DIMS, "X=3"], "X"),
    ("explain-no-equals", ["explain", "NCHW", "N", "C", "H", "W"], "AXIS=SIZE"),
    ("explain-empty-size", ["explain", "NCHW", "N=", "C=2", "H=3", "W=4"], "AXIS=SIZE"),
    ("explain-float-size", ["explain", "NCHW", "N=1.5", "C=2", "H=3", "W=4"], "whole number"),
    ("explain-negative-size", ["explain", "NCHW", "N=-1", "C=2", "H=3", "W=4"], "whole number"),
    ("explain-hex-size", ["explain", "NCHW", "N=0x10", "C=2", "H=3", "W=4"], "whole number"),
    ("explain-arabic-digit", ["explain", "NCHW", "N=\u0663", "C=2", "H=3", "W=4"], "whole number"),
    ("explain-superscript", ["explain", "NCHW", "N=\u00b2", "C=2", "H=3", "W=4"], "whole number"),
    ("explain-5000-digit-size", ["explain", "NCHW", "N=1", f"C={HUGE}", "H=3", "W=4"], "5000 digits"),
    ("explain-19-digit-size", ["explain", "NCHW", "N=1", "C=" + "1" * 19, "H=3", "W=4"], "19 digits"),
    ("explain-5000-digit-block", ["explain", f"NCHW{HUGE}c", *DIMS], "5000 digits"),
    ("explain-int64-overflow", ["explain", "NCHW", "N=999999999999", "C=999999999999", "H=99999",
                                "W=99999"], "999999999999"),
    ("explain-repeated-axis", ["explain", "NCHW", *DIMS, "N=2"], "second time"),
    ("explain-empty-spec", ["explain", "", *DIMS], "spec"),
    ("explain-punctuation", ["explain", "NC!HW", *DIMS], "!"),
    ("explain-repeated-letter", ["explain", "NCCHW", *DIMS], "NCCHW"),
    ("explain-align-zero", ["explain", "NHWC", *DIMS, "align:H=0"], "align"),
    ("explain-align-unknown", ["explain", "NHWC", *DIMS, "align:X=16"], "X"),
    ("explain-pitch-short", ["explain", "NHWC", *DIMS, "pitch:H=1"], "pitch"),
    ("explain-block-zero", ["explain", "NCHW0c", *DIMS], "0c"),
    ("explain-bad-flag", ["explain", "NCHW", *DIMS, "--colour"], "unrecognized"),
    ("explain-ascii-too-big", ["explain", "NCHW", "N=1000", "C=1000", "H=1000", "W=1000", "--ascii"],
     "MAX_CELLS"),
    ("tour-bad-flag", ["tour", "--figures"], "unrecognized"),
    ("tour-out-missing-value", ["tour", "--out"], "expected one argument"),
]


@pytest.mark.parametrize("name,args,word", CASES, ids=[c[0] for c in CASES])
def test_user_mistake_is_an_error_line_and_status_2(name, args, word, tmp_path):
    out = _run(args, cwd=tmp_path)
    assert out.returncode == 2, (out.returncode, out.stdout[-500:], out.stderr[-1500:])
    assert "Traceback" not in out.stderr and "Traceback" not in out.stdout
    lines = out.stderr.strip().splitlines()
    error_lines = [ln for ln in lines if ERROR_LINE.match(ln)]
    assert len(error_lines) == 1, out.stderr[-1500:]
    assert word.lower() in error_lines[0].lower(), error_lines[0][:500]
    assert len(error_lines[0]) < 2100                       # a line, not a 5000-digit echo
    assert list(tmp_path.iterdir()) == []                   # nothing written by a refused call


def test_tour_out_under_a_file_and_onto_a_file(tmp_path):
    blocker = tmp_path / "plain-file"
    blocker.write_text("keep me")
    for target in (blocker, blocker / "figures"):
        out = _run(["tour", "--out", str(target)], cwd=tmp_path)
        assert out.returncode == 2 and "Traceback" not in out.stderr
        assert out.stderr.startswith(PREFIX + "cannot write ")
        assert blocker.read_text() == "keep me"


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0,
                    reason="root writes into read-only folders (CI's unprivileged stage runs this check as uid 65534)")
def test_tour_out_read_only_folder(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        out = _run(["tour", "--out", str(ro / "figs")], cwd=tmp_path)
    finally:
        ro.chmod(0o700)
    assert out.returncode == 2 and out.stderr.startswith(PREFIX + "cannot write ")


def test_catalogue_size():
    assert len(CASES) + 1 >= 30
