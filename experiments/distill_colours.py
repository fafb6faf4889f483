"""Distil a network's colour-averaged policy into the network itself: one forward pass a decision
plays about as the 24 of ``ppo``'s averaging do.

    python -m experiments.distill_colours --num-players 4 --decisions 1200000 --epochs 10 --run-name colours4p
    python -m experiments.distill_colours --num-players 2 --episode game --run-name colours2pg   # a whole-game network
    python -m experiments.distill_colours --smoke        # seconds (what the tests run)

``ppo`` plays a trained network averaged over the 24 namings of the colours
(:func:`uno_env.agents.neural.policy_logits`), 24 forward passes a decision; the network alone
(``ppo:colours=as_seen``) wins about a point less. This script fits the network alone to the
averaged policy's probabilities; ``ppo`` plays the network it writes in one pass (its meta says
so, :func:`uno_env.agents.neural.distilled_meta`, and keeps the teacher's training configuration),
and the shipped networks are such networks where one was distilled (docs/training.md):

1. **Collect.** ``--num-envs`` games of the vector env, the averaged policy playing one seat
   (both seats of a team with partners; its moves the greedy ones ``ppo`` plays) against the
   compiled ``--opponent`` in the others, until ``--decisions`` decisions with more than one
   legal action; each keeps its observation, legal mask and the averaged log-probabilities.
2. **Fit.** The actor (``--init-from``, by default the network ``ppo`` plays at the table)
   minimises the cross-entropy to the softmax of those log-probabilities over the legal
   actions, on all but ``--holdout`` of the decisions; the held-out ones measure how often its
   greedy action is the averaged policy's, and the KL divergence, before and after each epoch.
3. **Export and measure.** ``policy.npz`` (for ``make_agent("ppo:weights=...")``; its meta:
   ``colours`` ``"distilled"``, and in ``distilled`` the teacher's file name, the held-out
   agreement and KL divergence, the teacher's own meta), then
   ``--eval-games`` hands against the opponent (the tournament's ``field`` schedule) for the
   start alone, the start averaged and the distilled network alone, on the same hands.

Outputs in ``runs/<run name>/``: ``policy.npz`` and ``summary.json``.

Record (experiments/history/training.md, "Distilling the averaging into the network"; the shipped
networks each script of ``experiments/networks/`` rebuilds end with it):

Question: fitted to its own average over the 24 namings of the colours, does the network alone
  play about as well as the average, in one forward pass instead of 24?
Seeds: ``--num-players 4 --run-name colours4p`` and ``--num-players 3 --run-name colours3p``, the
  script's ``--seed 1``; judged on 20,000 hands a seed, seeds 77-80 and 1
Machine and time: the project's 2-core machine; four players 4.6 min collecting and 4.7 min
  fitting, three players 2.4 and 4.2 min
Result: four players, seed 1: the distilled network alone 27.5% against `tactical` (the average
  28.0%, the network alone before 27.2%); the shipped files, paired against the averaged
  ones on the same hands: experiments/results/distilled.jsonl (-0.1 to -0.7 points)
Commit: recorded in the docs at 8b4fd43 (2026-12-03); the distilled files shipped at 0841acd,
  f6a86b1 and 69676e0 (2026-12-04)
"""

from __future__ import annotations

import json
import pathlib
import sys
import time
from dataclasses import asdict, dataclass

import numpy as np
import torch
from tqdm import tqdm

from uno_env.agents import hash_seed, neural
from uno_env.engine import Game
from uno_env.training.evaluate import evaluate
from uno_env.training.json_script import run_json_script
from uno_env.training.network import ActorCritic, init_from
from uno_env.training.rules import make_game_of, teacher_seats
from uno_env.vector import UnoVectorEnv


@dataclass
class Args:
    num_players: int = 4
    """players at the table"""
    rules: tuple[str, ...] = ()
    """other rule settings as KEY=VALUE (e.g. partners=true), as `uno tournament --set` takes them"""
    episode: str = "round"
    """round: single hands (reward win); game: whole games to 500 points (reward points), as the whole-game networks"""
    init_from: str = ""
    """the network to distil (a .npz network file; empty: the one `ppo` plays at this table)"""
    opponent: str = "tactical"
    """the compiled policy in every other seat, while collecting and in the evaluation"""
    decisions: int = 1_200_000
    """decisions with a choice to collect"""
    num_envs: int = 512
    """games played side by side while collecting"""
    seed: int = 1
    """seed of the games and the fit"""
    epochs: int = 10
    """passes over the collected decisions"""
    learning_rate: float = 1e-4
    """Adam's step size"""
    minibatch: int = 512
    """decisions per gradient step"""
    holdout: float = 0.1
    """share of the decisions held out of the fit"""
    eval_games: int = 20000
    """hands of each evaluation against the opponent (0: none)"""
    eval_seed: int = 77
    """seed of the evaluation's hands"""
    out_dir: str = "runs"
    """folder of the run folders"""
    run_name: str = ""
    """the run's folder name (default: colours<players>p__<seed>__<time>)"""
    progress: bool = True
    """a progress bar while collecting"""


SMOKE = dict(decisions=600, num_envs=16, epochs=2, eval_games=8, progress=False)


