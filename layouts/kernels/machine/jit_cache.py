"""Keep numba's on-disk cache of the kernels in step with every source they are compiled from.

numba keys a cached kernel by the source of its own file only. Every kernel here inlines code
from other modules (the vector intrinsics of :mod:`.simd`; :mod:`.small` and :mod:`.grouped`
inline loops of :mod:`.transpose`), so after one of those changes, by a ``git pull`` into an
editable install or an upgrade whose unchanged files keep their cache, numba would load the
old machine code of the kernels around it. So before any kernel loads, :func:`check` compares
a digest of all the kernel sources (:data:`SOURCES`) with the one saved beside each of their
caches and, where it differs, removes the cached kernels of those modules; numba compiles
them again on first use, and the new digest is saved.

It looks wherever numba may cache a module of this package: the ``__pycache__`` beside the
source, ``NUMBA_CACHE_DIR``, and the user-wide numba cache. It needs no numba.

>>> import os, tempfile
>>> root = tempfile.mkdtemp()
>>> for sub, names in SOURCES.items():
...     os.makedirs(os.path.join(root, sub, "__pycache__"))
...     for name in names:
...         open(os.path.join(root, sub, name), "w").close()
>>> cached = os.path.join(root, "kernels", "jit", "__pycache__", "small.interleave_kernel-186.py311.nbi")
>>> open(cached, "w").close()
>>> [os.path.basename(f) for f in check(root)]      # no digest saved yet: the cache is not trusted
['small.interleave_kernel-186.py311.nbi']
>>> open(cached, "w").close(); check(root)          # the same sources: kept
[]
>>> with open(os.path.join(root, "kernels", "jit", "simd.py"), "w") as f:
...     _ = f.write("# an intrinsic changed")
>>> [os.path.basename(f) for f in check(root)]
['small.interleave_kernel-186.py311.nbi']
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile

__all__ = ["SOURCES", "STAMP", "check", "digest", "cache_dirs", "ensure_writable"]

#: the package's folders of numba code (relative to the package root) -> its files whose code
#: is compiled into kernels: the jitted modules, and what they read at compile time (the tile
#: shapes of :mod:`.geometry`, the record types of :mod:`.records`)
SOURCES: dict[str, tuple[str, ...]] = {
    "kernels": ("geometry.py", "records.py"),
    os.path.join("kernels", "jit"): ("grouped.py", "inplace.py", "lines.py", "padded.py", "rows.py", "simd.py",
                                     "small.py", "swizzle.py", "transpose.py", "wide.py"),
    os.path.join("interop", "opencv"): ("array_reader.py", "blob_kernel.py"),
    "linear": ("apply_kernel.py",),
}
#: the file beside a cache that holds the digest its kernels were compiled from
STAMP = "layouts-kernel-sources.sha256"
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def digest(root: str = _ROOT) -> str:
    """SHA-256 of every file of :data:`SOURCES` under the package root ``root`` (a missing file
    counts as empty)."""
    h = hashlib.sha256()
    for sub, names in sorted(SOURCES.items()):
        for name in names:
            h.update(f"{sub}/{name}\0".encode())
            try:
                with open(os.path.join(root, sub, name), "rb") as f:
                    h.update(f.read())
            except OSError:
                pass
            h.update(b"\0")
    return h.hexdigest()


def cache_dirs(source_dir: str) -> list[str]:
    """The folders where numba may keep the cache of modules in ``source_dir``, as its cache
    locators name them: ``__pycache__`` beside them, and under ``NUMBA_CACHE_DIR`` and the
    user-wide cache a folder named after ``source_dir`` (its last part and a SHA-1 of it)."""
    return [path for path, _ in _locations(source_dir)]


def _locations(source_dir: str) -> list[tuple[str, bool]]:
    """:func:`cache_dirs`, each with whether numba caches there whenever it can (and so it may
    be made here): not the user-wide one, used only for a package numba cannot write beside."""
    source_dir = os.path.abspath(source_dir)
    sub = f"{os.path.basename(source_dir)}_{hashlib.sha1(source_dir.encode()).hexdigest()}"
    places = [(os.path.join(source_dir, "__pycache__"), True)]
    configured = os.environ.get("NUMBA_CACHE_DIR")
    numba = sys.modules.get("numba")
    if numba is not None:                        # numba's own reading of it (a config file may set it)
        configured = getattr(getattr(numba, "config", None), "CACHE_DIR", configured)
    if configured:
        places.append((os.path.join(configured, sub), True))
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        places.append((os.path.join(base, "numba", sub), False))
    elif sys.platform == "darwin":
        places.append((os.path.join(os.path.expanduser("~"), "Library", "Caches", "numba", sub), False))
    return places


def check(root: str = _ROOT) -> list[str]:
    """Remove the cached kernels of :data:`SOURCES` that were not compiled from these sources
    (or whose sources are unknown: no digest saved beside them) and save the digest; returns
    the files removed. A cache that cannot be read or written is left as it is; when numba could
    cache the kernels nowhere, it is given a folder of this process's (:func:`ensure_writable`)."""
    want = digest(root)
    removed = []
    for sub, names in SOURCES.items():
        source_dir = os.path.join(root, sub)
        modules = {os.path.splitext(name)[0] for name in names}
        for cache, make in _locations(source_dir):
            removed += _clean(cache, modules, want, make)
    ensure_writable(root)
    return removed


def ensure_writable(root: str = _ROOT) -> str | None:
    """When numba can write a cache for some kernel folder nowhere -- an install owned by another
    account, a home it cannot write (``HOME=/``: what ``docker run --user`` gives a uid without a
    passwd entry) -- point numba at a temporary folder of this process's (``NUMBA_CACHE_DIR``),
    so that the kernels compile there instead of numba refusing to cache ("no locator
    available"); returns that folder, or None when numba has a place. The kernels then compile
    once per process: set ``NUMBA_CACHE_DIR`` to a writable folder to keep them."""
    for sub in SOURCES:
        if not any(_writable(place) for place, _ in _locations(os.path.join(root, sub))):
            break
    else:
        return None
    folder = tempfile.mkdtemp(prefix="layouts-numba-")
    os.environ["NUMBA_CACHE_DIR"] = folder
    numba = sys.modules.get("numba")
    if numba is not None:                       # numba read its config already
        numba.config.CACHE_DIR = folder
    return folder


def _writable(folder: str) -> bool:
    """Whether a file can be made in ``folder`` (made if missing), as numba checks a cache folder."""
    try:
        os.makedirs(folder, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def _clean(cache: str, modules: set[str], want: str, make: bool) -> list[str]:
    stamp = os.path.join(cache, STAMP)
    try:
        with open(stamp) as f:
            if f.read() == want:
                return []
    except OSError:
        pass
    removed = []
    try:
        names = os.listdir(cache)
    except OSError:                             # no cache there (yet)
        names = None
    for name in names or ():
        # numba names a cache file <module>.<function>-<line>.py<version>.nbi / .nbc
        if name.endswith((".nbi", ".nbc")) and name.split(".", 1)[0] in modules:
            try:
                os.remove(os.path.join(cache, name))
                removed.append(os.path.join(cache, name))
            except OSError:
                pass
    try:
        if names is None:
            if not make:
                return removed
            os.makedirs(cache, exist_ok=True)   # the digest is saved before numba caches there
        part = f"{stamp}.{os.getpid()}"
        with open(part, "w") as f:
            f.write(want)
        os.replace(part, stamp)                 # whole, for a process that reads it meanwhile
    except OSError:
        pass
    return removed
