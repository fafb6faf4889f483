"""Playthroughs: a seeded game written out as text (legal actions, choices, events, and
the acting seat's observation in its text view, as OpenSpiel's playthroughs do).

The files under ``tests/playthroughs`` are compared on every test run, so any
change of behaviour shows up as a diff. Regenerate them after an intended
change with ``python -m uno_env.playthrough --write``.
"""

from __future__ import annotations

import argparse
import pathlib

import numpy as np

from .engine import Game, RuleConfig
from .engine.events import describe

PLAYTHROUGHS = {
    "classic_4p_seed7.txt": (RuleConfig(num_players=4, episode="round"), 7),
    "fashion_3p_seed11.txt": (RuleConfig(num_players=3, deck="fashion_trend", target_score=60), 11),
    "partners_4p_seed3.txt": (RuleConfig(num_players=4, partners=True, episode="round"), 3),
    "challenge_3p_seed5.txt": (RuleConfig(num_players=3, scoring="challenge", target_score=40), 5),
    "two_player_seed1.txt": (RuleConfig(num_players=2, target_score=100), 1),
    "house_stacking_seven_o_4p_seed2.txt": (
        RuleConfig(num_players=4, stacking="mixed", seven_o=True, episode="round"),
        2,
    ),
    "house_jump_in_draw_4p_seed4.txt": (
        RuleConfig(num_players=4, jump_in=True, draw_until_playable=True, episode="round"),
        4,
    ),
}
DEFAULT_DIR = pathlib.Path(__file__).resolve().parent.parent / "tests" / "playthroughs"


def choose(game: Game, legal: list[int], rng: np.random.Generator) -> int:
    """A seeded player that prefers playing to drawing, so that games stay short."""
    strings = [game.action_to_string(a) for a in legal]
    preferred = [a for a, s in zip(legal, strings) if s not in ("draw", "pass")]
    pool = preferred if preferred and rng.random() < 0.9 else legal
    return int(pool[int(rng.integers(len(pool)))])


def observation_line(game: Game, observation: np.ndarray) -> str:
    """The text view of an observation on one line: its non-empty slices."""
    rows = [row.split(None, 1) for row in game.obs_spec.to_text(observation).splitlines()]
    return " | ".join(f"{row[0]} {row[1]}" for row in rows if len(row) == 2 and row[1] != "-")


def playthrough(config: RuleConfig, seed: int, max_steps: int = 3000) -> str:
    """The text of one seeded game."""
    game = Game(config)
    rng = np.random.default_rng(seed)
    state = game.init(seed=seed)
    lines = [
        f"# UNO playthrough: {config}",
        f"# seed {seed}",
        f"# num_actions {game.num_actions}, observation_size {game.observation_size} (float32)",
        "reset",
    ]
    lines += [f"  - {describe(e)}" for e in game.events(state)]
    position = game.position(state)
    lines += [f"  hand P{s}: {' '.join(h)}" for s, h in enumerate(position["hands"])]
    steps = 0
    while not game.is_over(state) and steps < max_steps:
        seat = game.current_player(state)
        legal = game.legal_actions(state)
        position = game.position(state)
        top = position["discard_pile"][-1]
        lines.append(
            f"step {steps + 1}: P{seat} {game.phase(state)} | top {top} colour {position['colour']} | "
            f"hand {' '.join(position['hands'][seat])}"
        )
        lines.append(f"  observation: {observation_line(game, game.observe(state, seat))}")
        lines.append(f"  legal: {', '.join(game.action_to_string(a) for a in legal)}")
        action = choose(game, legal, rng)
        lines.append(f"  action: {game.action_to_string(action)}")
        result = game.step(state, action)
        lines += [f"  - {describe(e)}" for e in result.events]
        if result.rewards.any():
            lines.append(f"  rewards: {' '.join(f'{r:+g}' for r in result.rewards)}")
        steps += 1
    lines.append(
        f"end: scores {game.scores(state)} winners {game.winners(state)} "
        f"terminated {game.is_terminated(state)} truncated {game.is_truncated(state)} steps {steps}"
    )
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        prog="uno playthrough", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--write", action="store_true", help="rewrite the playthrough files of the test suite")
    parser.add_argument("--dir", type=pathlib.Path, default=DEFAULT_DIR)
    parser.add_argument(
        "--players",
        type=int,
        choices=range(2, 11),
        default=4,
        metavar="2..10",
        help="players for a one-off playthrough",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of a one-off playthrough, 0 .. 2**64 - 1")
    args = parser.parse_args(argv)
    if not 0 <= args.seed < 2**64:
        parser.error(f"argument --seed: expected a seed 0 .. 2**64 - 1, got {args.seed}")
    if args.write and (args.dir.exists() and not args.dir.is_dir()):
        parser.error(f"argument --dir: {str(args.dir)!r} is not a folder")
    if args.write:
        args.dir.mkdir(parents=True, exist_ok=True)
        for name, (config, seed) in PLAYTHROUGHS.items():
            (args.dir / name).write_text(playthrough(config, seed))
            print(f"wrote {args.dir / name}")
    else:
        print(playthrough(RuleConfig(num_players=args.players, episode="round"), args.seed), end="")


if __name__ == "__main__":
    main()
