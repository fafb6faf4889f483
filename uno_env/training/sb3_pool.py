"""The opponents of the sb3 script (:mod:`uno_env.training.sb3`): frozen copies of a MaskablePPO
policy as agents (:class:`PolicyAgent`; ``sb3_policy:path=MODEL.zip`` plays a saved model), and
the pool the learner's opponents are drawn from (:class:`OpponentPool`: compiled heuristics of
:func:`uno_env.agents.make_agent` and the newest snapshots of the learner, by weight)."""

from __future__ import annotations

import contextlib
import copy
import functools
import multiprocessing

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from uno_env.agents import Agent, hash_seed, make_agent
from uno_env.engine import RuleConfig

SNAPSHOT = "snapshot"
EVAL_AGENT = "sb3_policy"


def frozen_actor(policy) -> torch.nn.Module:
    """A copy of a MaskablePPO policy's actor (observation -> one logit per action), without gradients."""
    actor = torch.nn.Sequential(
        copy.deepcopy(policy.pi_features_extractor),
        copy.deepcopy(policy.mlp_extractor.policy_net),
        copy.deepcopy(policy.action_net),
    )
    return actor.eval().requires_grad_(False)


class PolicyAgent(Agent):
    """A frozen copy of a MaskablePPO policy as an agent: the illegal logits are set to -inf,
    then the most likely action is played (``deterministic``) or one is sampled (Gumbel-max,
    from the agent's own generator)."""

    name = EVAL_AGENT

    def __init__(self, policy, rules=None, seed: int = 0, deterministic: bool = False):
        self.actor = frozen_actor(policy)
        self.device = policy.device
        self.deterministic = deterministic
        super().__init__(rules, seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.rng = np.random.default_rng(self.seed)

    @torch.no_grad()
    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs, legal = self.check_batch(observations, masks)
        logits = self.actor(torch.as_tensor(obs, device=self.device)).cpu().numpy().astype(np.float64)
        if not self.deterministic:
            logits += self.rng.gumbel(size=logits.shape)
        logits[legal == 0] = -np.inf
        return logits.argmax(axis=1)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(mask)[None])[0])


@functools.lru_cache(maxsize=4)
def load_policy(path: str):
    """The policy of a saved MaskablePPO model, on the CPU, leaving the global generators as they
    were (so that evaluating does not change training): without its saved seed, loading does not
    re-seed numpy, random and torch, and ``fork_rng`` restores torch's generators after the
    network's initial weights are drawn."""
    with torch.random.fork_rng(devices=range(torch.cuda.device_count())):
        return MaskablePPO.load(path, device="cpu", custom_objects={"seed": None}).policy


def make_policy_agent(rules=None, seed: int = 0, path: str = "", deterministic: bool = True) -> PolicyAgent:
    """Agent factory of ``sb3_policy:path=MODEL.zip[:deterministic=false]`` (see :func:`uno_env.agents.register_agent`):
    a module-level function, so tournaments can hand it to worker processes."""
    if not path:
        raise ValueError(f"{EVAL_AGENT}: give the saved model as {EVAL_AGENT}:path=MODEL.zip")
    if multiprocessing.parent_process() is not None:
        torch.set_num_threads(1)  # a tournament worker: the workers share the cores
    return PolicyAgent(load_policy(str(path)), rules, seed, deterministic)


@contextlib.contextmanager
def one_torch_thread():
    """Torch on one thread for a while. A decision at a time is a tiny forward pass: with two
    threads on a busy machine, evaluating took 16x longer (240 s instead of 15 s for 600 hands)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def parse_weights(text: str) -> dict[str, float]:
    """``"tactical=0.4,snapshot=0.6"`` -> ``{"tactical": 0.4, "snapshot": 0.6}`` (checked)."""
    weights: dict[str, float] = {}
    for part in text.split(","):
        kind, sep, value = part.strip().partition("=")
        if not sep:
            raise ValueError(f"opponent weights: expected KIND=WEIGHT, got {part!r}")
        weight = float(value)
        if weight < 0 or kind in weights:
            raise ValueError(f"opponent weights: {part!r} is negative or repeated")
        weights[kind] = weight
    if sum(weights.values()) <= 0:
        raise ValueError(f"opponent weights: no positive weight in {text!r}")
    return weights


class OpponentPool:
    """The opponents: one agent per heuristic kind and the newest snapshots of the learner,
    drawn by kind with the given weights (kinds with no member yet are skipped)."""

    def __init__(
        self,
        weights: dict[str, float],
        config: RuleConfig,
        seed: int = 0,
        max_snapshots: int = 10,
        snapshot_deterministic: bool = False,
    ):
        self.weights = weights
        self.config = config
        self.max_snapshots = max_snapshots
        self.snapshot_deterministic = snapshot_deterministic
        self.heuristics = {kind: make_agent(kind, config) for kind in weights if kind != SNAPSHOT}
        self.snapshots: list[PolicyAgent] = []
        self.snapshots_taken = 0
        self.seed(seed)

    def seed(self, seed: int) -> None:
        """Restart the heuristics' generators from ``seed``; snapshots taken from now on are seeded
        from it and their number."""
        self._seed = seed
        for k, agent in enumerate(self.heuristics.values()):
            agent.reset(hash_seed(seed, 1, k))

    def add_snapshot(self, policy) -> None:
        """Freeze a copy of ``policy`` into the pool (dropping the oldest beyond ``max_snapshots``)."""
        seed = hash_seed(self._seed, 2, self.snapshots_taken)
        snapshot = PolicyAgent(policy, self.config, seed, deterministic=self.snapshot_deterministic)
        self.snapshots_taken += 1
        self.snapshots = (self.snapshots + [snapshot])[-self.max_snapshots :]

    def draw(self, rng: np.random.Generator) -> tuple[str, Agent]:
        """(kind, agent) of one opponent."""
        kinds = [k for k in self.weights if k != SNAPSHOT or self.snapshots]
        weights = np.array([self.weights[k] for k in kinds])
        if weights.sum() <= 0:
            raise ValueError("the opponent pool is empty: give a heuristic a weight or add a snapshot")
        kind = kinds[rng.choice(len(kinds), p=weights / weights.sum())]
        if kind == SNAPSHOT:
            return kind, self.snapshots[rng.integers(len(self.snapshots))]
        return kind, self.heuristics[kind]
