"""The tactical policy: a colour keeper that also plays against the table.

:func:`tactical_policy` is :func:`tactical_weighted` with :data:`TACTICAL_WEIGHTS`, tuned by
measurement (docs/agents.md); tuning scripts pass other weights (``WEIGHT_*`` name them).
Its decisions: a challenge by the estimated odds of a bluff (:func:`bluff_probability`),
a stack's penalty by the cards it expects to draw (:func:`tactical_penalty`), a card by its
score (:func:`tactical_play`, :func:`card_score`).
"""

from __future__ import annotations

import numpy as np

from ...engine.cards import RANK_DRAW_TWO, RANK_REVERSE, RANK_SKIP, RANKS_PER_COLOUR, WILD, WILD_DRAW_FOUR
from ...engine.jit import describe, kernel
from ...engine.layout import (
    O_ALIVE,
    O_COLOUR,
    O_DISCARD_PILE,
    O_HAND,
    O_PREVIOUS_COLOUR,
    P_A_ACCEPT,
    P_A_CHALLENGE,
    P_A_DRAW,
    P_A_UNO,
    P_FACES,
    P_NUM_PLAYERS,
    P_SEVEN_O,
    PH_CHALLENGE,
    PH_PENALTY,
    PH_SWAP,
)
from ...engine.readers import (
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
    obs_hand_size,
    obs_next_seat,
    obs_pending,
    obs_phase,
    obs_players_in,
    obs_swap_partner,
    wild_action,
)
from .choices import draw_or_pass, forced_to_play, simple_decision, strongest_of, swap_action
from .house import last_stackable, swap_gain

describe(__name__, "the agents' compiled policies", seconds=30)

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
WEIGHT_HOUSE = 14  # 1: weigh the house rules in card scores (the terms below); 0: tactical_v1
WEIGHT_SWAP = 15  # Seven-O: per card a 7 or 0 gains (house.swap_gain)
WEIGHT_SWAP_KEEP = 16  # Seven-O: a 7 or 0 losing more cards than this is kept (drawing or passing instead)
WEIGHT_STACK_KEEP = 17  # stacking: cost of playing the last Draw Two / Wild Draw Four while nobody threatens
NUM_TACTICAL_WEIGHTS = 18
TACTICAL_WEIGHTS = np.array(
    [1.0, 40.0, 1.0, 40.0, 0.5, 4.0, 1.0, 0.4, 1.0 / 3.0, 20.0, 1.0, 300.0, 50.0, 10.0] + [1.0, 30.0, 0.0, 20.0]
)
TACTICAL_V1_WEIGHTS = TACTICAL_WEIGHTS.copy()
TACTICAL_V1_WEIGHTS[WEIGHT_HOUSE] = 0.0
"""``tactical_v1``: the tactical policy before it weighed the house rules (the house terms off)."""


