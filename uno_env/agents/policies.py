"""Compiled policies: agents written once as numba functions of (observation, mask).

A policy sees exactly what an agent sees: the acting player's observation
vector and legal-action mask (offsets come from the parameter vector ``P``), plus
its own random generator. The same function serves the Python agents in
``uno_env/agents/``, whole games played inside one compiled call (tournaments of
millions of hands, search rollouts) and the vector env. Inside those play loops
the observation is written only for the policies that read it: the random ones
read only the mask, and the naive and keeper policies read the few facts they use
(:func:`keeper_view_of_state`) from the state, the same values their observation
holds (tested at every decision), and decide the same way.

Policy ids: see :data:`POLICY_IDS`. To add one, write a function
``name(obs, mask, P, prng, b) -> action`` compiled with :func:`~uno_env.engine.jit.kernel`
and add a branch to :func:`policy_act`.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait

import numba
import numpy as np
from numba import njit

from ..engine import kernels as K
from ..engine.borrow import borrow
from ..engine.cards import (
    FASHION_TREND,
    RANK_DRAW_TWO,
    RANK_REVERSE,
    RANK_SKIP,
    RANKS_PER_COLOUR,
    WILD,
    WILD_DRAW_FOUR,
)
from ..engine.jit import allocating, describe, kernel
from ..engine.layout import (
    O_ALIVE,
    O_COLOUR,
    O_DISCARD_PILE,
    O_HAND,
    O_PREVIOUS_COLOUR,
    P_A_ACCEPT,
    P_A_CATCH,
    P_A_CHALLENGE,
    P_A_COLOR,
    P_A_DRAW,
    P_A_FT,
    P_A_PASS,
    P_A_SWAP,
    P_A_UNO,
    P_FACES,
    P_NUM_ACTIONS,
    P_NUM_PLAYERS,
    P_O_SIZE,
    PH_CATCH,
    PH_CHALLENGE,
    PH_COLOR,
    PH_DRAWN,
    PH_OVER,
    PH_PENALTY,
    PH_SWAP,
    S_COLOUR,
    S_EXPOSED,
    S_PHASE,
    S_ROUND,
)
from ..engine.readers import (
    action_colour,
    action_face,
    discard_colour_counts,
    drew_on,
    face_copies,
    face_value,
    hand_colour_counts,
    is_partner,
    obs_colour,
    obs_direction,
    obs_exposed_seat,
    obs_hand_size,
    obs_next_seat,
    obs_pending,
    obs_phase,
    obs_players_in,
    obs_swap_partner,
    seat_colour_counts,
    state_discard_colour_counts,
    state_swap_partner,
    wild_action,
)
from .neural import shipped_policy

describe(__name__, "the agents' compiled policies", seconds=30)

RANDOM = 0
NAIVE = 1
KEEPER = 2
TACTICAL = 3
RANDOM_PLAY = 4
PPO = 5

POLICY_IDS = {
    "random": RANDOM,
    "naive": NAIVE,
    "keeper": KEEPER,
    "tactical": TACTICAL,
    "random_play": RANDOM_PLAY,
    "ppo": PPO,
}


def policy_id_of(policy) -> int:
    """The id of a compiled policy given by name or id (a Python or numpy integer; not a
    bool): the one check of "is this a compiled policy". ValueError naming the known ones."""
    if isinstance(policy, str) and policy in POLICY_IDS:
        return POLICY_IDS[policy]
    is_integer = isinstance(policy, (int, np.integer)) and not isinstance(policy, (bool, np.bool_))
    if is_integer and int(policy) in POLICY_IDS.values():
        return int(policy)
    raise ValueError(f"unknown compiled policy {policy!r}: known policies are {', '.join(sorted(POLICY_IDS))}")


def policy_name(policy_id: int) -> str:
    """The name of a compiled policy id (the id as text when unknown)."""
    for name, value in POLICY_IDS.items():
        if value == policy_id:
            return name
    return str(policy_id)


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
def bluff_probability(obs, P, prior):
    """Probability that the Wild Draw Four just played at the observer was a bluff.

    The offender (the seat before the observer) holds ``h`` cards drawn, as far as
    the observer can tell, from the unseen cards (deck minus own hand minus discard
    pile). The chance that a random such hand holds the previous colour is
    hypergeometric: ``q = 1 - C(U - Uc, h) / C(U, h)``. A player holding the colour
    plays the Wild Draw Four less often than one who does not; ``prior`` is that
    likelihood ratio (0: never bluffs, 1: bluffs as often as it plays it legally), so
    the posterior is ``prior q / (prior q + 1 - q)``."""
    previous = obs_colour(obs, P, O_PREVIOUS_COLOUR)
    if previous < 0:
        return 0.0
    offender = obs_next_seat(obs, P, 0, -obs_direction(obs, P))
    h = obs_hand_size(obs, P, offender)
    if h <= 0:
        return 0.0  # the offender went out: the play was legal (R-END-2)
    unseen = 0
    unseen_colour = 0
    for f in range(P[P_FACES]):
        k = face_copies(f) - np.int64(obs[P[O_HAND] + f]) - np.int64(obs[P[O_DISCARD_PILE] + f])
        if k > 0:
            unseen += k
            if f < WILD and f // RANKS_PER_COLOUR == previous:
                unseen_colour += k
    if unseen <= 0 or h > unseen:
        return 0.0
    p_none = 1.0
    for i in range(h):
        p_none *= max(unseen - unseen_colour - i, 0) / (unseen - i)
    q = 1.0 - p_none
    return prior * q / (prior * q + 1.0 - q + 1e-12)


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


# ---------------------------------------------------------------- heuristics
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
    best = -1
    best_key = -1
    for a in range(WILD):
        if mask[a]:
            key = counts[a // RANKS_PER_COLOUR] * 1000 + face_value(a)
            if key > best_key:
                best = a
                best_key = key
    if best >= 0:
        return best
    honest = colour < 0 or counts[colour] == 0
    for face in (WILD, FASHION_TREND, WILD_DRAW_FOUR):
        if face == WILD_DRAW_FOUR and not honest and not forced_to_play(phase, mask, P):
            continue
        if face == FASHION_TREND and P[P_A_FT] < 0:
            continue
        a = wild_action(P, face, strongest)
        if mask[a]:
            return a
    return draw_or_pass(mask, P)


# ---------------------------------------------------------------- tactical
WEIGHT_COLOUR = 0  # per card held of the colour the play leaves on top
WEIGHT_HOLD_WILD = 1  # cost of spending a wild-type card while nobody threatens
WEIGHT_THREAT = 2  # an opponent with this many cards or fewer is close to going out
WEIGHT_DEFEND = 3  # value of a Skip / Draw Two / Wild Draw Four on a threatening next player
WEIGHT_DUMP = 4  # per point of the card played while an opponent is close to going out
WEIGHT_TEMPO = 5  # with two players: value of Skip / Reverse / Draw Two / Wild Draw Four (play again)
WEIGHT_BLUFF = 6  # 1: bluff a Wild Draw Four on a threatening next player when nothing else defends
WEIGHT_PRIOR = 7  # bluff likelihood ratio used to judge a Wild Draw Four (see bluff_probability)
WEIGHT_BREAK_EVEN = 8  # challenge when the bluff probability exceeds this (1/3: 4 cards won vs 2 lost)
WEIGHT_REVERSE = 9  # value of a Reverse that turns play away from a threatening next player (3+ players)
WEIGHT_WILD_LOW_HAND = 10  # hand size at or below which wilds are no longer held back
WEIGHT_SCARCE = 11  # cost per unseen card (share of all unseen) of the colour the play leaves on top
WEIGHT_SCARCE_RANK = 12  # the same for unseen cards of the rank it leaves on top
WEIGHT_DREW = 13  # leaving on top a colour the opponent who plays on it drew on (drew_on)
NUM_TACTICAL_WEIGHTS = 14
TACTICAL_WEIGHTS = np.array([1.0, 40.0, 1.0, 40.0, 0.5, 4.0, 1.0, 0.4, 1.0 / 3.0, 20.0, 1.0, 300.0, 50.0, 10.0])


COLOUR_COPIES = 25  # cards of each colour in both decks: one 0, two each of 1-9, Skip, Reverse, Draw Two


@kernel
def unseen_of_rank(obs, P, rank):
    """Copies of coloured rank ``rank`` neither in the own hand nor in the discard pile."""
    u = 0.0
    for c in range(4):
        f = c * RANKS_PER_COLOUR + rank
        u += face_copies(f) - obs[P[O_HAND] + f] - obs[P[O_DISCARD_PILE] + f]
    return u


@kernel(forceinline=True)
def threats(obs, P, W, following, preceding):
    """Whether the next seat, the previous seat, and any opponent hold few cards
    (``WEIGHT_THREAT`` or fewer; partners are no threat)."""
    threat = W[WEIGHT_THREAT]
    next_threat = not is_partner(P, following) and obs_hand_size(obs, P, following) <= threat
    previous_threat = not is_partner(P, preceding) and obs_hand_size(obs, P, preceding) <= threat
    danger = False
    for s in range(1, P[P_NUM_PLAYERS]):
        if obs[P[O_ALIVE] + s] > 0.5 and not is_partner(P, s) and obs_hand_size(obs, P, s) <= threat:
            danger = True
    return next_threat, previous_threat, danger


@kernel(forceinline=True)
def targets(P, players, following, preceding, skipped_to):
    """Who plays on the card left on top (0: nobody to hurt, a partner or oneself), for a
    plain card, a Skip or Draw Two (and Wild Draw Four), and a Reverse. With two players
    always the opponent (after an extra turn the colour usually stays); with more, the
    seat the card passes the turn to."""
    plain = 0 if is_partner(P, following) else following
    if players == 2:
        return plain, following, following
    skip = 0 if is_partner(P, skipped_to) or skipped_to == 0 else skipped_to
    reverse = 0 if is_partner(P, preceding) else preceding
    return plain, skip, reverse


@kernel(forceinline=True)
def coloured_score(obs, P, W, score, rank, colour, counts, unseen_total, players, next_threat, previous_threat):
    """``score`` plus what a coloured card of ``rank`` and ``colour`` is worth: a rank
    whose unseen copies are many, the colour's share of the hand, and action cards'
    tempo and defence against a short hand."""
    score -= W[WEIGHT_SCARCE_RANK] * unseen_of_rank(obs, P, rank) / unseen_total
    score += W[WEIGHT_COLOUR] * (counts[colour] - 1)
    if rank >= RANK_SKIP:
        if players == 2:
            score += W[WEIGHT_TEMPO]
            if next_threat:
                score += W[WEIGHT_DEFEND]
        elif next_threat:
            if rank in (RANK_SKIP, RANK_DRAW_TWO):
                score += W[WEIGHT_DEFEND]
            elif not previous_threat:
                score += W[WEIGHT_REVERSE]
    return score


@kernel(forceinline=True)
def wild_score(W, score, face, colour, counts, own, danger, players, next_threat):
    """``score`` plus what a wild-type card naming ``colour`` is worth: kept while the
    hand is long and nobody is close to going out, a Wild Draw Four as defence and tempo."""
    score += W[WEIGHT_COLOUR] * counts[colour]
    if own > W[WEIGHT_WILD_LOW_HAND] and not danger:
        score -= W[WEIGHT_HOLD_WILD]
    if face == WILD_DRAW_FOUR:
        if next_threat:
            score += W[WEIGHT_DEFEND]
        if players == 2:
            score += W[WEIGHT_TEMPO]
    return score


@kernel
def tactical_weighted(obs, mask, P, prng, b, W):
    """The tactical policy with weights ``W`` (see ``WEIGHT_*``): :func:`tactical_policy` with
    :data:`TACTICAL_WEIGHTS`; tuning scripts pass other weights."""
    phase = obs_phase(obs, P)
    if phase == PH_CHALLENGE:
        if bluff_probability(obs, P, W[WEIGHT_PRIOR]) > W[WEIGHT_BREAK_EVEN]:
            return P[P_A_CHALLENGE]
        return P[P_A_ACCEPT]
    if phase == PH_PENALTY:
        return tactical_penalty(obs, mask, P, W)
    if phase == PH_SWAP:
        return swap_action(obs_swap_partner(obs, P), mask, P)
    decided = simple_decision(obs, mask, P, phase, False)
    if decided >= 0:
        return decided
    if P[P_A_UNO] >= 0 and mask[P[P_A_UNO]]:
        return P[P_A_UNO]
    players = obs_players_in(obs, P)
    direction = obs_direction(obs, P)
    following = obs_next_seat(obs, P, 0, direction)
    preceding = obs_next_seat(obs, P, 0, -direction)
    skipped_to = obs_next_seat(obs, P, following, direction)
    next_threat, previous_threat, danger = threats(obs, P, W, following, preceding)
    own = obs_hand_size(obs, P, 0)
    current = obs_colour(obs, P, O_COLOUR)
    counts, points = hand_colour_counts(obs, P)
    played = discard_colour_counts(obs, P)
    # unseen cards (neither in the own hand nor in the discard pile) of each colour
    unseen = (
        COLOUR_COPIES - counts[0] - played[0],
        COLOUR_COPIES - counts[1] - played[1],
        COLOUR_COPIES - counts[2] - played[2],
        COLOUR_COPIES - counts[3] - played[3],
    )
    unseen_total = max(unseen[0] + unseen[1] + unseen[2] + unseen[3], 1)
    bluffing = current >= 0 and counts[current] > 0
    forced = forced_to_play(phase, mask, P)  # force_play: a drawn Wild Draw Four is played, bluff or not
    plain_target, skip_target, reverse_target = targets(P, players, following, preceding, skipped_to)
    wild_colour = strongest_of(obs, P, counts, points)
    defended = False  # a Skip or Draw Two (or, with two players, a Reverse) against the threat
    best = -1
    best_score = -1e18
    for a in range(P[P_A_DRAW]):
        if not mask[a]:
            continue
        face = action_face(P, a)
        colour = action_colour(P, a)
        if face < WILD:  # coloured cards come first in action order, before the Wild Draw Four
            rank = face % RANKS_PER_COLOUR
            if rank in (RANK_SKIP, RANK_DRAW_TWO) or (rank == RANK_REVERSE and players == 2):
                defended = True
        if face >= WILD and colour != wild_colour:
            continue
        withheld = bluffing and not forced and not (W[WEIGHT_BLUFF] > 0 and next_threat and not defended)
        if face == WILD_DRAW_FOUR and withheld:  # a bluff only to stop a short hand (WEIGHT_BLUFF)
            continue
        target = plain_target
        if face == WILD_DRAW_FOUR:
            target = skip_target
        score = -W[WEIGHT_SCARCE] * unseen[colour] / unseen_total
        if face < WILD:
            rank = face % RANKS_PER_COLOUR
            if rank in (RANK_SKIP, RANK_DRAW_TWO):
                target = skip_target
            elif rank == RANK_REVERSE:
                target = reverse_target
            score = coloured_score(
                obs, P, W, score, rank, colour, counts, unseen_total, players, next_threat, previous_threat
            )
        else:
            score = wild_score(W, score, face, colour, counts, own, danger, players, next_threat)
        if target > 0 and drew_on(obs, P, target, colour):
            score += W[WEIGHT_DREW]
        if danger:
            score += W[WEIGHT_DUMP] * face_value(face)
        if score > best_score:
            best = a
            best_score = score
    if best >= 0:
        return best
    return draw_or_pass(mask, P)


BLUFF_CHALLENGED = 0.5
"""The chance that a Wild Draw Four played as a bluff in a stack is challenged, as the
tactical policy assumes it of an unknown next player (see :func:`tactical_penalty`)."""


@kernel
def tactical_penalty(obs, mask, P, W):
    """The tactical policy's penalty decision of a stack (R-HOUSE-STACK), by the cards it
    expects to draw itself. UNO first where it may call. A Draw Two answers whenever one
    stacks (0 cards drawn, the colour it holds most left on top), then a Wild Draw Four
    played honestly (naming its strongest colour). Otherwise: accepting draws the pending
    penalty; challenging a Wild Draw Four on top draws the pending penalty plus 2 with
    the chance ``1 - p`` that it was no bluff (:func:`bluff_probability`), so it
    challenges when ``p`` beats the break-even ``2 / (pending + 2)`` (the 1/3 of
    ``WEIGHT_BREAK_EVEN`` at a pending 4, scaled); a Wild Draw Four played as a bluff draws
    the new pending penalty (pending + 4) if the next player challenges it (assumed
    :data:`BLUFF_CHALLENGED`), so it bluffs only when that expects fewer cards than the
    better of accepting and challenging (pending above 4 against accepting)."""
    if P[P_A_UNO] >= 0 and mask[P[P_A_UNO]]:
        return P[P_A_UNO]
    pending = obs_pending(obs, P)
    counts, points = hand_colour_counts(obs, P)
    best = -1
    best_count = -1
    for c in range(4):
        a = c * RANKS_PER_COLOUR + RANK_DRAW_TWO
        if mask[a] and counts[c] > best_count:
            best = a
            best_count = counts[c]
    if best >= 0:
        return best
    wild_four = wild_action(P, WILD_DRAW_FOUR, strongest_of(obs, P, counts, points))
    current = obs_colour(obs, P, O_COLOUR)
    if mask[wild_four] and not (current >= 0 and counts[current] > 0):
        return wild_four
    choice = P[P_A_ACCEPT]
    cost = float(pending)
    if mask[P[P_A_CHALLENGE]]:
        p = bluff_probability(obs, P, W[WEIGHT_PRIOR])
        if p > W[WEIGHT_BREAK_EVEN] * 6.0 / (pending + 2.0):
            choice = P[P_A_CHALLENGE]
            cost = (1.0 - p) * (pending + 2.0)
    if mask[wild_four] and BLUFF_CHALLENGED * (pending + 4.0) < cost:
        return wild_four
    return choice


@kernel
def tactical_policy(obs, mask, P, prng, b):
    """Tactical: a colour keeper that also plays against the table. Each playable card
    gets a score: + cards held of the colour it leaves on top, - the share of unseen
    cards of that colour and of that rank (so the next player is less likely to
    match), + a bonus when the opponent who plays on it drew on that colour since it
    last played (``drew_on``: it likely holds none), - a cost for spending a wild while
    nobody threatens; with two players
    Skip / Reverse / Draw Two / Wild Draw Four get a bonus (an extra turn). When the
    next opponent is close to going out (1 card) Skip / Draw Two / Wild Draw Four (or
    a Reverse that turns play away) get a large bonus, and while any opponent is close
    it sheds its highest-value cards. Wilds name its strongest colour. It never draws
    when it can play. It challenges a Wild Draw Four when the bluff probability
    estimated from the observation (:func:`bluff_probability`) beats the break-even of
    1/3, and bluffs a Wild Draw Four itself only to stop a threatening next player when
    nothing else can. Always calls UNO and catches exposed opponents (never its
    partner). Weights: :data:`TACTICAL_WEIGHTS`, tuned by measurement (docs/agents.md).

    House rules: a stack's penalty decision as :func:`tactical_penalty` (answer when it
    can, a Draw Two before a Wild Draw Four; else challenge or accept by the cards it
    expects to draw); a 7 swaps with the opponent holding the fewest cards (ties: the
    nearest clockwise); it always jumps in (the jump sheds a card, and the turn it takes
    is one fewer for every player it skips); with ``force_play`` a
    drawn Wild Draw Four is played even as a bluff, naming its strongest colour."""
    return tactical_weighted(obs, mask, P, prng, b, TACTICAL_WEIGHTS)


@kernel
def policy_act(policy, obs, mask, P, prng, b):
    """The action of compiled policy ``policy`` (an id of POLICY_IDS)."""
    if policy == RANDOM:
        return random_policy(obs, mask, P, prng, b)
    if policy == NAIVE:
        return naive_policy(obs, mask, P, prng, b)
    if policy == KEEPER:
        return keeper_policy(obs, mask, P, prng, b)
    if policy == TACTICAL:
        return tactical_policy(obs, mask, P, prng, b)
    if policy == RANDOM_PLAY:
        return random_play_policy(obs, mask, P, prng, b)
    if policy == PPO:
        return shipped_policy(obs, mask, P, prng, b)
    return -1


@kernel
def policy_act_batch(policy, obs, mask, P, prng, out):
    """``out[b]`` = the action of ``policy`` for row b of ``obs``/``mask`` (generator ``prng[b]``)."""
    for b in range(obs.shape[0]):
        out[b] = policy_act(policy, obs[b], mask[b], P, prng, b)


@njit(inline="always")
def policy_decision(policy, cards, ints, P, b, seat, obs, mask, prng):
    """The action of compiled policy ``policy`` for the acting ``seat`` of game b, from the
    state; ``obs`` and ``mask`` are scratch. The random policies read only the mask, and
    the naive and keeper policies the few facts they need straight from the state (the
    phase; :func:`keeper_view_of_state`), so for these the observation is not written:
    the same actions as ``policy_act`` on it."""
    K.legal_mask(cards, ints, P, b, mask)
    if policy == RANDOM:
        return random_policy(obs, mask, P, prng, b)
    if policy == RANDOM_PLAY:
        return random_play_policy(obs, mask, P, prng, b)
    if policy == NAIVE:
        return naive_choice(np.int64(ints[b, S_PHASE]), mask, P)
    if policy == KEEPER:
        return keeper_choice(keeper_view_of_state(cards, ints, P, b, seat), mask, P)
    K.observe(cards, ints, P, b, seat, obs)
    return policy_act(policy, obs, mask, P, prng, b)


@kernel
def play_game(
    cards, ints, rng, prng, P, b, seat_policies, stop_at_round_end, max_steps, obs, mask, step_rw, rw, ev, evn
):
    """The compiled play loop: game b played by compiled policies (``seat_policies[seat]``)
    until its episode ends (or its round ends, or ``max_steps`` decisions). Returns the
    decisions taken, or -1 when a policy chose an action the engine refused (the game is
    as it was before that action). ``rw[b]`` accumulates the rewards; ``step_rw`` is
    scratch of the same shape, ``obs`` and ``mask`` scratch rows. The vector env's
    ``play``, :func:`play_batch` (tournaments) and the search's rollouts all run here."""
    n = seat_policies.shape[0]
    start_round = ints[b, S_ROUND]
    steps = 0
    while ints[b, S_PHASE] != PH_OVER and steps < max_steps:
        if stop_at_round_end and ints[b, S_ROUND] != start_round:
            break
        seat = np.int64(ints[b, K.S_CURRENT])  # int64: the observe compiled for Game, not a second one
        action = policy_decision(seat_policies[seat], cards, ints, P, b, seat, obs, mask, prng)
        if K.step_game(cards, ints, rng, P, b, action, step_rw, ev, evn) < 0:
            return -1
        for s in range(n):
            rw[b, s] += step_rw[b, s]
        steps += 1
    return steps


