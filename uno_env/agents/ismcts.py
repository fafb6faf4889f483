"""Determinized search: sample the hidden cards, try every action, roll out with a compiled policy.

At each decision with more than one sensible action the agent

1. samples full game states consistent with its observation (:func:`determinize`):
   its own hand, the discard pile (counts and top card), the hand sizes, the draw
   pile size, colour, direction, phase, scores, who is exposed, and the soft
   information of a challenge reveal or a Fashion Trend, and under the house rules
   their public facts (the pending penalty of a stack, the last Seven-O swap, who
   played the top card, whose turn follows a swap or jump-in). The observation keeps a
   reveal until the round ends, so it goes stale as the owner plays: a revealed
   card still unseen is put back in its owner's hand with chance (cards the owner
   holds now) / (cards shown), a card shown to a Fashion Trend half the time. The
   other unseen cards are dealt at random to the other hands and the draw pile.
   When it is the target of a Wild Draw Four (in a stack too), a sample in which the offender
   bluffed is kept with probability ``bluff_prior`` only (an offender who holds the
   colour plays the card less often than one who does not; see
   :func:`uno_env.agents.policies.bluff_probability`);
2. for every candidate action and every sample (the same samples for all actions:
   common random numbers), applies the action and plays the hand out with a
   compiled policy: ``rollout`` (default ``tactical``) at the agent's seat and its
   partner's, ``opponent_rollout`` (default the same) at the others, through
   :func:`uno_env.agents.policies.play_game`; a hand is worth 1 when the agent's team goes
   out, 0 when another does, 1/teams when a rollout is cut at ``max_rollout_steps``;
3. keeps the rollout policy's own choice unless another action's paired advantage
   over it, less ``confidence`` standard errors, is positive. Samples come in rounds
   of :data:`SEARCH_ROUND`; an action more than one standard error worse than the
   default after a round gets no more samples (racing), and the search stops early
   when no alternative is left.

This is determinized flat Monte Carlo over information sets (perfect-information
Monte Carlo with one root and no tree below it, which avoids strategy fusion below
the root) used as a policy-improvement step over the rollout policy. Calling UNO
(free, D-UNO) and catching an exposed opponent are taken without search. The whole
search is one compiled call. The budget is ``determinizations``, the most samples
per decision (default 320: under a second per two-player hand on one core of the
reference machine, see docs/agents.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from uno_env.engine import Game, RuleConfig
from uno_env.engine import kernels as K
from uno_env.engine.game import seed_to_rng
from uno_env.engine.jit import allocating, describe, kernel
from uno_env.engine.layout import (
    P_A_CATCH,
    P_A_PASS,
    P_A_UNO,
    P_C_SIZE,
    P_I_SIZE,
    P_NUM_ACTIONS,
    P_NUM_PLAYERS,
    P_O_SIZE,
    P_PARTNERS,
    PH_CATCH,
    PH_OVER,
    S_LAST_WINNER,
    S_PHASE,
    S_ROUND,
    S_TRUNCATED,
)
from uno_env.engine.readers import determinize, fresh_rng, is_partner, obs_exposed_seat, obs_phase
from uno_env.engine.state import is_alive

from . import policies as policy_kernels
from .base import Agent, as_game

describe(__name__, "the search of ismcts", seconds=30)

SEARCH_ROUND = 32  # determinizations between two racing checks


@kernel
def _team_won(P, winner):
    return winner == 0 or is_partner(P, winner)


@kernel
def _teams_in(ints, P, b):
    count = 0
    n = P[P_NUM_PLAYERS]
    for s in range(n):
        if is_alive(ints, P, b, s) and (P[P_PARTNERS] == 0 or s < n // 2):
            count += 1
    return max(count, 1)


@kernel
def rollout_value(cards, ints, rng, prng, P, seat_policies, max_steps, obs, mask, step_rw, rw, ev, evn):
    """Play game 1 out with the compiled policies until its round ends; the value of the
    hand for seat 0: 1 if its team went out, 0 if another did, 1/teams when cut short."""
    if ints[1, S_PHASE] != PH_OVER and ints[1, S_ROUND] == 0:
        # np.int64 / np.bool_, not the literals 1 and True: numba would compile play_game, and
        # every policy and engine step under it, a second time, specialised on the constants
        row, stop = np.int64(1), np.bool_(True)
        policy_kernels.play_game(
            cards, ints, rng, prng, P, row, seat_policies, stop, max_steps, obs, mask, step_rw, rw, ev, evn
        )
    if ints[1, S_ROUND] != 0 or (ints[1, S_PHASE] == PH_OVER and ints[1, S_TRUNCATED] == 0):
        winner = ints[1, S_LAST_WINNER]
        if winner >= 0:
            return 1.0 if _team_won(P, winner) else 0.0
    return 1.0 / _teams_in(ints, P, 1)


@kernel
def _paired_advantage(samples, counts, k, base):
    """Mean and standard error of ``samples[k] - samples[base]`` over the samples both have."""
    m = counts[k]
    if m < 2:
        return 0.0, 1.0
    mean = 0.0
    for d in range(m):
        mean += samples[k, d] - samples[base, d]
    mean /= m
    var = 0.0
    for d in range(m):
        diff = samples[k, d] - samples[base, d] - mean
        var += diff * diff
    return mean, np.sqrt(var / (m - 1) / m)


@allocating(nogil=True)  # a long search leaves the GIL to the other threads (uno serve answers meanwhile)
def search(
    obs,
    mask,
    P,
    prng,
    candidates,
    determinizations,
    rollout_policy,
    opponent_policy,
    max_steps,
    bluff_prior,
    confidence,
    values,
    draw_inference,
):
    """Flat Monte Carlo over determinizations, every candidate on the same samples.

    The rollout policy's own choice is the default. Samples come in rounds of
    ``SEARCH_ROUND``; after each round an alternative whose paired advantage over the
    default is below zero by more than one standard error is dropped (racing), and the
    search stops early once none is left. At the end the alternative with the best
    mean advantage among those whose advantage minus ``confidence`` standard errors
    is positive replaces the default. The rollouts play ``rollout_policy`` at the
    searcher's seat (its team's seats with partners) and ``opponent_policy`` at the
    others. ``values[k]`` gets the mean rollout value of ``candidates[k]`` (over its
    samples). ``draw_inference``: see :func:`~uno_env.engine.readers.determinize`.
    Returns the chosen action."""
    n = P[P_NUM_PLAYERS]
    # two games: row 0 the sampled position, row 1 a candidate played out from it
    games = (
        np.zeros((2, P[P_C_SIZE]), dtype=np.int8),
        np.zeros((2, P[P_I_SIZE]), dtype=np.int32),
        np.zeros(2, dtype=np.uint64),
        np.zeros(2, dtype=np.uint64),
    )
    scratch = (
        np.empty(P[P_O_SIZE], dtype=np.float32),
        np.empty(P[P_NUM_ACTIONS], dtype=np.int8),
        np.zeros((2, n), dtype=np.float32),
        np.zeros((2, n), dtype=np.float32),
        np.zeros((2, 0, 4), dtype=np.int32),
        np.zeros(2, dtype=np.int32),
    )
    seat_policies = np.full(n, opponent_policy, dtype=np.int64)
    team_seats(P, rollout_policy, seat_policies)
    count = candidates.shape[0]
    samples = np.zeros((count, determinizations), dtype=np.float64)
    counts = np.zeros(count, dtype=np.int64)
    active = np.ones(count, dtype=np.bool_)
    # a typed row, not a literal constant, so that the callees compiled for the tournaments and
    # the agents (int64 rows) serve here too instead of compiling again for the literal 0
    row0 = np.int64(0)
    base = index_of(candidates, policy_kernels.policy_act(rollout_policy, obs, mask, P, prng, row0))
    done = 0
    for trial in range(determinizations):
        cards, ints, rng = games[0], games[1], games[2]
        if not determinize(obs, P, prng, row0, cards, ints, rng, row0, bluff_prior, np.int64(20), draw_inference):
            continue
        play_candidates(P, prng, games, scratch, seat_policies, candidates, max_steps, samples, counts, active)
        done += 1
        racing = base >= 0 and done % SEARCH_ROUND == 0 and trial + 1 < determinizations
        if racing and race(samples, counts, active, base) == 0:  # no alternative left
            break
    mean_values(samples, counts, values)
    if base < 0:  # the rollout policy's choice is not searched: the best mean
        return candidates[best_mean(values, count)]
    return candidates[best_alternative(samples, counts, active, base, confidence)]


@kernel
def team_seats(P, rollout_policy, seat_policies):
    """``rollout_policy`` at the searcher's seat (0) and its partner's in ``seat_policies``."""
    for s in range(P[P_NUM_PLAYERS]):
        if s == 0 or is_partner(P, s):
            seat_policies[s] = rollout_policy


@kernel
def index_of(candidates, action):
    """The place of ``action`` among the candidates, -1 when it is not one."""
    found = -1
    for k in range(candidates.shape[0]):
        if candidates[k] == action:
            found = k
    return found


@kernel
def play_candidates(P, prng, games, scratch, seat_policies, candidates, max_steps, samples, counts, active):
    """One sample of every candidate still racing: from the sampled position (row 0 of
    ``games``), the candidate applied and the hand played out in row 1, every candidate
    with the same generators (common random numbers); its value goes to ``samples``."""
    cards, ints, rng, roll_prng = games
    obs, mask, step_rw, rw, ev, evn = scratch
    row0, row1 = np.int64(0), np.int64(1)
    base_rng = fresh_rng(prng, row0)
    base_prng = fresh_rng(prng, row0)
    for k in range(candidates.shape[0]):
        if not active[k]:
            continue
        for i in range(P[P_C_SIZE]):
            cards[1, i] = cards[0, i]
        for i in range(P[P_I_SIZE]):
            ints[1, i] = ints[0, i]
        rng[1] = base_rng
        roll_prng[1] = base_prng
        K.step_game(cards, ints, rng, P, row1, candidates[k], step_rw, ev, evn)
        samples[k, counts[k]] = rollout_value(
            cards, ints, rng, roll_prng, P, seat_policies, max_steps, obs, mask, step_rw, rw, ev, evn
        )
        counts[k] += 1


@kernel
def race(samples, counts, active, base):
    """Drop each alternative whose paired advantage over the default (``base``) is below zero
    by more than one standard error; returns how many are left."""
    left = 0
    for k in range(active.shape[0]):
        if k != base and active[k]:
            mean, stderr = _paired_advantage(samples, counts, k, base)
            if mean + stderr < 0.0:
                active[k] = False
            else:
                left += 1
    return left


@kernel
def mean_values(samples, counts, values):
    """``values[k]``: the mean of candidate k's samples (0 without any)."""
    for k in range(counts.shape[0]):
        total = 0.0
        for d in range(counts[k]):
            total += samples[k, d]
        values[k] = total / max(counts[k], 1)


