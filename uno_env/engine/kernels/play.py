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
    P_UNO_CALL,
    PH_SWAP,
    S_COLOUR,
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
    STACKING_OFF,
    UNO_OFF,
)
from ..state import hand, hand_size, set_drew_on_bits, set_hand_size, set_named_colour, set_shown_to_trend, take_card
from .basics import emit
from .challenge import clear_wild_draw_four, wild_draw_four_played
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
    """A legal play and all its effects (R-TURN, R-ACT, R-WD4, R-2P, R-END): the card goes
    from the hand onto the discard pile, then its effects (:func:`wild_effects`,
    :func:`coloured_effects`). ``colour``: the colour a wild-type card names."""
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
    exposed = size == 1 and ints[b, S_UNO_CALLED] == 0 and P[P_UNO_CALL] != UNO_OFF and not swaps
    if face >= WILD:
        wild_effects(cards, ints, rng, P, b, player, face, colour, guilty, went_out, exposed, rw, ev, evn)
    else:
        coloured_effects(cards, ints, rng, P, b, player, face, went_out, exposed, swaps, rw, ev, evn)


@kernel(inline="always")
def wild_effects(cards, ints, rng, P, b, player, face, colour, guilty, went_out, exposed, rw, ev, evn):
    """A wild-type card names ``colour`` (public: each seat's named colour is shown); a Wild
    Draw Four's target decides first (:func:`wild_draw_four_played`), Fashion Trend asks each
    other player to show a card of the colour (R-VAR-FASHION)."""
    ints[b, S_COLOUR] = colour
    set_named_colour(ints, P, b, player, colour)
    if face == WILD_DRAW_FOUR:
        wild_draw_four_played(cards, ints, rng, P, b, player, guilty, went_out, exposed, ev, evn)
        return
    if went_out:
        end_round(cards, ints, rng, P, b, player, rw, ev, evn)
        return
    if face == FASHION_TREND:
        fashion_trend(cards, ints, rng, P, b, player, colour, ev, evn)
    finish_turn(cards, ints, rng, P, b, player, next_alive(ints, P, b, player, ints[b, S_DIRECTION]), exposed, ev, evn)


@kernel(inline="always")
def coloured_effects(cards, ints, rng, P, b, player, face, went_out, exposed, swaps, rw, ev, evn):
    """A coloured card sets its colour; a Draw Two under stacking adds to the pending
    penalty (:func:`stack_draw_two`), any other card's rank takes effect
    (:func:`rank_effects`) unless it was the last card (R-END-1; a last 7 or 0 swaps
    nothing, R-HOUSE-SEVENO-3)."""
    ints[b, S_COLOUR] = face // RANKS_PER_COLOUR
    rank = face % RANKS_PER_COLOUR
    if rank == RANK_DRAW_TWO and P[P_STACKING] != STACKING_OFF:
        stack_draw_two(cards, ints, rng, P, b, player, went_out, exposed, rw, ev, evn)
        return
    if swaps and went_out:
        end_round(cards, ints, rng, P, b, player, rw, ev, evn)
        return
    following = rank_effects(cards, ints, rng, P, b, player, rank, swaps, ev, evn)
    if following < 0:  # the Seven-O choice waits
        return
    if went_out:
        end_round(cards, ints, rng, P, b, player, rw, ev, evn)
        return
    finish_turn(cards, ints, rng, P, b, player, following, exposed, ev, evn)


@kernel(inline="always")
def rank_effects(cards, ints, rng, P, b, player, rank, swaps, ev, evn):
    """Skip, Reverse (R-2P: with two players, a Skip), Draw Two, and Seven-O's 7 and 0
    (R-HOUSE-SEVENO-1/2); the seat whose turn follows, or -1 while the 7's player chooses
    whom to swap hands with."""
    direction = ints[b, S_DIRECTION]
    if rank == RANK_SKIP:
        skipped = next_alive(ints, P, b, player, direction)
        emit(ev, evn, b, EV_SKIP, skipped, 0, 0)
        return next_alive(ints, P, b, skipped, direction)
    if rank == RANK_REVERSE:
        direction = -direction
        ints[b, S_DIRECTION] = direction
        emit(ev, evn, b, EV_REVERSE, player, direction, 0)
        return player if ints[b, S_N_ALIVE] == 2 else next_alive(ints, P, b, player, direction)
    if rank == RANK_DRAW_TWO:
        target = next_alive(ints, P, b, player, direction)
        draw_cards(cards, ints, rng, P, b, target, 2, R_DRAW_TWO, ev, evn)
        emit(ev, evn, b, EV_SKIP, target, 0, 0)
        return next_alive(ints, P, b, target, direction)
    following = next_alive(ints, P, b, player, direction)
    if swaps and rank == RANK_ZERO:
        rotate_hands(cards, ints, P, b, player, direction, ev, evn)
    elif swaps and ints[b, S_N_ALIVE] == 2:  # the only other player: no decision
        swap_hands(cards, ints, P, b, player, following, ev, evn)
    elif swaps:  # the player chooses whom to swap with
        begin_turn(ints, b, player)
        ints[b, S_PHASE] = PH_SWAP
        ints[b, S_FOLLOWING] = following
        return -1
    return following


@kernel(inline="always")
def stack_draw_two(cards, ints, rng, P, b, player, went_out, exposed, rw, ev, evn):
    """R-HOUSE-STACK-1/5: a Draw Two adds 2 to the pending penalty of the next player, who
    decides after the catch window; played as the last card, the target draws it all and the
    round ends."""
    clear_wild_draw_four(ints, b)  # a Wild Draw Four under it can no longer be challenged
    ints[b, S_PENDING] += 2
    target = next_alive(ints, P, b, player, ints[b, S_DIRECTION])
    if went_out:
        draw_cards(cards, ints, rng, P, b, target, ints[b, S_PENDING], R_PENALTY, ev, evn)
        ints[b, S_PENDING] = 0
        end_round(cards, ints, rng, P, b, player, rw, ev, evn)
        return
    finish_turn(cards, ints, rng, P, b, player, target, exposed, ev, evn)
