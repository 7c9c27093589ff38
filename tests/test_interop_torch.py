"""PyTorch interop, against torch itself (skipped cleanly without torch)."""

import numpy as np
import pytest

from layouts.errors import LayoutError

torch = pytest.importorskip("torch")
from layouts.interop import pytorch as lt  # noqa: E402


def _torch_says(t):
    fmts = {"contiguous_format": torch.contiguous_format, "channels_last": torch.channels_last,
            "channels_last_3d": torch.channels_last_3d}
    out = []
    for name, f in fmts.items():
        try:
            if t.is_contiguous(memory_format=f):
                out.append(name)
        except RuntimeError:  # channels_last on a 5-D tensor and the like
            pass
    return out


SHAPES4 = [(2, 3, 4, 5), (1, 3, 4, 5), (2, 1, 4, 5), (2, 3, 1, 1), (1, 1, 1, 1), (2, 3, 1, 5)]


@pytest.mark.parametrize("shape", SHAPES4)
@pytest.mark.parametrize("fmt", ["contiguous_format", "channels_last"])
def test_memory_formats_agree_with_torch_is_contiguous(shape, fmt):
    t = torch.zeros(shape).to(memory_format=getattr(torch, fmt))
    assert lt.memory_formats(t) == _torch_says(t)
    assert fmt in lt.memory_formats(t)


@pytest.mark.parametrize("shape", [(2, 3, 4, 5, 6), (1, 1, 2, 1, 3), (2, 3, 1, 1, 1)])
@pytest.mark.parametrize("fmt", ["contiguous_format", "channels_last_3d"])
def test_3d_formats_agree_with_torch(shape, fmt):
    t = torch.zeros(shape).to(memory_format=getattr(torch, fmt))
    assert lt.memory_formats(t) == _torch_says(t)


def test_ambiguity_is_reported_not_guessed():
    t = torch.zeros(2, 3, 1, 1)
    assert lt.memory_formats(t) == ["contiguous_format", "channels_last"]
    with pytest.raises(LayoutError, match="ambiguous"):
        lt.layout_of_tensor(t)
    assert lt.layout_of_tensor(t, prefer="NHWC").spec == "NHWC"
    odd = torch.zeros(3, 4, 5, 2).permute(3, 0, 1, 2)  # CHWN memory, logical NCHW
    assert lt.memory_formats(odd) == [] and _torch_says(odd) == []
    assert lt.layout_of_tensor(odd).spec == "CHWN"


def test_to_numpy_is_zero_copy_and_physical():
    t = torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).reshape(2, 3, 4, 5)
    cl = t.to(memory_format=torch.channels_last)
    a, L = lt.to_numpy(cl)
    assert L.spec == "NHWC" and a.shape == (2, 4, 5, 3) and a.flags.c_contiguous
    assert a.__array_interface__["data"][0] == cl.data_ptr()
    np.testing.assert_array_equal(a, t.numpy().transpose(0, 2, 3, 1))


def test_from_numpy_makes_channels_last_without_copy():
    a = np.arange(2 * 4 * 5 * 3, dtype=np.float32).reshape(2, 4, 5, 3)
    t = lt.from_numpy(a, "NHWC")
    assert t.shape == (2, 3, 4, 5) and t.is_contiguous(memory_format=torch.channels_last)
    assert t.data_ptr() == a.__array_interface__["data"][0]
    np.testing.assert_array_equal(t.numpy(), a.transpose(0, 3, 1, 2))
    with pytest.raises(LayoutError, match="plain order"):
        lt.from_numpy(a, "NCHW16c")


@pytest.mark.parametrize("dtype", [torch.float32, torch.uint8, torch.float16, torch.int64])
def test_convert_tensor_equals_torch_memory_format(dtype):
    t = (torch.arange(2 * 3 * 4 * 5) % 251).to(dtype).reshape(2, 3, 4, 5)
    cl = lt.convert_tensor(t, "NHWC")
    want = t.contiguous(memory_format=torch.channels_last)
    assert cl.stride() == want.stride() and torch.equal(cl, want)
    back = lt.convert_tensor(cl, "NCHW")
    assert back.is_contiguous() and torch.equal(back, t)
    chwn = lt.convert_tensor(t, "CHWN")
    assert torch.equal(chwn, t) and chwn.stride() == (1, 4 * 5 * 2, 5 * 2, 2)


