"""The README's examples, and those of the guide's pages made from it, run as written."""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README] + [
    ROOT / "docs" / f"{name}.md" for name in ("install", "quickstart", "envs", "rules", "programs", "serve")
]
"""The files whose Python examples run here (docs/RL_LIBRARIES.md's run in test_rl_libraries.py)."""
BLOCKS = [
    (page, index, code)
    for page in PAGES
    for index, code in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(), re.DOTALL))
]


def test_readme_is_short_has_an_example_and_the_quick_start():
    text = README.read_text()
    assert len(text.splitlines()) <= 200, "README.md is the front page: at most 200 lines, the rest is on the site"
    assert sum(page == README for page, _, _ in BLOCKS) >= 1
    quick_start = text[text.index("## Quick start") :].split("##")[1]
    assert "make demo" in quick_start and "make test" in quick_start and "make docs" in quick_start


def test_readme_headline_table_has_at_most_ten_rows_each_with_its_command():
    text = README.read_text()
    table = text[text.index("## Headline figures") :].split("\n## ")[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| figure")]
    assert 1 <= len(rows) <= 10
    for row in rows:
        assert re.search(r"\| `(uno|python -m) [^`]+`[^|]* \|$", row), f"a headline figure without its command: {row}"


def test_every_guide_page_with_examples_has_some():
    assert {page.name for page, _, _ in BLOCKS} >= {"README.md", "quickstart.md", "envs.md", "rules.md", "serve.md"}


@pytest.mark.parametrize(("page", "index", "code"), BLOCKS, ids=[f"{p.name}-{i + 1}" for p, i, _ in BLOCKS])
def test_example_runs(page, index, code, capsys):
    exec(compile(code, f"{page.name} example {index + 1}", "exec"), {"__name__": "__readme__"})
    capsys.readouterr()
