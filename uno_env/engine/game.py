"""The single-game API over the compiled kernels.

>>> from uno_env.engine import Game
>>> game = Game(num_players=3)
>>> state = game.init(seed=7)
>>> while not game.is_over(state):
...     action = game.legal_actions(state)[0]
...     result = game.step(state, action)
>>> game.is_over(state) and (bool(game.winners(state)) or game.is_truncated(state))
True

A :class:`State` is a batch of one game: three small arrays (see
:mod:`uno_env.engine.layout`) plus the event buffer of the last reset or step.
``step`` changes a state in place; :meth:`State.copy` clones one (for search).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import kernels as K
from .actions import ActionTable
from .cards import card_to_str
from .config import RuleConfig
from .entry import ENGINE
from .events import EVENT_WIDTH, MAX_EVENTS, decode
from .layout import (
    P_C_SIZE,
    P_FACES,
    P_I_SIZE,
    P_NUM_PLAYERS,
    PH_OVER,
    S_CURRENT,
    S_DRAWN,
    S_PHASE,
    S_ROUND,
    S_STEP,
    S_TERMINATED,
    S_TRUNCATED,
    build_params,
)
from .named import PHASE_DECISIONS, Phase
from .observation import PHASE_NAMES, ObservationSpec
from .observers import listeners, tell
from .position import dump_position, load_position, parse_deck_order
from .seeding import NOT_INTEGERS, fresh_seed, seed_to_rng, seeds_to_rng  # noqa: F401  (re-exported)
from .state import alive, draw_pile, hand_sizes, outcomes, scores

_empty = np.empty
_FLOAT32 = np.dtype(np.float32)
_INT8 = np.dtype(np.int8)


class IllegalActionError(ValueError):
    """An action that cannot be taken; the state is left unchanged."""

    games: np.ndarray
    """Vector env only (:meth:`uno_env.vector.UnoVectorEnv.step`): indices of the refused games.
    Not set on errors of a single game."""
    result: Any
    """Vector env only: the step of the games that advanced (a ``uno_env.vector.VectorStep``;
    the engine does not import the layer above it). Not set on errors of a single game."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status
        self.seat: int | None = None  # the seat that acted, where a play loop knows it


def _describe(value) -> str:
    kind = type(value).__name__
    if isinstance(value, np.ma.MaskedArray):
        return f"a masked {value.dtype} array of shape {value.shape}"
    if isinstance(value, np.ndarray):
        return f"a {value.dtype} array of shape {value.shape}"
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({kind})"


def check_buffer(out, dtype, shape: tuple, name: str = "out") -> None:
    """A caller's output array for a compiled kernel: exactly ``dtype`` and ``shape``,
    C-contiguous and writeable (ValueError naming what was given otherwise)."""
    if not (
        type(out) is np.ndarray
        and out.dtype == dtype
        and out.shape == shape
        and out.flags.c_contiguous
        and out.flags.writeable
    ):
        raise ValueError(
            f"{name} must be a writeable C-contiguous {np.dtype(dtype).name} array of shape "
            f"{shape}, got {_describe(out)}"
        )


def action_id(action, num_actions: int) -> int:
    """The action id ``action`` stands for: a Python int or a numpy integer (a 0-d
    integer array too) in ``0..num_actions - 1``. Anything else (bool, float, str,
    None, an array, an id out of range) raises :class:`IllegalActionError` naming
    what was given and the valid range, before anything changes. The one check of
    every entry point (``Game.step``, the AEC, Gymnasium and vector envs)."""
    if type(action) is int:
        if 0 <= action < num_actions:
            return action
    elif isinstance(action, (np.integer, np.ndarray)) and not isinstance(action, (*NOT_INTEGERS, np.ma.MaskedArray)):
        if isinstance(action, np.ndarray) and (action.shape != () or action.dtype.kind not in "iu"):
            raise IllegalActionError(
                f"an action must be one integer action id 0..{num_actions - 1}, got {_describe(action)}",
                K.ST_OUT_OF_RANGE,
            )
        value = int(action)
        if 0 <= value < num_actions:
            return value
        action = value
    elif isinstance(action, bool) or not isinstance(action, int) or isinstance(action, NOT_INTEGERS):
        raise IllegalActionError(
            f"an action must be an integer action id 0..{num_actions - 1} (int or numpy integer), "
            f"got {_describe(action)}",
            K.ST_OUT_OF_RANGE,
        )
    else:  # an int subclass (not bool)
        value = int(action)
        if 0 <= value < num_actions:
            return value
        action = value
    raise IllegalActionError(f"action id {action} out of range 0..{num_actions - 1}", K.ST_OUT_OF_RANGE)


