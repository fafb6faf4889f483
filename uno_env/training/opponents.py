"""The opponent pool of ``uno train``: per episode, the learner's opponents are one kind drawn
by weight: the learner itself (``latest``), a frozen snapshot of it (``snapshot``) or an agent
of :func:`uno_env.agents.make_agent` (the compiled heuristics). Their actions are batched per
kind (and per snapshot) over the games."""

from __future__ import annotations

import numpy as np
import torch

from uno_env.agents import hash_seed, make_agent
from uno_env.engine import Game
from uno_env.training.network import ActorCritic

LEARNER_KINDS = ("latest", "snapshot")
"""The kinds of the pool that are the learner's own networks (any other kind is an agent name)."""


def parse_pool(spec: str) -> tuple[list[str], np.ndarray]:
    """``"tactical=0.4,snapshot=0.6"`` -> kinds and normalised weights."""
    kinds, weights = [], []
    for part in spec.split(","):
        name, sep, weight = part.strip().partition("=")
        if not sep:
            raise ValueError(f"--opponents: expected kind=weight, got {part!r}")
        if name in kinds:
            raise ValueError(f"--opponents: {name!r} is listed twice")
        value = float(weight)
        if value < 0:
            raise ValueError(f"--opponents: weight of {name!r} is negative")
        kinds.append(name)
        weights.append(value)
    total = sum(weights)
    if total <= 0:
        raise ValueError("--opponents: the weights add up to zero")
    return kinds, np.array(weights) / total


class OpponentPool:
    """Opponents drawn per episode: the learner itself, frozen snapshots or agents."""

    def __init__(self, spec: str, game: Game, learner: ActorCritic, hidden: int, max_snapshots: int, seed: int):
        self.kinds, self.weights = parse_pool(spec)
        self.game = game
        self.learner = learner
        self.hidden = hidden
        self.privileged = len(learner.hidden_scale) > 0
        self.guess = learner.guess is not None
        self.max_snapshots = max_snapshots
        self.snapshots: list[ActorCritic] = []
        self.agents = {}
        for k, kind in enumerate(self.kinds):
            if kind not in LEARNER_KINDS:
                self.agents[kind] = make_agent(kind, game, seed=hash_seed(seed, 101, k))

    def add_snapshot(self, state_dict: dict) -> None:
        model = ActorCritic(self.game, self.hidden, self.privileged, self.guess, self.learner.seat_order)
        model.to(next(self.learner.parameters()).device)
        model.load_state_dict(state_dict)
        model.eval()
        self.snapshots.append(model)
        del self.snapshots[: -self.max_snapshots]

    def draw(self, rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:
        """Per episode: a kind (index into ``kinds``) and a snapshot number."""
        kinds = rng.choice(len(self.kinds), size=count, p=self.weights)
        snapshots = rng.integers(0, max(len(self.snapshots), 1), size=count)
        return kinds, snapshots

    def actions(self, kinds, snapshots, obs: np.ndarray, mask: np.ndarray, device) -> np.ndarray:
        """Actions for opponent rows, batched per kind (and per snapshot)."""
        out = np.empty(len(kinds), dtype=np.int64)
        for k, kind in enumerate(self.kinds):
            rows = np.flatnonzero(kinds == k)
            if not len(rows):
                continue
            if kind in self.agents:
                out[rows] = self.agents[kind].act_batch(obs[rows], mask[rows])
                continue
            models = self.snapshots if kind == "snapshot" and self.snapshots else [self.learner]
            for s, model in enumerate(models):
                sub = rows[snapshots[rows] % len(models) == s] if len(models) > 1 else rows
                if len(sub):
                    with torch.no_grad():
                        o = torch.as_tensor(obs[sub], device=device)
                        m = torch.as_tensor(mask[sub], device=device).bool()
                        out[sub] = model.sample(o, m).cpu().numpy()
        return out
