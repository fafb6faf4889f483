"""Positions: the god's-eye view of a game as a JSON-able dict, both ways.

Keys (a dump always writes all of them; a load needs only ``hands``,
``discard_pile`` and, unless derivable, ``current_player``):

=====================  ============================================================
``num_players``         must match the configuration
``deck``                ``"classic"`` or ``"fashion_trend"``, must match
``hands``               one list of card texts per seat
``draw_pile``           card texts, **top first**; a final ``"..."`` (or leaving the
                        key out) puts the remaining cards of the deck below, in an
                        order drawn from the seed
``discard_pile``        card texts, **top last**
``colour``              current colour ``R``/``Y``/``G``/``B`` (default: the top
                        card's colour); ``null`` only while a starting Wild waits
``previous_colour``     colour before the top card was played (judges a Wild Draw Four)
``direction``           ``1`` (clockwise, default) or ``-1``
``current_player``      seat whose decision it is (``null`` once the game is over)
``dealer``              seat of the dealer (default 0)
``phase``               ``play`` (default), ``drawn``, ``color``, ``challenge``,
                        ``catch`` or ``over``
``drawn_card``          the card drawn this turn (phase ``drawn``)
``uno_called``          the acting player called UNO this turn
``catch_window``        ``{"exposed": seat, "next_player": seat}`` (phase ``catch``;
                        ``current_player`` is the seat being asked)
``wild_draw_four``      ``{"offender": seat, "exposed": bool}`` (phase ``challenge``)
``challenge_reveal``    ``{"viewer": seat, "owner": seat, "hand": [...]}`` or ``null``
``fashion_trend``       ``{"player": seat, "colour": c, "shown": [card or null per seat]}``
``drew_on``             per seat, the colours in force when it drew instead of playing
                        since it last played (public; default none)
``scores``, ``alive``   per seat (defaults: zeros, all in play)
``round``, ``step``     counters (default 0)
``terminated``, ``truncated``, ``forfeit``, ``last_winner``, ``outcome``: game-end facts
``rng``                 generator state as a hex string (default: from the seed)
=====================  ============================================================
"""

from __future__ import annotations

import numpy as np

