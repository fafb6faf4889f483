"""Design rules of the engine: its imports, and rule coverage of the test suite."""

import ast
import pathlib
import re
import sys

import pytest

ENGINE = pathlib.Path(__file__).resolve().parent.parent / "uno_env" / "engine"
ROOT = ENGINE.parent.parent


def test_engine_imports_numpy_and_numba_only():
    """Besides the standard library, the engine needs numpy and numba, nothing else."""
    allowed = {"numpy", "numba"} | set(sys.stdlib_module_names)
    for path in ENGINE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in allowed, f"{path.name} imports {name}"


BLOCK_OFFSET = re.compile(
    r"\bP_(C_(HANDS|DRAW|DISCARD|DISCARD_COUNTS|REVEAL)|I_(HAND_SIZE|SCORE|ALIVE|TREND|OUTCOME|DREW_ON|NAMED))\b"
)


def test_the_engine_reads_piles_and_seat_blocks_through_the_state_accessors():
    """Only engine/state.py turns the offset of a pile or a per-seat block (``P[P_C_HANDS]``,
    ``P[P_I_HAND_SIZE]``, ...) into an index; layout.py, which sets them, aside. Every other
    module of the engine, compiled or not, reads and writes them by name (``hand_size``)."""
    users = {
        str(path.relative_to(ENGINE))
        for path in ENGINE.rglob("*.py")
        if BLOCK_OFFSET.search(path.read_text()) and path.name not in ("state.py", "layout.py")
    }
    assert users == set()
    assert BLOCK_OFFSET.search((ENGINE / "state.py").read_text())  # the pattern still finds what it looks for


@pytest.mark.parametrize("package", ["kernels", "readers", "position"])
def test_the_modules_of_an_engine_package_import_only_those_before_them(package):
    """kernels/ (and readers/, position/) list their modules in layers (``MODULES``, or the
    order below): each imports only the ones before it, so the rule areas read bottom up
    and no import cycle can form."""
    folder = ENGINE / package
    order = {
        "kernels": None,
        "readers": None,
        "position": ["loader", "dump", "piles", "table", "decision", "shown", "reachable", "keys"],
    }[package]
    if order is None:
        init = ast.parse((folder / "__init__.py").read_text())
        modules = next(n for n in init.body if isinstance(n, ast.Assign) and n.targets[0].id == "MODULES")
        order = [ast.literal_eval(e) for e in modules.value.elts]
    assert sorted(order) == sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__")
    for k, name in enumerate(order):
        tree = ast.parse((folder / f"{name}.py").read_text())
        siblings = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 1}
        assert siblings <= set(order[:k]), f"{package}/{name}.py imports {siblings - set(order[:k])}"


@pytest.mark.parametrize("book", ["RULES.md", "HOUSE_RULES.md"])
def test_every_rule_id_is_named_by_a_test(book):
    """The same check as shared/tools/rule_coverage.py, on the copies of RULES.md and
    HOUSE_RULES.md in docs/."""
    rules = (ROOT / "docs" / book).read_text()
    found = set(re.findall(r"\b[RD]-[A-Z0-9]+(?:-[A-Z0-9]+)*\b", rules))
    rule_ids = sorted(r for r in found if r.count("-") >= (2 if r.startswith("R-") else 1))
    text = ""
    for path in (ROOT / "tests").rglob("*"):
        if path.is_file() and path.suffix in {".py", ".txt", ".json", ".yaml", ".yml", ".toml"}:
            text += path.read_text(errors="replace").upper().replace("_", "-") + "\n"
    missing = [r for r in rule_ids if not re.search(r"(?<![0-9A-Z])" + re.escape(r) + r"(?![0-9A-Z])", text)]
    assert len(rule_ids) > (50 if book == "RULES.md" else 20)
    assert missing == []


@pytest.mark.parametrize("book", ["RULES.md", "HOUSE_RULES.md"])
def test_docs_rules_is_the_shared_rulebook(book):
    shared = ROOT.parent / "shared" / book
    if not shared.exists():
        pytest.skip(f"{shared} is absent (no shared folder beside this checkout): docs/{book} is not compared")
    assert shared.read_text() == (ROOT / "docs" / book).read_text()


def test_every_kernel_is_reached_by_its_name_in_the_kernels_package():
    """``K.step_game`` and the like: every public function of a kernel module is exported by
    ``uno_env.engine.kernels`` (its ``__all__``), so that code above the modules reaches each
    kernel by one name (the package exports what each module defines, no list is kept)."""
    import importlib

    from uno_env.engine import kernels as K

    missing = []
    for module_name in K.MODULES:
        module = importlib.import_module(f"uno_env.engine.kernels.{module_name}")
        defined = [
            (name, value)
            for name, value in vars(module).items()
            if not name.startswith("_") and callable(value) and getattr(value, "__module__", None) == module.__name__
        ]
        missing += [f"{module_name}.{name}" for name, value in defined if getattr(K, name, None) is not value]
        missing += [f"{module_name}.{name} (not in __all__)" for name, _ in defined if name not in K.__all__]
    assert missing == [], "kernels/__init__.py must export every function its modules define"


def test_the_kernels_export_block_is_generated_from_their_sources():
    """kernels/__init__.py imports what each kernel module defines (``docs --write`` writes
    the block): a new kernel is ``K.<name>`` without a hand-kept list."""
    from uno_env.engine import kernel_exports

    text = (ENGINE / "kernels" / "__init__.py").read_text()
    block = kernel_exports.BLOCK.search(text)
    assert block is not None
    assert text[block.end(1) : block.start(2)].splitlines() == kernel_exports.export_lines(), (
        "run python -m uno_env.docs --write"
    )


def test_a_short_name_not_yet_written_is_answered_from_its_enum():
    """A kernel may import a new setting's ``P_<NAME>`` (or a new block's ``KIND_<NAME>``)
    before ``docs --write`` writes it: layout answers it from ``Param`` (and every other
    prefix from its enum), kernels/codes from ``actions.Kind``."""
    from uno_env.engine import layout

    for codes, prefix in layout.SHORT_NAME_PREFIXES:
        for member in codes:
            assert layout.__getattr__(prefix + member.name) == int(member)
    with pytest.raises(AttributeError, match="P_NO_SUCH_SETTING"):
        layout.__getattr__("P_NO_SUCH_SETTING")
    from uno_env.engine.actions import Kind
    from uno_env.engine.kernels import codes

    assert [codes.__getattr__(f"KIND_{kind.name}") for kind in Kind] == [int(kind) for kind in Kind]
    with pytest.raises(AttributeError, match="KIND_NO_SUCH_BLOCK"):
        codes.__getattr__("KIND_NO_SUCH_BLOCK")


def test_the_short_names_block_of_layout_is_generated_from_the_enums():
    """layout.py's block of S_/PH_/P_/O_... names is what short_name_lines() makes of the
    enums (python -m uno_env.docs --write): a new member has its short name."""
    from uno_env.engine import layout

    text = (ENGINE / "layout.py").read_text()
    block = layout.BLOCK.search(text)
    assert block is not None
    written = text[block.end(1) : block.start(2)].splitlines()
    assert written == layout.short_name_lines()
    for line in written:
        name, _ = line.split(" = ")
        assert isinstance(getattr(layout, name), int)
