"""Positions: the god's-eye view of a game as a JSON-able dict, both ways.

A dump (``Game.position``) always writes every key; a load (``Game.from_position``)
needs only ``hands``, ``discard_pile`` and ``current_player``, the others take
their defaults. The keys are parsed in this order by the parsers of :data:`KEYS`
(this table is generated from it by ``python -m uno_env.docs --write``); a value
that does not fit, or a position that no game could reach, raises
:class:`PositionError` naming the key (``error.key``), and nothing is loaded.

The house rules (HOUSE_RULES.md) add their phases and keys: a dump writes them in
every configuration (``null`` or ``0`` where the rule is off), and a load refuses a
phase or a value that needs a rule the configuration does not have:
``pending_penalty`` needs stacking, ``last_swap`` seven_o, ``next_turn`` seven_o or
jump_in (in phase ``swap`` it defaults to the next seat in play). ``wild_draw_four``
is set in phase ``challenge``, or with stacking in phase ``penalty`` and in the catch
window before it; its ``guilty`` is dumped with stacking, where the offender may have
drawn (a catch) since playing it (D-HOUSE-STACK-JUDGE), and defaults to the
offender's hand holding the previous colour. ``top_card_player`` defaults to the seat
that the decision implies, and must be it there: the exposed seat in phase ``catch``,
the offender under a pending W+4, ``current_player`` in ``swap`` (without jump_in,
where only the Seven-O choice reads it, ``null`` is accepted too outside ``swap``).

A game that ended in the middle of a decision (truncated at ``max_steps``, or
forfeited) keeps that decision's keys in phase ``over``, as the engine leaves them;
they are then checked as values only.

What no game reaches is refused too: a colour in force other than the coloured card's
on top, ``step`` at ``max_steps`` in play (beyond it when over; a truncated game stops
exactly there), more rounds than decisions, scores below 0 or (in play) at the target,
partners with different scores, eliminated seats outside Challenge UNO or below its
target, outcomes other than 0 (-1 eliminated) in play, or other than the ending implies
in phase ``over`` (exactly one of ``terminated`` and ``truncated``), a round's winner
in round 0, a forfeit without ``illegal_action="lose"``, an empty hand in play (but the
player of a last Wild Draw Four while its target decides, R-END-2), and, last, any
violation of the engine's invariants (:mod:`~uno_env.engine.checks`). Round, step and
the last round's winner may be left at their defaults (a state sampled from an
observation knows none of them). Without a seed and an ``rng``, the fresh seed is drawn
only once the position is found valid.

<!-- position-table -->
| key | default | meaning |
|---|---|---|
| `num_players` | the configuration's | must match the configuration |
| `deck` | the configuration's | `"classic"` or `"fashion_trend"`, must match the configuration |
| `hands` | required | one list of card texts per seat |
| `discard_pile` | required | card texts, **top last** (at least the top card) |
| `draw_pile` | `["..."]` | card texts, **top first**; a final `"..."` puts the rest of the deck below, seeded |
| `rng` | from the seed | engine generator state as a hex string (`"0x..."`, as dumped) |
| `phase` | `"play"` | `play`, `drawn`, `color`, `challenge`, `catch`, `over`; `penalty`, `swap`, `jump` (house rules) |
| `colour` | the top card's colour | current colour `R`/`Y`/`G`/`B`; `null` only in phase `color` (a starting Wild) |
| `previous_colour` | `null` | colour before the top card was played (judges a Wild Draw Four) |
| `direction` | `1` | `1` (clockwise) or `-1` |
| `dealer` | `0` | seat of the dealer |
| `alive` | all `true` | per seat, `true`/`false`: still in the game (Challenge UNO) |
| `drew_on` | none | per seat, the colours in force when it drew instead of playing since it last played (public) |
| `named_colour` | none | per seat, the colour its last Wild named this round, or `null` (public) |
| `scores` | zeros | per seat, integer scores |
| `outcome` | 0 (-1 where eliminated) | per seat, `1` won, `-1` lost, `0` undecided |
| `round` | `0` | rounds played (`0` in an episode of one round) |
| `step` | `0` | decisions taken, under `max_steps` while in play |
| `terminated` | `false` | the game ended (phase `over` only) |
| `truncated` | `false` | the game hit `max_steps` (phase `over` only) |
| `forfeit` | `null` | seat that lost by an illegal action |
| `last_winner` | `null` | seat that won the last round |
| `current_player` | required (`null` in phase `over`) | seat whose decision it is; it must be in the game |
| `uno_called` | `false` | the acting player called UNO this turn (two cards; `play`, `drawn`, `penalty`, `jump`) |
| `drawn_card` | `null` | the playable card drawn this turn (phase `drawn` only, required there) |
| `catch_window` | `null` | `{"exposed": seat, "next_player": seat}` (phase `catch` only; `current_player` is asked) |
| `pending_penalty` | `0` | cards a stack's target draws unless it answers (phase `penalty`, or `catch` before it) |
| `wild_draw_four` | `null` | `{"offender": s, "exposed": b, "guilty": b}` (a W+4 on top, its decision pending) |
| `top_card_player` | the phase's, else `null` | seat that played the top card, `null` for the starting card |
| `next_turn` | `null` | seat whose turn begins after phase `swap` or `jump` (only there; required in `jump`) |
| `last_swap` | `null` | `{"seat": s, "other": t}`: the last 7 swap of the round, `s` played the 7 |
| `challenge_reveal` | `null` | `{"viewer": seat, "owner": seat, "hand": [cards]}`: a hand shown to its challenger |
| `fashion_trend` | `null` | `{"player": seat, "colour": c, "shown": [card or null per seat]}` (Fashion Trend deck) |
<!-- /position-table -->
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .cards import (
    CARD_VALUES,
    COLOURS,
    RANK_DRAW_TWO,
    RANK_SEVEN,
    WILD,
    WILD_DRAW_FOUR,
    card_to_str,
    deck_counts,
    face_colour,
    face_rank,
    matches_on,
    parse_card,
    parse_colour,
)
from .config import RuleConfig
from .layout import (
    P_C_DISCARD,
    P_C_DISCARD_COUNTS,
    P_C_DRAW,
    P_C_HANDS,
    P_C_REVEAL,
    P_FACES,
    P_I_ALIVE,
    P_I_DREW_ON,
    P_I_HAND_SIZE,
    P_I_NAMED,
    P_I_OUTCOME,
    P_I_SCORE,
    P_I_TREND,
    PH_CATCH,
    PH_CHALLENGE,
    PH_COLOR,
    PH_DRAWN,
    PH_JUMP,
    PH_OVER,
    PH_PENALTY,
    PH_PLAY,
    PH_SWAP,
    S_AFTER_WINDOW,
    S_COLOUR,
    S_CURRENT,
    S_DEALER,
    S_DIRECTION,
    S_DISCARD_COUNT,
    S_DRAW_COUNT,
    S_DRAWN,
    S_EXPOSED,
    S_FOLLOWING,
    S_FORFEIT,
    S_LAST_WINNER,
    S_N_ALIVE,
    S_PENDING,
    S_PHASE,
    S_PREV_COLOUR,
    S_REVEAL_OWNER,
    S_REVEAL_VIEWER,
    S_ROUND,
    S_STEP,
    S_SWAP_FROM,
    S_SWAP_TO,
    S_TERMINATED,
    S_TOP_PLAYER,
    S_TREND_COLOUR,
    S_TREND_VIEWER,
    S_TRUNCATED,
    S_UNO_CALLED,
    S_WD4_EXPOSED,
    S_WD4_GUILTY,
    S_WD4_OFFENDER,
    S_WD4_OUT,
)
from .observation import PHASE_NAMES

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


def _colour_text(index: int):
    return None if index < 0 else COLOURS[index]


def _seat_or_none(value: int):
    return None if value < 0 else int(value)


def _wild_draw_four_record(game, ints) -> dict:
    record = {"offender": int(ints[S_WD4_OFFENDER]), "exposed": bool(ints[S_WD4_EXPOSED])}
    if game.config.stacking != "off":  # the offender may have drawn since (D-HOUSE-STACK-JUDGE)
        record["guilty"] = bool(ints[S_WD4_GUILTY])
    return record


def dump_position(game, state, b: int = 0) -> dict:
    P = game.params
    n = game.num_players
    F = int(P[P_FACES])
    cards = state.cards[b]
    ints = state.ints[b]

    def hand_of(start: int) -> list[str]:
        return [card_to_str(f) for f in range(F) for _ in range(int(cards[start + f]))]

    phase = int(ints[S_PHASE])
    position = {
        "num_players": n,
        "deck": game.config.deck,
        "hands": [hand_of(P[P_C_HANDS] + s * F) for s in range(n)],
        "draw_pile": [card_to_str(f) for f in cards[P[P_C_DRAW] : P[P_C_DRAW] + ints[S_DRAW_COUNT]][::-1]],
        "discard_pile": [card_to_str(f) for f in cards[P[P_C_DISCARD] : P[P_C_DISCARD] + ints[S_DISCARD_COUNT]]],
        "colour": _colour_text(ints[S_COLOUR]),
        "previous_colour": _colour_text(ints[S_PREV_COLOUR]),
        "direction": int(ints[S_DIRECTION]),
        "current_player": _seat_or_none(ints[S_CURRENT]),
        "dealer": int(ints[S_DEALER]),
        "phase": PHASE_NAMES[phase],
        "drawn_card": None if ints[S_DRAWN] < 0 else card_to_str(ints[S_DRAWN]),
        "uno_called": bool(ints[S_UNO_CALLED]),
        "catch_window": None
        if ints[S_EXPOSED] < 0
        else {"exposed": int(ints[S_EXPOSED]), "next_player": int(ints[S_AFTER_WINDOW])},
        "pending_penalty": int(ints[S_PENDING]),
        "wild_draw_four": None if ints[S_WD4_OFFENDER] < 0 else _wild_draw_four_record(game, ints),
        "top_card_player": _seat_or_none(ints[S_TOP_PLAYER]),
        "next_turn": _seat_or_none(ints[S_FOLLOWING]),
        "last_swap": None if ints[S_SWAP_FROM] < 0 else {"seat": int(ints[S_SWAP_FROM]), "other": int(ints[S_SWAP_TO])},
        "challenge_reveal": None
        if ints[S_REVEAL_VIEWER] < 0
        else {
            "viewer": int(ints[S_REVEAL_VIEWER]),
            "owner": int(ints[S_REVEAL_OWNER]),
            "hand": hand_of(P[P_C_REVEAL]),
        },
        "fashion_trend": None
        if ints[S_TREND_VIEWER] < 0
        else {
            "player": int(ints[S_TREND_VIEWER]),
            "colour": COLOURS[ints[S_TREND_COLOUR]],
            "shown": [None if ints[P[P_I_TREND] + s] < 0 else card_to_str(ints[P[P_I_TREND] + s]) for s in range(n)],
        },
        "drew_on": [[COLOURS[c] for c in range(4) if ints[P[P_I_DREW_ON] + s] & (1 << c)] for s in range(n)],
        "named_colour": [None if ints[P[P_I_NAMED] + s] < 0 else COLOURS[ints[P[P_I_NAMED] + s]] for s in range(n)],
        "scores": [int(v) for v in ints[P[P_I_SCORE] : P[P_I_SCORE] + n]],
        "alive": [bool(v) for v in ints[P[P_I_ALIVE] : P[P_I_ALIVE] + n]],
        "round": int(ints[S_ROUND]),
        "step": int(ints[S_STEP]),
        "terminated": bool(ints[S_TERMINATED]),
        "truncated": bool(ints[S_TRUNCATED]),
        "forfeit": _seat_or_none(ints[S_FORFEIT]),
        "last_winner": _seat_or_none(ints[S_LAST_WINNER]),
        "outcome": [int(v) for v in ints[P[P_I_OUTCOME] : P[P_I_OUTCOME] + n]],
        "rng": f"0x{int(state.rng[b]):016x}",
    }
    return position


# ---------------------------------------------------------------------- loading
MISSING = object()
"""A key left out of the position (its parser applies the default)."""

INT32_MAX = 2**31 - 1


class _Loader:
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
            raise PositionError(key, f"unknown field(s) {', '.join(unknown)}; known: {', '.join(fields)}")
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
        """The next seat in the game after ``seat`` in the direction of play."""
        direction = int(self.ints[S_DIRECTION])
        s = seat
        for _ in range(self.n):
            s = (s + direction) % self.n
            if self.alive[s]:
                return s
        return seat


def _num_players(L: _Loader, value) -> None:
    if value is MISSING:
        return
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise PositionError("num_players", f"expected an integer, got {value!r}")
    if value != L.n:
        raise PositionError("num_players", f"got {value!r} but the configuration has {L.n} players")


def _deck(L: _Loader, value) -> None:
    if value is not MISSING and (not isinstance(value, str) or value != L.config.deck):
        raise PositionError("deck", f"got {value!r} but the configuration uses the {L.config.deck!r} deck")


def _hands(L: _Loader, value) -> None:
    if value is MISSING:
        raise PositionError("hands", "required: one list of card texts per seat")
    if not isinstance(value, (list, tuple)) or len(value) != L.n:
        raise PositionError("hands", f"expected {L.n} lists of cards, got {value!r}")
    L.hands = [parse_cards(h, "hands", f"hands[{s}]") for s, h in enumerate(value)]


def _discard_pile(L: _Loader, value) -> None:
    L.discard = parse_cards([] if value is MISSING else value, "discard_pile")
    if not L.discard:
        raise PositionError("discard_pile", "at least the top card is needed")


def _draw_pile(L: _Loader, value) -> None:
    texts = [FILL] if value is MISSING else value
    if not isinstance(texts, (list, tuple)):
        raise PositionError("draw_pile", f"expected a list of card texts, got {texts!r}")
    texts = list(texts)
    fill = bool(texts) and texts[-1] == FILL
    if fill:
        texts = texts[:-1]
    draw = parse_cards(texts, "draw_pile")
    F, config = L.F, L.config
    counts = np.zeros(F, dtype=np.int64)
    for key, faces in [("hands", f) for f in L.hands] + [("discard_pile", L.discard), ("draw_pile", draw)]:
        for f in faces:
            if f >= F:
                raise PositionError(key, f"card {card_to_str(f)} is not in the {config.deck} deck")
            counts[f] += 1
    check_counts(config, counts, not fill, "draw_pile" if value is not MISSING else "hands")
    if fill:
        from .game import seed_to_rng

        rest = np.repeat(np.arange(F), deck_counts(config.deck).astype(np.int64) - counts)
        filler = np.random.default_rng(int(seed_to_rng(0 if L.seed is None else L.seed)))
        draw = draw + [int(f) for f in filler.permutation(rest)]
    P, cards, ints = L.P, L.cards, L.ints
    for s, faces in enumerate(L.hands):
        for f in faces:
            cards[P[P_C_HANDS] + s * F + f] += 1
        ints[P[P_I_HAND_SIZE] + s] = len(faces)
    for k, f in enumerate(reversed(draw)):
        cards[P[P_C_DRAW] + k] = f
    ints[S_DRAW_COUNT] = len(draw)
    for k, f in enumerate(L.discard):
        cards[P[P_C_DISCARD] + k] = f
        cards[P[P_C_DISCARD_COUNTS] + f] += 1
    ints[S_DISCARD_COUNT] = len(L.discard)


def _rng(L: _Loader, value) -> None:
    # the generator is set once the whole position is found valid (seed_generator): a
    # refused position draws no fresh seed
    L.rng_state = None
    if value is MISSING or value is None:
        return
    text = value.strip().lower() if isinstance(value, str) else None
    digits = text[2:] if text is not None and text.startswith("0x") else text
    if not digits or len(digits) > 16 or any(c not in "0123456789abcdef" for c in digits):
        raise PositionError("rng", f"expected a hex string of at most 16 digits such as '0x1f', got {value!r}")
    state = int(digits, 16)
    if state == 0:
        raise PositionError("rng", "the generator state must not be zero")
    L.rng_state = state


def seed_generator(L: _Loader) -> None:
    """The state's generator: the position's ``rng``, else from the seed (a fresh one
    without), set last so that a refused position consumes no randomness."""
    from .game import fresh_seed, seed_to_rng

    if L.rng_state is not None:
        L.state.rng[0] = np.uint64(L.rng_state)
    else:
        L.state.rng[0] = seed_to_rng(fresh_seed() if L.seed is None else L.seed)


HOUSE_PHASES = {PH_PENALTY: "stacking", PH_SWAP: "seven_o", PH_JUMP: "jump_in"}
"""The house rules' phases and the setting that each needs (HOUSE_RULES.md)."""