@kernel
def best_mean(values, count):
    """The candidate of highest mean value (the first on ties)."""
    best = 0
    for k in range(count):
        if values[k] > values[best]:
            best = k
    return best


@kernel
def best_alternative(samples, counts, active, base, confidence):
    """The alternative of best mean advantage over the default (``base``) among those whose
    advantage less ``confidence`` standard errors is positive; ``base`` when there is none."""
    best = base
    best_gain = 0.0
    for k in range(active.shape[0]):
        if k == base or not active[k]:
            continue
        mean, stderr = _paired_advantage(samples, counts, k, base)
        if mean - confidence * stderr > 0.0 and mean > best_gain:
            best = k
            best_gain = mean
    return best


@kernel
def forced_action(obs, mask, P):
    """The action taken without search, -1 when there is a choice to search."""
    count = 0
    only = -1
    for a in range(P[P_NUM_ACTIONS]):
        if mask[a]:
            count += 1
            only = a
    if count == 1:
        return only
    if P[P_A_UNO] >= 0 and mask[P[P_A_UNO]]:
        return P[P_A_UNO]  # calling is free (D-UNO)
    if obs_phase(obs, P) == PH_CATCH:
        exposed = obs_exposed_seat(obs, P)
        return P[P_A_PASS] if is_partner(P, exposed) else P[P_A_CATCH]
    return -1


