"""The warm start of ``uno train`` (``--bc-decisions``): before PPO, the actor imitates a
teacher agent (cross-entropy over the legal actions) and the critic learns the teacher's
outcomes, from decisions of the teacher playing every seat."""

from __future__ import annotations

import sys
from typing import Protocol

import numpy as np
import torch
from torch import nn

from uno_env.agents import hash_seed, make_agent
from uno_env.engine import Game
from uno_env.training.network import ActorCritic, HiddenHands
from uno_env.vector import UnoVectorEnv

MINIBATCH = 1024
"""Decisions per gradient step of the imitation."""


class ImitationSettings(Protocol):
    """The settings of a run that its warm start reads (``uno train``'s ``Args``)."""

    bc_teacher: str
    bc_decisions: int
    bc_epochs: int
    num_envs: int
    privileged_critic: bool


def behaviour_cloning(args: ImitationSettings, game: Game, agent: ActorCritic, optimizer, device, seed: int) -> dict:
    """Imitate ``bc_teacher`` playing every seat: cross-entropy of the actor on the
    teacher's actions, squared error of the critic on the teacher's outcomes."""
    data = teacher_decisions(args, game, seed)
    return imitate(args, agent, optimizer, data, device, seed)


def teacher_decisions(args: ImitationSettings, game: Game, seed: int) -> dict[str, np.ndarray]:
    """``bc_decisions`` decisions of the teacher at every seat of ``num_envs`` games: observation,
    mask, action, the outcome of the episode for the deciding seat (its sign), whether the
    episode ended (``seen``; else no value target) and the hidden hands of a privileged critic."""
    decisions = args.bc_decisions
    teacher = make_agent(args.bc_teacher, game, seed=hash_seed(seed, 202))
    N = min(args.num_envs, decisions)
    env = UnoVectorEnv(N, game.config, seed=hash_seed(seed, 203))
    hands = HiddenHands(game) if args.privileged_critic else None
    data = {
        "obs": np.zeros((decisions, game.observation_size), dtype=np.float32),
        "mask": np.zeros((decisions, game.num_actions), dtype=bool),
        "action": np.zeros(decisions, dtype=np.int64),
        "hidden": np.zeros((decisions, hands.size if hands else 0), dtype=np.float32),
        "outcome": np.zeros(decisions, dtype=np.float32),
    }
    pending: list[list[tuple[int, int]]] = [[] for _ in range(N)]  # per game: (row, seat) of its episode
    step = env.reset(seed=hash_seed(seed, 203))
    rows = 0
    while rows < decisions:
        take = min(N, decisions - rows)
        chosen = teacher.act_batch(step.obs, step.mask)
        data["obs"][rows : rows + take] = step.obs[:take]
        data["mask"][rows : rows + take] = step.mask[:take]
        data["action"][rows : rows + take] = chosen[:take]
        if hands is not None:
            data["hidden"][rows : rows + take] = hands(env.state, np.arange(take), step.seat[:take])
        for i in range(take):
            pending[i].append((rows + i, int(step.seat[i])))
        rows += take
        step = env.step(chosen)
        for g in np.flatnonzero(step.terminated | step.truncated):
            for row, seat in pending[g]:
                data["outcome"][row] = float(np.sign(step.info["final_outcome"][g, seat]))
            pending[g] = []
    data["seen"] = np.ones(decisions, dtype=bool)
    for unfinished in pending:
        data["seen"][[row for row, _ in unfinished]] = False  # no outcome yet: no value target
    return data


def imitate(args: ImitationSettings, agent: ActorCritic, optimizer, data: dict, device, seed: int) -> dict:
    """``bc_epochs`` passes over the teacher's decisions; the last epoch's accuracy and loss."""
    decisions = args.bc_decisions
    rng = np.random.default_rng(hash_seed(seed, 204))
    o, m, a, h = (torch.as_tensor(data[key], device=device) for key in ("obs", "mask", "action", "hidden"))
    z, w = torch.as_tensor(data["outcome"], device=device), torch.as_tensor(data["seen"], device=device).float()
    stats = {}
    for epoch in range(args.bc_epochs):
        order = torch.as_tensor(rng.permutation(decisions), device=device)
        correct = total_loss = 0.0
        for start in range(0, decisions, MINIBATCH):
            mb = order[start : start + MINIBATCH]
            logits = agent.masked_logits(o[mb], m[mb])
            policy_loss = nn.functional.cross_entropy(logits, a[mb])
            value_loss = ((agent.value(o[mb], h[mb]) - z[mb]) ** 2 * w[mb]).sum() / w[mb].sum().clamp(min=1)
            loss = policy_loss + 0.5 * value_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            correct += float((logits.argmax(1) == a[mb]).sum())
            total_loss += float(loss.detach()) * len(mb)
        stats = {"bc_epoch": epoch, "bc_accuracy": correct / decisions, "bc_loss": total_loss / decisions}
        print(f"warm start epoch {epoch}: imitation accuracy {stats['bc_accuracy']:.3f}", file=sys.stderr)
    return stats
