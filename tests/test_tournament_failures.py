"""Results you can trust whatever the entrants do (issue 47): a program that dies, hangs,
writes a bad line, breaks the framing, plays an action the game refuses, or leaves
processes behind forfeits its games under every ``illegal_action`` setting, the tournament
finishes with every file written and the failures counted and named, and nothing it
started outlives the run; ``--strict`` stops at the first failure with a clear message;
a one-sided result is reported (PNG included); a program that keeps state across games
gets the same games in the same order in every run of a seed and number of workers."""

from __future__ import annotations

import csv
import json
import os
import shlex
import signal
import sys
import time
import uuid
import warnings
from pathlib import Path

import pytest

from uno_env import RuleConfig
from uno_env.agents.program import FAILURE_KINDS, ProgramFailureWarning
from uno_env.arena import TournamentStopped, format_leaderboard, run_tournament, write_outputs
from uno_env.engine.game import Game

from .test_program_agent import zombies_of

pytestmark = pytest.mark.filterwarnings("ignore::uno_env.agents.program.ProgramFailureWarning")
BOT = Path(__file__).resolve().parent / "bots" / "bad_bot.py"
FILES = ("tournament.json", "tournament_leaderboard.csv", "tournament_games.csv", "tournament.png")


def program(mode: str, word: str, marker: str, seconds: float = 1.0) -> str:
    command = shlex.join([sys.executable, str(BOT), mode, word, marker])
    return f"cmd:decision_seconds={seconds}:start_seconds=10:{command}"


