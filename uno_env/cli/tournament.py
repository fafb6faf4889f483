"""``uno tournament``: agents against each other, with a leaderboard you can trust.

    uno tournament                                     # the demo: 5 agents (ppo and its search), 4 players, 120 hands
    uno tournament --agents random,naive,keeper,tactical --players 2 --games 20000
    uno tournament --agents keeper,tactical,ismcts:determinizations=400 --players 2 --games 2000
    uno tournament --agents random,naive,keeper,tactical --players 4 --schedule rotate --games 400
    uno tournament --episode game --set deck=fashion_trend --set target_score=200

A *game* of the tournament (``--games`` counts them) is one hand by default
(RuleConfig ``episode="round"``); ``--episode game`` plays whole games to the
target score. Every RuleConfig setting is reachable with ``--set KEY=VALUE``.

Schedules (``--schedule``):

* ``mixed`` (default): with at least as many agents as seats, every combination
  of ``--players`` agents is a table; with fewer, tables repeat the agents in turn
  (``A B A B``) and every agent starts the pattern equally often. Each table is
  played in every seating (all orders up to 4 players, rotations above), so every
  agent sits in every seat equally often. With two players this is a round robin.
* ``rotate``: rotating partners (R-VAR-ROTATE, D-VARIANTS) for 4 or 8 players at
  4-player partner tables: with 4 players 3 hands, one per pairing, so that each
  player partners each other player; with 8 players at two tables, 28 hands in
  which each player partners each other player four times. Individual totals
  (the team's points of each hand) are kept across partnerships and the highest
  total wins; a game of the tournament is one such rotation.
* ``field``: one agent against the field: the first agent of ``--agents`` takes
  one seat (with partners, both seats of one team) and one other agent every
  other seat, each other agent in turn, the first agent in every seat (every
  team's seats) equally often. The summary's ``field`` gives its win rate against
  each, the fair share (1 / players, or 1/2 for a team) and their ratio with 95%
  intervals: how trained agents are measured at tables of more than two
  (``uno tournament --agents ppo,tactical --players 4 --schedule field``).

The dealer of every game is the last seat, so seat 0 plays first (R-SETUP-3):
the per-seat win rates measure the first-player advantage. ``--games`` is
rounded up so that every seating is played equally often.

Programs in any language take seats with ``cmd:COMMAND`` (the agent protocol,
docs/PROTOCOL.md): ``--agents 'cmd:python examples/bots/random_bot.py',tactical`` (quote
the spec for the shell; there the command cannot contain a comma, which separates the
agents). One process per seat and worker, ended with everything it started when the
tournament ends or is interrupted. A program that fails (dies, stalls, writes a bad line,
breaks the framing, plays an action the game refuses) forfeits that game, under every
``illegal_action`` setting, and the run goes on: the leaderboard counts its forfeits and
failures by kind, and a warning names each (table game, hand, decision). ``--strict``
stops at the first failure instead, for debugging a bot (docs/PROTOCOL.md, "When a
program fails").

Agents that wrap a compiled policy play inside one parallel compiled call
(``uno_env.agents.policies.play_batch``, every numba thread); games with other agents (``ismcts``)
run in ``--workers`` processes. ``--ray [ADDRESS]`` plays the same games as Ray
tasks on a cluster (or a local Ray): see ``uno_env/arena/distributed.py`` and
docs/SCALE.md. One seed gives the same results in any process, with any number of
workers, locally or on Ray.

The leaderboard: win rate per seat held (an agent with one seat a game: its games won;
the field of ``--schedule field``, holding the other seats: the share of them that won,
for one seat's fair share) with a 95% Wilson interval, mean points per hand, a
Bradley-Terry rating on the Elo scale (a Luce choice model of who wins each game,
400 points = 10:1 odds, the field's mean at 1500) with a 95% bootstrap interval,
per-seat win rates and the distribution of hand lengths (decisions per hand).
Files: each run has its own folder, ``results/<name>/`` (``--name``; by default the
date and time the run started, so that no run overwrites another), or ``--out DIR``
(a folder that holds a previous run's files is refused, unless ``--overwrite``):
``tournament.json``, ``tournament_leaderboard.csv``, ``tournament_games.csv`` and
``tournament.png`` (ratings and win rates with intervals, hand lengths).
``--save-games K`` adds ``games/game_<job>.json`` (game records, see
:mod:`uno_env.engine.record`) and ``.html`` (replays, ``uno replay``) of the first K
games of each pairing (each set of agents at a table), replayed from Python with the
tournament's seeds: the games the leaderboard counted, the same in every rerun.

This file is the command; the library it calls (schedules, table loops, ratings,
analysis; ``run_tournament`` for scripts and notebooks) is :mod:`uno_env.arena`.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
import warnings
from pathlib import Path

from uno_env.agents import agent_descriptions
from uno_env.agents.program import ProgramFailureWarning
from uno_env.arena import (
    TournamentStopped,
    format_leaderboard,
    output_names,
    run_tournament,
    save_games,
    write_outputs,
)
from uno_env.cli.args import (
    add_rule_arguments,
    add_runner_arguments,
    check_memory,
    check_output_folder,
    count_type,
    rule_config,
    seed_type,
)

DEFAULT_AGENTS = "random,keeper,tactical,ppo,ppo_search"
DEFAULT_PLAYERS = 4
DEFAULT_GAMES = 120
MAX_BOOTSTRAP = 100_000
"""The most bootstrap samples (``--bootstrap``)."""
BYTES_PER_GAME_AND_SEAT = 256
"""About the bytes a game of the tournament holds per seat, plus one (its schedule entry and
records, and the analysis' arrays): ``--games`` is checked against the memory available."""
RESULTS = Path("results")
STEM = "tournament"
"""The outputs' file name stem, in the run's folder."""


def agents_listing() -> str:
    """The agents ``--agents`` takes, one line each, from the agent registry."""
    descriptions = agent_descriptions()
    width = max(len(name) for name in descriptions)
    return "agents (--agents):\n" + "\n".join(f"  {name:<{width}}  {text}" for name, text in descriptions.items())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="uno tournament",
        description=__doc__,
        epilog=agents_listing(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--agents",
        default=DEFAULT_AGENTS,
        help=f"agent specs, comma-separated (name, name:key=value..., or cmd:COMMAND); default {DEFAULT_AGENTS}",
    )
    add_rule_arguments(parser, None, DEFAULT_PLAYERS)
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help=f"games of the tournament (default {DEFAULT_GAMES}; as many as the memory holds)",
    )
    parser.add_argument("--seed", type=seed_type, default=0, help="seed of the whole tournament (default 0)")
    parser.add_argument(
        "--schedule",
        choices=("mixed", "rotate", "field"),
        default="mixed",
        help="table schedule (field: the first agent in one seat, or one team, against each other agent in the rest)",
    )
    parser.add_argument(
        "--seating",
        choices=("permutations", "rotations"),
        default=None,
        help="seatings of each table (default: all orders up to 4 players, rotations above)",
    )
    add_runner_arguments(parser, 2, "; the same results as without")
    parser.add_argument(
        "--bootstrap",
        type=count_type(0, MAX_BOOTSTRAP),
        default=200,
        help=f"bootstrap samples for rating intervals (default 200, 0 for none, at most {MAX_BOOTSTRAP})",
    )
    add_output_arguments(parser)
    parser.add_argument(
        "--strict",
        action="store_true",
        help="stop at the first failure of an agent (debugging a bot); by default it forfeits that game",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--no-files", action="store_true", help="print the leaderboard only")
    parser.add_argument(
        "--save-games",
        type=count_type(0, 10_000),
        default=0,
        metavar="K",
        help="write the game records and HTML replays of the first K games of each pairing to OUT/games/",
    )
    return parser


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """``--out``, ``--overwrite`` and ``--name``: where a run's files go."""
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="folder of this run's files (default results/NAME/, see --name); a folder that holds a previous "
        "run's files is refused unless --overwrite",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="write into a folder that holds a previous run's files: they are replaced, its game records "
        "(games/game_*) removed",
    )
    parser.add_argument(
        "--name", default=None, help="the run's name: its files go to results/NAME/ (default: the start time)"
    )


