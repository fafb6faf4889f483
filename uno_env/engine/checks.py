"""Consistency checks of a state (for tests, debugging and loaded positions)."""

from __future__ import annotations

import numpy as np

from .cards import RANK_SEVEN, WILD, deck_counts, face_rank, is_draw_card
from .layout import (
    P_DECK_SIZE,
    P_FACES,
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
from .state import alive, discard_counts, discard_pile, draw_pile, hand_sizes, hands


def invariant_violations(game, state, index: int = 0) -> list[str]:
    """What is wrong with a state; an empty list when it is consistent."""
    P = game.params
    F = int(P[P_FACES])
    ints = state.ints[index]
    counts = (int(ints[S_DRAW_COUNT]), int(ints[S_DISCARD_COUNT]))
    if not all(0 <= count <= P[P_DECK_SIZE] for count in counts):
        return [f"pile sizes out of range (draw pile {counts[0]}, discard pile {counts[1]})"]
    held = hands(state.cards, P, index).astype(np.int64)
    draw = draw_pile(state.cards, P, index)[: counts[0]].astype(np.int64)
    discard = discard_pile(state.cards, P, index)[: counts[1]].astype(np.int64)
    if (held < 0).any() or unknown_faces(draw, F) or unknown_faces(discard, F):
        return ["negative count or unknown face"]
    problems = card_violations(game, state, index, held, draw, discard)
    in_game = alive(state.ints, P, index)
    if in_game.sum() != ints[S_N_ALIVE]:
        problems.append("alive count out of date")
    if ints[S_PHASE] == PH_OVER:
        if ints[S_CURRENT] != -1:
            problems.append("a finished game has an acting player")
        return problems
    return problems + decision_violations(game, state, index, held, discard, in_game)


def unknown_faces(pile, F: int) -> bool:
    """Whether a pile holds a face outside the deck's ``F`` faces."""
    return bool((pile < 0).any() or (pile >= F).any())


def card_violations(game, state, index: int, held, draw, discard) -> list[str]:
    """Every card of the deck is somewhere, once; hand sizes and discard counts agree."""
    P = game.params
    F = held.shape[1]
    problems = []
    census = held.sum(axis=0) + np.bincount(draw, minlength=F) + np.bincount(discard, minlength=F)
    expected = deck_counts(game.config.deck).astype(np.int64)
    if not np.array_equal(census, expected):
        diff = {int(f): int(census[f] - expected[f]) for f in np.flatnonzero(census != expected)}
        problems.append(f"cards not conserved (face: surplus) {diff}")
    sizes = hand_sizes(state.ints, P, index)
    if not np.array_equal(sizes, held.sum(axis=1)):
        problems.append(f"hand sizes {sizes.tolist()} != counts {held.sum(axis=1).tolist()}")
    if not np.array_equal(discard_counts(state.cards, P, index), np.bincount(discard, minlength=F)):
        problems.append("discard counts out of date")
    return problems


def decision_violations(game, state, index: int, held, discard, in_game) -> list[str]:
    """A game in play: a seat in play decides, on a discard pile with a colour in force, and
    has a legal action; the drawn card is held."""
    ints = state.ints[index]
    phase = ints[S_PHASE]
    current = ints[S_CURRENT]
    problems = []
    if not 0 <= current < game.num_players or not in_game[current]:
        problems.append(f"acting seat {current} is not in play")
    if len(discard) == 0:
        problems.append("empty discard pile")
    if not -1 <= ints[S_COLOUR] < 4:
        problems.append("bad colour")
    if phase == PH_DRAWN and (ints[S_DRAWN] < 0 or held[current, ints[S_DRAWN]] == 0):
        problems.append("drawn card not in hand")
    problems += asked_violations(game, state, index, phase)
    return problems + house_rule_violations(held, discard, ints, phase, current)


def asked_violations(game, state, index: int, phase) -> list[str]:
    """The acting player has a legal action, and a choice of them where it is asked."""
    mask = game.legal_mask(state, index)
    if mask.sum() == 0:
        return ["the acting player has no legal action"]
    if mask.sum() == 1 and phase not in (PH_PLAY, PH_PENALTY):
        # only a turn with nothing to play but `draw` and a penalty decision with only
        # `accept` (D-HOUSE-STACK-ASKED) are asked; every other one-action decision is
        # made without asking (D-DRAWN, R-HOUSE-FORCE-1, R-HOUSE-JUMP-2, R-HOUSE-SEVENO-1)
        return [f"a decision with one action ({game.action_to_string(int(mask.argmax()))}) is asked"]
    return []


def house_rule_violations(hands, discard, ints, phase, current) -> list[str]:
    """The house rules' state in a game in play (HOUSE_RULES.md)."""
    top = int(discard[-1]) if len(discard) else -1
    return penalty_violations(ints, phase, top) + choice_violations(hands, ints, phase, current, top)


def penalty_violations(ints, phase, top: int) -> list[str]:
    """A stack's pending penalty: only in its decision or the catch window before it, from a draw card."""
    problems = []
    pending = ints[S_PENDING]
    if pending < 0 or (pending > 0 and phase not in (PH_PENALTY, PH_CATCH)):
        problems.append(f"a pending penalty of {pending} in phase {phase}")
    if phase == PH_PENALTY and (pending <= 0 or not is_draw_card(top)):
        problems.append("a penalty decision without a pending penalty from a draw card on top")
    return problems


def choice_violations(hands, ints, phase, current, top: int) -> list[str]:
    """A Seven-O choice follows its player's 7; a jump-in is asked of a holder of the card on top."""
    problems = []
    if phase == PH_SWAP and (face_rank(top) != RANK_SEVEN or ints[S_TOP_PLAYER] != current):
        problems.append("a Seven-O choice that does not follow its player's 7")
    if phase == PH_JUMP and (
        top >= WILD or hands[current, top] == 0 or current in (ints[S_TOP_PLAYER], ints[S_FOLLOWING])
    ):
        problems.append("a jump-in decision for a seat that may not jump in")
    return problems
