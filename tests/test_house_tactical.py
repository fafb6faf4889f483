"""The tactical policy's house-rule play (docs/agents.md, "Under the house rules"): positions
where ``tactical`` weighs a house rule and ``tactical_v1`` (today's tactical before it did)
does not, and seeded games where both choose alike with every house rule off."""

import numpy as np
import pytest

from uno_env.agents import make_agent
from uno_env.agents import policies as policy_kernels
from uno_env.engine import Game, RuleConfig
from uno_env.engine.game import seed_to_rng

from .conftest import act, make_game, setup

TACTICAL, V1 = policy_kernels.TACTICAL, policy_kernels.TACTICAL_V1


def choices(game, state):
    """The actions (texts) ``tactical`` and ``tactical_v1`` take at the decision of ``state``."""
    seat = game.current_player(state)
    obs, mask = game.observe(state, seat), game.legal_mask(state)
    prng = np.array([seed_to_rng(1)], dtype=np.uint64)
    actions = (policy_kernels.policy_act(p, obs, mask, game.params, prng, 0) for p in (TACTICAL, V1))
    return tuple(game.action_to_string(int(a)) for a in actions)


def sized(cards, n, start=1):
    """``cards`` padded to ``n`` cards with distinct low Yellow and Green numbers (never red)."""
    filler = [f"{c}{r}" for r in range(start, 10) for c in "YG"]
    return cards + [c for c in filler if c not in cards][: n - len(cards)]


def test_r_house_seveno_1_a_seven_is_played_to_take_the_shortest_hand_and_swaps_with_it():
    """Seven-O, four players: the 7 gains 5 - 2 = 3 cards (it swaps with seat 2, the fewest
    cards): ``tactical`` plays it over a plain red card and then swaps with seat 2."""
    game = make_game(num_players=4, seven_o=True)
    hands = [["R7", "R3", "B1", "B2", "G5", "Y9"], sized([], 5), ["G8", "B8"], sized([], 7, start=2)]
    state = setup(game, hands, ["R5"])
    new, old = choices(game, state)
    assert new == "play R7" and old != "play R7"
    act(game, state, "play R7")
    assert game.phase(state) == "swap"
    assert choices(game, state) == ("swap 2", "swap 2")  # both swap with the fewest cards


def test_r_house_seveno_1_a_seven_that_would_lose_cards_is_kept():
    """Seven-O, three players: holding R7 and B2 on a red 5, the 7 would hand over 1 card for
    6: ``tactical`` draws instead (without calling UNO first), ``tactical_v1`` calls UNO to
    play it. As the last card the 7 ends the round (R-HOUSE-SEVENO-3) and is played."""
    game = make_game(num_players=3, seven_o=True)
    state = setup(game, [["R7", "B2"], sized([], 6), sized([], 7, start=2)], ["R5"])
    assert choices(game, state) == ("draw", "uno")
    last = setup(game, [["R7"], sized([], 6), sized([], 7, start=2)], ["R5"])
    assert choices(game, last) == ("play R7", "play R7")


def test_r_house_seveno_2_a_zero_is_weighed_by_the_hand_passed_on_to_its_player():
    """Seven-O, three players clockwise: a 0 brings in the hand of the previous seat (seat 2).
    With 6 cards against its 1 card the 0 is played rather than a plain red card; with 3 cards
    against its 9 the 0 is kept and, with nothing else to play, ``tactical`` draws."""
    game = make_game(num_players=3, seven_o=True)
    good = setup(game, [["R0", "R3", "B1", "B2", "B3", "B4"], sized([], 7), ["B9"]], ["R5"])
    assert choices(game, good)[0] == "play R0"
    bad = setup(game, [["R0", "B1", "B2"], sized([], 4), sized([], 9, start=2)], ["R5"])
    assert choices(game, bad) == ("draw", "play R0")


def test_r_house_jump_1_no_jump_in_with_a_seven_that_would_lose_cards():
    """Seven-O with Jump-In, three players: seat 0 plays R7 and swaps with seat 1, so seat 2
    (2 cards: R7, G1) may jump in on it; its own 7 would hand over 1 card for 3 (the fewest,
    seat 1's): ``tactical`` passes, ``tactical_v1`` calls UNO to jump in."""
    game = make_game(num_players=3, seven_o=True, jump_in=True)
    state = setup(game, [["R7", "B1", "B2", "B3"], sized([], 5), ["R7", "G1"]], ["R5"])
    act(game, state, "play R7", "swap 1")
    assert (game.phase(state), game.current_player(state)) == ("jump", 2)
    assert choices(game, state) == ("pass", "uno")


def test_r_house_stack_2_tactical_answers_a_stack_and_keeps_its_last_draw_card_back():
    """Stacking (mixed). Three players: in a penalty decision both answer with the Draw Two
    (R-HOUSE-STACK-2). Two players, a normal turn: with one Draw Two as its only stackable
    card and a plain card of the same colour, ``tactical`` keeps the Draw Two back (the
    opponent holds 7 cards: no threat), ``tactical_v1`` plays it for the extra turn; with a
    second Draw Two in hand both spend one."""
    game = make_game(num_players=3, stacking="mixed")
    stack = setup(game, [["B+2", "G3", "Y4", "Y5"], sized([], 7, start=6), ["B+2", "G1", "G2"]], ["B5"], current=2)
    act(game, stack, "play B+2")
    assert (game.phase(stack), game.current_player(stack)) == ("penalty", 0)
    assert choices(game, stack) == ("play B+2", "play B+2")
    two = make_game(num_players=2, stacking="mixed")
    turn = setup(two, [["R+2", "R8", "B1", "B3", "B4"], sized([], 7)], ["R5"])
    assert choices(two, turn) == ("play R8", "play R+2")
    spare = setup(two, [["R+2", "R8", "B+2", "B3", "B4"], sized([], 7)], ["R5"])
    assert choices(two, spare) == ("play R+2", "play R+2")


@pytest.mark.parametrize("num_players", [2, 4])
def test_tactical_and_tactical_v1_choose_alike_with_every_house_rule_off(num_players):
    """With the house rules off the house terms are 0: at every decision of seeded games
    (random_play at the other seats, so that hands vary), the same action."""
    game = Game(RuleConfig(num_players=num_players))
    compared = 0
    for seed in range(12):
        agents = [make_agent("random_play", game, seed=seed * 10 + s) for s in range(num_players)]
        state = game.init(seed=seed)
        for _ in range(400):
            if game.is_over(state):
                break
            seat = game.current_player(state)
            obs, mask = game.observe(state, seat), game.legal_mask(state)
            new, old = choices(game, state)
            assert new == old
            compared += 1
            action = game.action_to_string(int(agents[seat](obs, mask))) if seat % 2 else new
            game.step(state, action)
    assert compared > 1000
