"""The observation: what a seat knows, written into a flat float32 vector whose slices
:mod:`~uno_env.engine.observation` names (seats relative to the observer)."""

from __future__ import annotations

from ..cards import RANKS_PER_COLOUR
from ..jit import describe, kernel
from ..layout import (
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
    P_FACES,
    P_NUM_ACTIONS,
    P_NUM_PLAYERS,
    P_O_SIZE,
    PH_CHALLENGE,
    PH_DRAWN,
    PH_PLAY,
    S_AFTER_WINDOW,
    S_COLOUR,
    S_CURRENT,
    S_DEALER,
    S_DIRECTION,
    S_DISCARD_COUNT,
    S_DRAW_COUNT,
    S_DRAWN,
    S_EXPOSED,
    S_FOLLOWING,
    S_PENDING,
    S_PHASE,
    S_PREV_COLOUR,
    S_REVEAL_OWNER,
    S_REVEAL_VIEWER,
    S_SWAP_FROM,
    S_SWAP_TO,
    S_TOP_PLAYER,
    S_TREND_COLOUR,
    S_TREND_VIEWER,
    S_UNO_CALLED,
    S_WD4_EXPOSED,
    S_WD4_OFFENDER,
)
from ..named import NEXT_TURN_PHASE_MASK, PRIVATE_PHASE_MASK
from ..state import (
    alive,
    discard_counts,
    drew_on_bits,
    hand,
    hand_sizes,
    named_colour,
    revealed,
    scores,
    shown_to_trend,
    top_face,
)
from .mask import legal_mask

describe(__name__, "the rules engine's kernels", seconds=45)


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


@kernel(forceinline=True)
def observe(cards, ints, P, b, observer, out):
    """Write what ``observer`` knows into ``out`` (length = observation size): the cards it
    sees, the decision under way, each seat's public facts, what was shown to it alone and
    the house rules' public facts."""
    for i in range(P[P_O_SIZE]):
        out[i] = 0.0
    observe_cards(cards, ints, P, b, observer, out)
    observe_decision(ints, P, b, observer, out)
    observe_seats(ints, P, b, observer, out)
    observe_shown(cards, ints, P, b, observer, out)
    observe_house_rules(ints, P, b, observer, out)


@kernel(inline="always")
def observe_cards(cards, ints, P, b, observer, out):
    """The observer's hand, the discard pile (its counts and its top card), the colour in
    force and the one before it, the direction and the draw pile's size."""
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
    out[P[O_DRAW_PILE_SIZE]] = ints[b, S_DRAW_COUNT]


@kernel(inline="always")
def observe_decision(ints, P, b, observer, out):
    """The decision under way: its phase, who acts, the dealer, the observer's drawn card,
    the UNO call and the catch window's seats. A privately asked decision (a jump-in) is shown
    only to the seat asked; the others see the turn that follows (R-HOUSE-JUMP-2)."""
    n = P[P_NUM_PLAYERS]
    phase = ints[b, S_PHASE]
    current = ints[b, S_CURRENT]
    uno_called = ints[b, S_UNO_CALLED]
    if (PRIVATE_PHASE_MASK >> phase) & 1 and current != observer:  # who is asked stays private (R-HOUSE-JUMP-2)
        phase = PH_PLAY
        current = ints[b, S_FOLLOWING]
        uno_called = 0
    out[P[O_PHASE] + phase] = 1.0
    if current >= 0:
        out[P[O_ACTING] + rel_seat(current, observer, n)] = 1.0
    out[P[O_DEALER] + rel_seat(ints[b, S_DEALER], observer, n)] = 1.0
    if phase == PH_DRAWN and current == observer:
        out[P[O_DRAWN_CARD] + ints[b, S_DRAWN]] = 1.0
    out[P[O_UNO_CALLED]] = uno_called
    if ints[b, S_EXPOSED] >= 0:
        out[P[O_EXPOSED] + rel_seat(ints[b, S_EXPOSED], observer, n)] = 1.0
        out[P[O_AFTER_WINDOW] + rel_seat(ints[b, S_AFTER_WINDOW], observer, n)] = 1.0
    elif phase == PH_CHALLENGE and ints[b, S_WD4_EXPOSED] != 0:
        out[P[O_EXPOSED] + rel_seat(ints[b, S_WD4_OFFENDER], observer, n)] = 1.0


