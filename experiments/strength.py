"""How strong is the shipped ``ppo`` at each table? docs/training.md's "Where it stands", measured.

    python -m experiments.strength                   # every table against tactical, keeper and random_play
    python -m experiments.strength ppo_4p_tactical   # one
    python -m experiments.strength --list            # the tournaments and their commands
    python -m experiments.strength --smoke           # seconds: tiny tournaments into a throwaway file

Question: how often does ``ppo`` (the shipped network of its table, ``uno_env/data/``) win,
one seat (one team with partners) against another agent in every other seat, seat-rotated
hands? The fair share is 1/players (1/2 for a team); the ratio to it is the figure to
compare across tables. Against ``tactical`` 20,000 hands a table (seed 1), against ``keeper``
and ``random_play`` 4,000 (seed 79). Each run appends a JSON line per tournament to
``experiments/results/strength.jsonl`` (the ``field`` result: win rate, Wilson interval,
ratio), and ``python -m experiments.tables --write`` writes the table of docs/training.md.

Seeds: against ``tactical`` seed 1, against ``keeper`` and ``random_play`` seed 79
Machine and time: each result line says (2026-12-05: the shared 2-core machine at load about
  11, 2-19 s a tournament once compiled)
Result: the table of docs/training.md, "Where it stands": 60.5% [59.8, 61.2] at two players,
  ratio 1.10 [1.08, 1.13] at four
Commit: each result line's ``commit``
"""

from __future__ import annotations

from experiments.ladders import ROOT, Ladder
from experiments.ladders import main as ladders_main

RESULTS = ROOT / "experiments" / "results" / "strength.jsonl"
TABLES = {"2p": (2, ()), "3p": (3, ()), "4p": (4, ()), "6p": (6, ()), "4p_partners": (4, ("partners=true",))}
"""The shipped hands networks: name -> (players, rule settings)."""
OPPONENTS = {"tactical": (20000, 1), "keeper": (4000, 79), "random_play": (4000, 79)}
"""Opponent -> (hands, seed)."""

STRENGTH: dict[str, Ladder] = {
    f"ppo_{table}_{opponent}": Ladder(("ppo", opponent), n, games, seed, "field", rules, bootstrap=0)
    for table, (n, rules) in TABLES.items()
    for opponent, (games, seed) in OPPONENTS.items()
}


def main(argv: list[str] | None = None) -> int:
    return ladders_main(argv, STRENGTH, RESULTS, "experiments.strength", __doc__ or "")


if __name__ == "__main__":
    raise SystemExit(main())
