"""The legal-action mask of the acting seat."""

from __future__ import annotations

from ..cards import RANKS_PER_COLOUR, WILD
from ..jit import describe, kernel
from ..layout import (
    P_A_ACCEPT,
    P_A_CATCH,
    P_A_CHALLENGE,
    P_A_COLOR,
    P_A_DRAW,
    P_A_PASS,
    P_A_UNO,
    P_FACES,
    P_FORCE_PLAY,
    P_NUM_ACTIONS,
    PH_CATCH,
    PH_CHALLENGE,
    PH_COLOR,
    PH_DRAWN,
    PH_OVER,
    PH_PENALTY,
    PH_PLAY,
    S_COLOUR,
    S_CURRENT,
    S_DRAWN,
    S_PHASE,
)
from ..state import hand, top_face
from .house import house_mask
from .legality import allow_if_legal, allow_play, forbidden
from .uno import uno_available

describe(__name__, "the rules engine's kernels", seconds=45)


@kernel(inline="always")
def allow_turn_plays(cards, ints, P, b, player, out):
    """The card plays of a turn (phase play), as ``may_play`` allows them. Asked face by
    face it made the mask 6x slower, 2x when asked only of the held faces of the groups
    below (measured): only three groups of faces can match (R-TURN-1), the colour in force,
    the top card's rank in every colour and the wild-type faces, so their held faces are
    marked at once, without branches (the loops vectorize; a face in two groups is marked
    twice, which is harmless): ``may_play``'s rule of a turn. Then any marked face that
    ``forbidden`` refuses is taken off (no check at all while it is False)."""
    held = hand(cards, P, b, player)
    colour = ints[b, S_COLOUR]
    top = top_face(cards, ints, P, b)
    if colour >= 0:
        first = colour * RANKS_PER_COLOUR
        for f in range(first, first + RANKS_PER_COLOUR):
            out[f] = held[f] > 0
    if top < WILD:
        for f in range(top % RANKS_PER_COLOUR, WILD, RANKS_PER_COLOUR):
            out[f] |= held[f] > 0
    for f in range(WILD):
        if out[f] != 0 and forbidden(cards, ints, P, b, player, f, PH_PLAY):
            out[f] = 0
    for f in range(WILD, P[P_FACES]):
        if held[f] > 0 and not forbidden(cards, ints, P, b, player, f, PH_PLAY):
            allow_play(P, f, out)


@kernel(forceinline=True)
def legal_mask(cards, ints, P, b, out):
    """Write the acting player's legal actions (1) into ``out`` (length = actions)."""
    for a in range(P[P_NUM_ACTIONS]):
        out[a] = 0
    phase = ints[b, S_PHASE]
    if phase == PH_OVER:
        return
    if phase == PH_COLOR:
        for c in range(4):
            out[P[P_A_COLOR] + c] = 1
        return
    if phase == PH_CHALLENGE:
        out[P[P_A_CHALLENGE]] = 1
        out[P[P_A_ACCEPT]] = 1
        return
    if phase == PH_CATCH:
        out[P[P_A_CATCH]] = 1
        out[P[P_A_PASS]] = 1
        return
    if phase >= PH_PENALTY:
        house_mask(cards, ints, P, b, phase, out)
        return
    player = ints[b, S_CURRENT]
    if phase == PH_DRAWN:
        out[P[P_A_PASS]] = P[P_FORCE_PLAY] == 0
        allow_if_legal(cards, ints, P, b, player, ints[b, S_DRAWN], phase, out)  # the only candidate
    else:
        out[P[P_A_DRAW]] = 1
        allow_turn_plays(cards, ints, P, b, player, out)
    if uno_available(cards, ints, P, b):
        out[P[P_A_UNO]] = 1
