"""Put `tactical`'s Seven-O knowledge into a network that knows the house rules, keeping the rest
of its play: distil the network combined with `tactical` where Seven-O changes `tactical`'s choice.

    python -m experiments.house_distill --checkpoint runs/house4p_s2/checkpoint.pt --run-name house4p_d
    uno train --init-from runs/house4p_d/checkpoint.pt ...     # PPO from the distilled network
    python -m experiments.house_distill --smoke                # seconds (what the tests run)

The teacher is the network, but where Seven-O decides (:func:`teacher_outputs`): the target of
a swap with a choice is `tactical`'s; a 7 or a 0 that `tactical` plays where `tactical_v1`
(which does not weigh the house rules) would not is played; a 7 or 0 the network would play
where `tactical` avoids the one `tactical_v1` plays gives way to the network's best other
action. Only the Seven-O part of `tactical`'s choices is taken: taking its whole choice at
each decision where it differs from `tactical_v1` taught the network `tactical`'s style there,
and it lost.
It plays the learner's seat against `tactical` in the others under each table of ``--tables``;
every learner decision is kept with the teacher's action as its target (cross-entropy; where
Seven-O decided, weighted ``--changed-weight``). The actor is fitted to them (cross-entropy,
``--changed-weight`` on the first kind), and written as a checkpoint a new ``uno train
--house-mix`` stage starts from (``--init-from``), with its ``policy.npz`` and ``summary.json``
(the held-out agreement with each kind of target, before and after, and the teacher's own win
rate in the hands it played while collecting).

Record (docs/training.md, "The networks that know the house rules"):

Question: the network playing as itself but where Seven-O changes `tactical`'s choice (the
  teacher above) won 0.2447 of four-player Seven-O hands against `tactical` (4,000 hands) where
  the network alone won 0.17-0.19, and 0.525 at two players where the network won 0.49: fitted
  to that teacher, does the network alone play as well?
Seeds: ``--seed 1``; the evaluations of docs/training.md
Machine and time: the project's 2-core machine beside the training run: minutes
Result: docs/training.md, "The networks that know the house rules"
Commit: the commit that adds this file
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import sys
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from uno_env.agents import hash_seed, make_agent, neural
from uno_env.arena.ratings import wilson_interval
from uno_env.engine import Game, RuleConfig
from uno_env.training.house import HOUSE_SETTINGS, table_config
from uno_env.training.json_script import run_json_script
from uno_env.training.network import ActorCritic, InputLayout
from uno_env.training.table_view import TableView
from uno_env.vector import UnoVectorEnv


@dataclass
class Args:
    checkpoint: str = ""
    """the checkpoint of a --house-mix run to distil (its actor and settings)"""
    tables: str = "seven_o,all"
    """the settings whose hands the teacher plays, comma-separated"""
    decisions: int = 400_000
    """learner decisions collected per table"""
    num_envs: int = 512
    """games played at once while collecting"""
    epochs: int = 4
    """passes over the decisions"""
    learning_rate: float = 1e-4
    """Adam's learning rate"""
    changed_weight: float = 4.0
    """weight of the decisions where tactical decided (their cross-entropy)"""
    holdout: float = 0.05
    """share of the decisions kept out of the fit, to measure the agreement"""
    seed: int = 1
    """seed of the games and the fit"""
    out_dir: str = "runs"
    """folder of the run folders"""
    run_name: str = "house_distilled"
    """the run folder: checkpoint.pt, policy.npz, summary.json"""
    threads: int = 1
    """torch threads"""


SMOKE = {"decisions": 2000, "num_envs": 32, "epochs": 1, "run_name": "house_distill_smoke"}


def load(args: Args) -> tuple[ActorCritic, dict, Game]:
    """The actor-critic of the checkpoint, its saved settings and the run's base table."""
    checkpoint = torch.load(args.checkpoint, map_location="cpu", weights_only=False)
    saved = checkpoint["args"]
    if not saved.get("house_mix"):
        raise ValueError(f"{args.checkpoint}: not the checkpoint of a --house-mix run")
    base = Game(RuleConfig(num_players=saved["num_players"], episode="round"))
    layout = InputLayout.rule_aware(base.num_players)
    agent = ActorCritic(base, saved["hidden"], seat_order=saved["seat_order"], layout=layout)
    agent.load_state_dict(checkpoint["agent"])
    return agent, saved, base


