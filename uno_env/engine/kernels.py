"""The rules, compiled: reset, legal-action mask, step and observation kernels.

Every rule of RULES.md lives here, once. Each kernel works on game ``b`` of a
batch (see :mod:`layout` for the arrays); the ``*_batch`` drivers loop over the
batch serially, the ``*_parallel`` ones with ``prange`` over every numba thread. The
single-game API, the PettingZoo env and the vector env all call these.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .cards import (
    CARD_VALUES,
    FACE_COPIES,
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
from .events import (
    EV_ACCEPT,
    EV_CATCH,
    EV_CHALLENGE,
    EV_COLOR,
    EV_DEAL,
    EV_DEALER_DRAW,
    EV_DECLINE,
    EV_DRAW,
    EV_ELIMINATED,
    EV_EXPOSED,
    EV_FORFEIT,
    EV_GAME_END,
    EV_JUMP_IN,
    EV_JUMP_PASS,
    EV_KEEP,
    EV_PASS,
    EV_PENALTY_ACCEPT,
    EV_PLAY,
    EV_RESHUFFLE,
    EV_REVERSE,
    EV_ROTATE,
    EV_ROUND_END,
    EV_SCORE,
    EV_SKIP,
    EV_STARTER,
    EV_STARTER_RETURNED,
    EV_SWAP,
    EV_TREND_FAIL,
    EV_TREND_SHOW,
    EV_TRUNCATED,
    EV_UNO,
    EV_WRONG,
    R_BLUFF_CAUGHT,
    R_CHALLENGE_LOST,
    R_CHOICE,
    R_DRAW_TWO,
    R_PENALTY,
    R_STARTER_DRAW_TWO,
    R_TREND,
    R_UNO_CAUGHT,
    R_WILD_DRAW_FOUR,
    R_WRONG_CARD,
)
from .jit import describe, kernel
from .layout import (
    EPISODE_ROUND,
    ILLEGAL_LOSE,
    ILLEGAL_RAISE,
    O_ACTING,
    O_AFTER_WINDOW,
    O_ALIVE,
    O_CHALLENGE_REVEAL,
    O_CHALLENGE_REVEAL_SEAT,
    O_COLOUR,
    O_DEALER,
    O_DIRECTION,
    O_DISCARD_PILE,
    O_DRAW_PILE_SIZE,
    O_DRAWN_CARD,
    O_DREW_ON,
    O_EXPOSED,
    O_HAND,
    O_HAND_SIZES,
    O_LAST_SWAP,
    O_NAMED_COLOUR,
    O_NEXT_TURN,
    O_PENDING_PENALTY,
    O_PHASE,
    O_PREVIOUS_COLOUR,
    O_SCORES,
    O_TOP_CARD,
    O_TOP_CARD_PLAYER,
    O_TREND_COLOUR,
    O_TREND_SHOWN,
    O_UNO_CALLED,
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
    P_DECK_SIZE,
    P_DRAW_UNTIL_PLAYABLE,
    P_EPISODE,
    P_FACES,
    P_FORCE_PLAY,
    P_ILLEGAL,
    P_JUMP_IN,
    P_MAX_STEPS,
    P_NUM_ACTIONS,
    P_NUM_PLAYERS,
    P_O_SIZE,
    P_PARTNERS,
    P_REWARD,
    P_SCORING,
    P_SEVEN_O,
    P_STACKING,
    P_TARGET,
    P_UNO,
    PH_CATCH,
    PH_CHALLENGE,
    PH_COLOR,
    PH_DRAWN,
    PH_JUMP,
    PH_OVER,
    PH_PENALTY,
    PH_PLAY,
    PH_SWAP,
    REWARD_POINTS,
    REWARD_WIN,
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
    S_STEP,
    S_SWAP_FROM,
    S_SWAP_TO,
    S_TERMINATED,
    S_TOP_PLAYER,
    S_TREND_COLOUR,
    S_TREND_VIEWER,
    S_TRUNCATED,
    S_UNO_CALLED,
    S_WD4_EXPOSED,
    S_WD4_GUILTY,
    S_WD4_OFFENDER,
    S_WD4_OUT,
    SCORING_ALTERNATIVE,
    SCORING_STANDARD,
    STACKING_MIXED,
    STACKING_OFF,
    UNO_AUTO,
    UNO_OFF,
)
from .state import (
    add_discard_count,
    add_score,
    alive,
    clear_cards,
    clear_ints,
    discard_counts,
    discard_pile,
    draw_pile,
    draw_pile_card,
    drew_on_bits,
    give_card,
    hand,
    hand_count,
    hand_size,
    hand_sizes,
    is_alive,
    mark_drew_on,
    named_colour,
    outcome,
    revealed,
    score,
    scores,
    set_alive,
    set_discard_pile_card,
    set_drew_on_bits,
    set_hand_size,
    set_named_colour,
    set_outcome,
    set_shown_to_trend,
    shown_to_trend,
    take_card,
    top_face,
)

HAND_START = 7  # R-SETUP-2

# action kinds (as in actions.py)
KIND_PLAY = 0
KIND_DRAW = 1
KIND_PASS = 2
KIND_UNO = 3
KIND_CHALLENGE = 4
KIND_ACCEPT = 5
KIND_CATCH = 6
KIND_COLOUR = 7
KIND_SWAP = 8

# step status: >= 0 the action was applied, < 0 it was refused and nothing changed
ST_OK = 0
ST_WRONG_PENALIZED = 1
ST_WRONG_LOST = 2
ST_GAME_OVER = -1
ST_OUT_OF_RANGE = -2
ST_NOT_HELD = -3
ST_NOT_AVAILABLE = -4
ST_WRONG_REFUSED = -5

_U12 = np.uint64(12)
_U25 = np.uint64(25)
_U27 = np.uint64(27)
_U31 = np.uint64(31)
_U33 = np.uint64(33)
_MUL = np.uint64(0x2545F4914F6CDD1D)


# ---------------------------------------------------------------- randomness
@kernel(inline="always")
def rng_below(rng, b, n):
    """Uniform integer in 0..n-1 from game b's xorshift64* generator."""
    x = rng[b]
    x ^= x >> _U12
    x ^= x << _U25
    x ^= x >> _U27
    rng[b] = x
    r = (x * _MUL) >> _U33
    return np.int64((r * np.uint64(n)) >> _U31)


