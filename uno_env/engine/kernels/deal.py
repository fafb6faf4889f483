"""Dealing: a new game, the dealer's draw, each round's deal and its starting card (R-SETUP)."""

from __future__ import annotations

import numpy as np

from ..cards import FACE_COPIES, RANK_DRAW_TWO, RANK_REVERSE, RANK_SKIP, RANKS_PER_COLOUR, WILD, WILD_DRAW_FOUR
from ..events import EV_DEAL, EV_DEALER_DRAW, EV_REVERSE, EV_SKIP, EV_STARTER, EV_STARTER_RETURNED, R_STARTER_DRAW_TWO
from ..jit import describe, kernel
from ..layout import (
    P_DECK_SIZE,
    P_FACES,
    P_NUM_PLAYERS,
    P_STACKING,
    PH_COLOR,
    S_AFTER_WINDOW,
    S_COLOUR,
    S_CURRENT,
    S_DEALER,
    S_DIRECTION,
    S_DISCARD_COUNT,
    S_DRAW_COUNT,
    S_DRAWN,
    S_EPISODES,
    S_EXPOSED,
    S_FOLLOWING,
    S_FORFEIT,
    S_LAST_WINNER,
    S_N_ALIVE,
    S_PENDING,
    S_PHASE,
    S_PREV_COLOUR,
    S_REVEAL_OWNER,
    S_REVEAL_VIEWER,
    S_ROUND,
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
)
from ..state import (
    clear_cards,
    clear_ints,
    discard_counts,
    draw_pile,
    give_card,
    hand,
    revealed,
    set_alive,
    set_drew_on_bits,
    set_hand_size,
    set_named_colour,
    set_shown_to_trend,
)
from .basics import emit, shuffle_segment
from .draw import draw_cards, push_discard
from .turn_order import begin_next, begin_turn, next_alive

describe(__name__, "the rules engine's kernels", seconds=45)


HAND_START = 7  # R-SETUP-2


@kernel
def clear_round_info(cards, ints, P, b):
    n = P[P_NUM_PLAYERS]
    ints[b, S_DRAWN] = -1
    ints[b, S_UNO_CALLED] = 0
    ints[b, S_EXPOSED] = -1
    ints[b, S_AFTER_WINDOW] = -1
    ints[b, S_WD4_OFFENDER] = -1
    ints[b, S_WD4_GUILTY] = 0
    ints[b, S_WD4_OUT] = 0
    ints[b, S_WD4_EXPOSED] = 0
    ints[b, S_REVEAL_VIEWER] = -1
    ints[b, S_REVEAL_OWNER] = -1
    ints[b, S_TREND_VIEWER] = -1
    ints[b, S_TREND_COLOUR] = -1
    ints[b, S_PREV_COLOUR] = -1
    ints[b, S_COLOUR] = -1
    ints[b, S_DIRECTION] = 1
    ints[b, S_PENDING] = 0
    ints[b, S_TOP_PLAYER] = -1
    ints[b, S_FOLLOWING] = -1
    ints[b, S_SWAP_FROM] = -1
    ints[b, S_SWAP_TO] = -1
    for s in range(n):
        set_shown_to_trend(ints, P, b, s, -1)
        set_drew_on_bits(ints, P, b, s, 0)
        set_named_colour(ints, P, b, s, -1)
    shown = revealed(cards, P, b)
    for f in range(P[P_FACES]):
        shown[f] = 0


@kernel
def fill_deck(pile, P):
    """Write the whole deck in face order into ``pile``; returns the card count."""
    k = 0
    for f in range(P[P_FACES]):
        copies = FACE_COPIES[f]
        for _ in range(copies):
            pile[k] = f
            k += 1
    return k


@kernel
def gather_and_shuffle(cards, ints, rng, P, b):
    """All cards back into the draw pile, shuffled (R-SETUP-5)."""
    for s in range(P[P_NUM_PLAYERS]):
        held = hand(cards, P, b, s)
        for f in range(P[P_FACES]):
            held[f] = 0
        set_hand_size(ints, P, b, s, 0)
    counts = discard_counts(cards, P, b)
    for f in range(P[P_FACES]):
        counts[f] = 0
    ints[b, S_DISCARD_COUNT] = 0
    pile = draw_pile(cards, P, b)
    count = fill_deck(pile, P)
    ints[b, S_DRAW_COUNT] = count
    shuffle_segment(pile, rng, b, 0, count)


