"""The named places of the state arrays: every pile and per-seat block, read and written by name.

Where each block lives is :mod:`layout`'s business (offsets in the parameter vector
``P``); this module is the one place that turns an offset into an index, so that a
rule reads ``hand_size(ints, P, b, seat)`` instead of ``ints[b, P[P_I_HAND_SIZE] + seat]``.

Each function is an :func:`~uno_env.engine.jit.accessor`: plain Python that numba
inlines into the compiled caller, where it compiles to the index expression it names.
Python code calls the same functions on numpy arrays (``b`` is the game's row of the
batch). Two kinds:

* cells: ``hand_count(cards, P, b, seat, face)``, ``score(ints, P, b, seat)``, with
  ``set_...`` and, where a rule adds, ``add_...``;
* views, for loops and for Python: ``hand(cards, P, b, seat)`` (copies per face),
  ``hands`` (seats by faces), the piles (``draw_pile`` and ``discard_pile``: blocks of
  the deck's size, top last, ``S_DRAW_COUNT`` and ``S_DISCARD_COUNT`` of them in use),
  ``discard_counts``, ``revealed`` and one view per per-seat block of ``ints``
  (``hand_sizes``, ``scores``, ``alive``, ...). A view writes through to the state.

A compiled caller that loops over seats while it writes takes a view before the loop:
the offset is then read once (LLVM cannot tell that a write to the arrays leaves ``P``
alone).
"""

from __future__ import annotations

from .jit import accessor
from .layout import (
    P_C_DISCARD,
    P_C_DISCARD_COUNTS,
    P_C_DRAW,
    P_C_HANDS,
    P_C_REVEAL,
    P_C_SIZE,
    P_DECK_SIZE,
    P_FACES,
    P_I_ALIVE,
    P_I_DREW_ON,
    P_I_HAND_SIZE,
    P_I_NAMED,
    P_I_OUTCOME,
    P_I_SCORE,
    P_I_SIZE,
    P_I_TREND,
    P_NUM_PLAYERS,
    S_DISCARD_COUNT,
)


# ---------------------------------------------------------------- cards: hands
@accessor
def hand(cards, P, b, seat):
    """Copies of each face held by ``seat`` (a view of ``P[P_FACES]`` counts)."""
    start = P[P_C_HANDS] + seat * P[P_FACES]
    return cards[b, start : start + P[P_FACES]]


@accessor
def hands(cards, P, b):
    """Every hand: a (seats, faces) view of the counts."""
    start = P[P_C_HANDS]
    return cards[b, start : start + P[P_NUM_PLAYERS] * P[P_FACES]].reshape((P[P_NUM_PLAYERS], P[P_FACES]))


@accessor
def hand_count(cards, P, b, seat, face):
    """Copies of ``face`` held by ``seat``."""
    return cards[b, P[P_C_HANDS] + seat * P[P_FACES] + face]


@accessor
def set_hand_count(cards, P, b, seat, face, copies):
    cards[b, P[P_C_HANDS] + seat * P[P_FACES] + face] = copies


@accessor
def add_hand_count(cards, P, b, seat, face, copies):
    cards[b, P[P_C_HANDS] + seat * P[P_FACES] + face] += copies


# ---------------------------------------------------------------- cards: piles
@accessor
def draw_pile(cards, P, b):
    """The draw pile's block (the deck's size, top last; ``S_DRAW_COUNT`` cards in use)."""
    start = P[P_C_DRAW]
    return cards[b, start : start + P[P_DECK_SIZE]]


@accessor
def draw_pile_card(cards, P, b, k):
    """The ``k``-th card of the draw pile from the bottom (its top is ``S_DRAW_COUNT - 1``)."""
    return cards[b, P[P_C_DRAW] + k]


@accessor
def set_draw_pile_card(cards, P, b, k, face):
    cards[b, P[P_C_DRAW] + k] = face


@accessor
def discard_pile(cards, P, b):
    """The discard pile's block (the deck's size, top last; ``S_DISCARD_COUNT`` cards in use)."""
    start = P[P_C_DISCARD]
    return cards[b, start : start + P[P_DECK_SIZE]]


@accessor
def discard_pile_card(cards, P, b, k):
    """The ``k``-th card of the discard pile from the bottom."""
    return cards[b, P[P_C_DISCARD] + k]


@accessor
def set_discard_pile_card(cards, P, b, k, face):
    cards[b, P[P_C_DISCARD] + k] = face


@accessor
def top_face(cards, ints, P, b):
    """The face on top of the discard pile."""
    return cards[b, P[P_C_DISCARD] + ints[b, S_DISCARD_COUNT] - 1]


@accessor
def discard_counts(cards, P, b):
    """Copies of each face in the discard pile (a view of ``P[P_FACES]`` counts)."""
    start = P[P_C_DISCARD_COUNTS]
    return cards[b, start : start + P[P_FACES]]


@accessor
def add_discard_count(cards, P, b, face, copies):
    cards[b, P[P_C_DISCARD_COUNTS] + face] += copies


@accessor
def revealed(cards, P, b):
    """The hand shown by the last challenge (a view of ``P[P_FACES]`` counts)."""
    start = P[P_C_REVEAL]
    return cards[b, start : start + P[P_FACES]]


