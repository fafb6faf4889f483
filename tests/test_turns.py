"""A turn and the action cards (R-TURN, R-ACT, D-DRAWN, D-RESHUFFLE)."""

import numpy as np

from uno_env.engine.cards import deck_counts

from .conftest import act, card_census, hand, legal, make_game, of_type, rest_of_deck, setup


def test_r_turn_1_match_by_colour_number_or_symbol_or_wild():
    game = make_game(num_players=3)
    state = setup(game, [["R2", "G7", "B5", "YS", "W", "G+2", "B9"], ["Y1"], ["G1"]], ["Y7"])
    assert legal(game, state) == {
        "play G7",  # number
        "play YS",  # colour
        "play W R",
        "play W Y",
        "play W G",
        "play W B",
        "draw",
    }
    # a symbol matches a symbol of another colour
    state = setup(game, [["RS", "G+2", "B5"], ["Y1"], ["G1"]], ["YS"])
    assert legal(game, state) == {"play RS", "draw"}
    # on a wild, only the named colour matches
    state = setup(game, [["R7", "G7", "B5"], ["Y1"], ["G1"]], ["R7", "W"], colour="B")
    assert legal(game, state) == {"play B5", "draw"}


def test_r_turn_1_the_python_match_rule_is_the_kernels():
    """cards.matches_on is the one definition of R-TURN-1: the kernels inline that function
    (kernels.matches_on), and compiled it gives what Python gives on every (face, colour in
    force, top card) triple."""
    from numba import njit

    from uno_env.engine import kernels
    from uno_env.engine.cards import NUM_FASHION_FACES, matches_on, parse_card

    rule = kernels.matches_on

    @njit
    def compiled(faces, colours, tops, out):
        for k in range(faces.shape[0]):
            out[k] = rule(faces[k], colours[k], tops[k])

    assert rule is matches_on
    triples = np.array(
        [(f, c, t) for f in range(NUM_FASHION_FACES) for c in range(-1, 4) for t in range(NUM_FASHION_FACES)]
    )  # colour -1: no colour yet (a starting Wild)
    out = np.zeros(len(triples), dtype=np.bool_)
    compiled(triples[:, 0], triples[:, 1], triples[:, 2], out)
    assert out.tolist() == [bool(matches_on(*(int(v) for v in row))) for row in triples]
    assert 0 < out.sum() < len(out)
    R7, Y7, R8, W = (parse_card(text) for text in ("R7", "Y7", "R8", "W"))
    assert matches_on(R7, 1, Y7) and not matches_on(Y7, 0, R8) and matches_on(W, 0, R8)
    assert matches_on(R7, 0, W) and not matches_on(Y7, 0, W)  # on a Wild, the colour it named


def test_r_turn_2_drawing_is_always_allowed():
    game = make_game(num_players=2)
    state = setup(game, [["R2", "R3"], ["Y1"]], ["R7"], draw_pile=["G5", "..."])
    assert "draw" in legal(game, state)
    events = act(game, state, "draw")
    assert of_type(events, "draw") == [{"type": "draw", "seat": 0, "card": "G5", "reason": "choice"}]
    assert of_type(events, "keep") and game.current_player(state) == 1


def test_r_turn_3_d_drawn_only_the_drawn_card_may_be_played():
    game = make_game(num_players=3)
    state = setup(game, [["R2", "G9"], ["Y1"], ["G1"]], ["R7"], draw_pile=["R5", "..."])
    act(game, state, "draw")
    assert game.phase(state) == "drawn" and game.current_player(state) == 0
    assert legal(game, state) == {"play R5", "pass"}
    obs = game.observe_dict(state, 0)
    assert obs["drawn_card"].sum() == 1 and obs["drawn_card"][5] == 1  # R5 is face 5
    act(game, state, "play R5")
    assert hand(game, state, 0) == ["R2", "G9"] and game.current_player(state) == 1


def test_r_turn_3_keep_the_drawn_card_and_end_the_turn():
    game = make_game(num_players=3)
    state = setup(game, [["R2", "G9"], ["Y1"], ["G1"]], ["R7"], draw_pile=["W+4", "..."])
    act(game, state, "draw")
    assert legal(game, state) == {"pass", "play W+4 R", "play W+4 Y", "play W+4 G", "play W+4 B"}
    events = act(game, state, "pass")
    assert of_type(events, "pass") and game.current_player(state) == 1
    assert "W+4" in hand(game, state, 0)


