"""End of a round, scoring, winning, two-player rules and the variants
(R-END, R-SCORE, R-2P, R-VAR, D-VARIANTS, D-2P-REVERSE)."""

import numpy as np

from .conftest import act, legal, make_game, of_type, setup


def test_r_end_1_r_score_1_winner_scores_the_opponents_hands():
    game = make_game(num_players=3)
    state = setup(game, [["R2"], ["Y1", "YS", "W"], ["G9", "B+2"]], ["R7"], scores=[10, 20, 30])
    result = game.step(state, "play R2")
    assert of_type(result.events, "round_end") == [{"type": "round_end", "winner": 0, "points": 1 + 20 + 50 + 9 + 20}]
    assert game.scores(state) == [10 + 100, 20, 30]  # the others score 0
    assert game.round_number(state) == 1 and not game.is_over(state)
    assert list(result.rewards) == [0, 0, 0]  # win/loss rewards only at the game's end


def test_r_score_2_first_to_the_target_wins_the_game():
    game = make_game(num_players=3)
    state = setup(game, [["R2"], ["Y1", "W"], ["G9"]], ["R7"], scores=[450, 499, 0])
    result = game.step(state, "play R2")
    assert game.scores(state) == [510, 499, 0]
    assert game.is_over(state) and game.is_terminated(state) and not game.is_truncated(state)
    assert game.winners(state) == [0] and game.outcome(state) == [1, -1, -1]
    assert list(result.rewards) == [1, -1, -1]
    assert of_type(result.events, "game_end") == [{"type": "game_end", "winner": 0}]


def test_r_score_2_target_score_setting():
    game = make_game(num_players=2, target_score=50)
    state = setup(game, [["R2"], ["W"]], ["R7"])
    game.step(state, "play R2")
    assert game.winners(state) == [0]


def test_r_end_2_last_card_draw_two_next_player_draws_first_and_it_counts():
    game = make_game(num_players=3)
    state = setup(game, [["R+2"], ["Y1"], ["G9"]], ["R7"], draw_pile=["W", "W", "..."])
    events = act(game, state, "play R+2")
    assert [e["seat"] for e in of_type(events, "draw")[:2]] == [1, 1]
    assert of_type(events, "round_end")[0]["points"] == 1 + 50 + 50 + 9


def test_r_end_2_last_card_wild_draw_four_accept_counts():
    game = make_game(num_players=3)
    state = setup(game, [["W+4"], ["Y1"], ["G9"]], ["R7"], draw_pile=["R1", "R2", "R3", "R4", "..."])
    act(game, state, "play W+4 B")
    assert game.phase(state) == "challenge" and game.current_player(state) == 1
    events = act(game, state, "accept")
    assert of_type(events, "round_end")[0] == {"type": "round_end", "winner": 0, "points": 1 + 10 + 9}


def test_r_end_2_last_card_wild_draw_four_challenge_always_fails():
    """With no other card held the Wild Draw Four is legal (R-WD4-1): the challenger
    draws 6, counted in the score, and the player is not brought back (RULES.md R-END-2)."""
    game = make_game(num_players=3)
    state = setup(game, [["W+4"], ["Y1"], ["G9"]], ["R2"], draw_pile=["R1", "R2", "R3", "R4", "R5", "R6", "..."])
    act(game, state, "play W+4 B")
    events = act(game, state, "challenge")
    assert of_type(events, "challenge")[0]["bluff"] is False
    assert len([e for e in of_type(events, "draw") if e["seat"] == 1 and e["reason"] == "challenge_lost"]) == 6
    assert of_type(events, "round_end")[0]["points"] == 1 + 21 + 9


def test_round_episode_ends_after_one_round():
    game = make_game(num_players=3, episode="round")
    state = setup(game, [["R2"], ["Y1"], ["G9"]], ["R7"])
    result = game.step(state, "play R2")
    assert game.is_over(state) and game.winners(state) == [0]
    assert list(result.rewards) == [1, -1, -1]


def test_points_reward_setting():
    game = make_game(num_players=3, reward="points")
    state = setup(game, [["R2"], ["Y1"], ["G9"]], ["R7"])
    result = game.step(state, "play R2")
    assert list(result.rewards) == [10, 0, 0]
    game = make_game(num_players=3, reward="points", scoring="alternative")
    state = setup(game, [["R2"], ["Y1"], ["G9"]], ["R7"])
    result = game.step(state, "play R2")
    assert list(result.rewards) == [0, -1, -9]


def test_r_2p_1_d_2p_reverse_acts_like_skip_and_flips_direction():
    game = make_game(num_players=2)
    state = setup(game, [["RR", "R5", "B1"], ["Y1"]], ["R7"])
    act(game, state, "play RR")
    assert game.current_player(state) == 0
    assert game.position(state)["direction"] == -1


def test_r_2p_2_skip_plays_again():
    game = make_game(num_players=2)
    state = setup(game, [["RS", "R5", "B1"], ["Y1"]], ["R7"])
    events = act(game, state, "play RS")
    assert of_type(events, "skip") == [{"type": "skip", "seat": 1}]
    assert game.current_player(state) == 0


