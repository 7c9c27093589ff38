"""The kinds protocol (layouts.kinds): the same laws on every kind of layout, and the seams between
kinds, where a layout of one kind meets the entries written for another.

Each case is a layout of one kind; each law is checked on every case. The oracle of each kind is
the kind's own function on coordinates: a framework layout's ``offset(n=.., c=..)``, a CuTe
layout's ``L(coordinate)``, a linear layout's ``L(**coordinates)`` (or, for Triton's orientation,
the coordinates ``L(offset=o)`` gives back), an offset table's table. A fourth kind, defined here,
plugs in through ``__layouts_kind__`` alone.
"""

import itertools

import numpy as np
import pytest

import layouts as ly
from layouts import cute, smem
from layouts.kinds import Domain, Kind, OffsetTable, Strided, kind_of, require_kind
from layouts.linear import LinearLayout

CASES = {
    # the framework kind: plain, blocked with and without padding, pitched rows
    "NCHW": ly.Layout("NCHW", N=2, C=3, H=4, W=5),
    "NHWC": ly.Layout("NHWC", N=2, C=3, H=4, W=5),
    "NCHW16c, C=32": ly.Layout("NCHW16c", N=1, C=32, H=2, W=3),
    "NCHW16c, C=20 (padding)": ly.Layout("NCHW16c", N=2, C=20, H=2, W=3),
    "NC1HWC0, C=3": ly.Layout("NC1HWC0", N=1, C=3, H=2, W=2, C0=16),
    "HWC pitched": ly.Layout("HWC", H=3, W=4, C=3, pitch={"H": 16}),
    # CuTe: plain, hierarchical, with a gap, broadcast, negative stride, swizzled
    "cute (4,8):(8,1)": cute.Layout((4, 8), (8, 1)),
    "cute (2,(2,2)):(4,(1,2))": cute.Layout((2, (2, 2)), (4, (1, 2))),
    "cute with a gap": cute.Layout((3, 4), (5, 1)),
    "cute broadcast": cute.Layout((4, 2), (1, 0)),
    "cute negative stride": cute.Layout((3, 2), (-1, 4)),
    "cute swizzled": cute.composition(cute.Swizzle(3, 3, 3), cute.Layout((8, 64), (64, 1))),
    "cute swizzled, offset": cute.ComposedLayout(cute.Swizzle(2, 0, 2), 3, cute.Layout((4, 4), (4, 1))),
    # linear: CuTe's orientation, Triton's (dims listed out of order), a swizzle, an XOR no swizzle says
    "linear, offset out-dim": LinearLayout.from_bases({"dim0": [[4], [8]], "dim1": [[1], [2]]}, ["offset"]),
    "linear, dims listed dim1 first": LinearLayout.from_bases({"offset": [[1, 0], [0, 1], [2, 0], [0, 2]]},
                                                              ["dim1", "dim0"]),
    "linear, Triton's 8x8 swizzle": LinearLayout.from_bases(
        {"offset": [[0, 1], [0, 2], [0, 4], [1, 1], [2, 2], [4, 4]]}, ["dim0", "dim1"]),
    "linear, general XOR": LinearLayout.from_bases(
        {"offset": [[1, 1], [0, 1], [2, 2], [0, 2]]}, ["dim0", "dim1"]),
    # an offset table
    "table 2x3": OffsetTable([5, 0, 3, 1, 4, 2], "a shuffled 2x3 tile", shape=(2, 3)),
}


