"""Sphinx configuration: ``python -m sphinx -W --keep-going -b html docs docs/_build/html``.

Pages are MyST markdown; every ```python block in them runs in the tests (tests/test_docs.py).
The notebooks are rendered as stored, without executing them (the tests execute them).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))             # the checkout's package, installed or not
sys.path.insert(0, str(HERE / "_ext"))

import layouts  # noqa: E402

project = "layouts"
author = "The layouts developers"
copyright = "The layouts developers"
version = release = layouts.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "myst_nb",
    "bench_results",
    "cli_help",
    "module_index",
]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "Thumbs.db", ".DS_Store"]

# numpydoc-style docstrings, read by napoleon (part of Sphinx: no extra package)
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
autodoc_member_order = "bysource"
autodoc_typehints = "none"            # the docstrings' Parameters sections say the types

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "off"             # rendered as stored: tests/test_notebooks.py executes them

html_theme = "pydata_sphinx_theme"
html_title = f"layouts {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path = []
