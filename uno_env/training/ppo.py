"""Masked PPO with self-play and an opponent pool on the UNO vector env, in one file.

    uno train                                    # the defaults below: two-player hands, 20M decisions
    uno train --smoke                            # a few thousand steps, seconds (what the tests run)
    uno train --total-timesteps 2000000 --bc-decisions 0 --seed 3    # no warm start
    uno train --resume runs/NAME/checkpoint.pt   # continue a run where its checkpoint left it

Read it top to bottom, like CleanRL's ``ppo.py``: the settings (:class:`Args`), the PPO
update, the steps of a run, :func:`train` and ``main``. What the training scripts share
is library code beside it: the networks (:mod:`uno_env.training.network`), the opponent
pool (:mod:`~uno_env.training.opponents`), the rollout (:mod:`~uno_env.training.rollout`),
the warm start (:mod:`~uno_env.training.imitation`), the evaluation
(:mod:`~uno_env.training.evaluate`), ``progress.csv`` (:mod:`~uno_env.training.progress`)
and the curve (:mod:`~uno_env.training.plot`).

**The rollout.** N games run in one :class:`uno_env.vector.UnoVectorEnv` in which
this script plays every seat. Each episode of each game seats the learner at a
random seat and draws its opponent from the pool (``--opponents``, weights per
kind). At every vector step the learner's rows go through the learner network and
the opponents' rows through theirs, batched per kind on the same device (compiled
heuristics in one compiled call, snapshots in one torch forward each), then all N
games advance by one decision. A learner transition runs from one of its decisions
to its next one (or the episode's end): its reward is everything the learner's seat
received in between, including what arrives while opponents act, so rewards are
credited to the seat that earned them. Transitions still open when a batch is full
wait for the next batch.

**The pool** (``--opponents "tactical=0.5,keeper=0.1,random_play=0.05,snapshot=0.25,latest=0.1"``):
``latest`` is the learner itself (sampled actions, no gradient), ``snapshot`` a
frozen copy of the learner taken every ``--snapshot-every`` updates (the newest
``--max-snapshots`` are kept; before the first one, ``latest`` plays), any other
name an agent of :func:`uno_env.agents.make_agent` (the compiled heuristics).

**Warm start** (``--bc-decisions``): before PPO, the actor imitates ``--bc-teacher``
(cross-entropy over the legal actions) and the critic learns the teacher's
outcomes, from that many decisions of the teacher playing every seat.
``--init-from FILE.npz`` starts instead from a policy network file (a shipped network,
or a run's ``policy.npz``) as it plays at this run's table and rules
(:func:`uno_env.agents.neural.transplant`), with a new critic that learns alone for the first
``--critic-warmup`` updates.

**Outputs** in ``runs/<run name>/``: ``progress.csv`` (one row per update: losses,
speed, the shares of wall time in the env's steps, the opponents' policies, the
learner's forward passes and the PPO update, training and evaluation win rates),
TensorBoard logs, ``checkpoint.pt`` (resumable), ``policy.npz`` (the actor for
``make_agent("ppo:weights=...")``, no torch needed) and ``curve.png``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import tyro
from torch import nn
from tqdm import tqdm

from uno_env.agents import hash_seed, neural, parse_agent_spec
from uno_env.engine import Game
from uno_env.progress import progress_bar
from uno_env.training.evaluate import evaluate
from uno_env.training.house import (
    HOUSE_SETTINGS,
    HouseMix,
    check_house_checkpoint,
    init_rule_aware,
    parse_mix,
    rule_aware_start,
    swap_warm_start,
    table_config,
)
from uno_env.training.imitation import behaviour_cloning
from uno_env.training.network import ActorCritic, InputLayout, check_init_from, init_from
from uno_env.training.opponents import LEARNER_KINDS, OpponentPool, parse_pool
from uno_env.training.plot import plot_curve
from uno_env.training.progress import ProgressCsv
from uno_env.training.rollout import Rollout, Transitions
from uno_env.training.rules import TEAM_NEEDS_PARTNERS, make_game


@dataclass
class Args:
    exp_name: str = "ppo_masked"
    """name of the experiment (part of the run name)"""
    seed: int = 1
    """seed of everything: games, opponent draws, network initialisation"""
    num_players: int = 2
    """players at the table"""
    episode: str = "round"
    """'round' (one hand per episode) or 'game' (hands until the target score)"""
    reward: str = "win"
    """'win' (+1 / -1 when the episode ends), 'points' (points scored at each hand's end) or
    'margin' (at each hand's end, the points the seat scored minus the mean its opponents
    scored, per 100 points: zero-sum, so a hand lost with high cards in hand costs)"""
    rules: tuple[str, ...] = ()
    """other rule settings as KEY=VALUE (e.g. uno_call=off, partners=true), as `uno tournament --set` takes them"""
    learner_team: bool = False
    """with partners: the learner plays both seats of its team (cooperative self-play); otherwise
    one seat, its partner drawn from the pool like the other seats"""
    total_timesteps: int = 20_000_000
    """learner decisions to train on"""
    stop_after_update: int = 0
    """end the run after this update (0: run until total_timesteps); resumed runs count on"""
    num_envs: int = 256
    """games played at once"""
    batch_size: int = 16384
    """learner transitions per PPO update"""
    num_minibatches: int = 4
    """minibatches per epoch"""
    update_epochs: int = 3
    """passes over each batch"""
    learning_rate: float = 2.5e-4
    """Adam learning rate"""
    anneal_lr: bool = True
    """decay the learning rate linearly to 0"""
    gamma: float = 0.995
    """discount per learner decision"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    clip_coef: float = 0.2
    """PPO clipping of the probability ratio"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping"""
    target_kl: float | None = None
    """stop an update's epochs once the approximate KL exceeds this"""
    hidden: int = 256
    """units in each of the two hidden layers (actor and critic)"""
    privileged_critic: bool = False
    """the critic also sees every other seat's hand (an asymmetric actor-critic: training only;
    the actor, and so the exported policy, sees the observation alone)"""
    seat_order: str = "clockwise"
    """how the actor and critic read the observation's per-seat slices: 'clockwise' (as the env
    gives them) or 'play' (in the order of play: the next player's entries first whichever way
    play runs; recorded in the exported network file, uno_env.agents.neural.SEAT_ORDERS)"""
    hand_guess: float = 0.0
    """weight of an auxiliary loss (0: none): a head on the actor's last hidden layer guesses
    which colours each other seat holds (binary cross-entropy against the true hands), so that
    the actor's hidden layers learn to read what the observation says about the hands; training
    only, the exported policy has no such head"""
    opponents: str = "tactical=0.5,keeper=0.1,random_play=0.05,snapshot=0.25,latest=0.1"
    """opponent pool: kind=weight, kinds are latest, snapshot or agent names"""
    snapshot_every: int = 10
    """updates between frozen snapshots of the learner"""
    max_snapshots: int = 8
    """snapshots kept in the pool (oldest dropped)"""
    bc_decisions: int = 500_000
    """warm start: decisions of the teacher to imitate before PPO (0: none)"""
    bc_teacher: str = "tactical"
    """warm start: the agent imitated"""
    bc_epochs: int = 4
    """warm start: passes over the teacher's decisions"""
    eval_every: int = 25
    """updates between evaluations (0: only at the end)"""
    eval_games: int = 1000
    """hands per evaluation opponent (seat-rotated)"""
    eval_opponents: str = "random_play,keeper,tactical"
    """agents the evaluation plays against, comma-separated"""
    checkpoint_every: int = 25
    """updates between checkpoints"""
    resume: str | None = None
    """checkpoint to continue from (its settings win, except total_timesteps)"""
    init_from: str | None = None
    """start of this run instead of a warm start (fresh optimizer, this run's settings): a checkpoint
    (checkpoint.pt: both networks), or a policy network file (.npz, e.g. uno_env/data/ppo_4p.npz: the
    actor, carried over to this table and rules as it plays them; a new critic, see critic_warmup)"""
    critic_warmup: int = 0
    """updates at the start that train only the critic (the actor stays as it started): for a start
    from a network file, whose critic is new"""
    house_mix: str = ""
    """train a network that knows the house rules on a mix of settings (empty: the run's rules
    alone): setting=weight, settings off, stacking, seven_o, jump_in, draw_until_playable,
    force_play and all (uno_env.training.house); needs --init-from (a network file, grown to read
    the rules when it does not, or the checkpoint of such a run: a new stage) or --resume, and
    agents only in --opponents"""
    house_bc_decisions: int = 0
    """with --house-mix: Seven-O swap decisions of --bc-teacher that the new swap outputs imitate
    before PPO (0: none)"""
    eval_house: str = "seven_o,all"
    """with --house-mix: the settings each evaluation plays, comma-separated"""
    device: str = "auto"
    """'auto' (CUDA when present, else CPU), 'cpu' or 'cuda'"""
    threads: int = 0
    """torch threads (0: one per core, at most 4)"""
    out_dir: str = "runs"
    """folder of the run folders"""
    run_name: str | None = None
    """name of the run folder (default: env, experiment, seed and time)"""
    progress: bool = True
    """show a progress bar"""
    tensorboard: bool = True
    """write TensorBoard logs"""


SMOKE: dict[str, Any] = dict(
    total_timesteps=4096,
    num_envs=32,
    batch_size=1024,
    num_minibatches=2,
    update_epochs=2,
    hidden=64,
    snapshot_every=1,
    eval_every=2,
    eval_games=20,
    checkpoint_every=2,
    bc_decisions=2000,
    bc_epochs=1,
    exp_name="smoke",
)
"""``--smoke``: settings of a run of seconds that exercises every part."""


# ---------------------------------------------------------------------------- PPO update
def ppo_update(
    args: Args, agent: ActorCritic, optimizer, buffer: Transitions, device, rng, critic_only: bool = False
) -> dict:
    """One PPO update on the batch; ``critic_only``: the value loss alone (the actor is kept)."""
    index, adv, returns = buffer.advantages(args.gamma, args.gae_lambda)
    batch = {
        "obs": buffer.obs[index],
        "hidden": buffer.hidden[index],
        "mask": buffer.mask[index],
        "action": buffer.action[index],
        "old_logp": buffer.logp[index],
        "old_value": buffer.value[index],
        "advantages": adv,
        "returns": returns,
    }
    tensors = {key: torch.as_tensor(value, device=device) for key, value in batch.items()}
    stats = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "clipfrac": 0.0}
    guessing = agent.guess is not None and not critic_only
    if guessing:
        stats["hand_guess_loss"] = 0.0
    count = 0
    for _ in range(args.update_epochs):
        for part in np.array_split(rng.permutation(len(index)), args.num_minibatches):
            mb = torch.as_tensor(part, device=device)
            losses = minibatch_losses(args, agent, {key: t[mb] for key, t in tensors.items()}, critic_only, guessing)
            optimizer.zero_grad()
            losses["loss"].backward()
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()
            for key in stats:
                stats[key] += float(losses[key].detach())
            count += 1
        if args.target_kl is not None and float(losses["approx_kl"]) > args.target_kl:
            break
    stats = {k: v / max(count, 1) for k, v in stats.items()}
    y, pred = returns, buffer.value[index]
    stats["explained_variance"] = float(1 - np.var(y - pred) / np.var(y)) if np.var(y) > 0 else float("nan")
    return stats