@kernel(inline="always")
def observe_seats(ints, P, b, observer, out):
    """Each seat's public facts: hand size, score, whether it is in the game, the colours it
    drew on and the colour it named last."""
    n = P[P_NUM_PLAYERS]
    o_sizes, o_scores, o_alive = P[O_HAND_SIZES], P[O_SCORES], P[O_ALIVE]
    sizes, points, in_game = hand_sizes(ints, P, b), scores(ints, P, b), alive(ints, P, b)
    for s in range(n):
        r = rel_seat(s, observer, n)
        out[o_sizes + r] = sizes[s]
        out[o_scores + r] = points[s]
        out[o_alive + r] = in_game[s]
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


@kernel(inline="always")
def observe_shown(cards, ints, P, b, observer, out):
    """What was shown to the observer alone: the hand its challenge revealed (R-WD4-4), the
    cards shown to its Fashion Trend (R-VAR-FASHION)."""
    n = P[P_NUM_PLAYERS]
    if ints[b, S_REVEAL_VIEWER] == observer:
        copy_counts(revealed(cards, P, b), out, P[O_CHALLENGE_REVEAL], P[P_FACES])
        out[P[O_CHALLENGE_REVEAL_SEAT] + rel_seat(ints[b, S_REVEAL_OWNER], observer, n)] = 1.0
    if P[O_TREND_COLOUR] >= 0 and ints[b, S_TREND_VIEWER] == observer:
        out[P[O_TREND_COLOUR] + ints[b, S_TREND_COLOUR]] = 1.0
        for s in range(n):
            shown = shown_to_trend(ints, P, b, s)
            if shown >= 0:
                out[P[O_TREND_SHOWN] + rel_seat(s, observer, n) * RANKS_PER_COLOUR + shown % RANKS_PER_COLOUR] = 1.0


@kernel(inline="always")
def observe_house_rules(ints, P, b, observer, out):
    """The house rules' public facts, in the slices present when their rule is on: the
    pending penalty, who played the top card, whose turn follows the observer's decision
    where it knows it (``Decision.shows_next_turn``: a Seven-O choice, a jump-in), the last swap."""
    n = P[P_NUM_PLAYERS]
    if P[O_PENDING_PENALTY] >= 0:
        out[P[O_PENDING_PENALTY]] = ints[b, S_PENDING]
    if P[O_TOP_CARD_PLAYER] >= 0 and ints[b, S_TOP_PLAYER] >= 0:
        out[P[O_TOP_CARD_PLAYER] + rel_seat(ints[b, S_TOP_PLAYER], observer, n)] = 1.0
    if P[O_NEXT_TURN] >= 0 and ints[b, S_CURRENT] == observer and (NEXT_TURN_PHASE_MASK >> ints[b, S_PHASE]) & 1:
        out[P[O_NEXT_TURN] + rel_seat(ints[b, S_FOLLOWING], observer, n)] = 1.0
    if P[O_LAST_SWAP] >= 0 and ints[b, S_SWAP_FROM] >= 0:
        out[P[O_LAST_SWAP] + rel_seat(ints[b, S_SWAP_FROM], observer, n)] = 1.0
        out[P[O_LAST_SWAP] + rel_seat(ints[b, S_SWAP_TO], observer, n)] = 1.0


@kernel
def observe_and_mask(cards, ints, P, b, observer, obs, mask):
    """The observation of ``observer`` and, if it is to act, its legal mask (else zeros)."""
    observe(cards, ints, P, b, observer, obs)
    if ints[b, S_CURRENT] == observer:
        legal_mask(cards, ints, P, b, mask)
    else:
        for a in range(P[P_NUM_ACTIONS]):
            mask[a] = 0
