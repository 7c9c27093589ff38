"""Conversions before numba is loaded (layouts.conversion.loading): numpy copies until RENT_BYTES,
then the kernels; bitwise the same results either way. Each case runs in a fresh child process
without the suite's LAYOUTS_EAGER_KERNELS (conftest), so that numba is not already loaded."""

import json
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PRELUDE = textwrap.dedent("""
    import json, sys
    import numpy as np
    import layouts as ly
    from layouts.conversion import loading as kl
    def numba_loaded():
        return "numba" in sys.modules
    rng = np.random.default_rng(0)
""")


def child(code: str, **env_extra) -> dict:
    """Run PRELUDE + ``code`` in a fresh process; ``code`` prints one JSON object."""
    env = {k: v for k, v in os.environ.items() if k != "LAYOUTS_EAGER_KERNELS"}
    env.update(PYTHONPATH=ROOT, **env_extra)
    r = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code)], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_first_conversions_copy_with_numpy_and_match_the_numpy_oracle():
    """A transpose, a blocked format with padding, an ``out=`` (twice, the known-conversion path)
    and a pitched destination: numba never imported, every byte as numpy's own expressions give it,
    and the bytes counted."""
    got = child("""
        x = rng.integers(0, 255, (4, 3, 20, 20), dtype=np.uint8)
        ok = [np.array_equal(ly.convert(x, "NCHW", "NHWC"), x.transpose(0, 2, 3, 1))]
        b = ly.convert(x, "NCHW", "NCHW8c")                       # C=3 in blocks of 8: five zero slots
        want = np.zeros((4, 1, 20, 20, 8), np.uint8)
        want[..., :3] = x.transpose(0, 2, 3, 1)[:, None]
        ok.append(np.array_equal(b, want))
        out = np.full((4, 20, 20, 3), 7, np.uint8)
        for _ in range(2):
            ok.append(ly.convert(x, "NCHW", "NHWC", out=out) is out and np.array_equal(out, x.transpose(0, 2, 3, 1)))
        y = rng.standard_normal((2, 5, 6, 7)).astype(np.float32)
        back = ly.convert(ly.convert(y, "NCHW", "CHWN"), "CHWN", "NCHW")
        ok.append(back.tobytes() == y.tobytes())
        print(json.dumps({"ok": ok, "numba": numba_loaded(), "rented": kl.numpy_bytes(),
                          "expected": 4 * x.nbytes + 2 * y.nbytes}))
    """)
    assert got["ok"] == [True] * 5
    assert got["numba"] is False
    assert got["rented"] == got["expected"]


def test_the_kernels_load_once_the_rent_is_spent_and_give_the_same_bytes():
    got = child("""
        kl.RENT_BYTES = 3 * 48 * 1024
        x = rng.integers(0, 1 << 16, (4, 3, 64, 64), dtype=np.uint16)   # 96 KiB a call
        want = x.transpose(0, 2, 3, 1)
        steps = []
        for _ in range(3):
            out = ly.convert(x, "NCHW", "NHWC")
            steps.append([bool(np.array_equal(out, want)), numba_loaded(), kl.kernels_loaded()])
        print(json.dumps({"steps": steps, "rented": kl.numpy_bytes()}))
    """)
    assert got["steps"] == [[True, False, False], [True, True, True], [True, True, True]]
    assert got["rented"] == 96 * 1024


def test_a_first_call_larger_than_the_rent_loads_the_kernels_at_once():
    got = child("""
        kl.RENT_BYTES = 1000
        x = rng.integers(0, 255, (2, 3, 32, 32), dtype=np.uint8)
        ok = np.array_equal(ly.convert(x, "NCHW", "NHWC"), x.transpose(0, 2, 3, 1))
        print(json.dumps({"ok": bool(ok), "numba": numba_loaded(), "rented": kl.numpy_bytes()}))
    """)
    assert got == {"ok": True, "numba": True, "rented": 0}


def test_eager_environment_and_load_kernels_use_the_kernels_from_the_first_call():
    code = """
        if len(sys.argv) > 1:
            ly.load_kernels()
        x = rng.integers(0, 255, (2, 3, 8, 8), dtype=np.uint8)
        ok = np.array_equal(ly.convert(x, "NCHW", "NHWC"), x.transpose(0, 2, 3, 1))
        print(json.dumps({"ok": bool(ok), "numba": numba_loaded(), "rented": kl.numpy_bytes()}))
    """
    assert child(code, LAYOUTS_EAGER_KERNELS="1") == {"ok": True, "numba": True, "rented": 0}
    env = {k: v for k, v in os.environ.items() if k != "LAYOUTS_EAGER_KERNELS"}
    env["PYTHONPATH"] = ROOT
    r = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code), "load"], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert json.loads(r.stdout) == {"ok": True, "numba": True, "rented": 0}


