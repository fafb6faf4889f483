"""Game.play, the one Python play loop (UnoGymEnv's opponents, the tournament's Python
tables and `uno play` all run through it)."""

import numpy as np
import pytest

from uno_env.agents import make_agent
from uno_env.engine import Game, IllegalActionError


def test_play_equals_stepping_by_hand_and_returns_each_seats_rewards():
    game = Game(num_players=3, episode="round")
    agents = [make_agent("keeper", game, seed=s) for s in range(3)]
    by_loop, by_hand = game.init(seed=4), game.init(seed=4)
    rewards = game.play(by_loop, agents)
    again = [make_agent("keeper", game, seed=s) for s in range(3)]
    total = np.zeros(3)
    while not game.is_over(by_hand):
        seat = game.current_player(by_hand)
        total += game.step(by_hand, again[seat](game.observe(by_hand, seat), game.legal_mask(by_hand))).rewards
    assert by_loop == by_hand
    assert np.array_equal(rewards, total) and sorted(rewards) == [-1.0, -1.0, 1.0]


def test_play_stops_where_the_given_seat_must_decide_and_reports_each_step():
    game = Game(num_players=4)
    state = game.init(seed=2)
    agents = {s: make_agent("random_play", game, seed=s) for s in range(4)}
    seen = []
    target = (game.current_player(state) + 2) % 4
    game.play(state, agents, until=target, on_step=lambda seat, action: seen.append((seat, game.events(state))))
    assert game.current_player(state) == target or game.is_over(state)
    assert seen and all(seat != target and events for seat, events in seen)


def test_a_refused_action_names_the_seat_and_changes_nothing():
    game = Game(num_players=2)
    state = game.init(seed=1)
    before = state.copy()
    seat = game.current_player(state)
    illegal = int(np.flatnonzero(game.legal_mask(state) == 0)[0])
    with pytest.raises(IllegalActionError) as info:
        game.play(state, [lambda o, m: illegal] * 2)
    assert info.value.seat == seat and state == before
    with pytest.raises(IllegalActionError):
        game.play(state, [lambda o, m: 1.5] * 2)
    assert state == before
