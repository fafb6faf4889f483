"""Run the notebooks top to bottom without Jupyter, the way the tests do.

    python -m notebooks.run_notebooks                     # every notebook at small size (what the tests run)
    python -m notebooks.run_notebooks --size full         # full size: writes docs/img/notebooks/*.png
    python -m notebooks.run_notebooks --size full strategy_ladder challenge_decision

Each notebook's code cells are executed in order in one namespace with matplotlib's
Agg backend; ``UNO_NOTEBOOK_SIZE`` is set for the notebooks' parameter cell. The
committed notebooks carry no outputs (a test checks it); the full-size figures are
written by the notebooks themselves (``uno_env.arena.notebook.save_figure``) and
embedded in their markdown, ``docs/notebooks.md`` and the README.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import time
from pathlib import Path

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"


def notebook_paths(names: list[str] | None = None) -> list[Path]:
    """The notebooks by stem (all of them, sorted, without names)."""
    if not names:
        return sorted(NOTEBOOK_DIR.glob("*.ipynb"))
    paths = []
    for name in names:
        path = NOTEBOOK_DIR / f"{Path(name).stem}.ipynb"
        if not path.exists():
            raise ValueError(f"no notebook {path}")
        paths.append(path)
    return paths


def code_cells(path: Path) -> list[str]:
    notebook = json.loads(path.read_text())
    return ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"]


def execute_notebook(path: Path, quiet: bool = True) -> dict:
    """Execute every code cell of ``path`` in one fresh namespace; returns the namespace.
    Figures are closed after each cell (``plt.show()`` is a no-op under Agg)."""
    import matplotlib  # plots only: the Agg backend is chosen before pyplot loads

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # plots only

    namespace = {"__name__": "__notebook__"}
    for number, source in enumerate(code_cells(path), 1):
        code = compile(source, f"{path.name} cell {number}", "exec")
        if quiet:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(code, namespace)
        else:
            exec(code, namespace)
        plt.close("all")
    return namespace


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m notebooks.run_notebooks", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("names", nargs="*", help="notebook names (default: all)")
    parser.add_argument("--size", choices=("small", "full"), default="small", help="UNO_NOTEBOOK_SIZE (default small)")
    parser.add_argument("--verbose", action="store_true", help="show what the cells print")
    args = parser.parse_args(argv)
    os.environ["UNO_NOTEBOOK_SIZE"] = args.size
    for path in notebook_paths(args.names):
        start = time.perf_counter()
        execute_notebook(path, quiet=not args.verbose)
        print(f"{path.name}: ran at {args.size} size in {time.perf_counter() - start:.1f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
