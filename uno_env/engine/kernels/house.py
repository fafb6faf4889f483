"""The house rules' decisions, each with its legal actions (:func:`house_mask`): a stack's
penalty, the Seven-O choice, a jump-in (HOUSE_RULES.md)."""

from __future__ import annotations

from ..cards import RANK_DRAW_TWO, RANKS_PER_COLOUR, WILD_DRAW_FOUR
from ..events import EV_JUMP_IN, EV_JUMP_PASS, EV_WRONG, R_PENALTY, R_WRONG_CARD
from ..jit import describe, kernel
from ..layout import (
    P_A_ACCEPT,
    P_A_CHALLENGE,
    P_A_PASS,
    P_A_SWAP,
    P_A_UNO,
    P_NUM_PLAYERS,
    PH_JUMP,
    PH_PENALTY,
    PH_SWAP,
    S_CURRENT,
    S_DIRECTION,
    S_FOLLOWING,
    S_PENDING,
    S_PHASE,
    S_WD4_OFFENDER,
    S_WD4_OUT,
)
from ..state import is_alive, top_face
from .basics import emit
from .challenge import clear_wild_draw_four, resolve_penalty
from .codes import (
    KIND_ACCEPT,
    KIND_CHALLENGE,
    KIND_PASS,
    KIND_PLAY,
    KIND_SWAP,
    KIND_UNO,
    ST_NOT_AVAILABLE,
    ST_NOT_HELD,
    ST_OK,
    ST_WRONG_PENALIZED,
)
from .draw import draw_cards
from .legality import allow_if_legal, holds_card, may_play
from .play import play_card, swap_hands
from .scoring import end_round
from .turn import refuse_wrong_card
from .turn_order import begin_next, begin_turn, next_alive, next_jumper
from .uno import call_uno, uno_available

describe(__name__, "the rules engine's kernels", seconds=45)


@kernel
def apply_house_decision(cards, ints, rng, P, b, kind, face, colour, rw, ev, evn):
    """The decisions of the house rules: a stack's penalty, the Seven-O choice, a jump-in."""
    player = ints[b, S_CURRENT]
    phase = ints[b, S_PHASE]
    if kind == KIND_UNO and phase != PH_SWAP:
        if not uno_available(cards, ints, P, b):
            return ST_NOT_AVAILABLE
        call_uno(ints, b, player, ev, evn)
        return ST_OK
    if phase == PH_SWAP:
        return decide_swap(cards, ints, P, b, kind, colour, ev, evn)
    if phase == PH_JUMP:
        return decide_jump(cards, ints, rng, P, b, kind, face, colour, rw, ev, evn)
    return decide_penalty(cards, ints, rng, P, b, kind, face, colour, rw, ev, evn)


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


@kernel(inline="always")
def decide_swap(cards, ints, P, b, kind, seat, ev, evn):
    """R-HOUSE-SEVENO-1: the 7's player swaps hands with the seat ``seat`` places after it
    (in play), then the turn passes on."""
    if kind != KIND_SWAP:
        return ST_NOT_AVAILABLE
    player = ints[b, S_CURRENT]
    other = (player + seat) % P[P_NUM_PLAYERS]
    if not is_alive(ints, P, b, other):
        return ST_NOT_AVAILABLE
    swap_hands(cards, ints, P, b, player, other, ev, evn)
    begin_next(cards, ints, P, b, ints[b, S_FOLLOWING])
    return ST_OK


@kernel(inline="always")
def decide_jump(cards, ints, rng, P, b, kind, face, colour, rw, ev, evn):
    """R-HOUSE-JUMP-3/4: the asked holder plays the identical card out of turn, or passes the
    window on to the next holder; nobody left, the turn that was due begins."""
    player = ints[b, S_CURRENT]
    if kind == KIND_PASS:
        emit(ev, evn, b, EV_JUMP_PASS, player, 0, 0)
        jumper = next_jumper(cards, ints, P, b, player)
        if jumper >= 0:
            begin_turn(ints, b, jumper)
            ints[b, S_PHASE] = PH_JUMP
        else:  # nobody jumped in: the window closes
            following = ints[b, S_FOLLOWING]
            ints[b, S_FOLLOWING] = -1
            begin_turn(ints, b, following)
        return ST_OK
    if kind != KIND_PLAY:
        return ST_NOT_AVAILABLE
    if not holds_card(cards, P, b, player, face):
        return ST_NOT_HELD
    if not may_play(cards, ints, P, b, player, face, PH_JUMP):
        return ST_NOT_AVAILABLE
    ints[b, S_FOLLOWING] = -1
    emit(ev, evn, b, EV_JUMP_IN, player, 0, 0)
    play_card(cards, ints, rng, P, b, player, face, colour, rw, ev, evn)
    return ST_OK


@kernel(inline="always")
def decide_penalty(cards, ints, rng, P, b, kind, face, colour, rw, ev, evn):
    """R-HOUSE-STACK: the target of a pending penalty accepts it, challenges the Wild Draw
    Four on top, or answers with a card that stacks; a card that does not is a wrong card
    (R-HOUSE-STACK-6)."""
    player = ints[b, S_CURRENT]
    if kind == KIND_ACCEPT or (kind == KIND_CHALLENGE and top_face(cards, ints, P, b) == WILD_DRAW_FOUR):
        resolve_penalty(cards, ints, rng, P, b, kind == KIND_CHALLENGE, rw, ev, evn)
        return ST_OK
    if kind != KIND_PLAY:
        return ST_NOT_AVAILABLE
    if not holds_card(cards, P, b, player, face):
        return ST_NOT_HELD
    if may_play(cards, ints, P, b, player, face, PH_PENALTY):
        play_card(cards, ints, rng, P, b, player, face, colour, rw, ev, evn)
        return ST_OK
    refused = refuse_wrong_card(ints, P, b, player, face, rw, ev, evn)
    if refused != ST_OK:
        return refused
    # R-HOUSE-STACK-6: taken back, the pending penalty plus 2 drawn, the turn passes (no
    # jump-in window: docs/DECISIONS.md, decision 16)
    emit(ev, evn, b, EV_WRONG, player, face, 0)
    draw_cards(cards, ints, rng, P, b, player, ints[b, S_PENDING], R_PENALTY, ev, evn)
    draw_cards(cards, ints, rng, P, b, player, 2, R_WRONG_CARD, ev, evn)
    ints[b, S_PENDING] = 0
    went_out = ints[b, S_WD4_OUT] != 0
    offender = ints[b, S_WD4_OFFENDER]
    clear_wild_draw_four(ints, b)
    if went_out:
        end_round(cards, ints, rng, P, b, offender, rw, ev, evn)
    else:
        begin_turn(ints, b, next_alive(ints, P, b, player, ints[b, S_DIRECTION]))
    return ST_WRONG_PENALIZED
