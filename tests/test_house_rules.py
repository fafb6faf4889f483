"""The house rules of HOUSE_RULES.md (R-HOUSE-*, D-HOUSE-*), scenario by scenario from positions."""

import numpy as np
import pytest

from uno_env.engine import Game, IllegalActionError, PositionError, RuleConfig
from uno_env.engine.config import HOUSE_SWITCHES
from uno_env.engine.events import summarize

from .conftest import act, deck_for_deal, hand, legal, make_game, of_type, rest_of_deck, setup


def drawn_by(events, seat):
    return [e["card"] for e in of_type(events, "draw") if e["seat"] == seat]


def observed(game, state, seat, name):
    return game.observe_dict(state, seat)[name]


# ---------------------------------------------------------------- settings
def test_house_rules_are_settings_off_by_default_and_validated():
    config = RuleConfig()
    assert (config.stacking, config.seven_o, config.jump_in) == ("off", False, False)
    assert (config.draw_until_playable, config.force_play, config.house_rules) == (False, False, False)
    assert repr(config) == repr(RuleConfig(stacking="off"))  # a classic configuration reads as before
    assert "stacking='mixed'" in repr(RuleConfig(stacking="mixed"))
    with pytest.raises(ValueError, match="stacking='both'"):
        RuleConfig(stacking="both")
    for name in HOUSE_SWITCHES:
        with pytest.raises(ValueError, match=name):
            RuleConfig(**{name: 1})
    everything = RuleConfig(
        num_players=4, partners=True, stacking="mixed", seven_o=True, jump_in=True, draw_until_playable=True
    )
    assert everything.house_rules and Game(everything.replace(force_play=True)).num_actions > 0


# ---------------------------------------------------------------- stacking
def test_r_house_stack_1_a_draw_two_puts_a_pending_penalty_on_its_target():
    game = make_game(num_players=3, stacking="same")
    state = setup(
        game, [["R+2", "R5", "R6"], ["G+2", "B3", "W+4"], ["Y1", "Y2"]], ["R7"], draw_pile=["B1", "B2", "..."]
    )
    act(game, state, "play R+2")
    assert game.phase(state) == "penalty" and game.current_player(state) == 1
    assert observed(game, state, 2, "pending_penalty").tolist() == [2.0]  # public
    assert legal(game, state) == {"play G+2", "accept"}  # no draw: accepting is the draw (R-HOUSE-STACK-6)
    events = act(game, state, "accept")
    assert of_type(events, "penalty_accept") == [{"type": "penalty_accept", "seat": 1, "cards": 2, "stacked": False}]
    assert "P1 accepts the penalty of 2 cards" in summarize(events)  # one Draw Two: nothing was stacked
    assert drawn_by(events, 1) == ["B1", "B2"] and game.current_player(state) == 2
    assert game.phase(state) == "play" and observed(game, state, 2, "pending_penalty").tolist() == [0.0]


def test_r_house_stack_1_with_two_players_the_turn_comes_back_to_the_last_stacker():
    game = make_game(num_players=2, stacking="same")
    state = setup(game, [["R+2", "R5", "R6"], ["G+2", "B3", "B4"]], ["R7"])
    act(game, state, "play R+2", "play G+2")
    assert game.current_player(state) == 0 and game.phase(state) == "penalty"
    events = act(game, state, "accept")
    assert of_type(events, "penalty_accept") == [{"type": "penalty_accept", "seat": 0, "cards": 4, "stacked": True}]
    assert "P0 accepts the stacked penalty of 4 cards" in summarize(events)
    assert game.hand_sizes(state) == [6, 2] and game.current_player(state) == 1 and game.phase(state) == "play"


def test_r_house_stack_2_same_answers_like_with_like_and_passes_the_whole_penalty_on():
    game = make_game(num_players=3, stacking="same")
    state = setup(game, [["R+2", "R5", "R6"], ["G+2", "W+4", "B3"], ["Y+2", "Y2", "W+4"]], ["R7"])
    act(game, state, "play R+2")
    assert "play W+4 G" not in legal(game, state)  # "same": a Wild Draw Four does not answer a Draw Two
    act(game, state, "play G+2")
    assert game.current_player(state) == 2 and observed(game, state, 2, "pending_penalty").tolist() == [4.0]
    act(game, state, "play Y+2")
    assert game.current_player(state) == 0 and observed(game, state, 0, "pending_penalty").tolist() == [6.0]
    events = act(game, state, "accept")
    assert len(drawn_by(events, 0)) == 6 and game.current_player(state) == 1

    state = setup(game, [["W+4", "R5", "R6"], ["W+4", "G+2", "B3"], ["Y2", "Y3"]], ["R7"])
    act(game, state, "play W+4 G")
    assert legal(game, state) == {"play W+4 R", "play W+4 Y", "play W+4 G", "play W+4 B", "accept", "challenge"}
    act(game, state, "play W+4 B")  # a Wild Draw Four answering names a colour
    assert game.current_player(state) == 2 and game.position(state)["colour"] == "B"
    assert observed(game, state, 2, "pending_penalty").tolist() == [8.0]


