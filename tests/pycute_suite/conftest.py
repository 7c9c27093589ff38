# pycute's own unit tests, vendored: tests/test_cute_pycute_suite.py runs them against layouts.cute
# (pycute's names are layouts.cute's); collected directly they would test whatever `pycute` imports.
collect_ignore_glob = ["test_*.py"]
