"""What may be played: R-TURN-1's match, the cards a hand holds, what answers a stack (R-HOUSE-STACK-2/5)."""

from __future__ import annotations

from ..cards import RANK_DRAW_TWO, RANKS_PER_COLOUR, WILD, WILD_DRAW_FOUR, matches_on
from ..jit import describe, kernel
from ..layout import P_FACES, P_STACKING, S_COLOUR, S_WD4_OUT, STACKING_MIXED
from ..state import hand, hand_count, top_face

describe(__name__, "the rules engine's kernels", seconds=45)


@kernel(inline="always")
def matches(cards, ints, P, b, face):
    """A card that may be played on the discard pile (R-TURN-1); wild-type cards always."""
    return matches_on(face, ints[b, S_COLOUR], top_face(cards, ints, P, b))


@kernel(inline="always")
def holds_colour(cards, P, b, seat, colour):
    if colour < 0:
        return False
    held = hand(cards, P, b, seat)
    first = colour * RANKS_PER_COLOUR
    for r in range(RANKS_PER_COLOUR):
        if held[first + r] > 0:
            return True
    return False


@kernel(inline="always")
def holds_card(cards, P, b, seat, face):
    """``seat`` holds a copy of ``face`` (a face of the deck)."""
    return face < P[P_FACES] and hand_count(cards, P, b, seat, face) > 0


@kernel
def has_legal_play(cards, ints, P, b, seat):
    held = hand(cards, P, b, seat)
    colour = ints[b, S_COLOUR]
    top = top_face(cards, ints, P, b)
    for f in range(P[P_FACES]):
        if held[f] > 0 and matches_on(f, colour, top):
            return True
    return False


@kernel(inline="always")
def stackable(cards, ints, P, b, face):
    """R-HOUSE-STACK-2/5: ``face`` answers the pending penalty (a Draw Two or Wild Draw
    Four on top). Nothing answers a Wild Draw Four that was its player's last card."""
    top = top_face(cards, ints, P, b)
    draw_two = face < WILD and face % RANKS_PER_COLOUR == RANK_DRAW_TWO
    if top == WILD_DRAW_FOUR:
        if ints[b, S_WD4_OUT] != 0:
            return False
        if face == WILD_DRAW_FOUR:
            return True
        return P[P_STACKING] == STACKING_MIXED and draw_two and face // RANKS_PER_COLOUR == ints[b, S_COLOUR]
    if draw_two:
        return True
    return P[P_STACKING] == STACKING_MIXED and face == WILD_DRAW_FOUR


@kernel
def has_stackable(cards, ints, P, b, seat):
    held = hand(cards, P, b, seat)
    for c in range(4):
        f = c * RANKS_PER_COLOUR + RANK_DRAW_TWO
        if held[f] > 0 and stackable(cards, ints, P, b, f):
            return True
    return held[WILD_DRAW_FOUR] > 0 and stackable(cards, ints, P, b, WILD_DRAW_FOUR)
