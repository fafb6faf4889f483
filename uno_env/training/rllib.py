"""Multi-agent PPO on Ray RLlib (the new API stack), for training across machines.

    uno train-rllib --smoke                  # one tiny iteration on a local Ray (python -m uno_env.training.rllib)
    uno train-rllib                          # the defaults below, a local Ray on every core
    uno train-rllib --address auto           # on the running cluster (or RAY_ADDRESS=...)
    uno train-rllib --num-env-runners 15 --learner-gpus 1    # e.g. 16 cores and a GPU

The env is the PettingZoo AEC env (``uno_env.env``) behind RLlib's ``PettingZooEnv``:
each agent acts in turn and receives its own rewards (PettingZoo's cumulative rewards
hand what arrived while others acted to the agent at its next turn or at the end).

**Who plays.** The module ``main`` (a masked actor-critic, :class:`MaskedPPOModule`) is
trained. Per episode, with probability ``--self-play-share`` every seat is ``main``
(shared-policy self-play); otherwise one seat, drawn per episode, is ``main`` and the
others are ``--opponent``, a compiled heuristic played by :class:`CompiledPolicyModule`
(never trained). ``--opponent self`` is pure self-play.

**Win rates.** The return of a shared policy in a zero-sum game says nothing, so the
callback logs per episode whether ``main`` won (``win_rate_vs_<opponent>``, training
episodes, sampled actions), and every ``--eval-every`` iterations the greedy policy is
exported (``policy.npz``, the same format as ``uno train``'s, playable as
``make_agent("ppo:weights=...")`` without torch or Ray) and plays ``--eval-games``
seat-rotated hands against each ``--eval-opponents`` through the tournament runner.

**Outputs** in ``runs/<run name>/``: ``progress.csv`` (per iteration: env steps,
steps/s, losses, training and evaluation win rates with 95% intervals), ``curve.png``,
``policy.npz``, and RLlib checkpoints (``checkpoint/``; ``--resume`` continues one).

**Traps handled** (from RLlib's docs and issues): RLlib's env checker steps an unmasked
random action, which UNO refuses, so it is off; on a local Ray ``num_env_runners`` is
capped at the free CPUs (more hangs waiting for resources); a local Ray gets
``RAY_AUTH_MODE=disabled`` unless set (token auth writes ``~/.ray`` and is for shared
clusters); the module reads the mask from the ``action_mask`` key itself.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import pathlib
import random
import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import tyro

import uno_env
from uno_env.agents import neural, parse_agent_spec, policies
from uno_env.arena.distributed import cluster_address
from uno_env.arena.distributed import start_ray as connect
from uno_env.engine import Game, RuleConfig
from uno_env.learner import CompiledPolicy
from uno_env.progress import progress_bar
from uno_env.training.evaluate import evaluate
from uno_env.training.plot import plot_curve
from uno_env.training.progress import ProgressCsv
from uno_env.training.rules import make_game

MAIN = "main"
OPPONENT = "opponent"
CURVE_XLABEL = "env steps of training (every seat's decisions)"


@dataclass
class Args:
    exp_name: str = "rllib_ppo"
    """name of the experiment (part of the run name)"""
    seed: int = 1
    """seed of RLlib's env runners and networks (RLlib with remote runners is not bit-reproducible)"""
    num_players: int = 2
    """players at the table"""
    episode: str = "round"
    """'round' (one hand per episode) or 'game' (hands until the target score)"""
    reward: str = "win"
    """'win' (+1 / -1 when the episode ends) or 'points'"""
    rules: tuple[str, ...] = ()
    """other rule settings as KEY=VALUE, as `uno tournament --set` takes them"""
    iterations: int = 40
    """training iterations (one PPO update on --train-batch env steps each)"""
    opponent: str = "random_play"
    """compiled heuristic at the seats that are not main ('self': every seat is main)"""
    self_play_share: float = 0.0
    """share of episodes in which every seat is main (shared-policy self-play)"""
    num_env_runners: int = 1
    """remote env runners (0: sample in the driver)"""
    envs_per_runner: int = 8
    """envs stepped together in each runner"""
    train_batch: int = 8000
    """env steps per iteration (all agents' steps)"""
    minibatch: int = 1000
    """PPO minibatch size"""
    epochs: int = 4
    """passes over each batch"""
    lr: float = 3e-4
    """Adam learning rate"""
    entropy: float = 0.01
    """entropy bonus"""
    gamma: float = 0.995
    """discount per agent step"""
    hidden: int = 256
    """units in each of the two hidden layers (actor and critic)"""
    eval_every: int = 5
    """iterations between evaluations (0: only at the end)"""
    eval_games: int = 1000
    """hands per evaluation opponent (seat-rotated)"""
    eval_opponents: str = "random_play"
    """agents the greedy policy is evaluated against, comma-separated"""
    checkpoint_every: int = 10
    """iterations between RLlib checkpoints"""
    resume: str | None = None
    """an RLlib checkpoint folder to continue from"""
    address: str | None = None
    """Ray cluster address ('auto', 'ray://host:10001'); default RAY_ADDRESS, else a local Ray"""
    num_cpus: int | None = None
    """CPUs of a local Ray (default: all of this machine's)"""
    learner_gpus: float = 0
    """GPUs for the learner (e.g. 1 where CUDA is present)"""
    out: str = "runs"
    """folder of the runs"""
    run_name: str | None = None
    """run folder name (default: env, experiment, seed and time)"""
    progress: bool = True
    """a progress bar over the iterations"""