@kernel
def shuffle_segment(pile, rng, b, start, count):
    """Shuffle ``pile[start:start + count]`` with game b's generator."""
    for i in range(count - 1, 0, -1):
        j = rng_below(rng, b, i + 1)
        tmp = pile[start + i]
        pile[start + i] = pile[start + j]
        pile[start + j] = tmp


# ---------------------------------------------------------------- small helpers
# An explicit signature instead of numba-level inlining: one compiled emit for every call
# site (calls with literal arguments would each compile their own), which LLVM inlines
@kernel("void(int32[:, :, ::1], int32[::1], int64, int64, int64, int64, int64)")
def emit(ev, evn, b, kind, x, y, z):
    k = evn[b]
    if k < ev.shape[1]:
        ev[b, k, 0] = kind
        ev[b, k, 1] = x
        ev[b, k, 2] = y
        ev[b, k, 3] = z
    evn[b] = k + 1


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


# after the two eager compilations above (about half a second at import): a bare
# ``import uno_env`` prints nothing, the first game says what compiles (entry.py)
describe(__name__, "the rules engine's kernels", seconds=45)


@kernel(inline="always")
def same_team(P, s, t):
    if P[P_PARTNERS] != 0:
        half = P[P_NUM_PLAYERS] // 2
        return s % half == t % half
    return s == t


@kernel(inline="always")
def matches_on(face, colour, top):
    """R-TURN-1: ``face`` may be played on ``top`` with ``colour`` in force; wild-type cards always."""
    if face >= WILD:
        return True
    if face // RANKS_PER_COLOUR == colour:
        return True
    return top < WILD and top % RANKS_PER_COLOUR == face % RANKS_PER_COLOUR


@kernel(inline="always")
def matches(cards, ints, P, b, face):
    """A card that may be played on the discard pile (R-TURN-1); wild-type cards always."""
    return matches_on(face, ints[b, S_COLOUR], top_face(cards, ints, P, b))


@kernel(inline="always")
def holds_colour(cards, P, b, seat, colour):
    if colour < 0:
        return False
    held = hand(cards, P, b, seat)
    first = colour * RANKS_PER_COLOUR
    for r in range(RANKS_PER_COLOUR):
        if held[first + r] > 0:
            return True
    return False


@kernel(inline="always")
def holds_card(cards, P, b, seat, face):
    """``seat`` holds a copy of ``face`` (a face of the deck)."""
    return face < P[P_FACES] and hand_count(cards, P, b, seat, face) > 0


@kernel
def hand_value(cards, P, b, seat):
    held = hand(cards, P, b, seat)
    total = 0
    for f in range(P[P_FACES]):
        c = held[f]
        if c > 0:
            total += CARD_VALUES[f] * c
    return total


@kernel
def has_legal_play(cards, ints, P, b, seat):
    held = hand(cards, P, b, seat)
    colour = ints[b, S_COLOUR]
    top = top_face(cards, ints, P, b)
    for f in range(P[P_FACES]):
        if held[f] > 0 and matches_on(f, colour, top):
            return True
    return False


@kernel(inline="always")
def stackable(cards, ints, P, b, face):
    """R-HOUSE-STACK-2/5: ``face`` answers the pending penalty (a Draw Two or Wild Draw
    Four on top). Nothing answers a Wild Draw Four that was its player's last card."""
    top = top_face(cards, ints, P, b)
    draw_two = face < WILD and face % RANKS_PER_COLOUR == RANK_DRAW_TWO
    if top == WILD_DRAW_FOUR:
        if ints[b, S_WD4_OUT] != 0:
            return False
        if face == WILD_DRAW_FOUR:
            return True
        return P[P_STACKING] == STACKING_MIXED and draw_two and face // RANKS_PER_COLOUR == ints[b, S_COLOUR]
    if draw_two:
        return True
    return P[P_STACKING] == STACKING_MIXED and face == WILD_DRAW_FOUR