def _own_offsets(layout, kind):
    """Every element's offset by the kind's own function on coordinates (the oracle)."""
    dom = kind.domain
    coords = [dom.coordinate(i) for i in range(dom.size)]
    if isinstance(layout, ly.Layout):
        return [layout.offset(**{a.lower(): c for a, c in zip(dom.names, co)}) for co in coords]
    if isinstance(layout, (cute.Layout, cute.ComposedLayout)):
        return [layout(co if len(co) > 1 else co[0]) for co in coords]
    if isinstance(layout, LinearLayout):
        if "offset" in layout.out_dim_names:
            return [layout(**dict(zip(dom.names, co)))["offset"] for co in coords]
        # Triton's orientation: offset -> coordinates; find each coordinate's offset by inverting
        where = {}
        for o in range(layout.in_dims["offset"]):
            got = layout(offset=o)
            where[tuple(got[n] for n in dom.names)] = o
        return [where[co] for co in coords]
    return list(layout.offsets())


@pytest.fixture(params=list(CASES), ids=list(CASES))
def case(request):
    layout = CASES[request.param]
    return layout, kind_of(layout)


def test_the_offsets_are_the_kinds_own(case):
    layout, kind = case
    offsets = kind.offsets()
    assert offsets.dtype == np.int64 and offsets.shape == (kind.size,)
    assert offsets.tolist() == [int(o) for o in _own_offsets(layout, kind)]


def test_sizes_extent_and_buffer(case):
    layout, kind = case
    dom = kind.domain
    assert isinstance(dom, Domain) and len(dom.names) == len(dom.sizes) == len(set(dom.names))
    offsets = kind.offsets()
    assert kind.size == int(np.prod(dom.sizes)) == offsets.size
    assert kind.extent == (int(offsets.max()) + 1 if offsets.size else 0)
    assert kind.buffer_size >= max(kind.extent, 0)
    assert kind.array(np.zeros(kind.buffer_size)).shape == kind.array_shape
    assert kind.injective == (np.unique(offsets).size == offsets.size)
    assert kind.compact == (kind.injective and kind.size == kind.extent and offsets.min() == 0)


def test_the_strided_and_swizzled_forms_give_the_same_offsets(case):
    layout, kind = case
    offsets = kind.offsets()
    form, swizzled = kind.strided(), kind.swizzled()
    assert form is None or swizzled is None
    if form is not None:
        assert isinstance(form, Strided) and form.offsets().tolist() == offsets.tolist()
        if offsets.min() >= 0:                       # a view of a buffer, as as_strided reads it
            buffer = np.arange(kind.extent, dtype=np.int64) * 7
            assert form.view(buffer).ravel(order="F").tolist() == buffer[offsets].tolist()
    if swizzled is not None:
        assert swizzled.offsets().tolist() == offsets.tolist()


def test_words_and_labels(case):
    layout, kind = case
    assert isinstance(kind.label, str) and kind.label
    assert isinstance(kind.words(), str) and kind.words()
    assert ly.resolve.__module__ and kind.name in ("framework", "cute", "linear", "table")


@pytest.mark.parametrize("name", [n for n in CASES if "negative" not in n and "broadcast" not in n])
def test_convert_moves_every_element_to_its_offset(name):
    """``convert(x, src, dst)`` against numpy's gather from the two layouts' own offsets, into a
    1-D buffer of the same size (or the other way), with strided, swizzled and gathered paths."""
    layout = CASES[name]
    kind = kind_of(layout)
    n = kind.size
    plain = cute.Layout(n)
    rng = np.random.default_rng(len(name))
    x = rng.integers(1, 1000, size=kind.buffer_size).astype(np.int32)
    own = np.array(_own_offsets(layout, kind), dtype=np.int64)
    y = ly.convert(x, layout, plain)
    assert y.shape == (n,) and y.tolist() == x[own].tolist()
    z = ly.convert(np.arange(1, n + 1, dtype=np.int32), plain, layout)
    flat = np.zeros(kind.buffer_size, np.int32)
    flat[own] = np.arange(1, n + 1)
    assert z.shape == kind.array_shape and np.array_equal(z, kind.array(flat))


