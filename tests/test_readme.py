"""The README's examples run as written."""

import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.DOTALL)


def test_readme_has_examples_and_the_quick_start():
    text = README.read_text()
    assert len(BLOCKS) >= 4
    quick_start = text[text.index("## Quick start") :].split("##")[1]
    assert "make demo" in quick_start and "make test" in quick_start


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index, capsys):
    exec(compile(BLOCKS[index], f"README.md example {index + 1}", "exec"), {"__name__": "__readme__"})
    capsys.readouterr()