def action_ids(actions, num_envs: int, num_actions: int) -> np.ndarray:
    """A batch of action ids, one per game: an integer array (or a sequence of ints) of
    shape ``(num_envs,)`` with every id in ``0..num_actions - 1``; anything else raises
    :class:`IllegalActionError` (a ValueError) before any game changes. The array is
    returned as it is when it is already int64 and C-contiguous."""
    if isinstance(actions, np.ma.MaskedArray):
        raise IllegalActionError(
            f"actions must be a plain integer array of shape ({num_envs},), got a masked array", K.ST_OUT_OF_RANGE
        )
    if isinstance(actions, np.ndarray):
        array = actions
    else:
        converted: np.ndarray | None = None
        if actions is not None and not isinstance(actions, (str, bytes)):
            try:
                converted = np.asarray(actions)
            except (TypeError, ValueError):  # ragged nesting
                converted = None
        if converted is None:
            raise IllegalActionError(
                f"actions must be an integer array of shape ({num_envs},), got {_describe(actions)}", K.ST_OUT_OF_RANGE
            )
        array = converted
    if array.dtype.kind not in "iu":
        raise IllegalActionError(
            f"actions must be integer action ids 0..{num_actions - 1}, got {_describe(array)}", K.ST_OUT_OF_RANGE
        )
    if array.shape != (num_envs,):
        raise IllegalActionError(
            f"actions must have shape ({num_envs},) (one id per game), got {_describe(array)}", K.ST_OUT_OF_RANGE
        )
    if num_envs and (array.min() < 0 or array.max() >= num_actions):
        bad = np.flatnonzero((array < 0) | (array >= num_actions))
        listed = ", ".join(f"game {int(i)}: {int(array[i])}" for i in bad[:5])
        raise IllegalActionError(
            f"action ids out of range 0..{num_actions - 1} ({listed}{', ...' if len(bad) > 5 else ''}); "
            "no game changed",
            K.ST_OUT_OF_RANGE,
        )
    return array


_STATE_ARRAYS = (
    ("cards", np.int8, 2),
    ("ints", np.int32, 2),
    ("rng", np.uint64, 1),
    ("ev", np.int32, 3),
    ("evn", np.int32, 1),
)
_STATE_DTYPES = {name: (np.dtype(dtype), ndim) for name, dtype, ndim in _STATE_ARRAYS}


