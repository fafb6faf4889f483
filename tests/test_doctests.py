"""The ``>>>`` examples of the module docstrings run (doctest), and every module that
has one is listed here."""

import doctest
import importlib
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODULES = [
    "uno_env.agents",
    "uno_env.agents.text",
    "uno_env.arena",
    "uno_env.engine.game",
    "uno_env.engine.record",
    "uno_env.env",
    "uno_env.gym_env",
    "uno_env.session",
    "uno_env.vector.core",
    "uno_env.vector.sb3_adapter",
]


def module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_every_module_with_an_example_is_listed():
    found = set()
    for package in ("uno_env", "experiments"):
        for path in (ROOT / package).rglob("*.py"):
            if "__pycache__" not in path.parts and ">>> " in path.read_text():
                found.add(module_name(path))
    assert found == set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    if name.endswith("sb3_adapter"):
        pytest.importorskip("sb3_contrib")
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.attempted > 0
    assert result.failed == 0