def output_folder(out: Path | None, name: str | None, started: time.struct_time) -> Path:
    """Where a run writes: ``out`` if given, else ``results/<name>/``; without a name the
    start time (``20261201-134502``), numbered (``-2``, ...) if a run of that second exists."""
    if out is not None:
        return out
    if name is not None:
        if not name or Path(name).name != name or name in (".", ".."):
            raise ValueError(f"--name must be a plain folder name (no path), got {name!r}; use --out for a path")
        return RESULTS / name
    stamp = time.strftime("%Y%m%d-%H%M%S", started)
    folder, k = RESULTS / stamp, 1
    while folder.exists():
        k += 1
        folder = RESULTS / f"{stamp}-{k}"
    return folder


@contextlib.contextmanager
def failures_in_words(command: str = "uno tournament"):
    """A program's failure warned of as a line of the command's own, not a source location."""
    plain = warnings.formatwarning

    def format_warning(message, category, filename, lineno, line=None):
        if issubclass(category, ProgramFailureWarning):
            return f"{command}: warning: {message}\n"
        return plain(message, category, filename, lineno, line)

    warnings.formatwarning = format_warning
    try:
        yield
    finally:
        warnings.formatwarning = plain


def main(argv: list[str] | None = None) -> int:
    with failures_in_words():
        return run(argv)


