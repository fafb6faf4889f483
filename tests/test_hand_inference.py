"""The hand-inference probe: its labels are the true hands, its history the public plays, and history informs."""

import json

import numpy as np
import pytest

pytest.importorskip("torch")

from experiments import hand_inference as H  # noqa: E402


def test_the_colour_a_play_sets():
    assert H.colour_of_play({"type": "play", "seat": 0, "card": "R5"}) == 0
    assert H.colour_of_play({"type": "play", "seat": 1, "card": "W", "colour": "G"}) == 2
    assert H.colour_of_play({"type": "play", "seat": 1, "card": "W+4", "colour": "B"}) == 3


def test_labels_and_history_follow_the_game():
    args = H.Args(num_players=3, hands=3, every=1, progress=False)
    game = H.make_game_of(args)
    data = H.collect(args, game)
    rows = len(data["hand"])
    assert data["obs"].shape == (rows, game.observation_size) and data["held"].shape == (rows, 2 * 4)
    history = data["history"].reshape(rows, 3, len(H.HISTORY), 4)
    # one-hot slots hold at most one colour, the counts only grow within a hand
    assert (history[:, :, :3].sum(-1) <= 1).all()
    for hand in range(3):
        played = history[data["hand"] == hand][:, :, 3].sum(axis=(1, 2))
        assert (np.diff(played) >= 0).all() and played[0] == 0
    # the labels are the other seats' hands, seen from the acting seat
    state = game.init(seed=H.hash_seed(args.seed, 2, 0))
    held = H.held_colours(game, state, game.current_player(state))
    np.testing.assert_array_equal(held.ravel(), data["held"][0])


def test_the_history_tells_more_than_the_observation_alone():
    result = H.measure(H.Args(num_players=4, hands=300, every=3, epochs=8, progress=False))
    with_history = np.mean(result["observation+history"]["cross_entropy"])
    assert with_history < np.mean(result["observation"]["cross_entropy"]) < np.mean(result["prior"]["cross_entropy"])


def test_a_smoke_run_and_refusals(capsys):
    assert H.main(["--smoke"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["decisions"] > 0 and set(result) >= {"observation", "observation+history", "history"}
    assert H.main(["--smoke", "--hands", "1"]) == 2
    assert H.main(["--smoke", "--agent", "alphauno"]) == 2
    assert "error" in capsys.readouterr().err