def _phase(L: _Loader, value) -> None:
    name = "play" if value is MISSING else value
    if not isinstance(name, str) or name not in PHASE_NAMES:
        raise PositionError("phase", f"expected one of {', '.join(PHASE_NAMES)}, got {name!r}")
    L.phase = PHASE_NAMES.index(name)
    L.ints[S_PHASE] = L.phase
    setting = HOUSE_PHASES.get(L.phase)
    if setting is not None and getattr(L.config, setting) in ("off", False):
        raise PositionError("phase", f"phase {name!r} needs the house rule {setting} (off in this configuration)")
    top = L.top
    if L.phase == PH_CHALLENGE and L.stacking:
        raise PositionError(
            "phase", "with stacking a Wild Draw Four is accepted or challenged in phase 'penalty' (D-HOUSE-STACK-ASKED)"
        )
    if L.phase == PH_PENALTY and top != WILD_DRAW_FOUR and face_rank(top) != RANK_DRAW_TWO:
        raise PositionError("phase", f"'penalty' needs a Draw Two or Wild Draw Four on top, not {card_to_str(top)}")
    if L.phase == PH_SWAP and face_rank(top) != RANK_SEVEN:
        raise PositionError(
            "phase", f"'swap' needs the 7 just played on top, not {card_to_str(top)} (R-HOUSE-SEVENO-1)"
        )
    if L.phase == PH_JUMP and top >= WILD:
        raise PositionError(
            "phase", f"'jump' needs a coloured card on top: {card_to_str(top)} is never jumped on (R-HOUSE-JUMP-1)"
        )