@kernel
def has_stackable(cards, ints, P, b, seat):
    held = hand(cards, P, b, seat)
    for c in range(4):
        f = c * RANKS_PER_COLOUR + RANK_DRAW_TWO
        if held[f] > 0 and stackable(cards, ints, P, b, f):
            return True
    return held[WILD_DRAW_FOUR] > 0 and stackable(cards, ints, P, b, WILD_DRAW_FOUR)


@kernel(forceinline=True)
def uno_available(cards, ints, P, b):
    """D-UNO: once per turn, with exactly two cards and a legal play in this decision."""
    if P[P_UNO] == UNO_OFF or ints[b, S_UNO_CALLED] != 0:
        return False
    p = ints[b, S_CURRENT]
    if hand_size(ints, P, b, p) != 2:
        return False
    phase = ints[b, S_PHASE]
    if phase == PH_DRAWN or phase == PH_JUMP:  # a jump-in decision is asked only of a holder
        return True
    if phase == PH_PENALTY:  # D-HOUSE-STACK-UNO
        return has_stackable(cards, ints, P, b, p)
    return phase == PH_PLAY and has_legal_play(cards, ints, P, b, p)


@kernel(inline="always")
def begin_turn(ints, b, seat):
    ints[b, S_CURRENT] = seat
    ints[b, S_PHASE] = PH_PLAY
    ints[b, S_UNO_CALLED] = 0
    ints[b, S_DRAWN] = -1


@kernel
def next_jumper(cards, ints, P, b, after):
    """R-HOUSE-JUMP-2: the first seat after ``after`` in turn order, before the seat whose turn
    would begin (``S_FOLLOWING``), that holds the top card and did not play it; -1 if none."""
    following = ints[b, S_FOLLOWING]
    origin = ints[b, S_TOP_PLAYER]
    top = top_face(cards, ints, P, b)
    s = after
    for _ in range(P[P_NUM_PLAYERS]):
        s = next_alive(ints, P, b, s, ints[b, S_DIRECTION])
        if s == following:
            return -1
        if s != origin and hand_count(cards, P, b, s, top) > 0:
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


@kernel(inline="always")
def push_discard(cards, ints, P, b, face):
    k = ints[b, S_DISCARD_COUNT]
    set_discard_pile_card(cards, P, b, k, face)
    ints[b, S_DISCARD_COUNT] = k + 1
    add_discard_count(cards, P, b, face, 1)


@kernel
def reshuffle(cards, ints, rng, P, b, ev, evn):
    """R-TURN-5 / D-RESHUFFLE: keep the top discard, the rest becomes the draw pile."""
    count = ints[b, S_DISCARD_COUNT]
    if count <= 1:
        return
    discard = discard_pile(cards, P, b)
    pile = draw_pile(cards, P, b)
    counts = discard_counts(cards, P, b)
    start = ints[b, S_DRAW_COUNT]
    moved = count - 1
    for i in range(moved):
        f = discard[i]
        pile[start + i] = f
        counts[f] -= 1
    discard[0] = discard[moved]
    ints[b, S_DISCARD_COUNT] = 1
    shuffle_segment(pile, rng, b, start, moved)
    ints[b, S_DRAW_COUNT] += moved
    emit(ev, evn, b, EV_RESHUFFLE, moved, 0, 0)


@kernel(forceinline=True)
def draw_one(cards, ints, rng, P, b, seat, reason, ev, evn):
    """Move the top of the draw pile into a hand; -1 when no card exists (R-TURN-5)."""
    if ints[b, S_DRAW_COUNT] == 0:
        reshuffle(cards, ints, rng, P, b, ev, evn)
        if ints[b, S_DRAW_COUNT] == 0:
            return -1
    k = ints[b, S_DRAW_COUNT] - 1
    face = np.int64(draw_pile_card(cards, P, b, k))
    ints[b, S_DRAW_COUNT] = k
    give_card(cards, ints, P, b, seat, face)
    emit(ev, evn, b, EV_DRAW, seat, face, reason)
    return face


@kernel(inline="always")
def draw_cards(cards, ints, rng, P, b, seat, count, reason, ev, evn):
    # np.int64: one compiled draw_one for all call sites, not one per literal reason
    for _ in range(count):
        if draw_one(cards, ints, rng, P, b, np.int64(seat), np.int64(reason), ev, evn) < 0:
            return


# ---------------------------------------------------------------- rounds
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


@kernel
def finish_game(ints, P, b, rw, ev, evn):
    """Terminal bookkeeping once outcomes are set: rewards (R-SCORE-2) and the over phase."""
    n = P[P_NUM_PLAYERS]
    for s in range(n):
        o = outcome(ints, P, b, s)
        if o > 0:
            emit(ev, evn, b, EV_GAME_END, s, 0, 0)
        if P[P_REWARD] == REWARD_WIN and is_alive(ints, P, b, s):
            rw[b, s] += o
    ints[b, S_TERMINATED] = 1
    ints[b, S_PHASE] = PH_OVER
    ints[b, S_CURRENT] = -1


