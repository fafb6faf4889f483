"""Reading the observation, and its inverse: the compiled twins of ``kernels.observe``.

``kernels.observe`` writes an acting seat's observation; the readers here take
facts back out of it (phase, colours, seats, counts) for the compiled policies
and the search, and :func:`determinize` samples a full state consistent with an
observation (the search's information sets). Writer, readers and sampler live in
the engine so that they change together; ``tests/test_observation.py`` checks that
a sampled state observes as the observation it came from. Action decoding for
compiled code (:func:`action_face`, :func:`action_colour`, :func:`wild_action`) is
here too, checked against :class:`~uno_env.engine.actions.ActionTable`.
"""

from __future__ import annotations

import numpy as np

from . import kernels as K
from .cards import CARD_VALUES, FACE_COPIES, FASHION_TREND, RANKS_PER_COLOUR, WILD, WILD_DRAW_FOUR
from .jit import allocating, describe, kernel
from .layout import (
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
    P_A_DRAW,
    P_A_FT,
    P_A_W,
    P_A_W4,
    P_C_DISCARD,
    P_C_DISCARD_COUNTS,
    P_C_DRAW,
    P_C_HANDS,
    P_C_REVEAL,
    P_C_SIZE,
    P_FACES,
    P_I_ALIVE,
    P_I_DREW_ON,
    P_I_HAND_SIZE,
    P_I_NAMED,
    P_I_OUTCOME,
    P_I_SCORE,
    P_I_SIZE,
    P_I_TREND,
    P_JUMP_IN,
    P_NUM_PLAYERS,
    P_PARTNERS,
    P_SEVEN_O,
    P_STACKING,
    PH_CATCH,
    PH_CHALLENGE,
    PH_DRAWN,
    PH_JUMP,
    PH_OVER,
    PH_PENALTY,
    PH_SWAP,
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
    S_FORFEIT,
    S_LAST_WINNER,
    S_N_ALIVE,
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
    S_WD4_GUILTY,
    S_WD4_OFFENDER,
    S_WD4_OUT,
    STACKING_OFF,
)

LACKS_WILDS = 4
"""The bit of a seat's ``lacks`` (:func:`deal_pool`) that excludes the wild-type cards."""

describe(__name__, "the rules engine's kernels", seconds=45)


# ---------------------------------------------------------------- reading the observation
@kernel
def phase_count(P):
    """Entries of the ``phase`` slice: the classic six, then the house rules' phases up to
    the last one whose rule is on (``observation.phases_of``)."""
    last = PH_OVER
    if P[P_STACKING] != STACKING_OFF:
        last = PH_PENALTY
    if P[P_SEVEN_O] != 0:
        last = PH_SWAP
    if P[P_JUMP_IN] != 0:
        last = PH_JUMP
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
    return colour_counts(cards[b], P[P_C_HANDS] + seat * P[P_FACES])


@kernel
def state_discard_colour_counts(cards, P, b):
    """:func:`discard_colour_counts` of any observation of game b, read from its state."""
    return colour_counts(cards[b], P[P_C_DISCARD_COUNTS])[0]


@kernel
def state_swap_partner(ints, P, b, seat):
    """:func:`obs_swap_partner` of ``seat``'s observation, read from game b's state."""
    n = P[P_NUM_PLAYERS]
    best = -1
    best_size = 0
    for k in range(1, n):
        s = (seat + k) % n
        if ints[b, P[P_I_ALIVE] + s] != 0 and not is_partner(P, k):
            size = np.int64(ints[b, P[P_I_HAND_SIZE] + s])
            if best < 0 or size < best_size:
                best = k
                best_size = size
    return best


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


# ---------------------------------------------------------------- sampling a state from it
NONZERO_STATE = np.uint64(0x2545F4914F6CDD1D)  # xorshift generators must not start at 0


@kernel
def fresh_rng(prng, pb):
    """A nonzero generator state drawn from a policy generator."""
    x = np.uint64(K.rng_below(prng, pb, 1 << 30)) << np.uint64(32)
    x |= np.uint64(K.rng_below(prng, pb, 1 << 30))
    if x == 0:
        x = NONZERO_STATE
    return x


