"""Sampling a full state consistent with an observation (the search's information sets):
:func:`determinize`, the inverse of ``kernels.observe``.

What the observation states outright is written as it is (:func:`public_facts`, the
discard pile); the cards the observer cannot see are shuffled into the other hands and
the draw pile (:func:`deal_pool`), keeping what was shown to the observer where it may
still be held (:func:`place_soft_information`) and, when asked, what drawing reveals
(:func:`lacks_from_draws`). ``tests/test_observation.py`` checks that a sampled state
observes as the observation it came from.
"""

from __future__ import annotations

import numpy as np

from .. import kernels as K
from ..cards import RANKS_PER_COLOUR, WILD, WILD_DRAW_FOUR
from ..jit import allocating, describe, kernel
from ..layout import (
    O_ACTING,
    O_AFTER_WINDOW,
    O_ALIVE,
    O_CHALLENGE_REVEAL,
    O_CHALLENGE_REVEAL_SEAT,
    O_COLOUR,
    O_DEALER,
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
    O_PREVIOUS_COLOUR,
    O_SCORES,
    O_TOP_CARD,
    O_TOP_CARD_PLAYER,
    O_TREND_COLOUR,
    O_TREND_SHOWN,
    O_UNO_CALLED,
    P_FACES,
    P_NUM_PLAYERS,
    PH_CATCH,
    PH_CHALLENGE,
    PH_DRAWN,
    PH_PENALTY,
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
)
from ..named import CHOICE_PHASE_MASK, NEXT_TURN_PHASE_MASK
from ..state import (
    add_hand_count,
    clear_cards,
    clear_ints,
    discard_counts,
    discard_pile,
    hand_size,
    hands,
    revealed,
    set_alive,
    set_draw_pile_card,
    set_drew_on_bits,
    set_hand_count,
    set_hand_size,
    set_named_colour,
    set_outcome,
    set_score,
    set_shown_to_trend,
)
from .observed import drew_on, face_copies, obs_colour, obs_direction, obs_next_seat, obs_pending, obs_phase

LACKS_WILDS = 4
"""The bit of a seat's ``lacks`` (:func:`deal_pool`) that excludes the wild-type cards."""
NONZERO_STATE = np.uint64(0x2545F4914F6CDD1D)  # xorshift generators must not start at 0

describe(__name__, "the rules engine's kernels", seconds=45)


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


# ---------------------------------------------------------------- what the observation states
@kernel
def public_facts(obs, P, cards, ints, b):
    """Clear game ``b`` and write what the observation states outright: the phase, the
    turn, colours and direction, the catch window, the house rules' public facts (slices
    present only when their rule is on) and each seat's counts, scores and draws."""
    n = P[P_NUM_PLAYERS]
    clear_cards(cards, P, b, False)
    clear_ints(ints, P, b)
    phase = obs_phase(obs, P)
    ints[b, S_PHASE] = phase
    ints[b, S_CURRENT] = _one_hot(obs, P[O_ACTING], n)
    ints[b, S_DIRECTION] = obs_direction(obs, P)
    ints[b, S_DEALER] = max(_one_hot(obs, P[O_DEALER], n), 0)
    ints[b, S_COLOUR] = obs_colour(obs, P, O_COLOUR)
    ints[b, S_PREV_COLOUR] = obs_colour(obs, P, O_PREVIOUS_COLOUR)
    ints[b, S_DRAWN] = _one_hot(obs, P[O_DRAWN_CARD], P[P_FACES]) if phase == PH_DRAWN else -1
    ints[b, S_UNO_CALLED] = 1 if obs[P[O_UNO_CALLED]] > 0.5 else 0
    ints[b, S_EXPOSED] = -1
    ints[b, S_AFTER_WINDOW] = -1
    if phase == PH_CATCH:
        ints[b, S_EXPOSED] = _one_hot(obs, P[O_EXPOSED], n)
        ints[b, S_AFTER_WINDOW] = _one_hot(obs, P[O_AFTER_WINDOW], n)
    ints[b, S_WD4_OFFENDER] = -1
    house_rule_facts(obs, P, ints, b, phase)
    ints[b, S_REVEAL_VIEWER] = -1
    ints[b, S_REVEAL_OWNER] = -1
    ints[b, S_TREND_VIEWER] = -1
    ints[b, S_TREND_COLOUR] = -1
    ints[b, S_LAST_WINNER] = -1
    ints[b, S_FORFEIT] = -1
    seat_facts(obs, P, ints, b)