def test_r_house_stack_2_mixed_a_draw_two_answers_a_wild_draw_four_only_in_its_colour():
    game = make_game(num_players=3, stacking="mixed")
    state = setup(game, [["R+2", "R5", "R6"], ["W+4", "G+2", "B3"], ["Y+2", "G+2", "B+2"]], ["R7"])
    act(game, state, "play R+2")
    assert {"play G+2", "play W+4 R"} <= legal(game, state)  # "mixed": W+4 on a Draw Two
    act(game, state, "play W+4 B")
    assert legal(game, state) == {"play B+2", "accept", "challenge"}  # blue only: the colour named
    act(game, state, "play B+2")
    assert game.current_player(state) == 0 and observed(game, state, 1, "pending_penalty").tolist() == [8.0]
    assert "challenge" not in legal(game, state)  # a Draw Two on top: nothing to challenge


@pytest.mark.parametrize("guilty", [True, False])
def test_r_house_stack_3_a_stacked_wild_draw_four_is_challenged_for_the_whole_penalty(guilty):
    game = make_game(num_players=3, stacking="mixed")
    seat1 = ["W+4", "G3", "G9"] if guilty else ["W+4", "B3", "B9"]  # green in force when it plays
    state = setup(
        game, [["G+2", "R5", "R6"], seat1, ["Y2", "Y3"]], ["G7"], draw_pile=[f"Y{k}" for k in range(4, 10)] + ["..."]
    )
    act(game, state, "play G+2", "play W+4 R")
    assert game.current_player(state) == 2 and legal(game, state) == {"challenge", "accept"}
    events = act(game, state, "challenge")
    assert of_type(events, "challenge") == [{"type": "challenge", "seat": 2, "offender": 1, "bluff": guilty}]
    assert observed(game, state, 2, "challenge_reveal_seat")[2] == 1.0  # seat 1, two places on from seat 2
    assert observed(game, state, 0, "challenge_reveal").sum() == 0  # shown to the challenger only
    if guilty:
        assert len(drawn_by(events, 1)) == 6 and game.current_player(state) == 2 and game.phase(state) == "play"
    else:
        assert len(drawn_by(events, 2)) == 8 and game.current_player(state) == 0
    assert game.position(state)["colour"] == "R"


def test_r_house_stack_3_with_nothing_stacked_the_challenge_is_r_wd4_4():
    game = make_game(num_players=3, stacking="same")
    state = setup(game, [["W+4", "R2", "B1"], ["Y1", "Y2"], ["G1"]], ["R7"])
    act(game, state, "play W+4 G")
    assert game.phase(state) == "penalty" and observed(game, state, 1, "pending_penalty").tolist() == [4.0]
    events = act(game, state, "challenge")
    assert of_type(events, "challenge")[0]["bluff"] is True and len(drawn_by(events, 0)) == 4
    assert game.current_player(state) == 1


def test_r_house_stack_3_a_lone_wild_draw_four_accepted_is_no_stacked_penalty():
    game = make_game(num_players=3, stacking="mixed")
    state = setup(game, [["W+4", "R2", "B1"], ["Y1", "Y2"], ["G1"]], ["R7"])
    act(game, state, "play W+4 G")
    events = act(game, state, "accept")
    assert of_type(events, "penalty_accept") == [{"type": "penalty_accept", "seat": 1, "cards": 4, "stacked": False}]
    assert "P1 accepts the penalty of 4 cards" in summarize(events)
    assert len(drawn_by(events, 1)) == 4 and game.current_player(state) == 2


def test_r_house_stack_4_a_starting_draw_two_may_be_answered():
    game = make_game(num_players=3, stacking="same")
    hands = [["Y1"] * 7, ["R+2", "G1", "G2", "G3", "G4", "G5", "G6"], ["B1"] * 7]
    hands = [["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7"], hands[1], ["B1", "B2", "B3", "B4", "B5", "B6", "B7"]]
    state = game.init_from_deck(deck_for_deal(hands, 0, "G+2"), dealer=0)
    assert game.phase(state) == "penalty" and game.current_player(state) == 1
    assert legal(game, state) == {"play R+2", "accept"}
    act(game, state, "play R+2")
    assert game.current_player(state) == 2 and observed(game, state, 2, "pending_penalty").tolist() == [4.0]