def _colour(L: _Loader, value) -> None:
    top = L.discard[-1]
    if value is MISSING:
        value = COLOURS[face_colour(top)] if top < WILD else None
    L.colour = -1 if value is None else L.colour_of("colour", value)
    if L.colour < 0 and L.phase not in (PH_COLOR, PH_OVER):  # phase over: see _current_player
        raise PositionError("colour", "a current colour is needed (the top card is a wild)")
    if L.phase == PH_COLOR and top < WILD:
        raise PositionError("phase", "'color' needs a Wild or Fashion Trend on top of the discard pile")
    if top < WILD and L.colour != face_colour(top):
        raise PositionError(
            "colour",
            f"{value!r} differs from the colour of the {card_to_str(top)} on top: only a wild card names "
            "another colour (R-TURN-1)",
        )
    L.ints[S_COLOUR] = L.colour


def _previous_colour(L: _Loader, value) -> None:
    L.ints[S_PREV_COLOUR] = -1 if value is MISSING or value is None else L.colour_of("previous_colour", value)


def _direction(L: _Loader, value) -> None:
    direction = 1 if value is MISSING else value
    if (
        isinstance(direction, (bool, np.bool_))
        or not isinstance(direction, (int, np.integer))
        or direction not in (1, -1)
    ):
        raise PositionError("direction", f"expected 1 or -1, got {direction!r}")
    L.ints[S_DIRECTION] = int(direction)


def _dealer(L: _Loader, value) -> None:
    L.ints[S_DEALER] = L.seat("dealer", 0 if value is MISSING else value)


def _alive(L: _Loader, value) -> None:
    values = L.per_seat("alive", [True] * L.n if value is MISSING else value)
    L.alive = [L.flag("alive", v, f"alive[{s}]") for s, v in enumerate(values)]
    if not all(L.alive) and (L.config.scoring != "challenge" or L.config.episode != "game"):
        raise PositionError(
            "alive",
            f"players are eliminated only under Challenge UNO over a whole game (R-VAR-CHALLENGE), not with "
            f"scoring={L.config.scoring!r}, episode={L.config.episode!r}",
        )
    dealer = int(L.ints[S_DEALER])
    if not L.alive[dealer] and L.phase != PH_OVER:
        raise PositionError("dealer", f"seat {dealer} is eliminated: each round's dealer is in the game (R-SETUP-5)")
    for s in range(L.n):
        L.ints[L.P[P_I_ALIVE] + s] = int(L.alive[s])
        if not L.alive[s] and L.hands[s] and L.phase != PH_OVER:
            raise PositionError("alive", f"seat {s} is eliminated but holds cards")
    L.ints[S_N_ALIVE] = sum(L.alive)
    if L.ints[S_N_ALIVE] < 2 and L.phase != PH_OVER:
        raise PositionError("alive", "at least two players must be in the game")
    if L.phase == PH_SWAP and L.ints[S_N_ALIVE] < 3:
        raise PositionError(
            "phase", "with two players in the game a 7 swaps without a decision: no phase 'swap' (R-HOUSE-SEVENO-1)"
        )