def processes_with(marker: str) -> list[int]:
    """The live processes (not zombies) with ``marker`` as an argument."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if marker.encode() in argv:
                found.append(int(entry.name))
    return found


def no_process_left(marker: str) -> None:
    deadline = time.monotonic() + 5  # a killed process may take a moment to go
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = processes_with(marker)
    for pid in left:  # not to leave them running when the test fails
        os.kill(pid, signal.SIGKILL)
    assert left == [] and zombies_of(os.getpid()) == []


def tournament(specs: list[str], illegal_action: str, folder: Path, games: int = 2, **options):
    rules = RuleConfig(num_players=2, episode="round", illegal_action=illegal_action)
    options = {"seed": 3, "workers": 1, "bootstrap": 20, **options}
    summary, plan, entrants, records = run_tournament(specs, rules, games, **options)
    paths = write_outputs(folder, "tournament", summary, plan, entrants, records)
    assert sorted(p.name for p in paths) == sorted(FILES) and all((folder / name).stat().st_size for name in FILES)
    return summary, records


CASES = [  # mode, K (decision to misbehave at, or a word), what the failure is
    ("die", "5", "died"),  # exits at its 5th decision
    ("stall", "1", "stalled"),  # hangs
    ("garbage", "1", "bad line"),
    ("illegal_id", "1", "bad line"),  # an id that no table has
    ("not_available", "1", "illegal action"),  # an action not available now
    ("not_held", "1", "illegal action"),  # a card it does not hold
    ("huge_line", "1", "bad line"),  # 5 MB
    ("two_lines", "1", "framing"),
    ("before_hello", "1", "framing"),
    ("close_output", "1", "died"),
    ("setsid", "MARKER", "died"),  # its setsid child must be ended too; it dies at its 3rd decision
    ("stall", "stubborn", "stalled"),  # ignores SIGTERM, and hangs
    ("bad_ready", "1", "bad line"),  # a wrong answer to hello
]


@pytest.mark.parametrize("illegal_action", ["penalty", "lose", "raise"])
@pytest.mark.parametrize(("mode", "word", "what"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_a_misbehaving_program_forfeits_and_the_tournament_goes_on(mode, word, what, illegal_action, tmp_path):
    marker = f"misbehaving-{uuid.uuid4().hex}"
    spec = program(mode, marker if word == "MARKER" else word, marker)
    games = 4 if mode in ("die", "setsid") else 2  # those fail only once the game is long enough
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary, records = tournament([spec, "tactical"], illegal_action, tmp_path, games)
    row = next(r for r in summary["leaderboard"] if r["agent"] == spec)
    failed = {kind: count for kind, count in row["failures"].items() if count}
    assert list(failed) == [what] and row["forfeits"] == failed[what] >= 1
    assert row["wins"] == 0 and summary["leaderboard"][-1]["agent"] == spec  # a forfeit is a lost game
    told = [str(w.message) for w in caught if issubclass(w.category, ProgramFailureWarning)]
    assert len(told) == failed[what]
    for message in told:
        assert "at seat " in message and f"forfeits the game: {what}: " in message
        assert message.startswith("table game ") and ", hand 1, decision " in message
    assert len({m.split(",")[0] for m in told}) == len(told)  # each names its own table game
    saved = json.loads((tmp_path / "tournament.json").read_text())
    assert next(r for r in saved["leaderboard"] if r["agent"] == spec)["failures"][what] == failed[what]
    with (tmp_path / "tournament_leaderboard.csv").open() as fh:
        line = next(r for r in csv.DictReader(fh) if r["agent"] == spec)
    assert int(line["forfeits"]) == failed[what] and int(line[f"failures_{what.replace(' ', '_')}"]) == failed[what]
    assert f"failures: {what} {failed[what]}" in format_leaderboard(summary)
    no_process_left(marker)


STRAY = [  # mode, the failure's kind, what its detail quotes
    ("debug_before", "bad line", "'debug: decision 1,"),  # the first line after a question is the answer
    ("debug_after", "framing", "after its answer to the decision at step"),  # found before the next message
    ("hello_junk", "bad line", "'hello to you too'"),  # the first line a program writes answers hello
]


@pytest.mark.parametrize(("mode", "what", "quoted"), STRAY, ids=[s[0] for s in STRAY])
def test_stray_output_is_named_the_same_way_in_every_run(mode, what, quoted, tmp_path):
    """A program that writes a line before each answer, one after each answer, or a line
    before its ``ready``: two runs of one seed give the same games CSV and the same
    leaderboard CSV (its measured ``seconds_per_hand`` aside), the failure of the kind
    docs/PROTOCOL.md names for it, with the line quoted."""
    from uno_env.arena.analysis import write_games_csv, write_leaderboard_csv

    spec = program(mode, "1", f"stray-{mode}")
    rules = RuleConfig(num_players=2, episode="round")
    texts = []
    for run in range(2):
        summary, plan, entrants, records = run_tournament([spec, "tactical"], rules, 6, seed=5, workers=1, bootstrap=20)
        games = write_games_csv(tmp_path / f"games_{run}.csv", plan, entrants, records).read_bytes()
        with write_leaderboard_csv(tmp_path / f"board_{run}.csv", summary["leaderboard"]).open() as fh:
            board = [{k: v for k, v in row.items() if k != "seconds_per_hand"} for row in csv.DictReader(fh)]
        notes = [note for row in records["notes"] if row for note in row]
        assert {note["what"] for note in notes} == {what} and all(quoted in note["detail"] for note in notes)
        texts.append((games, board, [(note["job"], note["decision"]) for note in notes]))
    assert texts[0] == texts[1]
    row = next(r for r in summary["leaderboard"] if r["agent"] == spec)
    assert row["failures"][what] == len(notes) == len(plan.jobs)  # one in every game
    doc = (Path(__file__).resolve().parent.parent / "docs" / "PROTOCOL.md").read_text()
    assert f"{what}` | {DOC_ROWS[what]}" in doc


DOC_ROWS = {  # how docs/PROTOCOL.md's table of failures begins each kind's row
    "bad line": "the first line written after a question, when it is not the answer due",
    "framing": "a line no question asked for",
}


def test_strict_stops_at_the_first_failure_with_a_clear_message(tmp_path, capsys):
    from uno_env.cli.tournament import main

    marker = f"strict-{uuid.uuid4().hex}"
    spec = program("two_lines", "1", marker)
    rules = RuleConfig(num_players=2, episode="round")
    stopped = r"table game 0, hand 1, decision \d+: .* framing: a line it was not asked for, after its answer to"
    with pytest.raises(TournamentStopped, match=stopped):
        run_tournament([spec, "tactical"], rules, 2, workers=1, bootstrap=0, strict=True)
    argv = ["--agents", f"{spec},tactical", "--players", "2", "--games", "2", "--strict", "--no-progress"]
    assert main(argv + ["--workers", "1", "--out", str(tmp_path / "run")]) == 1
    err = capsys.readouterr().err
    assert "uno tournament: stopped: table game 0, hand 1" in err and "--strict" in err and "Traceback" not in err
    no_process_left(marker)


def test_a_one_sided_tournament_is_reported_with_its_plot(tmp_path):
    """tactical beats a program that forfeits every game: a clean sweep and a zero, with
    bootstrap intervals that hold their estimates, and a single game's tournament."""
    spec = program("not_available", "1", "one-sided")
    summary, _ = tournament([spec, "tactical"], "penalty", tmp_path, games=6, bootstrap=50)
    first, last = summary["leaderboard"]
    assert (first["agent"], first["win_rate"], last["agent"], last["win_rate"]) == ("tactical", 1.0, spec, 0.0)
    for row in (first, last):
        assert row["rating_ci"][0] <= row["rating"] <= row["rating_ci"][1]
    assert last["rating"] < 1500 < first["rating"] and last["forfeits"] == 6
    assert sum(seat["wins"] for seat in summary["seats"]) == 6  # the seats' wins count the forfeits too
    single, _ = tournament(["tactical"], "penalty", tmp_path / "single", games=1)
    assert single["leaderboard"][0]["rating"] is None and "failures" not in format_leaderboard(single)


