"""A position dumped: every key, from a state (``Game.position``)."""

from __future__ import annotations

from ..cards import COLOURS, card_to_str
from ..layout import (
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
)
from ..named import PHASE_NAMES
from ..state import (
    alive,
    discard_pile,
    draw_pile,
    drew_on,
    hands,
    named_colours,
    outcomes,
    revealed,
    scores,
    trend_shown,
)


def _colour_text(index: int):
    return None if index < 0 else COLOURS[index]


def _seat_or_none(value: int):
    return None if value < 0 else int(value)


def _wild_draw_four_record(game, ints) -> dict:
    record = {
        "offender": int(ints[S_WD4_OFFENDER]),
        "exposed": bool(ints[S_WD4_EXPOSED]),
    }
    if game.config.stacking != "off":  # the offender may have drawn since (D-HOUSE-STACK-JUDGE)
        record["guilty"] = bool(ints[S_WD4_GUILTY])
    return record


def _card_or_none(face: int):
    return None if face < 0 else card_to_str(face)


def _colours_of(bits: int) -> list[str]:
    """The colours of a bit set (bit c: colour c)."""
    return [COLOURS[c] for c in range(4) if bits & (1 << c)]


def _catch_window(ints) -> dict | None:
    if ints[S_EXPOSED] < 0:
        return None
    return {"exposed": int(ints[S_EXPOSED]), "next_player": int(ints[S_AFTER_WINDOW])}


def _last_swap(ints) -> dict | None:
    if ints[S_SWAP_FROM] < 0:
        return None
    return {"seat": int(ints[S_SWAP_FROM]), "other": int(ints[S_SWAP_TO])}


def _challenge_reveal(state, P, b: int) -> dict | None:
    ints = state.ints[b]
    if ints[S_REVEAL_VIEWER] < 0:
        return None
    return {
        "viewer": int(ints[S_REVEAL_VIEWER]),
        "owner": int(ints[S_REVEAL_OWNER]),
        "hand": _cards_of(revealed(state.cards, P, b)),
    }


def _fashion_trend(state, P, b: int) -> dict | None:
    ints = state.ints[b]
    if ints[S_TREND_VIEWER] < 0:
        return None
    return {
        "player": int(ints[S_TREND_VIEWER]),
        "colour": COLOURS[ints[S_TREND_COLOUR]],
        "shown": [_card_or_none(face) for face in trend_shown(state.ints, P, b)],
    }


def _cards_of(counts) -> list[str]:
    """Card texts of copies per face, in face order."""
    return [card_to_str(f) for f in range(len(counts)) for _ in range(int(counts[f]))]


def dump_position(game, state, b: int = 0) -> dict:
    """The position of game ``b`` of ``state``: every key (:mod:`uno_env.engine.position`)."""
    P = game.params
    n = game.num_players
    ints = state.ints[b]
    held = hands(state.cards, P, b)
    phase = int(ints[S_PHASE])
    position = {
        "num_players": n,
        "deck": game.config.deck,
        "hands": [_cards_of(held[s]) for s in range(n)],
        "draw_pile": [card_to_str(f) for f in draw_pile(state.cards, P, b)[: ints[S_DRAW_COUNT]][::-1]],
        "discard_pile": [card_to_str(f) for f in discard_pile(state.cards, P, b)[: ints[S_DISCARD_COUNT]]],
        "colour": _colour_text(ints[S_COLOUR]),
        "previous_colour": _colour_text(ints[S_PREV_COLOUR]),
        "direction": int(ints[S_DIRECTION]),
        "current_player": _seat_or_none(ints[S_CURRENT]),
        "dealer": int(ints[S_DEALER]),
        "phase": PHASE_NAMES[phase],
        "drawn_card": _card_or_none(ints[S_DRAWN]),
        "uno_called": bool(ints[S_UNO_CALLED]),
        "catch_window": _catch_window(ints),
        "pending_penalty": int(ints[S_PENDING]),
        "wild_draw_four": None if ints[S_WD4_OFFENDER] < 0 else _wild_draw_four_record(game, ints),
        "top_card_player": _seat_or_none(ints[S_TOP_PLAYER]),
        "next_turn": _seat_or_none(ints[S_FOLLOWING]),
        "last_swap": _last_swap(ints),
        "challenge_reveal": _challenge_reveal(state, P, b),
        "fashion_trend": _fashion_trend(state, P, b),
        "drew_on": [_colours_of(bits) for bits in drew_on(state.ints, P, b)],
        "named_colour": [_colour_text(c) for c in named_colours(state.ints, P, b)],
        "scores": [int(v) for v in scores(state.ints, P, b)],
        "alive": [bool(v) for v in alive(state.ints, P, b)],
        "round": int(ints[S_ROUND]),
        "step": int(ints[S_STEP]),
        "terminated": bool(ints[S_TERMINATED]),
        "truncated": bool(ints[S_TRUNCATED]),
        "forfeit": _seat_or_none(ints[S_FORFEIT]),
        "last_winner": _seat_or_none(ints[S_LAST_WINNER]),
        "outcome": [int(v) for v in outcomes(state.ints, P, b)],
        "rng": f"0x{int(state.rng[b]):016x}",
    }
    return position
