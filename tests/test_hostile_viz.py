"""Hostile input to the pictures (issue 8, viz share): each case is refused with a clear error.

Every case names the exception type, a key word of the message, and (where the call takes arrays
or Layouts) what must come out untouched. Giant layouts run in a bounded child process. A
hypothesis fuzz throws random hostile arguments at every entry: only LayoutError / TypeError /
ValueError may come out, never ZeroDivisionError, AttributeError or numpy/matplotlib internals.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("matplotlib")

import layouts as ly  # noqa: E402
from layouts import viz  # noqa: E402
from layouts.errors import LayoutError  # noqa: E402
from layouts.viz.explorer import ExplorerModel  # noqa: E402

from hostile import check_refused, run_bounded  # noqa: E402

S = ly.Layout("NCHW", N=1, C=3, H=2, W=2)
S2 = ly.Layout("NHWC", N=1, C=3, H=2, W=2)
EMPTY = ly.Layout("NCHW", N=0, C=2, H=2, W=2)
EMPTY_C = ly.Layout("NHWC", N=1, C=0, H=2, W=2)


def _fig():
    return viz.draw_layout(S)


CASES = [
    # class 5: a spec string (or anything else) where a Layout is expected -> TypeError naming the argument
    ("draw_layout-str", lambda: viz.draw_layout("NCHW"), TypeError, ["layout", "Layout('NCHW'"]),
    ("ascii-str", lambda: viz.ascii("NCHW"), TypeError, ["layout", "str"]),
    ("draw_logical-str", lambda: viz.draw_logical("NCHW"), TypeError, "layout"),
    ("draw_layout-None", lambda: viz.draw_layout(None), TypeError, "NoneType"),
    ("draw_layout-array", lambda: viz.draw_layout(np.zeros((1, 3, 2, 2))), TypeError, "ndarray"),
    ("compare-str", lambda: viz.compare("NCHW"), TypeError, "layouts"),
    ("compare-one-layout", lambda: viz.compare(S), TypeError, "list"),
    ("compare-mixed", lambda: viz.compare([S, "NHWC"]), TypeError, "layouts[1]"),
    ("compare-empty", lambda: viz.compare([]), LayoutError, "at least one"),
    ("conversion-src-str", lambda: viz.draw_conversion("NCHW", S2), TypeError, "src"),
    ("conversion-dst-str", lambda: viz.draw_conversion(S, "NHWC"), TypeError, "dst"),
    ("ax-not-axes", lambda: viz.draw_layout(S, ax="axes"), TypeError, "ax"),
    # class 7: degenerate geometry, refused alike everywhere
    ("draw_layout-N0", lambda: viz.draw_layout(EMPTY), LayoutError, ["no elements", "N=0"]),
    ("draw_layout-C0", lambda: viz.draw_layout(EMPTY_C), LayoutError, ["no elements", "C=0"]),
    ("draw_logical-N0", lambda: viz.draw_logical(EMPTY), LayoutError, "no elements"),
    ("compare-N0", lambda: viz.compare([EMPTY]), LayoutError, ["layouts[0]", "no elements"]),
    ("conversion-N0", lambda: viz.draw_conversion(EMPTY, ly.Layout("NHWC", N=0, C=2, H=2, W=2)), LayoutError, "no elements"),
    ("article-N0", lambda: viz.draw_article_figure(N=0), LayoutError, "N"),
    ("article-N-float", lambda: viz.draw_article_figure(N=2.5), TypeError, "N"),
    ("ascii-wrap-neg", lambda: viz.ascii(S, wrap=-5), LayoutError, "wrap"),
    ("ascii-wrap-0", lambda: viz.ascii(S, wrap=0), LayoutError, "wrap"),
    ("draw-wrap-neg", lambda: viz.draw_layout(S, wrap=-1), LayoutError, "wrap"),
    ("draw-wrap-0", lambda: viz.draw_layout(S, wrap=0), LayoutError, "wrap"),
    ("draw-wrap-float", lambda: viz.draw_layout(S, wrap=2.5), TypeError, "wrap"),
    ("draw-wrap-str", lambda: viz.draw_layout(S, wrap="4"), TypeError, "wrap"),
    ("ascii-wrap-bool", lambda: viz.ascii(S, wrap=True), TypeError, "wrap"),
    ("compare-wrap-neg", lambda: viz.compare([S, S2], wrap=[4, -1]), LayoutError, "wrap[1]"),
    ("compare-wrap-count", lambda: viz.compare([S, S2], wrap=[4]), LayoutError, "wrap"),
    ("conversion-wrap-count", lambda: viz.draw_conversion(S, S2, wrap=[4]), LayoutError, "wrap"),
    ("conversion-wrap-0", lambda: viz.draw_conversion(S, S2, wrap=0), LayoutError, "wrap"),
    ("cell-0", lambda: viz.draw_layout(S, cell=0), LayoutError, "cell"),
    ("cell-neg", lambda: viz.draw_layout(S, cell=-1), LayoutError, "cell"),
    ("cell-nan", lambda: viz.draw_layout(S, cell=float("nan")), LayoutError, "cell"),
    ("cell-inf", lambda: viz.compare([S], cell=math.inf), LayoutError, "cell"),
    ("cell-huge", lambda: viz.draw_logical(S, cell=1e6), LayoutError, "cell"),
    ("cell-str", lambda: viz.draw_conversion(S, S2, cell="big"), TypeError, "cell"),
    ("ascii-width-neg", lambda: viz.ascii(S, width=-5), LayoutError, "width"),
    ("ascii-width-str", lambda: viz.ascii(S, width="80"), TypeError, "width"),
    ("per_row-0", lambda: viz.draw_logical(S, per_row=0), LayoutError, "per_row"),
    ("columns-0", lambda: viz.compare([S, S2], columns=0), LayoutError, "columns"),
    ("columns-str", lambda: viz.compare([S, S2], columns="2"), TypeError, "columns"),
    # class 5, big ints: described by their size, never Python's "Exceeds the limit (4300 digits)"
    ("ascii-wrap-5000-digits-neg", lambda: viz.ascii(S, wrap=-10**5000), LayoutError, ["wrap", "about 5001 digits"]),
    ("ascii-wrap-list-5000-digits", lambda: viz.ascii(S, wrap=[10**5000]), TypeError, ["wrap", "list", "about 5001 digits"]),
    ("draw-wrap-5000-digits-neg", lambda: viz.draw_layout(S, wrap=-10**5000), LayoutError, ["wrap", "about 5001 digits"]),
    ("compare-wrap-5000-digits", lambda: viz.compare([S, S2], wrap=[4, -10**5000]), LayoutError, ["wrap[1]", "digits"]),
    ("conversion-wrap-list-5000-digits", lambda: viz.draw_conversion(S, S2, wrap=[[10**5000], 4]), TypeError, ["wrap[0]", "digits"]),
    ("ascii-width-5000-digits-neg", lambda: viz.ascii(S, width=-10**5000), LayoutError, ["width", "digits"]),
    ("per_row-5000-digits-neg", lambda: viz.draw_logical(S, per_row=-10**5000), LayoutError, ["per_row", "digits"]),
    ("columns-5000-digits-neg", lambda: viz.compare([S, S2], columns=-10**5000), LayoutError, ["columns", "digits"]),
    ("title-list-5000-digits", lambda: viz.draw_layout(S, title=[10**5000]), TypeError, ["title", "digits"]),
    ("article-N-5000-digits-neg", lambda: viz.draw_article_figure(N=-10**5000), LayoutError, ["N", "digits"]),
    ("draw-wrap-5000-digits", lambda: viz.draw_layout(S, wrap=10**5000), LayoutError, ["wrap", "about 5001 digits", "at most 2**63 - 1"]),
    ("explore-coord-5000-digits", lambda: ExplorerModel("NCHW", dict(N=1, C=2, H=2, W=2)).set_element(n=10**5000), LayoutError, ["n", "digits"]),
    ("cell-5000-digits", lambda: viz.draw_layout(S, cell=10**5000), LayoutError, ["cell", "about 5001 digits"]),
    ("cell-5000-digits-neg", lambda: viz.compare([S], cell=-10**5000), LayoutError, ["cell", "digits"]),
    ("to_png-dpi-5000-digits", lambda: viz.to_png(_fig(), dpi=10**5000), LayoutError, ["dpi", "about 5001 digits"]),
    ("explore-coord-5000-digits-neg", lambda: ExplorerModel("NCHW", dict(N=1, C=2, H=2, W=2)).set_element(n=-10**5000), LayoutError, "digits"),
    # other arguments
    ("label-bad", lambda: viz.draw_layout(S, label="value"), LayoutError, "label"),
    ("label-list", lambda: viz.ascii(S, label=["logical"]), LayoutError, "label"),
    ("color_by-axis", lambda: viz.draw_layout(S, color_by="d"), LayoutError, "no axis D"),
    ("color_by-int", lambda: viz.draw_layout(S, color_by=3), TypeError, "color_by"),
    ("marker-int", lambda: viz.draw_layout(S, marker=3), TypeError, "marker"),
    ("title-int", lambda: viz.draw_layout(S, title=3), TypeError, "title"),
    ("titles-count", lambda: viz.compare([S, S2], titles=["x"]), LayoutError, "titles"),
    ("markers-int", lambda: viz.compare([S, S2], markers=5), TypeError, "markers"),
    ("compare-dims-differ", lambda: viz.compare([S, ly.Layout("NHWC", N=2, C=3, H=2, W=2)]), LayoutError, "logical=False"),
    ("conversion-dims-differ", lambda: viz.draw_conversion(S, ly.Layout("NHWC", N=2, C=3, H=2, W=2)), LayoutError, "keeps the tensor"),
    ("elements-int", lambda: viz.draw_conversion(S, S2, elements=5), TypeError, "elements"),
    ("elements-str", lambda: viz.draw_conversion(S, S2, elements="0,1"), TypeError, "elements"),
    ("elements-range", lambda: viz.draw_conversion(S, S2, elements=[12]), LayoutError, "0 <= element < 12"),
    ("elements-neg", lambda: viz.draw_conversion(S, S2, elements=[-1]), LayoutError, "element -1"),
    ("elements-float", lambda: viz.draw_conversion(S, S2, elements=[1.5]), TypeError, "elements[0]"),
    ("elements-bool", lambda: viz.draw_conversion(S, S2, elements=[True]), TypeError, "elements[0]"),
    ("elements-dict-missing", lambda: viz.draw_conversion(S, S2, elements=[{"n": 0, "c": 1}]), LayoutError, ["lacks", "h"]),
    ("elements-dict-range", lambda: viz.draw_conversion(S, S2, elements=[{"n": 0, "c": 3, "h": 0, "w": 0}]), LayoutError, "c"),
    ("elements-dict-float", lambda: viz.draw_conversion(S, S2, elements=[{"n": 0, "c": 1.0, "h": 0, "w": 0}]), TypeError, "c"),
    ("elements-too-many", lambda: viz.draw_conversion(S, S2, elements=list(range(12)) * 6), LayoutError, "64"),
    ("logical-with-ax", lambda: viz.draw_layout(S, ax=_fig().axes[0], logical=True), LayoutError, "draw_logical"),
    # output
    ("to_png-not-figure", lambda: viz.to_png("fig"), TypeError, "Figure"),
    ("to_png-dpi-0", lambda: viz.to_png(_fig(), dpi=0), LayoutError, "dpi"),
    ("to_png-dpi-nan", lambda: viz.to_png(_fig(), dpi=float("nan")), LayoutError, "dpi"),
    ("to_png-dpi-huge", lambda: viz.to_png(_fig(), dpi=100_000), LayoutError, ["dpi", "pixels"]),
    ("to_png-dpi-str", lambda: viz.to_png(_fig(), dpi="100"), TypeError, "dpi"),
    ("to_svg-not-figure", lambda: viz.to_svg(None), TypeError, "Figure"),
    ("save-not-figure", lambda: viz.save(S, "x.png"), TypeError, "Figure"),
    ("save-path-int", lambda: viz.save(_fig(), 3), TypeError, "path"),
    ("gallery-formats", lambda: viz.write_gallery("/tmp/never-written", formats=("gif",)), LayoutError, "formats"),
    ("gallery-dir-int", lambda: viz.write_gallery(5), TypeError, "directory"),
    # the explorer's model
    ("explore-specs-int", lambda: ExplorerModel(5, dict(N=1, C=2, H=2, W=2)), TypeError, "specs"),
    ("explore-specs-empty", lambda: ExplorerModel("", dict(N=1, C=2, H=2, W=2)), LayoutError, "specs"),
    ("explore-dims-list", lambda: ExplorerModel("NCHW", [1, 2, 2, 2]), TypeError, "dims"),
    ("explore-N0", lambda: ExplorerModel("NCHW", dict(N=0, C=2, H=2, W=2)), LayoutError, "no elements"),
    ("explore-too-big", lambda: ExplorerModel("NCHW", dict(N=64, C=64, H=64, W=64)), LayoutError, "at most"),
]


@pytest.mark.parametrize("call, exc, word", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_refused(call, exc, word):
    check_refused(call, exc, word)


def test_at_least_forty_cases():
    assert len(CASES) + len(BOUNDED) >= 40


def test_refusals_leave_layouts_and_module_state_untouched():
    before = (repr(S), S.strides, viz.MAX_CELLS)
    for _, call, exc, word in CASES[:20]:
        check_refused(call, exc, word)
    assert (repr(S), S.strides, viz.MAX_CELLS) == before


# ---------------------------------------------------------------- giant layouts: bounded child processes
BOUNDED = {
    # class 2: 16.7 million slots; before the fix draw_conversion built its arrays first (6-10 s, 1.5 GB)
    "conversion-4096x4096": "viz.draw_conversion(ly.Layout('NC', N=4096, C=4096), ly.Layout('CN', N=4096, C=4096))",
    # 2**60 slots: died inside numpy
    "conversion-2**60": "viz.draw_conversion(ly.Layout('NC', N=2**30, C=2**30), ly.Layout('CN', N=2**30, C=2**30))",
    "draw_layout-2**60": "viz.draw_layout(ly.Layout('NC', N=2**30, C=2**30))",
    "ascii-2**60": "viz.ascii(ly.Layout('NC', N=2**30, C=2**30))",
    "compare-2**60": "viz.compare([ly.Layout('NC', N=2**30, C=2**30), ly.Layout('CN', N=2**30, C=2**30)])",
    "draw_logical-2**60": "viz.draw_logical(ly.Layout('NC', N=2**30, C=2**30))",
    "article-huge": "viz.draw_article_figure(N=10**6)",
    "explore-huge": "ExplorerModel(['NC', 'CN'], dict(N=2**30, C=2**30))",
    "rich-2**60": "assert set(ly.Layout('NC', N=2**30, C=2**30)._repr_mimebundle_()) == {'text/plain'}; raise ly.LayoutError('MAX_CELLS ok')",
}


@pytest.mark.parametrize("name", list(BOUNDED))
def test_giant_layouts_are_refused_in_bounded_time_and_memory(name):
    out = run_bounded(f"""
        import layouts as ly
        from layouts import viz
        from layouts.viz.explorer import ExplorerModel
        try:
            {BOUNDED[name]}
        except ly.LayoutError as err:
            print("refused:", err)
        else:
            raise SystemExit("drawn")
    """, timeout=60, memory_mb=1024)
    assert out.stdout.startswith("refused:")
    assert "MAX_CELLS" in out.stdout or "at most" in out.stdout


# ---------------------------------------------------------------- fuzz
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SPECS = ["NCHW", "NHWC", "CHWN", "nChw8c", "NC1HWC0", "NC", "OIHW"]
junk = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=True, allow_infinity=True),
                 st.text(max_size=6), st.lists(st.integers(-3, 3), max_size=3), st.just({}), st.just(object()))


@st.composite
def layouts_(draw):
    spec = draw(st.sampled_from(SPECS))
    small = st.integers(1, 4)
    # mostly small, sometimes empty, sometimes far past MAX_CELLS
    size = st.one_of(small, small, small, small, st.just(0), st.integers(2**20, 2**31))
    if spec == "OIHW":
        dims = dict(O=draw(size), I=draw(small), H=draw(small), W=draw(small))
    elif spec == "NC":
        dims = dict(N=draw(size), C=draw(size))
    else:
        dims = dict(N=draw(small), C=draw(size), H=draw(small), W=draw(small))
        if spec == "NC1HWC0":
            dims["C0"] = draw(st.integers(1, 4))
    try:
        return ly.Layout(spec, **dims)
    except LayoutError:
        return ly.Layout("NCHW", N=1, C=2, H=1, W=2)


# about half of the arguments are sensible, so the fuzz reaches the drawing code too
arg = st.one_of(st.none(), st.none(), st.none(), st.integers(1, 12), st.floats(0.05, 0.4), junk, st.integers(-3, 40))
FORBIDDEN = (ZeroDivisionError, AttributeError, OverflowError, IndexError, KeyError, MemoryError, RecursionError)


def _call(entry, layout, other, a, b, c):
    if entry == "draw_layout":
        return viz.draw_layout(layout, wrap=a, cell=b, label=c if isinstance(c, str) else "logical")
    if entry == "ascii":
        return viz.ascii(layout, wrap=a, width=b if isinstance(b, int) else 100, label=c if isinstance(c, str) else "logical")
    if entry == "draw_logical":
        return viz.draw_logical(layout, per_row=a, cell=b, color_by=c)
    if entry == "compare":
        return viz.compare([layout, other], wrap=a, columns=b, logical=False, color_by=c)
    if entry == "draw_conversion":
        return viz.draw_conversion(layout, other, elements=a if isinstance(a, (list, type(None))) else [a], wrap=b, color_by=c)
    if entry == "raw":  # the entries with a junk first argument
        return viz.draw_layout(a, wrap=b)
    raise AssertionError(entry)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entry=st.sampled_from(["draw_layout", "ascii", "draw_logical", "compare", "draw_conversion", "raw"]),
       layout=layouts_(), other=layouts_(), a=arg, b=arg, c=st.one_of(st.just("auto"), st.just("auto"), junk, st.sampled_from(["c", "C", "w", "x", "logical"])))
def test_fuzz_only_clear_errors(entry, layout, other, a, b, c):
    from hypothesis import event
    try:
        _call(entry, layout, other, a, b, c)
        event(f"{entry}: drawn")
    except (LayoutError, TypeError, ValueError) as err:
        event(f"{entry}: {type(err).__name__}")
        assert not isinstance(err, FORBIDDEN)
        assert type(err).__module__.split(".")[0] in ("layouts", "builtins"), type(err)
        assert str(err)
    except FORBIDDEN as err:  # pragma: no cover - the failure this test exists to catch
        raise AssertionError(f"{entry} leaked {type(err).__name__}: {err}") from err


@st.composite
def small_layouts(draw):
    spec = draw(st.sampled_from(["NCHW", "NHWC", "CHWN", "nChw8c", "NC1HWC0", "nChw4c"]))
    dims = dict(N=draw(st.integers(1, 2)), C=draw(st.integers(1, 10)), H=draw(st.integers(1, 3)), W=draw(st.integers(1, 3)))
    if spec == "NC1HWC0":
        dims["C0"] = draw(st.integers(1, 4))
    align = draw(st.sampled_from([None, {"H": 8}, {"W": 4}])) if spec in ("NHWC", "NCHW") else None
    return ly.Layout(spec, align=align, **dims)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layout=small_layouts(), wrap=st.one_of(st.none(), st.integers(1, 50)),
       label=st.sampled_from(["logical", "offset", "coords", "none"]), color_by=st.sampled_from(["auto", None, "n", "h", "w"]))
def test_fuzz_sensible_arguments_always_draw(layout, wrap, label, color_by):
    fig = viz.draw_layout(layout, wrap=wrap, label=label, color_by=color_by)
    assert fig.get_size_inches()[0] > 0
    text = viz.ascii(layout, wrap=wrap, label="logical")
    rows = [line.split(":", 1)[1].replace("|", " ").split() for line in text.splitlines()[1:-1]]
    width = len(str(max(layout.count - 1, 0)))
    assert [t for r in rows for t in r] == ["-" * width if v < 0 else f"{v:0{width}d}" for v in layout.physical_order().tolist()]


@pytest.mark.parametrize("call, exc, word", [
    (lambda S, S2: viz.draw_layout(S, color_by=10**5000), TypeError, "5001 digits"),
    (lambda S, S2: viz.draw_conversion(S, S2, elements=[10**5000]), LayoutError, "5001 digits"),
    (lambda S, S2: viz.draw_conversion(S, S2, elements=[[10**5000]]), TypeError, "5001 digits"),
], ids=["color_by", "element", "element-in-list"])
def test_huge_ints_in_messages_are_described_not_printed(call, exc, word):
    """Python refuses to print an int of over 4300 digits: the message describes its size instead."""
    S = ly.Layout("NCHW", N=1, C=2, H=2, W=2)
    S2 = ly.Layout("NHWC", N=1, C=2, H=2, W=2)
    check_refused(lambda: call(S, S2), exc, word)
