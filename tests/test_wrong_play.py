"""Wrong cards, malformed actions and bad input (R-WRONG, D-WRONG)."""

import pytest

from uno_env.engine import Game, IllegalActionError, PositionError
from uno_env.engine.actions import KIND_NAMES
from uno_env.engine.cards import parse_card

from .conftest import act, hand, legal, make_game, of_type, setup


def test_r_wrong_1_wrong_card_taken_back_draw_2_turn_passes():
    game = make_game(num_players=3)
    state = setup(game, [["G9", "R2", "B4"], ["Y1"], ["G1"]], ["R7"], draw_pile=["B1", "B2", "..."])
    result = game.step(state, "play G9")
    assert result.status == 1
    assert of_type(result.events, "wrong_card") == [{"type": "wrong_card", "seat": 0, "card": "G9"}]
    assert [e["card"] for e in of_type(result.events, "draw")] == ["B1", "B2"]
    assert sorted(hand(game, state, 0)) == sorted(["G9", "R2", "B4", "B1", "B2"])
    assert game.position(state)["discard_pile"] == ["R7"]
    assert game.current_player(state) == 1


def test_r_wrong_1_raise_setting_refuses_and_changes_nothing():
    game = make_game(num_players=3, illegal_action="raise")
    state = setup(game, [["G9", "R2", "B4"], ["Y1"], ["G1"]], ["R7"])
    before = game.position(state)
    with pytest.raises(IllegalActionError, match="cannot be played"):
        game.step(state, "play G9")
    assert game.position(state) == before


def test_r_wrong_1_lose_setting_ends_the_game():
    game = make_game(num_players=3, illegal_action="lose")
    state = setup(game, [["G9", "R2", "B4"], ["Y1"], ["G1"]], ["R7"])
    result = game.step(state, "play G9")
    assert result.status == 2
    assert game.is_over(state) and game.is_terminated(state)
    assert list(result.rewards) == [-1, 0, 0]
    assert game.position(state)["forfeit"] == 0
    state = setup(game, [["G9", "R2", "B4"], ["Y1"], ["G1"]], ["R7"])
    result = game.step(state, "challenge")  # any masked-out action loses in this setting
    assert result.status == 2 and game.is_over(state) and list(result.rewards) == [-1, 0, 0]
    assert result.events[0] == {"type": "forfeit", "seat": 0, "card": None}


def test_d_wrong_card_from_hand_after_drawing_is_a_wrong_card():
    game = make_game(num_players=3)
    state = setup(game, [["R2", "G9"], ["Y1"], ["G1"]], ["R7"], draw_pile=["R5", "B1", "B2", "..."])
    act(game, state, "draw")
    result = game.step(state, "play R2")  # legal before drawing, not after
    assert result.status == 1 and game.current_player(state) == 1
    assert len(hand(game, state, 0)) == 5


@pytest.mark.parametrize(
    "phase_setup, action",
    [
        ({}, "pass"),
        ({}, "challenge"),
        ({}, "catch"),
        ({}, "color R"),
        ({}, "play Y5"),  # not held
    ],
)
def test_d_wrong_malformed_actions_raise_and_change_nothing(phase_setup, action):
    game = make_game(num_players=3)
    state = setup(game, [["G9", "R2", "B4"], ["Y1"], ["G1"]], ["R7"], **phase_setup)
    before = game.position(state)
    with pytest.raises(IllegalActionError):
        game.step(state, action)
    assert game.position(state) == before


def test_d_wrong_play_during_a_challenge_or_catch_decision_is_malformed():
    game = make_game(num_players=3)
    state = setup(game, [["R2", "W+4", "B1"], ["Y1", "R5"], ["G1"]], ["R7"])
    act(game, state, "play W+4 G")
    before = game.position(state)
    with pytest.raises(IllegalActionError, match="challenge or accept"):
        game.step(state, "play R5")
    assert game.position(state) == before
    state = setup(game, [["R2", "G9"], ["Y1", "R5"], ["G1"]], ["R7"])
    act(game, state, "play R2")
    with pytest.raises(IllegalActionError, match="catch or pass"):
        game.step(state, "play R5")


def test_action_id_out_of_range_and_bad_types_raise():
    game = make_game(num_players=2)
    state = game.init(seed=0)
    before = game.position(state)
    for bad in (-1, game.num_actions, 10**6):
        with pytest.raises(IllegalActionError, match="out of range"):
            game.step(state, bad)
    for bad in (1.5, None, True):
        with pytest.raises(ValueError):
            game.step(state, bad)
    with pytest.raises(ValueError, match="unknown action"):
        game.step(state, "dance")
    with pytest.raises(ValueError, match="unknown card"):
        game.step(state, "play X9")
    with pytest.raises(ValueError, match="names a colour"):
        game.step(state, "play W")
    assert game.position(state) == before


def test_unknown_card_text_raises():
    for bad in ("X7", "R10", "", "W+2", "RED7", "R+4"):
        with pytest.raises(ValueError, match="unknown card"):
            parse_card(bad)
    assert parse_card("r+2") == parse_card("R+2")


def test_stepping_a_finished_game_raises():
    game = make_game(num_players=2, episode="round")
    state = setup(game, [["R2"], ["Y1"]], ["R7"])
    act(game, state, "play R2")
    assert game.is_over(state)
    with pytest.raises(IllegalActionError, match="game is over"):
        game.step(state, "draw")


def test_bad_positions_raise_position_errors():
    game = make_game(num_players=2)
    with pytest.raises(PositionError, match="hands"):
        game.from_position({"hands": [["R1"]], "discard_pile": ["R2"], "current_player": 0})
    with pytest.raises(PositionError, match="more copies"):
        game.from_position({"hands": [["R0", "R0"], ["Y1"]], "discard_pile": ["R2"], "current_player": 0})
    with pytest.raises(PositionError, match="missing"):
        game.from_position({"hands": [["R1"], ["Y1"]], "discard_pile": ["R2"], "draw_pile": [], "current_player": 0})
    with pytest.raises(PositionError, match="unknown card"):
        game.from_position({"hands": [["R11"], ["Y1"]], "discard_pile": ["R2"], "current_player": 0})
    with pytest.raises(PositionError, match="current_player"):
        game.from_position({"hands": [["R1"], ["Y1"]], "discard_pile": ["R2"], "current_player": 5})
    with pytest.raises(PositionError, match="unknown position key"):
        game.from_position({"hands": [["R1"], ["Y1"]], "discard_pile": ["R2"], "current_player": 0, "foo": 1})
    with pytest.raises(PositionError, match="colour"):
        game.from_position({"hands": [["R1"], ["Y1"]], "discard_pile": ["W"], "current_player": 0})
    with pytest.raises(PositionError, match="D-DRAWN"):
        game.from_position(
            {
                "hands": [["R1", "B3"], ["Y1"]],
                "discard_pile": ["R2"],
                "current_player": 0,
                "phase": "drawn",
                "drawn_card": "B3",
            }
        )


def test_bad_deck_orders_raise():
    game = Game(num_players=2)
    with pytest.raises(PositionError, match="missing"):
        game.init_from_deck(["R1", "R2"])
    with pytest.raises(ValueError, match="dealer"):
        game.init(seed=1, dealer=2)


def test_r_wrong_2_advice_has_no_action():
    """Agents have no channel to give advice, so the 2-card advice penalty never applies."""
    game = make_game(num_players=4)
    assert {text.split()[0] for text in game.actions.strings} <= set(KIND_NAMES)
    assert not any("advice" in text or "suggest" in text for text in game.actions.strings)
    assert legal(game, game.init(seed=0)) <= set(game.actions.strings)