from .cards import COLOURS, WILD, WILD_DRAW_FOUR, card_to_str, deck_counts, face_colour, parse_card, parse_colour
from .config import RuleConfig
from .layout import (
    P_C_DCOUNT,
    P_C_DISCARD,
    P_C_DRAW,
    P_C_HANDS,
    P_C_REVEAL,
    P_F,
    P_I_ALIVE,
    P_I_DREW_ON,
    P_I_HAND_SIZE,
    P_I_OUTCOME,
    P_I_SCORE,
    P_I_TREND,
    PH_CATCH,
    PH_CHALLENGE,
    PH_COLOR,
    PH_DRAWN,
    PH_OVER,
    S_AFTER_WINDOW,
    S_COLOUR,
    S_CURRENT,
    S_DEALER,
    S_DIRECTION,
    S_DISCARD_COUNT,
    S_DRAW_COUNT,
    S_DRAWN,
    S_EXPOSED,
    S_FORFEIT,
    S_LAST_WINNER,
    S_N_ALIVE,
    S_PHASE,
    S_PREV_COLOUR,
    S_REVEAL_OWNER,
    S_REVEAL_VIEWER,
    S_ROUND,
    S_STEP,
    S_TERMINATED,
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
    """A position dict that does not describe a valid game state."""


def parse_cards(texts, where: str) -> list[int]:
    if isinstance(texts, str) or not hasattr(texts, "__iter__"):
        raise PositionError(f"{where}: expected a list of card texts, got {texts!r}")
    faces = []
    for text in texts:
        try:
            faces.append(parse_card(text))
        except ValueError as err:
            raise PositionError(f"{where}: {err}") from None
    return faces


def parse_deck_order(config: RuleConfig, deck) -> np.ndarray:
    """Faces of an explicit deck order (top first); it must be exactly the deck."""
    faces = parse_cards(deck, "deck")
    check_counts(config, np.bincount(np.array(faces, dtype=np.int64), minlength=len(deck_counts(config.deck))), True)
    return np.array(faces, dtype=np.int8)


def check_counts(config: RuleConfig, counts: np.ndarray, exact: bool) -> None:
    expected = deck_counts(config.deck).astype(np.int64)
    if len(counts) > len(expected):
        extra = [card_to_str(f) for f in range(len(expected), len(counts)) if counts[f]]
        raise PositionError(f"cards {', '.join(extra)} are not in the {config.deck} deck")
    counts = np.asarray(counts[: len(expected)], dtype=np.int64)
    too_many = [f"{card_to_str(f)} ({counts[f]} > {expected[f]})" for f in np.flatnonzero(counts > expected)]
    if too_many:
        raise PositionError(f"more copies than the {config.deck} deck has: {', '.join(too_many)}")
    if exact and (counts != expected).any():
        missing = [f"{card_to_str(f)} x{expected[f] - counts[f]}" for f in np.flatnonzero(counts < expected)]
        raise PositionError(
            f"the cards do not make up the {config.deck} deck; missing: {', '.join(missing)} "
            f"(end draw_pile with {FILL!r} to fill the rest)"
        )


def _colour_or_none(value) -> int:
    return -1 if value is None else parse_colour(value)


def _colour_text(index: int):
    return None if index < 0 else COLOURS[index]


def _seat_or_none(value: int):
    return None if value < 0 else int(value)


def dump_position(game, state, b: int = 0) -> dict:
    P = game.params
    n = game.num_players
    F = int(P[P_F])
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
        "wild_draw_four": None
        if ints[S_WD4_OFFENDER] < 0
        else {"offender": int(ints[S_WD4_OFFENDER]), "exposed": bool(ints[S_WD4_EXPOSED])},
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


def load_position(game, position: dict, seed: int | None = None):
    """A one-game State from a position dict; PositionError (a ValueError) names the
    first problem found."""
    from .game import fresh_seed, seed_to_rng

    if not isinstance(position, dict):
        raise PositionError(f"a position must be a dict, got {type(position).__name__}")
    known = {
        "num_players",
        "deck",
        "hands",
        "draw_pile",
        "discard_pile",
        "colour",
        "previous_colour",
        "direction",
        "current_player",
        "dealer",
        "phase",
        "drawn_card",
        "uno_called",
        "catch_window",
        "wild_draw_four",
        "challenge_reveal",
        "fashion_trend",
        "drew_on",
        "scores",
        "alive",
        "round",
        "step",
        "terminated",
        "truncated",
        "forfeit",
        "last_winner",
        "outcome",
        "rng",
    }
    unknown = sorted(set(position) - known)
    if unknown:
        raise PositionError(f"unknown position key(s): {', '.join(unknown)}")
    config = game.config
    P = game.params
    n = game.num_players
    F = int(P[P_F])
    if position.get("num_players", n) != n:
        raise PositionError(f"num_players={position['num_players']!r} but the configuration has {n} players")
    if position.get("deck", config.deck) != config.deck:
        raise PositionError(f"deck={position['deck']!r} but the configuration uses the {config.deck!r} deck")

    def seat(key, value, allow_none=False):
        if value is None and allow_none:
            return -1
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < n:
            raise PositionError(f"{key}: expected a seat 0..{n - 1}, got {value!r}")
        return int(value)

    def per_seat(key, default, cast):
        values = position.get(key, default)
        if not isinstance(values, (list, tuple)) or len(values) != n:
            raise PositionError(f"{key}: expected a list of {n} values, got {values!r}")
        return [cast(v) for v in values]

    hands = position.get("hands")
    if not isinstance(hands, (list, tuple)) or len(hands) != n:
        raise PositionError(f"hands: expected {n} lists of cards, got {hands!r}")
    hand_faces = [parse_cards(h, f"hands[{s}]") for s, h in enumerate(hands)]
    discard = parse_cards(position.get("discard_pile", []), "discard_pile")
    if not discard:
        raise PositionError("discard_pile: at least the top card is needed")
    draw_texts = list(position.get("draw_pile", [FILL]))
    fill = bool(draw_texts) and draw_texts[-1] == FILL
    if fill:
        draw_texts = draw_texts[:-1]
    draw = parse_cards(draw_texts, "draw_pile")
    counts = np.zeros(F, dtype=np.int64)
    for faces in hand_faces + [discard, draw]:
        for f in faces:
            if f >= F:
                raise PositionError(f"card {card_to_str(f)} is not in the {config.deck} deck")
            counts[f] += 1
    check_counts(config, counts, exact=not fill)

    state = game.new_state()
    rng_text = position.get("rng")
    if rng_text is not None:
        try:
            state.rng[0] = np.uint64(int(str(rng_text), 16))
        except ValueError:
            raise PositionError(f"rng: expected a hex string, got {rng_text!r}") from None
        if state.rng[0] == 0:
            raise PositionError("rng: the generator state must not be zero")
    else:
        state.rng[0] = seed_to_rng(fresh_seed() if seed is None else seed)
    if fill:
        rest = np.repeat(np.arange(F), deck_counts(config.deck).astype(np.int64) - counts)
        filler = np.random.default_rng(int(seed_to_rng(0 if seed is None else seed)))
        draw = draw + [int(f) for f in filler.permutation(rest)]

    cards = state.cards[0]
    ints = state.ints[0]
    for s, faces in enumerate(hand_faces):
        for f in faces:
            cards[P[P_C_HANDS] + s * F + f] += 1
        ints[P[P_I_HAND_SIZE] + s] = len(faces)
    for k, f in enumerate(reversed(draw)):
        cards[P[P_C_DRAW] + k] = f
    ints[S_DRAW_COUNT] = len(draw)
    for k, f in enumerate(discard):
        cards[P[P_C_DISCARD] + k] = f
        cards[P[P_C_DCOUNT] + f] += 1
    ints[S_DISCARD_COUNT] = len(discard)
    top = discard[-1]

    phase_name = position.get("phase", "play")
    if phase_name not in PHASE_NAMES:
        raise PositionError(f"phase: expected one of {', '.join(PHASE_NAMES)}, got {phase_name!r}")
    phase = PHASE_NAMES.index(phase_name)
    ints[S_PHASE] = phase
    try:
        default_colour = COLOURS[face_colour(top)] if top < WILD else None
        colour = _colour_or_none(position.get("colour", default_colour))
        ints[S_PREV_COLOUR] = _colour_or_none(position.get("previous_colour"))
    except ValueError as err:
        raise PositionError(f"colour: {err}") from None
    if colour < 0 and phase != PH_COLOR:
        raise PositionError("colour: a current colour is needed (the top card is a wild)")
    if phase == PH_COLOR and top < WILD:
        raise PositionError("phase 'color' needs a Wild or Fashion Trend on top of the discard pile")
    ints[S_COLOUR] = colour
    direction = position.get("direction", 1)
    if direction not in (1, -1):
        raise PositionError(f"direction: expected 1 or -1, got {direction!r}")
    ints[S_DIRECTION] = direction
    ints[S_DEALER] = seat("dealer", position.get("dealer", 0))
    alive = per_seat("alive", [True] * n, bool)
    for s in range(n):
        ints[P[P_I_ALIVE] + s] = int(alive[s])
        if not alive[s] and hand_faces[s] and phase != PH_OVER:
            raise PositionError(f"alive: seat {s} is eliminated but holds cards")
    ints[S_N_ALIVE] = sum(alive)
    if ints[S_N_ALIVE] < 2 and phase != PH_OVER:
        raise PositionError("alive: at least two players must be in the game")
    drew_on = per_seat("drew_on", [[]] * n, list)
    for s in range(n):
        bits = 0
        for text in drew_on[s]:
            try:
                bits |= 1 << parse_colour(text)
            except ValueError as err:
                raise PositionError(f"drew_on[{s}]: {err}") from None
        ints[P[P_I_DREW_ON] + s] = bits
    scores = per_seat("scores", [0] * n, int)
    outcome = per_seat("outcome", [0 if a else -1 for a in alive], int)  # eliminated seats have lost
    for s in range(n):
        ints[P[P_I_SCORE] + s] = scores[s]
        ints[P[P_I_OUTCOME] + s] = outcome[s]
    for key, index in (("round", S_ROUND), ("step", S_STEP)):
        value = position.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise PositionError(f"{key}: expected a non-negative integer, got {value!r}")
        ints[index] = value
    ints[S_TERMINATED] = int(bool(position.get("terminated", False)))
    ints[S_TRUNCATED] = int(bool(position.get("truncated", False)))
    ints[S_FORFEIT] = seat("forfeit", position.get("forfeit"), allow_none=True)
    ints[S_LAST_WINNER] = seat("last_winner", position.get("last_winner"), allow_none=True)
    ints[S_UNO_CALLED] = int(bool(position.get("uno_called", False)))

    current = seat("current_player", position.get("current_player"), allow_none=phase == PH_OVER)
    if phase == PH_OVER:
        current = -1
    elif not alive[current]:
        raise PositionError(f"current_player: seat {current} is eliminated")
    ints[S_CURRENT] = current

    drawn = position.get("drawn_card")
    ints[S_DRAWN] = -1
    if phase == PH_DRAWN:
        if drawn is None:
            raise PositionError("phase 'drawn' needs drawn_card")
        face = parse_cards([drawn], "drawn_card")[0]
        if face not in hand_faces[current]:
            raise PositionError(f"drawn_card: {drawn} is not in the hand of player {current}")
        if not (face >= WILD or face_colour(face) == colour or (top < WILD and face % 13 == top % 13)):
            raise PositionError(f"drawn_card: {drawn} cannot be played, so there is no decision on it (D-DRAWN)")
        ints[S_DRAWN] = face
    elif drawn is not None:
        raise PositionError("drawn_card is only set in phase 'drawn'")

    window = position.get("catch_window")
    ints[S_EXPOSED] = -1
    ints[S_AFTER_WINDOW] = -1
    if phase == PH_CATCH:
        if not isinstance(window, dict):
            raise PositionError("phase 'catch' needs catch_window: {'exposed': seat, 'next_player': seat}")
        exposed = seat("catch_window.exposed", window.get("exposed"))
        if len(hand_faces[exposed]) != 1:
            raise PositionError(f"catch_window.exposed: player {exposed} must hold exactly one card")
        if exposed == current:
            raise PositionError("catch_window: the exposed player is never asked (D-WINDOW)")
        ints[S_EXPOSED] = exposed
        ints[S_AFTER_WINDOW] = seat("catch_window.next_player", window.get("next_player"))
    elif window is not None:
        raise PositionError("catch_window is only set in phase 'catch'")

    wd4 = position.get("wild_draw_four")
    ints[S_WD4_OFFENDER] = -1
    if phase == PH_CHALLENGE:
        if not isinstance(wd4, dict):
            raise PositionError("phase 'challenge' needs wild_draw_four: {'offender': seat, 'exposed': bool}")
        if top != WILD_DRAW_FOUR:
            raise PositionError("phase 'challenge' needs a W+4 on top of the discard pile")
        offender = seat("wild_draw_four.offender", wd4.get("offender"))
        if offender == current:
            raise PositionError("wild_draw_four: only the next player may challenge (R-WD4-5)")
        previous = ints[S_PREV_COLOUR]
        ints[S_WD4_OFFENDER] = offender
        ints[S_WD4_GUILTY] = int(previous >= 0 and any(face_colour(f) == previous for f in hand_faces[offender]))
        ints[S_WD4_OUT] = int(not hand_faces[offender])
        ints[S_WD4_EXPOSED] = int(bool(wd4.get("exposed", False)))
    elif wd4 is not None:
        raise PositionError("wild_draw_four is only set in phase 'challenge'")

    reveal = position.get("challenge_reveal")
    ints[S_REVEAL_VIEWER] = -1
    ints[S_REVEAL_OWNER] = -1
    if reveal is not None:
        ints[S_REVEAL_VIEWER] = seat("challenge_reveal.viewer", reveal.get("viewer"))
        ints[S_REVEAL_OWNER] = seat("challenge_reveal.owner", reveal.get("owner"))
        for f in parse_cards(reveal.get("hand", []), "challenge_reveal.hand"):
            cards[P[P_C_REVEAL] + f] += 1

    trend = position.get("fashion_trend")
    ints[S_TREND_VIEWER] = -1
    ints[S_TREND_COLOUR] = -1
    for s in range(n):
        ints[P[P_I_TREND] + s] = -1
    if trend is not None:
        if config.deck != "fashion_trend":
            raise PositionError("fashion_trend needs deck='fashion_trend'")
        ints[S_TREND_VIEWER] = seat("fashion_trend.player", trend.get("player"))
        ints[S_TREND_COLOUR] = parse_colour(trend.get("colour"))
        shown = trend.get("shown", [None] * n)
        if len(shown) != n:
            raise PositionError(f"fashion_trend.shown: expected {n} entries")
        for s, text in enumerate(shown):
            if text is not None:
                ints[P[P_I_TREND] + s] = parse_cards([text], "fashion_trend.shown")[0]
    return state
