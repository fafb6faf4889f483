"""A card played and all its effects (R-TURN, R-ACT, R-WD4, R-2P, R-END): Skip, Reverse,
Draw Two, the wilds, Fashion Trend's showing (R-VAR-FASHION), stacking's pending penalty
(R-HOUSE-STACK) and Seven-O's swaps (R-HOUSE-SEVENO)."""

from __future__ import annotations

from ..cards import (
    FASHION_TREND,
    RANK_DRAW_TWO,
    RANK_REVERSE,
    RANK_SEVEN,
    RANK_SKIP,
    RANK_ZERO,
    RANKS_PER_COLOUR,
    WILD,
    WILD_DRAW_FOUR,
)
from ..events import (
    EV_PLAY,
    EV_REVERSE,
    EV_ROTATE,
    EV_SKIP,
    EV_SWAP,
    EV_TREND_FAIL,
    EV_TREND_SHOW,
    R_DRAW_TWO,
    R_PENALTY,
    R_TREND,
)
from ..jit import describe, kernel
from ..layout import (
    P_FACES,
    P_NUM_PLAYERS,
    P_SEVEN_O,
    P_STACKING,
    P_UNO,
    PH_CHALLENGE,
    PH_SWAP,
    S_COLOUR,
    S_CURRENT,
    S_DIRECTION,
    S_DRAWN,
    S_FOLLOWING,
    S_N_ALIVE,
    S_PENDING,
    S_PHASE,
    S_PREV_COLOUR,
    S_SWAP_FROM,
    S_SWAP_TO,
    S_TOP_PLAYER,
    S_TREND_COLOUR,
    S_TREND_VIEWER,
    S_UNO_CALLED,
    S_WD4_EXPOSED,
    S_WD4_GUILTY,
    S_WD4_OFFENDER,
    S_WD4_OUT,
    STACKING_OFF,
    UNO_OFF,
)
from ..state import hand, hand_size, set_drew_on_bits, set_hand_size, set_named_colour, set_shown_to_trend, take_card
from .basics import emit
from .challenge import clear_wild_draw_four
from .draw import draw_cards, push_discard
from .legality import holds_colour
from .scoring import end_round
from .turn_order import begin_turn, next_alive
from .uno import finish_turn

describe(__name__, "the rules engine's kernels", seconds=45)


@kernel
def exchange_hands(cards, ints, P, b, s, t):
    """Seats ``s`` and ``t`` exchange their hands (Seven-O); what each drew on or named no
    longer describes the hand it holds."""
    hs = hand(cards, P, b, s)
    ht = hand(cards, P, b, t)
    for f in range(P[P_FACES]):
        tmp = hs[f]
        hs[f] = ht[f]
        ht[f] = tmp
    size = hand_size(ints, P, b, s)
    set_hand_size(ints, P, b, s, hand_size(ints, P, b, t))
    set_hand_size(ints, P, b, t, size)
    set_drew_on_bits(ints, P, b, s, 0)
    set_drew_on_bits(ints, P, b, t, 0)
    set_named_colour(ints, P, b, s, -1)
    set_named_colour(ints, P, b, t, -1)


@kernel
def swap_hands(cards, ints, P, b, s, t, ev, evn):
    """R-HOUSE-SEVENO-1: a 7's player and the player it chose swap hands (public)."""
    exchange_hands(cards, ints, P, b, s, t)
    ints[b, S_SWAP_FROM] = s
    ints[b, S_SWAP_TO] = t
    emit(ev, evn, b, EV_SWAP, s, t, 0)


@kernel
def rotate_hands(cards, ints, P, b, player, direction, ev, evn):
    """R-HOUSE-SEVENO-2: every hand passes to the next player in the direction of play:
    exchanging the player's hand with each following seat in turn rotates them all."""
    s = next_alive(ints, P, b, player, direction)
    while s != player:
        exchange_hands(cards, ints, P, b, player, s)
        s = next_alive(ints, P, b, s, direction)
    emit(ev, evn, b, EV_ROTATE, player, direction, 0)


@kernel
def fashion_trend(cards, ints, rng, P, b, player, colour, ev, evn):
    """R-VAR-FASHION / D-FT-LAST: each other player in turn shows their lowest card of
    the colour to the player; the first who cannot draws 2 and the trend stops."""
    n = P[P_NUM_PLAYERS]
    for s in range(n):
        set_shown_to_trend(ints, P, b, s, -1)
    ints[b, S_TREND_VIEWER] = player
    ints[b, S_TREND_COLOUR] = colour
    direction = ints[b, S_DIRECTION]
    s = next_alive(ints, P, b, player, direction)
    while s != player:
        shown = -1
        held = hand(cards, P, b, s)
        for r in range(RANKS_PER_COLOUR):
            if held[colour * RANKS_PER_COLOUR + r] > 0:
                shown = colour * RANKS_PER_COLOUR + r
                break
        if shown < 0:
            emit(ev, evn, b, EV_TREND_FAIL, s, 0, 0)
            draw_cards(cards, ints, rng, P, b, s, 2, R_TREND, ev, evn)
            return
        set_shown_to_trend(ints, P, b, s, shown)
        emit(ev, evn, b, EV_TREND_SHOW, s, shown, player)
        s = next_alive(ints, P, b, s, direction)


