"""ly.convert of dask arrays: lazy, chunks planned for the destination, equal to numpy on the
threaded scheduler and on a real dask.distributed cluster of worker processes; zarr in and out."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import layouts as ly  # noqa: E402
from hostile import check_refused  # noqa: E402
from layouts import Layout, LayoutError  # noqa: E402
from oracle import blocked_physical  # noqa: E402
from oracle import spec_dims as _spec_dims


def _physical(logical, axes, spec):
    return np.ascontiguousarray(blocked_physical(logical, axes, _spec_dims(spec)))


def _random(shape, dtype, rng):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(0, 100, shape).astype(dtype)


def _random_chunks(shape, rng):
    """Irregular chunks: random cut points along each dim."""
    out = []
    for n in shape:
        cuts = sorted(set(int(c) for c in rng.integers(1, n, rng.integers(0, 3)))) if n > 1 else []
        edges = [0] + cuts + [n]
        out.append(tuple(b - a for a, b in zip(edges[:-1], edges[1:])))
    return tuple(out)


CASES = [
    ("NCHW", "NCHW", "NHWC"), ("NCHW", "NCHW", "CHWN"), ("NCHW", "NHWC", "NCHW"),
    ("NCHW", "NCHW", "NCHW16c"), ("NCHW", "NCHW16c", "NCHW"), ("NCHW", "NCHW8c", "NCHW16c"),
    ("NCHW", "NCHW", "NC1HWC0"), ("OIHW", "OIHW", "HWIO"),
]


def _check(d_fn, axes, src, dst, seed, scheduler):
    rng = np.random.default_rng(seed)
    dtype = [np.float32, np.uint8, np.float16, np.int64][seed % 4]
    shape = tuple(int(n) for n in rng.integers(1, 9, len(axes)))
    shape = tuple(n * 5 if a in "CI" else n for a, n in zip(axes, shape))
    logical = _random(shape, dtype, rng)
    x = _physical(logical, axes, src)
    sizes = {a: n for a, n in zip(axes, shape) if any(d.axis == a and d.is_block for d in ly.parse(src).dims)}
    d = d_fn(x, rng)
    y = ly.convert(d, src, dst, **sizes)
    assert isinstance(y, da.Array)
    # the oracle: numpy pad/reshape/transpose (Ascend's named block: the numpy path of ly.convert)
    want = ly.convert(x, src, dst, **sizes) if "C0" in dst else _physical(logical, axes, dst)
    assert y.shape == want.shape and y.dtype == want.dtype
    _check_block_chunks(y, ly.parse(dst))
    got = y.compute(scheduler=scheduler)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def _check_block_chunks(y, spec):
    """Block dims are one chunk each (so every chunk is whole blocks)."""
    for dim, chunks in zip(spec.dims, y.chunks):
        if dim.is_block:
            assert len(chunks) == 1, (spec.text, y.chunks)


@pytest.mark.parametrize("axes,src,dst", CASES, ids=[f"{s}->{d}" for _, s, d in CASES])
@pytest.mark.parametrize("seed", range(3))
def test_threaded_equals_numpy(axes, src, dst, seed):
    _check(lambda x, rng: da.from_array(x, chunks=_random_chunks(x.shape, rng)), axes, src, dst, seed, "threads")


def test_regular_chunks_stay_regular_on_block_multiples():
    x = np.random.default_rng(0).standard_normal((4, 40, 6, 6)).astype(np.float32)
    y = ly.convert(da.from_array(x, chunks=(2, 24, 6, 3)), "NCHW", "NCHW16c")
    assert y.chunks == ((2, 2), (2, 1), (6,), (3, 3), (16,))   # C chunks of 24 -> 32 (two blocks), then the rest
    np.testing.assert_array_equal(y.compute(scheduler="threads"), ly.convert(x, "NCHW", "NCHW16c"))
    z = ly.convert(da.from_array(x, chunks=(1, 40, 6, 6)), "NCHW", "NHWC")
    assert z.chunks == ((1, 1, 1, 1), (6,), (6,), (40,))         # the input chunking, axes moved


def test_aligned_chunks_need_one_input_chunk_each():
    """Keeping the input chunking: each output chunk's task depends on one input chunk."""
    x = da.ones((8, 32, 4, 4), chunks=(2, 16, 4, 4), dtype=np.float32)
    y = ly.convert(x, "NCHW", "NCHW16c")
    layer = y.dask.layers[y.name]
    deps = y.dask.dependencies[y.name]
    assert deps == {x.name}
    assert len(layer) == y.npartitions == x.npartitions
    np.testing.assert_array_equal(y.compute(scheduler="threads"), ly.convert(np.ones((8, 32, 4, 4), np.float32), "NCHW", "NCHW16c"))


@pytest.mark.parametrize("dst,chunks,path", [
    ("NHWC", {"C": 60}, "convert_pieces"),        # pieces meet anywhere on an unblocked axis: straight into the output
    ("NCHW8c", {"C": 48}, "convert_pieces"),      # ... and on whole blocks of a blocked one (24 = 3 blocks of 8)
    ("NCHW16c", {"C": 32}, "convert_chunk"),      # 24 cuts a block of 16: the pieces are copied together first
])
def test_output_chunks_made_of_several_input_chunks(dst, chunks, path):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 60, 5, 3)).astype(np.float32)
    y = ly.convert(da.from_array(x, chunks=(2, 24, 5, 3)), "NCHW", dst, chunks=chunks)
    funcs = {task[0].__name__ for task in dict(y.dask.layers[y.name]).values()}
    assert path in funcs, funcs
    np.testing.assert_array_equal(y.compute(scheduler="threads"), _physical(x, "NCHW", dst))