def test_d_drawn_unplayable_drawn_card_ends_the_turn_at_once():
    game = make_game(num_players=3)
    state = setup(game, [["R2", "G9"], ["Y1"], ["G1"]], ["R7"], draw_pile=["B1", "..."])
    events = act(game, state, "draw")
    assert of_type(events, "keep") == [{"type": "keep", "seat": 0}]
    assert game.current_player(state) == 1 and game.phase(state) == "play"


def test_r_turn_4_one_card_per_turn_and_nobody_plays_out_of_turn():
    game = make_game(num_players=3)
    state = setup(game, [["R2", "R3", "R4"], ["R5", "R6"], ["G1"]], ["R7"])
    act(game, state, "play R2")
    assert game.current_player(state) == 1
    assert "play R3" not in legal(game, state)
    for seat in (0, 2):
        observation = game.observe_dict(state, seat)
        assert observation["acting"][(1 - seat) % 3] == 1


def test_r_turn_5_d_reshuffle_keeps_the_top_card():
    """The draw pile is empty: the discard pile but its top becomes the new draw pile."""
    game = make_game(num_players=2)
    discard = ["G1", "G2", "G3", "W", "G4", "R4"]
    hands = [["R2", "B9"], ["Y1"]]
    hands[1] += rest_of_deck(hands[0] + hands[1] + discard)
    state = game.from_position(
        {"hands": hands, "discard_pile": discard, "draw_pile": [], "current_player": 0, "colour": "R"}, seed=3
    )
    events = act(game, state, "draw")
    assert of_type(events, "reshuffle") == [{"type": "reshuffle", "cards": 5}]
    position = game.position(state)
    assert position["discard_pile"] == ["R4"] and position["colour"] == "R"
    drawn = of_type(events, "draw")[0]["card"]
    assert sorted(position["draw_pile"] + [drawn]) == sorted(["G1", "G2", "G3", "W", "G4"])
    assert game.observe_dict(state, 0)["discard_pile"].sum() == 1
    assert np.array_equal(card_census(game, state), deck_counts("classic"))


def test_r_turn_5_nothing_to_draw_and_play_goes_on():
    game = make_game(num_players=2)
    hands = [["R0"], []]
    hands[1] = rest_of_deck(["R0", "R5"])
    state = game.from_position({"hands": hands, "discard_pile": ["R5"], "draw_pile": [], "current_player": 1})
    events = act(game, state, "draw")
    assert not of_type(events, "draw") and of_type(events, "keep")
    assert game.current_player(state) == 0


def test_r_turn_6_hidden_information_in_observations():
    game = make_game(num_players=3)
    state = setup(game, [["R2", "G9"], ["Y1", "Y2", "Y3"], ["G1"]], ["B7", "R7"])
    obs = game.observe_dict(state, 0)
    assert obs["hand"].sum() == 2
    assert list(obs["hand_sizes"]) == [2, 3, 1]
    assert obs["draw_pile_size"][0] == 108 - 6 - 2
    assert obs["discard_pile"].sum() == 2
    assert list(obs["colour"]) == [1, 0, 0, 0] and obs["direction"][0] == 1
    # other seats' cards and the draw pile are not in it
    other = game.observe_dict(state, 1)
    assert other["hand"].sum() == 3 and other["hand_sizes"][0] == 3


def test_r_act_1_skip():
    game = make_game(num_players=3)
    state = setup(game, [["RS", "G9", "B3"], ["Y1"], ["G1"]], ["R7"])
    events = act(game, state, "play RS")
    assert of_type(events, "skip") == [{"type": "skip", "seat": 1}]
    assert game.current_player(state) == 2


def test_r_act_2_reverse():
    game = make_game(num_players=4)
    state = setup(game, [["RR", "G9", "B3"], ["Y1"], ["G1"], ["B1"]], ["R7"])
    act(game, state, "play RR")
    assert game.position(state)["direction"] == -1
    assert game.current_player(state) == 3


def test_r_act_3_draw_two_on_matching_colour_or_draw_two():
    game = make_game(num_players=3)
    state = setup(game, [["R+2", "G+2", "Y+2"], ["Y1"], ["G1"]], ["R7"], draw_pile=["B1", "B2", "..."])
    assert legal(game, state) & {"play R+2", "play G+2", "play Y+2"} == {"play R+2"}
    events = act(game, state, "play R+2")
    assert [e["card"] for e in of_type(events, "draw")] == ["B1", "B2"]
    assert game.hand_sizes(state) == [2, 3, 1] and game.current_player(state) == 2
    state = setup(game, [["G+2", "Y5"], ["Y1"], ["G1"]], ["R+2"])
    assert "play G+2" in legal(game, state)


