"""numba's on-disk cache of the kernels follows every source they are compiled from
(:mod:`layouts.kernels.machine.jit_cache`): a change to one module reaches the kernels that inline it."""

import ast
import os
import shutil
import subprocess
import sys
import textwrap

from layouts.kernels.machine import jit_cache

PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(jit_cache.__file__))))
JIT_MARKS = ("@njit", "@jit", "@intrinsic", "@overload", "@cfunc", "@vectorize", "numba.njit(")
#: modules that numba code imports only to call from Python (a split over threads, a fault point,
#: an error, the profile), never compiled in
CALLED_FROM_PYTHON = {"kernels/__init__.py", "kernels/machine/__init__.py", "kernels/copy.py", "kernels/runtime/pool.py", "kernels/machine/profile.py",
                      "inplace/faultpoints.py", "errors.py"}


def _package_files():
    for folder, dirs, files in os.walk(PACKAGE):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if name.endswith(".py"):
                yield os.path.relpath(os.path.join(folder, name), PACKAGE).replace(os.sep, "/")


def _sources():
    return {f"{sub.replace(os.sep, '/')}/{name}" for sub, names in jit_cache.SOURCES.items() for name in names}


def _imported(path):
    """The package's modules that ``path`` (relative to the package) imports by relative imports."""
    tree = ast.parse(open(os.path.join(PACKAGE, path)).read())
    here = os.path.dirname(path).split("/") if os.path.dirname(path) else []
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = here[:len(here) - node.level + 1]
            parts = base + (node.module.split(".") if node.module else [])
            targets = [parts + [a.name] for a in node.names] if not node.module else [parts]
            for t in targets:
                for candidate in ("/".join(t) + ".py", "/".join(t + ["__init__.py"])):
                    if os.path.exists(os.path.join(PACKAGE, candidate)):
                        found.add(candidate)
                        break
    return found


def test_every_module_compiled_into_a_kernel_is_a_source():
    """The files with numba code, and what they import (but for calls made from Python), are in
    the digest: a new kernel module not listed would keep stale code again."""
    jitted = {f for f in _package_files() if any(m in open(os.path.join(PACKAGE, f)).read() for m in JIT_MARKS)}
    jitted.discard("kernels/machine/jit_cache.py")            # names the decorators in its own doc only
    assert "kernels/jit/simd.py" in jitted and "kernels/jit/small.py" in jitted     # the scan sees them
    assert jitted <= _sources(), sorted(jitted - _sources())
    needed = set().union(*(_imported(f) for f in jitted)) - CALLED_FROM_PYTHON
    assert needed <= _sources(), sorted(needed - _sources())


def _fake_package(root):
    for sub, names in jit_cache.SOURCES.items():
        os.makedirs(os.path.join(root, sub))
        for name in names:
            with open(os.path.join(root, sub, name), "w") as f:
                f.write(f"# {name}\n")


def _touch(*parts):
    os.makedirs(os.path.join(*parts[:-1]), exist_ok=True)
    open(os.path.join(*parts), "w").close()