@kernel(forceinline=True)
def play_card(cards, ints, rng, P, b, player, face, colour, rw, ev, evn):
    """A legal play and all its effects (R-TURN, R-ACT, R-WD4, R-2P, R-END)."""
    n_alive = ints[b, S_N_ALIVE]
    previous = ints[b, S_COLOUR]
    guilty = face == WILD_DRAW_FOUR and holds_colour(cards, P, b, player, previous)
    size = take_card(cards, ints, P, b, player, face)
    push_discard(cards, ints, P, b, face)
    ints[b, S_PREV_COLOUR] = previous
    ints[b, S_DRAWN] = -1
    set_drew_on_bits(ints, P, b, player, 0)
    ints[b, S_TOP_PLAYER] = player
    emit(ev, evn, b, EV_PLAY, player, face, colour if face >= WILD else -1)
    went_out = size == 0
    rank = face % RANKS_PER_COLOUR if face < WILD else -1
    swaps = P[P_SEVEN_O] != 0 and (rank == RANK_SEVEN or rank == RANK_ZERO)
    # D-HOUSE-SEVENO-UNO: a 7 or 0 played as the next-to-last card exposes nobody
    exposed = size == 1 and ints[b, S_UNO_CALLED] == 0 and P[P_UNO] != UNO_OFF and not swaps
    direction = ints[b, S_DIRECTION]
    stacking = P[P_STACKING] != STACKING_OFF
    if face >= WILD:
        ints[b, S_COLOUR] = colour
        set_named_colour(ints, P, b, player, colour)  # public: the colour this seat named
        if face == WILD_DRAW_FOUR:  # the target decides first (R-WD4-3, R-END-2)
            ints[b, S_WD4_OFFENDER] = player
            ints[b, S_WD4_GUILTY] = 1 if guilty else 0
            ints[b, S_WD4_OUT] = 1 if went_out else 0
            if stacking:  # R-HOUSE-STACK-3: the catch window, then the target's penalty decision
                ints[b, S_PENDING] += 4
                finish_turn(cards, ints, rng, P, b, player, next_alive(ints, P, b, player, direction), exposed, ev, evn)
                return
            ints[b, S_WD4_EXPOSED] = 1 if exposed else 0
            ints[b, S_PHASE] = PH_CHALLENGE
            ints[b, S_CURRENT] = next_alive(ints, P, b, player, direction)
            ints[b, S_UNO_CALLED] = 0
            return
        if went_out:
            end_round(cards, ints, rng, P, b, player, rw, ev, evn)
            return
        if face == FASHION_TREND:
            fashion_trend(cards, ints, rng, P, b, player, colour, ev, evn)
        finish_turn(cards, ints, rng, P, b, player, next_alive(ints, P, b, player, direction), exposed, ev, evn)
        return
    ints[b, S_COLOUR] = face // RANKS_PER_COLOUR
    if rank == RANK_DRAW_TWO and stacking:  # R-HOUSE-STACK-1/5
        clear_wild_draw_four(ints, b)  # a Wild Draw Four under it can no longer be challenged
        ints[b, S_PENDING] += 2
        target = next_alive(ints, P, b, player, direction)
        if went_out:
            draw_cards(cards, ints, rng, P, b, target, ints[b, S_PENDING], R_PENALTY, ev, evn)
            ints[b, S_PENDING] = 0
            end_round(cards, ints, rng, P, b, player, rw, ev, evn)
            return
        finish_turn(cards, ints, rng, P, b, player, target, exposed, ev, evn)
        return
    if swaps and went_out:  # R-HOUSE-SEVENO-3: the round ends, nothing is swapped
        end_round(cards, ints, rng, P, b, player, rw, ev, evn)
        return
    if rank == RANK_SKIP:
        skipped = next_alive(ints, P, b, player, direction)
        emit(ev, evn, b, EV_SKIP, skipped, 0, 0)
        following = next_alive(ints, P, b, skipped, direction)
    elif rank == RANK_REVERSE:
        direction = -direction
        ints[b, S_DIRECTION] = direction
        emit(ev, evn, b, EV_REVERSE, player, direction, 0)
        following = player if n_alive == 2 else next_alive(ints, P, b, player, direction)
    elif rank == RANK_DRAW_TWO:
        target = next_alive(ints, P, b, player, direction)
        draw_cards(cards, ints, rng, P, b, target, 2, R_DRAW_TWO, ev, evn)
        emit(ev, evn, b, EV_SKIP, target, 0, 0)
        following = next_alive(ints, P, b, target, direction)
    else:
        following = next_alive(ints, P, b, player, direction)
        if swaps and rank == RANK_ZERO:
            rotate_hands(cards, ints, P, b, player, direction, ev, evn)
        elif swaps and n_alive == 2:  # R-HOUSE-SEVENO-1: the only other player, no decision
            swap_hands(cards, ints, P, b, player, following, ev, evn)
        elif swaps:  # the player chooses whom to swap with
            begin_turn(ints, b, player)
            ints[b, S_PHASE] = PH_SWAP
            ints[b, S_FOLLOWING] = following
            return
    if went_out:
        end_round(cards, ints, rng, P, b, player, rw, ev, evn)
        return
    finish_turn(cards, ints, rng, P, b, player, following, exposed, ev, evn)