@kernel
def house_rule_facts(obs, P, ints, b, phase):
    """The house rules' public facts: the pending penalty, who played the top card, whose
    turn follows the decision where its acting seat knows it (a Seven-O choice, a jump-in),
    the last swap."""
    n = P[P_NUM_PLAYERS]
    ints[b, S_PENDING] = obs_pending(obs, P)
    if P[O_TOP_CARD_PLAYER] >= 0:
        ints[b, S_TOP_PLAYER] = _one_hot(obs, P[O_TOP_CARD_PLAYER], n)
    else:  # without jump_in only a choice after a card reads it: the chooser played the card
        ints[b, S_TOP_PLAYER] = ints[b, S_CURRENT] if (CHOICE_PHASE_MASK >> phase) & 1 else -1
    ints[b, S_FOLLOWING] = -1
    if (NEXT_TURN_PHASE_MASK >> phase) & 1 and P[O_NEXT_TURN] >= 0:
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


@kernel
def seat_facts(obs, P, ints, b):
    """Each seat's public facts: in the game or not (an eliminated seat has lost), hand size,
    score, the colours it drew on, the colour it named last."""
    alive_count = 0
    for s in range(P[P_NUM_PLAYERS]):
        in_game = obs[P[O_ALIVE] + s] > 0.5
        set_alive(ints, P, b, s, 1 if in_game else 0)
        alive_count += 1 if in_game else 0
        set_outcome(ints, P, b, s, 0 if in_game else -1)
        set_hand_size(ints, P, b, s, np.int32(obs[P[O_HAND_SIZES] + s]))
        set_score(ints, P, b, s, np.int32(obs[P[O_SCORES] + s]))
        set_shown_to_trend(ints, P, b, s, -1)
        bits = 0
        for c in range(4):
            if obs[P[O_DREW_ON] + 4 * s + c] > 0.5:
                bits |= 1 << c
        set_drew_on_bits(ints, P, b, s, bits)
        set_named_colour(ints, P, b, s, _one_hot(obs, P[O_NAMED_COLOUR] + 4 * s, 4))
    ints[b, S_N_ALIVE] = alive_count


@kernel
def discard_pile_from(obs, P, cards, ints, b):
    """The discard pile: its counts are known, its order only matters for the top card
    (written last). Returns the top card's face (-1 when there is none)."""
    F = P[P_FACES]
    top = _one_hot(obs, P[O_TOP_CARD], F)
    counts = discard_counts(cards, P, b)
    pile = discard_pile(cards, P, b)
    k = 0
    for f in range(F):
        copies = np.int64(obs[P[O_DISCARD_PILE] + f])
        counts[f] = copies
        if f == top:
            copies -= 1
        for _ in range(copies):
            pile[k] = f
            k += 1
    if top >= 0:
        pile[k] = top
        k += 1
    ints[b, S_DISCARD_COUNT] = k
    return top


@kernel
def unseen_cards(obs, P, cards, b, unseen):
    """The observer's hand into seat 0, and per face the copies it cannot see (``unseen``,
    neither in its hand nor in the discard pile); their total, -1 when the counts exceed
    the deck."""
    total = 0
    for f in range(P[P_FACES]):
        held = np.int64(obs[P[O_HAND] + f])
        set_hand_count(cards, P, b, 0, f, held)
        u = face_copies(f) - held - np.int64(obs[P[O_DISCARD_PILE] + f])
        if u < 0:
            return -1
        unseen[f] = u
        total += u
    return total


@kernel
def hand_slots(obs, P, need):
    """Per other seat the cards its hand holds (``need``); their total."""
    slots = 0
    for s in range(1, P[P_NUM_PLAYERS]):
        need[s] = np.int64(obs[P[O_HAND_SIZES] + s])
        slots += need[s]
    return slots


# ---------------------------------------------------------------- what was shown and what drawing tells
@kernel
def place_soft_information(obs, P, prng, pb, cards, ints, b, unseen, need):
    """Cards shown to the observer (a challenge's reveal, Fashion Trend's shown ranks) go
    back to their owner while unseen copies remain, taking them from ``unseen`` and the
    owner's ``need``."""
    place_revealed_hand(obs, P, prng, pb, cards, ints, b, unseen, need)
    if P[O_TREND_COLOUR] < 0:
        return
    trend = _one_hot(obs, P[O_TREND_COLOUR], 4)
    if trend < 0:
        return
    ints[b, S_TREND_VIEWER] = 0
    ints[b, S_TREND_COLOUR] = trend
    for s in range(P[P_NUM_PLAYERS]):
        rank = _one_hot(obs, P[O_TREND_SHOWN] + s * RANKS_PER_COLOUR, RANKS_PER_COLOUR)
        if rank >= 0:
            f = trend * RANKS_PER_COLOUR + rank
            set_shown_to_trend(ints, P, b, s, f)
            # shown cards stay in hand but may have been played since: kept half the time
            if s > 0 and unseen[f] > 0 and need[s] > 0 and K.rng_below(prng, pb, 2) == 0:
                add_hand_count(cards, P, b, s, f, 1)
                unseen[f] -= 1
                need[s] -= 1