@kernel
def score_round(cards, ints, P, b, winner, rw, ev, evn):
    """R-SCORE-1/3, R-VAR-ALT: the round's points. Standard scoring credits the winner's
    side with the cards left in the other hands; the alternative charges each hand its own."""
    n = P[P_NUM_PLAYERS]
    if P[P_SCORING] == SCORING_STANDARD:
        points = 0
        for s in range(n):
            if is_alive(ints, P, b, s) and not same_team(P, s, winner):
                points += hand_value(cards, P, b, s)
        emit(ev, evn, b, EV_ROUND_END, winner, points, 0)
        for s in range(n):
            if same_team(P, s, winner):
                add_score(ints, P, b, s, points)
                emit(ev, evn, b, EV_SCORE, s, points, score(ints, P, b, s))
                if P[P_REWARD] == REWARD_POINTS:
                    rw[b, s] += points
        return
    emit(ev, evn, b, EV_ROUND_END, winner, 0, 0)
    for s in range(n):
        if is_alive(ints, P, b, s):
            points = hand_value(cards, P, b, s)
            add_score(ints, P, b, s, points)
            emit(ev, evn, b, EV_SCORE, s, points, score(ints, P, b, s))
            if P[P_REWARD] == REWARD_POINTS:
                rw[b, s] -= points


@kernel
def lowest_score_wins(ints, P, b):
    """R-VAR-ALT: once a score reaches the target, the lowest score wins. Whether it is over."""
    n = P[P_NUM_PLAYERS]
    lowest = 1 << 30
    reached = False
    for s in range(n):
        v = score(ints, P, b, s)
        reached = reached or v >= P[P_TARGET]
        lowest = min(lowest, v)
    if not reached:
        return False
    for s in range(n):
        set_outcome(ints, P, b, s, 1 if score(ints, P, b, s) == lowest else -1)
    return True


@kernel
def eliminate_at_target(ints, P, b, rw, ev, evn):
    """R-VAR-CHALLENGE: everyone at the target is out at once; the last seat left wins.
    Whether it is over."""
    n = P[P_NUM_PLAYERS]
    for s in range(n):
        if is_alive(ints, P, b, s) and score(ints, P, b, s) >= P[P_TARGET]:
            set_alive(ints, P, b, s, 0)
            ints[b, S_N_ALIVE] -= 1
            set_outcome(ints, P, b, s, -1)
            if P[P_REWARD] == REWARD_WIN:
                rw[b, s] -= 1
            emit(ev, evn, b, EV_ELIMINATED, s, 0, 0)
    if ints[b, S_N_ALIVE] != 1:
        return False
    for s in range(n):
        if is_alive(ints, P, b, s):
            set_outcome(ints, P, b, s, 1)
    return True


@kernel
def settle_outcomes(ints, P, b, winner, rw, ev, evn):
    """R-END-1, R-SCORE-2, R-VAR-*: whether the game ends with this round, its outcomes set if so."""
    scoring = P[P_SCORING]
    if P[P_EPISODE] == EPISODE_ROUND or scoring == SCORING_STANDARD:
        if P[P_EPISODE] != EPISODE_ROUND and score(ints, P, b, winner) < P[P_TARGET]:
            return False
        for s in range(P[P_NUM_PLAYERS]):
            if is_alive(ints, P, b, s):
                set_outcome(ints, P, b, s, 1 if same_team(P, s, winner) else -1)
        return True
    if scoring == SCORING_ALTERNATIVE:
        return lowest_score_wins(ints, P, b)
    return eliminate_at_target(ints, P, b, rw, ev, evn)  # Challenge UNO


@kernel
def end_round(cards, ints, rng, P, b, winner, rw, ev, evn):
    """R-END-1, R-SCORE, R-VAR-ALT/PARTNERS/CHALLENGE: score, then next round or game end."""
    ints[b, S_LAST_WINNER] = winner
    score_round(cards, ints, P, b, winner, rw, ev, evn)
    if settle_outcomes(ints, P, b, winner, rw, ev, evn):
        finish_game(ints, P, b, rw, ev, evn)
        return
    ints[b, S_ROUND] += 1
    dealer = next_alive(ints, P, b, ints[b, S_DEALER], 1)
    start_round(cards, ints, rng, P, b, dealer, ev, evn)


# ---------------------------------------------------------------- turns
@kernel(forceinline=True)
def finish_turn(cards, ints, rng, P, b, player, following, exposed, ev, evn):
    """After a card's effects: the catch window (R-UNO-2, D-WINDOW) or the next turn."""
    if not exposed:
        begin_next(cards, ints, P, b, following)
        return
    emit(ev, evn, b, EV_EXPOSED, player, 0, 0)
    if P[P_UNO] == UNO_AUTO:
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
        emit(ev, evn, b, EV_PENALTY_ACCEPT, target, pending, 0)
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


