"""The ladders of docs/agents.md: who beats whom among the agents, measured with the tournament.

    python -m experiments.ladders                      # every ladder that reruns (minutes), appended to the results
    python -m experiments.ladders heuristics_2p        # one ladder
    python -m experiments.ladders --list               # the ladders and their commands
    python -m experiments.ladders --smoke              # seconds: tiny tournaments into a throwaway file

Question: how do the agents rank at two and four players, and does the first player win
more than its share? Each ladder is one ``uno tournament`` command with its seed (below,
``LADDERS``); a run appends one JSON line per ladder to ``experiments/results/ladders.jsonl``
(the tournament's leaderboard, head to head, per-seat win rates and hand lengths, with the
commit, the machine and the seconds it took), and ``python -m experiments.tables --write``
turns the newest line of each ladder into its table in docs/agents.md. Lines that were
transcribed from a recorded run (the search ladder: 16 minutes of ``ismcts``) say so in
their ``source``.

Seeds: each ladder's ``--seed`` (``LADDERS``: 1, the demo 0)
Machine and time: each result line says (the rerun of 2026-12-05: the shared 2-core machine at
  load 11-12, 3-33 s a ladder, the demo 103 s with its compilation)
Result: the newest line of each ladder in ``experiments/results/ladders.jsonl``, as tables in
  docs/agents.md (the 2026-12-05 rerun gave every figure recorded before, to the last digit)
Commit: each result line's ``commit`` (the tree it measured; ``+changes`` when it differed)
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from uno_env import RuleConfig
from uno_env.arena import run_tournament
from uno_env.cli.args import rule_config

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "experiments" / "results" / "ladders.jsonl"
HEURISTICS = ("random", "random_play", "naive", "keeper", "tactical")


@dataclass(frozen=True)
class Ladder:
    agents: tuple[str, ...]
    players: int
    games: int
    seed: int = 1
    schedule: str = "mixed"
    rules: tuple[str, ...] = ()
    bootstrap: int = 200

    def command(self) -> str:
        sets = "".join(f" --set {kv}" for kv in self.rules)
        schedule = "" if self.schedule == "mixed" else f" --schedule {self.schedule}"
        bootstrap = "" if self.bootstrap == 200 else f" --bootstrap {self.bootstrap}"
        return (
            f"uno tournament --agents {','.join(self.agents)} --players {self.players}{schedule}"
            f" --games {self.games} --seed {self.seed}{sets}{bootstrap}"
        )


LADDERS: dict[str, Ladder] = {
    "heuristics_2p": Ladder(HEURISTICS, 2, 40000),
    "heuristics_4p": Ladder(HEURISTICS, 4, 24000),
    **{f"first_player_{a}_{n}p": Ladder((a,), n, 20000) for a in HEURISTICS for n in (2, 4)},
    "demo_4p": Ladder(("random", "keeper", "tactical", "ppo", "ppo_search"), 4, 120, seed=0),
}
"""Ladder name -> its tournament; each reruns in minutes (the demo, ``uno tournament``'s
default, searches: about half a minute on an idle 2-core machine). The search ladder
(``ismcts`` against ``tactical``, 2,000 hands: a quarter of an hour) is not among them: its
line in the results is transcribed from the recorded run."""


def config_of(ladder: Ladder) -> RuleConfig:
    """The table of ``uno tournament``'s options: single hands unless ``--set`` says otherwise."""
    return rule_config(argparse.Namespace(settings=list(ladder.rules), players=ladder.players, episode="round"))


def commit() -> str:
    """The commit measured, with ``+changes`` when the package differs from it."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "uno_env"], cwd=ROOT, capture_output=True, text=True)
    name = head.stdout.strip() or "not recorded (no git)"
    return name + ("+changes" if dirty.stdout.strip() else "")


def machine() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{platform.machine()}, {os.cpu_count()} CPUs, load {load:.1f} at the start"


def measure(name: str, ladder: Ladder, games: int | None = None, by: str = "experiments.ladders") -> dict:
    """Run one ladder's tournament; the JSON line that records it."""
    start = time.perf_counter()
    summary, _, _, _ = run_tournament(
        list(ladder.agents),
        config_of(ladder),
        games=games or ladder.games,
        seed=ladder.seed,
        schedule=ladder.schedule,
        bootstrap=ladder.bootstrap,
    )
    keep = ("agents", "players", "games", "seed", "leaderboard", "head_to_head", "seats", "hand_length", "field")
    return {
        "ladder": name,
        "command": ladder.command() if games is None else f"{ladder.command()} (smoke: --games {games})",
        "source": f"measured by python -m {by}",
        "commit": commit(),
        "date": datetime.date.today().isoformat(),
        "machine": machine(),
        "seconds": round(time.perf_counter() - start, 1),
        "summary": {k: summary[k] for k in keep if k in summary},
    }


def read(path: Path = RESULTS) -> dict[str, dict]:
    """The newest line of each ladder in a results file."""
    newest: dict[str, dict] = {}
    for line in path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            newest[row["ladder"]] = row
    return newest


def main(
    argv: list[str] | None = None,
    ladders: dict[str, Ladder] = LADDERS,
    results: Path = RESULTS,
    prog: str = "experiments.ladders",
    doc: str = __doc__,
) -> int:
    """The command line of a set of ladders (``experiments.strength`` has its own)."""
    parser = argparse.ArgumentParser(prog=f"python -m {prog}", description=doc.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="ladders to run (default: all)")
    parser.add_argument("--out", type=Path, default=results, help="the JSON-lines file appended to")
    parser.add_argument("--list", action="store_true", help="print the ladders and their commands")
    parser.add_argument("--smoke", action="store_true", help="20 games a ladder into a throwaway file")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(ladders))
    if unknown:
        parser.error(f"no ladder {', '.join(unknown)}; the ladders: {', '.join(ladders)}")
    if args.list:
        for name, ladder in ladders.items():
            print(f"{name}: {ladder.command()}")
        return 0
    names = args.names or (list(ladders)[:2] if args.smoke else list(ladders))
    out = Path(tempfile.mkdtemp()) / "ladders.jsonl" if args.smoke else args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    for name in names:
        row = measure(name, ladders[name], games=20 if args.smoke else None, by=prog)
        with out.open("a") as f:
            f.write(json.dumps(row) + "\n")
        print(f"{name}: {row['seconds']} s -> {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
