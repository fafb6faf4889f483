"""Seeded games written out as text: any change of behaviour shows as a diff."""

import difflib

import pytest

from uno_env.playthrough import DEFAULT_DIR, PLAYTHROUGHS, playthrough


@pytest.mark.parametrize("name", sorted(PLAYTHROUGHS))
def test_playthrough_matches_the_recorded_file(name):
    config, seed = PLAYTHROUGHS[name]
    expected = (DEFAULT_DIR / name).read_text()
    actual = playthrough(config, seed)
    if actual != expected:
        diff = "".join(list(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), name, "now"))[:80])
        pytest.fail(f"playthrough {name} changed; if intended, run `python -m uno_env.playthrough --write`\n{diff}")


def test_playthroughs_cover_the_main_decisions():
    text = "".join((DEFAULT_DIR / name).read_text() for name in PLAYTHROUGHS)
    for needle in ("challenges", "is caught", "lets it go", "calls UNO", "is eliminated", "shows", "wins the game"):
        assert needle in text, needle
