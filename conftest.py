"""The doctests of modules that speak to an optional library (torch, protobuf, dask) run where
that library is installed and are skipped elsewhere, so the examples themselves stay plain
``>>> import torch``; under CI (``CI`` set), whose test extra installs them all, they always run
and a missing library fails."""

import importlib.util
import os
from pathlib import Path

import pytest

#: module file (relative to this folder) -> the import its examples need
OPTIONAL = {
    "layouts/interop/pytorch.py": "torch",
    "layouts/interop/caffe_schema.py": "google.protobuf",
    "layouts/interop/caffe/binaryproto.py": "google.protobuf",
    "layouts/interop/caffe/proto.py": "google.protobuf",
    "layouts/chunked/dask.py": "dask.array",
}
ROOT = Path(__file__).resolve().parent


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:            # a parent package is missing
        return False


def pytest_collection_modifyitems(config, items):
    if os.environ.get("CI"):
        return
    for item in items:
        if type(item).__name__ != "DoctestItem":
            continue
        try:
            rel = Path(str(item.fspath)).resolve().relative_to(ROOT).as_posix()
        except ValueError:
            continue
        needs = OPTIONAL.get(rel)
        if needs and not _installed(needs):
            item.add_marker(pytest.mark.skip(reason=f"the examples need {needs}, not installed"))


#: a deprecated alias module (importing it warns): tests/test_preprocess.py imports it on purpose
collect_ignore = ["layouts/kernels/preprocess.py"]
