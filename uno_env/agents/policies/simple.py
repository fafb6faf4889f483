"""The simple compiled policies: ``random``, ``random_play``, ``naive`` and ``keeper``.

Each is ``name_policy(obs, mask, P, prng, b) -> action``. The naive and keeper policies
decide from a few facts (``naive_choice``: the phase; ``keeper_choice``: :func:`keeper_view`),
which the compiled play loops read straight from the state instead of writing the
observation (:func:`keeper_view_of_state`, tested equal at every decision).
"""

from __future__ import annotations

import numpy as np

from ...engine import kernels as K
from ...engine.cards import FASHION_TREND, RANKS_PER_COLOUR, WILD, WILD_DRAW_FOUR
from ...engine.jit import describe, kernel
from ...engine.layout import (
    O_COLOUR,
    P_A_ACCEPT,
    P_A_COLOR,
    P_A_DRAW,
    P_A_FT,
    P_A_PASS,
    P_A_SWAP,
    P_A_UNO,
    P_NUM_ACTIONS,
    P_NUM_PLAYERS,
    PH_CATCH,
    PH_CHALLENGE,
    PH_COLOR,
    PH_SWAP,
    S_COLOUR,
    S_EXPOSED,
    S_PHASE,
)
from ...engine.readers import (
    face_value,
    hand_colour_counts,
    obs_colour,
    obs_exposed_seat,
    obs_phase,
    obs_swap_partner,
    seat_colour_counts,
    state_discard_colour_counts,
    state_swap_partner,
    wild_action,
)
from .choices import (
    draw_or_pass,
    first_legal,
    forced_to_play,
    most_played,
    simple_choice,
    strongest_held,
    strongest_of,
    swap_action,
)

describe(__name__, "the agents' compiled policies", seconds=30)


# ---------------------------------------------------------------- random
@kernel
def random_below(prng, b, n):
    """Uniform integer in 0..n-1 from a policy generator (xorshift64*, like the engine's)."""
    return K.rng_below(prng, b, n)


@kernel(forceinline=True)
def random_legal_below(mask, stop, prng, b):
    """Uniform over the legal actions with ids below ``stop``; -1 (and no draw from the
    generator) when there is none."""
    count = 0
    for a in range(stop):
        count += mask[a]
    if count == 0:
        return -1
    k = random_below(prng, b, np.int64(count))  # int64: one compiled random_below
    # the (k+1)-th legal action: one well-predicted branch per action, not one per mask entry
    for a in range(stop):
        k -= mask[a]
        if k < 0:
            return a
    return -1


@kernel
def random_policy(obs, mask, P, prng, b):
    """Uniform over the legal actions."""
    return random_legal_below(mask, P[P_NUM_ACTIONS], prng, b)


@kernel
def random_play_policy(obs, mask, P, prng, b):
    """Random player close to the kind other UNO benchmarks use (e.g. RLCard's): a uniformly
    random playable card when there is one (a wild's colour at random too), a draw only
    when no card can be played; a playable drawn card is played. A Wild Draw Four is one
    playable card among the others even with a card of the current colour in hand (a
    bluff, R-WD4), where RLCard's rules allow it only without one. It calls UNO (those
    benchmarks have no UNO rule; a player that never calls can never win against one
    that catches). Other decisions (catch, challenge, a starting Wild's colour) are
    uniform at random. Under the house rules the same: a random stackable card in a
    stack's penalty decision (accept or challenge at random without one), a random
    Seven-O partner, always a jump-in (its card is the only one it can play there)."""
    if P[P_A_UNO] >= 0 and mask[P[P_A_UNO]]:
        return P[P_A_UNO]
    card = random_legal_below(mask, P[P_A_DRAW], prng, b)  # card plays come first in action order
    if card >= 0:
        return card
    return random_policy(obs, mask, P, prng, b)


# ---------------------------------------------------------------- naive
@kernel
def naive_policy(obs, mask, P, prng, b):
    """Naive: the first legal card in action-id order (red before yellow, green, blue;
    numbers before Skip, Reverse, Draw Two; a wild names red), drawing only when no
    card can be played; it plays a playable drawn card and calls UNO, but never
    catches, never challenges, and names red for a starting Wild. (A player that never
    calls UNO can never win against one that always catches, so it does call.) House
    rules: in a stack's penalty decision the first stackable card, else it accepts; the
    first legal Seven-O swap (the nearest seat clockwise); it always jumps in."""
    return naive_choice(obs_phase(obs, P), mask, P)