@kernel
def _one_hot(obs, start, size):
    for k in range(size):
        if obs[start + k] > 0.5:
            return k
    return -1


@kernel
def public_facts(obs, P, cards, ints, b):
    """Clear game ``b`` and write what the observation states outright: the phase, the
    turn, colours and direction, the catch window, the house rules' public facts (slices
    present only when their rule is on) and each seat's counts, scores and draws."""
    n = P[P_NUM_PLAYERS]
    F = P[P_FACES]
    for i in range(P[P_C_SIZE]):
        cards[b, i] = 0
    for i in range(P[P_I_SIZE]):
        ints[b, i] = 0
    phase = obs_phase(obs, P)
    ints[b, S_PHASE] = phase
    ints[b, S_CURRENT] = _one_hot(obs, P[O_ACTING], n)
    ints[b, S_DIRECTION] = obs_direction(obs, P)
    ints[b, S_DEALER] = max(_one_hot(obs, P[O_DEALER], n), 0)
    ints[b, S_COLOUR] = obs_colour(obs, P, O_COLOUR)
    ints[b, S_PREV_COLOUR] = obs_colour(obs, P, O_PREVIOUS_COLOUR)
    ints[b, S_DRAWN] = _one_hot(obs, P[O_DRAWN_CARD], F) if phase == PH_DRAWN else -1
    ints[b, S_UNO_CALLED] = 1 if obs[P[O_UNO_CALLED]] > 0.5 else 0
    ints[b, S_EXPOSED] = -1
    ints[b, S_AFTER_WINDOW] = -1
    if phase == PH_CATCH:
        ints[b, S_EXPOSED] = _one_hot(obs, P[O_EXPOSED], n)
        ints[b, S_AFTER_WINDOW] = _one_hot(obs, P[O_AFTER_WINDOW], n)
    ints[b, S_WD4_OFFENDER] = -1
    ints[b, S_PENDING] = obs_pending(obs, P)
    if P[O_TOP_CARD_PLAYER] >= 0:
        ints[b, S_TOP_PLAYER] = _one_hot(obs, P[O_TOP_CARD_PLAYER], n)
    else:  # without jump_in only a Seven-O choice reads it: the chooser played the 7
        ints[b, S_TOP_PLAYER] = ints[b, S_CURRENT] if phase == PH_SWAP else -1
    ints[b, S_FOLLOWING] = -1
    if phase >= PH_SWAP and P[O_NEXT_TURN] >= 0:  # a Seven-O choice or a jump-in decision
        ints[b, S_FOLLOWING] = _one_hot(obs, P[O_NEXT_TURN], n)
    ints[b, S_SWAP_FROM] = -1
    ints[b, S_SWAP_TO] = -1
    if P[O_LAST_SWAP] >= 0:
        for s in range(n):
            if obs[P[O_LAST_SWAP] + s] > 0.5:  # an exchange: which of the two is which does not matter
                if ints[b, S_SWAP_FROM] < 0:
                    ints[b, S_SWAP_FROM] = s
                else:
                    ints[b, S_SWAP_TO] = s
    ints[b, S_REVEAL_VIEWER] = -1
    ints[b, S_REVEAL_OWNER] = -1
    ints[b, S_TREND_VIEWER] = -1
    ints[b, S_TREND_COLOUR] = -1
    ints[b, S_LAST_WINNER] = -1
    ints[b, S_FORFEIT] = -1
    alive_count = 0
    for s in range(n):
        alive = obs[P[O_ALIVE] + s] > 0.5
        ints[b, P[P_I_ALIVE] + s] = 1 if alive else 0
        alive_count += 1 if alive else 0
        ints[b, P[P_I_OUTCOME] + s] = 0 if alive else -1
        ints[b, P[P_I_HAND_SIZE] + s] = np.int32(obs[P[O_HAND_SIZES] + s])
        ints[b, P[P_I_SCORE] + s] = np.int32(obs[P[O_SCORES] + s])
        ints[b, P[P_I_TREND] + s] = -1
        drew_on = 0
        for c in range(4):
            if obs[P[O_DREW_ON] + 4 * s + c] > 0.5:
                drew_on |= 1 << c
        ints[b, P[P_I_DREW_ON] + s] = drew_on
        ints[b, P[P_I_NAMED] + s] = _one_hot(obs, P[O_NAMED_COLOUR] + 4 * s, 4)
    ints[b, S_N_ALIVE] = alive_count


