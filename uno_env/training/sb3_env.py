"""The env of the sb3 script (:mod:`uno_env.training.sb3`): N games of one
:class:`uno_env.vector.UnoVectorEnv` as an SB3 ``VecEnv`` of the learner's decisions only,
the other seats played by opponents drawn from the pool
(:class:`uno_env.training.sb3_pool.OpponentPool`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from uno_env.agents import Agent
from uno_env.engine import RuleConfig
from uno_env.training.rules import TEAM_NEEDS_PARTNERS
from uno_env.training.sb3_pool import OpponentPool
from uno_env.vector import UnoVectorEnv
from uno_env.vector.gym_adapter import learner_spaces


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