def test_every_kind_shows_in_smem_viz_and_messages(case):
    layout, kind = case
    if kind.injective and kind.offsets().min() >= 0:
        mem = smem.memory_of(layout)
        assert mem.shape == (kind.domain.sizes or (1,)) and mem.offsets.tolist() == kind.offsets().tolist()
    from layouts.request import layout_name
    name = layout_name(layout)                      # a framework layout by its spec, long labels cut
    assert name in (kind.label, repr(getattr(layout, "spec", None))) or kind.label.startswith(name[:-3])


@pytest.mark.parametrize("name", ["NCHW16c, C=20 (padding)", "cute swizzled", "linear, general XOR", "table 2x3"])
def test_every_kind_has_a_picture(name):
    from matplotlib.figure import Figure
    from layouts import viz
    assert isinstance(kind_of(CASES[name]).picture(), Figure)
    assert isinstance(viz.draw(CASES[name]), Figure)
    assert "text/plain" in CASES[name]._repr_mimebundle_() if hasattr(CASES[name], "_repr_mimebundle_") else True


# ----------------------------------------------------------------------------- a fourth kind
class Diagonal:
    """A kind this package has never seen: an n x n tile stored anti-diagonal by anti-diagonal."""

    def __init__(self, n):
        self.n = n

    def __layouts_kind__(self):
        return DiagonalKind(self)


