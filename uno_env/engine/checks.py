"""Consistency checks of a state (for tests, debugging and loaded positions)."""

from __future__ import annotations

import numpy as np

from .cards import RANK_DRAW_TWO, RANK_SEVEN, WILD, WILD_DRAW_FOUR, deck_counts
from .layout import (
    P_C_DISCARD,
    P_C_DISCARD_COUNTS,
    P_C_DRAW,
    P_C_HANDS,
    P_FACES,
    P_I_ALIVE,
    P_I_HAND_SIZE,
    PH_CATCH,
    PH_DRAWN,
    PH_JUMP,
    PH_OVER,
    PH_PENALTY,
    PH_PLAY,
    PH_SWAP,
    S_COLOUR,
    S_CURRENT,
    S_DISCARD_COUNT,
    S_DRAW_COUNT,
    S_DRAWN,
    S_FOLLOWING,
    S_N_ALIVE,
    S_PENDING,
    S_PHASE,
    S_TOP_PLAYER,
)


def invariant_violations(game, state, index: int = 0) -> list[str]:
    """What is wrong with a state; an empty list when it is consistent."""
    P = game.params
    n = game.num_players
    F = int(P[P_FACES])
    cards = state.cards[index].astype(np.int64)
    ints = state.ints[index]
    problems = []
    hands = cards[P[P_C_HANDS] : P[P_C_HANDS] + n * F].reshape(n, F)
    draw = cards[P[P_C_DRAW] : P[P_C_DRAW] + ints[S_DRAW_COUNT]]
    discard = cards[P[P_C_DISCARD] : P[P_C_DISCARD] + ints[S_DISCARD_COUNT]]
    if (hands < 0).any() or (draw < 0).any() or (draw >= F).any() or (discard < 0).any() or (discard >= F).any():
        return ["negative count or unknown face"]
    census = hands.sum(axis=0) + np.bincount(draw, minlength=F) + np.bincount(discard, minlength=F)
    expected = deck_counts(game.config.deck).astype(np.int64)
    if not np.array_equal(census, expected):
        diff = {int(f): int(census[f] - expected[f]) for f in np.flatnonzero(census != expected)}
        problems.append(f"cards not conserved (face: surplus) {diff}")
    sizes = ints[P[P_I_HAND_SIZE] : P[P_I_HAND_SIZE] + n]
    if not np.array_equal(sizes, hands.sum(axis=1)):
        problems.append(f"hand sizes {sizes.tolist()} != counts {hands.sum(axis=1).tolist()}")
    if not np.array_equal(cards[P[P_C_DISCARD_COUNTS] : P[P_C_DISCARD_COUNTS] + F], np.bincount(discard, minlength=F)):
        problems.append("discard counts out of date")
    alive = ints[P[P_I_ALIVE] : P[P_I_ALIVE] + n]
    if alive.sum() != ints[S_N_ALIVE]:
        problems.append("alive count out of date")
    phase = ints[S_PHASE]
    current = ints[S_CURRENT]
    if phase == PH_OVER:
        if current != -1:
            problems.append("a finished game has an acting player")
    else:
        if not 0 <= current < n or not alive[current]:
            problems.append(f"acting seat {current} is not in play")
        if len(discard) == 0:
            problems.append("empty discard pile")
        if not -1 <= ints[S_COLOUR] < 4:
            problems.append("bad colour")
        if phase == PH_DRAWN and (ints[S_DRAWN] < 0 or hands[current, ints[S_DRAWN]] == 0):
            problems.append("drawn card not in hand")
        mask = game.legal_mask(state, index)
        if mask.sum() == 0:
            problems.append("the acting player has no legal action")
        elif mask.sum() == 1 and phase not in (PH_PLAY, PH_PENALTY):
            # only a turn with nothing to play but `draw` and a penalty decision with only
            # `accept` (D-HOUSE-STACK-ASKED) are asked; every other one-action decision is
            # made without asking (D-DRAWN, R-HOUSE-FORCE-1, R-HOUSE-JUMP-2, R-HOUSE-SEVENO-1)
            problems.append(f"a decision with one action ({game.action_to_string(int(mask.argmax()))}) is asked")
        problems += house_rule_violations(hands, discard, ints, phase, current)
    return problems


def house_rule_violations(hands, discard, ints, phase, current) -> list[str]:
    """The house rules' state in a game in play (HOUSE_RULES.md)."""
    problems = []
    top = int(discard[-1]) if len(discard) else -1
    pending = ints[S_PENDING]
    if pending < 0 or (pending > 0 and phase not in (PH_PENALTY, PH_CATCH)):
        problems.append(f"a pending penalty of {pending} in phase {phase}")
    if phase == PH_PENALTY and (
        pending <= 0 or not (top == WILD_DRAW_FOUR or (top < WILD and top % 13 == RANK_DRAW_TWO))
    ):
        problems.append("a penalty decision without a pending penalty from a draw card on top")
    if phase == PH_SWAP and (top >= WILD or top % 13 != RANK_SEVEN or ints[S_TOP_PLAYER] != current):
        problems.append("a Seven-O choice that does not follow its player's 7")
    if phase == PH_JUMP and (
        top >= WILD or hands[current, top] == 0 or current in (ints[S_TOP_PLAYER], ints[S_FOLLOWING])
    ):
        problems.append("a jump-in decision for a seat that may not jump in")
    return problems
