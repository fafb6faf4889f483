"""The rollout of ``uno train``: N games of one :class:`uno_env.vector.UnoVectorEnv` in which
the script plays every seat (:class:`Rollout`), and the learner's transitions with their
advantages (:class:`Transitions`).

Each episode of each game seats the learner at a random seat and draws its opponents from
the pool (:class:`uno_env.training.opponents.OpponentPool`). At every vector step the
learner's rows go through the learner network and the opponents' rows through theirs, then
all N games advance by one decision. A learner transition runs from one of its decisions to
its next one (or the episode's end): its reward is everything the learner's seat received in
between, including what arrives while opponents act. Transitions still open when a batch is
full wait for the next batch."""

from __future__ import annotations

import time
from typing import Protocol

import numpy as np
import torch

from uno_env.agents import hash_seed
from uno_env.engine import Game
from uno_env.training.network import ActorCritic, HiddenHands
from uno_env.training.opponents import OpponentPool
from uno_env.training.rules import TEAM_NEEDS_PARTNERS
from uno_env.training.table_view import TableView
from uno_env.vector import UnoVectorEnv


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


class RolloutSettings(Protocol):
    """The settings of a run that its rollout reads (``uno train``'s ``Args``)."""

    num_envs: int
    batch_size: int
    learner_team: bool
    privileged_critic: bool
    hand_guess: float
    reward: str


class Rollout:
    """The games, the per-episode seating and opponents, and the learner's transitions.

    Per game and episode the learner takes a random seat (``learner_seat``), and with
    ``--learner-team`` its partner's seat too (``learner``: per game and seat); every
    learner seat is rewarded with what its own seat received, which under partners is
    the team's outcome (R-VAR-PARTNERS)."""

    def __init__(
        self,
        args: RolloutSettings,
        game: Game,
        agent: ActorCritic,
        pool: OpponentPool,
        device,
        seed: int,
        view: TableView | None = None,
    ):
        self.args, self.game, self.agent, self.pool, self.device = args, game, agent, pool, device
        self.view = view  # the table in a network's layout that is not the game's own (the house rules')
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
            agent.layout.size,
            agent.layout.num_actions,
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
        step, N = self.step, self.args.num_envs
        decisions = 0
        actions = np.empty(N, dtype=np.int64)
        while self.buffer.num_closed < self.args.batch_size:
            learner = self.learner[np.arange(N), np.maximum(step.seat, 0)] & (step.seat >= 0)
            games = np.flatnonzero(learner)
            others = np.flatnonzero(~learner)
            t = time.perf_counter()
            if len(games):
                actions[games] = self.learner_acts(step, games)
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
            self.settle(step)
        self.step = step
        return decisions

    def learner_acts(self, step, games: np.ndarray) -> np.ndarray:
        """The learner's sampled actions in ``games``, each opening a transition."""
        obs = step.obs[games]
        mask = step.mask[games].astype(bool)
        if self.view is not None:
            obs, mask = self.view.inputs(obs), self.view.outputs(mask)
        hidden = self.hands(self.env.state, games, step.seat[games]) if self.hands else None
        with torch.no_grad():
            action, logp, value = self.agent.act(
                torch.as_tensor(obs, device=self.device),
                torch.as_tensor(mask, device=self.device),
                None if hidden is None else torch.as_tensor(hidden, device=self.device),
            )
        chosen = action.cpu().numpy()
        chains = self.chains(games, step.seat[games])
        self.buffer.add(chains, obs, mask, chosen, logp.cpu().numpy(), value.cpu().numpy(), hidden)
        return chosen if self.view is None else self.view.actions(chosen)

    def settle(self, step) -> None:
        """Credit the step's rewards to the open transitions; close those of the episodes that
        ended, note the learner's outcome against its opponents and start the next episodes."""
        rewards = step.rewards if self.margins is None else step.rewards @ self.margins.T
        self.buffer.credit(rewards.reshape(-1))  # chain g * n + s: seat s of game g
        ended = np.flatnonzero(step.terminated | step.truncated)
        if len(ended):
            n = self.game.num_players
            self.buffer.end(self.chains(np.repeat(ended, n), np.tile(np.arange(n), len(ended))))
            outcome = step.info["final_outcome"][ended, self.learner_seat[ended]]
            self.finished.extend(zip(self.kind[ended].tolist(), outcome.tolist()))
            self.new_episodes(ended)
