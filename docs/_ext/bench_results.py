"""Sphinx directive ``bench-results``: every JSON file under ``bench/results/`` as tables, one section each.

The files are what ``python bench/run.py`` writes (``machine``, ``settings``, ``cases``, ``overhead``,
``cold``, ``targets``, ``argv``, ``when``), optionally with ``provenance``, ``conditions``, ``summary``
(a list of sentences) and ``other_benchmarks`` (tables of the other ``bench/`` scripts: ``title``,
``script``, ``command``, ``conditions``, ``columns``, ``rows``, ``notes``). A key that a file lacks
is left out of its section, so a partial record renders as far as it goes.

Text from the files may use two pieces of markdown: ```code``` and ``**bold**``; nothing else is
interpreted, so a measurement never turns into markup by accident.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results"
_INLINE = re.compile(r"`([^`]+)`|\*\*([^*]+)\*\*")
_ITEMSIZE = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2, "int8": 1, "uint8": 1}


def inline(text: str) -> list[nodes.Node]:
    """Nodes of one line of text: `code` as a literal, **bold** as strong, the rest as it is."""
    out, at = [], 0
    for m in _INLINE.finditer(text):
        if m.start() > at:
            out.append(nodes.Text(text[at:m.start()]))
        out.append(nodes.literal(m[1], m[1]) if m[1] is not None else nodes.strong(m[2], m[2]))
        at = m.end()
    if at < len(text):
        out.append(nodes.Text(text[at:]))
    return out


def paragraph(text: str) -> nodes.paragraph:
    return nodes.paragraph("", "", *inline(text))


def bullets(items) -> nodes.bullet_list:
    lst = nodes.bullet_list()
    for item in items:
        lst += nodes.list_item("", paragraph(item))
    return lst


def table(columns: list[str], rows: list[list], first_bold: bool = False) -> nodes.table:
    """A table node; rows shorter than the header are padded with "-"."""
    tab = nodes.table(classes=["bench-table"])
    group = nodes.tgroup(cols=len(columns))
    tab += group
    for _ in columns:
        group += nodes.colspec(colwidth=1)
    head = nodes.thead()
    group += head
    head += _row(columns)
    body = nodes.tbody()
    group += body
    for r in rows:
        cells = [str(c) for c in r] + ["-"] * (len(columns) - len(r))
        body += _row(cells)
    return tab


def _row(cells) -> nodes.row:
    row = nodes.row()
    for c in cells:
        entry = nodes.entry()
        entry += paragraph(str(c))
        row += entry
    return row


def section(title: str, doc_id: str) -> nodes.section:
    sec = nodes.section(ids=[nodes.make_id(doc_id)])
    sec += nodes.title(title, "", *inline(title))
    return sec


def literal(text: str) -> nodes.literal_block:
    return nodes.literal_block(text, text, language="bash")


def _label(shape) -> str:
    return "x".join(map(str, shape))


def _mb(nbytes: float) -> str:
    return f"{nbytes / 1e6:.1f} MB" if nbytes < 1e8 else f"{nbytes / 1e6:.0f} MB"


def _f(v, fmt="{:.2f}") -> str:
    return "-" if v is None else v if isinstance(v, str) else fmt.format(v)


def machine_lines(m: dict) -> list[str]:
    """Sentences about the machine, in the order of ``bench/_machine.py``'s ``describe``."""
    out = [f"CPU: {m.get('cpu_model', '?')}, {m.get('cores', '?')} cores seen"]
    if m.get("cache"):
        out[0] += ", caches " + ", ".join(f"{k} {v}" for k, v in m["cache"].items())
    flags = " ".join(f for f, on in (m.get("cpuinfo_flags") or {}).items() if on)
    if flags or m.get("llvm_host_cpu"):
        out.append(f"SIMD: {flags or '?'}; llvmlite host CPU `{m.get('llvm_host_cpu', '?')}`")
    vers = ", ".join(f"{k} {v}" for k, v in (m.get("versions") or {}).items() if v)
    if vers:
        out.append(f"versions: {vers}")
    return out


