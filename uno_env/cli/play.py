"""``uno play``: play UNO in the terminal against agents.

    uno play --players 3 --opponents tactical
    uno play --players 4 --opponents keeper,tactical,ismcts --episode game
    uno play --set deck=fashion_trend --seed 7
    uno play --players 2 --opponents 'cmd:python examples/bots/random_bot.py'   # a program (docs/PROTOCOL.md)

The table is shown before each of your decisions (your hand, the others' card
counts, top card, colour, direction, scores and what happened since your last
move). Type an action (``play R7``, ``play W G``, ``draw``, ``pass``, ``uno``,
``challenge``, ``accept``, ``catch``, ``color G``), a bare card (``R7``), ``help``
for the legal actions, or ``quit``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from uno_env.agents import make_agent, parse_agent_spec
from uno_env.agents.base import hash_seed
from uno_env.agents.human import HumanAgent, QuitGame
from uno_env.cli.args import add_rule_arguments, rule_config
from uno_env.engine import Game
from uno_env.engine.events import describe, seen_by
from uno_env.engine.record import Recorder, save


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="uno play", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_rule_arguments(parser, "round")
    parser.add_argument(
        "--opponents",
        default="tactical",
        help="agent specs for the other seats, comma-separated, repeated in turn (default tactical)",
    )
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the deal (default: a fresh one)")
    parser.add_argument(
        "--record",
        type=Path,
        default=None,
        metavar="PATH",
        help="write the game record (JSON) there when the game ends; `uno replay PATH` shows it",
    )
    return parser


def events_for(game: Game, state, seat: int) -> list[str]:
    """The last step's events as ``seat`` may see them, in words."""
    return [describe(e) for e in seen_by(game.events(state), seat)]


def play(game: Game, human: HumanAgent, opponents: dict, seed: int | None, say, record=None) -> dict:
    """Play one episode; returns the final scores and winners (and, with ``record`` a path,
    writes the game record there)."""
    state = game.init(seed=seed)
    seat = human.seat
    labels = [f"you ({human.name})" if s == seat else opponents[s].name for s in range(game.num_players)]
    recorder = Recorder(game, state, agents=labels)
    human.notify([describe(e) for e in seen_by(game.events(state), seat) if e["type"] != "dealer_draw"])
    players = {s: human if s == seat else opponents[s] for s in range(game.num_players)}

    def after_step(acted: int, action: int) -> None:
        recorder.add(acted, action)
        human.notify(events_for(game, state, seat))

    game.play(state, players, on_step=after_step)
    if record is not None:
        save(recorder.record(), record)
        say(f"wrote the game record to {record} (uno replay {record})")
    for line in human.recent:
        say(f"  {line}")
    human.recent = []
    return say_result(game, state, seat, say)


def say_result(game: Game, state, seat: int, say) -> dict:
    """The end of the episode in words, for the player at ``seat``: who won (or that the step
    limit cut it) and the scores; returns the scores and winners."""
    scores = game.scores(state)
    winners = game.winners(state)
    say("-" * 60)
    if game.is_truncated(state):
        say(f"the game was cut at the step limit ({game.config.max_steps} decisions)")
    else:
        names = ", ".join(f"P{w}" + (" (you)" if w == seat else "") for w in winners)
        say(f"winner: {names}")
        say("you win!" if seat in winners else "you lose.")
    say("scores: " + "  ".join(f"P{s} {v}" for s, v in enumerate(scores)))
    return {"scores": scores, "winners": winners}


def main(argv: list[str] | None = None, stdin=None, stdout=None) -> int:
    args = build_parser().parse_args(argv)
    out = stdout if stdout is not None else sys.stdout

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    try:
        config = rule_config(args)
        game = Game(config)
        n = game.num_players
        if not 0 <= args.seat < n:
            raise ValueError(f"--seat {args.seat}: expected a seat 0..{n - 1}")
        if args.record is not None and not args.record.parent.is_dir():
            raise ValueError(f"--record {args.record}: the folder {args.record.parent} does not exist")
        opponents = opponents_of(args, game)
    except ValueError as err:
        print(f"uno play: error: {err}", file=sys.stderr)
        return 2
    human = HumanAgent(game, stdin=stdin, stdout=stdout, seat=args.seat)
    say(
        f"UNO: {n} players, you are P{args.seat}; opponents: "
        + ", ".join(f"P{s} {a.name}" for s, a in opponents.items())
    )
    say(f"rules: {config.in_words()}")
    try:
        play(game, human, opponents, args.seed, say, record=args.record)
    except QuitGame as why:
        say(f"bye ({why})")
        return 0
    finally:
        for agent in opponents.values():  # an outside program ends here, with all it started
            closing = getattr(agent, "close", None)
            if callable(closing):
                closing()
    return 0


def opponents_of(args, game: Game) -> dict:
    """The agents of the other seats, by seat: ``--opponents`` repeated in turn, each seeded
    from ``--seed`` (0 without) and its seat; 'human' is refused (ValueError)."""
    specs = [s.strip() for s in args.opponents.split(",") if s.strip()]
    if not specs:
        raise ValueError("--opponents: give at least one agent, e.g. --opponents tactical")
    for spec in specs:
        if parse_agent_spec(spec)[0] == "human":
            raise ValueError("--opponents: 'human' is you; choose computer agents")
    base_seed = 0 if args.seed is None else args.seed
    others = [s for s in range(game.num_players) if s != args.seat]
    return {s: make_agent(specs[k % len(specs)], game, seed=hash_seed(base_seed, s)) for k, s in enumerate(others)}


if __name__ == "__main__":
    sys.exit(main())