@kernel(inline="always")
def decode_action(P, action):
    """(kind, face, colour) of an action id (see actions.py for the table)."""
    if action < WILD:
        return KIND_PLAY, action, action // RANKS_PER_COLOUR
    if action < P[P_A_DRAW]:
        if P[P_A_FT] >= 0 and action >= P[P_A_FT]:
            return KIND_PLAY, FASHION_TREND, action - P[P_A_FT]
        if action >= P[P_A_W4]:
            return KIND_PLAY, WILD_DRAW_FOUR, action - P[P_A_W4]
        return KIND_PLAY, WILD, action - P[P_A_W]
    if action >= P[P_A_COLOR]:
        if P[P_A_SWAP] >= 0 and action >= P[P_A_SWAP]:
            return KIND_SWAP, -1, action - P[P_A_SWAP] + 1  # seats clockwise, in the colour slot
        return KIND_COLOUR, -1, action - P[P_A_COLOR]
    if action == P[P_A_DRAW]:
        return KIND_DRAW, -1, -1
    if action == P[P_A_PASS]:
        return KIND_PASS, -1, -1
    if action == P[P_A_UNO]:
        return KIND_UNO, -1, -1
    if action == P[P_A_CHALLENGE]:
        return KIND_CHALLENGE, -1, -1
    if action == P[P_A_ACCEPT]:
        return KIND_ACCEPT, -1, -1
    return KIND_CATCH, -1, -1


@kernel(inline="always")
def forfeit(ints, P, b, player, face, rw, ev, evn):
    """illegal_action="lose": the offender loses and the game ends (PettingZoo's classic rule)."""
    emit(ev, evn, b, EV_FORFEIT, player, face, 0)
    ints[b, S_FORFEIT] = player
    set_outcome(ints, P, b, player, -1)
    rw[b, player] = -1.0
    ints[b, S_TERMINATED] = 1
    ints[b, S_PHASE] = PH_OVER
    ints[b, S_CURRENT] = -1


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
def apply_action(cards, ints, rng, P, b, kind, face, colour, rw, ev, evn):
    """The action of the acting player in the current phase; a negative status
    refuses it before anything changes."""
    player = ints[b, S_CURRENT]
    direction = ints[b, S_DIRECTION]
    phase = ints[b, S_PHASE]
    if phase == PH_PLAY or phase == PH_DRAWN:
        if kind == KIND_PLAY:
            if not holds_card(cards, P, b, player, face):
                return ST_NOT_HELD
            if phase == PH_PLAY:
                legal = face == WILD_DRAW_FOUR or matches(cards, ints, P, b, face)
            else:
                legal = face == ints[b, S_DRAWN]
            if legal:
                play_card(cards, ints, rng, P, b, player, face, colour, rw, ev, evn)
                return ST_OK
            refused = refuse_wrong_card(ints, P, b, player, face, rw, ev, evn)
            if refused != ST_OK:
                return refused
            emit(ev, evn, b, EV_WRONG, player, face, 0)  # R-WRONG-1: taken back, draw 2, the turn passes
            draw_cards(cards, ints, rng, P, b, player, 2, R_WRONG_CARD, ev, evn)
            begin_turn(ints, b, next_alive(ints, P, b, player, direction))
            return ST_WRONG_PENALIZED
        if kind == KIND_DRAW and phase == PH_PLAY:
            draw_on_turn(cards, ints, rng, P, b, player, rw, ev, evn)
            return ST_OK
        if kind == KIND_PASS and phase == PH_DRAWN and P[P_FORCE_PLAY] == 0:
            emit(ev, evn, b, EV_PASS, player, 0, 0)
            begin_turn(ints, b, next_alive(ints, P, b, player, direction))
            return ST_OK
        if kind == KIND_UNO and uno_available(cards, ints, P, b):
            ints[b, S_UNO_CALLED] = 1
            emit(ev, evn, b, EV_UNO, player, 0, 0)
            return ST_OK
        return ST_NOT_AVAILABLE
    if phase == PH_COLOR:
        if kind != KIND_COLOUR:
            return ST_NOT_AVAILABLE
        ints[b, S_COLOUR] = colour
        set_named_colour(ints, P, b, player, colour)
        emit(ev, evn, b, EV_COLOR, player, colour, 0)
        begin_turn(ints, b, player)
        return ST_OK
    if phase == PH_CHALLENGE:
        if kind != KIND_CHALLENGE and kind != KIND_ACCEPT:
            return ST_NOT_AVAILABLE
        resolve_challenge(cards, ints, rng, P, b, kind == KIND_CHALLENGE, rw, ev, evn)
        return ST_OK
    if phase == PH_PENALTY or phase == PH_SWAP or phase == PH_JUMP:
        return apply_house_decision(cards, ints, rng, P, b, kind, face, colour, rw, ev, evn)
    if kind == KIND_CATCH:  # the catch window
        exposed = ints[b, S_EXPOSED]
        emit(ev, evn, b, EV_CATCH, player, exposed, 0)
        draw_cards(cards, ints, rng, P, b, exposed, 2, R_UNO_CAUGHT, ev, evn)
        close_window(cards, ints, P, b)
        return ST_OK
    if kind == KIND_PASS:
        emit(ev, evn, b, EV_DECLINE, player, 0, 0)
        asked = next_alive(ints, P, b, player, direction)
        if asked == ints[b, S_EXPOSED]:
            close_window(cards, ints, P, b)
        else:
            ints[b, S_CURRENT] = asked
        return ST_OK
    return ST_NOT_AVAILABLE


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


