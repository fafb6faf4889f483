"""The batch drivers: the kernels over every game of a batch, serially or with ``prange`` over numba's threads."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..jit import describe, kernel
from ..layout import PH_OVER, S_CURRENT, S_PHASE
from .deal import reset_game
from .mask import legal_mask
from .observe import observe, observe_and_mask
from .step import SUMMARY_STATUS, SUMMARY_STATUS_BIAS, step_game, step_summary

describe(__name__, "the rules engine's kernels", seconds=45)


@kernel
def reset_batch(cards, ints, rng, P, dealers, ev, evn):
    for b in range(cards.shape[0]):
        evn[b] = 0
        reset_game(cards, ints, rng, P, b, dealers[b], False, ev, evn)


@kernel
def reset_from_deck(cards, ints, rng, P, b, dealer, ev, evn):
    evn[b] = 0
    reset_game(cards, ints, rng, P, b, dealer, True, ev, evn)


@kernel
def step_and_observe(cards, ints, rng, P, b, action, rw, ev, evn, obs, mask):
    """``step_summary``, then, if the step was taken and the game goes on, the observation and
    mask of the seat to act next (``observe_and_mask``): one call from Python for an env that
    steps and then shows the next seat its decision. Returns ``step_summary``'s integer."""
    packed = step_summary(cards, ints, rng, P, b, action, rw, ev, evn)
    taken = ((packed >> SUMMARY_STATUS[0]) & SUMMARY_STATUS[1]) >= SUMMARY_STATUS_BIAS
    if taken and ints[b, S_PHASE] != PH_OVER:
        observe_and_mask(cards, ints, P, b, np.int64(ints[b, S_CURRENT]), obs, mask)
    return packed


@kernel
def step_batch(cards, ints, rng, P, actions, rw, ev, evn, status):
    for b in range(cards.shape[0]):
        status[b] = step_game(cards, ints, rng, P, b, actions[b], rw, ev, evn)


@kernel
def mask_batch(cards, ints, P, out):
    for b in range(cards.shape[0]):
        legal_mask(cards, ints, P, b, out[b])


@kernel
def observe_batch(cards, ints, P, observers, out):
    for b in range(cards.shape[0]):
        observe(cards, ints, P, b, observers[b], out[b])


@njit(cache=True, parallel=True)
def step_parallel(cards, ints, rng, P, actions, rw, ev, evn, status):
    for b in prange(cards.shape[0]):
        status[b] = step_game(cards, ints, rng, P, b, actions[b], rw, ev, evn)
