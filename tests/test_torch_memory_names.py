"""A torch tensor's ``src`` may name its shape's axes or its memory order (issue 39): against torch's
own ``.contiguous()`` and numpy, never a silent wrong tensor (skipped cleanly without torch)."""

import warnings

import numpy as np
import pytest

import layouts as ly
from layouts.errors import LayoutWarning

torch = pytest.importorskip("torch")
from layouts.interop import pytorch as lt  # noqa: E402

#: (logical shape, how the tensor is stored: a torch memory format or a permutation of its
#: shape's axes into memory order, the memory's spec)
STORED = [
    ((8, 40, 6, 7), "channels_last", "NHWC"),
    ((2, 24, 3, 4, 5), "channels_last_3d", "NDHWC"),
    ((5, 16, 6, 7), (1, 2, 3, 0), "CHWN"),
    ((16, 24, 3, 3), "channels_last", "OHWI"),      # a weight: torch's logical O, I, H, W
]
DSTS = ["NCHW16c", "NHWC", "CHWN", "NCHW"]


def _stored(shape, how, seed=0):
    g = torch.Generator().manual_seed(seed)
    t = torch.randn(shape, generator=g)
    if isinstance(how, str):
        return t.to(memory_format=getattr(torch, how))
    inv = [how.index(i) for i in range(len(how))]
    return t.permute(*how).contiguous().permute(*inv)   # same values, memory in that order


def _logical(memory: str) -> str:
    return "OIHW" if "O" in memory else ("NCDHW" if "D" in memory else "NCHW")


def _dst_for(dst: str, logical: str) -> str:
    """dst in the letters of this tensor (weights: O, I; 3-D: with D)."""
    if logical == "OIHW":
        return dst.replace("N", "O").replace("C", "I").replace("c", "i")
    if logical == "NCDHW":
        return {"NCHW16c": "NCDHW8c", "NHWC": "NDHWC", "CHWN": "CDHWN", "NCHW": "NCDHW"}[dst]
    return dst


@pytest.mark.parametrize("dst", DSTS)
@pytest.mark.parametrize("shape, how, memory", STORED, ids=[m for *_, m in STORED])
def test_either_name_gives_the_tensor_torch_holds(shape, how, memory, dst):
    t = _stored(shape, how)
    assert not t.is_contiguous()
    logical = _logical(memory)
    dst = _dst_for(dst, logical)
    want = ly.convert(t.contiguous().numpy(), logical, dst)   # torch's own copy into shape order: the oracle
    with warnings.catch_warnings():
        warnings.simplefilter("error")                        # both readings are unambiguous here: no warning
        by_memory = ly.convert(t, memory, dst)
        by_shape = ly.convert(t, logical, dst)
    assert isinstance(by_memory, torch.Tensor)
    assert by_memory.shape == want.shape and np.array_equal(by_memory.numpy(), want)
    assert np.array_equal(by_shape.numpy(), want)


@pytest.mark.parametrize("shape, how, memory", STORED[:3], ids=[m for *_, m in STORED[:3]])
@pytest.mark.parametrize("name", ["memory", "shape"])
def test_in_place_either_name_moves_the_tensors_own_memory(shape, how, memory, name):
    t = _stored(shape, how, seed=1)
    logical = _logical(memory)
    dst = "NCDHW8c" if logical == "NCDHW" else "NCHW8c"     # blocks that divide C: in place, no padding
    want = ly.convert(t.contiguous().numpy(), logical, dst)
    version = t._version
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = ly.convert_inplace(t, memory if name == "memory" else logical, dst)
    assert isinstance(y, torch.Tensor) and y.data_ptr() == t.data_ptr()
    assert np.array_equal(y.numpy(), want)
    assert t._version > version          # autograd told of the write, as copy_ does


def test_out_tensor_named_by_its_memory_is_written_as_it_is_read():
    x = np.random.default_rng(2).standard_normal((4, 5, 6, 7)).astype(np.float32)
    out = torch.empty(4, 5, 6, 7).to(memory_format=torch.channels_last)
    ly.convert(x, "NCHW", "NHWC", out=out)            # dst names out's memory
    assert torch.equal(out, torch.from_numpy(x))       # its logical view is x again
    out2 = torch.empty(4, 5, 6, 7).to(memory_format=torch.channels_last)
    ly.convert(x, "NCHW", "NCHW", out=out2)            # dst names out's shape: strides written through
    assert torch.equal(out2, torch.from_numpy(x))


def test_size_one_axes_make_both_readings_hold_and_it_says_so():
    t = torch.randn(8, 1, 6, 7)                        # contiguous and channels_last at once
    assert t.is_contiguous() and t.is_contiguous(memory_format=torch.channels_last)
    with pytest.warns(LayoutWarning, match=r"both NCHW and NHWC.*as for numpy.*pass 'NCHW'"):
        y = ly.convert(t, "NHWC", "NCHW")
    assert np.array_equal(y.numpy(), ly.convert(t.numpy(), "NHWC", "NCHW"))   # numpy's reading: H=1, C=7


def test_numpy_arrays_keep_naming_their_shape():
    t = _stored((3, 8, 4, 5), "channels_last")
    arr = t.numpy()                                     # the same strides, but a numpy array
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = ly.convert(arr, "NHWC", "NCHW")             # numpy: the shape's axes are N, H, W, C
    assert np.array_equal(y, np.ascontiguousarray(arr).transpose(0, 3, 1, 2))


def test_a_dlpack_capsule_from_torch_is_read_as_its_tensor():
    from torch.utils.dlpack import to_dlpack

    t = _stored((2, 16, 3, 4), "channels_last", seed=3)
    want = ly.convert(t.contiguous().numpy(), "NCHW", "NCHW16c")
    y = ly.convert(to_dlpack(t), "NHWC", "NCHW16c")
    assert isinstance(y, torch.Tensor) and np.array_equal(y.numpy(), want)
    z = ly.convert_inplace(to_dlpack(t.clone(memory_format=torch.channels_last)), "NCHW", "NCHW16c")
    assert np.array_equal(z.numpy(), want)


def test_convert_tensor_takes_the_memory_name_too():
    t = _stored((2, 32, 3, 4), "channels_last", seed=4)
    want = lt.convert_tensor(t, "NCHW16c")
    assert torch.equal(lt.convert_tensor(t, "NCHW16c", src="NHWC"), want)
    assert np.array_equal(want.numpy(), ly.convert(t.contiguous().numpy(), "NCHW", "NCHW16c"))


def test_in_place_refuses_what_it_cannot_write():
    with pytest.raises(ly.LayoutError, match="requires grad"):
        ly.convert_inplace(torch.zeros(2, 3, 4, 5, requires_grad=True), "NCHW", "NHWC")
    with pytest.raises(ly.LayoutError, match="conjugate"):
        ly.convert_inplace(torch.zeros(2, 3, 4, 5, dtype=torch.complex64).conj(), "NCHW", "NHWC")