@kernel
def naive_choice(phase, mask, P):
    """:func:`naive_policy` from the one fact it reads besides the mask: the phase."""
    if phase == PH_COLOR:
        return P[P_A_COLOR]
    if phase == PH_CHALLENGE:
        return P[P_A_ACCEPT]
    if phase == PH_CATCH:
        return P[P_A_PASS]
    if phase == PH_SWAP:
        return first_legal(mask, P[P_A_SWAP], P[P_NUM_ACTIONS])
    if P[P_A_UNO] >= 0 and mask[P[P_A_UNO]]:
        return P[P_A_UNO]
    for a in range(P[P_A_DRAW]):
        if mask[a]:
            return a
    return draw_or_pass(mask, P)


# ---------------------------------------------------------------- keeper
@kernel
def keeper_policy(obs, mask, P, prng, b):
    """Colour keeper: among the playable coloured cards it plays one of the colour it
    holds most (highest points first, to shed them); wild cards are held until no
    coloured card can be played, then a Wild before a Wild Draw Four (never as a
    bluff), naming its strongest colour. Always calls UNO, catches every exposed
    opponent (not its partner), accepts every Wild Draw Four. House rules: in a stack's
    penalty decision it answers as it plays (a Draw Two of the colour it holds most, else
    a Wild Draw Four only when it holds none of the colour in force), else it accepts,
    never challenging; a 7 swaps with the opponent holding the fewest cards (ties: the
    nearest clockwise); it always jumps in; a drawn Wild Draw Four that ``force_play``
    makes it play names its strongest colour."""
    return keeper_choice(keeper_view(obs, P), mask, P)


@kernel
def keeper_view(obs, P):
    """What :func:`keeper_policy` reads of an observation besides the mask: (phase, colour
    in force or -1, exposed relative seat in a catch window or -1, copies held of each
    colour, strongest colour, Seven-O partner in a swap decision or -1)."""
    phase = obs_phase(obs, P)
    counts, points = hand_colour_counts(obs, P)
    exposed = obs_exposed_seat(obs, P) if phase == PH_CATCH else -1
    partner = obs_swap_partner(obs, P) if phase == PH_SWAP else -1
    return phase, obs_colour(obs, P, O_COLOUR), exposed, counts, strongest_of(obs, P, counts, points), partner


@kernel
def keeper_view_of_state(cards, ints, P, b, seat):
    """:func:`keeper_view` of ``seat``'s observation of game b, read from the state without
    writing the observation (the compiled play loops; tested equal at every decision)."""
    phase = np.int64(ints[b, S_PHASE])
    counts, points = seat_colour_counts(cards, P, b, seat)
    exposed = K.rel_seat(np.int64(ints[b, S_EXPOSED]), seat, P[P_NUM_PLAYERS]) if phase == PH_CATCH else -1
    strongest = strongest_held(counts, points)
    if strongest < 0:
        strongest = most_played(state_discard_colour_counts(cards, P, b))
    partner = state_swap_partner(ints, P, b, seat) if phase == PH_SWAP else -1
    return phase, np.int64(ints[b, S_COLOUR]), exposed, counts, strongest, partner


@kernel
def keeper_choice(view, mask, P):
    """:func:`keeper_policy` from its view (:func:`keeper_view`) and the mask."""
    phase, colour, exposed = view[0], view[1], view[2]
    counts, strongest = view[3], view[4]
    decided = simple_choice(phase, strongest, exposed, P, False)
    if decided >= 0:
        return decided
    if phase == PH_SWAP:
        return swap_action(view[5], mask, P)
    if P[P_A_UNO] >= 0 and mask[P[P_A_UNO]]:
        return P[P_A_UNO]
    card = keeper_card(counts, mask)
    if card >= 0:
        return card
    wild = keeper_wild(phase, colour, counts, strongest, mask, P)
    if wild >= 0:
        return wild
    return draw_or_pass(mask, P)


@kernel(forceinline=True)
def keeper_card(counts, mask):
    """The playable coloured card of the colour held most (``counts``), highest points first;
    -1 when none can be played."""
    best = -1
    best_key = -1
    for a in range(WILD):
        if mask[a]:
            key = counts[a // RANKS_PER_COLOUR] * 1000 + face_value(a)
            if key > best_key:
                best = a
                best_key = key
    return best


@kernel(forceinline=True)
def keeper_wild(phase, colour, counts, strongest, mask, P):
    """The playable wild naming ``strongest``: a Wild, then a Fashion Trend, then a Wild Draw
    Four only when it is no bluff (none of the ``colour`` in force held) or ``force_play``
    makes it play a drawn one; -1 when none."""
    honest = colour < 0 or counts[colour] == 0
    for face in (WILD, FASHION_TREND, WILD_DRAW_FOUR):
        if face == WILD_DRAW_FOUR and not honest and not forced_to_play(phase, mask, P):
            continue
        if face == FASHION_TREND and P[P_A_FT] < 0:
            continue
        a = wild_action(P, face, strongest)
        if mask[a]:
            return a
    return -1
