"""The ``uno`` command: one entry point for the project's tools (also ``python -m experiments``).

Each subcommand is a module with ``main(argv)``, imported only when it runs (so that
``uno --help`` loads no torch or Ray); ``uno <command> --help`` shows its options.
Ctrl-C ends any command with exit status 130 and a one-line note, without a traceback;
a value or a file that a command cannot use (ValueError, OSError, MemoryError) ends it
with one line naming it and exit status 2 (the commands check their values first:
:mod:`experiments.cli_checks`).
A command that needs an optional extra (:data:`NEEDS`) checks for it first and, when a
module is missing, says in one line which extra to install (exit status 2).

The command lives here, in the top layer, because its commands span every layer:
``uno_env`` never imports ``agents`` or ``experiments``. Those two are installed as
top-level packages, as the project's layout has them; before a command runs, the
``agents`` and ``experiments`` that Python finds are checked to be this project's,
installed beside ``uno_env`` (another distribution with a top-level package of the
same name would otherwise shadow one of them with an obscure error).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

COMMANDS = {
    "playthrough": ("uno_env.playthrough", "print a seeded game as text, or rewrite the test playthroughs"),
    "tournament": ("experiments.tournament", "agents against each other: leaderboard, ratings, CSV/JSON/PNG"),
    "play": ("agents.play", "play UNO in the terminal against agents"),
    "train": (
        "experiments.ppo_masked",
        "train a policy network: masked PPO, self-play, opponent pool (--smoke: seconds)",
    ),
    "train-rllib": (
        "experiments.train_rllib",
        "train on Ray RLlib (multi-agent PPO, heuristic opponents, --address for a cluster; --smoke: seconds)",
    ),
    "bench": ("experiments.bench_speed", "speed against RLCard: PettingZoo, Game, vector env, compiled policies"),
    "replay": ("uno_env.replay", "a game record as one self-contained HTML page that replays it step by step"),
    "serve": ("experiments.serve", "a table in the browser: play against agents on a local web page"),
    "warm": ("experiments.warm", "compile the engine, policies, network and search into numba's cache (once)"),
}

NEEDS = {
    "train": ("torch", "tyro", "tensorboard"),
    "train-rllib": ("ray", "tyro", "torch"),
    "serve": ("starlette", "uvicorn"),
}
"""The modules each command needs beyond the base install."""
EXTRAS = {
    "torch": "train",
    "tyro": "train",
    "tensorboard": "train",
    "ray": "scale",
    "starlette": "web",
    "uvicorn": "web",
}
"""The extra of pyproject.toml that installs each module."""


def missing_extras(command: str) -> str | None:
    """The one-line hint for a command whose optional modules are not installed (None: all are)."""
    missing = [m for m in NEEDS.get(command, ()) if importlib.util.find_spec(m) is None]
    if not missing:
        return None
    extras = ",".join(dict.fromkeys(EXTRAS[m] for m in missing))
    return (
        f"uno {command} needs {', '.join(missing)}, not installed: "
        f'pip install "uno-env[{extras}]" (in a clone: pip install -e ".[{extras}]")'
    )


def usage() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = ["usage: uno <command> [options]", "", "commands:"]
    lines += [f"  {name:<{width}}  {text}" for name, (_, text) in COMMANDS.items()]
    return "\n".join(lines)


def foreign_packages() -> list[str]:
    """Messages for ``agents`` / ``experiments`` packages that are not installed beside ``uno_env``."""
    import uno_env

    home = Path(uno_env.__file__).resolve().parent.parent
    problems = []
    for name in ("agents", "experiments"):
        spec = importlib.util.find_spec(name)  # where it would be imported from, without importing it
        if spec is None:
            problems.append(f"the package {name!r} is not installed: pip install -e . in the project")
            continue
        locations = list(spec.submodule_search_locations or [])
        folder = Path(spec.origin).parent if spec.origin else Path(locations[0])  # a namespace package: no origin
        if folder.resolve().parent != home:
            problems.append(
                f"the package {name!r} comes from {folder}, not from this project ({home}): "
                f"another distribution installs a top-level {name!r}; uninstall it or use a separate environment"
            )
    return problems


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"uno: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    problems = foreign_packages()
    if problems:
        print("uno: " + "\n".join(problems), file=sys.stderr)
        return 2
    hint = missing_extras(name)
    if hint:
        print(hint, file=sys.stderr)
        return 2
    try:
        module = importlib.import_module(COMMANDS[name][0])
        result = module.main(rest)
    except KeyboardInterrupt:
        print(f"\nuno {name}: interrupted", file=sys.stderr)
        return 130
    except (ValueError, OSError, MemoryError) as err:  # a value or file the command could not use
        text = " ".join(str(err).split()) or type(err).__name__
        print(f"uno {name}: error: {text}", file=sys.stderr)
        return 2
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
