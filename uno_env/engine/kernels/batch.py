"""The batch drivers: the kernels over every game of a batch, serially or with ``prange`` over numba's threads."""

from __future__ import annotations

from numba import njit, prange

from ..jit import describe, kernel
from .deal import reset_game
from .mask import legal_mask
from .observe import observe
from .step import step_game

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