@kernel
def deal_and_start(cards, ints, rng, P, b, dealer, ev, evn):
    """Deal 7 cards one at a time from the left of the dealer, turn up the starter
    and apply its effect (R-SETUP-2..4). The draw pile must hold the deck."""
    clear_round_info(cards, ints, P, b)
    ints[b, S_DEALER] = dealer
    emit(ev, evn, b, EV_DEAL, dealer, ints[b, S_ROUND], 0)
    pile = draw_pile(cards, P, b)
    for _ in range(HAND_START):
        seat = dealer
        for _ in range(ints[b, S_N_ALIVE]):
            seat = next_alive(ints, P, b, seat, 1)
            k = ints[b, S_DRAW_COUNT] - 1
            face = pile[k]
            ints[b, S_DRAW_COUNT] = k
            give_card(cards, ints, P, b, seat, face)
    while True:
        k = ints[b, S_DRAW_COUNT] - 1
        face = np.int64(pile[k])
        if face == WILD_DRAW_FOUR:  # back into the pile, reshuffle, turn up another
            emit(ev, evn, b, EV_STARTER_RETURNED, face, 0, 0)
            shuffle_segment(pile, rng, b, 0, k + 1)
            continue
        ints[b, S_DRAW_COUNT] = k
        push_discard(cards, ints, P, b, face)
        emit(ev, evn, b, EV_STARTER, face, 0, 0)
        break
    first = next_alive(ints, P, b, dealer, 1)
    if face >= WILD:  # Wild, or Fashion Trend treated like a Wild: the first player names the colour
        ints[b, S_CURRENT] = first
        ints[b, S_PHASE] = PH_COLOR
        ints[b, S_UNO_CALLED] = 0
        return
    ints[b, S_COLOUR] = face // RANKS_PER_COLOUR
    rank = face % RANKS_PER_COLOUR
    if rank == RANK_DRAW_TWO and P[P_STACKING] != STACKING_OFF:  # R-HOUSE-STACK-4: it may be answered
        ints[b, S_PENDING] = 2
        begin_next(cards, ints, P, b, first)
    elif rank == RANK_DRAW_TWO:
        draw_cards(cards, ints, rng, P, b, first, 2, R_STARTER_DRAW_TWO, ev, evn)
        emit(ev, evn, b, EV_SKIP, first, 0, 0)
        begin_turn(ints, b, next_alive(ints, P, b, first, 1))
    elif rank == RANK_REVERSE:
        ints[b, S_DIRECTION] = -1
        emit(ev, evn, b, EV_REVERSE, dealer, -1, 0)
        begin_turn(ints, b, dealer)
    elif rank == RANK_SKIP:
        emit(ev, evn, b, EV_SKIP, first, 0, 0)
        begin_turn(ints, b, next_alive(ints, P, b, first, 1))
    else:
        begin_turn(ints, b, first)


@kernel
def start_round(cards, ints, rng, P, b, dealer, ev, evn):
    gather_and_shuffle(cards, ints, rng, P, b)
    deal_and_start(cards, ints, rng, P, b, dealer, ev, evn)


@kernel
def choose_dealer(cards, ints, rng, P, b, ev, evn):
    """R-SETUP-1 / D-DEALER: highest number deals, action cards count 0, ties redraw."""
    n = P[P_NUM_PLAYERS]
    pile = draw_pile(cards, P, b)
    count = fill_deck(pile, P)
    shuffle_segment(pile, rng, b, 0, count)
    # seat s's drawn value (0..9) in bits 4s..4s+3 and its tie in bit s: no arrays to
    # allocate, so the engine compiles without numba's reference counting
    tied = (1 << n) - 1
    pos = count
    while True:
        best = -1
        values = 0
        for s in range(n):
            if tied >> s & 1:
                if pos == 0:
                    shuffle_segment(pile, rng, b, 0, count)
                    pos = count
                pos -= 1
                face = np.int64(pile[pos])
                emit(ev, evn, b, EV_DEALER_DRAW, s, face, 0)
                value = face % RANKS_PER_COLOUR if face < WILD and face % RANKS_PER_COLOUR < 10 else 0
                values |= value << (4 * s)
                if value > best:
                    best = value
        winners = 0
        dealer = -1
        for s in range(n):
            if tied >> s & 1 and (values >> (4 * s)) & 15 == best:
                winners += 1
                dealer = s
            else:
                tied &= ~(1 << s)
        if winners == 1:
            return dealer


@kernel
def reset_game(cards, ints, rng, P, b, dealer, deck_given, ev, evn):
    """A new game. ``dealer < 0`` draws for the dealer; ``deck_given`` deals the draw
    pile as written (top last) instead of shuffling."""
    n = P[P_NUM_PLAYERS]
    episodes = ints[b, S_EPISODES]
    clear_ints(ints, P, b)
    ints[b, S_EPISODES] = episodes
    for s in range(n):
        set_alive(ints, P, b, s, 1)
    ints[b, S_N_ALIVE] = n
    ints[b, S_LAST_WINNER] = -1
    ints[b, S_FORFEIT] = -1
    clear_cards(cards, P, b, deck_given)
    if deck_given:
        ints[b, S_DRAW_COUNT] = P[P_DECK_SIZE]
        deal_and_start(cards, ints, rng, P, b, max(dealer, 0), ev, evn)
        return
    if dealer < 0:
        dealer = choose_dealer(cards, ints, rng, P, b, ev, evn)
    start_round(cards, ints, rng, P, b, dealer, ev, evn)
