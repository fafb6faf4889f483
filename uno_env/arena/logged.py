"""Logged play for the notebooks (:func:`play_logged`): seat-rotated hands played from Python
(compiled policies and Python agents alike), keeping every decision with a few facts about
it (was a Wild Draw Four a bluff, the bluff estimate at a challenge and the truth, which
colour a wild named), every event, and per hand the outcome, the scores and the starting
hands (:class:`PlayLog`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from uno_env.agents import Agent, hash_seed, make_agent
from uno_env.agents import policies as policy_kernels
from uno_env.engine import Game, RuleConfig
from uno_env.engine import kernels as K
from uno_env.engine.cards import WILD
from uno_env.engine.events import EVENT_WIDTH, MAX_EVENTS
from uno_env.engine.game import State, seed_to_rng
from uno_env.engine.layout import (
    O_HAND_SIZES,
    P_A_DRAW,
    P_A_W,
    P_A_W4,
    P_FACES,
    P_NUM_ACTIONS,
    P_O_SIZE,
    PH_CHALLENGE,
    PH_OVER,
    S_COLOUR,
    S_CURRENT,
    S_PHASE,
    S_ROUND,
    S_STEP,
    S_TRUNCATED,
    S_WD4_GUILTY,
)
from uno_env.engine.state import hand

from .schedule import mixed_lineups
from .tables import job_seeds

DECISION_FIELDS = (
    "hand",  # index of the hand
    "seat",
    "entrant",  # index into PlayLog.labels
    "phase",  # PH_* of the decision
    "action",
    "hand_size",  # cards held by the acting player
    "playable",  # legal card plays (coloured or wild) in the decision
    "holds_current",  # wild plays: 1 if the player held the current colour (a Wild Draw Four: a bluff); else 0 or -1
    "colour_rank",  # wild plays: colours held strictly more often than the one named (0: a strongest); else -1
    "guilty",  # challenge decisions: 1 if the Wild Draw Four was a bluff, 0 if legal; else -1
    "counterfactual",  # the action of PlayLog.counterfactual on the same observation, -1 without
)
# and two float columns: "estimate" (challenge decisions: tactical's bluff probability,
# prior 0.4; NaN elsewhere) and "q" (the same with prior 1: the chance that a random hand of
# the offender's size, from the cards the challenger cannot see, holds the previous colour)


@dataclass
class PlayLog:
    """What :func:`play_logged` recorded. ``decisions`` and ``hands`` are dicts of arrays
    (one row per decision, per hand); ``events`` is an int array of rows
    ``(hand, type, a, b, c)`` (see :mod:`uno_env.engine.events`)."""

    config: RuleConfig
    labels: list[str]
    seed: int
    lineups: np.ndarray  # [hands, seats] entrant of each seat
    decisions: dict[str, np.ndarray]
    hands: dict[str, np.ndarray]
    events: np.ndarray
    counterfactual: str | None = None
    snapshots: list = field(default_factory=list)  # (hand, seat, State) kept by ``snapshot``

    @property
    def num_hands(self) -> int:
        return len(self.lineups)

    def of(self, entrant: int | str, phase: int | None = None) -> np.ndarray:
        """Boolean mask of the decisions of an entrant (index or label), in a phase."""
        index = self.labels.index(entrant) if isinstance(entrant, str) else entrant
        keep = self.decisions["entrant"] == index
        if phase is not None:
            keep &= self.decisions["phase"] == phase
        return keep

    def events_of(self, kind: int) -> np.ndarray:
        """Rows ``(hand, type, a, b, c)`` of one event type."""
        return self.events[self.events[:, 1] == kind]

    def wins(self, entrant: int | str) -> tuple[int, int]:
        """(hands won, hands played) by an entrant (any of its seats won)."""
        index = self.labels.index(entrant) if isinstance(entrant, str) else entrant
        present = (self.lineups == index).any(axis=1)
        won = ((self.lineups == index) & (self.hands["outcome"] > 0)).any(axis=1)
        return int(won[present].sum()), int(present.sum())


def is_wild_draw_four(P, action: np.ndarray) -> np.ndarray:
    """Which actions play a Wild Draw Four."""
    action = np.asarray(action)
    return (action >= P[P_A_W4]) & (action < P[P_A_W4] + 4)


def _colour_counts(state: State, P, seat: int) -> np.ndarray:
    return hand(state.cards, P, 0, seat)[:WILD].reshape(4, 13).sum(axis=1)


def _hand_faces(state: State, P, seat: int) -> np.ndarray:
    return hand(state.cards, P, 0, seat).astype(np.int64)


class Recorder:
    """What :func:`play_logged` keeps while the hands are played: a row per decision, the
    events, and per hand its start and its end."""

    def __init__(self, game: Game, hands: int):
        self.game = game
        P, n = game.params, game.num_players
        self.rows: dict[str, list] = {name: [] for name in DECISION_FIELDS}
        self.estimates: list[float] = []
        self.raw: list[float] = []
        self.hand_size_at = int(P[O_HAND_SIZES])  # the observer's own hand size (relative seat 0)
        self.hands = {
            "outcome": np.zeros((hands, n), dtype=np.int64),
            "scores": np.zeros((hands, n), dtype=np.int64),
            "steps": np.zeros(hands, dtype=np.int64),
            "rounds": np.zeros(hands, dtype=np.int64),
            "truncated": np.zeros(hands, dtype=bool),
            # each seat's hand right after the deal and the starting card's effect (a starting
            # Draw Two has already given the first player 2 more cards): wild-type cards, action
            # cards (Skip, Reverse, Draw Two) and card points
            "start_wilds": np.zeros((hands, n), dtype=np.int64),
            "start_actions": np.zeros((hands, n), dtype=np.int64),
            "start_points": np.zeros((hands, n), dtype=np.int64),
        }
        self.events: list[np.ndarray] = []
        self.values = np.array([policy_kernels.face_value(f) for f in range(P[P_FACES])], dtype=np.int64)
        self.prior = float(policy_kernels.TACTICAL_WEIGHTS[policy_kernels.WEIGHT_PRIOR])

    def keep_events(self, state: State, h: int) -> None:
        count = min(int(state.evn[0]), MAX_EVENTS)
        if count:
            rows = np.empty((count, EVENT_WIDTH + 1), dtype=np.int64)
            rows[:, 0] = h
            rows[:, 1:] = state.ev[0, :count]
            self.events.append(rows)

    def start_hand(self, state: State, h: int) -> None:
        for seat in range(self.game.num_players):
            faces = _hand_faces(state, self.game.params, seat)
            self.hands["start_wilds"][h, seat] = faces[WILD:].sum()
            self.hands["start_actions"][h, seat] = faces[:WILD].reshape(4, 13)[:, 10:].sum()
            self.hands["start_points"][h, seat] = (faces * self.values).sum()

    def decision(self, state: State, h: int, seat: int, phase: int, entrant: int, action: int, obs, mask) -> None:
        """A row for the decision ``action`` of ``seat`` (``obs``, ``mask``: what it saw), before it
        is played; its ``counterfactual`` follows (:meth:`counterfactual`)."""
        P, rec = self.game.params, self.rows
        for name, value in (("hand", h), ("seat", seat), ("entrant", entrant), ("phase", phase), ("action", action)):
            rec[name].append(value)
        rec["hand_size"].append(int(obs[self.hand_size_at]))
        rec["playable"].append(int(mask[: P[P_A_DRAW]].sum()))
        if P[P_A_W] <= action < P[P_A_DRAW]:  # a wild
            counts = _colour_counts(state, P, seat)
            colour = int(state.ints[0, S_COLOUR])
            named = (action - P[P_A_W]) % 4
            rec["holds_current"].append(int(colour >= 0 and counts[colour] > 0))
            rec["colour_rank"].append(int((counts > counts[named]).sum()))
        else:
            rec["holds_current"].append(-1)
            rec["colour_rank"].append(-1)
        if phase == PH_CHALLENGE:
            rec["guilty"].append(int(state.ints[0, S_WD4_GUILTY]))
            self.estimates.append(float(policy_kernels.bluff_probability(obs, P, self.prior)))
            self.raw.append(float(policy_kernels.bluff_probability(obs, P, 1.0)))
        else:
            rec["guilty"].append(-1)
            self.estimates.append(math.nan)
            self.raw.append(math.nan)

    def counterfactual(self, action: int) -> None:
        """The counterfactual agent's action in the decision just recorded (-1: none)."""
        self.rows["counterfactual"].append(action)

    def end_hand(self, state: State, h: int) -> None:
        self.hands["outcome"][h] = self.game.outcome(state)
        self.hands["scores"][h] = self.game.scores(state)
        self.hands["steps"][h] = state.ints[0, S_STEP]
        self.hands["rounds"][h] = state.ints[0, S_ROUND] + 1
        self.hands["truncated"][h] = bool(state.ints[0, S_TRUNCATED])

    def decisions(self) -> dict[str, np.ndarray]:
        P = self.game.params
        action_faces = np.array([policy_kernels.action_face(P, a) for a in range(P[P_NUM_ACTIONS])], dtype=np.int64)
        decisions = {name: np.array(values, dtype=np.int64) for name, values in self.rows.items()}
        decisions["estimate"] = np.array(self.estimates, dtype=np.float64)
        decisions["q"] = np.array(self.raw, dtype=np.float64)
        decisions["face"] = action_faces[decisions["action"]] if len(decisions["action"]) else decisions["action"]
        return decisions

    def all_events(self) -> np.ndarray:
        return np.concatenate(self.events) if self.events else np.zeros((0, EVENT_WIDTH + 1), dtype=np.int64)


