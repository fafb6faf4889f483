"""The site's own Sphinx extension: what makes the Markdown of the repository a site.

* **Links to the repository's files.** The pages are written to be read on GitHub as well,
  so they link to code and scripts by relative path (``../uno_env/training/ppo.py``). On
  the site such a link becomes the file's path in code type (the site is built from the
  clone that holds it); a path that does not exist is a warning, so a build with ``-W``
  fails on it. Links to the research record (``../experiments/records.md``, ...) go to its
  pages in the site (:data:`SITE_PAGES`).
* **The env's spec page** (``% docstring: uno_env.env``): a module docstring, which
  the package writes in reStructuredText-flavoured Markdown, put in the page as Markdown.
* **The CLI reference** (the ``uno-help`` directive): each ``uno`` command's ``--help``,
  captured from the command itself at build time (argparse and tyro alike), so the page
  never drifts from the parsers.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import re
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

LOG = logging.getLogger(__name__)
DOCS = Path(__file__).resolve().parent.parent
ROOT = DOCS.parent

SITE_PAGES = {
    "experiments/README.md": "results/experiments",
    "experiments/records.md": "results/records",
    "experiments/history/training.md": "results/history_training",
    "experiments/history/agents.md": "results/history_agents",
    "experiments/history/vector.md": "results/history_vector",
}
"""Repository Markdown files outside docs/ that the site shows (``{include}``-d by a page of
docs/results/): a link to one of them goes to its page."""

LINK = re.compile(r"(?<!!)\[([^\]\n]*)\]\(([^)\s]+)\)")
"""A Markdown link (not an image): its text and its target."""
FENCE = re.compile(r"^(```|~~~)", re.M)


def _outside_fences(text: str, change) -> str:
    """``change`` applied to the parts of a Markdown text outside its code fences."""
    parts = re.split(r"(^```.*?^```[^\n]*$)", text, flags=re.M | re.S)
    return "".join(part if i % 2 else change(part) for i, part in enumerate(parts))


def rewrite_links(text: str, source: Path, page: Path) -> str:
    """The links of ``text`` (a file at ``source``, shown as the page ``page``) for the site."""

    def one(match: re.Match[str]) -> str:
        label, target = match.group(1), match.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            return match.group(0)  # a URL, or a section of the same page
        path, _, anchor = target.partition("#")
        resolved = (source.parent / path).resolve()
        try:
            relative = resolved.relative_to(ROOT).as_posix()
        except ValueError:
            LOG.warning("%s: link outside the repository: %s", source, target, type="unodocs", subtype="link")
            return match.group(0)
        if not resolved.exists():
            LOG.warning("%s: link to a file that does not exist: %s", source, target, type="unodocs", subtype="link")
            return match.group(0)
        if relative in SITE_PAGES:
            site = DOCS / (SITE_PAGES[relative] + ".md")
            return f"[{label}]({_relative(site, page)}{'#' + anchor if anchor else ''})"
        if relative.startswith("docs/") and resolved.is_file() and not relative.startswith("docs/data/"):
            return f"[{label}]({_relative(resolved, page)}{'#' + anchor if anchor else ''})"
        if label.strip("`").rstrip("/") and label.strip("`").rstrip("/") in relative:
            return label if label.startswith("`") else f"{label} (`{relative}`)"
        return f"{label} (`{relative}`)"

    return _outside_fences(text, lambda part: LINK.sub(one, part))


def _relative(target: Path, page: Path) -> str:
    """``target`` as a link from the page ``page`` (both paths of files)."""
    import os

    return Path(os.path.relpath(target, page.parent)).as_posix()


def docstring_markdown(module_name: str) -> str:
    """A module's docstring as MyST Markdown: its sections (a title underlined with dashes)
    become headings, ````code```` plain code, ``>>>`` examples code blocks."""
    doc = importlib.import_module(module_name).__doc__ or ""
    lines = doc.strip("\n").split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if i + 1 < len(lines) and re.fullmatch(r"-{3,}", lines[i + 1]) and line.strip():
            out += [f"## {line.strip()}", ""]
            i += 2
            continue
        if line.startswith(">>> "):
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i])
                i += 1
            out += ["```pycon", *block, "```"]
            continue
        line = re.sub(r"``([^`]+)``", r"`\1`", line)
        out.append(re.sub(r":(?:mod|class|func|data|meth|attr):`~?([^`]+)`", r"{py:obj}`\1`", line))
        i += 1
    return "\n".join(out)


def _source_read(app: Sphinx, docname: str, content: list[str]) -> None:
    page = Path(app.env.doc2path(docname))
    text = content[0]
    text = re.sub(r"^% docstring: ([\w.]+)$", lambda m: docstring_markdown(m.group(1)), text, flags=re.M)
    content[0] = rewrite_links(text, page, page)


def _include_read(app: Sphinx, relative_path: Path, parent_docname: str, content: list[str]) -> None:
    """An included file's links, rewritten for the page that shows it (a page of
    :data:`SITE_PAGES`: MyST names the including page by its stem alone)."""
    source = (DOCS / relative_path).resolve()
    shown_on = SITE_PAGES.get(source.relative_to(ROOT).as_posix())
    if shown_on is None:
        LOG.warning("%s is included but is no page of SITE_PAGES", source, type="unodocs", subtype="include")
        return
    content[0] = rewrite_links(content[0], source, DOCS / (shown_on + ".md"))


def command_help(command: str) -> str:
    """What ``uno COMMAND --help`` prints (``uno --help`` for the empty command)."""
    from uno_env.cli import main as cli

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        if command:
            importlib.import_module(cli.COMMANDS[command][0]).main(["--help"])
        else:
            cli.main(["--help"])
    return out.getvalue().rstrip()


class UnoHelp(SphinxDirective):
    """``uno-help COMMAND``: the command's --help as a literal block."""

    optional_arguments = 1

    def run(self) -> list[nodes.Node]:
        command = self.arguments[0] if self.arguments else ""
        text = command_help(command)
        if not text:
            raise self.error(f"uno {command} --help printed nothing")
        block = nodes.literal_block(text, text)
        block["language"] = "text"
        return [block]