def test_user_chunks_and_lazy():
    calls = []

    def count(b):
        calls.append(1)
        return b

    x = np.arange(4 * 20 * 5 * 5, dtype=np.int32).reshape(4, 20, 5, 5)
    d = da.from_array(x, chunks=(1, 20, 5, 5)).map_blocks(count)
    calls.clear()                                                 # map_blocks tried it on a meta array
    y = ly.convert(d, "NCHW", "NCHW8c", chunks={"N": 4, "C": 10})
    assert calls == []                                            # nothing computed yet
    assert y.chunks == ((4,), (2, 1), (5,), (5,), (8,))           # C chunks of 10 -> 16 (two blocks)
    np.testing.assert_array_equal(y.compute(scheduler="threads"), ly.convert(x, "NCHW", "NCHW8c"))
    assert len(calls) == 4                                        # each input chunk computed once


def test_refusals():
    d = da.zeros((2, 3, 4, 5), chunks=2, dtype=np.float32)
    check_refused(lambda: ly.convert(d, "NCHW", "NHWC", out=np.empty((2, 4, 5, 3), np.float32)), LayoutError, "out")
    check_refused(lambda: ly.convert(d, "NCHW", "NHWC", copy=False), LayoutError, "copy")
    check_refused(lambda: ly.convert(d, "NCHW", "NHWD"), LayoutError, "axes")
    check_refused(lambda: ly.convert(d, "NCH", "NHC"), LayoutError, "dims")
    fpga = Layout("NHWC", N=2, C=3, H=4, W=5, align={"H": 16})
    check_refused(lambda: ly.convert(d, "NCHW", fpga), LayoutError, "pitch")
    check_refused(lambda: ly.convert(d, "NCHW", "NHWC", chunks={"X": 2}), LayoutError, "X")
    check_refused(lambda: ly.convert(d, "NCHW", "NHWC", chunks={"N": 0}), LayoutError, "chunks")
    check_refused(lambda: ly.convert(d, "NCHW", "NHWC", threads=0), LayoutError, "threads")
    check_refused(lambda: ly.convert(d[d[:, 0, 0, 0] >= 0], "NCHW", "NHWC"), LayoutError, "unknown chunk")
    obj = da.from_array(np.empty((1, 1, 1, 1), dtype=object), chunks=1)
    check_refused(lambda: ly.convert(obj, "NCHW", "NHWC"), LayoutError, "object")


# ------------------------------------------------------------------------------ dask.distributed
@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, memory_limit="1GiB")
    c = distributed.Client(cluster)
    try:
        yield c
    finally:
        c.close()
        cluster.close()


@pytest.mark.parametrize("axes,src,dst", CASES[:5] + CASES[6:7], ids=[f"{s}->{d}" for _, s, d in CASES[:5] + CASES[6:7]])
def test_distributed_equals_numpy(client, axes, src, dst):
    _check(lambda x, rng: da.from_array(x, chunks=_random_chunks(x.shape, rng)), axes, src, dst, 7, client.get)
    assert len(client.scheduler_info()["workers"]) == 2


def test_distributed_persisted_input_stays_on_the_workers(client):
    from distributed import wait

    rng = np.random.default_rng(11)
    x = rng.standard_normal((8, 36, 10, 10)).astype(np.float32)
    d = client.persist(da.from_array(x, chunks=(2, 12, 10, 10)))
    wait(d)
    y = client.persist(ly.convert(d, "NCHW", "NCHW16c"))
    wait(y)
    held = {k for keys in client.has_what().values() for k in keys}
    expected = {(y.name,) + i for i in np.ndindex(*y.numblocks)}
    assert {k for k in held if isinstance(k, tuple) and k[0] == y.name} == expected   # every output chunk is on a worker
    np.testing.assert_array_equal(y.compute(), ly.convert(x, "NCHW", "NCHW16c"))


# ------------------------------------------------------------------------------------------- zarr
@pytest.mark.parametrize("dst", ["NHWC", "NCHW16c"])
def test_zarr_store_to_zarr_store(tmp_path, dst):
    zarr = pytest.importorskip("zarr")
    rng = np.random.default_rng(12)
    x = rng.standard_normal((5, 40, 9, 7)).astype(np.float32)
    a = zarr.open_array(str(tmp_path / "a.zarr"), mode="w", shape=x.shape, chunks=(2, 24, 9, 7), dtype=x.dtype)
    a[:] = x
    ly.convert(da.from_zarr(str(tmp_path / "a.zarr")), "NCHW", dst).to_zarr(str(tmp_path / "b.zarr"))
    b = zarr.open_array(str(tmp_path / "b.zarr"), mode="r")
    np.testing.assert_array_equal(b[:], ly.convert(x, "NCHW", dst))
    if dst == "NCHW16c":
        assert b.chunks == (2, 2, 9, 7, 16)                        # C chunks of 24 -> 32: two whole blocks
        np.testing.assert_array_equal(b[:, 2, :, :, 8:], 0)        # C = 40 pads the last block with zeros


def test_a_fresh_process_hands_a_dask_array_to_the_lazy_path():
    """import layouts loads no out-of-core code, yet convert still finds the dask converter (the
    package face binds it to dask's type by name): a lazy result, not an eager numpy one."""
    import subprocess
    import sys
    code = ("import sys, layouts as ly, dask.array as da\n"
            "assert 'layouts.chunked' not in sys.modules\n"
            "y = ly.convert(da.zeros((2, 3, 4, 5), chunks=(1, 3, 4, 5)), 'NCHW', 'NHWC')\n"
            "print(type(y).__module__.split('.')[0], y.shape)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[0] == "dask"
