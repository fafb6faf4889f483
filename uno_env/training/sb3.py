"""Train sb3-contrib's MaskablePPO on UNO hands against a pool of opponents, in one file.

    python -m uno_env.training.sb3                                  # the defaults below
    python -m uno_env.training.sb3 --total-timesteps 100000 --num-envs 32
    python -m uno_env.training.sb3 --reward points --opponent-weights "tactical=0.5,snapshot=0.5"
    python -m uno_env.training.sb3 --num-players 4 --opponent-weights "tactical=0.8,snapshot=0.2"
    python -m uno_env.training.sb3 --num-players 4 --rules partners=true --learner-team
    tensorboard --logdir runs

Read it top to bottom: the settings (:class:`Args`), the opponents and their pool,
the vector env that shows SB3 only the learner's decisions, the evaluation through
the tournament runner, the callbacks, ``main``.

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

import contextlib
import copy
import csv
import dataclasses
import functools
import json
import multiprocessing
import os
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast

# Before torch loads its OpenMP runtime: idle OpenMP threads wait passively instead of spinning.
# On a machine shared with other jobs, spinning threads took the cores from the ones with work
# (training ran 50x slower with 2 torch threads). uno_env.vector sets the same for numba.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np
import torch
import tyro
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.on_policy_algorithm import OnPolicyAlgorithm
from stable_baselines3.common.vec_env import VecEnv, VecMonitor
from tqdm import tqdm

from uno_env.agents import Agent, hash_seed, make_agent, register_agent
from uno_env.arena import run_tournament
from uno_env.engine import RuleConfig
from uno_env.training.rules import TEAM_NEEDS_PARTNERS, make_game
from uno_env.vector import UnoVectorEnv
from uno_env.vector.gym_adapter import learner_spaces


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


# ---------------------------------------------------------------------------- opponents
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


# ---------------------------------------------------------------------------- the env
class PoolVecEnv(VecEnv):
    """N games as an SB3 ``VecEnv`` of the learner's decisions; the other seats are played
    by opponents of ``pool``, drawn per game and episode with the learner's seat.

    With ``team`` (partners only) the learner plays its partner's seat too (seats s and
    s + n/2): SB3 sees the decisions of both seats of the team as one chain per game, and
    the team's reward (which both seats receive, R-VAR-PARTNERS) is credited once.

    Infos of a finished episode: ``terminal_observation``, ``TimeLimit.truncated``,
    ``outcome`` (+1 won, -1 lost, 0 truncated: its team's with partners), ``episode_steps``
    (decisions of all seats), ``learner_seat`` (the seat drawn; its partner's too with
    ``team``) and ``opponent`` (the kinds of the other seats). Rewards that arrive before
    the learner's first decision of an episode are not credited (with these rules there
    are none: rewards come at a hand's end)."""

    def __init__(
        self, num_envs: int, config: RuleConfig, pool: OpponentPool, seed: int | None = None, team: bool = False
    ):
        if team and not config.partners:
            raise ValueError(TEAM_NEEDS_PARTNERS)
        self.games = UnoVectorEnv(num_envs, config, seats=None)  # this class plays every seat
        self.config = config
        self.pool = pool
        self.team = team
        self.rng = np.random.default_rng(seed)
        n = config.num_players
        self.learner_seat = np.zeros(num_envs, dtype=np.int64)
        self.learner = np.zeros((num_envs, n), dtype=bool)  # per game and seat: a seat the learner plays
        self.learner_acted = np.zeros(num_envs, dtype=bool)  # the learner has decided in this episode
        self.opponents: list[list[Agent | None]] = [[None] * n for _ in range(num_envs)]
        self.opponent_kinds = [""] * num_envs
        self._actions: np.ndarray | None = None
        super().__init__(num_envs, *learner_spaces(self.games.game))
        if seed is not None:
            self.seed(seed)

    # ------------------------------------------------------------------ VecEnv API
    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        seeds = super().seed(seed)
        first = seeds[0]
        assert first is not None  # VecEnv.seed draws a seed when given None
        self.rng = np.random.default_rng(first)
        self.pool.seed(first)
        return seeds

    def reset(self) -> np.ndarray:
        seeds = self._seeds
        step = self.games.reset(seed=None if all(s is None for s in seeds) else list(seeds))
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        self.learner_acted[:] = False
        self._new_episodes(np.arange(self.num_envs))
        rewards, dones, infos = self._blank_results()
        self._play_opponents(step, rewards, dones, infos)
        return self.games.obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_async() must come before step_wait()")
        actions, self._actions = self._actions, None
        rewards, dones, infos = self._blank_results()
        self.learner_acted[:] = True  # every game was at a learner decision
        step = self.games.step(actions)
        self._settle(step, np.ones(self.num_envs, dtype=bool), rewards, dones, infos)
        self._play_opponents(step, rewards, dones, infos)
        return self.games.obs.copy(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """(N, num_actions) bool: the learner's legal actions in each game."""
        return self.games.mask.astype(bool)

    def close(self) -> None:
        self.games.close()

    def get_attr(self, attr_name: str, indices=None) -> list:
        """One shared value per game (the games share this object); ``action_masks`` is found here
        for sb3-contrib's ``is_masking_supported``."""
        count = len(list(self._get_indices(indices)))
        if attr_name == "render_mode":
            return [None] * count
        return [getattr(self, attr_name)] * count

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        raise AttributeError(f"PoolVecEnv: the games share one configuration; cannot set {attr_name!r} per game")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        """``action_masks``: one mask row per game (what sb3-contrib's ``get_action_masks`` stacks)."""
        if method_name != "action_masks":
            raise AttributeError(f"PoolVecEnv games have no method {method_name!r} (only action_masks)")
        masks = self.action_masks()
        return [masks[i] for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))

    # ------------------------------------------------------------------ the opponents' turns
    def _blank_results(self) -> tuple[np.ndarray, np.ndarray, list[dict]]:
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        return np.zeros(self.num_envs, dtype=np.float32), np.zeros(self.num_envs, dtype=bool), infos

    def _new_episodes(self, games: np.ndarray) -> None:
        """Draw the learner's seat and its opponents for the new episodes of ``games``."""
        n = self.config.num_players
        for i in games:
            seat = int(self.rng.integers(n))
            self.learner_seat[i] = seat
            self.learner[i] = False
            self.learner[i, seat] = True
            if self.team:
                self.learner[i, self.config.partner_of(seat)] = True
            drawn = [self.pool.draw(self.rng) if not self.learner[i, s] else (None, None) for s in range(n)]
            self.opponents[i] = [agent for _, agent in drawn]
            self.opponent_kinds[i] = "+".join(kind for kind, _ in drawn if kind is not None)
            self.learner_acted[i] = False

    def _play_opponents(self, step, rewards, dones, infos) -> None:
        """Play the opponents' decisions until every game waits for the learner."""
        while True:
            waiting = ~self.learner[np.arange(self.num_envs), step.seat]
            if not waiting.any():
                return
            step = self._step_games(waiting, self._opponent_actions(step, waiting))
            self._settle(step, waiting, rewards, dones, infos)

    def _opponent_actions(self, step, waiting: np.ndarray) -> np.ndarray:
        """Actions of the acting opponents in the ``waiting`` games, one batch per opponent."""
        rows_of: dict[int, tuple[Agent, list[int]]] = {}
        for i in np.flatnonzero(waiting).tolist():
            agent = self.opponents[i][step.seat[i]]
            rows_of.setdefault(id(agent), (agent, []))[1].append(i)
        actions = np.zeros(self.num_envs, dtype=np.int64)
        for agent, rows in rows_of.values():
            actions[rows] = agent.act_batch(step.obs[rows], step.mask[rows])
        return actions

    def _step_games(self, which: np.ndarray, actions: np.ndarray):
        """Advance only the games of ``which`` by one decision.

        ``UnoVectorEnv.step`` advances every game (its kernel reads ``which`` only when it
        resets), and has no public way to step a subset. So the other games take a stand-in
        legal action and are then put back as they were: their game state (``env.state``'s
        cards, ints and generator: the whole game, as no seat is played by a compiled policy)
        and their rows of the env's seat, observation and mask buffers."""
        env = self.games
        held = ~which
        if not held.any():
            return env.step(actions)
        state = env.state
        buffers: tuple[np.ndarray, ...] = (state.cards, state.ints, state.rng, env.seat, env.obs, env.mask)
        saved = [array[held] for array in buffers]  # fancy indexing copies
        actions[held] = env.mask[held].argmax(axis=1)  # the first legal action; undone below
        step = env.step(actions)
        for array, rows in zip(buffers, saved):
            array[held] = rows
        env.rewards[held] = 0.0
        env.terminated[held] = env.truncated[held] = False
        return step

    def _settle(self, step, stepped: np.ndarray, rewards, dones, infos) -> None:
        """Credit the learner with its seat's rewards of the ``stepped`` games (its team's with
        partners: the seat drawn receives them), report the episodes that ended (the learner
        having played in them) and start the next ones."""
        credited = np.flatnonzero(stepped & self.learner_acted)
        rewards[credited] += step.rewards[credited, self.learner_seat[credited]]
        ended = np.flatnonzero(stepped & (step.terminated | step.truncated))
        for i in ended:
            if not self.learner_acted[i]:
                continue
            seat = int(self.learner_seat[i])
            dones[i] = True
            infos[i] = {
                "terminal_observation": step.info["final_obs"][i, seat].copy(),
                "TimeLimit.truncated": bool(step.truncated[i] and not step.terminated[i]),
                "outcome": int(step.info["final_outcome"][i, seat]),
                "episode_steps": int(step.info["final_steps"][i]),
                "learner_seat": seat,
                "opponent": self.opponent_kinds[i],
            }
        self._new_episodes(ended)


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
        self.bar = tqdm(total=total, unit="step", unit_scale=True, dynamic_ncols=True, smoothing=0.1)

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
