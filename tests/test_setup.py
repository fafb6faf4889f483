"""Cards, configuration and the start of a round (R-DECK, R-SETUP, D-DEALER)."""

import numpy as np
import pytest

from uno_env.engine import Game, RuleConfig
from uno_env.engine.cards import CARD_VALUES, card_value, deck_counts, deck_faces, parse_card

from .conftest import card_census, deck_for_deal, deck_with, legal, make_game, of_type

HANDS3 = [
    ["R1", "R2", "R3", "R4", "R5", "R6", "R7"],
    ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7"],
    ["G1", "G2", "G3", "G4", "G5", "G6", "G7"],
]


def test_r_deck_1_classic_deck_has_108_cards():
    counts = deck_counts("classic")
    assert counts.sum() == 108
    for colour in "RYGB":
        per_colour = sum(counts[parse_card(colour + r)] for r in "0123456789") + sum(
            counts[parse_card(colour + r)] for r in ("S", "R", "+2")
        )
        assert per_colour == 25
        assert counts[parse_card(colour + "0")] == 1
        assert counts[parse_card(colour + "5")] == 2
        assert counts[parse_card(colour + "+2")] == 2
    assert counts[parse_card("W")] == 4 and counts[parse_card("W+4")] == 4
    state = make_game(num_players=4).init(seed=3)
    assert card_census(make_game(num_players=4), state).sum() == 108


def test_r_deck_2_fashion_trend_deck_has_112_cards():
    counts = deck_counts("fashion_trend")
    assert counts.sum() == 112
    assert counts[parse_card("FT")] == 4
    assert (counts[:54] == deck_counts("classic")).all()
    game = make_game(num_players=3, deck="fashion_trend")
    assert card_census(game, game.init(seed=1)).sum() == 112
    assert len(deck_faces("fashion_trend")) == 112


def test_r_deck_3_card_values():
    assert [card_value(parse_card(c)) for c in ("R0", "Y7", "G9")] == [0, 7, 9]
    assert [card_value(parse_card(c)) for c in ("BS", "BR", "B+2")] == [20, 20, 20]
    assert [card_value(parse_card(c)) for c in ("W", "W+4", "FT")] == [50, 50, 50]
    assert CARD_VALUES[:54].dot(deck_counts("classic")) == 4 * (2 * 45 + 6 * 20) + 8 * 50


@pytest.mark.parametrize("n", [2, 10])
def test_r_deck_4_two_to_ten_players(n):
    game = make_game(num_players=n)
    state = game.init(seed=0)
    assert len(game.position(state)["hands"]) == n
    assert sum(game.hand_sizes(state)) in (7 * n, 7 * n + 2)  # + 2 after a starting Draw Two


@pytest.mark.parametrize(
    "settings, name",
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 11}, "num_players"),
        ({"num_players": 5, "partners": True}, "partners"),
        ({"num_players": 2, "partners": True}, "partners"),
        ({"num_players": 4, "partners": True, "scoring": "alternative"}, "scoring"),
        ({"num_players": 4, "partners": True, "scoring": "challenge"}, "scoring"),
        ({"deck": "jumbo"}, "deck"),
        ({"scoring": "golf"}, "scoring"),
        ({"uno_call": "sometimes"}, "uno_call"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"episode": "hand"}, "episode"),
        ({"reward": "money"}, "reward"),
        ({"target_score": 0}, "target_score"),
        ({"max_steps": -5}, "max_steps"),
    ],
)
def test_r_deck_4_invalid_settings_raise_naming_the_setting(settings, name):
    with pytest.raises(ValueError, match=name):
        RuleConfig(**settings)


def test_unknown_setting_is_named():
    with pytest.raises(ValueError, match="colour_blind"):
        Game(num_players=2, colour_blind=True)


def test_r_setup_1_d_dealer_highest_number_deals_and_ties_redraw():
    """Action and wild cards count 0; only tied players draw again, in seat order."""
    seen_tie = False
    for seed in range(300):
        game = make_game(num_players=6)
        state = game.init(seed=seed)
        draws = of_type(game.events(state), "dealer_draw")
        value = {}
        contenders = list(range(6))
        pos = 0
        while True:
            values = {}
            for seat in contenders:
                event = draws[pos]
                assert event["seat"] == seat  # seat order, tied players only
                face = parse_card(event["card"])
                values[seat] = face % 13 if face < 52 and face % 13 < 10 else 0
                pos += 1
            best = max(values.values())
            contenders = [s for s in contenders if values[s] == best]
            value.update(values)
            if len(contenders) == 1:
                break
            seen_tie = True
        assert pos == len(draws)
        assert game.position(state)["dealer"] == contenders[0]
    assert seen_tie


def test_d_dealer_given_dealer_skips_the_draw():
    game = make_game(num_players=4)
    state = game.init(seed=5, dealer=2)
    assert not of_type(game.events(state), "dealer_draw")
    assert game.position(state)["dealer"] == 2
    state = game.init_from_deck(deck_with([]))
    assert game.position(state)["dealer"] == 0  # deck order without a dealer: seat 0


