"""Sphinx configuration of the documentation site: ``make docs`` builds it into docs/_build/html.

The pages are the Markdown files of docs/ (MyST); the reference is generated from the
docstrings (autodoc) and from each ``uno`` command's ``--help`` (docs/_ext/unodocs.py). Every
warning is an error (``make docs`` runs ``sphinx-build -W --keep-going -n``): a broken link
between pages, a link to a repository file that does not exist, or a reference autodoc cannot
resolve fails the build.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))  # this checkout's uno_env, not an installed one
sys.path.insert(0, str(DOCS / "_ext"))
os.environ.setdefault("COLUMNS", "100")  # the width of each command's --help on the CLI page

project = "uno-env"
author = "the uno-env developers"
copyright = "the uno-env developers, MIT licence"

extensions = ["myst_parser", "sphinx.ext.autodoc", "unodocs"]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "data", "img/notebooks/README.md"]
# the site's pages are every Markdown file here; an orphan page (in no toctree) is a warning
suppress_warnings: list[str] = []

# MyST: `#section` anchors as GitHub makes them, so that links written for GitHub work here too
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]

# autodoc: members in the source's order, signatures without the type hints' clutter
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented"
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_preserve_defaults = True
autodoc_inherit_docstrings = False  # gymnasium's and PettingZoo's docstrings are theirs
# the docstrings write code in single backticks, as Markdown does
default_role = "literal"

html_theme = "furo"
html_title = "uno-env"
html_static_path: list[str] = []
html_show_sourcelink = False
html_copy_source = False
