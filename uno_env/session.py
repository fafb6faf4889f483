"""What the PettingZoo env and the Gymnasium env share, so that both reset and step one way:
their reset options read once (:func:`read_reset`), the new game of a reset
(:func:`start_game`), and one step through the engine read as named fields (:func:`step`).

>>> import numpy as np
>>> from uno_env.engine import Game
>>> game = Game(num_players=2)
>>> state = game.new_state()
>>> start_game(game, state, read_reset(3, None)) is state    # a plain reset plays in place
True
>>> summary = step(game, state, game.legal_actions(state)[0], np.zeros((1, 2), np.float32))
>>> summary.seat == game.current_player(state) and summary.status == 0
True
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from .engine import Game, IllegalActionError, State
from .engine import kernels as K
from .engine.entry import ENGINE
from .engine.layout import PH_OVER
from .engine.seeding import check_seed

RESET_OPTIONS = ("position", "deck", "dealer")
"""The reset options of both envs: a position to start from, a deck order (with a dealer),
or the dealer of a shuffled deck."""


class ResetRequest(NamedTuple):
    """A reset's seed and options, checked: at most one of ``position`` and ``deck``."""

    seed: int | None = None
    position: Any = None  # a dict, checked by the position loader (PositionError names what is wrong)
    deck: Any = None
    dealer: int | None = None

    @property
    def starts_elsewhere(self) -> bool:
        """A position or a deck: the game is built anew rather than reset in place."""
        return self.position is not None or self.deck is not None


def read_reset(seed, options, unknown: str = "raise", game: Game | None = None) -> ResetRequest:
    """The checked request of ``reset(seed, options)``; ValueError names what is wrong, and
    nothing has changed. ``unknown``: what an unknown option gets, ``"raise"`` or ``"warn"``
    (PettingZoo's api_test passes options of its own to the AEC env). ``game``: the env's
    game, whose seats the ``dealer`` option is checked against here, before the caller
    re-seeds anything (a position or a deck is checked as it is loaded, into a new state)."""
    if seed is not None:
        seed = check_seed(seed)
    if options is not None and not isinstance(options, Mapping):
        raise ValueError(f"reset options must be a dict or None, got {options!r}")
    options = dict(options or {})
    position, deck, dealer = (options.pop(name, None) for name in RESET_OPTIONS)
    _check_start(position, deck, dealer)
    if game is not None and dealer is not None:
        game._check_dealer(dealer)  # the engine's own check, with its message
    if options:
        _refuse_unknown(options, unknown)
    return ResetRequest(seed, position, deck, dealer)


def _check_start(position, deck, dealer) -> None:
    """A game starts from a position, a deck or a seed; a position names its own dealer."""
    if position is not None and deck is not None:
        raise ValueError("reset options 'position' and 'deck' exclude each other")
    if position is not None and dealer is not None:
        raise ValueError("give the dealer inside the position, not as a separate option")


def _refuse_unknown(options: dict, unknown: str) -> None:
    """Raise ValueError naming the unknown reset options, or warn of them (``unknown="warn"``)
    as from the caller of the caller of :func:`read_reset`."""
    names = ", ".join(sorted(map(str, options)))
    if unknown != "warn":
        raise ValueError(f"unknown reset option(s): {names}; known: {', '.join(RESET_OPTIONS)}")
    warnings.warn(f"ignored reset option(s) {names}; known: {', '.join(RESET_OPTIONS)}", stacklevel=4)


def start_game(game: Game, state: State, request: ResetRequest) -> State:
    """The game a reset starts: a new state from ``request.position`` or ``request.deck``, else
    ``state`` itself reset with the request's seed and dealer (checked first, then done)."""
    if request.position is not None:
        return game.from_position(request.position, seed=request.seed)
    if request.deck is not None:
        dealer = 0 if request.dealer is None else request.dealer
        return game.init_from_deck(request.deck, dealer=dealer, seed=request.seed)
    game.reset(state, seed=request.seed, dealer=request.dealer)
    return state


_STATUS_SHIFT, _STATUS_MASK = K.SUMMARY_STATUS
_PHASE_SHIFT, _PHASE_MASK = K.SUMMARY_PHASE
_SEAT_SHIFT, _SEAT_MASK = K.SUMMARY_SEAT
_REWARDED_SHIFT, _ = K.SUMMARY_REWARDED
_ALIVE_SHIFT, _ = K.SUMMARY_ALIVE


