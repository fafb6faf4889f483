"""The command line of the one-file measurement scripts that print one JSON result
(``distill_search``, ``open_hands``, ``hand_inference``): ``--smoke`` for the tests' tiny
defaults, the fields of an ``Args`` dataclass as options, a refused setting as exit status 2."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import tyro


def run_json_script(
    prog: str, doc: str, args_type: type, smoke: dict, run: Callable[[Any], dict], argv: list[str] | None
) -> int:
    """Parse ``argv`` (``--smoke``: ``args_type(**smoke)`` as the defaults) into ``args_type``,
    print ``run(args)`` as JSON and return 0; a ValueError is printed as ``prog: error: ...``
    and returns 2."""
    argv = list(sys.argv[1:] if argv is None else argv)
    is_smoke = "--smoke" in argv
    if is_smoke:
        argv.remove("--smoke")
    default = args_type(**smoke) if is_smoke else args_type()
    args = tyro.cli(args_type, args=argv, default=default, prog=prog, description=doc.split("\n\n")[0])
    try:
        result = run(args)
    except ValueError as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2))
    return 0
