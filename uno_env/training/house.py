"""Training a network that knows the house rules (``uno train --house-mix``): one network
(:func:`uno_env.agents.neural.grow`'s layout) trained on a mix of rule settings.

Each setting of the mix (:data:`HOUSE_SETTINGS`: none, each house rule alone, all five) has
its own games (a :class:`uno_env.training.rollout.Rollout` with its own vector env and
opponents); each update collects its batch from one of them, drawn by the mix's weights from
a generator seeded by the run's seed and the update, so a resumed run draws as an unbroken one
would. The learner sees every table through a :class:`TableView`: the table's observation
mapped into the network's inputs (slices the table lacks read 0, and the rule inputs say
which house rules are on), its legal actions into the network's outputs, and the network's
choice back into the table's action. The network reads exactly what the compiled forward pass
gives it at that table (:func:`uno_env.agents.neural.read_inputs`), so the exported file plays
as it was trained.

The warm start (``--house-bc-decisions``) teaches the new outputs, the Seven-O swap's target,
to imitate ``--bc-teacher`` on its swap decisions, changing nothing else: only the swap
outputs and the input of the swap phase learn, and neither is read outside a swap decision.
"""

from __future__ import annotations

import pathlib
import sys
from typing import Any

import numpy as np
import torch
from torch import nn

from uno_env.agents import hash_seed, make_agent, neural
from uno_env.engine import Game, RuleConfig
from uno_env.engine.config import house_rules_on
from uno_env.training.network import ActorCritic, InputLayout
from uno_env.training.opponents import OpponentPool, parse_pool
from uno_env.training.rollout import Rollout
from uno_env.training.table_view import TableView
from uno_env.vector import UnoVectorEnv

HOUSE_SETTINGS: dict[str, dict[str, Any]] = {
    "off": {},
    **{name: {name: value} for name, value in house_rules_on().items()},
    "all": house_rules_on(),
}
"""The rule settings a ``--house-mix`` names: ``off`` (no house rule), each house rule alone (at
its last value: stacking ``mixed``), and ``all`` of them."""


def parse_mix(spec: str) -> tuple[list[str], np.ndarray]:
    """``"off=0.1,seven_o=0.3,all=0.6"`` -> setting names of :data:`HOUSE_SETTINGS` and
    normalised weights (ValueError naming a bad part)."""
    names, weights = parse_pool(spec.replace("--opponents", "--house-mix"))
    unknown = [name for name in names if name not in HOUSE_SETTINGS]
    if unknown:
        raise ValueError(f"--house-mix: unknown setting {unknown[0]!r}; known: {', '.join(HOUSE_SETTINGS)}")
    return names, weights


def table_config(base: RuleConfig, name: str) -> RuleConfig:
    """``base`` (the run's rules, house rules off) with the house rules of setting ``name``."""
    return base.replace(**HOUSE_SETTINGS[name])


class HouseMix:
    """The settings of a ``--house-mix`` run: per setting its game, view and rollout; :meth:`pick`
    draws the one an update collects from."""

    def __init__(self, args, base: Game, agent: ActorCritic, device, update: int):
        self.names, self.weights = parse_mix(args.house_mix)
        self.seed = args.seed
        self.games = [Game(table_config(base.config, name)) for name in self.names]
        self.rollouts = []
        for k, game in enumerate(self.games):
            pool = OpponentPool(args.opponents, game, agent, args.hidden, args.max_snapshots, hash_seed(args.seed, k))
            view = TableView(game, agent.layout)
            seed = hash_seed(args.seed, 3, update, k)
            self.rollouts.append(Rollout(args, game, agent, pool, device, seed=seed, view=view))

    def pick(self, update: int) -> tuple[str, Rollout]:
        """The setting (name) and rollout of the update after ``update`` (:func:`setting_of_update`)."""
        name = setting_of_update(self.seed, self.names, self.weights, update)
        return name, self.rollouts[self.names.index(name)]

    def trained_rules(self) -> list[dict]:
        """The house-rule settings of the mix (``meta["house_rules"]`` of the exported network)."""
        return [neural.house_rules_of(game.config) for game in self.games]