def collect(args: Args, game: Game, network: neural.Network) -> dict[str, np.ndarray]:
    """Observations, legal masks, averaged log-probabilities and seats of the averaged policy's decisions."""
    learner = teacher_seats(game, 0)
    seats = {s: args.opponent for s in range(game.num_players) if s not in learner}
    env = UnoVectorEnv(args.num_envs, game.config, seats=seats)
    step = env.reset(seed=hash_seed(args.seed, 1))
    arrays = network.policy_arrays(one_pass=False)  # the average over the 24 namings of the colours
    rows: dict[str, list] = {"obs": [], "mask": [], "logits": [], "seat": []}
    kept = 0
    with tqdm(total=args.decisions, desc="decisions", disable=not args.progress) as bar:
        while kept < args.decisions:
            obs, mask = np.ascontiguousarray(step.obs), np.ascontiguousarray(step.mask)
            logits = np.empty(mask.shape, dtype=np.float32)
            neural.policy_logits_batch(obs, mask, game.params, *arrays, logits)
            choice = mask.sum(axis=1) > 1
            rows["obs"].append(obs[choice])
            rows["mask"].append(mask[choice].astype(bool))
            rows["logits"].append(logits[choice])
            rows["seat"].append(step.seat[choice])
            kept += int(choice.sum())
            bar.update(int(choice.sum()))
            step = env.step(np.argmax(logits, axis=1))  # illegal actions' logits are -inf
            ended = step.terminated | step.truncated
            if ended.any():
                step = env.reset(which=ended)
    env.close()
    return {key: np.concatenate(parts)[: args.decisions] for key, parts in rows.items()}


def fit(args: Args, game: Game, path: str, network: neural.Network, data: dict) -> tuple[ActorCritic, list[dict]]:
    """Cross-entropy of the actor to the averaged policy; held-out agreement and KL per epoch."""
    torch.manual_seed(hash_seed(args.seed, 2))
    agent = ActorCritic(game, int(network.w1.shape[1]), seat_order=network.seat_order)
    init_from(agent, path, game, torch.device("cpu"))
    o, m = torch.as_tensor(data["obs"]), torch.as_tensor(data["mask"])
    target = torch.softmax(torch.as_tensor(data["logits"]), dim=1)  # -inf outside the legal actions
    log_target = torch.log(target.clamp_min(1e-30))
    best = target.argmax(dim=1)
    rng = np.random.default_rng(hash_seed(args.seed, 3))
    order = rng.permutation(len(o))
    held = torch.as_tensor(order[: int(round(len(o) * args.holdout))])
    train = order[len(held) :]

    def measure(epoch: int) -> dict:
        with torch.no_grad():
            log_p = torch.log_softmax(agent.masked_logits(o[held], m[held]), dim=1)
            kl = (target[held] * (log_target[held] - log_p.masked_fill(~m[held], 0))).sum(1).mean()
            same = (log_p.argmax(dim=1) == best[held]).float().mean()
        return {"epoch": epoch, "agreement": round(float(same), 4), "kl": round(float(kl), 4)}

    history = [measure(0)]
    optimizer = torch.optim.Adam(agent.actor.parameters(), lr=args.learning_rate)
    for epoch in range(1, args.epochs + 1):
        shuffled = train[rng.permutation(len(train))]
        for start in range(0, len(shuffled), args.minibatch):
            mb = torch.as_tensor(shuffled[start : start + args.minibatch])
            log_p = torch.log_softmax(agent.masked_logits(o[mb], m[mb]), dim=1)
            loss = -(target[mb] * log_p.masked_fill(~m[mb], 0)).sum(1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        history.append(measure(epoch))
        print(f"epoch {epoch}: held-out {history[-1]}", file=sys.stderr)
    return agent, history


def distill(args: Args) -> dict:
    if args.decisions < 1 or args.num_envs < 1:
        raise ValueError(f"--decisions and --num-envs must be positive, got {args.decisions} and {args.num_envs}")
    game = make_game_of(args)
    path = args.init_from or str(neural.shipped_path(game))
    network = neural.load_network(path)
    problems = network.mismatches(game)
    if problems:
        raise ValueError(f"the network {path} cannot play this table: {'; '.join(problems)}")
    name = args.run_name or f"colours{args.num_players}p__{args.seed}__{int(time.time())}"
    folder = pathlib.Path(args.out_dir) / name
    folder.mkdir(parents=True, exist_ok=True)
    started = time.time()
    data = collect(args, game, network)
    collected = time.time() - started
    agent, history = fit(args, game, path, network, data)
    policy = folder / "policy.npz"
    fit_figures = {"agreement": history[-1]["agreement"], "kl": history[-1]["kl"], "epochs": args.epochs}
    fit_figures["decisions"] = len(data["obs"])
    agent.export(policy, game, neural.distilled_meta(network, pathlib.Path(path).name, fit_figures))
    summary: dict = {
        "args": asdict(args),
        "network": path,
        "decisions": len(data["obs"]),
        "collect_seconds": round(collected, 1),
        "fit_seconds": round(time.time() - started - collected, 1),
        "fit": history,
    }
    if args.eval_games:
        summary["evaluation"] = {
            label: evaluate(
                pathlib.Path(network_file), game, [args.opponent], args.eval_games, args.eval_seed, colours
            )[args.opponent]
            for label, network_file, colours in (
                ("start_alone", path, "as_seen"),
                ("start_averaged", path, "average"),
                ("distilled_alone", policy, "as_seen"),
            )
        }
    (folder / "summary.json").write_text(json.dumps(summary, indent=2))
    return {"folder": str(folder), **{k: v for k, v in summary.items() if k != "args"}}


def main(argv: list[str] | None = None) -> int:
    return run_json_script("distill_colours", __doc__ or "", Args, SMOKE, distill, argv)


if __name__ == "__main__":
    sys.exit(main())
