"""``uno ladder`` (uno_env/arena/ladder*.py, uno_env/cli/ladder.py): the issue's checks (the
4-player ladder ranked after 300 games, two plays at once adding exactly their games, a play
killed with SIGKILL), the file (schema version, one game per deal and seating), identities
and versions, the choice of tables, show's JSON and page."""

from __future__ import annotations

import json
import multiprocessing
import os
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from uno_env import RuleConfig
from uno_env.arena import DealTables, make_entrants
from uno_env.arena import ladder as L
from uno_env.arena.ladder_report import html_page, standings
from uno_env.arena.ladder_store import LadderStore
from uno_env.cli.main import main as uno

from .browser import browser, screenshot, wait_for

ROOT = Path(__file__).resolve().parent.parent
FOUR = ("random_play", "keeper", "tactical")


def make_ladder(path: Path, specs, *rules: str) -> Path:
    assert uno(["ladder", "new", str(path), *rules]) == 0
    for spec in specs:
        assert uno(["ladder", "add", str(path), spec]) == 0
    return path


def show_json(path: Path, capsys) -> dict:
    capsys.readouterr()
    assert uno(["ladder", "show", str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def games(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT id, deal, seating, play FROM games ORDER BY id").fetchall()


def test_a_four_player_ladder_ranks_random_play_keeper_tactical_after_300_games(tmp_path, capsys):
    path = make_ladder(tmp_path / "four.db", FOUR, "--players", "4")
    assert uno(["ladder", "play", str(path), "--games", "300", "--no-progress"]) == 0
    assert "played 300 games" in capsys.readouterr().out
    out = show_json(path, capsys)
    assert out["games"] == 300 and out["players"] == 4
    assert [e["name"] for e in out["entrants"]] == ["tactical", "keeper", "random_play"]
    for e in out["entrants"]:
        assert e["games"] == 300 and len(e["interval"]) == 2 and e["interval"][0] <= e["rating"] <= e["interval"][1]
    # each table is one deal in every rotation of its seats: every entrant dealt every seat's cards
    by_deal: dict[int, list[tuple[int, ...]]] = {}
    for _, deal, seating, _ in games(path):
        by_deal.setdefault(deal, []).append(tuple(map(int, seating.split(","))))
    for seatings in by_deal.values():
        assert len(seatings) == 4 and all(s == seatings[0][r:] + seatings[0][:r] for r, s in enumerate(seatings))


def play_at_the_barrier(path: str, barrier, results) -> None:
    rules = RuleConfig(num_players=4)
    for _ in DealTables(rules, make_entrants(list(FOUR), rules), 0).play([(0, (0, 1, 2, 0))]):
        pass  # the compiled play loaded before the start, so both start playing at once
    barrier.wait()
    done = L.play_ladder(path, games=200, command="test")
    results.put((done["play"], done["games"]))


def test_two_plays_at_once_add_exactly_the_games_each_reports(tmp_path):
    """Two processes, released together, play 200 games each on one file: 400 games, 200 of
    each, their commits interleaved, no deal played twice at one seating."""
    path = make_ladder(tmp_path / "four.db", FOUR, "--players", "4")
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(2), ctx.Queue()
    workers = [ctx.Process(target=play_at_the_barrier, args=(str(path), barrier, results)) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=300)
        assert w.exitcode == 0
    reported = dict(results.get(timeout=5) for _ in workers)
    assert sorted(reported.values()) == [200, 200]
    rows = games(path)
    assert len(rows) == 400 and len({(deal, seating) for _, deal, seating, _ in rows}) == 400
    assert {play: sum(1 for r in rows if r[3] == play) for play in reported} == reported
    plays = [r[3] for r in rows]
    assert sum(a != b for a, b in zip(plays, plays[1:])) > 1  # they did write at the same time
    deals = {play: {r[1] for r in rows if r[3] == play} for play in reported}
    assert not set.intersection(*deals.values())  # each took its own deals


def environment() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


def test_a_play_killed_with_sigkill_keeps_its_games_and_a_later_play_goes_on(tmp_path, capsys):
    path = make_ladder(tmp_path / "four.db", FOUR, "--players", "4")
    command = [sys.executable, "-m", "uno_env.cli", "ladder", "play", str(path), "--games", "1000000", "--no-progress"]
    process = subprocess.Popen(command, env=environment(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while len(games(path)) < 200 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait()
    assert process.returncode == -signal.SIGKILL
    kept = games(path)
    assert len(kept) >= 200
    store = LadderStore.open(path)
    assert store.integrity() == "ok"
    store.close()
    assert uno(["ladder", "play", str(path), "--games", "20", "--no-progress"]) == 0
    after = games(path)
    assert after[: len(kept)] == kept and len(after) == len(kept) + 20
    assert min(r[1] for r in after[len(kept) :]) > max(r[1] for r in kept)  # the deals go on, none reused
    assert show_json(path, capsys)["games"] == len(kept) + 20


def test_a_deal_is_never_stored_twice_at_one_seating_and_deal_numbers_are_handed_out_once(tmp_path):
    path = make_ladder(tmp_path / "two.db", ("keeper", "naive"))
    one, two = LadderStore.open(path), LadderStore.open(path)
    try:
        assert list(one.take_deals(3)) == [0, 1, 2] and list(two.take_deals(2)) == [3, 4]
        play = one.begin_play("test")
        entrants = make_entrants(["keeper", "naive"], one.rules())
        game = next(iter(DealTables(one.rules(), entrants, 0).play([(0, (0, 1))])))[1]
        one.add_game(play, 0, (1, 2), game)
        with pytest.raises(sqlite3.IntegrityError):
            two.add_game(play, 0, (1, 2), game)
        two.add_game(play, 0, (2, 1), game)  # the same deal at the other seating
        assert one.count_games() == 2
    finally:
        one.close()
        two.close()


def test_the_file_is_checked_when_opened(tmp_path, capsys):
    path = make_ladder(tmp_path / "l.db", ("keeper",))
    assert uno(["ladder", "new", str(path)]) == 2
    assert "exists" in capsys.readouterr().err
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    assert uno(["ladder", "show", str(path)]) == 2
    assert "ladder schema version 99; this uno reads version 1" in capsys.readouterr().err
    (tmp_path / "text.db").write_text("not a database, just text that is long enough to be a header" * 20)
    assert uno(["ladder", "play", str(tmp_path / "text.db"), "--games", "1"]) == 2
    assert "is not an uno ladder" in capsys.readouterr().err
    assert uno(["ladder", "add", str(tmp_path / "none.db"), "keeper"]) == 2
    assert "no ladder at" in capsys.readouterr().err and not (tmp_path / "none.db").exists()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_the_rules_are_fixed_when_the_ladder_is_made(tmp_path, capsys):
    path = make_ladder(tmp_path / "h.db", ("tactical", "tactical_v1"), "--players", "3", "--set", "seven_o=true")
    assert uno(["ladder", "play", str(path), "--games", "6", "--no-progress"]) == 0
    out = show_json(path, capsys)
    assert out["settings"]["seven_o"] and out["players"] == 3 and out["episode"] == "round"
    assert all(len(seating.split(",")) == 3 for _, _, seating, _ in games(path))  # 2 entrants, 3 seats: A B A
    assert uno(["ladder", "show", str(path)]) == 0
    assert "rules: seven_o=True" in capsys.readouterr().out


def test_an_entrant_whose_file_changed_is_a_new_version_and_the_old_one_retires(tmp_path, capsys):
    bot = tmp_path / "bot.py"
    bot.write_text((ROOT / "examples" / "bots" / "random_bot.py").read_text())
    spec = f"cmd:{shlex.quote(sys.executable)} {bot}"
    path = make_ladder(tmp_path / "bots.db", ("tactical",))
    assert uno(["ladder", "add", str(path), spec, "--name", "bot"]) == 0
    assert "sha256 of" in capsys.readouterr().out
    assert uno(["ladder", "add", str(path), spec, "--name", "bot"]) == 0
    assert "already on the ladder, unchanged" in capsys.readouterr().out
    assert uno(["ladder", "play", str(path), "--games", "4", "--no-progress"]) == 0
    bot.write_text(bot.read_text() + "\n# a change\n")
    assert uno(["ladder", "play", str(path), "--games", "4", "--no-progress"]) == 2
    assert "'bot' (sha256 of" in capsys.readouterr().err and len(games(path)) == 4  # nothing played
    assert uno(["ladder", "add", str(path), "tactical", "--name", "bot"]) == 2
    assert "give 'tactical' another --name" in capsys.readouterr().err
    assert uno(["ladder", "add", str(path), spec, "--name", "bot"]) == 0
    assert "registered as a new entrant 'bot v2'" in capsys.readouterr().out
    assert uno(["ladder", "play", str(path), "--games", "4", "--workers", "2", "--no-progress"]) == 0
    out = show_json(path, capsys)
    entrants = {e["name"]: e for e in out["entrants"]}
    assert (entrants["bot"]["plays"], entrants["bot v2"]["plays"]) == (False, True)
    assert (entrants["bot"]["games"], entrants["bot v2"]["games"], out["games"]) == (4, 4, 8)


def test_a_new_entrant_plays_first_and_the_least_known_next():
    """Two entrants with 1,000 games between them and two with 20: the next ten tables each
    seat one of the two least known; an entrant without games sits at the next tables."""
    multiplicity = np.zeros((1030, 5))
    credit = np.zeros((1030, 5))
    for g, (a, b) in enumerate([(0, 1)] * 1000 + [(2, 3)] * 10 + [(1, 2)] * 10 + [(0, 3)] * 10):
        multiplicity[g, [a, b]] = 1
        credit[g, a if g % 2 else b] = 1
    tally = L.Tally(multiplicity[:, :4], credit[:, :4])
    chosen = L.choose_tables(tally, [0, 1, 2, 3], 2, 10)
    assert (0, 1) not in chosen and all({2, 3} & set(table) for table in chosen)
    with_new = L.Tally(multiplicity, credit)
    chosen = L.choose_tables(with_new, [0, 1, 2, 3, 4], 2, 3)
    assert 4 in chosen[0] and 4 in chosen[1] and len(set(chosen)) >= 2


def test_show_as_json_text_and_a_page_with_the_plot_in_a_browser(tmp_path, capsys):
    path = make_ladder(tmp_path / "two.db", ("random_play", "tactical", "keeper"))
    assert uno(["ladder", "show", str(path)]) == 0
    assert "no games yet" in capsys.readouterr().out
    assert uno(["ladder", "play", str(path), "--games", "60", "--no-progress"]) == 0
    page = tmp_path / "ladder.html"
    assert uno(["ladder", "show", str(path), "--html", str(page)]) == 0
    text = capsys.readouterr().out
    assert "head to head" in text and f"wrote {page}" in text
    out = show_json(path, capsys)
    assert set(out) >= {"games", "entrants", "head_to_head", "seats"}
    assert out["head_to_head"]["tactical"]["random_play"]["games"] > 0
    driver = browser()
    try:
        driver.get(f"file://{page}")
        loaded = "const i = document.querySelector('img'); return i && i.complete && i.naturalWidth"
        assert wait_for(driver, loaded, "the plot") > 500
        cells = driver.execute_script(
            "return [...document.querySelectorAll('tr td:first-child')].map(c => c.textContent)"
        )
        assert cells[:3] == [e["name"] for e in out["entrants"]]
        screenshot(driver, "ladder_show")
    finally:
        driver.quit()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["play", "{path}"], "one of the arguments --games --minutes is required"),
        (["play", "{path}", "--games", "0"], "expected an integer 1.."),
        (["play", "{path}", "--minutes", "nan"], "expected seconds above 0"),
        (["add", "{path}", "nobody"], "unknown agent 'nobody'"),
        (["add", "{path}", "keeper", "--name", "keeper v2"], "not ending in ' v<number>'"),
        (["play", "{path}", "--games", "5"], "has 1 entrant(s) that play"),
    ],
)
def test_a_bad_value_is_refused_naming_it_and_nothing_changes(argv, message, tmp_path, capsys):
    path = make_ladder(tmp_path / "l.db", ("keeper",))
    before = path.read_bytes()
    try:
        status = uno(["ladder", *[a.format(path=path) for a in argv]])
    except SystemExit as stop:  # argparse's refusal of an option's value
        status = stop.code
    assert status == 2 and message in capsys.readouterr().err
    assert games(path) == [] and path.read_bytes() == before


def test_minutes_plays_until_they_are_over(tmp_path, capsys):
    path = make_ladder(tmp_path / "l.db", ("keeper", "naive"))
    assert uno(["ladder", "play", str(path), "--minutes", "0.01", "--no-progress"]) == 0
    said = capsys.readouterr().out
    assert len(games(path)) > 0 and f"played {len(games(path))} games" in said


def test_the_page_escapes_every_name(tmp_path):
    path = make_ladder(tmp_path / "l.db", ("keeper",))
    assert uno(["ladder", "add", str(path), "naive", "--name", "<img src=x onerror=alert(1)>"]) == 0
    assert uno(["ladder", "play", str(path), "--games", "4", "--no-progress"]) == 0
    store = LadderStore.open(path)
    try:
        page = html_page(standings(store))
    finally:
        store.close()
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