def test_r_house_stack_5_a_draw_two_as_the_last_card_is_drawn_at_once():
    game = make_game(num_players=3, stacking="same", episode="round")
    state = setup(game, [["R+2"], ["G+2", "B3"], ["Y2"]], ["R7"])
    events = act(game, state, "play R+2")
    assert len(drawn_by(events, 1)) == 2 and game.is_over(state)  # no answer to a winning Draw Two
    assert of_type(events, "round_end")[0]["points"] == 20 + 3 + 2 + sum(
        int(c[1]) if c[1].isdigit() else 20 for c in (e["card"] for e in of_type(events, "draw"))
    )


def test_r_house_stack_5_a_wild_draw_four_as_the_last_card_offers_only_accept_and_challenge():
    game = make_game(num_players=3, stacking="mixed", episode="round")
    state = setup(game, [["W+4"], ["W+4", "G+2", "B3"], ["Y2"]], ["R7"])
    act(game, state, "play W+4 G")
    assert legal(game, state) == {"accept", "challenge"}
    before = state.copy()
    events = act(game, state, "play G+2")  # a held card here is a wrong card (R-HOUSE-STACK-6)
    assert of_type(events, "wrong_card") and len(drawn_by(events, 1)) == 6 and game.is_over(state)
    state = before
    events = act(game, state, "challenge")
    assert of_type(events, "challenge")[0]["bluff"] is False and len(drawn_by(events, 1)) == 6
    assert game.is_over(state) and game.winners(state) == [0]


def test_r_house_stack_6_a_card_that_does_not_stack_is_a_wrong_card():
    game = make_game(num_players=3, stacking="same")
    state = setup(game, [["R+2", "R5", "R6"], ["R3", "G+2", "B3"], ["Y2", "Y3"]], ["R7"])
    act(game, state, "play R+2")
    with pytest.raises(IllegalActionError, match="not available"):
        act(game, state, "draw")
    events = act(game, state, "play R3")
    assert of_type(events, "wrong_card") == [{"type": "wrong_card", "seat": 1, "card": "R3"}]
    assert len(drawn_by(events, 1)) == 4 and game.hand_sizes(state)[1] == 7  # pending 2 plus 2
    assert game.current_player(state) == 2 and game.phase(state) == "play"
    raising = make_game(num_players=3, stacking="same", illegal_action="raise")
    state = setup(raising, [["R+2", "R5", "R6"], ["R3", "G+2", "B3"], ["Y2", "Y3"]], ["R7"])
    act(raising, state, "play R+2")
    before = state.copy()
    with pytest.raises(IllegalActionError):
        act(raising, state, "play R3")
    assert state == before


def test_d_house_stack_uno_is_called_in_a_penalty_decision_and_the_catch_window_comes_first():
    game = make_game(num_players=3, stacking="same")
    state = setup(game, [["R+2", "R5"], ["G+2", "B3"], ["Y2", "Y3"]], ["R7"])
    act(game, state, "play R+2")  # seat 0 goes down to one card without calling
    assert game.phase(state) == "catch" and game.current_player(state) == 1  # the target is asked first
    act(game, state, "pass", "pass")
    assert game.phase(state) == "penalty" and game.current_player(state) == 1
    assert "uno" in legal(game, state)  # two cards and a stackable Draw Two
    act(game, state, "uno", "play G+2")
    assert game.phase(state) == "penalty" and game.current_player(state) == 2  # seat 1 called: no window


def test_d_house_stack_asked_the_penalty_decision_is_asked_even_with_only_accept():
    game = make_game(num_players=3, stacking="same")
    state = setup(game, [["R+2", "R5", "R6"], ["B3", "B4"], ["Y2", "Y3"]], ["R7"])
    act(game, state, "play R+2")
    assert game.phase(state) == "penalty" and legal(game, state) == {"accept"}


def test_d_house_stack_judge_a_wild_draw_four_is_judged_on_the_hand_it_was_played_from():
    game = make_game(num_players=3, stacking="same")
    # seat 0 plays its W+4 honestly (no red) going down to one card; caught, it draws a red card
    state = setup(game, [["W+4", "B5"], ["Y1", "Y2"], ["G1", "G2"]], ["R7"], draw_pile=["R1", "R2", "..."])
    act(game, state, "play W+4 G")
    assert game.phase(state) == "catch" and game.current_player(state) == 1
    act(game, state, "catch")
    assert "R1" in hand(game, state, 0) and game.phase(state) == "penalty"
    events = act(game, state, "challenge")
    assert of_type(events, "challenge")[0]["bluff"] is False  # the red cards came after the play
    shown = game.observe_dict(state, 1)["challenge_reveal"]
    assert shown.sum() == 3  # the hand as it is at the challenge: B5, R1, R2


