"""docs/API.md names only what exists: every dotted name in its tables imports."""

import importlib
import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parent.parent / "docs" / "API.md"


def resolve(dotted: str):
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ModuleNotFoundError(dotted)


def test_every_name_in_the_api_tables_exists():
    names = re.findall(r"^\| `([a-z_]+(?:\.[A-Za-z_]+)+)`", DOC.read_text(), re.MULTILINE)
    assert len(names) > 30
    for dotted in names:
        assert resolve(dotted) is not None, dotted
