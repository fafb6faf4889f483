"""``ppo``: a trained policy network, played by its numpy/numba forward pass (no torch).

``make_agent("ppo")`` is the shipped two-player policy (:data:`uno_env.neural.SHIPPED_PATH`),
a compiled policy like the heuristics (tournaments play it inside one compiled call).
``make_agent("ppo:weights=runs/NAME/policy.npz")`` plays any network written by the
training scripts (:func:`uno_env.neural.save_network`), one numba call per decision.
Both pick the legal action of highest logit, and refuse a configuration whose observation
lacks what the network reads (:meth:`uno_env.neural.Network.mismatches` says what). At
tables other than those the network was trained for (its file's ``meta["config"]``: the
shipped one, two-player hands) it still plays, and warns once per process
(:class:`TrainingMismatchWarning`) naming what it was trained on.
"""

from __future__ import annotations

import warnings

import numpy as np

from uno_env import neural
from uno_env.engine import Game, RuleConfig

from .base import Agent, CompiledAgent


class TrainingMismatchWarning(UserWarning):
    """A trained agent plays tables other than those it was trained for (it still plays)."""


PLAY_IRRELEVANT = ("max_steps", "reward", "illegal_action")
"""Settings that do not change what a legal-action policy faces."""
_WARNED: set[tuple] = set()


def training_mismatch(network: neural.Network, game: Game) -> str | None:
    """How ``game``'s settings differ from those ``network`` was trained on (None: they do
    not, or the file does not record them)."""
    trained = network.meta.get("config") if isinstance(network.meta, dict) else None
    if not isinstance(trained, dict):
        return None
    try:  # settings the file predates (the house rules) were at their defaults
        trained_config = RuleConfig.from_kwargs(**{**RuleConfig().to_dict(), **trained})
    except (TypeError, ValueError):
        return None
    here = game.config.to_dict()
    changed = [
        f"{key}={here[key]!r} (trained: {value!r})"
        for key, value in trained_config.to_dict().items()
        if key not in PLAY_IRRELEVANT and here.get(key) != value
    ]
    if not changed:
        return None
    return f"trained for {trained_config.in_words()}; here {', '.join(changed)}"


def warn_outside_training(label: str, network: neural.Network, game: Game) -> None:
    """Warn once per process per agent and difference that ``label`` plays untrained tables."""
    mismatch = training_mismatch(network, game)
    if mismatch is None or (label, mismatch) in _WARNED:
        return
    _WARNED.add((label, mismatch))
    warnings.warn(
        f"{label}: {mismatch}; it plays, but outside the tables it learned on", TrainingMismatchWarning, stacklevel=3
    )


class NetworkAgent(Agent):
    """A policy network from a weights file, played greedily over the legal actions."""

    name = "ppo"

    def __init__(self, rules: RuleConfig | Game | None = None, seed: int = 0, weights: str | None = None):
        if not weights:
            raise ValueError("NetworkAgent needs weights=PATH (a .npz written by uno_env.neural.save_network)")
        self.network = neural.load_network(weights)
        self.weights = str(weights)
        super().__init__(rules, seed)
        problems = self.network.mismatches(self.game)
        if problems:
            raise ValueError(f"ppo: the network {weights} cannot play this configuration: {'; '.join(problems)}")
        warn_outside_training(f"ppo:weights={weights}", self.network, self.game)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        obs, legal = self.check(observation, mask)
        return self.answer(neural.network_act(obs, legal, self.params, *self.network.arrays()), legal)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs, legal = self.check_batch(observations, masks)
        logits = np.empty(legal.shape, dtype=np.float32)
        neural.network_logits_batch(obs, legal, self.params, *self.network.arrays(), logits)
        return np.argmax(logits, axis=1).astype(np.int64)  # illegal actions' logits are -inf


def action_probabilities(game: Game, observation, mask, network: neural.Network | None = None, top: int = 5) -> dict:
    """The policy's probabilities of the legal actions (softmax of its masked logits), the
    ``top`` largest by action text: an annotation for game records (``Recorder.add``).
    ``network``: a loaded network (default the shipped ``ppo``). The agents play the
    most probable action."""
    network = network if network is not None else neural.SHIPPED
    if network is None:
        raise ValueError(f"no network: none shipped at {neural.SHIPPED_PATH}")
    obs = np.ascontiguousarray(observation, dtype=np.float32)
    legal = np.ascontiguousarray(mask, dtype=np.int8)
    if obs.shape != (game.observation_size,) or legal.shape != (game.num_actions,) or not legal.any():
        raise ValueError(
            f"expected an observation of shape ({game.observation_size},) and a mask of shape "
            f"({game.num_actions},) with a legal action, got {obs.shape} and {legal.shape}"
        )
    logits = np.empty(game.num_actions, dtype=np.float32)
    neural.network_logits(obs, legal, game.params, *network.arrays(), logits)
    legal_ids = np.flatnonzero(legal)
    z = logits[legal_ids].astype(np.float64)
    p = np.exp(z - z.max())
    p /= p.sum()
    order = np.argsort(-p, kind="stable")[:top]
    return {"probabilities": {game.actions.strings[int(legal_ids[k])]: round(float(p[k]), 4) for k in order}}


def make_ppo(rules: RuleConfig | Game | None = None, seed: int = 0, weights: str | None = None) -> Agent:
    """The shipped policy (compiled) without ``weights``; a :class:`NetworkAgent` with them."""
    if weights:
        return NetworkAgent(rules, seed, weights=weights)
    if neural.SHIPPED is None:
        raise ValueError(f"ppo: no shipped policy network at {neural.SHIPPED_PATH}; pass weights=PATH")
    agent = CompiledAgent("ppo", rules, seed)
    problems = neural.SHIPPED.mismatches(agent.game)
    if problems:
        raise ValueError(f"ppo: the shipped network cannot play this configuration: {'; '.join(problems)}")
    warn_outside_training("ppo", neural.SHIPPED, agent.game)
    return agent
