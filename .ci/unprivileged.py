"""A smoke test of an install that belongs to another account: run by .ci/run as an unprivileged
user (uid 65534) whose home is not writable (HOME=/, what `docker run --user UID` gives a uid with
no passwd entry), against a root-owned, read-only install of the package.

Every entry a user meets first, with the kernels loaded (so numba must cache somewhere it can
write): convert, convert_inplace, convert_file, the command line (explain, convert, tune). Each
line printed says what ran and what it gave; any failure is a traceback and a non-zero exit.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np

import layouts as ly


def main() -> int:
    print(f"uid {os.getuid()}, HOME={os.environ.get('HOME')!r}, layouts from {os.path.dirname(ly.__file__)}")
    print(f"the install is writable by this user: {os.access(os.path.dirname(ly.__file__), os.W_OK)}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ly.load_kernels()
    for w in caught:
        print(f"warning: {w.message}")
    print(f"kernels loaded; numba caches in {os.environ.get('NUMBA_CACHE_DIR', '(numba default)')}")

    x = np.arange(64 * 64 * 56 * 56, dtype=np.float32).reshape(64, 64, 56, 56)
    y = ly.convert(x, "NCHW", "NHWC")
    assert np.array_equal(y, x.transpose(0, 2, 3, 1))
    print(f"convert NCHW -> NHWC of {x.shape} float32: equal to numpy's transpose")

    z = x[:8].copy()
    want = z.transpose(0, 2, 3, 1).copy()
    assert np.array_equal(ly.convert_inplace(z, "NCHW", "NHWC"), want)
    print(f"convert_inplace NCHW -> NHWC of {z.shape}: equal to numpy's transpose")

    work = tempfile.mkdtemp(prefix="layouts-smoke-")
    src, dst = os.path.join(work, "x.npy"), os.path.join(work, "y.npy")
    np.save(src, x[:4])
    ly.convert_file(src, "NCHW", dst, "NHWC", progress=False)
    assert np.array_equal(np.load(dst), x[:4].transpose(0, 2, 3, 1))
    print("convert_file NCHW -> NHWC: equal to numpy's transpose")

    for args in (["explain", "NCHW16c", "N=1", "C=20", "H=5", "W=4"],
                 ["convert", src, "NCHW", os.path.join(work, "z.npy"), "NHWC"],
                 ["tune", "--quick", "--dry-run"]):
        out = subprocess.run([sys.executable, "-m", "layouts", *args], capture_output=True, text=True, timeout=900)
        head = (out.stdout.strip().splitlines() or [""])[0]
        print(f"python -m layouts {' '.join(args[:2])} ...: exit {out.returncode}; {head[:100]}")
        if out.returncode != 0:
            print(out.stderr[-3000:], file=sys.stderr)
            return 1
    # a folder this user cannot write (tests/test_hostile_cli.py checks it too, but skips as root,
    # which CI runs as): a clear refusal, exit 2, no traceback
    ro = os.path.join(work, "read-only")
    os.mkdir(ro, 0o500)
    out = subprocess.run([sys.executable, "-m", "layouts", "tour", "--out", os.path.join(ro, "figs")],
                         capture_output=True, text=True, timeout=900)
    print(f"python -m layouts tour --out <read-only>/figs: exit {out.returncode}; {out.stderr.strip()[:100]}")
    if out.returncode != 2 or not out.stderr.startswith("python -m layouts: error: cannot write ") \
            or "Traceback" in out.stderr:
        print(out.stderr[-3000:], file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
