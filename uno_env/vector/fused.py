"""Fused numba kernels of the vector env.

Every rule is the engine's: these kernels only chain :mod:`uno_env.engine.kernels`
(``step_game``, ``reset_game``, ``legal_mask``, ``observe``) and the compiled
policies of :mod:`uno_env.policies` over a batch of games, so that one call from
Python advances every game of the batch.

A *seat policy* of ``EXTERNAL`` (-1) is a seat whose actions come from the caller
(the learner, or every seat in the multi-agent vector env); any other value is a
compiled policy id played inside the kernel. After the caller's action, each game
runs on until an external seat must decide; an episode that ends on the way is
reported (final observations, outcome, length) and the game restarts at once with
its own generator continued (same-step autoreset).

Each game only touches its own rows, and every generator is per game, so the
serial and the ``prange`` drivers give identical results.

The helpers below are not cached themselves: they are compiled into the entry
points built by :func:`_build` (``uno_env.engine.numba_cache`` keeps those caches
in step with the engine's sources).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange
from numba.core import cgutils, ir_utils
from numba.extending import intrinsic

from .. import policies as PO
from ..engine import kernels as K
from ..engine.layout import (
    P_I_ALIVE,
    P_I_OUTCOME,
    P_N,
    PH_OVER,
    S_CURRENT,
    S_EPISODES,
    S_PHASE,
    S_STEP,
    S_TRUNCATED,
)

EXTERNAL = -1
"""Seat policy of a seat whose actions come from the caller."""

ERR_POLICY_REFUSED = -20
"""Status of a game where a compiled policy chose an action the engine refused."""
ERR_NO_DECISION = -21
"""Status of a game where episodes kept ending before any external seat could decide."""
MAX_EMPTY_EPISODES = 1000


# ---------------------------------------------------------------- helpers (compiled into the entry points)
@intrinsic
def borrow(typingctx, array):
    """A view of ``array`` without its reference count (a null meminfo).

    Numba increfs and decrefs every array argument on entry to and exit from each
    compiled function it calls: atomic operations on one shared counter per array,
    which cost more than the rules themselves once every helper of the engine does
    it for every game, and which every thread fights over in a parallel loop. The
    entry points below pass borrowed views instead, valid while the call lasts
    (the caller holds the arrays); nothing borrowed is stored or returned."""

    def codegen(context, builder, signature, args):
        source = context.make_array(array)(context, builder, value=args[0])
        view = context.make_array(array)(context, builder)
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        view.nitems = source.nitems
        view.itemsize = source.itemsize
        view.data = source.data
        view.shape = source.shape
        view.strides = source.strides
        return view._getvalue()

    return array(array), codegen


def _borrow_aliases(lhs, args, alias_map, arg_aliases):
    """Tell numba's alias analysis that ``borrow(a)`` is ``a``: without it, a ``prange`` loop
    that only writes into borrowed views looks dead to the parfor pass and is removed."""
    ir_utils._add_alias(lhs, args[0].name, alias_map, arg_aliases)


ir_utils.alias_func_extensions[("borrow", __name__)] = _borrow_aliases


@njit(inline="always")
def external_alive(ints, P, b, seat_policies):
    """Whether a seat played by the caller is still in the game (Challenge UNO eliminates)."""
    alive = P[P_I_ALIVE]
    for s in range(P[P_N]):  # noqa: SIM110 (numba compiles loops, not generators)
        if seat_policies[s] < 0 and ints[b, alive + s] != 0:
            return True
    return False


@njit(inline="always")
def policy_action(policy, cards, ints, P, b, seat, obs, mask, prng):
    """The action of a compiled policy for the acting seat; ``obs`` and ``mask`` are scratch.

    The random policy reads only the mask, so its observation is not written
    (the same draw as ``policy_act(RANDOM, ...)``)."""
    K.legal_mask(cards, ints, P, b, mask)
    if policy == PO.RANDOM:
        return PO.random_policy(obs, mask, P, prng, b)
    K.observe(cards, ints, P, b, seat, obs)
    return PO.policy_act(policy, obs, mask, P, prng, b)


@njit(inline="always")
def settle(
    cards,
    ints,
    rng,
    prng,
    P,
    b,
    seat_policies,
    reporting,
    rw,
    step_rw,
    ev,
    evn,
    seat_out,
    obs,
    mask,
    terminated,
    truncated,
    final_obs,
    final_steps,
    final_outcome,
):
    """Run game b on until an external seat decides, then write its seat, observation and mask.

    ``reporting``: the caller acted in this episode, so an end of it is reported
    (flags, final observations of the external seats, outcome, length) and later
    rewards are no longer added to ``rw``. An episode that ends before any external
    seat decided is skipped. Returns 0, or an error status."""
    n = P[P_N]
    empty = 0
    seat = 0
    while True:
        if ints[b, S_PHASE] == PH_OVER or not external_alive(ints, P, b, seat_policies):
            if reporting:
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
                    final_outcome[b, s] = ints[b, P[P_I_OUTCOME] + s]
                reporting = False
            else:
                empty += 1
                if empty > MAX_EMPTY_EPISODES:
                    return ERR_NO_DECISION
            evn[b] = 0
            K.reset_game(cards, ints, rng, P, b, np.int64(-1), np.bool_(False), ev, evn)
            continue
        seat = ints[b, S_CURRENT]
        policy = seat_policies[seat]
        if policy < 0:
            break
        action = policy_action(policy, cards, ints, P, b, seat, obs[b], mask[b], prng)
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


@njit(inline="always")
def step_one(
    cards,
    ints,
    rng,
    prng,
    P,
    b,
    action,
    seat_policies,
    rw,
    step_rw,
    ev,
    evn,
    status,
    seat_out,
    obs,
    mask,
    terminated,
    truncated,
    final_obs,
    final_steps,
    final_outcome,
):
    """The caller's action in game b, then ``settle``. Returns 1 when something went wrong."""
    n = P[P_N]
    for s in range(n):
        rw[b, s] = 0.0
    terminated[b] = False
    truncated[b] = False
    st = K.step_game(cards, ints, rng, P, b, action, step_rw, ev, evn)
    status[b] = st
    if st < 0:  # refused: the game is unchanged, so are its observation and mask
        return 1
    for s in range(n):
        rw[b, s] = step_rw[b, s]
    err = settle(
        cards,
        ints,
        rng,
        prng,
        P,
        b,
        seat_policies,
        True,
        rw,
        step_rw,
        ev,
        evn,
        seat_out,
        obs,
        mask,
        terminated,
        truncated,
        final_obs,
        final_steps,
        final_outcome,
    )
    if err < 0:
        status[b] = err
        return 1
    return 0


