"""Hypothesis in CI is derandomized: a run is reproducible and a landing cannot hinge on which
examples one draw happened to try. Locally the draws stay random, so the property and fuzz tests
keep finding new cases (run with ``CI=true`` to replay CI's examples).

The kernels' machine profile is this machine's defaults in every test (and every child process a
test starts): a profile saved by ``python -m layouts tune`` or named by ``$LAYOUTS_PROFILE`` would
otherwise change which strategies run and what the doctests print."""

import os
import tempfile

os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="layouts-tests-cache-")
os.environ.pop("LAYOUTS_PROFILE", None)

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
