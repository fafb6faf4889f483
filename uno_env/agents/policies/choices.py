"""What the compiled heuristics share: the colour to name, the first legal action of a
block, the move when no card is played, and the simple answers to the colour, challenge
and catch decisions (:func:`simple_decision`)."""

from __future__ import annotations

from ...engine.jit import describe, kernel
from ...engine.layout import (
    P_A_ACCEPT,
    P_A_CATCH,
    P_A_COLOR,
    P_A_DRAW,
    P_A_PASS,
    P_A_SWAP,
    P_NUM_ACTIONS,
    PH_CATCH,
    PH_CHALLENGE,
    PH_COLOR,
    PH_DRAWN,
)
from ...engine.readers import discard_colour_counts, hand_colour_counts, is_partner, obs_exposed_seat

describe(__name__, "the agents' compiled policies", seconds=30)


@kernel
def strongest_colour(obs, P):
    """The colour held most (ties: more points, then the lower index). With no coloured card
    in hand, the colour with most copies in the discard pile (fewest left for the others)."""
    counts, points = hand_colour_counts(obs, P)
    return strongest_of(obs, P, counts, points)


@kernel
def strongest_of(obs, P, counts, points):
    """:func:`strongest_colour` from the hand's colour counts and points, already read."""
    best = strongest_held(counts, points)
    if best >= 0:
        return best
    return most_played(discard_colour_counts(obs, P))


@kernel
def strongest_held(counts, points):
    """The colour held most (ties: more points, then the lower index); -1 with no coloured card."""
    best = -1
    best_key = -1
    for c in range(4):
        key = counts[c] * 1000 + points[c]
        if counts[c] > 0 and key > best_key:
            best = c
            best_key = key
    return best


@kernel
def most_played(played):
    """The colour with most copies in the discard pile (ties: the lower index)."""
    best = 0
    best_key = -1
    for c in range(4):
        if played[c] > best_key:
            best = c
            best_key = played[c]
    return best


@kernel
def first_legal(mask, start, stop):
    """The first legal action with an id in ``start..stop-1``, -1 when there is none."""
    for a in range(start, stop):
        if mask[a]:
            return a
    return -1


@kernel
def draw_or_pass(mask, P):
    """The heuristics' move when they play no card: draw, or keep the drawn card; in a
    stack's penalty decision (neither is available there) accept the pending penalty. Any
    other decision without a card played gets its first legal action."""
    if mask[P[P_A_DRAW]]:
        return P[P_A_DRAW]
    if mask[P[P_A_PASS]]:
        return P[P_A_PASS]
    if mask[P[P_A_ACCEPT]]:
        return P[P_A_ACCEPT]
    return first_legal(mask, 0, P[P_NUM_ACTIONS])


@kernel
def swap_action(partner, mask, P):
    """Seven-O: the action ``swap partner`` (relative seat ``partner``, see
    :func:`~uno_env.engine.readers.obs_swap_partner`), the first legal swap when it is -1."""
    if partner > 0 and mask[P[P_A_SWAP] + partner - 1]:
        return P[P_A_SWAP] + partner - 1
    return first_legal(mask, P[P_A_SWAP], P[P_NUM_ACTIONS])


@kernel
def forced_to_play(phase, mask, P):
    """A drawn card that must be played (``force_play``: the drawn-card decision has no
    ``pass``), so that a policy plays even a drawn Wild Draw Four it would not bluff with."""
    return phase == PH_DRAWN and not mask[P[P_A_PASS]]


@kernel
def simple_decision(obs, mask, P, phase, catch_partner):
    """The colour, challenge and catch phases as the simple heuristics play them:
    name the strongest colour, accept every Wild Draw Four, catch every exposed
    opponent (a partner too when ``catch_partner``). -1 in the play phases."""
    strongest = strongest_colour(obs, P) if phase == PH_COLOR else -1
    exposed = obs_exposed_seat(obs, P) if phase == PH_CATCH else -1
    return simple_choice(phase, strongest, exposed, P, catch_partner)


@kernel
def simple_choice(phase, strongest, exposed, P, catch_partner):
    """:func:`simple_decision` from the facts it reads: the strongest colour (colour
    phase) and the exposed relative seat (catch phase)."""
    if phase == PH_COLOR:
        return P[P_A_COLOR] + strongest
    if phase == PH_CHALLENGE:
        return P[P_A_ACCEPT]
    if phase == PH_CATCH:
        if is_partner(P, exposed) and not catch_partner:
            return P[P_A_PASS]
        return P[P_A_CATCH]
    return -1
