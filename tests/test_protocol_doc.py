"""docs/PROTOCOL.md says every observation field, every event field and every phase's
decisions in words, generated from the code (uno_env/protocol_doc.py): here, that nothing is
left out, that the examples show what they claim, and that the doc is up to date."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from uno_env import docs, protocol_doc
from uno_env.agents.text import decision_text
from uno_env.engine import Game, RuleConfig
from uno_env.engine.events import EVENT_DOCS, EVENT_NAMES, FIELDS, REASON_DOCS, REASON_NAMES
from uno_env.engine.observation import SLICE_NAMES, SLICE_WORDS, ObservationSpec, phases_of

DOC = Path(__file__).resolve().parent.parent / "docs" / "PROTOCOL.md"


def block(name: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    return text.split(f"<!-- {name} -->\n")[1].split(f"<!-- /{name} -->")[0]


def test_the_doc_has_every_generated_part_up_to_date():
    text = DOC.read_text(encoding="utf-8")
    assert docs.fill(text) == text, "docs/PROTOCOL.md is stale: python -m uno_env.docs --write"
    assert DOC in docs.FILES
    for name in ("protocol-fields", "protocol-events", "protocol-phases"):
        assert block(name).count("\n") > 10


def test_every_observation_field_is_explained():
    """The table's configuration has every slice, and each row says its entries, values,
    when it is present and what it means."""
    spec = ObservationSpec(protocol_doc.EVERY_SLICE)
    assert [s.name for s in spec.slices] == list(SLICE_NAMES) == list(SLICE_WORDS)
    rows = {line.split(" | ")[0][3:-1]: line.split(" | ") for line in block("protocol-fields").splitlines()[2:]}
    assert list(rows) == list(SLICE_NAMES)
    for name, row in rows.items():
        assert len(row) == 5 and all(len(cell.strip(" |")) > 3 for cell in row), name
        assert row[2] != "one number" or spec.by_name[name].size == 1, name
    assert "copies you hold" in rows["hand"][4] and "-1 or +1" in rows["direction"][2]
    assert rows["trend_shown"][3] == 'with `deck="fashion_trend"`'
    assert rows["next_turn"][3].startswith("with `seven_o` or `jump_in`")  # or a rule added since


def test_every_event_and_its_fields_are_explained():
    assert set(EVENT_DOCS) == set(EVENT_NAMES.values())
    for kind, name in EVENT_NAMES.items():
        when, fields = EVENT_DOCS[name]
        assert when and list(fields) == protocol_doc.event_fields(kind), name
    assert protocol_doc.event_fields(1) == ["seat", "card", "colour"]  # a play: colour for a wild
    assert set(protocol_doc.event_fields(k) == [] for k in EVENT_NAMES) == {True, False}
    assert len(FIELDS) == len(EVENT_NAMES) - 1  # every event has fields but the truncation
    assert list(REASON_DOCS) == list(REASON_NAMES)
    table = block("protocol-events")
    assert "`bluff`: `true`" in table and "draws 6" in table


def decisions(scenario) -> list[tuple[int, str, str]]:
    """(seat, phase, answer) per decision of a scenario's transcript."""
    lines = protocol_doc.transcript(scenario).splitlines()
    asked = [(int(m[1]), m[2]) for m in (re.match(r"→ seat (\d+) decides: phase=(\w+)", x) for x in lines) if m]
    answers = [re.search(r'"action": "([^"]+)"', x)[1] for x in lines if x.startswith("←")]
    return [(seat, phase, answer) for (seat, phase), answer in zip(asked, answers, strict=True)]


def test_the_phase_examples_cover_every_phase_and_show_what_they_say():
    by_title = {s.title: decisions(s) for s in protocol_doc.SCENARIOS}
    shown = {phase for steps in by_title.values() for _, phase, _ in steps}
    assert shown == set(phases_of(protocol_doc.EVERY_SLICE)) - {"over"}
    uno = by_title["play: the UNO call"]
    assert uno[0][2] == "uno" and uno[1][:2] == (uno[0][0], "play")  # the same seat decides again
    catch = protocol_doc.transcript(protocol_doc.SCENARIOS[2])
    assert '"type": "exposed"' in catch and '"catcher": 2' in catch
    auto = protocol_doc.transcript(protocol_doc.SCENARIOS[1])
    assert "legal: play R2, draw, uno" in auto and '"catcher": null' in auto
    bluff, honest = (protocol_doc.transcript(s) for s in protocol_doc.SCENARIOS[3:5])
    assert bluff.count('"bluff_caught"') == 4 and honest.count('"challenge_lost"') == 6
    assert protocol_doc.phase_section() in DOC.read_text(encoding="utf-8")


def test_a_scenario_that_does_not_play_says_so():
    wrong = protocol_doc.Scenario("wrong", "", {"num_players": 2}, protocol_doc.SCENARIOS[0].position, ("catch",))
    with pytest.raises(ValueError, match="'catch' is not legal at seat 0"):
        protocol_doc.transcript(wrong)


@pytest.mark.parametrize("deck", ["classic", "fashion_trend"])
def test_the_text_legend_names_ft_only_with_its_deck(deck):
    game = Game(RuleConfig(num_players=2, deck=deck))
    state = game.init(seed=1)
    text = decision_text(game, game.observe(state, 0), game.legal_mask(state), seat=0)
    assert ("FT fashion trend" in text) == (deck == "fashion_trend") and "W+4 wild draw four" in text
