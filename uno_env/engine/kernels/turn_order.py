"""Turn order: the next seat in play, partners, and whose decision comes after a card's
effects: a stack's penalty decision, a jump-in window, or the next player's turn."""

from __future__ import annotations

from ..cards import WILD
from ..jit import describe, kernel
from ..layout import (
    P_JUMP_IN,
    P_NUM_PLAYERS,
    P_PARTNERS,
    PH_JUMP,
    PH_PENALTY,
    PH_PLAY,
    S_CURRENT,
    S_DIRECTION,
    S_DRAWN,
    S_FOLLOWING,
    S_PENDING,
    S_PHASE,
    S_TOP_PLAYER,
    S_UNO_CALLED,
)
from ..state import is_alive, top_face
from .legality import may_play


@kernel("int64(int32[:, ::1], int64[::1], int64, int64, int64)")  # typed like emit
def next_alive(ints, P, b, seat, direction):
    """The next seat in play from ``seat`` in ``direction``."""
    n = P[P_NUM_PLAYERS]
    s = seat
    for _ in range(n):
        s = (s + direction) % n
        if is_alive(ints, P, b, s):
            return s
    return seat


describe(__name__, "the rules engine's kernels", seconds=45)


@kernel(inline="always")
def same_team(P, s, t):
    if P[P_PARTNERS] != 0:
        half = P[P_NUM_PLAYERS] // 2
        return s % half == t % half
    return s == t


@kernel(inline="always")
def begin_turn(ints, b, seat):
    ints[b, S_CURRENT] = seat
    ints[b, S_PHASE] = PH_PLAY
    ints[b, S_UNO_CALLED] = 0
    ints[b, S_DRAWN] = -1


@kernel
def next_jumper(cards, ints, P, b, after):
    """R-HOUSE-JUMP-2: the first seat after ``after`` in turn order, before the seat whose turn
    would begin (``S_FOLLOWING``), that may jump in with the top card (``may_play``); -1 if none."""
    following = ints[b, S_FOLLOWING]
    top = top_face(cards, ints, P, b)
    s = after
    for _ in range(P[P_NUM_PLAYERS]):
        s = next_alive(ints, P, b, s, ints[b, S_DIRECTION])
        if s == following:
            return -1
        if may_play(cards, ints, P, b, s, top, PH_JUMP):
            return s
    return -1


@kernel(forceinline=True)
def begin_next(cards, ints, P, b, seat):
    """The decision after a card's effects (and any catch window): the penalty decision of
    a stack's target ``seat``, else a jump-in window on the top card, else ``seat``'s turn."""
    if ints[b, S_PENDING] > 0:  # R-HOUSE-STACK-1
        begin_turn(ints, b, seat)
        ints[b, S_PHASE] = PH_PENALTY
        return
    if P[P_JUMP_IN] != 0 and ints[b, S_TOP_PLAYER] >= 0 and top_face(cards, ints, P, b) < WILD:
        ints[b, S_FOLLOWING] = seat
        jumper = next_jumper(cards, ints, P, b, seat)
        if jumper >= 0:
            begin_turn(ints, b, jumper)
            ints[b, S_PHASE] = PH_JUMP
            return
    ints[b, S_FOLLOWING] = -1
    begin_turn(ints, b, seat)