def _drew_on(L: _Loader, value) -> None:
    values = L.per_seat("drew_on", [[]] * L.n if value is MISSING else value)
    for s, colours in enumerate(values):
        if not isinstance(colours, (list, tuple)):
            raise PositionError("drew_on", f"expected a list of colours, got {colours!r}", f"drew_on[{s}]")
        bits = 0
        for text in colours:
            bits |= 1 << L.colour_of("drew_on", text, f"drew_on[{s}]")
        if bits and not L.alive[s] and L.phase != PH_OVER:
            raise PositionError("drew_on", f"seat {s} is eliminated: it has not drawn this round", f"drew_on[{s}]")
        L.ints[L.P[P_I_DREW_ON] + s] = bits


def _named_colour(L: _Loader, value) -> None:
    values = L.per_seat("named_colour", [None] * L.n if value is MISSING else value)
    for s, text in enumerate(values):
        colour = -1 if text is None else L.colour_of("named_colour", text, f"named_colour[{s}]")
        if colour >= 0 and not L.alive[s] and L.phase != PH_OVER:
            raise PositionError(
                "named_colour", f"seat {s} is eliminated: it has named no colour this round", f"named_colour[{s}]"
            )
        L.ints[L.P[P_I_NAMED] + s] = colour


def _scores(L: _Loader, value) -> None:
    values = L.per_seat("scores", [0] * L.n if value is MISSING else value)
    config, target = L.config, L.config.target_score
    # a round adds at most the deck's points to a score, and only a score under the target
    # plays on: a score is 0 .. target + deck points - 1 (under the target while in play)
    high = target - 1 + int(deck_counts(config.deck).astype(np.int64) @ CARD_VALUES[: L.F].astype(np.int64))
    scores = [L.integer("scores", v, 0, high, where=f"scores[{s}]") for s, v in enumerate(values)]
    for s, score in enumerate(scores):
        L.ints[L.P[P_I_SCORE] + s] = score
        if config.scoring == "challenge" and not L.alive[s] and score < target:
            raise PositionError(
                "scores",
                f"seat {s} is eliminated with {score} < target_score {target} (R-VAR-CHALLENGE)",
                f"scores[{s}]",
            )
        eliminates = config.scoring == "challenge" and config.episode == "game"  # at the target, in any phase
        if (L.phase != PH_OVER or eliminates) and L.alive[s] and score >= target:
            raise PositionError(
                "scores",
                f"{score} reaches target_score {target}: the game would have ended "
                + ("(or the seat been eliminated) " if config.scoring == "challenge" else "")
                + "at the end of that round",
                f"scores[{s}]",
            )
    if config.partners:
        half = L.n // 2
        for s in range(half):
            if scores[s] != scores[s + half]:
                raise PositionError(
                    "scores",
                    f"partners {s} and {s + half} score as a team: {scores[s]} != {scores[s + half]} (D-VARIANTS)",
                )


def _outcome(L: _Loader, value) -> None:
    default = [0 if a else -1 for a in L.alive]  # eliminated seats have lost
    values = L.per_seat("outcome", default if value is MISSING else value)
    for s, v in enumerate(values):
        L.ints[L.P[P_I_OUTCOME] + s] = L.integer("outcome", v, -1, 1, where=f"outcome[{s}]")
    if L.phase != PH_OVER:
        for s in range(L.n):
            if L.ints[L.P[P_I_OUTCOME] + s] != default[s]:
                raise PositionError(
                    "outcome",
                    f"undecided (0) for a seat in the game, -1 for an eliminated one while the game is in play, "
                    f"not {values[s]!r}",
                    f"outcome[{s}]",
                )


def _round(L: _Loader, value) -> None:
    rounds = L.integer("round", 0 if value is MISSING else value, 0, L.config.max_steps)
    if rounds and L.config.episode == "round":
        raise PositionError("round", f"an episode of one round has played none before it, not {rounds}")
    L.ints[S_ROUND] = rounds


def _step(L: _Loader, value) -> None:
    # the decision that reaches max_steps ends the game (truncated): in play there are fewer
    max_steps = L.config.max_steps
    steps = L.integer("step", 0 if value is MISSING else value, 0, max_steps - (L.phase != PH_OVER))
    if L.ints[S_ROUND] > steps:
        raise PositionError("round", f"{L.ints[S_ROUND]} rounds ended in {steps} decisions (step): a round ends by one")
    L.ints[S_STEP] = steps


def _game_end(index: int, name: str):
    def parse(L: _Loader, value) -> None:
        flag = False if value is MISSING else L.flag(name, value)
        if flag and L.phase != PH_OVER:
            raise PositionError(name, f"true only in phase 'over', not {PHASE_NAMES[L.phase]!r}")
        L.ints[index] = int(flag)
        if index != S_TRUNCATED or L.phase != PH_OVER:
            return
        if not flag and not L.ints[S_TERMINATED]:
            raise PositionError("terminated", "phase 'over' needs terminated or truncated true")
        if flag and L.ints[S_TERMINATED]:
            raise PositionError("truncated", "a game ends either terminated or truncated, not both")
        if flag and L.ints[S_STEP] != L.config.max_steps:
            raise PositionError(
                "truncated",
                f"a game is truncated by the decision that reaches max_steps ({L.config.max_steps}), "
                f"not at step {L.ints[S_STEP]}",
            )

    parse.__name__ = f"_{name}"
    return parse


def _forfeit(L: _Loader, value) -> None:
    seat = L.seat("forfeit", None if value is MISSING else value, allow_none=True)
    L.ints[S_FORFEIT] = seat
    if seat < 0:
        return
    if L.config.illegal_action != "lose":
        raise PositionError(
            "forfeit", f"a game is forfeited only with illegal_action='lose', not {L.config.illegal_action!r}"
        )
    if L.phase != PH_OVER or not L.ints[S_TERMINATED]:
        raise PositionError("forfeit", "a forfeit ends the game: phase 'over' and terminated")
    if not L.alive[seat]:
        raise PositionError("forfeit", f"seat {seat} is eliminated: it took no action to lose by")