def test_convert_tensor_to_blocked_gives_the_physical_tensor():
    t = torch.randn(1, 20, 3, 3)
    b = lt.convert_tensor(t, "NCHW16c")
    assert tuple(b.shape) == (1, 2, 3, 3, 16)
    ref = torch.nn.functional.pad(t, (0, 0, 0, 0, 0, 12)).reshape(1, 2, 16, 3, 3)
    assert torch.equal(b, ref.permute(0, 1, 3, 4, 2))


def test_input_tensor_not_mutated_and_bad_input():
    t = torch.randn(2, 3, 4, 5)
    before = t.clone()
    lt.convert_tensor(t, "NHWC")
    assert torch.equal(t, before)
    with pytest.raises(TypeError, match="t must be a torch.Tensor, got ndarray"):
        lt.to_numpy(np.zeros((1, 2, 3, 4)))
    with pytest.raises(LayoutError, match="pass axes="):
        lt.memory_formats(torch.zeros(3, 4))


def test_spec_case_does_not_change_the_result():
    t = torch.randn(2, 3, 4, 5)
    a, b = lt.convert_tensor(t, "NHWC"), lt.convert_tensor(t, "nhwc")
    assert a.shape == b.shape == t.shape and a.stride() == b.stride()
    assert torch.equal(a, t) and torch.equal(b, t)


def test_from_numpy_takes_negative_strides():
    a = np.arange(24.0).reshape(1, 2, 3, 4)[:, :, ::-1]
    t = lt.from_numpy(a, "NCHW")
    assert np.array_equal(t.numpy(), a)


# --- what numpy cannot hold: dtypes, autograd, meta ------------------------------------------------
def _bits(t):
    return t.view({1: torch.uint8, 2: torch.int16, 4: torch.int32}[t.element_size()])


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2])
def test_dtypes_numpy_lacks_move_as_raw_bits(dtype):
    t = torch.randn(2, 3, 4, 5).to(dtype)
    cl = lt.convert_tensor(t, "NHWC")
    want = t.contiguous(memory_format=torch.channels_last)
    assert cl.dtype == dtype and cl.stride() == want.stride()
    assert torch.equal(_bits(cl), _bits(want))                          # bit for bit
    back = lt.convert_tensor(cl, "NCHW")
    assert back.dtype == dtype and back.is_contiguous()
    assert torch.equal(_bits(back), _bits(t))
    with pytest.raises(LayoutError, match="has no numpy dtype"):
        lt.to_numpy(t)


def test_bfloat16_blocked_round_trip_with_the_same_keywords():
    t = torch.randn(2, 20, 3, 3).to(torch.bfloat16)
    b = lt.convert_tensor(t, "NCHW16c")
    ref = torch.nn.functional.pad(t, (0, 0, 0, 0, 0, 12)).reshape(2, 2, 16, 3, 3).permute(0, 1, 3, 4, 2)
    assert b.dtype == torch.bfloat16 and tuple(b.shape) == (2, 2, 3, 3, 16)
    assert torch.equal(b.view(torch.int16), ref.contiguous().view(torch.int16))
    back = lt.convert_tensor(b, "NCHW", src="NCHW16c", C=20)
    assert back.shape == t.shape and torch.equal(back.view(torch.int16), t.view(torch.int16))
    nhwc = lt.convert_tensor(b, "NHWC", src="NCHW16c", C=20)          # blocked -> channels_last
    assert nhwc.shape == t.shape and nhwc.is_contiguous(memory_format=torch.channels_last)
    assert torch.equal(nhwc.view(torch.int16), t.view(torch.int16))


def test_from_numpy_reads_bits_as_a_torch_dtype():
    t = torch.randn(1, 3, 2, 2).to(torch.bfloat16)
    bits = t.view(torch.int16).numpy().transpose(0, 2, 3, 1).copy()    # NHWC int16 bits
    back = lt.from_numpy(bits, "NHWC", dtype=torch.bfloat16)
    assert back.dtype == torch.bfloat16 and torch.equal(back, t)
    with pytest.raises(LayoutError, match="2-byte items"):
        lt.from_numpy(bits.astype(np.int32), "NHWC", dtype=torch.bfloat16)
    with pytest.raises(TypeError, match="torch.dtype"):
        lt.from_numpy(bits, "NHWC", dtype="bfloat16")


