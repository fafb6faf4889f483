"""The open-hand search: it plays what its play-outs favour, beats tactical, refuses bad settings."""

import json

import numpy as np

from experiments import open_hands as O


def test_seeing_every_hand_beats_tactical_at_two_players():
    result = O.play(O.Args(num_players=2, hands=40, samples=12, progress=False))
    assert result["win_rate"][1] > 0.5  # tactical against itself wins half


def test_the_chosen_action_wins_most_often_on_the_same_shuffles():
    args = O.Args(num_players=3, hands=1, samples=8, progress=False)
    game = O.make_game_of(args)
    state = game.init(seed=5)
    while len(game.legal_actions(state)) < 3:  # a position with a real choice
        game.step(state, game.legal_actions(state)[0])
    seat = game.current_player(state)
    actions = game.legal_actions(state)
    chosen = O.open_hand_action(game, state, (seat,), actions[0], 8, np.random.default_rng(7), confidence=0.0)
    sure = O.open_hand_action(game, state, (seat,), actions[0], 8, np.random.default_rng(7), confidence=1e9)
    assert sure == actions[0]  # no evidence overrules the default
    # the same draws as open_hand_action: the shuffles, then the play-outs' seed
    rng = np.random.default_rng(7)
    states = O.shuffled_states(game, game.position(state), 8, rng)
    outcome, _, _ = O.play_out(
        game, states * len(actions), [a for a in actions for _ in states], O.ROLLOUT, int(rng.integers(2**31))
    )
    won = (outcome[:, seat] > 0).reshape(len(actions), 8).mean(axis=1)
    assert won[actions.index(chosen)] == won.max()
    if won[0] == won.max():
        assert chosen == actions[0]  # a tie keeps the default
    # the shuffles keep every hand and the pile's cards, and change only the pile's order
    position = game.position(state)
    for copy in states:
        shuffled = game.position(copy)
        assert shuffled["hands"] == position["hands"] and sorted(shuffled["draw_pile"]) == sorted(position["draw_pile"])


def test_what_the_seer_sees():
    game = O.make_game_of(O.Args(num_players=4))
    state = game.init(seed=9)
    seat = game.current_player(state)
    following = (seat + game.position(state)["direction"]) % 4
    assert O.hidden_seats(game.position(state), (seat,), "all") == ()
    assert set(O.hidden_seats(game.position(state), (seat,), "team")) == {0, 1, 2, 3} - {seat}
    assert set(O.hidden_seats(game.position(state), (seat,), "next")) == {0, 1, 2, 3} - {seat, following}
    position = game.position(state)
    hidden = O.hidden_seats(game.position(state), (seat,), "next")
    pool = sorted(c for s in hidden for c in position["hands"][s]) + position["draw_pile"]
    moved = 0
    for copy in O.shuffled_states(game, position, 20, np.random.default_rng(1), hidden):
        again = game.position(copy)
        for s in (seat, following):  # the seen hands stay
            assert again["hands"][s] == position["hands"][s]
        for s in hidden:  # the hidden ones keep their sizes, dealt from the unseen cards
            assert len(again["hands"][s]) == len(position["hands"][s])
            moved += sorted(again["hands"][s]) != sorted(position["hands"][s])
        unseen = [c for s in hidden for c in again["hands"][s]] + again["draw_pile"]
        assert sorted(unseen) == sorted(pool)
        assert np.array_equal(game.observe(copy, seat), game.observe(state, seat))  # the seer's view is kept
    assert moved > 0


def test_a_smoke_run_and_refusals(capsys):
    assert O.main(["--smoke"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert 0.0 <= result["win_rate"][0] <= 1.0 and result["args"]["hands"] == 6
    assert O.main(["--smoke", "--hands", "0"]) == 2
    assert O.main(["--smoke", "--confidence", "-1"]) == 2
    assert "at least 1" in capsys.readouterr().err