SWAP_FACES = {f"{colour}{rank}" for colour in "RYGB" for rank in "07"}
"""The cards that swap hands under Seven-O (R-HOUSE-SEVENO-1, R-HOUSE-SEVENO-2)."""


def swap_card_outputs(layout: InputLayout) -> np.ndarray:
    """Per output of the network: whether it plays a 7 or a 0."""
    labels = [label for b in layout.actions for label in (b.labels or ("",) * b.size)]
    return np.array([label.startswith("play ") and label.split()[1] in SWAP_FACES for label in labels])


def teacher_outputs(own, logits, mask, tactical, blind, swap_card, swap) -> tuple[np.ndarray, np.ndarray]:
    """The teacher's outputs (network outputs) and where Seven-O decided them: the target of a
    swap with a choice, `tactical`'s; a 7 or 0 `tactical` plays where `tactical_v1` would not,
    that card; a 7 or 0 the network would play where `tactical` avoids the one `tactical_v1`
    plays, the network's best other action; anywhere else the network's own."""
    swaps = mask[:, swap.first : swap.first + swap.size].sum(axis=1) == mask.sum(axis=1)
    plays = swap_card[tactical] & (tactical != blind)
    avoids = swap_card[blind] & ~swap_card[tactical] & swap_card[own]
    others = np.where(mask & ~swap_card, logits, -np.inf).argmax(axis=1)
    avoids &= np.isfinite(np.where(mask & ~swap_card, logits, -np.inf).max(axis=1))
    taken = np.where(swaps | plays, tactical, np.where(avoids, others, own))
    return taken, swaps | plays | avoids


def collect(args: Args, agent: ActorCritic, game: Game, k: int) -> dict[str, np.ndarray]:
    """The teacher's learner decisions at one table (see the module's docstring)."""
    view = TableView(game, agent.layout)
    swap = next(b for b in agent.layout.actions if b.name == "swap")
    swap_card = swap_card_outputs(agent.layout)
    tactical = make_agent("tactical", game, seed=hash_seed(args.seed, 31, k))
    blind = make_agent("tactical_v1", game, seed=hash_seed(args.seed, 32, k))
    env = UnoVectorEnv(args.num_envs, game.config, seed=hash_seed(args.seed, 33, k))
    step = env.reset(seed=hash_seed(args.seed, 33, k))
    n = game.num_players
    seat = np.arange(args.num_envs) % n
    episodes = np.zeros(args.num_envs, dtype=np.int64)
    rows: dict[str, list] = {"obs": [], "mask": [], "changed": [], "own": [], "won": []}
    found = 0
    while found < args.decisions:
        chosen = tactical.act_batch(step.obs, step.mask)
        mine = np.flatnonzero((step.seat == seat) & (step.mask.sum(axis=1) >= 2))
        if len(mine):
            obs, mask = view.inputs(step.obs[mine]), view.outputs(step.mask[mine])
            with torch.no_grad():
                logits = agent.masked_logits(torch.as_tensor(obs), torch.as_tensor(mask)).numpy()
            outputs = view.output[chosen[mine]], view.output[blind.act_batch(step.obs[mine], step.mask[mine])]
            taken, changed = teacher_outputs(logits.argmax(1), logits, mask, *outputs, swap_card, swap)
            rows["obs"].append(obs)
            rows["mask"].append(mask)
            rows["changed"].append(changed)
            rows["own"].append(taken)
            chosen[mine] = view.actions(taken)
            found += len(mine)
        step = env.step(chosen)
        for g in np.flatnonzero(step.terminated | step.truncated):
            rows["won"].append(np.array([step.info["final_outcome"][g, seat[g]] > 0]))
            episodes[g] += 1
            seat[g] = (g + episodes[g]) % n
    return {key: np.concatenate(value) for key, value in rows.items()}


def agreement(agent: ActorCritic, data: dict, rows: np.ndarray) -> dict:
    """The share of ``rows`` where the network's greedy action is the teacher's, by kind."""
    with torch.no_grad():
        logits = agent.masked_logits(torch.as_tensor(data["obs"][rows]), torch.as_tensor(data["mask"][rows]))
    same = logits.argmax(1).numpy() == data["own"][rows]
    changed = data["changed"][rows]
    return {"changed": float(same[changed].mean()), "own": float(same[~changed].mean())}


