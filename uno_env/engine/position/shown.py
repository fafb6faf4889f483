"""The keys of what the round remembers: the last Seven-O swap, the hand a challenge
showed, the cards shown to a Fashion Trend."""

from __future__ import annotations

import numpy as np

from ..cards import card_to_str, deck_counts
from ..layout import (
    PH_OVER,
    S_REVEAL_OWNER,
    S_REVEAL_VIEWER,
    S_SWAP_FROM,
    S_SWAP_TO,
    S_TREND_COLOUR,
    S_TREND_VIEWER,
)
from ..state import revealed, set_shown_to_trend, trend_shown
from .loader import MISSING, Loader, PositionError, parse_cards


def read_last_swap(L: Loader, value) -> None:
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
        raise PositionError(
            "last_swap",
            f"a player swaps with another player, not with itself (seat {seat})",
        )
    for field, s in (("seat", seat), ("other", other)):
        if L.phase != PH_OVER and not L.alive[s]:
            raise PositionError(
                "last_swap",
                f"seat {s} is eliminated: it swapped in an earlier round",
                f"last_swap.{field}",
            )
    L.ints[S_SWAP_FROM] = seat
    L.ints[S_SWAP_TO] = other


def read_challenge_reveal(L: Loader, value) -> None:
    reveal = None if value is MISSING else value
    L.ints[S_REVEAL_VIEWER] = -1
    L.ints[S_REVEAL_OWNER] = -1
    if reveal is None:
        return
    reveal = L.record("challenge_reveal", reveal, {"viewer": True, "owner": True, "hand": False})
    viewer = L.seat("challenge_reveal", reveal["viewer"], where="challenge_reveal.viewer")
    owner = L.seat("challenge_reveal", reveal["owner"], where="challenge_reveal.owner")
    if viewer == owner:
        raise PositionError(
            "challenge_reveal",
            f"a player is never shown its own hand (viewer = owner = {viewer})",
        )
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
    revealed(L.state.cards, L.P, 0)[:] = counts


def read_fashion_trend(L: Loader, value) -> None:
    trend = None if value is MISSING else value
    L.ints[S_TREND_VIEWER] = -1
    L.ints[S_TREND_COLOUR] = -1
    trend_shown(L.state.ints, L.P, 0)[:] = -1
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
            "fashion_trend",
            f"expected {L.n} entries (card or null), got {shown!r}",
            "fashion_trend.shown",
        )
    for s, text in enumerate(shown):
        if text is not None:
            face = parse_cards([text], "fashion_trend", f"fashion_trend.shown[{s}]")[0]
            set_shown_to_trend(L.state.ints, L.P, 0, s, face)