def _last_winner(L: _Loader, value) -> None:
    seat = L.seat("last_winner", None if value is MISSING else value, allow_none=True)
    L.ints[S_LAST_WINNER] = seat
    if seat >= 0 and not L.alive[seat]:
        raise PositionError("last_winner", f"seat {seat} is eliminated: the winner of a round scores nothing itself")
    ended_by_a_round = L.phase == PH_OVER and L.ints[S_TERMINATED] and L.ints[S_FORFEIT] < 0
    if ended_by_a_round and seat < 0:
        raise PositionError("last_winner", "a game that ended by its last round has that round's winner")
    # (null in a later round is accepted: a state sampled from an observation knows neither)
    if seat >= 0 and L.ints[S_ROUND] == 0 and not ended_by_a_round:
        raise PositionError("last_winner", f"no round has ended before round 0, so no winner of it (seat {seat})")


def _current_player(L: _Loader, value) -> None:
    value = None if value is MISSING else value
    current = L.seat("current_player", value, allow_none=L.phase == PH_OVER)
    if L.phase == PH_OVER:
        if current >= 0:
            raise PositionError(
                "current_player", f"null in phase 'over' (nobody acts in a finished game), not {value!r}"
            )
        if L.colour < 0 and not L.interrupted():
            raise PositionError("colour", "a current colour is needed (null only while a starting Wild waits for it)")
    elif not L.alive[current]:
        raise PositionError("current_player", f"seat {current} is eliminated")
    if L.phase == PH_JUMP and L.top not in L.hands[current]:
        raise PositionError(
            "current_player",
            f"in phase 'jump' only a holder of the card on top ({card_to_str(L.top)}) is asked; "
            f"player {current} holds none (R-HOUSE-JUMP-2)",
        )
    L.current = current
    L.ints[S_CURRENT] = current


def _uno_called(L: _Loader, value) -> None:
    called = False if value is MISSING else L.flag("uno_called", value)
    if called and L.config.uno_call == "off":
        raise PositionError("uno_called", "there is no UNO call with uno_call='off'")
    if called and not L.interrupted():
        if L.phase not in (PH_PLAY, PH_DRAWN, PH_PENALTY, PH_JUMP):
            raise PositionError(
                "uno_called", f"true only in phase 'play', 'drawn', 'penalty' or 'jump', not {PHASE_NAMES[L.phase]!r}"
            )
        # D-UNO: called with two cards; a player who called and then drew (drawing is always
        # legal) holds three while deciding on the drawn card, or more after drawing until a
        # card could be played (R-HOUSE-DRAW-1).
        size = len(L.hands[L.current])
        if L.phase != PH_DRAWN:
            fits = size == 2
        else:
            fits = size >= 2 if L.config.draw_until_playable else size in (2, 3)
        if not fits:
            raise PositionError(
                "uno_called",
                f"UNO is called with two cards (three after drawing); player {L.current} holds "
                f"{size} in phase {PHASE_NAMES[L.phase]!r} (D-UNO)",
            )
    L.ints[S_UNO_CALLED] = int(called)


def _drawn_card(L: _Loader, value) -> None:
    drawn = None if value is MISSING else value
    L.ints[S_DRAWN] = -1
    if L.phase != PH_DRAWN:
        if drawn is not None and not L.interrupted():
            raise PositionError("drawn_card", "only set in phase 'drawn'")
        if drawn is not None:  # the decision on it was interrupted: the card is still held
            face = parse_cards([drawn], "drawn_card")[0]
            if not any(face in hand for hand in L.hands):
                raise PositionError("drawn_card", f"{drawn} is in no hand")
            L.ints[S_DRAWN] = face
        return
    if drawn is None:
        raise PositionError("drawn_card", "phase 'drawn' needs drawn_card")
    face = parse_cards([drawn], "drawn_card")[0]
    if face not in L.hands[L.current]:
        raise PositionError("drawn_card", f"{drawn} is not in the hand of player {L.current}")
    if not matches_on(face, L.colour, L.top):
        raise PositionError("drawn_card", f"{drawn} cannot be played, so there is no decision on it (D-DRAWN)")
    uno_left = L.config.uno_call != "off" and len(L.hands[L.current]) == 2 and not L.ints[S_UNO_CALLED]
    if L.config.force_play and face < WILD and not uno_left:
        raise PositionError(
            "drawn_card",
            f"with force_play a drawn {drawn} is played at once: a coloured drawn card is decided on only "
            "where UNO can still be called first (R-HOUSE-FORCE-1)",
        )
    L.ints[S_DRAWN] = face


def _catch_window(L: _Loader, value) -> None:
    window = None if value is MISSING else value
    L.ints[S_EXPOSED] = -1
    L.ints[S_AFTER_WINDOW] = -1
    interrupted = window is not None and L.interrupted()
    if L.phase != PH_CATCH and not interrupted:
        if window is not None:
            raise PositionError("catch_window", "only set in phase 'catch'")
        return
    if window is None:
        raise PositionError("catch_window", "phase 'catch' needs catch_window: {'exposed': seat, 'next_player': seat}")
    window = L.record("catch_window", window, {"exposed": True, "next_player": True})
    exposed = L.seat("catch_window", window["exposed"], where="catch_window.exposed")
    if len(L.hands[exposed]) != 1:
        raise PositionError("catch_window", f"player {exposed} must hold exactly one card", "catch_window.exposed")
    if exposed == L.current:
        raise PositionError("catch_window", "the exposed player is never asked (D-WINDOW)")
    L.ints[S_EXPOSED] = exposed
    L.ints[S_AFTER_WINDOW] = L.seat("catch_window", window["next_player"], where="catch_window.next_player")


def _pending_penalty(L: _Loader, value) -> None:
    pending = 0 if value is MISSING else L.integer("pending_penalty", value, 0)
    L.ints[S_PENDING] = pending
    top = L.top
    draw_card_on_top = top == WILD_DRAW_FOUR or face_rank(top) == RANK_DRAW_TWO
    if pending == 0:
        if L.phase == PH_PENALTY:
            raise PositionError(
                "pending_penalty", "phase 'penalty' needs pending_penalty > 0: the cards its target draws"
            )
        if L.phase == PH_CATCH and L.stacking and draw_card_on_top:
            raise PositionError(
                "pending_penalty",
                f"with stacking the catch window after a {card_to_str(top)} comes before its target's penalty "
                "decision: pending_penalty > 0 (D-HOUSE-STACK-UNO)",
            )
        return
    if not L.stacking:
        raise PositionError("pending_penalty", "a pending penalty needs stacking (R-HOUSE-STACK-1), not stacking='off'")
    if not draw_card_on_top:
        raise PositionError(
            "pending_penalty", f"a pending penalty needs a Draw Two or Wild Draw Four on top, not {card_to_str(top)}"
        )
    if L.phase not in (PH_PENALTY, PH_CATCH) and not L.interrupted():
        raise PositionError(
            "pending_penalty",
            f"> 0 only in phase 'penalty' or in the catch window before it, not in {PHASE_NAMES[L.phase]!r}",
        )
    if pending % 2 or (top == WILD_DRAW_FOUR and pending < 4):
        raise PositionError(
            "pending_penalty", f"{pending} cannot be stacked: Draw Twos add 2 and Wild Draw Fours 4 (R-HOUSE-STACK-2)"
        )
    if L.config.stacking == "same" and top == WILD_DRAW_FOUR and pending % 4:
        raise PositionError(
            "pending_penalty",
            f"{pending}: with stacking='same' only Wild Draw Fours stack under a Wild Draw Four (R-HOUSE-STACK-2)",
        )


