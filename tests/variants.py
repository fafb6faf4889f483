"""The rule variants that the multi-variant tests sweep, each defined once.

A variant is a name (the pytest id), its settings (keyword arguments of
``uno_env.engine.RuleConfig``) and tags. Sweeps that can afford every variant take
``variants()`` / ``params()``: the random-play invariants and the position property
test (test_invariants), the vector env's short runs (test_vector). A sweep that
cannot takes the variants of its tag, ``params("agents")``; TAGS says which test each
tag feeds. ``tests/test_variants.py`` checks the registry: names and configurations
unique, every setting of RuleConfig given two values or more here, and every tag's
variants varying every rule setting at least once.

Adding a variant: add one ``Variant`` below, with ``num_players`` always written out,
and the tags of the sweeps it should join (for a new rule setting every tag,
``tuple(TAGS)``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from types import MappingProxyType

import pytest

from uno_env.engine import RuleConfig
from uno_env.engine.config import house_rules_on

TAGS = {
    "agents": "test_agents: compiled agents (x5 policies), ISMCTS, determinization; test_neural: the shipped network",
    "pettingzoo": "test_pettingzoo_env: PettingZoo's api_test",
    "seed": "test_pettingzoo_env: PettingZoo's seed_test",
    "render": "test_pettingzoo_env: PettingZoo's render_test",
    "agreement": "test_vector: vector env = single-game engine over 700 steps (games must end in them)",
    "state_read": "test_policies: naive/keeper reading the state = reading the observation (single rounds)",
    "observation": "test_observation: the slices' sizes, and no hidden information (400 steps)",
    "position": "test_position: a position carries every field of the state",
}


@dataclasses.dataclass(frozen=True)
class Variant:
    """One named rule configuration; ``settings`` is read-only, ``tags`` a frozenset."""

    name: str
    settings: Mapping[str, object]
    tags: Collection[str] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "settings", MappingProxyType(dict(self.settings)))
        object.__setattr__(self, "tags", frozenset(self.tags))

    @property
    def config(self) -> RuleConfig:
        return RuleConfig(**self.settings)


# The small sweeps' tags, given also to three variants that between them change every rule
# setting from its default: 4p-partners-fashion-uno-auto, 3p-challenge-fashion-points, 2p-round-lose.
COVER = ("seed", "render", "observation", "position")
HOUSE_ALL = house_rules_on()
"""Every house rule of HOUSE_RULES.md on (stacking "mixed"): a new house rule joins the
variants below that set them all, which carry every tag."""

VARIANTS = (
    # player counts, default rules
    Variant("2p", {"num_players": 2}, ("agents", "pettingzoo", "seed", "render", "state_read", "observation")),
    Variant("3p", {"num_players": 3}),
    Variant("4p", {"num_players": 4}, ("pettingzoo", "seed")),
    Variant("5p", {"num_players": 5}),
    Variant("6p", {"num_players": 6}),
    Variant("7p", {"num_players": 7}),
    Variant("8p", {"num_players": 8}),
    Variant("9p", {"num_players": 9}),
    Variant("10p", {"num_players": 10}, ("pettingzoo", "seed")),
    # the Fashion Trend deck
    Variant("2p-fashion", {"num_players": 2, "deck": "fashion_trend"}),
    Variant("3p-fashion", {"num_players": 3, "deck": "fashion_trend"}, ("agents", "pettingzoo", "state_read")),
    Variant("4p-fashion", {"num_players": 4, "deck": "fashion_trend"}, ("render", "observation", "position")),
    Variant("5p-fashion", {"num_players": 5, "deck": "fashion_trend"}),
    Variant("7p-fashion", {"num_players": 7, "deck": "fashion_trend"}, ("observation",)),
    Variant("10p-fashion", {"num_players": 10, "deck": "fashion_trend"}),
    # partners
    Variant("4p-partners", {"num_players": 4, "partners": True}, ("agents", "pettingzoo", "state_read", "position")),
    Variant("6p-partners", {"num_players": 6, "partners": True}),
    Variant("8p-partners", {"num_players": 8, "partners": True}),
    Variant("10p-partners", {"num_players": 10, "partners": True}),
    Variant(
        "4p-partners-fashion-uno-auto",
        {"num_players": 4, "partners": True, "deck": "fashion_trend", "uno_call": "auto"},
        COVER,
    ),
    Variant(
        "8p-partners-fashion-uno-auto",
        {"num_players": 8, "partners": True, "deck": "fashion_trend", "uno_call": "auto"},
        ("agents",),
    ),
    # scoring
    Variant("3p-alternative", {"num_players": 3, "scoring": "alternative"}),
    Variant("7p-alternative", {"num_players": 7, "scoring": "alternative"}),
    Variant("3p-alternative-to50", {"num_players": 3, "scoring": "alternative", "target_score": 50}, ("pettingzoo",)),
    Variant("6p-alternative-to80", {"num_players": 6, "scoring": "alternative", "target_score": 80}, ("agents",)),
    Variant("3p-challenge", {"num_players": 3, "scoring": "challenge"}),
    Variant("4p-challenge", {"num_players": 4, "scoring": "challenge"}),
    Variant("5p-challenge", {"num_players": 5, "scoring": "challenge"}, ("observation",)),
    Variant("6p-challenge", {"num_players": 6, "scoring": "challenge"}),
    Variant("3p-challenge-to40", {"num_players": 3, "scoring": "challenge", "target_score": 40}, ("position",)),
    Variant("5p-challenge-to40", {"num_players": 5, "scoring": "challenge", "target_score": 40}, ("pettingzoo",)),
    Variant("5p-challenge-to60", {"num_players": 5, "scoring": "challenge", "target_score": 60}, ("agents",)),
    Variant(
        "3p-challenge-fashion-points",
        {"num_players": 3, "scoring": "challenge", "reward": "points", "deck": "fashion_trend"},
        ("state_read", *COVER),
    ),
    # UNO calls
    Variant("3p-uno-auto", {"num_players": 3, "uno_call": "auto"}, ("agents", "pettingzoo")),
    Variant("3p-uno-off", {"num_players": 3, "uno_call": "off"}, ("pettingzoo",)),
    Variant("4p-uno-off", {"num_players": 4, "uno_call": "off"}),
    Variant("4p-fashion-uno-off", {"num_players": 4, "uno_call": "off", "deck": "fashion_trend"}, ("agents",)),
    Variant("3p-challenge-uno-off", {"num_players": 3, "scoring": "challenge", "uno_call": "off"}, ("state_read",)),
    # unavailable actions
    Variant("2p-raise", {"num_players": 2, "illegal_action": "raise"}),
    Variant("2p-raise-to100", {"num_players": 2, "illegal_action": "raise", "target_score": 100}, ("agents",)),
    Variant("3p-lose", {"num_players": 3, "illegal_action": "lose"}, ("pettingzoo",)),
    Variant("10p-lose", {"num_players": 10, "illegal_action": "lose"}, ("agents",)),
    Variant(
        "2p-round-lose",
        {"num_players": 2, "illegal_action": "lose", "episode": "round"},
        ("agreement", "state_read", *COVER),
    ),
    # episodes, rewards and limits
    Variant("5p-round", {"num_players": 5, "episode": "round"}),
    Variant("4p-points", {"num_players": 4, "reward": "points"}),
    Variant("4p-round-points", {"num_players": 4, "episode": "round", "reward": "points"}, ("agents", "pettingzoo")),
    Variant("4p-points-max120", {"num_players": 4, "reward": "points", "max_steps": 120}),
    Variant("2p-max30", {"num_players": 2, "max_steps": 30}, ("pettingzoo",)),
    # the vector env's agreement runs: limits that end games within 700 steps
    Variant("2p-round-max150", {"num_players": 2, "episode": "round", "max_steps": 150}, ("agreement",)),
    Variant("3p-max400", {"num_players": 3, "max_steps": 400}, ("agreement",)),
    Variant(
        "4p-partners-fashion-uno-auto-max300",
        {"num_players": 4, "partners": True, "deck": "fashion_trend", "uno_call": "auto", "max_steps": 300},
        ("agreement",),
    ),
    Variant(
        "3p-challenge-to60-points-max600",
        {"num_players": 3, "scoring": "challenge", "target_score": 60, "reward": "points", "max_steps": 600},
        ("agreement",),
    ),
    Variant(
        "5p-alternative-to40-uno-off",
        {"num_players": 5, "scoring": "alternative", "target_score": 40, "uno_call": "off"},
        ("agreement",),
    ),
    Variant(
        "2p-round-raise-max200",
        {"num_players": 2, "illegal_action": "raise", "episode": "round", "max_steps": 200},
        ("agreement",),
    ),
    # the house rules (HOUSE_RULES.md): each alone, then all together
    Variant("2p-stacking-same", {"num_players": 2, "stacking": "same"}, ("agents", "pettingzoo", "observation")),
    Variant("4p-stacking-mixed", {"num_players": 4, "stacking": "mixed"}, ("agents", "state_read", "position")),
    Variant("3p-stacking-mixed-uno-auto", {"num_players": 3, "stacking": "mixed", "uno_call": "auto"}),
    Variant("2p-seven-o", {"num_players": 2, "seven_o": True}, ("agents",)),
    Variant("5p-seven-o", {"num_players": 5, "seven_o": True}, ("agents", "pettingzoo", "observation", "position")),
    Variant("2p-jump-in", {"num_players": 2, "jump_in": True}, ("observation",)),
    Variant("4p-jump-in", {"num_players": 4, "jump_in": True}, ("agents", "pettingzoo", "observation", "position")),
    Variant("3p-draw-until-playable", {"num_players": 3, "draw_until_playable": True}, ("agents", "pettingzoo")),
    Variant("3p-force-play", {"num_players": 3, "force_play": True}, ("agents", "state_read")),
    Variant("3p-force-play-draw", {"num_players": 3, "force_play": True, "draw_until_playable": True}),
    Variant(
        "6p-partners-house-all",
        {**HOUSE_ALL, "num_players": 6, "partners": True},
        ("agents", "pettingzoo", "seed", "render", "state_read", "observation", "position"),
    ),
    Variant("10p-fashion-house-all", {**HOUSE_ALL, "num_players": 10, "deck": "fashion_trend"}),
    Variant(
        "3p-challenge-house-all-lose", {**HOUSE_ALL, "num_players": 3, "scoring": "challenge", "illegal_action": "lose"}
    ),
    Variant("4p-house-all-raise", {**HOUSE_ALL, "num_players": 4, "illegal_action": "raise"}, ("pettingzoo",)),
    Variant("4p-house-all-max300", {**HOUSE_ALL, "num_players": 4, "max_steps": 300}, ("agreement",)),
    Variant("4p-house-all-max17", {**HOUSE_ALL, "num_players": 4, "max_steps": 17}),  # cut short mid-decision
    Variant(
        "2p-stacking-jump-in-force",
        {"num_players": 2, "stacking": "mixed", "jump_in": True, "force_play": True},
        ("state_read",),
    ),
    Variant(
        "4p-partners-stacking-seven-o-jump-in",
        {"num_players": 4, "partners": True, "stacking": "same", "seven_o": True, "jump_in": True},
        ("state_read",),
    ),
    Variant(
        "5p-challenge-seven-o-draw-force",
        {"num_players": 5, "seven_o": True, "draw_until_playable": True, "force_play": True, "scoring": "challenge"},
        ("state_read",),
    ),
    # the recorded playthroughs' settings (uno_env/playthrough.py; 3p-challenge-to40 is above)
    Variant("2p-to100", {"num_players": 2, "target_score": 100}),
    Variant("3p-fashion-to60", {"num_players": 3, "deck": "fashion_trend", "target_score": 60}),
    Variant("4p-round", {"num_players": 4, "episode": "round"}),
    Variant("4p-partners-round", {"num_players": 4, "partners": True, "episode": "round"}),
    Variant(
        "4p-round-stacking-mixed-seven-o", {"num_players": 4, "stacking": "mixed", "seven_o": True, "episode": "round"}
    ),
    Variant(
        "4p-round-jump-in-draw", {"num_players": 4, "jump_in": True, "draw_until_playable": True, "episode": "round"}
    ),
)


def variants(tag: str | None = None) -> list[Variant]:
    """Every variant, or those with ``tag``."""
    if tag is not None and tag not in TAGS:
        raise ValueError(f"unknown tag {tag!r}: known tags are {', '.join(TAGS)}")
    return [v for v in VARIANTS if tag is None or tag in v.tags]


def params(tag: str | None = None) -> list:
    """``pytest.param(settings, id=name)`` of ``variants(tag)``, each settings a fresh dict."""
    return [pytest.param(dict(v.settings), id=v.name) for v in variants(tag)]
