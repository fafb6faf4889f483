"""A Gymnasium single-agent view of UNO: one learner seat, opponents played inside.

>>> from uno_env import UnoGymEnv
>>> env = UnoGymEnv(num_players=3, opponents="random")
>>> observation, info = env.reset(seed=0)
>>> mask = env.action_masks()            # what sb3-contrib's MaskablePPO asks for
>>> observation, reward, terminated, truncated, info = env.step(int(mask.nonzero()[0][0]))

``opponents``: one policy for every other seat, a list with one policy per other
seat in seat order (skipping the learner), or a dict seat -> policy. A policy is
the name of a compiled policy (``uno_env.agents.policies.POLICY_IDS``, e.g. ``"random"``),
an agent of ``uno_env.agents.make_agent(...)``, or any callable
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

Opponents named as compiled policies (by name or id, the default ``"random"`` included)
play inside the step's one kernel call (:mod:`uno_env.opponent_turns`), each with its own
generator: the same games as the Python play loop that other opponents (agents, callables)
and the render modes take, at a fraction of its cost.

``info``: ``action_mask`` (bool) and ``learner_seat`` at every step, ``outcome``
(+1 won, -1 lost, 0 truncated) and ``episode_steps`` when the episode ends.
``gymnasium.make("uno_env/Uno-v1", num_players=3)`` builds one too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from gymnasium.utils import seeding

from . import session
from .engine import Game, IllegalActionError, RuleConfig
from .engine import kernels as K
from .engine.entry import ENGINE
from .engine.game import action_id
from .engine.layout import P_I_ALIVE, PH_OVER, S_CURRENT, S_PHASE, S_STEP, S_TERMINATED, S_TRUNCATED
from .engine.state import is_alive
from .learner import (
    ILLEGAL_ACTION,
    CompiledPolicy,
    Policy,
    is_seedable,
    opponent_policies,
    opponents_per_seat,
    random_states,
    reseed,
    restore_random_states,
)
from .opponent_turns import OPPONENT_REFUSED, learner_turn_entry
from .render import RECENT_EVENTS, render_image, render_text
from .session import ResetRequest, read_reset, start_game

__all__ = ["CompiledPolicy", "UnoGymEnv"]


STATE_ARRAYS = ("cards", "ints", "rng", "ev", "evn")
"""The arrays of a :class:`~uno_env.engine.State`, which a step snapshots."""

_empty = np.empty
_FLOAT32 = np.dtype(np.float32)
_INT8 = np.dtype(np.int8)


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
        self._random_states = [(policy, policy.random_state) for policy, _ in random_states(self.opponents)]
        # opponents that are compiled policies this env made (named by name or id) play in one
        # kernel call per step (opponent_turns), with the learner's action and its observation
        self._in_one_call = render_mode is None and all(
            isinstance(spec, (str, int, np.integer)) for spec in opponents_per_seat(n, fixed_seat, opponents)
        )
        self._compiled = [p for p in self.opponents if isinstance(p, CompiledPolicy)] if self._in_one_call else []
        self._policy_ids = np.full(n, -1, dtype=np.int64)
        self._slots = np.zeros(n, dtype=np.int64)
        self._generators = np.zeros(1 + len(self.opponents), dtype=np.uint64)
        self._bind_generators()
        self._turns = None
        self._params = self.game.params
        self._num_actions = self.game.num_actions
        self._observation_size = self.game.observation_size
        self._alive_at = 0
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
        """A new episode; ``options``: ``position``, ``deck`` or ``dealer``
        (:data:`uno_env.session.RESET_OPTIONS`, as the AEC env takes them). Checked, and the
        new game drawn, before anything changes: a refused reset leaves the env, its generator
        and its opponents' generators as they were."""
        request = read_reset(seed, options, game=self.game)
        generator = (
            seeding.np_random(request.seed) if request.seed is not None else (self.np_random, self.np_random_seed)
        )
        rng = generator[0]
        saved_rng = rng.bit_generator.state if request.seed is None else None
        try:
            request, reseeds = self._seeds_for(request, rng)
            new_state = start_game(self.game, self._state, request) if request.starts_elsewhere else None
        except BaseException:
            if saved_rng is not None:
                rng.bit_generator.state = saved_rng
            raise
        before = (self._state, self._state.copy(), self._np_random, self._np_random_seed, saved_rng)
        before_env = (self._seeded, self.learner_seat, self._seat_policy, self._events, self._pending_reward)
        before_opponents = random_states(self.opponents) if reseeds else []
        self._np_random, self._np_random_seed = generator
        for policy, policy_seed in reseeds:
            reseed(policy, policy_seed)
        self._seeded = True
        self._state = new_state if new_state is not None else start_game(self.game, self._state, request)
        self._seat_the_learner(rng)
        self._turns = learner_turn_entry() if self._in_one_call and ENGINE.mode == "compiled" else None
        try:
            if self._turns is not None:
                observation, mask, _, self._pending_reward = self._in_one_kernel_call(-1)
                return observation, {"action_mask": mask.view(np.bool_), "learner_seat": self.learner_seat}
            self._pending_reward = self._play_opponents()
        except BaseException:
            self._put_back(before, before_env, before_opponents, rng)
            raise
        return self._observation(), self._info()

    def _put_back(self, before: tuple, before_env: tuple, before_opponents: list, rng: np.random.Generator) -> None:
        """Undo a reset whose opponents' play raised: the state, the generators, the learner's seat..."""
        state, copy, self._np_random, self._np_random_seed, saved_rng = before
        for name in STATE_ARRAYS:
            getattr(state, name)[...] = getattr(copy, name)
        self._state = state
        if saved_rng is not None:
            rng.bit_generator.state = saved_rng
        self._seeded, self.learner_seat, self._seat_policy, self._events, self._pending_reward = before_env
        self._place_opponents()
        restore_random_states(before_opponents)

    def _seeds_for(self, request: ResetRequest, rng: np.random.Generator) -> tuple[ResetRequest, list]:
        """The engine's seed of this reset (in the request) and the opponents to reseed, with
        their seeds: all drawn from ``rng`` on a seeded reset and on the first one; a
        position or a deck draws an engine seed on the others too (deterministic once seeded)."""
        engine_seed, reseeds = request.seed, []
        if request.seed is not None or not self._seeded:
            engine_seed = int(rng.integers(2**63)) if request.seed is None else request.seed
            reseeds = [
                (policy, int(rng.integers(2**63)) ^ k) for k, policy in enumerate(self.opponents) if is_seedable(policy)
            ]
        if request.starts_elsewhere and engine_seed is None:
            engine_seed = int(rng.integers(2**63))
        return request._replace(seed=engine_seed), reseeds

    def _seat_the_learner(self, rng: np.random.Generator) -> None:
        if self.learner_seat_setting == "random":
            self.learner_seat = int(rng.integers(self.config.num_players))
        self._place_opponents()
        self._events = self.game.events(self._state)

    def _place_opponents(self) -> None:
        """The opponents at the seats other than the learner's: for the Python play loop
        (``_seat_policy``) and for the kernel (their policy ids and generator slots)."""
        others = [s for s in range(self.config.num_players) if s != self.learner_seat]
        self._seat_policy = dict(zip(others, self.opponents))
        self._alive_at = int(self._params[P_I_ALIVE]) + self.learner_seat
        if self._in_one_call:
            self._policy_ids[:] = -1
            for k, seat in enumerate(others):
                self._policy_ids[seat] = self._compiled[k].policy_id
                self._slots[seat] = 1 + k

    def _bind_generators(self) -> None:
        """Where the opponents play in one kernel call, each one's generator is a slot of
        ``_generators``, which the kernel advances: its ``prng`` becomes a view of that slot
        (reseeding, saving and restoring it go on working through the policy)."""
        if self._in_one_call:
            for k, policy in enumerate(self._compiled):
                self._generators[1 + k] = policy.prng[0]
                policy.prng = self._generators[1 + k : 2 + k]

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_turns"] = self._turns is not None  # a compiled entry point does not pickle
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bind_generators()  # a copy's policies hold copies of their generators: views again
        self._turns = None  # the Python play loop (the same games) until the engine is compiled here
        if state["_turns"]:
            ENGINE.prepare()
            self._turns = learner_turn_entry() if ENGINE.mode == "compiled" else None

    def step(self, action):
        if self._turns is None:
            return self._step_in_python(action)
        state = self._state
        ints = state.ints
        if ints[0, S_PHASE] == PH_OVER or ints[0, self._alive_at] == 0:
            raise IllegalActionError("the episode is over; call reset()", K.ST_GAME_OVER)
        if ints[0, S_CURRENT] != self.learner_seat:
            raise RuntimeError("internal error: it is not the learner's turn")
        if type(action) is not int or not 0 <= action < self._num_actions:
            action = action_id(action, self._num_actions)
        observation, mask, own, others = self._in_one_kernel_call(action)
        reward = self._pending_reward + own + others
        self._pending_reward = 0.0
        info = {"action_mask": mask.view(np.bool_), "learner_seat": self.learner_seat}
        if ints[0, S_PHASE] != PH_OVER and ints[0, self._alive_at] != 0:
            return observation, reward, False, False, info
        terminated = bool(ints[0, S_TERMINATED]) or bool(ints[0, self._alive_at] == 0)
        info["outcome"] = self.game.outcome(state)[self.learner_seat]
        info["episode_steps"] = int(ints[0, S_STEP])
        return observation, reward, terminated, bool(ints[0, S_TRUNCATED]), info

    def _in_one_kernel_call(self, action: int) -> tuple[np.ndarray, np.ndarray, float, float]:
        """The learner's ``action`` (none if negative) and the opponents' turns in one kernel
        call: the learner's observation and mask, its reward of its step and of theirs."""
        state = self._state
        observation = _empty(self._observation_size, _FLOAT32)
        mask = _empty(self._num_actions, _INT8)
        assert self._turns is not None
        status, own, others = self._turns(
            state.cards,
            state.ints,
            state.rng,
            self._params,
            action,
            self.learner_seat,
            self._policy_ids,
            self._slots,
            self._generators,
            self._rewards,
            state.ev,
            state.evn,
            observation,
            mask,
        )
        if status < 0:
            self._refused(status, action)
        return observation, mask, own, others

    def _refused(self, status: int, action: int) -> None:
        """Raise for the status of a refused kernel call: the learner's action (nothing changed)
        or, an engine fault, a compiled opponent's."""
        if status <= OPPONENT_REFUSED:
            seat = OPPONENT_REFUSED - status
            raise RuntimeError(
                f"internal error: the engine refused the action of the compiled opponent at seat {seat} "
                f"({self._seat_policy.get(seat)!r})"
            )
        raise IllegalActionError(f"learner: {self.game.describe_refusal(self._state, action, status)}", status)

    def _step_in_python(self, action):
        """:meth:`step` with the opponents called from the Python play loop (``Game.play``)."""
        self._require_reset("step")
        if self._state.ints[0, S_PHASE] == PH_OVER or not self._learner_in_play():
            raise IllegalActionError("the episode is over; call reset()", K.ST_GAME_OVER)
        if self._state.ints[0, S_CURRENT] != self.learner_seat:
            raise RuntimeError("internal error: it is not the learner's turn")
        action = action_id(action, self.game.num_actions)
        undo = self._snapshot()
        try:
            reward = self._pending_reward + self._apply(action, self.learner_seat)
            reward += self._play_opponents()
        except BaseException:
            self._restore(undo)  # an opponent's bad answer: as before the learner's step
            raise
        self._pending_reward = 0.0
        ints = self._state.ints[0]
        terminated = bool(ints[S_TERMINATED]) or not self._learner_in_play()
        truncated = bool(ints[S_TRUNCATED])
        if self.render_mode == "human":
            self.render()
        info = self._info()
        if terminated or truncated:
            info["outcome"] = self.game.outcome(self._state)[self.learner_seat]
            info["episode_steps"] = int(ints[S_STEP])
        return self._observation(), float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner (bool), as sb3-contrib's MaskablePPO expects."""
        self._require_reset("action_masks")
        return self._current_mask().astype(bool)

    def render(self):
        self._require_reset("render")
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
        """The god's-eye position of the game as a JSON-able dict."""
        self._require_reset("position")
        return self.game.position(self._state)

    # ------------------------------------------------------------------ internals
    def _require_reset(self, what: str) -> None:
        """Gymnasium's ResetNeeded before the first reset: there is no game yet."""
        if not self._seeded:
            raise ResetNeeded(f"Cannot call env.{what}() before calling env.reset()")

    def _learner_in_play(self) -> bool:
        return bool(is_alive(self._state.ints, self.game.params, 0, self.learner_seat))  # every step: one seat's flag

    def _apply(self, action: int, seat: int) -> float:
        try:
            session.step(self.game, self._state, action, self._rewards)
        except IllegalActionError as refused:
            who = "learner" if seat == self.learner_seat else f"opponent at seat {seat}"
            raise IllegalActionError(f"{who}: {refused}", refused.status) from None
        self._record_events(seat, action)
        return float(self._rewards[0, self.learner_seat])

    def _play_opponents(self) -> float:
        """Opponents act until the learner's turn or the end; returns the learner's rewards.
        An opponent's answer that is not an action it may take, or an opponent that raises,
        raises an error naming the seat, the opponent and its answer."""
        try:
            rewards = self.game.play(
                self._state, self._seat_policy, until=self.learner_seat, on_step=self._record_events
            )
        except IllegalActionError as err:
            seat = err.seat
            policy = self._seat_policy.get(seat) if seat is not None else None
            raise IllegalActionError(
                f"opponent at seat {seat} ({policy!r}): {err}; the env is as it was before", err.status
            ) from None
        except Exception as err:
            seat = int(self._state.ints[0, S_CURRENT])
            raise RuntimeError(
                f"opponent at seat {seat} ({self._seat_policy.get(seat)!r}) raised {type(err).__name__}: {err}; "
                "the env is as it was before"
            ) from err
        return float(rewards[self.learner_seat])

    def _snapshot(self) -> tuple:
        """What a step changes: the state's arrays, the opponents' generators, the pending
        reward and the recent events (for :meth:`_restore`)."""
        state = self._state  # as bytes: 3x cheaper than array copies, and restoring is rare
        arrays = (
            state.cards.tobytes(),
            state.ints.tobytes(),
            state.rng.tobytes(),
            state.ev.tobytes(),
            state.evn.tobytes(),
        )
        generators = [(policy, random_state()) for policy, random_state in self._random_states]
        return arrays, generators, self._pending_reward, self._events

    def close(self) -> None:
        """End what the opponents run: an outside program (``cmd:``) and everything it
        started (docs/PROTOCOL.md, "When a program fails"); the next game starts it again."""
        for policy in self.opponents:
            closing = getattr(policy, "close", None)
            if callable(closing):
                closing()
        super().close()

    def _restore(self, undo: tuple) -> None:
        arrays, generators, self._pending_reward, self._events = undo
        state = self._state
        for name, saved in zip(STATE_ARRAYS, arrays):
            target = getattr(state, name)
            target[...] = np.frombuffer(saved, dtype=target.dtype).reshape(target.shape)
        restore_random_states(generators)

    def _record_events(self, seat: int, action: int) -> None:
        if self.render_mode is not None:
            self._events = (self._events + self.game.events(self._state))[-RECENT_EVENTS:]

    def _observation(self) -> np.ndarray:
        return self.game.observe(self._state, self.learner_seat)

    def _current_mask(self) -> np.ndarray:
        mask = np.zeros(self.game.num_actions, dtype=np.int8)
        if self._state.ints[0, S_CURRENT] == self.learner_seat:
            ENGINE.legal_mask(self._state.cards, self._state.ints, self.game.params, 0, mask)
        return mask

    def _info(self) -> dict:
        return {"action_mask": self._current_mask().astype(bool), "learner_seat": self.learner_seat}