@accessor
def clear_cards(cards, P, b, keep_draw_pile):
    """Zero game ``b``'s cards; with ``keep_draw_pile``, all but the draw pile's block."""
    start = P[P_C_DRAW]
    stop = start + P[P_DECK_SIZE]
    for i in range(P[P_C_SIZE]):
        if not keep_draw_pile or i < start or i >= stop:
            cards[b, i] = 0


# ---------------------------------------------------------------- ints: per-seat blocks
@accessor
def clear_ints(ints, P, b):
    """Zero game ``b``'s ints: the scalars and every per-seat block."""
    for i in range(P[P_I_SIZE]):
        ints[b, i] = 0


@accessor
def hand_sizes(ints, P, b):
    """Cards held by each seat (a view, one per seat)."""
    return ints[b, P[P_I_HAND_SIZE] : P[P_I_HAND_SIZE] + P[P_NUM_PLAYERS]]


@accessor
def hand_size(ints, P, b, seat):
    return ints[b, P[P_I_HAND_SIZE] + seat]


@accessor
def set_hand_size(ints, P, b, seat, size):
    ints[b, P[P_I_HAND_SIZE] + seat] = size


@accessor
def add_hand_size(ints, P, b, seat, cards):
    ints[b, P[P_I_HAND_SIZE] + seat] += cards


@accessor
def scores(ints, P, b):
    """Each seat's game score (a view, one per seat)."""
    return ints[b, P[P_I_SCORE] : P[P_I_SCORE] + P[P_NUM_PLAYERS]]


@accessor
def score(ints, P, b, seat):
    return ints[b, P[P_I_SCORE] + seat]


@accessor
def set_score(ints, P, b, seat, points):
    ints[b, P[P_I_SCORE] + seat] = points


@accessor
def add_score(ints, P, b, seat, points):
    ints[b, P[P_I_SCORE] + seat] += points


@accessor
def alive(ints, P, b):
    """1 for each seat still in the game, 0 for an eliminated one (a view, one per seat)."""
    return ints[b, P[P_I_ALIVE] : P[P_I_ALIVE] + P[P_NUM_PLAYERS]]


@accessor
def is_alive(ints, P, b, seat):
    return ints[b, P[P_I_ALIVE] + seat] != 0


@accessor
def set_alive(ints, P, b, seat, flag):
    ints[b, P[P_I_ALIVE] + seat] = flag


@accessor
def trend_shown(ints, P, b):
    """The face each seat showed to the last Fashion Trend, -1 for none (a view, one per seat)."""
    return ints[b, P[P_I_TREND] : P[P_I_TREND] + P[P_NUM_PLAYERS]]


@accessor
def shown_to_trend(ints, P, b, seat):
    return ints[b, P[P_I_TREND] + seat]


@accessor
def set_shown_to_trend(ints, P, b, seat, face):
    ints[b, P[P_I_TREND] + seat] = face


@accessor
def outcomes(ints, P, b):
    """1 won, -1 lost, 0 undecided, per seat (a view, one per seat)."""
    return ints[b, P[P_I_OUTCOME] : P[P_I_OUTCOME] + P[P_NUM_PLAYERS]]


@accessor
def outcome(ints, P, b, seat):
    return ints[b, P[P_I_OUTCOME] + seat]


@accessor
def set_outcome(ints, P, b, seat, result):
    ints[b, P[P_I_OUTCOME] + seat] = result


@accessor
def drew_on(ints, P, b):
    """Per seat, the colours in force when it drew instead of playing since it last
    played, as bits (a view, one per seat)."""
    return ints[b, P[P_I_DREW_ON] : P[P_I_DREW_ON] + P[P_NUM_PLAYERS]]


@accessor
def drew_on_bits(ints, P, b, seat):
    return ints[b, P[P_I_DREW_ON] + seat]


@accessor
def set_drew_on_bits(ints, P, b, seat, bits):
    ints[b, P[P_I_DREW_ON] + seat] = bits


@accessor
def mark_drew_on(ints, P, b, seat, colour):
    """``seat`` drew instead of playing while ``colour`` was in force."""
    ints[b, P[P_I_DREW_ON] + seat] |= 1 << colour


@accessor
def named_colours(ints, P, b):
    """The colour each seat's last Wild named this round, -1 for none (a view, one per seat)."""
    return ints[b, P[P_I_NAMED] : P[P_I_NAMED] + P[P_NUM_PLAYERS]]


@accessor
def named_colour(ints, P, b, seat):
    return ints[b, P[P_I_NAMED] + seat]


@accessor
def set_named_colour(ints, P, b, seat, colour):
    ints[b, P[P_I_NAMED] + seat] = colour


# ---------------------------------------------------------------- both arrays
@accessor
def give_card(cards, ints, P, b, seat, face):
    """One copy of ``face`` into ``seat``'s hand, its hand size with it."""
    cards[b, P[P_C_HANDS] + seat * P[P_FACES] + face] += 1
    ints[b, P[P_I_HAND_SIZE] + seat] += 1


@accessor
def take_card(cards, ints, P, b, seat, face):
    """One copy of ``face`` out of ``seat``'s hand, its hand size with it; the size left."""
    cards[b, P[P_C_HANDS] + seat * P[P_FACES] + face] -= 1
    size = ints[b, P[P_I_HAND_SIZE] + seat] - 1
    ints[b, P[P_I_HAND_SIZE] + seat] = size
    return size
