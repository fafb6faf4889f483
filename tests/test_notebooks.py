"""The notebooks run top to bottom (code cells executed in one namespace, no Jupyter needed)."""

import json
import pathlib

import matplotlib
import pytest

NOTEBOOKS = sorted((pathlib.Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, capsys):
    matplotlib.use("Agg")
    notebook = json.loads(path.read_text())
    namespace = {"__name__": "__notebook__"}
    code_cells = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    assert code_cells
    for number, cell in enumerate(code_cells, 1):
        source = "".join(cell["source"])
        exec(compile(source, f"{path.name} cell {number}", "exec"), namespace)
    capsys.readouterr()