def setting_of_update(seed: int, names: list[str], weights: np.ndarray, update: int) -> str:
    """The setting the update after ``update`` collects from: drawn by the weights from a generator
    of the run's seed and the update alone, so a resumed run draws as an unbroken one."""
    return names[int(np.random.default_rng(hash_seed(seed, 12, update)).choice(len(names), p=weights))]


def rule_aware_start(path: str, num_players: int, hidden: int, seat_order: str) -> neural.Network:
    """The network a ``--house-mix`` run starts from: the file's, grown when it does not read the
    rules. Refuses a start that cannot become this run's actor: a file that is no network, cannot
    play ``num_players`` or the house rules, or has other hidden sizes or seat order (ValueError
    naming it). A checkpoint (not ``.npz``) is :func:`check_house_checkpoint`'s."""
    network = neural.load_network(path)
    if not neural.is_rule_aware(network):
        network = neural.grow(network, num_players)
    if network.seat_order != seat_order:
        raise ValueError(
            f"--init-from {path} reads the seats in {network.seat_order} order, --seat-order is {seat_order}"
        )
    size = InputLayout.rule_aware(num_players).size
    if network.w1.shape != (size, hidden) or network.w2.shape[1] != hidden:
        raise ValueError(
            f"--init-from {path}: a network of {network.w1.shape[0]} inputs and {network.w1.shape[1]} units, "
            f"this run's has {size} and {hidden} (--hidden)"
        )
    return network


def check_house_checkpoint(path: str, args) -> None:
    """A ``--house-mix`` run may start from another one's checkpoint (a new stage): of the same
    table, hidden sizes and seat order (ValueError naming what differs)."""
    if not pathlib.Path(path).is_file():
        raise ValueError(f"--init-from {path}: no such checkpoint")
    saved = torch.load(path, map_location="cpu", weights_only=False).get("args", {})
    if not saved.get("house_mix"):
        raise ValueError(f"--init-from {path}: not the checkpoint of a --house-mix run")
    for name in ("num_players", "hidden", "seat_order"):
        if saved.get(name) != getattr(args, name):
            flag, here = "--" + name.replace("_", "-"), getattr(args, name)
            raise ValueError(f"--init-from {path}: its {flag} is {saved.get(name)!r}, not {here!r}")


def init_rule_aware(agent: ActorCritic, path: str, num_players: int) -> neural.Network:
    """Start the actor from a network file: one that reads the rules as it is, any other grown
    (:func:`uno_env.agents.neural.grow`); its input scale is kept. Returns the network."""
    network = rule_aware_start(path, num_players, agent.hidden, agent.seat_order)
    linears = agent.linears()
    with torch.no_grad():
        for linear, (weight, bias) in zip(linears, ((network.w1.T, network.b1), (network.w2.T, network.b2))):
            linear.weight.copy_(torch.as_tensor(weight))
            linear.bias.copy_(torch.as_tensor(bias))
        linears[2].weight.copy_(torch.as_tensor(network.w3))
        linears[2].bias.copy_(torch.as_tensor(network.b3))
        agent.scale.copy_(torch.as_tensor(network.scale))
    return network


