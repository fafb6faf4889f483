"""A Gymnasium single-agent view of UNO: one learner seat, opponents played inside.

>>> from uno_env import UnoGymEnv
>>> env = UnoGymEnv(num_players=3, opponents="random")
>>> observation, info = env.reset(seed=0)
>>> mask = env.action_masks()            # what sb3-contrib's MaskablePPO asks for
>>> observation, reward, terminated, truncated, info = env.step(int(mask.nonzero()[0][0]))

``opponents``: one policy for every other seat, a list with one policy per other
seat in seat order (skipping the learner), or a dict seat -> policy. A policy is
the name of a compiled policy (``uno_env.policies.POLICY_IDS``, e.g. ``"random"``),
an agent of ``agents.make_agent(...)``, or any callable
``policy(observation, action_mask) -> action id`` (:mod:`uno_env.learner` has the
details, shared with the vector faces). The learner's reward is its own,
including rewards that arise while opponents act (they are added to the
learner's next step).

Like the vector faces and unlike the AEC env, ``illegal_action`` defaults to
``"lose"`` here (:data:`uno_env.learner.ILLEGAL_ACTION`): a Gymnasium env must
accept every action of its space, so a masked-out action id ends the episode with
-1 for the learner (mask your policy to avoid it). What is not an action id (a
bool, a float, a string, an id outside the space) raises ``IllegalActionError``
and changes nothing.

``info``: ``action_mask`` (bool) and ``learner_seat`` at every step, ``outcome``
(+1 won, -1 lost, 0 truncated) and ``episode_steps`` when the episode ends.
``gymnasium.make("uno_env/Uno-v0", num_players=3)`` builds one too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .engine import Game, IllegalActionError, RuleConfig
from .engine import kernels as K
from .engine.game import action_id
from .engine.layout import P_I_ALIVE, P_I_OUTCOME, PH_OVER, S_CURRENT, S_PHASE, S_STEP, S_TERMINATED, S_TRUNCATED
from .learner import ILLEGAL_ACTION, CompiledPolicy, Policy, is_seedable, opponent_policies, reseed
from .render import RECENT_EVENTS

__all__ = ["CompiledPolicy", "UnoGymEnv"]


class UnoGymEnv(K.NeedsPickleProtocol2, gym.Env):
    """UNO for one learner seat (see the module docstring)."""

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        opponents: str | Policy | Sequence[str | Policy] | Mapping[int, str | Policy] = "random",
        learner_seat: int | str = 0,
        render_mode: str | None = None,
        illegal_action: str = ILLEGAL_ACTION,
        **settings,
    ):
        self.config = RuleConfig.from_kwargs(illegal_action=illegal_action, **settings)
        self.game = Game(self.config)
        n = self.config.num_players
        if learner_seat != "random" and not (
            isinstance(learner_seat, int) and not isinstance(learner_seat, bool) and 0 <= learner_seat < n
        ):
            raise ValueError(f"learner_seat must be a seat 0..{n - 1} or 'random', got {learner_seat!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None")
        fixed_seat = None if isinstance(learner_seat, str) else learner_seat  # None: "random" (checked above)
        self.learner_seat_setting = learner_seat
        self.render_mode = render_mode
        self.opponents = opponent_policies(self.game, fixed_seat, opponents)
        self.observation_space = spaces.Box(self.game.obs_spec.low, self.game.obs_spec.high, dtype=np.float32)
        self.action_space = spaces.Discrete(self.game.num_actions)
        self._state = self.game.new_state()
        self._rewards = np.zeros((1, n), dtype=np.float32)
        self._mask = np.zeros(self.game.num_actions, dtype=np.int8)
        self._seeded = False
        self.learner_seat = 0 if fixed_seat is None else fixed_seat
        self._seat_policy: dict[int, Policy] = {}
        self._pending_reward = 0.0
        self._events: list[dict] = []

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if isinstance(seed, np.integer) and not isinstance(seed, np.bool_):
            seed = int(seed)  # Gymnasium's seeding takes Python ints only
        super().reset(seed=seed)
        engine_seed = seed
        if seed is not None or not self._seeded:
            engine_seed = int(self.np_random.integers(2**63)) if seed is None else seed
            for k, policy in enumerate(self.opponents):
                if is_seedable(policy):
                    reseed(policy, int(self.np_random.integers(2**63)) ^ k)
        self._seeded = True
        options = dict(options or {})
        position = options.pop("position", None)
        if options:
            raise ValueError(f"unknown reset option(s): {', '.join(sorted(options))}; known: position")
        if position is not None:
            if engine_seed is None:
                engine_seed = int(self.np_random.integers(2**63))
            self._state = self.game.from_position(position, seed=engine_seed)
        else:
            self.game.reset(self._state, seed=engine_seed)
        n = self.config.num_players
        if self.learner_seat_setting == "random":
            self.learner_seat = int(self.np_random.integers(n))
        others = [s for s in range(n) if s != self.learner_seat]
        self._seat_policy = dict(zip(others, self.opponents))
        self._events = self.game.events(self._state)
        self._pending_reward = self._play_opponents()
        return self._observation(), self._info()

    def step(self, action):
        if self._state.ints[0, S_PHASE] == PH_OVER or not self._learner_in_play():
            raise IllegalActionError("the episode is over; call reset()", K.ST_GAME_OVER)
        if self._state.ints[0, S_CURRENT] != self.learner_seat:
            raise RuntimeError("internal error: it is not the learner's turn")
        action = action_id(action, self.game.num_actions)
        reward = self._pending_reward + self._apply(action, self.learner_seat)
        self._pending_reward = 0.0
        reward += self._play_opponents()
        ints = self._state.ints[0]
        terminated = bool(ints[S_TERMINATED]) or not self._learner_in_play()
        truncated = bool(ints[S_TRUNCATED])
        if self.render_mode == "human":
            self.render()
        info = self._info()
        if terminated or truncated:
            info["outcome"] = int(ints[self.game.params[P_I_OUTCOME] + self.learner_seat])
            info["episode_steps"] = int(ints[S_STEP])
        return self._observation(), float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner (bool), as sb3-contrib's MaskablePPO expects."""
        return self._current_mask().astype(bool)

    def render(self):
        from .render import render_image, render_text

        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode")
            return None
        if self.render_mode == "rgb_array":
            return render_image(self.game, self._state, self.learner_seat, self._events)
        text = render_text(self.game, self._state, self.learner_seat, self._events)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def position(self) -> dict:
        return self.game.position(self._state)

    # ------------------------------------------------------------------ internals
    def _learner_in_play(self) -> bool:
        return bool(self._state.ints[0, self.game.params[P_I_ALIVE] + self.learner_seat])

    def _apply(self, action: int, seat: int) -> float:
        state = self._state
        status = K.step_game(
            state.cards, state.ints, state.rng, self.game.params, 0, action, self._rewards, state.ev, state.evn
        )
        if status < 0:
            who = "learner" if seat == self.learner_seat else f"opponent at seat {seat}"
            message = self.game.describe_refusal(state, action, status)
            raise IllegalActionError(f"{who}: {message}", status)
        self._record_events(seat, action)
        return float(self._rewards[0, self.learner_seat])

    def _play_opponents(self) -> float:
        """Opponents act until the learner's turn or the end; returns the learner's rewards."""
        try:
            rewards = self.game.play(
                self._state, self._seat_policy, until=self.learner_seat, on_step=self._record_events
            )
        except IllegalActionError as err:
            raise IllegalActionError(f"opponent at seat {err.seat}: {err}", err.status) from None
        return float(rewards[self.learner_seat])

    def _record_events(self, seat: int, action: int) -> None:
        if self.render_mode is not None:
            self._events = (self._events + self.game.events(self._state))[-RECENT_EVENTS:]

    def _observation(self) -> np.ndarray:
        return self.game.observe(self._state, self.learner_seat)

    def _current_mask(self) -> np.ndarray:
        mask = np.zeros(self.game.num_actions, dtype=np.int8)
        if self._state.ints[0, S_CURRENT] == self.learner_seat:
            K.legal_mask(self._state.cards, self._state.ints, self.game.params, 0, mask)
        return mask

    def _info(self) -> dict:
        return {"action_mask": self._current_mask().astype(bool), "learner_seat": self.learner_seat}