def minibatch_losses(args: Args, agent: ActorCritic, mb: dict, critic_only: bool, guessing: bool) -> dict:
    """The losses of one minibatch (tensors of :func:`ppo_update`'s batch): the clipped policy
    loss, the clipped value loss, the entropy, the hand guess's loss, and ``loss``, what the
    step minimises; with the approximate KL and the share of clipped ratios."""
    logp, entropy, value = agent.evaluate(mb["obs"], mb["mask"], mb["action"], mb["hidden"])
    log_ratio = logp - mb["old_logp"]
    ratio = log_ratio.exp()
    with torch.no_grad():
        approx_kl = ((ratio - 1) - log_ratio).mean()
        clipfrac = ((ratio - 1.0).abs() > args.clip_coef).float().mean()
    advantages = mb["advantages"]
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    policy_loss = torch.max(
        -advantages * ratio, -advantages * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
    ).mean()
    old_value, returns = mb["old_value"], mb["returns"]
    clipped = old_value + torch.clamp(value - old_value, -args.clip_coef, args.clip_coef)
    value_loss = 0.5 * torch.max((value - returns) ** 2, (clipped - returns) ** 2).mean()
    loss = args.vf_coef * value_loss
    if not critic_only:
        loss = loss + policy_loss - args.ent_coef * entropy.mean()
    losses = {"policy_loss": policy_loss, "value_loss": value_loss, "entropy": entropy.mean()}
    losses.update(approx_kl=approx_kl, clipfrac=clipfrac)
    if guessing:
        losses["hand_guess_loss"] = guess_loss = agent.guess_loss(mb["obs"], mb["hidden"])
        loss = loss + args.hand_guess * guess_loss
    losses["loss"] = loss
    return losses


