"""How an agent is called from Python: :class:`PolicyInputs` checks what a policy is handed
(an observation and a mask of the configuration) and its answer; :class:`CompiledPolicy` is
a compiled policy of :mod:`uno_env.agents.policies` called one decision at a time, with its
own generator (the one-learner envs' compiled opponents, :class:`~uno_env.agents.CompiledAgent`)."""

from __future__ import annotations

import numpy as np

from ..engine.game import Game, seed_to_rng
from . import neural, policies


class PolicyInputs:
    """The checks of what a policy is handed, for one configuration: an observation and a
    mask as real arrays of the right shapes, the observation finite and within the
    observation space's bounds, the mask of zeros and ones allowing some action; and of
    its answer (:meth:`answer`). ValueError, prefixed with ``who``, names what is wrong."""

    def __init__(self, game: Game, who: str):
        self.game, self.who = game, who
        self.low, self.high = game.obs_spec.low, game.obs_spec.high

    def one(self, observation, mask) -> tuple[np.ndarray, np.ndarray]:
        obs, legal = self._checked(observation, mask, ())
        if not legal.any():
            raise ValueError(f"{self.who}: the mask allows no action (is the game over?)")
        return obs, legal

    def batch(self, observations, masks) -> tuple[np.ndarray, np.ndarray]:
        obs, legal = self._checked(observations, masks, None)
        if not legal.any(axis=1).all():
            raise ValueError(f"{self.who}: a mask row allows no action (is that game over?)")
        return obs, legal

    def answer(self, action: int, legal: np.ndarray) -> int:
        """``action`` when the mask allows it. A policy reads the observation too, so an
        observation and a mask that disagree (no game shows them) can lead it to an action
        the mask forbids: then the one action the mask allows, or ValueError."""
        action = int(action)
        if 0 <= action < legal.shape[0] and legal[action]:
            return action
        allowed = np.flatnonzero(legal)
        if len(allowed) == 1:
            return int(allowed[0])
        texts = ", ".join(self.game.action_to_string(int(a)) for a in allowed)
        raise ValueError(
            f"{self.who}: the observation and the mask disagree (its choice, action {action}, is not allowed by "
            f"the mask, which allows {texts})"
        )

    def _checked(self, observation, mask, batch) -> tuple[np.ndarray, np.ndarray]:
        obs = self._as_array(observation, "observation", "iuf", np.float32, self.game.observation_size, batch)
        rows = () if batch == () else (obs.shape[0],)
        legal = self._as_array(mask, "mask", "biu", np.int8, self.game.num_actions, rows)
        inside = (obs >= self.low) & (obs <= self.high)  # NaN is outside
        if not inside.all():
            bad = np.argwhere(~inside)[0]
            at = ", ".join(str(int(i)) for i in bad)
            raise ValueError(
                f"{self.who}: observation[{at}] = {obs[tuple(bad)]!r} is outside the observation space "
                f"({self.low[bad[-1]]}..{self.high[bad[-1]]}): not an observation of this configuration"
            )
        return obs, legal

    def _as_array(self, value, what: str, kinds: str, dtype, size: int, rows) -> np.ndarray:
        """``value`` as a C-contiguous array of ``dtype``: rows () for one (``(size,)``),
        (B,) for B rows, None for any number of rows (``(B, size)``)."""
        wanted = f"(B, {size})" if rows != () else f"({size},)"
        if isinstance(value, np.ma.MaskedArray) or not isinstance(value, (np.ndarray, list, tuple)):
            raise ValueError(f"{self.who}: expected the {what} as an array of shape {wanted}, got {_shown(value)}")
        try:
            array = np.asarray(value)
        except (TypeError, ValueError):
            raise ValueError(f"{self.who}: expected the {what} as an array of {wanted}, got {_shown(value)}") from None
        if array.dtype.kind not in kinds:
            raise ValueError(f"{self.who}: expected a numeric {what} ({kinds!r} dtypes), got dtype {array.dtype}")
        if array.shape != _expected_shape(array, size, rows):
            raise ValueError(f"{self.who}: expected the {what} of shape {wanted}, got {array.shape}")
        if array.dtype.kind in "iu" and kinds == "biu" and ((array < 0) | (array > 1)).any():
            values = np.unique(array)[:6].tolist()
            raise ValueError(f"{self.who}: a mask holds zeros and ones only, got values {values}")
        return np.ascontiguousarray(array, dtype=dtype)


def _expected_shape(array: np.ndarray, size: int, rows) -> tuple | None:
    """The shape ``array`` must have: ``(*rows, size)``, or with ``rows`` None ``(B, size)`` for
    any B (None: no shape fits an array that is not two-dimensional)."""
    if rows is None:
        return (array.shape[0], size) if array.ndim == 2 else None
    return (*rows, size)


def _shown(value) -> str:
    text = repr(value)
    return f"{text[:57]}... ({type(value).__name__})" if len(text) > 60 else f"{text} ({type(value).__name__})"


class CompiledPolicy:
    """A policy of ``uno_env.agents.policies`` called from Python, with its own generator.
    ``checked``: its inputs and answer go through :class:`PolicyInputs` (False where the
    caller hands it the engine's own arrays, as :class:`~uno_env.UnoGymEnv`'s play loop)."""

    def __init__(self, name: str | int, game: Game, seed: int = 0, checked: bool = True):
        self.policy_id = policies.policy_id_of(name)
        if self.policy_id == policies.PPO:
            neural.check_shipped(game)
        self.name = policies.policy_name(self.policy_id)
        self.params = game.params
        self.prng = np.array([seed_to_rng(seed)], dtype=np.uint64)
        self.inputs = PolicyInputs(game, self.name) if checked else None

    def seed(self, seed: int) -> None:
        self.prng[0] = seed_to_rng(seed)

    reset = seed

    def random_state(self) -> np.ndarray:
        """A copy of the generator state (for :meth:`set_random_state`)."""
        return self.prng.copy()

    def set_random_state(self, saved: np.ndarray) -> None:
        self.prng[:] = saved

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if self.inputs is None:
            return int(policies.policy_act(self.policy_id, observation, action_mask, self.params, self.prng, 0))
        obs, legal = self.inputs.one(observation, action_mask)
        return self.inputs.answer(policies.policy_act(self.policy_id, obs, legal, self.params, self.prng, 0), legal)

    def __repr__(self) -> str:
        return f"CompiledPolicy({self.name!r})"


__all__ = ["CompiledPolicy", "PolicyInputs"]
