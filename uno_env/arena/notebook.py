"""Helpers of the research notebooks (``notebooks/*.ipynb``): the size parameter, figure
files, logged play, ablations of ``tactical`` and a few statistics on top of the
tournament library (:mod:`uno_env.arena`).

* :func:`notebook_size` reads ``UNO_NOTEBOOK_SIZE`` (``small``, the default and what
  the tests run, or ``full``); :func:`save_figure` writes a figure to
  ``docs/img/notebooks/`` at full size only.
* :func:`play_logged` plays seat-rotated hands from Python (compiled policies and
  Python agents alike) and keeps what a notebook needs: every decision with a few
  facts about it (was a Wild Draw Four a bluff, the bluff estimate at a challenge and
  the truth, which colour a wild named), every event, and per hand the outcome, the
  scores and the starting hands.
* :class:`TacticalVariant` (agent ``tactical_variant``) is ``tactical`` with one
  decision rule changed: the challenge threshold, UNO calls, catching, the colour a
  wild names, bluffing. With no option it plays exactly as ``tactical``.
* :func:`starter_frequencies`, :func:`uno_call_value`, :func:`combined_ratings`,
  :func:`seat_win_rates` and :func:`rate` answer the notebooks' questions.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from uno_env.agents import Agent, agent_names, hash_seed, make_agent, register_agent
from uno_env.agents import policies as policy_kernels
from uno_env.arena import (
    bootstrap_ratings,
    elo,
    fit_luce,
    group_matches,
    job_seeds,
    match_results,
    mixed_lineups,
    wilson_interval,
)
from uno_env.engine import Game, RuleConfig
from uno_env.engine import kernels as K
from uno_env.engine import readers as R
from uno_env.engine.cards import WILD
from uno_env.engine.events import EV_STARTER, EV_STARTER_RETURNED, EVENT_WIDTH, MAX_EVENTS
from uno_env.engine.game import State, seed_to_rng, seeds_to_rng
from uno_env.engine.layout import (
    O_COLOUR,
    O_HAND_SIZES,
    P_A_ACCEPT,
    P_A_CHALLENGE,
    P_A_COLOR,
    P_A_DRAW,
    P_A_PASS,
    P_A_UNO,
    P_A_W,
    P_A_W4,
    P_C_HANDS,
    P_FACES,
    P_I_OUTCOME,
    P_I_SCORE,
    P_NUM_ACTIONS,
    P_O_SIZE,
    PH_CATCH,
    PH_CHALLENGE,
    PH_COLOR,
    PH_OVER,
    S_COLOUR,
    S_CURRENT,
    S_PHASE,
    S_ROUND,
    S_STEP,
    S_TRUNCATED,
    S_WD4_GUILTY,
)

ROOT = Path(__file__).resolve().parent.parent.parent
FIGURE_DIR = ROOT / "docs" / "img" / "notebooks"
SIZE_VARIABLE = "UNO_NOTEBOOK_SIZE"
SIZES = ("small", "full")


# ---------------------------------------------------------------------------- notebooks
def notebook_size(default: str = "small") -> str:
    """``small`` or ``full``, from the environment variable ``UNO_NOTEBOOK_SIZE``."""
    size = os.environ.get(SIZE_VARIABLE, default).strip().lower() or default
    if size not in SIZES:
        raise ValueError(f"{SIZE_VARIABLE} must be one of {', '.join(SIZES)}, got {size!r}")
    return size


def save_figure(fig, name: str, size: str) -> Path | None:
    """Write ``fig`` to ``docs/img/notebooks/<name>.png`` when ``size`` is ``full``
    (the committed figures); at small size nothing is written."""
    if size != "full":
        return None
    FIGURE_DIR.mkdir(parents=True, exist_ok=True)
    path = FIGURE_DIR / f"{name}.png"
    fig.savefig(path, dpi=100, bbox_inches="tight")
    return path


def footer(fig, text: str) -> None:
    """Small print under a figure: where it came from, how many hands, the seed."""
    fig.text(0.5, -0.01, text, ha="center", va="top", fontsize=8, color="0.3", wrap=True)


def rate(successes: float, trials: float) -> tuple[float, float, float]:
    """(proportion, 95% Wilson low, high); NaN proportion when there are no trials."""
    lo, hi = wilson_interval(successes, trials)
    return (successes / trials if trials else math.nan), lo, hi


def mean_interval(values) -> tuple[float, float, float]:
    """(mean, 95% normal-approximation low, high) of a sample."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) == 0:
        return math.nan, math.nan, math.nan
    mean = float(values.mean())
    half = 1.96 * float(values.std(ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else math.inf
    return mean, mean - half, mean + half


# ---------------------------------------------------------------------------- ablations
class TacticalVariant(Agent):
    """``tactical`` with one decision rule changed (the ablations of
    ``notebooks/strategy_ladder.ipynb``). Options (``tactical_variant:key=value``):

    * ``threshold`` (default 1/3, tactical's) and ``prior`` (default 0.4): challenge a
      Wild Draw Four when :func:`uno_env.agents.policies.bluff_probability` with this prior
      exceeds the threshold; ``threshold=1`` never challenges, ``threshold=-1`` always.
    * ``uno=false``: never call UNO (the card tactical plays is the same).
    * ``catch=false``: never catch an exposed player.
    * ``colour=random``: a wild (and a starting Wild) names a colour at random;
      ``colour=first``: always red.
    * ``bluff=false``: never play a Wild Draw Four while holding the current colour.

    Every other decision is tactical's own (``uno_env.agents.policies.tactical_policy``)."""

    name = "tactical_variant"

    def __init__(
        self,
        rules=None,
        seed: int = 0,
        threshold: float | None = None,
        prior: float | None = None,
        uno: bool = True,
        catch: bool = True,
        colour: str = "tactical",
        bluff: bool = True,
    ):
        if colour not in ("tactical", "random", "first"):
            raise ValueError(f"tactical_variant: colour must be tactical, random or first, got {colour!r}")
        for key, value in (("uno", uno), ("catch", catch), ("bluff", bluff)):
            if not isinstance(value, bool):
                raise ValueError(f"tactical_variant: {key} must be true or false, got {value!r}")
        self.threshold = float(
            policy_kernels.TACTICAL_WEIGHTS[policy_kernels.WEIGHT_BREAK_EVEN] if threshold is None else threshold
        )
        self.prior = float(policy_kernels.TACTICAL_WEIGHTS[policy_kernels.WEIGHT_PRIOR] if prior is None else prior)
        self.uno, self.catch, self.colour, self.bluff = uno, catch, colour, bluff
        super().__init__(rules, seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.rng = np.random.default_rng(self.seed)
        self.prng = np.array([seed_to_rng(self.seed)], dtype=np.uint64)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        obs, legal = self.check(observation, mask)
        P = self.params
        phase = R.obs_phase(obs, P)
        if phase == PH_CHALLENGE:
            challenge = policy_kernels.bluff_probability(obs, P, self.prior) > self.threshold
            return int(P[P_A_CHALLENGE] if challenge else P[P_A_ACCEPT])
        if phase == PH_CATCH and not self.catch:
            return int(P[P_A_PASS])
        if phase == PH_COLOR and self.colour != "tactical":
            return int(P[P_A_COLOR] + (self.rng.integers(4) if self.colour == "random" else 0))
        if not self.uno and P[P_A_UNO] >= 0 and legal[P[P_A_UNO]]:
            legal = legal.copy()
            legal[P[P_A_UNO]] = 0
        bluffing = legal[P[P_A_W4] : P[P_A_W4] + 4].any() and R.holds_colour(obs, P, R.obs_colour(obs, P, O_COLOUR))
        if not self.bluff and bluffing:
            legal = legal.copy()
            legal[P[P_A_W4] : P[P_A_W4] + 4] = 0
        action = int(policy_kernels.policy_act(policy_kernels.TACTICAL, obs, legal, P, self.prng, 0))
        if self.colour != "tactical" and P[P_A_W] <= action < P[P_A_DRAW]:
            face = policy_kernels.action_face(P, action)
            colour = self.rng.integers(4) if self.colour == "random" else 0
            action = int(policy_kernels.wild_action(P, face, colour))
        return action


if "tactical_variant" not in agent_names():
    register_agent("tactical_variant", TacticalVariant)

ABLATIONS = {
    "never challenges": "tactical_variant:threshold=1",
    "always challenges": "tactical_variant:threshold=-1",
    "never calls UNO": "tactical_variant:uno=false",
    "never catches": "tactical_variant:catch=false",
    "random wild colour": "tactical_variant:colour=random",
    "wilds name red": "tactical_variant:colour=first",
    "never bluffs": "tactical_variant:bluff=false",
}
"""One decision rule of ``tactical`` changed at a time: label -> agent spec."""


# ---------------------------------------------------------------------------- logged play
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


def _colour_counts(state: State, P, seat: int) -> np.ndarray:
    F = P[P_FACES]
    start = P[P_C_HANDS] + seat * F
    return state.cards[0, start : start + WILD].reshape(4, 13).sum(axis=1)


def _hand_faces(state: State, P, seat: int) -> np.ndarray:
    F = P[P_FACES]
    start = P[P_C_HANDS] + seat * F
    return state.cards[0, start : start + F].astype(np.int64)


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
    game = Game(config)
    P = game.params
    n = game.num_players
    entrants = [make_agent(spec, game, seed=0) for spec in agents]
    schedule = mixed_lineups(len(agents), n)
    lineups = np.array([schedule[h % len(schedule)] for h in range(hands)], dtype=np.int64).reshape(hands, n)
    python_agents: dict[tuple[int, int], Agent] = {}
    cf_id = None
    if counterfactual is not None:
        cf_id = make_agent(counterfactual, game).policy_id
        if cf_id is None:
            raise ValueError(f"counterfactual must be a compiled agent, got {counterfactual!r}")
    rec: dict[str, list] = {name: [] for name in DECISION_FIELDS}
    estimates: list[float] = []
    raw: list[float] = []
    hand_size_at = int(P[O_HAND_SIZES])  # the observer's own hand size (relative seat 0)
    out = {
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
    events = []
    values = np.array([policy_kernels.face_value(f) for f in range(P[P_FACES])], dtype=np.int64)
    action_faces = np.array([policy_kernels.action_face(P, a) for a in range(P[P_NUM_ACTIONS])], dtype=np.int64)
    state = game.new_state(1)
    obs = np.zeros(P[P_O_SIZE], dtype=np.float32)
    mask = np.zeros(P[P_NUM_ACTIONS], dtype=np.int8)
    rewards = np.zeros((1, n), dtype=np.float32)
    prior = float(policy_kernels.TACTICAL_WEIGHTS[policy_kernels.WEIGHT_PRIOR])
    snapshots = []

    def keep_events(h: int) -> None:
        count = min(int(state.evn[0]), MAX_EVENTS)
        if count:
            rows = np.empty((count, EVENT_WIDTH + 1), dtype=np.int64)
            rows[:, 0] = h
            rows[:, 1:] = state.ev[0, :count]
            events.append(rows)

    for h in range(hands):
        lineup = lineups[h]
        game_seed, policy_seed = job_seeds(seed, h)
        state.rng[0] = seed_to_rng(game_seed)
        state.evn[0] = 0
        K.reset_batch(state.cards, state.ints, state.rng, P, np.full(1, n - 1, np.int64), state.ev, state.evn)
        keep_events(h)
        prng = np.array([seed_to_rng(policy_seed)], dtype=np.uint64)
        cf_prng = np.array([seed_to_rng(hash_seed(seed, h, 99))], dtype=np.uint64)
        players: list[Agent | None] = []
        for seat in range(n):
            agent = entrants[lineup[seat]]
            if agent.policy_id is not None:
                players.append(None)
            else:
                key = (int(lineup[seat]), seat)
                if key not in python_agents:
                    python_agents[key] = make_agent(agents[lineup[seat]], game, seed=0)
                python_agents[key].reset(hash_seed(seed, h, 2 + seat))
                players.append(python_agents[key])
        for seat in range(n):
            faces = _hand_faces(state, P, seat)
            out["start_wilds"][h, seat] = faces[WILD:].sum()
            out["start_actions"][h, seat] = faces[:WILD].reshape(4, 13)[:, 10:].sum()
            out["start_points"][h, seat] = (faces * values).sum()
        while state.ints[0, S_PHASE] != PH_OVER:
            seat = int(state.ints[0, S_CURRENT])
            phase = int(state.ints[0, S_PHASE])
            K.observe(state.cards, state.ints, P, 0, seat, obs)
            K.legal_mask(state.cards, state.ints, P, 0, mask)
            if snapshot is not None and snapshot(game, state, obs, mask):
                snapshots.append((h, seat, state.copy()))
            entrant = int(lineup[seat])
            player = players[seat]
            if player is None:
                action = int(policy_kernels.policy_act(entrants[entrant].policy_id, obs, mask, P, prng, 0))
            else:
                action = int(player(obs, mask))
            wild_play = P[P_A_W] <= action < P[P_A_DRAW]
            rec["hand"].append(h)
            rec["seat"].append(seat)
            rec["entrant"].append(entrant)
            rec["phase"].append(phase)
            rec["action"].append(action)
            rec["hand_size"].append(int(obs[hand_size_at]))
            rec["playable"].append(int(mask[: P[P_A_DRAW]].sum()))
            if wild_play:
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
                estimates.append(float(policy_kernels.bluff_probability(obs, P, prior)))
                raw.append(float(policy_kernels.bluff_probability(obs, P, 1.0)))
            else:
                rec["guilty"].append(-1)
                estimates.append(math.nan)
                raw.append(math.nan)
            cf = -1 if cf_id is None else int(policy_kernels.policy_act(cf_id, obs, mask, P, cf_prng, 0))
            rec["counterfactual"].append(cf)
            status = K.step_game(state.cards, state.ints, state.rng, P, 0, action, rewards, state.ev, state.evn)
            if status < 0:
                raise RuntimeError(f"{agents[entrant]} chose {game.action_to_string(action)!r}, which was refused")
            keep_events(h)
        out["outcome"][h] = state.ints[0, P[P_I_OUTCOME] : P[P_I_OUTCOME] + n]
        out["scores"][h] = state.ints[0, P[P_I_SCORE] : P[P_I_SCORE] + n]
        out["steps"][h] = state.ints[0, S_STEP]
        out["rounds"][h] = state.ints[0, S_ROUND] + 1
        out["truncated"][h] = bool(state.ints[0, S_TRUNCATED])
    decisions = {name: np.array(values_, dtype=np.int64) for name, values_ in rec.items()}
    decisions["estimate"] = np.array(estimates, dtype=np.float64)
    decisions["q"] = np.array(raw, dtype=np.float64)
    decisions["face"] = action_faces[decisions["action"]] if len(decisions["action"]) else decisions["action"]
    all_events = np.concatenate(events) if events else np.zeros((0, EVENT_WIDTH + 1), dtype=np.int64)
    return PlayLog(config, list(agents), seed, lineups, decisions, out, all_events, counterfactual, snapshots)


def is_wild_draw_four(P, action: np.ndarray) -> np.ndarray:
    """Which actions play a Wild Draw Four."""
    action = np.asarray(action)
    return (action >= P[P_A_W4]) & (action < P[P_A_W4] + 4)


# ---------------------------------------------------------------------------- starting cards
STARTER_KINDS = ("number card", "Skip", "Reverse", "Draw Two", "Wild", "Fashion Trend")


def starter_kind(face: int) -> str:
    """Which R-SETUP-4 case a starting face is."""
    if face >= WILD:
        return "Wild" if face == WILD else "Fashion Trend"
    return STARTER_KINDS[max(0, face % 13 - 9)]


def starter_frequencies(config: RuleConfig, deals: int, seed: int = 0, chunk: int = 50_000) -> dict[str, dict]:
    """How often each starting-card rule (R-SETUP-4) fires in ``deals`` seeded deals, next
    to its exact probability. Keys: the starter kinds and ``"Wild Draw Four returned"``
    (at least once); values: ``count``, ``deals``, ``exact``."""
    game = Game(config)
    P = game.params
    face_parts, returned_parts = [], []
    for start in range(0, deals, chunk):
        size = min(chunk, deals - start)
        state = game.new_state(size, events=True)
        state.rng[:] = seeds_to_rng(seed + start, size)  # deal i from seed + i
        dealers = np.full(size, game.num_players - 1, np.int64)
        K.reset_batch(state.cards, state.ints, state.rng, P, dealers, state.ev, state.evn)
        types = state.ev[:, :, 0]
        returned_parts.append((types == EV_STARTER_RETURNED).any(axis=1))
        face_parts.append(state.ev[np.arange(size), np.argmax(types == EV_STARTER, axis=1), 1])
    faces = np.concatenate(face_parts)
    returned = np.concatenate(returned_parts)
    deck = 112 if config.deck == "fashion_trend" else 108
    exact_counts = {"number card": 76, "Skip": 8, "Reverse": 8, "Draw Two": 8, "Wild": 4}
    if config.deck == "fashion_trend":
        exact_counts["Fashion Trend"] = 4
    kinds = np.array([starter_kind(int(f)) for f in range(P[P_FACES])])[faces]
    result = {}
    for kind, copies in exact_counts.items():
        result[kind] = {"count": int((kinds == kind).sum()), "deals": deals, "exact": copies / (deck - 4)}
    result["Wild Draw Four returned"] = {"count": int(returned.sum()), "deals": deals, "exact": 4 / deck}
    return result


# ---------------------------------------------------------------------------- playing on from a position
def play_out(
    game: Game, states: list[State], first_actions: list[int], policy: str = "tactical", seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Take ``first_actions[i]`` in a copy of ``states[i]``, then let the compiled
    ``policy`` play every seat to the end of the episode, all in one compiled call.
    Returns (outcome [B, n], scores [B, n], points left in each hand [B, n])."""
    P = game.params
    n = game.num_players
    size = len(states)
    cards = np.concatenate([s.cards for s in states])
    ints = np.concatenate([s.ints for s in states])
    rng = np.concatenate([s.rng for s in states])
    ev = np.zeros((size, MAX_EVENTS, EVENT_WIDTH), dtype=np.int32)
    evn = np.zeros(size, dtype=np.int32)
    rewards = np.zeros((size, n), dtype=np.float32)
    for b, action in enumerate(first_actions):
        status = K.step_game(cards, ints, rng, P, b, int(action), rewards, ev, evn)
        if status < 0:
            raise ValueError(f"play_out: {game.action_to_string(int(action))!r} refused in position {b}")
    prng = seeds_to_rng(seed, size)
    seat_policies = np.full((size, n), policy_kernels.POLICY_IDS[policy], dtype=np.int64)
    rewards[:] = 0.0
    steps = np.zeros(size, dtype=np.int64)
    policy_kernels.play_batch(
        cards, ints, rng, prng, P, seat_policies, False, game.config.max_steps + 1, rewards, steps
    )
    outcome = ints[:, P[P_I_OUTCOME] : P[P_I_OUTCOME] + n].astype(np.int64)
    scores = ints[:, P[P_I_SCORE] : P[P_I_SCORE] + n].astype(np.int64)
    F = P[P_FACES]
    values = np.array([policy_kernels.face_value(f) for f in range(F)], dtype=np.int64)
    held = cards[:, P[P_C_HANDS] : P[P_C_HANDS] + n * F].reshape(size, n, F).astype(np.int64)
    return outcome, scores, held @ values


def uno_call_value(config: RuleConfig, hands: int, seed: int = 0, policy: str = "tactical") -> dict:
    """What a forgotten UNO call costs, measured on paired positions. ``policy`` plays
    ``hands`` hands; at every decision where the acting player may call UNO, the
    position is played on twice to the end (``policy`` at every seat, same draw pile):
    once with the call, once without (the same card played). Returns per position the
    acting player's win (``won_call``, ``won_forgot``) and its net points (``net_call``,
    ``net_forgot``: points it scored minus the points of the cards left in its hand, which
    the winner scores; meant for single hands, ``episode="round"``),
    plus ``caught``: the forgetting player was caught (drew the 2-card penalty)."""
    game = Game(config)
    P = game.params
    uno = P[P_A_UNO]
    if uno < 0:
        raise ValueError("uno_call_value: these rules have no UNO call (uno_call='off')")

    def may_call(game_, state, obs, mask) -> bool:
        return bool(mask[uno])

    log = play_logged(config, [policy], hands, seed, snapshot=may_call)
    pid = policy_kernels.POLICY_IDS[policy]
    states, seats, call, forgot = [], [], [], []
    obs = np.zeros(P[P_O_SIZE], dtype=np.float32)
    mask = np.zeros(P[P_NUM_ACTIONS], dtype=np.int8)
    prng = np.array([seed_to_rng(seed)], dtype=np.uint64)
    for _, seat, state in log.snapshots:
        K.observe(state.cards, state.ints, P, 0, seat, obs)
        K.legal_mask(state.cards, state.ints, P, 0, mask)
        mask[uno] = 0
        action = int(policy_kernels.policy_act(pid, obs, mask, P, prng, 0))
        if action >= P[P_A_DRAW]:
            continue  # no card played without the call: nothing to forget
        states.append(state)
        seats.append(seat)
        call.append(uno)
        forgot.append(action)
    seats_ = np.array(seats, dtype=np.int64)
    rows = np.arange(len(states))
    result: dict[str, Any] = {"positions": len(states), "hands": hands}
    for name, first in (("call", call), ("forgot", forgot)):
        outcome, scores, held = play_out(game, states, first, policy, seed)
        result[f"won_{name}"] = outcome[rows, seats_] > 0
        result[f"net_{name}"] = scores[rows, seats_] - held[rows, seats_]
    # caught: replay the forgetting branch up to the end of the catch window
    caught = np.zeros(len(states), dtype=bool)
    for b, state in enumerate(states):
        copy = state.copy()
        seen = list(game.step(copy, forgot[b]).events)
        while not game.is_over(copy) and copy.ints[0, S_PHASE] == PH_CATCH:
            seat = game.current_player(copy)
            K.observe(copy.cards, copy.ints, P, 0, seat, obs)
            K.legal_mask(copy.cards, copy.ints, P, 0, mask)
            seen += game.step(copy, int(policy_kernels.policy_act(pid, obs, mask, P, prng, 0))).events
        caught[b] = any(e["type"] == "draw" and e["reason"] == "uno_caught" for e in seen)
    result["caught"] = caught
    return result


# ---------------------------------------------------------------------------- tournaments
def combined_ratings(runs, bootstrap: int = 200, seed: int = 0) -> dict[str, tuple[float, float, float]]:
    """One Bradley-Terry (Luce) fit over several tournaments (the tuples ``run_tournament``
    returns), so that a slow agent can play fewer games than the compiled ones and
    still sit on the same scale. Returns label -> (Elo-scale rating, 95% bootstrap low, high)."""
    labels: list[str] = []
    for _, _, entrants, _ in runs:
        for e in entrants:
            if e.label not in labels:
                labels.append(e.label)
    k = len(labels)
    mult, cred = [], []
    for _, schedule, entrants, records in runs:
        m, c, _, decided, _ = match_results(schedule, records, len(entrants))
        columns = [labels.index(e.label) for e in entrants]
        full_m = np.zeros((int(decided.sum()), k))
        full_c = np.zeros_like(full_m)
        full_m[:, columns] = m[decided]
        full_c[:, columns] = c[decided]
        mult.append(full_m)
        cred.append(full_c)
    table = group_matches(np.vstack(mult), np.vstack(cred))
    gamma = fit_luce(table.multiplicity, table.credit * table.count[:, None], table.count)
    ratings = elo(gamma)
    if bootstrap > 0:
        boot = bootstrap_ratings(table, bootstrap, seed, start=gamma)
        lo, hi = np.percentile(boot, [2.5, 97.5], axis=0)
    else:
        lo = hi = ratings
    return {label: (float(ratings[i]), float(lo[i]), float(hi[i])) for i, label in enumerate(labels)}


def seat_win_rates(schedule, entrants, records) -> dict[str, list[tuple[int, int]]]:
    """Per agent label, per seat: (hands won, hands played) in that seat (mixed schedule)."""
    n = len(schedule.jobs[0])
    table = {e.label: [[0, 0] for _ in range(n)] for e in entrants}
    for job, lineup in enumerate(schedule.jobs):
        for seat, e in enumerate(lineup):
            cell = table[entrants[e].label][seat]
            cell[1] += 1
            cell[0] += int(records["outcome"][job, seat] > 0)
    return {label: [(c[0], c[1]) for c in cells] for label, cells in table.items()}


__all__ = [
    "ABLATIONS",
    "FIGURE_DIR",
    "PlayLog",
    "TacticalVariant",
    "combined_ratings",
    "footer",
    "mean_interval",
    "notebook_size",
    "play_logged",
    "play_out",
    "rate",
    "save_figure",
    "seat_win_rates",
    "starter_frequencies",
    "uno_call_value",
]
