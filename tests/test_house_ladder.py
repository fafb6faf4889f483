"""experiments/house_ladder.py: its rows, the command each row prints, a run that resumes, the tables."""

import json
import shlex

import pytest

from experiments import house_ladder as L
from uno_env.cli.tournament import build_parser, table_config
from uno_env.engine import RuleConfig


def test_a_row_is_the_field_tournament_its_command_plays():
    row = L.play("tactical", "tactical_v1", "all", 2, 40)
    assert (row["agent"], row["field"], row["players"], row["hands"]) == ("tactical", "tactical_v1", 2, 40)
    assert 0 <= row["wins"] <= 40 and row["win_rate"] == row["wins"] / 40
    lo, hi = row["ratio_ci"]
    assert lo <= row["ratio"] == 2 * row["win_rate"] <= hi
    args = build_parser().parse_args(shlex.split(row["command"])[2:])
    assert (args.agents, args.players, args.schedule, args.games, args.seed) == (
        "tactical,tactical_v1",
        2,
        "field",
        40,
        L.SEED,
    )
    assert table_config(args, 2) == RuleConfig(num_players=2, episode="round", **L.SETTINGS["all"])


def test_the_tables_show_each_measurement_and_leave_missing_cells_empty():
    base = {"hands": 4000, "wins": 2400, "win_rate": 0.6, "win_rate_ci": [0.585, 0.615], "ratio": 1.2}
    rows = [
        {**base, "agent": "tactical", "field": "tactical_v1", "setting": "seven_o", "players": 2},
        {**base, "agent": "ppo", "field": "tactical", "setting": "jump_in", "players": 2},
    ]
    rows = [{**r, "ratio_ci": [1.17, 1.23]} for r in rows]
    text = L.tables(rows)
    assert "| seven_o | 60.0% [58.5, 61.5] (1.20) |" in text
    assert "| `ppo` (4000) | - | - | 1.20 [1.17, 1.23] | - | - | - |" in text
    blind = L.tables([{**rows[1], "agent": L.BLIND_PPO}])
    assert "| `ppo` before it knew the house rules (4000) | - | - | 1.20 [1.17, 1.23] |" in blind
    assert "ismcts" not in text  # no row of it


@pytest.mark.slow
def test_a_run_writes_a_row_per_tournament_and_a_rerun_plays_only_what_is_missing(tmp_path, capsys):
    """Every agent at two players under Seven-O, a hundredth of the hands (the searches: 2)."""
    out = tmp_path / "ladder.jsonl"
    argv = ["--out", str(out), "--players", "2", "--settings", "seven_o", "--hands-scale", "0.01"]
    L.main(argv)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["agent"], r["field"]) for r in rows] == [("tactical", "tactical_v1")] + [
        (a, "tactical") for a in ("ppo", L.BLIND_PPO, "tactical_v1", "ismcts", "ppo_search")
    ]
    assert [r["hands"] for r in rows] == [40, 40, 40, 40, 2, 2]
    assert "--agents ppo:weights=uno_env/data/ppo_2p.npz,tactical" in rows[2]["command"]
    L.main(argv)
    assert [json.loads(line) for line in out.read_text().splitlines()] == rows
    assert "`ppo_search` (2)" in capsys.readouterr().out
