"""Helpers of the research notebooks (``notebooks/*.ipynb``), the one module they import: the
size parameter, figure files, and a few statistics on top of the tournament library
(:mod:`uno_env.arena`); logged play and the ablations of ``tactical`` live in modules of
their own and are imported here for the notebooks.

* :func:`notebook_size` reads ``UNO_NOTEBOOK_SIZE`` (``small``, the default and what
  the tests run, or ``full``); :func:`save_figure` writes a figure to
  ``docs/img/notebooks/`` at full size only.
* :func:`play_logged` (:mod:`uno_env.arena.logged`) plays seat-rotated hands from Python
  (compiled policies and Python agents alike) and keeps what a notebook needs: every
  decision with a few facts about it (was a Wild Draw Four a bluff, the bluff estimate at
  a challenge and the truth, which colour a wild named), every event, and per hand the
  outcome, the scores and the starting hands.
* :class:`TacticalVariant` (:mod:`uno_env.arena.ablations`, agent ``tactical_variant``) is
  ``tactical`` with one decision rule changed: the challenge threshold, UNO calls,
  catching, the colour a wild names, bluffing. With no option it plays exactly as ``tactical``.
* :func:`starter_frequencies`, :func:`uno_call_value`, :func:`combined_ratings`,
  :func:`seat_win_rates` and :func:`rate` answer the notebooks' questions.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from uno_env.agents import policies as policy_kernels
from uno_env.engine import Game, RuleConfig
from uno_env.engine import kernels as K
from uno_env.engine.cards import WILD
from uno_env.engine.events import EV_STARTER, EV_STARTER_RETURNED, EVENT_WIDTH, MAX_EVENTS
from uno_env.engine.game import State, seed_to_rng, seeds_to_rng
from uno_env.engine.layout import (
    P_A_DRAW,
    P_A_UNO,
    P_C_HANDS,
    P_FACES,
    P_I_OUTCOME,
    P_I_SCORE,
    P_NUM_ACTIONS,
    P_O_SIZE,
    PH_CATCH,
    S_PHASE,
)

from .ablations import ABLATIONS, TacticalVariant
from .analysis import match_results
from .logged import DECISION_FIELDS, PlayLog, is_wild_draw_four, play_logged
from .ratings import bootstrap_ratings, elo, fit_luce, group_matches, wilson_interval

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
    "DECISION_FIELDS",
    "FIGURE_DIR",
    "PlayLog",
    "TacticalVariant",
    "combined_ratings",
    "footer",
    "is_wild_draw_four",
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
