"""HTML replays (uno_env.replay, `uno replay`): one self-contained page per record, with
the table of every step; a real browser (Debian's chromium, when installed) runs the page."""

import json
import re

import pytest

from uno_env.agents import make_agent
from uno_env.cli.main import main as uno
from uno_env.engine import Game
from uno_env.engine.record import Recorder, save
from uno_env.replay import Replay, frames, to_html

from .browser import browser, requests_made, screenshot, wait_for

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


def test_a_real_browser_steps_through_the_replay_and_fetches_nothing(record, tmp_path):
    """The page in headless chromium: opened at a linked step, stepped forward and back
    with the buttons and the arrow keys, the DOM showing the frame's cards and actions;
    every request it makes is for the file itself (no network)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page = tmp_path / "game.html"
    page.write_text(to_html(record))
    table = page_data(page.read_text())["frames"]
    driver = browser(network_log=True)
    try:
        driver.get(f"file://{page}#step=9&view=0")
        wait_for(driver, "return document.getElementById('stepno').textContent.startsWith('9 /')", "step 9")

        def shows(k: int, viewer: int | None) -> None:
            frame = table[k]
            assert driver.find_element(By.ID, "stepno").text == f"{k} / {len(table) - 1}"
            labels = driver.execute_script(
                "return [...document.querySelectorAll('#table .seat')].map(s =>"
                " [...s.querySelectorAll('svg')].map(c => c.getAttribute('aria-label')))"
            )
            for seat, hand in enumerate(frame["hands"]):
                expected = hand if viewer is None or viewer == seat else ["face down card"] * len(hand)
                assert labels[seat] == expected, (k, seat)
            taken = driver.find_element(By.ID, "taken").text
            assert (frame["taken"] is None and taken == "the deal") or frame["taken"]["action"] in taken
            if frame["phase"] != "over" and (viewer is None or viewer == frame["current"]):
                legal = driver.execute_script(
                    "return [...document.querySelectorAll('.legal span')].map(e => e.textContent)"
                )
                assert legal == frame["legal"]

        shows(9, 0)
        driver.find_element(By.ID, "next").click()
        shows(10, 0)
        body = driver.find_element(By.TAG_NAME, "body")
        body.send_keys(Keys.ARROW_RIGHT)
        body.send_keys(Keys.ARROW_RIGHT)
        shows(12, 0)
        driver.find_element(By.ID, "prev").click()
        body.send_keys(Keys.ARROW_LEFT)
        shows(10, 0)
        driver.execute_script("const v = document.getElementById('view'); v.value = 'all'; v.onchange()")
        shows(10, None)
        assert driver.execute_script("return location.hash") == "#step=10&view=all"
        driver.find_element(By.ID, "round").click()  # to the first frame of the next round
        shows(next(k for k, f in enumerate(table) if f["round"] > table[10]["round"]), None)
        assert not driver.find_element(By.ID, "round").get_property("hidden")  # a whole game: rounds to jump to
        driver.execute_script("location.hash = '#step=4&view=1'")  # the address changed after the page opened
        wait_for(driver, "return document.getElementById('stepno').textContent.startsWith('4 /')", "step 4")
        shows(4, 1)
        assert screenshot(driver, "replay").stat().st_size > 10_000
        requests = requests_made(driver)
        assert requests and all(url.split("#")[0] == f"file://{page}" for url in requests), requests
        hand = tmp_path / "hand.html"  # one hand: no "next round" to offer
        hand.write_text(to_html(one_hand()))
        driver.get(f"file://{hand}")
        wait_for(driver, "return document.getElementById('stepno').textContent.startsWith('0 /')", "the hand")
        assert driver.find_element(By.ID, "round").get_property("hidden")
        assert not driver.find_element(By.ID, "round").is_displayed()
    finally:
        driver.quit()


def one_hand() -> dict:
    game = Game(num_players=2, episode="round")
    state = game.init(seed=3)
    agents = [make_agent("tactical", game, seed=s) for s in range(2)]
    recorder = Recorder(game, state, agents=["tactical", "tactical"])
    game.play(state, agents, on_step=recorder.on_step)
    return recorder.record()


def test_the_page_carries_a_nonce_on_its_own_tags_only(record):
    """For a Content-Security-Policy that runs only the page's own code (``uno serve``): the
    nonce goes on the template's script and style tags, never into the record's data."""
    named = dict(record, agents=['<script nonce="x">', "keeper", "random_play"])
    page = to_html(named, nonce="n0nce-_1")
    assert page.count('nonce="n0nce-_1"') == 3  # the style, the data and the viewer's script
    data = page_data(page.replace('<script nonce="n0nce-_1" id="data"', '<script id="data"'))
    assert data["agents"] == named["agents"]
    with pytest.raises(ValueError, match="nonce"):
        to_html(record, nonce='" onload="x')
