"""How the training scripts judge a policy network: the exported file plays seat-rotated hands
against each opponent through the tournament runner (:func:`uno_env.arena.run_tournament`,
its ``field`` schedule). No torch: the network plays as ``make_agent("ppo:weights=...")``."""

from __future__ import annotations

import pathlib

from uno_env.arena import run_tournament
from uno_env.engine import Game


def evaluate(
    policy_path: pathlib.Path, game: Game, opponents: list[str], games: int, seed: int, colours: str | None = None
) -> dict:
    """The exported policy against each opponent in seat-rotated hands, through the
    tournament runner's ``field`` schedule (one learner seat, or team, against the
    opponent in all the others): win rate, its 95% Wilson interval and its ratio to the
    fair share, hand length. ``colours``: the ``ppo`` option (None: as the file says, which for
    a trained network is averaged over the colours; ``as_seen``: the network alone; ``average``)."""
    spec = f"ppo:weights={policy_path}" if colours is None else f"ppo:weights={policy_path}:colours={colours}"
    out = {}
    for opponent in opponents:  # the learner in one seat (one team), the opponent in the rest
        summary, *_ = run_tournament(
            [spec, opponent], game.config, games, seed=seed, schedule="field", workers=1, bootstrap=0
        )
        cell = summary["field"][opponent]
        out[opponent] = {
            "win_rate": cell["win_rate"],
            "ci": cell["win_rate_ci"],
            "ratio": cell["ratio"],
            "games": cell["games"],
            "hand_length": summary["hand_length"]["mean"],
        }
    return out