@kernel
def discard_pile_from(obs, P, cards, ints, b):
    """The discard pile: its counts are known, its order only matters for the top card
    (written last). Returns the top card's face (-1 when there is none)."""
    F = P[P_FACES]
    top = _one_hot(obs, P[O_TOP_CARD], F)
    k = 0
    for f in range(F):
        copies = np.int64(obs[P[O_DISCARD_PILE] + f])
        cards[b, P[P_C_DISCARD_COUNTS] + f] = copies
        if f == top:
            copies -= 1
        for _ in range(copies):
            cards[b, P[P_C_DISCARD] + k] = f
            k += 1
    if top >= 0:
        cards[b, P[P_C_DISCARD] + k] = top
        k += 1
    ints[b, S_DISCARD_COUNT] = k
    return top


@kernel
def place_soft_information(obs, P, prng, pb, cards, ints, b, unseen, need):
    """Cards shown to the observer (a challenge's reveal, Fashion Trend's shown ranks) go
    back to their owner while unseen copies remain, taking them from ``unseen`` and the
    owner's ``need``."""
    n = P[P_NUM_PLAYERS]
    F = P[P_FACES]
    owner = _one_hot(obs, P[O_CHALLENGE_REVEAL_SEAT], n)
    if owner >= 0:
        ints[b, S_REVEAL_VIEWER] = 0
        ints[b, S_REVEAL_OWNER] = owner
        revealed = 0
        for f in range(F):
            shown = np.int64(obs[P[O_CHALLENGE_REVEAL] + f])
            cards[b, P[P_C_REVEAL] + f] = shown
            revealed += shown
        # the reveal lasts the round and goes stale as the owner plays: a revealed card
        # is taken as still held with chance (cards held now) / (cards shown), at most 1
        keep = min(1.0, need[owner] / max(revealed, 1)) if owner > 0 else 0.0
        for f in range(F):
            for _ in range(np.int64(obs[P[O_CHALLENGE_REVEAL] + f])):
                if unseen[f] > 0 and need[owner] > 0 and K.rng_below(prng, pb, 1 << 20) < keep * (1 << 20):
                    cards[b, P[P_C_HANDS] + owner * F + f] += 1
                    unseen[f] -= 1
                    need[owner] -= 1
    if P[O_TREND_COLOUR] < 0:
        return
    trend = _one_hot(obs, P[O_TREND_COLOUR], 4)
    if trend < 0:
        return
    ints[b, S_TREND_VIEWER] = 0
    ints[b, S_TREND_COLOUR] = trend
    for s in range(n):
        rank = _one_hot(obs, P[O_TREND_SHOWN] + s * RANKS_PER_COLOUR, RANKS_PER_COLOUR)
        if rank >= 0:
            f = trend * RANKS_PER_COLOUR + rank
            ints[b, P[P_I_TREND] + s] = f
            # shown cards stay in hand but may have been played since: kept half the time
            if s > 0 and unseen[f] > 0 and need[s] > 0 and K.rng_below(prng, pb, 2) == 0:
                cards[b, P[P_C_HANDS] + s * F + f] += 1
                unseen[f] -= 1
                need[s] -= 1


@kernel
def wild_draw_four_offender(obs, P, ints, b, top):
    """The seat whose Wild Draw Four's guilt the sample must judge, or -1."""
    phase = ints[b, S_PHASE]
    if phase == PH_CHALLENGE or (phase == PH_PENALTY and top == WILD_DRAW_FOUR):
        return obs_next_seat(obs, P, 0, -ints[b, S_DIRECTION])  # the target decides: the seat before it played
    if phase == PH_CATCH and top == WILD_DRAW_FOUR and ints[b, S_PENDING] > 0:
        return ints[b, S_EXPOSED]  # stacking: the window on a Wild Draw Four's player comes first
    return -1


