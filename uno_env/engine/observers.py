"""The play loop's optional hooks: agents that follow the whole game, not only their turns.

An agent is called as ``agent(observation, mask) -> action`` at its own decisions. An
agent that also defines one or both of

* ``observe_events(seat, events, step)``: the events of a step (or of the reset) as
  ``seat`` saw them (:func:`uno_env.engine.events.seen_by`), and ``step``, the decisions
  taken so far in the game (0: a new game's deal; it only grows within a game);
* ``game_over(seat, outcome, scores)``: the game is over (per seat: +1 won, -1 lost, 0
  neither; the game scores);

is told by :meth:`uno_env.engine.Game.play` at every seat where it sits: first the events
already in the state when ``play`` is called (the reset's, or the step taken outside the
loop: a learner's or a person's move), then those of every step it plays, and
``game_over`` when it finds the game over. A step can be told twice (``play`` called again
with no step in between): the same ``step`` and events, which an agent ignores. Agents
without the hooks cost nothing beyond one look per ``play`` call. The state needs its event
buffer (``Game.new_state(events=True)``, the default) for the events to reach them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .events import decode, seen_by
from .layout import PH_OVER, S_PHASE, S_STEP
from .state import outcomes, scores

HOOKS = ("observe_events", "game_over")
"""The names of the optional hooks (see the module docstring)."""


def listeners(policies) -> list[tuple[int, object]]:
    """``(seat, agent)`` for each agent of ``policies`` (a sequence or a dict by seat) that
    defines a hook; empty for anything else."""
    if isinstance(policies, Mapping):
        items = list(policies.items())
    elif isinstance(policies, Sequence):
        items = list(enumerate(policies))
    else:
        return []
    return [(seat, agent) for seat, agent in items if any(hasattr(agent, hook) for hook in HOOKS)]


def tell(state, index: int, params: np.ndarray, listening: list[tuple[int, object]]) -> None:
    """Tell the ``listening`` agents the events in game ``index`` of ``state`` (those of its
    last step or reset), and that the game is over when it is."""
    ints = state.ints[index]
    events = decode(state.ev[index], state.evn[index])
    step = int(ints[S_STEP])
    for seat, agent in listening:
        observe = getattr(agent, "observe_events", None)
        if observe is not None:
            observe(seat, seen_by(events, seat), step)
    if ints[S_PHASE] == PH_OVER:
        outcome = outcomes(state.ints, params, index).tolist()
        score = scores(state.ints, params, index).tolist()
        for seat, agent in listening:
            over = getattr(agent, "game_over", None)
            if over is not None:
                over(seat, list(outcome), list(score))


def with_hooks(function, agent):
    """``function`` (a wrapper of ``agent``'s call, e.g. one that times it) with ``agent``'s
    hooks attached, so that the play loop still finds them; ``function`` itself when the
    agent has none."""
    for hook in HOOKS:
        method = getattr(agent, hook, None)
        if method is not None:
            setattr(function, hook, method)
    return function


__all__ = ["HOOKS", "listeners", "tell", "with_hooks"]
