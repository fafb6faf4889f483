"""The colours are alike (R-DECK-1): a game dealt from a deck with every card's colour
relabelled plays the relabelled game, decision by decision, and the relabellings of the
observation and of the action table that ``ppo`` averages over say so."""

import numpy as np
import pytest

from uno_env.engine import Game, RuleConfig
from uno_env.engine.cards import COLOUR_PERMUTATIONS, card_to_str, deck_counts, recolour_face

from . import variants


def shuffled_deck(config: RuleConfig, rng: np.random.Generator) -> list[int]:
    counts = deck_counts(config.deck)
    faces = np.repeat(np.arange(len(counts)), counts)
    return [int(f) for f in rng.permutation(faces)]


def test_relabellings_are_the_colour_permutations():
    assert len(COLOUR_PERMUTATIONS) == len(set(COLOUR_PERMUTATIONS)) == 24
    assert COLOUR_PERMUTATIONS[0] == (0, 1, 2, 3)
    assert card_to_str(recolour_face(0, (1, 2, 3, 0))) == "Y0"
    assert card_to_str(recolour_face(51, (1, 2, 3, 0))) == "R+2"
    assert [recolour_face(f, (3, 2, 1, 0)) for f in (52, 53, 54)] == [52, 53, 54]


@pytest.mark.parametrize("settings", variants.params())
def test_a_recoloured_deal_plays_the_recoloured_game(settings):
    """R-DECK-1: every colour has the same cards and no rule names a colour, so relabelling
    the colours of the deck, of every action and of the observation commutes with play
    (until the first round ends: the next round's deck is shuffled anew)."""
    config = RuleConfig(**settings)
    rng = np.random.default_rng(sum(map(ord, str(sorted(settings.items())))))
    game = Game(config)
    mapping = COLOUR_PERMUTATIONS[int(rng.integers(1, 24))]
    to_obs, to_action = game.obs_spec.recolouring(mapping), game.actions.recolouring(mapping)
    assert sorted(to_obs) == list(range(game.observation_size))
    assert sorted(to_action) == list(range(game.num_actions))
    deck = shuffled_deck(config, rng)
    plain = game.init_from_deck([card_to_str(f) for f in deck], dealer=1, seed=5)
    recoloured = game.init_from_deck([card_to_str(recolour_face(f, mapping)) for f in deck], dealer=1, seed=5)
    for _ in range(300):
        if game.is_over(plain) or game.round_number(plain) > 0:
            break
        seat = game.current_player(plain)
        assert game.current_player(recoloured) == seat
        for observer in range(config.num_players):
            expected = np.zeros(game.observation_size, np.float32)
            expected[to_obs] = game.observe(plain, observer)
            np.testing.assert_array_equal(game.observe(recoloured, observer), expected)
        mask = game.legal_mask(plain)
        expected_mask = np.zeros_like(mask)
        expected_mask[to_action] = mask
        np.testing.assert_array_equal(game.legal_mask(recoloured), expected_mask)
        action = int(rng.choice(np.flatnonzero(mask)))
        game.step(plain, action)
        game.step(recoloured, int(to_action[action]))
    assert game.is_over(recoloured) == game.is_over(plain)
