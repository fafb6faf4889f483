"""Agents that follow the whole game through the play loop's hooks (:mod:`uno_env.engine.observers`).

:class:`FollowingAgent` keeps what an agent needs besides its own observation: its seat,
the events it saw since it last took them (:meth:`~FollowingAgent.take_events`), and when
a game begins, a round ends and the game ends, each told once to the subclass
(:meth:`~FollowingAgent.game_started`, :meth:`~FollowingAgent.round_ended`,
:meth:`~FollowingAgent.game_ended`). A new game begins at :meth:`~uno_env.agents.Agent.reset`
(the tournament resets its agents before every game), at a deal (a step count that does
not grow) or after the game's end. Called directly, outside a play loop, the agent has no
events and no seat (``None``), and a game lasts from one ``reset`` to the next.
"""

from __future__ import annotations

from uno_env.engine import Game, RuleConfig
from uno_env.engine.seeding import hash_seed

from .base import Agent


class FollowingAgent(Agent):
    """Base of the agents that follow the game (see the module docstring). One agent plays one
    seat of a game: told about two seats, it raises ValueError."""

    def __init__(self, rules: RuleConfig | Game | None = None, seed: int = 0):
        self.seat: int | None = None
        """The seat this agent plays in the current game (None: not told)."""
        self.games = 0
        """Games begun since the last :meth:`reset`."""
        self._pending: list[dict] = []
        self._last: tuple[int, list[dict]] | None = None
        self._new_game = True
        self._ended = False
        super().__init__(rules, seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.games = 0
        self._new_game = True

    def game_seed(self) -> int:
        """The seed of the current game: the agent's seed for the first game after a reset,
        then one derived from it and the game's number."""
        return self.seed if self.games <= 1 else hash_seed(self.seed, self.games)

    # ------------------------------------------------------------------ the hooks
    def observe_events(self, seat: int, events: list[dict], step: int) -> None:
        if self._told_again(seat, events, step):
            return
        self._take_seat(seat)
        self._last = (step, events)
        self._collect(events)

    def _told_again(self, seat: int, events: list[dict], step: int) -> bool:
        """Whether this seat was told this step already; a step count that did not grow (or
        any step after the game ended) starts a new game."""
        if self._new_game or self._last is None:
            return False
        told = self._last == (step, events)
        if told and seat == self.seat:
            return True
        if not told and (self._ended or step <= self._last[0]):  # a step count only grows within a game
            self._new_game = True
        return False

    def _take_seat(self, seat: int) -> None:
        """Begin the new game at ``seat``, or check that the agent plays no other seat."""
        if self._new_game:
            self.begin(seat)
        elif self.seat is None:
            self.seat = seat
        elif seat != self.seat:
            raise ValueError(
                f"{self.name}: one agent plays one seat, here seats {self.seat} and {seat}; make one agent per seat"
            )

    def _collect(self, events: list[dict]) -> None:
        """Keep the events; the events of a round up to its scores go to :meth:`round_ended`."""
        round_over = False
        for event in events:
            if round_over and event["type"] != "score":
                self.round_ended(self._pending)
                round_over = False
            self._pending.append(event)
            round_over = round_over or event["type"] == "round_end"
        if round_over:
            self.round_ended(self._pending)

    def game_over(self, seat: int, outcome: list[int], scores: list[int]) -> None:
        if self._new_game:
            self.begin(seat)
        elif self._ended:
            return
        self._ended = True
        self.game_ended(outcome, scores)

    # ------------------------------------------------------------------ for subclasses
    @property
    def step(self) -> int | None:
        """The decisions taken in the game when this agent was last told (None: never)."""
        return self._last[0] if self._last is not None else None

    def begin(self, seat: int | None) -> None:
        """Start a new game at ``seat`` (the hooks do; :meth:`act` of a subclass calls it when
        a reset was not followed by any hook)."""
        self._new_game = False
        self._ended = False
        self.seat = seat
        self._pending = []
        self._last = None
        self.games += 1
        self.game_started()

    @property
    def starting(self) -> bool:
        """A new game is due and no hook has begun it (direct calls, outside a play loop)."""
        return self._new_game

    def take_events(self) -> list[dict]:
        """The events seen since the last call (and forgets them)."""
        events, self._pending = self._pending, []
        return events

    def game_started(self) -> None:
        """A new game begins (:attr:`seat` and :meth:`game_seed` are set)."""

    def round_ended(self, events: list[dict]) -> None:
        """A round has ended: ``events`` are the events not taken yet, the round's end and its
        scores last (:meth:`take_events` takes them)."""

    def game_ended(self, outcome: list[int], scores: list[int]) -> None:
        """The game is over: per seat +1 won, -1 lost, 0 neither; the game scores."""


__all__ = ["FollowingAgent"]
