"""Wild Draw Four and its challenge (R-WD4), with the worked example of the house rules."""

import pytest

from .conftest import act, legal, make_game, of_type, setup


def example_position(a_hand):
    """Section 09 of the house rules: R7 on the discard pile, A (seat 0) to play, B next."""
    game = make_game(num_players=3)
    state = setup(
        game,
        [a_hand, ["Y1", "Y2", "Y3"], ["G1", "G2", "G3"]],
        ["R7"],
        draw_pile=["B1", "B2", "B3", "B4", "B5", "B6", "..."],
    )
    return game, state


def test_r_wd4_1_example_same_number_other_colour_does_not_matter_challenge_fails():
    game, state = example_position(["B7", "W+4", "G5"])
    act(game, state, "play W+4 G")
    assert game.current_player(state) == 1 and game.phase(state) == "challenge"
    assert legal(game, state) == {"challenge", "accept"}
    events = act(game, state, "challenge")
    assert of_type(events, "challenge") == [{"type": "challenge", "seat": 1, "offender": 0, "bluff": False}]
    assert [e["card"] for e in of_type(events, "draw") if e["seat"] == 1] == ["B1", "B2", "B3", "B4", "B5", "B6"]
    assert game.hand_sizes(state) == [2, 9, 3]
    assert game.current_player(state) == 2  # B loses the turn
    assert game.position(state)["colour"] == "G"  # the named colour stands


def test_r_wd4_4_example_with_a_red_card_the_challenge_wins():
    game, state = example_position(["B7", "W+4", "R2"])
    act(game, state, "play W+4 G")
    events = act(game, state, "challenge")
    assert of_type(events, "challenge")[0]["bluff"] is True
    assert [e["seat"] for e in of_type(events, "draw")] == [0, 0, 0, 0]
    assert game.hand_sizes(state) == [6, 3, 3]
    assert game.current_player(state) == 1 and game.phase(state) == "play"  # B keeps the turn
    assert game.position(state)["colour"] == "G"
    assert "play G" not in legal(game, state)


def test_r_wd4_2_bluff_is_always_in_the_mask():
    game = make_game(num_players=3)
    state = setup(game, [["R2", "W+4", "R9"], ["Y1"], ["G1"]], ["R7"])
    assert {"play W+4 R", "play W+4 Y", "play W+4 G", "play W+4 B"} <= legal(game, state)


def test_r_wd4_3_accept_draws_four_and_loses_the_turn():
    game = make_game(num_players=3)
    state = setup(game, [["R2", "W+4", "R9"], ["Y1"], ["G1"]], ["R7"])
    act(game, state, "play W+4 B")
    assert game.position(state)["colour"] == "B"
    events = act(game, state, "accept")
    assert len(of_type(events, "draw")) == 4
    assert game.hand_sizes(state) == [2, 5, 1]
    assert game.current_player(state) == 2


def test_r_wd4_4_reveal_only_to_the_challenger():
    game = make_game(num_players=3)
    state = setup(game, [["R2", "W+4", "B9"], ["Y1"], ["G1"]], ["R7"])
    act(game, state, "play W+4 B", "challenge")
    challenger = game.observe_dict(state, 1)
    assert challenger["challenge_reveal"].sum() == 2  # R2 and B9, before drawing 4
    assert challenger["challenge_reveal_seat"][2] == 1  # seat 0 is two seats after seat 1
    for seat in (0, 2):
        assert game.observe_dict(state, seat)["challenge_reveal"].sum() == 0
    assert game.position(state)["challenge_reveal"] == {"viewer": 1, "owner": 0, "hand": ["R2", "B9"]}


def test_r_wd4_4_guilty_offender_draws_4():
    game = make_game(num_players=4)
    state = setup(game, [["R2", "W+4", "B9"], ["Y1", "Y2", "Y3"], ["G1"], ["B1"]], ["R7"])
    act(game, state, "play W+4 Y", "challenge")
    assert game.hand_sizes(state)[0] == 6 and game.current_player(state) == 1
    act(game, state, "play Y1")
    assert game.current_player(state) == 2


def test_r_wd4_5_only_the_target_may_challenge():
    game = make_game(num_players=4)
    state = setup(game, [["R2", "W+4", "B9"], ["Y1"], ["G1"], ["B1"]], ["R7"])
    act(game, state, "play W+4 Y")
    assert game.current_player(state) == 1
    with pytest.raises(ValueError, match="not available"):
        game.step(state, "draw")
    observation = game.observe_dict(state, 2)
    assert observation["acting"][3] == 1  # seat 2 sees that seat 1 (three seats on) decides


def test_r_wd4_drawn_wild_draw_four_may_be_played():
    game = make_game(num_players=3)
    state = setup(game, [["R2", "B9"], ["Y1"], ["G1"]], ["R7"], draw_pile=["W+4", "..."])
    act(game, state, "draw", "play W+4 G")
    assert game.phase(state) == "challenge"
    events = act(game, state, "challenge")
    assert of_type(events, "challenge")[0]["bluff"] is True  # R2 was held