# ---------------------------------------------------------------------------- the warm start of the swap
def swap_decisions(args, mix: HouseMix, layout: InputLayout) -> dict[str, np.ndarray]:
    """Up to ``house_bc_decisions`` swap decisions with a choice (two or more targets: three
    players or more) of the teacher (``bc_teacher``) playing every seat, under each setting of
    the mix that has Seven-O: network inputs, masks and the teacher's outputs."""
    swap = next(b for b in layout.actions if b.name == "swap")
    rows: dict[str, list[np.ndarray]] = {"obs": [], "mask": [], "action": []}
    tables = [k for k, game in enumerate(mix.games) if game.config.seven_o and game.num_players > 2]  # a choice
    if not tables:
        return {key: np.zeros(0) for key in rows}
    quota = -(-args.house_bc_decisions // len(tables))
    for k in tables:
        game, view = mix.games[k], mix.rollouts[k].view
        assert view is not None
        teacher = make_agent(args.bc_teacher, game, seed=hash_seed(args.seed, 212, k))
        env = UnoVectorEnv(args.num_envs, game.config, seed=hash_seed(args.seed, 213, k))
        step = env.reset(seed=hash_seed(args.seed, 213, k))
        found = 0
        for _ in range(max(quota, 1000)):  # steps at most (each asks some of the games): a bound
            chosen = teacher.act_batch(step.obs, step.mask)
            mask = view.outputs(step.mask)
            legal = mask.sum(axis=1)
            asked = np.flatnonzero((legal >= 2) & (mask[:, swap.first : swap.first + swap.size].sum(axis=1) == legal))
            rows["obs"].append(view.inputs(step.obs[asked]))
            rows["mask"].append(mask[asked])
            rows["action"].append(view.output[chosen[asked]])
            found += len(asked)
            if found >= quota:
                break
            step = env.step(chosen)
    return {key: np.concatenate(value) for key, value in rows.items()}


def swap_warm_start(args, agent: ActorCritic, mix: HouseMix, device) -> dict:
    """Imitate the teacher's swap targets (cross-entropy), training only the swap outputs and the
    input of the swap phase (a copy of the network keeps every other weight as it was)."""
    layout = agent.layout
    data = swap_decisions(args, mix, layout)
    if not len(data["obs"]):
        print("house warm start: no Seven-O decision with a choice at this table", file=sys.stderr)
        return {"swap_decisions": 0}
    swap = next(b for b in layout.actions if b.name == "swap")
    phase = next(s for s in layout.inputs if s.name == "phase")
    swap_input = phase.offset + list(phase.labels or ()).index("swap")
    first, last = agent.linears()[0], agent.linears()[2]
    outputs = range(swap.first, swap.first + swap.size)
    masks = [
        (first.weight, _rows_mask(first.weight, columns=[swap_input])),
        (last.weight, _rows_mask(last.weight, rows=outputs)),
        (last.bias, _rows_mask(last.bias, rows=outputs)),
    ]
    optimizer = torch.optim.Adam([parameter for parameter, _ in masks], lr=1e-3)
    o, m, a = (torch.as_tensor(data[key], device=device) for key in ("obs", "mask", "action"))
    rng = np.random.default_rng(hash_seed(args.seed, 214))
    stats: dict = {"swap_decisions": len(o)}
    for epoch in range(max(args.bc_epochs, 1) * 4):
        correct = 0.0
        for part in np.array_split(rng.permutation(len(o)), max(len(o) // 512, 1)):
            mb = torch.as_tensor(part, device=device)
            logits = agent.masked_logits(o[mb], m[mb])
            loss = nn.functional.cross_entropy(logits, a[mb])
            optimizer.zero_grad()
            loss.backward()
            for parameter, keep in masks:
                if parameter.grad is not None:
                    parameter.grad *= keep
            optimizer.step()
            correct += float((logits.argmax(1) == a[mb]).sum())
        stats.update(swap_epoch=epoch, swap_accuracy=correct / len(o))
    print(f"house warm start: {len(o)} swap decisions, agreement {stats['swap_accuracy']:.3f}", file=sys.stderr)
    return stats


def _rows_mask(parameter: torch.Tensor, rows=(), columns=()) -> torch.Tensor:
    """1 on the given rows (outputs) and columns (inputs) of a layer's parameter, 0 elsewhere."""
    keep = torch.zeros_like(parameter)
    for r in rows:
        keep[r] = 1.0
    for c in columns:
        keep[:, c] = 1.0
    return keep