def test_r_setup_2_deal_one_at_a_time_from_the_dealers_left():
    game = make_game(num_players=3)
    state = game.init_from_deck(deck_for_deal(HANDS3, dealer=1, starter="B5", then=["B9"]), dealer=1)
    position = game.position(state)
    assert position["hands"] == [sorted(h, key=parse_card) for h in HANDS3]
    assert position["discard_pile"] == ["B5"]
    assert position["draw_pile"][0] == "B9"
    assert len(position["draw_pile"]) == 108 - 21 - 1
    # the raw order: seat 2 (left of dealer 1) gets the first card
    order = deck_with([])
    state = game.init_from_deck(order, dealer=1)
    hands = game.position(state)["hands"]
    assert order[0] in hands[2] and order[1] in hands[0] and order[2] in hands[1]
    assert all(len(h) == 7 for h in hands)


def test_r_setup_3_left_of_dealer_starts_clockwise():
    game = make_game(num_players=3)
    state = game.init_from_deck(deck_for_deal(HANDS3, dealer=2, starter="B5"), dealer=2)
    assert game.current_player(state) == 0
    assert game.position(state)["direction"] == 1
    assert game.phase(state) == "play"


def test_r_setup_4_starting_draw_two_first_player_draws_and_loses_turn():
    game = make_game(num_players=3)
    state = game.init_from_deck(deck_for_deal(HANDS3, dealer=0, starter="B+2", then=["B1", "B2"]), dealer=0)
    assert game.hand_sizes(state) == [7, 9, 7]
    assert {"B1", "B2"} <= set(game.position(state)["hands"][1])
    assert game.current_player(state) == 2


def test_r_setup_4_starting_reverse_dealer_plays_first_to_the_right():
    game = make_game(num_players=3)
    state = game.init_from_deck(deck_for_deal(HANDS3, dealer=1, starter="BR"), dealer=1)
    assert game.current_player(state) == 1
    assert game.position(state)["direction"] == -1
    events = game.step(state, "draw").events  # the dealer has no blue card; draws R0 and keeps it
    assert of_type(events, "keep") and game.current_player(state) == 0  # to the right of the dealer


def test_r_setup_4_starting_skip_skips_left_of_dealer():
    game = make_game(num_players=3)
    state = game.init_from_deck(deck_for_deal(HANDS3, dealer=0, starter="BS"), dealer=0)
    assert game.current_player(state) == 2
    assert of_type(game.events(state), "skip") == [{"type": "skip", "seat": 1}]


def test_r_setup_4_starting_wild_first_player_names_colour_then_plays():
    game = make_game(num_players=3)
    state = game.init_from_deck(deck_for_deal(HANDS3, dealer=0, starter="W"), dealer=0)
    assert game.current_player(state) == 1 and game.phase(state) == "color"
    assert legal(game, state) == {"color R", "color Y", "color G", "color B"}
    game.step(state, "color Y")
    assert game.current_player(state) == 1 and game.phase(state) == "play"
    assert "play Y3" in legal(game, state)
    game.step(state, "play Y3")
    assert game.current_player(state) == 2


def test_r_setup_4_starting_wild_draw_four_goes_back_and_another_is_turned():
    game = make_game(num_players=3)
    state = game.init_from_deck(deck_for_deal(HANDS3, dealer=0, starter="W+4"), dealer=0, seed=11)
    events = game.events(state)
    assert of_type(events, "starter_returned")[0]["card"] == "W+4"
    position = game.position(state)
    assert position["discard_pile"][-1] != "W+4"
    assert len(position["discard_pile"]) == 1
    assert sum(len(h) for h in position["hands"]) + len(position["draw_pile"]) + 1 >= 107
    assert card_census(game, state).sum() == 108


def test_r_setup_4_starting_fashion_trend_is_treated_like_a_wild():
    game = make_game(num_players=3, deck="fashion_trend")
    state = game.init_from_deck(deck_for_deal(HANDS3, dealer=0, starter="FT", deck="fashion_trend"), dealer=0)
    assert game.phase(state) == "color" and game.current_player(state) == 1
    events = game.step(state, "color G").events
    assert not of_type(events, "trend_show") and not of_type(events, "trend_fail")
    assert game.current_player(state) == 1 and game.phase(state) == "play"


def test_r_setup_5_next_round_is_redealt_by_the_next_dealer():
    game = make_game(num_players=3)
    state = game.from_position(
        {
            "hands": [["R5"], ["Y1", "Y2"], ["G1", "G2"]],
            "discard_pile": ["R7"],
            "draw_pile": ["..."],
            "current_player": 0,
            "dealer": 2,
        },
        seed=4,
    )
    events = game.step(state, "play R5").events
    assert of_type(events, "round_end")[0]["winner"] == 0
    assert of_type(events, "deal") == [{"type": "deal", "dealer": 0, "round": 1}]
    position = game.position(state)
    assert position["dealer"] == 0 and position["round"] == 1
    dealt = sum(len(h) for h in position["hands"])
    assert dealt == 21 + 2 * len(of_type(events, "draw")) // 2
    assert np.array_equal(card_census(game, state), deck_counts("classic"))