class State(K.NeedsPickleProtocol2):
    """Arrays of a batch of games (a single game is a batch of one).

    ``params``: the parameters of the :class:`Game` the state was made for (its
    configuration; ``None`` for arrays put together by hand). A Game refuses a state
    made for another configuration. The arrays keep the exact dtypes, dimensions and
    C-contiguity the compiled kernels rely on, and one batch size: assigning an array
    that breaks this raises ValueError."""

    __slots__ = ("cards", "ints", "rng", "ev", "evn", "params")
    cards: np.ndarray
    ints: np.ndarray
    rng: np.ndarray
    ev: np.ndarray
    evn: np.ndarray
    params: np.ndarray | None

    def __init__(self, cards, ints, rng, ev, evn, params: np.ndarray | None = None):
        batch = None
        for name, array in (("cards", cards), ("ints", ints), ("rng", rng), ("ev", ev), ("evn", evn)):
            _check_state_array(name, array)
            if batch is None:
                batch = array.shape[0]
            elif array.shape[0] != batch:
                raise ValueError(f"State.{name}: {array.shape[0]} games, but State.cards has {batch}")
        if ev.shape[2] != EVENT_WIDTH:
            raise ValueError(f"State.ev: expected events of width {EVENT_WIDTH}, got shape {ev.shape}")
        if params is not None and (cards.shape[1] != params[P_C_SIZE] or ints.shape[1] != params[P_I_SIZE]):
            raise ValueError(
                f"State: arrays of {cards.shape[1]} cards and {ints.shape[1]} ints do not fit the configuration "
                f"({int(params[P_C_SIZE])} and {int(params[P_I_SIZE])})"
            )
        for name, value in (("cards", cards), ("ints", ints), ("rng", rng), ("ev", ev), ("evn", evn)):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "params", params)

    def __setattr__(self, name: str, value) -> None:
        if name == "params":
            raise AttributeError("State.params is set when the state is made (by its Game)")
        _check_state_array(name, value)
        old = getattr(self, name)
        if value.shape[0] != old.shape[0] or (name != "rng" and name != "evn" and value.shape[1:] != old.shape[1:]):
            raise ValueError(f"State.{name}: expected shape {old.shape}, got {value.shape}")
        object.__setattr__(self, name, value)

    def __reduce__(self):
        return (State, (self.cards, self.ints, self.rng, self.ev, self.evn, self.params))

    @property
    def batch_size(self) -> int:
        return self.cards.shape[0]

    def copy(self) -> State:
        return State(self.cards.copy(), self.ints.copy(), self.rng.copy(), self.ev.copy(), self.evn.copy(), self.params)

    def nbytes_per_game(self) -> int:
        """Bytes of game state per game (event buffer aside)."""
        return (self.cards.nbytes + self.ints.nbytes + self.rng.nbytes) // self.batch_size

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, State)
            and np.array_equal(self.cards, other.cards)
            and np.array_equal(self.ints, other.ints)
            and np.array_equal(self.rng, other.rng)
        )

    __hash__ = None  # type: ignore[assignment]  # unhashable (mutable arrays); typeshed declares a method


def _check_state_array(name: str, array) -> None:
    """The exact layout the compiled kernels rely on for the array ``name`` of a State."""
    if name not in _STATE_DTYPES:
        raise AttributeError(f"State has no array {name!r}")
    dtype, ndim = _STATE_DTYPES[name]
    if not (
        isinstance(array, np.ndarray)
        and not isinstance(array, np.ma.MaskedArray)
        and array.dtype == dtype
        and array.ndim == ndim
    ):
        raise ValueError(f"State.{name}: expected a {ndim}-d {dtype.name} array, got {_describe(array)}")
    if not array.flags.c_contiguous or not array.flags.writeable:
        raise ValueError(f"State.{name}: expected a writeable C-contiguous array")


class StepResult:
    """What a step returned: the rewards, a status and (decoded on first use) the events."""

    __slots__ = ("rewards", "status", "_rows", "_events")

    def __init__(self, rewards: np.ndarray, status: int, rows: np.ndarray):
        self.rewards = rewards
        """Reward of every seat for this step (float32, length num_players)."""
        self.status = status
        """0: applied; 1: a wrong card was penalized (R-WRONG-1); 2: a wrong card lost the game."""
        self._rows = rows
        self._events: list[dict] | None = None

    @property
    def events(self) -> list[dict]:
        """What happened, as dicts (see :mod:`uno_env.engine.events`)."""
        if self._events is None:
            self._events = decode(self._rows, len(self._rows))
        return self._events

    def __iter__(self):
        return iter((self.rewards, self.status, self.events))

    def __repr__(self) -> str:
        return f"StepResult(rewards={self.rewards.tolist()}, status={self.status}, events={self.events})"


