"""The legal-action mask of the acting seat."""

from __future__ import annotations

from ..cards import RANK_DRAW_TWO, RANKS_PER_COLOUR, WILD, WILD_DRAW_FOUR
from ..jit import describe, kernel
from ..layout import (
    P_A_ACCEPT,
    P_A_CATCH,
    P_A_CHALLENGE,
    P_A_COLOR,
    P_A_DRAW,
    P_A_FT,
    P_A_PASS,
    P_A_SWAP,
    P_A_UNO,
    P_A_W,
    P_A_W4,
    P_FACES,
    P_FORCE_PLAY,
    P_NUM_ACTIONS,
    P_NUM_PLAYERS,
    PH_CATCH,
    PH_CHALLENGE,
    PH_COLOR,
    PH_DRAWN,
    PH_JUMP,
    PH_OVER,
    PH_PENALTY,
    PH_SWAP,
    S_COLOUR,
    S_CURRENT,
    S_DRAWN,
    S_PHASE,
)
from ..state import hand, is_alive, top_face
from .legality import matches_on, stackable
from .uno import uno_available

describe(__name__, "the rules engine's kernels", seconds=45)


@kernel(inline="always")
def allow_play(P, face, out):
    """Mark the play of ``face`` legal: its action, or the four colour choices of a wild-type card."""
    if face < WILD:
        out[face] = 1
        return
    first = P[P_A_W] if face == WILD else (P[P_A_W4] if face == WILD_DRAW_FOUR else P[P_A_FT])
    for c in range(4):
        out[first + c] = 1


@kernel
def house_mask(cards, ints, P, b, phase, out):
    """The legal actions of the house rules' decisions (``out`` already zeroed)."""
    player = ints[b, S_CURRENT]
    n = P[P_NUM_PLAYERS]
    if phase == PH_SWAP:
        for k in range(1, n):
            if is_alive(ints, P, b, (player + k) % n):
                out[P[P_A_SWAP] + k - 1] = 1
        return
    held = hand(cards, P, b, player)
    top = top_face(cards, ints, P, b)
    if phase == PH_JUMP:
        out[top] = 1
        out[P[P_A_PASS]] = 1
    else:  # the penalty decision
        out[P[P_A_ACCEPT]] = 1
        if top == WILD_DRAW_FOUR:
            out[P[P_A_CHALLENGE]] = 1
        for c in range(4):
            f = c * RANKS_PER_COLOUR + RANK_DRAW_TWO
            if held[f] > 0 and stackable(cards, ints, P, b, f):
                out[f] = 1
        if held[WILD_DRAW_FOUR] > 0 and stackable(cards, ints, P, b, WILD_DRAW_FOUR):
            allow_play(P, WILD_DRAW_FOUR, out)
    if uno_available(cards, ints, P, b):
        out[P[P_A_UNO]] = 1


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
    # a view of the hand and the matching inputs read once: the loop then indexes from 0
    # and reads nothing that its writes to ``out`` could change (measured 1.3x faster)
    player = ints[b, S_CURRENT]
    F = P[P_FACES]
    held = hand(cards, P, b, player)
    colour = ints[b, S_COLOUR]
    top = top_face(cards, ints, P, b)
    if phase == PH_DRAWN:
        out[P[P_A_PASS]] = P[P_FORCE_PLAY] == 0
        drawn = ints[b, S_DRAWN]
        if held[drawn] > 0 and matches_on(drawn, colour, top):
            allow_play(P, drawn, out)
    else:
        # R-TURN-1 face by face would scan all F faces; only three groups can match: the
        # colour in force, the top card's rank in every colour, and the wild-type faces
        # (measured 2x faster; a face in two groups is marked twice, which is harmless)
        out[P[P_A_DRAW]] = 1
        if colour >= 0:  # written without branches: the loop vectorizes
            first = colour * RANKS_PER_COLOUR
            for f in range(first, first + RANKS_PER_COLOUR):
                out[f] = held[f] > 0
        if top < WILD:
            for f in range(top % RANKS_PER_COLOUR, WILD, RANKS_PER_COLOUR):
                out[f] |= held[f] > 0
        for f in range(WILD, F):
            if held[f] > 0:
                allow_play(P, f, out)
    if uno_available(cards, ints, P, b):
        out[P[P_A_UNO]] = 1
