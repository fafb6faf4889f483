"""experiments/house_curve.py: the lines of stages, their policies and decisions, a run that resumes, its plot."""

import json
import shlex
import shutil

import pytest

from experiments import house_curve as C
from uno_env.agents import neural
from uno_env.cli.tournament import build_parser, table_config
from uno_env.engine import RuleConfig


def fake_run(folder, steps, policies=()):
    """A run folder: progress.csv with ``steps`` (update -> global_step) and a policy file per update named."""
    (folder / "policies").mkdir(parents=True)
    rows = "".join(f"{u},{s}\n" for u, s in steps.items())
    (folder / "progress.csv").write_text("update,global_step\n" + rows)
    for update in policies:
        shutil.copy(neural.SHIPPED_HOUSE_PATHS[2], folder / "policies" / f"policy_{update:05d}.npz")


def test_a_line_names_its_stages_and_where_the_next_one_started():
    assert C.parse_line("A=runs/x:240,runs/y") == ("A", [(C.Path("runs/x"), 240), (C.Path("runs/y"), None)])
    for bad in ("runs/x", "A=", "=runs/x"):
        with pytest.raises(ValueError, match="expected NAME=RUN"):
            C.parse_line(bad)


def test_the_decisions_of_a_line_add_up_over_its_stages_to_the_update_the_next_one_started_from(tmp_path):
    fake_run(tmp_path / "s1", {10: 100, 20: 200, 30: 300}, policies=(10, 20, 30))
    fake_run(tmp_path / "s2", {10: 50, 20: 100}, policies=(10, 20))
    found = C.policies([(tmp_path / "s1", 20), (tmp_path / "s2", None)], every=10)
    assert [(p["run"], p["update"], p["decisions"]) for p in found] == [
        ("s1", 10, 100),
        ("s1", 20, 200),
        ("s2", 10, 250),  # stage 1 stopped at update 20 (200 decisions): update 30 is not the line's
        ("s2", 20, 300),
    ]
    assert [p["update"] for p in C.policies([(tmp_path / "s1", None)], every=20)] == [20]


def test_a_run_writes_a_row_per_policy_its_command_replays_and_a_rerun_plays_only_what_is_missing(tmp_path):
    fake_run(tmp_path / "s1", {20: 1000, 40: 2000}, policies=(20, 40))
    out, png = tmp_path / "curve.jsonl", tmp_path / "curve.png"
    argv = ["--line", f"A={tmp_path / 's1'}", "--out", str(out), "--players", "2", "--hands", "8", "--every", "20"]
    assert C.main([*argv, "--plot", str(png)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["line"], r["update"], r["decisions"], r["hands"]) for r in rows] == [
        ("A", 20, 1000, 8),
        ("A", 40, 2000, 8),
    ]
    assert all(0 <= r["win_rate"] <= 1 and r["ratio"] == pytest.approx(2 * r["win_rate"]) for r in rows)
    assert rows[0]["source"] == "measured by python -m experiments.house_curve"
    args = build_parser().parse_args(shlex.split(rows[0]["command"])[2:])
    assert (args.players, args.schedule, args.games, args.seed) == (2, "field", 8, 5)
    assert table_config(args, 2) == RuleConfig(num_players=2, episode="round", seven_o=True)
    assert C.judge(rows[0]["policy"], 2, "seven_o", 8, 5)["win_rate"] == rows[0]["win_rate"]  # the same hands
    assert png.stat().st_size > 10_000
    assert C.main(argv) == 0
    assert [json.loads(line) for line in out.read_text().splitlines()] == rows


def test_a_line_is_drawn_from_the_stage_it_grew_from_on():
    row = lambda run, update: {"run": run, "update": update}  # noqa: E731
    a = [row("s1", 100), row("s1", 200), row("s3", 100)]
    c = [row("s1", 100), row("s1", 200), row("s3", 100), row("s5", 100), row("s5", 200)]
    drawn = {(r["run"], r["update"]) for r in a}
    assert C.own_part(c, drawn) == c[2:]  # from stage 3's point on, where line c left line a
    assert C.own_part(a, set()) == a
