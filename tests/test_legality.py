"""Card legality has one home, ``kernels.legality.may_play``: over random reachable states of
several variants (the house rules on), the legal mask equals the predicate asked face by
face in every phase, UNO is offered exactly where the predicate allows a card, and every
decision accepts exactly the card plays the mask allows (``illegal_action="raise"``: any
other play is refused and changes nothing)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from uno_env.engine import Game, IllegalActionError, interpreted, named
from uno_env.engine import kernels as K
from uno_env.engine.cards import RANK_SKIP, RANKS_PER_COLOUR, WILD, WILD_DRAW_FOUR
from uno_env.engine.layout import (
    P_A_DRAW,
    P_A_FT,
    P_A_UNO,
    P_A_W,
    P_A_W4,
    P_FACES,
    P_NUM_PLAYERS,
    PH_CATCH,
    PH_CHALLENGE,
    PH_COLOR,
    PH_DRAWN,
    PH_JUMP,
    PH_PENALTY,
    PH_PLAY,
    PH_SWAP,
    S_CURRENT,
    S_PHASE,
    S_UNO_CALLED,
)
from uno_env.engine.state import hand, hand_size

from . import variants

NAMES = (
    "2p",
    "3p-fashion",
    "2p-stacking-jump-in-force",
    "4p-partners-stacking-seven-o-jump-in",
    "4p-house-all-raise",
    "6p-partners-house-all",
    "10p-fashion-house-all",
    "5p-challenge-seven-o-draw-force",
)
STEPS = 250
CARD_PHASES = named.CARD_PHASES
"""The decisions in which a card can be played (declared: ``plays_cards``); in the others
``may_play`` allows none."""


def play_actions(P, face) -> list[int]:
    """The action ids that play ``face``: its own, or one per colour for a wild-type card."""
    if face < WILD:
        return [face]
    first = P[P_A_W] if face == WILD else (P[P_A_W4] if face == WILD_DRAW_FOUR else P[P_A_FT])
    return [int(first) + c for c in range(4)]


def check_state(game, state, counts) -> None:
    """The mask against ``may_play`` face by face, UNO against it, and the decisions against the mask."""
    P, cards, ints = game.params, state.cards, state.ints
    seat, phase = int(ints[0, S_CURRENT]), int(ints[0, S_PHASE])
    mask = game.legal_mask(state)
    allowed = [bool(K.may_play(cards, ints, P, 0, seat, f, phase)) for f in range(P[P_FACES])]
    for f, legal in enumerate(allowed):
        marks = {int(mask[a]) for a in play_actions(P, f)}
        assert marks == {int(legal)}, f"phase {game.phase(state)}, face {f}: mask {marks}, may_play {legal}"
    if phase not in CARD_PHASES:
        assert not any(allowed)
    assert bool(K.may_play_any(cards, ints, P, 0, seat, phase)) == any(allowed)
    if hand_size(ints, P, 0, seat) == 2 and ints[0, S_UNO_CALLED] == 0 and game.config.uno_call != "off":
        assert bool(mask[P[P_A_UNO]]) == any(allowed), "UNO is offered where a card may be played (D-UNO)"
    held = hand(cards, P, 0, seat)
    for f in range(P[P_FACES]):
        if held[f] == 0 and not (phase in CARD_PHASES and f % 7 == 0):
            continue  # every held face, and a few faces not held
        for a in play_actions(P, f)[:1]:
            trial = state.copy()
            try:
                game.step(trial, a)
                accepted = True
            except IllegalActionError:
                accepted = False
                assert trial == state, "a refused play changes nothing"
            assert accepted == bool(mask[a]), f"phase {game.phase(state)}: play of face {f} accepted={accepted}"
            counts[phase] = counts.get(phase, 0) + 1


@pytest.mark.parametrize("name", NAMES)
def test_the_mask_and_every_decision_follow_may_play(name):
    """``STEPS`` random legal steps of the variant (``illegal_action="raise"``), every state checked."""
    (variant,) = [v for v in variants.variants() if v.name == name]
    game = Game(**{**variant.settings, "illegal_action": "raise", "max_steps": 400})
    rng = np.random.default_rng(len(name))
    counts: dict[int, int] = {}
    done = 0
    while done < STEPS:
        state = game.init(seed=int(rng.integers(2**31)))
        while not game.is_over(state) and done < STEPS:
            check_state(game, state, counts)
            game.step(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
            done += 1
    assert counts.get(PH_PLAY, 0) > 0 and counts.get(PH_DRAWN, 0) > 0
    house = game.config
    if house.stacking != "off":
        assert counts.get(PH_PENALTY, 0) > 0
    if house.jump_in and game.params[P_NUM_PLAYERS] > 2:
        assert counts.get(PH_JUMP, 0) > 0


def test_the_predicate_allows_no_card_outside_the_card_decisions():
    """A colour, a challenge, a catch and Seven-O's choice take no card, whatever is held."""
    game = Game(num_players=3)
    state = game.init(seed=3)
    P, seat = game.params, int(state.ints[0, S_CURRENT])
    for phase in (PH_COLOR, PH_CHALLENGE, PH_CATCH, PH_SWAP):
        assert not any(K.may_play(state.cards, state.ints, P, 0, seat, f, phase) for f in range(P[P_FACES]))


