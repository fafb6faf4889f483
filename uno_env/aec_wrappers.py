"""PettingZoo's wrappers of the AEC env (:func:`uno_env.env`), with their checks done where they
cost least: the bounds check by :func:`uno_env.engine.action_id` (``IllegalActionError``, as the
raw env raises), and the order checks with what is read at every step going straight to the
raw env (:mod:`uno_env.env`)."""

from __future__ import annotations

from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from .engine.game import action_id


class AssertOutOfBounds(wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's AssertOutOfBoundsWrapper, with the bounds check done directly: by
    :func:`uno_env.engine.action_id`, which raises ``IllegalActionError`` (not an
    AssertionError) naming what was given, as the raw env does."""

    def __init__(self, env):
        super().__init__(env)
        self._raw_env = env.unwrapped

    def step(self, action) -> None:
        raw = self._raw_env
        agent = raw.agent_selection
        if action is not None or not (raw.terminations[agent] or raw.truncations[agent]):
            action = action_id(action, raw.game.num_actions)  # the one check: IllegalActionError
        raw.step(action)


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper with the same checks; what is read at every
    step goes straight to the raw env instead of through two ``__getattr__`` forwards.
    Over our :class:`AssertOutOfBounds`, a step with an action id in range (or ``None``)
    goes straight to the raw env too: the bounds check passes it unchanged and the raw
    env's own checks are the same (one Python call layer fewer per step)."""

    def __init__(self, env):
        self._raw_env = env.unwrapped
        self._seen_updates = -1
        super().__init__(env)
        self._bounds_checked_here = type(env) is AssertOutOfBounds and env.env is self._raw_env

    @property
    def _has_updated(self) -> bool:
        """PettingZoo's flag "a step or a reset came since the agent iterator last looked",
        read from the raw env's count of steps, so that the step need not set it: once reset,
        ``step`` is the raw env's own."""
        return self._raw_env._updates != self._seen_updates

    @_has_updated.setter
    def _has_updated(self, updated: bool) -> None:
        self._seen_updates = -1 if updated else self._raw_env._updates

    def _raw_attribute(self, name: str):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw_env, name)

    agent_selection = property(lambda self: self._raw_attribute("agent_selection"))
    terminations = property(lambda self: self._raw_attribute("terminations"))
    truncations = property(lambda self: self._raw_attribute("truncations"))
    rewards = property(lambda self: self._raw_attribute("rewards"))
    infos = property(lambda self: self._raw_attribute("infos"))

    @property
    def _cumulative_rewards(self):
        return self._raw_env._cumulative_rewards

    @property
    def unwrapped(self):
        return self._raw_env

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self._raw_env.last(observe)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        super().reset(seed=seed, options=options)
        # reset once, last() has nothing left to check here: from now on it is the raw env's
        # own (an instance attribute over the method above), one Python frame fewer a decision
        self.__dict__["last"] = self._raw_env.last
        # agents, read at every step of a loop: the raw env's one list (kept across resets), as an
        # instance attribute; before the first reset PettingZoo's __getattr__ refuses it
        self.__dict__["agents"] = self._raw_env.agents
        if self._bounds_checked_here:
            # and step, the raw env's own: for an action id in range or None the bounds check
            # passes it unchanged, and the raw env checks any other action as AssertOutOfBounds
            # does (action_id's IllegalActionError), a done agent's too; the agent iterator's
            # _has_updated reads the raw env's count of steps
            self.__dict__["step"] = self._raw_env.step

    def agent_iter(self, max_iter: int = 2**63):
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _AgentIterable(self, max_iter)

    def step(self, action) -> None:
        raw = self._raw_env
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not raw.agents:
            raw._step_after_the_end(action)
            self._has_updated = True
        else:
            if self._bounds_checked_here and (
                action is None or (type(action) is int and 0 <= action < raw._num_actions)
            ):
                # AssertOutOfBounds would pass these unchanged, or (None for an agent in
                # play) raise what raw.step raises: action_id's IllegalActionError
                raw.step(action)
            else:
                self.env.step(action)
            self._has_updated = True  # after the step: a refused one changes nothing


class _AgentIterable(AECOrderEnforcingIterable):
    def __iter__(self):
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing agent iterator, reading the raw env directly."""

    def __next__(self):
        env = self.env
        raw = env._raw_env
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        return raw.agent_selection


__all__ = ["AssertOutOfBounds", "OrderEnforcing"]