# ---------------------------------------------------------------- Seven-O
def test_r_house_seveno_1_a_seven_swaps_hands_with_the_chosen_player():
    game = make_game(num_players=3, seven_o=True)
    state = setup(game, [["R7", "B1", "B2"], ["Y1"], ["G1", "G2", "G3", "G4"]], ["R5"])
    act(game, state, "play R7")
    assert game.phase(state) == "swap" and game.current_player(state) == 0
    assert legal(game, state) == {"swap 1", "swap 2"}
    events = act(game, state, "swap 2")
    assert of_type(events, "swap") == [{"type": "swap", "seat": 0, "other": 2}]
    assert hand(game, state, 0) == ["G1", "G2", "G3", "G4"] and hand(game, state, 2) == ["B1", "B2"]
    assert game.current_player(state) == 1 and game.phase(state) == "play"  # as after any number card


def test_r_house_seveno_1_with_one_other_player_the_swap_needs_no_decision():
    game = make_game(num_players=2, seven_o=True)
    state = setup(game, [["R7", "B1", "B2"], ["Y1", "Y2", "Y3", "Y4"]], ["R5"])
    events = act(game, state, "play R7")
    assert of_type(events, "swap") == [{"type": "swap", "seat": 0, "other": 1}]
    assert game.hand_sizes(state) == [4, 2] and game.current_player(state) == 1


@pytest.mark.parametrize("direction", [1, -1])
def test_r_house_seveno_2_a_zero_passes_every_hand_on_in_the_direction_of_play(direction):
    game = make_game(num_players=4, seven_o=True)
    hands = [["R0", "B1"], ["Y1"], ["G1", "G2"], ["B7", "B8", "B9"]]
    state = setup(game, hands, ["R5"], direction=direction)
    events = act(game, state, "play R0")
    assert of_type(events, "rotate") == [{"type": "rotate", "seat": 0, "direction": direction}]
    after = [hand(game, state, s) for s in range(4)]
    left = [["B1"], ["Y1"], ["G1", "G2"], ["B7", "B8", "B9"]]
    assert after == [left[(s - direction) % 4] for s in range(4)]
    assert game.current_player(state) == (0 + direction) % 4


def test_r_house_seveno_3_a_seven_or_zero_as_the_last_card_ends_the_round_and_swaps_nothing():
    game = make_game(num_players=3, seven_o=True, episode="round")
    state = setup(game, [["R7"], ["Y1", "Y2"], ["G1"]], ["R5"])
    events = act(game, state, "play R7")
    assert game.is_over(state) and not of_type(events, "swap") and game.winners(state) == [0]
    # a wrong 7 is taken back with no effect; a starting 7 has no effect
    state = setup(game, [["B7", "B1"], ["Y1", "Y2"], ["G1"]], ["R5"])
    events = act(game, state, "play B7")
    assert of_type(events, "wrong_card") and not of_type(events, "swap") and game.current_player(state) == 1
    hands = [["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y8"], ["G1", "G2", "G3", "G4", "G5", "G6", "G8"]]
    hands.append(["B1", "B2", "B3", "B4", "B5", "B6", "B8"])
    state = game.init_from_deck(deck_for_deal(hands, 0, "R7"), dealer=0)
    assert game.phase(state) == "play" and game.current_player(state) == 1
    assert hand(game, state, 1) == hands[1]


def test_r_house_seveno_4_who_swapped_is_public_and_no_other_hand_is_shown():
    game = make_game(num_players=3, seven_o=True)
    state = setup(game, [["R7", "B1", "B2"], ["Y1"], ["G1", "G2", "G3", "G4"]], ["R5"])
    act(game, state, "play R7", "swap 2")
    assert observed(game, state, 1, "last_swap").tolist() == [0.0, 1.0, 1.0]  # seat 1 sees seats 2 and 0
    assert observed(game, state, 1, "hand_sizes").tolist() == [1.0, 2.0, 4.0]
    # seat 1's observation does not depend on what the others hold
    other = setup(game, [["R7", "Y2", "Y3"], ["Y1"], ["B4", "B5", "B6", "B7"]], ["R5"])
    act(game, other, "play R7", "swap 2")
    assert np.array_equal(game.observe(state, 1), game.observe(other, 1))


