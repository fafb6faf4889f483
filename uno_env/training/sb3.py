"""Train sb3-contrib's MaskablePPO on UNO hands against a pool of opponents, in one file.

    python -m uno_env.training.sb3                                  # the defaults below
    python -m uno_env.training.sb3 --total-timesteps 100000 --num-envs 32
    python -m uno_env.training.sb3 --reward points --opponent-weights "tactical=0.5,snapshot=0.5"
    python -m uno_env.training.sb3 --num-players 4 --opponent-weights "tactical=0.8,snapshot=0.2"
    python -m uno_env.training.sb3 --num-players 4 --rules partners=true --learner-team
    tensorboard --logdir runs

Read it top to bottom: the settings (:class:`Args`), the evaluation through the
tournament runner, the callbacks, ``main``. The opponents and their pool
(:mod:`uno_env.training.sb3_pool`) and the vector env that shows SB3 only the learner's
decisions (:mod:`uno_env.training.sb3_env`) are modules beside it.

**The env.** N games run in one :class:`uno_env.vector.UnoVectorEnv` in which this
script plays every seat (``seats=None``). Each episode of each game seats the
learner at a random seat and draws each other seat's opponent from the pool
(``--opponent-weights``). SB3 sees the learner's decisions only: after the
learner's actions, the opponents' decisions are played (batched per opponent over
the games where it is that opponent's turn) until every game waits for the
learner again. The learner's reward for a step is everything its seat received
from its action up to its next decision, including what arrives while opponents
act; an episode's end gives ``done=True``, the learner's final observation in
``info["terminal_observation"]`` and the next episode's first learner observation.
At tables of more than two every other seat draws its own opponent. With partners
(``--rules partners=true``) the learner's partner is drawn from the pool and the learner
is credited its team's outcome (a partner's win is its win); with ``--learner-team`` it
plays both seats of its team, SB3 seeing their decisions as one chain per game.

**The pool.** Compiled heuristics (:func:`uno_env.agents.make_agent`: one compiled call for
all the rows of a kind) and frozen snapshots of the learner's policy (copies of its
actor, evaluated in batch on the training device with the illegal logits at -inf).
A snapshot of the initial policy is taken before training, then one every
``--snapshot-every`` rollouts; the newest ``--max-snapshots`` are kept.

**Evaluation.** Every ``--eval-every`` rollouts (and at the end) the model is saved as
a checkpoint and that file plays ``--eval-hands`` hands against each of
``--eval-opponents`` in :func:`uno_env.arena.run_tournament` (its ``field``
schedule: the model in one seat, or its team, the opponent in all the others, seats
rotated), as the agent ``sb3_policy:path=...``; win rates with 95% Wilson intervals and
their ratio to the fair share go to TensorBoard and to ``eval.csv``.

**Outputs** in ``runs/<run name>/``: ``args.json``, TensorBoard logs (``tb_1/``),
``eval.csv``, ``checkpoints/model_<steps>_steps.zip`` and ``final_model.zip``
(load with ``MaskablePPO.load``; play it with ``make_agent("sb3_policy:path=...")``
after ``register_agent("sb3_policy", make_policy_agent)``).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast

import numpy as np
import torch
import tyro
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.on_policy_algorithm import OnPolicyAlgorithm
from stable_baselines3.common.vec_env import VecMonitor
from tqdm import tqdm

from uno_env.agents import register_agent
from uno_env.arena import run_tournament
from uno_env.engine import RuleConfig
from uno_env.progress import progress_bar
from uno_env.training.rules import TEAM_NEEDS_PARTNERS, make_game
from uno_env.training.sb3_env import PoolVecEnv
from uno_env.training.sb3_pool import EVAL_AGENT, OpponentPool, make_policy_agent, one_torch_thread, parse_weights


@dataclass
class Args:
    exp_name: str = "train_sb3"
    """name of the experiment (part of the run name)"""
    seed: int = 1
    """seed of everything: games, seats and opponent draws, network initialisation, sampling"""
    device: str = "auto"
    """torch device of the learner and its snapshots: 'auto' (CUDA when present, else CPU), 'cpu', 'cuda'"""
    threads: int = 0
    """torch CPU threads of training (0: min(2, number of CPUs)); evaluation plays on one"""
    out_dir: str = "runs"
    """runs are written to OUT_DIR/<run name>/"""
    progress: bool = True
    """show a progress bar (steps/s)"""
    verbose: int = 0
    """SB3 verbosity (1 prints its tables of losses)"""

    # the game
    num_players: int = 2
    """players at the table"""
    episode: Literal["round", "game"] = "round"
    """'round' (one hand per episode) or 'game' (hands until the target score)"""
    reward: Literal["win", "points"] = "win"
    """'win' (+1 / -1 when the episode ends) or 'points' (points scored at each hand's end)"""
    rules: tuple[str, ...] = ()
    """other rule settings as KEY=VALUE (e.g. uno_call=off, partners=true), as `uno tournament --set` takes them"""
    learner_team: bool = False
    """with partners: the learner plays both seats of its team, one chain of decisions per game
    (cooperative self-play; the team's reward is credited once); otherwise its partner is drawn from the pool"""

    # PPO
    total_timesteps: int = 2_000_000
    """learner decisions to train on"""
    num_envs: int = 64
    """games played at once in the vector env"""
    n_steps: int = 128
    """learner decisions per game per rollout (a rollout is num_envs * n_steps decisions)"""
    batch_size: int = 1024
    """minibatch size of the PPO update"""
    n_epochs: int = 4
    """passes over each rollout"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    gamma: float = 0.99
    """discount factor"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    clip_range: float = 0.2
    """PPO clipping of the policy ratio"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping"""
    net_arch: tuple[int, ...] = (256, 256)
    """hidden layers of the actor and of the critic (separate networks)"""

    # the opponent pool
    opponent_weights: str = "tactical=0.4,keeper=0.1,random_play=0.1,snapshot=0.4"
    """who the learner plays, drawn per game and episode: KIND=WEIGHT pairs, KIND an agent name of
    agents.make_agent or 'snapshot' (a uniformly drawn snapshot of the pool); weights are normalised"""
    snapshot_every: int = 2
    """rollouts between snapshots of the learner added to the pool (0: only the initial one)"""
    max_snapshots: int = 10
    """snapshots kept in the pool (the oldest is dropped)"""
    snapshot_deterministic: bool = False
    """snapshots play their most likely legal action (instead of sampling one, like the learner)"""

    # evaluation
    eval_every: int = 10
    """rollouts between evaluations (each saves a checkpoint); 0: only the final one"""
    eval_hands: int = 200
    """hands against each evaluation opponent, seats rotated (0: no evaluation)"""
    eval_opponents: str = "random_play,keeper,tactical"
    """agents the policy is evaluated against (comma-separated agent specs)"""
    eval_deterministic: bool = True
    """the evaluated policy plays its most likely legal action (else it samples)"""
    eval_workers: int = 1
    """processes of the evaluation tournaments (1: in this process)"""


# ---------------------------------------------------------------------------- evaluation
def evaluate(
    model_path: Path,
    config: RuleConfig,
    opponents: list[str],
    hands: int,
    seed: int = 0,
    workers: int = 1,
    deterministic: bool = True,
) -> list[dict]:
    """Win rates of a saved model against each opponent over ``hands`` single hands at
    ``config``'s table, seats rotated, through the tournament runner's ``field`` schedule:
    the model in one seat (its team in two, with partners), the opponent in all the others."""
    if ":" in str(model_path):
        raise ValueError(f"the model path must not contain ':' (it goes into an agent spec): {model_path}")
    register_agent(EVAL_AGENT, make_policy_agent)
    spec = f"{EVAL_AGENT}:path={model_path}:deterministic={str(deterministic).lower()}"
    table = dataclasses.replace(config, episode="round")
    results = []
    for opponent in opponents:
        with one_torch_thread():
            summary, *_ = run_tournament(
                [spec, opponent], table, hands, seed=seed, schedule="field", workers=workers, bootstrap=0
            )
        cell = summary["field"][opponent]
        low, high = cell["win_rate_ci"]
        results.append(
            {
                "opponent": opponent,
                "hands": cell["games"],
                "wins": cell["wins"],
                "win_rate": cell["win_rate"],
                "win_rate_low": low,
                "win_rate_high": high,
                "ratio": cell["ratio"],
            }
        )
    return results


# ---------------------------------------------------------------------------- callbacks
class PoolCallback(BaseCallback):
    """Every ``snapshot_every`` rollouts, freeze the learner's policy into the pool. Logs per kind
    of opponent the learner's win rate in the rollout's finished episodes (``pool/win_rate_KIND``)
    and the share of its decisions made against that kind (``pool/share_KIND``)."""

    def __init__(self, env: PoolVecEnv, snapshot_every: int):
        super().__init__()
        self.env = env
        self.snapshot_every = snapshot_every
        self.rollouts = 0
        self.outcomes: dict[str, list[int]] = {}
        self.decisions: Counter[str] = Counter()

    def _on_step(self) -> bool:
        self.decisions.update(self.env.opponent_kinds)
        for done, info in zip(self.locals["dones"], self.locals["infos"]):
            if done:
                self.outcomes.setdefault(info["opponent"], []).append(info["outcome"])
        return True

    def _on_rollout_end(self) -> None:
        self.rollouts += 1
        for kind, outcomes in sorted(self.outcomes.items()):
            self.logger.record(f"pool/win_rate_{kind}", float(np.mean(np.array(outcomes) > 0)))
        total = sum(self.decisions.values())
        for kind, count in sorted(self.decisions.items()):
            self.logger.record(f"pool/share_{kind}", count / total)
        self.outcomes, self.decisions = {}, Counter()
        if self.snapshot_every and self.rollouts % self.snapshot_every == 0:
            self.env.pool.add_snapshot(self.model.policy)
        self.logger.record("pool/snapshots", len(self.env.pool.snapshots))


class EvalCallback(BaseCallback):
    """Every ``eval_every`` rollouts, save a checkpoint and evaluate it (:func:`evaluate`); the
    results go to TensorBoard (``eval/...``) and to ``eval.csv``."""

    FIELDS = (
        "timesteps",
        "rollouts",
        "seconds",
        "opponent",
        "hands",
        "wins",
        "win_rate",
        "win_rate_low",
        "win_rate_high",
        "ratio",
        "checkpoint",
    )

    def __init__(self, run_dir: Path, config: RuleConfig, args: Args):
        super().__init__()
        self.run_dir = run_dir
        self.config = config
        self.args = args
        self.opponents = [s.strip() for s in args.eval_opponents.split(",") if s.strip()]
        self.rollouts = 0
        self.start = time.perf_counter()
        self.seconds_evaluating = 0.0
        self.csv_path = run_dir / "eval.csv"
        with self.csv_path.open("w", newline="") as fh:
            csv.writer(fh).writerow(self.FIELDS)

    def _on_training_start(self) -> None:
        self.total_timesteps = self.locals["total_timesteps"]

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        self.rollouts += 1
        last = self.model.num_timesteps >= self.total_timesteps  # main evaluates the final model instead
        if self.args.eval_every and self.rollouts % self.args.eval_every == 0 and not last:
            self.evaluate()

    def evaluate(self, path: Path | None = None) -> list[dict]:
        """Evaluate the model saved at ``path`` (default: save a checkpoint now)."""
        if not self.args.eval_hands:
            return []
        if path is None:
            path = self.run_dir / "checkpoints" / f"model_{self.model.num_timesteps}_steps.zip"
            self.model.save(path)
        a = self.args
        started = time.perf_counter()
        results = evaluate(
            path, self.config, self.opponents, a.eval_hands, a.seed, a.eval_workers, a.eval_deterministic
        )
        self.seconds_evaluating += time.perf_counter() - started
        seconds = time.perf_counter() - self.start
        with self.csv_path.open("a", newline="") as fh:
            writer = csv.writer(fh)
            for r in results:
                for key in ("win_rate", "win_rate_low", "win_rate_high"):
                    self.logger.record(f"eval/{key}_{r['opponent']}", r[key])
                row = {**r, "timesteps": self.model.num_timesteps, "rollouts": self.rollouts}
                row.update(seconds=round(seconds, 1), checkpoint=path.relative_to(self.run_dir))
                writer.writerow([row[f] for f in self.FIELDS])
        text = ", ".join(
            f"{r['opponent']} {r['win_rate']:.3f} [{r['win_rate_low']:.3f}, {r['win_rate_high']:.3f}]" for r in results
        )
        tqdm.write(f"eval at {self.model.num_timesteps} steps ({seconds:.0f}s): win rate vs {text}")
        return results


class ProgressBar(BaseCallback):
    """A tqdm bar of learner decisions, with steps/s."""

    def _on_training_start(self) -> None:
        model = cast(OnPolicyAlgorithm, self.model)  # MaskablePPO: rollouts of n_steps per game
        rollout = model.n_steps * self.training_env.num_envs
        remaining = self.locals["total_timesteps"] - self.model.num_timesteps
        total = -(-remaining // rollout) * rollout  # SB3 finishes the rollout it started
        self.bar = progress_bar(total=total, unit="step", unit_scale=True, dynamic_ncols=True, smoothing=0.1)

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        return True

    def _on_training_end(self) -> None:
        self.bar.close()


# ---------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> Path:
    """Train with the settings of the command line (``argv``, default ``sys.argv``); returns the run's folder."""
    args = tyro.cli(Args, args=argv)
    torch.set_num_threads(args.threads or min(2, os.cpu_count() or 1))
    config = make_game(args).config
    if args.learner_team and not config.partners:
        raise ValueError(TEAM_NEEDS_PARTNERS)
    env_id = f"uno_{args.num_players}p_{args.episode}_{args.reward}"
    run_name = f"{env_id}__{args.exp_name}__{args.seed}__{int(time.time())}"
    run_dir = Path(args.out_dir) / run_name
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    (run_dir / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=2) + "\n")

    pool = OpponentPool(
        parse_weights(args.opponent_weights), config, args.seed, args.max_snapshots, args.snapshot_deterministic
    )
    games = PoolVecEnv(args.num_envs, config, pool, seed=args.seed, team=args.learner_team)
    env = VecMonitor(games)  # episode returns and lengths for SB3's rollout/ logs
    model = MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=args.learning_rate,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        gamma=args.gamma,
        gae_lambda=args.gae_lambda,
        clip_range=args.clip_range,
        ent_coef=args.ent_coef,
        vf_coef=args.vf_coef,
        max_grad_norm=args.max_grad_norm,
        policy_kwargs={"net_arch": list(args.net_arch)},
        tensorboard_log=str(run_dir),
        seed=args.seed,
        device=args.device,
        verbose=args.verbose,
    )
    pool.add_snapshot(model.policy)  # the initial policy: 'snapshot' opponents from the first episode on
    evaluator = EvalCallback(run_dir, config, args)
    callbacks = [PoolCallback(games, args.snapshot_every), evaluator]
    if args.progress:
        callbacks.append(ProgressBar())
    print(f"run {run_dir} on {model.device}, {torch.get_num_threads()} torch threads")
    start = time.perf_counter()
    model.learn(args.total_timesteps, callback=CallbackList(callbacks), tb_log_name="tb")
    training = time.perf_counter() - start - evaluator.seconds_evaluating
    final = run_dir / "final_model.zip"
    model.save(final)
    evaluator.evaluate(final)
    model.logger.dump(model.num_timesteps)
    steps = model.num_timesteps
    print(f"{steps} steps: {training:.0f}s training ({steps / training:.0f} steps/s), ", end="")
    print(f"{evaluator.seconds_evaluating:.0f}s evaluating; saved {final}")
    return run_dir


if __name__ == "__main__":
    main()