SMOKE: dict[str, Any] = dict(
    iterations=1,
    num_env_runners=1,
    envs_per_runner=1,  # one env takes every step: a hand lasts ~90 steps untrained, so episodes end
    train_batch=800,
    minibatch=400,
    epochs=1,
    hidden=32,
    eval_every=1,
    eval_games=20,
    num_cpus=2,
)


# ---------------------------------------------------------------------------- the modules
def _module_classes():
    """The RLModule classes (built on first use, so that importing this file needs no Ray)."""
    import torch  # optional: the train extra
    from ray.rllib.core.columns import Columns  # optional: the scale extra, as are the three below
    from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI  # optional (scale)
    from ray.rllib.core.rl_module.rl_module import RLModule  # optional (scale)
    from ray.rllib.core.rl_module.torch import TorchRLModule  # optional (scale)
    from torch import nn  # optional: the train extra

    def rules_game(model_config) -> Game:
        return Game(RuleConfig.from_kwargs(**model_config["rules"]))

    class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
        """Actor and critic MLPs (two ReLU layers each) over the scaled ``observation``;
        the actor's logits of illegal actions (``action_mask``) are set to -inf. The actor
        has the layout of :mod:`uno_env.agents.neural` networks, so it exports exactly."""

        def setup(self):
            game = rules_game(self.model_config)
            hidden = self.model_config["hidden"]
            size, actions = game.observation_size, game.num_actions
            self.register_buffer("scale", torch.as_tensor(neural.input_scale(game)))
            self.actor = nn.Sequential(
                nn.Linear(size, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, actions)
            )
            self.critic = nn.Sequential(
                nn.Linear(size, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1)
            )

        def _inputs(self, batch):
            obs = batch[Columns.OBS]
            return obs["observation"].float() * self.scale, obs["action_mask"]

        def _forward(self, batch, **kwargs):
            x, mask = self._inputs(batch)
            logits = self.actor(x).masked_fill(mask == 0, torch.finfo(torch.float32).min)
            return {Columns.ACTION_DIST_INPUTS: logits}

        def compute_values(self, batch, embeddings=None):
            x, _ = self._inputs(batch)
            return self.critic(x).squeeze(-1)

        def export(self, path, meta: dict) -> None:
            """Write the actor as a :mod:`uno_env.agents.neural` network file."""
            linear = [m for m in self.actor if isinstance(m, nn.Linear)]
            layers = [(m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy()) for m in linear]
            neural.save_network(path, layers, rules_game(self.model_config), meta)

    class CompiledPolicyModule(RLModule):
        """A compiled heuristic of :mod:`uno_env.agents.policies` as an RLModule (not trained)."""

        def setup(self):
            game = rules_game(self.model_config)
            self.policy = CompiledPolicy(  # unchecked, as before: RLlib also feeds it dummy batches
                self.model_config["policy"], game, seed=self.model_config.get("seed", 0), checked=False
            )

        def _forward(self, batch, **kwargs):
            obs = batch[Columns.OBS]
            observations = np.asarray(obs["observation"], dtype=np.float32)
            masks = np.asarray(obs["action_mask"], dtype=np.int8)
            actions = [self.policy(o, m) for o, m in zip(observations, masks)]
            return {Columns.ACTIONS: np.array(actions, dtype=np.int64)}

        def _forward_train(self, batch, **kwargs):
            raise NotImplementedError("the opponent module is a fixed heuristic")

        def compile(self, *args, **kwargs):  # called on torch modules by some runners
            pass

    return MaskedPPOModule, CompiledPolicyModule


