"""The block of ``kernels/__init__.py`` that exports every kernel by its name, generated.

Each function and upper-case constant a kernel module defines (read from its source, so that
a stale block never stops the generator) is imported by the package
(``K.step_game``). The imports are written out, not looped over, so that
:mod:`~uno_env.engine.numba_cache` follows ``K.name`` to the one module that defines it.
``python -m uno_env.docs --write`` rewrites the block; ``tests/test_engine_design.py``
checks that it is current.
"""

from __future__ import annotations

import ast
import pathlib
import re

from .layout import generated_block, rewrite_block

FOLDER = pathlib.Path(__file__).resolve().parent / "kernels"
BLOCK = generated_block("exports")


def defined_names(module: str) -> list[str]:
    """The public names kernel module ``module`` defines itself, in name order: its
    functions and its upper-case constants (``KIND_PLAY``, ``SUMMARY_STATUS``...)."""
    tree = ast.parse((FOLDER / f"{module}.py").read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        targets = node.targets if isinstance(node, ast.Assign) else []
        for target in targets:
            for name in target.elts if isinstance(target, ast.Tuple) else [target]:
                if isinstance(name, ast.Name) and name.id.isupper():
                    names.add(name.id)
    return sorted(name for name in names if not name.startswith("_"))


def modules() -> list[str]:
    """The kernel modules, in the order ``kernels.MODULES`` gives (read from its source)."""
    source = (FOLDER / "__init__.py").read_text(encoding="utf-8")
    found = re.search(r"^MODULES = \((.*?)\)", source, re.DOTALL | re.MULTILINE)
    assert found is not None, "kernels/__init__.py has no MODULES"
    return re.findall(r'"(\w+)"', found.group(1))


def export_lines() -> list[str]:
    """The block: one ``from .module import (...)`` per module, then ``KERNELS``."""
    lines: list[str] = []
    every: list[str] = []
    for module in sorted(modules()):
        names = defined_names(module)
        every += names
        if names:
            lines += [f"from .{module} import (", *(f"    {name}," for name in names), ")"]
    lines += ["", "KERNELS = ["] + [f'    "{name}",' for name in sorted(every)] + ["]"]
    return lines


def write_exports(path=None) -> bool:
    """Rewrite the block of ``kernels/__init__.py``; True when it changed."""
    return rewrite_block(path or FOLDER / "__init__.py", BLOCK, export_lines())