def test_a_forfeit_at_a_partner_table_is_lost_by_the_team():
    game = Game(RuleConfig(num_players=4, partners=True, episode="round"))
    spec = program("not_held", "1", "partners")
    summary, _, _, records = run_tournament(
        [spec, "tactical"], game.config, 4, schedule="field", workers=1, bootstrap=0
    )
    assert (records["forfeit"] >= 0).all()  # the program's first decision, in every game
    rows = {r["agent"]: r for r in summary["leaderboard"]}
    assert rows[spec]["wins"] == 0 and rows[spec]["forfeits"] == len(records["forfeit"]) == 4
    assert rows["tactical"]["wins"] == 8 and rows["tactical"]["win_rate"] == 1.0  # its team (both seats) each game


def counted(spec: str, starts: Path) -> str:
    """``spec``'s program, started by a shell that first adds a line to ``starts``."""
    options, command = spec.rsplit(":", 1)
    return f"{options}:sh -c {shlex.quote(f'echo $$ >> {starts}; exec {command}')}"


def test_no_program_starts_before_the_games(tmp_path):
    """Checking the entrants and warming the agents up in the main process start no program."""
    from uno_env.arena import make_entrants, warm_up

    starts = tmp_path / "starts"
    spec = counted(program("marker", "1", "unstarted"), starts)
    rules = RuleConfig(num_players=2, episode="round")
    entrants = make_entrants([spec, "tactical"], rules)
    warm_up(rules, entrants, 0, [(0, 1), (1, 0)])
    assert not starts.exists()
    summary, _ = tournament([spec, "tactical"], "penalty", tmp_path, games=2)
    assert len(starts.read_text().split()) == 2  # workers=1: one per seat, in this process


@pytest.mark.slow
def test_a_program_that_learns_across_games_repeats_with_two_workers(tmp_path):
    """Each worker process plays a fixed share of the games in a fixed order, so a program
    that keeps state across games answers the same in every run of the seed."""
    from uno_env.arena import TablePlayer, make_entrants

    starts = tmp_path / "starts"
    spec = counted(program("learner", "1", "learner", seconds=5), starts)
    rules = RuleConfig(num_players=2, episode="round")
    player = TablePlayer(rules, make_entrants([spec, "tactical"], rules), seed=0)
    once, again = (player.play(0, (0, 1))["steps"][0] for _ in range(2))
    player.close()
    assert once != again  # the same game, played again by the same process: it learned from the first
    runs = []
    for k in range(2):
        starts.unlink()
        summary, records = tournament([spec, "tactical"], "penalty", tmp_path / str(k), games=12, workers=2)
        # one per seat and worker, none in this process: worker k plays tables k, k + 2, ..., whose
        # two seatings alternate, so each worker seats the program in one seat only
        assert len(starts.read_text().split()) == 2
        runs.append((records["outcome"].tolist(), records["steps"].tolist()))
        assert all(sum(r["failures"].values()) == 0 for r in summary["leaderboard"])
    assert runs[0] == runs[1]
    assert FAILURE_KINDS == ("died", "stalled", "bad line", "framing", "illegal action")


