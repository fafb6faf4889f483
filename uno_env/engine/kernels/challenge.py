"""The Wild Draw Four's challenge (R-WD4) and a stack's penalty decision, which may
challenge the Wild Draw Four on top (R-HOUSE-STACK-1/3)."""

from __future__ import annotations

from ..cards import WILD_DRAW_FOUR
from ..events import (
    EV_ACCEPT,
    EV_CHALLENGE,
    EV_PENALTY_ACCEPT,
    EV_SKIP,
    R_BLUFF_CAUGHT,
    R_CHALLENGE_LOST,
    R_PENALTY,
    R_WILD_DRAW_FOUR,
)
from ..jit import describe, kernel
from ..layout import (
    P_FACES,
    P_STACKING,
    PH_CHALLENGE,
    S_CURRENT,
    S_DIRECTION,
    S_PENDING,
    S_PHASE,
    S_REVEAL_OWNER,
    S_REVEAL_VIEWER,
    S_UNO_CALLED,
    S_WD4_EXPOSED,
    S_WD4_GUILTY,
    S_WD4_OFFENDER,
    S_WD4_OUT,
    STACKING_OFF,
)
from ..state import hand, revealed, top_face
from .basics import emit
from .draw import draw_cards
from .scoring import end_round
from .turn_order import begin_next, next_alive
from .uno import finish_turn

describe(__name__, "the rules engine's kernels", seconds=45)


@kernel(inline="always")
def wild_draw_four_played(cards, ints, rng, P, b, player, guilty, went_out, exposed, ev, evn):
    """R-WD4-3, R-END-2: the target of a Wild Draw Four decides first, whether or not it
    was its player's last card; ``guilty``: its player held a card of the previous colour.
    Under stacking its 4 join the pending penalty, decided on after the catch window
    (R-HOUSE-STACK-3)."""
    ints[b, S_WD4_OFFENDER] = player
    ints[b, S_WD4_GUILTY] = 1 if guilty else 0
    ints[b, S_WD4_OUT] = 1 if went_out else 0
    target = next_alive(ints, P, b, player, ints[b, S_DIRECTION])
    if P[P_STACKING] != STACKING_OFF:
        ints[b, S_PENDING] += 4
        finish_turn(cards, ints, rng, P, b, player, target, exposed, ev, evn)
        return
    ints[b, S_WD4_EXPOSED] = 1 if exposed else 0
    ints[b, S_PHASE] = PH_CHALLENGE
    ints[b, S_CURRENT] = target
    ints[b, S_UNO_CALLED] = 0


@kernel(inline="always")
def clear_wild_draw_four(ints, b):
    ints[b, S_WD4_OFFENDER] = -1
    ints[b, S_WD4_GUILTY] = 0
    ints[b, S_WD4_OUT] = 0
    ints[b, S_WD4_EXPOSED] = 0


@kernel(inline="always")
def reveal_hand(cards, ints, P, b, viewer, owner):
    """R-WD4-4: ``owner``'s hand as it is now, shown to ``viewer`` only."""
    held = hand(cards, P, b, owner)
    shown = revealed(cards, P, b)
    for f in range(P[P_FACES]):
        shown[f] = held[f]
    ints[b, S_REVEAL_VIEWER] = viewer
    ints[b, S_REVEAL_OWNER] = owner


@kernel
def resolve_challenge(cards, ints, rng, P, b, challenge, rw, ev, evn):
    """R-WD4-3/4: the target accepts (draws 4) or challenges (hand shown to it only)."""
    target = ints[b, S_CURRENT]
    offender = ints[b, S_WD4_OFFENDER]
    went_out = ints[b, S_WD4_OUT] != 0
    exposed = ints[b, S_WD4_EXPOSED] != 0
    direction = ints[b, S_DIRECTION]
    if not challenge:
        emit(ev, evn, b, EV_ACCEPT, target, offender, 0)
        draw_cards(cards, ints, rng, P, b, target, 4, R_WILD_DRAW_FOUR, ev, evn)
        emit(ev, evn, b, EV_SKIP, target, 0, 0)
        following = next_alive(ints, P, b, target, direction)
    else:
        guilty = ints[b, S_WD4_GUILTY] != 0
        reveal_hand(cards, ints, P, b, target, offender)
        emit(ev, evn, b, EV_CHALLENGE, target, offender, 1 if guilty else 0)
        if guilty:
            draw_cards(cards, ints, rng, P, b, offender, 4, R_BLUFF_CAUGHT, ev, evn)
            following = target
            exposed = False
        else:
            draw_cards(cards, ints, rng, P, b, target, 6, R_CHALLENGE_LOST, ev, evn)
            emit(ev, evn, b, EV_SKIP, target, 0, 0)
            following = next_alive(ints, P, b, target, direction)
    clear_wild_draw_four(ints, b)
    if went_out:
        end_round(cards, ints, rng, P, b, offender, rw, ev, evn)
    else:
        finish_turn(cards, ints, rng, P, b, offender, following, exposed, ev, evn)


@kernel
def resolve_penalty(cards, ints, rng, P, b, challenge, rw, ev, evn):
    """R-HOUSE-STACK-1/3: the target of a stack accepts (draws the pending penalty and loses
    the turn) or challenges the Wild Draw Four on top (its player's hand shown to it only)."""
    target = ints[b, S_CURRENT]
    offender = ints[b, S_WD4_OFFENDER]
    pending = ints[b, S_PENDING]
    went_out = ints[b, S_WD4_OUT] != 0
    following = next_alive(ints, P, b, target, ints[b, S_DIRECTION])
    ints[b, S_PENDING] = 0
    if not challenge:
        alone = 4 if top_face(cards, ints, P, b) == WILD_DRAW_FOUR else 2  # the top card's own penalty
        emit(ev, evn, b, EV_PENALTY_ACCEPT, target, pending, 1 if pending > alone else 0)
        draw_cards(cards, ints, rng, P, b, target, pending, R_PENALTY, ev, evn)
        emit(ev, evn, b, EV_SKIP, target, 0, 0)
    else:
        guilty = ints[b, S_WD4_GUILTY] != 0
        reveal_hand(cards, ints, P, b, target, offender)
        emit(ev, evn, b, EV_CHALLENGE, target, offender, 1 if guilty else 0)
        if guilty:
            draw_cards(cards, ints, rng, P, b, offender, pending, R_BLUFF_CAUGHT, ev, evn)
            following = target
        else:
            draw_cards(cards, ints, rng, P, b, target, pending + 2, R_CHALLENGE_LOST, ev, evn)
            emit(ev, evn, b, EV_SKIP, target, 0, 0)
    clear_wild_draw_four(ints, b)
    if went_out:
        end_round(cards, ints, rng, P, b, offender, rw, ev, evn)
    else:
        begin_next(cards, ints, P, b, following)