def _wild_draw_four(L: _Loader, value) -> None:
    wd4 = None if value is MISSING else value
    L.ints[S_WD4_OFFENDER] = -1
    # with stacking a Wild Draw Four's pending penalty (its catch window first) is decided on
    # in phase 'penalty' (R-HOUSE-STACK-3)
    stacked = L.stacking and L.phase in (PH_PENALTY, PH_CATCH) and L.top == WILD_DRAW_FOUR
    interrupted = wd4 is not None and L.interrupted()
    if not (L.phase == PH_CHALLENGE or stacked or interrupted):
        if wd4 is not None:
            raise PositionError(
                "wild_draw_four",
                "only set in phase 'challenge', or with stacking while a Wild Draw Four's penalty is pending",
            )
        return
    if wd4 is None:
        raise PositionError(
            "wild_draw_four",
            f"phase {PHASE_NAMES[L.phase]!r} with a W+4 on top needs wild_draw_four: {{'offender': seat, ...}}",
        )
    wd4 = L.record("wild_draw_four", wd4, {"offender": True, "exposed": False, "guilty": False})
    if L.top != WILD_DRAW_FOUR:
        raise PositionError("wild_draw_four", "needs a W+4 on top of the discard pile")
    offender = L.seat("wild_draw_four", wd4["offender"], where="wild_draw_four.offender")
    if offender == L.current:
        target = "challenge (R-WD4-5)" if L.phase == PH_CHALLENGE else "be the target of its penalty (R-HOUSE-STACK-3)"
        raise PositionError("wild_draw_four", f"only the next player may {target}", "wild_draw_four.offender")
    if L.phase == PH_CATCH and offender != L.ints[S_EXPOSED]:
        raise PositionError(
            "wild_draw_four",
            "in the catch window before the penalty decision the exposed player is the offender (D-HOUSE-STACK-UNO)",
            "wild_draw_four.offender",
        )
    exposed = L.flag("wild_draw_four", wd4.get("exposed", False), "wild_draw_four.exposed")
    if exposed and L.stacking:
        raise PositionError(
            "wild_draw_four",
            "with stacking the catch window comes before the penalty decision: exposed is false (D-HOUSE-STACK-UNO)",
            "wild_draw_four.exposed",
        )
    previous = L.ints[S_PREV_COLOUR]
    holds = bool(previous >= 0 and any(face_colour(f) == previous for f in L.hands[offender]))
    guilty = holds if "guilty" not in wd4 else L.flag("wild_draw_four", wd4["guilty"], "wild_draw_four.guilty")
    if guilty and not holds:
        raise PositionError(
            "wild_draw_four",
            f"guilty, but player {offender} holds no card of the previous colour",
            "wild_draw_four.guilty",
        )
    # D-HOUSE-STACK-JUDGE: judged on the hand held when playing it; only a catch in the window
    # before the penalty decision (two cards onto the last one) can bring the colour in since
    caught = L.stacking and (L.phase == PH_PENALTY or interrupted) and len(L.hands[offender]) >= 3
    if holds and not guilty and not caught:
        raise PositionError(
            "wild_draw_four",
            f"not guilty, but player {offender} holds a card of the previous colour {COLOURS[previous]} "
            "and drew none since playing it",
            "wild_draw_four.guilty",
        )
    L.ints[S_WD4_OFFENDER] = offender
    L.ints[S_WD4_GUILTY] = int(guilty)
    L.ints[S_WD4_OUT] = int(not L.hands[offender])
    L.ints[S_WD4_EXPOSED] = int(exposed)


def _top_card_player(L: _Loader, value) -> None:
    # where the decision tells who played the top card, that seat (and the default)
    expected, who = -1, ""
    if L.phase == PH_CATCH:
        expected, who = int(L.ints[S_EXPOSED]), "the exposed player (catch_window.exposed)"
    elif L.ints[S_WD4_OFFENDER] >= 0 and L.phase != PH_OVER:
        expected, who = int(L.ints[S_WD4_OFFENDER]), "the Wild Draw Four's player (wild_draw_four.offender)"
    elif L.phase == PH_SWAP:
        expected, who = L.current, "the player of the 7, who chooses (current_player)"
    default = None if expected < 0 else expected
    top_player = L.seat("top_card_player", default if value is MISSING else value, allow_none=True)
    L.ints[S_TOP_PLAYER] = top_player
    if L.phase == PH_OVER:
        return
    # Without jump_in nothing reads the seat but the Seven-O choice (no observation slice, no
    # window): there an unknown one (null, as a sampled state from an observation has it) is
    # accepted, except in phase 'swap'.
    unknown = top_player < 0 and not L.config.jump_in and L.phase != PH_SWAP
    if expected >= 0 and top_player != expected and not unknown:
        raise PositionError("top_card_player", f"in phase {PHASE_NAMES[L.phase]!r} it is {who}: seat {expected}")
    if top_player >= 0 and not L.alive[top_player]:
        raise PositionError("top_card_player", f"seat {top_player} is eliminated")
    if L.phase == PH_COLOR and top_player >= 0:
        raise PositionError("top_card_player", "a starting Wild has no player: null in phase 'color'")
    if L.phase == PH_PENALTY and top_player < 0 and L.ints[S_PENDING] != 2 and L.config.jump_in:
        raise PositionError(
            "top_card_player",
            "null (a starting card) in phase 'penalty' only with a starting Draw Two's pending 2 (R-HOUSE-STACK-4)",
        )
    if L.phase == PH_JUMP and top_player < 0:
        raise PositionError(
            "top_card_player", "phase 'jump' needs the seat that played the top card: no window on a starting card"
        )
    if L.phase == PH_JUMP and top_player == L.current:
        raise PositionError(
            "top_card_player", f"player {top_player} played the top card and is never asked to jump in (R-HOUSE-JUMP-2)"
        )


def _next_turn(L: _Loader, value) -> None:
    given = None if value is MISSING else value
    L.ints[S_FOLLOWING] = -1
    if given is not None and not (L.config.seven_o or L.config.jump_in):
        raise PositionError("next_turn", "needs seven_o or jump_in (phase 'swap' or 'jump')")
    if L.phase not in (PH_SWAP, PH_JUMP):
        if given is not None and not L.interrupted():
            raise PositionError("next_turn", "only set in phase 'swap' or 'jump'")
        if given is not None:
            L.ints[S_FOLLOWING] = L.seat("next_turn", given)
        return
    after = L.next_in_play(L.current)
    if given is None and L.phase == PH_JUMP:
        raise PositionError("next_turn", "phase 'jump' needs next_turn: the seat whose turn begins after the window")
    seat = L.seat("next_turn", after if given is None else given)
    if not L.alive[seat]:
        raise PositionError("next_turn", f"seat {seat} is eliminated")
    if L.phase == PH_SWAP and seat != after:
        raise PositionError(
            "next_turn", f"after a 7 the turn passes to the next player in play, seat {after} (R-HOUSE-SEVENO-3)"
        )
    if L.phase == PH_JUMP and seat == L.current:
        raise PositionError(
            "next_turn", f"player {seat} would begin the next turn and is not asked to jump in (R-HOUSE-JUMP-2)"
        )
    L.ints[S_FOLLOWING] = seat


