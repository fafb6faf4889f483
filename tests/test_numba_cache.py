"""numba's cache is cleared for what an edit can change: each module's cached kernels when
a file its compiled code needs changed, never for a file that nothing compiled reads
(``uno_env.engine.numba_cache``)."""

from __future__ import annotations

import ast
import importlib.util
import pathlib
import shutil

import pytest

from uno_env.engine import kernels as K
from uno_env.engine import numba_cache

ROOT = pathlib.Path(numba_cache.__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def no_cache_dir(monkeypatch):
    """The trees here are temporary: their stamps stay out of the session's NUMBA_CACHE_DIR."""
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)


def write(root: pathlib.Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def cache_files(root: pathlib.Path, *sources: str) -> list[pathlib.Path]:
    """Fake cache files of each source, where numba keeps them (``__pycache__`` beside it)."""
    made = []
    for source in sources:
        path = root / source
        folder = path.parent / "__pycache__"
        folder.mkdir(exist_ok=True)
        for name in (f"{path.stem}.f-4.py311.nbi", f"{path.stem}.f-4.py311.1.nbc"):
            (folder / name).write_bytes(b"compiled")
            made.append(folder / name)
    return made


def edit(root: pathlib.Path, source: str) -> None:
    with open(root / source, "a") as file:
        file.write("# an edit\n")


SMALL_TREE = {
    "uno_env/__init__.py": "",
    "uno_env/engine/__init__.py": "from .game import Game\n",
    "uno_env/engine/jit.py": "from numba import njit\n\n\ndef kernel(f):\n    return njit(cache=True)(f)\n",
    "uno_env/engine/layout.py": "A = 1\n",
    "uno_env/engine/checks.py": "from .layout import A\n\n\ndef check():\n    return A\n",
    "uno_env/engine/game.py": "from .checks import check\n\n\nclass Game:\n    check = check\n",
    "uno_env/engine/kernels/__init__.py": "from .step import step\n",
    "uno_env/engine/kernels/step.py": (
        "from ..jit import kernel\nfrom ..layout import A\n\n\n@kernel\ndef step(x):\n    return x + A\n"
    ),
    # a compiled caller of step, and a Python class that uses the Game
    "uno_env/policies.py": (
        "from uno_env.engine import Game\nfrom uno_env.engine import kernels as K\n"
        "from uno_env.engine.jit import kernel\n\n\n@kernel\ndef policy(x):\n    return K.step(x)\n\n\n"
        "class Agent:\n    game = Game\n"
    ),
    "uno_env/alone.py": "from uno_env.engine.jit import kernel\n\n\n@kernel\ndef alone():\n    return 1\n",
}


def test_each_module_is_cleared_when_a_file_its_compiled_code_needs_changes(tmp_path):
    write(tmp_path, SMALL_TREE)
    assert numba_cache.refresh(tmp_path) is True  # first check: no stamp yet
    step, policy, alone = (
        cache_files(tmp_path, name)
        for name in ("uno_env/engine/kernels/step.py", "uno_env/policies.py", "uno_env/alone.py")
    )
    assert numba_cache.refresh(tmp_path) is False and all(f.exists() for f in step + policy + alone)
    for never_compiled in ("uno_env/engine/checks.py", "uno_env/engine/game.py", "uno_env/engine/__init__.py"):
        edit(tmp_path, never_compiled)  # read by Python code only (Agent, Game)
        assert numba_cache.refresh(tmp_path) is False and all(f.exists() for f in step + policy + alone)
    edit(tmp_path, "uno_env/engine/layout.py")  # a constant step compiles in, and policy with step
    assert numba_cache.refresh(tmp_path) is True
    assert not any(f.exists() for f in step + policy) and all(f.exists() for f in alone)
    step, policy = cache_files(tmp_path, "uno_env/engine/kernels/step.py"), cache_files(tmp_path, "uno_env/policies.py")
    edit(tmp_path, "uno_env/policies.py")  # the caller changes: the callee's code stays good
    assert numba_cache.refresh(tmp_path) is True
    assert not any(f.exists() for f in policy) and all(f.exists() for f in step + alone)
    edit(tmp_path, "uno_env/engine/jit.py")  # the decorator: everything it compiled
    assert numba_cache.refresh(tmp_path) is True and not any(f.exists() for f in step + alone)


def test_a_name_is_followed_through_re_exports_and_a_module_read_whole_counts_whole(tmp_path):
    write(tmp_path, SMALL_TREE)
    write(
        tmp_path,
        {
            "uno_env/engine/codes.py": "from .layout import A\nB = A + 1\n",
            "uno_env/engine/unused.py": "C = 3\n",
            "uno_env/engine/kernels/__init__.py": "from . import codes_user\nfrom .step import step\n",
            "uno_env/engine/kernels/codes_user.py": (
                "from .. import codes, unused\nfrom ..jit import kernel\n\n\n@kernel\ndef b():\n    return codes.B\n"
            ),
            "uno_env/whole.py": (
                "from uno_env.engine import codes\nfrom uno_env.engine.jit import kernel\n\n\n"
                "@kernel\ndef f():\n    return 1\n\n\nTABLES = (codes, f)\n"
            ),
        },
    )
    closures = {
        str(p.relative_to(tmp_path)): {str(f.relative_to(tmp_path)) for f in fs}
        for p, fs in numba_cache.closures(tmp_path).items()
    }
    # codes.B's value is computed from layout.A; `unused` is imported but never read
    assert closures["uno_env/engine/kernels/codes_user.py"] == {
        "uno_env/engine/kernels/codes_user.py",
        "uno_env/engine/codes.py",
        "uno_env/engine/layout.py",
        "uno_env/engine/jit.py",
    }
    assert "uno_env/engine/checks.py" not in closures["uno_env/policies.py"]
    assert "uno_env/engine/kernels/__init__.py" in closures["uno_env/policies.py"]  # K.step, re-exported there
    # TABLES reads the module `codes` whole; f is compiled, TABLES is not: codes stays out
    assert "uno_env/engine/codes.py" not in closures["uno_env/whole.py"]


def test_a_module_whose_compiled_code_is_not_seen_is_cleared_at_any_change_of_what_is(tmp_path):
    """Compiled code the reading misses (here numba reached through ``getattr``) has no
    closure of its own: its module's caches go whenever any closure changes."""
    write(tmp_path, SMALL_TREE)
    write(
        tmp_path,
        {
            "uno_env/hidden.py": (
                'compile_ = getattr(__import__("numba"), "njit")\n\n\ndef f():\n    return 1\n\n\ng = compile_(f)\n'
            )
        },
    )
    assert numba_cache.refresh(tmp_path) is True
    hidden = cache_files(tmp_path, "uno_env/hidden.py")
    edit(tmp_path, "uno_env/engine/checks.py")
    assert numba_cache.refresh(tmp_path) is False and all(f.exists() for f in hidden)
    edit(tmp_path, "uno_env/engine/layout.py")
    assert numba_cache.refresh(tmp_path) is True and not any(f.exists() for f in hidden)


COMPILED_NEVER = (
    "uno_env/engine/checks.py",
    "uno_env/engine/position/table.py",
    "uno_env/engine/position/reachable.py",
    "uno_env/engine/game.py",
    "uno_env/engine/record.py",
    "uno_env/env.py",
)
COMPILED_IN = ("uno_env/engine/layout.py", "uno_env/engine/cards.py", "uno_env/engine/named.py")
CACHED = (
    "uno_env/engine/kernels/step.py",
    "uno_env/engine/kernels/turn.py",
    "uno_env/agents/policies/tactical.py",
    "uno_env/vector/fused.py",
    "uno_env/agents/ismcts.py",
)


@pytest.fixture
def tree_copy(tmp_path):
    """The project's sources, copied (no caches, no weights): edits land there."""
    for path in numba_cache.source_files(ROOT):
        target = tmp_path / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    assert numba_cache.refresh(tmp_path) is True
    return tmp_path


def test_an_edit_of_a_file_nothing_compiled_reads_leaves_every_cache_alone(tree_copy):
    files = cache_files(tree_copy, *CACHED)
    for source in COMPILED_NEVER:
        edit(tree_copy, source)
    assert numba_cache.refresh(tree_copy) is False
    assert all(f.exists() for f in files)


@pytest.mark.parametrize("source", COMPILED_IN)
def test_an_edit_of_a_source_of_the_rules_constants_clears_every_kernel_that_reads_them(tree_copy, source):
    files = cache_files(tree_copy, *CACHED)
    edit(tree_copy, source)
    assert numba_cache.refresh(tree_copy) is True
    assert not any(f.exists() for f in files)


def test_an_edit_of_a_kernel_clears_its_callers_and_spares_the_rest(tree_copy):
    """``kernels/turn.py``: the step and everything that steps a game compile it in; the
    tactical policy reads the observation only. An edit of that policy spares the engine."""
    callers = cache_files(tree_copy, *(name for name in CACHED if "tactical" not in name))
    spared = cache_files(tree_copy, "uno_env/agents/policies/tactical.py", "uno_env/engine/readers/sampling.py")
    edit(tree_copy, "uno_env/engine/kernels/turn.py")
    assert numba_cache.refresh(tree_copy) is True
    assert not any(f.exists() for f in callers) and all(f.exists() for f in spared)
    engine = cache_files(tree_copy, "uno_env/engine/kernels/step.py", "uno_env/engine/kernels/turn.py")
    edit(tree_copy, "uno_env/agents/policies/tactical.py")
    assert numba_cache.refresh(tree_copy) is True
    assert all(f.exists() for f in engine) and not any(f.exists() for f in spared[:2])


def module_file(name: str) -> pathlib.Path | None:
    path = ROOT.joinpath(*name.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def test_every_module_a_kernel_module_imports_is_in_its_closure():
    """A kernel module holds compiled code only, so all it imports from the project (the
    rules' constants, the accessors, the other kernels) is read by it: each is in the
    module's own closure, and so hashed."""
    closures = numba_cache.closures(ROOT)
    checked = set()
    for name in K.MODULES:
        path = module_file(f"{K.__name__}.{name}")
        assert path is not None
        imported = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("uno_env")):
                base = importlib.util.resolve_name("." * node.level + (node.module or ""), K.__name__)
                for alias in node.names:
                    imported.add(module_file(f"{base}.{alias.name}") or module_file(base))
        assert imported <= set(closures[path]), (name, sorted(str(p) for p in imported - set(closures[path])))
        checked |= imported
    assert {ROOT / "uno_env" / "engine" / name for name in ("layout.py", "jit.py", "kernels/turn.py")} <= checked
    hashed = set(numba_cache.project_sources(ROOT))
    assert {ROOT / "uno_env" / "engine" / name for name in ("layout.py", "cards.py", "jit.py", "state.py")} <= hashed
    assert not {ROOT / name for name in COMPILED_NEVER} & hashed


def test_a_cache_dir_has_its_own_stamp_per_tree(tmp_path, monkeypatch):
    write(tmp_path / "a", SMALL_TREE)
    write(tmp_path / "b", SMALL_TREE)
    assert numba_cache.refresh(tmp_path / "a") is True
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "a" / "uno_env" / "engine" / "kernels" / "step.py"
    stamp_file, folder = numba_cache.cache_locations(tmp_path / "a", source)[1]
    folder.mkdir(parents=True)
    (folder / "step.step-6.py311.nbi").write_bytes(b"stale")
    assert numba_cache.refresh(tmp_path / "a") is True  # the in-tree stamp is current, this one is not
    assert not (folder / "step.step-6.py311.nbi").exists() and stamp_file.exists()
    assert numba_cache.refresh(tmp_path / "b") is True  # another tree sharing the folder: its own stamp
    assert numba_cache.refresh(tmp_path / "a") is False and numba_cache.refresh(tmp_path / "b") is False


def test_a_compile_that_outlived_an_edit_leaves_its_cache_to_be_cleared(tmp_path, monkeypatch):
    """A background compile reads the sources, an edit follows, a new process stamps the new
    sources, then the compile writes the old code: it disowns it, and the next check clears it."""
    monkeypatch.setattr(numba_cache, "READ", {})
    write(tmp_path, SMALL_TREE)
    numba_cache.refresh(tmp_path)  # the compiling process reads the sources
    assert numba_cache.disown_if_edited(tmp_path) is False  # nothing changed meanwhile
    read_before = numba_cache.READ[tmp_path]
    edit(tmp_path, "uno_env/engine/kernels/step.py")
    assert numba_cache.refresh(tmp_path) is True  # a process started after the edit stamps it
    stale = cache_files(tmp_path, "uno_env/engine/kernels/step.py")  # the compile writes the old code
    assert numba_cache.refresh(tmp_path) is False  # the stamp alone would keep it
    numba_cache.READ[tmp_path] = read_before  # the compiling process
    assert numba_cache.disown_if_edited(tmp_path) is True
    assert numba_cache.refresh(tmp_path) is True and not any(f.exists() for f in stale)
