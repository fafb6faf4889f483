"""The Fashion Trend card (R-VAR-FASHION, D-FT-LAST)."""

from .conftest import act, legal, make_game, of_type, setup


def ft_game(n=4):
    return make_game(num_players=n, deck="fashion_trend")


def test_r_var_fashion_trend_first_player_who_cannot_show_draws_2():
    game = ft_game()
    state = setup(
        game,
        [["FT", "R1", "B2"], ["G+2", "GS", "G7", "W"], ["W", "Y3"], ["G1"]],
        ["Y7"],
        draw_pile=["B5", "B6", "..."],
    )
    assert {"play FT R", "play FT Y", "play FT G", "play FT B"} <= legal(game, state)
    events = act(game, state, "play FT G")
    assert of_type(events, "trend_show") == [{"type": "trend_show", "seat": 1, "card": "G7", "viewer": 0}]
    assert of_type(events, "trend_fail") == [{"type": "trend_fail", "seat": 2}]  # a Wild does not count
    assert [(e["seat"], e["card"]) for e in of_type(events, "draw")] == [(2, "B5"), (2, "B6")]
    assert game.position(state)["colour"] == "G"
    assert game.current_player(state) == 1  # play resumes after the Fashion Trend player
    assert game.hand_sizes(state) == [2, 4, 4, 1]  # shown cards stay in hand


def test_r_var_fashion_everyone_shows_nobody_draws_and_only_the_player_sees():
    game = ft_game()
    state = setup(game, [["FT", "R1", "B2"], ["GR", "G3"], ["G+2", "Y3"], ["G1"]], ["Y7"])
    events = act(game, state, "play FT G")
    assert [e["card"] for e in of_type(events, "trend_show")] == ["G3", "G+2", "G1"]
    assert not of_type(events, "draw") and not of_type(events, "trend_fail")
    viewer = game.observe_dict(state, 0)
    assert viewer["trend_colour"].tolist() == [0, 0, 1, 0]
    assert viewer["trend_shown"][1].argmax() == 3 and viewer["trend_shown"][2].argmax() == 12
    assert viewer["trend_shown"][3].argmax() == 1 and viewer["trend_shown"][0].sum() == 0
    for seat in (1, 2, 3):
        other = game.observe_dict(state, seat)
        assert other["trend_shown"].sum() == 0 and other["trend_colour"].sum() == 0


def test_r_var_fashion_trend_value_and_counter_clockwise_order():
    game = ft_game()
    state = setup(game, [["FT", "R1", "B2"], ["G3"], ["Y3"], ["G1"]], ["Y7"], direction=-1)
    events = act(game, state, "play FT G")
    assert of_type(events, "trend_show")[0]["seat"] == 3
    assert of_type(events, "trend_fail") == [{"type": "trend_fail", "seat": 2}]
    assert game.current_player(state) == 3
    state = setup(game, [["R1"], ["FT", "FT"], ["Y3"], ["G1"]], ["R7"])
    events = act(game, state, "play R1")
    assert of_type(events, "round_end")[0]["points"] == 100 + 3 + 1


def test_d_ft_last_fashion_trend_as_last_card_ends_the_round():
    game = ft_game(3)
    state = setup(game, [["FT"], ["G3"], ["Y3"]], ["Y7"])
    events = act(game, state, "play FT G")
    assert not of_type(events, "trend_show") and not of_type(events, "trend_fail")
    assert of_type(events, "round_end")[0]["winner"] == 0


def test_d_ft_last_shown_card_is_the_lowest_of_the_colour():
    game = ft_game(2)
    state = setup(game, [["FT", "B1", "B2"], ["G+2", "GR", "GS", "G9", "G4"]], ["Y7"])
    events = act(game, state, "play FT G")
    assert of_type(events, "trend_show")[0]["card"] == "G4"
    assert game.current_player(state) == 1  # two players: no skip
    state = setup(game, [["FT", "B1", "B2"], ["G+2", "GR", "GS"]], ["Y7"])
    assert of_type(act(game, state, "play FT G"), "trend_show")[0]["card"] == "GS"
