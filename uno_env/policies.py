"""Compiled policies: agents written once as numba functions of (observation, mask).

A policy sees exactly what an agent sees: the acting player's observation
vector and legal-action mask (offsets come from the parameter vector ``P``), plus
its own random generator. The same function serves the Python agents in
``agents/``, whole games played inside one compiled call (tournaments of
millions of hands, search rollouts) and the vector env.

Policy ids: see :data:`POLICY_IDS`. To add one, write ``njit`` function
``name(obs, mask, P, prng, b) -> action`` and add a branch to :func:`policy_act`.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .engine import kernels as K
from .engine.layout import P_A_LEN, P_O_LEN, PH_OVER, S_PHASE, S_ROUND

RANDOM = 0

POLICY_IDS = {"random": RANDOM}


@njit(cache=True)
def random_below(prng, b, n):
    """Uniform integer in 0..n-1 from a policy generator (xorshift64*, like the engine's)."""
    return K.rng_below(prng, b, n)


@njit(cache=True)
def random_policy(obs, mask, P, prng, b):
    """Uniform over the legal actions."""
    count = 0
    for a in range(P[P_A_LEN]):
        count += mask[a]
    k = random_below(prng, b, count)
    for a in range(P[P_A_LEN]):
        if mask[a]:
            if k == 0:
                return a
            k -= 1
    return -1


@njit(cache=True)
def policy_act(policy, obs, mask, P, prng, b):
    """The action of compiled policy ``policy`` (an id of POLICY_IDS)."""
    if policy == RANDOM:
        return random_policy(obs, mask, P, prng, b)
    return -1


@njit(cache=True)
def play_game(
    cards, ints, rng, prng, P, b, seat_policies, stop_at_round_end, max_steps, obs, mask, step_rw, rw, ev, evn
):
    """Play game b with compiled policies until it ends (or its round ends, or
    ``max_steps`` decisions); returns the decisions taken. ``rw[b]`` accumulates the
    rewards; ``step_rw`` is scratch of the same shape."""
    n = seat_policies.shape[0]
    start_round = ints[b, S_ROUND]
    steps = 0
    while ints[b, S_PHASE] != PH_OVER and steps < max_steps:
        if stop_at_round_end and ints[b, S_ROUND] != start_round:
            break
        seat = ints[b, K.S_CURRENT]
        K.observe(cards, ints, P, b, seat, obs)
        K.legal_mask(cards, ints, P, b, mask)
        action = policy_act(seat_policies[seat], obs, mask, P, prng, b)
        K.step_game(cards, ints, rng, P, b, action, step_rw, ev, evn)
        for s in range(n):
            rw[b, s] += step_rw[b, s]
        steps += 1
    return steps


@njit(cache=True, parallel=True)
def play_batch(cards, ints, rng, prng, P, seat_policies, stop_at_round_end, max_steps, rw, steps):
    """Play every game of the batch with compiled policies (``seat_policies[b, seat]``),
    in parallel over games; rewards add up in ``rw``, decisions go to ``steps``."""
    batch = cards.shape[0]
    step_rw = np.zeros_like(rw)
    ev = np.zeros((batch, 0, 4), dtype=np.int32)
    evn = np.zeros(batch, dtype=np.int32)
    for b in prange(batch):
        obs = np.empty(P[P_O_LEN], dtype=np.float32)
        mask = np.empty(P[P_A_LEN], dtype=np.int8)
        steps[b] = play_game(
            cards,
            ints,
            rng,
            prng,
            P,
            b,
            seat_policies[b],
            stop_at_round_end,
            max_steps,
            obs,
            mask,
            step_rw,
            rw,
            ev,
            evn,
        )
