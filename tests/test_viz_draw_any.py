"""viz.draw: one call for the three kinds of layout, each drawn as its own function draws it."""

import numpy as np
import pytest

import layouts as ly
from layouts import cute, viz
from layouts.linear import LinearLayout
from layouts.linear import triton as tt

SWIZZLED = cute.composition(cute.Swizzle(3, 0, 3), cute.Layout((8, 8), (8, 1)))
MMA = tt.to_linear_layout(tt.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[1, 1], instr_shape=[16, 8]), [16, 8])
SHARED = tt.to_linear_layout(tt.SwizzledSharedLayout(1, 1, 8, [1, 0]), [8, 8])

CASES = [
    ("framework", ly.Layout("NCHW16c", N=1, C=20, H=2, W=2), viz.draw_layout, {}),
    ("framework, options", ly.Layout("NHWC", N=2, C=3, H=2, W=2), viz.draw_layout, {"label": "offset"}),
    ("cute", cute.Layout((4, 8), (8, 1)), viz.draw_cute, {}),
    ("cute swizzled", SWIZZLED, viz.draw_cute, {"elem_bytes": 16}),
    ("cute with a swizzle", cute.Layout((8, 8), (8, 1)), viz.draw_cute, {"swizzle": cute.Swizzle(3, 0, 3)}),
    ("linear distributed", MMA, viz.draw_linear, {}),
    ("linear shared", SHARED, viz.draw_linear, {"elem_bytes": 16}),
]


@pytest.mark.parametrize("name,layout,drawer,options", CASES, ids=[c[0] for c in CASES])
def test_draw_is_the_picture_of_the_kind(name, layout, drawer, options):
    got = viz.to_png(viz.draw(layout, **options), dpi=40)
    want = viz.to_png(drawer(layout, **options), dpi=40)
    assert got == want


def test_draw_refuses_what_is_no_layout():
    for bad in (None, "NCHW", np.arange(4), 3, ("a", "b"), cute.Swizzle(3, 0, 3)):
        with pytest.raises(ly.LayoutTypeError, match="draw: layout must be a layout") as e:
            viz.draw(bad)
    assert "ly.Layout('NCHW', N=" not in str(e.value)
    with pytest.raises(ly.LayoutTypeError, match=r"a spec needs its sizes: viz.draw\(ly.Layout\('NCHW'"):
        viz.draw("NCHW")


def test_an_option_of_another_kind_is_refused_by_the_kinds_own_function():
    with pytest.raises(TypeError, match="elem_bytes"):
        viz.draw(ly.Layout("NCHW", N=1, C=2, H=2, W=2), elem_bytes=4)


def test_a_linear_layout_and_its_cute_twin_are_both_drawn():
    twin = LinearLayout.from_bases({"offset": [[0, 1], [1, 0]]}, ["dim0", "dim1"])
    assert viz.draw(twin).axes and viz.draw(cute.Layout((2, 2), (2, 1))).axes
