"""Hypothesis in CI is derandomized: a run is reproducible and a landing cannot hinge on which
examples one draw happened to try. Locally the draws stay random, so the property and fuzz tests
keep finding new cases (run with ``CI=true`` to replay CI's examples)."""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
