"""The vector env: N games stepping in lockstep on the compiled engine kernels.

>>> from uno_env.vector import UnoVectorEnv
>>> env = UnoVectorEnv(1024, num_players=2)
>>> step = env.reset(seed=0)
>>> step = env.step(env.sample_actions())  # any (N,) array of action ids
>>> step.seat.shape, step.obs.shape, step.mask.shape, step.rewards.shape, step.terminated.shape
((1024,), (1024, 319), (1024, 70), (1024, 2), (1024,))

Per game a step returns the seat that must act next, its observation and its
legal-action mask, the rewards of *all* seats, and the terminated / truncated
flags of the episode that this step ended.

**Autoreset: same step** (Gymnasium's ``AutoresetMode.SAME_STEP``). When a
step ends game i's episode, game i is restarted within the same call: the
returned seat, observation and mask are those of the new episode's first
decision, while ``rewards[i]`` and the flags belong to the step that ended the
old one, and ``info["final_obs"][i]`` holds the final observation of every
seat played by the caller (``info["final_outcome"]``, ``info["final_steps"]``:
its outcome per seat and its length in decisions). These arrays are valid
where ``terminated | truncated``.

**Seeds.** ``reset(seed=s)`` starts game i exactly as ``Game.init(seed=s + i)``
would; later episodes continue game i's own generator, exactly as
``Game.reset(state)`` without a seed does. So game i of the vector env and a
single :class:`~uno_env.engine.Game` given the same actions follow the same
trajectory, episode after episode.

**Compiled seats.** ``seats`` may hand some seats to compiled policies (ids of
:data:`uno_env.agents.policies.POLICY_IDS`); they act inside the kernel, and a step
returns once a seat of the caller's must decide. Their generators are per game
too (:func:`policy_seed_to_rng`). The learner adapters (:mod:`.gym_adapter`,
:mod:`.sb3_adapter`) are built on this.

**Serial or parallel.** Below :data:`PARALLEL_THRESHOLD` games a call runs on
one core (waking other threads costs more than it saves on small batches), from it
on ``numba.get_num_threads()`` threads (all cores unless set), each running the
serial kernel, which releases the GIL, over a contiguous part of the batch
(``policies.run_in_parts``). Each game only reads and writes its own rows and
generators, so both paths give identical results.

The returned arrays are the env's own buffers, overwritten by the next call:
copy what must be kept.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import NamedTuple

import numba
import numpy as np

from ..agents import neural
from ..agents import policies as policy_kernels
from ..engine import kernels as K
from ..engine.config import RuleConfig
from ..engine.events import EVENT_WIDTH
from ..engine.game import Game, IllegalActionError, State, action_ids, check_buffer
from ..engine.layout import S_CURRENT
from ..engine.seeding import (
    NOT_INTEGERS,
    check_seed,
    fresh_seed,
    policy_seed_to_rng,
    policy_seeds,
    seed_to_rng,
    seeds_to_rng,
)
from ..render import render_image, render_text
from .arguments import (
    check_batch,
    check_count,
    check_memory,
    game_index,
    learner_seats,
    policy_id,
    seat_policies_for,
)
from .fused import (
    ADVANCE,
    ERR_NO_DECISION,
    ERR_POLICY_REFUSED,
    EXTERNAL,
    MAX_EMPTY_EPISODES,
    MODE_RESET,
    MODE_STEP,
)
from .fused import play as play_kernel
from .fused import sample as sample_kernel

# GNU OpenMP (numba's threading layer here, and torch's) lets idle threads spin by default. On
# a machine shared with other processes, or with this env's own worker threads, the spinning
# takes the cores from the threads that have work: a parallel step with numba's prange ran
# 10-20x slower than a serial one. Waiting passively fixes that at a small cost on an idle
# machine. This must be set before OpenMP starts its threads; a value the user set wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

PARALLEL_THRESHOLD = 2048
"""Batches from this size on run on all cores (``parallel="auto"``). Handing a part to another
thread costs about 200 us here, so threads beat one core from 2048 games on (1.40x in the
fourth round, 1.11x with the cheaper kernels of the fifth, 1.43x at 8192) but not at 1024
(0.88x; docs/VECTOR.md)."""

SAMPLE_PARALLEL_THRESHOLD = 8192
"""``sample_actions`` runs on all cores (on the parallel path) from this size on only: it costs
about 60 ns a game, and handing a part to another thread costs about 200 us here, so below
this size one core is faster."""


class VectorStep(NamedTuple):
    seat: np.ndarray
    """(N,) seat that must act next in each game."""
    obs: np.ndarray
    """(N, observation_size) float32: that seat's observation."""
    mask: np.ndarray
    """(N, num_actions) int8: that seat's legal actions."""
    rewards: np.ndarray
    """(N, num_players) float32: rewards of every seat from this step (all the decisions in it)."""
    terminated: np.ndarray
    """(N,) bool: this step ended the episode (terminal state)."""
    truncated: np.ndarray
    """(N,) bool: this step hit ``max_steps``."""
    info: dict
    """``final_obs`` (N, E, observation_size) for the E seats of the caller's, ``final_outcome``
    (N, num_players), ``final_steps`` (N,), valid where an episode ended; ``status`` (N,)
    of the engine step (1: a wrong card was penalized, 2: lost by it)."""