def test_r_2p_3_draw_two_and_wild_draw_four_come_back():
    game = make_game(num_players=2)
    state = setup(game, [["R+2", "R5", "B1"], ["Y1"]], ["R7"])
    act(game, state, "play R+2")
    assert game.hand_sizes(state) == [2, 3] and game.current_player(state) == 0
    state = setup(game, [["W+4", "G5", "B1"], ["Y1"]], ["R7"])
    act(game, state, "play W+4 G", "accept")
    assert game.hand_sizes(state) == [2, 5] and game.current_player(state) == 0
    state = setup(game, [["W+4", "G5", "B1"], ["Y1"]], ["R7"])
    act(game, state, "play W+4 G", "challenge")
    assert game.hand_sizes(state) == [2, 7] and game.current_player(state) == 0
    state = setup(game, [["W+4", "R5", "B1"], ["Y1"]], ["R7"])
    act(game, state, "play W+4 G", "challenge")  # a bluff caught: the challenger plays
    assert game.hand_sizes(state) == [6, 1] and game.current_player(state) == 1


def test_r_var_alt_lowest_running_total_wins():
    game = make_game(num_players=3, scoring="alternative", target_score=100)
    state = setup(game, [["R2"], ["W", "W"], ["G9"]], ["R7"], scores=[40, 10, 60])
    events = act(game, state, "play R2")
    assert game.scores(state) == [40, 110, 69]
    assert [e["points"] for e in of_type(events, "score")] == [0, 100, 9]
    assert game.is_over(state) and game.winners(state) == [0]


def test_d_variants_alternative_ties_all_win():
    game = make_game(num_players=3, scoring="alternative", target_score=100)
    state = setup(game, [["R2"], ["W", "W"], ["G0"]], ["R7"], scores=[30, 10, 30])
    result = game.step(state, "play R2")
    assert game.winners(state) == [0, 2] and list(result.rewards) == [1, -1, 1]


def test_r_var_partners_sit_across_the_table():
    assert [make_game(num_players=6, partners=True).config.partner_of(s) for s in range(6)] == [3, 4, 5, 0, 1, 2]
    assert make_game(num_players=4, partners=True).config.partner_of(np.arange(4)).tolist() == [2, 3, 0, 1]
    assert make_game(num_players=4).config.partner_of(1) == 1  # no partners: itself


def test_r_var_partners_team_scores_opponents_hands():
    game = make_game(num_players=4, partners=True)
    state = setup(game, [["Y7", "Y8"], ["G5", "W"], ["R2"], ["B3"]], ["R7"], current=2)
    events = act(game, state, "play R2")
    assert of_type(events, "round_end")[0]["points"] == 5 + 50 + 3  # partner's Y7 Y8 do not count
    assert game.scores(state) == [58, 0, 58, 0]
    assert game.observe_dict(state, 0)["scores"].tolist() == [58, 0, 58, 0]


def test_r_var_partners_team_reaches_the_target():
    game = make_game(num_players=4, partners=True)
    state = setup(game, [["Y7", "Y8"], ["G5", "W"], ["R2"], ["B3"]], ["R7"], current=2, scores=[450, 10, 450, 10])
    result = game.step(state, "play R2")
    assert game.winners(state) == [0, 2] and list(result.rewards) == [1, -1, 1, -1]


def test_r_var_challenge_eliminated_at_target_then_head_to_head():
    game = make_game(num_players=3, scoring="challenge", target_score=100)
    state = setup(game, [["R2"], ["W", "W"], ["G9"]], ["R7"], scores=[0, 10, 10], dealer=0)
    result = game.step(state, "play R2")
    assert game.alive(state) == [True, False, True]
    assert of_type(result.events, "eliminated") == [{"type": "eliminated", "seat": 1}]
    assert result.rewards[1] == -1 and not game.is_over(state)
    assert game.hand_sizes(state)[1] == 0
    # the next round is two-handed: seat 1 is skipped everywhere
    position = game.position(state)
    assert position["dealer"] == 2
    assert game.current_player(state) in (0, 2)


def test_r_var_challenge_two_left_the_one_reaching_the_target_loses():
    game = make_game(num_players=3, scoring="challenge", target_score=100)
    state = setup(
        game,
        [["RS", "R3"], [], ["W", "W"]],
        ["R7"],
        scores=[0, 120, 10],
        alive=[True, False, True],
    )
    events = act(game, state, "uno", "play RS")  # R-2P-2 with seat 1 gone: plays again
    assert of_type(events, "skip") == [{"type": "skip", "seat": 2}] and game.current_player(state) == 0
    result = game.step(state, "play R3")
    assert game.is_over(state) and game.winners(state) == [0]
    assert list(result.rewards) == [1, 0, -1]  # seat 1 got its -1 when eliminated
    assert game.outcome(state) == [1, -1, -1]


def test_d_variants_challenge_everyone_at_target_at_once():
    game = make_game(num_players=4, scoring="challenge", target_score=100)
    state = setup(game, [["R2"], ["W", "W"], ["W", "W"], ["G1"]], ["R7"], scores=[0, 10, 20, 0])
    result = game.step(state, "play R2")
    assert game.alive(state) == [True, False, False, True]
    assert list(result.rewards) == [0, -1, -1, 0] and not game.is_over(state)
    state = setup(game, [["R2"], ["W", "W"], ["W", "W"], ["W+4", "W+4"]], ["R7"], scores=[0, 10, 20, 0])
    result = game.step(state, "play R2")
    assert game.is_over(state) and game.winners(state) == [0]
    assert list(result.rewards) == [1, -1, -1, -1]


def test_challenge_uno_two_left_follows_two_player_rules():
    game = make_game(num_players=4, scoring="challenge")
    state = setup(
        game,
        [["RR", "R5", "B1"], [], ["Y1", "Y2"], []],
        ["R7"],
        alive=[True, False, True, False],
        scores=[0, 500, 0, 500],  # out at the target (R-VAR-CHALLENGE)
    )
    act(game, state, "play RR")
    assert game.current_player(state) == 0  # R-2P-1 with eliminated seats
    assert "play R5" in legal(game, state)
