"""Consistency checks of a state (for tests, debugging and loaded positions).

Each problem is a :class:`Violation` that names the position key at fault where it is
found, so that a loaded position's refusal names that key (``position/reachable.py``)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .cards import WILD, deck_counts, is_draw_card
from .config import HOUSE_PHASES
from .layout import (
    P_DECK_SIZE,
    P_FACES,
    PH_CATCH,
    PH_DRAWN,
    PH_JUMP,
    PH_OVER,
    PH_PENALTY,
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
from .named import ALWAYS_ASKED_PHASES, CHOICE_PHASES, PHASE_DECISIONS, PHASE_NAMES, Phase
from .state import alive, discard_counts, discard_pile, draw_pile, hand_sizes, hands


class Violation(NamedTuple):
    """One thing wrong with a state: the position key at fault (a name of
    ``position/keys.KEY_NAMES``) and what is wrong, in words."""

    key: str
    message: str

    def __str__(self) -> str:
        return self.message


def invariant_violations(game, state, index: int = 0) -> list[Violation]:
    """What is wrong with a state, each problem naming its position key; an empty list
    when the state is consistent."""
    P = game.params
    F = int(P[P_FACES])
    ints = state.ints[index]
    counts = (int(ints[S_DRAW_COUNT]), int(ints[S_DISCARD_COUNT]))
    if not all(0 <= count <= P[P_DECK_SIZE] for count in counts):
        return [Violation("draw_pile", f"pile sizes out of range (draw pile {counts[0]}, discard pile {counts[1]})")]
    held = hands(state.cards, P, index).astype(np.int64)
    draw = draw_pile(state.cards, P, index)[: counts[0]].astype(np.int64)
    discard = discard_pile(state.cards, P, index)[: counts[1]].astype(np.int64)
    if (held < 0).any():
        return [Violation("hands", "a negative count of a card in a hand")]
    if unknown_faces(draw, F):
        return [Violation("draw_pile", "a face outside the deck in the draw pile")]
    if unknown_faces(discard, F):
        return [Violation("discard_pile", "a face outside the deck in the discard pile")]
    problems = card_violations(game, state, index, held, draw, discard)
    in_game = alive(state.ints, P, index)
    if in_game.sum() != ints[S_N_ALIVE]:
        problems.append(Violation("alive", "alive count out of date"))
    if ints[S_PHASE] == PH_OVER:
        if ints[S_CURRENT] != -1:
            problems.append(Violation("current_player", "a finished game has an acting player"))
        return problems
    return problems + decision_violations(game, state, index, held, discard, in_game)


def unknown_faces(pile, F: int) -> bool:
    """Whether a pile holds a face outside the deck's ``F`` faces."""
    return bool((pile < 0).any() or (pile >= F).any())


def card_violations(game, state, index: int, held, draw, discard) -> list[Violation]:
    """Every card of the deck is somewhere, once; hand sizes and discard counts agree."""
    P = game.params
    F = held.shape[1]
    problems: list[Violation] = []
    census = held.sum(axis=0) + np.bincount(draw, minlength=F) + np.bincount(discard, minlength=F)
    expected = deck_counts(game.config.deck).astype(np.int64)
    if not np.array_equal(census, expected):
        diff = {int(f): int(census[f] - expected[f]) for f in np.flatnonzero(census != expected)}
        problems.append(Violation("draw_pile", f"cards not conserved (face: surplus) {diff}"))
    sizes = hand_sizes(state.ints, P, index)
    if not np.array_equal(sizes, held.sum(axis=1)):
        counts = held.sum(axis=1).tolist()
        problems.append(Violation("hands", f"hand sizes {sizes.tolist()} != counts {counts}"))
    if not np.array_equal(discard_counts(state.cards, P, index), np.bincount(discard, minlength=F)):
        problems.append(Violation("discard_pile", "discard counts out of date"))
    return problems