def test_r_house_seveno_4_a_swap_clears_the_named_colour_of_both_hands():
    """docs/DECISIONS.md, decision 23: the colour a seat's last Wild named describes its hand: a 7 swap
    clears it for the two seats that exchanged hands, a 0 for every seat."""
    game = make_game(num_players=4, seven_o=True)
    hands = [["R7", "R0", "B1"], ["Y1", "Y2"], ["G1", "G2"], ["B3", "R9"]]
    state = setup(game, hands, ["R5"], named_colour=["R", "G", "Y", "B"])
    assert observed(game, state, 1, "named_colour").argmax(axis=1).tolist() == [2, 1, 3, 0]  # seats 1, 2, 3, 0
    act(game, state, "play R7", "swap 2")
    assert game.position(state)["named_colour"] == [None, "G", None, "B"]
    state = setup(game, hands, ["R5"], named_colour=["R", "G", "Y", "B"])
    act(game, state, "play R0")  # every hand passes on
    assert game.position(state)["named_colour"] == [None, None, None, None]
    assert not observed(game, state, 1, "named_colour").any()


def test_d_house_seveno_uno_a_seven_as_the_next_to_last_card_exposes_nobody():
    game = make_game(num_players=3, seven_o=True)
    state = setup(game, [["R7", "B1"], ["Y1", "Y2", "Y3"], ["G1", "G2"]], ["R5"])
    events = act(game, state, "play R7")
    assert not of_type(events, "exposed") and game.phase(state) == "swap"
    events = act(game, state, "swap 1")
    assert not of_type(events, "exposed") and hand(game, state, 1) == ["B1"] and game.phase(state) == "play"


# ---------------------------------------------------------------- Jump-In
def test_r_house_jump_1_the_identical_card_may_be_played_out_of_turn():
    game = make_game(num_players=4, jump_in=True)
    hands = [["R5", "B1", "B3"], ["Y1", "Y2"], ["G1", "G2"], ["R5", "W", "B9"]]
    state = setup(game, hands, ["R3"])
    act(game, state, "play R5")
    assert game.phase(state) == "jump" and game.current_player(state) == 3  # seat 1 would play next
    assert legal(game, state) == {"play R5", "pass"}  # only the identical card
    events = act(game, state, "play R5")
    assert [e["type"] for e in events[:2]] == ["jump_in", "play"] and events[1]["seat"] == 3
    assert game.current_player(state) == 0 and game.phase(state) == "play"  # seats 1 and 2 lost their turn
    # wild cards are never jumped on
    state = setup(game, [["W", "B1", "B3"], ["Y1", "Y2"], ["G1", "G2"], ["W", "B9"]], ["R3"])
    act(game, state, "play W G")
    assert game.phase(state) == "play" and game.current_player(state) == 1


def test_r_house_jump_2_holders_are_asked_in_turn_order_after_the_next_player_and_privately():
    game = make_game(num_players=5, jump_in=True)
    # the next player (seat 1) holding the other G4 is not asked: it plays it on its turn
    state = setup(game, [["G4", "B1", "B3"], ["G4", "Y2"], ["Y1", "Y3"], ["B2", "B4"], ["Y5", "Y6"]], ["G3"])
    act(game, state, "play G4")
    assert game.phase(state) == "play" and game.current_player(state) == 1
    # seat 2 holds none and is not asked; seat 3 holds one
    state = setup(game, [["G4", "B1", "B3"], ["Y7", "Y2"], ["Y1", "Y3"], ["G4", "B2"], ["Y5", "Y6"]], ["G3"])
    act(game, state, "play G4")
    assert game.phase(state) == "jump" and game.current_player(state) == 3
    seen_by_others = game.observe_dict(state, 2)
    assert seen_by_others["phase"][0] == 1.0 and seen_by_others["acting"][4] == 1.0  # seat 1's turn, as seat 2 sees
    assert game.observe_dict(state, 3)["phase"][-1] == 1.0  # the asked seat sees the jump decision
    events = act(game, state, "pass")
    assert of_type(events, "jump_pass") == [{"type": "jump_pass", "seat": 3}]
    from uno_env.engine.events import seen_by

    assert seen_by(events, 2) == [] and seen_by(events, 3) == events  # only the asked seat knows
    assert game.current_player(state) == 1 and game.phase(state) == "play"