def play_logged(
    config: RuleConfig,
    agents: list[str],
    hands: int,
    seed: int = 0,
    counterfactual: str | None = None,
    snapshot=None,
) -> PlayLog:
    """Play ``hands`` episodes of ``config`` (a hand each with ``episode="round"``) with
    the agent specs ``uno_env.agents`` seated as the tournament's mixed schedule seats them
    (every seating in turn), seat 0 first, seeds as the tournament derives them.

    ``counterfactual``: a compiled agent name (e.g. ``"tactical"``) whose action on
    every observation is recorded next to the action taken. ``snapshot(game, state,
    obs, mask)``: when it returns True before a decision, a copy of the state is kept
    in ``PlayLog.snapshots``."""
    table = LoggedTable(Game(config), agents, hands, counterfactual, snapshot)
    n = table.game.num_players
    schedule = mixed_lineups(len(agents), n)
    lineups = np.array([schedule[h % len(schedule)] for h in range(hands)], dtype=np.int64).reshape(hands, n)
    for h in range(hands):
        table.play_hand(h, lineups[h], seed)
    recorder = table.recorder
    return PlayLog(
        config,
        list(agents),
        seed,
        lineups,
        recorder.decisions(),
        recorder.hands,
        recorder.all_events(),
        counterfactual,
        table.snapshots,
    )