def test_numpys_movers_match_the_kernels_bitwise_on_strided_views():
    """The two movers against the kernels, in this process (numba loaded): a negative-stride
    source, NaN payloads and -0.0 kept bit for bit; fill_zero writes all-zero bytes."""
    import numpy as np
    from layouts.conversion import loading as kernel_loading
    from layouts import kernels
    rng = np.random.default_rng(1)
    bits = rng.integers(0, 1 << 32, (3, 5, 70, 9), dtype=np.uint32)
    bits[0, 0, 0, :3] = [0x7FC00001, 0xFFC12345, 0x80000000]          # NaN payloads, -0.0
    x = bits.view(np.float32)[:, ::-1].transpose(0, 2, 3, 1)
    a, b = np.empty(x.shape, np.float32), np.empty(x.shape, np.float32)
    kernel_loading.NUMPY_MOVERS.copy_into(a, x)
    kernels.copy_into(b, x, threads=1)
    assert a.tobytes() == b.tobytes() == np.ascontiguousarray(x).tobytes()
    kernel_loading.NUMPY_MOVERS.fill_zero(a[:, ::2])
    assert not a[:, ::2].view(np.uint32).any() and a[:, 1::2].tobytes() == b[:, 1::2].tobytes()
    assert kernel_loading.movers(x.nbytes) is kernels                     # numba is loaded here


def test_structured_elements_move_whole_on_every_path():
    """A structured dtype with gaps between its fields (align=True): numpy's copy of fields would
    leave the gap bytes of ``out`` as they were, the kernels move every byte. Both movers, and the
    kernels' own small and large copies and fills, write every byte: the oracle is numpy's copy
    of the same elements as raw bytes."""
    import numpy as np
    from layouts.conversion import loading as kernel_loading
    from layouts import kernels
    dt = np.dtype([("a", "u1"), ("b", "<f4")], align=True)          # 3 gap bytes after a
    raw = np.dtype((np.void, dt.itemsize))
    rng = np.random.default_rng(2)
    for shape in ((1, 3, 4, 4), (4, 8, 64, 64)):                      # below and above small_bytes
        x = rng.integers(0, 256, (*shape, dt.itemsize), dtype=np.uint8).view(dt)[..., 0]
        view = x.transpose(0, 2, 3, 1)
        want = np.ascontiguousarray(view.view(raw)).tobytes()
        for copy_into in (kernel_loading.NUMPY_MOVERS.copy_into, lambda d, s: kernels.copy_into(d, s, threads=1)):
            out = np.full(view.shape + (dt.itemsize,), 0xAA, np.uint8).view(dt)[..., 0]
            copy_into(out, view)
            assert out.view(raw).tobytes() == want
        for fill_zero in (kernel_loading.NUMPY_MOVERS.fill_zero, lambda d: kernels.fill_zero(d, threads=1)):
            out = np.full(view.shape + (dt.itemsize,), 0xAA, np.uint8).view(dt)[..., 0]
            fill_zero(out[:, 1:])
            # tobytes of a structured view copies its fields only: compare raw-byte views
            assert not out[:, 1:].view(raw).tobytes().strip(b"\0")
            assert out[:, :1].view(raw).tobytes() == b"\xaa" * out[:, :1].nbytes


def test_a_refused_conversion_counts_no_bytes():
    got = child("""
        x = rng.integers(0, 255, (2, 3, 8, 8), dtype=np.uint8)
        out = np.empty((2, 8, 8, 3), np.uint8)
        ly.convert(x, "NCHW", "NHWC", out=out)                # known from here on
        before = kl.numpy_bytes()
        out.flags.writeable = False
        try:
            ly.convert(x, "NCHW", "NHWC", out=out)
        except ly.LayoutError:
            pass
        print(json.dumps({"before": before, "after": kl.numpy_bytes(), "x": x.nbytes}))
    """)
    assert got["before"] == got["x"] and got["after"] == got["before"]
