"""The UNO call and the catch window (R-UNO, D-UNO, D-WINDOW)."""

from __future__ import annotations

from ..events import EV_CATCH, EV_DECLINE, EV_EXPOSED, EV_UNO, R_UNO_CAUGHT
from ..jit import describe, kernel
from ..layout import (
    P_UNO_CALL,
    PH_CATCH,
    S_AFTER_WINDOW,
    S_CURRENT,
    S_DIRECTION,
    S_DRAWN,
    S_EXPOSED,
    S_PHASE,
    S_UNO_CALLED,
    UNO_AUTO,
    UNO_OFF,
)
from ..state import hand_size
from .basics import emit
from .codes import KIND_CATCH, KIND_PASS, ST_NOT_AVAILABLE, ST_OK
from .draw import draw_cards
from .legality import may_play_any
from .turn_order import begin_next, next_alive

describe(__name__, "the rules engine's kernels", seconds=45)


@kernel(forceinline=True)
def uno_available(cards, ints, P, b):
    """D-UNO (D-HOUSE-STACK-UNO): once per turn, with exactly two cards and a card that
    ``may_play`` allows in this decision."""
    if P[P_UNO_CALL] == UNO_OFF or ints[b, S_UNO_CALLED] != 0:
        return False
    p = ints[b, S_CURRENT]
    if hand_size(ints, P, b, p) != 2:
        return False
    return may_play_any(cards, ints, P, b, p, ints[b, S_PHASE])


@kernel(inline="always")
def call_uno(ints, b, player, ev, evn):
    ints[b, S_UNO_CALLED] = 1
    emit(ev, evn, b, EV_UNO, player, 0, 0)


@kernel(inline="always")
def decide_catch(cards, ints, rng, P, b, kind, ev, evn):
    """The catch window (R-UNO-2, D-WINDOW): the asked seat catches the exposed player, who
    draws 2, or passes the question on to the next seat; the window closes at the exposed
    seat."""
    player = ints[b, S_CURRENT]
    if kind == KIND_CATCH:
        exposed = ints[b, S_EXPOSED]
        emit(ev, evn, b, EV_CATCH, player, exposed, 0)
        draw_cards(cards, ints, rng, P, b, exposed, 2, R_UNO_CAUGHT, ev, evn)
        close_window(cards, ints, P, b)
        return ST_OK
    if kind == KIND_PASS:
        emit(ev, evn, b, EV_DECLINE, player, 0, 0)
        asked = next_alive(ints, P, b, player, ints[b, S_DIRECTION])
        if asked == ints[b, S_EXPOSED]:
            close_window(cards, ints, P, b)
        else:
            ints[b, S_CURRENT] = asked
        return ST_OK
    return ST_NOT_AVAILABLE


@kernel(forceinline=True)
def finish_turn(cards, ints, rng, P, b, player, following, exposed, ev, evn):
    """After a card's effects: the catch window (R-UNO-2, D-WINDOW) or the next turn."""
    if not exposed:
        begin_next(cards, ints, P, b, following)
        return
    emit(ev, evn, b, EV_EXPOSED, player, 0, 0)
    if P[P_UNO_CALL] == UNO_AUTO:
        emit(ev, evn, b, EV_CATCH, -1, player, 0)
        draw_cards(cards, ints, rng, P, b, player, 2, R_UNO_CAUGHT, ev, evn)
        begin_next(cards, ints, P, b, following)
        return
    ints[b, S_EXPOSED] = player
    ints[b, S_AFTER_WINDOW] = following
    ints[b, S_PHASE] = PH_CATCH
    ints[b, S_CURRENT] = next_alive(ints, P, b, player, ints[b, S_DIRECTION])
    ints[b, S_UNO_CALLED] = 0
    ints[b, S_DRAWN] = -1


@kernel(inline="always")
def close_window(cards, ints, P, b):
    following = ints[b, S_AFTER_WINDOW]
    ints[b, S_EXPOSED] = -1
    ints[b, S_AFTER_WINDOW] = -1
    begin_next(cards, ints, P, b, following)
