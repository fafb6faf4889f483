"""The speed benchmark runs end to end at a tiny size (no timing is asserted)."""

from __future__ import annotations

import importlib.util
import json

import pytest

from uno_env.bench import speed as bench_speed
from uno_env.bench import targets as bench_targets
from uno_env.cli import main as cli
from uno_env.engine import Game


@pytest.mark.slow
def test_quick_benchmark_writes_table_json_and_plot(tmp_path, capsys):
    assert bench_speed.main(["--quick", "--out", str(tmp_path), "--sizes", "1,64"]) == 0
    printed = capsys.readouterr().out
    report = json.loads((tmp_path / "bench_speed.json").read_text())
    png = (tmp_path / "bench_speed.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000

    rows = report["rows"]
    assert {row["group"] for row in rows} == {"a", "b", "c", "d", "e", "g"}  # g: the Gym wrapper
    for row in rows:
        if "skipped" in row:
            assert row["skipped"]
            continue
        assert 0 < row["steps_per_s_min"] <= row["steps_per_s"] <= row["steps_per_s_max"]
    vector = {(v["num_envs"], v["mode"]) for v in report["vector"]}
    assert (1, "serial") in vector and (64, "serial") in vector
    from uno_env.agents.policies import POLICY_IDS

    played = {row.get("policy") for row in rows if row["group"] == "e"}
    assert set(POLICY_IDS) <= played

    rlcard_row = rows[0]
    if importlib.util.find_spec("rlcard") is None:
        assert "rlcard" in rlcard_row["skipped"] and report["reference_steps_per_s"] is None
    else:
        assert report["reference_steps_per_s"] == rlcard_row["steps_per_s"] > 0
        assert "x RLCard" in printed

    assert report["state_bytes"]["2"]["engine_state"] == Game(num_players=2).new_state().nbytes_per_game()
    assert report["state_bytes"]["2"]["vector_env"] <= 1024
    assert "skipped" in report["startup"]  # --quick leaves out the fresh-process timings
    assert len(report["targets"]) == len(bench_targets.TARGETS)
    assert "state per game (2 players)" in printed


def synthetic_report(**startup):
    row = {"steps_per_s_min": 1.0, "steps_per_s_max": 1.0, "episodes_per_s": 1.0}
    return {
        "reference_steps_per_s": 1000.0,
        "settings": {"players": 2},
        "state_bytes": {"2": {"vector_env": 650}},
        "startup": startup,
        "rows": [
            dict(row, group="a", steps_per_s=1000.0),
            dict(row, group="b", steps_per_s=2500.0),
            dict(row, group="d", steps_per_s=99_000.0, num_envs=64),
            dict(row, group="d", steps_per_s=150_000.0, num_envs=1024),
            dict(row, group="d", steps_per_s=120_000.0, num_envs=16384),
            dict(row, group="d", steps_per_s=130_000.0, num_envs=16384),  # parallel: the best of the two counts
            dict(row, group="d", steps_per_s=900_000.0, num_envs=1024, seats="learner"),
            dict(row, group="e", steps_per_s=250_000.0, policy="random"),
            dict(row, group="e", steps_per_s=100_000.0, policy="keeper", episodes_per_s=120_000.0),
            dict(row, group="e", steps_per_s=60_000.0, policy="tactical", episodes_per_s=2_000.0),
        ],
    }


def test_targets_are_judged_as_ratios_to_rlcard_in_the_same_run():
    report = synthetic_report(
        cold={"stages_s": {"vector_serial": 31.0}},
        cached={"wall_s": 1.5},
        first_use={"stages_s": {"env_first_step": 12.0, "demo_tournament": 25.0}},
        first_use_after_warm={"stages_s": {"env_first_step": 1.0, "demo_tournament": 4.0}},
    )
    judged = {t["target"].split(" (")[0]: t for t in bench_targets.targets(report)}
    assert judged["PettingZoo env steps/s vs RLCard"]["value"] == pytest.approx(2.5)
    assert not judged["PettingZoo env steps/s vs RLCard"]["met"]
    vector = judged["vector env with observations vs RLCard, lowest over N >= 1024"]
    assert vector["value"] == pytest.approx(130) and vector["met"]  # the learner path does not count
    growth = judged["vector env throughput as N grows, lowest ratio to the size before"]
    assert growth["value"] == pytest.approx(130 / 150) and not growth["met"]
    assert judged["compiled random policy in the kernel vs RLCard"]["value"] == pytest.approx(250)
    assert judged["compiled random policy in the kernel vs RLCard"]["met"]
    assert judged["compiled tactical policy in the kernel vs RLCard"]["value"] == pytest.approx(60)
    assert judged["state bytes per game in the vector env"]["met"]
    assert not judged["first use with compilation"]["met"]
    assert judged["start with the cache"]["met"]
    first_step = judged["first use, empty cache: env.reset + first step"]
    assert first_step["value"] == 12.0 and first_step["met"]
    tournament = judged["first use, empty cache: env.reset + first step, then the demo's tournament"]
    assert tournament["value"] == 25.0 and not tournament["met"]
    assert judged["first use after make's install step"]["value"] == 4.0
    assert judged["first use after make's install step"]["met"]
    assert judged["tournament hands/s of the compiled keeper"]["value"] == 120_000


def test_targets_without_rlcard_are_not_judged():
    report = synthetic_report()
    report["reference_steps_per_s"] = None
    judged = bench_targets.targets(report)
    ratios = [t for t in judged if "vs RLCard" in t["target"]]
    assert ratios and all(t["met"] is None for t in ratios)


def test_uno_cli_has_the_bench_command(capsys):
    assert cli.main(["--help"]) == 0
    assert "bench" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli.main(["bench", "--sizes", "0"])