def test_r_house_jump_3_the_jumped_card_acts_from_the_jumpers_seat():
    game = make_game(num_players=4, jump_in=True)
    state = setup(game, [["RS", "B1", "B3"], ["Y1"], ["RS", "G2", "G3"], ["B4", "B5"]], ["R3"])
    act(game, state, "play RS")  # skips seat 1; seat 2, holding the other RS, plays next: no window
    assert game.current_player(state) == 2 and game.phase(state) == "play"
    state = setup(game, [["RS", "B1", "B3"], ["RS", "Y1", "Y3"], ["G2", "G3"], ["B4", "B5"]], ["R3"])
    act(game, state, "play RS")
    assert game.phase(state) == "jump" and game.current_player(state) == 1
    events = act(game, state, "play RS")  # the skipped seat jumps in: it skips seat 2, seat 3 plays
    assert of_type(events, "skip") == [{"type": "skip", "seat": 2}] and game.current_player(state) == 3
    # a jumped-in Draw Two targets the player after the jumper, and a new window opens on it
    game = make_game(num_players=4, jump_in=True, stacking="same")
    state = setup(game, [["R+2", "B1", "B3"], ["Y1", "Y2"], ["G2", "G3"], ["R+2", "B4", "B5"]], ["R3"])
    act(game, state, "play R+2", "accept")  # seat 1 accepts; the window opens: seat 3 asked
    assert game.phase(state) == "jump" and game.current_player(state) == 3
    act(game, state, "play R+2")
    assert game.phase(state) == "penalty" and game.current_player(state) == 0
    act(game, state, "accept")
    assert game.phase(state) == "play" and game.current_player(state) == 1


def test_r_house_jump_4_only_the_identical_card_uno_or_pass_and_no_window_on_a_starter():
    game = make_game(num_players=4, jump_in=True)
    hands = [["R5", "B1", "B3"], ["Y1", "Y2"], ["G1", "G2"], ["R5", "R6", "B9"]]
    state = setup(game, hands, ["R3"])
    act(game, state, "play R5")
    before = state.copy()
    for action in ("play R6", "draw", "play B9"):
        with pytest.raises(IllegalActionError):
            act(game, state, action)
        assert state == before
    hands = [["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7"], ["G1", "G2", "G3", "G4", "G5", "G6", "G7"]]
    hands += [["R4", "B2", "B3", "B4", "B5", "B6", "B7"], ["B1", "B8", "B9", "Y8", "Y9", "G8", "G9"]]
    state = game.init_from_deck(deck_for_deal(hands, 0, "R4"), dealer=0)
    assert game.phase(state) == "play" and game.current_player(state) == 1  # no window on the starter
    # with two players a window exists only when the turn comes back to the card's player
    duel = make_game(num_players=2, jump_in=True)
    state = setup(duel, [["R5", "B1", "B3"], ["R5", "Y2"]], ["R3"])
    act(duel, state, "play R5")
    assert duel.phase(state) == "play" and duel.current_player(state) == 1
    state = setup(duel, [["RS", "B1", "B3"], ["RS", "Y2"]], ["R3"])
    act(duel, state, "play RS")
    assert duel.phase(state) == "jump" and duel.current_player(state) == 1


# ---------------------------------------------------------------- draw to match, force play
def test_r_house_draw_1_drawing_goes_on_until_a_card_can_be_played():
    game = make_game(num_players=3, draw_until_playable=True)
    state = setup(game, [["B1", "B2"], ["Y1"], ["G1"]], ["R5"], draw_pile=["Y7", "G8", "R9", "B4", "..."])
    events = act(game, state, "draw")
    assert drawn_by(events, 0) == ["Y7", "G8", "R9"] and game.phase(state) == "drawn"
    assert legal(game, state) == {"play R9", "pass"}  # the decision is on the last card drawn
    # penalty draws stay exact
    state = setup(game, [["R+2", "B2"], ["Y1"], ["G1"]], ["R5"], draw_pile=["Y7", "G8", "R9", "..."])
    events = act(game, state, "play R+2")
    assert drawn_by(events, 1) == ["Y7", "G8"]


def test_r_house_draw_1_draws_through_a_reshuffle_and_stops_when_no_card_is_left():
    game = make_game(num_players=2, draw_until_playable=True)
    # every other card is in seat 1's hand: the draw pile holds Y7 only, then the reshuffle gives G3 and Y2
    rest = rest_of_deck(["B1", "B2", "G3", "Y2", "G5", "Y7"])
    state = setup(game, [["B1", "B2"], rest], ["G3", "Y2", "G5"], draw_pile=["Y7"])
    events = act(game, state, "draw")
    assert drawn_by(events, 0)[0] == "Y7" and of_type(events, "reshuffle")
    assert drawn_by(events, 0)[-1] == "G3" and game.phase(state) == "drawn"  # until one plays


