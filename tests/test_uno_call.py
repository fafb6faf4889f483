"""Calling UNO and catching (R-UNO, D-UNO, D-WINDOW)."""

import pytest

from .conftest import act, legal, make_game, of_type, setup


def test_r_uno_1_call_before_the_next_to_last_card_does_not_end_the_turn():
    game = make_game(num_players=3)
    state = setup(game, [["R2", "G9"], ["Y1", "Y2"], ["G1", "G2"]], ["R7"])
    assert "uno" in legal(game, state)
    events = act(game, state, "uno")
    assert of_type(events, "uno") == [{"type": "uno", "seat": 0}]
    assert game.current_player(state) == 0 and game.phase(state) == "play"
    assert "uno" not in legal(game, state)  # once per turn
    assert game.observe_dict(state, 1)["uno_called"][0] == 1
    events = act(game, state, "play R2")
    assert not of_type(events, "exposed") and game.current_player(state) == 1


def test_d_uno_only_with_two_cards_and_a_legal_play():
    game = make_game(num_players=3)
    assert "uno" not in legal(game, setup(game, [["R2", "G9", "B1"], ["Y1"], ["G1"]], ["R7"]))
    assert "uno" not in legal(game, setup(game, [["B2", "G9"], ["Y1"], ["G1"]], ["R7"]))  # nothing playable
    assert "uno" in legal(game, setup(game, [["B2", "W+4"], ["Y1"], ["G1"]], ["R7"]))  # a Wild Draw Four counts


def test_d_uno_flag_lasts_this_turn_only_and_works_on_the_drawn_card():
    game = make_game(num_players=2)
    state = setup(game, [["R2", "G9"], ["Y1", "Y2", "Y3"]], ["R7"], draw_pile=["B5", "Y9", "R3", "..."])
    act(game, state, "uno", "draw")  # called, then drew B5 instead of playing
    assert game.current_player(state) == 1 and not game.position(state)["uno_called"]
    act(game, state, "draw")  # Y9 kept
    # player 0 has 3 cards; draws R3 which is playable
    act(game, state, "draw")
    assert game.phase(state) == "drawn" and "uno" not in legal(game, state)


def test_d_uno_on_the_drawn_card_decision():
    game = make_game(num_players=2)
    state = setup(game, [["G9"], ["Y1", "Y2", "Y3"]], ["R7"], draw_pile=["R3", "..."])
    act(game, state, "draw")
    assert legal(game, state) == {"play R3", "pass", "uno"}
    events = act(game, state, "uno", "play R3")
    assert not of_type(events, "exposed")


def test_r_uno_2_first_catch_makes_the_exposed_player_draw_2():
    game = make_game(num_players=4)
    state = setup(game, [["R2", "G9"], ["Y1"], ["G1"], ["B1"]], ["R7"], draw_pile=["B5", "B6", "..."])
    events = act(game, state, "play R2")
    assert of_type(events, "exposed") == [{"type": "exposed", "seat": 0}]
    assert game.phase(state) == "catch" and game.current_player(state) == 1
    assert legal(game, state) == {"catch", "pass"}
    seen = game.observe_dict(state, 2)
    assert seen["exposed"].tolist() == [0, 0, 1, 0]  # seat 0 is two seats on from seat 2
    assert seen["after_window"].tolist() == [0, 0, 0, 1]  # seat 1 plays when the window closes
    act(game, state, "pass")
    assert game.current_player(state) == 2
    events = act(game, state, "catch")
    assert of_type(events, "catch") == [{"type": "catch", "catcher": 2, "seat": 0}]
    assert [e["card"] for e in of_type(events, "draw")] == ["B5", "B6"]
    assert game.hand_sizes(state)[0] == 3
    assert game.phase(state) == "play" and game.current_player(state) == 1  # window closed