def fit(args: Args, agent: ActorCritic, data: dict) -> dict:
    """The actor fitted to the targets; the held-out agreement before and after."""
    rng = np.random.default_rng(hash_seed(args.seed, 34))
    order = rng.permutation(len(data["obs"]))
    held, train = order[: int(len(order) * args.holdout)], order[int(len(order) * args.holdout) :]
    summary = {"decisions": len(order), "changed": int(data["changed"].sum()), "before": agreement(agent, data, held)}
    o, m, a = (torch.as_tensor(data[key]) for key in ("obs", "mask", "own"))
    w = torch.as_tensor(np.where(data["changed"], args.changed_weight, 1.0).astype(np.float32))
    optimizer = torch.optim.Adam(agent.actor.parameters(), lr=args.learning_rate)
    for epoch in range(args.epochs):
        for part in np.array_split(rng.permutation(train), max(len(train) // 1024, 1)):
            mb = torch.as_tensor(part)
            losses = nn.functional.cross_entropy(agent.masked_logits(o[mb], m[mb]), a[mb], reduction="none")
            loss = (losses * w[mb]).sum() / w[mb].sum()
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.actor.parameters(), 0.5)
            optimizer.step()
        summary[f"epoch_{epoch}"] = agreement(agent, data, held)
        print(f"epoch {epoch}: held-out agreement {summary[f'epoch_{epoch}']}", file=sys.stderr)
    summary["after"] = summary[f"epoch_{args.epochs - 1}"] if args.epochs else summary["before"]
    return summary


def distil(args: Args) -> dict:
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    start = time.perf_counter()
    agent, saved, base = load(args)
    names = [s.strip() for s in args.tables.split(",") if s.strip()]
    unknown = [name for name in names if name not in HOUSE_SETTINGS]
    if unknown:
        raise ValueError(f"--tables: unknown setting {unknown[0]!r}; known: {', '.join(HOUSE_SETTINGS)}")
    parts = [collect(args, agent, Game(table_config(base.config, name)), k) for k, name in enumerate(names)]
    data = {key: np.concatenate([p[key] for p in parts]) for key in parts[0] if key != "won"}
    summary = fit(args, agent, data)
    summary["teacher"] = {name: wins_of(part["won"]) for name, part in zip(names, parts)}
    folder = pathlib.Path(args.out_dir) / args.run_name
    folder.mkdir(parents=True, exist_ok=True)
    optimizer = torch.optim.Adam(agent.parameters(), lr=saved["learning_rate"], eps=1e-5)
    state = {"agent": agent.state_dict(), "optimizer": optimizer.state_dict(), "update": 0, "global_step": 0}
    rng = np.random.default_rng(hash_seed(args.seed, 35)).bit_generator.state
    state.update(args={**saved, "run_name": args.run_name}, snapshots=[], rng=rng, torch_rng=torch.get_rng_state())
    torch.save(state, folder / "checkpoint.pt")
    mix = [neural_rules(base, name) for name in saved["house_mix"].split(",")]
    meta = {"colours": "one_pass", "house_rules": mix, "distilled_house": {"from": args.checkpoint, **summary}}
    agent.export(folder / "policy.npz", base, meta)
    summary.update(seconds=time.perf_counter() - start, args=dataclasses.asdict(args), folder=str(folder))
    (folder / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def wins_of(won: np.ndarray) -> dict:
    """The teacher's hands won against `tactical` while collecting, with its 95% Wilson interval."""
    return {"hands": len(won), "win_rate": float(won.mean()), "ci": list(wilson_interval(int(won.sum()), len(won)))}


def neural_rules(base: Game, part: str) -> dict:
    """The house-rule settings of a ``--house-mix`` part (``name=weight``)."""
    return neural.house_rules_of(table_config(base.config, part.split("=")[0]))


def main(argv: list[str] | None = None) -> int:
    return run_json_script("python -m experiments.house_distill", __doc__ or "", Args, SMOKE, distil, argv)


if __name__ == "__main__":
    sys.exit(main())