EXTERNAL = ("numpy", "gymnasium", "pettingzoo", "stable_baselines3", "torch", "ray", "pathlib", "shlex", "typing")
"""Packages whose objects the docstrings name but the site does not document (no network at
build time for intersphinx): a reference into one of them is shown as code, not linked."""


def resolve_python_name(target: str, module: str | None, klass: str | None) -> object | None:
    """The object a docstring's reference names: absolute, or relative to the module (and the
    class) it was written in, or None when no such object exists."""
    target = target.lstrip("~.")
    bases = [""]
    if module:
        parts = module.split(".")
        bases = [".".join(parts[:k]) + "." for k in range(len(parts), 0, -1)] + [""]
        if klass:
            bases.insert(0, f"{module}.{klass}.")
    for base in bases:
        found = _import_dotted(base + target)
        if found is not None:
            return found
    return None


def _import_dotted(dotted: str) -> object | None:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(obj, name):
                annotations = getattr(obj, "__annotations__", {})
                if name in annotations or name in getattr(obj, "__dataclass_fields__", {}):
                    return annotations.get(name, name)
                return None
            obj = getattr(obj, name)
        return obj
    return None


def _missing_reference(app: Sphinx, env, node, contnode):
    """A Python reference the site has no page for: shown as code when the object exists in the
    code (an internal module or helper the reference does not list, or another package's
    object), left to warn (a broken reference) when it does not."""
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"]
    if target.split(".")[0] in EXTERNAL or target in {"None", "True", "False"}:
        return contnode
    modules = [node.get("py:module"), _module_of_source(node.source or "")]
    if any(resolve_python_name(target, m, node.get("py:class")) is not None for m in modules):
        return contnode
    return None


def _module_of_source(source: str) -> str | None:
    """The module a docstring was written in, from autodoc's ``PATH:docstring of NAME``."""
    path = Path(source.split(":docstring of")[0])
    try:
        parts = list(path.with_suffix("").relative_to(ROOT).parts)
    except ValueError:
        return None
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MD_TABLE_RULE = re.compile(r"^\|(\s*:?-+:?\s*\|)+\s*$")


def _cells(line: str) -> list[str]:
    """The cells of a Markdown table row (a ``|`` inside backticks is text)."""
    cells, cell, quoted = [], "", False
    for char in line.strip()[1:]:
        if char == "`":
            quoted = not quoted
        if char == "|" and not quoted:
            cells.append(cell.strip())
            cell = ""
        else:
            cell += char
    return cells


def markdown_tables_as_rst(lines: list[str]) -> list[str]:
    """The docstring's Markdown tables (the package writes its generated tables so) as
    reStructuredText list-tables, so that autodoc shows them as tables."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        if i + 1 < len(lines) and lines[i].lstrip().startswith("|") and MD_TABLE_RULE.match(lines[i + 1].strip()):
            indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
            rows = [_cells(lines[i])]
            i += 2
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append(_cells(lines[i]))
                i += 1
            width = len(rows[0])
            if out and out[-1].strip():
                out.append("")
            out += [f"{indent}.. list-table::", f"{indent}   :header-rows: 1", ""]
            for row in rows:
                row = (row + [""] * width)[:width]
                out.append(f"{indent}   * - {row[0] or '..'}")
                out += [f"{indent}     - {cell or '..'}" for cell in row[1:]]
            out.append("")
            continue
        out.append(lines[i])
        i += 1
    return out


def _process_docstring(app, what, name, obj, options, lines: list[str]) -> None:
    lines[:] = markdown_tables_as_rst(lines)


def setup(app: Sphinx) -> dict[str, object]:
    app.setup_extension("sphinx.ext.autodoc")  # its docstrings' tables are converted here
    app.connect("source-read", _source_read)
    app.connect("missing-reference", _missing_reference)
    app.connect("autodoc-process-docstring", _process_docstring)
    app.connect("include-read", _include_read)
    app.add_directive("uno-help", UnoHelp)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
