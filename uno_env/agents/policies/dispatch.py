"""The compiled policies by id: :data:`POLICY_IDS`, and one decision of the policy of an id
(:func:`policy_act` from an observation; :func:`policy_decision` from the state, as the
compiled play loops and the vector env decide)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ...engine import kernels as K
from ...engine.jit import describe, kernel
from ...engine.layout import S_PHASE
from ..neural import shipped_policy
from .simple import (
    keeper_choice,
    keeper_policy,
    keeper_view_of_state,
    naive_choice,
    naive_policy,
    random_play_policy,
    random_policy,
)
from .tactical import tactical_policy, tactical_v1_policy

describe(__name__, "the agents' compiled policies", seconds=30)

RANDOM = 0
NAIVE = 1
KEEPER = 2
TACTICAL = 3
RANDOM_PLAY = 4
PPO = 5
TACTICAL_V1 = 6

POLICY_IDS = {
    "random": RANDOM,
    "naive": NAIVE,
    "keeper": KEEPER,
    "tactical": TACTICAL,
    "random_play": RANDOM_PLAY,
    "ppo": PPO,
    "tactical_v1": TACTICAL_V1,
}


def policy_id_of(policy) -> int:
    """The id of a compiled policy given by name or id (a Python or numpy integer; not a
    bool): the one check of "is this a compiled policy". ValueError naming the known ones."""
    if isinstance(policy, str) and policy in POLICY_IDS:
        return POLICY_IDS[policy]
    is_integer = isinstance(policy, (int, np.integer)) and not isinstance(policy, (bool, np.bool_))
    if is_integer and int(policy) in POLICY_IDS.values():
        return int(policy)
    raise ValueError(f"unknown compiled policy {policy!r}: known policies are {', '.join(sorted(POLICY_IDS))}")


def policy_name(policy_id: int) -> str:
    """The name of a compiled policy id (the id as text when unknown)."""
    for name, value in POLICY_IDS.items():
        if value == policy_id:
            return name
    return str(policy_id)


@kernel
def policy_act(policy, obs, mask, P, prng, b):
    """The action of compiled policy ``policy`` (an id of POLICY_IDS)."""
    if policy == RANDOM:
        return random_policy(obs, mask, P, prng, b)
    if policy == NAIVE:
        return naive_policy(obs, mask, P, prng, b)
    if policy == KEEPER:
        return keeper_policy(obs, mask, P, prng, b)
    if policy == TACTICAL:
        return tactical_policy(obs, mask, P, prng, b)
    if policy == RANDOM_PLAY:
        return random_play_policy(obs, mask, P, prng, b)
    if policy == PPO:
        return shipped_policy(obs, mask, P, prng, b)
    if policy == TACTICAL_V1:
        return tactical_v1_policy(obs, mask, P, prng, b)
    return -1


@kernel
def policy_act_batch(policy, obs, mask, P, prng, out):
    """``out[b]`` = the action of ``policy`` for row b of ``obs``/``mask`` (generator ``prng[b]``)."""
    for b in range(obs.shape[0]):
        out[b] = policy_act(policy, obs[b], mask[b], P, prng, b)


@njit(inline="always")
def policy_decision(policy, cards, ints, P, b, seat, obs, mask, prng):
    """The action of compiled policy ``policy`` for the acting ``seat`` of game b, from the
    state; ``obs`` and ``mask`` are scratch. The random policies read only the mask, and
    the naive and keeper policies the few facts they need straight from the state (the
    phase; :func:`keeper_view_of_state`), so for these the observation is not written:
    the same actions as ``policy_act`` on it."""
    K.legal_mask(cards, ints, P, b, mask)
    if policy == RANDOM:
        return random_policy(obs, mask, P, prng, b)
    if policy == RANDOM_PLAY:
        return random_play_policy(obs, mask, P, prng, b)
    if policy == NAIVE:
        return naive_choice(np.int64(ints[b, S_PHASE]), mask, P)
    if policy == KEEPER:
        return keeper_choice(keeper_view_of_state(cards, ints, P, b, seat), mask, P)
    K.observe(cards, ints, P, b, seat, obs)
    return policy_act(policy, obs, mask, P, prng, b)
