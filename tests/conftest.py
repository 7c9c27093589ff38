"""Hypothesis in CI is derandomized: a run is reproducible and a landing cannot hinge on which
examples one draw happened to try. Locally the draws stay random, so the property and fuzz tests
keep finding new cases (run with ``CI=true`` to replay CI's examples).

The kernels' machine profile is pinned in every test (and every child process a test starts) to
a reference machine (:mod:`layouts.kernels.machine.machines`), never read from the host: which strategy and
tile a copy takes then does not depend on the CPU the suite runs on, and a profile saved by
``python -m layouts tune`` never changes a test. ``LAYOUTS_TEST_PROFILE=<kind>`` runs the suite as
if on another kind (``.ci/run`` does, for the CPU-sensitive files); ``host`` uses this machine's
defaults. Tests that check a choice pin the profile they were written for themselves. Conversions run
on the kernels from the first call (``LAYOUTS_EAGER_KERNELS=1``)."""

import os
import tempfile

os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="layouts-tests-cache-")
_kind = os.environ.get("LAYOUTS_TEST_PROFILE", "epyc-avx512")
if _kind == "host":
    os.environ.pop("LAYOUTS_PROFILE", None)
else:
    os.environ["LAYOUTS_PROFILE"] = _kind

# the kernels from the first conversion on, in every test and child process, whatever ran before
# (by default a process copies with numpy until the kernels pay for loading numba; that rule is
# tested on its own, in child processes without this variable: tests/test_kernel_loading.py)
os.environ["LAYOUTS_EAGER_KERNELS"] = "1"

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