@kernel
def apply_house_decision(cards, ints, rng, P, b, kind, face, colour, rw, ev, evn):
    """The decisions of the house rules: a stack's penalty, the Seven-O choice, a jump-in."""
    player = ints[b, S_CURRENT]
    phase = ints[b, S_PHASE]
    if kind == KIND_UNO and phase != PH_SWAP:
        if not uno_available(cards, ints, P, b):
            return ST_NOT_AVAILABLE
        ints[b, S_UNO_CALLED] = 1
        emit(ev, evn, b, EV_UNO, player, 0, 0)
        return ST_OK
    if phase == PH_SWAP:
        if kind != KIND_SWAP:
            return ST_NOT_AVAILABLE
        other = (player + colour) % P[P_NUM_PLAYERS]
        if not is_alive(ints, P, b, other):
            return ST_NOT_AVAILABLE
        swap_hands(cards, ints, P, b, player, other, ev, evn)
        begin_next(cards, ints, P, b, ints[b, S_FOLLOWING])
        return ST_OK
    if phase == PH_JUMP:  # R-HOUSE-JUMP-3/4
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
        if face != top_face(cards, ints, P, b):
            return ST_NOT_AVAILABLE
        ints[b, S_FOLLOWING] = -1
        emit(ev, evn, b, EV_JUMP_IN, player, 0, 0)
        play_card(cards, ints, rng, P, b, player, face, colour, rw, ev, evn)
        return ST_OK
    # the penalty decision of a stack (R-HOUSE-STACK)
    if kind == KIND_ACCEPT or (kind == KIND_CHALLENGE and top_face(cards, ints, P, b) == WILD_DRAW_FOUR):
        resolve_penalty(cards, ints, rng, P, b, kind == KIND_CHALLENGE, rw, ev, evn)
        return ST_OK
    if kind != KIND_PLAY:
        return ST_NOT_AVAILABLE
    if not holds_card(cards, P, b, player, face):
        return ST_NOT_HELD
    if stackable(cards, ints, P, b, face):
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


@kernel(forceinline=True)
def step_game(cards, ints, rng, P, b, action, rw, ev, evn):
    """Apply one action of the acting player to game b. Returns a status; a negative
    status means the action was refused and the state is unchanged, its events (those of
    the last step) included."""
    n = P[P_NUM_PLAYERS]
    for s in range(n):
        rw[b, s] = 0.0
    if ints[b, S_PHASE] == PH_OVER:
        return ST_GAME_OVER
    if action < 0 or action >= P[P_NUM_ACTIONS]:
        return ST_OUT_OF_RANGE
    last_events = evn[b]  # a refusal emits nothing: the last step's events stay
    evn[b] = 0
    kind, face, colour = decode_action(P, action)
    status = apply_action(cards, ints, rng, P, b, kind, face, colour, rw, ev, evn)
    if status == ST_NOT_HELD or status == ST_NOT_AVAILABLE:
        if P[P_ILLEGAL] != ILLEGAL_LOSE:
            evn[b] = last_events
            return status
        forfeit(ints, P, b, ints[b, S_CURRENT], face, rw, ev, evn)  # any masked-out action loses
        status = ST_WRONG_LOST
    elif status < 0:
        evn[b] = last_events
        return status
    ints[b, S_STEP] += 1
    if ints[b, S_PHASE] != PH_OVER and ints[b, S_STEP] >= P[P_MAX_STEPS]:
        ints[b, S_TRUNCATED] = 1
        ints[b, S_PHASE] = PH_OVER
        ints[b, S_CURRENT] = -1
        emit(ev, evn, b, EV_TRUNCATED, 0, 0, 0)
    if ints[b, S_PHASE] == PH_OVER:
        ints[b, S_EPISODES] += 1
    return status


# ---------------------------------------------------------------- mask and observation
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
def rel_seat(seat, observer, n):
    """``(seat - observer) % n``, without a division for seats in 0..n-1."""
    r = seat - observer
    if r < 0:
        r += n
    if r < 0 or r >= n:
        r = (seat - observer) % n
    return r


@kernel(inline="always")
def copy_counts(src, out, offset, count):
    """``out[offset:offset + count] = src[:count]`` (int8 counts to float32), as a loop
    over views from 0 that compiles to a tight loop."""
    dst = out[offset : offset + count]
    for i in range(count):
        dst[i] = src[i]


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
    held = hand(cards, P, b, player)
    top = top_face(cards, ints, P, b)
    if phase == PH_JUMP:
        out[top] = 1
        out[P[P_A_PASS]] = 1
    else:  # the penalty decision
        out[P[P_A_ACCEPT]] = 1
        if top == WILD_DRAW_FOUR:
            out[P[P_A_CHALLENGE]] = 1
        for c in range(4):
            f = c * RANKS_PER_COLOUR + RANK_DRAW_TWO
            if held[f] > 0 and stackable(cards, ints, P, b, f):
                out[f] = 1
        if held[WILD_DRAW_FOUR] > 0 and stackable(cards, ints, P, b, WILD_DRAW_FOUR):
            allow_play(P, WILD_DRAW_FOUR, out)
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
    # a view of the hand and the matching inputs read once: the loop then indexes from 0
    # and reads nothing that its writes to ``out`` could change (measured 1.3x faster)
    player = ints[b, S_CURRENT]
    F = P[P_FACES]
    held = hand(cards, P, b, player)
    colour = ints[b, S_COLOUR]
    top = top_face(cards, ints, P, b)
    if phase == PH_DRAWN:
        out[P[P_A_PASS]] = P[P_FORCE_PLAY] == 0
        drawn = ints[b, S_DRAWN]
        if held[drawn] > 0 and matches_on(drawn, colour, top):
            allow_play(P, drawn, out)
    else:
        # R-TURN-1 face by face would scan all F faces; only three groups can match: the
        # colour in force, the top card's rank in every colour, and the wild-type faces
        # (measured 2x faster; a face in two groups is marked twice, which is harmless)
        out[P[P_A_DRAW]] = 1
        if colour >= 0:  # written without branches: the loop vectorizes
            first = colour * RANKS_PER_COLOUR
            for f in range(first, first + RANKS_PER_COLOUR):
                out[f] = held[f] > 0
        if top < WILD:
            for f in range(top % RANKS_PER_COLOUR, WILD, RANKS_PER_COLOUR):
                out[f] |= held[f] > 0
        for f in range(WILD, F):
            if held[f] > 0:
                allow_play(P, f, out)
    if uno_available(cards, ints, P, b):
        out[P[P_A_UNO]] = 1


