"""Ray: the distributed tournament equals the local one game by game, and one RLlib
training iteration runs and reports win rates. The tests start and stop their own
local Ray (2 CPUs, no network beyond this machine)."""

import csv
import time

import numpy as np
import pytest

ray = pytest.importorskip("ray")

from uno_env import RuleConfig  # noqa: E402
from uno_env.agents import make_agent  # noqa: E402
from uno_env.arena import RECORD_FIELDS, run_tournament  # noqa: E402
from uno_env.arena.distributed import start_ray  # noqa: E402
from uno_env.cli.tournament import main  # noqa: E402
from uno_env.engine import Game  # noqa: E402
from uno_env.training import rllib as train_rllib  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_ray():
    if ray.is_initialized():
        ray.shutdown()
    resources = start_ray("local", num_cpus=2)
    yield resources
    ray.shutdown()


def test_a_local_ray_is_started_with_the_cpus_asked(local_ray):
    assert local_ray["CPU"] == 2


def test_the_distributed_tournament_equals_the_local_one_game_by_game(local_ray):
    config = RuleConfig(num_players=2, episode="round")
    agents = ["keeper", "tactical", "ismcts:determinizations=2"]  # compiled and Python tables
    local = run_tournament(agents, config, games=18, seed=4, workers=1, bootstrap=0)
    remote = run_tournament(agents, config, games=18, seed=4, bootstrap=0, ray="local")
    assert local[0]["table_games"] == remote[0]["table_games"] == 18
    for key in RECORD_FIELDS:
        if key not in ("seconds", "agent_seconds"):
            assert np.array_equal(local[3][key], remote[3][key]), key
    assert local[0]["head_to_head"] == remote[0]["head_to_head"]


def test_the_tournament_cli_takes_ray(local_ray, capsys):
    assert main(["--agents", "keeper,naive", "--players", "2", "--games", "40", "--ray", "--no-files"]) == 0
    assert "keeper" in capsys.readouterr().out


def test_the_ladder_plays_on_ray_the_games_it_plays_here(local_ray, tmp_path):
    """A ladder of compiled and Python agents played with --ray holds the same games, deal by
    deal and seating by seating, as the same ladder played in this process (one game in
    flight each, so that both choose the same tables)."""
    import sqlite3

    from uno_env.cli.main import main as uno

    results = []
    for name, extra in (("here", []), ("ray", ["--ray"])):
        extra += ["--workers", "1"]
        path = tmp_path / f"{name}.db"
        assert uno(["ladder", "new", str(path), "--players", "2"]) == 0
        for spec in ("keeper", "tactical", "ismcts:determinizations=2"):
            assert uno(["ladder", "add", str(path), spec]) == 0
        assert uno(["ladder", "play", str(path), "--games", "12", "--no-progress", *extra]) == 0
        with sqlite3.connect(path) as conn:
            results.append(sorted(conn.execute("SELECT deal, seating, outcome, steps FROM games").fetchall()))
    assert len(results[0]) == 12 and results[0] == results[1]


def test_seat_modules_agree_within_an_episode_and_vary_between_episodes():
    seats = [train_rllib.seat_modules(f"episode{k}", 4, 0.0, "tactical") for k in range(40)]
    assert all(s.count(train_rllib.MAIN) == 1 for s in seats)
    assert seats[7] == train_rllib.seat_modules("episode7", 4, 0.0, "tactical")
    assert len({s.index(train_rllib.MAIN) for s in seats}) == 4
    assert train_rllib.seat_modules("x", 3, 1.0, "tactical") == [train_rllib.MAIN] * 3
    assert train_rllib.seat_modules("x", 2, 0.0, "self") == [train_rllib.MAIN] * 2


@pytest.mark.parametrize(
    "change, message",
    [({"opponent": "nobody"}, "--opponent"), ({"self_play_share": 1.5}, "self-play-share"), ({"epochs": 0}, "epochs")],
)
def test_bad_rllib_settings_are_refused_before_ray_starts(change, message):
    with pytest.raises(ValueError, match=message):
        train_rllib.check_args(train_rllib.Args(**change))


def test_rllib_waits_for_cpus_that_ray_frees_a_moment_later(local_ray):
    @ray.remote(num_cpus=2)
    def hold_every_cpu():
        time.sleep(1.5)
        return "done"

    held = hold_every_cpu.remote()
    deadline = time.monotonic() + 20
    while ray.available_resources().get("CPU", 0) > 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert ray.available_resources().get("CPU", 0) == 0  # both CPUs are taken now
    train_rllib.start_ray(train_rllib.Args(**train_rllib.SMOKE))  # waits for them instead of refusing
    assert ray.get(held) == "done"
    with pytest.raises(ValueError, match="exceeds the 2 free CPUs"):  # more than the cluster has: at once
        train_rllib.start_ray(train_rllib.Args(**{**train_rllib.SMOKE, "num_env_runners": 3}))


def test_one_rllib_iteration_reports_win_rates_and_exports_a_playable_policy(local_ray, tmp_path):
    args = train_rllib.Args(**{**train_rllib.SMOKE, "out": str(tmp_path), "run_name": "smoke", "progress": False})
    result = train_rllib.train(args)
    assert result["iterations"] == 1 and result["env_steps"] >= args.train_batch
    with open(tmp_path / "smoke" / "progress.csv") as f:
        untrained, row = list(csv.DictReader(f))
    assert untrained["iteration"] == "0" and untrained["eval_random_play_win_rate"]  # where the curve starts
    assert 0.0 <= float(row["train_win_rate"]) <= 1.0  # episodes against the heuristic were counted
    assert 0.0 <= float(row["eval_random_play_win_rate"]) <= 1.0
    assert float(row["eval_random_play_lo"]) <= float(row["eval_random_play_hi"])
    assert (tmp_path / "smoke" / "curve.png").stat().st_size > 0
    assert (tmp_path / "smoke" / "checkpoint").is_dir()
    game = Game(num_players=2, episode="round")
    agent = make_agent(f"ppo:weights={tmp_path / 'smoke' / 'policy.npz'}", game)
    state = game.init(seed=1)
    mask = game.legal_mask(state)
    assert mask[agent(game.observe(state, game.current_player(state)), mask)]