def run(argv: list[str] | None) -> int:
    """``main``'s work: the tournament, its leaderboard and files; the exit status."""
    args = build_parser().parse_args(argv)
    try:
        out = output_folder(args.out, args.name, time.localtime())
        specs = [s.strip() for s in args.agents.split(",") if s.strip()]
        players = args.players if args.players is not None else DEFAULT_PLAYERS
        config = table_config(args, players)
        games = games_of(args, players)
        if not args.no_files:
            check_output_folder("--out" if args.out is not None else "--name", out)
            check_previous_run("--out" if args.out is not None else "--name", out, args.overwrite)
        summary, plan, entrants, records = run_tournament(
            specs,
            config,
            games,
            seed=args.seed,
            schedule=args.schedule,
            players=players,
            workers=args.workers,
            bootstrap=args.bootstrap,
            ray=args.ray,
            progress=not args.no_progress,
            orders=args.seating,
            strict=args.strict,
        )
    except ValueError as err:
        print(f"uno tournament: error: {err}", file=sys.stderr)
        return 2
    except TournamentStopped as err:
        print(f"uno tournament: stopped: {err}", file=sys.stderr)
        return 1
    summary["command"] = "uno tournament " + " ".join(argv if argv is not None else sys.argv[1:])
    print(
        f"{summary['games']} games ({summary['table_games']} table games) of {players} players, "
        f"schedule {args.schedule}, episode {config.episode}, seed {args.seed}, {summary['elapsed_seconds']:.1f}s"
    )
    print(format_leaderboard(summary))
    if not args.no_files:
        remove_previous_records(out)
        paths = write_outputs(out, STEM, summary, plan, entrants, records)
        print(f"wrote {out}/: " + ", ".join(p.name for p in paths))
    if not args.no_files and args.save_games:
        saved = save_games(config, entrants, plan, args.seed, args.save_games, out / "games")
        print(f"wrote {len(saved)} game records and replays to {out / 'games'}/ (uno replay RECORD.json)")
    return 0


def previous_run(out: Path) -> list[Path]:
    """The files of a run already in ``out``: its outputs and its game records (``games/game_*``)."""
    found = [out / name for name in output_names(STEM) if (out / name).exists()]
    return found + sorted((out / "games").glob("game_*")) if out.is_dir() else found


def check_previous_run(option: str, out: Path, overwrite: bool) -> None:
    """Refuse a folder holding a previous run's files (ValueError naming them), unless ``overwrite``."""
    found = previous_run(out)
    if found and not overwrite:
        names = ", ".join(str(path.relative_to(out)) for path in found[:4]) + (", ..." if len(found) > 4 else "")
        raise ValueError(
            f"{option} {str(out)!r} holds a previous run's files ({names}): choose another folder, "
            "or add --overwrite to replace them"
        )


def remove_previous_records(out: Path) -> None:
    """Before a run writes (``--overwrite``): the game records of the run before it go, so that the
    folder holds one run's files only (its other files are written over)."""
    for path in previous_run(out):
        if path.parent.name == "games":
            path.unlink()


def games_of(args, players: int) -> int:
    """``--games`` (default :data:`DEFAULT_GAMES`), checked: positive, and within the memory."""
    games = args.games if args.games is not None else DEFAULT_GAMES
    if games < 1:
        raise ValueError(f"--games must be a positive integer, got {games}")
    hands = {4: 3, 8: 28}.get(players, 1) if args.schedule == "rotate" else 1  # R-VAR-ROTATE
    check_memory("--games", games, hands * BYTES_PER_GAME_AND_SEAT * (players + 1), "game")
    return games


def table_config(args, players: int):
    """The rules of the tables: ``--schedule rotate`` plays single hands at 4-player partner
    tables (R-VAR-ROTATE), whatever the players of a game; any other schedule, hands (or
    ``--episode game``) at ``players`` seats. Sets ``args``' rule options to match."""
    if args.schedule == "rotate":
        if args.episode == "game":
            raise ValueError("--schedule rotate plays single hands (R-VAR-ROTATE); drop --episode game")
        args.players = 4
        args.settings = list(args.settings) + ["partners=true"]
        args.episode = "round"
    else:
        args.players = players
        args.episode = args.episode or "round"
    return rule_config(args, players)


if __name__ == "__main__":
    sys.exit(main())