def test_r_uno_2_no_catch_window_closes_after_everyone_declines():
    game = make_game(num_players=3)
    state = setup(game, [["R2", "G9"], ["Y1"], ["G1"]], ["R7"])
    act(game, state, "play R2", "pass")
    assert game.current_player(state) == 2 and game.phase(state) == "catch"
    act(game, state, "pass")  # the exposed player 0 is never asked
    assert game.phase(state) == "play" and game.current_player(state) == 1
    assert game.hand_sizes(state)[0] == 1


def test_d_window_opens_after_the_draw_two_and_starts_after_the_exposed_player():
    game = make_game(num_players=4)
    state = setup(game, [["R+2", "G9"], ["Y1"], ["G1"], ["B1"]], ["R7"], draw_pile=["B5", "B6", "B7", "B8", "..."])
    events = act(game, state, "play R+2")
    assert [e["seat"] for e in of_type(events, "draw")] == [1, 1]  # the Draw Two first
    assert game.phase(state) == "catch" and game.current_player(state) == 1  # the skipped seat is asked
    act(game, state, "pass", "pass", "pass")
    assert game.current_player(state) == 2  # seat 1 lost its turn


def test_d_window_follows_the_new_direction_after_a_reverse():
    game = make_game(num_players=4)
    state = setup(game, [["RR", "G9"], ["Y1"], ["G1"], ["B1"]], ["R7"])
    act(game, state, "play RR")
    assert game.current_player(state) == 3 and game.phase(state) == "catch"
    act(game, state, "pass")
    assert game.current_player(state) == 2
    act(game, state, "catch")
    assert game.current_player(state) == 3 and game.hand_sizes(state)[0] == 3


def test_d_window_bluffer_caught_by_the_challenge_is_no_longer_exposed():
    game = make_game(num_players=3)
    state = setup(game, [["R2", "W+4"], ["Y1"], ["G1"]], ["R7"])
    act(game, state, "play W+4 G")
    assert game.phase(state) == "challenge"  # the window waits for the challenge
    events = act(game, state, "challenge")
    assert not of_type(events, "exposed") and game.phase(state) == "play"
    state = setup(game, [["B2", "W+4"], ["Y1"], ["G1"]], ["R7"])
    act(game, state, "play W+4 G")
    assert game.observe_dict(state, 1)["exposed"].tolist() == [0, 0, 1]  # public while the challenge waits
    events = act(game, state, "accept")
    assert of_type(events, "exposed") and game.phase(state) == "catch" and game.current_player(state) == 1


def test_r_uno_3_no_late_call_during_the_window():
    game = make_game(num_players=3)
    state = setup(game, [["R2", "G9"], ["Y1"], ["G1"]], ["R7"])
    act(game, state, "play R2")
    with pytest.raises(ValueError, match="not available"):
        game.step(state, "uno")
    assert game.current_player(state) == 1


def test_r_uno_4_auto_catches_at_once():
    game = make_game(num_players=3, uno_call="auto")
    assert "catch" not in game.actions.strings and "uno" in game.actions.strings
    state = setup(game, [["R2", "G9"], ["Y1"], ["G1"]], ["R7"])
    events = act(game, state, "play R2")
    assert of_type(events, "catch") == [{"type": "catch", "catcher": None, "seat": 0}]
    assert game.hand_sizes(state)[0] == 3 and game.phase(state) == "play" and game.current_player(state) == 1
    state = setup(game, [["R2", "G9"], ["Y1"], ["G1"]], ["R7"])
    events = act(game, state, "uno", "play R2")
    assert not of_type(events, "catch") and game.hand_sizes(state)[0] == 1


def test_r_uno_4_off_has_no_uno_rule():
    game = make_game(num_players=3, uno_call="off")
    assert "catch" not in game.actions.strings and "uno" not in game.actions.strings
    state = setup(game, [["R2", "G9"], ["Y1"], ["G1"]], ["R7"])
    events = act(game, state, "play R2")
    assert not of_type(events, "exposed") and game.current_player(state) == 1