@kernel
def held_out(face, lacks):
    """Face ``face`` is excluded by ``lacks``: bits 0-3 a colour the seat holds none of,
    bit 4 (:data:`LACKS_WILDS`) the wild-type cards."""
    if face >= WILD:
        return (lacks >> LACKS_WILDS) & 1 == 1
    return (lacks >> (face // RANKS_PER_COLOUR)) & 1 == 1


@kernel
def deal_within(P, cards, b, pool, m, need, lacks, taken, order):
    """Deal the shuffled ``pool`` to the other hands so that no seat gets a face its
    ``lacks`` excludes: the seats with exclusions first, each taking the first cards it may
    hold in the pool's order (a uniform draw among them), then the others; ``pool`` is
    reordered so that the dealt cards come first and the rest, still shuffled, are the
    draw pile. False (``pool`` unchanged, hands partly dealt) when a seat cannot be
    filled."""
    n = P[P_NUM_PLAYERS]
    F = P[P_FACES]
    for i in range(m):
        taken[i] = False
    k = 0
    for constrained_pass in (True, False):
        for s in range(1, n):
            if (lacks[s] != 0) != constrained_pass:
                continue
            got = 0
            for i in range(m):
                if got == need[s]:
                    break
                if taken[i] or held_out(pool[i], lacks[s]):
                    continue
                taken[i] = True
                order[k] = pool[i]
                k += 1
                cards[b, P[P_C_HANDS] + s * F + pool[i]] += 1
                got += 1
            if got < need[s]:
                return False
    for i in range(m):
        if not taken[i]:
            order[k] = pool[i]
            k += 1
    for i in range(m):
        pool[i] = order[i]
    return True


@kernel
def deal_pool(
    P, prng, pb, cards, b, pool, m, need, base_hands, offender, previous, bluff_prior, max_tries, lacks, taken, order
):
    """Shuffle the unseen ``pool`` into the other hands (``need`` each, on top of
    ``base_hands``), keeping from each seat the faces its ``lacks`` excludes
    (:func:`deal_within`, with ``taken`` and ``order`` of ``m`` entries as its scratch,
    empty when no seat lacks anything; an unconstrained deal when that cannot be done).
    When a Wild Draw Four's guilt is at stake, a guilty sample is redrawn (up to
    ``max_tries``) unless ``bluff_prior`` keeps it."""
    n = P[P_NUM_PLAYERS]
    F = P[P_FACES]
    constrained = taken.shape[0] > 0
    for attempt in range(max_tries):
        for i in range(m - 1, 0, -1):
            j = K.rng_below(prng, pb, i + 1)
            tmp = pool[i]
            pool[i] = pool[j]
            pool[j] = tmp
        for i in range(n * F):
            cards[b, P[P_C_HANDS] + i] = base_hands[i]
        if not (constrained and deal_within(P, cards, b, pool, m, need, lacks, taken, order)):
            if constrained:  # a failed constrained deal left hands half dealt
                for i in range(n * F):
                    cards[b, P[P_C_HANDS] + i] = base_hands[i]
            i = 0
            for s in range(1, n):
                for _ in range(need[s]):
                    cards[b, P[P_C_HANDS] + s * F + pool[i]] += 1
                    i += 1
        if offender < 0 or previous < 0:
            return
        guilty = False
        for r in range(RANKS_PER_COLOUR):
            if cards[b, P[P_C_HANDS] + offender * F + previous * RANKS_PER_COLOUR + r] > 0:
                guilty = True
        if not guilty or attempt == max_tries - 1:
            return
        if K.rng_below(prng, pb, 1 << 20) < bluff_prior * (1 << 20):
            return


@kernel
def lacks_from_draws(obs, P, prng, pb, draw_inference, lacks):
    """Per other seat, what ``drew_on`` says it lacks, each seat with chance
    ``draw_inference``: every colour it drew on since it last played, and the wilds (a
    player who draws only when it cannot play held none of them when it drew; cards drawn
    since, a penalty's too, are not told apart)."""
    n = P[P_NUM_PLAYERS]
    for s in range(n):
        lacks[s] = 0
    if draw_inference <= 0.0:
        return
    for s in range(1, n):
        bits = 0
        for c in range(4):
            if drew_on(obs, P, s, c):
                bits |= 1 << c
        if bits != 0 and (draw_inference >= 1.0 or K.rng_below(prng, pb, 1 << 20) < draw_inference * (1 << 20)):
            lacks[s] = bits | (1 << LACKS_WILDS)


@allocating
def determinize(obs, P, prng, pb, cards, ints, rng, b, bluff_prior, max_tries, draw_inference=0.0):
    """Write into game ``b`` a full state consistent with observation ``obs``, the
    observer at seat 0 (seats are the observation's relative seats). Returns False
    when the observation cannot be completed (the card counts do not add up).

    ``draw_inference`` (0..1): the chance that a seat which drew since it last played is
    dealt none of the colours it drew on, nor a wild (:func:`lacks_from_draws`): what a
    player who never draws when it can play reveals by drawing.

    Under the house rules the public facts come from their slices: the pending penalty,
    the seat that played the top card (-1 without ``top_card_player``), whose turn
    follows a Seven-O choice or a jump-in window (``next_turn``), the last swap. The
    Wild Draw Four on top of a penalty decision was played by the seat before the
    observer, as in the challenge phase (with stacking the catch window on its player,
    the exposed seat, comes first); its guilt is judged on the sampled hand, which may
    hold cards drawn after the play (a catch), where the engine judges the hand at the
    play (D-HOUSE-STACK-JUDGE)."""
    n = P[P_NUM_PLAYERS]
    F = P[P_FACES]
    public_facts(obs, P, cards, ints, b)
    top = discard_pile_from(obs, P, cards, ints, b)

    # what the observer cannot see
    unseen = np.zeros(F, dtype=np.int64)
    total = 0
    for f in range(F):
        held = np.int64(obs[P[O_HAND] + f])
        cards[b, P[P_C_HANDS] + f] = held
        u = face_copies(f) - held - np.int64(obs[P[O_DISCARD_PILE] + f])
        if u < 0:
            return False
        unseen[f] = u
        total += u
    need = np.zeros(n, dtype=np.int64)
    slots = 0
    for s in range(1, n):
        need[s] = np.int64(obs[P[O_HAND_SIZES] + s])
        slots += need[s]
    draw_count = np.int64(obs[P[O_DRAW_PILE_SIZE]])
    if total != slots + draw_count:
        return False
    ints[b, S_DRAW_COUNT] = draw_count
    place_soft_information(obs, P, prng, pb, cards, ints, b, unseen, need)

    pool = np.empty(total, dtype=np.int64)
    m = 0
    for f in range(F):
        for _ in range(unseen[f]):
            pool[m] = f
            m += 1
    offender = wild_draw_four_offender(obs, P, ints, b, top)
    previous = ints[b, S_PREV_COLOUR]
    base_hands = cards[b, P[P_C_HANDS] : P[P_C_HANDS] + n * F].copy()
    lacks = np.zeros(n, dtype=np.int64)
    lacks_from_draws(obs, P, prng, pb, draw_inference, lacks)
    scratch = m if lacks.any() else 0  # the search's default deal allocates nothing more
    taken = np.zeros(scratch, dtype=np.bool_)
    order = np.zeros(scratch, dtype=np.int64)
    deal_pool(
        P,
        prng,
        pb,
        cards,
        b,
        pool,
        m,
        need,
        base_hands,
        offender,
        previous,
        bluff_prior,
        max_tries,
        lacks,
        taken,
        order,
    )
    dealt = m - draw_count  # the rest of the shuffled pool is the draw pile
    for d in range(draw_count):
        cards[b, P[P_C_DRAW] + d] = pool[dealt + d]
    if offender >= 0:
        ints[b, S_WD4_OFFENDER] = offender
        ints[b, S_WD4_GUILTY] = 1 if K.holds_colour(cards, P, b, offender, previous) else 0
        ints[b, S_WD4_OUT] = 1 if ints[b, P[P_I_HAND_SIZE] + offender] == 0 else 0
        ints[b, S_WD4_EXPOSED] = 1 if ints[b, S_PHASE] == PH_CHALLENGE and obs[P[O_EXPOSED] + offender] > 0.5 else 0
    rng[b] = fresh_rng(prng, pb)
    return True