# ---------------------------------------------------------------------------- settings
def resumed(args: Args) -> tuple[Args, dict | None]:
    """The run's settings and the checkpoint it continues (``--resume``; None without): a resumed
    run takes the checkpoint's settings, except how long it runs and whether it shows progress."""
    if not args.resume:
        return args, None
    checkpoint = torch.load(args.resume, map_location="cpu", weights_only=False)
    saved = checkpoint["args"]
    saved["total_timesteps"], saved["resume"] = args.total_timesteps, args.resume
    saved["progress"], saved["stop_after_update"] = args.progress, args.stop_after_update
    saved["rules"] = tuple(saved.get("rules", ()))
    return Args(**saved), checkpoint


def check_args(args: Args, game: Game | None = None) -> None:
    """Refuse bad settings before anything is written (ValueError naming the setting)."""
    if args.learner_team and game is not None and not game.config.partners:
        raise ValueError(TEAM_NEEDS_PARTNERS)
    check_counts(args)
    check_agents(args)
    if args.critic_warmup < 0:
        raise ValueError(f"--critic-warmup must be >= 0, got {args.critic_warmup}")
    if args.seat_order not in neural.SEAT_ORDERS:
        raise ValueError(f"--seat-order must be one of {', '.join(neural.SEAT_ORDERS)}, got {args.seat_order!r}")
    if not args.hand_guess >= 0 or not np.isfinite(args.hand_guess):
        raise ValueError(f"--hand-guess must be a finite weight >= 0, got {args.hand_guess}")
    if args.house_mix:
        check_house(args)
    elif args.init_from and game is not None:
        check_init_from(args.init_from, game, args.hidden, args.seat_order)


