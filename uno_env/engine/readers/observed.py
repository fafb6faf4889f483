"""Reading the observation: the compiled twins of ``kernels.observe``, for the compiled
policies and the search.

``kernels.observe`` writes an acting seat's observation; the readers here take facts back
out of it (phase, colours, seats, counts), and their twins read the same facts from the
state for compiled play loops that skip writing the observation. Action decoding for
compiled code (:func:`action_face`, :func:`action_colour`, :func:`wild_action`) is here
too, checked against :class:`~uno_env.engine.actions.ActionTable`.
"""

from __future__ import annotations

import numpy as np

from ..cards import CARD_VALUES, FACE_COPIES, FASHION_TREND, RANKS_PER_COLOUR, WILD, WILD_DRAW_FOUR
from ..config import HOUSE_PHASES
from ..jit import describe, kernel
from ..layout import (
    O_ALIVE,
    O_DIRECTION,
    O_DISCARD_PILE,
    O_DREW_ON,
    O_EXPOSED,
    O_HAND,
    O_HAND_SIZES,
    O_PENDING_PENALTY,
    O_PHASE,
    P_A_DRAW,
    P_A_FT,
    P_A_W,
    P_A_W4,
    P_NUM_PLAYERS,
    P_PARTNERS,
    PH_OVER,
    Param,
)
from ..state import discard_counts, hand, hand_size, is_alive

describe(__name__, "the rules engine's kernels", seconds=45)


# ---------------------------------------------------------------- reading the observation
HOUSE_PHASE_SETTINGS = np.array(
    [(int(Param[setting.upper()]), int(phase)) for phase, setting in HOUSE_PHASES.items()], dtype=np.int64
).reshape(-1, 2)
"""Each house rule's phase: the index in ``P`` of the setting that brings it, and its code."""


@kernel
def phase_count(P):
    """Entries of the ``phase`` slice: the classic six, then the house rules' phases up to
    the last one whose rule is on (``observation.phases_of``)."""
    last = PH_OVER
    for k in range(HOUSE_PHASE_SETTINGS.shape[0]):
        if P[HOUSE_PHASE_SETTINGS[k, 0]] != 0 and HOUSE_PHASE_SETTINGS[k, 1] > last:
            last = HOUSE_PHASE_SETTINGS[k, 1]
    return last + 1


@kernel
def obs_phase(obs, P):
    """Decision phase (PH_*) from the one-hot ``phase`` slice."""
    o = P[O_PHASE]
    for k in range(phase_count(P)):
        if obs[o + k] > 0.5:
            return k
    return PH_OVER


@kernel
def obs_colour(obs, P, which):
    """Colour 0..3 of a one-hot colour slice (``O_COLOUR`` or ``O_PREVIOUS_COLOUR``), -1 when none."""
    o = P[which]
    for c in range(4):
        if obs[o + c] > 0.5:
            return c
    return -1


@kernel
def obs_next_seat(obs, P, seat, direction):
    """The next relative seat in play after ``seat`` in ``direction``."""
    n = P[P_NUM_PLAYERS]
    s = seat
    for _ in range(n):
        s = (s + direction) % n
        if obs[P[O_ALIVE] + s] > 0.5:
            return s
    return seat


@kernel
def obs_direction(obs, P):
    return 1 if obs[P[O_DIRECTION]] >= 0 else -1


@kernel
def obs_hand_size(obs, P, seat):
    return np.int64(obs[P[O_HAND_SIZES] + seat])


@kernel
def obs_players_in(obs, P):
    count = 0
    for s in range(P[P_NUM_PLAYERS]):
        if obs[P[O_ALIVE] + s] > 0.5:
            count += 1
    return count


@kernel
def obs_exposed_seat(obs, P):
    for s in range(P[P_NUM_PLAYERS]):
        if obs[P[O_EXPOSED] + s] > 0.5:
            return s
    return -1


@kernel
def is_partner(P, seat):
    """Relative seat ``seat`` (not 0) is the observer's partner (partners sit across, R-VAR-PARTNERS)."""
    return P[P_PARTNERS] != 0 and seat == P[P_NUM_PLAYERS] // 2


@kernel
def obs_pending(obs, P):
    """Cards of the pending penalty of a stack (``pending_penalty``; 0 without stacking)."""
    if P[O_PENDING_PENALTY] < 0:
        return 0
    return np.int64(obs[P[O_PENDING_PENALTY]])


@kernel
def obs_swap_partner(obs, P):
    """Seven-O: the relative seat ``k`` (action ``swap k``) of the opponent in play (not a
    partner) holding the fewest cards, ties to the nearest clockwise; -1 when there is none."""
    best = -1
    best_size = 0
    for k in range(1, P[P_NUM_PLAYERS]):
        if obs[P[O_ALIVE] + k] > 0.5 and not is_partner(P, k):
            size = obs_hand_size(obs, P, k)
            if best < 0 or size < best_size:
                best = k
                best_size = size
    return best


