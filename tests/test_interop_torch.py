"""PyTorch interop, against torch itself (skipped cleanly without torch)."""

import numpy as np
import pytest

from layouts.errors import LayoutError

torch = pytest.importorskip("torch")
from layouts.interop import torch as lt  # noqa: E402


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
    with pytest.raises(LayoutError, match="expected a torch.Tensor"):
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