@kernel(forceinline=True)
def observe(cards, ints, P, b, observer, out):
    """Write what ``observer`` knows into ``out`` (length = observation size)."""
    for i in range(P[P_O_SIZE]):
        out[i] = 0.0
    n = P[P_NUM_PLAYERS]
    F = P[P_FACES]
    copy_counts(hand(cards, P, b, observer), out, P[O_HAND], F)
    copy_counts(discard_counts(cards, P, b), out, P[O_DISCARD_PILE], F)
    if ints[b, S_DISCARD_COUNT] > 0:
        out[P[O_TOP_CARD] + top_face(cards, ints, P, b)] = 1.0
    if ints[b, S_COLOUR] >= 0:
        out[P[O_COLOUR] + ints[b, S_COLOUR]] = 1.0
    if ints[b, S_PREV_COLOUR] >= 0:
        out[P[O_PREVIOUS_COLOUR] + ints[b, S_PREV_COLOUR]] = 1.0
    out[P[O_DIRECTION]] = ints[b, S_DIRECTION]
    phase = ints[b, S_PHASE]
    current = ints[b, S_CURRENT]
    uno_called = ints[b, S_UNO_CALLED]
    if phase == PH_JUMP and current != observer:  # R-HOUSE-JUMP-2: who is asked stays private
        phase = PH_PLAY
        current = ints[b, S_FOLLOWING]
        uno_called = 0
    out[P[O_PHASE] + phase] = 1.0
    if current >= 0:
        out[P[O_ACTING] + rel_seat(current, observer, n)] = 1.0
    out[P[O_DEALER] + rel_seat(ints[b, S_DEALER], observer, n)] = 1.0
    o_sizes, o_scores, o_alive = P[O_HAND_SIZES], P[O_SCORES], P[O_ALIVE]
    sizes, points, in_game = hand_sizes(ints, P, b), scores(ints, P, b), alive(ints, P, b)
    for s in range(n):
        r = rel_seat(s, observer, n)
        out[o_sizes + r] = sizes[s]
        out[o_scores + r] = points[s]
        out[o_alive + r] = in_game[s]
    out[P[O_DRAW_PILE_SIZE]] = ints[b, S_DRAW_COUNT]
    if phase == PH_DRAWN and current == observer:
        out[P[O_DRAWN_CARD] + ints[b, S_DRAWN]] = 1.0
    out[P[O_UNO_CALLED]] = uno_called
    if ints[b, S_EXPOSED] >= 0:
        out[P[O_EXPOSED] + rel_seat(ints[b, S_EXPOSED], observer, n)] = 1.0
        out[P[O_AFTER_WINDOW] + rel_seat(ints[b, S_AFTER_WINDOW], observer, n)] = 1.0
    elif phase == PH_CHALLENGE and ints[b, S_WD4_EXPOSED] != 0:
        out[P[O_EXPOSED] + rel_seat(ints[b, S_WD4_OFFENDER], observer, n)] = 1.0
    for s in range(n):
        bits = drew_on_bits(ints, P, b, s)
        if bits != 0:
            base = P[O_DREW_ON] + 4 * rel_seat(s, observer, n)
            for c in range(4):
                if bits & (1 << c):
                    out[base + c] = 1.0
        named = named_colour(ints, P, b, s)
        if named >= 0:
            out[P[O_NAMED_COLOUR] + 4 * rel_seat(s, observer, n) + named] = 1.0
    if ints[b, S_REVEAL_VIEWER] == observer:
        copy_counts(revealed(cards, P, b), out, P[O_CHALLENGE_REVEAL], F)
        out[P[O_CHALLENGE_REVEAL_SEAT] + rel_seat(ints[b, S_REVEAL_OWNER], observer, n)] = 1.0
    if P[O_PENDING_PENALTY] >= 0:
        out[P[O_PENDING_PENALTY]] = ints[b, S_PENDING]
    if P[O_TOP_CARD_PLAYER] >= 0 and ints[b, S_TOP_PLAYER] >= 0:
        out[P[O_TOP_CARD_PLAYER] + rel_seat(ints[b, S_TOP_PLAYER], observer, n)] = 1.0
    if P[O_NEXT_TURN] >= 0 and ints[b, S_CURRENT] == observer and phase >= PH_SWAP:
        out[P[O_NEXT_TURN] + rel_seat(ints[b, S_FOLLOWING], observer, n)] = 1.0
    if P[O_LAST_SWAP] >= 0 and ints[b, S_SWAP_FROM] >= 0:
        out[P[O_LAST_SWAP] + rel_seat(ints[b, S_SWAP_FROM], observer, n)] = 1.0
        out[P[O_LAST_SWAP] + rel_seat(ints[b, S_SWAP_TO], observer, n)] = 1.0
    if P[O_TREND_COLOUR] >= 0 and ints[b, S_TREND_VIEWER] == observer:
        out[P[O_TREND_COLOUR] + ints[b, S_TREND_COLOUR]] = 1.0
        for s in range(n):
            shown = shown_to_trend(ints, P, b, s)
            if shown >= 0:
                out[P[O_TREND_SHOWN] + rel_seat(s, observer, n) * RANKS_PER_COLOUR + shown % RANKS_PER_COLOUR] = 1.0


