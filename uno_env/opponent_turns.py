"""One kernel call for a step of :class:`~uno_env.UnoGymEnv` whose opponents are compiled policies.

The learner's action, then every opponent's turn until the learner must decide again (or
is out, or the game is over), then the learner's observation and mask: what the Gym
wrapper's Python play loop (``Game.play`` with :class:`~uno_env.agents.inputs.CompiledPolicy`
opponents) does, in one call. The rules are the engine's (``step_game``, ``legal_mask``,
``observe``) and the opponents' choices are ``policy_decision`` of the compiled policies,
each opponent with its own generator: the same games as the Python loop, step by step
(tests/test_gym_env.py plays both).

``generators``: slot 0 is scratch; ``slots[seat]`` is the slot of that seat's generator (an
opponent object that plays several seats has one slot for all of them, as in Python).
"""

from __future__ import annotations

import numpy as np
from numba import types

from .agents.policies.dispatch import policy_decision
from .engine import kernels as K
from .engine.entry import CARDS, COUNTS, EVENTS, INTS, MASK, OBSERVATION, PARAMS, REWARDS, RNG
from .engine.jit import describe, kernel
from .engine.layout import PH_OVER, S_CURRENT, S_PHASE
from .engine.state import is_alive

describe(__name__, "the Gym wrapper's opponent turns", seconds=40)

OPPONENT_REFUSED = -100
"""Status below which an opponent's action was refused (``OPPONENT_REFUSED - seat``):
an engine fault, since a compiled policy picks from the legal mask."""

SIGNATURE = (
    CARDS,
    INTS,
    RNG,
    PARAMS,
    types.int64,
    types.int64,
    PARAMS,  # policies: int64 ids, as the parameters are int64
    PARAMS,  # slots
    RNG,  # generators: uint64 states, as a game's generator
    REWARDS,
    EVENTS,
    COUNTS,
    OBSERVATION,
    MASK,
)
"""The one signature the Gym wrapper calls :func:`learner_turn` with."""


@kernel(nogil=True)
def learner_turn(cards, ints, rng, P, action, learner, policies, slots, generators, rewards, ev, evn, obs, mask):
    """Game 0: the learner's ``action`` (none if negative), then the opponents' turns
    (``policies[seat]``, generator ``generators[slots[seat]]``) until the learner decides, is
    out or the game is over; then the learner's observation in ``obs`` and its mask in
    ``mask`` (zeros unless it is to act). Returns (status, the learner's reward of its own
    step, its rewards of the opponents' steps): a status below 0 is a refused learner action
    (nothing changed) or, below :data:`OPPONENT_REFUSED`, an opponent's."""
    b = np.int64(0)  # game 0 typed as any game index: a literal 0 compiles every kernel it reaches anew
    status = 0
    own = 0.0
    others = 0.0
    if action >= 0:
        status = K.step_game(cards, ints, rng, P, b, action, rewards, ev, evn)
        if status < 0:
            return status, own, others
        own = np.float64(rewards[b, learner])
    while ints[b, S_PHASE] != PH_OVER:
        seat = np.int64(ints[b, S_CURRENT])
        if seat == learner or not is_alive(ints, P, b, learner):
            break
        slot = slots[seat]
        generators[b] = generators[slot]
        choice = policy_decision(policies[seat], cards, ints, P, b, seat, obs, mask, generators)
        generators[slot] = generators[b]
        if K.step_game(cards, ints, rng, P, b, choice, rewards, ev, evn) < 0:
            return OPPONENT_REFUSED - seat, own, others
        others += rewards[b, learner]
    K.observe(cards, ints, P, b, learner, obs)
    if ints[b, S_PHASE] != PH_OVER and ints[b, S_CURRENT] == learner:
        K.legal_mask(cards, ints, P, b, mask)
    else:
        mask[:] = 0
    return status, own, others


_entry = None


def learner_turn_entry():
    """The compiled entry point of :func:`learner_turn` for :data:`SIGNATURE` (loaded from
    numba's cache, or compiled, at the first call of a process); the function itself under
    ``NUMBA_DISABLE_JIT=1``."""
    global _entry
    if _entry is None:
        _entry = learner_turn.compile(SIGNATURE) if hasattr(learner_turn, "compile") else learner_turn
    return _entry


__all__ = ["OPPONENT_REFUSED", "SIGNATURE", "learner_turn", "learner_turn_entry"]
