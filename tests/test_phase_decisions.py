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
from uno_env.engine.cards import RANK_NAMES, RANK_SEVEN, RANK_SKIP, parse_card
from uno_env.engine.checks import invariant_violations
from uno_env.engine.config import CHOICES, HOUSE_PHASES, HOUSE_RULE_SETTINGS, house_rules_on
from uno_env.engine.layout import S_FOLLOWING, S_PHASE, S_TOP_PLAYER
from uno_env.engine.named import (
    ALWAYS_ASKED_PHASES,
    CARD_PHASES,
    CHOICE_PHASE_MASK,
    CHOICE_PHASES,
    NEXT_TURN_PHASE_MASK,
    NEXT_TURN_PHASES,
    PHASE_DECISIONS,
    PHASE_NAMES,
    PRIVATE_EVENTS,
    PRIVATE_PHASE_MASK,
    PRIVATE_PHASES,
    UNO_CALL_PHASES,
    Choice,
    Decision,
    Phase,
    phase_list,
    uno_call_fits,
)
from uno_env.engine.observation import SLICE_WORDS, phases_of
from uno_env.engine.position import PositionError
from uno_env.engine.position.keys import KEYS
from uno_env.engine.seeding import seed_to_rng


def test_every_phase_is_declared_classic_ones_first_each_house_one_with_its_setting():
    """Each Phase has its decision; the classic phases are the codes up to ``over`` and the
    house rules' phases follow, each brought by a house rule whose "off" is code 0."""
    assert list(PHASE_DECISIONS) == sorted(Phase)
    classic = [phase for phase, d in PHASE_DECISIONS.items() if not d.house]
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


def test_the_per_phase_facts_are_derived_from_the_declaration():
    """The UNO call's phases, the choices after a card, the phases that show ``next_turn``,
    those where a card may be played, those asked always or privately (and their bits, which
    the compiled code tests) are the declared ones; a choice is a house rule's, names its
    card and needs three players where two decide nothing."""
    decided = PHASE_DECISIONS.items()
    assert tuple(p for p, d in decided if d.uno_call_hands) == UNO_CALL_PHASES
    assert {p: d.choice for p, d in decided if d.choice is not None} == CHOICE_PHASES
    assert tuple(p for p, d in decided if d.shows_next_turn) == NEXT_TURN_PHASES
    assert tuple(p for p, d in decided if d.plays_cards) == CARD_PHASES
    assert tuple(p for p, d in decided if d.asked == "always") == ALWAYS_ASKED_PHASES
    assert tuple(p for p, d in decided if d.asked == "privately") == PRIVATE_PHASES
    assert tuple(PHASE_DECISIONS[Phase(p)].declined for p in PRIVATE_PHASES) == PRIVATE_EVENTS
    # today's, and any new one after them
    assert CARD_PHASES[:4] == (Phase.PLAY, Phase.DRAWN, Phase.PENALTY, Phase.JUMP)
    assert ALWAYS_ASKED_PHASES[:2] == (Phase.PLAY, Phase.PENALTY) and PRIVATE_EVENTS[:1] == ("jump_pass",)
    masks = ((CHOICE_PHASE_MASK, CHOICE_PHASES), (NEXT_TURN_PHASE_MASK, NEXT_TURN_PHASES))
    for mask, phases in (*masks, (PRIVATE_PHASE_MASK, PRIVATE_PHASES)):
        assert [p for p in Phase if (mask >> p) & 1] == list(phases)
    for phase, choice in CHOICE_PHASES.items():
        named = choice.words or " or ".join(RANK_NAMES[rank] for rank in choice.ranks or ())
        assert phase in HOUSE_PHASES and choice.card == named
        assert choice.min_players == (2 if choice.alone is None else 3)
    assert CHOICE_PHASES[Phase.SWAP].ranks == (RANK_SEVEN,) and NEXT_TURN_PHASES[:2] == (Phase.SWAP, Phase.JUMP)
    assert phase_list(UNO_CALL_PHASES[:4]) == "'play', 'drawn', 'penalty' or 'jump'"  # and any new one
    assert set(PRIVATE_PHASES) <= set(NEXT_TURN_PHASES)  # the others are shown the turn that follows
    with pytest.raises(ValueError, match="names its declining event"):
        Decision(True, "a rule", "asked", "a decision", asked="privately")


def test_a_choice_after_several_ranks_or_any_card_and_the_uno_call_hands():
    """A choice declared after several ranks (or any card) follows each of them and names
    them in words; the UNO call's hands are the declared ones, more under ``uno_call_more``."""
    several = Choice((RANK_SKIP, RANK_SEVEN), "R-TEST-1", alone=None)
    assert several.card == "Skip or 7" and several.min_players == 2
    assert [several.follows(parse_card(c)) for c in ("RS", "G7", "B7", "R8", "W", "W+4")] == [1, 1, 1, 0, 0, 0]
    anything = Choice(None, "R-TEST-2", alone="does it", words="any card")
    assert anything.card == "any card" and all(anything.follows(parse_card(c)) for c in ("R0", "W", "W+4"))
    classic, until = RuleConfig(), RuleConfig(draw_until_playable=True)
    assert [uno_call_fits(Phase.PLAY, size, classic) for size in (1, 2, 3)] == [False, True, False]
    assert [uno_call_fits(Phase.DRAWN, size, classic) for size in (1, 2, 3, 4)] == [False, True, True, False]
    assert [uno_call_fits(Phase.DRAWN, size, until) for size in (1, 2, 3, 4)] == [False, True, True, True]
    assert not any(uno_call_fits(Phase.SWAP, size, until) for size in range(6))