def test_r_act_4_no_stacking_the_target_cannot_answer():
    game = make_game(num_players=3)
    state = setup(game, [["R+2", "G9", "B3"], ["R+2", "W+4", "Y1"], ["G1", "R1"]], ["R7"])
    act(game, state, "play R+2")
    # player 1 drew and lost the turn without a decision; player 2 plays next
    assert game.current_player(state) == 2 and game.hand_sizes(state)[1] == 5
    # the player after the drawer may play a Draw Two on it on their normal turn
    state = setup(game, [["R+2", "G9", "B3"], ["Y1"], ["G+2", "R1"]], ["R7"])
    act(game, state, "play R+2")
    assert "play G+2" in legal(game, state)


def test_r_act_5_wild_any_time_any_colour():
    game = make_game(num_players=3)
    state = setup(game, [["R2", "W"], ["Y1"], ["G1"]], ["R7"])
    assert {"play W R", "play W Y", "play W G", "play W B"} <= legal(game, state)
    act(game, state, "play W R")
    assert game.position(state)["colour"] == "R"
    state = setup(game, [["R2", "W", "B3"], ["Y1"], ["G1"]], ["R7"])
    act(game, state, "play W B")
    assert game.position(state)["colour"] == "B" and game.current_player(state) == 1


def test_r_turn_6_who_drew_instead_of_playing_is_public():
    """Everyone sees a player draw instead of playing and the colour in force then;
    the observation keeps it per seat until that seat plays a card or the round ends."""
    game = make_game(num_players=3)
    state = setup(game, [["R2", "G9", "B1"], ["Y1", "Y2", "Y3"], ["G1", "G2"]], ["R7"], draw_pile=["B5", "R4", "..."])
    act(game, state, "play R2")  # seat 0 plays red; seat 1 cannot and draws B5
    act(game, state, "draw")
    assert game.position(state)["drew_on"] == [[], ["R"], []]
    for observer in range(3):
        seen = game.observe_dict(state, observer)["drew_on"]
        assert seen[(1 - observer) % 3].tolist() == [1, 0, 0, 0] and seen.sum() == 1
    act(game, state, "draw")  # seat 2 draws R4 and plays it
    assert game.position(state)["drew_on"] == [[], ["R"], ["R"]]
    act(game, state, "play R4")
    assert game.position(state)["drew_on"] == [[], ["R"], []]


def test_r_act_5_the_colour_a_wild_named_is_public_until_the_round_ends():
    """Every seat sees, per seat, the colour its last Wild (or Wild Draw Four) named; the
    next naming replaces it, a coloured play or a draw keeps it, and a new round clears it."""
    game = make_game(num_players=3, episode="game", uno_call="off")
    hands = [["W", "W+4", "Y2"], ["Y1", "R5", "R6"], ["G1", "G2"]]
    state = setup(game, hands, ["B7"], draw_pile=["G4", "G5", "..."])
    assert game.position(state)["named_colour"] == [None, None, None]
    act(game, state, "play W R")
    assert game.position(state)["named_colour"] == ["R", None, None]
    for observer in range(3):
        seen = game.observe_dict(state, observer)["named_colour"]
        assert seen[(0 - observer) % 3].tolist() == [1, 0, 0, 0] and seen.sum() == 1
    act(game, state, "play R5", "draw")  # seat 1 plays red, seat 2 draws G4 and keeps it
    assert game.position(state)["named_colour"] == ["R", None, None]
    act(game, state, "play W+4 Y")
    assert game.position(state)["named_colour"] == ["Y", None, None]
    act(game, state, "accept", "draw")  # seat 1 draws four and is skipped; seat 2 keeps G5
    assert game.position(state)["named_colour"] == ["Y", None, None]
    act(game, state, "play Y2")  # seat 0 goes out: the next round starts unmarked
    position = game.position(state)
    assert position["round"] == 1 and position["named_colour"] == [None, None, None]
    assert not game.observe(state, 0)[game.obs_spec.by_name["named_colour"].offset :][:12].any()


def test_r_act_5_the_starting_wild_colour_is_named_by_the_first_player():
    game = make_game(num_players=3)
    state = setup(game, [["R2", "G9"], ["Y1", "Y2"], ["G1", "G2"]], ["W"], current=1, phase="color", colour=None)
    act(game, state, "color G")
    assert game.position(state)["named_colour"] == [None, "G", None]
    assert game.observe_dict(state, 0)["named_colour"][1].tolist() == [0, 0, 1, 0]
