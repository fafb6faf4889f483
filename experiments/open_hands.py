"""How much room is there against ``tactical``? A one-step search that sees every hand, in one file.

    python -m experiments.open_hands --num-players 4 --hands 1000
    python -m experiments.open_hands --smoke        # seconds (what the tests run)

The seer plays one seat (both seats of a team with partners) against the opponent in the
others, the seat rotating from hand to hand. At each of its decisions with more than one
legal action it sees the true position: every hand (``--sees all``; or only the next
opponent's, ``next``; or none, ``team``: the hands it does not see are dealt again from the
unseen cards in each sample), the discard pile, everything but the order of the draw pile.
For each of ``--samples`` shuffles of the draw pile it takes every legal action and lets
``tactical`` play every seat to the end of the hand (the same shuffles for every action).
It plays ``tactical``'s own choice unless another action's paired advantage over it, less
``--confidence`` standard errors, is positive (then the best such one), the rule of
``ismcts``. Its opponents are ``tactical``, so its model of them is exact.

It is not an upper bound on every policy (its own later moves are ``tactical``'s), but it
bounds what a search over ``tactical`` rollouts can get from perfect information about the
hands: the gap between ``all`` and ``team`` is what knowing the other hands is worth, and
its win rate puts the win-rate targets of a hidden-hand policy in proportion.

Record (experiments/history/training.md, "How much room there is"):

Question: are the hand targets beyond what the game allows against `tactical`? A search that
  sees every hand bounds what knowing the hands is worth.
Seeds: ``--num-players N [--rules partners=true] --hands 2000 --seed 1 --confidence 0`` (1,000
  hands at six players and with partners); ``--sees all|next|team`` at four players, seed 1
Machine and time: the project's 2-core machine, beside other runs: about 0.33 s a four-player
  hand on one core; the runs' totals: not recorded
Result: 47.6% [45.5, 49.8] at four players (2,000 hands, ratio 1.91), 83.5% [81.8, 85.1] at two,
  67.9% [65.8, 69.9] at three, 33.5% [30.6, 36.5] at six, 91.4% [89.5, 93.0] with partners: about
  twice the fair share at every table
Commit: recorded in the docs at 905a9ca (2026-12-02); the tree measured: not recorded
"""

from __future__ import annotations

import sys
import time
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np
from tqdm import tqdm

from uno_env.agents import hash_seed, make_agent
from uno_env.arena.notebook import play_out, rate
from uno_env.engine import Game
from uno_env.training.json_script import run_json_script
from uno_env.training.rules import make_game_of, teacher_seats


@dataclass
class Args:
    num_players: int = 4
    """players at the table"""
    rules: tuple[str, ...] = ()
    """other rule settings as KEY=VALUE (e.g. partners=true), as `uno tournament --set` takes them"""
    hands: int = 1000
    """hands to play"""
    samples: int = 48
    """shuffles of the draw pile per decision (every action is played out on each)"""
    sees: Literal["all", "next", "team"] = "all"
    """the hands the seer sees besides its own (its team's): every hand, only the next
    opponent's, or none (the others are dealt at random from the unseen cards, each sample)"""
    confidence: float = 1.0
    """standard errors by which an action's paired advantage over ``tactical``'s must be positive
    to replace it (0: the best mean), the rule of ``ismcts``: the best of noisy means loses"""
    seed: int = 1
    """seed of the hands and the shuffles"""
    progress: bool = True
    """a progress bar over the hands"""


SMOKE = dict(hands=6, samples=4, progress=False)
ROLLOUT = "tactical"


def hidden_seats(position: dict, seats: tuple[int, ...], sees: str) -> tuple[int, ...]:
    """The seats whose hands the seer does not see in ``position`` (a position dict): none,
    all but the next opponent, or all but its team's."""
    if sees == "all":
        return ()
    n = position["num_players"]
    others = tuple(s for s in range(n) if s not in seats and position["alive"][s])
    if sees == "team":
        return others
    following = (position["current_player"] + position["direction"]) % n
    while following not in others:
        following = (following + position["direction"]) % n
    return tuple(s for s in others if s != following)


def shuffled_states(
    game: Game, position: dict, samples: int, rng: np.random.Generator, hidden: tuple[int, ...] = ()
) -> list:
    """States of ``position`` (a position dict) whose draw piles are shuffled (and whose
    generators differ); the hands of the ``hidden`` seats are dealt again, with the draw
    pile, from their cards."""
    sizes = [len(position["hands"][s]) for s in hidden]
    unseen = [card for s in hidden for card in position["hands"][s]] + list(position["draw_pile"])
    states = []
    for _ in range(samples):
        cards = list(unseen)
        rng.shuffle(cards)
        hands = list(position["hands"])
        for seat, size in zip(hidden, sizes):
            hands[seat], cards = cards[:size], cards[size:]
        states.append(
            game.from_position({**position, "hands": hands, "draw_pile": cards}, seed=int(rng.integers(2**63)))
        )
    return states


def open_hand_action(
    game: Game,
    state,
    seats: tuple[int, ...],
    default: int,
    samples: int,
    rng,
    sees: str = "all",
    confidence: float = 1.0,
) -> int:
    """The legal action whose play-outs on shuffled draw piles (and hidden hands, :attr:`Args.sees`)
    won most often for ``seats``, where it beats ``default`` by ``confidence`` standard errors."""
    actions = game.legal_actions(state)
    if len(actions) == 1:
        return actions[0]
    position = game.position(state)
    states = shuffled_states(game, position, samples, rng, hidden_seats(position, seats, sees))
    outcome, _, _ = play_out(
        game, states * len(actions), [a for a in actions for _ in states], ROLLOUT, int(rng.integers(2**31))
    )
    won = (outcome[:, list(seats)] > 0).any(axis=1).reshape(len(actions), samples).astype(float)
    advantage = won - won[actions.index(default)]  # paired: the same shuffles for every action
    gain = advantage.mean(axis=1) - confidence * advantage.std(axis=1, ddof=1) / np.sqrt(samples)
    best = int(np.argmax(np.where(gain > 0, advantage.mean(axis=1), -np.inf)))
    return actions[best] if gain[best] > 0 else default


def play(args: Args) -> dict:
    if args.hands < 1 or args.samples < 2 or not args.confidence >= 0:
        raise ValueError("--hands must be at least 1, --samples at least 2, --confidence at least 0")
    game = make_game_of(args)
    opponent = make_agent(ROLLOUT, game, seed=hash_seed(args.seed, 2))
    rng = np.random.default_rng(hash_seed(args.seed, 1))
    wins = 0
    started = time.time()
    for hand in tqdm(range(args.hands), desc="hands", disable=not args.progress):
        seats = teacher_seats(game, hand)
        state = game.init(seed=hash_seed(args.seed, 3, hand))
        while not game.is_over(state):
            seat = game.current_player(state)
            default = opponent.act(game.observe(state, seat), game.legal_mask(state))
            if seat in seats:
                action = open_hand_action(game, state, seats, default, args.samples, rng, args.sees, args.confidence)
            else:
                action = default
            game.step(state, action)
        wins += any(w in seats for w in game.winners(state))
    fair = 1 / game.config.num_teams
    share, low, high = rate(wins, args.hands)
    return {
        "args": asdict(args),
        "win_rate": [share, low, high],
        "ratio": share / fair,
        "seconds": time.time() - started,
    }


def main(argv: list[str] | None = None) -> int:
    return run_json_script("open_hands", __doc__ or "", Args, SMOKE, play, argv)


if __name__ == "__main__":
    sys.exit(main())