class UnoVectorEnv(K.NeedsPickleProtocol2):
    """N independent games of one rule configuration, stepped in lockstep (see module doc).

    ``num_envs``: games in the batch. ``config`` / ``**settings``: the rules
    (:class:`~uno_env.engine.RuleConfig`, every setting accepted). ``seats``: who
    plays each seat (see :func:`seat_policies_for`; default: the caller plays every
    seat). ``seed``: reset at once with this seed (else call :meth:`reset`).
    ``parallel``: ``"auto"`` (every numba thread from ``PARALLEL_THRESHOLD`` games on),
    True or False. ``final_observation``: keep the final observations of finished
    episodes (N x E observation buffers); False saves that memory.
    """

    def __init__(
        self,
        num_envs: int,
        config: RuleConfig | None = None,
        *,
        seats=None,
        seed: int | None = None,
        parallel: bool | str = "auto",
        final_observation: bool = True,
        **settings,
    ):
        check_batch(num_envs, parallel, final_observation)
        self.game = Game(config, **settings)
        self.seat_policies = seat_policies_for(self.game.num_players, seats)
        if (self.seat_policies == policy_kernels.PPO).any():
            neural.check_shipped(self.game)
        E = int((self.seat_policies == EXTERNAL).sum())
        check_memory(int(num_envs), self.game, E if final_observation else 0)
        self.config = self.game.config
        self.params = self.game.params
        self.num_envs = N = int(num_envs)
        self.num_players = self.game.num_players
        self.num_actions = self.game.num_actions
        self.observation_size = self.game.observation_size
        self.external_seats = tuple(int(s) for s in np.flatnonzero(self.seat_policies == EXTERNAL))
        if parallel == "auto":
            parallel = N >= PARALLEL_THRESHOLD and numba.get_num_threads() > 1
        self.parallel = bool(parallel)
        self._with_policies = bool((self.seat_policies != EXTERNAL).any())  # ADVANCE's variant
        self._allocate(final_observation)
        self._ready = False  # the buffers hold the current decisions (step() may follow)
        self._started = False  # the games have been reset at least once
        if seed is not None:
            self.reset(seed=seed)

    def _allocate(self, final_observation: bool) -> None:
        """The games' state, the policies' generators, scratch and the buffers a step returns."""
        N, n, A, O = self.num_envs, self.num_players, self.num_actions, self.observation_size
        E = len(self.external_seats)
        state = self.game.new_state(N, events=False)
        self.cards, self.ints, self.rng = state.cards, state.ints, state.rng
        self._ev = np.zeros((N, 0, EVENT_WIDTH), dtype=np.int32)
        self._evn = np.zeros(N, dtype=np.int32)
        self.prng = np.zeros(N, dtype=np.uint64)
        self._step_rw = np.zeros((N, n), dtype=np.float32)
        self._actions = np.zeros(N, dtype=np.int64)
        self._sampler_rng = np.zeros(N, dtype=np.uint64)
        self._which = np.ones(N, dtype=bool)
        self.status = np.zeros(N, dtype=np.int8)
        self.seat = np.zeros(N, dtype=np.int64)
        self.obs = np.zeros((N, O), dtype=np.float32)
        self.mask = np.zeros((N, A), dtype=np.int8)
        self.rewards = np.zeros((N, n), dtype=np.float32)
        self.terminated = np.zeros(N, dtype=bool)
        self.truncated = np.zeros(N, dtype=bool)
        self.final_obs = np.zeros((N if final_observation else 0, E, O), dtype=np.float32)
        self.final_steps = np.zeros(N, dtype=np.int32)
        self.final_outcome = np.zeros((N, n), dtype=np.int8)
        self._info = {
            "final_obs": self.final_obs,
            "final_outcome": self.final_outcome,
            "final_steps": self.final_steps,
            "status": self.status,
        }

    def __repr__(self) -> str:
        return f"UnoVectorEnv({self.num_envs}, {self.config!r}, parallel={self.parallel})"

    # ------------------------------------------------------------------ state
    @property
    def state(self) -> State:
        """The batch as an engine :class:`State` (shares the arrays): ``env.game.position(env.state, i)``."""
        return State(self.cards, self.ints, self.rng, self._ev, self._evn, self.params)

    @property
    def nbytes_per_game(self) -> int:
        """Bytes per game of everything the env keeps, observation, mask and final-observation buffers aside."""
        arrays = (
            self.cards,
            self.ints,
            self.rng,
            self.prng,
            self._evn,
            self._step_rw,
            self._actions,
            self._sampler_rng,
            self._which,
            self.status,
            self.seat,
            self.rewards,
            self.terminated,
            self.truncated,
            self.final_steps,
            self.final_outcome,
        )
        return sum(a.nbytes for a in arrays) // self.num_envs

    def _result(self) -> VectorStep:
        return VectorStep(self.seat, self.obs, self.mask, self.rewards, self.terminated, self.truncated, self._info)

    def _advance(self, mode: int, actions: np.ndarray, which: np.ndarray) -> int:
        """One call of the fused kernel; the variant without compiled policies where every
        seat is the caller's (the policies then never compile)."""
        kernel = ADVANCE[self._with_policies]
        game, seat_policies, out = self._game_arrays(), self.seat_policies, self._out_arrays()
        threads = self._threads()
        if threads == 1:  # the serial path without the split's few microseconds
            return kernel(mode, game, actions, which, seat_policies, out, 0, self.num_envs)

        def advance_part(part: slice) -> int:
            return kernel(mode, game, actions, which, seat_policies, out, part.start, part.stop)

        return sum(policy_kernels.run_in_parts(self.num_envs, threads, advance_part))

    def _threads(self, threshold: int = 1) -> int:
        """Threads for a call over the batch: every numba thread on the parallel path (for
        ``sample_actions``, only from ``threshold`` games on), else one."""
        if not self.parallel or self.num_envs < threshold:
            return 1
        return numba.get_num_threads()

    def _game_arrays(self) -> tuple:
        """The ``game`` tuple of the fused kernels: the state, the policies' generators, the parameters."""
        return (self.cards, self.ints, self.rng, self.prng, self.params)

    def _out_arrays(self) -> tuple:
        """The ``out`` tuple of the fused kernels (its order is spelled out in :mod:`.fused`)."""
        return (
            self.rewards,
            self._step_rw,
            self._ev,
            self._evn,
            self.status,
            self.seat,
            self.obs,
            self.mask,
            self.terminated,
            self.truncated,
            self.final_obs,
            self.final_steps,
            self.final_outcome,
        )

    # ------------------------------------------------------------------ reset
    def reset(self, seed=None, which=None) -> VectorStep:
        """Start new games and return the first decisions.

        ``seed``: None (a game never seeded gets a seed from the OS; the others
        continue their own generators, like ``Game.reset(state)``), an integer s
        (game i: seed s + i, like ``Game.init(seed=s + i)``) or a sequence of N
        integers / None. ``which``: a boolean mask of the games to reset (default
        all); the others keep their state and buffers, rewards and flags are zeroed."""
        which = self._games_to_reset(which)
        seeded = self._seed_games(seed, which)
        if seeded.any():  # a seeded game starts from a fresh state, like Game.init
            self.cards[seeded] = 0
            self.ints[seeded] = 0
            self.prng[seeded] = policy_seeds(self.rng[seeded])
            self._sampler_rng[seeded] = policy_seeds(self.prng[seeded])
        self.rewards[~which] = 0.0
        self.terminated[:] = False
        self.truncated[:] = False
        problems = self._advance(MODE_RESET, self._actions, which)
        if problems:
            self._raise_problems(None)
        self._ready = self._started = True
        return self._result()

    def _games_to_reset(self, which) -> np.ndarray:
        """``which`` of :meth:`reset` as a boolean array of the games (default all), checked."""
        N = self.num_envs
        if which is None:
            return np.ones(N, dtype=bool)
        which = np.ascontiguousarray(which)
        if which.dtype != bool or which.shape != (N,):
            raise ValueError(f"which must be a boolean array of shape ({N},), got {which.dtype} {which.shape}")
        if not self._started and not which.all():
            raise ValueError("the first reset must start every game (leave which out)")
        return which

    def _seed_games(self, seed, which: np.ndarray) -> np.ndarray:
        """Set the generators of the games of ``which`` that ``seed`` of :meth:`reset` seeds (a
        game never seeded gets a fresh seed); returns which games were seeded. Every seed is
        checked before any game changes."""
        if seed is None:
            return self._fresh_seeds(which & (self.rng == 0))
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, NOT_INTEGERS):
            self.rng[which] = seeds_to_rng(seed, self.num_envs)[which]  # checks seed .. seed + N - 1 first
            return which.copy()
        if (isinstance(seed, Sequence) and not isinstance(seed, (str, bytes))) or isinstance(seed, np.ndarray):
            return self._seed_each(seed, which)
        raise ValueError(f"seed must be None, an integer or a sequence of {self.num_envs} integers, got {seed!r}")

    def _seed_each(self, seed, which: np.ndarray) -> np.ndarray:
        """:meth:`_seed_games` for a sequence of one seed (or None) per game."""
        N = self.num_envs
        if isinstance(seed, np.ndarray) and seed.ndim != 1:
            raise ValueError(f"seed: expected an integer or {N} seeds, got an array of shape {seed.shape}")
        if len(seed) != N:
            raise ValueError(f"seed: expected an integer or {N} seeds, got {len(seed)}")
        states = [None if s is None else seed_to_rng(check_seed(s, f"seed[{i}]")) for i, s in enumerate(seed)]
        seeded = np.zeros(N, dtype=bool)
        for i, rng in enumerate(states):  # every seed checked: now the games change
            if rng is not None and which[i]:
                self.rng[i] = rng
                seeded[i] = True
        return seeded | self._fresh_seeds(which & ~seeded & (self.rng == 0))

    def _fresh_seeds(self, unseeded: np.ndarray) -> np.ndarray:
        """Seed the games of ``unseeded`` from one seed drawn from the OS; returns ``unseeded``."""
        if unseeded.any():
            self.rng[unseeded] = seeds_to_rng(fresh_seed(), self.num_envs)[unseeded]
        return unseeded

    # ------------------------------------------------------------------ step
    def step(self, actions) -> VectorStep:
        """Apply ``actions[i]`` (an action id) for the seat that must act in game i.

        ``actions``: an integer array of shape ``(N,)`` (or a sequence of N ints). Anything
        else (floats, bools, another shape) and any id outside ``0..num_actions - 1``
        raises :class:`~uno_env.engine.IllegalActionError` before any game changes.
        An action the engine refuses (not available, a card not held,
        a wrong card with ``illegal_action="raise"``) raises
        :class:`~uno_env.engine.IllegalActionError` after the call: the refused
        games are unchanged, the others have advanced and their results are in the
        buffers (``env.rewards``, ...) and in the error's ``result``."""
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        actions = action_ids(actions, self.num_envs, self.num_actions)
        if actions.dtype != np.int64 or not actions.flags.c_contiguous:
            self._actions[:] = actions
            actions = self._actions
        problems = self._advance(MODE_STEP, actions, self._which)
        if problems:
            self._raise_problems(actions)
        return self._result()

    def _raise_problems(self, actions) -> None:
        bad = np.flatnonzero(self.status < 0)
        if not len(bad):
            raise RuntimeError("the kernel reported problems but no game has a negative status")
        lines = []
        for i in bad[:5]:
            st = int(self.status[i])
            seat = int(self.seat[i])
            if st == ERR_POLICY_REFUSED:
                name = policy_kernels.policy_name(int(self.seat_policies[seat]))
                lines.append(f"game {i}: compiled policy {name!r} at seat {seat} chose an action the engine refused")
            elif st == ERR_NO_DECISION:
                lines.append(
                    f"game {i}: {MAX_EMPTY_EPISODES} episodes in a row ended before a seat of the caller's "
                    f"could decide (max_steps={self.config.max_steps} too small?)"
                )
            else:
                action = int(actions[i])
                legal = ", ".join(self.game.action_to_string(a) for a in np.flatnonzero(self.mask[i]))
                text = self.game.action_to_string(action) if 0 <= action < self.num_actions else f"action id {action}"
                lines.append(
                    f"game {i}: {text!r} refused for seat {int(self.ints[i, S_CURRENT])} "
                    f"({_STATUS_TEXT.get(st, st)}); legal: {legal}"
                )
        more = f" (and {len(bad) - 5} more)" if len(bad) > 5 else ""
        error = IllegalActionError(
            f"{len(bad)} game(s) refused{more}; refused games are unchanged, the others advanced:\n" + "\n".join(lines),
            int(self.status[bad[0]]),
        )
        error.games = bad
        error.result = self._result()
        raise error

    def load_state(self, index: int, state: State, source_index: int = 0) -> None:
        """Put game ``source_index`` of an engine :class:`State` (same rules) into slot ``index``,
        e.g. a position from ``Game.from_position``; its generator comes along. A seat of the
        caller's must be the one to act. Rewards and flags of the slot are cleared."""
        index = game_index(index, self.num_envs)
        if not isinstance(state, State):
            raise TypeError(f"load_state: state must be an engine State, got {type(state).__name__}")
        try:
            source_index = self.game._index(state, source_index)  # the state's rules are this env's
        except (TypeError, ValueError) as err:
            raise type(err)(f"load_state: {str(err).replace('index', 'source_index', 1)}") from None
        if state.rng[source_index] == 0:  # a reset always seeds the generator (never to 0)
            raise ValueError(
                f"load_state: game {source_index} of the state was never reset (a Game.new_state()); "
                "start it with Game.reset or take one from Game.init / Game.from_position"
            )
        seat = int(state.ints[source_index, S_CURRENT])
        if seat < 0 or self.seat_policies[seat] != EXTERNAL:
            raise ValueError(f"load_state: the seat to act ({seat}) must be one of the caller's {self.external_seats}")
        observation = self.game.observe(state, seat, index=source_index)  # read before the slot changes
        mask = self.game.legal_mask(state, source_index)
        self.cards[index] = state.cards[source_index]
        self.ints[index] = state.ints[source_index]
        self.rng[index] = state.rng[source_index]
        if self.prng[index] == 0:
            self.prng[index] = policy_seeds(self.rng[index : index + 1])[0]
            self._sampler_rng[index] = policy_seeds(self.prng[index : index + 1])[0]
        self.seat[index] = seat
        self.obs[index] = observation
        self.mask[index] = mask
        self.rewards[index] = 0.0
        self.terminated[index] = self.truncated[index] = False
        self._ready = self._started = all(self.rng != 0)

    # ------------------------------------------------------------------ helpers
    def sample_actions(self, out: np.ndarray | None = None) -> np.ndarray:
        """A uniformly random legal action per game (compiled, per-game generators).
        ``out``: an int64 array of shape ``(num_envs,)``, C-contiguous and writeable, to
        write them to (default: the env's own buffer)."""
        if out is None:
            out = self._actions
        else:
            check_buffer(out, np.int64, (self.num_envs,))
        threads = self._threads(SAMPLE_PARALLEL_THRESHOLD)
        if threads == 1:
            sample_kernel(self.mask, self.params, self._sampler_rng, out, 0, self.num_envs)
            return out

        def sample_part(part: slice) -> None:
            sample_kernel(self.mask, self.params, self._sampler_rng, out, part.start, part.stop)

        policy_kernels.run_in_parts(self.num_envs, threads, sample_part)
        return out

    def play(self, max_decisions: int, max_episodes: int | None = None, policies=None) -> dict:
        """Every seat played by compiled policies inside one call: each game makes up to
        ``max_decisions`` more decisions, or stops once ``max_episodes`` more episodes
        ended. ``policies``: per seat (names or ids; default: the env's seat policies, with
        the caller's seats played by ``random``). Returns per game and seat the summed
        rewards (``totals``), episodes won (``wins``), and per game the ``decisions``
        taken and ``episodes`` finished. Games continue where they are (finished ones
        restart); call :meth:`reset` before the next :meth:`step`."""
        n, N = self.num_players, self.num_envs
        check_count(max_decisions, "max_decisions")
        if max_episodes is not None:
            check_count(max_episodes, "max_episodes")
        row = self._play_policies(policies)
        if not self._started:
            raise RuntimeError("call reset() before play()")
        max_episodes = np.iinfo(np.int64).max if max_episodes is None else int(max_episodes)
        per_game = np.ascontiguousarray(np.broadcast_to(row, (N, n)))
        totals = np.zeros((N, n), dtype=np.float64)
        wins = np.zeros((N, n), dtype=np.int64)
        decisions = np.zeros(N, dtype=np.int64)
        episodes = np.zeros(N, dtype=np.int64)
        self.status[:] = 0
        results = (totals, wins, decisions, episodes, self.status)

        def play_part(part: slice) -> None:
            play_kernel(
                (self.cards[part], self.ints[part], self.rng[part], self.prng[part], self.params),
                per_game[part],
                int(max_decisions),
                max_episodes,
                tuple(array[part] for array in results),
                (
                    self._step_rw[part],
                    self._ev[part],
                    self._evn[part],
                    np.zeros(self.observation_size, dtype=np.float32),
                    np.zeros(self.num_actions, dtype=np.int8),
                ),
            )

        # on the parallel path every numba thread plays a part of the batch (the same games)
        policy_kernels.run_in_parts(N, self._threads(), play_part)
        self._ready = False
        bad = np.flatnonzero(self.status < 0)
        if len(bad):
            raise RuntimeError(f"game {bad[0]}: a compiled policy chose an action the engine refused")
        return {"totals": totals, "wins": wins, "decisions": decisions, "episodes": episodes}

    def _play_policies(self, policies) -> np.ndarray:
        """The compiled policy of each seat of :meth:`play` (``policies``: names or ids, one per seat;
        None: the env's seat policies, ``random`` at the caller's seats)."""
        if policies is None:
            return np.where(self.seat_policies == EXTERNAL, policy_kernels.RANDOM, self.seat_policies)
        if len(policies) != self.num_players:
            raise ValueError(f"policies: expected one per seat ({self.num_players}), got {len(policies)}")
        row = np.array([policy_id(p) for p in policies], dtype=np.int64)
        if (row == policy_kernels.PPO).any():
            neural.check_shipped(self.game, stacklevel=5)  # the warning names the caller of play()
        return row

    def game_state(self, index: int) -> State:
        """A copy of game ``index`` as a one-game engine :class:`State` (for positions, rendering)."""
        index = game_index(index, self.num_envs)
        return State(
            self.cards[index : index + 1].copy(),
            self.ints[index : index + 1].copy(),
            self.rng[index : index + 1].copy(),
            np.zeros((1, 0, EVENT_WIDTH), dtype=np.int32),
            np.zeros(1, dtype=np.int32),
            self.params,
        )

    def render_games(self, mode: str, viewer: int | None = None) -> list:
        """Each game drawn from ``viewer``'s seat (None: every hand): ``"ansi"`` text or
        ``"rgb_array"`` images (:mod:`uno_env.render`)."""
        if mode not in ("ansi", "rgb_array"):
            raise ValueError(f"mode must be 'ansi' or 'rgb_array', got {mode!r}")
        if viewer is not None and (
            isinstance(viewer, NOT_INTEGERS)
            or not isinstance(viewer, (int, np.integer))
            or not 0 <= viewer < self.num_players
        ):
            raise ValueError(f"viewer must be a seat 0..{self.num_players - 1} or None, got {viewer!r}")
        draw = render_text if mode == "ansi" else render_image
        return [draw(self.game, self.game_state(i), viewer) for i in range(self.num_envs)]

    def current_player(self) -> np.ndarray:
        """Per game, the seat whose decision it is (-1 where a game is over)."""
        return self.ints[:, S_CURRENT].astype(np.int64)

    def close(self) -> None:
        pass


_STATUS_TEXT = {
    K.ST_GAME_OVER: "the game is over",
    K.ST_OUT_OF_RANGE: "out of range",
    K.ST_NOT_HELD: "card not held",
    K.ST_NOT_AVAILABLE: "not available now",
    K.ST_WRONG_REFUSED: "wrong card, illegal_action='raise'",
}


__all__ = [
    "PARALLEL_THRESHOLD",
    "SAMPLE_PARALLEL_THRESHOLD",
    "UnoVectorEnv",
    "VectorStep",
    "policy_id",
    "policy_seed_to_rng",
    "learner_seats",
    "seat_policies_for",
    "seeds_to_rng",
]