COLOUR_COPIES = 25  # cards of each colour in both decks: one 0, two each of 1-9, Skip, Reverse, Draw Two


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
    nearest clockwise); it jumps in (the jump sheds a card, and the turn it takes
    is one fewer for every player it skips); with ``force_play`` a
    drawn Wild Draw Four is played even as a bluff, naming its strongest colour. Its card
    scores weigh them (:func:`house_terms`; ``tactical_v1`` does not): under Seven-O a 7 or
    a 0 is worth the cards its swap gains and is kept (it draws, passes or does not jump in
    instead) when the swap would lose cards; under stacking the last Draw Two or Wild Draw
    Four in hand is kept back while the next player does not threaten."""
    return tactical_weighted(obs, mask, P, prng, b, TACTICAL_WEIGHTS)


@kernel
def tactical_v1_policy(obs, mask, P, prng, b):
    """``tactical_v1``: :func:`tactical_policy` as it played before it weighed the house rules
    in its card choices (:data:`TACTICAL_V1_WEIGHTS`); with every house rule off both choose
    alike. Kept to measure the house-rule terms against."""
    return tactical_weighted(obs, mask, P, prng, b, TACTICAL_V1_WEIGHTS)


@kernel
def tactical_weighted(obs, mask, P, prng, b, W):
    """The tactical policy with weights ``W`` (see ``WEIGHT_*``): :func:`tactical_policy` with
    :data:`TACTICAL_WEIGHTS`; tuning scripts pass other weights."""
    phase = obs_phase(obs, P)
    if phase == PH_CHALLENGE:
        return tactical_challenge(obs, P, W)
    if phase == PH_PENALTY:
        return tactical_penalty(obs, mask, P, W)
    if phase == PH_SWAP:
        return swap_action(obs_swap_partner(obs, P), mask, P)
    decided = simple_decision(obs, mask, P, phase, False)
    if decided >= 0:
        return decided
    if P[P_A_UNO] >= 0 and mask[P[P_A_UNO]]:
        if W[WEIGHT_HOUSE] > 0 and P[P_SEVEN_O] != 0:  # it may keep its card: UNO only before playing one
            play = tactical_play(obs, mask, P, phase, W)
            return P[P_A_UNO] if play < P[P_A_DRAW] else play
        return P[P_A_UNO]
    return tactical_play(obs, mask, P, phase, W)


@kernel
def tactical_challenge(obs, P, W):
    """Challenge a Wild Draw Four when the bluff probability beats the break-even."""
    if bluff_probability(obs, P, W[WEIGHT_PRIOR]) > W[WEIGHT_BREAK_EVEN]:
        return P[P_A_CHALLENGE]
    return P[P_A_ACCEPT]


# ---------------------------------------------------------------- playing a card
@kernel(forceinline=True)
def tactical_play(obs, mask, P, phase, W):
    """The legal card of highest :func:`card_score`, a wild only naming the strongest colour
    and a Wild Draw Four not as a bluff (:func:`bluff_withheld`); draw or pass without one."""
    players = obs_players_in(obs, P)
    following, preceding, skipped_to = seats_around(obs, P)
    next_threat, previous_threat, danger = threats(obs, P, W, following, preceding)
    situation = (players, obs_hand_size(obs, P, 0), next_threat, previous_threat, danger)
    aims = targets(P, players, following, preceding, skipped_to)
    current = obs_colour(obs, P, O_COLOUR)
    counts, points = hand_colour_counts(obs, P)
    unseen, unseen_total = unseen_colours(counts, discard_colour_counts(obs, P))
    held = (counts, unseen, unseen_total)
    bluffing = current >= 0 and counts[current] > 0
    forced = forced_to_play(phase, mask, P)  # force_play: a drawn Wild Draw Four is played, bluff or not
    wild_colour = strongest_of(obs, P, counts, points)
    defended = False  # a Skip or Draw Two (or, with two players, a Reverse) against the threat
    house = W[WEIGHT_HOUSE] > 0
    best = -1
    best_score = -1e18
    for a in range(P[P_A_DRAW]):
        if not mask[a]:
            continue
        face = action_face(P, a)
        colour = action_colour(P, a)
        defended = defended or defends(face, players)  # coloured cards come before the Wild Draw Four
        if kept(face, colour, wild_colour, bluff_withheld(W, bluffing, forced, next_threat, defended)):
            continue
        score = card_score(obs, P, W, face, colour, situation, aims, held)
        if house:
            extra = house_terms(obs, P, W, face, situation, preceding)
            if extra == -np.inf:
                continue
            score += extra
        if score > best_score:
            best = a
            best_score = score
    if best >= 0:
        return best
    return draw_or_pass(mask, P)


@kernel(forceinline=True)
def house_terms(obs, P, W, face, situation, preceding):
    """What the house rules that are on add to the score of a card of ``face`` (:mod:`.house`):
    under Seven-O ``WEIGHT_SWAP`` per card a 7 or a 0 gains, and ``-inf`` (the card is kept)
    when it loses more than ``WEIGHT_SWAP_KEEP``; under stacking ``-WEIGHT_STACK_KEEP`` for
    the last Draw Two or Wild Draw Four in hand while the next player does not threaten.
    ``situation`` as in :func:`card_score`, ``preceding``: the previous seat."""
    own = situation[1]
    next_threat = situation[2]
    gain = swap_gain(obs, P, face, own, preceding)
    if gain < -W[WEIGHT_SWAP_KEEP]:
        return -np.inf
    extra = W[WEIGHT_SWAP] * gain
    if not next_threat and last_stackable(obs, P, face):
        extra -= W[WEIGHT_STACK_KEEP]
    return extra


@kernel(forceinline=True)
def seats_around(obs, P):
    """The relative seats of the next player, the previous one and the one after the next."""
    direction = obs_direction(obs, P)
    following = obs_next_seat(obs, P, 0, direction)
    preceding = obs_next_seat(obs, P, 0, -direction)
    skipped_to = obs_next_seat(obs, P, following, direction)
    return following, preceding, skipped_to


@kernel(forceinline=True)
def unseen_colours(counts, played):
    """Unseen cards (neither in the own hand nor in the discard pile) of each colour, and
    their total (at least 1)."""
    unseen = (
        COLOUR_COPIES - counts[0] - played[0],
        COLOUR_COPIES - counts[1] - played[1],
        COLOUR_COPIES - counts[2] - played[2],
        COLOUR_COPIES - counts[3] - played[3],
    )
    return unseen, max(unseen[0] + unseen[1] + unseen[2] + unseen[3], 1)


@kernel(forceinline=True)
def defends(face, players):
    """A Skip or Draw Two (or, with two players, a Reverse): a card that stops the next player."""
    if face >= WILD:
        return False
    rank = face % RANKS_PER_COLOUR
    return rank in (RANK_SKIP, RANK_DRAW_TWO) or (rank == RANK_REVERSE and players == 2)


@kernel(forceinline=True)
def kept(face, colour, wild_colour, bluff_kept):
    """A card :func:`tactical_play` does not consider: a wild naming another colour than its
    strongest, or a Wild Draw Four while ``bluff_kept``."""
    return (face >= WILD and colour != wild_colour) or (face == WILD_DRAW_FOUR and bluff_kept)


@kernel(forceinline=True)
def bluff_withheld(W, bluffing, forced, next_threat, defended):
    """A Wild Draw Four that would be a bluff is kept, unless ``force_play`` plays it or it is
    the only card that stops a threatening next player (``WEIGHT_BLUFF``)."""
    return bluffing and not forced and not (W[WEIGHT_BLUFF] > 0 and next_threat and not defended)


@kernel(forceinline=True)
def card_score(obs, P, W, face, colour, situation, aims, held):
    """What playing a card of ``face`` (naming or of ``colour``) is worth (see
    :func:`tactical_policy`). ``situation``: (players in, own hand size, next seat
    threatens, previous seat threatens, some opponent threatens); ``aims``: :func:`targets`;
    ``held``: (copies held of each colour, unseen of each colour, unseen in all)."""
    players, own, next_threat, previous_threat, danger = situation
    counts, unseen, unseen_total = held
    score = -W[WEIGHT_SCARCE] * unseen[colour] / unseen_total
    if face < WILD:
        rank = face % RANKS_PER_COLOUR
        score = coloured_score(
            obs, P, W, score, rank, colour, counts, unseen_total, players, next_threat, previous_threat
        )
    else:
        score = wild_score(W, score, face, colour, counts, own, danger, players, next_threat)
    target = card_target(face, aims)
    if target > 0 and drew_on(obs, P, target, colour):
        score += W[WEIGHT_DREW]
    if danger:
        score += W[WEIGHT_DUMP] * face_value(face)
    return score


@kernel(forceinline=True)
def card_target(face, aims):
    """Who plays on a card of ``face``: of ``aims`` (:func:`targets`), the Skip target for a
    Skip, a Draw Two or a Wild Draw Four, the Reverse target for a Reverse, else the plain one."""
    plain, skip, reverse = aims
    if face == WILD_DRAW_FOUR:
        return skip
    if face < WILD:
        rank = face % RANKS_PER_COLOUR
        if rank in (RANK_SKIP, RANK_DRAW_TWO):
            return skip
        if rank == RANK_REVERSE:
            return reverse
    return plain


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
    counts, points = hand_colour_counts(obs, P)
    draw_two = stacked_draw_two(counts, mask)
    if draw_two >= 0:
        return draw_two
    wild_four = wild_action(P, WILD_DRAW_FOUR, strongest_of(obs, P, counts, points))
    current = obs_colour(obs, P, O_COLOUR)
    if mask[wild_four] and not (current >= 0 and counts[current] > 0):
        return wild_four
    return accept_challenge_or_bluff(obs, mask, P, W, wild_four)


@kernel
def stacked_draw_two(counts, mask):
    """The playable Draw Two of the colour held most (-1: none)."""
    best = -1
    best_count = -1
    for c in range(4):
        a = c * RANKS_PER_COLOUR + RANK_DRAW_TWO
        if mask[a] and counts[c] > best_count:
            best = a
            best_count = counts[c]
    return best


@kernel
def accept_challenge_or_bluff(obs, mask, P, W, wild_four):
    """:func:`tactical_penalty` without a card to answer honestly: accept, challenge, or bluff
    the Wild Draw Four ``wild_four``, by the cards it expects to draw (the fewest)."""
    pending = obs_pending(obs, P)
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
