"""One declaration per rule setting (``engine/config.py``): the parameter vector, the
validation, the words, the house-rule lists and the docs' lists are derived from it."""

import dataclasses

import pytest

from uno_env.engine import Game, RuleConfig
from uno_env.engine.config import (
    CHOICES,
    HOUSE_RULE_SETTINGS,
    HOUSE_SWITCHES,
    HOUSE_WORDS,
    SETTINGS,
    house_rules_on,
    setting,
)
from uno_env.engine.layout import LAYOUT_PARAMS, NUM_PARAMS, Param, build_params
from uno_env.engine.named import Episode, IllegalAction, Reward, Scoring, Stacking, UnoCall, names

from .variants import variants


def test_the_parameter_vector_numbers_the_settings_in_declaration_order():
    members = [member.name for member in sorted(Param)]
    settings = [f.name.upper() for f in SETTINGS]
    assert members[: len(settings)] == settings
    assert members[len(settings) :] == [name for name, _ in LAYOUT_PARAMS] + ["O_FIRST"]
    assert [int(member) for member in sorted(Param)] == list(range(len(members)))


@pytest.mark.parametrize("variant", variants("agents"), ids=lambda v: v.name)
def test_each_setting_reaches_the_kernels_as_its_code(variant):
    game = Game(variant.config)
    P = build_params(variant.config, game.actions, game.obs_spec)
    assert len(P) == NUM_PARAMS + 3 * game.num_actions  # the entries of Param, then the action table
    for name, code in variant.config.codes().items():
        assert P[Param[name.upper()]] == code, name


def test_named_values_are_coded_as_the_enums_of_named_py():
    """A setting's code is its value's index among its choices: the enums the kernels compare
    with (``STACKING_MIXED``...) must number their members in that order."""
    enums = {
        "scoring": Scoring,
        "uno_call": UnoCall,
        "illegal_action": IllegalAction,
        "episode": Episode,
        "reward": Reward,
        "stacking": Stacking,
    }
    for name, codes in enums.items():
        assert CHOICES[name] == names(codes)
        assert [int(member) for member in sorted(codes)] == list(range(len(codes))), name
    config = RuleConfig(num_players=4, scoring="challenge", stacking="mixed", uno_call="off")
    assert config.codes()["stacking"] == Stacking.MIXED and config.codes()["uno_call"] == UnoCall.OFF


def test_the_house_rule_lists_are_the_settings_declared_house():
    declared = [f.name for f in SETTINGS if f.metadata["house"] is not None]
    assert list(HOUSE_RULE_SETTINGS) == declared
    assert set(HOUSE_SWITCHES) <= set(HOUSE_RULE_SETTINGS) and set(HOUSE_WORDS) == set(HOUSE_RULE_SETTINGS)
    assert not RuleConfig().house_rules  # every house rule is off by default
    everything = RuleConfig(num_players=4, **house_rules_on())
    assert everything.house_rules
    assert all(getattr(everything, name) != getattr(RuleConfig(), name) for name in HOUSE_RULE_SETTINGS)
    assert everything.in_words().endswith("house rules: " + ", ".join(stacked_words(everything)))


def stacked_words(config):
    return [
        HOUSE_WORDS[name] if name in HOUSE_SWITCHES else f"{HOUSE_WORDS[name]} ({getattr(config, name)})"
        for name in HOUSE_RULE_SETTINGS
    ]


def test_a_new_declaration_needs_no_other_edit_of_the_configuration():
    """A setting added as the checklist says (one field, declared with ``setting``) is
    validated, shown, worded and coded with no other line of config.py."""
    extended = dataclasses.make_dataclass(
        "Extended",
        [("no_zero_finish", bool, setting(False, house="no zero to finish"))],
        bases=(RuleConfig,),
        frozen=True,
        repr=False,
    )
    config = extended(no_zero_finish=True)
    assert config.house_rules and config.in_words().endswith("house rules: no zero to finish")
    assert "no_zero_finish=True" in repr(config) and "no_zero_finish" not in repr(extended())
    assert config.codes()["no_zero_finish"] == 1
    with pytest.raises(ValueError, match="invalid setting no_zero_finish=1: expected True or False"):
        extended(no_zero_finish=1)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"num_players": 11}, "num_players=11: expected an integer from 2 to 10"),
        ({"num_players": True}, "num_players=True: expected an integer from 2 to 10"),
        ({"target_score": 0}, "target_score=0: expected a positive integer"),
        ({"target_score": 10**9}, "target_score=1000000000: expected a smaller value"),
        ({"max_steps": 2**31}, "max_steps=2147483648: expected a smaller value"),
        ({"deck": "mini"}, "deck='mini': expected one of 'classic', 'fashion_trend'"),
        ({"stacking": True}, "stacking=True: expected one of 'off', 'same', 'mixed'"),
        ({"partners": "yes"}, "partners='yes': expected True or False"),
    ],
)
def test_each_declaration_validates_its_setting(settings, message):
    with pytest.raises(ValueError, match="invalid setting " + message.replace("(", r"\(")):
        RuleConfig(**settings)
