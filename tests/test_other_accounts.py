"""An account other than the installer's: an install it cannot write, a home it cannot write or
read. The whole path runs in CI as uid 65534 on a root-owned install (.ci/unprivileged.py); here,
the three decisions it rests on, each with the obstacle simulated."""

from __future__ import annotations

import os
import warnings

import pytest

from layouts.kernels.machine import jit_cache, profile


def test_numba_gets_a_folder_of_its_own_when_it_can_cache_nowhere(monkeypatch, tmp_path):
    """Every place numba may cache a kernel folder refused: a temporary folder becomes numba's
    cache dir (the environment variable, and numba's config when numba is loaded)."""
    numba = pytest.importorskip("numba")
    monkeypatch.setattr(jit_cache, "_writable", lambda folder: False)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)
    folder = jit_cache.ensure_writable()
    try:
        assert folder and os.path.isdir(folder) and os.path.basename(folder).startswith("layouts-numba-")
        assert os.environ["NUMBA_CACHE_DIR"] == folder == numba.config.CACHE_DIR
    finally:
        os.rmdir(folder)


def test_numba_keeps_its_own_places_when_one_is_writable(monkeypatch):
    monkeypatch.setattr(jit_cache, "_writable", lambda folder: folder.endswith("__pycache__"))
    monkeypatch.setenv("NUMBA_CACHE_DIR", "/nowhere")
    assert jit_cache.ensure_writable() is None and os.environ["NUMBA_CACHE_DIR"] == "/nowhere"


def test_writable_tells_a_folder_apart_from_a_file(tmp_path):
    assert jit_cache._writable(str(tmp_path / "new" / "cache"))
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert not jit_cache._writable(str(blocker / "cache"))


class _Unreadable(type(profile.default_path())):
    """A path in a folder this account may not enter: asking whether it is a file raises."""

    def is_file(self):
        raise PermissionError(13, "Permission denied", str(self))


def test_a_profile_that_cannot_be_read_counts_as_absent(monkeypatch):
    monkeypatch.delenv("LAYOUTS_PROFILE", raising=False)
    monkeypatch.setattr(profile, "default_path", lambda: _Unreadable("/root/.cache/layouts/profile.json"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = profile._from_files()
    assert got == profile.detect()
    [w] = [w for w in caught if "profile" in str(w.message)]
    assert "cannot be read (Permission denied)" in str(w.message) and "defaults" in str(w.message)


def test_the_command_line_words_a_failed_access_as_an_access():
    from layouts.cli.main import _message
    err = PermissionError(13, "Permission denied", "/root/.cache/layouts/profile.json")
    assert _message(err) == "cannot access /root/.cache/layouts/profile.json: Permission denied"


class _Unwritable(type(profile.default_path())):
    """A path in a folder this account may not enter: making, asking and removing all raise."""

    def mkdir(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    def write_text(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    def unlink(self, missing_ok=False):
        raise PermissionError(13, "Permission denied", str(self))


def test_wisdom_that_cannot_be_saved_stays_in_the_process(monkeypatch):
    """The planner's measurements are kept in the process when their file's folder cannot be
    entered (HOME=/root for another account): saving them raises nothing (it raised the
    PermissionError of removing a temporary file that was never made)."""
    from layouts.kernels.machine import wisdom
    monkeypatch.setattr(wisdom, "path", lambda: _Unwritable("/root/.cache/layouts/wisdom.json"))
    monkeypatch.setattr(wisdom, "_store", {"a machine": {"a copy": "a choice"}})
    wisdom._save()
    assert wisdom._store == {"a machine": {"a copy": "a choice"}}
