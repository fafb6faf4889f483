"""Determinized search: sample the hidden cards, try every action, roll out with a compiled policy.

At each decision with more than one sensible action the agent

1. samples full game states consistent with its observation (:func:`determinize`):
   its own hand, the discard pile (counts and top card), the hand sizes, the draw
   pile size, colour, direction, phase, scores, who is exposed, and the soft
   information of a challenge reveal or a Fashion Trend. The observation keeps a
   reveal until the round ends, so it goes stale as the owner plays: a revealed
   card still unseen is put back in its owner's hand with chance (cards the owner
   holds now) / (cards shown), a card shown to a Fashion Trend half the time. The
   other unseen cards are dealt at random to the other hands and the draw pile.
   When it is the target of a Wild Draw Four, a sample in which the offender
   bluffed is kept with probability ``bluff_prior`` only (an offender who holds the
   colour plays the card less often than one who does not; see
   :func:`uno_env.policies.bluff_probability`);
2. for every candidate action and every sample (the same samples for all actions:
   common random numbers), applies the action and plays the hand out with a
   compiled policy at every seat (``rollout``, default ``tactical``), through
   :func:`uno_env.policies.play_game`; a hand is worth 1 when the agent's team goes
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

import numpy as np
from numba import njit

from uno_env import policies as PO
from uno_env.engine import Game, RuleConfig
from uno_env.engine import kernels as K
from uno_env.engine.game import seed_to_rng
from uno_env.engine.layout import (
    O_ACTING,
    O_AFTER_WINDOW,
    O_ALIVE,
    O_COLOUR,
    O_DEALER,
    O_DISCARD,
    O_DRAW_SIZE,
    O_DRAWN,
    O_DREW_ON,
    O_EXPOSED,
    O_HAND,
    O_HAND_SIZES,
    O_PREV_COLOUR,
    O_REVEAL,
    O_REVEAL_SEAT,
    O_SCORES,
    O_TOP,
    O_TREND_COLOUR,
    O_TREND_SHOWN,
    O_UNO_CALLED,
    P_A_CATCH,
    P_A_LEN,
    P_A_PASS,
    P_A_UNO,
    P_C_DCOUNT,
    P_C_DISCARD,
    P_C_DRAW,
    P_C_HANDS,
    P_C_LEN,
    P_C_REVEAL,
    P_F,
    P_I_ALIVE,
    P_I_DREW_ON,
    P_I_HAND_SIZE,
    P_I_LEN,
    P_I_OUTCOME,
    P_I_SCORE,
    P_I_TREND,
    P_N,
    P_O_LEN,
    P_PARTNERS,
    PH_CATCH,
    PH_CHALLENGE,
    PH_DRAWN,
    PH_OVER,
    S_AFTER_WINDOW,
    S_COLOUR,
    S_CURRENT,
    S_DEALER,
    S_DIRECTION,
    S_DISCARD_COUNT,
    S_DRAW_COUNT,
    S_DRAWN,
    S_EXPOSED,
    S_FORFEIT,
    S_LAST_WINNER,
    S_N_ALIVE,
    S_PHASE,
    S_PREV_COLOUR,
    S_REVEAL_OWNER,
    S_REVEAL_VIEWER,
    S_ROUND,
    S_TREND_COLOUR,
    S_TREND_VIEWER,
    S_TRUNCATED,
    S_UNO_CALLED,
    S_WD4_EXPOSED,
    S_WD4_GUILTY,
    S_WD4_OFFENDER,
    S_WD4_OUT,
)

from .base import Agent

_NONZERO = np.uint64(0x2545F4914F6CDD1D)
SEARCH_ROUND = 32  # determinizations between two racing checks


@njit(cache=True)
def _one_hot(obs, start, size):
    for k in range(size):
        if obs[start + k] > 0.5:
            return k
    return -1


@njit(cache=True)
def _fresh_rng(prng, pb):
    """A nonzero generator state drawn from a policy generator."""
    x = np.uint64(K.rng_below(prng, pb, 1 << 30)) << np.uint64(32)
    x |= np.uint64(K.rng_below(prng, pb, 1 << 30))
    if x == 0:
        x = _NONZERO
    return x


@njit(cache=True)
def determinize(obs, P, prng, pb, cards, ints, rng, b, bluff_prior, max_tries):
    """Write into game ``b`` a full state consistent with observation ``obs``, the
    observer at seat 0 (seats are the observation's relative seats). Returns False
    when the observation cannot be completed (the card counts do not add up)."""
    n = P[P_N]
    F = P[P_F]
    for i in range(P[P_C_LEN]):
        cards[b, i] = 0
    for i in range(P[P_I_LEN]):
        ints[b, i] = 0
    phase = PO.obs_phase(obs, P)
    direction = PO.obs_direction(obs, P)
    ints[b, S_PHASE] = phase
    ints[b, S_CURRENT] = _one_hot(obs, P[O_ACTING], n)
    ints[b, S_DIRECTION] = direction
    ints[b, S_DEALER] = max(_one_hot(obs, P[O_DEALER], n), 0)
    ints[b, S_COLOUR] = PO.obs_colour(obs, P, O_COLOUR)
    ints[b, S_PREV_COLOUR] = PO.obs_colour(obs, P, O_PREV_COLOUR)
    ints[b, S_DRAWN] = _one_hot(obs, P[O_DRAWN], F) if phase == PH_DRAWN else -1
    ints[b, S_UNO_CALLED] = 1 if obs[P[O_UNO_CALLED]] > 0.5 else 0
    ints[b, S_EXPOSED] = -1
    ints[b, S_AFTER_WINDOW] = -1
    if phase == PH_CATCH:
        ints[b, S_EXPOSED] = _one_hot(obs, P[O_EXPOSED], n)
        ints[b, S_AFTER_WINDOW] = _one_hot(obs, P[O_AFTER_WINDOW], n)
    ints[b, S_WD4_OFFENDER] = -1
    ints[b, S_REVEAL_VIEWER] = -1
    ints[b, S_REVEAL_OWNER] = -1
    ints[b, S_TREND_VIEWER] = -1
    ints[b, S_TREND_COLOUR] = -1
    ints[b, S_LAST_WINNER] = -1
    ints[b, S_FORFEIT] = -1
    alive_count = 0
    for s in range(n):
        alive = obs[P[O_ALIVE] + s] > 0.5
        ints[b, P[P_I_ALIVE] + s] = 1 if alive else 0
        alive_count += 1 if alive else 0
        ints[b, P[P_I_OUTCOME] + s] = 0 if alive else -1
        ints[b, P[P_I_HAND_SIZE] + s] = np.int32(obs[P[O_HAND_SIZES] + s])
        ints[b, P[P_I_SCORE] + s] = np.int32(obs[P[O_SCORES] + s])
        ints[b, P[P_I_TREND] + s] = -1
        drew_on = 0
        for c in range(4):
            if obs[P[O_DREW_ON] + 4 * s + c] > 0.5:
                drew_on |= 1 << c
        ints[b, P[P_I_DREW_ON] + s] = drew_on
    ints[b, S_N_ALIVE] = alive_count

    # the discard pile: its counts are known, its order only matters for the top card
    top = _one_hot(obs, P[O_TOP], F)
    k = 0
    for f in range(F):
        copies = np.int64(obs[P[O_DISCARD] + f])
        cards[b, P[P_C_DCOUNT] + f] = copies
        if f == top:
            copies -= 1
        for _ in range(copies):
            cards[b, P[P_C_DISCARD] + k] = f
            k += 1
    if top >= 0:
        cards[b, P[P_C_DISCARD] + k] = top
        k += 1
    ints[b, S_DISCARD_COUNT] = k

    # what the observer cannot see
    unseen = np.zeros(F, dtype=np.int64)
    total = 0
    for f in range(F):
        held = np.int64(obs[P[O_HAND] + f])
        cards[b, P[P_C_HANDS] + f] = held
        u = PO.face_copies(f) - held - np.int64(obs[P[O_DISCARD] + f])
        if u < 0:
            return False
        unseen[f] = u
        total += u
    need = np.zeros(n, dtype=np.int64)
    slots = 0
    for s in range(1, n):
        need[s] = np.int64(obs[P[O_HAND_SIZES] + s])
        slots += need[s]
    draw_count = np.int64(obs[P[O_DRAW_SIZE]])
    if total != slots + draw_count:
        return False
    ints[b, S_DRAW_COUNT] = draw_count

    # soft information: cards shown to the observer go back to their owner while unseen copies remain
    owner = _one_hot(obs, P[O_REVEAL_SEAT], n)
    if owner >= 0:
        ints[b, S_REVEAL_VIEWER] = 0
        ints[b, S_REVEAL_OWNER] = owner
        revealed = 0
        for f in range(F):
            shown = np.int64(obs[P[O_REVEAL] + f])
            cards[b, P[P_C_REVEAL] + f] = shown
            revealed += shown
        # the reveal lasts the round and goes stale as the owner plays: a revealed card
        # is taken as still held with chance (cards held now) / (cards shown), at most 1
        keep = min(1.0, need[owner] / max(revealed, 1)) if owner > 0 else 0.0
        for f in range(F):
            for _ in range(np.int64(obs[P[O_REVEAL] + f])):
                if unseen[f] > 0 and need[owner] > 0 and K.rng_below(prng, pb, 1 << 20) < keep * (1 << 20):
                    cards[b, P[P_C_HANDS] + owner * F + f] += 1
                    unseen[f] -= 1
                    need[owner] -= 1
    if P[O_TREND_COLOUR] >= 0:
        trend = _one_hot(obs, P[O_TREND_COLOUR], 4)
        if trend >= 0:
            ints[b, S_TREND_VIEWER] = 0
            ints[b, S_TREND_COLOUR] = trend
            for s in range(n):
                rank = _one_hot(obs, P[O_TREND_SHOWN] + s * 13, 13)
                if rank >= 0:
                    f = trend * 13 + rank
                    ints[b, P[P_I_TREND] + s] = f
                    # shown cards stay in hand but may have been played since: kept half the time
                    if s > 0 and unseen[f] > 0 and need[s] > 0 and K.rng_below(prng, pb, 2) == 0:
                        cards[b, P[P_C_HANDS] + s * F + f] += 1
                        unseen[f] -= 1
                        need[s] -= 1

    pool = np.empty(total, dtype=np.int64)
    m = 0
    for f in range(F):
        for _ in range(unseen[f]):
            pool[m] = f
            m += 1
    offender = -1
    if phase == PH_CHALLENGE:
        offender = PO.obs_next_seat(obs, P, 0, -direction)
    previous = ints[b, S_PREV_COLOUR]
    base_hands = cards[b, P[P_C_HANDS] : P[P_C_HANDS] + n * F].copy()
    for attempt in range(max_tries):
        for i in range(m - 1, 0, -1):
            j = K.rng_below(prng, pb, i + 1)
            tmp = pool[i]
            pool[i] = pool[j]
            pool[j] = tmp
        for i in range(n * F):
            cards[b, P[P_C_HANDS] + i] = base_hands[i]
        i = 0
        for s in range(1, n):
            for _ in range(need[s]):
                cards[b, P[P_C_HANDS] + s * F + pool[i]] += 1
                i += 1
        if offender < 0 or previous < 0:
            break
        guilty = False
        for r in range(13):
            if cards[b, P[P_C_HANDS] + offender * F + previous * 13 + r] > 0:
                guilty = True
        if not guilty or attempt == max_tries - 1:
            break
        if K.rng_below(prng, pb, 1 << 20) < bluff_prior * (1 << 20):
            break
    dealt = m - draw_count  # the rest of the shuffled pool is the draw pile
    for d in range(draw_count):
        cards[b, P[P_C_DRAW] + d] = pool[dealt + d]
    if offender >= 0:
        ints[b, S_WD4_OFFENDER] = offender
        ints[b, S_WD4_GUILTY] = 1 if K.holds_colour(cards, P, b, offender, previous) else 0
        ints[b, S_WD4_OUT] = 1 if ints[b, P[P_I_HAND_SIZE] + offender] == 0 else 0
        ints[b, S_WD4_EXPOSED] = 1 if obs[P[O_EXPOSED] + offender] > 0.5 else 0
    rng[b] = _fresh_rng(prng, pb)
    return True


@njit(cache=True)
def _team_won(P, winner):
    if winner == 0:
        return True
    return P[P_PARTNERS] != 0 and winner == P[P_N] // 2


@njit(cache=True)
def _teams_in(ints, P, b):
    count = 0
    n = P[P_N]
    for s in range(n):
        if ints[b, P[P_I_ALIVE] + s] != 0 and (P[P_PARTNERS] == 0 or s < n // 2):
            count += 1
    return max(count, 1)


@njit(cache=True)
def rollout_value(cards, ints, rng, prng, P, seat_policies, max_steps, obs, mask, step_rw, rw, ev, evn):
    """Play game 1 out with the compiled policies until its round ends; the value of the
    hand for seat 0: 1 if its team went out, 0 if another did, 1/teams when cut short."""
    if ints[1, S_PHASE] != PH_OVER and ints[1, S_ROUND] == 0:
        PO.play_game(cards, ints, rng, prng, P, 1, seat_policies, True, max_steps, obs, mask, step_rw, rw, ev, evn)
    if ints[1, S_ROUND] != 0 or (ints[1, S_PHASE] == PH_OVER and ints[1, S_TRUNCATED] == 0):
        winner = ints[1, S_LAST_WINNER]
        if winner >= 0:
            return 1.0 if _team_won(P, winner) else 0.0
    return 1.0 / _teams_in(ints, P, 1)


@njit(cache=True)
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


@njit(cache=True)
def search(
    obs, mask, P, prng, candidates, determinizations, rollout_policy, max_steps, bluff_prior, confidence, values
):
    """Flat Monte Carlo over determinizations, every candidate on the same samples.

    The rollout policy's own choice is the default. Samples come in rounds of
    ``SEARCH_ROUND``; after each round an alternative whose paired advantage over the
    default is below zero by more than one standard error is dropped (racing), and the
    search stops early once none is left. At the end the alternative with the best
    mean advantage among those whose advantage minus ``confidence`` standard errors
    is positive replaces the default. ``values[k]`` gets the mean rollout value of
    ``candidates[k]`` (over its samples). Returns the chosen action."""
    n = P[P_N]
    cards = np.zeros((2, P[P_C_LEN]), dtype=np.int8)
    ints = np.zeros((2, P[P_I_LEN]), dtype=np.int32)
    rng = np.zeros(2, dtype=np.uint64)
    roll_prng = np.zeros(2, dtype=np.uint64)
    seat_policies = np.full(n, rollout_policy, dtype=np.int64)
    scratch_obs = np.empty(P[P_O_LEN], dtype=np.float32)
    scratch_mask = np.empty(P[P_A_LEN], dtype=np.int8)
    step_rw = np.zeros((2, n), dtype=np.float32)
    rw = np.zeros((2, n), dtype=np.float32)
    ev = np.zeros((2, 0, 4), dtype=np.int32)
    evn = np.zeros(2, dtype=np.int32)
    count = candidates.shape[0]
    samples = np.zeros((count, determinizations), dtype=np.float64)
    counts = np.zeros(count, dtype=np.int64)
    active = np.ones(count, dtype=np.bool_)
    default = PO.policy_act(rollout_policy, obs, mask, P, prng, 0)
    base = -1
    for k in range(count):
        if candidates[k] == default:
            base = k
    done = 0
    for trial in range(determinizations):
        if not determinize(obs, P, prng, 0, cards, ints, rng, 0, bluff_prior, 20):
            continue
        base_rng = _fresh_rng(prng, 0)
        base_prng = _fresh_rng(prng, 0)
        for k in range(count):
            if not active[k]:
                continue
            for i in range(P[P_C_LEN]):
                cards[1, i] = cards[0, i]
            for i in range(P[P_I_LEN]):
                ints[1, i] = ints[0, i]
            rng[1] = base_rng
            roll_prng[1] = base_prng
            K.step_game(cards, ints, rng, P, 1, candidates[k], step_rw, ev, evn)
            samples[k, counts[k]] = rollout_value(
                cards,
                ints,
                rng,
                roll_prng,
                P,
                seat_policies,
                max_steps,
                scratch_obs,
                scratch_mask,
                step_rw,
                rw,
                ev,
                evn,
            )
            counts[k] += 1
        done += 1
        if base >= 0 and done % SEARCH_ROUND == 0 and trial + 1 < determinizations:
            left = 0
            for k in range(count):
                if k != base and active[k]:
                    mean, stderr = _paired_advantage(samples, counts, k, base)
                    if mean + stderr < 0.0:
                        active[k] = False
                    else:
                        left += 1
            if left == 0:
                break
    for k in range(count):
        total = 0.0
        for d in range(counts[k]):
            total += samples[k, d]
        values[k] = total / max(counts[k], 1)
    if base < 0:  # the rollout policy's choice is not searched: the best mean
        best = 0
        for k in range(count):
            if values[k] > values[best]:
                best = k
        return candidates[best]
    best = base
    best_gain = 0.0
    for k in range(count):
        if k == base or not active[k]:
            continue
        mean, stderr = _paired_advantage(samples, counts, k, base)
        if mean - confidence * stderr > 0.0 and mean > best_gain:
            best = k
            best_gain = mean
    return candidates[best]


@njit(cache=True)
def forced_action(obs, mask, P):
    """The action taken without search, -1 when there is a choice to search."""
    count = 0
    only = -1
    for a in range(P[P_A_LEN]):
        if mask[a]:
            count += 1
            only = a
    if count == 1:
        return only
    if P[P_A_UNO] >= 0 and mask[P[P_A_UNO]]:
        return P[P_A_UNO]  # calling is free (D-UNO)
    if PO.obs_phase(obs, P) == PH_CATCH:
        exposed = PO.obs_exposed_seat(obs, P)
        return P[P_A_PASS] if PO.is_partner(P, exposed) else P[P_A_CATCH]
    return -1


def search_candidates(mask: np.ndarray, params) -> np.ndarray:
    """The legal actions the search compares (all of them but ``uno``)."""
    legal = np.flatnonzero(mask)
    uno = int(params[P_A_UNO])
    return legal[legal != uno].astype(np.int64)


class ISMCTSAgent(Agent):
    """Determinized search over the observation (module docstring). Options:
    ``determinizations`` (budget per decision, default 320), ``rollout`` (compiled
    policy at every seat in the rollouts, default ``tactical``), ``max_rollout_steps``
    (default 2000), ``bluff_prior`` (default that of the tactical policy), ``confidence``
    (standard errors of evidence needed to overrule the rollout policy, default 1)."""

    name = "ismcts"

    def __init__(
        self,
        rules: RuleConfig | Game | None = None,
        seed: int = 0,
        determinizations: int = 320,
        rollout: str = "tactical",
        max_rollout_steps: int = 2000,
        bluff_prior: float | None = None,
        confidence: float = 1.0,
    ):
        if isinstance(determinizations, bool) or not isinstance(determinizations, int) or determinizations < 1:
            raise ValueError(f"ismcts: determinizations must be a positive integer, got {determinizations!r}")
        if rollout not in PO.POLICY_IDS:
            known = ", ".join(sorted(PO.POLICY_IDS))
            raise ValueError(f"ismcts: unknown rollout policy {rollout!r}; known: {known}")
        if isinstance(max_rollout_steps, bool) or not isinstance(max_rollout_steps, int) or max_rollout_steps < 1:
            raise ValueError(f"ismcts: max_rollout_steps must be a positive integer, got {max_rollout_steps!r}")
        if bluff_prior is None:
            bluff_prior = float(PO.TACTICAL_WEIGHTS[PO.TW_PRIOR])
        if not 0.0 <= float(bluff_prior) <= 1.0:
            raise ValueError(f"ismcts: bluff_prior must be within 0..1, got {bluff_prior!r}")
        self.determinizations = determinizations
        self.rollout = rollout
        self.rollout_id = PO.POLICY_IDS[rollout]
        self.max_rollout_steps = max_rollout_steps
        self.bluff_prior = float(bluff_prior)
        if not float(confidence) >= 0.0:
            raise ValueError(f"ismcts: confidence must be >= 0, got {confidence!r}")
        self.confidence = float(confidence)
        self.searches = 0
        self.last_values: dict[int, float] = {}
        super().__init__(rules, seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.prng = np.array([seed_to_rng(self.seed)], dtype=np.uint64)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        obs, legal = self.check(observation, mask)
        forced = int(forced_action(obs, legal, self.params))
        if forced >= 0:
            return forced
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
            self.max_rollout_steps,
            self.bluff_prior,
            self.confidence,
            values,
        )
        self.searches += 1
        self.last_values = {int(a): float(v) for a, v in zip(candidates, values)}
        return int(action)


def determinized_position(game: Game, observation: np.ndarray, seed: int = 0, bluff_prior: float = 1.0) -> dict:
    """One sampled full position consistent with an observation, as a position dict
    (:mod:`uno_env.engine.position`), the observer at seat 0. For inspection and tests."""
    obs = np.ascontiguousarray(observation, dtype=np.float32)
    state = game.new_state()
    prng = np.array([seed_to_rng(seed)], dtype=np.uint64)
    if not determinize(obs, game.params, prng, 0, state.cards, state.ints, state.rng, 0, bluff_prior, 20):
        raise ValueError("the observation's card counts do not add up to the deck")
    return game.position(state)


__all__ = ["ISMCTSAgent", "determinize", "determinized_position", "search"]
