"""Optional peer: HPTT, the High-Performance Tensor Transposition C++ library (Springer, Su,
Bientinesi; https://github.com/springer13/hptt), float32 only, through ctypes.

What it runs: one HPTT plan per (src, perm, out, threads), made once with ``hptt::ESTIMATE``
(HPTT's heuristic plan, no autotuning; the same method HPTT's own Python API uses), row-major
(numpy C order), alpha = 1, beta = 0. Calling the returned function runs only
``plan->execute()``, which writes ``out = src.transpose(perm)``. HPTT's ``execute()`` uses
non-temporal (streaming) stores where ``out`` is 32-byte aligned and the blocks allow it.
``MEASURE``/``PATIENT`` autotuning is not used.

Where the library comes from (nothing is downloaded or built implicitly):

- ``$HPTT_DIR`` if set, else ``~/.cache/layouts-bench/hptt``: a built HPTT checkout holding
  ``include/hptt.h`` and ``lib/libhptt.so``.
- ``python bench/_hptt.py --build [DEST]`` (or ``build(dest)``) makes one: ``git clone --depth 1
  https://github.com/springer13/hptt DEST`` then ``make avx CXX=g++`` in it (about 5 minutes on
  2 cores; the Makefile adds ``-march=native``, so the library is tuned to, and only runs on,
  the machine that built it). ``python bench/_hptt.py`` alone reports whether HPTT is usable.
- On first use the small wrapper ``bench/hptt_plan.cpp`` is compiled next to the library as
  ``lib/libhptt_plan.so`` (``g++ -O2 -std=c++11 -shared -fPIC``, linked to ``-lhptt`` with rpath
  ``$ORIGIN``, so the directory can be moved), and again whenever it is older than the .cpp or
  than ``libhptt.so``.

``available()`` returns ``(ok, reason)`` so a benchmark can skip HPTT with the reason;
``transpose_fn(src, perm, out, threads=1)`` returns the zero-argument callable to time.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import time
import weakref
from pathlib import Path

import numpy as np

__all__ = ["hptt_dir", "available", "build", "transpose_fn", "HPTTTranspose", "REPO", "DEFAULT_DIR"]

REPO = "https://github.com/springer13/hptt"
DEFAULT_DIR = Path.home() / ".cache" / "layouts-bench" / "hptt"
_CPP = Path(__file__).resolve().with_name("hptt_plan.cpp")
_WRAPPER = "libhptt_plan.so"

_lib = None          # the loaded wrapper (ctypes.CDLL), once loaded
_load_error = None   # the reason loading failed, once it has failed


def hptt_dir() -> Path:
    """The HPTT checkout used: ``$HPTT_DIR`` if set, else ``DEFAULT_DIR``."""
    env = os.environ.get("HPTT_DIR")
    return Path(env).expanduser() if env else DEFAULT_DIR


def _missing(d: Path) -> str | None:
    """Why ``d`` is not a usable built HPTT checkout, or None."""
    if not (d / "include" / "hptt.h").is_file():
        return f"no HPTT headers at {d / 'include' / 'hptt.h'}"
    if not (d / "lib" / "libhptt.so").is_file():
        return f"no built HPTT library at {d / 'lib' / 'libhptt.so'}"
    return None


def _compile_wrapper(d: Path) -> Path:
    """``d/lib/libhptt_plan.so``, compiled from ``hptt_plan.cpp`` if missing or stale."""
    lib_dir = d / "lib"
    so = lib_dir / _WRAPPER
    newest_input = max(_CPP.stat().st_mtime, (lib_dir / "libhptt.so").stat().st_mtime)
    if so.is_file() and so.stat().st_mtime >= newest_input:
        return so
    cxx = os.environ.get("CXX") or "g++"
    if shutil.which(cxx) is None:
        raise RuntimeError(f"C++ compiler {cxx!r} not found (needed to compile {_CPP.name})")
    tmp = str(lib_dir / f".{_WRAPPER}.{os.getpid()}.tmp")
    cmd = [cxx, "-O2", "-std=c++11", "-shared", "-fPIC", f"-I{d / 'include'}", str(_CPP),
           f"-L{lib_dir}", "-lhptt", "-Wl,-rpath,$ORIGIN", "-o", tmp]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"compiling {_CPP.name} failed: {' '.join(cmd)}\n{r.stderr[-2000:]}")
        os.replace(tmp, so)          # atomic: a concurrent loader sees the old or the new file
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return so


def _load():
    """The loaded wrapper library; raises RuntimeError with the reason if unusable."""
    global _lib, _load_error
    if _lib is not None:
        return _lib
    if _load_error is not None:
        raise RuntimeError(_load_error)
    d = hptt_dir()
    try:
        why = _missing(d)
        if why:
            raise RuntimeError(f"{why}; set HPTT_DIR to a built HPTT checkout or run "
                               f"`python bench/{Path(__file__).name} --build` (~5 min)")
        lib = ctypes.CDLL(str(_compile_wrapper(d)))
        lib.hptt_plan_f32.restype = ctypes.c_void_p
        lib.hptt_plan_f32.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_void_p,
                                      ctypes.POINTER(ctypes.c_int), ctypes.c_void_p, ctypes.c_int]
        lib.hptt_execute.restype = None
        lib.hptt_execute.argtypes = [ctypes.c_void_p]
        lib.hptt_free.restype = None
        lib.hptt_free.argtypes = [ctypes.c_void_p]
    except (OSError, RuntimeError) as e:
        _load_error = f"HPTT unavailable: {e}"
        raise RuntimeError(_load_error) from None
    _lib = lib
    return lib


def available() -> tuple[bool, str]:
    """(True, where) if HPTT can be used, else (False, why); compiles the wrapper if needed but
    never downloads or builds HPTT itself."""
    try:
        _load()
    except RuntimeError as e:
        return False, str(e)
    return True, f"HPTT at {hptt_dir()}"


def build(dest: str | os.PathLike | None = None, jobs: int | None = None) -> Path:
    """Clone HPTT into ``dest`` (default ``hptt_dir()``) unless a checkout is already there, and
    build it with ``make avx`` (about 5 minutes on 2 cores, run at low priority). Returns
    ``dest``; set ``HPTT_DIR`` to it if it is not the default. Only called explicitly."""
    global _load_error
    dest = Path(dest).expanduser() if dest is not None else hptt_dir()
    if not (dest / "Makefile").is_file():
        if dest.exists() and any(dest.iterdir()):
            raise RuntimeError(f"{dest} exists, is not empty and holds no HPTT Makefile")
        dest.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "--depth", "1", REPO, str(dest)], check=True)
    jobs = jobs or os.cpu_count() or 1
    cmd = ["make", f"-j{jobs}", "avx", "CXX=g++"]   # the Makefile adds -fopenmp only for CXX=g++
    if shutil.which("nice"):
        cmd = ["nice", "-n", "19"] + cmd
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=dest, check=True)
    print(f"built HPTT in {dest} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    _load_error = None
    return dest


class HPTTTranspose:
    """A prepared HPTT plan writing ``out = src.transpose(perm)``; call it (no arguments) to run
    the plan. Holds ``src`` and ``out`` alive; the plan is freed when this object is collected
    (or by ``free()``)."""

    def __init__(self, src: np.ndarray, perm, out: np.ndarray, threads: int = 1):
        for name, a in (("src", src), ("out", out)):
            if not isinstance(a, np.ndarray):
                raise TypeError(f"HPTT: {name} must be a numpy array, got {type(a).__name__}")
            if a.dtype != np.float32:
                raise TypeError(f"HPTT: {name} must be float32, got {a.dtype}")
            if not a.flags.c_contiguous:
                raise ValueError(f"HPTT: {name} must be C-contiguous (row-major)")
        if not out.flags.writeable:
            raise ValueError("HPTT: out is read-only")
        perm = tuple(int(p) for p in perm)
        if sorted(perm) != list(range(src.ndim)):
            raise ValueError(f"HPTT: perm {perm} is not a permutation of the "
                             f"{src.ndim} axes of src")
        want = tuple(src.shape[p] for p in perm)
        if out.shape != want:
            raise ValueError(f"HPTT: out has shape {out.shape}, src.transpose({perm}) has {want}")
        if np.shares_memory(src, out):
            raise ValueError("HPTT: src and out overlap (HPTT is out-of-place)")
        if max(src.shape, default=0) >= 2**31:
            raise ValueError("HPTT: a dimension does not fit a C int")
        threads = int(threads)
        if threads < 1:
            raise ValueError(f"HPTT: threads must be >= 1, got {threads}")

        self.src, self.out, self.perm, self.threads = src, out, perm, threads
        self._handle = None
        if src.ndim == 0 or src.size == 0:      # HPTT exit()s on these; nothing to transpose
            self._run = lambda: np.copyto(out, src.transpose(perm))
            self._finalizer = None
            return
        lib = _load()
        c_perm = (ctypes.c_int * src.ndim)(*perm)
        c_size = (ctypes.c_int * src.ndim)(*src.shape)
        handle = lib.hptt_plan_f32(c_perm, src.ndim, src.ctypes.data, c_size,
                                   out.ctypes.data, threads)
        if not handle:
            raise RuntimeError("HPTT: plan creation failed")
        self._handle = handle
        self._finalizer = weakref.finalize(self, lib.hptt_free, handle)
        execute, arg = lib.hptt_execute, ctypes.c_void_p(handle)
        self._run = lambda: execute(arg)

    def __call__(self) -> None:
        self._run()

    def free(self) -> None:
        """Free the plan now; the object cannot be called afterwards."""
        if self._finalizer is not None:
            self._finalizer()

        def _freed():
            raise RuntimeError("HPTT: plan already freed")
        self._run = _freed

    def __repr__(self) -> str:
        return (f"HPTTTranspose(shape={self.src.shape}, perm={self.perm}, threads={self.threads}, "
                f"method=ESTIMATE)")


def transpose_fn(src: np.ndarray, perm, out: np.ndarray, threads: int = 1) -> HPTTTranspose:
    """A zero-argument callable running one prepared HPTT plan that writes
    ``out = src.transpose(perm)`` (``src`` and ``out`` C-contiguous float32, ``out`` of the
    transposed shape, not overlapping ``src``). Raises RuntimeError if HPTT is unavailable
    (see ``available()``)."""
    return HPTTTranspose(src, perm, out, threads)


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="HPTT peer: report availability, or --build it.")
    ap.add_argument("--build", nargs="?", const="", metavar="DEST",
                    help=f"git clone + `make avx` into DEST (default $HPTT_DIR or {DEFAULT_DIR})")
    ap.add_argument("-j", "--jobs", type=int, default=None)
    args = ap.parse_args()
    if args.build is not None:
        where = build(args.build or None, args.jobs)
        if args.build and Path(args.build).expanduser().resolve() != hptt_dir().resolve():
            print(f"export HPTT_DIR={Path(args.build).expanduser().resolve()}")
        os.environ["HPTT_DIR"] = str(where.resolve())
    ok, reason = available()
    print(("ok: " if ok else "unavailable: ") + reason)
    sys.exit(0 if ok else 1)
