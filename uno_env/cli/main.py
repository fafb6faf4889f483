"""The ``uno`` command: one entry point for the project's tools (also ``python -m uno_env.cli``).

Each subcommand is a module with ``main(argv)``, imported only when it runs (so that
``uno --help`` loads no torch or Ray); ``uno <command> --help`` shows its options.
Ctrl-C ends any command with exit status 130 and a one-line note, without a traceback;
a value or a file that a command cannot use (ValueError, OSError, MemoryError) ends it
with one line naming it and exit status 2 (the commands check their values first:
:mod:`uno_env.cli.args`).
A command that needs an optional extra (:data:`NEEDS`) checks for it first and, when a
module is missing, says in one line which extra to install (exit status 2).

The command lives here, in the top layer (docs/ARCHITECTURE.md), because its commands span
every layer; nothing below imports it.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

COMMANDS = {
    "playthrough": ("uno_env.playthrough", "print a seeded game as text, or rewrite the test playthroughs"),
    "tournament": ("uno_env.cli.tournament", "agents against each other: leaderboard, ratings, CSV/JSON/PNG"),
    "match": ("uno_env.cli.match", "is A stronger than B? duplicate deals until a sequential test (SPRT) decides"),
    "ladder": ("uno_env.cli.ladder", "a standing ladder in one SQLite file: add versions, play, show ratings"),
    "play": ("uno_env.cli.play", "play UNO in the terminal against agents"),
    "train": (
        "uno_env.training.ppo",
        "train a policy network: masked PPO, self-play, opponent pool (--smoke: seconds)",
    ),
    "train-rllib": (
        "uno_env.training.rllib",
        "train on Ray RLlib (multi-agent PPO, heuristic opponents, --address for a cluster; --smoke: seconds)",
    ),
    "bench": ("uno_env.bench.speed", "speed against RLCard: PettingZoo, Game, vector env, compiled policies"),
    "replay": ("uno_env.replay", "a game record as one self-contained HTML page that replays it step by step"),
    "serve": ("uno_env.cli.serve", "a table in the browser: play against agents on a local web page"),
    "warm": ("uno_env.cli.warm", "compile the engine, policies, network and search into numba's cache (once)"),
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


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"uno: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
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
