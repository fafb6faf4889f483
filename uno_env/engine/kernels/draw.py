"""The piles: a card onto the discard pile, drawing, and the reshuffle of the discard pile
into the draw pile (R-TURN-5, D-RESHUFFLE)."""

from __future__ import annotations

import numpy as np

from ..events import EV_DRAW, EV_RESHUFFLE
from ..jit import describe, kernel
from ..layout import S_DISCARD_COUNT, S_DRAW_COUNT
from ..state import (
    add_discard_count,
    discard_counts,
    discard_pile,
    draw_pile,
    draw_pile_card,
    give_card,
    set_discard_pile_card,
)
from .basics import emit, shuffle_segment

describe(__name__, "the rules engine's kernels", seconds=45)


@kernel(inline="always")
def push_discard(cards, ints, P, b, face):
    k = ints[b, S_DISCARD_COUNT]
    set_discard_pile_card(cards, P, b, k, face)
    ints[b, S_DISCARD_COUNT] = k + 1
    add_discard_count(cards, P, b, face, 1)


@kernel
def reshuffle(cards, ints, rng, P, b, ev, evn):
    """R-TURN-5 / D-RESHUFFLE: keep the top discard, the rest becomes the draw pile."""
    count = ints[b, S_DISCARD_COUNT]
    if count <= 1:
        return
    discard = discard_pile(cards, P, b)
    pile = draw_pile(cards, P, b)
    counts = discard_counts(cards, P, b)
    start = ints[b, S_DRAW_COUNT]
    moved = count - 1
    for i in range(moved):
        f = discard[i]
        pile[start + i] = f
        counts[f] -= 1
    discard[0] = discard[moved]
    ints[b, S_DISCARD_COUNT] = 1
    shuffle_segment(pile, rng, b, start, moved)
    ints[b, S_DRAW_COUNT] += moved
    emit(ev, evn, b, EV_RESHUFFLE, moved, 0, 0)


@kernel(forceinline=True)
def draw_one(cards, ints, rng, P, b, seat, reason, ev, evn):
    """Move the top of the draw pile into a hand; -1 when no card exists (R-TURN-5)."""
    if ints[b, S_DRAW_COUNT] == 0:
        reshuffle(cards, ints, rng, P, b, ev, evn)
        if ints[b, S_DRAW_COUNT] == 0:
            return -1
    k = ints[b, S_DRAW_COUNT] - 1
    face = np.int64(draw_pile_card(cards, P, b, k))
    ints[b, S_DRAW_COUNT] = k
    give_card(cards, ints, P, b, seat, face)
    emit(ev, evn, b, EV_DRAW, seat, face, reason)
    return face


@kernel(inline="always")
def draw_cards(cards, ints, rng, P, b, seat, count, reason, ev, evn):
    # np.int64: one compiled draw_one for all call sites, not one per literal reason
    for _ in range(count):
        if draw_one(cards, ints, rng, P, b, np.int64(seat), np.int64(reason), ev, evn) < 0:
            return