def _last_swap(L: _Loader, value) -> None:
    swap = None if value is MISSING else value
    L.ints[S_SWAP_FROM] = -1
    L.ints[S_SWAP_TO] = -1
    if swap is None:
        return
    if not L.config.seven_o:
        raise PositionError("last_swap", "needs seven_o (R-HOUSE-SEVENO)")
    swap = L.record("last_swap", swap, {"seat": True, "other": True})
    seat = L.seat("last_swap", swap["seat"], where="last_swap.seat")
    other = L.seat("last_swap", swap["other"], where="last_swap.other")
    if seat == other:
        raise PositionError("last_swap", f"a player swaps with another player, not with itself (seat {seat})")
    for field, s in (("seat", seat), ("other", other)):
        if L.phase != PH_OVER and not L.alive[s]:
            raise PositionError(
                "last_swap", f"seat {s} is eliminated: it swapped in an earlier round", f"last_swap.{field}"
            )
    L.ints[S_SWAP_FROM] = seat
    L.ints[S_SWAP_TO] = other


def _challenge_reveal(L: _Loader, value) -> None:
    reveal = None if value is MISSING else value
    L.ints[S_REVEAL_VIEWER] = -1
    L.ints[S_REVEAL_OWNER] = -1
    if reveal is None:
        return
    reveal = L.record("challenge_reveal", reveal, {"viewer": True, "owner": True, "hand": False})
    viewer = L.seat("challenge_reveal", reveal["viewer"], where="challenge_reveal.viewer")
    owner = L.seat("challenge_reveal", reveal["owner"], where="challenge_reveal.owner")
    if viewer == owner:
        raise PositionError("challenge_reveal", f"a player is never shown its own hand (viewer = owner = {viewer})")
    faces = parse_cards(reveal.get("hand", []), "challenge_reveal", "challenge_reveal.hand")
    counts = L.hand_face_counts(faces)
    expected = deck_counts(L.config.deck).astype(np.int64)
    if len(counts) > len(expected) or (counts[: len(expected)] > expected).any():
        too_many = [
            f"{card_to_str(f)} ({counts[f]} > {expected[f] if f < len(expected) else 0})"
            for f in np.flatnonzero(counts[: len(expected)] > expected[: len(counts)])
        ] or ["cards not in the deck"]
        raise PositionError(
            "challenge_reveal",
            f"more copies than the {L.config.deck} deck has: {', '.join(too_many)}",
            "challenge_reveal.hand",
        )
    L.ints[S_REVEAL_VIEWER] = viewer
    L.ints[S_REVEAL_OWNER] = owner
    for f in faces:
        L.cards[L.P[P_C_REVEAL] + f] += 1


def _fashion_trend(L: _Loader, value) -> None:
    trend = None if value is MISSING else value
    L.ints[S_TREND_VIEWER] = -1
    L.ints[S_TREND_COLOUR] = -1
    for s in range(L.n):
        L.ints[L.P[P_I_TREND] + s] = -1
    if trend is None:
        return
    if L.config.deck != "fashion_trend":
        raise PositionError("fashion_trend", "needs deck='fashion_trend'")
    trend = L.record("fashion_trend", trend, {"player": True, "colour": True, "shown": False})
    L.ints[S_TREND_VIEWER] = L.seat("fashion_trend", trend["player"], where="fashion_trend.player")
    L.ints[S_TREND_COLOUR] = L.colour_of("fashion_trend", trend["colour"], "fashion_trend.colour")
    shown = trend.get("shown", [None] * L.n)
    if not isinstance(shown, (list, tuple)) or len(shown) != L.n:
        raise PositionError(
            "fashion_trend", f"expected {L.n} entries (card or null), got {shown!r}", "fashion_trend.shown"
        )
    for s, text in enumerate(shown):
        if text is not None:
            L.ints[L.P[P_I_TREND] + s] = parse_cards([text], "fashion_trend", f"fashion_trend.shown[{s}]")[0]


def _final_outcome(L: _Loader) -> list[int]:
    """The outcome a finished game has (end_round, forfeit, truncation); refuses the scores
    or seats that no game ends with."""
    config, n = L.config, L.n
    outcome = [0 if a else -1 for a in L.alive]
    forfeit = int(L.ints[S_FORFEIT])
    if L.ints[S_TRUNCATED]:
        return outcome
    if forfeit >= 0:
        outcome[forfeit] = -1
        return outcome
    winner = int(L.ints[S_LAST_WINNER])
    scores = [int(v) for v in L.ints[L.P[P_I_SCORE] : L.P[P_I_SCORE] + n]]
    target = config.target_score
    if config.episode == "round" or config.scoring == "standard":
        if config.episode == "game" and scores[winner] < target:
            raise PositionError(
                "scores", f"the game ended, yet its winner {winner} has {scores[winner]} < target_score {target}"
            )
        half = n // 2
        team = [s for s in range(n) if (s % half == winner % half if config.partners else s == winner)]
        return [(1 if s in team else -1) if L.alive[s] else -1 for s in range(n)]
    if config.scoring == "alternative":
        if max(scores) < target:
            raise PositionError("scores", f"the game ended, yet no score reaches target_score {target} (R-VAR-ALT)")
        return [1 if v == min(scores) else -1 for v in scores]
    if sum(L.alive) != 1:
        raise PositionError(
            "alive", f"a Challenge UNO game ends with one player left, not {sum(L.alive)} (R-VAR-CHALLENGE)"
        )
    return [1 if a else -1 for a in L.alive]


VIOLATION_KEYS = (
    ("cards not conserved", "draw_pile"),
    ("hand sizes", "hands"),
    ("discard counts", "discard_pile"),
    ("alive count", "alive"),
    ("a finished game", "current_player"),
    ("acting seat", "current_player"),
    ("empty discard pile", "discard_pile"),
    ("bad colour", "colour"),
    ("drawn card", "drawn_card"),
    ("the acting player has no legal action", "current_player"),
    ("a pending penalty", "pending_penalty"),
    ("a penalty decision", "pending_penalty"),
    ("a Seven-O choice", "phase"),
    ("a jump-in decision", "phase"),
    ("a decision with one action", "phase"),
)
"""The key at fault for each problem that :func:`~uno_env.engine.checks.invariant_violations` names."""


