"""The search-distillation script: what it collects, that the fit learns it, its outputs and refusals."""

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from experiments import distill_search as D  # noqa: E402
from uno_env.agents import make_agent, neural  # noqa: E402
from uno_env.engine import Game  # noqa: E402

TEACHER = "ismcts:determinizations=8:rollout=ppo:opponent_rollout=tactical"


def small_args(**changes) -> D.Args:
    base = dict(hands=10, workers=1, epochs=1, eval_games=0, teacher=TEACHER, progress=False)
    return D.Args(**{**base, **changes})


@pytest.fixture(scope="module")
def four_players():
    args = small_args()
    game = D.make_game_of(args)
    path = str(neural.shipped_path(game))
    return args, game, path, D.collect(args, game, path)


def test_the_teacher_seats_rotate_and_take_a_whole_team_with_partners():
    assert [D.teacher_seats(Game(num_players=3), h) for h in range(4)] == [(0,), (1,), (2,), (0,)]
    partners = Game(num_players=4, partners=True)
    assert [D.teacher_seats(partners, h) for h in range(3)] == [(0, 2), (1, 3), (0, 2)]


def test_collected_decisions_are_the_teachers_searched_ones(four_players):
    args, game, path, data = four_players
    assert path.endswith("ppo_4p.npz") and len(data["won"]) == 10
    rows = len(data["action"])
    assert rows > 20 and data["obs"].shape == (rows, game.observation_size)
    assert data["mask"][np.arange(rows), data["action"]].all()  # every kept action is legal
    assert (data["mask"].sum(1) > 1).all()  # forced decisions are not searched
    network = make_agent(f"ppo:weights={path}", game)
    assert [network.act(o, m) for o, m in zip(data["obs"], data["mask"])] == list(data["network_action"])
    assert set(data["hand"]) <= set(range(10)) and list(data["hand"]) == sorted(data["hand"])
    again = D.collect(args, game, path)
    for key in data:  # one seed, one collection
        np.testing.assert_array_equal(data[key], again[key])


def test_the_fit_learns_the_teachers_actions(four_players):
    args, game, path, data = four_players
    # a teacher that always differs: the second legal action where the network (alone, as the fit
    # starts) took the first
    alone = make_agent(f"ppo:weights={path}:colours=as_seen", game)
    network_action = np.array([alone.act(o, m) for o, m in zip(data["obs"], data["mask"])])
    legal = [np.flatnonzero(m) for m in data["mask"]]
    other = np.array([row[1] if row[0] == n else row[0] for row, n in zip(legal, network_action)])
    values = np.full(data["values"].shape, np.nan, dtype=np.float32)
    values[np.arange(len(other)), network_action] = 0.5
    values[np.arange(len(other)), other] = 0.55  # searched 0.05 above the network's action
    data = {**data, "network_action": network_action, "action": other, "values": values}
    _, fitted = D.fit(small_args(epochs=30, learning_rate=3e-3, holdout=0.0), game, path, data)
    first, last = fitted["fit"][0], fitted["fit"][-1]
    assert fitted["labels_differ"] == 1.0
    assert first["fitted_agreement"] == 0.0 and first["fitted_agreement_where_it_disagreed"] == 0.0
    assert last["fitted_agreement"] > 0.9
    assert first["agreement"] is None  # nothing held out
    # differences the search was not sure enough of are labelled with the network's own action
    _, kept = D.fit(small_args(epochs=1, holdout=0.0, min_advantage=0.1), game, path, data)
    assert kept["labels_differ"] == 0.0 and kept["fit"][0]["fitted_agreement"] == 1.0


def test_the_advantage_is_the_searched_value_of_the_teachers_action_over_the_networks(four_players):
    _, _, _, data = four_players
    same = data["action"] == data["network_action"]
    advantage = D.advantages(data)[np.arange(len(same)), data["action"]]
    assert (advantage[same] == 0).all() and (advantage[~same] > 0).all()


