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
    S_CURRENT,
    S_DRAWN,
    S_PHASE,
)
from ..state import is_alive, top_face
from .legality import may_play
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


@kernel(inline="always")
def allow_if_legal(cards, ints, P, b, player, face, phase, out):
    """Mark the play of ``face`` legal if :func:`~.legality.may_play` allows it."""
    if may_play(cards, ints, P, b, player, face, phase):
        allow_play(P, face, out)


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
    if phase == PH_JUMP:
        out[P[P_A_PASS]] = 1
        allow_if_legal(cards, ints, P, b, player, top_face(cards, ints, P, b), phase, out)  # the only candidate
    else:  # the penalty decision: only a Draw Two or a Wild Draw Four can stack
        out[P[P_A_ACCEPT]] = 1
        if top_face(cards, ints, P, b) == WILD_DRAW_FOUR:
            out[P[P_A_CHALLENGE]] = 1
        for c in range(4):
            allow_if_legal(cards, ints, P, b, player, c * RANKS_PER_COLOUR + RANK_DRAW_TWO, phase, out)
        allow_if_legal(cards, ints, P, b, player, WILD_DRAW_FOUR, phase, out)
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
    player = ints[b, S_CURRENT]
    if phase == PH_DRAWN:
        out[P[P_A_PASS]] = P[P_FORCE_PLAY] == 0
        allow_if_legal(cards, ints, P, b, player, ints[b, S_DRAWN], phase, out)  # the only candidate
    else:
        out[P[P_A_DRAW]] = 1
        for f in range(P[P_FACES]):
            allow_if_legal(cards, ints, P, b, player, f, phase, out)
    if uno_available(cards, ints, P, b):
        out[P[P_A_UNO]] = 1