class Game(K.NeedsPickleProtocol2):
    """The rules for one configuration: init, legal actions, step, observe."""

    def __init__(self, config: RuleConfig | None = None, **settings):
        if config is None:
            config = RuleConfig.from_kwargs(**settings)
        elif settings:
            config = config.replace(**settings)
        if not isinstance(config, RuleConfig):
            raise ValueError(f"config must be a RuleConfig, got {type(config).__name__}")
        self.config = config
        self.actions = ActionTable(config)
        self.obs_spec = ObservationSpec(config)
        self.params = build_params(config, self.actions, self.obs_spec)
        self.num_players = config.num_players
        self.num_actions = self.actions.num_actions
        self.observation_size = self.obs_spec.size
        self._rewards = np.zeros((1, self.num_players), dtype=np.float32)
        ENGINE.prepare()

    def __repr__(self) -> str:
        return f"Game({self.config!r})"

    # ------------------------------------------------------------------ states
    def new_state(self, batch_size: int = 1, events: bool = True) -> State:
        """Zeroed arrays for ``batch_size`` games (call a reset before use)."""
        if isinstance(batch_size, NOT_INTEGERS) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {_describe(batch_size)}")
        P = self.params
        return State(
            np.zeros((batch_size, P[P_C_SIZE]), dtype=np.int8),
            np.zeros((batch_size, P[P_I_SIZE]), dtype=np.int32),
            np.zeros(batch_size, dtype=np.uint64),
            np.zeros((batch_size, MAX_EVENTS if events else 0, EVENT_WIDTH), dtype=np.int32),
            np.zeros(batch_size, dtype=np.int32),
            P,
        )

    def init(self, seed: int | None = None, dealer: int | None = None) -> State:
        """A new game. Without a dealer, the dealer is drawn for (R-SETUP-1)."""
        state = self.new_state()
        self.reset(state, fresh_seed() if seed is None else seed, dealer)
        return state

    def reset(self, state: State, seed: int | None = None, dealer: int | None = None, index: int = 0) -> None:
        """Start a new game in place. With a seed the generator is seeded; without one it
        continues, so that a seeded first reset fixes every later game too."""
        index = self._index(state, index)
        dealer = self._check_dealer(dealer)
        if seed is not None:
            state.rng[index] = seed_to_rng(seed)
        elif state.rng[index] == 0:
            state.rng[index] = seed_to_rng(fresh_seed())
        state.evn[index] = 0
        ENGINE.reset_game(state.cards, state.ints, state.rng, self.params, index, dealer, False, state.ev, state.evn)

    def init_from_deck(self, deck, dealer: int | None = 0, seed: int | None = None) -> State:
        """A new game dealt from an explicit deck order (card texts, top first): one card
        at a time starting left of the dealer, then the starter turned up (D-DEALER)."""
        faces = parse_deck_order(self.config, deck)
        rng = seed_to_rng(fresh_seed() if seed is None else seed)
        dealer = max(self._check_dealer(dealer), 0)
        state = self.new_state()
        state.rng[0] = rng
        draw_pile(state.cards, self.params, 0)[: len(faces)] = faces[::-1]  # stack: top last
        ENGINE.reset_from_deck(state.cards, state.ints, state.rng, self.params, 0, dealer, state.ev, state.evn)
        return state

    def from_position(self, position: dict, seed: int | None = None) -> State:
        """A state from a position dict (see :mod:`uno_env.engine.position`)."""
        return load_position(self, position, seed)

    def position(self, state: State, index: int = 0) -> dict:
        """The god's-eye position of a game as a JSON-able dict."""
        return dump_position(self, state, self._index(state, index))

    # ------------------------------------------------------------------ door checks
    def _index(self, state: State, index) -> int:
        """``index`` as a game of ``state`` (a State made for this configuration): an
        integer (not a bool) in ``0..batch_size - 1``; ValueError / TypeError otherwise,
        before anything reads or writes the arrays."""
        if state.__class__ is not State:
            raise TypeError(f"state must be an engine State (from Game.init or Game.new_state), got {_describe(state)}")
        if state.params is not self.params:
            self._check_state(state)
        if type(index) is int:
            if 0 <= index < state.cards.shape[0]:
                return index
        elif isinstance(index, NOT_INTEGERS) or not isinstance(index, (int, np.integer)):
            raise TypeError(f"index must be an integer game index, got {_describe(index)}")
        if not 0 <= index < state.cards.shape[0]:
            raise ValueError(f"index must be a game 0..{state.cards.shape[0] - 1} of the state, got {index!r}")
        return int(index)

    def _check_state(self, state: State) -> None:
        """A state not made by this Game: its configuration must be this one."""
        P = state.params
        if P is None:
            if state.cards.shape[1] != self.params[P_C_SIZE] or state.ints.shape[1] != self.params[P_I_SIZE]:
                raise ValueError(
                    f"state: arrays of {state.cards.shape[1]} cards and {state.ints.shape[1]} ints were made for "
                    f"another configuration (this game needs {int(self.params[P_C_SIZE])} and "
                    f"{int(self.params[P_I_SIZE])})"
                )
        elif P.shape != self.params.shape or not np.array_equal(P, self.params):
            raise ValueError(
                f"state: made for another configuration ({int(P[P_NUM_PLAYERS])} players, {int(P[P_FACES])} card "
                f"faces, other settings) than this game's {self.config!r}; make it with this Game"
            )

    def _seat(self, seat, what: str = "seat") -> int:
        if type(seat) is int:
            if 0 <= seat < self.num_players:
                return seat
        elif isinstance(seat, NOT_INTEGERS) or not isinstance(seat, (int, np.integer)):
            raise TypeError(f"{what} must be an integer seat 0..{self.num_players - 1}, got {_describe(seat)}")
        if not 0 <= seat < self.num_players:
            raise ValueError(f"{what} must be a seat 0..{self.num_players - 1}, got {seat!r}")
        return int(seat)

    def _check_dealer(self, dealer) -> int:
        if dealer is None:
            return -1
        if (
            isinstance(dealer, NOT_INTEGERS)
            or not isinstance(dealer, (int, np.integer))
            or not 0 <= dealer < self.num_players
        ):
            raise ValueError(f"dealer must be a seat 0..{self.num_players - 1}, got {dealer!r}")
        return int(dealer)

    # ------------------------------------------------------------------ queries
    def current_player(self, state: State, index: int = 0) -> int:
        """Seat whose decision it is; -1 when the game is over."""
        index = self._index(state, index)
        return int(state.ints[index, S_CURRENT])

    def phase(self, state: State, index: int = 0) -> str:
        index = self._index(state, index)
        return PHASE_NAMES[state.ints[index, S_PHASE]]

    def is_over(self, state: State, index: int = 0) -> bool:
        index = self._index(state, index)
        return state.ints[index, S_PHASE] == PH_OVER

    def is_terminated(self, state: State, index: int = 0) -> bool:
        index = self._index(state, index)
        return bool(state.ints[index, S_TERMINATED])

    def is_truncated(self, state: State, index: int = 0) -> bool:
        index = self._index(state, index)
        return bool(state.ints[index, S_TRUNCATED])

    def scores(self, state: State, index: int = 0) -> list[int]:
        index = self._index(state, index)
        return [int(v) for v in scores(state.ints, self.params, index)]

    def hand_sizes(self, state: State, index: int = 0) -> list[int]:
        index = self._index(state, index)
        return [int(v) for v in hand_sizes(state.ints, self.params, index)]

    def alive(self, state: State, index: int = 0) -> list[bool]:
        index = self._index(state, index)
        return [bool(v) for v in alive(state.ints, self.params, index)]

    def outcome(self, state: State, index: int = 0) -> list[int]:
        """+1 for each winner, -1 for each loser, 0 otherwise (game not over, truncated)."""
        index = self._index(state, index)
        return [int(v) for v in outcomes(state.ints, self.params, index)]

    def winners(self, state: State, index: int = 0) -> list[int]:
        return [s for s, o in enumerate(self.outcome(state, index)) if o > 0]

    def round_number(self, state: State, index: int = 0) -> int:
        index = self._index(state, index)
        return int(state.ints[index, S_ROUND])

    def step_count(self, state: State, index: int = 0) -> int:
        index = self._index(state, index)
        return int(state.ints[index, S_STEP])

    def events(self, state: State, index: int = 0) -> list[dict]:
        """Events of the last reset or step, as dicts."""
        index = self._index(state, index)
        return decode(state.ev[index], state.evn[index])

    def legal_mask(self, state: State, index: int = 0) -> np.ndarray:
        """int8 mask of the acting player's legal actions."""
        index = self._index(state, index)
        out = np.zeros(self.num_actions, dtype=np.int8)
        ENGINE.legal_mask(state.cards, state.ints, self.params, index, out)
        return out

    def legal_actions(self, state: State, index: int = 0) -> list[int]:
        # ndarray.nonzero and tolist: np.flatnonzero's Python wrappers and int() per id cost
        # more than the compiled mask
        return self.legal_mask(state, index).nonzero()[0].tolist()

    def observe(self, state: State, seat: int, index: int = 0, out: np.ndarray | None = None) -> np.ndarray:
        """The observation vector of ``seat`` (float32). ``out``: an array to write it
        to (float32, shape ``(observation_size,)``, C-contiguous, writeable)."""
        index = self._index(state, index)
        seat = self._seat(seat)
        if out is None:
            out = np.zeros(self.observation_size, dtype=np.float32)
        else:
            check_buffer(out, np.float32, (self.observation_size,))
        ENGINE.observe(state.cards, state.ints, self.params, index, seat, out)
        return out

    def observe_dict(self, state: State, seat: int, index: int = 0) -> dict:
        return self.obs_spec.to_dict(self.observe(state, seat, index))

    # ------------------------------------------------------------------ actions
    def action_to_string(self, action: int | np.integer) -> str:
        return self.actions.to_string(action)

    def string_to_action(self, text: str) -> int:
        return self.actions.to_id(text)

    def step(self, state: State, action, index: int = 0) -> StepResult:
        """Apply the acting player's action (an id: a Python or numpy integer, or its
        text). Raises :class:`IllegalActionError` (a ValueError) and changes nothing
        when the action is not an integer id or text (see :func:`action_id`), is out
        of range, not available now, names a card not held, or is a wrong card with
        ``illegal_action="raise"``."""
        index = self._index(state, index)
        action = self.actions.to_id(action) if isinstance(action, str) else action_id(action, self.num_actions)
        if index == 0 and state.batch_size == 1:
            rewards = self._rewards
            status = ENGINE.step_game(
                state.cards, state.ints, state.rng, self.params, 0, action, rewards, state.ev, state.evn
            )
        else:
            rewards = np.zeros((state.batch_size, self.num_players), dtype=np.float32)
            status = ENGINE.step_game(
                state.cards, state.ints, state.rng, self.params, index, action, rewards, state.ev, state.evn
            )
        if status < 0:
            raise IllegalActionError(self.describe_refusal(state, int(action), status, index), status)
        count = min(int(state.evn[index]), state.ev.shape[1])
        return StepResult(rewards[index].copy(), int(status), state.ev[index, :count].copy())

    def play(self, state: State, policies, until: int | None = None, on_step=None, index: int = 0) -> np.ndarray:
        """The one Python play loop: ``policies[seat](observation, mask) -> action`` acts for
        the acting seat, again and again, until the game is over or, with ``until``, until
        that seat must decide or is out of the game. ``policies``: a sequence with one entry
        per seat or a dict by seat; every seat in the game but ``until`` may act, so each
        needs a callable (checked first: a bad one raises naming the seat, nothing played).
        ``on_step(seat, action)`` runs after
        each step (the state's event buffer then holds that step's events). Returns the
        rewards each seat received (float64, one per seat). A refused action raises
        :class:`IllegalActionError` with ``.seat`` set, after nothing changed. Agents that
        define ``observe_events`` or ``game_over`` are told the game's events and its end
        (:mod:`uno_env.engine.observers`)."""
        index = self._index(state, index)
        if until is not None:
            until = self._seat(until, "until")
        listening = self._check_policies(policies, state, index, until)
        P = self.params
        ints = state.ints[index]
        in_game = alive(state.ints, P, index)  # a view: every seat's flag, as the game goes on
        total = np.zeros(self.num_players)
        rewards = np.zeros((state.batch_size, self.num_players), dtype=np.float32)
        step_game, observe_and_mask = ENGINE.step_game, ENGINE.observe_and_mask  # prepared by __init__
        if listening:
            tell(state, index, P, listening)
        while ints[S_PHASE] != PH_OVER:
            seat = int(ints[S_CURRENT])
            if until is not None and (seat == until or in_game[until] == 0):
                break
            observation = _empty(self.observation_size, _FLOAT32)
            mask = _empty(self.num_actions, _INT8)
            observe_and_mask(state.cards, state.ints, P, index, seat, observation, mask)
            try:
                action = action_id(policies[seat](observation, mask), self.num_actions)
                status = step_game(state.cards, state.ints, state.rng, P, index, action, rewards, state.ev, state.evn)
                if status < 0:
                    raise IllegalActionError(self.describe_refusal(state, action, status, index), status)
            except IllegalActionError as err:
                err.seat = seat
                raise
            total += rewards[index]
            if on_step is not None:
                on_step(seat, action)
            if listening:
                tell(state, index, P, listening)
        return total

    def _check_policies(self, policies, state: State, index: int, until: int | None) -> list:
        """``policies`` of :meth:`play`: a policy for every seat that may act. Returns the
        agents among them that listen to the game (:func:`~uno_env.engine.observers.listeners`)."""
        n = self.num_players
        kind = type(policies)
        if kind is dict or (kind is not list and kind is not tuple and isinstance(policies, Mapping)):
            given: Any = policies
        elif (
            kind is list or kind is tuple or (isinstance(policies, Sequence) and not isinstance(policies, (str, bytes)))
        ) and len(policies) == n:
            given = range(n)
        else:
            raise TypeError(
                f"policies must be a sequence of {n} policies (one per seat) or a dict seat -> policy, "
                f"got {_describe(policies)}"
            )
        in_play = alive(state.ints, self.params, index).tolist()
        for seat in range(n):
            if seat == until or not in_play[seat]:
                continue
            if seat not in given:
                raise ValueError(f"policies has no policy for seat {seat}, which is in the game: {_describe(policies)}")
            if not callable(policies[seat]):
                raise TypeError(
                    f"policies[{seat}] must be callable as policy(observation, mask) -> action, "
                    f"got {_describe(policies[seat])}"
                )
        return listeners(policies)

    def describe_refusal(self, state: State, action: int, status: int, index: int = 0) -> str:
        """Why the engine refused an action (status < 0), in words."""
        index = self._index(state, index)
        if status == K.ST_OUT_OF_RANGE:
            return f"action id {action} out of range 0..{self.num_actions - 1}"
        text = self.actions.strings[action]
        if status == K.ST_GAME_OVER:
            return f"{text!r}: the game is over; reset it first"
        seat = self.current_player(state, index)
        phase = int(state.ints[index, S_PHASE])
        if status == K.ST_NOT_HELD:
            card = text.split()[1]
            return f"{text!r}: player {seat} does not hold {card}"
        if status == K.ST_WRONG_REFUSED:
            return f"{text!r}: {text.split()[1]} cannot be played now (illegal_action='raise')"
        legal = ", ".join(self.actions.strings[a] for a in self.legal_actions(state, index))
        what = PHASE_DECISIONS[Phase(phase)].refusal
        if "{drawn}" in what:
            what = what.format(drawn=card_to_str(int(state.ints[index, S_DRAWN])))
        return f"{text!r} is not available to player {seat} during {what}; legal now: {legal}"


__all__ = ["Game", "State", "StepResult", "IllegalActionError", "action_id", "action_ids", "seed_to_rng"]