@kernel
def observe_and_mask(cards, ints, P, b, observer, obs, mask):
    """The observation of ``observer`` and, if it is to act, its legal mask (else zeros)."""
    observe(cards, ints, P, b, observer, obs)
    if ints[b, S_CURRENT] == observer:
        legal_mask(cards, ints, P, b, mask)
    else:
        for a in range(P[P_NUM_ACTIONS]):
            mask[a] = 0


# the fields of step_summary's packed result: (shift, mask) of each
SUMMARY_STATUS = (0, 0xFF)  # status + SUMMARY_STATUS_BIAS: below the bias, the step was refused
SUMMARY_STATUS_BIAS = 128
SUMMARY_PHASE = (8, 0xF)
SUMMARY_SEAT = (12, 0xFF)  # the acting seat + 1 (0: nobody, the game is over)
SUMMARY_REWARDED = (20, 0x1)  # some seat's reward is non-zero
SUMMARY_ALIVE = (21, 0xFF)  # players still in the game


@kernel
def step_summary(cards, ints, rng, P, b, action, rw, ev, evn):
    """``step_game`` plus what a Python caller needs next, packed in one integer (fewer
    reads from Python); its fields are the ``SUMMARY_*`` (shift, mask) pairs."""
    status = step_game(cards, ints, rng, P, b, action, rw, ev, evn)
    rewarded = 0
    for s in range(P[P_NUM_PLAYERS]):
        if rw[b, s] != 0.0:
            rewarded = 1
    return (
        ((status + SUMMARY_STATUS_BIAS) << SUMMARY_STATUS[0])
        | (ints[b, S_PHASE] << SUMMARY_PHASE[0])
        | ((ints[b, S_CURRENT] + 1) << SUMMARY_SEAT[0])
        | (rewarded << SUMMARY_REWARDED[0])
        | (ints[b, S_N_ALIVE] << SUMMARY_ALIVE[0])
    )


# ---------------------------------------------------------------- batch drivers
@kernel
def reset_batch(cards, ints, rng, P, dealers, ev, evn):
    for b in range(cards.shape[0]):
        evn[b] = 0
        reset_game(cards, ints, rng, P, b, dealers[b], False, ev, evn)


@kernel
def reset_from_deck(cards, ints, rng, P, b, dealer, ev, evn):
    evn[b] = 0
    reset_game(cards, ints, rng, P, b, dealer, True, ev, evn)


@kernel
def step_batch(cards, ints, rng, P, actions, rw, ev, evn, status):
    for b in range(cards.shape[0]):
        status[b] = step_game(cards, ints, rng, P, b, actions[b], rw, ev, evn)


@kernel
def mask_batch(cards, ints, P, out):
    for b in range(cards.shape[0]):
        legal_mask(cards, ints, P, b, out[b])


@kernel
def observe_batch(cards, ints, P, observers, out):
    for b in range(cards.shape[0]):
        observe(cards, ints, P, b, observers[b], out[b])


@njit(cache=True, parallel=True)
def step_parallel(cards, ints, rng, P, actions, rw, ev, evn, status):
    for b in prange(cards.shape[0]):
        status[b] = step_game(cards, ints, rng, P, b, actions[b], rw, ev, evn)


LOWEST_PICKLE_PROTOCOL = 2
"""The lowest pickle protocol the engine's objects and the envs pickle with (0 and 1 cannot
pickle a class with ``__slots__``, such as a State)."""


class NeedsPickleProtocol2:
    """Mixin: pickling with protocol 0 or 1 is refused with a message naming the lowest that
    works (instead of an obscure error from somewhere inside)."""

    __slots__ = ()

    def __reduce_ex__(self, protocol):
        if protocol < LOWEST_PICKLE_PROTOCOL:
            import pickle

            raise pickle.PicklingError(
                f"a {type(self).__name__} pickles with protocol {LOWEST_PICKLE_PROTOCOL} or higher "
                f"(the lowest that works), not protocol {protocol}"
            )
        return super().__reduce_ex__(protocol)
