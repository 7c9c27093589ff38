"""Sphinx directive ``module-index``: every module of the ``layouts`` package with the first
line of its docstring, linked to its reference page where it has one.

The docstrings are read from the source files (``ast``), not imported; only the summary line is
shown, so the page stays complete as modules are added and never depends on how the rest of a
module docstring is written.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "layouts"
_ROLE = re.compile(r":[a-z]+:`~?\.*([^`]+)`")


def modules(package: Path = PACKAGE) -> list[tuple[str, str]]:
    """(dotted name, summary line) of every module under ``package``, sorted by name."""
    out = []
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        out.append((".".join(parts), summary(doc)))
    return sorted(out)


def summary(doc: str) -> str:
    """The first sentence-line of a docstring, its RST roles and double backticks made plain code."""
    first = " ".join(doc.strip().split("\n\n", 1)[0].split())
    return _ROLE.sub(r"``\1``", first)


def _inline(text: str) -> list[nodes.Node]:
    out, at = [], 0
    for m in re.finditer(r"``(.+?)``", text):
        if m.start() > at:
            out.append(nodes.Text(text[at:m.start()]))
        out.append(nodes.literal(m[1], m[1]))
        at = m.end()
    if at < len(text):
        out.append(nodes.Text(text[at:]))
    return out


class ModuleIndex(SphinxDirective):
    """``.. module-index::`` -- a table: module (linked when documented), what it is for."""

    def run(self):
        tab = nodes.table()
        group = nodes.tgroup(cols=2)
        tab += group
        group += nodes.colspec(colwidth=1)
        group += nodes.colspec(colwidth=3)
        head = nodes.thead()
        group += head
        body = nodes.tbody()
        group += body
        head += self._row([nodes.Text("module")], [nodes.Text("what it is for")])
        for name, line in modules():
            ref = addnodes.pending_xref("", refdomain="py", reftype="mod", reftarget=name, refexplicit=False,
                                        refwarn=False)
            ref += nodes.literal(name, name)
            body += self._row([ref], _inline(line))
        for path in PACKAGE.rglob("*.py"):
            self.env.note_dependency(str(path))
        return [tab]

    @staticmethod
    def _row(left, right) -> nodes.row:
        row = nodes.row()
        for content in (left, right):
            entry = nodes.entry()
            entry += nodes.paragraph("", "", *content)
            row += entry
        return row


def setup(app):
    app.add_directive("module-index", ModuleIndex)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