@njit(inline="always")
def reset_one(
    cards,
    ints,
    rng,
    prng,
    P,
    b,
    seat_policies,
    rw,
    step_rw,
    ev,
    evn,
    status,
    seat_out,
    obs,
    mask,
    terminated,
    truncated,
    final_obs,
    final_steps,
    final_outcome,
):
    """A new game in slot b (``Game.reset`` without a dealer), run on to the first external decision."""
    for s in range(P[P_N]):
        rw[b, s] = 0.0
    terminated[b] = False
    truncated[b] = False
    status[b] = 0
    evn[b] = 0
    K.reset_game(cards, ints, rng, P, b, np.int64(-1), np.bool_(False), ev, evn)
    err = settle(
        cards,
        ints,
        rng,
        prng,
        P,
        b,
        seat_policies,
        False,
        rw,
        step_rw,
        ev,
        evn,
        seat_out,
        obs,
        mask,
        terminated,
        truncated,
        final_obs,
        final_steps,
        final_outcome,
    )
    if err < 0:
        status[b] = err
        return 1
    return 0


MODE_STEP = 0
MODE_RESET = 1


@njit(inline="always")
def advance_one(
    mode,
    cards,
    ints,
    rng,
    prng,
    P,
    b,
    actions,
    which,
    seat_policies,
    rw,
    step_rw,
    ev,
    evn,
    status,
    seat_out,
    obs,
    mask,
    terminated,
    truncated,
    final_obs,
    final_steps,
    final_outcome,
):
    """``MODE_STEP``: the caller's ``actions[b]``; ``MODE_RESET``: a new game where ``which[b]``."""
    if mode == MODE_STEP:
        return step_one(
            cards,
            ints,
            rng,
            prng,
            P,
            b,
            actions[b],
            seat_policies,
            rw,
            step_rw,
            ev,
            evn,
            status,
            seat_out,
            obs,
            mask,
            terminated,
            truncated,
            final_obs,
            final_steps,
            final_outcome,
        )
    if which[b]:
        return reset_one(
            cards,
            ints,
            rng,
            prng,
            P,
            b,
            seat_policies,
            rw,
            step_rw,
            ev,
            evn,
            status,
            seat_out,
            obs,
            mask,
            terminated,
            truncated,
            final_obs,
            final_steps,
            final_outcome,
        )
    return 0