def search_candidates(mask: np.ndarray, params) -> np.ndarray:
    """The legal actions the search compares (all of them but ``uno``)."""
    legal = np.flatnonzero(mask)
    uno = int(params[P_A_UNO])
    return legal[legal != uno].astype(np.int64)


def positive_integer(value, option: str) -> int:
    """``value`` if it is a positive integer (not a bool), else ValueError naming the option."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"ismcts: {option} must be a positive integer, got {value!r}")
    return value


def rollout_policy_id(policy, option: str) -> int:
    """The id of the compiled policy ``policy`` that an option names, else ValueError naming both."""
    try:
        return policy_kernels.policy_id_of(policy)
    except ValueError as err:
        raise ValueError(f"ismcts: unknown {option} policy {policy!r} ({err})") from None


class ISMCTSAgent(Agent):
    """Determinized search over the observation (module docstring). Options:
    ``determinizations`` (budget per decision, default 320), ``rollout`` (compiled
    policy of the agent's team in the rollouts, default ``tactical``), ``opponent_rollout``
    (compiled policy of the other seats in the rollouts, default ``rollout``), ``max_rollout_steps``
    (default 2000), ``bluff_prior`` (default that of the tactical policy), ``confidence``
    (standard errors of evidence needed to overrule the rollout policy, default 1),
    ``draw_inference`` (0..1, default 0: the chance that a sample deals a seat that drew
    since it last played none of the colours it drew on, nor a wild; 1 fits opponents that
    never draw when they can play, as every heuristic here)."""

    name = "ismcts"

    def __init__(
        self,
        rules: RuleConfig | Game | None = None,
        seed: int = 0,
        determinizations: int = 320,
        rollout: str = "tactical",
        opponent_rollout: str | None = None,
        max_rollout_steps: int = 2000,
        bluff_prior: float | None = None,
        confidence: float = 1.0,
        draw_inference: float = 0.0,
    ):
        self.determinizations = positive_integer(determinizations, "determinizations")
        self.rollout = rollout
        self.rollout_id = rollout_policy_id(rollout, "rollout")
        self.opponent_rollout = rollout if opponent_rollout is None else opponent_rollout
        self.opponent_id = rollout_policy_id(self.opponent_rollout, "opponent_rollout")
        self.max_rollout_steps = positive_integer(max_rollout_steps, "max_rollout_steps")
        if bluff_prior is None:
            bluff_prior = float(policy_kernels.TACTICAL_WEIGHTS[policy_kernels.WEIGHT_PRIOR])
        if not 0.0 <= float(bluff_prior) <= 1.0:
            raise ValueError(f"ismcts: bluff_prior must be within 0..1, got {bluff_prior!r}")
        self.bluff_prior = float(bluff_prior)
        if not float(confidence) >= 0.0:
            raise ValueError(f"ismcts: confidence must be >= 0, got {confidence!r}")
        self.confidence = float(confidence)
        if isinstance(draw_inference, bool) or not 0.0 <= float(draw_inference) <= 1.0:
            raise ValueError(f"ismcts: draw_inference must be within 0..1, got {draw_inference!r}")
        self.draw_inference = float(draw_inference)
        self.searches = 0
        self.last_values: dict[int, float] = {}
        super().__init__(rules, seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.prng = np.array([seed_to_rng(self.seed)], dtype=np.uint64)

    def random_state(self):
        return self.seed, self.prng.copy()

    def set_random_state(self, saved) -> None:
        self.seed, prng = saved
        self.prng = prng.copy()

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        obs, legal = self.check(observation, mask)
        forced = int(forced_action(obs, legal, self.params))
        if forced >= 0:
            return self.answer(forced, legal)
        candidates = search_candidates(legal, self.params)
        values = np.zeros(len(candidates), dtype=np.float64)
        action = search(
            obs,
            legal,
            self.params,
            self.prng,
            candidates,
            self.determinizations,
            self.rollout_id,
            self.opponent_id,
            self.max_rollout_steps,
            self.bluff_prior,
            self.confidence,
            values,
            self.draw_inference,
        )
        self.searches += 1
        self.last_values = {int(a): float(v) for a, v in zip(candidates, values)}
        return self.answer(int(action), legal)


PPO_SEARCH: dict[str, Any] = {"rollout": "ppo", "opponent_rollout": "ppo", "draw_inference": 1.0, "confidence": 2.0}
"""``ppo_search``'s recipe (``python -m experiments.search_curve`` measured it; docs/agents.md,
"Search on top of ppo"): two standard errors of evidence before it overrules ppo (one made
more bad changes than good ones), and samples that deal a seat that drew none of the colours
it drew on (ppo rarely draws when it can play)."""
PPO_SEARCH_BUDGET = {2: 128}
"""``ppo_search``'s determinizations by players at the table, :data:`PPO_SEARCH_MORE_PLAYERS`
at tables not listed: the best point of each table's curve of strength against time (at two
players 128 beat 32 and matched 512; at four, more samples did no better than 32)."""
PPO_SEARCH_MORE_PLAYERS = 32


def make_ppo_search(rules: RuleConfig | Game | None = None, seed: int = 0, **options) -> ISMCTSAgent:
    """``ismcts`` on top of ``ppo``: ppo's own choice unless the search over rollouts in which
    ``ppo`` plays every seat finds a better one by :data:`PPO_SEARCH`'s ``confidence``, with
    :data:`PPO_SEARCH_BUDGET`'s determinizations. Takes ``ismcts``'s options
    (``determinizations=N`` for another point of the curve)."""
    game = as_game(rules)  # built once: the agent takes it as it is
    budget: dict[str, Any] = {"determinizations": PPO_SEARCH_BUDGET.get(game.num_players, PPO_SEARCH_MORE_PLAYERS)}
    return ISMCTSAgent(game, seed, **(PPO_SEARCH | budget | options))


def determinized_position(
    game: Game, observation: np.ndarray, seed: int = 0, bluff_prior: float = 1.0, draw_inference: float = 0.0
) -> dict:
    """One sampled full position consistent with an observation, as a position dict
    (:mod:`uno_env.engine.position`), the observer at seat 0. For inspection and tests."""
    obs = np.ascontiguousarray(observation, dtype=np.float32)
    state = game.new_state()
    prng = np.array([seed_to_rng(seed)], dtype=np.uint64)
    if not determinize(
        obs, game.params, prng, 0, state.cards, state.ints, state.rng, 0, bluff_prior, 20, float(draw_inference)
    ):
        raise ValueError("the observation's card counts do not add up to the deck")
    return game.position(state)


__all__ = ["ISMCTSAgent", "determinize", "determinized_position", "search"]