@allocating(nogil=True)
def play_batch_serial(cards, ints, rng, prng, P, seat_policies, stop_at_round_end, max_steps, rw, steps):
    """Play every game of the batch with compiled policies (``seat_policies[b, seat]``) on the
    calling thread; rewards add up in ``rw``, decisions go to ``steps`` (-1 for a game where
    a policy chose an action the engine refused). It releases the GIL: :func:`play_batch`
    runs it on several threads over parts of the batch."""
    batch = cards.shape[0]
    step_rw = np.zeros_like(rw)
    ev = np.zeros((batch, 0, 4), dtype=np.int32)
    evn = np.zeros(batch, dtype=np.int32)
    obs = np.zeros(P[P_O_SIZE], dtype=np.float32)
    mask = np.zeros(P[P_NUM_ACTIONS], dtype=np.int8)
    # only the arguments are borrowed (the caller holds them): a borrowed view of an array
    # allocated here would outlive the array, which numba frees after its last use
    cards, ints, rng = borrow(cards), borrow(ints), borrow(rng)
    prng, P, seat_policies = borrow(prng), borrow(P), borrow(seat_policies)
    rw, steps = borrow(rw), borrow(steps)
    for b in range(batch):
        steps[b] = play_game(
            cards,
            ints,
            rng,
            prng,
            P,
            b,
            seat_policies[b],
            stop_at_round_end,
            max_steps,
            obs,
            mask,
            step_rw,
            rw,
            ev,
            evn,
        )