# ---------------------------------------------------------------------------- the algorithm
def seat_modules(episode_id: str, num_players: int, self_play_share: float, opponent: str) -> list[str]:
    """Module of each seat in one episode, drawn from the episode's id (so every agent
    of an episode agrees, whatever order RLlib asks in)."""
    if opponent == "self":
        return [MAIN] * num_players
    draw = random.Random(episode_id)
    if draw.random() < self_play_share:
        return [MAIN] * num_players
    main_seat = draw.randrange(num_players)
    return [MAIN if seat == main_seat else OPPONENT for seat in range(num_players)]


def win_rate_callback(opponent: str):
    from ray.rllib.callbacks.callbacks import RLlibCallback  # optional: the scale extra

    class WinRateCallback(RLlibCallback):
        """Per finished episode against the heuristic: did main's seat win (return > 0)."""

        def on_episode_end(self, *, episode, metrics_logger=None, **kwargs):
            agents = list(episode.agent_episodes)
            modules = {a: episode.module_for(a) for a in agents}
            returns = {a: episode.agent_episodes[a].get_return() for a in agents}
            metrics_logger.log_value("hand_length", sum(len(e) for e in episode.agent_episodes.values()))
            if OPPONENT in modules.values():
                won = any(returns[a] > 0 for a in agents if modules[a] == MAIN)
                metrics_logger.log_value(f"win_rate_vs_{opponent}", float(won), window=1000)

    return WinRateCallback