def test_r_house_force_1_a_playable_drawn_card_must_be_played():
    game = make_game(num_players=3, force_play=True)
    state = setup(game, [["B1", "B2", "B3"], ["Y1"], ["G1"]], ["R5"], draw_pile=["R9", "W", "..."])
    events = act(game, state, "draw")  # a coloured card and no uno: played at once (D-DRAWN)
    assert of_type(events, "play") == [{"type": "play", "seat": 0, "card": "R9"}]
    assert game.current_player(state) == 1
    state = setup(game, [["B1", "B2", "B3"], ["Y1"], ["G1"]], ["R5"], draw_pile=["W", "..."])
    act(game, state, "draw")
    assert game.phase(state) == "drawn" and legal(game, state) == {f"play W {c}" for c in "RYGB"}
    state = setup(game, [["B1"], ["Y1"], ["G1"]], ["R5"], draw_pile=["R9", "..."])
    act(game, state, "draw")  # two cards now: uno is a decision, so the play waits
    assert legal(game, state) == {"play R9", "uno"}
    assert game.phase(state) == "drawn"


def test_r_house_force_1_after_uno_the_drawn_card_is_played_without_a_decision():
    """UNO is called once a turn (D-UNO): after the call the coloured drawn card is the only
    action left, so it is played at once (D-DRAWN), the call keeping its player safe."""
    game = make_game(num_players=3, force_play=True)
    state = setup(game, [["B1"], ["Y5", "Y6"], ["G5", "G6"]], ["R5"], draw_pile=["R8", "..."])
    act(game, state, "draw")
    assert game.phase(state) == "drawn" and legal(game, state) == {"play R8", "uno"}
    events = act(game, state, "uno")
    assert [e["type"] for e in events] == ["uno", "play"] and events[1]["card"] == "R8"
    assert hand(game, state, 0) == ["B1"] and game.current_player(state) == 1 and game.phase(state) == "play"
    # a drawn Wild still asks for its colour after the call
    state = setup(game, [["B1"], ["Y5", "Y6"], ["G5", "G6"]], ["R5"], draw_pile=["W", "..."])
    act(game, state, "draw", "uno")
    assert game.phase(state) == "drawn" and legal(game, state) == {f"play W {c}" for c in "RYGB"}
    # without an UNO call to make (uno_call="off"), the card is played with the draw
    silent = make_game(num_players=3, force_play=True, uno_call="off")
    state = setup(silent, [["B1"], ["Y5", "Y6"], ["G5", "G6"]], ["R5"], draw_pile=["R8", "..."])
    assert [e["type"] for e in act(silent, state, "draw")][-2:] == ["draw", "play"]
    # a position in the drawn phase after the call is one no game reaches
    position = game.position(setup(game, [["B1"], ["Y5", "Y6"], ["G5", "G6"]], ["R5"], draw_pile=["R8", "..."]))
    position.update(phase="drawn", hands=[["B1", "R8"], ["Y5", "Y6"], ["G5", "G6"]], drawn_card="R8")
    position.update(draw_pile=position["draw_pile"][1:])
    assert game.phase(game.from_position(position)) == "drawn"
    with pytest.raises(PositionError, match="drawn_card"):
        game.from_position({**position, "uno_called": True})


@pytest.mark.parametrize(
    ("settings", "drawn", "after"),
    [
        ({"uno_call": "auto"}, "R8", ("play", 1)),
        ({"draw_until_playable": True}, "R8", ("play", 1)),
        ({"stacking": "mixed"}, "R+2", ("penalty", 1)),  # R-HOUSE-STACK-1: its target decides
        ({"seven_o": True}, "R7", ("swap", 0)),  # R-HOUSE-SEVENO-1: then the swap is chosen
        ({"jump_in": True}, "R8", ("jump", 2)),  # R-HOUSE-JUMP-1: seat 2 holds the other R8
        ({"partners": True, "num_players": 4}, "R8", ("play", 1)),
    ],
    ids=["uno-auto", "draw-until-playable", "stacking", "seven-o", "jump-in", "partners"],
)
def test_r_house_force_1_after_uno_the_drawn_card_is_played_with_every_rule(settings, drawn, after):
    game = make_game(**{"num_players": 3, "force_play": True, **settings})
    hands = [["B1"], ["Y5", "Y6"], ["G5", "R8", "G6"], ["G7", "G8"]][: game.num_players]
    state = setup(game, hands, ["R5"], draw_pile=[drawn, "..."])
    act(game, state, "draw")
    assert legal(game, state) == {f"play {drawn}", "uno"}
    events = act(game, state, "uno")
    assert of_type(events, "play") == [{"type": "play", "seat": 0, "card": drawn}]
    assert not of_type(events, "exposed") and hand(game, state, 0) == ["B1"]
    assert (game.phase(state), game.current_player(state)) == after


