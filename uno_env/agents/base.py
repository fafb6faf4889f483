"""The agent protocol: ``(observation, mask) -> action id``.

An agent is built from the rules (a :class:`~uno_env.engine.RuleConfig` or a
:class:`~uno_env.engine.Game`) and a seed, and maps the acting player's
observation vector (float32) and legal-action mask (int8) to an action id::

    agent = make_agent("tactical", RuleConfig(num_players=3), seed=1)
    action = agent(observation, mask)            # or agent.act(...)
    actions = agent.act_batch(observations, masks)  # [B, D], [B, A] -> [B]

Agents see only what the observation shows. An agent that wraps a compiled
policy of :mod:`uno_env.agents.policies` exposes its id as ``policy_id``, so that a
tournament can play its games inside one compiled call
(:func:`uno_env.agents.policies.play_batch`); other agents have ``policy_id = None``.
``reset(seed)`` restarts the agent's random generator (the tournament calls it
before every game, so that a game's result never depends on what was played
before it in the same process).

Optional hooks: an agent that also defines ``observe_events(seat, events, step)``
or ``game_over(seat, outcome, scores)`` follows the whole game, not only its turns:
the play loop (``Game.play``: tournaments, ``uno play``, ``uno serve``, the
Gymnasium env's opponents) tells it every step's events as its seat saw them and
the game's end (:mod:`uno_env.engine.observers`; :class:`uno_env.agents.following.FollowingAgent`
keeps them for a subclass). Agents without them cost nothing.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from uno_env.engine import Game, RuleConfig
from uno_env.engine.seeding import check_seed, hash_seed, seed_to_rng

from . import policies as policy_kernels
from .inputs import CompiledPolicy, PolicyInputs


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
    """Id of the compiled policy this agent plays (``uno_env.agents.policies.POLICY_IDS``), else None."""
    notice: str | None = None
    """What a person seating this agent should know, in one line (``ppo`` outside the tables it
    was trained for: the text of its warning, which is given once per process), else None."""

    def __init__(self, rules: RuleConfig | Game | None = None, seed: int = 0):
        seed = check_seed(seed, f"{self.name}: seed")
        self.game = as_game(rules)
        self.config = self.game.config
        self.params = self.game.params
        self._inputs = PolicyInputs(self.game, self.name)
        self.seed = seed
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Restart the random generator (from ``seed``, or the agent's own seed). A seed that
        is not one (:func:`~uno_env.engine.seeding.check_seed`) raises ValueError and the
        agent keeps its own."""
        if seed is not None:
            self.seed = check_seed(seed, f"{self.name}: seed")

    def random_state(self):
        """A snapshot of what :meth:`reset` and :meth:`act` change (the seed, the generator),
        for :meth:`set_random_state`: an env undoing a refused call puts it back."""
        return self.seed

    def set_random_state(self, saved) -> None:
        self.seed = saved

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        raise NotImplementedError

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return self.act(observation, mask)

    def answer(self, action: int, legal: np.ndarray) -> int:
        """``action`` when the mask allows it (:meth:`uno_env.learner.PolicyInputs.answer`)."""
        return self._inputs.answer(action, legal)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions for a batch of rows (``[B, D]``, ``[B, A]`` -> ``[B]``)."""
        observations, masks = self.check_batch(observations, masks)
        return np.array([self.act(o, m) for o, m in zip(observations, masks)], dtype=np.int64)

    # ------------------------------------------------------------------ input checks
    def check(self, observation, mask) -> tuple[np.ndarray, np.ndarray]:
        """The inputs as contiguous float32 / int8 arrays of the right sizes: the observation
        real and finite within the observation space's bounds, the mask of zeros and ones
        allowing some action (ValueError naming what is wrong otherwise)."""
        return self._inputs.one(observation, mask)

    def check_batch(self, observations, masks) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`check` of a batch: ``[B, observation_size]`` and ``[B, num_actions]``."""
        return self._inputs.batch(observations, masks)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, seed={self.seed!r})"


class CompiledAgent(Agent):
    """An agent that plays a compiled policy of :mod:`uno_env.agents.policies`."""

    def __init__(self, policy: str, rules: RuleConfig | Game | None = None, seed: int = 0):
        self.policy_id = policy_kernels.policy_id_of(policy)
        self.name = policy_kernels.policy_name(self.policy_id)
        self._batch_prng = np.zeros(0, dtype=np.uint64)
        super().__init__(rules, seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._policy = CompiledPolicy(self.name, self.game, self.seed, checked=False)  # checked here
        self._batch_prng = np.zeros(0, dtype=np.uint64)

    def random_state(self):
        return self.seed, self._policy, self._policy.random_state(), self._batch_prng.copy()

    def set_random_state(self, saved) -> None:
        self.seed, self._policy, prng, self._batch_prng = saved
        self._policy.set_random_state(prng)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        obs, legal = self.check(observation, mask)
        return self.answer(self._policy(obs, legal), legal)

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
        inside = (out >= 0) & (out < legal.shape[1])
        allowed = inside & (legal[np.arange(rows), np.where(inside, out, 0)] != 0)
        for b in np.flatnonzero(~allowed):  # observation and mask disagree
            out[b] = self.answer(int(out[b]), legal[b])
        return out
