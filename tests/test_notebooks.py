"""The notebooks run top to bottom at small size (code cells executed in one namespace, no
Jupyter needed), and are committed without outputs."""

import json
import re

import pytest

from notebooks.run_notebooks import NOTEBOOK_DIR, execute_notebook, notebook_paths

NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
RESEARCH = ["rules_statistics", "strategy_ladder", "challenge_decision", "training"]


def test_every_notebook_is_found():
    names = {path.stem for path in NOTEBOOKS}
    assert {"quickstart", *RESEARCH} <= names


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, monkeypatch, capsys):
    monkeypatch.setenv("UNO_NOTEBOOK_SIZE", "small")
    namespace = execute_notebook(path, quiet=False)
    capsys.readouterr()
    if path.stem in RESEARCH:
        assert namespace["SIZE"] == "small"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_has_no_outputs(path):
    """Outputs are stripped from git: the figures of the full-size run are PNGs in
    docs/img/notebooks/ (python -m notebooks.run_notebooks --size full)."""
    notebook = json.loads(path.read_text())
    for number, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"{path.name} cell {number} has outputs"
            assert cell.get("execution_count") is None, f"{path.name} cell {number} has an execution count"


@pytest.mark.parametrize("name", RESEARCH)
def test_research_notebook_has_one_parameter_cell(name):
    """One cell tagged "parameters" (papermill) reads UNO_NOTEBOOK_SIZE and fixes the seed."""
    notebook = json.loads((NOTEBOOK_DIR / f"{name}.ipynb").read_text())
    tagged = [c for c in notebook["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1
    source = "".join(tagged[0]["source"])
    assert "UNO_NOTEBOOK_SIZE" in source and "SEED =" in source


@pytest.mark.parametrize("name", RESEARCH)
def test_embedded_figures_are_saved_by_the_notebook(name):
    """Every figure a notebook's markdown embeds from docs/img/notebooks/ is one it saves."""
    notebook = json.loads((NOTEBOOK_DIR / f"{name}.ipynb").read_text())
    text = "".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")
    code = "".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")
    embedded = set(re.findall(r"docs/img/notebooks/(\w+)\.png", text))
    saved = set(re.findall(r'save_figure\(fig, "(\w+)"', code))
    assert embedded and embedded == saved


def test_run_notebooks_finds_notebooks_by_name():
    assert notebook_paths(None) == NOTEBOOKS
    assert notebook_paths(["training.ipynb", "quickstart"]) == [
        NOTEBOOK_DIR / "training.ipynb",
        NOTEBOOK_DIR / "quickstart.ipynb",
    ]
    with pytest.raises(ValueError, match="no notebook"):
        notebook_paths(["nonexistent"])
