"""``uno match --sprt`` (uno_env/arena/match.py, uno_env/cli/match.py): duplicate deals until the
SPRT decides; the decisions of the issue's checks, one result per seed whatever the batch,
more than two players, cmd: programs, --max-games, the progress and the refusals."""

from __future__ import annotations

import io
import json
import shlex
import sys
from pathlib import Path

import pytest

from uno_env import RuleConfig
from uno_env.arena import match as M
from uno_env.arena.sprt import Hypotheses
from uno_env.cli import match as CLI
from uno_env.cli.main import main as uno

ROOT = Path(__file__).resolve().parent.parent


def run_json(argv: list[str], capsys) -> dict:
    assert CLI.main([*argv, "--json", "--no-progress"]) == 0
    return json.loads(capsys.readouterr().out)


def test_tactical_against_random_play_accepts_h1_in_under_a_thousand_hands(capsys):
    out = run_json(["tactical", "random_play", "--players", "2", "--sprt", "elo0=0,elo1=50"], capsys)
    assert out["result"] == "H1" and out["games"] < 1000
    assert out["llr"] >= out["bounds"][1] and out["elo"] > 50
    assert out["games"] == 2 * out["deals"] == 2 * sum(out["counts"])  # pairs of games


def test_tactical_against_itself_accepts_h0_and_every_pair_splits(capsys):
    """The same deal with the seats exchanged between two copies of one deterministic policy is
    the same game twice: each pair is one win each (the pentanomial's middle)."""
    out = run_json(["tactical", "tactical", "--players", "2", "--sprt", "elo0=0,elo1=30"], capsys)
    assert out["result"] == "H0" and out["llr"] <= out["bounds"][0]
    assert out["counts"] == [0, 0, out["deals"], 0, 0]


def test_one_seed_gives_one_result_whatever_the_batches(monkeypatch):
    rules = RuleConfig(num_players=2, episode="round")
    h = Hypotheses(0, 20)
    first = M.run_match("keeper", "naive", rules, h, max_games=3000, seed=5)
    monkeypatch.setattr(M, "FIRST_CHUNK", 3)
    monkeypatch.setattr(M, "LAST_CHUNK", 7)
    second = M.run_match("keeper", "naive", rules, h, max_games=3000, seed=5)
    for key in ("result", "games", "llr", "counts", "elo"):
        assert first[key] == second[key], key
    assert M.run_match("keeper", "naive", rules, h, max_games=3000, seed=6)["counts"] != first["counts"]


def test_four_players_a_seat_against_the_field_with_elo_on_the_fair_share(capsys):
    argv = ["tactical", "tactical_v1", "--players", "4", "--set", "seven_o=true", "--sprt", "elo0=0,elo1=40"]
    out = run_json([*argv, "--max-games", "2000"], capsys)
    assert (out["sides"], out["fair_share"], out["settings"]["seven_o"]) == (4, 0.25, True)
    assert out["games"] == 4 * out["deals"] and len(out["counts"]) == 17  # A in each of 4 seats per deal
    assert out["result"] == "H1"  # tactical weighs Seven-O, tactical_v1 does not (docs/agents.md)
    assert out["win_share"] > out["share_at_elo0"] == 0.25


def test_partners_count_the_teams_and_the_trinomial_counts_games(capsys):
    argv = ["keeper", "naive", "--players", "4", "--set", "partners=true", "--sprt", "elo0=0,elo1=100"]
    out = run_json([*argv, "--model", "trinomial", "--max-games", "60"], capsys)
    assert (out["sides"], out["fair_share"], out["model"]) == (2, 0.5, "trinomial")
    assert len(out["counts"]) == 3 and sum(out["counts"]) == out["games"] <= 60


def test_max_games_ends_it_inconclusive(capsys):
    out = run_json(["keeper", "naive", "--sprt", "elo0=0,elo1=5", "--max-games", "21"], capsys)
    assert (out["result"], out["games"], out["deals"]) == ("inconclusive", 20, 10)
    assert out["bounds"][0] < out["llr"] < out["bounds"][1]


def test_a_program_plays_through_cmd(capsys):
    bot = f"cmd:{shlex.quote(sys.executable)} {ROOT / 'examples' / 'bots' / 'random_bot.py'}"
    out = run_json([bot, "tactical", "--sprt", "elo0=-50,elo1=0", "--max-games", "40"], capsys)
    assert out["a"] == bot and out["games"] <= 40 and out["wins"] + out["losses"] + out["other"] == out["games"]
    assert out["result"] in ("H0", "inconclusive")  # a random program is no match for tactical


def test_the_text_report_says_the_decision_games_and_elo(capsys):
    assert CLI.main(["tactical", "random_play", "--sprt", "elo0=0,elo1=50", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "H1: tactical is at least 50 Elo stronger than random_play" in text
    assert "games " in text and "LLR " in text and "Elo +" in text


def test_the_progress_is_a_bar_on_a_terminal_and_a_line_every_ten_seconds_elsewhere(monkeypatch):
    state = {"games": 10, "llr": 1.0, "bounds": [-2.94, 2.94], "elo": 30.0, "elo_interval": [-10.0, 70.0]}

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    bar = CLI.Progress(screen, True)
    bar(state)
    bar(state)
    bar.close()
    assert screen.getvalue().count("\r") == 2 and "LLR   1.00 [-2.94" in screen.getvalue()
    log = io.StringIO()
    quiet = CLI.Progress(log, True)
    quiet(state)
    assert log.getvalue() == ""  # not 10 s yet
    monkeypatch.setattr(CLI, "QUIET_SECONDS", 0.0)
    quiet(state)
    assert log.getvalue().count("\n") == 1 and "\r" not in log.getvalue()
    off = io.StringIO()
    CLI.Progress(off, False)(state)
    assert off.getvalue() == ""


@pytest.mark.parametrize(
    "argv, message",
    [
        (["tactical", "keeper", "--sprt", "elo0=0"], "give elo1"),
        (["tactical", "keeper", "--sprt", "elo0=0,elo1=5", "--max-games", "1"], "--max-games must be at least 2"),
        (["tactical", "nobody", "--sprt", "elo0=0,elo1=5"], "unknown agent 'nobody'"),
        (["tactical", "keeper", "--sprt", "elo0=0,elo1=5", "--set", "seven_o=maybe"], "seven_o takes true or false"),
    ],
)
def test_a_bad_value_is_refused_naming_it(argv, message, capsys):
    assert uno(["match", *argv, "--no-progress"]) == 2
    assert message in capsys.readouterr().err


def test_uno_knows_match_and_ladder():
    from uno_env.cli.main import COMMANDS

    assert COMMANDS["match"][0] == "uno_env.cli.match" and COMMANDS["ladder"][0] == "uno_env.cli.ladder"


def test_the_docs_show_what_the_command_prints(capsys):
    """docs/is_my_bot_better.md's example output is the command's (but for the seconds)."""
    doc = (ROOT / "docs" / "is_my_bot_better.md").read_text()
    command = "uno match tactical random_play --players 2 --sprt elo0=0,elo1=50"
    shown = doc.split(f"What it prints, for `{command}`:")[1].split("```text\n")[1].split("```")[0]
    assert CLI.main([*shlex.split(command)[2:], "--no-progress"]) == 0
    printed = capsys.readouterr().out

    def without_seconds(text: str) -> list[str]:
        return [line.rsplit(", ", 1)[0] if line.startswith("Elo") else line for line in text.splitlines()]

    assert without_seconds(printed) == without_seconds(shown)