@njit(inline="always")
def play_one(
    cards,
    ints,
    rng,
    prng,
    P,
    b,
    seat_policies,
    max_decisions,
    max_episodes,
    totals,
    wins,
    decisions,
    episodes,
    status,
    obs,
    mask,
    step_rw,
    ev,
    evn,
):
    """Game b played by compiled policies (``seat_policies``, one per seat) for up to
    ``max_decisions`` decisions or until ``max_episodes`` more episodes ended, restarting
    finished games. Rewards add up in ``totals[b]``, won episodes in ``wins[b]``."""
    n = P[P_N]
    start_episodes = ints[b, S_EPISODES]
    done = 0
    while done < max_decisions and ints[b, S_EPISODES] - start_episodes < max_episodes:
        if ints[b, S_PHASE] == PH_OVER:
            evn[b] = 0
            K.reset_game(cards, ints, rng, P, b, np.int64(-1), np.bool_(False), ev, evn)
            continue
        seat = ints[b, S_CURRENT]
        action = policy_action(seat_policies[seat], cards, ints, P, b, seat, obs, mask, prng)
        if K.step_game(cards, ints, rng, P, b, action, step_rw, ev, evn) < 0:
            status[b] = ERR_POLICY_REFUSED
            break
        done += 1
        for s in range(n):
            totals[b, s] += step_rw[b, s]
        if ints[b, S_PHASE] == PH_OVER:
            for s in range(n):
                if ints[b, P[P_I_OUTCOME] + s] > 0:
                    wins[b, s] += 1
    decisions[b] += done
    episodes[b] += ints[b, S_EPISODES] - start_episodes


@njit(inline="always")
def sample_one(mask, P, prng, b, out):
    """A uniformly random legal action from a mask row (the random policy)."""
    out[b] = PO.random_policy(mask[b], mask[b], P, prng, b)


