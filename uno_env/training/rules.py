"""The rules of a training run: its ``--num-players``, ``--episode``, ``--reward`` and
``--rules KEY=VALUE`` (parsed like ``uno tournament --set``), and the seats a learner or
teacher plays in each hand."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Protocol

from uno_env.cli.args import rule_config
from uno_env.engine import Game

TEAM_NEEDS_PARTNERS = "--learner-team needs partners: add --rules partners=true (an even number of players, 4 or more)"


class RuleArgs(Protocol):
    """The rule settings of a run's arguments (this module's, train_sb3's and train_rllib's
    ``Args``), read only: a script may narrow them to literals."""

    @property
    def num_players(self) -> int: ...
    @property
    def episode(self) -> str: ...
    @property
    def reward(self) -> str: ...
    @property
    def rules(self) -> tuple[str, ...]: ...


def make_game(args: RuleArgs) -> Game:
    """The rules of the run: ``--rules KEY=VALUE`` parsed like ``uno tournament --set``."""
    reward = "points" if args.reward == "margin" else args.reward  # margin: see point_margins
    rules = SimpleNamespace(settings=[*args.rules, f"reward={reward}"], players=args.num_players, episode=args.episode)
    try:
        return Game(rule_config(rules, args.num_players))
    except ValueError as err:  # its messages name the tournament's flag
        raise ValueError(str(err).replace("--set ", "--rules ")) from None


def make_game_of(args: Any) -> Game:
    """Single hands at ``args.num_players`` with ``args.rules`` (the ``Args`` of ``ppo`` or a research script);
    whole games scored in points where ``args`` has ``episode="game"`` (as the whole-game networks were trained)."""
    episode = getattr(args, "episode", "round")
    reward = "points" if episode == "game" else "win"
    return make_game(SimpleNamespace(rules=args.rules, num_players=args.num_players, episode=episode, reward=reward))


def teacher_seats(game: Game, hand: int) -> tuple[int, ...]:
    """The teacher's seats in hand ``hand``: one seat, or both seats of a team, in turn."""
    config = game.config
    if config.partners:
        seat = hand % (game.num_players // 2)
        return (seat, config.partner_of(seat))
    return (hand % game.num_players,)
