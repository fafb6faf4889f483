"""The ``uno`` command: one entry point for the project's tools.

Each subcommand is a module with ``main(argv)``; ``uno <command> --help`` shows its options.
Ctrl-C ends any command with exit status 130 and a one-line note, without a traceback.
"""

from __future__ import annotations

import importlib
import sys

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
}


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
    try:
        module = importlib.import_module(COMMANDS[name][0])
        result = module.main(rest)
    except KeyboardInterrupt:
        print(f"\nuno {name}: interrupted", file=sys.stderr)
        return 130
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
