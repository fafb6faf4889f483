"""A stable-baselines3 ``VecEnv`` of N games for one learner seat (needs stable-baselines3).

Same semantics as :class:`~uno_env.vector.UnoGymVectorEnv` (one learner seat,
compiled opponents inside the kernel, the learner's own rewards), in SB3's
conventions: ``step_wait`` returns ``(obs, rewards, dones, infos)`` with one info
dict per game; a finished game is reset in the same step and its info holds
``terminal_observation``, ``TimeLimit.truncated``, ``outcome`` and ``episode_steps``.

Each info dict also holds the learner's ``action_mask`` row and ``learner_seat``
(the info layout of :mod:`uno_env.learner`); ``illegal_action`` defaults to
``"lose"`` and ``opponents`` takes the spec of :class:`~uno_env.UnoGymEnv`
(compiled opponents only). ``render_mode="rgb_array"`` makes ``get_images()``
(and SB3's tiled ``render()``) draw every game from the learner's seat;
``set_attr`` sets a setting shared by every game (``indices`` must cover them all).

For sb3-contrib's MaskablePPO: ``is_masking_supported`` calls
``has_attr("action_masks")`` (true here) and ``get_action_masks`` stacks
``env_method("action_masks")``, which returns one bool mask row per game.

>>> from sb3_contrib import MaskablePPO
>>> env = UnoSB3VecEnv(16, num_players=2, opponents="random")
>>> model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=256).learn(512)  # more steps to learn
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvStepReturn

from ..engine.config import RuleConfig
from ..engine.game import Game, action_ids
from ..engine.seeding import seeds_to_rng
from ..learner import ILLEGAL_ACTION
from .arguments import learner_seats
from .core import UnoVectorEnv
from .gym_adapter import RENDER_MODES, learner_spaces


class UnoSB3VecEnv(VecEnv):
    """N games, one learner seat, compiled opponents, as an SB3 ``VecEnv``.

    Arguments as :class:`~uno_env.vector.UnoGymVectorEnv`; ``seed`` is the seed of the
    first reset (SB3's ``seed()`` sets the next one: game i gets seed + i)."""

    SHARED_SETTINGS = ("render_mode",)
    """Attributes ``set_attr`` may change (one value for every game)."""

    def __init__(
        self,
        num_envs: int,
        config: RuleConfig | None = None,
        *,
        learner_seat: int = 0,
        opponents="random",
        seed: int | None = None,
        parallel: bool | str = "auto",
        illegal_action: str = ILLEGAL_ACTION,
        render_mode: str | None = None,
        **settings,
    ):
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)} or None, got {render_mode!r}")
        self._render_mode = render_mode
        config = Game(config, illegal_action=illegal_action, **settings).config
        seats = learner_seats(config.num_players, learner_seat, opponents)
        self.env = UnoVectorEnv(num_envs, config, seats=seats, parallel=parallel)
        self.learner_seat = int(learner_seat)
        observation_space, action_space = learner_spaces(self.env.game)
        super().__init__(self.env.num_envs, observation_space, action_space)
        self.render_mode = render_mode
        self._actions: np.ndarray | None = None
        if seed is not None:
            self.seed(seed)

    @property
    def config(self) -> RuleConfig:
        return self.env.config

    # ------------------------------------------------------------------ VecEnv API
    def reset(self) -> np.ndarray:
        seeds = self._seeds
        seed = None if all(s is None for s in seeds) else list(seeds)
        step = self.env.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return step.obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        """``actions``: N action ids (shape ``(N,)``); anything else raises
        ``IllegalActionError`` here, before any game changes."""
        self._actions = action_ids(actions, self.num_envs, self.env.num_actions)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_async() must come before step_wait()")
        actions, self._actions = self._actions, None
        step = self.env.step(actions)
        seat = self.learner_seat
        rewards = step.rewards[:, seat].copy()
        dones = step.terminated | step.truncated
        masks = self.action_masks()
        infos: list[dict] = [{"action_mask": masks[i], "learner_seat": seat} for i in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i] |= {
                "terminal_observation": step.info["final_obs"][i, 0].copy(),
                "TimeLimit.truncated": bool(step.truncated[i] and not step.terminated[i]),
                "outcome": int(step.info["final_outcome"][i, seat]),
                "episode_steps": int(step.info["final_steps"][i]),
            }
        return step.obs.copy(), rewards, dones, infos

    def close(self) -> None:
        self.env.close()

    def action_masks(self) -> np.ndarray:
        """(N, num_actions) bool: the learner's legal actions in each game."""
        return self.env.mask.astype(bool)

    def seed(self, seed: int | None = None):
        """SB3's ``seed()``: the next reset gives game i seed ``seed + i``. The seed is checked
        here (:func:`~uno_env.engine.seeding.check_seed`, every game's seed in range), so a
        refused one leaves the seeds of the next reset as they were."""
        if seed is not None:
            seeds_to_rng(seed, self.num_envs)  # raises ValueError naming the seed
        return super().seed(seed)

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        if isinstance(indices, Iterable):
            return [int(i) for i in indices]
        raise ValueError(f"indices must be None, an int or a sequence of ints, got {indices!r}")

    def get_attr(self, attr_name: str, indices=None) -> list:
        """An attribute of the games: one shared value per index (the games share one
        configuration). ``action_masks`` is a method, found here for ``has_attr``."""
        count = len(self._indices(indices))
        if attr_name == "render_mode":
            return [getattr(self, "_render_mode", None)] * count
        return [getattr(self, attr_name)] * count

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        """Set a shared setting (:attr:`SHARED_SETTINGS`) for every game; the games share
        one configuration, so ``indices`` must name them all."""
        if attr_name not in self.SHARED_SETTINGS:
            raise AttributeError(
                f"UnoSB3VecEnv: cannot set {attr_name!r}; settable: {', '.join(self.SHARED_SETTINGS)} "
                "(the rules are fixed: build a new env to change them)"
            )
        if sorted(set(self._indices(indices))) != list(range(self.num_envs)):
            raise ValueError(f"UnoSB3VecEnv: {attr_name!r} is shared by every game; set it for all (indices=None)")
        if attr_name == "render_mode":
            if value is not None and value not in RENDER_MODES:
                raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)} or None, got {value!r}")
            self._render_mode = value
            self.render_mode = value

    def get_images(self) -> list:
        """Every game as an RGB image from the learner's seat (SB3's ``render()`` tiles them)."""
        return self.env.render_games("rgb_array", self.learner_seat)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        """``action_masks``: one mask row per game (what sb3-contrib's ``get_action_masks`` stacks)."""
        rows = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in rows]
        raise AttributeError(f"UnoSB3VecEnv games have no method {method_name!r} (only action_masks)")

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))