def check_reachable(L: _Loader) -> None:
    """What only the whole position tells: the outcome of a finished game, the hands of a
    game in play, and the engine's own invariants (checks.py) as the last word."""
    from .checks import invariant_violations

    outcome = [int(v) for v in L.ints[L.P[P_I_OUTCOME] : L.P[P_I_OUTCOME] + L.n]]
    if L.phase == PH_OVER:
        expected = _final_outcome(L)
        if outcome != expected:
            raise PositionError("outcome", f"{outcome} is not how this game ended: {expected}")
        return
    offender = int(L.ints[S_WD4_OFFENDER])
    for s, hand in enumerate(L.hands):
        # only a Wild Draw Four played as the last card leaves a decision behind it (R-END-2)
        if L.alive[s] and not hand and not (s == offender and L.phase in (PH_CHALLENGE, PH_PENALTY)):
            raise PositionError(
                "hands", f"player {s} holds no card, so the round is over (R-END-1): phase 'over'", f"hands[{s}]"
            )
    for problem in invariant_violations(L.game, L.state):
        key = next((k for start, k in VIOLATION_KEYS if problem.startswith(start)), "")
        raise PositionError(key, f"no game reaches this state: {problem}")


@dataclass(frozen=True)
class Key:
    """One position key: its name, its default in words, what it means, and its parser."""

    name: str
    default: str
    doc: str
    parse: Callable[[_Loader, object], None]


KEYS: tuple[Key, ...] = (
    Key("num_players", "the configuration's", "must match the configuration", _num_players),
    Key("deck", "the configuration's", '`"classic"` or `"fashion_trend"`, must match the configuration', _deck),
    Key("hands", "required", "one list of card texts per seat", _hands),
    Key("discard_pile", "required", "card texts, **top last** (at least the top card)", _discard_pile),
    Key(
        "draw_pile",
        '`["..."]`',
        'card texts, **top first**; a final `"..."` puts the rest of the deck below, seeded',
        _draw_pile,
    ),
    Key("rng", "from the seed", 'engine generator state as a hex string (`"0x..."`, as dumped)', _rng),
    Key(
        "phase",
        '`"play"`',
        "`play`, `drawn`, `color`, `challenge`, `catch`, `over`; `penalty`, `swap`, `jump` (house rules)",
        _phase,
    ),
    Key(
        "colour",
        "the top card's colour",
        "current colour `R`/`Y`/`G`/`B`; `null` only in phase `color` (a starting Wild)",
        _colour,
    ),
    Key(
        "previous_colour", "`null`", "colour before the top card was played (judges a Wild Draw Four)", _previous_colour
    ),
    Key("direction", "`1`", "`1` (clockwise) or `-1`", _direction),
    Key("dealer", "`0`", "seat of the dealer", _dealer),
    Key("alive", "all `true`", "per seat, `true`/`false`: still in the game (Challenge UNO)", _alive),
    Key(
        "drew_on",
        "none",
        "per seat, the colours in force when it drew instead of playing since it last played (public)",
        _drew_on,
    ),
    Key(
        "named_colour",
        "none",
        "per seat, the colour its last Wild named this round, or `null` (public)",
        _named_colour,
    ),
    Key("scores", "zeros", "per seat, integer scores", _scores),
    Key("outcome", "0 (-1 where eliminated)", "per seat, `1` won, `-1` lost, `0` undecided", _outcome),
    Key("round", "`0`", "rounds played (`0` in an episode of one round)", _round),
    Key("step", "`0`", "decisions taken, under `max_steps` while in play", _step),
    Key("terminated", "`false`", "the game ended (phase `over` only)", _game_end(S_TERMINATED, "terminated")),
    Key("truncated", "`false`", "the game hit `max_steps` (phase `over` only)", _game_end(S_TRUNCATED, "truncated")),
    Key("forfeit", "`null`", "seat that lost by an illegal action", _forfeit),
    Key("last_winner", "`null`", "seat that won the last round", _last_winner),
    Key(
        "current_player",
        "required (`null` in phase `over`)",
        "seat whose decision it is; it must be in the game",
        _current_player,
    ),
    Key(
        "uno_called",
        "`false`",
        "the acting player called UNO this turn (two cards; `play`, `drawn`, `penalty`, `jump`)",
        _uno_called,
    ),
    Key("drawn_card", "`null`", "the playable card drawn this turn (phase `drawn` only, required there)", _drawn_card),
    Key(
        "catch_window",
        "`null`",
        '`{"exposed": seat, "next_player": seat}` (phase `catch` only; `current_player` is asked)',
        _catch_window,
    ),
    Key(
        "pending_penalty",
        "`0`",
        "cards a stack's target draws unless it answers (phase `penalty`, or `catch` before it)",
        _pending_penalty,
    ),
    Key(
        "wild_draw_four",
        "`null`",
        '`{"offender": s, "exposed": b, "guilty": b}` (a W+4 on top, its decision pending)',
        _wild_draw_four,
    ),
    Key(
        "top_card_player",
        "the phase's, else `null`",
        "seat that played the top card, `null` for the starting card",
        _top_card_player,
    ),
    Key(
        "next_turn",
        "`null`",
        "seat whose turn begins after phase `swap` or `jump` (only there; required in `jump`)",
        _next_turn,
    ),
    Key(
        "last_swap",
        "`null`",
        '`{"seat": s, "other": t}`: the last 7 swap of the round, `s` played the 7',
        _last_swap,
    ),
    Key(
        "challenge_reveal",
        "`null`",
        '`{"viewer": seat, "owner": seat, "hand": [cards]}`: a hand shown to its challenger',
        _challenge_reveal,
    ),
    Key(
        "fashion_trend",
        "`null`",
        '`{"player": seat, "colour": c, "shown": [card or null per seat]}` (Fashion Trend deck)',
        _fashion_trend,
    ),
)
"""The position keys in the order they are parsed (a key's parser may rely on those before it)."""

KEY_NAMES = tuple(key.name for key in KEYS)


def position_table() -> str:
    """Markdown table of the position keys (generated into the docs by :mod:`uno_env.docs`)."""
    rows = ["| key | default | meaning |", "|---|---|---|"]
    for key in KEYS:
        rows.append(f"| `{key.name}` | {key.default} | {key.doc} |")
    return "\n".join(rows)


def load_position(game, position: dict, seed: int | None = None):
    """A one-game State from a position dict; :class:`PositionError` (a ValueError)
    names the key of the first problem found. Each key of :data:`KEYS` is parsed in
    turn, its default applied where it is left out."""
    if not isinstance(position, dict):
        raise PositionError("", f"a position must be a dict, got {type(position).__name__}")
    unknown = sorted(str(k) for k in set(position) - set(KEY_NAMES))
    if unknown:
        raise PositionError("", f"unknown position key(s): {', '.join(unknown)}; known: {', '.join(KEY_NAMES)}")
    loader = _Loader(game, position, seed)
    for key in KEYS:
        key.parse(loader, position.get(key.name, MISSING))
    check_reachable(loader)
    seed_generator(loader)
    return loader.state
