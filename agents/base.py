"""The agent protocol: ``(observation, mask) -> action id``.

An agent is built from the rules (a :class:`~uno_env.engine.RuleConfig` or a
:class:`~uno_env.engine.Game`) and a seed, and maps the acting player's
observation vector (float32) and legal-action mask (int8) to an action id::

    agent = make_agent("tactical", RuleConfig(num_players=3), seed=1)
    action = agent(observation, mask)            # or agent.act(...)
    actions = agent.act_batch(observations, masks)  # [B, D], [B, A] -> [B]

Agents see only what the observation shows. An agent that wraps a compiled
policy of :mod:`uno_env.policies` exposes its id as ``policy_id``, so that a
tournament can play its games inside one compiled call
(:func:`uno_env.policies.play_batch`); other agents have ``policy_id = None``.
``reset(seed)`` restarts the agent's random generator (the tournament calls it
before every game, so that a game's result never depends on what was played
before it in the same process).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from uno_env import policies as policy_kernels
from uno_env.engine import Game, RuleConfig
from uno_env.engine.seeding import hash_seed, seed_to_rng
from uno_env.learner import CompiledPolicy


@runtime_checkable
class AgentProtocol(Protocol):
    """What the env, the tournament and ``uno play`` need from an agent."""

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int: ...


def as_game(rules: RuleConfig | Game | None) -> Game:
    """The :class:`Game` of a configuration (a Game is returned as it is)."""
    if rules is None:
        return Game()
    if isinstance(rules, Game):
        return rules
    if isinstance(rules, RuleConfig):
        return Game(rules)
    raise ValueError(f"an agent is built from a RuleConfig or a Game, got {type(rules).__name__}")


class Agent:
    """Base class: subclasses implement :meth:`act`; ``__call__`` is the same."""

    name = "agent"
    policy_id: int | None = None
    """Id of the compiled policy this agent plays (``uno_env.policies.POLICY_IDS``), else None."""

    def __init__(self, rules: RuleConfig | Game | None = None, seed: int = 0):
        self.game = as_game(rules)
        self.config = self.game.config
        self.params = self.game.params
        self.seed = seed
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Restart the random generator (from ``seed``, or the agent's own seed)."""
        if seed is not None:
            self.seed = seed

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        raise NotImplementedError

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return self.act(observation, mask)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions for a batch of rows (``[B, D]``, ``[B, A]`` -> ``[B]``)."""
        observations, masks = self.check_batch(observations, masks)
        return np.array([self.act(o, m) for o, m in zip(observations, masks)], dtype=np.int64)

    # ------------------------------------------------------------------ input checks
    def check(self, observation, mask) -> tuple[np.ndarray, np.ndarray]:
        """The inputs as contiguous float32 / int8 arrays of the right sizes (ValueError otherwise)."""
        obs = np.ascontiguousarray(observation, dtype=np.float32)
        legal = np.ascontiguousarray(mask, dtype=np.int8)
        if obs.shape != (self.game.observation_size,):
            raise ValueError(
                f"{self.name}: expected an observation of shape ({self.game.observation_size},), got {obs.shape}"
            )
        if legal.shape != (self.game.num_actions,):
            raise ValueError(f"{self.name}: expected a mask of shape ({self.game.num_actions},), got {legal.shape}")
        if not legal.any():
            raise ValueError(f"{self.name}: the mask allows no action (is the game over?)")
        return obs, legal

    def check_batch(self, observations, masks) -> tuple[np.ndarray, np.ndarray]:
        obs = np.ascontiguousarray(observations, dtype=np.float32)
        legal = np.ascontiguousarray(masks, dtype=np.int8)
        if obs.ndim != 2 or obs.shape[1] != self.game.observation_size:
            raise ValueError(
                f"{self.name}: expected observations of shape (B, {self.game.observation_size}), got {obs.shape}"
            )
        if legal.shape != (obs.shape[0], self.game.num_actions):
            raise ValueError(
                f"{self.name}: expected masks of shape ({obs.shape[0]}, {self.game.num_actions}), got {legal.shape}"
            )
        if not legal.any(axis=1).all():
            raise ValueError(f"{self.name}: a mask row allows no action (is that game over?)")
        return obs, legal

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, seed={self.seed!r})"


class CompiledAgent(Agent):
    """An agent that plays a compiled policy of :mod:`uno_env.policies`."""

    def __init__(self, policy: str, rules: RuleConfig | Game | None = None, seed: int = 0):
        self.policy_id = policy_kernels.policy_id_of(policy)
        self.name = policy_kernels.policy_name(self.policy_id)
        self._batch_prng = np.zeros(0, dtype=np.uint64)
        super().__init__(rules, seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._policy = CompiledPolicy(self.name, self.game, self.seed)
        self._batch_prng = np.zeros(0, dtype=np.uint64)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        obs, legal = self.check(observation, mask)
        return self._policy(obs, legal)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One compiled call for the whole batch; row b uses its own generator (seeded from
        the agent's seed and b), so a row's action does not depend on the batch size."""
        obs, legal = self.check_batch(observations, masks)
        rows = obs.shape[0]
        if len(self._batch_prng) < rows:
            start = len(self._batch_prng)
            extra = [seed_to_rng(hash_seed(self.seed, 1 + b)) for b in range(start, rows)]
            self._batch_prng = np.concatenate([self._batch_prng, np.array(extra, dtype=np.uint64)])
        out = np.empty(rows, dtype=np.int64)
        policy_kernels.policy_act_batch(self.policy_id, obs, legal, self.params, self._batch_prng, out)
        return out