def test_r_house_force_1_the_vector_env_and_its_compiled_policies_play_the_card_after_uno():
    """The same kernels: the caller's `uno` in the vector env, and the compiled `naive` (which
    calls UNO when it may) at seat 0 inside the vector env's kernel, both play the card."""
    from uno_env.vector import UnoVectorEnv

    game = make_game(num_players=3, force_play=True)
    env = UnoVectorEnv(1, game.config)
    env.load_state(0, setup(game, [["B1"], ["Y5", "Y6"], ["G5", "G6"]], ["R5"], draw_pile=["R8", "..."]))
    env.step([game.string_to_action("draw")])
    env.step([game.string_to_action("uno")])
    position = game.position(env.game_state(0))
    assert position["hands"][0] == ["B1"] and position["discard_pile"][-1] == "R8" and env.seat[0] == 1
    env = UnoVectorEnv(1, game.config, seats=["naive", None, None])
    env.load_state(0, setup(game, [["B1"], ["Y5", "Y6"], ["R5", "G6", "G7"]], ["R4"], 2, draw_pile=["R8", "..."]))
    env.step([game.string_to_action("play R5")])  # seat 0 (naive) draws R8, calls UNO: R8 is played
    position = game.position(env.game_state(0))
    assert position["hands"][0] == ["B1"] and position["discard_pile"][-1] == "R8" and env.seat[0] == 1
    assert position["step"] == 3  # play R5, draw, uno: no decision to play R8


def test_d_uno_a_call_leaves_a_decision_in_every_other_phase_it_is_made_in():
    """After `uno` the decision shrinks by one action; outside R-HOUSE-FORCE-1 at least two
    stay, so it is still asked: `draw` on a turn (R-TURN-2), `pass` on a drawn card without
    force play (R-TURN-3), `accept` in a penalty decision (D-HOUSE-STACK-UNO) and `pass` in a
    jump-in decision (R-HOUSE-JUMP-4). tests/test_invariants.py checks it in random play of
    every variant: a decision with one action is asked only on a turn or a penalty."""
    game = make_game(num_players=3, force_play=True)
    state = setup(game, [["R1", "B2"], ["Y5", "Y6"], ["G5", "G6"]], ["R5"])
    act(game, state, "uno")
    assert legal(game, state) == {"play R1", "draw"}
    game = make_game(num_players=3)
    state = setup(game, [["B1"], ["Y5", "Y6"], ["G5", "G6"]], ["R5"], draw_pile=["R8", "..."])
    act(game, state, "draw", "uno")
    assert game.phase(state) == "drawn" and legal(game, state) == {"play R8", "pass"}
    game = make_game(num_players=3, stacking="same", force_play=True)
    state = setup(game, [["R+2", "R5", "R6"], ["G+2", "B3"], ["Y2", "Y3"]], ["R7"])
    act(game, state, "play R+2", "uno")
    assert game.phase(state) == "penalty" and legal(game, state) == {"play G+2", "accept"}
    game = make_game(num_players=4, jump_in=True, force_play=True)
    state = setup(game, [["R5", "B1", "B3"], ["Y1", "Y2"], ["G1", "G2"], ["R5", "B9"]], ["R3"])
    act(game, state, "play R5", "uno")
    assert game.phase(state) == "jump" and legal(game, state) == {"play R5", "pass"}


def test_r_house_jump_2_rendered_views_keep_the_asked_seat_private():
    from uno_env.render import render_image, render_text

    game = make_game(num_players=4, jump_in=True, stacking="same")
    state = setup(game, [["R5", "B1", "B3"], ["Y1", "Y2"], ["G1", "G2"], ["R5", "W", "B9"]], ["R3"])
    act(game, state, "play R5")
    others = render_text(game, state, viewer=1).splitlines()
    assert "<- play" in next(line for line in others if line.strip().startswith("P1"))
    assert "<-" not in next(line for line in others if line.strip().startswith("P3"))
    assert "<- jump" in render_text(game, state, viewer=3)
    state = setup(game, [["R+2", "B1", "B3"], ["Y1", "Y2"], ["G1", "G2"], ["R7", "W", "B9"]], ["R3"])
    act(game, state, "play R+2")
    assert "pending penalty 2 cards" in render_text(game, state, viewer=2)
    assert render_image(game, state, viewer=2).shape == (640, 960, 3)