def check_house(args: Args) -> None:
    """The settings of a ``--house-mix`` run (ValueError naming the problem)."""
    parse_mix(args.house_mix)
    unknown = [name for name in house_evaluations(args) if name not in HOUSE_SETTINGS]
    if unknown:
        raise ValueError(f"--eval-house: unknown setting {unknown[0]!r}; known: {', '.join(HOUSE_SETTINGS)}")
    if not (args.init_from or args.resume):
        raise ValueError("--house-mix starts from a network: pass --init-from FILE.npz (e.g. uno_env/data/ppo_4p.npz)")
    if args.privileged_critic or args.hand_guess > 0:
        raise ValueError("--house-mix: no --privileged-critic and no --hand-guess (a network that reads the rules)")
    if args.house_bc_decisions < 0:
        raise ValueError(f"--house-bc-decisions must be >= 0, got {args.house_bc_decisions}")
    learners = [kind for kind in parse_pool(args.opponents)[0] if kind in LEARNER_KINDS]
    if learners:
        raise ValueError(f"--house-mix plays agents only: drop {', '.join(learners)} from --opponents")
    if args.init_from and not args.resume and args.init_from.endswith(".npz"):
        rule_aware_start(args.init_from, args.num_players, args.hidden, args.seat_order)
    elif args.init_from and not args.resume:
        check_house_checkpoint(args.init_from, args)


def house_evaluations(args: Args) -> list[str]:
    """The settings each evaluation of a ``--house-mix`` run plays (``--eval-house``)."""
    return [s.strip() for s in args.eval_house.split(",") if s.strip()] if args.house_mix else []


