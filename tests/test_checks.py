"""The engine's invariants (engine/checks.py): each violation names its own position key,
and the house rules' invariants see the settings."""

import ast
import inspect

import numpy as np
import pytest

from uno_env.engine import checks
from uno_env.engine.checks import Violation, house_rule_violations, invariant_violations
from uno_env.engine.layout import S_CURRENT, S_DISCARD_COUNT, S_PHASE
from uno_env.engine.position import KEY_NAMES
from uno_env.engine.state import discard_pile, hands

from .conftest import make_game
from .test_bad_input import JUMP, JUMP_IN, PENALTY, SEVEN, STACK, SWAP


def test_every_violation_names_a_position_key_where_it_is_made():
    """Each ``Violation`` is built with its key written out, and the key is a position key,
    so a loaded position's refusal names the key at fault with no table kept beside it."""
    calls = [
        node
        for node in ast.walk(ast.parse(inspect.getsource(checks)))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Violation"
    ]
    assert len(calls) >= 15
    for call in calls:
        key = call.args[0]
        assert isinstance(key, ast.Constant) and key.value in KEY_NAMES, ast.unparse(call)


@pytest.mark.parametrize(
    "settings,off,position,expected",
    [
        (
            STACK,
            {"stacking": "off"},
            PENALTY,
            [
                Violation("phase", "a 'penalty' decision with the house rule stacking off"),
                Violation("pending_penalty", "a pending penalty of 2 with the house rule stacking off"),
            ],
        ),
        (SEVEN, {"seven_o": False}, SWAP, [Violation("phase", "a 'swap' decision with the house rule seven_o off")]),
        (JUMP, {"jump_in": False}, JUMP_IN, [Violation("phase", "a 'jump' decision with the house rule jump_in off")]),
    ],
)
def test_house_rule_invariants_see_the_settings(settings, off, position, expected):
    """A house rule's decision (and a stack's pending penalty) is consistent while its rule
    is on, and a violation naming its key under the same settings with the rule off."""
    game = make_game(**{"num_players": 3, **settings})
    state = game.from_position(position, seed=0)
    assert invariant_violations(game, state) == []
    ints = state.ints[0]
    held = hands(state.cards, game.params, 0).astype(np.int64)
    discard = discard_pile(state.cards, game.params, 0)[: ints[S_DISCARD_COUNT]]
    facts = (held, discard, ints, ints[S_PHASE], ints[S_CURRENT])
    assert house_rule_violations(game.config, *facts) == []
    without = game.config.replace(**off)
    assert house_rule_violations(without, *facts) == expected
    assert str(expected[0]) == expected[0].message  # the words alone, as a refusal shows them