def test_what_a_program_started_ends_with_uno_play_and_the_env(tmp_path):
    """A child that left the program's process group (setsid) ends with the program: when
    ``uno play`` ends and at the Gymnasium env's ``close()``."""
    import io

    from uno_env import UnoGymEnv
    from uno_env.agents import make_agent
    from uno_env.cli.play import main

    marker = f"daemon-{uuid.uuid4().hex}"
    spec = program("daemon", marker, marker, seconds=5)
    out = io.StringIO()
    script = "draw\npass\naccept\ncolor R\n" * 3000
    assert main(["--players", "2", "--opponents", spec, "--seed", "4"], stdin=io.StringIO(script), stdout=out) == 0
    assert "winner:" in out.getvalue()
    no_process_left(marker)
    env = UnoGymEnv(opponents=[make_agent(spec, Game(num_players=2))], num_players=2, episode="round")
    env.reset(seed=1)
    deadline = time.monotonic() + 20
    while len(processes_with(marker)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(processes_with(marker)) == 2  # the program and its child, in another session
    env.close()
    no_process_left(marker)


@pytest.mark.parametrize("illegal_action", ["penalty", "lose"])
def test_saved_games_with_a_forfeit_replay(illegal_action, tmp_path, capsys):
    """--save-games: a game a program forfeited is saved with its failures and replays (under
    "penalty" the record stops before the forfeit, which is no action of those settings)."""
    from uno_env.cli.tournament import main
    from uno_env.engine.record import replay

    spec = program("not_held", "1", "saved")
    argv = ["--agents", f"{spec},tactical", "--players", "2", "--games", "2", "--workers", "1", "--no-progress"]
    argv += [
        "--set",
        f"illegal_action={illegal_action}",
        "--bootstrap",
        "0",
        "--out",
        str(tmp_path),
        "--save-games",
        "2",
    ]
    assert main(argv) == 0
    records = [json.loads(path.read_text()) for path in sorted((tmp_path / "games").glob("game_*.json"))]
    assert len(records) == 2 and (tmp_path / "games" / "game_0.html").is_file()
    for record in records:
        (failure,) = record["failures"]
        assert failure["what"] == "illegal action" and failure["forfeit"] and "'play " in failure["detail"]
        replay(record)


def test_ties_and_games_without_a_winner_are_reported(tmp_path):
    """Every game undecided (cut at the step limit), and a game shared by two winners: the
    summary, the ratings and the plot hold."""
    from uno_env.arena import analyse, build_schedule, empty_records, make_entrants, plot

    rules = RuleConfig(num_players=2, episode="round")
    entrants = make_entrants(["random", "tactical"], rules)
    plan = build_schedule("mixed", 2, 2, 2)
    records = empty_records(2, 2)
    records["truncated"][:], records["steps"][:], records["rounds"][:] = True, 10, 1
    for outcome in ([[0, 0], [0, 0]], [[1, 1], [1, -1]]):
        records["outcome"][:] = outcome
        summary = analyse(rules, entrants, plan, records, 0, 50)
        summary.update(games=2, players=2, schedule="mixed", seed=0)
        for row in summary["leaderboard"]:
            assert row["rating_ci"][0] <= row["rating"] <= row["rating_ci"][1]
        plot(tmp_path / "t.png", summary, records)
        assert (tmp_path / "t.png").stat().st_size and format_leaderboard(summary)


def test_the_command_says_a_failure_in_words():
    from uno_env.cli.tournament import failures_in_words

    with failures_in_words():
        said = warnings.formatwarning(ProgramFailureWarning("table game 3, ..."), ProgramFailureWarning, "f.py", 1)
        other = warnings.formatwarning(UserWarning("other"), UserWarning, "f.py", 1)
    assert said == "uno tournament: warning: table game 3, ...\n" and "f.py:1: UserWarning: other" in other
