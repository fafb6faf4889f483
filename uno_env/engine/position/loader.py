"""What loading a position shares: :class:`PositionError`, the card texts, and the loader
that the key parsers fill a state with (its value checks and the facts parsed so far)."""

from __future__ import annotations

import numpy as np

from .. import interpreted
from ..cards import card_to_str, deck_counts, parse_card, parse_colour
from ..config import RuleConfig
from ..layout import P_FACES, PH_OVER, S_DIRECTION, S_FORFEIT, S_TRUNCATED

FILL = "..."


class PositionError(ValueError):
    """A position dict that does not describe a valid game state. ``key`` names the
    position key at fault (``""`` for the dict as a whole); the message starts with
    where exactly (``hands[1]``, ``catch_window.exposed``, ...)."""

    def __init__(self, key: str, problem: str, where: str | None = None):
        where = key if where is None else where
        super().__init__(f"{where}: {problem}" if where else problem)
        self.key = key


def parse_cards(texts, key: str, where: str | None = None) -> list[int]:
    """Face ids of a list of card texts; PositionError naming ``key`` (and ``where``) otherwise."""
    if isinstance(texts, (str, bytes, dict)) or not isinstance(texts, (list, tuple)):
        raise PositionError(key, f"expected a list of card texts, got {texts!r}", where)
    faces = []
    for text in texts:
        try:
            faces.append(parse_card(text))
        except ValueError as err:
            raise PositionError(key, str(err), where) from None
    return faces


def parse_deck_order(config: RuleConfig, deck) -> np.ndarray:
    """Faces of an explicit deck order (top first); it must be exactly the deck."""
    faces = parse_cards(deck, "deck")
    counts = np.bincount(np.array(faces, dtype=np.int64), minlength=len(deck_counts(config.deck)))
    check_counts(config, counts, True, "deck")
    return np.array(faces, dtype=np.int8)


def check_counts(config: RuleConfig, counts: np.ndarray, exact: bool, key: str = "hands") -> None:
    expected = deck_counts(config.deck).astype(np.int64)
    if len(counts) > len(expected):
        extra = [card_to_str(f) for f in range(len(expected), len(counts)) if counts[f]]
        raise PositionError(key, f"cards {', '.join(extra)} are not in the {config.deck} deck")
    counts = np.asarray(counts[: len(expected)], dtype=np.int64)
    too_many = [f"{card_to_str(f)} ({counts[f]} > {expected[f]})" for f in np.flatnonzero(counts > expected)]
    if too_many:
        raise PositionError(key, f"more copies than the {config.deck} deck has: {', '.join(too_many)}")
    if exact and (counts != expected).any():
        missing = [f"{card_to_str(f)} x{expected[f] - counts[f]}" for f in np.flatnonzero(counts < expected)]
        raise PositionError(
            key,
            f"the cards do not make up the {config.deck} deck; missing: {', '.join(missing)} "
            f"(end draw_pile with {FILL!r} to fill the rest)",
        )


MISSING = object()
"""A key left out of the position (its parser applies the default)."""


INT32_MAX = 2**31 - 1


class Loader:
    """What the key parsers share while one position loads: the game, the state being
    filled and the facts parsed so far (keys parse in :data:`KEYS` order)."""

    def __init__(self, game, position: dict, seed: int | None):
        self.game = game
        self.config = game.config
        self.P = game.params
        self.n = game.num_players
        self.F = int(self.P[P_FACES])
        self.position = position
        self.seed = seed
        self.state = game.new_state()
        self.cards = self.state.cards[0]
        self.ints = self.state.ints[0]
        """Game 0's rows of the state: the scalars are ``ints[S_*]``; the piles and per-seat
        blocks are read and written through :mod:`~uno_env.engine.state` on ``state``."""
        self.hands: list[list[int]] = []
        self.discard: list[int] = []
        self.phase = 0
        self.colour = -1
        self.alive: list[bool] = []
        self.current = -1
        self.rng_state: int | None = None

    # ------------------------------------------------------------ value checks
    def seat(self, key: str, value, allow_none: bool = False, where: str | None = None) -> int:
        if value is None and allow_none:
            return -1
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not 0 <= value < self.n:
            expected = f"a seat 0..{self.n - 1}" + (" or null" if allow_none else "")
            raise PositionError(key, f"expected {expected}, got {value!r}", where)
        return int(value)

    def flag(self, key: str, value, where: str | None = None) -> bool:
        if not isinstance(value, (bool, np.bool_)):
            raise PositionError(key, f"expected true or false, got {value!r}", where)
        return bool(value)

    def integer(self, key: str, value, low: int, high: int = INT32_MAX, where: str | None = None) -> int:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
            raise PositionError(key, f"expected an integer {low}..{high}, got {value!r}", where)
        return int(value)

    def colour_of(self, key: str, value, where: str | None = None) -> int:
        if not isinstance(value, str):
            raise PositionError(key, f"expected a colour R, Y, G or B, got {value!r}", where)
        try:
            return parse_colour(value)
        except ValueError as err:
            raise PositionError(key, str(err), where) from None

    def per_seat(self, key: str, value) -> list:
        if not isinstance(value, (list, tuple)) or len(value) != self.n:
            raise PositionError(key, f"expected a list of {self.n} values (one per seat), got {value!r}")
        return list(value)

    def record(self, key: str, value, fields: dict[str, bool]) -> dict:
        """A dict-valued key: a dict with exactly the known fields (``fields``: name -> required)."""
        if not isinstance(value, dict):
            raise PositionError(key, f"expected a dict with {', '.join(fields)}, got {value!r}")
        unknown = sorted(str(k) for k in set(value) - set(fields))
        if unknown:
            raise PositionError(
                key,
                f"unknown field(s) {', '.join(unknown)}; known: {', '.join(fields)}",
            )
        missing = [name for name, required in fields.items() if required and name not in value]
        if missing:
            raise PositionError(key, f"missing field(s) {', '.join(missing)}")
        return value

    def hand_face_counts(self, faces: list[int]) -> np.ndarray:
        return np.bincount(np.array(faces, dtype=np.int64), minlength=self.F)

    # ------------------------------------------------------------ parsed facts
    @property
    def top(self) -> int:
        return self.discard[-1]

    @property
    def stacking(self) -> bool:
        return self.config.stacking != "off"

    def interrupted(self) -> bool:
        """Phase ``over`` reached by a truncation or a forfeit: the engine leaves the decision
        it interrupted in the state, so the keys of that decision may still be set (they are
        then checked as values only, the seat that was deciding being gone)."""
        return self.phase == PH_OVER and (self.ints[S_TRUNCATED] != 0 or self.ints[S_FORFEIT] >= 0)

    def next_in_play(self, seat: int) -> int:
        """The next seat in the game after ``seat`` in the direction of play (the engine's
        ``next_alive``, on the seats in play written so far)."""
        return int(rules().next_alive(self.state.ints, self.P, 0, seat, int(self.ints[S_DIRECTION])))


def rules():
    """The engine's rule functions as plain Python (the kernels' interpreted twin,
    :mod:`~uno_env.engine.interpreted`): a position is judged by the very functions that
    play, on its state, with no wait for numba to compile them."""
    return interpreted.kernels()