def check_counts(args: Args) -> None:
    positive = ("total_timesteps", "num_envs", "batch_size", "num_minibatches", "update_epochs", "hidden")
    for name in positive + ("snapshot_every", "max_snapshots", "checkpoint_every"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
    if args.eval_every < 0 or args.bc_decisions < 0 or args.eval_games < 2:
        raise ValueError("--eval-every and --bc-decisions must be >= 0 and --eval-games >= 2")


def check_agents(args: Args) -> None:
    """The agents of the pool, of the evaluation and of the warm start exist and take their options."""
    for kind in parse_pool(args.opponents)[0]:
        if kind not in LEARNER_KINDS:
            parse_agent_spec(kind)
    for spec in eval_opponents(args):
        parse_agent_spec(spec)
    parse_agent_spec(args.bc_teacher)


def eval_opponents(args: Args) -> list[str]:
    return [s.strip() for s in args.eval_opponents.split(",") if s.strip()]


def run_name(args: Args) -> str:
    return args.run_name or f"uno{args.num_players}p_{args.episode}__{args.exp_name}__{args.seed}__{int(time.time())}"


def select_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name not in ("cpu", "cuda"):
        raise ValueError(f"--device must be auto, cpu or cuda, got {name!r}")
    return torch.device(name)


# ---------------------------------------------------------------------------- the run
@dataclass
class Learner:
    """What training changes and a checkpoint keeps: the networks, their optimizer, the
    generator of the minibatches, and the updates and learner decisions so far."""

    agent: ActorCritic
    optimizer: torch.optim.Optimizer
    rng: np.random.Generator
    update: int = 0
    global_step: int = 0


@dataclass
class Run:
    """A training run: its settings, rules and folder, the learner, its games and its logs."""

    args: Args
    game: Game
    folder: pathlib.Path
    device: torch.device
    learner: Learner
    rollout: Rollout
    progress: ProgressCsv
    writer: Any  # TensorBoard's SummaryWriter, or None
    mix: HouseMix | None = None  # the settings of a --house-mix run (rollout: the last update's)


def start_run(args: Args) -> Run:
    """Check the settings, make the run's folder (``args.json``), its learner, opponents and
    games, and start ``progress.csv`` and the TensorBoard logs."""
    args, checkpoint = resumed(args)
    device = select_device(args.device)
    game = make_game(args)
    check_args(args, game)
    torch.set_num_threads(args.threads or min(os.cpu_count() or 1, 4))
    torch.manual_seed(args.seed)
    args.run_name = run_name(args)
    folder = pathlib.Path(args.out_dir) / args.run_name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=2))
    learner = start_learner(args, game, device, checkpoint)
    mix = None
    if args.house_mix:
        mix = HouseMix(args, game, learner.agent, device, learner.update)
        if checkpoint is None and args.house_bc_decisions > 0:
            swap_warm_start(args, learner.agent, mix, device)
        rollout = mix.rollouts[0]
    else:
        pool = OpponentPool(args.opponents, game, learner.agent, args.hidden, args.max_snapshots, args.seed)
        for state in checkpoint["snapshots"] if checkpoint is not None else []:
            pool.add_snapshot(state)
        rollout = Rollout(args, game, learner.agent, pool, device, seed=hash_seed(args.seed, 3, learner.update))
    writer = tensorboard_writer(args, folder)
    columns = progress_columns(args, rollout.pool.kinds)
    progress = ProgressCsv(folder / "progress.csv", columns, learner.update if checkpoint is not None else None)
    return Run(args, game, folder, device, learner, rollout, progress, writer, mix)