def matrix_tables(cases: list[dict], key_fmt) -> list[tuple[str, nodes.table]]:
    """One (title, table) per shape: dtypes down, directions across, ``key_fmt(case)`` in the cells."""
    shapes = list(dict.fromkeys(tuple(c["shape"]) for c in cases))
    out = []
    for shape in shapes:
        sel = [c for c in cases if tuple(c["shape"]) == shape]
        dirs = list(dict.fromkeys(c["direction"] for c in sel))
        dtypes = list(dict.fromkeys(c["dtype"] for c in sel))
        cell = {(c["dtype"], c["direction"]): key_fmt(c) for c in sel}
        rows = [[dt] + [cell.get((dt, d), "-") for d in dirs] for dt in dtypes]
        n = 1
        for s in shape:
            n *= s
        out.append((f"{_label(shape)} ({_mb(n * 4)} as float32)",
                    table(["dtype"] + [d.replace("-", "->") for d in dirs], rows)))
    return out


def _ratio_cell(c: dict) -> str:
    cell = f"{_f(c.get('ratio'))} / {_f(c.get('ratio_nt'))}"
    if c.get("vs_best_peer") is not None:
        cell += f" ({c['vs_best_peer']:.1f}x)"
    return cell


def render_file(path: Path, doc_name: str) -> nodes.section:
    """The section of one results file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    m = data.get("machine") or {}
    title = m.get("cpu_model", path.stem)
    if m.get("llvm_host_cpu"):
        title += f" ({m['llvm_host_cpu']})"
    sec = section(title, f"bench-{path.stem}")
    rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.as_posix()
    when = f", run {data['when']}" if data.get("when") else ""
    sec += paragraph(f"From `{rel}`{when}.")
    if data.get("provenance"):
        note = nodes.note()
        note += paragraph(data["provenance"])
        sec += note
    sec += bullets(machine_lines(m))
    cases = data.get("cases") or []
    if cases:
        main = (data.get("settings") or {}).get("main_threads", 1)
        argv = " ".join(data.get("argv") or [])
        sec += literal(f"python bench/run.py {argv}".rstrip())
        if data.get("conditions"):
            sec += paragraph(data["conditions"])
        sec += paragraph(
            f"Each cell: ours ({main} thread{'s' if main != 1 else ''}) as `t(np.copyto of the same bytes) / "
            "t(ours)`, after the slash `t(non-temporal-store copy of the same bytes) / t(ours)` (the copy "
            "limit of one core), and in brackets how many times faster than the fastest peer (numpy, torch "
            "with 1 and 2 threads, `cv2.transpose` per image or as one call, `cv2.transposeND`). Higher is "
            "better.")
        for t, tab in matrix_tables(cases, _ratio_cell):
            sub = section(t, f"bench-{path.stem}-{t.split()[0]}")
            sub += tab
            sec += sub
        two = [c for c in cases if any(k.startswith("speedup_") for k in c)]
        if two:
            keys = sorted({k for c in two for k in c if k.startswith("speedup_")})
            for k in keys:
                n = k.split("_")[1]
                sub = section(f"{n} / {main} thread", f"bench-{path.stem}-{k}")
                sub += paragraph(f"`t(ours {main}T) / t(ours {n})`, marked * where the library ran the "
                                 "copy on one thread (below its profile's thread threshold).")
                fmt = lambda c, k=k, n=n: _f(c.get(k)) + (
                    "*" if (c.get("threads_used") or {}).get(n.rstrip("T")) == 1 else "")
                for t, tab in matrix_tables(two, fmt):
                    sub += paragraph(t)
                    sub += tab
                sec += sub
    if data.get("summary"):
        sec += bullets(data["summary"])
    if data.get("overhead"):
        sub = section("Per-call overhead", f"bench-{path.stem}-overhead")
        sub += table(["call (1x3x4x4 float32 NCHW->NHWC)", "median us/call", "min-max us"],
                     [[f"`{k}`", _f(v["median_us"]), f"{_f(v['min_us'])}-{_f(v['max_us'])}"]
                      for k, v in data["overhead"].items()])
        sec += sub
    if data.get("cold"):
        sub = section("First call in a fresh process", f"bench-{path.stem}-cold")
        sub += table(["dtype", "import layouts.kernels ms", "import numba ms", "first call, empty cache ms",
                      "first call, warm cache ms", "second call ms"],
                     [[dt, _f(c.get("import_ms"), "{:.1f}"), _f(c.get("numba_import_ms"), "{:.1f}"),
                       _f(c.get("first_call_compile_ms"), "{:.0f}"), _f(c.get("first_call_warm_cache_ms"), "{:.1f}"),
                       _f(c.get("second_call_ms"), "{:.3f}")] for dt, c in data["cold"].items()])
        sec += sub
    if data.get("targets"):
        sub = section("Targets", f"bench-{path.stem}-targets")
        sub += table(["target", "measured", "case", "status"],
                     [[t["target"], _f(t.get("value"), "{:.3g}"), t.get("case") or "-", t.get("status", "-")]
                      for t in data["targets"]])
        sec += sub
    for i, other in enumerate(data.get("other_benchmarks") or []):
        sub = section(other["title"], f"bench-{path.stem}-other-{i}")
        if other.get("command"):
            sub += literal(other["command"])
        if other.get("conditions"):
            sub += paragraph(other["conditions"])
        sub += table(other["columns"], other["rows"])
        if other.get("notes"):
            sub += bullets(other["notes"])
        sec += sub
    return sec


def results_files(folder: Path = RESULTS) -> list[Path]:
    """Every ``*.json`` under ``folder``, ordered by CPU model then file name."""
    def key(p):
        try:
            return (json.loads(p.read_text(encoding="utf-8")).get("machine", {}).get("cpu_model", ""), p.name)
        except (OSError, ValueError):
            return ("", p.name)
    return sorted(folder.rglob("*.json"), key=key) if folder.is_dir() else []


class BenchResults(SphinxDirective):
    """``.. bench-results::`` -- one section per results file; ``:folder:`` relative to the repository."""

    option_spec = {"folder": directives.unchanged}

    def run(self):
        folder = ROOT / self.options["folder"] if "folder" in self.options else RESULTS
        files = results_files(folder)
        if not files:
            return [paragraph(f"No benchmark results under `{folder.relative_to(ROOT).as_posix()}` yet.")]
        out = []
        for path in files:
            self.env.note_dependency(str(path))
            try:
                out.append(render_file(path, self.env.docname))
            except (ValueError, KeyError, TypeError) as exc:     # a broken file is reported, not skipped
                raise self.error(f"bench-results: cannot render {path}: {type(exc).__name__}: {exc}")
        return out


def headline_row(path: Path) -> list:
    """One CPU's headline: its cases' geometric mean against np.copyto, how many beat the fastest
    peer and the worst of them, and the targets met -- all computed from its results file."""
    import math

    data = json.loads(path.read_text(encoding="utf-8"))
    m = data.get("machine") or {}
    cpu = m.get("cpu_model", path.stem) + (f" ({m['llvm_host_cpu']})" if m.get("llvm_host_cpu") else "")
    cases = data.get("cases") or []
    ratios = [c["ratio"] for c in cases if c.get("ratio")]
    peers = [c["vs_best_peer"] for c in cases if c.get("vs_best_peer") is not None]
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else None
    targets = data.get("targets") or []
    met = sum(1 for t in targets if str(t.get("status", "")).lower().startswith("met"))
    return [cpu, (data.get("when") or "-")[:10], str(len(cases)), _f(geo),
            f"{sum(1 for v in peers if v >= 1)} of {len(peers)}" if peers else "-",
            _f(min(peers)) + "x" if peers else "-", f"{met} of {len(targets)}" if targets else "-"]


class BenchHeadline(SphinxDirective):
    """``.. bench-headline::`` -- one row per results file: the figures a reader wants first."""

    def run(self):
        files = results_files(RESULTS)
        if not files:
            return [paragraph("No benchmark results yet.")]
        for path in files:
            self.env.note_dependency(str(path))
        return [table(["CPU", "run", "cases", "geomean vs np.copyto", "faster than the fastest peer",
                       "worst vs the fastest peer", "targets met"],
                      [headline_row(p) for p in files], first_bold=True)]


def setup(app):
    app.add_directive("bench-results", BenchResults)
    app.add_directive("bench-headline", BenchHeadline)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
