"""The colour-distillation script: what it collects, that the fit moves the network towards the
averaged policy, its outputs and refusals."""

import json
import pathlib

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from experiments import distill_colours as C  # noqa: E402
from uno_env.agents import make_agent, neural  # noqa: E402


def small_args(**changes) -> C.Args:
    base = dict(decisions=400, num_envs=8, epochs=1, eval_games=0, progress=False)
    return C.Args(**{**base, **changes})


# a network not yet distilled (the shipped ones are: fitted to their average already, they leave a
# small fit nothing to learn): the two-player network shipped before its distilled successor
UNDISTILLED = str(pathlib.Path(__file__).parent / "data" / "ppo_2p_before_distillation.npz")


@pytest.fixture(scope="module")
def two_players():
    args = small_args(num_players=2, init_from=UNDISTILLED)
    game = C.make_game_of(args)
    path = args.init_from
    network = neural.load_network(path)
    return args, game, path, network, C.collect(args, game, network)


def test_collected_decisions_are_the_averaged_policys_with_a_choice(two_players):
    args, game, path, network, data = two_players
    rows = len(data["obs"])
    assert rows == args.decisions and data["obs"].shape == (rows, game.observation_size)
    assert (data["mask"].sum(1) > 1).all()  # forced moves are not kept
    assert np.isneginf(data["logits"][~data["mask"]]).all() and np.isfinite(data["logits"][data["mask"]]).all()
    averaged = make_agent(f"ppo:weights={path}:colours=average", game)  # the shipped file plays in one pass
    for k in range(0, rows, 37):  # the averaged policy's log-probabilities, its move their largest
        logits = np.empty(game.num_actions, dtype=np.float32)
        legal = data["mask"][k].astype(np.int8)
        neural.policy_logits(data["obs"][k], legal, game.params, *network.policy_arrays(one_pass=False), logits)
        np.testing.assert_array_equal(logits, data["logits"][k])
        assert averaged.act(data["obs"][k], data["mask"][k]) == int(np.argmax(logits))
    again = C.collect(args, game, network)
    for key in data:  # one seed, one collection
        np.testing.assert_array_equal(data[key], again[key])


def test_the_fit_moves_the_network_towards_the_averaged_policy(two_players):
    args, game, path, network, data = two_players
    _, history = C.fit(small_args(num_players=2, epochs=15, learning_rate=1e-3, holdout=0.5), game, path, network, data)
    first, last = history[0], history[-1]
    assert first["kl"] > 0 and last["kl"] < 0.95 * first["kl"]  # on decisions it did not fit
    assert 0 < first["agreement"] < 1 and 0 < last["agreement"] <= 1


def test_a_run_writes_its_files_and_the_policy_plays(tmp_path):
    out = tmp_path / "runs"
    assert C.main(["--smoke", "--out-dir", str(out), "--run-name", "s"]) == 0
    summary = json.loads((out / "s" / "summary.json").read_text())
    assert summary["decisions"] == C.SMOKE["decisions"] and len(summary["fit"]) == C.SMOKE["epochs"] + 1
    assert set(summary["evaluation"]) == {"start_alone", "start_averaged", "distilled_alone"}
    network = neural.load_network(out / "s" / "policy.npz")
    teacher = neural.load_network(neural.SHIPPED_PATHS[4])
    assert network.one_pass and network.meta["colours"] == neural.DISTILLED
    assert network.meta["config"] == teacher.meta["config"]  # the tables it was trained for: the teacher's
    fit = network.meta["distilled"]
    assert fit["teacher"] == "ppo_4p.npz" and fit["decisions"] == C.SMOKE["decisions"]
    assert (fit["agreement"], fit["kl"]) == (summary["fit"][-1]["agreement"], summary["fit"][-1]["kl"])
    game = C.make_game_of(C.Args())
    agent = make_agent(f"ppo:weights={out / 's' / 'policy.npz'}", game)
    assert agent.one_pass and not make_agent(f"ppo:weights={out / 's' / 'policy.npz'}:colours=all", game).one_pass
    state = game.init(seed=3)
    assert game.legal_mask(state)[agent.act(game.observe(state, game.current_player(state)), game.legal_mask(state))]


def test_the_averaged_policy_plays_one_seat_or_both_seats_of_a_team(two_players):
    assert set(two_players[4]["seat"].tolist()) == {0}
    args = small_args(rules=("partners=true",), decisions=300)
    game = C.make_game_of(args)
    data = C.collect(args, game, neural.load_network(neural.shipped_path(game)))
    assert len(data["obs"]) == 300 and set(data["seat"].tolist()) == {0, 2}


def test_bad_settings_are_refused(tmp_path, capsys):
    common = ["--smoke", "--out-dir", str(tmp_path)]
    assert C.main([*common, "--init-from", str(neural.SHIPPED_PATHS[6])]) == 2
    assert "cannot play this table" in capsys.readouterr().err
    assert C.main([*common, "--decisions", "0"]) == 2
    assert C.main([*common, "--num-players", "11"]) == 2
    assert not any(tmp_path.iterdir())


def test_whole_games_are_distilled_as_the_whole_game_networks_were_trained():
    config = C.make_game_of(small_args(num_players=2, episode="game")).config
    assert (config.episode, config.reward) == ("game", "points")
    assert (C.make_game_of(small_args()).config.episode, C.make_game_of(small_args()).config.reward) == ("round", "win")
