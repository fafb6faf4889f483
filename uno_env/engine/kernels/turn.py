"""The turn's own decisions: drawing instead of playing (R-TURN-2/3, D-DRAWN,
R-HOUSE-DRAW-1, R-HOUSE-FORCE-1) and what a wrong card costs (R-WRONG, ``illegal_action``)."""

from __future__ import annotations

import numpy as np

from ..cards import WILD
from ..events import EV_KEEP, R_CHOICE
from ..jit import describe, kernel
from ..layout import (
    ILLEGAL_LOSE,
    ILLEGAL_RAISE,
    P_DRAW_UNTIL_PLAYABLE,
    P_FORCE_PLAY,
    P_ILLEGAL,
    PH_DRAWN,
    S_COLOUR,
    S_DIRECTION,
    S_DRAWN,
    S_PHASE,
)
from ..state import mark_drew_on
from .basics import emit
from .codes import ST_OK, ST_WRONG_LOST, ST_WRONG_REFUSED
from .draw import draw_one
from .legality import matches
from .play import play_card
from .scoring import forfeit
from .turn_order import begin_turn, next_alive
from .uno import uno_available

describe(__name__, "the rules engine's kernels", seconds=45)


@kernel(inline="always")
def refuse_wrong_card(ints, P, b, player, face, rw, ev, evn):
    """A wrong card under ``illegal_action`` "raise" (refused, nothing changes) or "lose"
    (the offender forfeits); ST_OK under "penalty", where the caller applies its penalty."""
    if P[P_ILLEGAL] == ILLEGAL_RAISE:
        return ST_WRONG_REFUSED
    if P[P_ILLEGAL] == ILLEGAL_LOSE:
        forfeit(ints, P, b, player, face, rw, ev, evn)
        return ST_WRONG_LOST
    return ST_OK


@kernel(forceinline=True)
def draw_on_turn(cards, ints, rng, P, b, player, rw, ev, evn):
    """R-TURN-2/3, D-DRAWN: draw instead of playing (until a card can be played with
    ``draw_until_playable``, R-HOUSE-DRAW-1); a playable drawn card is then decided on
    (played at once when ``force_play`` leaves no other action, R-HOUSE-FORCE-1)."""
    mark_drew_on(ints, P, b, player, ints[b, S_COLOUR])  # public: drew instead of playing
    drawn = draw_one(cards, ints, rng, P, b, np.int64(player), np.int64(R_CHOICE), ev, evn)
    while drawn >= 0 and not matches(cards, ints, P, b, drawn) and P[P_DRAW_UNTIL_PLAYABLE] != 0:
        drawn = draw_one(cards, ints, rng, P, b, np.int64(player), np.int64(R_CHOICE), ev, evn)
    if drawn < 0 or not matches(cards, ints, P, b, drawn):
        emit(ev, evn, b, EV_KEEP, player, 0, 0)
        begin_turn(ints, b, next_alive(ints, P, b, player, ints[b, S_DIRECTION]))
        return
    ints[b, S_PHASE] = PH_DRAWN
    ints[b, S_DRAWN] = drawn
    if P[P_FORCE_PLAY] != 0 and drawn < WILD and not uno_available(cards, ints, P, b):
        play_card(cards, ints, rng, P, b, player, drawn, -1, rw, ev, evn)