class _WorkerPool:
    """The threads :func:`run_in_parts` hands parts to, kept between calls: starting threads
    at every call would cost more than a vector env step. Grown when a call asks for more,
    and rebuilt in a forked child (whose copy of the pool has no threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._size = 0
        self._pid = 0

    def get(self, workers: int) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None or self._size < workers or self._pid != os.getpid():
                if self._pool is not None and self._pid == os.getpid():
                    self._pool.shutdown(wait=False)  # its running parts still finish
                self._pool = ThreadPoolExecutor(workers, thread_name_prefix="uno_env")
                self._size, self._pid = workers, os.getpid()
            return self._pool


_WORKERS = _WorkerPool()


def run_in_parts(size: int, threads: int, run_part) -> list:
    """``run_part(part)`` for ``threads`` contiguous slices that cover ``range(size)``, the
    first on the calling thread and each other on a worker thread; returns their results
    in order, after every part has finished. For compiled kernels that release the GIL and
    give the same result over any split of their batch.

    Python threads, not a ``prange`` loop: numba compiles a ``prange`` body as a function
    of its own and links and optimizes the engine and every policy into both, which cost
    16 s more at the first tournament (and 31-35 s more at a parallel vector env's first
    step). A vector env step over two parts ran 1.07-1.08x the speed of its ``prange`` loop
    from 4096 games on, 0.91-0.94x at 1024 (docs/VECTOR.md, fourth round)."""
    threads = max(1, min(int(threads), size))
    bounds = [size * k // threads for k in range(threads + 1)]
    parts = [slice(bounds[k], bounds[k + 1]) for k in range(threads)]
    if threads == 1:
        return [run_part(parts[0])]
    pool = _WORKERS.get(threads - 1)
    others = [pool.submit(run_part, part) for part in parts[1:]]
    try:
        first = run_part(parts[0])
    finally:
        wait(others)  # no part may still write into the batch when this returns or raises
    return [first] + [future.result() for future in others]  # result(): a part's error is raised here


def play_batch(cards, ints, rng, prng, P, seat_policies, stop_at_round_end, max_steps, rw, steps, threads=None):
    """:func:`play_batch_serial` on ``threads`` threads (default ``numba.get_num_threads()``),
    each playing a contiguous part of the batch (:func:`run_in_parts`): the same games,
    since each game has its own rows and generators."""

    def play_part(part: slice) -> None:
        play_batch_serial(
            cards[part],
            ints[part],
            rng[part],
            prng[part],
            P,
            seat_policies[part],
            stop_at_round_end,
            max_steps,
            rw[part],
            steps[part],
        )

    run_in_parts(cards.shape[0], numba.get_num_threads() if threads is None else threads, play_part)