@kernel
def drew_on(obs, P, seat, colour):
    """Relative seat ``seat`` drew instead of playing while ``colour`` was in force, and has
    not played since (the public ``drew_on`` slice). Seats that draw only when they cannot
    play (every heuristic here) held no card of that colour then."""
    return colour >= 0 and obs[P[O_DREW_ON] + 4 * seat + colour] > 0.5


@kernel
def holds_colour(obs, P, colour):
    held = False
    if colour >= 0:
        for r in range(RANKS_PER_COLOUR):
            if obs[P[O_HAND] + colour * RANKS_PER_COLOUR + r] > 0.5:
                held = True
                break
    return held


@kernel
def colour_counts(counts, o):
    """(copies, points) of each colour, as two 4-tuples, from copies per coloured face at
    ``counts[o:o + 52]`` (colour-major; an observation's float slice or a state's int8
    row): one pass, no allocation (the heuristics call this at every decision)."""
    c0 = c1 = c2 = c3 = 0
    p0 = p1 = p2 = p3 = 0
    for r in range(RANKS_PER_COLOUR):
        value = CARD_VALUES[r]  # the same for every colour
        k = np.int64(counts[o + r])
        c0 += k
        p0 += k * value
        k = np.int64(counts[o + RANKS_PER_COLOUR + r])
        c1 += k
        p1 += k * value
        k = np.int64(counts[o + 2 * RANKS_PER_COLOUR + r])
        c2 += k
        p2 += k * value
        k = np.int64(counts[o + 3 * RANKS_PER_COLOUR + r])
        c3 += k
        p3 += k * value
    return (c0, c1, c2, c3), (p0, p1, p2, p3)


@kernel
def hand_colour_counts(obs, P):
    """(copies, points) held of each colour (wild-type cards excluded), as two 4-tuples."""
    return colour_counts(obs, P[O_HAND])


@kernel
def discard_colour_counts(obs, P):
    """Copies of each colour in the discard pile, as a 4-tuple."""
    return colour_counts(obs, P[O_DISCARD_PILE])[0]


# ---------------------------------------------------------------- the same facts from the state
# For compiled play loops that skip writing the observation: each reads from the state
# exactly what the acting seat's observation shows (tests/test_policies.py compares them
# with their twins above at every decision of seeded games).
@kernel
def seat_colour_counts(cards, P, b, seat):
    """:func:`hand_colour_counts` of ``seat``'s observation, read from game b's state."""
    return colour_counts(hand(cards, P, b, seat), 0)


@kernel
def state_discard_colour_counts(cards, P, b):
    """:func:`discard_colour_counts` of any observation of game b, read from its state."""
    return colour_counts(discard_counts(cards, P, b), 0)[0]


@kernel
def state_swap_partner(ints, P, b, seat):
    """:func:`obs_swap_partner` of ``seat``'s observation, read from game b's state."""
    n = P[P_NUM_PLAYERS]
    best = -1
    best_size = 0
    for k in range(1, n):
        s = (seat + k) % n
        if is_alive(ints, P, b, s) and not is_partner(P, k):
            size = np.int64(hand_size(ints, P, b, s))
            if best < 0 or size < best_size:
                best = k
                best_size = size
    return best


# ---------------------------------------------------------------- cards and actions
@kernel
def face_value(face):
    """Scoring value of a face (R-DECK-3; ``cards.CARD_VALUES``)."""
    return CARD_VALUES[face]


@kernel
def face_copies(face):
    """Copies of a face in the deck that holds it (R-DECK-1, R-DECK-2; ``cards.FACE_COPIES``)."""
    return FACE_COPIES[face]


@kernel
def action_face(P, a):
    """Face played by action ``a``, -1 for an action that plays no card."""
    if a < WILD:
        return a
    if a >= P[P_A_DRAW]:
        return -1
    if P[P_A_FT] >= 0 and a >= P[P_A_FT]:
        return FASHION_TREND
    if a >= P[P_A_W4]:
        return WILD_DRAW_FOUR
    return WILD


@kernel
def action_colour(P, a):
    """Colour a play action gives the discard pile (a wild's named colour)."""
    if a < WILD:
        return a // RANKS_PER_COLOUR
    return (a - P[P_A_W]) % 4


@kernel
def wild_action(P, face, colour):
    """Action id of playing wild-type ``face`` naming ``colour``."""
    if face == WILD:
        return P[P_A_W] + colour
    if face == WILD_DRAW_FOUR:
        return P[P_A_W4] + colour
    return P[P_A_FT] + colour