class LoggedTable:
    """The table of :func:`play_logged`: one game state, the agents (compiled ones played by
    their policy ids, a Python agent per entrant and seat), and what is recorded."""

    def __init__(self, game: Game, agents: list[str], hands: int, counterfactual: str | None, snapshot):
        self.game = game
        self.specs = agents
        self.entrants = [make_agent(spec, game, seed=0) for spec in agents]
        self.python_agents: dict[tuple[int, int], Agent] = {}
        self.cf_id = None
        if counterfactual is not None:
            self.cf_id = make_agent(counterfactual, game).policy_id
            if self.cf_id is None:
                raise ValueError(f"counterfactual must be a compiled agent, got {counterfactual!r}")
        self.recorder = Recorder(game, hands)
        P = game.params
        self.state = game.new_state(1)
        self.obs = np.zeros(P[P_O_SIZE], dtype=np.float32)
        self.mask = np.zeros(P[P_NUM_ACTIONS], dtype=np.int8)
        self.rewards = np.zeros((1, game.num_players), dtype=np.float32)
        self.snapshot = snapshot
        self.snapshots: list = []

    def players(self, lineup: np.ndarray, seed: int, h: int) -> list[Agent | None]:
        """Per seat of hand ``h``: its Python agent, reset to the hand's seed, or None (a compiled policy)."""
        players: list[Agent | None] = []
        for seat in range(self.game.num_players):
            entrant = int(lineup[seat])
            if self.entrants[entrant].policy_id is not None:
                players.append(None)
                continue
            key = (entrant, seat)
            if key not in self.python_agents:
                self.python_agents[key] = make_agent(self.specs[entrant], self.game, seed=0)
            self.python_agents[key].reset(hash_seed(seed, h, 2 + seat))
            players.append(self.python_agents[key])
        return players

    def play_hand(self, h: int, lineup: np.ndarray, seed: int) -> None:
        """Deal hand ``h`` (the tournament's seeds of job ``h``) and play it to its end."""
        game, state, recorder = self.game, self.state, self.recorder
        game_seed, policy_seed = job_seeds(seed, h)
        state.rng[0] = seed_to_rng(game_seed)
        state.evn[0] = 0
        dealer = np.full(1, game.num_players - 1, np.int64)
        K.reset_batch(state.cards, state.ints, state.rng, game.params, dealer, state.ev, state.evn)
        recorder.keep_events(state, h)
        prng = np.array([seed_to_rng(policy_seed)], dtype=np.uint64)
        cf_prng = np.array([seed_to_rng(hash_seed(seed, h, 99))], dtype=np.uint64)
        players = self.players(lineup, seed, h)
        recorder.start_hand(state, h)
        while state.ints[0, S_PHASE] != PH_OVER:
            self.decide(h, lineup, players, prng, cf_prng)
        recorder.end_hand(state, h)

    def decide(self, h: int, lineup: np.ndarray, players: list[Agent | None], prng, cf_prng) -> None:
        """The acting seat's decision: recorded (with the counterfactual's), then played."""
        game, state, obs, mask = self.game, self.state, self.obs, self.mask
        P = game.params
        seat = int(state.ints[0, S_CURRENT])
        phase = int(state.ints[0, S_PHASE])
        K.observe(state.cards, state.ints, P, 0, seat, obs)
        K.legal_mask(state.cards, state.ints, P, 0, mask)
        if self.snapshot is not None and self.snapshot(game, state, obs, mask):
            self.snapshots.append((h, seat, state.copy()))
        entrant = int(lineup[seat])
        player = players[seat]
        if player is None:
            action = int(policy_kernels.policy_act(self.entrants[entrant].policy_id, obs, mask, P, prng, 0))
        else:
            action = int(player(obs, mask))
        self.recorder.decision(state, h, seat, phase, entrant, action, obs, mask)
        cf = -1 if self.cf_id is None else int(policy_kernels.policy_act(self.cf_id, obs, mask, P, cf_prng, 0))
        self.recorder.counterfactual(cf)
        status = K.step_game(state.cards, state.ints, state.rng, P, 0, action, self.rewards, state.ev, state.evn)
        if status < 0:
            raise RuntimeError(f"{self.specs[entrant]} chose {game.action_to_string(action)!r}, which was refused")
        self.recorder.keep_events(state, h)
