"""``uno ladder``: a standing ladder in one SQLite file. Versions of a bot join it one at a time,
every game it plays stays in it, and the ratings are fitted on all of them.

    uno ladder new bots.db --players 4 --set seven_o=true   # the rules are fixed here
    uno ladder add bots.db tactical
    uno ladder add bots.db 'cmd:python my_bot.py' --name my_bot
    uno ladder play bots.db --games 2000                     # or --minutes 30; --workers 4; --ray
    uno ladder show bots.db                                  # --json, --html ladder.html

``new FILE --players N [--episode round|game] [--set K=V ...] [--seed S]`` makes the file; its
rules and seed never change. ``add FILE SPEC [--name NAME]`` adds any agent spec ``uno
tournament`` takes (``cmd:`` programs and ``ppo:weights=`` included) and records a SHA-256 of
the file behind it (the weights, the shipped network, the program's files). The same name
with a changed file is registered as a new entrant (``my_bot v2``) and the old one retires:
its games stay, it plays no more. ``play`` refuses to play an entrant whose file changed
since it was added.

``play FILE (--games N | --minutes M)`` chooses the next tables where they most narrow the
rating intervals (an entrant without games first), plays each table on one seeded deal in
every rotation of its seats, and commits every finished game in its own transaction: a
``play`` killed at any moment keeps every game it finished, and several ``play`` at once on
one file (or ``--workers``, ``--ray`` for a cluster) each add exactly the games they report;
a deal is never played twice at the same seating. ``--minutes``: no batch of games starts
after M minutes (the batch in flight finishes and counts).

``show FILE [--json] [--html OUT]``: the ratings with 95% intervals (the tournament's Luce
model, on the Elo scale, fitted on every game in the file), games and win rates per entrant,
head to head, per-seat win rates; ``--json`` one JSON object (``games``; ``entrants``, each
with ``name``, ``games``, ``rating``, ``interval``, ...); ``--html`` a page with the plot.
When to use it, and ``uno match --sprt`` beside it: docs/is_my_bot_better.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tqdm import tqdm

from uno_env.arena.ladder import add_entrant, play_ladder
from uno_env.arena.ladder_report import html_page, public, standings, text
from uno_env.arena.ladder_store import LadderStore
from uno_env.cli.args import add_rule_arguments, add_runner_arguments, count_type, duration_type, rule_config, seed_type
from uno_env.cli.tournament import failures_in_words

MAX_MINUTES = 7 * 24 * 60.0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="uno ladder", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="action", required=True, metavar="{new,add,play,show}")
    new = commands.add_parser("new", help="make a ladder file with its rules")
    new.add_argument("file", type=Path)
    add_rule_arguments(new, "round", 2)
    new.add_argument("--seed", type=seed_type, default=0, help="seed of the deals (default 0)")
    add = commands.add_parser("add", help="add an entrant (an agent spec)")
    add.add_argument("file", type=Path)
    add.add_argument("spec", help="any agent spec: name, name:key=value, ppo:weights=PATH, cmd:COMMAND")
    add.add_argument("--name", default=None, help="the name it plays under (default: the spec)")
    play = commands.add_parser("play", help="play games where they narrow the ratings most")
    play.add_argument("file", type=Path)
    amount = play.add_mutually_exclusive_group(required=True)
    amount.add_argument("--games", type=count_type(1, 10**9), help="games to play")
    amount.add_argument("--minutes", type=duration_type(MAX_MINUTES), help="minutes to play for")
    add_runner_arguments(play, 1, "; the file stays here")
    play.add_argument("--no-progress", action="store_true", help="no progress bar")
    show = commands.add_parser("show", help="ratings, win rates, head to head")
    show.add_argument("file", type=Path)
    show.add_argument("--json", action="store_true", help="print one JSON object")
    show.add_argument("--html", type=Path, default=None, metavar="OUT", help="write an HTML page with the plot")
    return parser


def main(argv: list[str] | None = None) -> int:
    with failures_in_words("uno ladder"):
        return run(argv)


def run(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    if args.action == "new":
        config = rule_config(args, 2)
        LadderStore.create(args.file, config, args.seed).close()
        print(f"made {args.file}: {config.num_players} players, episode {config.episode}, seed {args.seed}")
        return 0
    if args.action == "play":
        return play(args, argv)
    store = LadderStore.open(args.file)
    try:
        if args.action == "add":
            _, said = add_entrant(store, args.spec, args.name)
            print(said)
            return 0
        return show(store, args)
    finally:
        store.close()


def play(args, argv) -> int:
    command = "uno ladder " + " ".join(argv if argv is not None else sys.argv[1:])
    tty = not args.no_progress and sys.stderr.isatty()
    with tqdm(total=args.games, unit="game", disable=not tty, file=sys.stderr) as bar:
        done = play_ladder(
            args.file,
            games=args.games,
            minutes=args.minutes,
            workers=args.workers,
            ray=args.ray,
            command=command,
            on_game=lambda _: bar.update(1),
        )
    print(
        f"played {done['games']} games in {done['seconds']:.1f} s (play {done['play']}); "
        f"{args.file} has {done['total']} games"
    )
    return 0


def show(store: LadderStore, args) -> int:
    result = standings(store)
    if args.html is not None:
        args.html.write_text(html_page(result))
    if args.json:
        print(json.dumps(public(result)))
    else:
        print(text(result))
        if args.html is not None:
            print(f"wrote {args.html}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
