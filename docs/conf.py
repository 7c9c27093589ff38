"""Sphinx configuration: ``python -m sphinx -W --keep-going -b html docs docs/_build/html``.

Pages are MyST markdown; every ```python block in them runs in the tests (tests/test_docs.py).
The notebooks are executed when the site is built (myst-nb), so their pages show their outputs.
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
nb_execution_mode = "force"           # executed at build: every notebook page shows its outputs
nb_execution_timeout = 600
nb_execution_raise_on_error = True    # a cell that fails fails the build (-W)

html_theme = "pydata_sphinx_theme"
html_title = f"layouts {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,   # the six sections fit one line at 1280 px
    # no "On this page" column: the guides' code gets its width (a code line of 98 characters
    # fits a 1280-pixel window, tests/test_docs_site.py); the sections are in the left column
    "secondary_sidebar_items": [],
}
html_static_path = []
# the single pages have no section to navigate: no empty "Section Navigation" beside them
html_sidebars = {"index": [], "install": [], "performance": [], "design-notes": []}
