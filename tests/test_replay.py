"""HTML replays (uno_env.replay, `uno replay`): one self-contained page per record, with
the table of every step; a real browser (Debian's chromium, when installed) runs the page."""

import json
import re
import shutil
import subprocess

import pytest

from agents import make_agent
from experiments.cli import main as uno
from uno_env.engine import Game
from uno_env.engine.record import Recorder, save
from uno_env.replay import Replay, frames, to_html

NAMES = ["tactical", "keeper", "random_play"]


@pytest.fixture(scope="module")
def record():
    game = Game(num_players=3, stacking="mixed")
    state = game.init(seed=12)
    agents = [make_agent(name, game, seed=s) for s, name in enumerate(NAMES)]
    recorder = Recorder(game, state, agents=NAMES)
    game.play(state, agents, on_step=recorder.on_step)
    return recorder.record()


def page_data(page: str) -> dict:
    found = re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S)
    assert found, "the page carries its data"
    return json.loads(found.group(1))


def test_the_page_holds_every_step_and_fetches_nothing(record):
    page = to_html(record)
    data = page_data(page)
    table = data["frames"]
    assert len(table) == len(record["actions"]) + 1 and table[0]["taken"] is None
    assert [f["taken"]["action"] for f in table[1:]] == [
        Game(num_players=3, stacking="mixed").actions.strings[a] for a in record["actions"]
    ]
    assert data["agents"] == NAMES and table[-1]["phase"] == "over" and table[-1]["outcome"]
    assert all(len(f["hands"]) == 3 and len(f["seen"]) == 3 for f in table)
    # what a seat saw differs from the god's-eye events where someone else drew
    assert any(f["seen"][0] != f["events"] for f in table)
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:|//)", page) and "<link" not in page
    assert "</script>" not in page.split('type="application/json">', 1)[1].split("</script>", 1)[0]


def test_frames_follow_the_game(record):
    game, table = frames(record)
    for before, after in zip(table, table[1:]):
        assert after["taken"]["seat"] == before["current"]
        assert after["taken"]["action"] in before["legal"]


def test_uno_replay_writes_the_page_and_refuses_bad_records(record, tmp_path, capsys):
    path = save(record, tmp_path / "game.json")
    assert uno(["replay", str(path), "-o", str(tmp_path / "out.html"), "--seat", "1"]) == 0
    assert page_data((tmp_path / "out.html").read_text())["seat"] == 1
    assert uno(["replay", str(path)]) == 0 and (tmp_path / "game.html").is_file()
    bad = dict(record, actions=[*record["actions"][:5], 10**6, *record["actions"][6:]])
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    with pytest.raises(SystemExit) as exit_:
        uno(["replay", str(tmp_path / "bad.json"), "-o", str(tmp_path / "bad.html")])
    assert exit_.value.code == 2 and "step 5" in capsys.readouterr().err
    assert not (tmp_path / "bad.html").exists()
    with pytest.raises(SystemExit):
        uno(["replay", str(path), "--seat", "3"])


def test_a_record_shows_itself_in_a_notebook(record, tmp_path):
    shown = Replay(record)._repr_html_()
    assert shown.startswith("<iframe srcdoc=") and "&lt;script" in shown
    assert Replay(record).save(tmp_path / "r.html").read_text() == to_html(record)


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def headless(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=3000", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (make test installs it)")
def test_a_real_browser_draws_the_table_at_the_linked_step(record, tmp_path):
    page = tmp_path / "game.html"
    page.write_text(to_html(record))
    step = 9
    dom = headless("--dump-dom", f"file://{page}#step={step}&view=0").stdout
    dom = dom.split('<script id="data"')[0]  # what the script drew, not its own text
    table = page_data(page.read_text())["frames"][step]
    assert f"{step} / {len(record['actions'])}" in dom  # the script ran and opened the linked step
    assert dom.count('class="seat') == 3
    assert all(f'aria-label="{card}"' in dom for card in table["hands"][0])  # seat 0's own cards face up
    assert dom.count('aria-label="face down card"') == len(table["hands"][1]) + len(table["hands"][2])
    shot = tmp_path / "shot.png"
    headless("--window-size=1200,800", f"--screenshot={shot}", f"file://{page}#step={step}&view=all")
    assert shot.stat().st_size > 10_000