def start_learner(args: Args, game: Game, device, checkpoint: dict | None) -> Learner:
    """The networks and their optimizer as the run starts: as the checkpoint left them, from
    ``--init-from``, warm-started by imitation (``--bc-decisions``), or fresh."""
    layout = InputLayout.rule_aware(game.num_players) if args.house_mix else None
    agent = ActorCritic(game, args.hidden, args.privileged_critic, args.hand_guess > 0, args.seat_order, layout)
    agent.to(device)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    learner = Learner(agent, optimizer, np.random.default_rng(hash_seed(args.seed, 1)))
    if checkpoint is not None:
        agent.load_state_dict(checkpoint["agent"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        learner.update, learner.global_step = checkpoint["update"], checkpoint["global_step"]
        learner.rng.bit_generator.state = checkpoint["rng"]
        torch.set_rng_state(checkpoint["torch_rng"])
    elif args.init_from and args.house_mix and args.init_from.endswith(".npz"):
        init_rule_aware(agent, args.init_from, game.num_players)
    elif args.init_from:
        init_from(agent, args.init_from, game, device)
    elif args.bc_decisions > 0:
        behaviour_cloning(args, game, agent, optimizer, device, args.seed)
    return learner


def tensorboard_writer(args: Args, folder: pathlib.Path):
    if not args.tensorboard:
        return None
    from torch.utils.tensorboard import SummaryWriter  # optional: TensorBoard, of the train extra

    writer = SummaryWriter(str(folder))
    writer.add_text("args", "\n".join(f"{k}: {v}" for k, v in dataclasses.asdict(args).items()))
    return writer


def progress_columns(args: Args, kinds: list[str]) -> list[str]:
    columns = ["update", "global_step", "seconds", "steps_per_second", "env_share", "opponent_share"]
    columns += ["policy_share", "update_share", "learning_rate"]
    columns += ["policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac", "explained_variance"]
    columns += ["hand_guess_loss"] if args.hand_guess > 0 else []
    columns += ["house_setting"] if args.house_mix else []
    columns += [f"train_vs_{k}" for k in kinds]
    for cell in evaluation_cells(args):
        columns += [f"eval_{cell}_win_rate", f"eval_{cell}_lo", f"eval_{cell}_hi"]
    return columns


def evaluation_cells(args: Args) -> list[str]:
    """The names of the evaluation's cells: an opponent, or ``setting_opponent`` in a ``--house-mix`` run."""
    if args.house_mix:
        return [f"{setting}_{opp}" for setting in house_evaluations(args) for opp in eval_opponents(args)]
    return eval_opponents(args)


def one_update(run: Run, start: float) -> tuple[dict, int]:
    """Collect a batch and update on it; returns its row of ``progress.csv`` (speed, the shares
    of wall time, losses, training win rates) and the learner decisions it took."""
    args, learner, rollout = run.args, run.learner, run.rollout
    optimizer = learner.optimizer
    if args.anneal_lr:
        total_updates = max(args.total_timesteps // args.batch_size, 1)
        optimizer.param_groups[0]["lr"] = args.learning_rate * max(1.0 - learner.update / total_updates, 0.05)
    setting = None
    if run.mix is not None:
        setting, rollout = run.mix.pick(learner.update)
        run.rollout = rollout
    t0 = time.perf_counter()
    env0, opponent0, policy0 = rollout.env_seconds, rollout.opponent_seconds, rollout.policy_seconds
    decisions = rollout.collect()
    t1 = time.perf_counter()
    critic_only = learner.update < args.critic_warmup
    stats = ppo_update(args, learner.agent, optimizer, rollout.buffer, run.device, learner.rng, critic_only)
    update_seconds = time.perf_counter() - t1
    rollout.buffer.keep_open()
    learner.update += 1
    learner.global_step += decisions
    seconds = time.perf_counter() - t0
    row = {
        "update": learner.update,
        "global_step": learner.global_step,
        "seconds": time.perf_counter() - start,
        "steps_per_second": decisions / seconds,
        "env_share": (rollout.env_seconds - env0) / seconds,
        "opponent_share": (rollout.opponent_seconds - opponent0) / seconds,
        "policy_share": (rollout.policy_seconds - policy0) / seconds,
        "update_share": update_seconds / seconds,
        "learning_rate": optimizer.param_groups[0]["lr"],
        **stats,
    }
    if setting is not None:
        row["house_setting"] = setting
    row.update(training_win_rates(rollout))
    return row, decisions


def training_win_rates(rollout: Rollout) -> dict:
    """The learner's win rate against each kind of the pool in the episodes that ended since the last call."""
    finished = np.array(rollout.finished, dtype=np.int64).reshape(-1, 2)
    rollout.finished = []
    rates: dict[str, float | str] = {}
    for k, kind in enumerate(rollout.pool.kinds):
        outcomes = finished[finished[:, 0] == k, 1]
        rates[f"train_vs_{kind}"] = float((outcomes > 0).mean()) if len(outcomes) else ""
    return rates


def export_and_evaluate(run: Run, row: dict) -> dict:
    """Export the actor (``policy.npz``, and a copy per evaluation in ``policies/``) and evaluate
    it: the win rates go into the update's ``row`` and on screen; returns the evaluation."""
    args, learner, folder = run.args, run.learner, run.folder
    path = folder / "policy.npz"
    meta: dict = {"run": args.run_name, "update": learner.update, "global_step": learner.global_step}
    if run.mix is not None:
        meta.update(colours=neural.ONE_PASS, house_rules=run.mix.trained_rules())
    learner.agent.export(path, run.game, {**meta, "args": dataclasses.asdict(args)})
    (folder / "policies").mkdir(exist_ok=True)
    (folder / "policies" / f"policy_{learner.update:05d}.npz").write_bytes(path.read_bytes())
    results = {}
    settings: list[str | None] = [*house_evaluations(args)] or [None]  # None: the run's own rules
    for setting in settings:
        game = run.game if setting is None else Game(table_config(run.game.config, setting))
        cells = evaluate(path, game, eval_opponents(args), args.eval_games, seed=hash_seed(args.seed, 9))
        results.update({opp if setting is None else f"{setting}_{opp}": r for opp, r in cells.items()})
    for cell, r in results.items():
        row[f"eval_{cell}_win_rate"], (row[f"eval_{cell}_lo"], row[f"eval_{cell}_hi"]) = r["win_rate"], r["ci"]
    said = ", ".join(f"{o} {r['win_rate']:.3f} [{r['ci'][0]:.3f}, {r['ci'][1]:.3f}]" for o, r in results.items())
    tqdm.write(f"update {learner.update} step {learner.global_step}: {said}", file=sys.stderr)
    return results


def save_checkpoint(run: Run) -> None:
    learner = run.learner
    torch.save(
        {
            "agent": learner.agent.state_dict(),
            "optimizer": learner.optimizer.state_dict(),
            "update": learner.update,
            "global_step": learner.global_step,
            "args": dataclasses.asdict(run.args),
            "snapshots": [m.state_dict() for m in run.rollout.pool.snapshots],
            "rng": learner.rng.bit_generator.state,
            "torch_rng": torch.get_rng_state(),
        },
        run.folder / "checkpoint.pt",
    )


def log_scalars(writer, row: dict, global_step: int) -> None:
    for key, value in row.items():
        if key not in ("update", "global_step") and isinstance(value, (int, float)):
            group = "eval" if key.startswith("eval_") else "train" if key.startswith("train_") else "ppo"
            writer.add_scalar(f"{group}/{key}", value, global_step)


def run_updates(run: Run) -> dict:
    """Update after update until the run's decisions are spent (or ``--stop-after-update``), with
    snapshots, evaluations and checkpoints on their schedules; returns the last evaluation."""
    args, learner = run.args, run.learner
    start = time.perf_counter()
    results: dict = {}
    bar = progress_bar(total=args.total_timesteps, initial=learner.global_step, unit="step", disable=not args.progress)
    stopped = args.stop_after_update and learner.update >= args.stop_after_update  # a resumed run already there
    while learner.global_step < args.total_timesteps and not stopped:
        row, decisions = one_update(run, start)
        if run.mix is None and learner.update % args.snapshot_every == 0:  # a mix plays agents only
            run.rollout.pool.add_snapshot({k: v.detach().clone() for k, v in learner.agent.state_dict().items()})
        last = learner.global_step >= args.total_timesteps or learner.update == args.stop_after_update > 0
        if last or (args.eval_every and learner.update % args.eval_every == 0):
            results = export_and_evaluate(run, row)
        if last or learner.update % args.checkpoint_every == 0:
            save_checkpoint(run)
        run.progress.write(row)
        if run.writer is not None:
            log_scalars(run.writer, row, learner.global_step)
        bar.set_postfix(
            sps=f"{row['steps_per_second']:.0f}",
            env=f"{row['env_share']:.0%}",
            opponents=f"{row['opponent_share']:.0%}",
        )
        bar.update(decisions)
        if last:
            break
    bar.close()
    return results


# ---------------------------------------------------------------------------- main
def train(args: Args) -> dict:
    """Train; returns the final evaluation and the run folder."""
    run = start_run(args)
    results = run_updates(run)
    if run.writer is not None:
        run.writer.close()
    fair_share = 1 / run.game.config.num_teams
    plot_curve(run.progress.path, run.folder / "curve.png", run.args.run_name or "", fair_share=fair_share)
    learner = run.learner
    return {
        "folder": str(run.folder),
        "evaluation": results,
        "updates": learner.update,
        "global_step": learner.global_step,
    }


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    smoke = "--smoke" in argv
    if smoke:
        argv.remove("--smoke")
    default = Args(**SMOKE) if smoke else Args()
    args = tyro.cli(Args, args=argv, default=default, prog="uno train", description=__doc__.split("\n\n")[0])
    try:
        result = train(args)
    except ValueError as err:
        print(f"uno train: error: {err}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
