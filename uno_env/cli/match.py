"""``uno match``: is A stronger than B? A sequential test that stops when the answer is known.

    uno match tactical random_play --players 2 --sprt elo0=0,elo1=50
    uno match tactical tactical_v1 --players 4 --set seven_o=true --sprt elo0=0,elo1=20 --json
    uno match 'cmd:python my_bot.py' tactical --players 2 --sprt elo0=0,elo1=30,alpha=0.05,beta=0.1

It plays duplicate deals: every deal once per seating of the ``field`` schedule, with the
same cards (at two players, each deal twice with the seats exchanged, a pair of games; at
more, A in each seat in turn, or in each team's seats with ``--set partners=true``, and B in
every other seat). After every deal it updates fishtest's generalized SPRT over the deals'
mean scores (the pentanomial model at two players; ``--model trinomial``: single games)
and stops as soon as the log-likelihood ratio (LLR) crosses a bound: above
``log((1 - beta) / alpha)`` it accepts H1, "A is at least elo1 stronger", below
``log(beta / (1 - alpha))`` H0, "A is at most elo0 stronger"; else it stops at
``--max-games``, inconclusive.

Elo is the logistic Elo of chess at two players (a 60% score is +70). At more sides it is
defined on A's win share against the fair share: A, ``d`` Elo stronger than each other
side, wins ``1 / (1 + (sides - 1) 10^(-d/400))`` of the games (the Luce model of the
tournament's ratings; ``1 / sides`` at d = 0). A game without a winner scores the fair
share, a forfeit loses.

It prints the running LLR against its bounds with a progress bar (on a terminal; otherwise a
line at most every 10 s), then the decision, the games played and the Elo estimate with
its 95% interval (a fixed-sample interval: the stop is not corrected for). ``--json``
prints one JSON object (``result``: "H1", "H0" or "inconclusive", ``games``, ``llr``, ...).
Any agent spec of ``uno tournament`` plays, ``cmd:`` programs included; every rule
setting applies (``--set``). Exit status: 0 with a decision or at --max-games, 2 on a bad
value. How to read it, and the standing ladder beside it: docs/is_my_bot_better.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from uno_env.arena.match import run_match
from uno_env.arena.sprt import MODELS, parse_sprt
from uno_env.cli.args import add_rule_arguments, count_type, rule_config, seed_type
from uno_env.cli.tournament import failures_in_words

DEFAULT_MAX_GAMES = 100_000
QUIET_SECONDS = 10.0
"""Off a terminal, the progress is a line at most this often."""
BAR = 30
"""Characters of the LLR bar."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="uno match", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("a", metavar="A", help="the agent under test: any agent spec (name, name:key=value, cmd:...)")
    parser.add_argument("b", metavar="B", help="the agent it is measured against (the same spec is allowed)")
    parser.add_argument(
        "--sprt",
        required=True,
        metavar="elo0=X,elo1=Y[,alpha=A,beta=B]",
        help="the hypotheses: H0 A is at most elo0 stronger, H1 at least elo1; alpha and beta default 0.05",
    )
    add_rule_arguments(parser, "round", 2)
    parser.add_argument(
        "--max-games",
        type=count_type(1, 10**9),
        default=DEFAULT_MAX_GAMES,
        help=f"stop here, inconclusive, if the test has not decided (default {DEFAULT_MAX_GAMES})",
    )
    parser.add_argument(
        "--model",
        choices=MODELS,
        default="pentanomial",
        help="units of the test: each deal's games together (default) or single games",
    )
    parser.add_argument("--seed", type=seed_type, default=0, help="seed of the deals (default 0)")
    parser.add_argument(
        "--workers", type=count_type(1, 4096), default=1, help="processes for agents that are not compiled (default 1)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--no-progress", action="store_true", help="no progress")
    return parser


class Progress:
    """The running LLR between its bounds: a bar rewritten in place on a terminal, a line at
    most every :data:`QUIET_SECONDS` elsewhere."""

    def __init__(self, stream, enabled: bool):
        self.stream = stream
        self.enabled = enabled
        self.tty = enabled and stream.isatty()
        self.last = time.monotonic()

    def __call__(self, state: dict) -> None:
        if not self.enabled:
            return
        line = progress_line(state)
        if self.tty:
            self.stream.write("\r" + line + "\033[K")
            self.stream.flush()
        elif time.monotonic() - self.last >= QUIET_SECONDS:
            self.stream.write(line + "\n")
            self.stream.flush()
            self.last = time.monotonic()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")


def progress_line(state: dict) -> str:
    """``  1234 games  LLR  1.52 [-2.94 -----|----#----- 2.94]  Elo +35 [+12, +58]``."""
    lower, upper = state["bounds"]
    position = (min(max(state["llr"], lower), upper) - lower) / (upper - lower)
    bar = ["-"] * BAR
    bar[round((BAR - 1) * -lower / (upper - lower))] = "|"  # LLR 0
    bar[round((BAR - 1) * position)] = "#"
    lo, hi = state["elo_interval"]
    return (
        f"{state['games']:>8} games  LLR {state['llr']:6.2f} [{lower:.2f} {''.join(bar)} {upper:.2f}]  "
        f"Elo {state['elo']:+.0f} [{lo:+.0f}, {hi:+.0f}]"
    )


def report(summary: dict) -> str:
    """The decision, the games, the LLR and the Elo estimate in words."""
    lower, upper = summary["bounds"]
    a, b = summary["a"], summary["b"]
    if summary["result"] == "H1":
        verdict = f"H1: {a} is at least {summary['elo1']:g} Elo stronger than {b}"
    elif summary["result"] == "H0":
        verdict = f"H0: {a} is at most {summary['elo0']:g} Elo stronger than {b}"
    else:
        verdict = "inconclusive: --max-games reached before the test decided"
    lo, hi = summary["elo_interval"]
    counts = " ".join(str(c) for c in summary["counts"])
    return "\n".join(
        [
            f"{verdict} (alpha {summary['alpha']:g}, beta {summary['beta']:g})",
            f"games {summary['games']} ({summary['deals']} deals, {summary['players']} players): "
            f"{a} won {summary['wins']}, lost {summary['losses']}, other {summary['other']}; "
            f"win share {summary['win_share']:.3f} (fair share {summary['fair_share']:.3f})",
            f"LLR {summary['llr']:.2f}, bounds [{lower:.2f}, {upper:.2f}]; {summary['model']} counts {counts}",
            f"Elo {summary['elo']:+.1f} [{lo:+.1f}, {hi:+.1f}] (95%), {summary['seconds']:.1f} s",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    with failures_in_words("uno match"):
        return run(argv)


def run(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    hypotheses = parse_sprt(args.sprt)
    config = rule_config(args, 2)
    progress = Progress(sys.stderr, not args.no_progress)
    try:
        summary = run_match(
            args.a,
            args.b,
            config,
            hypotheses,
            max_games=args.max_games,
            seed=args.seed,
            workers=args.workers,
            model=args.model,
            on_update=progress,
        )
    finally:
        progress.close()
    summary["command"] = "uno match " + " ".join(argv if argv is not None else sys.argv[1:])
    print(json.dumps(summary) if args.json else report(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