def test_a_run_writes_its_files_and_the_policy_plays(tmp_path):
    out = tmp_path / "runs"
    assert D.main(["--smoke", "--out-dir", str(out), "--run-name", "s", "--teacher", TEACHER]) == 0
    folder = out / "s"
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["decisions"] > 0 and 0.0 <= summary["teacher_differs"] <= 1.0
    assert set(summary["evaluation"]) == {"start", "distilled"}
    network = neural.load_network(folder / "policy.npz")
    assert network.meta["teacher"] == TEACHER and network.meta["config"]["num_players"] == 4
    with np.load(folder / "decisions.npz") as stored:
        assert len(stored["action"]) == summary["decisions"]


def test_bad_settings_are_refused(tmp_path, capsys):
    common = ["--smoke", "--out-dir", str(tmp_path)]
    assert D.main([*common, "--teacher", "tactical"]) == 2
    assert "does not search" in capsys.readouterr().err
    assert D.main([*common, "--opponent", "alphauno"]) == 2
    assert D.main([*common, "--num-players", "11"]) == 2
    assert not any(tmp_path.iterdir())


def test_soft_targets_move_from_the_network_to_the_searched_values(four_players):
    args, game, path, data = four_players
    agent, _ = D.fit(small_args(epochs=0, holdout=0.0), game, path, data)
    o, m = (torch.as_tensor(data[k]) for k in ("obs", "mask"))
    values = data["values"]
    searched = ~np.isnan(values)
    assert (searched <= data["mask"]).all() and searched[np.arange(len(values)), data["action"]].all()
    wide = D.soft_targets(agent, o, m, data, 1e6).numpy()
    alone = make_agent(f"ppo:weights={path}:colours=as_seen", game)  # the network the fit starts from
    assert wide.argmax(1).tolist() == [alone.act(o, m) for o, m in zip(data["obs"], data["mask"])]  # wide beta: pi
    assert np.allclose(wide.sum(1), 1) and (wide[~data["mask"]] == 0).all()
    sharp = D.soft_targets(agent, o, m, data, 1e-6).numpy()
    ranked = np.sort(np.nan_to_num(values, nan=-1.0), axis=1)
    best, clear = np.nanargmax(values, axis=1), ranked[:, -1] - ranked[:, -2] > 0.01
    assert clear.any() and np.array_equal(sharp.argmax(1)[clear], best[clear])  # a sharp one, the search


def test_several_collections_fit_as_one_with_hands_kept_whole(four_players, tmp_path):
    args, game, path, data = four_players
    first, second = tmp_path / "a.npz", tmp_path / "b.npz"
    np.savez(first, **data)
    np.savez(second, **data)
    both = D.load_decisions((str(first), str(second)), game)
    rows = len(data["action"])
    assert len(both["action"]) == 2 * rows and len(both["won"]) == 2 * len(data["won"])
    np.testing.assert_array_equal(both["obs"][rows:], data["obs"])
    # the second file's hands follow the first's: no hand number is shared, so a hand is held out whole
    assert set(both["hand"][:rows]).isdisjoint(both["hand"][rows:])
    np.testing.assert_array_equal(both["hand"][rows:], data["hand"] + len(data["won"]))
    three = D.make_game_of(small_args(num_players=3))
    with pytest.raises(ValueError, match="this table's have"):
        D.load_decisions((str(first),), three)
    with pytest.raises(ValueError, match="no such file"):
        D.load_decisions((str(tmp_path / "none.npz"),), game)
    out = tmp_path / "runs"
    assert D.main(["--smoke", "--out-dir", str(out), "--data", str(tmp_path / "none.npz")]) == 2
    assert not out.exists()
    assert D.main(["--smoke", "--out-dir", str(out), "--run-name", "r", "--data", str(first), str(second)]) == 0
    summary = json.loads((out / "r" / "summary.json").read_text())
    assert summary["decisions"] == 2 * rows and not (out / "r" / "decisions.npz").exists()
