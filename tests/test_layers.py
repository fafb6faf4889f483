"""The layers of docs/ARCHITECTURE.md, checked on the import graph of the sources (read with
ast, nothing imported): each module imports only its own layer and the ones below, no import
cycle (imports inside functions count), imports inside functions only for optional
dependencies, each saying so, and the experiment scripts stay outside the package."""

from __future__ import annotations

import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCES = ("uno_env", "experiments")

LAYERS = {
    "uno_env.engine": 0,  # the rules: numpy and numba only
    "uno_env.agents": 1,  # every agent, compiled or not: reads the engine
    "uno_env": 2,  # the envs (PettingZoo, Gymnasium, vector) and the views (render, replay, playthroughs)
    "uno_env.arena": 3,  # the libraries of the programs: tournaments,
    "uno_env.training": 3,  # training,
    "uno_env.bench": 3,  # benchmarks,
    "uno_env.cli.args": 3,  # and the command-line arguments they share with the commands
    "uno_env.cli": 4,  # the doors: the uno command and the web table
    "experiments": 5,  # the experiments: may import anything, imported by nothing above
}
"""Module prefix -> layer (the longest prefix that matches decides)."""

OPTIONAL = {
    "torch": "the train extra",
    "tyro": "the train extra",
    "tensorboard": "the train extra",
    "stable_baselines3": "the train extra",
    "sb3_contrib": "the train extra",
    "ray": "the scale extra",
    "starlette": "the web extra",
    "uvicorn": "the web extra",
    "rlcard": "the bench extra",
    "matplotlib": "plots only",
    "PIL": "rgb_array rendering only",
}
"""The modules that may be imported inside a function (optional, or heavy and rarely needed)."""

OPTIONAL_ADAPTERS = {
    "uno_env.vector.sb3_adapter": "stable-baselines3, the train extra",
}
"""Project modules that import an optional dependency at their top, so their package imports them
inside a function (a module ``__getattr__``), with the same comment."""


def module_of(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def sources() -> dict[str, pathlib.Path]:
    return {module_of(p): p for top in SOURCES for p in (ROOT / top).rglob("*.py") if "__pycache__" not in p.parts}


def imported(node: ast.AST, module: str, is_package: bool, known: dict) -> list[str]:
    """The project modules an import statement names (``from a import b``: a.b when it is a module)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            base = module.split(".") if is_package else module.split(".")[:-1]
            base = base[: len(base) - node.level + 1]
            stem = ".".join(base + ([node.module] if node.module else []))
        else:
            stem = node.module or ""
        names = [f"{stem}.{a.name}" if f"{stem}.{a.name}" in known else stem for a in node.names]
    else:
        return []
    out = []
    for name in names:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name and name != module:
            out.append(name)
    return out


def graph() -> dict[str, set[str]]:
    known = sources()
    edges: dict[str, set[str]] = {m: set() for m in known}
    for module, path in known.items():
        for node in ast.walk(ast.parse(path.read_text())):
            for target in imported(node, module, path.name == "__init__.py", known):
                if not module.startswith(target + "."):  # a package's own __init__ is not an import
                    edges[module].add(target)
    return edges


def layer(module: str) -> int:
    prefix = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return LAYERS[prefix]


def test_every_module_imports_only_its_layer_and_the_ones_below():
    wrong = [
        f"{m} (layer {layer(m)}) imports {t} (layer {layer(t)})"
        for m, targets in graph().items()
        for t in sorted(targets)
        if layer(t) > layer(m)
    ]
    assert wrong == []


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_counting_imports_inside_functions():
    assert strongly_connected(graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_imports_inside_functions_are_optional_dependencies_saying_so():
    """Project modules import each other at the top; a function imports only an optional
    (or heavy, rarely needed) dependency, with a comment on the line that says which."""
    wrong = []
    for module, path in sources().items():
        if module.startswith("experiments"):
            continue
        lines = path.read_text().splitlines()
        tree = ast.parse(path.read_text())
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if not isinstance(node, (ast.Import, ast.ImportFrom)):
                    continue
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or "."]
                if node_level(node):
                    top = {resolved(module, path, node)}
                else:
                    top = {n.split(".")[0] for n in names}
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                if not top <= set(OPTIONAL) | set(OPTIONAL_ADAPTERS):
                    wrong.append(f"{where} imports {', '.join(names)} inside a function")
                elif "#" not in lines[node.end_lineno - 1]:
                    wrong.append(f"{where}: say why this import waits for the function (a comment on the line)")
    assert wrong == []


def resolved(module: str, path: pathlib.Path, node: ast.ImportFrom) -> str:
    """The absolute name of the module a relative ``from . import`` names."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def node_level(node: ast.AST) -> int:
    return getattr(node, "level", 0) or 0


def test_experiments_stay_outside_the_package():
    found = re.search(
        r"\[tool\.setuptools\.packages\.find\][^\[]*?include = (\[.*?\])", (ROOT / "pyproject.toml").read_text()
    )
    assert found and found.group(1) == '["uno_env*"]', "the wheel ships uno_env only"
    for module, targets in graph().items():
        if module.startswith("uno_env"):
            assert not [t for t in targets if t.startswith("experiments")], module
    for path in (ROOT / "uno_env").rglob("*.py"):
        assert not re.search(r"import_module\(\s*[\"'](experiments|notebooks)", path.read_text()), path
