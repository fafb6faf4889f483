"""A ``gymnasium.vector.VectorEnv`` of N games for one learner seat.

The other seats are played inside the compiled kernel, in batch, by compiled
policies (one per seat, configurable); ``step`` returns once it is the learner's
turn again in every game, or its episode ended. The reward of a step is the
learner's own: everything credited to the learner's seat from its action up to
its next decision (rewards that arrive on the opponents' moves and at the game's
end included). The learner's episode ends with the game, or when the learner is
eliminated (Challenge UNO): then ``terminated`` is set.

Autoreset: ``AutoresetMode.SAME_STEP``. On a step that ends an episode the
returned observation is the first of the next episode; ``infos["final_obs"]``
(an object array, None elsewhere, with ``infos["_final_obs"]`` as its mask) holds
the learner's final observation and ``infos["final_info"]`` its ``outcome`` (+1 won,
-1 lost, 0 truncated) and ``episode_steps`` (decisions of all seats).
``infos["action_mask"]`` (and :meth:`action_masks`) give the learner's legal actions,
``infos["learner_seat"]`` its seat; the info layout, the ``illegal_action="lose"``
default and the ``opponents`` spec are those of :class:`~uno_env.UnoGymEnv`
(:mod:`uno_env.learner`), with compiled opponents only.
``render_mode="ansi"`` or ``"rgb_array"``: :meth:`render` returns one frame per game.
"""

from __future__ import annotations

from collections.abc import Mapping

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..engine.config import RuleConfig
from ..engine.game import Game
from ..engine.kernels import NeedsPickleProtocol2
from ..learner import ILLEGAL_ACTION
from .arguments import learner_seats
from .core import UnoVectorEnv

RENDER_MODES = ("ansi", "rgb_array")


def learner_spaces(game) -> tuple[spaces.Box, spaces.Discrete]:
    """The single-game observation and action spaces of a learner seat."""
    spec = game.obs_spec
    return spaces.Box(spec.low, spec.high, (spec.size,), np.float32), spaces.Discrete(game.num_actions)


class UnoGymVectorEnv(NeedsPickleProtocol2, gymnasium.vector.VectorEnv):
    """N games, one learner seat, compiled opponents (see the module doc).

    ``learner_seat``: the seat the learner plays. ``opponents``: the compiled policy of
    the other seats (a name of :data:`uno_env.agents.policies.POLICY_IDS`, a ``CompiledPolicy``
    or an agent with a ``policy_id``, for all, one per other seat in seat order, or a
    dict seat -> policy; see :mod:`uno_env.learner`). ``illegal_action``: default
    ``"lose"``, as :class:`~uno_env.UnoGymEnv`. ``seed``: default seed of the first
    reset. ``render_mode``: None, ``"ansi"`` or ``"rgb_array"``. ``parallel``: see
    :class:`UnoVectorEnv`. ``copy``: return copies of the observations (else the env's
    buffers, overwritten by the next call).
    ``config`` / ``**settings``: the rules."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": list(RENDER_MODES)}

    def __init__(
        self,
        num_envs: int,
        config: RuleConfig | None = None,
        *,
        learner_seat: int = 0,
        opponents="random",
        seed: int | None = None,
        parallel: bool | str = "auto",
        copy: bool = True,
        illegal_action: str = ILLEGAL_ACTION,
        render_mode: str | None = None,
        **settings,
    ):
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)} or None, got {render_mode!r}")
        if not isinstance(copy, bool):
            raise ValueError(f"copy must be True or False, got {copy!r}")
        self.render_mode = render_mode
        config = Game(config, illegal_action=illegal_action, **settings).config
        seats = learner_seats(config.num_players, learner_seat, opponents)
        self.env = UnoVectorEnv(num_envs, config, seats=seats, parallel=parallel)
        self.learner_seat = int(learner_seat)
        self.num_envs = self.env.num_envs
        self.copy = copy
        self._default_seed = seed
        self.single_observation_space, self.single_action_space = learner_spaces(self.env.game)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.metadata = dict(self.metadata)

    @property
    def config(self) -> RuleConfig:
        return self.env.config

    def reset(self, *, seed=None, options=None):
        """``seed``: an integer (game i gets seed + i), a list of N seeds, or None.
        ``options={"reset_mask": mask}`` resets only the masked games; any other option
        is refused (a position goes into one game with ``UnoVectorEnv.load_state``)."""
        default = seed is None and self._default_seed is not None
        if default:
            seed = self._default_seed
        if options is not None and not isinstance(options, Mapping):
            raise ValueError(f"reset options must be a dict or None, got {options!r}")
        unknown = sorted(set(options or ()) - {"reset_mask"}, key=str)
        if "position" in unknown:
            raise ValueError(
                "reset option 'position' is not one of the vector env's: load a position into game i with "
                "UnoVectorEnv.load_state(i, Game.from_position(position)) (UnoGymVectorEnv.env is the UnoVectorEnv)"
            )
        if unknown:
            raise ValueError(f"unknown reset option(s) {', '.join(map(str, unknown))}; known: reset_mask")
        which = None
        if options and "reset_mask" in options:
            which = np.asarray(options["reset_mask"])
        step = self.env.reset(seed=seed, which=which)  # checks everything before any game changes
        if default:
            self._default_seed = None
        return self._obs(step.obs), self._infos()

    def step(self, actions):
        step = self.env.step(actions)
        seat = self.learner_seat
        rewards = step.rewards[:, seat].copy()
        terminated = step.terminated.copy()
        truncated = step.truncated.copy()
        infos = self._infos()
        done = terminated | truncated
        if done.any():
            final_obs = np.full(self.num_envs, None, dtype=object)
            for i in np.flatnonzero(done):
                final_obs[i] = step.info["final_obs"][i, 0].copy()
            infos["final_obs"] = final_obs
            infos["_final_obs"] = done
            infos["final_info"] = {
                "outcome": step.info["final_outcome"][:, seat].astype(np.int64) * done,
                "_outcome": done,
                "episode_steps": step.info["final_steps"].astype(np.int64) * done,
                "_episode_steps": done,
                "learner_seat": np.full(self.num_envs, seat, dtype=np.int64),
                "_learner_seat": done,
            }
            infos["_final_info"] = done
        return self._obs(step.obs), rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """(N, num_actions) bool: the learner's legal actions in each game."""
        return self.env.mask.astype(bool)

    def render(self) -> tuple | None:
        """One frame per game from the learner's seat (``render_mode`` ``"ansi"``: text,
        ``"rgb_array"``: images); None without a render mode."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        return tuple(self.env.render_games(self.render_mode, self.learner_seat))

    def _infos(self) -> dict:
        return {"action_mask": self.action_masks(), "learner_seat": np.full(self.num_envs, self.learner_seat)}

    def _obs(self, obs: np.ndarray) -> np.ndarray:
        return obs.copy() if self.copy else obs

    def close_extras(self, **kwargs) -> None:
        if hasattr(self, "env"):  # not when __init__ refused its arguments
            self.env.close()
