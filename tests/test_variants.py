"""The registry of rule variants (tests/variants.py) that the multi-variant tests sweep:
names and configurations unique, every setting of RuleConfig tried, every sweep varying
every rule setting."""

import dataclasses

import pytest

from uno_env.engine import RuleConfig
from uno_env.playthrough import PLAYTHROUGHS

from .variants import TAGS, VARIANTS, params, variants

# Sizes and limits: each sweep picks them for its cost, so a tag need not vary them
# (the registry as a whole still must, like every other setting).
SIZES_AND_LIMITS = ("num_players", "target_score", "max_steps")


def test_names_and_configurations_are_unique_and_valid():
    names = [v.name for v in VARIANTS]
    assert len(set(names)) == len(names), sorted(n for n in names if names.count(n) > 1)
    configs = {}
    for variant in VARIANTS:
        assert "num_players" in variant.settings, f"{variant.name}: write num_players out"
        config = RuleConfig.from_kwargs(**variant.settings)  # names an unknown setting
        assert config not in configs, f"{variant.name} is {configs.get(config)} again"
        configs[config] = variant.name


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(RuleConfig)])
def test_every_setting_takes_two_values_or_more(field):
    """Sizes and limits included: a setting that only ever keeps its default is untested."""
    values = {getattr(v.config, field) for v in VARIANTS}
    assert len(values) >= 2, (
        f"setting {field!r} of RuleConfig takes only {values} in tests/variants.py: add a variant "
        "that sets it, with the tags of the sweeps that should test it"
    )


@pytest.mark.parametrize("tag", list(TAGS))
def test_every_tag_varies_every_rule_setting(tag):
    """A sweep over a tag changes each rule setting at least once, so that a new setting
    reaches every sweep, not just those over every variant."""
    tagged = variants(tag)
    assert tagged, f"no variant has tag {tag!r}"
    for field in dataclasses.fields(RuleConfig):
        if field.name in SIZES_AND_LIMITS:
            continue
        assert any(getattr(v.config, field.name) != field.default for v in tagged), (
            f"no variant tagged {tag!r} ({TAGS[tag]}) sets {field.name!r} to other than its default "
            f"{field.default!r}: add the tag to a variant that does"
        )


def test_tags_are_known_and_params_are_fresh_dicts():
    for variant in VARIANTS:
        assert variant.tags <= TAGS.keys(), f"{variant.name}: unknown tags {sorted(variant.tags - TAGS.keys())}"
    with pytest.raises(ValueError, match="unknown tag 'agnets'"):
        variants("agnets")
    first = params()[0]
    first.values[0]["num_players"] = 99
    assert VARIANTS[0].settings["num_players"] != 99 and len(params()) == len(VARIANTS)
    assert [p.id for p in params("agents")] == [v.name for v in variants("agents")]


def test_the_playthroughs_settings_are_variants():
    """The recorded playthroughs (uno_env/playthrough.py, tests/playthroughs) run settings
    that the sweeps test too."""
    configs = {v.config for v in VARIANTS}
    for name, (config, _) in PLAYTHROUGHS.items():
        assert config in configs, f"playthrough {name}: {config} is no variant of tests/variants.py"
