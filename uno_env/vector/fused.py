"""Fused numba kernels of the vector env.

Every rule is the engine's: these kernels only chain :mod:`uno_env.engine.kernels`
(``step_game``, ``reset_game``, ``legal_mask``, ``observe``) and the compiled
policies of :mod:`uno_env.agents.policies` over a batch of games, so that one call from
Python advances every game of the batch.

A *seat policy* of ``EXTERNAL`` (-1) is a seat whose actions come from the caller
(the learner, or every seat in the multi-agent vector env); any other value is a
compiled policy id played inside the kernel. After the caller's action, each game
runs on until an external seat must decide; an episode that ends on the way is
reported (final observations, outcome, length) and the game restarts at once with
its own generator continued (same-step autoreset).

Each game only touches its own rows, and every generator is per game, so any split
of the batch over threads gives the results of one serial loop.

The helpers below are not cached themselves: they are compiled into the entry
points :data:`ADVANCE`, :func:`sample` and :func:`play` (``uno_env.engine.numba_cache``
keeps those caches in step with the engine's sources).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..agents import policies as policy_kernels
from ..engine import kernels as K
from ..engine.jit import describe, kernel
from ..engine.layout import (
    P_NUM_PLAYERS,
    PH_OVER,
    S_CURRENT,
    S_EPISODES,
    S_PHASE,
    S_STEP,
    S_TRUNCATED,
)
from ..engine.state import is_alive, outcome

describe(__name__, "the vector env's kernels", seconds=10)

EXTERNAL = -1
"""Seat policy of a seat whose actions come from the caller."""

ERR_POLICY_REFUSED = -20
"""Status of a game where a compiled policy chose an action the engine refused."""
ERR_NO_DECISION = -21
"""Status of a game where episodes kept ending before any external seat could decide."""
MAX_EMPTY_EPISODES = 1000


# ---------------------------------------------------------------- helpers (compiled into the entry points)
# The arrays travel in tuples. ``game`` = (cards, ints, rng, prng, P): the state, the
# policies' generators and the parameters. ``out`` = what a step writes for the caller:
#   rewards (N, n) float32: the caller's rewards since its last decision
#   step_rw (N, n) float32: scratch, the rewards of one engine step
#   ev (N, 0, 4) int32, evn (N,) int32: events (not recorded in the vector env)
#   status (N,) int8: the engine's step status, or an ERR_* of this module
#   seat (N,) int64, obs (N, O) float32, mask (N, A) int8: the next decision
#   terminated, truncated (N,) bool
#   final_obs (N or 0, E, O) float32: final observations of the external seats
#   final_steps (N,) int32, final_outcome (N, n) int8: length and outcome of the ended episode
# Each helper takes out, by index, what it reads.


@njit(inline="always")
def external_alive(ints, P, b, seat_policies):
    """Whether a seat played by the caller is still in the game (Challenge UNO eliminates)."""
    for s in range(P[P_NUM_PLAYERS]):  # noqa: SIM110 (numba compiles loops, not generators)
        if seat_policies[s] < 0 and is_alive(ints, P, b, s):
            return True
    return False


@njit(inline="always")
def report_end(game, b, seat_policies, out):
    """The flags, final observations of the external seats, length and outcome of the
    episode of game b that just ended."""
    cards, ints, P = game[0], game[1], game[4]
    terminated, truncated = out[8], out[9]
    final_obs, final_steps, final_outcome = out[10], out[11], out[12]
    n = P[P_NUM_PLAYERS]
    cut = ints[b, S_TRUNCATED] != 0
    terminated[b] = not cut
    truncated[b] = cut
    if final_obs.shape[0] > 0:
        e = 0
        for s in range(n):
            if seat_policies[s] < 0:
                K.observe(cards, ints, P, b, s, final_obs[b, e])
                e += 1
    final_steps[b] = ints[b, S_STEP]
    for s in range(n):
        final_outcome[b, s] = outcome(ints, P, b, s)


@njit(inline="always")
def settle(game, b, seat_policies, reporting, out, with_policies):
    """Run game b on until an external seat decides, then write its seat, observation and mask.

    ``reporting``: the caller acted in this episode, so an end of it is reported
    (:func:`report_end`) and later rewards are no longer added to its rewards. An
    episode that ends before any external seat decided is skipped. ``with_policies``: a
    compile-time constant, False where every seat is external, so that the compiled
    policies are not compiled in. Returns 0, or an error status."""
    cards, ints, rng = game[0], game[1], game[2]
    prng, P = game[3], game[4]
    rw, step_rw = out[0], out[1]
    ev, evn = out[2], out[3]
    seat_out, obs, mask = out[5], out[6], out[7]
    n = P[P_NUM_PLAYERS]
    empty = 0
    seat = 0
    while True:
        if ints[b, S_PHASE] == PH_OVER or not external_alive(ints, P, b, seat_policies):
            if reporting:
                report_end(game, b, seat_policies, out)
                reporting = False
            else:
                empty += 1
                if empty > MAX_EMPTY_EPISODES:
                    return ERR_NO_DECISION
            evn[b] = 0
            K.reset_game(cards, ints, rng, P, b, np.int64(-1), np.bool_(False), ev, evn)
            continue
        seat = np.int64(ints[b, S_CURRENT])  # int64: the observe compiled for Game, not a second one
        policy = seat_policies[seat]
        if policy < 0:
            break
        if not with_policies:  # pruned at compile time; never reached where every seat is external
            seat_out[b] = seat
            return ERR_POLICY_REFUSED
        action = policy_kernels.policy_decision(policy, cards, ints, P, b, seat, obs[b], mask[b], prng)
        if K.step_game(cards, ints, rng, P, b, action, step_rw, ev, evn) < 0:
            seat_out[b] = seat
            return ERR_POLICY_REFUSED
        if reporting:
            for s in range(n):
                rw[b, s] += step_rw[b, s]
    seat_out[b] = seat
    K.observe(cards, ints, P, b, seat, obs[b])
    K.legal_mask(cards, ints, P, b, mask[b])
    return 0


MODE_STEP = 0
MODE_RESET = 1


@njit(inline="always")
def advance_one(mode, game, b, actions, which, seat_policies, out, with_policies):
    """``MODE_STEP``: the caller's ``actions[b]``, then :func:`settle`; ``MODE_RESET``: a new
    game where ``which[b]`` (``Game.reset`` without a dealer), run on to the first external
    decision. Returns 1 when something went wrong (the status says what)."""
    cards, ints, rng = game[0], game[1], game[2]
    P = game[4]
    rw, step_rw = out[0], out[1]
    ev, evn, status = out[2], out[3], out[4]
    terminated, truncated = out[8], out[9]
    if mode == MODE_RESET and not which[b]:
        return 0
    n = P[P_NUM_PLAYERS]
    for s in range(n):
        rw[b, s] = 0.0
    terminated[b] = False
    truncated[b] = False
    if mode == MODE_STEP:
        st = K.step_game(cards, ints, rng, P, b, actions[b], step_rw, ev, evn)
        status[b] = st
        if st < 0:  # refused: the game is unchanged, so are its observation and mask
            return 1
        for s in range(n):
            rw[b, s] = step_rw[b, s]
    else:
        status[b] = 0
        evn[b] = 0
        K.reset_game(cards, ints, rng, P, b, np.int64(-1), np.bool_(False), ev, evn)
    err = settle(game, b, seat_policies, mode == MODE_STEP, out, with_policies)
    if err < 0:
        status[b] = err
        return 1
    return 0


@njit(inline="always")
def play_one(game, b, seat_policies, max_decisions, max_episodes, results, scratch):
    """Game b played by compiled policies (``seat_policies``, one per seat) for up to
    ``max_decisions`` decisions or until ``max_episodes`` more episodes ended, restarting
    finished games. ``results`` = (totals, wins, decisions, episodes, status): rewards add
    up in ``totals[b]``, won episodes in ``wins[b]``. ``scratch`` = (step rewards, events,
    event counts, an observation row, a mask row)."""
    cards, ints, rng = game[0], game[1], game[2]
    prng, P = game[3], game[4]
    totals, wins = results[0], results[1]
    decisions, episodes, status = results[2], results[3], results[4]
    step_rw, ev, evn = scratch[0], scratch[1], scratch[2]
    obs, mask = scratch[3], scratch[4]
    n = P[P_NUM_PLAYERS]
    start_episodes = ints[b, S_EPISODES]
    done = 0
    while done < max_decisions and ints[b, S_EPISODES] - start_episodes < max_episodes:
        if ints[b, S_PHASE] == PH_OVER:
            evn[b] = 0
            K.reset_game(cards, ints, rng, P, b, np.int64(-1), np.bool_(False), ev, evn)
            continue
        budget = max_decisions - done
        steps = policy_kernels.play_game(
            cards, ints, rng, prng, P, b, seat_policies, False, budget, obs, mask, step_rw, totals, ev, evn
        )
        if steps < 0:
            status[b] = ERR_POLICY_REFUSED
            break
        done += steps
        if ints[b, S_PHASE] == PH_OVER:
            for s in range(n):
                if outcome(ints, P, b, s) > 0:
                    wins[b, s] += 1
    decisions[b] += done
    episodes[b] += ints[b, S_EPISODES] - start_episodes


@njit(inline="always")
def sample_one(mask, P, prng, b, out):
    """A uniformly random legal action from a mask row (the random policy)."""
    out[b] = policy_kernels.random_policy(mask[b], mask[b], P, prng, b)


# ---------------------------------------------------------------- entry points
def _advance_variant(with_policies: bool):
    """The cached ``advance`` entry point (reset and step) of one variant: ``with_policies``
    (some seat is played by a compiled policy; without, the policies are not compiled in,
    which saves a third of the first compilation). It runs games ``lo`` to ``hi - 1`` on
    the calling thread and releases the GIL: the vector env's parallel path runs it on
    several threads over parts of the batch (``policies.run_in_parts``), which spares numba
    compiling a ``prange`` loop's body as a second function (docs/VECTOR.md).

    Reset and step share one entry point (``mode``): each entry point links and
    optimizes its own copy of the engine, so fewer of them compile faster. Like every
    :func:`~uno_env.engine.jit.kernel`, it compiles without reference counting: the
    arrays, in tuples that the helpers take apart by index, belong to the env.

    The variants are closures over ``variant``: numba's on-disk cache indexes a function
    by its source location, argument types and the contents of its closure cells, so each
    body names ``variant`` to be cached apart."""
    variant = with_policies

    @kernel(nogil=True)
    def advance(mode, game, actions, which, seat_policies, out, lo, hi):
        _ = variant  # noqa: F841 (a closure cell: the cache key of this variant)
        problems = 0
        for b in range(lo, hi):
            problems += advance_one(mode, game, b, actions, which, seat_policies, out, with_policies)
        return problems

    return advance


@kernel(nogil=True)
def play(game, seat_policies, max_decisions, max_episodes, results, scratch):
    """The ``play`` entry point: every game of ``game`` played by compiled policies
    (:func:`play_one`) on the calling thread. It releases the GIL: the vector env runs it
    on several threads over parts of the batch (``policies.run_in_parts``)."""
    for b in range(game[0].shape[0]):
        play_one(game, b, seat_policies[b], max_decisions, max_episodes, results, scratch)


@kernel(nogil=True)
def sample(mask, P, prng, out, lo, hi):
    """The ``sample`` entry point: a uniformly random legal action for games ``lo`` to
    ``hi - 1`` (the random policy on each mask row). It releases the GIL, as ``advance``."""
    for b in range(lo, hi):
        sample_one(mask, P, prng, b, out)


ADVANCE = (_advance_variant(False), _advance_variant(True))
"""``ADVANCE[with_policies]``: the fused reset-and-step kernels (:func:`_advance_variant`)."""