def decision_violations(game, state, index: int, held, discard, in_game) -> list[Violation]:
    """A game in play: a seat in play decides, on a discard pile with a colour in force, and
    has a legal action; the drawn card is held."""
    ints = state.ints[index]
    phase = ints[S_PHASE]
    current = ints[S_CURRENT]
    problems: list[Violation] = []
    if not 0 <= current < game.num_players or not in_game[current]:
        problems.append(Violation("current_player", f"acting seat {current} is not in play"))
    if len(discard) == 0:
        problems.append(Violation("discard_pile", "empty discard pile"))
    if not -1 <= ints[S_COLOUR] < 4:
        problems.append(Violation("colour", "bad colour"))
    if phase == PH_DRAWN and (ints[S_DRAWN] < 0 or held[current, ints[S_DRAWN]] == 0):
        problems.append(Violation("drawn_card", "drawn card not in hand"))
    problems += asked_violations(game, state, index, phase)
    return problems + house_rule_violations(game.config, held, discard, ints, phase, current)


def asked_violations(game, state, index: int, phase) -> list[Violation]:
    """The acting player has a legal action, and a choice of them where it is asked."""
    mask = game.legal_mask(state, index)
    if mask.sum() == 0:
        return [Violation("current_player", "the acting player has no legal action")]
    if mask.sum() == 1 and phase not in ALWAYS_ASKED_PHASES:
        # only the decisions declared asked "always" are (a turn with nothing to play but
        # `draw`, a penalty decision with only `accept`, D-HOUSE-STACK-ASKED); every other
        # one-action decision is made without asking (D-DRAWN, R-HOUSE-FORCE-1,
        # R-HOUSE-JUMP-2, R-HOUSE-SEVENO-1)
        action = game.action_to_string(int(mask.argmax()))
        return [Violation("phase", f"a decision with one action ({action}) is asked")]
    return []


def house_rule_violations(config, hands, discard, ints, phase, current) -> list[Violation]:
    """The house rules' state in a game in play under the settings ``config`` (a
    RuleConfig; HOUSE_RULES.md): a house rule's decision or state only while the rule is on."""
    top = int(discard[-1]) if len(discard) else -1
    problems: list[Violation] = []
    if not config.asks(phase):
        problems.append(
            Violation("phase", f"a {phase_name(phase)} decision with the house rule {HOUSE_PHASES[int(phase)]} off")
        )
    problems += penalty_violations(config, ints, phase, top)
    return problems + choice_violations(hands, ints, phase, current, top)


def phase_name(phase) -> str:
    """A phase as the positions name it (``'play'``), or its number if it has no name."""
    return repr(PHASE_NAMES[phase]) if 0 <= phase < len(PHASE_NAMES) else str(int(phase))


def penalty_violations(config, ints, phase, top: int) -> list[Violation]:
    """A stack's pending penalty: only with stacking on, in its decision or the catch window
    before it, from a draw card."""
    problems: list[Violation] = []
    pending = ints[S_PENDING]
    if pending < 0 or (pending > 0 and phase not in (PH_PENALTY, PH_CATCH)):
        problems.append(Violation("pending_penalty", f"a pending penalty of {pending} in phase {phase_name(phase)}"))
    elif pending > 0 and not config.asks(PH_PENALTY):  # no stacking
        problems.append(
            Violation("pending_penalty", f"a pending penalty of {pending} with the house rule stacking off")
        )
    if phase == PH_PENALTY and (pending <= 0 or not is_draw_card(top)):
        problems.append(
            Violation("pending_penalty", "a penalty decision without a pending penalty from a draw card on top")
        )
    return problems


def choice_violations(hands, ints, phase, current, top: int) -> list[Violation]:
    """A choice after a card follows its player's card (Seven-O's 7); a jump-in is asked of a
    holder of the card on top."""
    problems: list[Violation] = []
    choice = CHOICE_PHASES.get(int(phase))
    if choice and (not choice.follows(top) or ints[S_TOP_PLAYER] != current):
        words = PHASE_DECISIONS[Phase(int(phase))].words
        problems.append(Violation("phase", f"a {words} choice that does not follow its player's {choice.card}"))
    if phase == PH_JUMP and (
        top >= WILD or hands[current, top] == 0 or current in (ints[S_TOP_PLAYER], ints[S_FOLLOWING])
    ):
        problems.append(Violation("phase", "a jump-in decision for a seat that may not jump in"))
    return problems