SEVEN_O = {"num_players": 4, "seven_o": True}
SWAP = {  # player 1 played a 7 and chooses whom to swap with
    "hands": [["R1"], ["G3", "B4"], ["R5", "Y5"], ["B9"]],
    "discard_pile": ["R3", "R7"],
    "current_player": 1,
    "phase": "swap",
}


def _refusal(config: dict, position: dict) -> str:
    with pytest.raises(PositionError) as raised:
        Game(**config).from_position(position, seed=0)
    return str(raised.value)


def test_a_seven_o_position_is_refused_in_the_words_of_its_declared_choice():
    """The refusals a choice after a card gives (wrong card on top, two players, another
    seat on top, a UNO call or next_turn where none is set) are the declaration's words."""
    assert "'swap' needs the 7 just played on top, not R3 (R-HOUSE-SEVENO-1)" in _refusal(
        SEVEN_O, {**SWAP, "discard_pile": ["R7", "R3"]}
    )
    two = {**SWAP, "hands": [["R1"], ["G3", "B4"]]}
    assert "with two players in the game a 7 swaps without a decision: no phase 'swap' (R-HOUSE-SEVENO-1)" in (
        _refusal({**SEVEN_O, "num_players": 2}, two)
    )
    assert "in phase 'swap' it is the player of the 7, who chooses (current_player): seat 1" in _refusal(
        SEVEN_O, {**SWAP, "top_card_player": 0}
    )
    assert f"true only in phase {phase_list(UNO_CALL_PHASES)}, not 'swap'" in _refusal(
        SEVEN_O, {**SWAP, "uno_called": True}
    )
    play = {**SWAP, "phase": "play", "next_turn": 2}
    shown = phase_list(NEXT_TURN_PHASES)  # 'swap' or 'jump', and any decision added that shows it
    assert f"only set in phase {shown}" in _refusal(SEVEN_O, play)
    settings = " or ".join(HOUSE_PHASES[p] for p in NEXT_TURN_PHASES)
    assert f"needs {settings} (phase {shown})" in _refusal({"num_players": 4}, play)


def test_a_declared_choice_reaches_the_positions_and_the_invariants(monkeypatch):
    """Declaring phase ``swap`` as the choice after a Skip (a rule of another card) moves
    what a position and the state's invariants ask of it, with no other edit."""
    game = Game(**SEVEN_O)
    seven = game.from_position(SWAP, seed=0)
    monkeypatch.setitem(CHOICE_PHASES, Phase.SWAP, Choice((RANK_SKIP,), "R-TEST-1", alone="skips the other"))
    assert "'swap' needs the Skip just played on top, not R7 (R-TEST-1)" in _refusal(SEVEN_O, SWAP)
    skip = game.from_position({**SWAP, "discard_pile": ["R3", "RS"]}, seed=0)
    assert invariant_violations(game, skip) == []
    assert [v.message for v in invariant_violations(game, seven)] == [
        "a Seven-O choice that does not follow its player's Skip"
    ]
    two = {**SWAP, "hands": [["R1"], ["G3", "B4"]], "discard_pile": ["R3", "RS"]}
    assert "a Skip skips the other without a decision: no phase 'swap' (R-TEST-1)" in _refusal(
        {**SEVEN_O, "num_players": 2}, two
    )


def test_the_compiled_readers_show_next_turn_and_the_chooser_in_the_declared_phases():
    """``observe`` writes ``next_turn`` to the acting seat only in the phases that show it, and
    a state sampled from a Seven-O choice's observation (no ``top_card_player`` slice) has the
    chooser on top and the turn that follows."""
    game = Game(num_players=4, seven_o=True, jump_in=True)
    state = game.from_position({**SWAP, "top_card_player": 1}, seed=0)
    offset, n = game.obs_spec.offset("next_turn"), game.num_players
    for phase in (Phase.PLAY, *HOUSE_PHASES):
        state.ints[0, S_PHASE] = phase
        shown = game.observe(state, 1)[offset : offset + n]
        assert shown.sum() == (phase in NEXT_TURN_PHASES), PHASE_NAMES[phase]
    game = Game(**SEVEN_O)
    obs = game.observe(game.from_position(SWAP, seed=0), 1)
    sample = game.new_state()
    prng = np.array([seed_to_rng(3)], dtype=np.uint64)
    assert readers.determinize(obs, game.params, prng, 0, sample.cards, sample.ints, sample.rng, 0, 1.0, 20)
    assert sample.ints[0, S_PHASE] == Phase.SWAP
    assert (sample.ints[0, S_TOP_PLAYER], sample.ints[0, S_FOLLOWING]) == (0, 1)  # seats relative to the chooser
    assert np.array_equal(game.observe(sample, 0), obs)
