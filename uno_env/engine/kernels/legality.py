"""What may be played: one predicate, :func:`may_play`, says whether a seat may play a card
in the decision at hand; the mask and every decision that accepts a card ask it (R-TURN-1's
match, the drawn card, what answers a stack, the jump-in card). A new legality rule is one
edit there. :func:`allow_play` marks a card's play in a mask (its action, or a wild's four)."""

from __future__ import annotations

from ..cards import RANK_DRAW_TWO, RANKS_PER_COLOUR, WILD, WILD_DRAW_FOUR, matches_on
from ..jit import describe, kernel
from ..layout import (
    P_A_FT,
    P_A_W,
    P_A_W4,
    P_FACES,
    P_STACKING,
    PH_DRAWN,
    PH_JUMP,
    PH_PENALTY,
    PH_PLAY,
    S_COLOUR,
    S_DRAWN,
    S_FOLLOWING,
    S_TOP_PLAYER,
    S_WD4_OUT,
    STACKING_MIXED,
)
from ..state import hand, hand_count, top_face

describe(__name__, "the rules engine's kernels", seconds=45)


@kernel(forceinline=True)
def may_play(cards, ints, P, b, seat, face, phase):
    """Whether ``seat`` may play ``face`` now, in decision ``phase`` (a ``PH_*``): the one
    home of card legality. The seat must hold a copy of the face, the phase's rule must
    allow it, and no rule may forbid it (:func:`forbidden`). The phases' rules:

    * ``PH_PLAY``, a turn: R-TURN-1's match (a wild-type card always; a Wild Draw Four's
      legality is judged by a challenge, R-WD4);
    * ``PH_DRAWN``, the drawn-card decision: only the drawn card (``S_DRAWN``), and only
      if it matches (R-TURN-3, D-DRAWN);
    * ``PH_PENALTY``, a stack's penalty decision: a card that stacks (R-HOUSE-STACK-2/5);
    * ``PH_JUMP``, a jump-in: the card identical to the coloured card on top, by a seat other
      than the one that played it and the one whose turn is due (R-HOUSE-JUMP-1/2);
    * any other phase (a colour, a challenge, a catch, Seven-O's choice): no card.

    Force-inlined by LLVM: numba's own inlining (``inline="always"``) made each call 10x
    slower here. The mask narrows the faces it asks about by these rules
    (``mask.allow_turn_plays`` marks a turn's held matching faces at once, then asks
    :func:`forbidden` of each), so a rule that allows more than these must widen the mask
    too; ``tests/test_legality.py`` checks the mask face by face against this function."""
    if not holds_card(cards, P, b, seat, face):
        return False
    if phase == PH_PLAY:
        allowed = matches(cards, ints, P, b, face)
    elif phase == PH_DRAWN:
        allowed = face == ints[b, S_DRAWN] and matches(cards, ints, P, b, face)
    elif phase == PH_PENALTY:
        allowed = stackable(cards, ints, P, b, face)
    elif phase == PH_JUMP:
        allowed = (
            face < WILD
            and face == top_face(cards, ints, P, b)
            and seat != ints[b, S_TOP_PLAYER]
            and seat != ints[b, S_FOLLOWING]
        )
    else:
        allowed = False
    return allowed and not forbidden(cards, ints, P, b, seat, face, phase)


@kernel(inline="always")
def forbidden(cards, ints, P, b, seat, face, phase):
    """Whether a rule setting forbids ``seat`` to play ``face`` in ``phase`` where the phase's
    own rule allows it: where a legality rule that only forbids is written, once (for
    example no action card as the last card: its setting, ``hand_size(...) == 1`` and the
    face's rank). No rule of RULES.md or HOUSE_RULES.md forbids more today, so this is
    False, and the compiler drops the check from the mask's fast path, which then costs
    what it did before the predicate (``tests/test_legality.py`` gives it a rule)."""
    return False


@kernel
def may_play_any(cards, ints, P, b, seat, phase):
    """Whether ``seat`` may play some card in decision ``phase`` (:func:`may_play`), asked
    only of the faces it can allow there: the drawn card, the card on top of a jump-in, or
    the held faces."""
    if phase == PH_DRAWN:
        return may_play(cards, ints, P, b, seat, ints[b, S_DRAWN], phase)
    if phase == PH_JUMP:
        return may_play(cards, ints, P, b, seat, top_face(cards, ints, P, b), phase)
    held = hand(cards, P, b, seat)
    for f in range(P[P_FACES]):
        if held[f] > 0 and may_play(cards, ints, P, b, seat, f, phase):
            return True
    return False


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
    return 0 <= face < P[P_FACES] and hand_count(cards, P, b, seat, face) > 0


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
def allow_if_legal(cards, ints, P, b, player, face, phase, out):
    """Mark the play of ``face`` legal if :func:`~.legality.may_play` allows it."""
    if may_play(cards, ints, P, b, player, face, phase):
        allow_play(P, face, out)
