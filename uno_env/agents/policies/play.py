"""Whole games of compiled policies in compiled code: :func:`play_game` (one game, the loop the
vector env's ``play``, the tournaments and the search's rollouts run) and :func:`play_batch`
(a batch of games on several threads)."""

from __future__ import annotations

import numba
import numpy as np

from ...engine import kernels as K
from ...engine.borrow import borrow
from ...engine.jit import allocating, describe, kernel
from ...engine.layout import P_NUM_ACTIONS, P_O_SIZE, PH_OVER, S_PHASE, S_ROUND
from .dispatch import policy_decision
from .threads import run_in_parts

describe(__name__, "the agents' compiled policies", seconds=30)


@kernel
def play_game(
    cards, ints, rng, prng, P, b, seat_policies, stop_at_round_end, max_steps, obs, mask, step_rw, rw, ev, evn
):
    """The compiled play loop: game b played by compiled policies (``seat_policies[seat]``)
    until its episode ends (or its round ends, or ``max_steps`` decisions). Returns the
    decisions taken, or -1 when a policy chose an action the engine refused (the game is
    as it was before that action). ``rw[b]`` accumulates the rewards; ``step_rw`` is
    scratch of the same shape, ``obs`` and ``mask`` scratch rows. The vector env's
    ``play``, :func:`play_batch` (tournaments) and the search's rollouts all run here."""
    n = seat_policies.shape[0]
    start_round = ints[b, S_ROUND]
    steps = 0
    while ints[b, S_PHASE] != PH_OVER and steps < max_steps:
        if stop_at_round_end and ints[b, S_ROUND] != start_round:
            break
        seat = np.int64(ints[b, K.S_CURRENT])  # int64: the observe compiled for Game, not a second one
        action = policy_decision(seat_policies[seat], cards, ints, P, b, seat, obs, mask, prng)
        if K.step_game(cards, ints, rng, P, b, action, step_rw, ev, evn) < 0:
            return -1
        for s in range(n):
            rw[b, s] += step_rw[b, s]
        steps += 1
    return steps


@allocating(nogil=True)
def play_batch_serial(cards, ints, rng, prng, P, seat_policies, stop_at_round_end, max_steps, rw, steps):
    """Play every game of the batch with compiled policies (``seat_policies[b, seat]``) on the
    calling thread; rewards add up in ``rw``, decisions go to ``steps`` (-1 for a game where
    a policy chose an action the engine refused). It releases the GIL: :func:`play_batch`
    runs it on several threads over parts of the batch."""
    batch = cards.shape[0]
    step_rw = np.zeros_like(rw)
    ev = np.zeros((batch, 0, 4), dtype=np.int32)
    evn = np.zeros(batch, dtype=np.int32)
    obs = np.zeros(P[P_O_SIZE], dtype=np.float32)
    mask = np.zeros(P[P_NUM_ACTIONS], dtype=np.int8)
    # only the arguments are borrowed (the caller holds them): a borrowed view of an array
    # allocated here would outlive the array, which numba frees after its last use
    cards, ints, rng = borrow(cards), borrow(ints), borrow(rng)
    prng, P, seat_policies = borrow(prng), borrow(P), borrow(seat_policies)
    rw, steps = borrow(rw), borrow(steps)
    for b in range(batch):
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


def play_batch(cards, ints, rng, prng, P, seat_policies, stop_at_round_end, max_steps, rw, steps, threads=None):
    """:func:`play_batch_serial` on ``threads`` threads (default ``numba.get_num_threads()``),
    each playing a contiguous part of the batch (:func:`run_in_parts`): the same games,
    since each game has its own rows and generators."""

    def play_part(part: slice) -> None:
        play_batch_serial(
            cards[part],
            ints[part],
            rng[part],
            prng[part],
            P,
            seat_policies[part],
            stop_at_round_end,
            max_steps,
            rw[part],
            steps[part],
        )

    run_in_parts(cards.shape[0], numba.get_num_threads() if threads is None else threads, play_part)
