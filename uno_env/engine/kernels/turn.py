"""The turn's decisions (phases play and drawn): play a card, draw instead of playing
(R-TURN-2/3, D-DRAWN, R-HOUSE-DRAW-1, R-HOUSE-FORCE-1), pass on the drawn card, call UNO;
what a wrong card costs (R-WRONG, ``illegal_action``); the colour of a starting Wild
(phase color, R-SETUP-4)."""

from __future__ import annotations

import numpy as np

from ..cards import WILD
from ..events import EV_COLOR, EV_KEEP, EV_PASS, EV_WRONG, R_CHOICE, R_WRONG_CARD
from ..jit import describe, kernel
from ..layout import (
    ILLEGAL_LOSE,
    ILLEGAL_RAISE,
    P_DRAW_UNTIL_PLAYABLE,
    P_FORCE_PLAY,
    P_ILLEGAL_ACTION,
    PH_DRAWN,
    PH_PLAY,
    S_COLOUR,
    S_CURRENT,
    S_DIRECTION,
    S_DRAWN,
    S_PHASE,
)
from ..state import mark_drew_on, set_named_colour
from .basics import emit
from .codes import (
    KIND_COLOUR,
    KIND_DRAW,
    KIND_PASS,
    KIND_PLAY,
    KIND_UNO,
    ST_NOT_AVAILABLE,
    ST_NOT_HELD,
    ST_OK,
    ST_WRONG_LOST,
    ST_WRONG_PENALIZED,
    ST_WRONG_REFUSED,
)
from .draw import draw_cards, draw_one
from .legality import holds_card, may_play
from .play import play_card
from .scoring import forfeit
from .turn_order import begin_turn, next_alive
from .uno import call_uno, uno_available

describe(__name__, "the rules engine's kernels", seconds=45)


@kernel(inline="always")
def refuse_wrong_card(ints, P, b, player, face, rw, ev, evn):
    """A wrong card under ``illegal_action`` "raise" (refused, nothing changes) or "lose"
    (the offender forfeits); ST_OK under "penalty", where the caller applies its penalty."""
    if P[P_ILLEGAL_ACTION] == ILLEGAL_RAISE:
        return ST_WRONG_REFUSED
    if P[P_ILLEGAL_ACTION] == ILLEGAL_LOSE:
        forfeit(ints, P, b, player, face, rw, ev, evn)
        return ST_WRONG_LOST
    return ST_OK


@kernel(inline="always")
def decide_turn(cards, ints, rng, P, b, kind, face, colour, rw, ev, evn):
    """The decisions of a turn (phase play) and on a drawn card (phase drawn): play a card,
    draw, pass on the drawn card, call UNO."""
    player = ints[b, S_CURRENT]
    phase = ints[b, S_PHASE]
    if kind == KIND_PLAY:
        return play_from_hand(cards, ints, rng, P, b, player, face, colour, rw, ev, evn)
    if kind == KIND_DRAW and phase == PH_PLAY:
        draw_on_turn(cards, ints, rng, P, b, player, rw, ev, evn)
        return ST_OK
    if kind == KIND_PASS and phase == PH_DRAWN and P[P_FORCE_PLAY] == 0:
        emit(ev, evn, b, EV_PASS, player, 0, 0)
        begin_turn(ints, b, next_alive(ints, P, b, player, ints[b, S_DIRECTION]))
        return ST_OK
    if kind == KIND_UNO and uno_available(cards, ints, P, b):
        call_uno(ints, b, player, ev, evn)
        if phase == PH_DRAWN:  # the call may leave the drawn card as the only action
            play_forced_drawn_card(cards, ints, rng, P, b, player, rw, ev, evn)
        return ST_OK
    return ST_NOT_AVAILABLE


@kernel(inline="always")
def play_from_hand(cards, ints, rng, P, b, player, face, colour, rw, ev, evn):
    """A card played in a turn or on the drawn card, as ``may_play`` allows; else a wrong
    card (R-WRONG-1: taken back, two cards drawn, the turn passes)."""
    if not holds_card(cards, P, b, player, face):
        return ST_NOT_HELD
    if may_play(cards, ints, P, b, player, face, ints[b, S_PHASE]):
        play_card(cards, ints, rng, P, b, player, face, colour, rw, ev, evn)
        return ST_OK
    refused = refuse_wrong_card(ints, P, b, player, face, rw, ev, evn)
    if refused != ST_OK:
        return refused
    emit(ev, evn, b, EV_WRONG, player, face, 0)
    draw_cards(cards, ints, rng, P, b, player, 2, R_WRONG_CARD, ev, evn)
    begin_turn(ints, b, next_alive(ints, P, b, player, ints[b, S_DIRECTION]))
    return ST_WRONG_PENALIZED


@kernel(inline="always")
def decide_colour(ints, P, b, kind, colour, ev, evn):
    """R-SETUP-4: the first player names the colour of a starting Wild, then plays."""
    if kind != KIND_COLOUR:
        return ST_NOT_AVAILABLE
    player = ints[b, S_CURRENT]
    ints[b, S_COLOUR] = colour
    set_named_colour(ints, P, b, player, colour)
    emit(ev, evn, b, EV_COLOR, player, colour, 0)
    begin_turn(ints, b, player)
    return ST_OK


@kernel(forceinline=True)
def draw_on_turn(cards, ints, rng, P, b, player, rw, ev, evn):
    """R-TURN-2/3, D-DRAWN: draw instead of playing (until a card can be played with
    ``draw_until_playable``, R-HOUSE-DRAW-1); a playable drawn card is then decided on
    (played at once when ``force_play`` leaves no other action, R-HOUSE-FORCE-1)."""
    mark_drew_on(ints, P, b, player, ints[b, S_COLOUR])  # public: drew instead of playing
    drawn = draw_one(cards, ints, rng, P, b, np.int64(player), np.int64(R_CHOICE), ev, evn)
    while P[P_DRAW_UNTIL_PLAYABLE] != 0 and drawn >= 0 and not drawn_playable(cards, ints, P, b, player, drawn):
        drawn = draw_one(cards, ints, rng, P, b, np.int64(player), np.int64(R_CHOICE), ev, evn)
    if not drawn_playable(cards, ints, P, b, player, drawn):
        emit(ev, evn, b, EV_KEEP, player, 0, 0)
        begin_turn(ints, b, next_alive(ints, P, b, player, ints[b, S_DIRECTION]))
        return
    ints[b, S_PHASE] = PH_DRAWN
    play_forced_drawn_card(cards, ints, rng, P, b, player, rw, ev, evn)


@kernel(inline="always")
def drawn_playable(cards, ints, P, b, player, drawn):
    """Whether the card just drawn (-1: none) may be played in the drawn-card decision, as
    ``may_play`` says of it once it is ``S_DRAWN`` (which ``begin_turn`` clears if not)."""
    ints[b, S_DRAWN] = drawn
    return drawn >= 0 and may_play(cards, ints, P, b, player, drawn, PH_DRAWN)


@kernel
def play_forced_drawn_card(cards, ints, rng, P, b, player, rw, ev, evn):
    """R-HOUSE-FORCE-1, D-DRAWN: with ``force_play`` a coloured drawn card is played without a
    decision when it is the only action left: no ``uno`` to call, now or after the call."""
    drawn = ints[b, S_DRAWN]
    if P[P_FORCE_PLAY] != 0 and drawn < WILD and not uno_available(cards, ints, P, b):
        play_card(cards, ints, rng, P, b, player, drawn, -1, rw, ev, evn)