class StepSummary(NamedTuple):
    """What one step of the engine leaves for its caller (the kernel's packed summary, read once)."""

    status: int
    """0: done; 1: a wrong card was taken back with a penalty; 2: its player lost by it."""
    phase: int
    """The phase now (``PH_*`` of :mod:`uno_env.engine.layout`; ``PH_OVER`` once the game is over)."""
    seat: int
    """The seat to act now, -1 once the game is over."""
    rewarded: bool
    """Some seat's reward in the step's rewards row is not zero."""
    alive: int
    """Players still in the game."""


REWARDED = 1 << _REWARDED_SHIFT
"""The bit of a packed summary (:func:`step_and_observe`) set when some seat was rewarded."""
PHASE_BITS = _PHASE_MASK << _PHASE_SHIFT
PHASE_OVER = PH_OVER << _PHASE_SHIFT
"""``packed & PHASE_BITS == PHASE_OVER``: the game is over."""
ALIVE_SHIFT = _ALIVE_SHIFT
"""``packed >> ALIVE_SHIFT``: the players still in the game."""
SEAT_SHIFT, SEAT_MASK = _SEAT_SHIFT, _SEAT_MASK
"""``((packed >> SEAT_SHIFT) & SEAT_MASK) - 1``: the seat to act (-1 once the game is over)."""


def summary_of(packed: int) -> StepSummary:
    """The fields of a packed summary, named."""
    return StepSummary(
        ((packed >> _STATUS_SHIFT) & _STATUS_MASK) - K.SUMMARY_STATUS_BIAS,
        (packed >> _PHASE_SHIFT) & _PHASE_MASK,
        ((packed >> _SEAT_SHIFT) & _SEAT_MASK) - 1,
        bool((packed >> _REWARDED_SHIFT) & 1),
        packed >> _ALIVE_SHIFT,
    )


STATUS_BITS = _STATUS_MASK << _STATUS_SHIFT
REFUSED_BELOW = K.SUMMARY_STATUS_BIAS << _STATUS_SHIFT
"""``packed & STATUS_BITS < REFUSED_BELOW``: the step was refused (:func:`refusal` says why)."""


def refusal(game: Game, state: State, action: int, packed: int) -> IllegalActionError:
    """The error of a refused step, from its packed summary (nothing changed)."""
    status = ((packed >> _STATUS_SHIFT) & _STATUS_MASK) - K.SUMMARY_STATUS_BIAS
    return IllegalActionError(game.describe_refusal(state, int(action), status), status)


def step_and_observe(
    game: Game, state: State, action: int, rewards: np.ndarray, observation: np.ndarray, mask: np.ndarray
) -> int:
    """:func:`step`, and, while the game goes on, the observation and mask of the seat to act
    next written to ``observation`` and ``mask`` (``ENGINE.step_and_observe``: one engine
    call). Returns the summary packed in one integer, for a caller that reads a few of its
    bits at every step (:data:`REWARDED`, :data:`PHASE_BITS`, ...; :func:`summary_of` names
    them all). The AEC env makes the same call in its step, without this function's frame."""
    packed = ENGINE.step_and_observe(
        state.cards, state.ints, state.rng, game.params, 0, action, rewards, state.ev, state.evn, observation, mask
    )
    if packed & STATUS_BITS < REFUSED_BELOW:
        raise refusal(game, state, action, packed)
    return packed


def step(game: Game, state: State, action: int, rewards: np.ndarray) -> StepSummary:
    """Step game 0 of ``state`` with the action id ``action`` (an int within the action
    space: the caller's door checks it), its rewards written to ``rewards`` (1 x players).
    A refused action raises :class:`~uno_env.engine.IllegalActionError` naming why, and
    nothing changes."""
    packed = ENGINE.step_summary(
        state.cards, state.ints, state.rng, game.params, 0, action, rewards, state.ev, state.evn
    )
    status = ((packed >> _STATUS_SHIFT) & _STATUS_MASK) - K.SUMMARY_STATUS_BIAS
    if status < 0:
        raise IllegalActionError(game.describe_refusal(state, int(action), status), status)
    return summary_of(packed)


__all__ = [
    "ALIVE_SHIFT",
    "PHASE_BITS",
    "PHASE_OVER",
    "REFUSED_BELOW",
    "RESET_OPTIONS",
    "REWARDED",
    "SEAT_MASK",
    "SEAT_SHIFT",
    "STATUS_BITS",
    "ResetRequest",
    "StepSummary",
    "read_reset",
    "refusal",
    "start_game",
    "step",
    "step_and_observe",
    "summary_of",
]
