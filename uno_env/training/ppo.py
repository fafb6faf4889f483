"""Masked PPO with self-play and an opponent pool on the UNO vector env, in one file.

    uno train                                    # the defaults below: two-player hands, 20M decisions
    uno train --smoke                            # a few thousand steps, seconds (what the tests run)
    uno train --total-timesteps 2000000 --bc-decisions 0 --seed 3    # no warm start
    uno train --resume runs/NAME/checkpoint.pt   # continue a run where its checkpoint left it

Read it top to bottom, like CleanRL's ``ppo.py``: the settings (:class:`Args`), the
networks, the opponent pool, the rollout, the PPO update, evaluation, ``main``.

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

import os

# torch's OpenMP threads spin while they wait; on a machine shared with other processes
# (the env's threads, evaluation workers, other jobs) spinning took the cores from the
# threads with work and slowed training 5-10x. This must be set before torch loads.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import csv
import dataclasses
import json
import pathlib
import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import tyro
from torch import nn

from uno_env.agents import hash_seed, make_agent, neural
from uno_env.engine import Game
from uno_env.training.rules import TEAM_NEEDS_PARTNERS, make_game
from uno_env.vector import UnoVectorEnv


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


# ---------------------------------------------------------------------------- networks
def layer(inputs: int, outputs: int, std: float = np.sqrt(2)) -> nn.Linear:
    linear = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(linear.weight, std)
    nn.init.zeros_(linear.bias)
    return linear


class ActorCritic(nn.Module):
    """Actor and critic, two ReLU hidden layers each, over the scaled observation; with
    ``privileged`` the critic also reads :class:`HiddenHands`; with ``guess`` a head on the
    actor's last hidden layer guesses the colours of the other hands (:meth:`guess_loss`);
    ``seat_order`` (:data:`uno_env.agents.neural.SEAT_ORDERS`): how both read the observation's per-seat
    slices (the :class:`HiddenHands` rows and the guess labels stay clockwise).
    The actor's layers are exactly what :func:`uno_env.agents.neural.save_network` exports."""

    scale: torch.Tensor  # buffers (register_buffer), not parameters
    hidden_scale: torch.Tensor
    hand_colours: torch.Tensor
    play_index: torch.Tensor

    def __init__(
        self, game: Game, hidden: int, privileged: bool = False, guess: bool = False, seat_order: str = "clockwise"
    ):
        super().__init__()
        self.seat_order = neural.check_seat_order(seat_order, neural.input_slices(game))
        self.register_buffer("scale", torch.as_tensor(neural.input_scale(game)))
        play = neural.play_order_index(game) if seat_order == "play" else np.zeros(0, np.int64)
        self.register_buffer("play_index", torch.as_tensor(play), persistent=False)
        self.direction_at = game.obs_spec.by_name["direction"].offset
        hands = HiddenHands(game) if privileged else None
        self.register_buffer("hidden_scale", torch.as_tensor(hands.scale if hands else np.zeros(0, np.float32)))
        size, actions = game.observation_size, game.num_actions
        self.actor = nn.Sequential(
            layer(size, hidden), nn.ReLU(), layer(hidden, hidden), nn.ReLU(), layer(hidden, actions, 0.01)
        )
        critic_size = size + len(self.hidden_scale)
        self.critic = nn.Sequential(
            layer(critic_size, hidden), nn.ReLU(), layer(hidden, hidden), nn.ReLU(), layer(hidden, 1, 1)
        )
        self.others = game.num_players - 1
        self.guess = layer(hidden, self.others * 4, 0.01) if guess else None
        # not in the state dict: checkpoints of networks without the head load as before
        self.register_buffer("hand_colours", torch.as_tensor(HiddenHands(game).colours), persistent=False)

    def guess_loss(self, obs: torch.Tensor, hands: torch.Tensor) -> torch.Tensor:
        """Binary cross-entropy of the guess head, per other seat and colour, against whether
        that seat holds a card of that colour (``hands``: :class:`HiddenHands` rows)."""
        if self.guess is None:
            raise ValueError("this network has no guess head (hand_guess=0)")
        features = self.actor[:4](self.inputs(obs))
        logits = self.guess(features).view(len(obs), self.others, 4)
        held = hands.view(len(obs), self.others, -1) @ self.hand_colours
        return nn.functional.binary_cross_entropy_with_logits(logits, (held > 0).float())

    def inputs(self, obs: torch.Tensor) -> torch.Tensor:
        """The observation as the networks read it: in the seat order, scaled."""
        if len(self.play_index):
            mirrored = obs[:, self.direction_at : self.direction_at + 1] < 0
            obs = torch.where(mirrored, obs[:, self.play_index], obs)
        return obs * self.scale

    def masked_logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.actor(self.inputs(obs)).masked_fill(~mask, -1e8)

    def value(self, obs: torch.Tensor, hidden: torch.Tensor | None = None) -> torch.Tensor:
        """The critic's value; ``hidden``: the :class:`HiddenHands` rows of a privileged critic."""
        inputs = self.inputs(obs)
        if len(self.hidden_scale):
            if hidden is None:
                raise ValueError("a privileged critic reads the other seats' hands: pass hidden")
            inputs = torch.cat([inputs, hidden * self.hidden_scale], dim=1)
        return self.critic(inputs).squeeze(-1)

    def act(self, obs: torch.Tensor, mask: torch.Tensor, hidden: torch.Tensor | None = None):
        """Sampled actions, their log-probabilities and the values."""
        dist = torch.distributions.Categorical(logits=self.masked_logits(obs, mask), validate_args=False)
        action = dist.sample()
        return action, dist.log_prob(action), self.value(obs, hidden)

    def sample(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Sampled actions only (Gumbel-max over the masked logits; no critic): opponents."""
        logits = self.masked_logits(obs, mask)
        noise = torch.rand_like(logits).clamp_(min=1e-20)
        return (logits - torch.log(-torch.log(noise))).argmax(dim=1)

    def evaluate(self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor, hidden=None):
        """Log-probabilities of ``action``, entropies and values (for the update)."""
        dist = torch.distributions.Categorical(logits=self.masked_logits(obs, mask), validate_args=False)
        return dist.log_prob(action), dist.entropy(), self.value(obs, hidden)

    def export(self, path, game: Game, meta: dict | None = None) -> neural.Network:
        """Write the actor as a numpy network file (:func:`uno_env.agents.neural.save_network`)."""
        linears = [m for m in self.actor if isinstance(m, nn.Linear)]
        layers = [(m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy()) for m in linears]
        return neural.save_network(path, layers, game, meta, self.seat_order)


class HiddenHands:
    """What a privileged critic reads beside the observation: the hand of every other seat
    (copies of each card face, the ``hand`` slice of that seat's own observation), seats in
    the observer's order (seat+1 first). Read from the true state while training; the
    actor never sees it."""

    def __init__(self, game: Game):
        self.game = game
        self.hand = game.obs_spec.by_name["hand"]
        self.size = (game.num_players - 1) * self.hand.size
        colours = game.obs_spec.by_name["colour"].labels  # R, Y, G, B
        self.colours = np.zeros((self.hand.size, len(colours)), dtype=np.float32)  # face -> colour (wilds: none)
        for face, label in enumerate(self.hand.labels):
            if label[0] in colours:
                self.colours[face, colours.index(label[0])] = 1.0
        self.scale = np.tile(1.0 / np.maximum(self.hand.high, 1.0), game.num_players - 1).astype(np.float32)
        self._obs = np.zeros(game.observation_size, dtype=np.float32)

    def __call__(self, state, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Rows for the observer ``seats[i]`` of game ``games[i]`` of the batch ``state``."""
        n, size = self.game.num_players, self.hand.size
        out = np.zeros((len(games), self.size), dtype=np.float32)
        for i, (g, seat) in enumerate(zip(games.tolist(), seats.tolist())):
            for k in range(1, n):
                self.game.observe(state, (seat + k) % n, g, out=self._obs)
                out[i, (k - 1) * size : k * size] = self._obs[self.hand.offset : self.hand.stop]
        return out


# ---------------------------------------------------------------------------- opponent pool
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
            if kind not in ("latest", "snapshot"):
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


# ---------------------------------------------------------------------------- rollout
class Transitions:
    """Learner transitions of the games, in the order they close.

    A transition opens at a learner decision and closes at the next decision of the same
    chain (``next_value`` from there) or at the episode's end (``done``). A chain is one
    learner seat of one game (:meth:`Rollout.chains`: ``game * num_players + seat``), so
    a learner playing both seats of a team keeps one chain per seat."""

    def __init__(self, capacity: int, obs_size: int, num_actions: int, num_chains: int, hidden_size: int = 0):
        self.obs = np.zeros((capacity, obs_size), dtype=np.float32)
        self.hidden = np.zeros((capacity, hidden_size), dtype=np.float32)  # a privileged critic's HiddenHands
        self.mask = np.zeros((capacity, num_actions), dtype=bool)
        self.action = np.zeros(capacity, dtype=np.int64)
        self.logp = np.zeros(capacity, dtype=np.float32)
        self.value = np.zeros(capacity, dtype=np.float32)
        self.reward = np.zeros(capacity, dtype=np.float32)
        self.next_value = np.zeros(capacity, dtype=np.float32)
        self.done = np.zeros(capacity, dtype=bool)
        self.successor = np.full(capacity, -1, dtype=np.int64)
        self.open = np.full(num_chains, -1, dtype=np.int64)  # per chain: its open transition
        self.size = 0
        self.closed: list[np.ndarray] = []
        self.num_closed = 0

    def add(self, chains, obs, mask, action, logp, value, hidden=None) -> None:
        """New transitions at the learner decisions of ``chains``; closes their previous ones."""
        index = np.arange(self.size, self.size + len(chains))
        self.size += len(chains)
        self.obs[index], self.mask[index], self.action[index] = obs, mask, action
        if hidden is not None:
            self.hidden[index] = hidden
        self.logp[index], self.value[index] = logp, value
        self.reward[index] = 0.0
        self.done[index] = False
        self.successor[index] = -1
        previous = self.open[chains]
        had = previous >= 0
        self.next_value[previous[had]] = value[had]
        self.successor[previous[had]] = index[had]
        self._close(previous[had])
        self.open[chains] = index

    def credit(self, rewards: np.ndarray) -> None:
        """Per chain, its seat's reward of the last step, to its open transition."""
        chains = np.flatnonzero(self.open >= 0)
        self.reward[self.open[chains]] += rewards[chains]

    def end(self, chains: np.ndarray) -> None:
        """The episodes of ``chains`` ended: their open transitions close as terminal."""
        open_ = self.open[chains]
        open_ = open_[open_ >= 0]
        self.done[open_] = True
        self.next_value[open_] = 0.0
        self._close(open_)
        self.open[chains] = -1

    def _close(self, index: np.ndarray) -> None:
        if len(index):
            self.closed.append(index)
            self.num_closed += len(index)

    def advantages(self, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """GAE over the closed transitions (the chain of a game stops at a transition whose
        successor is still open); returns (indices, advantages, returns)."""
        order = np.concatenate(self.closed)
        in_batch = np.zeros(self.size, dtype=bool)
        in_batch[order] = True
        adv = np.zeros(self.size, dtype=np.float32)
        reward, value, next_value = self.reward, self.value, self.next_value
        done, successor = self.done, self.successor
        for t in order[::-1]:
            delta = reward[t] + gamma * next_value[t] - value[t]
            s = successor[t]
            carry = adv[s] if (not done[t] and s >= 0 and in_batch[s]) else 0.0
            adv[t] = delta + gamma * lam * carry
        return order, adv[order], adv[order] + value[order]

    def keep_open(self) -> None:
        """Start the next batch: the open transitions move to the front, the rest go."""
        chains = np.flatnonzero(self.open >= 0)
        keep = self.open[chains]
        target = np.arange(len(keep))
        for array in (self.obs, self.hidden, self.mask, self.action, self.logp, self.value, self.reward):
            array[target] = array[keep]
        self.done[target] = False
        self.successor[target] = -1
        self.open[chains] = target
        self.size = len(keep)
        self.closed = []
        self.num_closed = 0


def point_margins(game: Game) -> np.ndarray:
    """The weights of ``--reward margin``: row s gives seat s its own points minus the mean of
    its opponents' points (with partners, the partner is not an opponent), per 100 points;
    ``rewards @ weights.T`` turns each seat's points into its margin."""
    n = game.num_players
    weights = np.zeros((n, n), dtype=np.float32)
    for seat in range(n):
        opponents = [other for other in range(n) if other not in (seat, game.config.partner_of(seat))]
        weights[seat, seat] = 1.0
        weights[seat, opponents] = -1.0 / len(opponents)
    return weights / 100.0


class Rollout:
    """The games, the per-episode seating and opponents, and the learner's transitions.

    Per game and episode the learner takes a random seat (``learner_seat``), and with
    ``--learner-team`` its partner's seat too (``learner``: per game and seat); every
    learner seat is rewarded with what its own seat received, which under partners is
    the team's outcome (R-VAR-PARTNERS)."""

    def __init__(self, args: Args, game: Game, agent: ActorCritic, pool: OpponentPool, device, seed: int):
        self.args, self.game, self.agent, self.pool, self.device = args, game, agent, pool, device
        N = args.num_envs
        self.env = UnoVectorEnv(N, game.config)
        self.rng = np.random.default_rng(hash_seed(seed, 7))
        n = game.num_players
        self.team = bool(args.learner_team)
        if self.team and not game.config.partners:
            raise ValueError(TEAM_NEEDS_PARTNERS)
        self.learner_seat = np.zeros(N, dtype=np.int64)
        self.learner = np.zeros((N, n), dtype=bool)
        self.kind = np.zeros(N, dtype=np.int64)
        self.snapshot = np.zeros(N, dtype=np.int64)
        seats = 2 if self.team else 1
        self.hands = HiddenHands(game) if args.privileged_critic or args.hand_guess > 0 else None
        self.margins = point_margins(game) if args.reward == "margin" else None
        self.buffer = Transitions(
            args.batch_size + 2 * seats * N,
            game.observation_size,
            game.num_actions,
            N * n,
            self.hands.size if self.hands else 0,
        )
        self.step = self.env.reset(seed=seed)
        self.new_episodes(np.arange(N))
        self.finished: list[tuple[int, int]] = []  # (opponent kind, learner outcome) of ended episodes
        self.env_seconds = 0.0
        self.opponent_seconds = 0.0
        self.policy_seconds = 0.0

    def new_episodes(self, games: np.ndarray) -> None:
        n = self.game.num_players
        seat = self.rng.integers(0, n, size=len(games))
        self.learner_seat[games] = seat
        self.learner[games] = False
        self.learner[games, seat] = True
        if self.team:
            self.learner[games, self.game.config.partner_of(seat)] = True
        self.kind[games], self.snapshot[games] = self.pool.draw(self.rng, len(games))

    def chains(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The transition chain of each (game, seat)."""
        return games * self.game.num_players + seats

    def collect(self) -> int:
        """Play until the batch holds ``batch_size`` closed transitions; returns the
        learner decisions taken."""
        buffer, step, N = self.buffer, self.step, self.args.num_envs
        decisions = 0
        actions = np.empty(N, dtype=np.int64)
        while buffer.num_closed < self.args.batch_size:
            learner = self.learner[np.arange(N), np.maximum(step.seat, 0)] & (step.seat >= 0)
            games = np.flatnonzero(learner)
            others = np.flatnonzero(~learner)
            t = time.perf_counter()
            if len(games):
                obs = step.obs[games]
                mask = step.mask[games].astype(bool)
                hidden = self.hands(self.env.state, games, step.seat[games]) if self.hands else None
                with torch.no_grad():
                    action, logp, value = self.agent.act(
                        torch.as_tensor(obs, device=self.device),
                        torch.as_tensor(mask, device=self.device),
                        None if hidden is None else torch.as_tensor(hidden, device=self.device),
                    )
                actions[games] = action = action.cpu().numpy()
                chains = self.chains(games, step.seat[games])
                buffer.add(chains, obs, mask, action, logp.cpu().numpy(), value.cpu().numpy(), hidden)
                decisions += len(games)
            t2 = time.perf_counter()
            if len(others):
                actions[others] = self.pool.actions(
                    self.kind[others], self.snapshot[others], step.obs[others], step.mask[others], self.device
                )
            t3 = time.perf_counter()
            step = self.env.step(actions)
            t4 = time.perf_counter()
            self.policy_seconds += t2 - t
            self.opponent_seconds += t3 - t2
            self.env_seconds += t4 - t3
            rewards = step.rewards if self.margins is None else step.rewards @ self.margins.T
            buffer.credit(rewards.reshape(-1))  # chain g * n + s: seat s of game g
            ended = np.flatnonzero(step.terminated | step.truncated)
            if len(ended):
                n = self.game.num_players
                buffer.end(self.chains(np.repeat(ended, n), np.tile(np.arange(n), len(ended))))
                outcome = step.info["final_outcome"][ended, self.learner_seat[ended]]
                self.finished.extend(zip(self.kind[ended].tolist(), outcome.tolist()))
                self.new_episodes(ended)
        self.step = step
        return decisions


# ---------------------------------------------------------------------------- PPO update
def ppo_update(
    args: Args, agent: ActorCritic, optimizer, buffer: Transitions, device, rng, critic_only: bool = False
) -> dict:
    """One PPO update on the batch; ``critic_only``: the value loss alone (the actor is kept)."""
    index, adv, returns = buffer.advantages(args.gamma, args.gae_lambda)
    obs = torch.as_tensor(buffer.obs[index], device=device)
    hidden = torch.as_tensor(buffer.hidden[index], device=device)
    mask = torch.as_tensor(buffer.mask[index], device=device)
    action = torch.as_tensor(buffer.action[index], device=device)
    old_logp = torch.as_tensor(buffer.logp[index], device=device)
    old_value = torch.as_tensor(buffer.value[index], device=device)
    advantages = torch.as_tensor(adv, device=device)
    returns_t = torch.as_tensor(returns, device=device)
    size = len(index)
    stats = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "clipfrac": 0.0}
    guessing = agent.guess is not None and not critic_only
    if guessing:
        stats["hand_guess_loss"] = 0.0
    count = 0
    for _ in range(args.update_epochs):
        for part in np.array_split(rng.permutation(size), args.num_minibatches):
            mb = torch.as_tensor(part, device=device)
            logp, entropy, value = agent.evaluate(obs[mb], mask[mb], action[mb], hidden[mb])
            log_ratio = logp - old_logp[mb]
            ratio = log_ratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - log_ratio).mean()
                clipfrac = ((ratio - 1.0).abs() > args.clip_coef).float().mean()
            mb_adv = advantages[mb]
            mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            policy_loss = torch.max(
                -mb_adv * ratio, -mb_adv * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
            ).mean()
            clipped = old_value[mb] + torch.clamp(value - old_value[mb], -args.clip_coef, args.clip_coef)
            value_loss = 0.5 * torch.max((value - returns_t[mb]) ** 2, (clipped - returns_t[mb]) ** 2).mean()
            loss = args.vf_coef * value_loss
            if not critic_only:
                loss = loss + policy_loss - args.ent_coef * entropy.mean()
            if guessing:
                guess_loss = agent.guess_loss(obs[mb], hidden[mb])
                loss = loss + args.hand_guess * guess_loss
                stats["hand_guess_loss"] += float(guess_loss.detach())
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()
            for key, v in zip(stats, (policy_loss, value_loss, entropy.mean(), approx_kl, clipfrac)):
                stats[key] += float(v.detach())
            count += 1
        if args.target_kl is not None and float(approx_kl) > args.target_kl:
            break
    stats = {k: v / max(count, 1) for k, v in stats.items()}
    y, pred = returns, buffer.value[index]
    stats["explained_variance"] = float(1 - np.var(y - pred) / np.var(y)) if np.var(y) > 0 else float("nan")
    return stats


# ---------------------------------------------------------------------------- warm start
def behaviour_cloning(args: Args, game: Game, agent: ActorCritic, optimizer, device, seed: int) -> dict:
    """Imitate ``bc_teacher`` playing every seat: cross-entropy of the actor on the
    teacher's actions, squared error of the critic on the teacher's outcomes."""
    teacher = make_agent(args.bc_teacher, game, seed=hash_seed(seed, 202))
    N = min(args.num_envs, args.bc_decisions)
    env = UnoVectorEnv(N, game.config, seed=hash_seed(seed, 203))
    obs = np.zeros((args.bc_decisions, game.observation_size), dtype=np.float32)
    mask = np.zeros((args.bc_decisions, game.num_actions), dtype=bool)
    action = np.zeros(args.bc_decisions, dtype=np.int64)
    outcome = np.zeros(args.bc_decisions, dtype=np.float32)
    hands = HiddenHands(game) if args.privileged_critic else None
    hidden = np.zeros((args.bc_decisions, hands.size if hands else 0), dtype=np.float32)
    pending: list[list[tuple[int, int]]] = [[] for _ in range(N)]  # per game: (row, seat) of its episode
    step = env.reset(seed=hash_seed(seed, 203))
    rows = 0
    while rows < args.bc_decisions:
        take = min(N, args.bc_decisions - rows)
        chosen = teacher.act_batch(step.obs, step.mask)
        obs[rows : rows + take] = step.obs[:take]
        mask[rows : rows + take] = step.mask[:take]
        action[rows : rows + take] = chosen[:take]
        if hands is not None:
            hidden[rows : rows + take] = hands(env.state, np.arange(take), step.seat[:take])
        for i in range(take):
            pending[i].append((rows + i, int(step.seat[i])))
        rows += take
        step = env.step(chosen)
        for g in np.flatnonzero(step.terminated | step.truncated):
            for row, seat in pending[g]:
                outcome[row] = float(np.sign(step.info["final_outcome"][g, seat]))
            pending[g] = []
    seen = np.ones(args.bc_decisions, dtype=bool)
    for unfinished in pending:
        seen[[row for row, _ in unfinished]] = False  # no outcome yet: no value target
    rng = np.random.default_rng(hash_seed(seed, 204))
    o, m, a, h = (torch.as_tensor(x, device=device) for x in (obs, mask, action, hidden))
    z, w = torch.as_tensor(outcome, device=device), torch.as_tensor(seen, device=device).float()
    minibatch = 1024
    stats = {}
    for epoch in range(args.bc_epochs):
        order = torch.as_tensor(rng.permutation(args.bc_decisions), device=device)
        correct = total_loss = 0.0
        for start in range(0, args.bc_decisions, minibatch):
            mb = order[start : start + minibatch]
            logits = agent.masked_logits(o[mb], m[mb])
            policy_loss = nn.functional.cross_entropy(logits, a[mb])
            value_loss = ((agent.value(o[mb], h[mb]) - z[mb]) ** 2 * w[mb]).sum() / w[mb].sum().clamp(min=1)
            loss = policy_loss + 0.5 * value_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            correct += float((logits.argmax(1) == a[mb]).sum())
            total_loss += float(loss.detach()) * len(mb)
        stats = {
            "bc_epoch": epoch,
            "bc_accuracy": correct / args.bc_decisions,
            "bc_loss": total_loss / args.bc_decisions,
        }
        print(f"warm start epoch {epoch}: imitation accuracy {stats['bc_accuracy']:.3f}", file=sys.stderr)
    return stats


def init_from(agent: ActorCritic, path: str, game: Game, device) -> None:
    """Start ``agent`` from a checkpoint (both networks) or a network file (the actor,
    :func:`uno_env.agents.neural.transplant` to this game; the critic keeps its initialisation)."""
    if not path.endswith(".npz"):
        state = torch.load(path, map_location=device, weights_only=False)["agent"]
        missing, unexpected = agent.load_state_dict(state, strict=False)
        if unexpected or any(not key.startswith("guess.") for key in missing):  # a new guess head may start
            raise RuntimeError(f"--init-from {path}: missing {missing}, unexpected {unexpected}")
        return
    layers = neural.transplant(neural.load_network(path), game)
    linears = [m for m in agent.actor if isinstance(m, nn.Linear)]
    with torch.no_grad():
        for linear, (weight, bias) in zip(linears, layers):
            linear.weight.copy_(torch.as_tensor(weight))
            linear.bias.copy_(torch.as_tensor(bias))


# ---------------------------------------------------------------------------- evaluation
def evaluate(
    policy_path: pathlib.Path, game: Game, opponents: list[str], games: int, seed: int, colours: str = "all"
) -> dict:
    """The exported policy against each opponent in seat-rotated hands, through the
    tournament runner's ``field`` schedule (one learner seat, or team, against the
    opponent in all the others): win rate, its 95% Wilson interval and its ratio to the
    fair share, hand length. ``colours``: the ``ppo`` option (``as_seen``: the network alone)."""
    from uno_env.arena import run_tournament

    spec = f"ppo:weights={policy_path}" if colours == "all" else f"ppo:weights={policy_path}:colours={colours}"
    out = {}
    for opponent in opponents:  # the learner in one seat (one team), the opponent in the rest
        summary, *_ = run_tournament(
            [spec, opponent], game.config, games, seed=seed, schedule="field", workers=1, bootstrap=0
        )
        cell = summary["field"][opponent]
        out[opponent] = {
            "win_rate": cell["win_rate"],
            "ci": cell["win_rate_ci"],
            "ratio": cell["ratio"],
            "games": cell["games"],
            "hand_length": summary["hand_length"]["mean"],
        }
    return out


# ---------------------------------------------------------------------------- run files
def run_name(args: Args) -> str:
    return args.run_name or f"uno{args.num_players}p_{args.episode}__{args.exp_name}__{args.seed}__{int(time.time())}"


def select_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name not in ("cpu", "cuda"):
        raise ValueError(f"--device must be auto, cpu or cuda, got {name!r}")
    return torch.device(name)


def check_args(args: Args, game: Game | None = None) -> None:
    """Refuse bad settings before anything is written (ValueError naming the setting)."""
    from uno_env.agents import parse_agent_spec

    if args.learner_team and game is not None and not game.config.partners:
        raise ValueError(TEAM_NEEDS_PARTNERS)

    positive = ("total_timesteps", "num_envs", "batch_size", "num_minibatches", "update_epochs", "hidden")
    for name in positive + ("snapshot_every", "max_snapshots", "checkpoint_every"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
    if args.eval_every < 0 or args.bc_decisions < 0 or args.eval_games < 2:
        raise ValueError("--eval-every and --bc-decisions must be >= 0 and --eval-games >= 2")
    for kind in parse_pool(args.opponents)[0]:
        if kind not in ("latest", "snapshot"):
            parse_agent_spec(kind)
    for spec in args.eval_opponents.split(","):
        if spec.strip():
            parse_agent_spec(spec.strip())
    parse_agent_spec(args.bc_teacher)
    if args.critic_warmup < 0:
        raise ValueError(f"--critic-warmup must be >= 0, got {args.critic_warmup}")
    if args.seat_order not in neural.SEAT_ORDERS:
        raise ValueError(f"--seat-order must be one of {', '.join(neural.SEAT_ORDERS)}, got {args.seat_order!r}")
    if not args.hand_guess >= 0 or not np.isfinite(args.hand_guess):
        raise ValueError(f"--hand-guess must be a finite weight >= 0, got {args.hand_guess}")
    if args.init_from and game is not None:
        if args.init_from.endswith(".npz"):
            network = neural.load_network(args.init_from)  # ValueError naming the file's problem
            if network.w1.shape[1] != args.hidden or network.w2.shape[1] != args.hidden:
                raise ValueError(
                    f"--init-from {args.init_from}: its hidden layers have {network.w1.shape[1]} and "
                    f"{network.w2.shape[1]} units, --hidden is {args.hidden}"
                )
            problems = network.mismatches(game)
            if problems:
                raise ValueError(f"--init-from {args.init_from} cannot play this table: {'; '.join(problems)}")
            order = network.seat_order
        else:
            if not pathlib.Path(args.init_from).is_file():
                raise ValueError(f"--init-from {args.init_from}: no such checkpoint")
            saved = torch.load(args.init_from, map_location="cpu", weights_only=False)
            order = saved.get("args", {}).get("seat_order", "clockwise")
        if order != args.seat_order:
            raise ValueError(
                f"--init-from {args.init_from} reads the seats in {order} order, --seat-order is {args.seat_order}"
            )


def plot_curve(
    stages,
    png_path: pathlib.Path,
    title: str,
    xlabel: str = "learner decisions (env steps of training)",
    fair_share: float = 0.5,
) -> None:
    """Evaluation win rates (95% Wilson bands) against training decisions. ``stages``: one
    ``progress.csv`` path, or a list of (path, last update) of runs that continued one
    another (``--init-from``): their steps add up, a dotted line marks each new stage.
    A dashed line marks the learner's fair share (one seat's, or one team's)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if isinstance(stages, (str, pathlib.Path)):
        stages = [(stages, None)]
    rows: list[dict[str, Any]] = []
    offset, starts = 0, []
    for path, last in stages:
        with open(path) as f:
            part = [r for r in csv.DictReader(f) if last is None or int(r["update"]) <= last]
        starts.append(offset)
        for r in part:
            rows.append({**r, "global_step": int(r["global_step"]) + offset})
        offset = rows[-1]["global_step"] if rows else offset
    fig, ax = plt.subplots(figsize=(7, 4))
    keys = [k for k in (rows[0] if rows else {}) if k.startswith("eval_") and k.endswith("_win_rate")]
    for key in keys:
        shown = [r for r in rows if r.get(key)]
        if not shown:
            continue
        x = [r["global_step"] for r in shown]
        (line,) = ax.plot(x, [float(r[key]) for r in shown], marker="o", ms=3, label=key[5:-9])
        lo = [float(r[key.replace("_win_rate", "_lo")]) for r in shown]
        hi = [float(r[key.replace("_win_rate", "_hi")]) for r in shown]
        ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2)
    for start in starts[1:]:
        ax.axvline(start, color="grey", lw=0.8, ls=":")
    ax.axhline(fair_share, color="grey", lw=0.8, ls="--", label="fair share")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("win rate of the greedy policy")
    ax.set_title(title, fontsize=9)
    ax.set_ylim(0, 1)
    ax.legend(title="against")
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------------------- main
def train(args: Args) -> dict:
    """Train; returns the final evaluation and the run folder."""
    checkpoint = None
    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu", weights_only=False)
        saved = checkpoint["args"]
        saved["total_timesteps"], saved["resume"] = args.total_timesteps, args.resume
        saved["progress"], saved["stop_after_update"] = args.progress, args.stop_after_update
        saved["rules"] = tuple(saved.get("rules", ()))
        args = Args(**saved)
    device = select_device(args.device)
    game = make_game(args)
    check_args(args, game)
    torch.set_num_threads(args.threads or min(os.cpu_count() or 1, 4))
    torch.manual_seed(args.seed)
    name = run_name(args)
    folder = pathlib.Path(args.out_dir) / name
    folder.mkdir(parents=True, exist_ok=True)
    args.run_name = name
    (folder / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=2))

    agent = ActorCritic(game, args.hidden, args.privileged_critic, args.hand_guess > 0, args.seat_order).to(device)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    rng = np.random.default_rng(hash_seed(args.seed, 1))
    update, global_step = 0, 0
    if checkpoint is not None:
        agent.load_state_dict(checkpoint["agent"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        update, global_step = checkpoint["update"], checkpoint["global_step"]
        rng.bit_generator.state = checkpoint["rng"]
        torch.set_rng_state(checkpoint["torch_rng"])
    elif args.init_from:
        init_from(agent, args.init_from, game, device)
    elif args.bc_decisions > 0:
        behaviour_cloning(args, game, agent, optimizer, device, args.seed)

    pool = OpponentPool(args.opponents, game, agent, args.hidden, args.max_snapshots, args.seed)
    for state in checkpoint["snapshots"] if checkpoint is not None else []:
        pool.add_snapshot(state)
    rollout = Rollout(args, game, agent, pool, device, seed=hash_seed(args.seed, 3, update))

    writer = None
    if args.tensorboard:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(folder))
        writer.add_text("args", "\n".join(f"{k}: {v}" for k, v in dataclasses.asdict(args).items()))
    eval_opponents = [s.strip() for s in args.eval_opponents.split(",") if s.strip()]
    columns = ["update", "global_step", "seconds", "steps_per_second", "env_share", "opponent_share"]
    columns += ["policy_share", "update_share", "learning_rate"]
    columns += ["policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac", "explained_variance"]
    columns += ["hand_guess_loss"] if args.hand_guess > 0 else []
    columns += [f"train_vs_{k}" for k in pool.kinds]
    for opp in eval_opponents:
        columns += [f"eval_{opp}_win_rate", f"eval_{opp}_lo", f"eval_{opp}_hi"]
    csv_path = folder / "progress.csv"
    if checkpoint is not None and csv_path.exists():  # keep the rows up to the checkpoint
        with open(csv_path) as f:
            kept = [r for r in csv.DictReader(f) if int(r["update"]) <= update]
    else:
        kept = []
    with open(csv_path, "w", newline="") as f:
        out = csv.DictWriter(f, columns, extrasaction="ignore")
        out.writeheader()
        out.writerows(kept)

    def checkpoint_now() -> None:
        torch.save(
            {
                "agent": agent.state_dict(),
                "optimizer": optimizer.state_dict(),
                "update": update,
                "global_step": global_step,
                "args": dataclasses.asdict(args),
                "snapshots": [m.state_dict() for m in pool.snapshots],
                "rng": rng.bit_generator.state,
                "torch_rng": torch.get_rng_state(),
            },
            folder / "checkpoint.pt",
        )

    def evaluate_now() -> dict:
        path = folder / "policy.npz"
        meta = {"run": name, "update": update, "global_step": global_step, "args": dataclasses.asdict(args)}
        agent.export(path, game, meta)
        (folder / "policies").mkdir(exist_ok=True)
        (folder / "policies" / f"policy_{update:05d}.npz").write_bytes(path.read_bytes())
        return evaluate(path, game, eval_opponents, args.eval_games, seed=hash_seed(args.seed, 9))

    from tqdm import tqdm

    start = time.perf_counter()
    total_updates = max(args.total_timesteps // args.batch_size, 1)
    results: dict = {}
    bar = tqdm(total=args.total_timesteps, initial=global_step, unit="step", disable=not args.progress, file=sys.stderr)
    while global_step < args.total_timesteps:
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = args.learning_rate * max(1.0 - update / total_updates, 0.05)
        t0 = time.perf_counter()
        env0, opponent0, policy0 = rollout.env_seconds, rollout.opponent_seconds, rollout.policy_seconds
        decisions = rollout.collect()
        t1 = time.perf_counter()
        stats = ppo_update(args, agent, optimizer, rollout.buffer, device, rng, critic_only=update < args.critic_warmup)
        update_seconds = time.perf_counter() - t1
        rollout.buffer.keep_open()
        update += 1
        global_step += decisions
        seconds = time.perf_counter() - t0
        env_share = (rollout.env_seconds - env0) / seconds
        opponent_share = (rollout.opponent_seconds - opponent0) / seconds
        row = {
            "update": update,
            "global_step": global_step,
            "seconds": time.perf_counter() - start,
            "steps_per_second": decisions / seconds,
            "env_share": env_share,
            "opponent_share": opponent_share,
            "policy_share": (rollout.policy_seconds - policy0) / seconds,
            "update_share": update_seconds / seconds,
            "learning_rate": optimizer.param_groups[0]["lr"],
            **stats,
        }
        finished = np.array(rollout.finished, dtype=np.int64).reshape(-1, 2)
        rollout.finished = []
        for k, kind in enumerate(pool.kinds):
            outcomes = finished[finished[:, 0] == k, 1]
            row[f"train_vs_{kind}"] = float((outcomes > 0).mean()) if len(outcomes) else ""
        if update % args.snapshot_every == 0:
            pool.add_snapshot({k: v.detach().clone() for k, v in agent.state_dict().items()})
        last = global_step >= args.total_timesteps or update == args.stop_after_update
        if last or (args.eval_every and update % args.eval_every == 0):
            results = evaluate_now()
            for opp, r in results.items():
                row[f"eval_{opp}_win_rate"], (row[f"eval_{opp}_lo"], row[f"eval_{opp}_hi"]) = r["win_rate"], r["ci"]
            tqdm.write(
                f"update {update} step {global_step}: "
                + ", ".join(
                    f"{o} {r['win_rate']:.3f} [{r['ci'][0]:.3f}, {r['ci'][1]:.3f}]" for o, r in results.items()
                ),
                file=sys.stderr,
            )
        if last or update % args.checkpoint_every == 0:
            checkpoint_now()
        with open(csv_path, "a", newline="") as f:
            csv.writer(f).writerow([row.get(c, "") for c in columns])
        if writer is not None:
            for key, value in row.items():
                if key not in ("update", "global_step") and value != "":
                    group = "eval" if key.startswith("eval_") else "train" if key.startswith("train_") else "ppo"
                    writer.add_scalar(f"{group}/{key}", value, global_step)
        bar.set_postfix(sps=f"{row['steps_per_second']:.0f}", env=f"{env_share:.0%}", opponents=f"{opponent_share:.0%}")
        bar.update(decisions)
        if last:
            break
    bar.close()
    if writer is not None:
        writer.close()
    plot_curve(csv_path, folder / "curve.png", name, fair_share=1 / game.config.num_teams)
    return {"folder": str(folder), "evaluation": results, "updates": update, "global_step": global_step}


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