def test_requires_grad_is_refused_with_the_rule():
    t = torch.randn(2, 3, 4, 5, requires_grad=True)
    for call in (lambda: lt.convert_tensor(t, "NHWC"), lambda: lt.to_numpy(t)):
        with pytest.raises(LayoutError, match=r"requires grad.*t\.detach\(\)"):
            call()
    out = lt.convert_tensor(t.detach(), "NHWC")
    assert not out.requires_grad and torch.equal(out, t.detach())
    assert lt.memory_formats(t) == ["contiguous_format"]                # strides only: fine


@pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor:UserWarning")  # torch's deprecation
def test_interop_and_convert_share_one_bridge():
    """to_numpy / convert_tensor read tensors through layouts.convert's own bridge (one set of
    checks, one dtype table): the same tensor is refused with the same reason by all three."""
    import layouts as ly

    t = torch.arange(120.0).reshape(2, 3, 4, 5)
    bad = [t.clone().requires_grad_(), t.to_sparse(),
           torch.quantize_per_tensor(t, 0.5, 0, torch.quint8)]
    for b in bad:
        said = set()
        for call in (lambda: lt.to_numpy(b), lambda: lt.convert_tensor(b, "NHWC"),
                     lambda: ly.convert(b, "NCHW", "NHWC")):
            with pytest.raises(LayoutError) as err:
                call()
            said.add(str(err.value).split(": ", 1)[1] if str(err.value).startswith("convert(") else str(err.value))
        assert len({m.replace("x ", "t ", 1).replace("x.", "t.") for m in said}) == 1, said
    c = (t + 1j * t).to(torch.complex64).conj()                 # conj views: resolved by both, same values
    a, _ = lt.to_numpy(c)
    assert np.array_equal(a, c.resolve_conj().numpy())
    assert torch.equal(lt.convert_tensor(c, "NHWC"), ly.convert(c, "NCHW", "NCHW"))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_a_tensor_on_another_device_one_rule():
    """One rule for convert and the interop: read through a host copy, the result back on the
    device; as out= or with copy=False (both would need the tensor's own memory) refused."""
    import layouts as ly

    g = torch.arange(120.0).reshape(2, 3, 4, 5).cuda()
    y = ly.convert(g, "NCHW", "NHWC")
    assert y.device == g.device and torch.equal(y.cpu(), g.cpu().permute(0, 2, 3, 1))
    z = lt.convert_tensor(g, "NHWC")
    assert z.device == g.device and torch.equal(z.cpu(), g.cpu())
    with pytest.raises(LayoutError, match="copy=False"):
        ly.convert(g, "NCHW", "NCHW", copy=False)
    out = torch.zeros(2, 4, 5, 3, device=g.device)
    with pytest.raises(LayoutError, match="out is on cuda"):
        ly.convert(g.cpu(), "NCHW", "NHWC", out=out)
    assert not out.any()


def test_meta_tensors_have_strides_but_no_data():
    m = torch.empty(2, 3, 4, 5, device="meta").to(memory_format=torch.channels_last)
    assert lt.memory_formats(m) == ["channels_last"] and lt.layout_of_tensor(m).spec == "NHWC"
    for call in (lambda: lt.convert_tensor(m, "NCHW"), lambda: lt.to_numpy(m)):
        with pytest.raises(LayoutError, match="meta tensor"):
            call()


def test_sparse_and_wrong_kinds_are_refused():
    with pytest.raises(LayoutError, match="strided"):
        lt.convert_tensor(torch.zeros(2, 3, 4, 5).to_sparse(), "NHWC")
    with pytest.raises(TypeError, match="dst must be"):
        lt.convert_tensor(torch.zeros(2, 3, 4, 5), 3)
    with pytest.raises(TypeError, match="axes must be a str"):
        lt.layout_of_tensor(torch.zeros(2, 3, 4, 5), axes=4)
    with pytest.raises(LayoutError, match="axes='NCH'"):
        lt.layout_of_tensor(torch.zeros(2, 3, 4, 5), axes="NCH")


def test_the_interop_module_does_not_shadow_torch():
    ns = {}
    exec("import torch\nfrom layouts.interop import pytorch", ns)
    assert ns["torch"] is torch                                         # the README's example