def test_only_legality_decides_what_matches_or_stacks():
    """The kernels ask ``may_play`` (or ``may_play_any``): none but ``legality`` calls R-TURN-1's
    match or the stacking test itself, so that a legality rule is one edit there."""
    kernels_dir = Path(K.__file__).parent
    calls = re.compile(r"\b(matches|matches_on|stackable)\(")
    found = [
        f"{path.name}:{number}"
        for path in sorted(kernels_dir.glob("*.py"))
        if path.name != "legality.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if calls.search(line)
    ]
    assert found == []


def no_action_card_with_two_or_fewer(cards, ints, P, b, seat, face, phase):
    """A rule written once, in ``legality.forbidden``: no action card or wild-type card while
    holding two cards or fewer (a turn, a drawn card, a stack, a jump-in, the UNO call)."""
    return hand_size(ints, P, b, seat) <= 2 and (face >= WILD or face % RANKS_PER_COLOUR >= RANK_SKIP)


RULE_TABLES = [{"num_players": 2}, {**variants.HOUSE_ALL, "num_players": 4}]


@pytest.mark.parametrize("settings", RULE_TABLES, ids=["2p", "4p-house-all"])
def test_a_rule_written_once_in_forbidden_is_followed_everywhere(monkeypatch, settings):
    """The interpreted kernels (the same source) with a rule in ``forbidden``: the mask, the
    decisions that accept a card, the drawn card, the jump-in and the UNO call all follow
    it, with no other edit; and the rule does refuse cards the rules without it allow."""
    twin = interpreted.kernels()
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith(interpreted.NAME) and hasattr(module, "forbidden"):
            monkeypatch.setattr(module, "forbidden", no_action_card_with_two_or_fewer)
    game = Game(**settings, illegal_action="raise", max_steps=2000)
    P, n = game.params, game.num_players
    rng = np.random.default_rng(5)
    out = np.zeros(game.num_actions, np.int8)
    rewards = np.zeros((1, n), np.float32)
    refused_by_rule = done = 0
    while done < 400:
        state = game.init(seed=int(rng.integers(2**31)))
        while state.ints[0, S_PHASE] != K.PH_OVER and done < 400:
            refused_by_rule += check_twin_state(twin, game, state, out, rewards)
            legal = np.flatnonzero(out)
            plays = legal[legal != P[P_A_DRAW]]  # cards played rather than drawn: hands get small
            action = int(rng.choice(plays if len(plays) else legal))
            assert twin.step_game(*arrays(state), action, rewards, state.ev, state.evn) >= 0
            done += 1
    assert refused_by_rule > 0


def arrays(state):
    return state.cards, state.ints, state.rng, state.params, 0


def check_twin_state(twin, game, state, out, rewards) -> int:
    """The twin's mask (into ``out``) against its ``may_play``, its decisions against its
    mask, its UNO offer; returns how many faces the rule refused that the rules allow."""
    P, cards, ints = game.params, state.cards, state.ints
    seat, phase = int(ints[0, S_CURRENT]), int(ints[0, S_PHASE])
    twin.legal_mask(cards, ints, P, 0, out)
    refused = 0
    for f in range(P[P_FACES]):
        legal = bool(twin.may_play(cards, ints, P, 0, seat, f, phase))
        assert {int(out[a]) for a in play_actions(P, f)} == {int(legal)}
        refused += bool(K.may_play(cards, ints, P, 0, seat, f, phase)) and not legal
        if hand(cards, P, 0, seat)[f] > 0 and phase in CARD_PHASES:
            trial = state.copy()
            status = twin.step_game(*arrays(trial), play_actions(P, f)[0], rewards, trial.ev, trial.evn)
            assert (status >= 0) == legal, f"phase {phase}, face {f}: status {status}"
    if hand_size(ints, P, 0, seat) == 2 and ints[0, S_UNO_CALLED] == 0:
        assert bool(out[P[P_A_UNO]]) == bool(twin.may_play_any(cards, ints, P, 0, seat, phase))
    return refused