def test_check_removes_only_this_package_kernels_compiled_from_other_sources(tmp_path, monkeypatch):
    """In each place numba may cache (beside the source, NUMBA_CACHE_DIR, the user-wide cache):
    the kernels of the listed modules go when the digest beside them is missing or another, and
    nothing else does; the user-wide folder is not made where numba did not make it."""
    import numba
    root, configured, home = str(tmp_path / "pkg"), str(tmp_path / "numba-cache"), str(tmp_path / "xdg")
    _fake_package(root)
    monkeypatch.setenv("NUMBA_CACHE_DIR", configured)
    monkeypatch.setattr(numba.config, "CACHE_DIR", configured)
    monkeypatch.setenv("XDG_CACHE_HOME", home)
    kernels = os.path.join(root, "kernels", "jit")
    in_tree, by_env, user_wide = jit_cache.cache_dirs(kernels)
    assert in_tree == os.path.join(kernels, "__pycache__")
    assert os.path.dirname(by_env) == configured and os.path.dirname(user_wide) == os.path.join(home, "numba")
    ours = ["small.interleave_kernel-186.py311.nbi", "small.interleave_kernel-186.py311.1.nbc",
            "transpose.tiles_kernel-40.py311.nbi"]
    theirs = ["other.f-3.py311.nbi", "small.cpython-311.pyc", "notes.txt"]
    for place in (in_tree, by_env):
        for name in ours + theirs:
            _touch(place, name)

    removed = jit_cache.check(root)
    assert sorted(removed) == sorted(os.path.join(p, n) for p in (in_tree, by_env) for n in ours)
    for place in (in_tree, by_env):
        assert sorted(os.listdir(place)) == sorted(theirs + [jit_cache.STAMP])
    assert not os.path.exists(user_wide)
    assert os.path.exists(os.path.join(root, "interop", "opencv", "__pycache__", jit_cache.STAMP))

    _touch(in_tree, ours[0])                            # compiled from these sources: kept
    assert jit_cache.check(root) == []
    with open(os.path.join(root, "kernels", "geometry.py"), "a") as f:
        f.write("TILE = 32\n")                          # a value compiled into the intrinsics
    _touch(user_wide, ours[2])
    assert sorted(jit_cache.check(root)) == [os.path.join(in_tree, ours[0]), os.path.join(user_wide, ours[2])]


def test_cache_dirs_are_where_numba_caches(tmp_path, monkeypatch):
    """numba itself, in a child process, caches a function of a file in a folder into the first
    of cache_dirs, and with NUMBA_CACHE_DIR set into the second."""
    import numba
    src = tmp_path / "src"
    src.mkdir()
    (src / "mod.py").write_text("from numba import njit\n\n@njit(cache=True)\ndef f(a):\n    return a + 1\n")
    code = "import sys; sys.path.insert(0, sys.argv[1]); import mod; assert mod.f(1) == 2"
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    subprocess.run([sys.executable, "-c", code, str(src)], check=True, env=env, timeout=120)
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "configured")
    subprocess.run([sys.executable, "-c", code, str(src)], check=True, env=env, timeout=120)
    monkeypatch.setenv("NUMBA_CACHE_DIR", env["NUMBA_CACHE_DIR"])
    monkeypatch.setattr(numba.config, "CACHE_DIR", env["NUMBA_CACHE_DIR"])
    in_tree, configured = jit_cache.cache_dirs(str(src))[:2]
    for place in (in_tree, configured):
        assert any(n.startswith("mod.f-") and n.endswith(".nbi") for n in os.listdir(place)), place


CONVERT = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    import numpy as np, layouts as ly
    assert ly.__file__.startswith(sys.argv[1]), ly.__file__
    x = np.arange(2 * 3 * 64 * 64, dtype=np.uint8).reshape(2, 3, 64, 64)
    print(np.array_equal(ly.convert(x, "NCHW", "NHWC", threads=1), x.transpose(0, 2, 3, 1)))
""")


def test_a_change_to_an_inlined_helper_reaches_the_cached_kernels_around_it(tmp_path):
    """A copy of the package converts NCHW->NHWC uint8 (small.py's interleave kernel, which
    inlines transpose.batch_offsets) and caches it; after a deliberate fault in batch_offsets the
    next process must run the changed code (wrong bytes here), not the cached kernel."""
    copy = tmp_path / "checkout"
    shutil.copytree(PACKAGE, copy / "layouts", ignore=shutil.ignore_patterns("__pycache__"))

    def converts_right():
        done = subprocess.run([sys.executable, "-c", CONVERT, str(copy)], capture_output=True, text=True,
                              timeout=300, cwd=str(tmp_path))
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout.split()[-1] == "True"

    assert converts_right()
    assert converts_right()                             # from the cache
    transpose = copy / "layouts" / "kernels" / "jit" / "transpose.py"
    text = transpose.read_text()
    start = text.index("def batch_offsets(")
    faulty = text[:start] + text[start:].replace("db = U0", "db = U1", 1)
    assert faulty != text
    transpose.write_text(faulty)
    assert not converts_right()
