"""A decision is declared once (``engine/named.PHASE_DECISIONS``) and reaches every place derived from
it: the observation's phase slice and its compiled reader, the phases a position may load,
the refusal's words, the prompt a person sees and the docs' lists of phases."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from uno_env import protocol_doc
from uno_env.agents.human import PHASE_PROMPTS, HumanAgent
from uno_env.engine import Game, IllegalActionError, RuleConfig, readers
from uno_env.engine.config import CHOICES, HOUSE_RULE_SETTINGS, house_rules_on
from uno_env.engine.named import HOUSE_PHASES, PHASE_DECISIONS, PHASE_NAMES, Phase
from uno_env.engine.observation import SLICE_WORDS, phases_of
from uno_env.engine.position import PositionError
from uno_env.engine.position.keys import KEYS


def test_every_phase_is_declared_classic_ones_first_each_house_one_with_its_setting():
    """Each Phase has its decision; the classic phases are the codes up to ``over`` and the
    house rules' phases follow, each brought by a house rule whose "off" is code 0."""
    assert list(PHASE_DECISIONS) == sorted(Phase)
    classic = [phase for phase, d in PHASE_DECISIONS.items() if d.setting is None]
    assert classic == list(range(Phase.OVER + 1))
    assert list(HOUSE_PHASES) == list(range(Phase.OVER + 1, len(Phase)))
    for phase, setting in HOUSE_PHASES.items():
        assert setting in HOUSE_RULE_SETTINGS, phase
        assert RuleConfig().codes()[setting] == 0, setting  # off by default, and off is code 0
    for phase, d in PHASE_DECISIONS.items():
        assert d.words and d.refusal, phase
        assert (d.prompt is None) == (phase == Phase.OVER), phase  # every phase but the end is asked


def _house_configs():
    """Every combination of the values of the settings that bring a phase."""
    settings = sorted(set(HOUSE_PHASES.values()))
    values = [CHOICES.get(name, (False, True)) for name in settings]
    for combo in itertools.product(*values):
        yield RuleConfig(num_players=4, **dict(zip(settings, combo)))


@pytest.mark.parametrize(
    "config",
    list(_house_configs()),
    ids=lambda c: "-".join(f"{s}={getattr(c, s)}" for s in sorted(set(HOUSE_PHASES.values()))),
)
def test_the_phase_slice_runs_to_the_last_house_phase_whose_rule_is_on(config):
    """``phases_of`` and its compiled copy ``phase_count`` agree: the classic phases, then the
    house rules' up to the last one on; each phase's one-hot entry is its code, read back by
    ``obs_phase``."""
    phases = phases_of(config)
    codes = config.codes()
    on = [phase for phase, setting in HOUSE_PHASES.items() if codes[setting] != 0]
    assert phases == PHASE_NAMES[: len(phases)] and len(phases) == 1 + max([Phase.OVER, *on])
    assert all(PHASE_NAMES[phase] in phases for phase in on)
    game = Game(config)
    assert game.obs_spec.by_name["phase"].labels == phases
    P = game.params
    assert readers.phase_count(P) == len(phases)
    offset = game.obs_spec.offset("phase")
    for code, name in enumerate(phases):
        obs = np.zeros(game.observation_size, dtype=np.float32)
        obs[offset + code] = 1.0
        assert readers.obs_phase(obs, P) == code == PHASE_NAMES.index(name)


def test_a_position_loads_a_house_phase_only_with_its_rule_on():
    """A house rule's phase named in a position with its rule off is refused, naming the rule."""
    for phase, setting in HOUSE_PHASES.items():
        name = PHASE_NAMES[phase]
        game = Game(num_players=4)
        position = game.position(game.init(seed=0))
        with pytest.raises(PositionError, match=f"phase {name!r} needs the house rule {setting}"):
            game.from_position({**position, "phase": name})


def test_the_docs_list_every_phase():
    """The phase slice's words, the position key's and the protocol's sentence name every phase."""
    words = SLICE_WORDS["phase"]
    key = next(k for k in KEYS if k.name == "phase")
    labels = protocol_doc._entries(protocol_doc.ObservationSpec(protocol_doc.EVERY_SLICE), "phase")
    for phase, d in PHASE_DECISIONS.items():
        assert f"`{PHASE_NAMES[phase]}` ({d.words})" in words
        assert f"`{PHASE_NAMES[phase]}`" in key.doc
    for phase, setting in HOUSE_PHASES.items():
        assert f"`{setting}`: to `{PHASE_NAMES[phase]}`" in labels


def _check_decision(game: Game, state, phase: Phase, legal: list[int]) -> None:
    """The acting seat's observation names the phase, a person sees its prompt, and an
    unavailable action is refused with its decision's words."""
    labels = game.obs_spec.by_name["phase"].labels
    offset = game.obs_spec.offset("phase")
    seat = game.current_player(state)
    obs = game.observe(state, seat)
    assert labels[int(np.argmax(obs[offset : offset + len(labels)]))] == PHASE_NAMES[phase]
    assert PHASE_PROMPTS[PHASE_NAMES[phase]] in HumanAgent(game, seat=seat).render(obs)
    refused = next(a for a, text in enumerate(game.actions.strings) if a not in legal and " " not in text)
    with pytest.raises(IllegalActionError) as raised:
        game.step(state, refused)
    words = PHASE_DECISIONS[phase].refusal.split("{drawn}")
    assert all(part in str(raised.value) for part in words), (phase, str(raised.value))


def test_each_decision_reached_in_play_has_its_refusal_prompt_and_one_hot_entry():
    """Seeded random play, classic and with every house rule on (a Wild Draw Four is then
    answered in ``penalty``), reaches each asked phase; each is checked the first time."""
    unasked = {phase for phase in Phase if phase != Phase.OVER}
    rng = np.random.default_rng(5)
    for settings in ({}, house_rules_on()):
        game = Game(num_players=4, episode="round", illegal_action="raise", **settings)
        reachable = {phase for phase in unasked if PHASE_NAMES[phase] in game.obs_spec.by_name["phase"].labels}
        for seed in range(300):
            state = game.init(seed=seed)
            for _ in range(300):
                if game.is_over(state):
                    break
                phase = Phase(PHASE_NAMES.index(game.phase(state)))
                legal = game.legal_actions(state)
                if phase in unasked:
                    unasked.discard(phase)
                    _check_decision(game, state, phase, legal)
                game.step(state, int(rng.choice(legal)))
            if not unasked & reachable:
                break
    assert not unasked, f"never reached: {sorted(PHASE_NAMES[p] for p in unasked)}"