# ---------------------------------------------------------------- entry points
def _build():
    """The cached entry points.

    Reset and step share one entry point (``mode``): each entry point links and
    optimizes its own copy of the engine, so fewer of them compile faster.

    Why the serial and parallel kernels are twins with the same body, rather than one
    function compiled twice: numba's on-disk cache indexes a function by its source
    location and argument types, not by the ``parallel`` flag, so one function jitted
    both ways would load the other's machine code from the cache. The argument lists
    stay long for now: grouping the arrays into tuples must keep each one ``borrow``-ed
    (see above) and be benchmarked against this version, which is work for a speed
    round rather than a refactor."""

    @njit(cache=True)
    def advance_serial(
        mode,
        cards,
        ints,
        rng,
        prng,
        P,
        actions,
        which,
        seat_policies,
        rw,
        step_rw,
        ev,
        evn,
        status,
        seat_out,
        obs,
        mask,
        terminated,
        truncated,
        final_obs,
        final_steps,
        final_outcome,
    ):
        cards = borrow(cards)
        ints = borrow(ints)
        rng = borrow(rng)
        prng = borrow(prng)
        P = borrow(P)
        actions = borrow(actions)
        which = borrow(which)
        seat_policies = borrow(seat_policies)
        rw = borrow(rw)
        step_rw = borrow(step_rw)
        ev = borrow(ev)
        evn = borrow(evn)
        status = borrow(status)
        seat_out = borrow(seat_out)
        obs = borrow(obs)
        mask = borrow(mask)
        terminated = borrow(terminated)
        truncated = borrow(truncated)
        final_obs = borrow(final_obs)
        final_steps = borrow(final_steps)
        final_outcome = borrow(final_outcome)
        problems = 0
        for b in range(cards.shape[0]):
            problems += advance_one(
                mode,
                cards,
                ints,
                rng,
                prng,
                P,
                b,
                actions,
                which,
                seat_policies,
                rw,
                step_rw,
                ev,
                evn,
                status,
                seat_out,
                obs,
                mask,
                terminated,
                truncated,
                final_obs,
                final_steps,
                final_outcome,
            )
        return problems

    @njit(cache=True, parallel=True)
    def advance_parallel(
        mode,
        cards,
        ints,
        rng,
        prng,
        P,
        actions,
        which,
        seat_policies,
        rw,
        step_rw,
        ev,
        evn,
        status,
        seat_out,
        obs,
        mask,
        terminated,
        truncated,
        final_obs,
        final_steps,
        final_outcome,
    ):
        cards = borrow(cards)
        ints = borrow(ints)
        rng = borrow(rng)
        prng = borrow(prng)
        P = borrow(P)
        actions = borrow(actions)
        which = borrow(which)
        seat_policies = borrow(seat_policies)
        rw = borrow(rw)
        step_rw = borrow(step_rw)
        ev = borrow(ev)
        evn = borrow(evn)
        status = borrow(status)
        seat_out = borrow(seat_out)
        obs = borrow(obs)
        mask = borrow(mask)
        terminated = borrow(terminated)
        truncated = borrow(truncated)
        final_obs = borrow(final_obs)
        final_steps = borrow(final_steps)
        final_outcome = borrow(final_outcome)
        problems = 0
        for b in prange(cards.shape[0]):
            problems += advance_one(
                mode,
                cards,
                ints,
                rng,
                prng,
                P,
                b,
                actions,
                which,
                seat_policies,
                rw,
                step_rw,
                ev,
                evn,
                status,
                seat_out,
                obs,
                mask,
                terminated,
                truncated,
                final_obs,
                final_steps,
                final_outcome,
            )
        return problems

    @njit(cache=True)
    def play_serial(
        cards,
        ints,
        rng,
        prng,
        P,
        seat_policies,
        max_decisions,
        max_episodes,
        totals,
        wins,
        decisions,
        episodes,
        status,
        ev,
        evn,
        step_rw,
        obs_scratch,
        mask_scratch,
    ):
        cards = borrow(cards)
        ints = borrow(ints)
        rng = borrow(rng)
        prng = borrow(prng)
        P = borrow(P)
        seat_policies = borrow(seat_policies)
        totals = borrow(totals)
        wins = borrow(wins)
        decisions = borrow(decisions)
        episodes = borrow(episodes)
        status = borrow(status)
        ev = borrow(ev)
        evn = borrow(evn)
        step_rw = borrow(step_rw)
        obs = borrow(obs_scratch)[0]
        mask = borrow(mask_scratch)[0]
        for b in range(cards.shape[0]):
            play_one(
                cards,
                ints,
                rng,
                prng,
                P,
                b,
                seat_policies[b],
                max_decisions,
                max_episodes,
                totals,
                wins,
                decisions,
                episodes,
                status,
                obs,
                mask,
                step_rw,
                ev,
                evn,
            )

    @njit(cache=True, parallel=True)
    def play_parallel(
        cards,
        ints,
        rng,
        prng,
        P,
        seat_policies,
        max_decisions,
        max_episodes,
        totals,
        wins,
        decisions,
        episodes,
        status,
        ev,
        evn,
        step_rw,
        obs_scratch,
        mask_scratch,
    ):
        cards = borrow(cards)
        ints = borrow(ints)
        rng = borrow(rng)
        prng = borrow(prng)
        P = borrow(P)
        seat_policies = borrow(seat_policies)
        totals = borrow(totals)
        wins = borrow(wins)
        decisions = borrow(decisions)
        episodes = borrow(episodes)
        status = borrow(status)
        ev = borrow(ev)
        evn = borrow(evn)
        step_rw = borrow(step_rw)
        obs_scratch = borrow(obs_scratch)
        mask_scratch = borrow(mask_scratch)
        batch = cards.shape[0]
        # blocks of games, each with its own scratch row, each thread running its games
        # through all their decisions (no allocation, no synchronisation between decisions)
        blocks = obs_scratch.shape[0]
        size = (batch + blocks - 1) // blocks
        for k in prange(blocks):
            obs = obs_scratch[k]
            mask = mask_scratch[k]
            for b in range(k * size, min(batch, (k + 1) * size)):
                play_one(
                    cards,
                    ints,
                    rng,
                    prng,
                    P,
                    b,
                    seat_policies[b],
                    max_decisions,
                    max_episodes,
                    totals,
                    wins,
                    decisions,
                    episodes,
                    status,
                    obs,
                    mask,
                    step_rw,
                    ev,
                    evn,
                )

    @njit(cache=True)
    def sample_serial(mask, P, prng, out):
        mask = borrow(mask)
        P = borrow(P)
        prng = borrow(prng)
        out = borrow(out)
        for b in range(mask.shape[0]):
            sample_one(mask, P, prng, b, out)

    @njit(cache=True, parallel=True)
    def sample_parallel(mask, P, prng, out):
        mask = borrow(mask)
        P = borrow(P)
        prng = borrow(prng)
        out = borrow(out)
        for b in prange(mask.shape[0]):
            sample_one(mask, P, prng, b, out)

    return {
        "advance": (advance_serial, advance_parallel),
        "play": (play_serial, play_parallel),
        "sample": (sample_serial, sample_parallel),
    }


KERNELS = _build()
