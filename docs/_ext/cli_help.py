"""Sphinx directive ``cli-help``: the ``--help`` text of ``python -m layouts [COMMAND]``, run at build time.

The CLI page then shows what the installed code really accepts, never a copy that drifts.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[2]


def help_text(words: list[str]) -> str:
    """``python -m layouts WORDS --help`` of the checkout's package, 100 columns wide."""
    env = dict(os.environ, COLUMNS="96", PYTHONPATH=os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    run = subprocess.run([sys.executable, "-m", "layouts", *words, "--help"], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=120)
    if run.returncode != 0:
        raise RuntimeError(f"python -m layouts {' '.join(words)} --help exited {run.returncode}: {run.stderr[-500:]}")
    return run.stdout.rstrip()


class CliHelp(SphinxDirective):
    """``.. cli-help:: explain-copy`` (no argument: the top-level help)."""

    optional_arguments = 1

    def run(self):
        words = self.arguments[0].split() if self.arguments else []
        try:
            text = help_text(words)
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
            raise self.error(f"cli-help: {exc}")
        return [nodes.literal_block(text, text, language="text")]


def setup(app):
    app.add_directive("cli-help", CliHelp)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