def build_config(args: Args, game: Game):
    """The RLlib PPOConfig of a run."""
    from ray.rllib.algorithms.ppo import PPOConfig  # optional: the scale extra, as are the four below
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec  # optional (scale)
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # optional (scale)
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv  # optional (scale)
    from ray.tune.registry import register_env  # optional (scale)

    MaskedPPOModule, CompiledPolicyModule = _module_classes()
    rules = game.config.to_dict()
    register_env("uno_pettingzoo", lambda env_config: PettingZooEnv(uno_env.env(**env_config["rules"])))
    n, share, opponent = args.num_players, args.self_play_share, args.opponent

    def mapping(agent_id, episode, **kwargs):
        return seat_modules(episode.id_, n, share, opponent)[int(agent_id.rsplit("_", 1)[1])]

    specs = {MAIN: RLModuleSpec(module_class=MaskedPPOModule, model_config={"rules": rules, "hidden": args.hidden})}
    if opponent != "self":
        specs[OPPONENT] = RLModuleSpec(
            module_class=CompiledPolicyModule, model_config={"rules": rules, "policy": opponent, "seed": args.seed}
        )
    return (
        PPOConfig()
        .environment("uno_pettingzoo", env_config={"rules": rules}, disable_env_checking=True)
        .env_runners(
            num_env_runners=args.num_env_runners,
            num_envs_per_env_runner=args.envs_per_runner,
            sample_timeout_s=600,  # a busy shared machine can take minutes; the default 60 s drops the batch
        )
        .multi_agent(policies=set(specs), policy_mapping_fn=mapping, policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(
            train_batch_size_per_learner=args.train_batch,
            minibatch_size=args.minibatch,
            num_epochs=args.epochs,
            lr=args.lr,
            entropy_coeff=args.entropy,
            gamma=args.gamma,
        )
        .learners(num_gpus_per_learner=args.learner_gpus)
        .callbacks(win_rate_callback(opponent))
        .debugging(seed=args.seed)
    )


def check_args(args: Args) -> None:
    """Refuse bad settings before Ray starts (ValueError naming the setting)."""
    for name in ("iterations", "envs_per_runner", "train_batch", "minibatch", "epochs", "hidden", "checkpoint_every"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
    if args.num_env_runners < 0 or args.eval_every < 0 or args.eval_games < 2:
        raise ValueError("--num-env-runners and --eval-every must be >= 0, --eval-games >= 2")
    if not 0.0 <= args.self_play_share <= 1.0:
        raise ValueError(f"--self-play-share must be in [0, 1], got {args.self_play_share}")
    check_opponents(args)


def check_opponents(args: Args) -> None:
    """The opponent is a compiled policy (or 'self'); the evaluation's opponents are agents."""
    if args.opponent != "self" and args.opponent not in policies.POLICY_IDS:
        known = ", ".join(["self", *policies.POLICY_IDS])
        raise ValueError(f"--opponent must be a compiled policy or 'self' ({known}), got {args.opponent!r}")
    for spec in args.eval_opponents.split(","):
        if spec.strip():
            parse_agent_spec(spec.strip())


FREE_CPU_WAIT_S = 15.0
"""How long a local Ray may take to report as free the CPUs of tasks that just ended."""


def start_ray(args: Args) -> dict:
    """Connect to ``--address`` / RAY_ADDRESS or start a local Ray; on a local Ray, refuse
    more env runners than free CPUs (RLlib would wait for them forever). Ray reports the
    CPUs of finished tasks as free a moment later, so the check waits up to
    :data:`FREE_CPU_WAIT_S` for them before refusing."""
    resources = connect(args.address, args.num_cpus)  # a clear error first where Ray is missing
    import ray  # optional: the scale extra (connect said so if it is missing)

    if cluster_address(args.address) is None:
        deadline = time.monotonic() + FREE_CPU_WAIT_S
        free = int(ray.available_resources().get("CPU", 0))
        while args.num_env_runners > free and args.num_env_runners <= resources.get("CPU", 0):
            if time.monotonic() > deadline:
                break
            time.sleep(0.2)
            free = int(ray.available_resources().get("CPU", 0))
        if args.num_env_runners > free:
            raise ValueError(f"--num-env-runners {args.num_env_runners} exceeds the {free} free CPUs of the local Ray")
    return resources


# ---------------------------------------------------------------------------- main
def run_name(args: Args) -> str:
    return args.run_name or f"uno{args.num_players}p_{args.episode}__{args.exp_name}__{args.seed}__{int(time.time())}"


def train(args: Args) -> dict:
    """Run the training; returns the run folder, iterations, env steps and the last evaluation."""
    check_args(args)
    game = make_game(args)
    resources = start_ray(args)
    algo = build_config(args, game).build_algo()
    if args.resume:
        algo.restore_from_path(os.path.abspath(args.resume))
    name = run_name(args)
    folder = pathlib.Path(args.out) / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "args.json").write_text(json.dumps({**dataclasses.asdict(args), "resources": resources}, indent=2))
    opponents = [s.strip() for s in args.eval_opponents.split(",") if s.strip()]
    columns = ["iteration", "global_step", "steps_per_second", "seconds", "train_win_rate", "hand_length"]
    columns += ["policy_loss", "vf_loss", "entropy", "mean_kl"]
    columns += [f"eval_{o}_{k}" for o in opponents for k in ("win_rate", "lo", "hi")]
    progress = ProgressCsv(folder / "progress.csv", columns)
    judge = functools.partial(export_and_evaluate, args, algo, game, folder, opponents)
    start = time.perf_counter()
    if args.eval_every and not args.resume:  # where the curve starts: the untrained policy
        row = {"iteration": 0, "global_step": 0, "seconds": 0.0}
        judge(0, row)
        progress.write(row)
    evaluation, steps = run_iterations(args, algo, folder, progress, judge, start)
    algo.stop()
    plot_curve(progress.path, folder / "curve.png", f"{name} (RLlib PPO)", xlabel=CURVE_XLABEL)
    return {"folder": str(folder), "iterations": args.iterations, "env_steps": steps, "evaluation": evaluation}


def run_iterations(args: Args, algo, folder: pathlib.Path, progress: ProgressCsv, judge, start: float):
    """The training iterations, with evaluations (``judge``) and checkpoints on their schedules;
    returns the last evaluation and the env steps sampled (``start``: when the run started)."""
    evaluation: dict = {}
    steps = 0
    bar = progress_bar(range(1, args.iterations + 1), disable=not args.progress, unit="it")
    for iteration in bar:
        tick = time.perf_counter()
        result = algo.train()
        row = iteration_row(args, iteration, result, tick, start)
        steps = row["global_step"]
        last = iteration == args.iterations
        if last or (args.eval_every and iteration % args.eval_every == 0):
            evaluation = judge(iteration, row)
        if last or iteration % args.checkpoint_every == 0:
            algo.save_to_path(os.path.abspath(folder / "checkpoint"))
        progress.write(row)
        bar.set_postfix(steps=steps, sps=f"{row['steps_per_second']:.0f}", win=row["train_win_rate"])
    return evaluation, steps


def export_and_evaluate(args: Args, algo, game: Game, folder: pathlib.Path, opponents: list[str], iteration, row):
    """Export the greedy actor (``policy.npz``) and play the evaluation opponents (results into ``row``)."""
    meta = {"command": "uno train-rllib " + " ".join(sys.argv[1:]), "iteration": iteration}
    algo.get_module(MAIN).export(folder / "policy.npz", meta)
    results = evaluate(folder / "policy.npz", game, opponents, args.eval_games, seed=args.seed)
    for o, e in results.items():
        row[f"eval_{o}_win_rate"], (row[f"eval_{o}_lo"], row[f"eval_{o}_hi"]) = e["win_rate"], e["ci"]
    return results


def iteration_row(args: Args, iteration: int, result: dict, tick: float, start: float) -> dict:
    """The ``progress.csv`` row of an iteration from RLlib's result (``tick``: when it began)."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(MAIN, {})
    steps = int(result.get("num_env_steps_sampled_lifetime", runners.get("num_env_steps_sampled_lifetime", 0)))
    return {
        "iteration": iteration,
        "global_step": steps,
        "steps_per_second": runners.get("num_env_steps_sampled", 0) / max(time.perf_counter() - tick, 1e-9),
        "seconds": time.perf_counter() - start,
        "train_win_rate": runners.get(f"win_rate_vs_{args.opponent}", ""),
        "hand_length": runners.get("hand_length", ""),
        "policy_loss": learner.get("policy_loss", ""),
        "vf_loss": learner.get("vf_loss", ""),
        "entropy": learner.get("entropy", ""),
        "mean_kl": learner.get("mean_kl_loss", ""),
    }


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    smoke = "--smoke" in argv
    if smoke:
        argv.remove("--smoke")
    default = Args(**SMOKE) if smoke else Args()
    prog = "uno train-rllib"
    args = tyro.cli(Args, args=argv, default=default, prog=prog, description=__doc__.split("\n\n")[0])
    try:
        result = train(args)
    except ValueError as err:
        print(f"uno train-rllib: error: {err}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