class DiagonalKind(Kind):
    name = "diagonal"

    @property
    def label(self):
        return f"diagonal({self.layout.n})"

    @property
    def domain(self):
        return Domain(("row", "col"), (self.layout.n, self.layout.n))

    def offsets(self):
        n = self.layout.n
        order = sorted(itertools.product(range(n), range(n)), key=lambda rc: (rc[0] + rc[1], rc[0]))
        slot = {rc: k for k, rc in enumerate(order)}
        return np.array([slot[(i % n, i // n)] for i in range(n * n)], dtype=np.int64)


def test_a_fourth_kind_plugs_in_with_its_adapter_alone():
    d = Diagonal(3)
    x = np.arange(9, dtype=np.float64)              # the tile column-major: element i = (i % 3, i // 3)
    y = ly.convert(x, cute.Layout((3, 3)), d)
    want = np.zeros(9)
    want[kind_of(d).offsets()] = x
    assert y.tolist() == want.tolist()
    assert y[:3].tolist() == [0.0, 3.0, 1.0]        # (0,0), then (0,1) = x[3], (1,0) = x[1]
    assert ly.convert(y, d, cute.Layout((3, 3))).tolist() == x.tolist()
    assert smem.memory_of(d).shape == (3, 3)
    from layouts import viz
    assert viz.draw(d).axes
    with pytest.raises(ly.LayoutError, match=r"convert\(diagonal\(3\) -> 4:1"):
        ly.convert(x, d, cute.Layout(4))


def test_require_kind_names_what_it_wants():
    with pytest.raises(ly.LayoutTypeError, match="src must be a layout .* a spec needs its sizes"):
        require_kind("NCHW", "src")


# ----------------------------------------------------------------------------- the seams
def test_a_blocked_layouts_padding_is_never_data_across_kinds():
    """NCHW16c with C=20 holds 32 slots per pixel; 12 are padding. Its 20 logical values move to
    a CuTe layout of 20 and back, the padding staying padding (zero) on the way back."""
    L = ly.Layout("NCHW16c", N=1, C=20, H=1, W=1)
    buf = np.arange(32, dtype=np.float32)
    buf[20:] = -1                                           # what a careless bridge would carry over
    got = ly.convert(buf.reshape(L.shape), L, cute.Layout(20))
    assert got.tolist() == list(range(20))                  # numpy: the first 20 slots, in channel order
    back = ly.convert(got, cute.Layout(20), L)
    assert back.shape == L.shape and back.reshape(-1).tolist() == list(range(20)) + [0] * 12
    # the same through smem: 20 elements, not 32
    assert smem.memory_of(L).size == 20


def test_one_linear_layout_has_one_element_order():
    L = LinearLayout.from_bases({"offset": [[1, 0], [0, 1], [2, 0], [0, 2]]}, ["dim1", "dim0"])
    # by hand: offset bit 0 is dim1's bit 0, bit 1 dim0's bit 0, bit 2 dim1's bit 1, bit 3 dim0's bit 1;
    # element i is (dim0, dim1) = (i % 4, i // 4)
    want = [2 * (d0 & 1) + 8 * (d0 >> 1) + (d1 & 1) + 4 * (d1 >> 1) for d1 in range(4) for d0 in range(4)]
    assert L.offsets().tolist() == want
    assert smem.memory_of(L).offsets.tolist() == want
    assert kind_of(L).offsets().tolist() == want


def test_convert_with_other_kinds_keeps_the_callers_array_kind_and_wording():
    torch = pytest.importorskip("torch")
    src, dst = cute.Layout((2, 3)), cute.Layout((2, 3), (3, 1))
    want = [0.0, 2.0, 4.0, 1.0, 3.0, 5.0]                     # numpy: arange(6).reshape(3, 2).T.ravel()
    assert np.arange(6.0).reshape(3, 2).T.ravel().tolist() == want
    t = torch.arange(6.0)
    y = ly.convert(t, src, dst)
    assert isinstance(y, torch.Tensor) and y.tolist() == want
    out = torch.empty(6)
    assert ly.convert(t, src, dst, out=out) is out and out.tolist() == want
    b = ly.convert(t.to(torch.bfloat16), src, dst)
    assert b.dtype == torch.bfloat16 and b.float().tolist() == want
    m = ly.convert(torch.empty(6, device="meta"), src, dst)     # off the host: converted on its device
    assert m.device.type == "meta" and tuple(m.shape) == (6,)
    with pytest.raises(ly.LayoutError, match=r"convert\(\(2,3\):\(1,2\) -> .*requires grad"):
        ly.convert(torch.arange(6.0, requires_grad=True), src, dst)
    with pytest.raises(ly.LayoutError, match=r"convert\(\(2,3\):\(1,2\) -> 7:1, input shape \(6,\)\): src .* has 6"):
        ly.convert(np.arange(6.0), src, cute.Layout(7))


def test_convert_with_other_kinds_of_a_dask_array_is_lazy():
    da = pytest.importorskip("dask.array")
    L = ly.Layout("NCHW16c", N=1, C=20, H=1, W=1)
    x = np.arange(20.0)
    computed = []

    def noted(block):
        if block.size > 1:                          # dask probes the function on 0- and 1-element arrays
            computed.append(block.shape)
        return block
    d = da.from_array(x, chunks=7).map_blocks(noted)
    y = ly.convert(d, cute.Layout(20), L)
    assert isinstance(y, da.Array) and y.shape == L.shape and not computed    # nothing ran yet
    assert y.compute().reshape(-1).tolist() == list(range(20)) + [0] * 12


def test_convert_inplace_between_cute_layouts():
    x = np.arange(24.0)
    src, dst = cute.Layout((2, 3, 4)), cute.Layout((2, 3, 4), (12, 4, 1))
    want = np.arange(24.0).reshape(4, 3, 2).transpose(2, 1, 0).ravel()   # numpy: column-major to row-major
    y = ly.convert_inplace(x, src, dst)
    assert np.shares_memory(y, x) and y.tolist() == want.tolist()
    with pytest.raises(ly.LayoutError, match=r"convert_inplace\(\(2,3\):\(1,2\) -> \(2,3\):\(4,1\), x shape \(6,\)\): "
                                             r"in place, both layouts must be strided and fill the same buffer"):
        ly.convert_inplace(np.arange(6.0), cute.Layout((2, 3)), cute.Layout((2, 3), (4, 1)))
    before = np.arange(6.0)
    with pytest.raises(ly.LayoutError):
        ly.convert_inplace(before, cute.Layout((2, 3)), cute.composition(cute.Swizzle(1, 0, 1), cute.Layout((2, 3))))
    assert before.tolist() == list(range(6))                   # refused before any byte moved