@kernel
def place_revealed_hand(obs, P, prng, pb, cards, ints, b, unseen, need):
    """The hand a challenge showed the observer, as shown, and the part of it its owner
    still holds, sampled."""
    F = P[P_FACES]
    owner = _one_hot(obs, P[O_CHALLENGE_REVEAL_SEAT], P[P_NUM_PLAYERS])
    if owner < 0:
        return
    ints[b, S_REVEAL_VIEWER] = 0
    ints[b, S_REVEAL_OWNER] = owner
    shown_hand = revealed(cards, P, b)
    count = 0
    for f in range(F):
        shown = np.int64(obs[P[O_CHALLENGE_REVEAL] + f])
        shown_hand[f] = shown
        count += shown
    # the reveal lasts the round and goes stale as the owner plays: a revealed card
    # is taken as still held with chance (cards held now) / (cards shown), at most 1
    keep = min(1.0, need[owner] / max(count, 1)) if owner > 0 else 0.0
    for f in range(F):
        for _ in range(np.int64(obs[P[O_CHALLENGE_REVEAL] + f])):
            if unseen[f] > 0 and need[owner] > 0 and K.rng_below(prng, pb, 1 << 20) < keep * (1 << 20):
                add_hand_count(cards, P, b, owner, f, 1)
                unseen[f] -= 1
                need[owner] -= 1


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


# ---------------------------------------------------------------- the deal of the unseen cards
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
                add_hand_count(cards, P, b, s, pool[i], 1)
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
def restore_hands(P, cards, b, base_hands):
    """Every hand back to ``base_hands`` (seats by faces)."""
    held = hands(cards, P, b)
    for s in range(P[P_NUM_PLAYERS]):
        for f in range(P[P_FACES]):
            held[s, f] = base_hands[s, f]


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
    constrained = taken.shape[0] > 0
    for attempt in range(max_tries):
        for i in range(m - 1, 0, -1):
            j = K.rng_below(prng, pb, i + 1)
            tmp = pool[i]
            pool[i] = pool[j]
            pool[j] = tmp
        restore_hands(P, cards, b, base_hands)
        if not (constrained and deal_within(P, cards, b, pool, m, need, lacks, taken, order)):
            if constrained:  # a failed constrained deal left hands half dealt
                restore_hands(P, cards, b, base_hands)
            i = 0
            for s in range(1, P[P_NUM_PLAYERS]):
                for _ in range(need[s]):
                    add_hand_count(cards, P, b, s, pool[i], 1)
                    i += 1
        if offender < 0 or previous < 0:
            return
        guilty = K.holds_colour(cards, P, b, offender, previous)
        if not guilty or attempt == max_tries - 1:
            return
        if K.rng_below(prng, pb, 1 << 20) < bluff_prior * (1 << 20):
            return


# ---------------------------------------------------------------- the Wild Draw Four on top
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
def judge_wild_draw_four(obs, P, cards, ints, b, offender):
    """The pending Wild Draw Four's facts, judged on the sampled hand of its player."""
    ints[b, S_WD4_OFFENDER] = offender
    ints[b, S_WD4_GUILTY] = 1 if K.holds_colour(cards, P, b, offender, ints[b, S_PREV_COLOUR]) else 0
    ints[b, S_WD4_OUT] = 1 if hand_size(ints, P, b, offender) == 0 else 0
    ints[b, S_WD4_EXPOSED] = 1 if ints[b, S_PHASE] == PH_CHALLENGE and obs[P[O_EXPOSED] + offender] > 0.5 else 0


# ---------------------------------------------------------------- the sample
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
    public_facts(obs, P, cards, ints, b)
    top = discard_pile_from(obs, P, cards, ints, b)
    unseen = np.zeros(P[P_FACES], dtype=np.int64)
    total = unseen_cards(obs, P, cards, b, unseen)
    need = np.zeros(n, dtype=np.int64)
    draw_count = np.int64(obs[P[O_DRAW_PILE_SIZE]])
    if total < 0 or total != hand_slots(obs, P, need) + draw_count:
        return False
    ints[b, S_DRAW_COUNT] = draw_count
    place_soft_information(obs, P, prng, pb, cards, ints, b, unseen, need)

    pool = np.repeat(np.arange(P[P_FACES], dtype=np.int64), unseen)
    m = pool.shape[0]
    offender = wild_draw_four_offender(obs, P, ints, b, top)
    base_hands = hands(cards, P, b).copy()
    lacks = np.zeros(n, dtype=np.int64)
    lacks_from_draws(obs, P, prng, pb, draw_inference, lacks)
    scratch = m if lacks.any() else 0  # the search's default deal allocates nothing more
    taken = np.zeros(scratch, dtype=np.bool_)
    order = np.zeros(scratch, dtype=np.int64)
    previous = ints[b, S_PREV_COLOUR]
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
        set_draw_pile_card(cards, P, b, d, pool[dealt + d])
    if offender >= 0:
        judge_wild_draw_four(obs, P, cards, ints, b, offender)
    rng[b] = fresh_rng(prng, pb)
    return True
